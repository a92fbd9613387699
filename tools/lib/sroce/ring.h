/* SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause */
/*
 * ring.h - libsroce's side of the rings it shares with sroce.ko (the
 * protocol is in include/uapi/rdma/sroce-abi.h).
 *
 * Only the index this side owns is kept locally (head): prod for the SQ
 * and RQ, which we produce, cons for the CQ, which we consume.  The other
 * side's index is always read from the shared header with an acquire
 * load, and ours is published there with a release store, so an entry's
 * bytes are visible before its index, and a slot is reused only after the
 * other side is done with it.  The caller serialises each ring (a spinlock
 * per SQ, RQ and CQ).
 *
 * Pure C, no libibverbs: selftests/verbs/prov_rings.c runs these helpers
 * on rings in ordinary memory.
 */
#ifndef SROCE_RING_H
#define SROCE_RING_H

#include <errno.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "rdma/sroce-abi.h"

struct sroce_ring {
	struct sroce_ring_hdr *hdr;	/* the mapping starts here; NULL: none */
	uint8_t *slots;			/* hdr + SROCE_RING_ENTRIES_OFFSET */
	size_t map_size;
	uint32_t entries;		/* power of two */
	uint32_t stride;		/* power of two */
	uint32_t head;			/* our index: prod or cons */
};

/*
 * Free-running 32-bit indices tell "full" (head - peer == entries) from
 * "empty" (head == peer) only while entries <= 2^31.
 */
#define SROCE_RING_MAX_ENTRIES	(1U << 31)

static inline bool sroce_ring_pow2(uint32_t x)
{
	return x && !(x & (x - 1));
}

/*
 * Is @info a ring we can use with entries of at least @min_stride bytes?
 * The kernel is trusted, but a mismatch between its sroce-abi.h and ours
 * must fail the create verb, not corrupt memory later.
 */
static inline int sroce_ring_info_check(const struct sroce_ring_info *info,
					uint32_t min_stride)
{
	uint64_t need;

	if (!sroce_ring_pow2(info->entries) ||
	    info->entries > SROCE_RING_MAX_ENTRIES ||
	    !sroce_ring_pow2(info->stride) || info->stride < min_stride)
		return EPROTO;
	need = SROCE_RING_ENTRIES_OFFSET + (uint64_t)info->entries * info->stride;
	if (info->mmap_size < need || info->mmap_size > SIZE_MAX)
		return EPROTO;
	return 0;
}

/*
 * Start using the ring mapped at @base.  We continue from whatever index
 * the kernel left in our slot of the header: 0 for a new ring, the first
 * unread CQE's index for a resized CQ.
 */
static inline void sroce_ring_attach(struct sroce_ring *r, void *base,
				     const struct sroce_ring_info *info,
				     bool producer)
{
	r->hdr = base;
	r->slots = (uint8_t *)base + SROCE_RING_ENTRIES_OFFSET;
	r->map_size = info->mmap_size;
	r->entries = info->entries;
	r->stride = info->stride;
	r->head = __atomic_load_n(producer ? &r->hdr->prod : &r->hdr->cons,
				  __ATOMIC_ACQUIRE);
}

static inline void *sroce_ring_slot(const struct sroce_ring *r, uint32_t idx)
{
	return r->slots + (size_t)(idx & (r->entries - 1)) * r->stride;
}

/* ---- producer (SQ, RQ) ---- */

/*
 * Slots we may fill now.  The acquire pairs with the kernel's release of
 * cons after it copied the WQEs out: their slots are ours again.  A cons
 * that claims the kernel read more than we wrote, or that we are more than
 * a ring ahead, is garbage: report no room rather than overwrite.
 */
static inline uint32_t sroce_ring_free(const struct sroce_ring *r)
{
	uint32_t cons = __atomic_load_n(&r->hdr->cons, __ATOMIC_ACQUIRE);
	uint32_t used = r->head - cons;

	return used > r->entries ? 0 : r->entries - used;
}

/*
 * Room for one more entry?  *room caches what sroce_ring_free() said, so
 * a batch reads the kernel's cons again only once the cached room is
 * used up (the caller decrements it per entry).
 */
static inline bool sroce_ring_has_room(const struct sroce_ring *r,
				       uint32_t *room)
{
	if (!*room)
		*room = sroce_ring_free(r);
	return *room;
}

/* Hand every entry before head to the consumer. */
static inline void sroce_ring_publish(struct sroce_ring *r)
{
	__atomic_store_n(&r->hdr->prod, r->head, __ATOMIC_RELEASE);
}

/*
 * After a publish: does the SQ's consumer need a doorbell?  The kernel
 * sets SROCE_RING_F_KICK, then re-reads prod, before its engine sleeps; we
 * store prod, then read flags.  With a full barrier between each side's
 * store and load, at least one of the two sees the other's store, so no
 * WQE is left behind with the engine asleep (a doorbell too many is
 * harmless).
 */
static inline bool sroce_ring_kick_needed(const struct sroce_ring *r)
{
	__atomic_thread_fence(__ATOMIC_SEQ_CST);
	return __atomic_load_n(&r->hdr->flags, __ATOMIC_RELAXED) &
	       SROCE_RING_F_KICK;
}

/*
 * The kernel destroyed the ring's object under us: the device was removed
 * (SROCE_RING_F_DEAD, sroce-abi.h).
 */
static inline bool sroce_ring_dead(const struct sroce_ring *r)
{
	return __atomic_load_n(&r->hdr->flags, __ATOMIC_RELAXED) &
	       SROCE_RING_F_DEAD;
}

/* ---- consumer (CQ) ---- */

/*
 * Entries published and not yet consumed, or -EIO if the producer's index
 * is impossible (more than a ring ahead of us).  The acquire pairs with
 * the kernel's release of prod: the entries' bytes are visible.
 */
static inline int64_t sroce_ring_avail(const struct sroce_ring *r)
{
	uint32_t prod = __atomic_load_n(&r->hdr->prod, __ATOMIC_ACQUIRE);
	uint32_t n = prod - r->head;

	return n > r->entries ? -EIO : (int64_t)n;
}

/* Give every slot before head back to the producer. */
static inline void sroce_ring_release(struct sroce_ring *r)
{
	__atomic_store_n(&r->hdr->cons, r->head, __ATOMIC_RELEASE);
}

#endif /* SROCE_RING_H */
