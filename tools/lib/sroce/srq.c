// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * Shared receive queues.  sroce.ko owns the SRQ and consumes its ring
 * from the engines of the QPs attached to it; we map the ring and
 * produce receive WQEs into it, in the RQ's format, with no system call:
 * the engines take WQEs as packets arrive.  Create, modify (the limit),
 * query and destroy are plain uverbs commands.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "sroce.h"
#include "verbs-private-ud.h"

struct sroce_srq {
	struct ibv_srq ibv_srq;
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
	return container_of(ibsrq, struct sroce_srq, ibv_srq);
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
	srq = calloc(1, sizeof(*srq));
	if (!srq)
		return NULL;
	ret = pthread_spin_init(&srq->rq.lock, PTHREAD_PROCESS_PRIVATE);
	if (ret)
		goto err_free;
	/* A parent domain: the kernel gets its PD, the SRQ holds it. */
	srq->parent = sroce_pd_get(pd);
	ret = ibv_cmd_create_srq(sroce_pd_real(pd), &srq->ibv_srq, attr, &cmd,
				 sizeof(cmd), &resp.ibv, sizeof(resp));
	if (ret)
		goto err_lock;
	ret = sroce_srq_attach(srq, pd->context->cmd_fd, &resp.drv.rq,
			       &attr->attr);
	if (ret) {
		ibv_cmd_destroy_srq(&srq->ibv_srq);
		goto err_lock;
	}
	return &srq->ibv_srq;

err_lock:
	sroce_pd_put(srq->parent);
	pthread_spin_destroy(&srq->rq.lock);
err_free:
	free(srq);
	errno = ret;
	return NULL;
}

static int sroce_destroy_srq(struct ibv_srq *ibsrq)
{
	struct sroce_srq *srq = to_ssrq(ibsrq);
	int ret;

	ret = ibv_cmd_destroy_srq(ibsrq);
	if (ret)
		return ret;
	sroce_ring_unmap(&srq->rq.ring);
	pthread_spin_destroy(&srq->rq.lock);
	sroce_pd_put(srq->parent);
	free(srq);
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
	.destroy_srq = sroce_destroy_srq,
	.modify_srq = sroce_modify_srq,
	.post_srq_recv = sroce_post_srq_recv,
	.query_srq = sroce_query_srq,
};
