/* SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause */
/*
 * libsroce internals: the objects the provider wraps around libibverbs'
 * ones, and the entry points each source file offers the others.
 *
 *   sroce.c  - registration, device matching, context alloc/free
 *   verbs.c  - device and port queries, PD, parent and thread
 *              domains, MR
 *   cq.c     - completion queues: the CQ ring, poll_cq, extended CQs
 *   qp.c     - queue pairs: create (ring mapping), modify, query,
 *              destroy, post_recv
 *   send.c   - post_send, the ibv_qp_ex work request builders, doorbell
 *   srq.c    - shared receive queues: the SRQ ring, post_srq_recv
 *   ah.c     - address handles: the kernel's AH number for UD WQEs
 *   ring.h   - the shared-ring index protocol
 *   stubs.c  - every other verb, failing with EOPNOTSUPP
 *   mw.c     - memory windows: alloc, dealloc, bind; their send WQEs
 *   xrc.c    - XRC domains (XRC SRQs are in srq.c, XRC QPs in qp.c)
 *   wq.c     - receive work queues and indirection tables (RSS QPs are
 *              in qp.c)
 */
#ifndef SROCE_PROVIDER_H
#define SROCE_PROVIDER_H

#include <pthread.h>
#include <stdbool.h>
#include <stdint.h>

#include "verbs-private.h"
#include "verbs-private-xrc.h"
#include "verbs-private-rss.h"
#include "rdma/sroce-abi.h"
#include "ring.h"

/* Symbols outside the provider's own namespace stay hidden (-fvisibility). */
#define SROCE_EXPORT	__attribute__((visibility("default")))

#ifndef container_of
#define container_of(ptr, type, member) \
	((type *)((char *)(ptr) - offsetof(type, member)))
#endif

#define SROCE_ARRAY_SIZE(a)	(sizeof(a) / sizeof((a)[0]))

/* Values of two different enums are equal (for _Static_assert). */
#define SROCE_SAME(a, b)	((int)(a) == (int)(b))

/* The kernel ABI versions this provider speaks. */
#define SROCE_ABI_MIN	1
#define SROCE_ABI_MAX	SROCE_UVERBS_ABI_VERSION

struct sroce_device {
	struct verbs_device vdev;	/* must be first: libibverbs frees via it */
	unsigned int abi_version;	/* from the sysfs marker */
};

struct sroce_context {
	struct verbs_context vctx;
	unsigned int abi_version;	/* from the alloc_ucontext response */
	uint32_t caps;			/* enum sroce_ucontext_caps */
	uint32_t max_inline;
};

/*
 * A thread domain is the application's promise that the objects of the
 * parent domains built on it are used by one thread at a time.  Our locks
 * are uncontended spinlocks, so we keep them and just count the parent
 * domains that refer to the TD.
 */
struct sroce_td {
	struct ibv_td ibv_td;
	uint32_t users;			/* parent domains on it (atomic) */
};

/*
 * A protection domain, or a parent domain (protection != NULL).  The
 * kernel knows only protection domains: a parent domain is libsroce's own
 * object, carrying its protection domain's handle (libibverbs and the
 * ibv_cmd_*() helpers take the two as interchangeable) and what
 * ibv_alloc_parent_domain() was given.
 *
 * The custom allocators are recorded and never called: they exist for
 * memory the device reads or writes, and libsroce allocates none - the
 * rings are allocated by sroce.ko and mapped, and what we calloc() is
 * bookkeeping that only this library touches.
 */
struct sroce_pd {
	struct ibv_pd ibv_pd;
	uint32_t pdn;
	/*
	 * Atomic.  A protection domain: the parent domains on it.  A parent
	 * domain: the QPs, CQs and MRs created on it.  Either cannot be
	 * freed while this is not zero (the kernel counts the rest).
	 */
	uint32_t users;
	struct sroce_pd *protection;	/* parent domain: its PD */
	struct sroce_td *td;		/* parent domain: its TD, or NULL */
	void *(*alloc)(struct ibv_pd *pd, void *pd_context, size_t size,
		       size_t alignment, uint64_t resource_type);
	void (*free)(struct ibv_pd *pd, void *pd_context, void *ptr,
		     uint64_t resource_type);
	void *pd_context;
};

struct sroce_mr {
	struct verbs_mr vmr;
	/* Parent domain held, or NULL; a rereg_mr to a new PD moves it. */
	struct sroce_pd *parent;
};

struct sroce_cq {
	struct verbs_cq vcq;
	/* Serialises consumers: poll_cq, start/next/end_poll, resize. */
	pthread_spinlock_t lock;
	struct sroce_ring ring;		/* hdr == NULL: unusable (see resize) */
	struct sroce_pd *parent;	/* parent domain held, or NULL */
	/* Extended polling, between start_poll and end_poll (lock held). */
	const struct sroce_cqe *cur;	/* the CQE read_*() report on */
	uint32_t ex_avail;		/* entries known published, cur included */
};

/* One work queue of a QP: the SQ or the RQ. */
struct sroce_wq {
	pthread_spinlock_t lock;	/* serialises producers */
	struct sroce_ring ring;		/* hdr == NULL: none (SRQ, or no RQ) */
	uint32_t max_sge;		/* per WQE: caps and slot size agree */
	uint32_t max_inline;		/* SQ: bytes of inline data per WQE */
};

struct sroce_qp {
	struct verbs_qp vqp;
	struct sroce_wq sq;
	struct sroce_wq rq;
	struct sroce_pd *parent;	/* parent domain held, or NULL */
	uint32_t send_ops;		/* 1 << IBV_WR_* allowed on this QP */
	/* ibv_qp_ex builders, between wr_start and wr_complete (sq.lock). */
	struct sroce_send_wqe *wr_cur;	/* WQE being built, or NULL */
	uint32_t wr_start;		/* sq head at wr_start */
	uint32_t wr_free;		/* slots known free */
	int wr_err;			/* first error, returned by wr_complete */
};

static inline struct sroce_device *to_sdev(struct ibv_device *ibdev)
{
	return container_of(ibdev, struct sroce_device, vdev.device);
}

static inline struct sroce_context *to_sctx(struct ibv_context *ibctx)
{
	return container_of(ibctx, struct sroce_context, vctx.context);
}

static inline struct sroce_pd *to_spd(struct ibv_pd *ibpd)
{
	return container_of(ibpd, struct sroce_pd, ibv_pd);
}

static inline struct sroce_td *to_std(struct ibv_td *ibtd)
{
	return container_of(ibtd, struct sroce_td, ibv_td);
}

static inline bool sroce_pd_is_parent(const struct sroce_pd *pd)
{
	return pd->protection;
}

/* The protection domain the kernel knows, for a PD or a parent domain. */
static inline struct ibv_pd *sroce_pd_real(struct ibv_pd *ibpd)
{
	struct sroce_pd *pd = to_spd(ibpd);

	return sroce_pd_is_parent(pd) ? &pd->protection->ibv_pd : ibpd;
}

/*
 * An object is being created on @ibpd.  A parent domain stays allocated
 * while it has objects, so the object holds it; the return value is what
 * sroce_pd_put() later releases (NULL for a protection domain).
 */
static inline struct sroce_pd *sroce_pd_get(struct ibv_pd *ibpd)
{
	struct sroce_pd *pd = to_spd(ibpd);

	if (!sroce_pd_is_parent(pd))
		return NULL;
	__atomic_add_fetch(&pd->users, 1, __ATOMIC_RELAXED);
	return pd;
}

static inline void sroce_pd_put(struct sroce_pd *parent)
{
	if (parent)
		__atomic_sub_fetch(&parent->users, 1, __ATOMIC_RELEASE);
}

static inline struct sroce_cq *to_scq(struct ibv_cq *ibcq)
{
	return container_of(ibcq, struct sroce_cq, vcq.cq);
}

static inline struct sroce_cq *ex_to_scq(struct ibv_cq_ex *ibcq)
{
	return container_of(ibcq, struct sroce_cq, vcq.cq_ex);
}

static inline struct sroce_qp *to_sqp(struct ibv_qp *ibqp)
{
	return container_of(ibqp, struct sroce_qp, vqp.qp);
}

static inline struct sroce_qp *ex_to_sqp(struct ibv_qp_ex *ibqp)
{
	return container_of(ibqp, struct sroce_qp, vqp.qp_ex);
}

static inline struct sroce_mr *to_smr(struct verbs_mr *vmr)
{
	return container_of(vmr, struct sroce_mr, vmr);
}

/* ibv_sge and sroce_sge agree field for field; the ring gets ours. */
static inline void sroce_sge_set(struct sroce_sge *dst,
				 const struct ibv_sge *src)
{
	dst->addr = src->addr;
	dst->length = src->length;
	dst->lkey = src->lkey;
}

/* sroce.c */
bool sroce_debug_enabled(void);
void sroce_log(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
#define sroce_dbg(...)					\
	do {						\
		if (sroce_debug_enabled())		\
			sroce_log(__VA_ARGS__);		\
	} while (0)

/* verbs.c: the implemented verbs, set over the stubs */
extern const struct verbs_context_ops sroce_verbs_ops;

/* ring.c */
int sroce_ring_map(int cmd_fd, const struct sroce_ring_info *info,
		   uint32_t min_stride, void **base);
void sroce_ring_unmap(struct sroce_ring *r);

/*
 * cq.c.  sroce_cq_attach() and sroce_cq_ex_init() are what create_cq does
 * after the command and the mmap; the host ring tests call them on rings
 * in ordinary memory.
 */
extern const struct verbs_context_ops sroce_cq_ops;
void sroce_cq_attach(struct sroce_cq *cq, void *base,
		     const struct sroce_ring_info *info);
void sroce_cq_ex_init(struct sroce_cq *cq);
int sroce_cq_poll(struct ibv_cq *ibcq, int ne, struct ibv_wc *wc);
void sroce_cq_clean(struct sroce_cq *cq, uint32_t qpn);

/*
 * qp.c.  sroce_qp_caps() sets the QP's limits from its attached rings and
 * the kernel's caps, as create_qp does after mapping them.
 */
extern const struct verbs_context_ops sroce_qp_ops;
void sroce_qp_caps(struct sroce_qp *qp, uint32_t max_inline,
		   struct ibv_qp_cap *cap);
int sroce_post_recv(struct ibv_qp *ibqp, struct ibv_recv_wr *wr,
		    struct ibv_recv_wr **bad_wr);
/* One receive WQE into an RQ or SRQ ring (lock held; *room as ring.h). */
int sroce_rq_post_one(struct sroce_wq *rq, const struct ibv_recv_wr *wr,
		      uint32_t *room);

/* srq.c: shared receive queues, basic and XRC */
extern const struct verbs_context_ops sroce_srq_ops;

/* xrc.c: XRC domains */
extern const struct verbs_context_ops sroce_xrc_ops;

/* An XRC SRQ number travels in 24 bits (the XRCETH). */
#define SROCE_XRC_SRQN_MAX	0xffffffu

static inline bool sroce_ctx_has_xrc(struct ibv_context *ctx)
{
	return to_sctx(ctx)->caps & SROCE_CAP_XRC;
}

/* wq.c: receive work queues and indirection tables */
extern const struct verbs_context_ops sroce_wq_ops;

static inline bool sroce_ctx_has_rss(struct ibv_context *ctx)
{
	return to_sctx(ctx)->caps & SROCE_CAP_RSS;
}

/* ah.c: address handles */
struct sroce_ah {
	struct ibv_ah ibv_ah;
	uint32_t ahn;			/* the kernel's number for it */
	struct sroce_pd *parent;	/* parent domain held, or NULL */
};

static inline struct sroce_ah *to_sah(struct ibv_ah *ibah)
{
	return container_of(ibah, struct sroce_ah, ibv_ah);
}

/* A UD WQE's destination: the AH by number, the QPN and the Q_Key. */
static inline void sroce_wqe_ud(struct sroce_send_wqe *wqe, struct ibv_ah *ah,
				uint32_t remote_qpn, uint32_t remote_qkey)
{
	wqe->wr.ud.ahn = to_sah(ah)->ahn;
	wqe->wr.ud.remote_qpn = remote_qpn;
	wqe->wr.ud.remote_qkey = remote_qkey;
}

extern const struct verbs_context_ops sroce_ah_ops;

/* send.c */
uint32_t sroce_send_ops_of(enum ibv_qp_type type, uint32_t caps);
uint64_t sroce_send_ops_flags_of(enum ibv_qp_type type, uint32_t caps);
void sroce_qp_ex_init(struct sroce_qp *qp);
int sroce_post_send(struct ibv_qp *ibqp, struct ibv_send_wr *wr,
		    struct ibv_send_wr **bad_wr);
/* Builders: open the next WQE (NULL after an error); record an error. */
struct sroce_send_wqe *sroce_wr_new(struct ibv_qp_ex *x, uint32_t op);
void sroce_wr_fail(struct sroce_qp *qp, int err);

/* verbs.c: our part of an MR (holding @ibpd if a parent domain), its end */
struct sroce_mr *sroce_mr_new(struct ibv_pd *ibpd);
void sroce_mr_free(struct sroce_mr *mr);

/* dm.c: device memory */
extern const struct verbs_context_ops sroce_dm_ops;

/* mw.c: memory windows */
extern const struct verbs_context_ops sroce_mw_ops;
int sroce_mw_bind_check(const struct ibv_mw *mw,
			const struct ibv_mw_bind_info *info);
void sroce_wqe_bind(struct sroce_send_wqe *wqe, const struct ibv_mw *mw,
		    uint32_t rkey, const struct ibv_mw_bind_info *info);
void sroce_mw_wr_bind(struct ibv_qp_ex *x, struct ibv_mw *mw, uint32_t rkey,
		      const struct ibv_mw_bind_info *info);
void sroce_mw_wr_local_inv(struct ibv_qp_ex *x, uint32_t invalidate_rkey);
void sroce_mw_wr_send_inv(struct ibv_qp_ex *x, uint32_t invalidate_rkey);

/* stubs.c: a complete table, every slot failing with EOPNOTSUPP */
extern const struct verbs_context_ops sroce_stub_ops;
int sroce_stub_ops_check(void);

#endif /* SROCE_PROVIDER_H */
