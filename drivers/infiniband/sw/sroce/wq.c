// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * Receive work queues (see wq.h): creation with their ring, the state
 * machine of modify_wq, the flush in error, and placing a frame an RSS
 * QP hashed here.
 *
 * States: RESET takes WQEs but nothing is placed; RDY places; ERR
 * completes every posted WQE with FLUSH_ERR, those posted later too
 * (SROCE_RING_F_KICK asks libsroce for a doorbell, sroce-abi.h).  RESET
 * discards what is posted without completions, as a QP's RESET does.
 * Only user WQs exist: ib_core's kernel WQs have no consumer that needs
 * sroce (create_wq without udata: EOPNOTSUPP).
 */
#include <linux/log2.h>
#include <rdma/uverbs_ioctl.h>

#include "sroce.h"
#include "rc.h"

/* WQEs a flush completes per lock hold: a bounded BH-off stretch. */
#define SROCE_WQ_FLUSH_BATCH	256

void sroce_wq_init_dev(struct sroce_dev *sdev)
{
	ida_init(&sdev->wq_ida);
	ida_init(&sdev->rwq_ind_tbl_ida);
}

void sroce_wq_destroy_dev(struct sroce_dev *sdev)
{
	ida_destroy(&sdev->rwq_ind_tbl_ida);
	ida_destroy(&sdev->wq_ida);
}

static u32 sroce_wq_stride(u32 max_sge)
{
	return roundup_pow_of_two(SROCE_RECV_WQE_HDR_SIZE +
				  max_sge * (u32)sizeof(struct sroce_sge));
}

static int sroce_wq_check_init(struct sroce_dev *sdev,
			       const struct ib_wq_init_attr *init,
			       struct ib_udata *udata)
{
	const struct ib_device_attr *a = &sdev->attr;

	/* WQs exist for RSS QPs, which are raw packet QPs. */
	if (!udata || !sroce_raw_enabled())
		return -EOPNOTSUPP;
	/* uverbs' write() path checks neither. */
	if (init->wq_type != IB_WQT_RQ || init->create_flags)
		return -EOPNOTSUPP;
	if (udata->inlen && !ib_is_udata_cleared(udata, 0, udata->inlen))
		return -EOPNOTSUPP;
	if (!init->max_wr || init->max_wr > a->max_qp_wr ||
	    init->max_sge > a->max_recv_sge)
		return -EINVAL;
	return 0;
}

static int sroce_wq_publish(struct sroce_wq *wq, struct ib_udata *udata)
{
	struct sroce_create_wq_resp resp = {};
	struct sroce_ucontext *uctx;
	int err;

	uctx = rdma_udata_to_drv_context(udata, struct sroce_ucontext, ibuc);
	err = sroce_queue_mmap_publish(&wq->rq, &uctx->ibuc, &resp.rq);
	if (err)
		return err;
	return ib_copy_to_udata(udata, &resp, min(udata->outlen, sizeof(resp)));
}

static void sroce_wq_flush_work(struct work_struct *work);

/* Everything but the number and the mapping. */
static int sroce_wq_init(struct sroce_wq *wq, struct ib_pd *ibpd,
			 const struct ib_wq_init_attr *init)
{
	gfp_t gfp = sroce_queue_gfp(true);
	int err;

	wq->sdev = to_sdev(ibpd->device);
	wq->pd = to_spd(ibpd);
	wq->cq = to_scq(init->cq);
	spin_lock_init(&wq->lock);
	wq->state = IB_WQS_RESET;
	wq->max_sge = max_t(u32, init->max_sge, 1);
	INIT_WORK(&wq->flush_work, sroce_wq_flush_work);
	err = sroce_queue_alloc(&wq->rq, init->max_wr,
				sroce_wq_stride(wq->max_sge), gfp);
	if (err)
		return err;
	wq->rwqe = kmalloc(wq->rq.stride, gfp);
	if (!wq->rwqe) {
		sroce_queue_free(&wq->rq);
		return -ENOMEM;
	}
	return 0;
}

static void sroce_wq_free(struct sroce_wq *wq)
{
	kfree(wq->rwqe);
	sroce_queue_free(&wq->rq);
	kfree(wq);
}

struct ib_wq *sroce_wq_create(struct ib_pd *ibpd,
			      struct ib_wq_init_attr *init,
			      struct ib_udata *udata)
{
	struct sroce_dev *sdev = to_sdev(ibpd->device);
	struct sroce_wq *wq;
	int err, wqn;

	err = sroce_wq_check_init(sdev, init, udata);
	if (err)
		return ERR_PTR(err);
	wq = kzalloc(sizeof(*wq), GFP_KERNEL_ACCOUNT);
	if (!wq)
		return ERR_PTR(-ENOMEM);
	err = sroce_wq_init(wq, ibpd, init);
	if (err)
		goto err_kfree;
	wqn = ida_alloc_range(&sdev->wq_ida, SROCE_WQN_MIN,
			      SROCE_WQN_MIN + SROCE_MAX_WQ - 1, GFP_KERNEL);
	if (wqn < 0) {
		err = wqn == -ENOSPC ? -ENOMEM : wqn;
		goto err_free;
	}
	err = sroce_wq_publish(wq, udata);
	if (err)
		goto err_ida;
	wq->ibwq.wq_num = wqn;
	wq->ibwq.state = IB_WQS_RESET;
	/* uverbs sets neither; a fatal error reports through them. */
	wq->ibwq.event_handler = init->event_handler;
	wq->ibwq.wq_context = init->wq_context;
	init->max_wr = wq->rq.nentries;
	init->max_sge = wq->max_sge;
	return &wq->ibwq;

err_ida:
	ida_free(&sdev->wq_ida, wqn);
err_free:
	sroce_wq_free(wq);
	return ERR_PTR(err);
err_kfree:
	kfree(wq);
	return ERR_PTR(err);
}

int sroce_wq_destroy(struct ib_wq *ibwq, struct ib_udata *udata)
{
	struct sroce_wq *wq = to_swq(ibwq);

	/*
	 * ib_core refuses while a table holds the WQ (usecnt): no RSS QP
	 * can reach it any more.  Only a flush may still be queued.
	 */
	cancel_work_sync(&wq->flush_work);
	ida_free(&wq->sdev->wq_ida, ibwq->wq_num);
	sroce_wq_free(wq);
	return 0;
}

/* Under the lock. */
static void sroce_wq_set_state(struct sroce_wq *wq, enum ib_wq_state state)
{
	wq->state = state;
	/* uverbs reads it as the current state of the next modify_wq. */
	WRITE_ONCE(wq->ibwq.state, state);
}

static void sroce_wq_event(struct sroce_wq *wq, enum ib_event_type type)
{
	struct ib_event ev = {
		.device = wq->ibwq.device,
		.element.wq = &wq->ibwq,
		.event = type,
	};

	if (wq->ibwq.event_handler)
		wq->ibwq.event_handler(&ev, wq->ibwq.wq_context);
}

/* ------------------------------------------------------------------ */
/* Completions and the flush                                           */
/* ------------------------------------------------------------------ */

/*
 * Retire the WQE copied into rwqe (under the lock): its slot back to
 * libsroce, then @cqe on the WQ's CQ; -EOVERFLOW if the CQ overflowed.
 */
static int sroce_wq_complete(struct sroce_wq *wq, struct sroce_cqe *cqe)
{
	cqe->wr_id = wq->rwqe->wr_id;
	cqe->qp_num = wq->ibwq.wq_num;
	cqe->port_num = SROCE_PORT;
	sroce_queue_consume(&wq->rq, 1);
	/* A user CQ: no QP pointer travels in the CQE. */
	return sroce_cq_post(wq->cq, cqe, NULL, false);
}

/*
 * WQEs posted and not consumed; in ERR, with none left, ask libsroce for
 * a doorbell first (the SQ's store, full barrier, re-read dance).  -EIO
 * for a corrupt producer index.
 */
static int sroce_wq_avail_or_kick(struct sroce_wq *wq)
{
	struct sroce_queue *q = &wq->rq;
	int n = sroce_queue_avail(q);

	if (n)
		return n;
	WRITE_ONCE(q->hdr->flags, SROCE_RING_F_KICK);
	/* Flag store before the prod load; libsroce fences the other way. */
	smp_mb();
	return sroce_queue_avail(q);
}

/* Up to @budget posted WQEs complete with FLUSH_ERR; true if more. */
static bool sroce_wq_flush_some(struct sroce_wq *wq, int budget)
{
	struct sroce_cqe cqe;

	for (; budget > 0; budget--) {
		if (wq->state != IB_WQS_ERR || sroce_wq_avail_or_kick(wq) <= 0)
			return false;
		memcpy(wq->rwqe, sroce_queue_slot(&wq->rq, wq->rq.index),
		       SROCE_RECV_WQE_HDR_SIZE);
		memset(&cqe, 0, sizeof(cqe));
		cqe.status = IB_WC_WR_FLUSH_ERR;
		cqe.opcode = IB_WC_RECV;
		/* An overflowed CQ reported itself; the WQEs go all the same. */
		sroce_wq_complete(wq, &cqe);
	}
	return true;
}

/* Process context: flush in batches, the lock dropped in between. */
static void sroce_wq_flush(struct sroce_wq *wq)
{
	bool more;

	do {
		spin_lock_bh(&wq->lock);
		more = sroce_wq_flush_some(wq, SROCE_WQ_FLUSH_BATCH);
		spin_unlock_bh(&wq->lock);
		cond_resched();
	} while (more);
}

static void sroce_wq_flush_work(struct work_struct *work)
{
	sroce_wq_flush(container_of(work, struct sroce_wq, flush_work));
}

/*
 * A receive found an error (under the lock): the WQ goes to ERR and is
 * flushed by its work, outside the engine that found it.
 */
static void sroce_wq_fail(struct sroce_wq *wq)
{
	if (wq->state == IB_WQS_ERR)
		return;
	sroce_wq_set_state(wq, IB_WQS_ERR);
	schedule_work(&wq->flush_work);
}

/* ------------------------------------------------------------------ */
/* modify_wq                                                           */
/* ------------------------------------------------------------------ */

/* Any state may go to RESET or ERR; RDY only from RESET or RDY. */
static bool sroce_wq_move_ok(enum ib_wq_state cur, enum ib_wq_state new)
{
	if (cur > IB_WQS_ERR || new > IB_WQS_ERR)
		return false;
	return new != IB_WQS_RDY || cur != IB_WQS_ERR;
}

/* Under the lock. */
static void sroce_wq_enter(struct sroce_wq *wq, enum ib_wq_state new)
{
	struct sroce_queue *q = &wq->rq;

	switch (new) {
	case IB_WQS_RESET:
		/* Posted WQEs go without completions; prod is caught up. */
		sroce_queue_consume(q, READ_ONCE(q->hdr->prod) - q->index);
		wq->broken = false;
		fallthrough;
	case IB_WQS_RDY:
		/* Receives need a doorbell only in ERR. */
		WRITE_ONCE(q->hdr->flags, 0);
		break;
	default:
		break;
	}
	sroce_wq_set_state(wq, new);
}

/*
 * The doorbell of a WQ in ERR is a modify_wq from ERR to ERR: it changes
 * nothing and flushes what was posted since.
 */
int sroce_wq_modify(struct ib_wq *ibwq, struct ib_wq_attr *attr, u32 mask,
		    struct ib_udata *udata)
{
	struct sroce_wq *wq = to_swq(ibwq);
	enum ib_wq_state cur, new;
	int err = 0;

	if (udata && udata->inlen &&
	    !ib_is_udata_cleared(udata, 0, udata->inlen))
		return -EOPNOTSUPP;
	if (mask & ~(IB_WQ_STATE | IB_WQ_CUR_STATE | IB_WQ_FLAGS))
		return -EINVAL;
	/* No VLAN stripping, FCS scatter, delay drop or padding to set. */
	if (mask & IB_WQ_FLAGS && attr->flags_mask)
		return -EOPNOTSUPP;
	spin_lock_bh(&wq->lock);
	cur = mask & IB_WQ_CUR_STATE ? attr->curr_wq_state : wq->state;
	new = mask & IB_WQ_STATE ? attr->wq_state : cur;
	if (cur != wq->state || !sroce_wq_move_ok(cur, new))
		err = -EINVAL;
	else
		sroce_wq_enter(wq, new);
	spin_unlock_bh(&wq->lock);
	if (!err && new == IB_WQS_ERR)
		sroce_wq_flush(wq);
	return err;
}

/* ------------------------------------------------------------------ */
/* Receiving a frame                                                   */
/* ------------------------------------------------------------------ */

/*
 * Copy the next WQE out of the ring and check it (under the lock); *room
 * gets the bytes its SGEs hold.  1; 0 if none is posted; -EIO for a
 * corrupt producer index; -EINVAL for a WQE with too many SGEs.
 */
static int sroce_wq_take(struct sroce_wq *wq, u64 *room)
{
	struct sroce_queue *q = &wq->rq;
	struct sroce_sge *sge = (struct sroce_sge *)(wq->rwqe + 1);
	const u8 *slot;
	u32 i, nsge;
	int n;

	n = sroce_queue_avail(q);
	if (n <= 0)
		return n;
	/* Copy first, then look: userspace may be writing the slot. */
	slot = sroce_queue_slot(q, q->index);
	memcpy(wq->rwqe, slot, SROCE_RECV_WQE_HDR_SIZE);
	nsge = wq->rwqe->num_sge;
	if (nsge > wq->max_sge)
		return -EINVAL;
	memcpy(sge, slot + SROCE_RECV_WQE_HDR_SIZE, nsge * sizeof(*sge));
	*room = 0;
	for (i = 0; i < nsge; i++)
		*room += sge[i].length;
	return 1;
}

/*
 * The frame into the WQE taken: the completion's status, or -EAGAIN in
 * *err when an ODP page is being faulted in (the WQE stays for the next
 * frame; this one is lost, as a UD datagram may be).
 */
static enum ib_wc_status sroce_wq_place(struct sroce_wq *wq,
					struct sroce_qp *qp,
					struct sk_buff *skb, u64 room,
					int *err)
{
	struct sroce_data d = { .skb = skb };

	*err = 0;
	if (skb->len > room)
		return IB_WC_LOC_LEN_ERR;
	*err = sroce_copy_sgl_pd(qp, wq->pd,
				 (struct sroce_sge *)(wq->rwqe + 1),
				 wq->rwqe->num_sge, 0, skb->len, &d, true);
	return *err ? IB_WC_LOC_PROT_ERR : IB_WC_SUCCESS;
}

/* Under the lock: place and complete; true if the WQ must fail. */
static bool sroce_wq_fill(struct sroce_wq *wq, struct sroce_qp *qp,
			  struct sk_buff *skb, u64 room, bool *fatal)
{
	struct sroce_cqe cqe = {
		.opcode = IB_WC_RECV,
		.byte_len = skb->len,
	};
	int err;

	cqe.status = sroce_wq_place(wq, qp, skb, room, &err);
	if (err == -EAGAIN) {
		sroce_cnt_inc(sroce_qp_cnt(qp), SROCE_CNT_RAW_RX_DROPPED);
		return false;
	}
	if (cqe.status == IB_WC_SUCCESS)
		sroce_cnt_inc(sroce_qp_cnt(qp), SROCE_CNT_RAW_RX_PACKETS);
	if (sroce_wq_complete(wq, &cqe)) {
		*fatal = true;
		return true;
	}
	/* A WQE naming memory it may not write fails the WQ, as a QP's. */
	return cqe.status == IB_WC_LOC_PROT_ERR;
}

/* Under the lock: a WQE with more SGEs than the WQ takes. */
static void sroce_wq_bad_wqe(struct sroce_wq *wq, struct sroce_qp *qp,
			     bool *fatal)
{
	struct sroce_cqe cqe = {
		.status = IB_WC_LOC_QP_OP_ERR,
		.opcode = IB_WC_RECV,
	};

	sroce_cnt_inc(sroce_qp_cnt(qp), SROCE_CNT_BAD_WQES);
	if (sroce_wq_complete(wq, &cqe))
		*fatal = true;
}

/* Under the lock: where receiving into a RDY WQ went wrong. */
static bool sroce_wq_recv_locked(struct sroce_wq *wq, struct sroce_qp *qp,
				 struct sk_buff *skb, bool *fatal)
{
	u64 room;

	switch (sroce_wq_take(wq, &room)) {
	case 1:
		return sroce_wq_fill(wq, qp, skb, room, fatal);
	case 0:
		/* No WQE: dropped, as UD and raw QPs drop. */
		sroce_cnt_inc(sroce_qp_cnt(qp), SROCE_CNT_RAW_RX_DROPPED);
		return false;
	case -EINVAL:
		sroce_wq_bad_wqe(wq, qp, fatal);
		return true;
	default:
		if (!wq->broken)
			*fatal = true;
		wq->broken = true;
		pr_warn_ratelimited("sroce: WQ %u: producer index is corrupt\n",
				    wq->ibwq.wq_num);
		return true;
	}
}

void sroce_wq_recv(struct sroce_wq *wq, struct sroce_qp *qp,
		   struct sk_buff *skb)
{
	bool fatal = false;

	spin_lock(&wq->lock);
	if (wq->state != IB_WQS_RDY)
		sroce_cnt_inc(sroce_qp_cnt(qp), SROCE_CNT_RAW_RX_DROPPED);
	else if (sroce_wq_recv_locked(wq, qp, skb, &fatal))
		sroce_wq_fail(wq);
	spin_unlock(&wq->lock);
	if (fatal)
		sroce_wq_event(wq, IB_EVENT_WQ_FATAL);
	consume_skb(skb);
}
