// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * Shared receive queues.  sroce.ko owns the SRQ and consumes its ring
 * from the engines of the QPs attached to it; we map the ring and
 * produce receive WQEs into it, in the RQ's format, with no system call:
 * the engines take WQEs as packets arrive.  Create, modify (the limit),
 * query and destroy are plain uverbs commands.
 *
 * An XRC SRQ (ibv_create_srq_ex()) is the same ring, bound to an XRC
 * domain and a CQ; the kernel numbers it, and XRC INI QPs name it by
 * that number (ibv_get_srq_num()).
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "sroce.h"
#include "verbs-private-ud.h"

struct sroce_srq {
	struct verbs_srq vsrq;		/* XRC: type, domain, CQ, number */
	struct sroce_wq rq;		/* the ring; no inline, no kick */
	struct sroce_pd *parent;	/* parent domain held, or NULL */
};

struct sroce_create_srq_resp_buf {
	struct ib_uverbs_create_srq_resp ibv;
	struct sroce_create_srq_resp drv;
};
_Static_assert(offsetof(struct sroce_create_srq_resp_buf, drv) ==
	       sizeof(struct ib_uverbs_create_srq_resp),
	       "driver response must follow the core one without padding");

static struct sroce_srq *to_ssrq(struct ibv_srq *ibsrq)
{
	return container_of(ibsrq, struct sroce_srq, vsrq.srq);
}

static uint32_t sroce_srq_min(uint32_t a, uint32_t b)
{
	return a < b ? a : b;
}

/* The ring is mapped: take up the limits it really offers. */
static int sroce_srq_attach(struct sroce_srq *srq, int cmd_fd,
			    const struct sroce_ring_info *info,
			    struct ibv_srq_attr *attr)
{
	uint32_t room;
	void *base;
	int ret;

	ret = sroce_ring_map(cmd_fd, info, SROCE_RECV_WQE_HDR_SIZE, &base);
	if (ret)
		return ret;
	sroce_ring_attach(&srq->rq.ring, base, info, true);
	room = info->stride - SROCE_RECV_WQE_HDR_SIZE;
	srq->rq.max_sge = sroce_srq_min(attr->max_sge,
					room / sizeof(struct sroce_sge));
	attr->max_sge = srq->rq.max_sge;
	attr->max_wr = sroce_srq_min(attr->max_wr, info->entries);
	return 0;
}

static struct sroce_srq *sroce_srq_alloc(struct ibv_pd *pd)
{
	struct sroce_srq *srq;

	srq = calloc(1, sizeof(*srq));
	if (!srq)
		return NULL;
	if (pthread_spin_init(&srq->rq.lock, PTHREAD_PROCESS_PRIVATE)) {
		free(srq);
		errno = ENOMEM;
		return NULL;
	}
	/* A parent domain: the kernel gets its PD, the SRQ holds it. */
	srq->parent = sroce_pd_get(pd);
	return srq;
}

static void sroce_srq_free(struct sroce_srq *srq)
{
	sroce_ring_unmap(&srq->rq.ring);
	sroce_pd_put(srq->parent);
	pthread_spin_destroy(&srq->rq.lock);
	free(srq);
}

static struct ibv_srq *sroce_create_srq(struct ibv_pd *pd,
					struct ibv_srq_init_attr *attr)
{
	struct sroce_create_srq_resp_buf resp = {};
	struct ibv_create_srq cmd = {};
	struct sroce_srq *srq;
	int ret;

	/* A kernel that does not say it has SRQs must not be asked. */
	if (!(to_sctx(pd->context)->caps & SROCE_CAP_SRQ)) {
		errno = EOPNOTSUPP;
		return NULL;
	}
	srq = sroce_srq_alloc(pd);
	if (!srq)
		return NULL;
	ret = ibv_cmd_create_srq(sroce_pd_real(pd), &srq->vsrq.srq, attr, &cmd,
				 sizeof(cmd), &resp.ibv, sizeof(resp));
	if (ret)
		goto err_free;
	ret = sroce_srq_attach(srq, pd->context->cmd_fd, &resp.drv.rq,
			       &attr->attr);
	if (ret) {
		ibv_cmd_destroy_srq(&srq->vsrq.srq);
		goto err_free;
	}
	return &srq->vsrq.srq;

err_free:
	sroce_srq_free(srq);
	errno = ret;
	return NULL;
}

/* What ibv_create_srq_ex() may ask of us; tag matching is not done. */
#define SROCE_SRQ_INIT_ATTR_MASK	(IBV_SRQ_INIT_ATTR_TYPE | \
					 IBV_SRQ_INIT_ATTR_PD | \
					 IBV_SRQ_INIT_ATTR_XRCD | \
					 IBV_SRQ_INIT_ATTR_CQ)

static int sroce_srq_check_ex(struct ibv_context *ctx,
			      const struct ibv_srq_init_attr_ex *attr)
{
	enum ibv_srq_type type = attr->comp_mask & IBV_SRQ_INIT_ATTR_TYPE ?
				 attr->srq_type : IBV_SRQT_BASIC;

	if (attr->comp_mask & ~(uint32_t)SROCE_SRQ_INIT_ATTR_MASK ||
	    (type != IBV_SRQT_BASIC && type != IBV_SRQT_XRC))
		return EOPNOTSUPP;
	if (type == IBV_SRQT_XRC && !sroce_ctx_has_xrc(ctx))
		return EOPNOTSUPP;
	if (!(to_sctx(ctx)->caps & SROCE_CAP_SRQ))
		return EOPNOTSUPP;
	if (!(attr->comp_mask & IBV_SRQ_INIT_ATTR_PD) || !attr->pd ||
	    attr->pd->context != ctx)
		return EINVAL;
	return 0;
}

/*
 * ibv_create_srq_ex(): a basic SRQ, or an XRC SRQ in a domain, with the
 * CQ its receives complete on.  libibverbs sends a basic one here only
 * when comp_mask asks for more than the PD.
 */
static struct ibv_srq *sroce_create_srq_ex(struct ibv_context *ctx,
					   struct ibv_srq_init_attr_ex *attr)
{
	struct sroce_create_srq_resp_buf resp = {};
	struct ibv_create_xsrq cmd = {};
	struct ibv_srq_init_attr_ex a;
	struct sroce_srq *srq;
	int ret;

	ret = sroce_srq_check_ex(ctx, attr);
	if (ret)
		goto err;
	srq = sroce_srq_alloc(attr->pd);
	if (!srq)
		return NULL;
	a = *attr;
	a.pd = sroce_pd_real(attr->pd);
	ret = ibv_cmd_create_srq_ex(ctx, &srq->vsrq, &a, &cmd, sizeof(cmd),
				    &resp.ibv, sizeof(resp));
	if (ret)
		goto err_free;
	ret = sroce_srq_attach(srq, ctx->cmd_fd, &resp.drv.rq, &a.attr);
	if (ret) {
		ibv_cmd_destroy_srq(&srq->vsrq.srq);
		goto err_free;
	}
	attr->attr = a.attr;
	return &srq->vsrq.srq;

err_free:
	sroce_srq_free(srq);
err:
	errno = ret;
	return NULL;
}

static int sroce_get_srq_num(struct ibv_srq *ibsrq, uint32_t *srq_num)
{
	struct sroce_srq *srq = to_ssrq(ibsrq);

	if (srq->vsrq.srq_type != IBV_SRQT_XRC)
		return EOPNOTSUPP;
	*srq_num = srq->vsrq.srq_num;
	return 0;
}

static int sroce_destroy_srq(struct ibv_srq *ibsrq)
{
	int ret;

	ret = ibv_cmd_destroy_srq(ibsrq);
	if (ret)
		return ret;
	sroce_srq_free(to_ssrq(ibsrq));
	return 0;
}

/* The kernel checks the limit against the ring and refuses a resize. */
static int sroce_modify_srq(struct ibv_srq *ibsrq, struct ibv_srq_attr *attr,
			    int attr_mask)
{
	struct ibv_modify_srq cmd = {};

	return ibv_cmd_modify_srq(ibsrq, attr, attr_mask, &cmd, sizeof(cmd));
}

static int sroce_query_srq(struct ibv_srq *ibsrq, struct ibv_srq_attr *attr)
{
	struct sroce_srq *srq = to_ssrq(ibsrq);
	struct ibv_query_srq cmd = {};
	int ret;

	ret = ibv_cmd_query_srq(ibsrq, attr, &cmd, sizeof(cmd));
	if (ret)
		return ret;
	/* The limits post_srq_recv enforces. */
	attr->max_wr = sroce_srq_min(attr->max_wr, srq->rq.ring.entries);
	attr->max_sge = srq->rq.max_sge;
	return 0;
}

/*
 * Like ibv_post_recv() on a QP's RQ, and with no doorbell at all: the
 * kernel never sleeps on an SRQ, it takes WQEs when packets need them.
 */
static int sroce_post_srq_recv(struct ibv_srq *ibsrq, struct ibv_recv_wr *wr,
			       struct ibv_recv_wr **bad_wr)
{
	struct sroce_wq *rq = &to_ssrq(ibsrq)->rq;
	uint32_t room = 0, start;
	int ret = 0;

	pthread_spin_lock(&rq->lock);
	start = rq->ring.head;
	for (; wr; wr = wr->next) {
		ret = sroce_rq_post_one(rq, wr, &room);
		if (ret) {
			*bad_wr = wr;
			break;
		}
	}
	if (rq->ring.head != start)
		sroce_ring_publish(&rq->ring);
	pthread_spin_unlock(&rq->lock);
	return ret;
}

const struct verbs_context_ops sroce_srq_ops = {
	.create_srq = sroce_create_srq,
	.create_srq_ex = sroce_create_srq_ex,
	.destroy_srq = sroce_destroy_srq,
	.get_srq_num = sroce_get_srq_num,
	.modify_srq = sroce_modify_srq,
	.post_srq_recv = sroce_post_srq_recv,
	.query_srq = sroce_query_srq,
};
