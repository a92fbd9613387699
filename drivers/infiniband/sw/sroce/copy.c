// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * Moving bytes between packets (or small buffers) and memory regions.
 *
 * Every access names its MR by key and passes sroce_mr_check() for the
 * QP's PD, the access it needs and its exact byte range before a byte
 * moves.  The MR reference is held only for the copy itself, so a
 * deregistration waits at most for one packet's worth of copying.  User
 * MRs are reached page by page through kmap_local_page(); a DMA MR's iova
 * is a kernel virtual address (ib_core's virt DMA for software devices).
 */
#include <linux/highmem.h>

#include "sroce.h"
#include "rc.h"

static int sroce_data_move(struct sroce_data *d, void *mem, u32 n,
			   bool to_mem)
{
	int err = 0;

	if (d->skb && to_mem)
		err = skb_copy_bits(d->skb, d->off, mem, n);
	else if (d->skb)
		err = skb_store_bits(d->skb, d->off, mem, n);
	else if (to_mem)
		memcpy(mem, d->buf + d->off, n);
	else
		memcpy(d->buf + d->off, mem, n);
	d->off += n;
	return err;
}

/* A fast MR: its page list holds kernel addresses (frmr.c). */
static int sroce_mr_move_fast(struct sroce_mr *mr, u64 iova, u32 len,
			      struct sroce_data *d, bool to_mem)
{
	while (len) {
		u32 room, n;
		void *kaddr = sroce_frmr_kaddr(mr, iova, &room);
		int err;

		if (unlikely(!kaddr))
			return -EFAULT;
		n = min(len, room);
		err = sroce_data_move(d, kaddr, n, to_mem);
		if (err)
			return err;
		iova += n;
		len -= n;
	}
	return 0;
}

/* Copy @len bytes at @iova of @mr, a range sroce_mr_check() accepted. */
static int sroce_mr_move(struct sroce_mr *mr, u64 iova, u32 len,
			 struct sroce_data *d, bool to_mem)
{
	u64 off;

	if (mr->type == SROCE_MR_DMA)
		return sroce_data_move(d, (void *)(uintptr_t)iova, len, to_mem);
	if (mr->type == SROCE_MR_FAST)
		return sroce_mr_move_fast(mr, iova, len, d, to_mem);

	off = iova - mr->iova + mr->page_offset;
	while (len) {
		unsigned long idx = off >> PAGE_SHIFT;
		unsigned int pgoff = offset_in_page(off);
		u32 n = min_t(u32, len, PAGE_SIZE - pgoff);
		struct page *page;
		void *kaddr;
		int err;

		/* Cannot happen after sroce_mr_check(); never trust that. */
		if (unlikely(idx >= mr->npages))
			return -EFAULT;
		page = mr->pages[idx];
		kaddr = kmap_local_page(page);
		err = sroce_data_move(d, kaddr + pgoff, n, to_mem);
		kunmap_local(kaddr);
		if (to_mem)
			flush_dcache_page(page);
		if (err)
			return err;
		off += n;
		len -= n;
	}
	return 0;
}

/* Look @key up and check @len bytes at @iova for @access; ref held. */
static struct sroce_mr *sroce_copy_get_mr(struct sroce_qp *qp, u32 key,
					  u64 iova, u64 len, int access)
{
	struct sroce_mr *mr = sroce_mr_lookup(qp->sdev, key);

	if (!mr)
		return NULL;
	if (sroce_mr_check(mr, qp->pd, iova, len, access)) {
		sroce_mr_put(mr);
		return NULL;
	}
	return mr;
}

/*
 * An rkey names an MR or a memory window; a window is checked (state,
 * key, QP or PD, rights, range) and resolved to its MR in mw.c.  An lkey
 * never names a window: sroce_copy_get_mr() finds no MR for it.  An rkey
 * that names no valid MR (never was, invalidated, deregistered) or not
 * this range or right is counted: the peer gets a remote access error.
 */
static struct sroce_mr *sroce_copy_get_rmr(struct sroce_qp *qp, u32 rkey,
					   u64 va, u64 len, int access)
{
	struct sroce_mr *mr;

	if (sroce_key_is_mw(rkey))
		return sroce_mw_get_mr(qp, rkey, va, len, access);
	mr = sroce_copy_get_mr(qp, rkey, va, len, access);
	if (!mr)
		sroce_cnt_inc(sroce_qp_cnt(qp), SROCE_CNT_MR_ACCESS_REFUSED);
	return mr;
}

/*
 * Copy @len bytes between @d and the SGE list, starting @off bytes into
 * the list.  Local reads need no access right, local writes need
 * LOCAL_WRITE.  -EACCES for a bad lkey or range, -EMSGSIZE when the list
 * is too short.
 */
int sroce_copy_sgl(struct sroce_qp *qp, const struct sroce_sge *sge,
		   u32 num_sge, u64 off, u32 len, struct sroce_data *d,
		   bool to_mem)
{
	int access = to_mem ? IB_ACCESS_LOCAL_WRITE : 0;
	u32 i;

	for (i = 0; i < num_sge && len; i++) {
		struct sroce_mr *mr;
		u64 addr;
		u32 n;
		int err;

		if (off >= sge[i].length) {
			off -= sge[i].length;
			continue;
		}
		n = min_t(u64, len, sge[i].length - off);
		addr = sge[i].addr + off;
		mr = sroce_copy_get_mr(qp, sge[i].lkey, addr, n, access);
		if (!mr)
			return -EACCES;
		err = sroce_mr_move(mr, addr, n, d, to_mem);
		sroce_mr_put(mr);
		if (err)
			return err;
		len -= n;
		off = 0;
	}
	return len ? -EMSGSIZE : 0;
}

/*
 * Check every SGE of a WQE before anything is sent, so a bad lkey fails
 * the WQE up front instead of half way through a message; and add the
 * lengths up (in 64 bits: 32 SGEs of 4 GiB do not overflow).
 */
int sroce_copy_sgl_check(struct sroce_qp *qp, const struct sroce_sge *sge,
			 u32 num_sge, int access, u64 *total)
{
	u64 sum = 0;
	u32 i;

	for (i = 0; i < num_sge; i++) {
		struct sroce_mr *mr;

		sum += sge[i].length;
		if (!sge[i].length)
			continue;
		mr = sroce_copy_get_mr(qp, sge[i].lkey, sge[i].addr,
				       sge[i].length, access);
		if (!mr)
			return -EACCES;
		sroce_mr_put(mr);
	}
	*total = sum;
	return 0;
}

/* Remote access through an rkey: RDMA WRITE and READ at the responder. */
int sroce_copy_remote(struct sroce_qp *qp, u32 rkey, u64 va, u32 len,
		      struct sroce_data *d, bool to_mem)
{
	int access = to_mem ? IB_ACCESS_REMOTE_WRITE : IB_ACCESS_REMOTE_READ;
	struct sroce_mr *mr;
	int err;

	if (!len)
		return 0;
	mr = sroce_copy_get_rmr(qp, rkey, va, len, access);
	if (!mr)
		return -EACCES;
	err = sroce_mr_move(mr, va, len, d, to_mem);
	sroce_mr_put(mr);
	return err;
}

int sroce_copy_check_remote(struct sroce_qp *qp, u32 rkey, u64 va, u32 len,
			    int access)
{
	struct sroce_mr *mr = sroce_copy_get_rmr(qp, rkey, va, len, access);

	if (!mr)
		return -EACCES;
	sroce_mr_put(mr);
	return 0;
}

/*
 * Atomics are atomic with respect to each other, across all QPs and
 * devices (two devices may register the same memory), which is what the
 * spec asks of IB_ATOMIC_HCA.  One lock is enough for a software device;
 * a hashed lock array can come when it shows up in profiles.
 */
static DEFINE_SPINLOCK(sroce_atomic_lock);

static u64 sroce_atomic_apply(u64 *p, bool cmp_swap, u64 compare_add,
			      u64 swap)
{
	u64 old;

	spin_lock(&sroce_atomic_lock);
	old = READ_ONCE(*p);
	if (!cmp_swap)
		WRITE_ONCE(*p, old + compare_add);
	else if (old == compare_add)
		WRITE_ONCE(*p, swap);
	spin_unlock(&sroce_atomic_lock);
	return old;
}

/* Kernel memory (DMA and fast MRs): the address is at hand. */
static int sroce_copy_atomic_kaddr(struct sroce_mr *mr, u64 va, bool cmp_swap,
				   u64 compare_add, u64 swap, u64 *orig)
{
	void *kaddr = (void *)(uintptr_t)va;
	u32 room = 8;

	if (mr->type == SROCE_MR_FAST)
		kaddr = sroce_frmr_kaddr(mr, va, &room);
	if (!kaddr || room < 8 || ((uintptr_t)kaddr & 7)) {
		sroce_mr_put(mr);
		return -EINVAL;
	}
	*orig = sroce_atomic_apply(kaddr, cmp_swap, compare_add, swap);
	sroce_mr_put(mr);
	return 0;
}

/*
 * CMP_SWAP or FETCH_ADD on the 8 bytes at @va.  The target must be
 * naturally aligned in the kernel mapping too (an MR whose iova and
 * address differ in their low bits can break that): -EINVAL then, as
 * for a misaligned va.  -EACCES for a bad rkey or range.
 */
int sroce_copy_atomic(struct sroce_qp *qp, u32 rkey, u64 va, bool cmp_swap,
		      u64 compare_add, u64 swap, u64 *orig)
{
	struct sroce_mr *mr;
	struct page *page;
	void *kaddr;
	u64 off;

	if (va & 7)
		return -EINVAL;
	mr = sroce_copy_get_rmr(qp, rkey, va, 8, IB_ACCESS_REMOTE_ATOMIC);
	if (!mr)
		return -EACCES;
	if (mr->type == SROCE_MR_DMA || mr->type == SROCE_MR_FAST)
		return sroce_copy_atomic_kaddr(mr, va, cmp_swap, compare_add,
					       swap, orig);
	off = va - mr->iova + mr->page_offset;
	if ((off & 7) || (off >> PAGE_SHIFT) >= mr->npages) {
		sroce_mr_put(mr);
		return -EINVAL;
	}
	page = mr->pages[off >> PAGE_SHIFT];
	kaddr = kmap_local_page(page);
	*orig = sroce_atomic_apply(kaddr + offset_in_page(off), cmp_swap,
				   compare_add, swap);
	kunmap_local(kaddr);
	flush_dcache_page(page);
	sroce_mr_put(mr);
	return 0;
}
