// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * Receive work queues and indirection tables (SROCE_CAP_RSS).  sroce.ko
 * owns both.  A WQ is a receive ring like a QP's RQ, in the same WQE
 * format, which we map and produce into with ibv_post_wq_recv() (no
 * system call), and which the RSS QPs whose tables name it consume (qp.c
 * creates those).  Its completions arrive on its CQ with its wq_num in
 * qp_num.  In IBV_WQS_ERR the kernel flushes what is posted; a receive
 * posted after it found the ring empty rings the doorbell, a modify_wq
 * that changes nothing (sroce-abi.h).
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "sroce.h"

struct sroce_rwq {
	struct ibv_wq ibv_wq;
	struct sroce_wq rq;		/* the ring; its lock serialises posts */
	struct sroce_pd *parent;	/* parent domain held, or NULL */
};

struct sroce_create_wq_resp_buf {
	struct ib_uverbs_ex_create_wq_resp ibv;
	struct sroce_create_wq_resp drv;
};
_Static_assert(offsetof(struct sroce_create_wq_resp_buf, drv) ==
	       sizeof(struct ib_uverbs_ex_create_wq_resp),
	       "driver response must follow the core one without padding");
/*
 * libibverbs passes states, type and modify_wq's mask to the kernel as
 * they are; uverbs names only the type.  The states (RESET 0, RDY 1,
 * ERR 2) and the mask bits (STATE 1, CURR_STATE 2) are the kernel's
 * enum ib_wq_state and ib_wq_attr_mask.
 */
_Static_assert(SROCE_SAME(IBV_WQT_RQ, IB_UVERBS_WQT_RQ) &&
	       IBV_WQS_RESET == 0 && IBV_WQS_RDY == 1 && IBV_WQS_ERR == 2 &&
	       IBV_WQ_ATTR_STATE == 1 && IBV_WQ_ATTR_CURR_STATE == 2,
	       "WQ type, states and mask as the kernel numbers them");

static struct sroce_rwq *to_srwq(struct ibv_wq *ibwq)
{
	return container_of(ibwq, struct sroce_rwq, ibv_wq);
}

static uint32_t sroce_wq_min(uint32_t a, uint32_t b)
{
	return a < b ? a : b;
}

static int sroce_wq_check_init(struct ibv_context *ctx,
			       const struct ibv_wq_init_attr *attr)
{
	/* A kernel that does not say it has WQs must not be asked. */
	if (!sroce_ctx_has_rss(ctx))
		return EOPNOTSUPP;
	if (!attr->pd || attr->pd->context != ctx || !attr->cq ||
	    attr->cq->context != ctx)
		return EINVAL;
	return 0;
}

static struct sroce_rwq *sroce_wq_alloc(struct ibv_pd *pd)
{
	struct sroce_rwq *wq = calloc(1, sizeof(*wq));

	if (!wq)
		return NULL;
	if (pthread_spin_init(&wq->rq.lock, PTHREAD_PROCESS_PRIVATE)) {
		free(wq);
		errno = ENOMEM;
		return NULL;
	}
	/* A parent domain: the kernel gets its PD, the WQ holds it. */
	wq->parent = sroce_pd_get(pd);
	return wq;
}

static void sroce_wq_free(struct sroce_rwq *wq)
{
	sroce_ring_unmap(&wq->rq.ring);
	sroce_pd_put(wq->parent);
	pthread_spin_destroy(&wq->rq.lock);
	free(wq);
}

/* The ring is mapped: take up the limits it really offers. */
static int sroce_wq_attach(struct sroce_rwq *wq, int cmd_fd,
			   const struct sroce_ring_info *info,
			   struct ibv_wq_init_attr *attr)
{
	uint32_t room;
	void *base;
	int ret;

	ret = sroce_ring_map(cmd_fd, info, SROCE_RECV_WQE_HDR_SIZE, &base);
	if (ret)
		return ret;
	sroce_ring_attach(&wq->rq.ring, base, info, true);
	room = info->stride - SROCE_RECV_WQE_HDR_SIZE;
	wq->rq.max_sge = sroce_wq_min(attr->max_sge,
				      room / sizeof(struct sroce_sge));
	attr->max_sge = wq->rq.max_sge;
	attr->max_wr = sroce_wq_min(attr->max_wr, info->entries);
	return 0;
}

static int sroce_post_wq_recv(struct ibv_wq *ibwq, struct ibv_recv_wr *wr,
			      struct ibv_recv_wr **bad_wr);

static struct ibv_wq *sroce_create_wq(struct ibv_context *ctx,
				      struct ibv_wq_init_attr *attr)
{
	struct sroce_create_wq_resp_buf resp = {};
	struct ibv_create_wq cmd = {};
	struct ibv_wq_init_attr a;
	struct sroce_rwq *wq;
	int ret;

	ret = sroce_wq_check_init(ctx, attr);
	if (ret)
		goto err;
	wq = sroce_wq_alloc(attr->pd);
	if (!wq)
		return NULL;
	a = *attr;
	a.pd = sroce_pd_real(attr->pd);
	ret = ibv_cmd_create_wq(ctx, &a, &wq->ibv_wq, &cmd, sizeof(cmd),
				&resp.ibv, sizeof(resp));
	if (ret)
		goto err_free;
	ret = sroce_wq_attach(wq, ctx->cmd_fd, &resp.drv.rq, &a);
	if (ret) {
		ibv_cmd_destroy_wq(&wq->ibv_wq);
		goto err_free;
	}
	/* Reported as the caller passed it, as for QPs. */
	wq->ibv_wq.pd = attr->pd;
	wq->ibv_wq.state = IBV_WQS_RESET;
	wq->ibv_wq.post_recv = sroce_post_wq_recv;
	attr->max_wr = a.max_wr;
	attr->max_sge = a.max_sge;
	return &wq->ibv_wq;

err_free:
	sroce_wq_free(wq);
err:
	errno = ret;
	return NULL;
}

/*
 * Receives still on the ring, and the WQ's completions still in its CQ,
 * are void once it is in RESET or gone: a consumer reusing the CQ must
 * not reap them (the QP's rule, qp.c).  Re-reading prod leaves us where
 * the kernel expects the next WQE.
 */
static void sroce_wq_forget(struct ibv_wq *ibwq)
{
	struct sroce_wq *rq = &to_srwq(ibwq)->rq;

	pthread_spin_lock(&rq->lock);
	rq->ring.head = __atomic_load_n(&rq->ring.hdr->prod, __ATOMIC_ACQUIRE);
	pthread_spin_unlock(&rq->lock);
	sroce_cq_clean(to_scq(ibwq->cq), ibwq->wq_num);
}

static int sroce_destroy_wq(struct ibv_wq *ibwq)
{
	int ret;

	ret = ibv_cmd_destroy_wq(ibwq);
	if (ret)
		return ret;
	sroce_cq_clean(to_scq(ibwq->cq), ibwq->wq_num);
	sroce_wq_free(to_srwq(ibwq));
	return 0;
}

/* The kernel checks every transition; no flags can change. */
static int sroce_modify_wq(struct ibv_wq *ibwq, struct ibv_wq_attr *attr)
{
	struct ibv_modify_wq cmd = {};
	int ret;

	ret = ibv_cmd_modify_wq(ibwq, attr, &cmd, sizeof(cmd));
	if (ret)
		return ret;
	if (attr->attr_mask & IBV_WQ_ATTR_STATE &&
	    attr->wq_state == IBV_WQS_RESET)
		sroce_wq_forget(ibwq);
	return 0;
}

/*
 * A WQ in ERR whose flush found the ring empty asked for a doorbell
 * (SROCE_RING_F_KICK): modify_wq from ERR to ERR, which flushes.  If the
 * WQ left ERR meanwhile the kernel refuses it with EINVAL, and there is
 * nothing to flush: not an error of the post.
 */
static int sroce_wq_kick(struct ibv_wq *ibwq, struct sroce_wq *rq)
{
	struct ibv_wq_attr attr = {
		.attr_mask = IBV_WQ_ATTR_CURR_STATE,
		.curr_wq_state = IBV_WQS_ERR,
	};
	struct ibv_modify_wq cmd = {};
	int ret;

	if (!sroce_ring_kick_needed(&rq->ring))
		return 0;
	ret = ibv_cmd_modify_wq(ibwq, &attr, &cmd, sizeof(cmd));
	return ret == EINVAL ? 0 : ret;
}

/* ibv_post_wq_recv(): as ibv_post_recv() on a QP's RQ. */
static int sroce_post_wq_recv(struct ibv_wq *ibwq, struct ibv_recv_wr *wr,
			      struct ibv_recv_wr **bad_wr)
{
	struct sroce_wq *rq = &to_srwq(ibwq)->rq;
	uint32_t room = 0, start;
	int ret = 0, kick;

	if (sroce_ring_dead(&rq->ring)) {
		*bad_wr = wr;
		return EIO;
	}
	pthread_spin_lock(&rq->lock);
	start = rq->ring.head;
	for (; wr; wr = wr->next) {
		ret = sroce_rq_post_one(rq, wr, &room);
		if (ret) {
			*bad_wr = wr;
			break;
		}
	}
	if (rq->ring.head == start) {
		pthread_spin_unlock(&rq->lock);
		return ret;
	}
	sroce_ring_publish(&rq->ring);
	pthread_spin_unlock(&rq->lock);

	kick = sroce_wq_kick(ibwq, rq);
	if (kick && !ret) {
		*bad_wr = NULL;
		ret = kick;
	}
	return ret;
}

/* ------------------------------------------------------------------ */
/* Indirection tables                                                  */
/* ------------------------------------------------------------------ */

/*
 * libibverbs builds the command from 2^log_ind_tbl_size handles on the
 * stack: a size uverbs would refuse anyway, or a missing WQ, must not get
 * that far.  The kernel has the tighter limit of its own.
 */
static int sroce_rwq_ind_table_check(struct ibv_context *ctx,
				     const struct ibv_rwq_ind_table_init_attr *a)
{
	uint32_t i;

	if (!sroce_ctx_has_rss(ctx))
		return EOPNOTSUPP;
	if (a->log_ind_tbl_size > IB_USER_VERBS_MAX_LOG_IND_TBL_SIZE ||
	    !a->ind_tbl)
		return EINVAL;
	for (i = 0; i < 1U << a->log_ind_tbl_size; i++)
		if (!a->ind_tbl[i] || a->ind_tbl[i]->context != ctx)
			return EINVAL;
	return 0;
}

static struct ibv_rwq_ind_table *
sroce_create_rwq_ind_table(struct ibv_context *ctx,
			   struct ibv_rwq_ind_table_init_attr *attr)
{
	struct ib_uverbs_ex_create_rwq_ind_table_resp resp = {};
	struct ibv_rwq_ind_table *tbl;
	int ret;

	ret = sroce_rwq_ind_table_check(ctx, attr);
	if (ret) {
		errno = ret;
		return NULL;
	}
	tbl = calloc(1, sizeof(*tbl));
	if (!tbl)
		return NULL;
	ret = ibv_cmd_create_rwq_ind_table(ctx, attr, tbl, &resp, sizeof(resp));
	if (ret) {
		free(tbl);
		errno = ret;
		return NULL;
	}
	return tbl;
}

static int sroce_destroy_rwq_ind_table(struct ibv_rwq_ind_table *tbl)
{
	int ret = ibv_cmd_destroy_rwq_ind_table(tbl);

	if (ret)
		return ret;
	free(tbl);
	return 0;
}

const struct verbs_context_ops sroce_wq_ops = {
	.create_rwq_ind_table = sroce_create_rwq_ind_table,
	.create_wq = sroce_create_wq,
	.destroy_rwq_ind_table = sroce_destroy_rwq_ind_table,
	.destroy_wq = sroce_destroy_wq,
	.modify_wq = sroce_modify_wq,
};
