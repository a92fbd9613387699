// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * Posting work requests.  Kernel consumers' WRs are written into the same
 * rings libsroce fills, so one engine serves both.  For a user QP,
 * post_send is only the doorbell: libsroce has already filled the ring.
 */
#include "sroce.h"

static bool sroce_qp_can_send(struct sroce_qp *qp)
{
	enum ib_qp_state s = READ_ONCE(qp->state);

	/* An XRC TGT QP has no SQ: ib_core's uverbs would post to it. */
	if (sroce_qp_is_xrc_tgt(qp))
		return false;
	/* In ERROR, posted WRs are accepted and flushed by the engine. */
	return s == IB_QPS_RTS || s == IB_QPS_SQD || s == IB_QPS_SQE ||
	       s == IB_QPS_ERR;
}

static int sroce_qp_wqe_inline(struct sroce_qp *qp,
			       const struct ib_send_wr *wr,
			       struct sroce_send_wqe *wqe)
{
	u8 *dst = (u8 *)(wqe + 1);
	u32 len = 0;
	int i;

	for (i = 0; i < wr->num_sge; i++) {
		u32 n = wr->sg_list[i].length;

		if (n > qp->max_inline - len)
			return -EINVAL;
		/* Kernel consumers use kernel virtual addresses (virt DMA). */
		memcpy(dst + len, (void *)(uintptr_t)wr->sg_list[i].addr, n);
		len += n;
	}
	wqe->inline_len = len;
	return 0;
}

/* Send and receive WQEs carry their SGEs in the same ring format. */
static void sroce_qp_copy_sges(struct sroce_sge *dst, const struct ib_sge *src,
			       int n)
{
	int i;

	for (i = 0; i < n; i++) {
		dst[i].addr = src[i].addr;
		dst[i].length = src[i].length;
		dst[i].lkey = src[i].lkey;
	}
}

static void sroce_qp_wqe_sges(const struct ib_send_wr *wr,
			      struct sroce_send_wqe *wqe)
{
	sroce_qp_copy_sges((struct sroce_sge *)(wqe + 1), wr->sg_list,
			   wr->num_sge);
	wqe->num_sge = wr->num_sge;
}

static int sroce_qp_wqe_opcode(const struct sroce_qp *qp,
			       const struct ib_send_wr *wr,
			       struct sroce_send_wqe *wqe)
{
	switch (wr->opcode) {
	case IB_WR_SEND_WITH_IMM:
		wqe->imm_data = (__force u32)wr->ex.imm_data;
		fallthrough;
	case IB_WR_SEND:
		break;
	/* The rkey to invalidate: a type 2 MW or a fast MR. */
	case IB_WR_SEND_WITH_INV:
	case IB_WR_LOCAL_INV:
		wqe->imm_data = wr->ex.invalidate_rkey;
		break;
	case IB_WR_RDMA_WRITE_WITH_IMM:
		wqe->imm_data = (__force u32)wr->ex.imm_data;
		fallthrough;
	case IB_WR_RDMA_WRITE:
	case IB_WR_RDMA_READ:
		wqe->wr.rdma.remote_addr = rdma_wr(wr)->remote_addr;
		wqe->wr.rdma.rkey = rdma_wr(wr)->rkey;
		break;
	case IB_WR_ATOMIC_CMP_AND_SWP:
	case IB_WR_ATOMIC_FETCH_AND_ADD:
		wqe->wr.atomic.remote_addr = atomic_wr(wr)->remote_addr;
		wqe->wr.atomic.compare_add = atomic_wr(wr)->compare_add;
		wqe->wr.atomic.swap = atomic_wr(wr)->swap;
		wqe->wr.atomic.rkey = atomic_wr(wr)->rkey;
		break;
	case IB_WR_REG_MR:
		if (sroce_frmr_wqe(qp, reg_wr(wr), wqe))
			return -EINVAL;
		break;
	default:
		return -EINVAL;
	}
	/* The kernel's IB_WR_* and IB_SEND_* equal the uverbs values. */
	wqe->opcode = wr->opcode;
	wqe->send_flags = wr->send_flags;
	wqe->wr_id = wr->wr_id;
	return 0;
}

static int sroce_qp_post_one_send(struct sroce_qp *qp,
				  const struct ib_send_wr *wr)
{
	struct sroce_queue *q = &qp->sq;
	struct sroce_send_wqe *wqe;
	int err;

	if (wr->num_sge < 0 || wr->num_sge > qp->max_send_sge)
		return -EINVAL;
	if (sroce_queue_kfull(q))
		return -ENOMEM;
	wqe = sroce_queue_kslot(q);
	memset(wqe, 0, SROCE_SEND_WQE_HDR_SIZE);
	if (sroce_qp_is_ud(qp))
		err = sroce_ud_wqe_from_wr(wr, wqe);
	else if (sroce_qp_is_raw(qp))
		err = sroce_raw_wqe_from_wr(wr);
	else
		err = 0;
	if (!err)
		err = sroce_qp_wqe_opcode(qp, wr, wqe);
	if (err)
		return err;
	if (wr->send_flags & IB_SEND_INLINE)
		err = sroce_qp_wqe_inline(qp, wr, wqe);
	else
		sroce_qp_wqe_sges(wr, wqe);
	if (err)
		return err;
	sroce_queue_kpush(q);
	return 0;
}

int sroce_qp_post_send(struct ib_qp *ibqp, const struct ib_send_wr *wr,
		       const struct ib_send_wr **bad_wr)
{
	struct sroce_qp *qp = to_sqp(ibqp);
	unsigned long flags;
	int err = 0;

	if (qp->user) {
		/* The doorbell: libsroce has filled the ring itself. */
		if (wr) {
			*bad_wr = wr;
			return -EINVAL;
		}
		sroce_engine_poke(qp);
		return 0;
	}
	if (!sroce_qp_can_send(qp)) {
		*bad_wr = wr;
		return -EINVAL;
	}
	spin_lock_irqsave(&qp->sq_lock, flags);
	for (; wr; wr = wr->next) {
		err = sroce_qp_post_one_send(qp, wr);
		if (err) {
			*bad_wr = wr;
			break;
		}
	}
	spin_unlock_irqrestore(&qp->sq_lock, flags);
	sroce_engine_kick(qp);
	return err;
}

static int sroce_qp_post_one_recv(struct sroce_qp *qp,
				  const struct ib_recv_wr *wr)
{
	struct sroce_queue *q = &qp->rq;
	struct sroce_recv_wqe *wqe;

	if (wr->num_sge < 0 || wr->num_sge > qp->max_recv_sge)
		return -EINVAL;
	if (sroce_queue_kfull(q))
		return -ENOMEM;
	wqe = sroce_queue_kslot(q);
	wqe->wr_id = wr->wr_id;
	wqe->num_sge = wr->num_sge;
	wqe->reserved = 0;
	sroce_qp_copy_sges((struct sroce_sge *)(wqe + 1), wr->sg_list,
			   wr->num_sge);
	sroce_queue_kpush(q);
	return 0;
}

int sroce_qp_post_recv(struct ib_qp *ibqp, const struct ib_recv_wr *wr,
		       const struct ib_recv_wr **bad_wr)
{
	struct sroce_qp *qp = to_sqp(ibqp);
	unsigned long flags;
	int err = 0;

	if (qp->user) {
		if (wr) {
			*bad_wr = wr;
			return -EINVAL;
		}
		sroce_engine_poke(qp);
		return 0;
	}
	/* XRC QPs have no RQ: test the type first, a TGT's srq moves. */
	if (READ_ONCE(qp->state) == IB_QPS_RESET || sroce_qp_is_xrc(qp) ||
	    qp->srq) {
		*bad_wr = wr;
		return -EINVAL;
	}
	spin_lock_irqsave(&qp->rq_lock, flags);
	for (; wr; wr = wr->next) {
		err = sroce_qp_post_one_recv(qp, wr);
		if (err) {
			*bad_wr = wr;
			break;
		}
	}
	spin_unlock_irqrestore(&qp->rq_lock, flags);
	/* In ERROR the engine flushes what was just posted. */
	if (READ_ONCE(qp->state) == IB_QPS_ERR)
		sroce_engine_kick(qp);
	return err;
}
