/* SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause */
/*
 * Receive work queues (wq.c), the indirection tables that list them and
 * the RSS QPs that spread frames over them (rss.c).
 *
 * A WQ is a receive ring like a QP's RQ, same WQE format, mapped by
 * libsroce, which produces into it, and completing on the WQ's own CQ.
 * Its consumers are the engines of the RSS QPs whose tables name it,
 * which may run at once on several CPUs: they take, fill and complete a
 * WQE under the WQ's lock, so a WQ's completions come in ring order
 * whoever filled them.  modify_wq takes the lock too, so a frame is
 * either placed before a state change or sees the new state.
 *
 * Lifetimes are ib_core's: a WQ cannot be destroyed while a table holds
 * it, nor a table while an RSS QP uses it (their usecnts), and
 * destroy_qp returns only once the QP's engine is stopped.  So an RSS QP's
 * engine reaches its table's WQs without references of its own.
 */
#ifndef _SROCE_WQ_H
#define _SROCE_WQ_H

#include <linux/spinlock.h>
#include <linux/workqueue.h>
#include <rdma/ib_verbs.h>

#include "queue.h"

struct sroce_cq;
struct sroce_dev;
struct sroce_pd;
struct sroce_qp;
struct sk_buff;

#define SROCE_MAX_WQ		0x10000
/* WQ numbers follow the QPNs: a CQE's qp_num tells one from the other. */
#define SROCE_WQN_MIN		(16 + SROCE_MAX_QP)
#define SROCE_MAX_RWQ_IND_TBL	0x1000
/* 256 entries: more than any host has CPUs to spread over. */
#define SROCE_RWQ_IND_TBL_LOG_MAX	8

struct sroce_wq {
	struct ib_wq ibwq;
	struct sroce_dev *sdev;
	struct sroce_cq *cq;
	struct sroce_pd *pd;
	struct sroce_queue rq;
	/* Consumers (RSS QPs' engines, BHs off), modify_wq, the flush. */
	spinlock_t lock;
	enum ib_wq_state state;
	u32 max_sge;
	/* The WQE being filled, copied out of the ring: one stride. */
	struct sroce_recv_wqe *rwqe;
	/* A receive found an error: the flush runs in process context. */
	struct work_struct flush_work;
	bool broken;		/* corrupt producer index: WQ_FATAL reported */
};

static inline struct sroce_wq *to_swq(struct ib_wq *ibwq)
{
	return container_of(ibwq, struct sroce_wq, ibwq);
}

struct sroce_rwq_ind_table {
	struct ib_rwq_ind_table ibtbl;
};

/* wq.c */
void sroce_wq_init_dev(struct sroce_dev *sdev);
void sroce_wq_destroy_dev(struct sroce_dev *sdev);
struct ib_wq *sroce_wq_create(struct ib_pd *ibpd,
			      struct ib_wq_init_attr *init,
			      struct ib_udata *udata);
int sroce_wq_modify(struct ib_wq *ibwq, struct ib_wq_attr *attr, u32 mask,
		    struct ib_udata *udata);
int sroce_wq_destroy(struct ib_wq *ibwq, struct ib_udata *udata);
/* A frame for @wq from RSS QP @qp's engine (BHs off); consumes @skb. */
void sroce_wq_recv(struct sroce_wq *wq, struct sroce_qp *qp,
		   struct sk_buff *skb);

/* rss.c */
int sroce_rss_table_create(struct ib_rwq_ind_table *ibtbl,
			   struct ib_rwq_ind_table_init_attr *init,
			   struct ib_udata *udata);
int sroce_rss_table_destroy(struct ib_rwq_ind_table *ibtbl);

#endif /* _SROCE_WQ_H */
