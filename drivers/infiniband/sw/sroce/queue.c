// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * Shared rings (see queue.h).
 */
#include <linux/vmalloc.h>
#include <linux/log2.h>
#include <linux/mm.h>
#include <linux/slab.h>
#include <rdma/ib_verbs.h>

#include "queue.h"

int sroce_queue_alloc(struct sroce_queue *q, u32 min_entries, u32 stride,
		      gfp_t gfp)
{
	u32 n = roundup_pow_of_two(max_t(u32, min_entries, 1));
	size_t bytes;

	if (!is_power_of_2(stride) || n > (1U << 24))
		return -EINVAL;
	bytes = SROCE_RING_ENTRIES_OFFSET + (size_t)n * stride;
	bytes = PAGE_ALIGN(bytes);
	/*
	 * Zeroed: no stale kernel memory ever reaches userspace.  Not
	 * vmalloc_user(), which cannot charge a cgroup (sroce_queue_gfp());
	 * whole zeroed pages are what its VM_USERMAP vouches for, and
	 * sroce_queue_mmap() maps nothing else.
	 */
	q->hdr = __vmalloc(bytes, gfp | __GFP_ZERO);
	if (!q->hdr)
		return -ENOMEM;
	q->entries = (u8 *)q->hdr + SROCE_RING_ENTRIES_OFFSET;
	q->size = bytes;
	q->nentries = n;
	q->stride = stride;
	q->mask = n - 1;
	q->index = 0;
	q->mmap_entry = NULL;
	return 0;
}

void sroce_queue_free(struct sroce_queue *q)
{
	/*
	 * A mapped ring is freed by the mmap entry's release (mmap_free),
	 * once userspace has unmapped it too.
	 */
	if (q->mmap_entry) {
		/* Nothing runs on it any more; tell a process still there. */
		WRITE_ONCE(q->hdr->flags,
			   READ_ONCE(q->hdr->flags) | SROCE_RING_F_DEAD);
		rdma_user_mmap_entry_remove(q->mmap_entry);
	} else {
		vfree(q->hdr);
	}
	q->hdr = NULL;
	q->mmap_entry = NULL;
}

/*
 * Entries the producer has published and we have not consumed yet, or
 * -EIO when the published index is impossible (a buggy or hostile
 * producer): more than a whole ring ahead of us.
 */
int sroce_queue_avail(struct sroce_queue *q)
{
	/* Pairs with the producer's release: entries before prod are written. */
	u32 prod = smp_load_acquire(&q->hdr->prod);
	u32 n = prod - q->index;

	if (n > q->nentries)
		return -EIO;
	return n;
}

void sroce_queue_consume(struct sroce_queue *q, u32 n)
{
	q->index += n;
	/* Our reads of the slots happen before the producer may reuse them. */
	smp_store_release(&q->hdr->cons, q->index);
}

bool sroce_queue_full(const struct sroce_queue *q, u32 cons)
{
	return q->index - cons >= q->nentries;
}

void sroce_queue_produce(struct sroce_queue *q)
{
	q->index++;
	/* The entry is written before the consumer can see it. */
	smp_store_release(&q->hdr->prod, q->index);
}

u32 sroce_queue_peer_index(const struct sroce_queue *q, bool producer)
{
	const u32 *peer = producer ? &q->hdr->cons : &q->hdr->prod;

	/* Acquire: pairs with the peer's release of the index it owns. */
	return smp_load_acquire(peer);
}

/*
 * Hand @q to userspace: after this the memory belongs to the mmap entry,
 * which frees it once the ring is both removed and unmapped.
 */
int sroce_queue_mmap_publish(struct sroce_queue *q, struct ib_ucontext *uctx,
			     struct sroce_ring_info *info)
{
	struct sroce_mmap_entry *e;
	int err;

	e = kzalloc(sizeof(*e), GFP_KERNEL);
	if (!e)
		return -ENOMEM;
	e->addr = q->hdr;
	err = rdma_user_mmap_entry_insert(uctx, &e->rdma, q->size);
	if (err) {
		kfree(e);
		return err;
	}
	q->mmap_entry = &e->rdma;
	info->mmap_offset = rdma_user_mmap_get_offset(&e->rdma);
	info->mmap_size = q->size;
	info->entries = q->nentries;
	info->stride = q->stride;
	return 0;
}

/*
 * What remap_vmalloc_range() does, without its VM_USERMAP check: the
 * ring's pages, whole and zeroed from sroce_queue_alloc(), one by one.
 */
static int sroce_queue_map_pages(struct vm_area_struct *vma, u8 *addr)
{
	unsigned long uaddr;
	int err;

	for (uaddr = vma->vm_start; uaddr < vma->vm_end; uaddr += PAGE_SIZE) {
		err = vm_insert_page(vma, uaddr, vmalloc_to_page(addr));
		if (err)
			return err;
		addr += PAGE_SIZE;
	}
	vma->vm_flags |= VM_DONTEXPAND | VM_DONTDUMP;
	return 0;
}

int sroce_queue_mmap(struct ib_ucontext *uctx, struct vm_area_struct *vma)
{
	struct rdma_user_mmap_entry *rdma;
	struct sroce_mmap_entry *e;
	int err;

	rdma = rdma_user_mmap_entry_get(uctx, vma);
	if (!rdma)
		return -EINVAL;
	e = container_of(rdma, struct sroce_mmap_entry, rdma);
	if (vma->vm_end - vma->vm_start != rdma->npages << PAGE_SHIFT)
		err = -EINVAL;
	else
		err = sroce_queue_map_pages(vma, e->addr);
	rdma_user_mmap_entry_put(rdma);
	return err;
}

void sroce_queue_mmap_free(struct rdma_user_mmap_entry *rdma)
{
	struct sroce_mmap_entry *e =
		container_of(rdma, struct sroce_mmap_entry, rdma);

	vfree(e->addr);
	kfree(e);
}
