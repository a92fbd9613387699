/* SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause */
/*
 * Shared receive queues (srq.c).
 *
 * An SRQ is a receive ring like a QP's RQ, same WQE format, produced by
 * libsroce (or a kernel consumer's ib_post_srq_recv()) and consumed by
 * the engines of every QP attached to it, which run concurrently: the
 * consumer side has its own lock.
 *
 * A QP on an SRQ has a private RQ of one slot, in kernel memory and never
 * mapped.  When its responder needs a receive WQE and that slot is empty,
 * sroce_srq_lend() moves the next WQE of the SRQ there; from then on the
 * WQE belongs to the QP and the RQ code (validation, completion, flush in
 * ERROR) treats it as any other.  WQEs still on the SRQ are never flushed
 * by a QP's error, as the spec wants.
 */
#ifndef _SROCE_SRQ_H
#define _SROCE_SRQ_H

#include <linux/spinlock.h>
#include <rdma/ib_verbs.h>

#include "queue.h"
#include "table.h"

struct sroce_qp;

struct sroce_srq {
	struct ib_srq ibsrq;
	/* XRC: in sdev->srq_table, index == the SRQ number (xrc.c). */
	struct sroce_obj obj;
	struct sroce_queue rq;
	/* Consumers: the engines of the QPs on the SRQ (BHs off), modify. */
	spinlock_t lock;
	/* Kernel consumers posting (the producer side). */
	spinlock_t post_lock;
	u32 max_sge;
	u32 limit;		/* armed: LIMIT_REACHED below this many WQEs */
	bool broken;		/* a corrupt producer index: SRQ_ERR reported */
	bool user;
};

static inline struct sroce_srq *to_ssrq(struct ib_srq *ibsrq)
{
	return container_of(ibsrq, struct sroce_srq, ibsrq);
}

int sroce_srq_create(struct ib_srq *ibsrq, struct ib_srq_init_attr *init,
		     struct ib_udata *udata);
int sroce_srq_modify(struct ib_srq *ibsrq, struct ib_srq_attr *attr,
		     enum ib_srq_attr_mask mask, struct ib_udata *udata);
int sroce_srq_query(struct ib_srq *ibsrq, struct ib_srq_attr *attr);
int sroce_srq_destroy(struct ib_srq *ibsrq, struct ib_udata *udata);
int sroce_srq_post_recv(struct ib_srq *ibsrq, const struct ib_recv_wr *wr,
			const struct ib_recv_wr **bad_wr);

/* qp.c: the private one-slot RQ of a QP created on @init->srq. */
int sroce_srq_qp_init(struct sroce_qp *qp, struct ib_qp_init_attr *init);

/* The engine (BHs off): a WQE into the QP's private RQ; 1 if one came. */
int sroce_srq_lend(struct sroce_qp *qp);
/* The engine: the QP is in ERROR and flushed; LAST_WQE_REACHED, once. */
void sroce_srq_qp_flushed(struct sroce_qp *qp);

#endif /* _SROCE_SRQ_H */
