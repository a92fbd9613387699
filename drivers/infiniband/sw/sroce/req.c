// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * The requester: takes WQEs from the SQ, segments their messages into
 * packets at the path MTU and sends them, keeping a record per packet in
 * flight; resends from a given PSN when the completer asks (go-back-N on
 * a NAK, a timeout or a response found missing).
 *
 * The SQ is shared with userspace.  Each WQE is copied out of the ring
 * before any field of it is looked at, validated once, and from then on
 * only the copy (req.raw, req.wqes) is used, for retransmissions too.  A
 * WQE that fails validation is not sent; it completes with an error when
 * it becomes the oldest, and takes the QP to ERROR.
 */
#include <linux/slab.h>
#include <linux/mm.h>

#include "sroce.h"
#include "rc.h"
#include "trace.h"

/* QP timeout 0 means "infinite": we still retransmit, at this pace. */
#define SROCE_TIMEOUT_DEFAULT	17		/* 4.096 us << 17 = 537 ms */
/* Below this, TCG guests and loaded hosts see spurious timeouts. */
#define SROCE_RTO_MIN_MS	10

int sroce_req_init(struct sroce_qp *qp)
{
	struct sroce_req *req = &qp->req;
	gfp_t gfp = sroce_queue_gfp(qp->user);
	u32 n = qp->sq.nentries;

	/* The copies are as big as the SQ: charged like it. */
	req->wqes = kvcalloc(n, sizeof(*req->wqes), gfp);
	req->raw = kvmalloc_array(n, qp->sq.stride, gfp);
	req->pkt_cap = SROCE_PKTS_MIN;
	req->pkts = kvcalloc(req->pkt_cap, sizeof(*req->pkts), gfp);
	if (!req->wqes || !req->raw || !req->pkts) {
		sroce_req_free(qp);
		return -ENOMEM;
	}
	sroce_req_reset(qp);
	return 0;
}

void sroce_req_free(struct sroce_qp *qp)
{
	struct sroce_req *req = &qp->req;

	kvfree(req->pkts);
	kvfree(req->raw);
	kvfree(req->wqes);
	req->pkts = NULL;
	req->raw = NULL;
	req->wqes = NULL;
}

/*
 * RESET removes every WQE without a completion: the ring is emptied by
 * moving our consumer index to the producer's, whatever it says.
 */
void sroce_req_reset(struct sroce_qp *qp)
{
	struct sroce_queue *q = &qp->sq;
	struct sroce_req *req = &qp->req;

	req->ready = false;
	sroce_queue_consume(q, READ_ONCE(q->hdr->prod) - q->index);
	req->fetch = q->index;
	req->cur = q->index;
	req->cur_off = 0;
	req->started = q->index;
	req->rd_atomic = 0;
	req->pkt_head = 0;
	req->pkt_tail = 0;
	sroce_cwnd_init(&req->cwnd, SROCE_CWND_MIN, SROCE_WINDOW_DEFAULT,
			SROCE_WINDOW_MAX, SROCE_CWND_GROW_EVERY);
	req->rewound = false;
	req->rto_armed = false;
	req->rto_deferred = 0;
	req->rnr_wait = false;
	req->drained = false;
	req->retransmits = 0;
	req->timeouts = 0;
	/* Idle: the first post must ring the doorbell. */
	WRITE_ONCE(q->hdr->flags, SROCE_RING_F_KICK);
}

/* RTS: the requester starts at the SQ PSN modify_qp set. */
void sroce_req_arm(struct sroce_qp *qp)
{
	struct sroce_req *req = &qp->req;

	req->psn = qp->sq_psn;
	req->una = qp->sq_psn;
	req->psn_max = qp->sq_psn;
	req->ackreq_psn = qp->sq_psn;
	req->retry_left = qp->retry_cnt;
	req->rnr_left = qp->rnr_retry;
	/* A new connection, perhaps to a new peer: learn its RTT afresh. */
	req->rtt_timing = false;
	memset(&req->rtt, 0, sizeof(req->rtt));
	sroce_sr_req_arm(qp);
	sroce_cc_arm(qp);
	/* Pairs with the acquire in the work: the fields above first. */
	smp_store_release(&req->ready, true);
}

/*
 * Retransmit timeout: 4.096 us * 2^timeout (IBTA), or longer when the
 * measured round trip says so, backed off over timeouts in a row
 * (proto/req.c).  A path, or a peer, slower than the application's
 * timeout would otherwise see each message sent twice and, once a few
 * round trips exceed retry_cnt timeouts, a QP failed for nothing: a
 * 100 ms WAN path with the usual timeout 14 (67 ms), or a starved VM.
 */
unsigned long sroce_req_rto(const struct sroce_qp *qp)
{
	u8 t = READ_ONCE(qp->timeout) ?: SROCE_TIMEOUT_DEFAULT;
	u64 floor = max_t(u64, sroce_ack_timeout_ns(t),
			  SROCE_RTO_MIN_MS * NSEC_PER_MSEC);

	return nsecs_to_jiffies(sroce_rto_ns(&qp->req.rtt, floor));
}

/* Fire no later than @when (the timer only kicks; the work decides). */
void sroce_req_timer_set(struct sroce_qp *qp, unsigned long when)
{
	struct timer_list *t = &qp->req.timer;

	if (test_bit(SROCE_ENG_STOPPED, &qp->req.flags))
		return;
	if (!timer_pending(t) || time_before(when, t->expires))
		mod_timer(t, when);
}

/* enum sroce_op_kind, or a local operation's SROCE_OPK_* (mw.h). */
static u8 sroce_req_kind(u32 opcode)
{
	switch (opcode) {
	case IB_UVERBS_WR_SEND:
		return SROCE_OPK_SEND;
	case IB_UVERBS_WR_SEND_WITH_IMM:
		return SROCE_OPK_SEND_IMM;
	case IB_UVERBS_WR_RDMA_WRITE:
		return SROCE_OPK_WRITE;
	case IB_UVERBS_WR_RDMA_WRITE_WITH_IMM:
		return SROCE_OPK_WRITE_IMM;
	case IB_UVERBS_WR_RDMA_READ:
		return SROCE_OPK_READ_REQ;
	case IB_UVERBS_WR_ATOMIC_CMP_AND_SWP:
		return SROCE_OPK_CMP_SWAP;
	case IB_UVERBS_WR_ATOMIC_FETCH_AND_ADD:
		return SROCE_OPK_FETCH_ADD;
	/* No uverbs name in 6.1 (sroce-abi.h). */
	case SROCE_WR_ATOMIC_WRITE:
		return SROCE_OPK_ATOMIC_WRITE;
	/* Memory windows and invalidation (mw.c). */
	case IB_UVERBS_WR_SEND_WITH_INV:
		return SROCE_OPK_SEND_INV;
	case IB_UVERBS_WR_BIND_MW:
		return SROCE_OPK_BIND_MW;
	case IB_UVERBS_WR_LOCAL_INV:
		return SROCE_OPK_LOCAL_INV;
	/* Fast registration (frmr.c): kernel QPs, refused for user ones. */
	case IB_WR_REG_MR:
		return SROCE_OPK_REG_MR;
	default:
		return SROCE_OPK_NONE;
	}
}

/* Copy the inline data or the SGEs (sizes from our copy of the header). */
static enum ib_wc_status sroce_req_copy_body(struct sroce_qp *qp,
					     struct sroce_swqe *w, u8 *raw,
					     const u8 *slot)
{
	const struct sroce_send_wqe *wqe = (const void *)raw;
	u32 body = qp->sq.stride - SROCE_SEND_WQE_HDR_SIZE;
	u64 total;

	if (wqe->send_flags & IB_SEND_INLINE) {
		if (wqe->num_sge || sroce_kind_is_rd_atomic(w->kind))
			return IB_WC_LOC_QP_OP_ERR;
		if (wqe->inline_len > qp->max_inline || wqe->inline_len > body)
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
	/* READ responses and atomic results are written locally. */
	if (sroce_copy_sgl_check(qp, w->sge, w->num_sge,
				 sroce_kind_is_rd_atomic(w->kind) ?
				 IB_ACCESS_LOCAL_WRITE : 0, &total))
		return IB_WC_LOC_PROT_ERR;
	if (total > SROCE_MSG_MAX)
		return IB_WC_LOC_LEN_ERR;
	w->length = total;
	return IB_WC_SUCCESS;
}

/*
 * ATOMIC WRITE: its 8 bytes travel in the WQE header, so they are in our
 * copy (req.raw) already, and are sent from there as inline data is, the
 * first time and on every resend.  No SGEs, no inline flag.
 */
static enum ib_wc_status sroce_req_atomic_write(struct sroce_swqe *w,
						const u8 *raw)
{
	const struct sroce_send_wqe *wqe = (const void *)raw;

	if (wqe->num_sge || (wqe->send_flags & IB_SEND_INLINE))
		return IB_WC_LOC_QP_OP_ERR;
	w->remote_addr = wqe->wr.atomic_write.remote_addr;
	w->rkey = wqe->wr.atomic_write.rkey;
	w->inline_data = wqe->wr.atomic_write.data;
	w->length = sizeof(wqe->wr.atomic_write.data);
	w->npsn = 1;
	return IB_WC_SUCCESS;
}

static enum ib_wc_status sroce_req_validate(struct sroce_qp *qp,
					    struct sroce_swqe *w, u8 *raw,
					    const u8 *slot)
{
	const struct sroce_send_wqe *wqe = (const void *)raw;
	enum ib_wc_status status;

	w->kind = sroce_req_kind(wqe->opcode);
	w->seg = sroce_seg_for(qp, w->kind);
	/*
	 * Fast registration has no uverbs opcode: a user ring cannot ask.
	 * ATOMIC WRITE has no kernel one in 6.1: a kernel ring cannot.
	 */
	if (w->kind == SROCE_OPK_NONE ||
	    (w->kind == SROCE_OPK_REG_MR && qp->user) ||
	    (w->kind == SROCE_OPK_ATOMIC_WRITE && !qp->user))
		return IB_WC_LOC_QP_OP_ERR;
	/* XRC INI: the SRQ number must fit its 24 bits on the wire. */
	if (qp->ibqp.qp_type == IB_QPT_XRC_INI) {
		if (wqe->xrc_srqn > SROCE_U24_MAX)
			return IB_WC_LOC_QP_OP_ERR;
		w->xrc_srqn = wqe->xrc_srqn;
	}
	/* Local operations carry no data; their fields stay in req.raw. */
	if (sroce_kind_is_local(w->kind))
		return wqe->num_sge || (wqe->send_flags & IB_SEND_INLINE) ?
		       IB_WC_LOC_QP_OP_ERR : IB_WC_SUCCESS;
	if (w->kind == SROCE_OPK_ATOMIC_WRITE)
		return sroce_req_atomic_write(w, raw);
	status = sroce_req_copy_body(qp, w, raw, slot);
	if (status != IB_WC_SUCCESS)
		return status;
	switch (w->kind) {
	case SROCE_OPK_CMP_SWAP:
	case SROCE_OPK_FETCH_ADD:
		if (w->length != 8)
			return IB_WC_LOC_LEN_ERR;
		w->remote_addr = wqe->wr.atomic.remote_addr;
		w->rkey = wqe->wr.atomic.rkey;
		w->compare_add = wqe->wr.atomic.compare_add;
		w->swap = wqe->wr.atomic.swap;
		w->npsn = 1;
		return IB_WC_SUCCESS;
	case SROCE_OPK_WRITE:
	case SROCE_OPK_WRITE_IMM:
	case SROCE_OPK_READ_REQ:
		w->remote_addr = wqe->wr.rdma.remote_addr;
		w->rkey = wqe->wr.rdma.rkey;
		break;
	default:
		break;
	}
	/* Packets (or READ responses); an empty message is one packet. */
	w->npsn = sroce_seg_npsn(w->length, w->seg);
	if (!w->npsn || w->npsn > SROCE_PSN_INFLIGHT_MAX)
		return IB_WC_LOC_LEN_ERR;
	return IB_WC_SUCCESS;
}

/* Copy the WQE at ring index @idx out of the ring, then validate it. */
static void sroce_req_copy(struct sroce_qp *qp, u32 idx)
{
	struct sroce_queue *q = &qp->sq;
	u8 *raw = qp->req.raw + (size_t)(idx & q->mask) * q->stride;
	const u8 *slot = sroce_queue_slot(q, idx);
	struct sroce_swqe *w = sroce_req_wqe(qp, idx);
	const struct sroce_send_wqe *wqe = (const void *)raw;

	memcpy(raw, slot, SROCE_SEND_WQE_HDR_SIZE);
	memset(w, 0, sizeof(*w));
	w->wr_id = wqe->wr_id;
	w->opcode = wqe->opcode;
	w->send_flags = wqe->send_flags;
	w->imm = wqe->imm_data;
	w->status = sroce_req_validate(qp, w, raw, slot);
	if (w->status != IB_WC_SUCCESS)
		sroce_cnt_inc(sroce_qp_cnt(qp), SROCE_CNT_BAD_WQES);
}

/* WQEs posted and not copied yet; -EIO if the producer index is bogus. */
static int sroce_req_avail(struct sroce_qp *qp)
{
	int n = sroce_queue_avail(&qp->sq);
	u32 copied = qp->req.fetch - qp->sq.index;

	if (n < 0 || (u32)n < copied)
		return -EIO;
	return n - copied;
}

/*
 * WQEs to copy, or 0 after asking for a doorbell.  The flag is set, then
 * a full barrier, then the ring is read again: a post that missed the
 * flag is seen here, a post after it rings (libsroce stores prod, fences,
 * then reads flags).
 */
static int sroce_req_avail_or_idle(struct sroce_qp *qp)
{
	u32 *flags = &qp->sq.hdr->flags;
	int n = sroce_req_avail(qp);

	if (n)
		return n;
	WRITE_ONCE(*flags, SROCE_RING_F_KICK);
	/* Flag store before the prod load; libsroce fences the other way. */
	smp_mb();
	n = sroce_req_avail(qp);
	if (n)
		WRITE_ONCE(*flags, 0);
	return n;
}

/* Copy the next WQE: 0, -EAGAIN when the SQ is empty, -EIO if corrupt. */
static int sroce_req_fetch(struct sroce_qp *qp)
{
	int n = sroce_req_avail_or_idle(qp);

	if (!n)
		return -EAGAIN;
	if (n < 0) {
		pr_warn_ratelimited("sroce: QP %u: SQ producer index is corrupt\n",
				    qp->ibqp.qp_num);
		sroce_engine_fatal(qp, IB_EVENT_QP_FATAL);
		return -EIO;
	}
	sroce_req_copy(qp, qp->req.fetch);
	qp->req.fetch++;
	return 0;
}

/*
 * Make room for one more packet record: grow the ring (doubling).  There
 * are never more records than PSNs in the window.
 */
static bool sroce_req_records_room(struct sroce_req *req)
{
	u32 used = req->pkt_head - req->pkt_tail;
	struct sroce_txpkt *pkts;
	u32 cap, i;

	if (used < req->pkt_cap)
		return true;
	if (req->pkt_cap >= req->cwnd.max)
		return false;
	cap = req->pkt_cap * 2;
	/* We may run on the memory reclaim path: no sleeping here. */
	pkts = kvmalloc_array(cap, sizeof(*pkts), GFP_NOWAIT | __GFP_NOWARN);
	if (!pkts)
		return false;
	for (i = 0; i < used; i++)
		pkts[i] = *sroce_req_pkt(req, req->pkt_tail + i);
	kvfree(req->pkts);
	req->pkts = pkts;
	req->pkt_cap = cap;
	req->pkt_tail = 0;
	req->pkt_head = used;
	return true;
}

/*
 * May a packet for PSNs [psn, psn + npsn) go, window and records?  PSNs
 * the peer holds beyond a gap (selective repeat) have left the path.
 */
static bool sroce_req_window_open(struct sroce_req *req, u32 psn, u32 npsn)
{
	return sroce_cwnd_allows(&req->cwnd, req->una, req->psn_max, psn,
				 npsn, req->sacked) &&
	       sroce_req_records_room(req);
}

/* Time this packet, first sent at @now, unless one is timed already. */
static void sroce_req_rtt_start(struct sroce_req *req, u32 psn, u32 npsn,
				u64 now)
{
	if (req->rtt_timing)
		return;
	req->rtt_timing = true;
	req->rtt_psn = sroce_psn_add(psn, npsn - 1);
	req->rtt_start_ns = now;
}

static void sroce_req_record(struct sroce_req *req, u32 psn, u32 npsn,
			     bool resent, u64 now)
{
	struct sroce_txpkt *p = sroce_req_pkt(req, req->pkt_head);

	p->psn = psn;
	p->npsn = npsn;
	p->wqe = req->cur;
	p->flags = resent ? SROCE_TXPKT_RESENT : 0;
	p->xmit_ns = now;
	sroce_cc_sent(req, p);
	req->pkt_head++;
}

/*
 * First transmission of a WQE: the limits that hold it back (fence,
 * max_rd_atomic, PSNs outstanding) and its PSN range.
 */
static int sroce_req_start(struct sroce_qp *qp, struct sroce_swqe *w)
{
	struct sroce_req *req = &qp->req;
	bool rd = sroce_kind_is_rd_atomic(w->kind);
	u32 out = sroce_psn_sub(req->psn_max, req->una);

	if ((w->send_flags & IB_SEND_FENCE) && req->rd_atomic)
		return -EBUSY;
	if (rd && !qp->max_rd_atomic) {
		w->status = IB_WC_LOC_QP_OP_ERR;
		sroce_comp_retire_errors(qp);
		return -EIO;
	}
	if (rd && req->rd_atomic >= qp->max_rd_atomic)
		return -EBUSY;
	if (out + w->npsn > SROCE_PSN_INFLIGHT_MAX)
		return -EBUSY;
	w->started = true;
	w->first_psn = req->psn_max;
	req->started++;
	if (rd)
		req->rd_atomic++;
	return 0;
}

/* How many packets apart requests ask for an ACK (rc.h). */
static u32 sroce_req_ackreq_every(const struct sroce_req *req)
{
	u32 n = clamp(req->cwnd.cwnd / 8, 4U, (u32)SROCE_ACKREQ_EVERY);

	if (!req->pace_gap_ns)
		return n;
	return clamp_t(u64, div64_u64(SROCE_ACKREQ_PACED_NS, req->pace_gap_ns),
		       1, n);
}

static bool sroce_req_want_ack(struct sroce_qp *qp, u32 psn, bool last,
			       u8 kind)
{
	struct sroce_req *req = &qp->req;
	u32 out = sroce_psn_sub(sroce_psn_add(psn, 1), req->una);

	/* PSNs the peer holds beyond a gap are not in the window. */
	out -= min(out, req->sacked);
	/*
	 * A READ or ATOMIC request is answered by its responses whatever
	 * the bit says; but it is the last packet of its request, where
	 * rdma_rxe sets AckReq too and a peer or monitor may look for it
	 * (selftests/tools/roce_check.py does).
	 */
	/*
	 * And often enough for an ACK clock: at most an eighth of the
	 * window apart, or a small window at a low rate waits whole round
	 * trips for ACKs that the rate samples (cc.c) then misread.
	 */
	return last || sroce_kind_is_rd_atomic(kind) ||
	       sroce_psn_sub(psn, req->ackreq_psn) >=
	       sroce_req_ackreq_every(req) ||
	       out >= req->cwnd.cwnd;
}

/* Extension header fields of the packet at @off of @w. */
static void sroce_req_fill(struct sroce_qp *qp, struct sroce_swqe *w,
			   struct sroce_pkt_hdr *h, u32 off, bool last)
{
	const struct sroce_opcode_info *oi = sroce_wire_opcode_info(h->opcode);

	if (oi->hdrs & SROCE_HDR_RETH) {
		h->va = w->remote_addr + off;
		h->rkey = w->rkey;
		h->dma_len = w->kind == SROCE_OPK_READ_REQ ? w->length - off :
							     w->length;
	}
	if (oi->hdrs & SROCE_HDR_ATMETH) {
		h->va = w->remote_addr;
		h->rkey = w->rkey;
		if (w->kind == SROCE_OPK_CMP_SWAP) {
			h->swap_add = w->swap;
			h->compare = w->compare_add;
		} else {
			h->swap_add = w->compare_add;
		}
	}
	if (oi->hdrs & SROCE_HDR_XRCETH)
		h->xrc_srqn = w->xrc_srqn;
	if (oi->hdrs & SROCE_HDR_IMMDT)
		h->imm = be32_to_cpu((__force __be32)w->imm);
	/* SEND with Invalidate: the posted rkey, host order. */
	if (oi->hdrs & SROCE_HDR_IETH)
		h->inv_rkey = w->imm;
	h->se = last && (w->send_flags & IB_SEND_SOLICITED) &&
		(w->kind == SROCE_OPK_SEND || w->kind == SROCE_OPK_SEND_IMM ||
		 w->kind == SROCE_OPK_SEND_INV ||
		 w->kind == SROCE_OPK_WRITE_IMM);
}

static int sroce_req_payload(struct sroce_qp *qp, struct sroce_swqe *w,
			     struct sroce_data *d, u32 off, u32 len)
{
	if (!len)
		return 0;
	/* Never zero copy: the bytes are in our copy of the WQE. */
	if (w->inline_data) {
		memcpy(d->buf, w->inline_data + off, len);
		return 0;
	}
	return sroce_copy_sgl(qp, w->sge, w->num_sge, off, len, d, false);
}

/*
 * The packet of @w at byte @off with @len bytes of payload, attached from
 * the MR pages if @zc (zero copy) or copied; NULL with *err: -ENOMEM,
 * -E2BIG (not attachable: copy instead), -EAGAIN (an ODP page is on its
 * way), or the payload's access error.
 */
static struct sk_buff *sroce_req_build(struct sroce_qp *qp,
				       struct sroce_swqe *w,
				       struct sroce_pkt_hdr *h, u32 off,
				       u32 len, bool zc, int *err)
{
	struct sroce_data d;
	struct sk_buff *skb;

	skb = sroce_tx_alloc_data(qp, h, len, zc, &d);
	if (!skb) {
		*err = -ENOMEM;
		return NULL;
	}
	*err = sroce_req_payload(qp, w, &d, off, len) ?:
	       sroce_tx_data_done(skb, h, &d);
	if (*err) {
		kfree_skb(skb);
		return NULL;
	}
	return skb;
}

/* What sroce_req_xmit() sent. */
struct sroce_req_pkt {
	u32 psn;
	u32 npsn;
	u32 len;
	bool last;
	bool ackreq;
};

/*
 * Build and send the packet of @w at byte @off: 0, or an error after
 * which the caller sends nothing more now (the backoff timer or the
 * WQE's failure brings the engine back).
 */
static int sroce_req_xmit(struct sroce_qp *qp, struct sroce_swqe *w, u32 off,
			  bool resend, struct sroce_req_pkt *o)
{
	u32 mtu = w->seg;
	struct sroce_seg seg = { .pos = SROCE_POS_ONLY };
	struct sroce_pkt_hdr h;
	struct sk_buff *skb;
	int opcode, err;

	o->psn = sroce_psn_add(w->first_psn, off / mtu);
	o->npsn = 1;
	o->len = 0;
	o->last = true;
	if (w->kind == SROCE_OPK_READ_REQ) {
		o->npsn = w->npsn - off / mtu;
	} else if (!sroce_kind_is_rd_atomic(w->kind)) {
		if (WARN_ON_ONCE(sroce_seg_at(w->length, off, mtu, &seg)))
			return -EIO;
		o->len = seg.len;
		o->last = seg.pos == SROCE_POS_LAST ||
			  seg.pos == SROCE_POS_ONLY;
	}
	opcode = sroce_wire_opcode_for(sroce_qp_transport(qp), w->kind,
				       seg.pos);
	if (WARN_ON_ONCE(opcode < 0))
		return -EIO;
	sroce_tx_hdr_init(qp, &h, opcode, o->psn);
	sroce_req_fill(qp, w, &h, off, o->last);
	/* A resend fills a gap: its ACK frees the window at once. */
	h.ackreq = resend || sroce_req_want_ack(qp, o->psn, o->last, w->kind);
	h.ext = qp->req.sr != SROCE_SR_OFF;
	sroce_elide_req_hdr(qp, &h);
	o->ackreq = h.ackreq;

	skb = sroce_req_build(qp, w, &h, off, o->len,
			      !w->inline_data && sroce_tx_zc_wanted(qp, o->len),
			      &err);
	/* Kernel memory, or too many pieces: copy after all. */
	if (err == -E2BIG)
		skb = sroce_req_build(qp, w, &h, off, o->len, false, &err);
	if (err == -ENOMEM) {
		/* Try again shortly rather than spin. */
		sroce_engine_backoff(qp);
		return -ENOMEM;
	}
	/* An ODP page is being faulted in: its end kicks us. */
	if (err == -EAGAIN)
		return -EAGAIN;
	if (err) {
		w->status = IB_WC_LOC_PROT_ERR;
		sroce_comp_retire_errors(qp);
		return -EIO;
	}
	if (sroce_tx_xmit(qp, skb) == -ENOBUFS) {
		/* Never left: send the same packet again shortly. */
		sroce_cc_loss(qp, SROCE_WHY_LOCAL);
		sroce_engine_backoff(qp);
		return -ENOBUFS;
	}
	sroce_cc_paced(qp, o->len);
	return 0;
}

/* The retransmit timer runs from now (the timer itself only kicks). */
void sroce_req_restart_rto(struct sroce_qp *qp)
{
	struct sroce_req *req = &qp->req;

	req->rto_armed = true;
	req->rto_at = jiffies + sroce_req_rto(qp);
	sroce_req_timer_set(qp, req->rto_at);
}

static void sroce_req_arm_rto(struct sroce_qp *qp)
{
	if (!qp->req.rto_armed)
		sroce_req_restart_rto(qp);
}

/*
 * Send the next packet of @w (cur, at cur_off) and advance.  Its send
 * time is taken before it is handed to IP: the softirqs that run when
 * ip_local_out() enables bottom halves again (the receive path, on a busy
 * guest for milliseconds) come after it has left, and would make its
 * round trip look shorter than the path's (so in the resend below too).
 */
static int sroce_req_send(struct sroce_qp *qp, struct sroce_swqe *w)
{
	struct sroce_req *req = &qp->req;
	u64 now = sroce_req_tx_now(req);
	struct sroce_req_pkt o;
	bool resent;
	int err;

	err = sroce_req_xmit(qp, w, req->cur_off, false, &o);
	if (err)
		return err;
	resent = sroce_psn_before(o.psn, req->psn_max);
	if (resent) {
		sroce_cnt_inc(sroce_qp_cnt(qp), SROCE_CNT_RETRANSMITS);
		req->retransmits++;
	} else {
		sroce_req_rtt_start(req, o.psn, o.npsn, now);
	}
	sroce_req_record(req, o.psn, o.npsn, resent, now);
	if (o.ackreq)
		req->ackreq_psn = o.psn;
	req->psn = sroce_psn_add(o.psn, o.npsn);
	if (sroce_psn_after(req->psn, req->psn_max))
		req->psn_max = req->psn;
	if (o.last) {
		req->cur++;
		req->cur_off = 0;
	} else {
		req->cur_off += o.len;
	}
	sroce_req_arm_rto(qp);
	if (!resent)
		sroce_sr_req_tlp_arm(qp);
	return 0;
}

/*
 * A resend needs room in the window as a new packet does, but what is
 * known lost has left the path: it does not count.  Otherwise a timeout
 * that finds a whole window lost sends all of it again at once, into the
 * queue that made it late.  The oldest record may always go: its ACK
 * is what opens the window (a READ's record holds many PSNs but counts
 * as one lost).
 */
static bool sroce_req_resend_room(struct sroce_req *req,
				  const struct sroce_txpkt *p)
{
	u32 out = sroce_req_in_flight(req);

	return p == sroce_req_pkt(req, req->pkt_tail) ||
	       out - min(out, req->lost) < req->cwnd.cwnd;
}

/*
 * Selective repeat: resend the oldest packet a SACK showed lost, in
 * place: its record stays where it is, marked resent.
 */
static int sroce_req_resend_lost(struct sroce_qp *qp)
{
	struct sroce_req *req = &qp->req;
	struct sroce_txpkt *p = sroce_sr_req_next_lost(req);
	struct sroce_swqe *w;
	struct sroce_req_pkt o;
	bool probe;
	u64 now;
	int err;

	if (!p)
		return 0;
	if (!sroce_req_resend_room(req, p) || sroce_tx_throttled(qp) ||
	    !sroce_cc_pace_ok(qp))
		return -ENOBUFS;
	w = sroce_req_wqe(qp, p->wqe);
	now = sroce_req_tx_now(req);
	probe = req->tlp_out && p->psn == req->tlp_psn;
	trace_sroce_rewind(qp->ibqp.qp_num, p->psn, req->psn_max,
			   probe ? SROCE_WHY_TLP : SROCE_WHY_SACK_RESEND);
	err = sroce_req_xmit(qp, w,
			     sroce_psn_sub(p->psn, w->first_psn) * w->seg,
			     true, &o);
	if (err)
		return err;
	/* Karn: if it is the timed packet, its ACK could answer either copy. */
	if (req->rtt_timing &&
	    sroce_psn_in_window(req->rtt_psn, p->psn, p->npsn))
		req->rtt_timing = false;
	p->flags = (p->flags & ~SROCE_TXPKT_LOST) | SROCE_TXPKT_RESENT;
	p->xmit_ns = now;
	sroce_cc_sent(req, p);
	req->lost--;
	req->ackreq_psn = o.psn;
	sroce_cnt_inc(sroce_qp_cnt(qp), SROCE_CNT_RETRANSMITS);
	if (!probe)
		sroce_cnt_inc(sroce_qp_cnt(qp), SROCE_CNT_SACK_RETRANSMITS);
	req->retransmits++;
	sroce_req_arm_rto(qp);
	return 0;
}

/*
 * Execute a local operation: a window's bind or invalidation (mw.c), a
 * fast registration or an MR's invalidation (frmr.c).
 */
static enum ib_wc_status sroce_req_exec_local(struct sroce_qp *qp,
					      struct sroce_swqe *w,
					      const struct sroce_send_wqe *wqe)
{
	if (w->kind == SROCE_OPK_REG_MR)
		return sroce_frmr_exec_reg(qp, wqe);
	if (w->kind == SROCE_OPK_LOCAL_INV && !sroce_key_is_mw(w->imm))
		return sroce_frmr_exec_inv(qp, w->imm);
	return sroce_mw_exec(qp, w, wqe);
}

/*
 * A local operation (bind, invalidation, fast registration) is executed
 * once, in SQ order, when the requester reaches it.  It uses no PSN and no ACK
 * answers it: it completes as soon as every WQE before it has.  Resent
 * after a go-back-N, it is passed over.  With IB_SEND_FENCE it waits
 * until every WQE before it completed.
 */
static int sroce_req_local(struct sroce_qp *qp, struct sroce_swqe *w)
{
	struct sroce_req *req = &qp->req;
	u32 idx = req->cur;
	const void *wqe = req->raw + (size_t)(idx & qp->sq.mask) * qp->sq.stride;

	if (idx == req->started) {
		if ((w->send_flags & IB_SEND_FENCE) && qp->sq.index != idx)
			return -EBUSY;
		w->started = true;
		w->first_psn = req->psn_max;
		req->started++;
		w->status = sroce_req_exec_local(qp, w, wqe);
		if (w->status != IB_WC_SUCCESS) {
			sroce_comp_retire_errors(qp);
			return -EIO;
		}
	}
	req->cur++;
	req->cur_off = 0;
	sroce_comp_retire_local(qp);
	return 0;
}

/* One step for the WQE at cur: 0 if a packet went out. */
static int sroce_req_step(struct sroce_qp *qp)
{
	struct sroce_req *req = &qp->req;
	struct sroce_swqe *w = sroce_req_wqe(qp, req->cur);
	u32 npsn, pkt = req->cur_off / w->seg;
	int err;

	if (w->status != IB_WC_SUCCESS) {
		/* Fails once every WQE before it has completed. */
		sroce_comp_retire_errors(qp);
		return -EIO;
	}
	if (sroce_kind_is_local(w->kind))
		return sroce_req_local(qp, w);
	if (req->cur == req->started && sroce_kind_is_rd_atomic(w->kind)) {
		err = sroce_copy_sgl_ready(qp, w->sge, w->num_sge);
		if (err == -EFAULT) {
			w->status = IB_WC_LOC_PROT_ERR;
			sroce_comp_retire_errors(qp);
			return -EIO;
		}
		/* -EAGAIN: the fault's end kicks us. */
		if (err)
			return err;
	}
	if (req->cur == req->started) {
		err = sroce_req_start(qp, w);
		if (err)
			return err;
	}
	npsn = w->kind == SROCE_OPK_READ_REQ ? w->npsn - pkt : 1;
	if (!sroce_req_window_open(req, sroce_psn_add(w->first_psn, pkt),
				   npsn))
		return -ENOBUFS;
	if (sroce_tx_throttled(qp) || !sroce_cc_pace_ok(qp))
		return -ENOBUFS;
	return sroce_req_send(qp, w);
}

static void sroce_req_check_drained(struct sroce_qp *qp)
{
	struct ib_event ev = {
		.device = qp->ibqp.device,
		.element.qp = &qp->ibqp,
		.event = IB_EVENT_SQ_DRAINED,
	};

	if (qp->req.drained || qp->sq.index != qp->req.started)
		return;
	qp->req.drained = true;
	if (qp->ibqp.event_handler)
		qp->ibqp.event_handler(&ev, qp->ibqp.qp_context);
}

/*
 * Send up to @budget packets.  True if it stopped on the budget with more
 * to send; false when idle or blocked (window, max_rd_atomic, fence, RNR
 * wait): an ACK or a timer kicks the engine again.
 */
static bool sroce_req_run_sq(struct sroce_qp *qp, int budget)
{
	enum ib_qp_state state = READ_ONCE(qp->state);
	struct sroce_req *req = &qp->req;

	if (state != IB_QPS_RTS && state != IB_QPS_SQD)
		return false;
	if (state == IB_QPS_RTS)
		req->drained = false;
	/* Running: posts need no doorbell until we go idle again. */
	if (READ_ONCE(qp->sq.hdr->flags))
		WRITE_ONCE(qp->sq.hdr->flags, 0);

	while (budget > 0) {
		if (req->rnr_wait || READ_ONCE(qp->state) == IB_QPS_ERR)
			return false;
		/* Holes first: the peer holds everything around them. */
		if (req->lost) {
			if (sroce_req_resend_lost(qp))
				return false;
			budget--;
			continue;
		}
		/* SQD: finish what started, start nothing new. */
		if (state == IB_QPS_SQD && req->cur == req->started) {
			sroce_req_check_drained(qp);
			return false;
		}
		if (req->cur == req->fetch) {
			if (sroce_req_fetch(qp)) {
				sroce_cc_app_idle(req);
				return false;
			}
			continue;
		}
		if (sroce_req_step(qp))
			return false;
		budget--;
	}
	return true;
}

/* Send what the SQ and the holes call for, data packets in trains. */
bool sroce_req_run(struct sroce_qp *qp, int budget)
{
	bool more;

	qp->req.tx_now_ns = 0;
	sroce_gso_open(qp);
	more = sroce_req_run_sq(qp, budget);
	sroce_gso_close(qp);
	qp->req.tx_now_ns = 0;
	return more;
}

/*
 * Anything to send: holes a SACK or the reorder timer found, WQEs copied
 * and not all sent, or new ones posted.
 */
bool sroce_req_has_work(struct sroce_qp *qp)
{
	return !qp->req.rnr_wait &&
	       (qp->req.lost || qp->req.cur != qp->req.fetch ||
		sroce_req_avail(qp) != 0);
}

/*
 * Position cur at the WQE holding @psn, or past every started WQE when
 * @psn is psn_max.
 */
void sroce_req_seek(struct sroce_qp *qp, u32 psn)
{
	struct sroce_req *req = &qp->req;
	u32 i;

	for (i = qp->sq.index; i != req->started; i++) {
		struct sroce_swqe *w = sroce_req_wqe(qp, i);

		if (sroce_psn_in_window(psn, w->first_psn, w->npsn)) {
			req->cur = i;
			req->cur_off = sroce_psn_sub(psn, w->first_psn) *
				       w->seg;
			req->psn = psn;
			return;
		}
	}
	req->cur = req->started;
	req->cur_off = 0;
	req->psn = req->psn_max;
}

/*
 * Go back to @psn (>= una) and send everything from there again.  Records
 * of packets at or after @psn are dropped: they will be sent anew.
 */
void sroce_req_rewind(struct sroce_qp *qp, u32 psn, enum sroce_why why)
{
	struct sroce_req *req = &qp->req;
	bool rto = why == SROCE_WHY_TIMEOUT;

	trace_sroce_rewind(qp->ibqp.qp_num, psn, req->psn_max, why);

	/*
	 * Karn: the timed packet's ACK will not tell which copy it answers.
	 * Timing it anyway, as an upper bound, fed every timeout back into
	 * the next RTO (a sample of at least the RTO raises rttvar by
	 * three quarters): at 10 % loss the RTO ran away to its 4 s cap.
	 * The backoff, not the estimate, lets an RTO that is too short
	 * catch up with the path.
	 */
	if (req->rtt_timing && sroce_psn_before_eq(psn, req->rtt_psn))
		req->rtt_timing = false;
	if (rto)
		sroce_rtt_timeout(&req->rtt);

	sroce_req_seek(qp, psn);
	while (req->pkt_head != req->pkt_tail) {
		struct sroce_txpkt *p =
			sroce_req_pkt(req, req->pkt_head - 1);

		if (sroce_psn_before_eq(sroce_psn_add(p->psn, p->npsn), psn))
			break;
		sroce_sr_req_forget(req, p, p->npsn);
		req->pkt_head--;
	}
	req->rewound = true;
	req->rewind_psn = psn;
	sroce_req_restart_rto(qp);
}

/* Only the header matters to a flushed WQE (wr_id, opcode). */
static void sroce_req_copy_hdr(struct sroce_qp *qp, u32 idx)
{
	const struct sroce_send_wqe *wqe = sroce_queue_slot(&qp->sq, idx);
	struct sroce_swqe *w = sroce_req_wqe(qp, idx);

	memset(w, 0, sizeof(*w));
	w->wr_id = READ_ONCE(wqe->wr_id);
	w->opcode = READ_ONCE(wqe->opcode);
	w->kind = sroce_req_kind(w->opcode);
}

/*
 * ERROR: every WQE, copied or still in the ring, completes with
 * FLUSH_ERR, signalled or not.  True if the budget ran out first.
 */
bool sroce_req_flush(struct sroce_qp *qp, int budget)
{
	struct sroce_req *req = &qp->req;

	req->rnr_wait = false;
	req->rto_armed = false;
	while (budget-- > 0) {
		if (qp->sq.index == req->fetch) {
			/* A corrupt ring has nothing more to flush. */
			if (sroce_req_avail_or_idle(qp) <= 0)
				return false;
			sroce_req_copy_hdr(qp, req->fetch);
			req->fetch++;
		}
		sroce_comp_wqe(qp, sroce_req_wqe(qp, qp->sq.index),
			       IB_WC_WR_FLUSH_ERR);
	}
	return true;
}
