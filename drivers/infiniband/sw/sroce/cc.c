// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * Congestion control of the RC requester: which policy sets the window
 * and the pace, and the pacing itself.
 *
 *   aimd	the window halves once per loss episode and grows by one PSN
 *		per eight acknowledged (proto/req.c); no pacing.  Right for a
 *		LAN, where a loss means a full queue.
 *   wan	a model of the path (proto/cc.h, like BBR): bandwidth and
 *		minimum RTT from delivery rate samples set a pacing rate and
 *		a window of twice the bandwidth-delay product; random loss
 *		is not taken for congestion.  For long, lossy paths; best
 *		with selective repeat (sr.c), which repairs loss without
 *		stalling the window.
 *
 * Chosen per device (/sys/class/infiniband/DEV/cc, from the cc module
 * parameter when the device is created), read by each QP at RTS.
 *
 * Pacing spaces a QP's data packets by 1/rate (proto/cc.h: a train of
 * 1 ms per timer, and what a late timer lost made up), with the engine's
 * hrtimer when the next packet is not due yet; ACKs and READ responses
 * are not paced.
 */
#include <linux/moduleparam.h>

#include "sroce.h"
#include "rc.h"
#include "trace.h"

static const char * const sroce_cc_names[] = {
	[SROCE_CC_AIMD] = "aimd",
	[SROCE_CC_WAN] = "wan",
};

static int sroce_cc_default = SROCE_CC_AIMD;

int sroce_cc_parse(const char *buf)
{
	int i = sysfs_match_string(sroce_cc_names, buf);

	return i < 0 ? -EINVAL : i;
}

const char *sroce_cc_mode_name(u8 mode)
{
	return mode < ARRAY_SIZE(sroce_cc_names) ? sroce_cc_names[mode] : "?";
}

static int sroce_cc_param_set(const char *val, const struct kernel_param *kp)
{
	int mode = sroce_cc_parse(val);

	if (mode < 0)
		return mode;
	WRITE_ONCE(sroce_cc_default, mode);
	return 0;
}

static int sroce_cc_param_get(char *buf, const struct kernel_param *kp)
{
	return sysfs_emit(buf, "%s\n",
			  sroce_cc_mode_name(READ_ONCE(sroce_cc_default)));
}

static const struct kernel_param_ops sroce_cc_param_ops = {
	.set = sroce_cc_param_set,
	.get = sroce_cc_param_get,
};
module_param_cb(cc, &sroce_cc_param_ops, NULL, 0644);
MODULE_PARM_DESC(cc, "Congestion control of new devices: aimd or wan; per device: /sys/class/infiniband/DEV/cc [aimd]");

u8 sroce_cc_default_mode(void)
{
	return READ_ONCE(sroce_cc_default);
}

/* RTS: the device's policy, a fresh model, no pace yet. */
void sroce_cc_arm(struct sroce_qp *qp)
{
	struct sroce_req *req = &qp->req;
	u64 now = sroce_clock_ns();

	req->cc = READ_ONCE(qp->sdev->cc);
	sroce_wan_init(&req->wan, SROCE_CWND_MIN, SROCE_WINDOW_DEFAULT,
		       SROCE_WINDOW_MAX, now);
	req->delivered = 0;
	req->delivered_ns = now;
	req->first_tx_ns = now;
	req->app_limited = 0;
	memset(&req->rs, 0, sizeof(req->rs));
	req->pace_gap_ns = 0;
	req->pace_next_ns = now;
}

const char *sroce_cc_name(const struct sroce_qp *qp)
{
	return sroce_cc_mode_name(READ_ONCE(qp->req.cc));
}

/*
 * A loss, or a packet refused locally.  AIMD halves the window, once
 * per episode (until everything sent before it is acknowledged); the
 * WAN model does not take loss for congestion, but a timeout restarts
 * its window (proto/cc.c).
 */
void sroce_cc_loss(struct sroce_qp *qp, enum sroce_why why)
{
	struct sroce_req *req = &qp->req;

	if (req->cc == SROCE_CC_WAN) {
		if (why != SROCE_WHY_TIMEOUT)
			return;
		sroce_wan_timeout(&req->wan);
		req->cwnd.cwnd = req->wan.cwnd;
		trace_sroce_cwnd(qp->ibqp.qp_num, req->cwnd.cwnd, why);
		return;
	}
	if (sroce_cwnd_loss(&req->cwnd, req->una, req->psn_max))
		trace_sroce_cwnd(qp->ibqp.qp_num, req->cwnd.cwnd, why);
}

/* @n more PSNs acknowledged (una already moved): AIMD grows. */
void sroce_cc_acked(struct sroce_qp *qp, u32 n)
{
	struct sroce_cwnd *c = &qp->req.cwnd;
	u32 old = c->cwnd;

	if (qp->req.cc != SROCE_CC_AIMD)
		return;
	sroce_cwnd_acked(c, qp->req.una, n);
	/* Only growth is news: most ACKs leave a full window as it is. */
	if (trace_sroce_cwnd_enabled() && c->cwnd != old)
		trace_sroce_cwnd(qp->ibqp.qp_num, c->cwnd, SROCE_WHY_ACK);
}

/* A record about to be sent: what was delivered by then (rate samples). */
void sroce_cc_sent(struct sroce_req *req, struct sroce_txpkt *p)
{
	p->del = req->delivered;
	p->del_ns = req->delivered_ns;
	p->first_tx_ns = req->first_tx_ns;
	if (req->app_limited)
		p->flags |= SROCE_TXPKT_APP_LIMITED;
	else
		p->flags &= ~SROCE_TXPKT_APP_LIMITED;
}

/*
 * The SQ ran dry with the window open: until what is in flight now is
 * delivered, rate samples show the application's rate, not the path's,
 * and must not lower the model's bandwidth (a ping-pong, or verbs posted
 * one at a time, would otherwise pace the next burst at a trickle).
 */
void sroce_cc_app_idle(struct sroce_req *req)
{
	req->app_limited = (req->delivered + sroce_req_in_flight(req)) ?: 1;
}

/*
 * @p was delivered (acknowledged, or held by the peer): count it, and
 * keep the newest such packet of this ACK for its rate sample
 * (sroce_rate_interval()).
 */
void sroce_cc_delivered(struct sroce_req *req, const struct sroce_txpkt *p,
			u64 now)
{
	struct sroce_rate_sample *rs = &req->rs;

	req->delivered += p->npsn;
	req->delivered_ns = now;
	if (req->app_limited && req->delivered > req->app_limited)
		req->app_limited = 0;
	req->first_tx_ns = p->xmit_ns;
	rs->acked += p->npsn;
	if (rs->interval_ns && p->del < rs->prior_delivered)
		return;
	rs->prior_delivered = p->del;
	rs->interval_ns = sroce_rate_interval(now, p->del_ns, p->xmit_ns,
					      p->first_tx_ns);
	/* Karn: a resent packet's delivery times neither copy. */
	rs->rtt_ns = !(p->flags & SROCE_TXPKT_RESENT) && now > p->xmit_ns ?
		     now - p->xmit_ns : 0;
	rs->app_limited = p->flags & SROCE_TXPKT_APP_LIMITED;
}

/* The response is handled: feed its rate sample to the model. */
void sroce_cc_ack_done(struct sroce_qp *qp)
{
	struct sroce_req *req = &qp->req;
	struct sroce_rate_sample *rs = &req->rs;
	u64 pps;

	if (!rs->acked)
		return;
	if (req->cc == SROCE_CC_WAN) {
		rs->delivered = req->delivered;
		rs->inflight = sroce_req_in_flight(req);
		sroce_wan_ack(&req->wan, rs, sroce_clock_ns());
		req->cwnd.cwnd = req->wan.cwnd;
		pps = sroce_wan_pacing_pps(&req->wan);
		req->pace_gap_ns = pps ? div64_u64(NSEC_PER_SEC, pps) : 0;
	}
	memset(rs, 0, sizeof(*rs));
}

/*
 * May a data packet go now?  If not, the engine's timer brings it back
 * when it may.
 */
bool sroce_cc_pace_ok(struct sroce_qp *qp)
{
	struct sroce_req *req = &qp->req;
	u64 now;

	if (!req->pace_gap_ns)
		return true;
	now = sroce_clock_ns();
	if (sroce_pace_ok(req->pace_next_ns, now))
		return true;
	sroce_engine_backoff_ns(qp, req->pace_next_ns - now -
				SROCE_PACE_EARLY_NS);
	return false;
}

/* A data packet went: the next one is due a gap later. */
void sroce_cc_paced(struct sroce_qp *qp)
{
	struct sroce_req *req = &qp->req;
	u64 now;

	if (!req->pace_gap_ns)
		return;
	now = sroce_clock_ns();
	req->pace_next_ns = sroce_pace_next(req->pace_next_ns, now,
					    req->pace_gap_ns);
}
