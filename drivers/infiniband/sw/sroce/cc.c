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
 *   dcqcn	AIMD's window, and DCQCN's rate (proto/dcqcn.h): requests
 *		go ECT(0), a switch marks them CE when its queue builds,
 *		the peer answers with a CNP, and each CNP cuts the pace.
 *		For a LAN with ECN-marking switches, and RoCE NICs.
 *
 * Whatever its policy, a QP that receives a CE-marked packet sends its
 * peer a CNP, at most one per 50 us, as a RoCE NIC does (the notification
 * point); only a QP under dcqcn reacts to one.
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
#include <net/inet_ecn.h>

#include "sroce.h"
#include "rc.h"
#include "trace.h"

static const char * const sroce_cc_names[] = {
	[SROCE_CC_AIMD] = "aimd",
	[SROCE_CC_WAN] = "wan",
	[SROCE_CC_DCQCN] = "dcqcn",
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
MODULE_PARM_DESC(cc, "Congestion control of new devices: aimd, wan or dcqcn; per device: /sys/class/infiniband/DEV/cc [aimd]");

u8 sroce_cc_default_mode(void)
{
	return READ_ONCE(sroce_cc_default);
}

/*
 * Pace at @pps packets a second (0: not paced): the gap between paced
 * packets, and the QP's share of the device's rc_pacing_kbps gauge, kept
 * as a sum so that reading it walks no QP.  Only the QP's engine, or its
 * RTS and reset (the engine quiet for the requester), set it.
 */
void sroce_cc_set_pace(struct sroce_qp *qp, u64 pps)
{
	struct sroce_req *req = &qp->req;
	u64 kbps = div_u64(pps * (req->seg ?: qp->mtu) * 8, 1000);

	req->pace_gap_ns = pps ? div64_u64(NSEC_PER_SEC, pps) : 0;
	if (kbps == req->pace_kbps)
		return;
	atomic64_add(kbps - req->pace_kbps,
		     &qp->sdev->cnt.c[SROCE_CNT_RC_PACING_KBPS]);
	req->pace_kbps = kbps;
}

/*
 * An RTT sample of some RC QP: the device's rc_srtt_us gauge follows it
 * (1/8 per sample, as srtt).  Racing samples may lose one another's
 * update; a gauge can afford that, and no lock is taken per ACK.
 */
void sroce_cc_rtt_gauge(struct sroce_qp *qp, u64 us)
{
	atomic64_t *g = &qp->sdev->cnt.c[SROCE_CNT_RC_SRTT_US];
	s64 old = atomic64_read(g);

	atomic64_set(g, old ? old - old / 8 + (s64)us / 8 : (s64)us);
}

/* The QP's choice at creation (sroce-abi.h), else the device's now. */
static u8 sroce_cc_mode_of(const struct sroce_qp *qp)
{
	switch (qp->cc_pref) {
	case SROCE_QP_CC_AIMD:
		return SROCE_CC_AIMD;
	case SROCE_QP_CC_WAN:
		return SROCE_CC_WAN;
	case SROCE_QP_CC_DCQCN:
		return SROCE_CC_DCQCN;
	default:
		return READ_ONCE(qp->sdev->cc);
	}
}

/* RTS: the QP's policy or the device's, a fresh model, no pace yet. */
void sroce_cc_arm(struct sroce_qp *qp)
{
	struct sroce_req *req = &qp->req;
	u64 now = sroce_clock_ns();

	req->cc = sroce_cc_mode_of(qp);
	sroce_wan_init(&req->wan, SROCE_CWND_MIN, SROCE_WINDOW_DEFAULT,
		       SROCE_WINDOW_MAX, now);
	req->delivered = 0;
	req->delivered_ns = now;
	req->first_tx_ns = now;
	req->app_limited = 0;
	memset(&req->rs, 0, sizeof(req->rs));
	sroce_cc_set_pace(qp, 0);
	req->pace_next_ns = now;
	req->pace_behind = false;
	sroce_dcqcn_init(&req->dcqcn, SROCE_DCQCN_PERIOD_MIN_NS, now);
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

/*
 * A record just sent: what was delivered by then (rate samples), and
 * whether the sender kept its pace (sroce_cc_paced()).  Only a cruising
 * WAN model asks: in startup, late packets must not keep it from finding
 * the path full.
 */
void sroce_cc_sent(struct sroce_req *req, struct sroce_txpkt *p)
{
	p->del = req->delivered;
	p->del_ns = req->delivered_ns;
	p->first_tx_ns = req->first_tx_ns;
	p->flags &= ~(SROCE_TXPKT_APP_LIMITED | SROCE_TXPKT_LATE);
	if (req->app_limited)
		p->flags |= SROCE_TXPKT_APP_LIMITED;
	if (req->pace_gap_ns && req->cc == SROCE_CC_WAN &&
	    req->wan.state == SROCE_WAN_PROBE_BW && req->pace_behind)
		p->flags |= SROCE_TXPKT_LATE;
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
	rs->ack_ns = now > p->del_ns ? now - p->del_ns : 0;
	rs->send_ns = p->xmit_ns > p->first_tx_ns ?
		      p->xmit_ns - p->first_tx_ns : 0;
	/* Karn: a resent packet's delivery times neither copy. */
	rs->rtt_ns = !(p->flags & SROCE_TXPKT_RESENT) && now > p->xmit_ns ?
		     now - p->xmit_ns : 0;
	rs->app_limited = p->flags & SROCE_TXPKT_APP_LIMITED;
	rs->late = p->flags & SROCE_TXPKT_LATE;
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
		sroce_wan_ack(&req->wan, rs, sroce_req_rx_now(req));
		trace_sroce_rate(qp->ibqp.qp_num,
				 rs->delivered - rs->prior_delivered,
				 rs->ack_ns, rs->send_ns, rs->rtt_ns,
				 rs->app_limited, sroce_wan_bw(&req->wan),
				 req->wan.min_rtt_ns);
		req->cwnd.cwnd = req->wan.cwnd;
		pps = sroce_wan_pacing_pps(&req->wan);
		sroce_cc_set_pace(qp, pps);
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
	now = sroce_req_tx_now(req);
	if (sroce_pace_ok(req->pace_next_ns, now))
		return true;
	sroce_engine_backoff_ns(qp, req->pace_next_ns - now -
				SROCE_PACE_EARLY_NS);
	return false;
}

/*
 * A data packet of @len bytes went: whether it went behind its pace, and
 * the next one is due a gap later; DCQCN's byte counter and timers move.
 */
void sroce_cc_paced(struct sroce_qp *qp, u32 len)
{
	struct sroce_req *req = &qp->req;
	u64 now;

	if (req->cc != SROCE_CC_DCQCN && !req->pace_gap_ns)
		return;
	now = sroce_req_tx_now(req);
	if (req->cc == SROCE_CC_DCQCN &&
	    sroce_dcqcn_sent(&req->dcqcn, len, now))
		sroce_cc_set_pace(qp, sroce_dcqcn_pps(&req->dcqcn));
	if (!req->pace_gap_ns)
		return;
	req->pace_behind = sroce_pace_behind(req->pace_next_ns, now);
	req->pace_next_ns = sroce_pace_next(req->pace_next_ns, now,
					    req->pace_gap_ns);
}

/*
 * The rate a CNP finds an unpaced flow at: a window per round trip (1 ms
 * before the first sample).
 */
static u64 sroce_cc_rate_now(const struct sroce_req *req)
{
	u64 rtt_ns = (u64)(req->rtt.srtt_us ?: USEC_PER_MSEC) * NSEC_PER_USEC;

	if (req->pace_gap_ns)
		return div64_u64(NSEC_PER_SEC, req->pace_gap_ns);
	return div64_u64((u64)req->cwnd.cwnd * NSEC_PER_SEC, rtt_ns);
}

/* The reaction point: a CNP from the peer cuts the pace (dcqcn only). */
static void sroce_cc_cnp(struct sroce_qp *qp)
{
	struct sroce_req *req = &qp->req;

	/* Pairs with sroce_req_arm(): its policy and rate are set. */
	if (!smp_load_acquire(&req->ready) || req->cc != SROCE_CC_DCQCN)
		return;
	/* A cut takes a round trip to show: no second one before. */
	sroce_dcqcn_set_period(&req->dcqcn,
			       (u64)req->rtt.srtt_us * NSEC_PER_USEC);
	if (!sroce_dcqcn_cnp(&req->dcqcn, sroce_cc_rate_now(req),
			     sroce_clock_ns()))
		return;
	sroce_cc_set_pace(qp, sroce_dcqcn_pps(&req->dcqcn));
	trace_sroce_dcqcn_cut(qp->ibqp.qp_num, sroce_dcqcn_pps(&req->dcqcn),
			      req->dcqcn.alpha);
}

/* The notification point: tell the peer a packet of its came CE-marked. */
static void sroce_cc_send_cnp(struct sroce_qp *qp)
{
	struct sroce_req *req = &qp->req;
	u64 now = sroce_clock_ns();
	struct sroce_pkt_hdr h;
	struct sk_buff *skb;

	if (req->cnp_sent_ns && now - req->cnp_sent_ns < SROCE_DCQCN_CNP_GAP_NS)
		return;
	sroce_tx_hdr_init(qp, &h, SROCE_OPCODE_CNP, 0);
	h.becn = true;
	skb = sroce_tx_alloc(qp, &h, 0);
	if (!skb || sroce_tx_xmit(qp, skb))
		return;
	req->cnp_sent_ns = now;
	sroce_cnt_inc(sroce_qp_cnt(qp), SROCE_CNT_CNPS_SENT);
}

/* What the receive path flagged (sroce_engine_recv()), in the engine. */
void sroce_cc_signals(struct sroce_qp *qp)
{
	if (test_and_clear_bit(SROCE_ENG_CE, &qp->req.flags))
		sroce_cc_send_cnp(qp);
	if (test_and_clear_bit(SROCE_ENG_CNP, &qp->req.flags))
		sroce_cc_cnp(qp);
}

/*
 * The ECN field of a packet of @qp with this BTH opcode: ECT(0) on the
 * requests DCQCN paces, so that a switch may mark them; nothing else.
 */
u8 sroce_cc_ecn(const struct sroce_qp *qp, u8 opcode)
{
	const struct sroce_opcode_info *oi = sroce_wire_opcode_info(opcode);

	if (READ_ONCE(qp->req.cc) != SROCE_CC_DCQCN || !oi ||
	    !(oi->flags & SROCE_OPF_REQ))
		return 0;
	return INET_ECN_ECT_0;
}
