// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * Shared receive queues: creation with their ring, the limit event,
 * posting for kernel consumers, and lending WQEs to the QPs on the SRQ
 * (see srq.h for how a QP takes its receives from here).
 */
#include <linux/log2.h>
#include <rdma/uverbs_ioctl.h>

#include "sroce.h"

static u32 sroce_srq_stride(u32 max_sge)
{
	return roundup_pow_of_two(SROCE_RECV_WQE_HDR_SIZE +
				  max_sge * (u32)sizeof(struct sroce_sge));
}

static int sroce_srq_check_init(struct sroce_dev *sdev,
				const struct ib_srq_init_attr *init)
{
	const struct ib_device_attr *a = &sdev->attr;

	if (init->srq_type == IB_SRQT_XRC && sroce_xrc_srq_check(init))
		return -EINVAL;
	if (init->srq_type != IB_SRQT_BASIC && init->srq_type != IB_SRQT_XRC)
		return -EOPNOTSUPP;	/* tag matching: not yet */
	if (!init->attr.max_wr || init->attr.max_wr > a->max_srq_wr ||
	    init->attr.max_sge > a->max_srq_sge)
		return -EINVAL;
	return 0;
}

static int sroce_srq_publish(struct sroce_srq *srq, struct ib_udata *udata)
{
	struct sroce_create_srq_resp resp = {};
	struct sroce_ucontext *uctx;
	int err;

	uctx = rdma_udata_to_drv_context(udata, struct sroce_ucontext, ibuc);
	err = sroce_queue_mmap_publish(&srq->rq, &uctx->ibuc, &resp.rq);
	if (err)
		return err;
	return ib_copy_to_udata(udata, &resp, min(udata->outlen, sizeof(resp)));
}

int sroce_srq_create(struct ib_srq *ibsrq, struct ib_srq_init_attr *init,
		     struct ib_udata *udata)
{
	struct sroce_srq *srq = to_ssrq(ibsrq);
	int err;

	err = sroce_srq_check_init(to_sdev(ibsrq->device), init);
	if (err)
		return err;
	spin_lock_init(&srq->lock);
	spin_lock_init(&srq->post_lock);
	srq->user = !!udata;
	srq->max_sge = max_t(u32, init->attr.max_sge, 1);
	/* The spec leaves the limit unarmed at creation; modify arms it. */
	srq->limit = 0;
	err = sroce_queue_alloc(&srq->rq, init->attr.max_wr,
				sroce_srq_stride(srq->max_sge),
				sroce_queue_gfp(udata));
	if (err)
		return err;
	if (udata) {
		err = sroce_srq_publish(srq, udata);
		if (err)
			goto err_free;
	}
	/* Last: an XRC SRQ can be named by packets from here on. */
	if (init->srq_type == IB_SRQT_XRC) {
		err = sroce_xrc_srq_add(srq);
		if (err)
			goto err_free;
	}
	init->attr.max_wr = srq->rq.nentries;
	init->attr.max_sge = srq->max_sge;
	return 0;

err_free:
	sroce_queue_free(&srq->rq);
	return err;
}

/*
 * Only the limit can change: resizing would move a ring userspace has
 * mapped (IB_DEVICE_SRQ_RESIZE is not advertised).
 */
int sroce_srq_modify(struct ib_srq *ibsrq, struct ib_srq_attr *attr,
		     enum ib_srq_attr_mask mask, struct ib_udata *udata)
{
	struct sroce_srq *srq = to_ssrq(ibsrq);

	if (mask & ~(IB_SRQ_MAX_WR | IB_SRQ_LIMIT))
		return -EINVAL;
	if (mask & IB_SRQ_MAX_WR)
		return -EOPNOTSUPP;
	if (!(mask & IB_SRQ_LIMIT))
		return 0;
	if (attr->srq_limit > srq->rq.nentries)
		return -EINVAL;
	spin_lock_bh(&srq->lock);
	srq->limit = attr->srq_limit;
	spin_unlock_bh(&srq->lock);
	return 0;
}

int sroce_srq_query(struct ib_srq *ibsrq, struct ib_srq_attr *attr)
{
	struct sroce_srq *srq = to_ssrq(ibsrq);

	attr->max_wr = srq->rq.nentries;
	attr->max_sge = srq->max_sge;
	spin_lock_bh(&srq->lock);
	attr->srq_limit = srq->limit;
	spin_unlock_bh(&srq->lock);
	return 0;
}

int sroce_srq_destroy(struct ib_srq *ibsrq, struct ib_udata *udata)
{
	struct sroce_srq *srq = to_ssrq(ibsrq);

	/*
	 * ib_core refuses while QPs still use the SRQ (usecnt); XRC TGT QPs
	 * do not count there, but take it only with a table reference.
	 */
	if (ibsrq->srq_type == IB_SRQT_XRC)
		sroce_xrc_srq_remove(srq);
	sroce_queue_free(&srq->rq);
	return 0;
}

static int sroce_srq_post_one(struct sroce_srq *srq,
			      const struct ib_recv_wr *wr)
{
	struct sroce_queue *q = &srq->rq;
	struct sroce_recv_wqe *wqe;
	struct sroce_sge *sge;
	int i;

	if (wr->num_sge < 0 || wr->num_sge > srq->max_sge)
		return -EINVAL;
	if (sroce_queue_kfull(q))
		return -ENOMEM;
	wqe = sroce_queue_kslot(q);
	wqe->wr_id = wr->wr_id;
	wqe->num_sge = wr->num_sge;
	wqe->reserved = 0;
	sge = (struct sroce_sge *)(wqe + 1);
	for (i = 0; i < wr->num_sge; i++) {
		sge[i].addr = wr->sg_list[i].addr;
		sge[i].length = wr->sg_list[i].length;
		sge[i].lkey = wr->sg_list[i].lkey;
	}
	sroce_queue_kpush(q);
	return 0;
}

/* Kernel consumers only: libsroce fills a user SRQ's ring itself. */
int sroce_srq_post_recv(struct ib_srq *ibsrq, const struct ib_recv_wr *wr,
			const struct ib_recv_wr **bad_wr)
{
	struct sroce_srq *srq = to_ssrq(ibsrq);
	unsigned long flags;
	int err = 0;

	if (srq->user) {
		*bad_wr = wr;
		return -EINVAL;
	}
	spin_lock_irqsave(&srq->post_lock, flags);
	for (; wr; wr = wr->next) {
		err = sroce_srq_post_one(srq, wr);
		if (err) {
			*bad_wr = wr;
			break;
		}
	}
	spin_unlock_irqrestore(&srq->post_lock, flags);
	return err;
}

/*
 * A QP on an SRQ gets a private RQ of one slot as wide as the SRQ's, so
 * a lent WQE fits and the responder's bounds (max_recv_sge, stride) are
 * the SRQ's.  It is never mapped: create_qp reports no RQ.
 */
int sroce_srq_qp_init(struct sroce_qp *qp, struct ib_qp_init_attr *init)
{
	struct sroce_srq *srq = to_ssrq(init->srq);
	int err;

	err = sroce_queue_alloc(&qp->rq, 1, srq->rq.stride,
				sroce_queue_gfp(qp->user));
	if (err)
		return err;
	qp->srq = srq;
	qp->max_recv_sge = srq->max_sge;
	init->cap.max_recv_wr = 0;
	init->cap.max_recv_sge = 0;
	return 0;
}

static void sroce_srq_event(struct sroce_srq *srq, enum ib_event_type type)
{
	struct ib_event ev = {
		.device = srq->ibsrq.device,
		.element.srq = &srq->ibsrq,
		.event = type,
	};

	if (srq->ibsrq.event_handler)
		srq->ibsrq.event_handler(&ev, srq->ibsrq.srq_context);
}

/*
 * Take the SRQ's next WQE, under the consumer lock.  Returns 1 and
 * whether the limit event is due, 0 if the SRQ is empty, or -EIO once
 * the producer index is found corrupt.
 */
static int sroce_srq_take(struct sroce_srq *srq, void *dst, bool *limit)
{
	struct sroce_queue *q = &srq->rq;
	int n, ret = 1;

	spin_lock(&srq->lock);
	n = sroce_queue_avail(q);
	if (n <= 0) {
		ret = n < 0 && !srq->broken ? -EIO : 0;
		if (ret)
			srq->broken = true;
		goto out;
	}
	/* Copied whole: the QP validates its own copy, never the ring. */
	memcpy(dst, sroce_queue_slot(q, q->index), q->stride);
	sroce_queue_consume(q, 1);
	/* Fired once when the count drops below the limit, then disarmed. */
	*limit = srq->limit && n - 1 < srq->limit;
	if (*limit)
		srq->limit = 0;
out:
	spin_unlock(&srq->lock);
	return ret;
}

int sroce_srq_lend(struct sroce_qp *qp)
{
	struct sroce_srq *srq = qp->srq;
	bool limit = false;
	int r;

	/* The private slot is the engine's alone: no lock on this side. */
	if (sroce_queue_kfull(&qp->rq))
		return 0;
	r = sroce_srq_take(srq, sroce_queue_kslot(&qp->rq), &limit);
	if (r < 0) {
		pr_warn_ratelimited("sroce: SRQ producer index is corrupt\n");
		sroce_srq_event(srq, IB_EVENT_SRQ_ERR);
		return 0;
	}
	if (!r)
		return 0;
	sroce_queue_kpush(&qp->rq);
	if (limit)
		sroce_srq_event(srq, IB_EVENT_SRQ_LIMIT_REACHED);
	return 1;
}

/*
 * A QP on an SRQ in ERROR whose lent WQE has been flushed will take no
 * more from the SRQ: the consumer may now destroy it safely.
 */
void sroce_srq_qp_flushed(struct sroce_qp *qp)
{
	struct ib_event ev = {
		.device = qp->ibqp.device,
		.element.qp = &qp->ibqp,
		.event = IB_EVENT_QP_LAST_WQE_REACHED,
	};

	if (qp->srq_last_wqe)
		return;
	qp->srq_last_wqe = true;
	if (qp->ibqp.event_handler)
		qp->ibqp.event_handler(&ev, qp->ibqp.qp_context);
}
