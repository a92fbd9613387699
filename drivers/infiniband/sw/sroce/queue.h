/* SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause */
/*
 * Rings shared with userspace (or private to a kernel consumer): see the
 * protocol in include/uapi/rdma/sroce-abi.h.
 *
 * The kernel keeps its own copy of the index it owns and never trusts the
 * one userspace writes: sroce_queue_avail() rejects a producer index that
 * runs more than one ring ahead, and callers copy an entry out before
 * validating it.
 */
#ifndef _SROCE_QUEUE_H
#define _SROCE_QUEUE_H

#include <linux/types.h>
#include <linux/gfp.h>
#include <asm/barrier.h>
#include <rdma/sroce-abi.h>

struct rdma_user_mmap_entry;
struct ib_ucontext;
struct vm_area_struct;

struct sroce_queue {
	struct sroce_ring_hdr *hdr;	/* vmalloc_user(): mappable */
	u8 *entries;
	size_t size;			/* bytes, page aligned */
	u32 nentries;			/* power of two */
	u32 stride;			/* power of two */
	u32 mask;
	/*
	 * The kernel's index: cons of a ring it consumes (SQ, RQ), prod of a
	 * ring it produces (CQ).  hdr holds a published copy only.
	 */
	u32 index;
	struct rdma_user_mmap_entry *mmap_entry;
};

/* A ring handed to userspace: freed only when the last mapping is gone. */
struct sroce_mmap_entry {
	struct rdma_user_mmap_entry rdma;
	void *addr;
};

int sroce_queue_mmap(struct ib_ucontext *uctx, struct vm_area_struct *vma);
void sroce_queue_mmap_free(struct rdma_user_mmap_entry *entry);

/*
 * What a process can ask for in bulk (rings, and the per-QP copies as
 * big as them) is charged to its memory cgroup, and over the cgroup's
 * limit the verb fails with ENOMEM instead of waking its OOM killer
 * (G5 in Documentation/security.rst).  A kernel ULP's objects are the
 * admin's, whoever's syscall created them, and stay uncharged.
 */
static inline gfp_t sroce_queue_gfp(bool user)
{
	return user ? GFP_KERNEL_ACCOUNT | __GFP_RETRY_MAYFAIL | __GFP_NOWARN :
		      GFP_KERNEL;
}

int sroce_queue_alloc(struct sroce_queue *q, u32 min_entries, u32 stride,
		      gfp_t gfp);
void sroce_queue_free(struct sroce_queue *q);
int sroce_queue_mmap_publish(struct sroce_queue *q, struct ib_ucontext *uctx,
			     struct sroce_ring_info *info);

static inline void *sroce_queue_slot(const struct sroce_queue *q, u32 index)
{
	return q->entries + (size_t)(index & q->mask) * q->stride;
}

/* Consumer side (SQ, RQ). */
int sroce_queue_avail(struct sroce_queue *q);
void sroce_queue_consume(struct sroce_queue *q, u32 n);

/* Producer side (CQ, and SQ/RQ of kernel QPs). */
bool sroce_queue_full(const struct sroce_queue *q, u32 cons);
void sroce_queue_produce(struct sroce_queue *q);
/* The index the other side owns, as last published by it. */
u32 sroce_queue_peer_index(const struct sroce_queue *q, bool producer);

/*
 * Kernel consumers posting to a kernel QP's SQ or RQ: the kernel is then
 * both producer and consumer of the ring.  The engine owns q->index (its
 * consumer index); the poster owns hdr->prod, in kernel memory and
 * serialised by the QP's sq_lock or rq_lock.
 */
static inline bool sroce_queue_kfull(const struct sroce_queue *q)
{
	/* Pairs with the engine's release of cons: freed slots are free. */
	return q->hdr->prod - smp_load_acquire(&q->hdr->cons) >= q->nentries;
}

static inline void *sroce_queue_kslot(const struct sroce_queue *q)
{
	return sroce_queue_slot(q, q->hdr->prod);
}

static inline void sroce_queue_kpush(struct sroce_queue *q)
{
	/* The WQE is written before the engine can see it. */
	smp_store_release(&q->hdr->prod, q->hdr->prod + 1);
}

#endif /* _SROCE_QUEUE_H */
