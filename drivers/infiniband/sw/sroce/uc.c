// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * The UC transport: SEND and RDMA WRITE (with or without immediate),
 * segmented at the path MTU like RC's, in PSN order, but never
 * acknowledged and never sent again.  Run by the engine like UD (the
 * send side shares ud.c's steps).
 *
 * Send: the head WQE is copied and validated once, then sent packet by
 * packet and retired when its last packet left.  A WQE that cannot be
 * sent fails and takes the QP to SQE, as on UD.
 *
 * Receive: packets must come in PSN order.  A gap means packets were
 * lost: the message in progress is dropped, the expected PSN resyncs to
 * the packet that came, and only the first packet of a new message is
 * taken.  A message that cannot be placed (no receive WQE, a bad rkey or
 * range, a wrong opcode sequence) is dropped the same way, silently: UC
 * has no NAK.  The receive WQE of a dropped SEND is not consumed, and
 * takes the next message.  Every dropped message is counted.
 */
#include "sroce.h"
#include "rc.h"

/* ------------------------------------------------------------------ */
/* Send                                                                */
/* ------------------------------------------------------------------ */

static enum ib_wc_status sroce_uc_validate(struct sroce_qp *qp,
					   struct sroce_swqe *w, u8 *raw,
					   const u8 *slot)
{
	const struct sroce_send_wqe *wqe = (const void *)raw;
	enum ib_wc_status status;

	switch (w->opcode) {
	case IB_UVERBS_WR_SEND:
		w->kind = SROCE_OPK_SEND;
		break;
	case IB_UVERBS_WR_SEND_WITH_IMM:
		w->kind = SROCE_OPK_SEND_IMM;
		break;
	case IB_UVERBS_WR_RDMA_WRITE:
		w->kind = SROCE_OPK_WRITE;
		break;
	case IB_UVERBS_WR_RDMA_WRITE_WITH_IMM:
		w->kind = SROCE_OPK_WRITE_IMM;
		break;
	default:
		return IB_WC_LOC_QP_OP_ERR;
	}
	status = sroce_ud_copy_body(qp, w, raw, slot, SROCE_MSG_MAX);
	if (status != IB_WC_SUCCESS)
		return status;
	w->remote_addr = wqe->wr.rdma.remote_addr;
	w->rkey = wqe->wr.rdma.rkey;
	w->npsn = sroce_seg_npsn(w->length, qp->mtu);
	return w->npsn ? IB_WC_SUCCESS : IB_WC_LOC_LEN_ERR;
}

static void sroce_uc_fetch(struct sroce_qp *qp)
{
	u32 idx = qp->sq.index;
	u8 *raw = sroce_ud_raw(qp, idx);
	const u8 *slot = sroce_queue_slot(&qp->sq, idx);
	const struct sroce_send_wqe *wqe = (const void *)raw;
	struct sroce_swqe *w = sroce_req_wqe(qp, idx);

	memcpy(raw, slot, SROCE_SEND_WQE_HDR_SIZE);
	memset(w, 0, sizeof(*w));
	w->wr_id = wqe->wr_id;
	w->opcode = wqe->opcode;
	w->send_flags = wqe->send_flags;
	w->imm = wqe->imm_data;
	w->status = sroce_uc_validate(qp, w, raw, slot);
	if (w->status != IB_WC_SUCCESS)
		sroce_cnt_inc(sroce_qp_cnt(qp), SROCE_CNT_BAD_WQES);
	qp->req.fetch = idx + 1;
	qp->req.cur_off = 0;
}

/* The headers of the packet of @w at @off, position @pos. */
static void sroce_uc_hdr(struct sroce_qp *qp, struct sroce_swqe *w,
			 struct sroce_pkt_hdr *h, u8 pos)
{
	bool first = pos == SROCE_POS_FIRST || pos == SROCE_POS_ONLY;
	bool last = pos == SROCE_POS_LAST || pos == SROCE_POS_ONLY;
	bool write = w->kind == SROCE_OPK_WRITE || w->kind == SROCE_OPK_WRITE_IMM;

	sroce_tx_hdr_init(qp, h, sroce_wire_opcode_for(SROCE_TR_UC, w->kind,
						       pos), qp->req.psn);
	if (write && first) {
		h->va = w->remote_addr;
		h->rkey = w->rkey;
		h->dma_len = w->length;
	}
	if (last && (w->kind == SROCE_OPK_SEND_IMM ||
		     w->kind == SROCE_OPK_WRITE_IMM))
		h->imm = be32_to_cpu((__force __be32)w->imm);
	h->se = last && (w->send_flags & IB_SEND_SOLICITED) &&
		w->kind != SROCE_OPK_WRITE;
}

static int sroce_uc_payload(struct sroce_qp *qp, struct sroce_swqe *w,
			    struct sk_buff *skb, u32 off, u32 len)
{
	struct sroce_data d = {
		.buf = skb->data + sroce_wire_hdr_len(skb->data[0]),
	};

	if (!len)
		return 0;
	if (w->inline_data) {
		memcpy(d.buf, w->inline_data + off, len);
		return 0;
	}
	return sroce_copy_sgl(qp, w->sge, w->num_sge, off, len, &d, false);
}

/*
 * Send the next packet of @w.  1 when it was its last, 0 when more
 * follow, -ENOBUFS/-ENOMEM to try again shortly, -EAGAIN when an ODP
 * fault's end will kick us, -EINVAL with w->status set if it never can
 * be sent.
 */
static int sroce_uc_xmit(struct sroce_qp *qp, struct sroce_swqe *w)
{
	u32 off = qp->req.cur_off;
	struct sroce_pkt_hdr h;
	struct sroce_seg seg;
	struct sk_buff *skb;
	int err;

	if (WARN_ON_ONCE(sroce_seg_at(w->length, off, qp->mtu, &seg))) {
		w->status = IB_WC_LOC_QP_OP_ERR;
		return -EINVAL;
	}
	if (sroce_tx_throttled(qp))
		return -ENOBUFS;
	sroce_uc_hdr(qp, w, &h, seg.pos);
	skb = sroce_tx_alloc(qp, &h, seg.len);
	if (!skb) {
		sroce_engine_backoff(qp);
		return -ENOMEM;
	}
	err = sroce_uc_payload(qp, w, skb, off, seg.len);
	if (err) {
		kfree_skb(skb);
		/* An ODP page is being faulted in: its end kicks us. */
		if (err == -EAGAIN)
			return -EAGAIN;
		w->status = IB_WC_LOC_PROT_ERR;
		return -EINVAL;
	}
	if (sroce_tx_xmit(qp, skb) == -ENOBUFS) {
		sroce_engine_backoff(qp);
		return -ENOBUFS;
	}
	qp->req.psn = sroce_psn_add(qp->req.psn, 1);
	qp->req.cur_off = off + seg.len;
	return seg.pos == SROCE_POS_LAST || seg.pos == SROCE_POS_ONLY;
}

static bool sroce_uc_next(struct sroce_qp *qp, enum ib_qp_state state)
{
	/* SQD: the message in progress finishes, no other starts. */
	if (state == IB_QPS_SQD && !qp->req.cur_off) {
		sroce_ud_drained(qp);
		return false;
	}
	if (qp->req.fetch != qp->sq.index)
		return true;
	if (!sroce_ud_sq_ready(qp))
		return false;
	sroce_uc_fetch(qp);
	return true;
}

/* Send up to @budget packets; true if there is more to do now. */
static bool sroce_uc_send(struct sroce_qp *qp, int budget)
{
	enum ib_qp_state state = READ_ONCE(qp->state);
	struct sroce_swqe *w;
	int r;

	if (state == IB_QPS_SQE)
		return sroce_req_flush(qp, budget);
	if (state != IB_QPS_RTS && state != IB_QPS_SQD)
		return false;
	if (state == IB_QPS_RTS)
		qp->req.drained = false;
	if (READ_ONCE(qp->sq.hdr->flags))
		WRITE_ONCE(qp->sq.hdr->flags, 0);
	for (; budget > 0; budget--) {
		if (!sroce_uc_next(qp, state))
			return false;
		w = sroce_req_wqe(qp, qp->sq.index);
		r = w->status == IB_WC_SUCCESS ? sroce_uc_xmit(qp, w) : -EINVAL;
		if (w->status != IB_WC_SUCCESS) {
			sroce_ud_sq_error(qp, w);
			return true;
		}
		if (r < 0)
			return false;	/* refused for now: backoff set */
		if (r)
			sroce_comp_wqe(qp, w, IB_WC_SUCCESS);
	}
	return true;
}

/* ------------------------------------------------------------------ */
/* Receive                                                             */
/* ------------------------------------------------------------------ */

/* Give up the message in progress; its receive WQE, if any, stays. */
static void sroce_uc_drop(struct sroce_qp *qp)
{
	if (qp->resp.msg != SROCE_OPK_NONE)
		sroce_cnt_inc(sroce_qp_cnt(qp), SROCE_CNT_RX_UC_DROPPED);
	qp->resp.msg = SROCE_OPK_NONE;
	qp->resp.offset = 0;
}

/* The receive WQE for the message, held until it completes. */
static bool sroce_uc_rwqe(struct sroce_qp *qp)
{
	struct sroce_resp *resp = &qp->resp;
	u64 room;

	if (resp->have_rwqe)
		return true;
	if (sroce_ud_rwqe(qp, &room) <= 0)
		return false;
	resp->have_rwqe = true;
	resp->rwqe_len = room;
	return true;
}

static void sroce_uc_complete(struct sroce_qp *qp, enum ib_wc_status status,
			      enum ib_wc_opcode opcode, u32 len,
			      const struct sroce_pkt_hdr *h)
{
	struct sroce_cqe cqe = {
		.status = status,
		.opcode = opcode,
		.byte_len = len,
		.src_qp = qp->dest_qpn,
	};

	if (h && (sroce_wire_opcode_info(h->opcode)->hdrs & SROCE_HDR_IMMDT)) {
		cqe.imm_data = (__force u32)cpu_to_be32(h->imm);
		cqe.wc_flags = IB_WC_WITH_IMM;
	}
	qp->resp.have_rwqe = false;
	sroce_ud_recv_done(qp, &cqe, h && h->se);
}

static void sroce_uc_send_pkt(struct sroce_qp *qp, struct sk_buff *skb,
			      const struct sroce_pkt_hdr *h, bool last)
{
	struct sroce_data d = { .skb = skb, .off = h->hdr_len };
	struct sroce_resp *resp = &qp->resp;
	int err;

	if (!sroce_uc_rwqe(qp)) {
		sroce_uc_drop(qp);	/* no WQE: the message is lost */
		return;
	}
	if (sroce_resp_send_too_long(resp, h->payload_len)) {
		sroce_uc_complete(qp, IB_WC_LOC_LEN_ERR, IB_WC_RECV,
				  resp->offset, NULL);
		sroce_uc_drop(qp);
		return;
	}
	err = h->payload_len ?
	      sroce_copy_sgl(qp, sroce_ud_rsges(qp), qp->resp.rwqe->num_sge,
			     resp->offset, h->payload_len, &d, true) : 0;
	/* An ODP page missing: lost, as UC loses what cannot be placed. */
	if (err == -EAGAIN) {
		sroce_uc_drop(qp);
		return;
	}
	if (err) {
		/* A receive WQE naming memory it may not write. */
		sroce_uc_complete(qp, IB_WC_LOC_PROT_ERR, IB_WC_RECV,
				  resp->offset, NULL);
		sroce_uc_drop(qp);
		sroce_engine_error(qp);
		return;
	}
	resp->offset += h->payload_len;
	if (last) {
		sroce_uc_complete(qp, IB_WC_SUCCESS, IB_WC_RECV, resp->offset,
				  h);
		resp->msg = SROCE_OPK_NONE;
	}
}

static bool sroce_uc_write_first(struct sroce_qp *qp,
				 const struct sroce_pkt_hdr *h)
{
	struct sroce_resp *resp = &qp->resp;

	if (h->dma_len > SROCE_MSG_MAX ||
	    !(qp->access_flags & IB_ACCESS_REMOTE_WRITE) ||
	    (h->dma_len && sroce_copy_check_remote(qp, h->rkey, h->va,
						   h->dma_len,
						   IB_ACCESS_REMOTE_WRITE)))
		return false;
	resp->va = h->va;
	resp->rkey = h->rkey;
	resp->length = h->dma_len;
	return true;
}

static void sroce_uc_write_pkt(struct sroce_qp *qp, struct sk_buff *skb,
			       const struct sroce_pkt_hdr *h, bool first,
			       bool last)
{
	struct sroce_data d = { .skb = skb, .off = h->hdr_len };
	bool imm = sroce_wire_opcode_info(h->opcode)->hdrs & SROCE_HDR_IMMDT;
	struct sroce_resp *resp = &qp->resp;
	u32 len = h->payload_len;

	if ((first && !sroce_uc_write_first(qp, h)) ||
	    (u64)resp->offset + len > resp->length ||
	    (last && resp->offset + len != resp->length) ||
	    (last && imm && !sroce_uc_rwqe(qp)) ||
	    sroce_copy_remote(qp, resp->rkey, resp->va + resp->offset, len,
			      &d, true)) {
		sroce_uc_drop(qp);
		return;
	}
	resp->offset += len;
	if (!last)
		return;
	resp->msg = SROCE_OPK_NONE;
	if (imm)
		sroce_uc_complete(qp, IB_WC_SUCCESS, IB_WC_RECV_RDMA_WITH_IMM,
				  resp->length, h);
}

/* One received packet (engine run); consumes @skb. */
static void sroce_uc_recv(struct sroce_qp *qp, struct sk_buff *skb)
{
	const struct sroce_opcode_info *oi;
	struct sroce_resp *resp = &qp->resp;
	struct sroce_pkt_hdr h;
	bool first, last;
	u8 msg;

	if (sroce_wire_parse(skb->data, skb->len, &h))
		goto out;
	oi = sroce_wire_opcode_info(h.opcode);
	first = oi->pos == SROCE_POS_FIRST || oi->pos == SROCE_POS_ONLY;
	last = oi->pos == SROCE_POS_LAST || oi->pos == SROCE_POS_ONLY;
	msg = oi->kind == SROCE_OPK_SEND_IMM ? SROCE_OPK_SEND :
	      oi->kind == SROCE_OPK_WRITE_IMM ? SROCE_OPK_WRITE : oi->kind;
	if (h.psn != resp->epsn) {
		/* Lost packets: what was in progress cannot complete. */
		sroce_cnt_inc(sroce_qp_cnt(qp), SROCE_CNT_RX_OOS_REQ);
		sroce_uc_drop(qp);
	}
	resp->epsn = sroce_psn_add(h.psn, 1);
	if (first) {
		sroce_uc_drop(qp);	/* a message cut short before */
		resp->msg = msg;
	} else if (resp->msg != msg) {
		goto out;		/* its first packet was lost */
	}
	if (sroce_wire_check_pmtu(&h, qp->mtu)) {
		sroce_uc_drop(qp);
		goto out;
	}
	if (msg == SROCE_OPK_SEND)
		sroce_uc_send_pkt(qp, skb, &h, last);
	else if (msg == SROCE_OPK_WRITE)
		sroce_uc_write_pkt(qp, skb, &h, first, last);
	else
		sroce_uc_drop(qp);
out:
	consume_skb(skb);
}

/* One engine run of a UC QP in RTR or later (not ERROR). */
bool sroce_uc_run(struct sroce_qp *qp, int budget)
{
	struct sk_buff *skb;
	bool more;
	int n;

	for (n = budget; n > 0 && READ_ONCE(qp->state) != IB_QPS_ERR; n--) {
		skb = skb_dequeue(&qp->rxq);
		if (!skb)
			break;
		sroce_uc_recv(qp, skb);
	}
	more = !skb_queue_empty(&qp->rxq);
	/* Pairs with sroce_req_arm(): the PSN is set once this is. */
	if (smp_load_acquire(&qp->req.ready))
		more |= sroce_uc_send(qp, budget);
	return more;
}
