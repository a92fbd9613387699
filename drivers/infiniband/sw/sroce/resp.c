// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * The responder: executes requests in PSN order.
 *
 * Each request is classified against the expected PSN (proto/resp.c):
 *  - NEW: executed.  SENDs land in receive WQEs copied out of the RQ (no
 *    WQE posted: RNR NAK with our min_rnr_timer); WRITEs, READs and
 *    atomics (ATOMIC WRITE included) go through the rkey, checked for
 *    every access.
 *  - DUPLICATE: never executed again.  SEND/WRITE and ATOMIC WRITE are
 *    acknowledged again; READs are answered again from memory and
 *    atomics with the saved result, both from the responder resources
 *    (the last max_dest_rd_atomic READ/ATOMIC requests).
 *  - OUT OF SEQUENCE: one PSN sequence error NAK, then silence until the
 *    expected PSN arrives.
 *
 * ACKs are coalesced: packets that ask for one (AckReq, or the end of a
 * message) set ack_due, and one ACK for the newest PSN leaves at the end
 * of the engine run; a NAK or a READ/ATOMIC response acknowledges what
 * precedes it and clears it.  READ responses go out a budget at a time,
 * and requests behind them wait, so responses leave in PSN order.
 *
 * A request that cannot be executed (bad opcode sequence, length, rkey or
 * range) gets a NAK and takes the QP to ERROR (IBTA class C errors).
 */
#include <linux/slab.h>

#include "sroce.h"
#include "rc.h"
#include "trace.h"
#include "proto/resp.h"

/* An operation on the QP's own transport: RC, or XRC for a TGT QP. */
#define SROCE_RESP_OPCODE(qp, op)	(sroce_qp_transport(qp) | SROCE_OP_##op)

enum sroce_resp_nak {
	SROCE_RESP_NAK_NONE,
	SROCE_RESP_NAK_SEQ,
	SROCE_RESP_NAK_RNR,
};

int sroce_resp_init(struct sroce_qp *qp)
{
	struct sroce_resp *resp = &qp->resp;

	skb_queue_head_init(&resp->pending);
	skb_queue_head_init(&resp->ofo);
	sroce_sack_map_init(&resp->held);
	resp->rwqe = kmalloc(qp->rq.stride, GFP_KERNEL);
	resp->nres = SROCE_MAX_RD_ATOMIC;
	resp->res = kcalloc(resp->nres, sizeof(*resp->res), GFP_KERNEL);
	if (!resp->rwqe || !resp->res) {
		sroce_resp_free(qp);
		return -ENOMEM;
	}
	sroce_resp_reset(qp);
	return 0;
}

void sroce_resp_free(struct sroce_qp *qp)
{
	struct sroce_resp *resp = &qp->resp;

	__skb_queue_purge(&resp->pending);
	sroce_sr_resp_reset(qp);
	kfree(resp->res);
	kfree(resp->rwqe);
	resp->res = NULL;
	resp->rwqe = NULL;
}

/* RESET: the RQ is emptied without completions, like the SQ. */
void sroce_resp_reset(struct sroce_qp *qp)
{
	struct sroce_resp *resp = &qp->resp;
	struct sroce_queue *q = &qp->rq;

	resp->ready = false;
	__skb_queue_purge(&resp->pending);
	sroce_sr_resp_reset(qp);
	sroce_queue_consume(q, READ_ONCE(q->hdr->prod) - q->index);
	/* Receives need a doorbell only in ERROR. */
	WRITE_ONCE(q->hdr->flags, 0);
	resp->epsn = 0;
	resp->msn = 0;
	resp->comm_est = false;
	resp->nak = SROCE_RESP_NAK_NONE;
	resp->msg = SROCE_OPK_NONE;
	resp->xrc_srqn = 0;
	resp->offset = 0;
	resp->have_rwqe = false;
	resp->ack_due = false;
	memset(resp->res, 0, resp->nres * sizeof(*resp->res));
	resp->res_next = 0;
	memset(&resp->rd, 0, sizeof(resp->rd));
}

/* RTR: the responder expects the RQ PSN modify_qp set. */
void sroce_resp_arm(struct sroce_qp *qp)
{
	qp->resp.epsn = qp->rq_psn;
	sroce_sr_resp_arm(qp);
	/* Pairs with the acquire in the work: epsn first. */
	smp_store_release(&qp->resp.ready, true);
}

/*
 * A duplicate READ at or before the response stream in progress: the
 * requester went back to it and resends everything after it, so the
 * stream and the requests queued behind it are wasted work (and would
 * make the duplicate wait for them).  Drop them; answer it next.
 */
static void sroce_resp_preempt(struct sroce_qp *qp,
			       const struct sroce_pkt_hdr *h)
{
	struct sroce_resp *resp = &qp->resp;

	if (!resp->rd.active ||
	    h->opcode != SROCE_RESP_OPCODE(qp, READ_REQ) ||
	    sroce_resp_classify_psn(resp->epsn, h->psn) !=
	    SROCE_RESP_PSN_DUPLICATE ||
	    sroce_psn_after(h->psn, resp->rd.psn))
		return;
	resp->rd.active = false;
	__skb_queue_purge(&resp->pending);
}

/*
 * The first request in RTR: the connection works even if the CM's RTU was
 * lost, and the spec has the CA say so (kernel rdma_cm listens for it).
 */
static void sroce_resp_comm_est(struct sroce_qp *qp)
{
	struct ib_event ev = {
		.device = qp->ibqp.device,
		.element.qp = &qp->ibqp,
		.event = IB_EVENT_COMM_EST,
	};

	if (qp->resp.comm_est || READ_ONCE(qp->state) != IB_QPS_RTR)
		return;
	qp->resp.comm_est = true;
	if (qp->ibqp.event_handler)
		qp->ibqp.event_handler(&ev, qp->ibqp.qp_context);
}

/* A request from rxq: wait in order behind any READ responses. */
void sroce_resp_queue(struct sroce_qp *qp, struct sk_buff *skb,
		      const struct sroce_pkt_hdr *h)
{
	sroce_resp_comm_est(qp);
	sroce_resp_preempt(qp, h);
	if (skb_queue_len(&qp->resp.pending) >= SROCE_RXQ_MAX) {
		sroce_cnt_inc(sroce_qp_cnt(qp), SROCE_CNT_RX_DROPPED);
		kfree_skb(skb);
		return;
	}
	__skb_queue_tail(&qp->resp.pending, skb);
}

/*
 * ACK, NAK or atomic ACK: AETH with our MSN.  -ENOBUFS if it could not
 * leave now (no memory, refused locally); a lost one is the requester's
 * timer's business.
 */
static int sroce_resp_aeth(struct sroce_qp *qp, u8 opcode, u32 psn,
			   u8 syndrome, u64 orig, const struct sroce_sack *sack)
{
	u32 len = sack ? sroce_sack_bytes(sack) : 0;
	struct sroce_pkt_hdr h;
	struct sk_buff *skb;

	sroce_tx_hdr_init(qp, &h, opcode, psn);
	h.syndrome = syndrome;
	h.msn = qp->resp.msn & SROCE_U24_MAX;
	h.orig = orig;
	/* Selective repeat agreed: say so on every response (sr.c). */
	h.ext = qp->resp.sr_peer;
	sroce_elide_resp_hdr(qp, &h);
	sroce_seg_resp_hdr(qp, &h);
	skb = sroce_tx_alloc(qp, &h, len);
	if (!skb)
		return -ENOBUFS;
	if (len)
		sroce_sack_put(skb->data + sroce_wire_hdr_len(opcode), len,
			       sack);
	return sroce_tx_xmit(qp, skb) == -ENOBUFS ? -ENOBUFS : 0;
}

/*
 * The coalesced ACK, for everything before the expected PSN.  If it
 * cannot leave now it stays due, and the timer brings us back.
 */
static void sroce_resp_ack(struct sroce_qp *qp)
{
	struct sroce_resp *resp = &qp->resp;
	struct sroce_sack sack;

	if (!resp->ack_due)
		return;
	/* What is held beyond the gap, for an agreed peer. */
	sroce_sr_resp_sack(qp, &sack);
	if (sroce_resp_aeth(qp, SROCE_RESP_OPCODE(qp, ACK),
			    sroce_psn_sub(resp->epsn, 1),
			    sroce_aeth_ack(SROCE_AETH_CREDIT_NONE), 0,
			    &sack)) {
		sroce_engine_backoff(qp);
		return;
	}
	resp->ack_due = false;
	resp->ofo_unacked = 0;
	sroce_cnt_inc(sroce_qp_cnt(qp), SROCE_CNT_ACKS_SENT);
	if (sack.n)
		sroce_cnt_inc(sroce_qp_cnt(qp), SROCE_CNT_SACKS_SENT);
}

static void sroce_resp_nak(struct sroce_qp *qp, u8 syndrome, u32 psn,
			   enum sroce_counter c)
{
	/* A NAK acknowledges every PSN before its own. */
	qp->resp.ack_due = false;
	sroce_cnt_inc(sroce_qp_cnt(qp), c);
	trace_sroce_nak_send(qp->ibqp.qp_num, psn, syndrome);
	sroce_resp_aeth(qp, SROCE_RESP_OPCODE(qp, ACK), psn, syndrome, 0,
			NULL);
}

static struct sroce_sge *sroce_resp_sges(struct sroce_resp *resp)
{
	return (struct sroce_sge *)(resp->rwqe + 1);
}

/* Complete and retire the receive WQE in use. */
static void sroce_resp_complete(struct sroce_qp *qp, enum ib_wc_status status,
				enum ib_wc_opcode opcode, u32 byte_len,
				const struct sroce_pkt_hdr *h)
{
	struct sroce_resp *resp = &qp->resp;
	struct sroce_cqe cqe = {
		.wr_id = resp->rwqe->wr_id,
		.status = status,
		.opcode = opcode,
		.byte_len = byte_len,
		.qp_num = qp->ibqp.qp_num,
		.src_qp = qp->dest_qpn,
		.port_num = SROCE_PORT,
	};
	bool se = false;

	if (h) {
		se = h->se;
		if (sroce_wire_opcode_info(h->opcode)->hdrs & SROCE_HDR_IMMDT) {
			cqe.imm_data = (__force u32)cpu_to_be32(h->imm);
			cqe.wc_flags = IB_WC_WITH_IMM;
		}
		/* SEND with Invalidate: the rkey invalidated, host order. */
		if (sroce_wire_opcode_info(h->opcode)->hdrs & SROCE_HDR_IETH) {
			cqe.imm_data = h->inv_rkey;
			cqe.wc_flags = IB_WC_WITH_INVALIDATE;
		}
	}
	resp->have_rwqe = false;
	/* The slot is free before the consumer can see the completion. */
	sroce_queue_consume(&qp->rq, 1);
	sroce_engine_cqe(qp, qp->rcq, &cqe, se);
}

/*
 * Class C error: NAK @psn and fail the receive WQE in use if any; the
 * caller takes the QP to ERROR.
 */
static void sroce_resp_nak_fail(struct sroce_qp *qp, u32 psn,
				enum sroce_nak_code code,
				enum ib_wc_status status)
{
	struct sroce_resp *resp = &qp->resp;

	sroce_resp_nak(qp, sroce_aeth_nak(code), psn, SROCE_CNT_ERR_NAKS_SENT);
	if (resp->have_rwqe)
		sroce_resp_complete(qp, status, IB_WC_RECV, resp->offset, NULL);
}

/* A local error the receive completion reports: no async event. */
static void sroce_resp_fail(struct sroce_qp *qp, u32 psn,
			    enum sroce_nak_code code, enum ib_wc_status status)
{
	sroce_resp_nak_fail(qp, psn, code, status);
	sroce_engine_error(qp);
}

static void sroce_resp_invalid(struct sroce_qp *qp, u32 psn)
{
	sroce_resp_nak_fail(qp, psn, SROCE_NAK_INVALID_REQ,
			    IB_WC_LOC_QP_OP_ERR);
	sroce_engine_fatal(qp, IB_EVENT_QP_REQ_ERR);
}

static void sroce_resp_access(struct sroce_qp *qp, u32 psn)
{
	sroce_resp_nak_fail(qp, psn, SROCE_NAK_REM_ACCESS, IB_WC_LOC_PROT_ERR);
	sroce_engine_fatal(qp, IB_EVENT_QP_ACCESS_ERR);
}

/*
 * The receive WQE for the message at hand: 1 when there is one, 0 when
 * the RQ is empty (RNR), < 0 when the QP failed.
 */
static int sroce_resp_get_rwqe(struct sroce_qp *qp, u32 psn)
{
	struct sroce_resp *resp = &qp->resp;
	struct sroce_queue *q = &qp->rq;
	const u8 *slot;
	u32 i, nsge;
	int n;

	if (resp->have_rwqe)
		return 1;
	n = sroce_queue_avail(q);
	if (!n && qp->srq)
		n = sroce_srq_lend(qp);
	if (n < 0) {
		pr_warn_ratelimited("sroce: QP %u: RQ producer index is corrupt\n",
				    qp->ibqp.qp_num);
		sroce_engine_fatal(qp, IB_EVENT_QP_FATAL);
		return -EIO;
	}
	if (!n)
		return 0;
	/* Copy first, then look: userspace may be writing the slot. */
	slot = sroce_queue_slot(q, q->index);
	memcpy(resp->rwqe, slot, SROCE_RECV_WQE_HDR_SIZE);
	resp->have_rwqe = true;
	nsge = resp->rwqe->num_sge;
	if (nsge > qp->max_recv_sge ||
	    nsge > (q->stride - SROCE_RECV_WQE_HDR_SIZE) /
		   sizeof(struct sroce_sge)) {
		sroce_cnt_inc(sroce_qp_cnt(qp), SROCE_CNT_BAD_WQES);
		resp->offset = 0;
		sroce_resp_fail(qp, psn, SROCE_NAK_REM_OP_ERR,
				IB_WC_LOC_QP_OP_ERR);
		return -EINVAL;
	}
	memcpy(sroce_resp_sges(resp), slot + SROCE_RECV_WQE_HDR_SIZE,
	       nsge * sizeof(struct sroce_sge));
	resp->rwqe_len = 0;
	for (i = 0; i < nsge; i++)
		resp->rwqe_len += sroce_resp_sges(resp)[i].length;
	return 1;
}

static void sroce_resp_rnr(struct sroce_qp *qp, u32 psn)
{
	qp->resp.nak = SROCE_RESP_NAK_RNR;
	sroce_resp_nak(qp, sroce_aeth_rnr_nak(READ_ONCE(qp->min_rnr_timer)),
		       psn, SROCE_CNT_RNR_NAKS_SENT);
}

/*
 * A page of an ODP target is being faulted in (odp.c): nothing of this
 * packet took effect, and the requester sends it again after the RNR
 * delay, as RoCE NICs have requesters do for responder page faults.
 */
static void sroce_resp_odp_wait(struct sroce_qp *qp, u32 psn, bool first)
{
	if (first)
		qp->resp.msg = SROCE_OPK_NONE;
	sroce_resp_rnr(qp, psn);
}

/* Executed: expect the next PSN; ACK later if asked or at a message end. */
static void sroce_resp_done(struct sroce_qp *qp, const struct sroce_pkt_hdr *h,
			    bool last)
{
	struct sroce_resp *resp = &qp->resp;

	resp->epsn = sroce_psn_add(resp->epsn, 1);
	if (h->ackreq || last)
		resp->ack_due = true;
}

/* May a packet at @pos of a @msg message come now? */
static bool sroce_resp_in_order(const struct sroce_resp *resp, u8 pos, u8 msg)
{
	if (pos == SROCE_POS_FIRST || pos == SROCE_POS_ONLY)
		return resp->msg == SROCE_OPK_NONE;
	return resp->msg == msg;
}

static bool sroce_pos_first(u8 pos)
{
	return pos == SROCE_POS_FIRST || pos == SROCE_POS_ONLY;
}

static bool sroce_pos_last(u8 pos)
{
	return pos == SROCE_POS_LAST || pos == SROCE_POS_ONLY;
}

/* SEND with Invalidate: a type 2B window (mw.c) or a fast MR (frmr.c). */
static int sroce_resp_remote_inv(struct sroce_qp *qp, u32 rkey)
{
	if (sroce_key_is_mw(rkey))
		return sroce_mw_remote_inv(qp, rkey);
	return sroce_frmr_remote_inv(qp, rkey);
}

static void sroce_resp_send(struct sroce_qp *qp, struct sk_buff *skb,
			    const struct sroce_pkt_hdr *h,
			    const struct sroce_opcode_info *oi)
{
	struct sroce_data d = { .skb = skb, .off = h->hdr_len };
	struct sroce_resp *resp = &qp->resp;
	bool first = sroce_pos_first(oi->pos), last = sroce_pos_last(oi->pos);
	int r;

	if (!sroce_resp_in_order(resp, oi->pos, SROCE_OPK_SEND)) {
		sroce_resp_invalid(qp, h->psn);
		return;
	}
	r = sroce_resp_get_rwqe(qp, h->psn);
	if (r <= 0) {
		if (!r)
			sroce_resp_rnr(qp, h->psn);
		return;
	}
	if (first) {
		resp->msg = SROCE_OPK_SEND;
		resp->offset = 0;
		sroce_copy_sgl_hint(qp, sroce_resp_sges(resp),
				    resp->rwqe->num_sge);
	}
	if (sroce_resp_send_too_long(resp, h->payload_len)) {
		sroce_resp_fail(qp, h->psn, SROCE_NAK_INVALID_REQ,
				IB_WC_LOC_LEN_ERR);
		return;
	}
	r = h->payload_len ?
	    sroce_copy_sgl(qp, sroce_resp_sges(resp), resp->rwqe->num_sge,
			   resp->offset, h->payload_len, &d, true) : 0;
	if (r == -EAGAIN) {
		sroce_resp_odp_wait(qp, h->psn, first);
		return;
	}
	if (r) {
		sroce_resp_fail(qp, h->psn, SROCE_NAK_REM_OP_ERR,
				IB_WC_LOC_PROT_ERR);
		return;
	}
	resp->offset += h->payload_len;
	/*
	 * SEND with Invalidate: the window goes once the message is in.  An
	 * rkey we may not invalidate is a class J error: NAK, the receive
	 * fails, the QP goes to ERROR.
	 */
	if (last && (oi->hdrs & SROCE_HDR_IETH) &&
	    sroce_resp_remote_inv(qp, h->inv_rkey)) {
		sroce_resp_fail(qp, h->psn, SROCE_NAK_INVALID_REQ,
				IB_WC_REM_INV_REQ_ERR);
		return;
	}
	if (last) {
		resp->msg = SROCE_OPK_NONE;
		resp->msn++;
		sroce_resp_complete(qp, IB_WC_SUCCESS, IB_WC_RECV, resp->offset,
				    h);
	}
	sroce_resp_done(qp, h, last);
}

/* First packet of a WRITE: the RETH and the right to write its range. */
static int sroce_resp_write_first(struct sroce_qp *qp,
				  const struct sroce_pkt_hdr *h)
{
	if (h->dma_len > SROCE_MSG_MAX) {
		sroce_resp_invalid(qp, h->psn);
		return -EINVAL;
	}
	/* An empty WRITE touches no memory: its rkey is not checked. */
	if (!(qp->access_flags & IB_ACCESS_REMOTE_WRITE) ||
	    (h->dma_len && sroce_copy_check_remote(qp, h->rkey, h->va,
						   h->dma_len,
						   IB_ACCESS_REMOTE_WRITE))) {
		sroce_resp_access(qp, h->psn);
		return -EACCES;
	}
	return 0;
}

static void sroce_resp_write(struct sroce_qp *qp, struct sk_buff *skb,
			     const struct sroce_pkt_hdr *h,
			     const struct sroce_opcode_info *oi)
{
	struct sroce_data d = { .skb = skb, .off = h->hdr_len };
	struct sroce_resp *resp = &qp->resp;
	bool first = sroce_pos_first(oi->pos), last = sroce_pos_last(oi->pos);
	u32 off = first ? 0 : resp->offset;
	u32 length = first ? h->dma_len : resp->length;
	u32 len = h->payload_len;
	int r;

	if (!sroce_resp_in_order(resp, oi->pos, SROCE_OPK_WRITE)) {
		sroce_resp_invalid(qp, h->psn);
		return;
	}
	if (first && sroce_resp_write_first(qp, h))
		return;
	if ((u64)off + len > length || (last && off + len != length)) {
		sroce_resp_invalid(qp, h->psn);
		return;
	}
	/* With immediate: a receive WQE is consumed, so one must be there. */
	if (last && (oi->hdrs & SROCE_HDR_IMMDT)) {
		r = sroce_resp_get_rwqe(qp, h->psn);
		if (r <= 0) {
			if (!r)
				sroce_resp_rnr(qp, h->psn);
			return;
		}
	}
	if (first) {
		resp->msg = SROCE_OPK_WRITE;
		resp->va = h->va;
		resp->rkey = h->rkey;
		resp->length = h->dma_len;
		resp->offset = 0;
	}
	r = sroce_copy_remote(qp, resp->rkey, resp->va + off, len, &d, true);
	if (r == -EAGAIN) {
		sroce_resp_odp_wait(qp, h->psn, first);
		return;
	}
	if (r) {
		sroce_resp_access(qp, h->psn);
		return;
	}
	resp->offset += len;
	if (last) {
		resp->msg = SROCE_OPK_NONE;
		resp->msn++;
		if (oi->hdrs & SROCE_HDR_IMMDT)
			sroce_resp_complete(qp, IB_WC_SUCCESS,
					    IB_WC_RECV_RDMA_WITH_IMM,
					    resp->length, h);
	}
	sroce_resp_done(qp, h, last);
}

static u32 sroce_resp_npsn(const struct sroce_qp *qp, u32 len)
{
	return sroce_seg_npsn(len, qp->mtu);
}

/* A slot for a new READ/ATOMIC; the oldest one is forgotten. */
static struct sroce_res *sroce_resp_res_new(struct sroce_qp *qp, u8 kind,
					    u32 psn, u32 npsn)
{
	struct sroce_resp *resp = &qp->resp;
	u32 n = clamp_t(u32, qp->max_dest_rd_atomic, 1, resp->nres);
	struct sroce_res *res = &resp->res[resp->res_next++ % n];

	res->kind = kind;
	res->psn = psn;
	res->npsn = npsn;
	res->orig = 0;
	return res;
}

static struct sroce_res *sroce_resp_res_find(struct sroce_qp *qp, u32 psn,
					     bool read)
{
	struct sroce_resp *resp = &qp->resp;
	u32 n = clamp_t(u32, qp->max_dest_rd_atomic, 1, resp->nres);
	u32 i;

	for (i = 0; i < n; i++) {
		struct sroce_res *res = &resp->res[i];

		if (res->kind == SROCE_OPK_NONE ||
		    (res->kind == SROCE_OPK_READ_REQ) != read)
			continue;
		if (sroce_psn_in_window(psn, res->psn, res->npsn))
			return res;
	}
	return NULL;
}

static void sroce_resp_read_start(struct sroce_qp *qp,
				  const struct sroce_pkt_hdr *h)
{
	struct sroce_rdout *rd = &qp->resp.rd;

	rd->active = true;
	rd->va = h->va;
	rd->rkey = h->rkey;
	rd->length = h->dma_len;
	rd->off = 0;
	rd->psn = h->psn;
	rd->xrc_srqn = h->xrc_srqn;
}

static void sroce_resp_read(struct sroce_qp *qp, const struct sroce_pkt_hdr *h)
{
	struct sroce_resp *resp = &qp->resp;
	u32 npsn = sroce_resp_npsn(qp, h->dma_len);

	if (resp->msg != SROCE_OPK_NONE || !qp->max_dest_rd_atomic ||
	    h->dma_len > SROCE_MSG_MAX) {
		sroce_resp_invalid(qp, h->psn);
		return;
	}
	if (!(qp->access_flags & IB_ACCESS_REMOTE_READ) ||
	    (h->dma_len && sroce_copy_check_remote(qp, h->rkey, h->va,
						   h->dma_len,
						   IB_ACCESS_REMOTE_READ))) {
		sroce_resp_access(qp, h->psn);
		return;
	}
	sroce_resp_res_new(qp, SROCE_OPK_READ_REQ, h->psn, npsn);
	resp->msn++;
	/* The responses acknowledge everything before them. */
	resp->ack_due = false;
	resp->epsn = sroce_psn_add(resp->epsn, npsn);
	sroce_resp_read_start(qp, h);
}

static void sroce_resp_atomic(struct sroce_qp *qp,
			      const struct sroce_pkt_hdr *h,
			      const struct sroce_opcode_info *oi)
{
	struct sroce_resp *resp = &qp->resp;
	bool cas = oi->kind == SROCE_OPK_CMP_SWAP;
	struct sroce_res *res;
	u64 orig;
	int err;

	if (resp->msg != SROCE_OPK_NONE || !qp->max_dest_rd_atomic) {
		sroce_resp_invalid(qp, h->psn);
		return;
	}
	if (!(qp->access_flags & IB_ACCESS_REMOTE_ATOMIC)) {
		sroce_resp_access(qp, h->psn);
		return;
	}
	err = sroce_copy_atomic(qp, h->rkey, h->va, cas,
				cas ? h->compare : h->swap_add, h->swap_add,
				&orig);
	if (err == -EAGAIN) {
		sroce_resp_odp_wait(qp, h->psn, false);
		return;
	}
	if (err == -EINVAL) {
		sroce_resp_invalid(qp, h->psn);
		return;
	}
	if (err) {
		sroce_resp_access(qp, h->psn);
		return;
	}
	res = sroce_resp_res_new(qp, oi->kind, h->psn, 1);
	res->orig = orig;
	resp->msn++;
	resp->ack_due = false;
	resp->epsn = sroce_psn_add(resp->epsn, 1);
	sroce_resp_aeth(qp, SROCE_RESP_OPCODE(qp, ATOMIC_ACK), h->psn,
			sroce_aeth_ack(SROCE_AETH_CREDIT_NONE), orig, NULL);
}

/*
 * ATOMIC WRITE: one packet whose 8 bytes are stored at once (copy.c),
 * then acknowledged like a WRITE; a duplicate is only acknowledged
 * again.  A malformed one is invalid, one without the right to write
 * there a remote access error, as for a WRITE.
 */
static void sroce_resp_atomic_write(struct sroce_qp *qp, struct sk_buff *skb,
				    const struct sroce_pkt_hdr *h,
				    const struct sroce_opcode_info *oi)
{
	u64 val;
	int err;

	if (!sroce_resp_in_order(&qp->resp, oi->pos, SROCE_OPK_ATOMIC_WRITE) ||
	    !sroce_resp_atomic_write_ok(h->va, h->dma_len, h->payload_len)) {
		sroce_resp_invalid(qp, h->psn);
		return;
	}
	if (!(qp->access_flags & IB_ACCESS_REMOTE_WRITE)) {
		sroce_resp_access(qp, h->psn);
		return;
	}
	/* The bytes as they came: memory gets them in the same order. */
	err = skb_copy_bits(skb, h->hdr_len, &val, sizeof(val)) ?:
	      sroce_copy_atomic_write(qp, h->rkey, h->va, val);
	if (err == -EAGAIN) {
		sroce_resp_odp_wait(qp, h->psn, false);
		return;
	}
	if (err == -EACCES || err == -EFAULT) {
		sroce_resp_access(qp, h->psn);
		return;
	}
	if (err) {
		sroce_resp_invalid(qp, h->psn);
		return;
	}
	qp->resp.msn++;
	sroce_resp_done(qp, h, true);
}

static void sroce_resp_new(struct sroce_qp *qp, struct sk_buff *skb,
			   const struct sroce_pkt_hdr *h,
			   const struct sroce_opcode_info *oi)
{
	if (sroce_wire_check_seg(h, qp->mtu, sroce_seg_resp_max(qp, h))) {
		sroce_resp_invalid(qp, h->psn);
		return;
	}
	switch (oi->kind) {
	case SROCE_OPK_SEND:
	case SROCE_OPK_SEND_IMM:
	case SROCE_OPK_SEND_INV:
		sroce_resp_send(qp, skb, h, oi);
		break;
	case SROCE_OPK_WRITE:
	case SROCE_OPK_WRITE_IMM:
		sroce_resp_write(qp, skb, h, oi);
		break;
	case SROCE_OPK_READ_REQ:
		sroce_resp_read(qp, h);
		break;
	case SROCE_OPK_CMP_SWAP:
	case SROCE_OPK_FETCH_ADD:
		sroce_resp_atomic(qp, h, oi);
		break;
	case SROCE_OPK_ATOMIC_WRITE:
		sroce_resp_atomic_write(qp, skb, h, oi);
		break;
	default:
		sroce_resp_invalid(qp, h->psn);
		break;
	}
}

/*
 * A READ we answered before, asked again (the answer was lost), possibly
 * only its tail: answer again from memory, with the rkey checked again.
 * It must end where the original ended.
 */
static void sroce_resp_dup_read(struct sroce_qp *qp,
				const struct sroce_pkt_hdr *h)
{
	struct sroce_res *res = sroce_resp_res_find(qp, h->psn, true);

	/* The right may have been taken away since (modify_qp RTS -> RTS). */
	if (!(qp->access_flags & IB_ACCESS_REMOTE_READ))
		return;
	if (!res || h->dma_len > SROCE_MSG_MAX ||
	    sroce_psn_sub(sroce_psn_add(res->psn, res->npsn), h->psn) !=
	    sroce_resp_npsn(qp, h->dma_len))
		return;
	if (h->dma_len && sroce_copy_check_remote(qp, h->rkey, h->va,
						  h->dma_len,
						  IB_ACCESS_REMOTE_READ))
		return;
	sroce_cnt_inc(sroce_qp_cnt(qp), SROCE_CNT_DUP_READS);
	sroce_resp_read_start(qp, h);
}

static void sroce_resp_dup(struct sroce_qp *qp, const struct sroce_pkt_hdr *h,
			   const struct sroce_opcode_info *oi)
{
	struct sroce_res *res;

	sroce_cnt_inc(sroce_qp_cnt(qp), SROCE_CNT_RX_DUP_REQ);
	switch (oi->kind) {
	case SROCE_OPK_READ_REQ:
		sroce_resp_dup_read(qp, h);
		break;
	case SROCE_OPK_CMP_SWAP:
	case SROCE_OPK_FETCH_ADD:
		res = sroce_resp_res_find(qp, h->psn, false);
		if (!res || res->psn != h->psn || res->kind != oi->kind)
			break;
		sroce_cnt_inc(sroce_qp_cnt(qp), SROCE_CNT_DUP_ATOMICS);
		sroce_resp_aeth(qp, SROCE_RESP_OPCODE(qp, ATOMIC_ACK), h->psn,
				sroce_aeth_ack(SROCE_AETH_CREDIT_NONE),
				res->orig, NULL);
		break;
	default:
		/* Done already: say so again (for the newest PSN). */
		qp->resp.ack_due = true;
		break;
	}
}

/*
 * XRC TGT QPs: the SRQ a new request names serves it, or the request is
 * invalid (class C: NAK, the QP goes to ERROR).  A WQE that SRQ lent
 * earlier in the message cannot complete there any more: dropped.
 */
static int sroce_resp_xrc(struct sroce_qp *qp, const struct sroce_pkt_hdr *h)
{
	int err = sroce_xrc_resp_bind(qp, h, false);

	if (err) {
		sroce_xrc_resp_drop(qp);
		sroce_resp_invalid(qp, h->psn);
	}
	return err;
}

/* Beyond the expected PSN: held for an agreed peer, else one NAK. */
static bool sroce_resp_ahead(struct sroce_qp *qp, struct sk_buff *skb,
			     const struct sroce_pkt_hdr *h)
{
	struct sroce_resp *resp = &qp->resp;

	sroce_cnt_inc(sroce_qp_cnt(qp), SROCE_CNT_RX_OOS_REQ);
	if (sroce_sr_resp_hold(qp, skb, h))
		return true;
	if (resp->nak == SROCE_RESP_NAK_NONE) {
		resp->nak = SROCE_RESP_NAK_SEQ;
		sroce_resp_nak(qp, sroce_aeth_nak(SROCE_NAK_PSN_SEQ_ERR),
			       resp->epsn, SROCE_CNT_SEQ_NAKS_SENT);
	}
	return false;
}

static void sroce_resp_packet(struct sroce_qp *qp, struct sk_buff *skb)
{
	struct sroce_resp *resp = &qp->resp;
	const struct sroce_opcode_info *oi;
	struct sroce_pkt_hdr h;

	if (sroce_wire_parse(skb->data, skb->len, &h))
		goto out;
	oi = sroce_wire_opcode_info(h.opcode);
	sroce_sr_resp_learn(qp, &h);
	switch (sroce_resp_classify_psn(resp->epsn, h.psn)) {
	case SROCE_RESP_PSN_NEW:
		resp->nak = SROCE_RESP_NAK_NONE;
		if (!sroce_resp_xrc(qp, &h))
			sroce_resp_new(qp, skb, &h, oi);
		break;
	case SROCE_RESP_PSN_DUPLICATE:
		/*
		 * Executed before; only a READ is executed again, and needs
		 * its SRQ's PD for that.  A bad SRQ now is a forgery: dropped.
		 */
		if (oi->kind != SROCE_OPK_READ_REQ ||
		    !sroce_xrc_resp_bind(qp, &h, true))
			sroce_resp_dup(qp, &h, oi);
		break;
	default:
		if (sroce_resp_ahead(qp, skb, &h))
			return;		/* held, or consumed as a copy */
		break;
	}
	sroce_xrc_resp_unbind(qp);
out:
	consume_skb(skb);
}

/*
 * A READ response packet with its @len bytes of data, attached from the
 * MR pages if @zc (zero copy) or copied; NULL with *err: -ENOMEM, -E2BIG
 * (not attachable: copy instead), -EAGAIN (an ODP page is on its way), or
 * the access error.
 */
static struct sk_buff *sroce_resp_read_skb(struct sroce_qp *qp,
					   struct sroce_pkt_hdr *h, u32 len,
					   bool zc, int *err)
{
	struct sroce_rdout *rd = &qp->resp.rd;
	struct sroce_data d;
	struct sk_buff *skb;

	skb = sroce_tx_alloc_data(qp, h, len, zc, &d);
	if (!skb) {
		*err = -ENOMEM;
		return NULL;
	}
	/* XRC TGT: the rkey is in the PD of the SRQ the READ named. */
	*err = sroce_xrc_resp_bind_srqn(qp, rd->xrc_srqn) ?:
	       sroce_copy_remote(qp, rd->rkey, rd->va + rd->off, len, &d,
				 false);
	sroce_xrc_resp_unbind(qp);
	if (!*err)
		*err = sroce_tx_data_done(skb, h, &d);
	if (*err) {
		kfree_skb(skb);
		return NULL;
	}
	return skb;
}

/* The next READ response packet; false if it could not leave now. */
static bool sroce_resp_read_one(struct sroce_qp *qp)
{
	struct sroce_rdout *rd = &qp->resp.rd;
	struct sroce_pkt_hdr h;
	struct sroce_seg seg;
	struct sk_buff *skb;
	bool last;
	u32 len;
	int err;

	if (sroce_tx_throttled(qp))
		return false;
	if (WARN_ON_ONCE(sroce_seg_at(rd->length, rd->off, qp->mtu, &seg))) {
		rd->active = false;
		return true;
	}
	len = seg.len;
	last = seg.pos == SROCE_POS_LAST || seg.pos == SROCE_POS_ONLY;
	sroce_tx_hdr_init(qp, &h, sroce_wire_opcode_for(sroce_qp_transport(qp),
							SROCE_OPK_READ_RESP,
							seg.pos), rd->psn);
	h.syndrome = sroce_aeth_ack(SROCE_AETH_CREDIT_NONE);
	h.msn = qp->resp.msn & SROCE_U24_MAX;
	h.ext = qp->resp.sr_peer;
	sroce_elide_resp_hdr(qp, &h);
	sroce_seg_resp_hdr(qp, &h);
	skb = sroce_resp_read_skb(qp, &h, len, sroce_tx_zc_wanted(qp, len),
				  &err);
	/* Kernel memory, or too many pieces: copy after all. */
	if (err == -E2BIG)
		skb = sroce_resp_read_skb(qp, &h, len, false, &err);
	/* -EAGAIN: an ODP page is on its way, and its end kicks us. */
	if (err == -ENOMEM || err == -EAGAIN)
		return false;
	if (err) {
		/* The MR (or the XRC SRQ) went away under the READ. */
		rd->active = false;
		sroce_resp_access(qp, rd->psn);
		return true;
	}
	if (sroce_tx_xmit(qp, skb) == -ENOBUFS)
		return false;
	rd->off += len;
	rd->psn = sroce_psn_add(rd->psn, 1);
	if (last)
		rd->active = false;
	return true;
}

/* Requests whose answer is data (READ, atomics): see engine.c, "away". */
static bool sroce_resp_answers_data(const struct sk_buff *skb)
{
	u8 kind = sroce_wire_opcode_info(skb->data[0])->kind;

	return kind == SROCE_OPK_READ_REQ || kind == SROCE_OPK_CMP_SWAP ||
	       kind == SROCE_OPK_FETCH_ADD;
}

/*
 * Execute queued requests and READ responses, up to @budget packets.
 * True if there is more to do now (@away: more that must be done at
 * home).
 */
bool sroce_resp_run(struct sroce_qp *qp, int budget, bool away)
{
	struct sroce_resp *resp = &qp->resp;
	struct sk_buff *skb, *held;

	while (budget > 0 && READ_ONCE(qp->state) != IB_QPS_ERR) {
		if (resp->rd.active) {
			if (away)
				return true;
			if (!sroce_resp_read_one(qp)) {
				/* Could not send: come back shortly. */
				if (!sroce_odp_waiting(qp))
					sroce_engine_backoff(qp);
				return false;
			}
			budget--;
			continue;
		}
		/* A held request whose gap closed goes before new ones. */
		skb = sroce_sr_resp_next(qp);
		held = skb;
		if (!skb)
			skb = skb_peek(&resp->pending);
		if (!skb)
			break;
		if (away && sroce_resp_answers_data(skb)) {
			sroce_resp_ack(qp);
			return true;
		}
		if (held)
			sroce_sr_resp_take(qp, skb);
		else
			__skb_unlink(skb, &resp->pending);
		sroce_resp_packet(qp, skb);
		budget--;
	}
	if (READ_ONCE(qp->state) == IB_QPS_ERR)
		return false;
	sroce_resp_ack(qp);
	return resp->rd.active || !skb_queue_empty(&resp->pending) ||
	       sroce_sr_resp_next(qp);
}

/*
 * Receives posted while the QP is in ERROR must be flushed too, but
 * posting a receive needs no system call: ask libsroce for a doorbell
 * (SROCE_RING_F_KICK on the RQ), with the same store, fence, re-read
 * dance as the SQ's.
 */
static int sroce_resp_avail_or_kick(struct sroce_qp *qp)
{
	struct sroce_queue *q = &qp->rq;
	int n = sroce_queue_avail(q);

	if (n)
		return n;
	WRITE_ONCE(q->hdr->flags, SROCE_RING_F_KICK);
	/* Flag store before the prod load; libsroce fences the other way. */
	smp_mb();
	return sroce_queue_avail(q);
}

/*
 * ERROR: every posted receive WQE completes with FLUSH_ERR.  True if the
 * budget ran out first.
 */
bool sroce_resp_flush(struct sroce_qp *qp, int budget)
{
	struct sroce_resp *resp = &qp->resp;
	struct sroce_queue *q = &qp->rq;

	__skb_queue_purge(&resp->pending);
	sroce_sr_resp_purge(qp);
	resp->rd.active = false;
	resp->msg = SROCE_OPK_NONE;
	resp->ack_due = false;
	while (budget-- > 0) {
		/* A corrupt ring has nothing more to flush. */
		if (sroce_resp_avail_or_kick(qp) <= 0) {
			/* An XRC TGT QP is on no SRQ of its own. */
			if (qp->srq && !sroce_qp_is_xrc_tgt(qp))
				sroce_srq_qp_flushed(qp);
			return false;
		}
		if (!resp->have_rwqe) {
			memcpy(resp->rwqe, sroce_queue_slot(q, q->index),
			       SROCE_RECV_WQE_HDR_SIZE);
			resp->have_rwqe = true;
		}
		sroce_resp_complete(qp, IB_WC_WR_FLUSH_ERR, IB_WC_RECV, 0, NULL);
	}
	return true;
}
