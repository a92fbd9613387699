// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * Completion queues: a ring the engines produce into and the consumer
 * (libsroce through mmap, or a kernel ULP through ib_poll_cq) drains.
 */
#include <rdma/uverbs_ioctl.h>

#include "sroce.h"


static int sroce_cq_ring_alloc(struct sroce_cq *cq, struct sroce_queue *q,
			       int cqe, struct ib_udata *udata,
			       struct sroce_ring_info *info)
{
	struct sroce_ucontext *uctx;
	int err;

	/* One slot stays free so a full ring is told apart from an empty one. */
	err = sroce_queue_alloc(q, cqe + 1, sizeof(struct sroce_cqe),
				sroce_queue_gfp(udata));
	if (err)
		return err;
	if (!udata)
		return 0;
	uctx = rdma_udata_to_drv_context(udata, struct sroce_ucontext, ibuc);
	err = sroce_queue_mmap_publish(q, &uctx->ibuc, info);
	if (err)
		sroce_queue_free(q);
	return err;
}

int sroce_cq_create(struct ib_cq *ibcq, const struct ib_cq_init_attr *attr,
		    struct ib_udata *udata)
{
	struct sroce_cq *cq = to_scq(ibcq);
	struct sroce_create_cq_resp resp = {};
	int err;

	if (attr->flags)
		return -EOPNOTSUPP;
	if (attr->cqe < 1 || attr->cqe >= SROCE_MAX_CQE_DEV)
		return -EINVAL;
	spin_lock_init(&cq->lock);
	cq->user = !!udata;
	err = sroce_cq_ring_alloc(cq, &cq->q, attr->cqe, udata, &resp.ring);
	if (err)
		return err;
	ibcq->cqe = cq->q.nentries - 1;
	if (udata) {
		err = ib_copy_to_udata(udata, &resp,
				       min(udata->outlen, sizeof(resp)));
		if (err)
			goto err_free;
	}
	return 0;

err_free:
	sroce_queue_free(&cq->q);
	return err;
}

int sroce_cq_destroy(struct ib_cq *ibcq, struct ib_udata *udata)
{
	/* ib_core refuses while QPs still use the CQ (usecnt). */
	sroce_queue_free(&to_scq(ibcq)->q);
	return 0;
}

/* Unconsumed CQEs of @cq, oldest first, to the fresh ring @nq. */
static int sroce_cq_move(struct sroce_cq *cq, struct sroce_queue *nq)
{
	u32 cons = sroce_queue_peer_index(&cq->q, true);
	u32 n = cq->q.index - cons;

	if (n > cq->q.nentries)		/* consumer index is garbage */
		return -EIO;
	if (n >= nq->nentries)
		return -EINVAL;
	for (; cons != cq->q.index; cons++) {
		memcpy(sroce_queue_slot(nq, nq->index),
		       sroce_queue_slot(&cq->q, cons), sizeof(struct sroce_cqe));
		sroce_queue_produce(nq);
	}
	/* The new ring starts with its consumer at 0. */
	return 0;
}

int sroce_cq_resize(struct ib_cq *ibcq, int cqe, struct ib_udata *udata)
{
	struct sroce_cq *cq = to_scq(ibcq);
	struct sroce_resize_cq_resp resp = {};
	struct sroce_queue nq, old;
	unsigned long flags;
	int err;

	if (cqe < 1 || cqe >= SROCE_MAX_CQE_DEV)
		return -EINVAL;
	err = sroce_cq_ring_alloc(cq, &nq, cqe, udata, &resp.ring);
	if (err)
		return err;

	spin_lock_irqsave(&cq->lock, flags);
	err = sroce_cq_move(cq, &nq);
	if (!err) {
		old = cq->q;
		cq->q = nq;
		ibcq->cqe = nq.nentries - 1;
	}
	spin_unlock_irqrestore(&cq->lock, flags);
	if (err) {
		sroce_queue_free(&nq);
		return err;
	}
	sroce_queue_free(&old);

	if (udata)
		return ib_copy_to_udata(udata, &resp,
					min(udata->outlen, sizeof(resp)));
	return 0;
}

static void sroce_cq_overflow(struct sroce_cq *cq)
{
	struct ib_event ev = {
		.device = cq->ibcq.device,
		.element.cq = &cq->ibcq,
		.event = IB_EVENT_CQ_ERR,
	};

	pr_warn_ratelimited("sroce: %s: CQ overflow, completions lost\n",
			    dev_name(&cq->ibcq.device->dev));
	if (cq->ibcq.event_handler)
		cq->ibcq.event_handler(&ev, cq->ibcq.cq_context);
}

/*
 * Add one completion.  On a kernel CQ the owning QP travels in the CQE
 * (kernel memory only: a user ring never carries a kernel pointer).
 * Returns -EOVERFLOW once the CQ has overflowed: the spec makes that a CQ
 * error, reported once with IB_EVENT_CQ_ERR.
 */
int sroce_cq_post(struct sroce_cq *cq, struct sroce_cqe *cqe,
		  struct sroce_qp *qp, bool solicited)
{
	bool notify, first_overflow = false;
	unsigned long flags;

	spin_lock_irqsave(&cq->lock, flags);
	if (cq->overflow ||
	    sroce_queue_full(&cq->q, sroce_queue_peer_index(&cq->q, true))) {
		first_overflow = !cq->overflow;
		cq->overflow = true;
		spin_unlock_irqrestore(&cq->lock, flags);
		if (first_overflow)
			sroce_cq_overflow(cq);
		return -EOVERFLOW;
	}
	if (!cq->user)
		cqe->reserved1[0] = (uintptr_t)qp;
	memcpy(sroce_queue_slot(&cq->q, cq->q.index), cqe, sizeof(*cqe));
	sroce_queue_produce(&cq->q);
	notify = cq->notify & IB_CQ_NEXT_COMP ||
		 (cq->notify & IB_CQ_SOLICITED && solicited);
	if (notify)
		cq->notify = 0;
	spin_unlock_irqrestore(&cq->lock, flags);

	if (notify && cq->ibcq.comp_handler)
		cq->ibcq.comp_handler(&cq->ibcq, cq->ibcq.cq_context);
	return 0;
}

static void sroce_cq_to_wc(const struct sroce_cqe *cqe, struct ib_wc *wc)
{
	memset(wc, 0, sizeof(*wc));
	wc->wr_id = cqe->wr_id;
	wc->status = cqe->status;
	wc->opcode = cqe->opcode;
	wc->vendor_err = cqe->vendor_err;
	wc->byte_len = cqe->byte_len;
	wc->qp = (struct ib_qp *)(uintptr_t)cqe->reserved1[0];
	wc->ex.imm_data = (__force __be32)cqe->imm_data;
	wc->src_qp = cqe->src_qp;
	wc->wc_flags = cqe->wc_flags;
	wc->pkey_index = cqe->pkey_index;
	wc->slid = cqe->slid;
	wc->sl = cqe->sl;
	wc->dlid_path_bits = cqe->dlid_path_bits;
	wc->port_num = cqe->port_num;
	wc->network_hdr_type = cqe->network_hdr_type;
}

/* Kernel consumers only: user CQs are polled in libsroce. */
int sroce_cq_poll(struct ib_cq *ibcq, int n, struct ib_wc *wc)
{
	struct sroce_cq *cq = to_scq(ibcq);
	struct sroce_queue *q = &cq->q;
	unsigned long flags;
	int i;

	spin_lock_irqsave(&cq->lock, flags);
	for (i = 0; i < n; i++) {
		u32 cons = READ_ONCE(q->hdr->cons);

		if (cons == q->index)
			break;
		sroce_cq_to_wc(sroce_queue_slot(q, cons), &wc[i]);
		/* The slot is read before the producer may reuse it. */
		smp_store_release(&q->hdr->cons, cons + 1);
	}
	spin_unlock_irqrestore(&cq->lock, flags);
	return i;
}

int sroce_cq_req_notify(struct ib_cq *ibcq, enum ib_cq_notify_flags flags)
{
	struct sroce_cq *cq = to_scq(ibcq);
	unsigned long irqflags;
	int ret = 0;

	spin_lock_irqsave(&cq->lock, irqflags);
	if (!(cq->notify & IB_CQ_NEXT_COMP))
		cq->notify = flags & IB_CQ_SOLICITED_MASK;
	/* Acquire: pairs with the consumer's release of what it took. */
	if (flags & IB_CQ_REPORT_MISSED_EVENTS &&
	    sroce_queue_peer_index(&cq->q, true) != cq->q.index)
		ret = 1;
	spin_unlock_irqrestore(&cq->lock, irqflags);
	return ret;
}
