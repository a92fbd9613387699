// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * The completer: the requester's half that listens.  It takes ACKs, NAKs,
 * READ responses and atomic ACKs, retires WQEs in order (a completion if
 * the WQE was signalled, or failed), and decides when to go back and send
 * again: on a PSN sequence NAK, an RNR NAK (after the RNR delay), a
 * retransmit timeout, or a response implied lost because a later PSN was
 * acknowledged.  retry_cnt bounds the first and third, rnr_retry the
 * second (7: forever); both are refilled by any forward progress.
 */

#include "sroce.h"
#include "rc.h"
#include "trace.h"

/* The CQE's opcode: an enum ib_wc_opcode, or a SROCE_CQE_OPCODE_*. */
static u32 sroce_comp_opcode(u8 kind)
{
	switch (kind) {
	case SROCE_OPK_WRITE:
	case SROCE_OPK_WRITE_IMM:
		return IB_WC_RDMA_WRITE;
	case SROCE_OPK_READ_REQ:
		return IB_WC_RDMA_READ;
	case SROCE_OPK_CMP_SWAP:
		return IB_WC_COMP_SWAP;
	case SROCE_OPK_FETCH_ADD:
		return IB_WC_FETCH_ADD;
	case SROCE_OPK_ATOMIC_WRITE:
		return SROCE_CQE_OPCODE_ATOMIC_WRITE;
	case SROCE_OPK_BIND_MW:
		return IB_WC_BIND_MW;
	case SROCE_OPK_LOCAL_INV:
		return IB_WC_LOCAL_INV;
	case SROCE_OPK_REG_MR:
		return IB_WC_REG_MR;
	default:
		return IB_WC_SEND;
	}
}

/*
 * Retire the oldest WQE, @w, with @status: its SQ slot goes back to the
 * poster, then a completion if it was signalled or failed.  In that
 * order: a consumer that reposts as soon as it sees the completion must
 * find the slot free (perftest does).  @w is our copy, still valid.
 */
void sroce_comp_wqe(struct sroce_qp *qp, struct sroce_swqe *w,
		    enum ib_wc_status status)
{
	struct sroce_req *req = &qp->req;
	u32 next;

	if (w->started && sroce_kind_is_rd_atomic(w->kind))
		req->rd_atomic--;
	sroce_queue_consume(&qp->sq, 1);
	/* Cursors never point at a retired WQE. */
	next = qp->sq.index;
	if ((s32)(req->cur - next) < 0) {
		req->cur = next;
		req->cur_off = 0;
	}
	if ((s32)(req->started - next) < 0)
		req->started = next;
	/* Signalled or not, as rxe's rdma_sends counts them. */
	if (status == IB_WC_SUCCESS && sroce_comp_opcode(w->kind) == IB_WC_SEND)
		sroce_cnt_inc(sroce_qp_cnt(qp), SROCE_CNT_SENDS_COMPLETED);

	if (status != IB_WC_SUCCESS || qp->sq_sig_all ||
	    (w->send_flags & IB_SEND_SIGNALED)) {
		struct sroce_cqe cqe = {
			.wr_id = w->wr_id,
			.status = status,
			.opcode = sroce_comp_opcode(w->kind),
			.byte_len = w->length,
			.qp_num = qp->ibqp.qp_num,
			.port_num = SROCE_PORT,
		};

		sroce_engine_cqe(qp, qp->scq, &cqe, false);
	}
}

/*
 * A WQE that failed validation (or a local copy) completes with its
 * status when it is the oldest, and the QP goes to ERROR.
 */
void sroce_comp_retire_errors(struct sroce_qp *qp)
{
	struct sroce_swqe *w;

	if (qp->sq.index == qp->req.fetch)
		return;
	w = sroce_req_wqe(qp, qp->sq.index);
	if (w->status == IB_WC_SUCCESS)
		return;
	sroce_comp_wqe(qp, w, w->status);
	sroce_engine_error(qp);
}

/*
 * Local operations (bind, local invalidate) that were executed complete
 * once everything before them has: no ACK will come for them.
 */
void sroce_comp_retire_local(struct sroce_qp *qp)
{
	while (qp->sq.index != qp->req.started) {
		struct sroce_swqe *w = sroce_req_wqe(qp, qp->sq.index);

		if (!sroce_kind_is_local(w->kind) ||
		    w->status != IB_WC_SUCCESS)
			return;
		sroce_comp_wqe(qp, w, IB_WC_SUCCESS);
	}
}

/* The oldest WQE fails with @status: transport errors, remote NAKs. */
static void sroce_comp_fail(struct sroce_qp *qp, enum ib_wc_status status)
{
	if (qp->sq.index != qp->req.started)
		sroce_comp_wqe(qp, sroce_req_wqe(qp, qp->sq.index), status);
	sroce_engine_error(qp);
}

/* Resend from @psn unless a resend from there is already under way. */
static void sroce_comp_resend(struct sroce_qp *qp, u32 psn)
{
	struct sroce_req *req = &qp->req;

	if (req->rewound && req->rewind_psn == psn)
		return;
	sroce_req_rewind(qp, psn, SROCE_WHY_IMPLIED);
}

/* The timed packet, sent once, is acknowledged: one RTT sample. */
static void sroce_comp_rtt(struct sroce_qp *qp, u32 next, u64 now)
{
	struct sroce_req *req = &qp->req;
	u64 us;

	if (!req->rtt_timing || !sroce_psn_after(next, req->rtt_psn))
		return;
	req->rtt_timing = false;
	/* A sample of nothing says nothing. */
	if (now <= req->rtt_start_ns)
		return;
	us = div_u64(now - req->rtt_start_ns, NSEC_PER_USEC);
	sroce_rtt_sample(&req->rtt, us);
	sroce_cc_rtt_gauge(qp, us);
}

/* Every PSN before @next is acknowledged: drop records, refill retries. */
static void sroce_comp_advance(struct sroce_qp *qp, u32 next)
{
	struct sroce_req *req = &qp->req;
	u32 acked;
	u64 now;

	if (!sroce_psn_after(next, req->una))
		return;
	now = sroce_req_rx_now(req);
	acked = sroce_psn_sub(next, req->una);
	req->una = next;
	sroce_comp_rtt(qp, next, now);
	sroce_cc_acked(qp, acked);
	while (req->pkt_tail != req->pkt_head) {
		struct sroce_txpkt *p =
			sroce_req_pkt(req, req->pkt_tail);
		u32 end = sroce_psn_add(p->psn, p->npsn);

		if (sroce_psn_after(end, next)) {
			/* A READ partly answered: keep the rest. */
			if (sroce_psn_after(next, p->psn)) {
				sroce_sr_req_forget(req, p,
						    sroce_psn_sub(next, p->psn));
				p->npsn = sroce_psn_sub(end, next);
				p->psn = next;
			}
			break;
		}
		if (!(p->flags & SROCE_TXPKT_SACKED))
			sroce_cc_delivered(req, p, now);
		sroce_sr_req_acked(req, p, now);
		sroce_sr_req_forget(req, p, p->npsn);
		req->pkt_tail++;
	}
	req->retry_left = qp->retry_cnt;
	req->rnr_left = qp->rnr_retry;
	req->rto_deferred = 0;
	req->rewound = false;
	/* A resend behind what is now acknowledged would be wasted. */
	if (sroce_psn_before(req->psn, next))
		sroce_req_seek(qp, next);
	req->tlp_out = false;
	if (next == req->psn_max) {
		req->rto_armed = false;
		req->tlp_armed = false;
	} else {
		/* Lazily: the pending timer finds the new deadline. */
		sroce_req_restart_rto(qp);
		sroce_sr_req_tlp_arm(qp);
	}
}

/*
 * Everything up to and including @psn is acknowledged.  SEND and WRITE
 * WQEs it covers complete.  A READ or ATOMIC whose response has not
 * arrived but is covered was answered and the answer lost: go back to it.
 */
void sroce_comp_ack(struct sroce_qp *qp, u32 psn)
{
	struct sroce_req *req = &qp->req;
	u32 next = sroce_psn_add(psn, 1);

	if (!sroce_psn_after(next, req->una))
		return;
	while (qp->sq.index != req->started) {
		struct sroce_swqe *w = sroce_req_wqe(qp, qp->sq.index);
		u32 want;

		if (w->status != IB_WC_SUCCESS)
			break;
		if (sroce_kind_is_local(w->kind)) {
			sroce_comp_wqe(qp, w, IB_WC_SUCCESS);
			continue;
		}
		if (sroce_kind_is_rd_atomic(w->kind)) {
			want = sroce_psn_add(w->first_psn, w->rd_pkts);
			if (sroce_psn_before(want, next)) {
				sroce_cnt_inc(sroce_qp_cnt(qp),
					      SROCE_CNT_IMPLIED_NAKS);
				sroce_comp_advance(qp, want);
				sroce_cc_loss(qp, SROCE_WHY_IMPLIED);
				sroce_comp_resend(qp, want);
				return;
			}
			break;
		}
		if (sroce_psn_before(next,
				     sroce_psn_add(w->first_psn, w->npsn)))
			break;
		sroce_comp_wqe(qp, w, IB_WC_SUCCESS);
	}
	sroce_comp_advance(qp, next);
}

/* Retries left for a timeout or a sequence NAK?  Fails the QP if not. */
static bool sroce_comp_retry(struct sroce_qp *qp)
{
	struct sroce_req *req = &qp->req;

	if (req->retry_left) {
		req->retry_left--;
		return true;
	}
	sroce_cnt_inc(sroce_qp_cnt(qp), SROCE_CNT_RETRY_EXCEEDED);
	sroce_comp_fail(qp, IB_WC_RETRY_EXC_ERR);
	return false;
}

static void sroce_comp_seq_nak(struct sroce_qp *qp, u32 psn)
{
	struct sroce_req *req = &qp->req;

	sroce_comp_ack(qp, sroce_psn_sub(psn, 1));
	if (psn != req->una || (req->rewound && req->rewind_psn == psn))
		return;
	if (!sroce_comp_retry(qp))
		return;
	sroce_cc_loss(qp, SROCE_WHY_SEQ_NAK);
	sroce_req_rewind(qp, psn, SROCE_WHY_SEQ_NAK);
}

static void sroce_comp_rnr_nak(struct sroce_qp *qp, u32 psn, u8 timer)
{
	struct sroce_req *req = &qp->req;
	unsigned long delay;

	sroce_comp_ack(qp, sroce_psn_sub(psn, 1));
	if (psn != req->una || req->rnr_wait)
		return;
	if (qp->rnr_retry != 7) {	/* 7: retry forever */
		if (!req->rnr_left) {
			sroce_cnt_inc(sroce_qp_cnt(qp),
				      SROCE_CNT_RNR_RETRY_EXCEEDED);
			sroce_comp_fail(qp, IB_WC_RNR_RETRY_EXC_ERR);
			return;
		}
		req->rnr_left--;
	}
	sroce_req_rewind(qp, psn, SROCE_WHY_RNR_NAK);
	/* No retransmit timeout while we wait on purpose. */
	req->rto_armed = false;
	delay = max_t(unsigned long, usecs_to_jiffies(sroce_aeth_rnr_usec(timer)), 1);
	req->rnr_wait = true;
	req->rnr_at = jiffies + delay;
	sroce_req_timer_set(qp, req->rnr_at);
}

static void sroce_comp_aeth(struct sroce_qp *qp, const struct sk_buff *skb,
			    const struct sroce_pkt_hdr *h)
{
	struct sroce_counters *cnt = sroce_qp_cnt(qp);
	struct sroce_aeth a;

	if (sroce_aeth_decode(h->syndrome, &a)) {
		sroce_cnt_inc(cnt, SROCE_CNT_RX_BAD_RESP);
		return;
	}
	if (a.type != SROCE_AETH_ACK)
		trace_sroce_nak_recv(qp->ibqp.qp_num, h->psn, h->syndrome);
	switch (a.type) {
	case SROCE_AETH_ACK:
		sroce_cnt_inc(cnt, SROCE_CNT_ACKS_RCVD);
		sroce_comp_ack(qp, h->psn);
		sroce_sr_req_sack(qp, skb, h);
		break;
	case SROCE_AETH_RNR_NAK:
		sroce_cnt_inc(cnt, SROCE_CNT_RNR_NAKS_RCVD);
		sroce_comp_rnr_nak(qp, h->psn, a.value);
		break;
	default:
		if (a.value == SROCE_NAK_PSN_SEQ_ERR) {
			sroce_cnt_inc(cnt, SROCE_CNT_SEQ_NAKS_RCVD);
			sroce_comp_seq_nak(qp, h->psn);
			break;
		}
		sroce_cnt_inc(cnt, SROCE_CNT_ERR_NAKS_RCVD);
		sroce_comp_ack(qp, sroce_psn_sub(h->psn, 1));
		sroce_comp_fail(qp, (enum ib_wc_status)
				sroce_aeth_nak_to_wc_status(h->syndrome));
		break;
	}
}

/*
 * The oldest WQE, if it is the READ or ATOMIC whose next response is
 * @psn: anything else is a duplicate or a gap (already handled by the
 * implied ACK of everything before @psn).
 */
static struct sroce_swqe *sroce_comp_rd_wqe(struct sroce_qp *qp, u32 psn,
					    u8 kind)
{
	struct sroce_swqe *w;

	sroce_comp_ack(qp, sroce_psn_sub(psn, 1));
	if (READ_ONCE(qp->state) == IB_QPS_ERR ||
	    qp->sq.index == qp->req.started)
		return NULL;
	w = sroce_req_wqe(qp, qp->sq.index);
	if (w->status != IB_WC_SUCCESS ||
	    psn != sroce_psn_add(w->first_psn, w->rd_pkts))
		return NULL;
	if (kind == SROCE_OPK_READ_RESP ? w->kind != SROCE_OPK_READ_REQ :
	    (w->kind != SROCE_OPK_CMP_SWAP && w->kind != SROCE_OPK_FETCH_ADD))
		return NULL;
	return w;
}

static void sroce_comp_read(struct sroce_qp *qp, struct sk_buff *skb,
			    const struct sroce_pkt_hdr *h)
{
	struct sroce_data d = { .skb = skb, .off = h->hdr_len };
	struct sroce_swqe *w;
	u64 off;
	int err;

	w = sroce_comp_rd_wqe(qp, h->psn, SROCE_OPK_READ_RESP);
	if (!w) {
		sroce_cnt_inc(sroce_qp_cnt(qp), SROCE_CNT_RX_STALE_RESP);
		return;
	}
	off = (u64)w->rd_pkts * qp->mtu;
	if (!sroce_seg_read_resp_ok(w->length, off, qp->mtu,
				    sroce_wire_opcode_info(h->opcode)->pos,
				    h->payload_len)) {
		sroce_cnt_inc(sroce_qp_cnt(qp), SROCE_CNT_RX_BAD_RESP);
		return;
	}
	err = sroce_copy_sgl(qp, w->sge, w->num_sge, off, h->payload_len,
			     &d, true);
	/*
	 * An ODP page of the buffer is being faulted in: as if the response
	 * were lost; the READ is asked for again from here.
	 */
	if (err == -EAGAIN)
		return;
	if (err) {
		sroce_comp_fail(qp, err == -EMSGSIZE ? IB_WC_LOC_LEN_ERR :
						      IB_WC_LOC_PROT_ERR);
		return;
	}
	w->rd_pkts++;
	sroce_comp_advance(qp, sroce_psn_add(h->psn, 1));
	if (off + h->payload_len == w->length)
		sroce_comp_wqe(qp, w, IB_WC_SUCCESS);
}

static void sroce_comp_atomic(struct sroce_qp *qp,
			      const struct sroce_pkt_hdr *h)
{
	u64 orig = h->orig;		/* host order, as memory holds it */
	struct sroce_data d = { .buf = (u8 *)&orig };
	struct sroce_swqe *w;
	int err;

	w = sroce_comp_rd_wqe(qp, h->psn, SROCE_OPK_ATOMIC_ACK);
	if (!w) {
		sroce_cnt_inc(sroce_qp_cnt(qp), SROCE_CNT_RX_STALE_RESP);
		return;
	}
	err = sroce_copy_sgl(qp, w->sge, w->num_sge, 0, sizeof(orig), &d,
			     true);
	/* ODP, as for READ: lost; the resend gets the saved result. */
	if (err == -EAGAIN)
		return;
	if (err) {
		sroce_comp_fail(qp, IB_WC_LOC_PROT_ERR);
		return;
	}
	w->rd_pkts = 1;
	sroce_comp_advance(qp, sroce_psn_add(h->psn, 1));
	sroce_comp_wqe(qp, w, IB_WC_SUCCESS);
}

/* A response for this QP (engine work); consumes @skb. */
void sroce_comp_recv(struct sroce_qp *qp, struct sk_buff *skb,
		     const struct sroce_pkt_hdr *h)
{
	struct sroce_req *req = &qp->req;
	u32 out = sroce_psn_sub(req->psn_max, req->una);

	if (sroce_sr_req_dupack(qp, skb, h))
		goto out;
	/* Only PSNs we sent and that are not acknowledged yet. */
	if (!sroce_psn_in_window(h->psn, req->una, out)) {
		sroce_cnt_inc(sroce_qp_cnt(qp), SROCE_CNT_RX_STALE_RESP);
		goto out;
	}
	sroce_sr_req_learn(qp, h);
	switch (sroce_wire_opcode_info(h->opcode)->kind) {
	case SROCE_OPK_ACK:
		sroce_comp_aeth(qp, skb, h);
		break;
	case SROCE_OPK_ATOMIC_ACK:
		sroce_comp_atomic(qp, h);
		break;
	case SROCE_OPK_READ_RESP:
		sroce_comp_read(qp, skb, h);
		break;
	default:
		sroce_cnt_inc(sroce_qp_cnt(qp), SROCE_CNT_RX_BAD_RESP);
		break;
	}
	if (READ_ONCE(qp->state) != IB_QPS_ERR) {
		/* After a READ or atomic completed, say. */
		sroce_comp_retire_local(qp);
		sroce_comp_retire_errors(qp);
		sroce_sr_req_refused(qp);
	}
out:
	/* Selective ACKs deliver too: even an ACK otherwise stale. */
	sroce_cc_ack_done(qp);
	consume_skb(skb);
}

/* Timer-driven events: end of an RNR wait, retransmit timeout. */
void sroce_comp_timers(struct sroce_qp *qp)
{
	struct sroce_req *req = &qp->req;
	unsigned long now = jiffies;

	sroce_sr_req_timer(qp);
	if (req->rnr_wait) {
		if (time_before(now, req->rnr_at)) {
			sroce_req_timer_set(qp, req->rnr_at);
			return;
		}
		req->rnr_wait = false;
		req->rto_armed = true;
		req->rto_at = now + sroce_req_rto(qp);
		sroce_req_timer_set(qp, req->rto_at);
		return;
	}
	if (!req->rto_armed)
		return;
	if (req->una == req->psn_max) {
		req->rto_armed = false;
		return;
	}
	if (time_before(now, req->rto_at)) {
		sroce_req_timer_set(qp, req->rto_at);
		return;
	}
	/*
	 * Packets still queued in this host (a starved softirq, a slow
	 * qdisc) have not had the chance to be lost: resending them would
	 * only queue more.  Wait one more RTO, a bounded number of times
	 * so that a wedged queue still ends in retry-exceeded.  TCP does the
	 * same (skb_still_in_host_queue()).
	 */
	if (atomic_read(&req->txacct->inflight) &&
	    req->rto_deferred < SROCE_RTO_DEFER_MAX) {
		req->rto_deferred++;
		sroce_cnt_inc(sroce_qp_cnt(qp), SROCE_CNT_TIMEOUTS_DEFERRED);
		req->rto_at = now + sroce_req_rto(qp);
		sroce_req_timer_set(qp, req->rto_at);
		return;
	}
	req->rto_deferred = 0;
	sroce_cnt_inc(sroce_qp_cnt(qp), SROCE_CNT_TIMEOUTS);
	req->timeouts++;
	/* Timeout 0 is "infinite": resend forever, never give up. */
	if (READ_ONCE(qp->timeout) && !sroce_comp_retry(qp))
		return;
	sroce_cc_loss(qp, SROCE_WHY_TIMEOUT);
	/* What the peer holds need not go again: only the rest. */
	if (req->sr == SROCE_SR_ON)
		sroce_sr_req_rto(qp);
	else if (req->sr == SROCE_SR_OFFER)
		sroce_sr_req_offer_rto(qp);
	else
		sroce_req_rewind(qp, req->una, SROCE_WHY_TIMEOUT);
}
