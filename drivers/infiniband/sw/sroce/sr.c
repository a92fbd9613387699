// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * Selective repeat between sroce peers (Documentation/wire.rst,
 * "Negotiated extensions").
 *
 * Negotiation is in band, so that it works whatever set the connection
 * up (rdma_cm, perftest's own exchange, a kernel ULP): the requester sets
 * the BTH extension bit on its requests, the offer; a responder that
 * takes it up sets the bit on every response, the answer.  The first
 * response decides.  A standard peer ignores a reserved bit and never
 * sets it, so the requester stops offering after one round trip and
 * both sides speak plain RoCEv2.
 *
 * Agreed, the responder holds requests that arrive beyond a gap, in PSN
 * order, instead of dropping them with a sequence NAK, and its ACKs say
 * which PSNs it holds (proto/sack.h).  It still executes requests in PSN
 * order, from that queue, so every ordering rule of the verbs holds as
 * it does without the extension.  The requester marks what a SACK holds,
 * finds what is lost by RACK's rule, and resends only that.
 */
#include <linux/moduleparam.h>

#include "sroce.h"
#include "rc.h"
#include "trace.h"

static bool selective_repeat = true;
module_param(selective_repeat, bool, 0644);
MODULE_PARM_DESC(selective_repeat,
		 "Offer and accept selective repeat (sroce peers only), the default for new devices; per device: /sys/class/infiniband/DEV/selective_repeat [Y]");

/*
 * Bytes of requests one QP, and one device, may hold beyond gaps (skb
 * truesize).  A QP must hold what arrives in the round trips a lost
 * resend costs: at 20,000 packets a second and 3 KiB of truesize each,
 * 32 MiB is half a second.  The device's bound keeps a peer with many
 * QPs from pinning more.
 */
#define SROCE_OFO_BYTES		(32U << 20)
#define SROCE_OFO_DEV_BYTES	(256UL << 20)
/* Packets held within one SACK block between two SACKs. */
#define SROCE_OFO_ACK_EVERY	16
/* The least reordering allowance before a hole is called a loss. */
#define SROCE_REO_MIN_NS	(1 * NSEC_PER_MSEC)

/* Where a held request sits in PSN space (skb->cb, ours in the engine). */
struct sroce_ofo_cb {
	u32 psn;
	u32 npsn;
};

static struct sroce_ofo_cb *sroce_ofo_cb(struct sk_buff *skb)
{
	BUILD_BUG_ON(sizeof(struct sroce_ofo_cb) > sizeof(skb->cb));
	return (struct sroce_ofo_cb *)skb->cb;
}

bool sroce_sr_default(void)
{
	return READ_ONCE(selective_repeat);
}

static bool sroce_sr_enabled(const struct sroce_qp *qp)
{
	return READ_ONCE(qp->sdev->sr);
}

/* Requester ------------------------------------------------------------ */

/* RTS: offer the extension anew; a new peer may answer differently. */
void sroce_sr_req_arm(struct sroce_qp *qp)
{
	struct sroce_req *req = &qp->req;

	req->sr = sroce_sr_enabled(qp) ? SROCE_SR_OFFER : SROCE_SR_OFF;
	req->sacked = 0;
	req->lost = 0;
	req->rack_xmit_ns = 0;
	req->rack_rtt_ns = 0;
	req->rack_min_rtt_ns = 0;
	req->reo_armed = false;
	req->tlp_armed = false;
	req->tlp_out = false;
	req->offer_rto = false;
	sroce_elide_req_arm(qp);
	sroce_seg_req_arm(qp);
}

/*
 * For restrack and debugfs: the requester's side ("offered" until the
 * first response), and "accepted" when we only answer a peer's offer.
 */
const char *sroce_sr_name(const struct sroce_qp *qp)
{
	switch (READ_ONCE(qp->req.sr)) {
	case SROCE_SR_ON:
		return "on";
	case SROCE_SR_OFFER:
		return "offered";
	default:
		return READ_ONCE(qp->resp.sr_peer) ? "accepted" : "off";
	}
}

/* The first response answers the offer, yes or no. */
void sroce_sr_req_learn(struct sroce_qp *qp, const struct sroce_pkt_hdr *h)
{
	struct sroce_req *req = &qp->req;

	if (req->sr != SROCE_SR_OFFER)
		return;
	req->sr = h->ext ? SROCE_SR_ON : SROCE_SR_OFF;
	sroce_elide_req_learn(qp, h);
	sroce_seg_req_learn(qp, h);
	trace_sroce_sr(qp->ibqp.qp_num, req->sr);
}

/*
 * The timer fired before any answer to the offer.  A sroce peer holds
 * what came after a gap, a standard one dropped it, and a slow first ACK
 * (a new QP sends a whole initial window before it) means nothing was
 * lost at all.  So only the oldest packet goes again, as a probe; if the
 * answer refuses the offer, sroce_sr_req_refused() goes back N then.
 */
void sroce_sr_req_offer_rto(struct sroce_qp *qp)
{
	struct sroce_req *req = &qp->req;
	struct sroce_txpkt *p;

	trace_sroce_rewind(qp->ibqp.qp_num, req->una, req->psn_max,
			   SROCE_WHY_TIMEOUT);
	req->rtt_timing = false;
	sroce_rtt_timeout(&req->rtt);
	req->offer_rto = true;
	if (req->pkt_tail != req->pkt_head) {
		p = sroce_req_pkt(req, req->pkt_tail);
		if (!(p->flags & SROCE_TXPKT_LOST)) {
			p->flags |= SROCE_TXPKT_LOST;
			req->lost++;
		}
		req->tlp_out = true;
		req->tlp_psn = p->psn;
	}
	sroce_req_restart_rto(qp);
}

/*
 * After a response is taken: if it refused an offer that had timed out,
 * the peer dropped everything after the gap, so everything after what
 * it acknowledged goes again.
 */
void sroce_sr_req_refused(struct sroce_qp *qp)
{
	struct sroce_req *req = &qp->req;

	if (!req->offer_rto || req->sr == SROCE_SR_OFFER)
		return;
	req->offer_rto = false;
	/* A sequence NAK may have sent us back there already. */
	if (req->sr == SROCE_SR_OFF && req->una != req->psn_max &&
	    !(req->rewound && req->rewind_psn == req->una))
		sroce_req_rewind(qp, req->una, SROCE_WHY_REFUSED);
}

/* A record leaves the scoreboard (acknowledged, or about to be resent). */
void sroce_sr_req_forget(struct sroce_req *req, struct sroce_txpkt *p,
			 u32 npsn)
{
	if (p->flags & SROCE_TXPKT_SACKED)
		req->sacked -= min(npsn, req->sacked);
	if ((p->flags & SROCE_TXPKT_LOST) && npsn == p->npsn) {
		p->flags &= ~SROCE_TXPKT_LOST;
		req->lost--;
	}
}

/* @p was delivered (held or acknowledged): RACK's newest delivery. */
static void sroce_sr_delivered(struct sroce_req *req,
			       const struct sroce_txpkt *p, u64 now)
{
	bool resent = p->flags & SROCE_TXPKT_RESENT;
	u64 rtt = sroce_rack_rtt(now, p->xmit_ns, resent,
				 req->rack_min_rtt_ns);

	if (!rtt)
		return;
	if (!resent && (!req->rack_min_rtt_ns || rtt < req->rack_min_rtt_ns))
		req->rack_min_rtt_ns = rtt;
	if (p->xmit_ns <= req->rack_xmit_ns)
		return;
	req->rack_xmit_ns = p->xmit_ns;
	req->rack_rtt_ns = rtt;
}

void sroce_sr_req_acked(struct sroce_req *req, const struct sroce_txpkt *p,
			u64 now)
{
	if (req->sr == SROCE_SR_ON && !(p->flags & SROCE_TXPKT_SACKED))
		sroce_sr_delivered(req, p, now);
}

/* Mark the records @s holds; true if any was new. */
static bool sroce_sr_mark_sacked(struct sroce_req *req,
				 const struct sroce_sack *s, u64 now)
{
	u32 end = sroce_sack_end(s), i;
	bool news = false;

	for (i = req->pkt_tail; i != req->pkt_head; i++) {
		struct sroce_txpkt *p = sroce_req_pkt(req, i);

		if (!sroce_psn_before(p->psn, end))
			break;
		if ((p->flags & SROCE_TXPKT_SACKED) ||
		    !sroce_sack_covers(s, p->psn, p->npsn))
			continue;
		if (p->flags & SROCE_TXPKT_LOST) {
			/* A resend is no longer needed. */
			p->flags &= ~SROCE_TXPKT_LOST;
			req->lost--;
		}
		p->flags |= SROCE_TXPKT_SACKED;
		req->sacked += p->npsn;
		sroce_sr_delivered(req, p, now);
		sroce_cc_delivered(req, p, now);
		news = true;
	}
	return news;
}

static u64 sroce_sr_reo_wnd(const struct sroce_req *req)
{
	return max_t(u64, req->rack_rtt_ns / 4, SROCE_REO_MIN_NS);
}

/*
 * RACK over the records sent before the newest delivered one: lost if
 * out longer than its round trip plus the allowance.  The earliest of
 * the others arms the reorder timer for when it would be.
 */
static u32 sroce_sr_mark_lost(struct sroce_qp *qp, u64 now)
{
	struct sroce_req *req = &qp->req;
	u64 reo = sroce_sr_reo_wnd(req), wait = 0, left;
	u32 i, n = 0;

	req->reo_armed = false;
	/* Resent records break the time order: look at each up there. */
	for (i = req->pkt_tail; i != req->pkt_head; i++) {
		struct sroce_txpkt *p = sroce_req_pkt(req, i);

		/*
		 * Beyond the last block a SACK reported the peer may hold
		 * more than its eight blocks could say: not a hole yet.
		 */
		if (!sroce_psn_before(p->psn, req->sack_high))
			break;
		if (p->xmit_ns >= req->rack_xmit_ns ||
		    (p->flags & (SROCE_TXPKT_SACKED | SROCE_TXPKT_LOST)))
			continue;
		if (sroce_rack_lost(now, p->xmit_ns, req->rack_xmit_ns,
				    req->rack_rtt_ns, reo)) {
			p->flags |= SROCE_TXPKT_LOST;
			req->lost++;
			n++;
			continue;
		}
		left = p->xmit_ns + req->rack_rtt_ns + reo - now;
		if (!wait || left < wait)
			wait = left;
	}
	if (wait) {
		req->reo_armed = true;
		req->reo_at = jiffies + nsecs_to_jiffies(wait) + 1;
		sroce_req_timer_set(qp, req->reo_at);
	}
	if (n)
		sroce_cc_loss(qp, SROCE_WHY_SACK);
	return n;
}

/*
 * The oldest unacknowledged packet, said to be held: the peer has nothing
 * before it missing, so it executed it, and its ACK is what was lost.
 * Only a request makes the peer say it again: send it once more.
 */
static void sroce_sr_req_unsack_head(struct sroce_req *req)
{
	struct sroce_txpkt *p;

	if (req->pkt_tail == req->pkt_head)
		return;
	p = sroce_req_pkt(req, req->pkt_tail);
	if (!(p->flags & SROCE_TXPKT_SACKED))
		return;
	req->sacked -= min(p->npsn, req->sacked);
	p->flags &= ~SROCE_TXPKT_SACKED;
}

/*
 * The retransmit timer fired with selective repeat on: every packet the
 * peer did not say it holds is lost, and goes again, oldest first;
 * what it holds is not sent twice, as going back N would, except the
 * oldest (sroce_sr_req_unsack_head()).
 */
void sroce_sr_req_rto(struct sroce_qp *qp)
{
	struct sroce_req *req = &qp->req;
	u32 i;

	trace_sroce_rewind(qp->ibqp.qp_num, req->una, req->psn_max,
			   SROCE_WHY_TIMEOUT);
	/* Karn, and the backoff that lets a short RTO catch up (req.c). */
	req->rtt_timing = false;
	req->tlp_armed = false;
	sroce_rtt_timeout(&req->rtt);
	sroce_sr_req_unsack_head(req);
	for (i = req->pkt_tail; i != req->pkt_head; i++) {
		struct sroce_txpkt *p = sroce_req_pkt(req, i);

		if (p->flags & (SROCE_TXPKT_SACKED | SROCE_TXPKT_LOST))
			continue;
		p->flags |= SROCE_TXPKT_LOST;
		req->lost++;
	}
	sroce_req_restart_rto(qp);
}

/*
 * Tail loss probe (RFC 8985, section 7).  When the last packets of a
 * burst are lost, no later packet makes the peer SACK and RACK has
 * nothing to go on: only the RTO would find them, at least the QP's
 * timeout later, and then resend every packet not SACKed.  Two round
 * trips without an answer resend the newest packet instead: its ACK or
 * SACK shows what is missing.  After new data goes out, and after an ACK
 * moves una; one probe until una moves again.
 */
void sroce_sr_req_tlp_arm(struct sroce_qp *qp)
{
	struct sroce_req *req = &qp->req;
	u64 pto;

	if (req->sr != SROCE_SR_ON || req->tlp_out ||
	    req->una == req->psn_max)
		return;
	pto = sroce_tlp_pto_us(req->rtt.srtt_us, req->rtt.valid,
			       sroce_psn_sub(req->psn_max, req->una) == 1,
			       jiffies_to_usecs(1));
	if (!pto)
		return;
	req->tlp_at = jiffies + usecs_to_jiffies(pto) + 1;
	/* The RTO comes first: nothing to probe for. */
	if (req->rto_armed && !time_before(req->tlp_at, req->rto_at)) {
		req->tlp_armed = false;
		return;
	}
	req->tlp_armed = true;
	sroce_req_timer_set(qp, req->tlp_at);
}

/* The probe: the newest record is "lost", and goes again at once. */
static void sroce_sr_req_tlp(struct sroce_qp *qp)
{
	struct sroce_req *req = &qp->req;
	struct sroce_txpkt *p;

	if (!req->tlp_armed)
		return;
	if (time_before(jiffies, req->tlp_at)) {
		sroce_req_timer_set(qp, req->tlp_at);
		return;
	}
	req->tlp_armed = false;
	/* Something known lost is going already: its answer will do. */
	if (req->sr != SROCE_SR_ON || req->tlp_out || req->lost ||
	    req->pkt_tail == req->pkt_head)
		return;
	p = sroce_req_pkt(req, req->pkt_head - 1);
	if (p->flags & (SROCE_TXPKT_SACKED | SROCE_TXPKT_LOST))
		return;
	p->flags |= SROCE_TXPKT_LOST;
	req->lost++;
	req->tlp_out = true;
	req->tlp_psn = p->psn;
	sroce_cnt_inc(sroce_qp_cnt(qp), SROCE_CNT_TLP_PROBES);
}

/* The reorder timer and the probe (comp.c's timer hook). */
void sroce_sr_req_timer(struct sroce_qp *qp)
{
	struct sroce_req *req = &qp->req;

	sroce_sr_req_tlp(qp);
	if (!req->reo_armed)
		return;
	if (time_before(jiffies, req->reo_at)) {
		sroce_req_timer_set(qp, req->reo_at);
		return;
	}
	if (sroce_sr_mark_lost(qp, sroce_clock_ns()))
		sroce_engine_kick(qp);
}

/*
 * An ACK from an agreed peer may carry SACK blocks: read them (they come
 * from the network), mark, look for losses.  @h is an ACK already taken
 * as a cumulative acknowledgement, which may acknowledge nothing new.
 */
void sroce_sr_req_sack(struct sroce_qp *qp, const struct sk_buff *skb,
		       const struct sroce_pkt_hdr *h)
{
	u8 buf[SROCE_SACK_MAX_BYTES];
	struct sroce_req *req = &qp->req;
	struct sroce_sack s;
	const u8 *p;
	u64 now;

	if (req->sr != SROCE_SR_ON || !h->ext || !h->payload_len)
		return;
	p = skb_header_pointer(skb, h->hdr_len, h->payload_len, buf);
	if (!p || sroce_sack_get(p, h->payload_len, h->psn, &s)) {
		sroce_cnt_inc(sroce_qp_cnt(qp), SROCE_CNT_RX_BAD_RESP);
		return;
	}
	sroce_cnt_inc(sroce_qp_cnt(qp), SROCE_CNT_SACKS_RCVD);
	if (!req->sacked || sroce_psn_after(sroce_sack_end(&s), req->sack_high))
		req->sack_high = sroce_sack_end(&s);
	now = sroce_req_rx_now(req);
	if (sroce_sr_mark_sacked(req, &s, now))
		sroce_sr_mark_lost(qp, now);
}

/*
 * A SACK repeats the cumulative ACK while the gap stays open: its PSN
 * is una - 1, which the completer would take for a stale response.
 */
bool sroce_sr_req_dupack(struct sroce_qp *qp, const struct sk_buff *skb,
			 const struct sroce_pkt_hdr *h)
{
	struct sroce_req *req = &qp->req;

	if (req->sr != SROCE_SR_ON || !h->ext || !h->payload_len ||
	    sroce_wire_opcode_info(h->opcode)->kind != SROCE_OPK_ACK ||
	    h->psn != sroce_psn_sub(req->una, 1) || req->una == req->psn_max)
		return false;
	sroce_cnt_inc(sroce_qp_cnt(qp), SROCE_CNT_ACKS_RCVD);
	sroce_sr_req_sack(qp, skb, h);
	return true;
}

/* The oldest record marked lost, or NULL. */
struct sroce_txpkt *sroce_sr_req_next_lost(struct sroce_req *req)
{
	u32 i;

	for (i = req->pkt_tail; i != req->pkt_head; i++) {
		struct sroce_txpkt *p = sroce_req_pkt(req, i);

		if (p->flags & SROCE_TXPKT_LOST)
			return p;
	}
	req->lost = 0;
	return NULL;
}

/* Responder ------------------------------------------------------------ */

/* Drop everything held (ERROR, RESET, destroy). */
void sroce_sr_resp_purge(struct sroce_qp *qp)
{
	struct sroce_resp *resp = &qp->resp;

	__skb_queue_purge(&resp->ofo);
	atomic_long_sub(resp->ofo_bytes, &qp->sdev->ofo_bytes);
	resp->ofo_bytes = 0;
	resp->ofo_unacked = 0;
	sroce_sack_map_init(&resp->held);
}

void sroce_sr_resp_reset(struct sroce_qp *qp)
{
	sroce_sr_resp_purge(qp);
	qp->resp.sr_peer = false;
	qp->resp.nocrc_peer = false;
}

/* Room for @skb, in the QP's bound and the device's; taken if so. */
static bool sroce_sr_resp_charge(struct sroce_qp *qp, struct sk_buff *skb)
{
	struct sroce_resp *resp = &qp->resp;

	if (resp->ofo_bytes + skb->truesize > SROCE_OFO_BYTES)
		return false;
	if (atomic_long_add_return(skb->truesize, &qp->sdev->ofo_bytes) >
	    SROCE_OFO_DEV_BYTES) {
		atomic_long_sub(skb->truesize, &qp->sdev->ofo_bytes);
		return false;
	}
	resp->ofo_bytes += skb->truesize;
	return true;
}

/* RTR: whether we may accept, fixed for the connection. */
void sroce_sr_resp_arm(struct sroce_qp *qp)
{
	qp->resp.sr_ok = sroce_sr_enabled(qp);
	sroce_elide_resp_arm(qp);
	sroce_seg_resp_arm(qp);
}

/* A request from a peer that offered: answer yes, if we may. */
void sroce_sr_resp_learn(struct sroce_qp *qp, const struct sroce_pkt_hdr *h)
{
	if (h->ext && qp->resp.sr_ok)
		qp->resp.sr_peer = true;
	sroce_elide_resp_learn(qp, h);
}

/* PSNs a request takes: a READ one per response packet. */
static u32 sroce_sr_npsn(const struct sroce_qp *qp,
			 const struct sroce_pkt_hdr *h)
{
	const struct sroce_opcode_info *oi = sroce_wire_opcode_info(h->opcode);

	if (oi->kind != SROCE_OPK_READ_REQ)
		return 1;
	return sroce_seg_npsn(h->dma_len, qp->mtu) ?: 1;
}

/*
 * A request beyond the expected PSN.  From an agreed peer it is held in
 * PSN order (a copy already held is dropped) and a SACK becomes due.
 * False if it cannot be held: the caller NAKs as the spec says.
 */
bool sroce_sr_resp_hold(struct sroce_qp *qp, struct sk_buff *skb,
			const struct sroce_pkt_hdr *h)
{
	struct sroce_resp *resp = &qp->resp;
	struct sroce_ofo_cb *cb;
	struct sk_buff *pos;

	if (!resp->sr_peer || !h->ext)
		return false;
	skb_queue_reverse_walk(&resp->ofo, pos) {
		u32 at = sroce_ofo_cb(pos)->psn;

		if (at == h->psn) {
			sroce_cnt_inc(sroce_qp_cnt(qp), SROCE_CNT_RX_DUP_REQ);
			/* Resent: it may have been held unmapped (below). */
			sroce_sack_map_add(&resp->held, resp->epsn, at,
					   sroce_ofo_cb(pos)->npsn);
			resp->ack_due = true;
			consume_skb(skb);
			return true;
		}
		if (sroce_psn_before(at, h->psn))
			break;
	}
	if (!sroce_sr_resp_charge(qp, skb)) {
		sroce_cnt_inc(sroce_qp_cnt(qp), SROCE_CNT_RX_OFO_DROPPED);
		return false;
	}
	cb = sroce_ofo_cb(skb);
	cb->psn = h->psn;
	cb->npsn = sroce_sr_npsn(qp, h);
	/*
	 * With 64 ranges open a new one is held but not mapped: no SACK
	 * says it, so the requester resends it in time, and the copy that
	 * comes second is dropped.  Refusing it would cost a sequence NAK.
	 */
	sroce_sack_map_add(&resp->held, resp->epsn, cb->psn, cb->npsn);
	/* After pos, or first when the walk ran off the head. */
	__skb_queue_after(&resp->ofo, pos, skb);
	sroce_cnt_inc(sroce_qp_cnt(qp), SROCE_CNT_RX_OFO_QUEUED);
	/*
	 * A SACK at once when a new block starts, which is what shows the
	 * requester a loss; within a block only every few packets, or
	 * when asked, to free its window.
	 */
	if (h->ackreq || ++resp->ofo_unacked >= SROCE_OFO_ACK_EVERY ||
	    pos == (struct sk_buff *)&resp->ofo ||
	    sroce_psn_add(sroce_ofo_cb(pos)->psn, sroce_ofo_cb(pos)->npsn) !=
	    h->psn)
		resp->ack_due = true;
	return true;
}

static void sroce_sr_resp_unlink(struct sroce_qp *qp, struct sk_buff *skb)
{
	__skb_unlink(skb, &qp->resp.ofo);
	qp->resp.ofo_bytes -= skb->truesize;
	atomic_long_sub(skb->truesize, &qp->sdev->ofo_bytes);
}

/*
 * The held request at the expected PSN, if the gap before it closed;
 * held ones that fell behind it (their resent copy came first) go.
 */
struct sk_buff *sroce_sr_resp_next(struct sroce_qp *qp)
{
	struct sroce_resp *resp = &qp->resp;
	struct sk_buff *skb;

	while ((skb = skb_peek(&resp->ofo))) {
		s32 d = sroce_psn_diff(sroce_ofo_cb(skb)->psn, resp->epsn);

		if (d > 0)
			return NULL;
		if (!d)
			return skb;
		sroce_sr_resp_unlink(qp, skb);
		consume_skb(skb);
	}
	return NULL;
}

void sroce_sr_resp_take(struct sroce_qp *qp, struct sk_buff *skb)
{
	sroce_sr_resp_unlink(qp, skb);
}

/*
 * The blocks for the next ACK, from the map of what is held beyond the
 * gap (proto/sack.h says which eight of how many).  A held request at
 * the expected PSN (the run ran out of budget before it) is not beyond a
 * gap: the ACK covers it soon.
 */
void sroce_sr_resp_sack(struct sroce_qp *qp, struct sroce_sack *s)
{
	sroce_sack_map_pick(&qp->resp.held, qp->resp.epsn, s);
}
