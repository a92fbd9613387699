// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * The UD transport (UD QPs and the GSI QP), run by the engine in the
 * same places and under the same bit lock as RC (engine.c dispatches).
 *
 * Send: one packet per WQE, BTH + DETH (the WR's Q_Key, or the QP's when
 * the WR's has its high bit set; our QPN as the source), to the address
 * vector of the AH the WQE names.  The WQE is copied out of the SQ into
 * the per-slot copy RC uses (req.raw, req.wqes) and validated once: SEND
 * or SEND with immediate, at most the port's MTU (else LOC_LEN_ERR).  It
 * retires as soon as its packet left, since nothing acknowledges it; a
 * packet the local stack refused is sent again shortly.  A WQE that
 * cannot be sent completes with its error and takes the QP to SQE, where
 * later WQEs are flushed while receives go on, as the spec has it for UD.
 *
 * Receive: the Q_Key must be the QP's (else dropped and counted); the
 * message takes the next receive WQE of the RQ or SRQ (none: dropped,
 * UD has no RNR), gets the 40-byte GRH area first - for RoCEv2 over IPv4
 * the IPv4 header in its last 20 bytes, over IPv6 the IPv6 header, as
 * rdma-core and ib_core read it - then the payload.
 *
 * Between runs the RC invariants the ERROR flush (req.c, resp.c) relies
 * on hold: at most the head WQE of the SQ is copied (req.fetch), and no
 * receive WQE is held (resp.have_rwqe is never set here).
 */
#include <net/ip.h>
#include <net/ipv6.h>
#include <rdma/ib_addr.h>

#include "sroce.h"
#include "rc.h"
#include "trace.h"

#define SROCE_UD_GRH_BYTES	40
/* A WR Q_Key with this bit set means the QP's Q_Key (IBTA 10.2.5). */
#define SROCE_QKEY_USE_QP	0x80000000u

/* ------------------------------------------------------------------ */
/* Send                                                                */
/* ------------------------------------------------------------------ */

static u32 sroce_ud_mtu(struct sroce_qp *qp)
{
	return ib_mtu_enum_to_int(sroce_port_active_mtu(qp->sdev));
}

/* Our copy of the WQE at SQ index @idx. */
u8 *sroce_ud_raw(struct sroce_qp *qp, u32 idx)
{
	return qp->req.raw + (size_t)(idx & qp->sq.mask) * qp->sq.stride;
}

/*
 * The payload: inline bytes or SGEs, sizes from our copy of the header,
 * at most @max bytes (UD: the MTU; UC: a message).
 */
enum ib_wc_status sroce_ud_copy_body(struct sroce_qp *qp,
				     struct sroce_swqe *w, u8 *raw,
				     const u8 *slot, u64 max)
{
	const struct sroce_send_wqe *wqe = (const void *)raw;
	u32 body = qp->sq.stride - SROCE_SEND_WQE_HDR_SIZE;
	u64 total;

	if (wqe->send_flags & IB_SEND_INLINE) {
		if (wqe->num_sge)
			return IB_WC_LOC_QP_OP_ERR;
		if (wqe->inline_len > qp->max_inline ||
		    wqe->inline_len > body || wqe->inline_len > max)
			return IB_WC_LOC_LEN_ERR;
		memcpy(raw + SROCE_SEND_WQE_HDR_SIZE,
		       slot + SROCE_SEND_WQE_HDR_SIZE, wqe->inline_len);
		w->inline_data = raw + SROCE_SEND_WQE_HDR_SIZE;
		w->length = wqe->inline_len;
		return IB_WC_SUCCESS;
	}
	if (wqe->num_sge > qp->max_send_sge ||
	    wqe->num_sge > body / sizeof(struct sroce_sge))
		return IB_WC_LOC_QP_OP_ERR;
	memcpy(raw + SROCE_SEND_WQE_HDR_SIZE, slot + SROCE_SEND_WQE_HDR_SIZE,
	       wqe->num_sge * sizeof(struct sroce_sge));
	w->sge = (const void *)(raw + SROCE_SEND_WQE_HDR_SIZE);
	w->num_sge = wqe->num_sge;
	if (sroce_copy_sgl_check(qp, w->sge, w->num_sge, 0, &total))
		return IB_WC_LOC_PROT_ERR;
	if (total > max)
		return IB_WC_LOC_LEN_ERR;
	w->length = total;
	return IB_WC_SUCCESS;
}

static enum ib_wc_status sroce_ud_validate(struct sroce_qp *qp,
					   struct sroce_swqe *w, u8 *raw,
					   const u8 *slot)
{
	if (sroce_qp_is_raw(qp))
		return sroce_raw_validate(qp, w, raw, slot);
	switch (w->opcode) {
	case IB_UVERBS_WR_SEND:
		w->kind = SROCE_OPK_SEND;
		break;
	case IB_UVERBS_WR_SEND_WITH_IMM:
		w->kind = SROCE_OPK_SEND_IMM;
		break;
	default:
		return IB_WC_LOC_QP_OP_ERR;
	}
	/* One packet per message. */
	return sroce_ud_copy_body(qp, w, raw, slot, sroce_ud_mtu(qp));
}

/* Copy the WQE at the head of the SQ out of the ring, then check it. */
static void sroce_ud_fetch(struct sroce_qp *qp)
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
	w->status = sroce_ud_validate(qp, w, raw, slot);
	if (w->status != IB_WC_SUCCESS)
		sroce_cnt_inc(sroce_qp_cnt(qp), SROCE_CNT_BAD_WQES);
	qp->req.fetch = idx + 1;
}

/*
 * WQEs posted and not retired, or 0 after asking for a doorbell (the
 * store, full barrier, re-read dance of req.c), or -EIO if corrupt.
 */
static int sroce_ud_sq_avail(struct sroce_qp *qp)
{
	u32 *flags = &qp->sq.hdr->flags;
	int n = sroce_queue_avail(&qp->sq);

	if (n)
		return n;
	WRITE_ONCE(*flags, SROCE_RING_F_KICK);
	/* Flag store before the prod load; libsroce fences the other way. */
	smp_mb();
	n = sroce_queue_avail(&qp->sq);
	if (n)
		WRITE_ONCE(*flags, 0);
	return n;
}

/*
 * Nothing fetched waits to be sent: is another WQE posted?  A corrupt
 * producer index (userspace owns it) makes the QP fatal instead.
 */
bool sroce_ud_sq_ready(struct sroce_qp *qp)
{
	int n = sroce_ud_sq_avail(qp);

	if (n < 0) {
		pr_warn_ratelimited("sroce: QP %u: SQ producer index is corrupt\n",
				    qp->ibqp.qp_num);
		sroce_engine_fatal(qp, IB_EVENT_QP_FATAL);
	}
	return n > 0;
}

/*
 * Aim the QP's transmit path at @av: the route cache is per QP, so a new
 * destination drops it (a UD QP has no AV of its own; this is the last
 * one used).
 */
static void sroce_ud_set_path(struct sroce_qp *qp, const struct sroce_av *av,
			      u32 dqpn)
{
	if (memcmp(&qp->av, av, sizeof(*av))) {
		qp->av = *av;
		set_bit(SROCE_ENG_AV_CHANGED, &qp->req.flags);
	}
	qp->src_port = rdma_get_udp_sport(av->flow_label, qp->ibqp.qp_num,
					  dqpn);
}

static int sroce_ud_payload(struct sroce_qp *qp, struct sroce_swqe *w,
			    struct sk_buff *skb)
{
	struct sroce_data d = {
		.buf = skb->data + sroce_wire_hdr_len(skb->data[0]),
	};

	if (!w->length)
		return 0;
	if (w->inline_data) {
		memcpy(d.buf, w->inline_data, w->length);
		return 0;
	}
	return sroce_copy_sgl(qp, w->sge, w->num_sge, 0, w->length, &d, false);
}

static void sroce_ud_hdr(struct sroce_qp *qp, struct sroce_swqe *w,
			 const struct sroce_send_wqe *wqe,
			 struct sroce_pkt_hdr *h)
{
	u32 qkey = wqe->wr.ud.remote_qkey;

	sroce_tx_hdr_init(qp, h, sroce_wire_opcode_for(SROCE_TR_UD, w->kind,
						       SROCE_POS_ONLY),
			  qp->req.psn);
	h->dest_qpn = wqe->wr.ud.remote_qpn & SROCE_U24_MAX;
	h->qkey = qkey & SROCE_QKEY_USE_QP ? READ_ONCE(qp->qkey) : qkey;
	h->src_qpn = qp->ibqp.qp_num;
	h->se = !!(w->send_flags & IB_SEND_SOLICITED);
	if (w->kind == SROCE_OPK_SEND_IMM)
		h->imm = be32_to_cpu((__force __be32)w->imm);
}

/*
 * Send the packet of @w.  0 once it left (or was lost on the way: UD
 * does not care which); -ENOBUFS or -ENOMEM if it must be tried again
 * shortly, -EAGAIN when an ODP fault's end will kick us; -EINVAL with
 * w->status set if it never can be.
 */
static int sroce_ud_xmit(struct sroce_qp *qp, struct sroce_swqe *w)
{
	const struct sroce_send_wqe *wqe =
		(const void *)sroce_ud_raw(qp, qp->sq.index);
	struct sroce_pkt_hdr h;
	struct sroce_av av;
	struct sk_buff *skb;
	int err;

	if (sroce_ah_get_av(qp, wqe->wr.ud.ahn, &av)) {
		w->status = IB_WC_LOC_QP_OP_ERR;
		return -EINVAL;
	}
	if (sroce_tx_throttled(qp))
		return -ENOBUFS;
	sroce_ud_hdr(qp, w, wqe, &h);
	sroce_ud_set_path(qp, &av, h.dest_qpn);
	skb = sroce_tx_alloc(qp, &h, w->length);
	if (!skb) {
		sroce_engine_backoff(qp);
		return -ENOMEM;
	}
	err = sroce_ud_payload(qp, w, skb);
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
	return 0;
}

static int sroce_ud_xmit_any(struct sroce_qp *qp, struct sroce_swqe *w)
{
	return sroce_qp_is_raw(qp) ? sroce_raw_xmit(qp, w) :
				     sroce_ud_xmit(qp, w);
}

/* A WQE that cannot be sent: it fails, and the SQ with it (SQE). */
void sroce_ud_sq_error(struct sroce_qp *qp, struct sroce_swqe *w)
{
	spin_lock_bh(&qp->state_lock);
	if (qp->state == IB_QPS_RTS || qp->state == IB_QPS_SQD) {
		trace_sroce_qp_state(qp->ibqp.qp_num, qp->state, IB_QPS_SQE);
		qp->state = IB_QPS_SQE;
	}
	spin_unlock_bh(&qp->state_lock);
	sroce_comp_wqe(qp, w, w->status);
}

void sroce_ud_drained(struct sroce_qp *qp)
{
	struct ib_event ev = {
		.device = qp->ibqp.device,
		.element.qp = &qp->ibqp,
		.event = IB_EVENT_SQ_DRAINED,
	};

	if (qp->req.drained)
		return;
	qp->req.drained = true;
	if (qp->ibqp.event_handler)
		qp->ibqp.event_handler(&ev, qp->ibqp.qp_context);
}

/* The next WQE to send, copied; false if there is none (or SQD). */
static bool sroce_ud_next(struct sroce_qp *qp, enum ib_qp_state state)
{
	/* SQD: every WQE retires whole, so the SQ is drained here. */
	if (state == IB_QPS_SQD) {
		sroce_ud_drained(qp);
		return false;
	}
	if (qp->req.fetch != qp->sq.index)
		return true;
	if (!sroce_ud_sq_ready(qp))
		return false;
	sroce_ud_fetch(qp);
	return true;
}

/* Send up to @budget WQEs; true if there is more to do now. */
static bool sroce_ud_send(struct sroce_qp *qp, int budget)
{
	enum ib_qp_state state = READ_ONCE(qp->state);
	struct sroce_swqe *w;

	if (state == IB_QPS_SQE)
		return sroce_req_flush(qp, budget);
	if (state != IB_QPS_RTS && state != IB_QPS_SQD)
		return false;
	if (state == IB_QPS_RTS)
		qp->req.drained = false;
	/* Running: posts need no doorbell until we go idle again. */
	if (READ_ONCE(qp->sq.hdr->flags))
		WRITE_ONCE(qp->sq.hdr->flags, 0);
	for (; budget > 0; budget--) {
		if (!sroce_ud_next(qp, state))
			return false;
		w = sroce_req_wqe(qp, qp->sq.index);
		if (w->status == IB_WC_SUCCESS && sroce_ud_xmit_any(qp, w) &&
		    w->status == IB_WC_SUCCESS)
			return false;	/* refused for now: backoff set */
		if (w->status != IB_WC_SUCCESS) {
			sroce_ud_sq_error(qp, w);
			return true;	/* the next run flushes */
		}
		sroce_comp_wqe(qp, w, IB_WC_SUCCESS);
	}
	return true;
}

/* ------------------------------------------------------------------ */
/* Receive                                                             */
/* ------------------------------------------------------------------ */

struct sroce_sge *sroce_ud_rsges(struct sroce_qp *qp)
{
	return (struct sroce_sge *)(qp->resp.rwqe + 1);
}

/*
 * Retire the receive WQE copied into resp.rwqe: its slot goes back to
 * the poster, then the completion (@cqe->opcode: IB_WC_RECV, or
 * IB_WC_RECV_RDMA_WITH_IMM on UC).
 */
void sroce_ud_recv_done(struct sroce_qp *qp, struct sroce_cqe *cqe,
			bool solicited)
{
	cqe->wr_id = qp->resp.rwqe->wr_id;
	cqe->qp_num = qp->ibqp.qp_num;
	cqe->port_num = SROCE_PORT;
	sroce_queue_consume(&qp->rq, 1);
	sroce_engine_cqe(qp, qp->rcq, cqe, solicited);
}

/*
 * The next receive WQE (RQ, or lent by the SRQ), copied and checked;
 * *room gets the bytes its SGEs hold.  1, 0 if none is posted, < 0 if
 * the QP failed.
 */
int sroce_ud_rwqe(struct sroce_qp *qp, u64 *room)
{
	struct sroce_queue *q = &qp->rq;
	struct sroce_cqe cqe = {
		.status = IB_WC_LOC_QP_OP_ERR, .opcode = IB_WC_RECV,
	};
	const u8 *slot;
	u32 i, nsge;
	int n;

	n = sroce_queue_avail(q);
	if (!n && qp->srq)
		n = sroce_srq_lend(qp);
	if (n < 0) {
		pr_warn_ratelimited("sroce: QP %u: RQ producer index is corrupt\n",
				    qp->ibqp.qp_num);
		sroce_engine_fatal(qp, IB_EVENT_QP_FATAL);
	}
	if (n <= 0)
		return n;
	/* Copy first, then look: userspace may be writing the slot. */
	slot = sroce_queue_slot(q, q->index);
	memcpy(qp->resp.rwqe, slot, SROCE_RECV_WQE_HDR_SIZE);
	nsge = qp->resp.rwqe->num_sge;
	if (nsge > qp->max_recv_sge ||
	    nsge > (q->stride - SROCE_RECV_WQE_HDR_SIZE) /
		   sizeof(struct sroce_sge)) {
		sroce_cnt_inc(sroce_qp_cnt(qp), SROCE_CNT_BAD_WQES);
		sroce_ud_recv_done(qp, &cqe, false);
		sroce_engine_error(qp);
		return -EINVAL;
	}
	memcpy(sroce_ud_rsges(qp), slot + SROCE_RECV_WQE_HDR_SIZE,
	       nsge * sizeof(struct sroce_sge));
	*room = 0;
	for (i = 0; i < nsge; i++)
		*room += sroce_ud_rsges(qp)[i].length;
	return 1;
}

/*
 * The GRH area of a received packet: the IP header it came with, which
 * net_rx.c checked and left in the linear part just before the UDP
 * header.  Returns the network type.
 */
static int sroce_ud_grh(const struct sk_buff *skb, u8 *grh)
{
	const u8 *l3 = skb_network_header(skb);
	long hlen = skb->data - l3;	/* IP + UDP */

	memset(grh, 0, SROCE_UD_GRH_BYTES);
	if (skb->protocol == htons(ETH_P_IP)) {
		if (hlen < (long)(sizeof(struct iphdr) + sizeof(struct udphdr)))
			return -EINVAL;
		memcpy(grh + SROCE_UD_GRH_BYTES - sizeof(struct iphdr), l3,
		       sizeof(struct iphdr));
		return RDMA_NETWORK_IPV4;
	}
	if (hlen < (long)(sizeof(struct ipv6hdr) + sizeof(struct udphdr)))
		return -EINVAL;
	memcpy(grh, l3, sizeof(struct ipv6hdr));
	return RDMA_NETWORK_IPV6;
}

/*
 * GRH area, then payload, into the WQE's SGEs: a completion status; *err
 * says -EAGAIN if an ODP page of the WQE is missing (odp.c).
 */
static enum ib_wc_status sroce_ud_place(struct sroce_qp *qp,
					struct sk_buff *skb,
					const struct sroce_pkt_hdr *h,
					const u8 *grh, u64 room, int *err)
{
	struct sroce_sge *sge = sroce_ud_rsges(qp);
	u32 nsge = qp->resp.rwqe->num_sge;
	struct sroce_data d = { .buf = (u8 *)grh };

	*err = 0;
	if (SROCE_UD_GRH_BYTES + h->payload_len > room)
		return IB_WC_LOC_LEN_ERR;
	*err = sroce_copy_sgl(qp, sge, nsge, 0, SROCE_UD_GRH_BYTES, &d, true);
	if (*err)
		return IB_WC_LOC_PROT_ERR;
	d.buf = NULL;
	d.skb = skb;
	d.off = h->hdr_len;
	if (h->payload_len)
		*err = sroce_copy_sgl(qp, sge, nsge, SROCE_UD_GRH_BYTES,
				      h->payload_len, &d, true);
	return *err ? IB_WC_LOC_PROT_ERR : IB_WC_SUCCESS;
}

static void sroce_ud_deliver(struct sroce_qp *qp, struct sk_buff *skb,
			     const struct sroce_pkt_hdr *h, int net, u64 room,
			     const u8 *grh)
{
	struct sroce_cqe cqe = {
		.opcode = IB_WC_RECV,
		.byte_len = SROCE_UD_GRH_BYTES + h->payload_len,
		.src_qp = h->src_qpn,
		.wc_flags = IB_WC_GRH | IB_WC_WITH_NETWORK_HDR_TYPE,
		.network_hdr_type = net,
	};
	int err;

	cqe.status = sroce_ud_place(qp, skb, h, grh, room, &err);
	/* Lost, as UD may lose it; the WQE waits for the next packet. */
	if (err == -EAGAIN)
		return;
	if (sroce_wire_opcode_info(h->opcode)->hdrs & SROCE_HDR_IMMDT) {
		cqe.imm_data = (__force u32)cpu_to_be32(h->imm);
		cqe.wc_flags |= IB_WC_WITH_IMM;
	}
	sroce_ud_recv_done(qp, &cqe, h->se);
	/* A receive WQE naming memory it may not write: the QP fails. */
	if (cqe.status == IB_WC_LOC_PROT_ERR)
		sroce_engine_error(qp);
}

/* One received packet (engine run); consumes @skb. */
static void sroce_ud_recv(struct sroce_qp *qp, struct sk_buff *skb)
{
	struct sroce_counters *cnt = sroce_qp_cnt(qp);
	u8 grh[SROCE_UD_GRH_BYTES];
	struct sroce_pkt_hdr h;
	u64 room;
	int net;

	/* Checked in softirq already, transport included. */
	if (sroce_wire_parse(skb->data, skb->len, &h))
		goto out;
	if (h.qkey != READ_ONCE(qp->qkey)) {
		sroce_cnt_inc(cnt, SROCE_CNT_RX_BAD_QKEY);
		goto out;
	}
	net = sroce_ud_grh(skb, grh);
	if (net < 0) {
		sroce_cnt_inc(cnt, SROCE_CNT_RX_BAD_HDR);
		goto out;
	}
	switch (sroce_ud_rwqe(qp, &room)) {
	case 1:
		sroce_ud_deliver(qp, skb, &h, net, room, grh);
		break;
	case 0:
		sroce_cnt_inc(cnt, SROCE_CNT_RX_UD_NO_WQE);
		break;
	default:
		break;
	}
out:
	consume_skb(skb);
}

/* ------------------------------------------------------------------ */
/* The engine's entry points                                           */
/* ------------------------------------------------------------------ */

/*
 * One engine run of a UD or raw packet QP in RTR or later (not ERROR):
 * receives, then sends from RTS on.  True if there is more to do now.
 */
bool sroce_ud_run(struct sroce_qp *qp, int budget)
{
	struct sk_buff *skb;
	bool more;
	int n;

	for (n = budget; n > 0 && READ_ONCE(qp->state) != IB_QPS_ERR; n--) {
		skb = skb_dequeue(&qp->rxq);
		if (!skb)
			break;
		if (sroce_qp_is_raw(qp))
			sroce_raw_recv(qp, skb);
		else
			sroce_ud_recv(qp, skb);
	}
	more = !skb_queue_empty(&qp->rxq);
	/* Pairs with sroce_req_arm(): the PSN is set once this is. */
	if (smp_load_acquire(&qp->req.ready))
		more |= sroce_ud_send(qp, budget);
	return more;
}

/* qp_post.c: a kernel consumer's UD WR into a ring WQE. */
int sroce_ud_wqe_from_wr(const struct ib_send_wr *wr,
			 struct sroce_send_wqe *wqe)
{
	const struct ib_ud_wr *ud = ud_wr(wr);

	if (wr->opcode != IB_WR_SEND && wr->opcode != IB_WR_SEND_WITH_IMM)
		return -EINVAL;
	if (!ud->ah)
		return -EINVAL;
	wqe->wr.ud.ahn = to_sah(ud->ah)->ahn;
	wqe->wr.ud.remote_qpn = ud->remote_qpn;
	wqe->wr.ud.remote_qkey = ud->remote_qkey;
	return 0;
}
