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
 * An ODP MR's page may be missing: the access then fails with -EAGAIN
 * while odp.c faults it in, and the caller tries again when kicked (or
 * -EFAULT once, if it cannot be faulted in: an access error).
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

/*
 * Zero copy: @n bytes of @page at @pgoff become the next fragment of the
 * packet, with a page reference of their own, so the packet may outlive
 * the MR (a clone in a qdisc, a deregistration right after the ACK).
 * The last slot stays free for the pad and ICRC (sroce_tx_seal()).
 */
static int sroce_data_attach(struct sroce_data *d, struct page *page,
			     unsigned int pgoff, u32 n)
{
	struct sk_buff *skb = d->skb;
	int i = skb_shinfo(skb)->nr_frags;

	if (i && skb_can_coalesce(skb, i, page, pgoff)) {
		skb_frag_size_add(&skb_shinfo(skb)->frags[i - 1], n);
	} else {
		if (i >= MAX_SKB_FRAGS - 1)
			return -E2BIG;
		get_page(page);
		skb_fill_page_desc(skb, i, page, pgoff, n);
	}
	skb->len += n;
	skb->data_len += n;
	skb->truesize += n;
	d->off += n;
	return 0;
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

/* The bytes of one ODP page, moved while it is locked (odp.c). */
struct sroce_odp_move {
	struct sroce_data *d;
	u32 n;
	bool to_mem;
};

static int sroce_odp_move_page(struct page *page, unsigned int pgoff,
			       void *arg)
{
	struct sroce_odp_move *m = arg;
	void *kaddr = kmap_local_page(page);
	int err;

	err = sroce_data_move(m->d, kaddr + pgoff, m->n, m->to_mem);
	kunmap_local(kaddr);
	if (m->to_mem)
		flush_dcache_page(page);
	return err;
}

/*
 * ODP: page by page, each locked against invalidation while its bytes
 * move; -EAGAIN when one is missing, with its fault under way.  The
 * offset in the page is the iova's: ib_core makes the address and the
 * iova agree there.
 */
static int sroce_mr_move_odp(struct sroce_qp *qp, struct sroce_mr *mr,
			     u64 iova, u32 len, struct sroce_data *d,
			     bool to_mem)
{
	struct sroce_odp_move m = { .d = d, .to_mem = to_mem };
	int err;

	while (len) {
		m.n = min_t(u32, len, PAGE_SIZE - offset_in_page(iova));
		err = sroce_odp_with_page(qp, mr, iova, len, to_mem,
					  sroce_odp_move_page, &m);
		if (err)
			return err;
		iova += m.n;
		len -= m.n;
	}
	return 0;
}

/* Copy @len bytes at @iova of @mr, a range sroce_mr_check() accepted. */
static int sroce_mr_move(struct sroce_qp *qp, struct sroce_mr *mr, u64 iova,
			 u32 len, struct sroce_data *d, bool to_mem)
{
	u64 off;

	/*
	 * Kernel memory may be slab or vmalloc: not for page references;
	 * nor are ODP pages, which may leave the mapping while a packet
	 * holds them.  -E2BIG, like too many pieces (sroce_data_attach()):
	 * copy instead.
	 */
	if (d->zc && (to_mem || mr->type != SROCE_MR_USER))
		return -E2BIG;
	if (mr->type == SROCE_MR_DMA)
		return sroce_data_move(d, (void *)(uintptr_t)iova, len, to_mem);
	if (mr->type == SROCE_MR_FAST)
		return sroce_mr_move_fast(mr, iova, len, d, to_mem);
	if (mr->type == SROCE_MR_ODP)
		return sroce_mr_move_odp(qp, mr, iova, len, d, to_mem);

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
		if (d->zc) {
			err = sroce_data_attach(d, page, pgoff, n);
		} else {
			kaddr = kmap_local_page(page);
			err = sroce_data_move(d, kaddr + pgoff, n, to_mem);
			kunmap_local(kaddr);
			if (to_mem)
				flush_dcache_page(page);
		}
		if (err)
			return err;
		off += n;
		len -= n;
	}
	return 0;
}

/* Look @key up and check @len bytes at @iova for @access in @pd. */
static struct sroce_mr *sroce_copy_get_pd_mr(struct sroce_dev *sdev,
					     struct sroce_pd *pd, u32 key,
					     u64 iova, u64 len, int access)
{
	struct sroce_mr *mr = sroce_mr_lookup(sdev, key);

	if (!mr)
		return NULL;
	if (sroce_mr_check(mr, pd, iova, len, access)) {
		sroce_mr_put(mr);
		return NULL;
	}
	return mr;
}

/* ... in the QP's PD; ref held. */
static struct sroce_mr *sroce_copy_get_mr(struct sroce_qp *qp, u32 key,
					  u64 iova, u64 len, int access)
{
	return sroce_copy_get_pd_mr(qp->sdev, qp->pd, key, iova, len, access);
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
	return sroce_copy_sgl_pd(qp, qp->pd, sge, num_sge, off, len, d,
				 to_mem);
}

/*
 * The same with the MRs checked against @pd: a receive WQ's (wq.c),
 * which RSS QPs of another PD may fill.  @qp still faults ODP pages in.
 */
int sroce_copy_sgl_pd(struct sroce_qp *qp, struct sroce_pd *pd,
		      const struct sroce_sge *sge, u32 num_sge, u64 off,
		      u32 len, struct sroce_data *d, bool to_mem)
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
		mr = sroce_copy_get_pd_mr(qp->sdev, pd, sge[i].lkey, addr, n,
					  access);
		if (!mr)
			return -EACCES;
		err = sroce_mr_move(qp, mr, addr, n, d, to_mem);
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
		/* ODP: the pages start coming in while the WQE waits. */
		if (mr->type == SROCE_MR_ODP)
			sroce_odp_hint(qp, mr, sge[i].addr, sge[i].length,
				       access & IB_ACCESS_LOCAL_WRITE);
		sroce_mr_put(mr);
	}
	*total = sum;
	return 0;
}

/*
 * The local buffer of a READ or atomic, before the request leaves: 0 if
 * its ODP pages are in, -EAGAIN while they are faulted in (so that the
 * responses do not arrive to missing pages and get dropped), -EFAULT if
 * they cannot be.  Only what sroce_copy_sgl_check() accepted is asked.
 */
int sroce_copy_sgl_ready(struct sroce_qp *qp, const struct sroce_sge *sge,
			 u32 num_sge)
{
	int err = 0;
	u32 i;

	for (i = 0; i < num_sge && !err; i++) {
		struct sroce_mr *mr;

		if (!sge[i].length)
			continue;
		mr = sroce_copy_get_mr(qp, sge[i].lkey, sge[i].addr,
				       sge[i].length, IB_ACCESS_LOCAL_WRITE);
		if (!mr)
			continue;
		if (mr->type == SROCE_MR_ODP)
			err = sroce_odp_ready(qp, mr, sge[i].addr,
					      sge[i].length, true);
		sroce_mr_put(mr);
	}
	return err;
}

/* A receive WQE's ODP pages: start faulting in what is missing. */
void sroce_copy_sgl_hint(struct sroce_qp *qp, const struct sroce_sge *sge,
			 u32 num_sge)
{
	u32 i;

	for (i = 0; i < num_sge; i++) {
		struct sroce_mr *mr;

		if (!sge[i].length)
			continue;
		mr = sroce_mr_lookup(qp->sdev, sge[i].lkey);
		if (!mr)
			continue;
		if (mr->type == SROCE_MR_ODP &&
		    !sroce_mr_check(mr, qp->pd, sge[i].addr, sge[i].length,
				    IB_ACCESS_LOCAL_WRITE))
			sroce_odp_hint(qp, mr, sge[i].addr, sge[i].length,
				       true);
		sroce_mr_put(mr);
	}
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
	err = sroce_mr_move(qp, mr, va, len, d, to_mem);
	sroce_mr_put(mr);
	return err;
}

int sroce_copy_check_remote(struct sroce_qp *qp, u32 rkey, u64 va, u32 len,
			    int access)
{
	struct sroce_mr *mr = sroce_copy_get_rmr(qp, rkey, va, len, access);

	if (!mr)
		return -EACCES;
	/* ODP: the message's pages start coming in with its first packet. */
	if (mr->type == SROCE_MR_ODP)
		sroce_odp_hint(qp, mr, va, len,
			       access & (IB_ACCESS_REMOTE_WRITE |
					 IB_ACCESS_REMOTE_ATOMIC));
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

/*
 * ATOMIC WRITE's store: one access (on a 64-bit kernel) that no CPU sees
 * half done, under the lock so that it never falls between the read and
 * the write of a FETCH_ADD or CMP_SWAP.
 */
static void sroce_atomic_store(u64 *p, u64 val)
{
	spin_lock(&sroce_atomic_lock);
	WRITE_ONCE(*p, val);
	spin_unlock(&sroce_atomic_lock);
}

/* Kernel memory (DMA and fast MRs): the address is at hand. */
static u64 *sroce_atomic_kaddr(struct sroce_mr *mr, u64 va)
{
	void *kaddr = (void *)(uintptr_t)va;
	u32 room = 8;

	if (mr->type == SROCE_MR_FAST)
		kaddr = sroce_frmr_kaddr(mr, va, &room);
	if (!kaddr || room < 8 || ((uintptr_t)kaddr & 7))
		return NULL;
	return kaddr;
}

/* What an atomic does to its word; @orig gets what the word held. */
struct sroce_atomic_op {
	bool store;		/* ATOMIC WRITE: @swap is stored */
	bool cmp_swap;		/* else FETCH_ADD */
	u64 compare_add;
	u64 swap;
	u64 orig;
};

static void sroce_atomic_exec(u64 *p, struct sroce_atomic_op *op)
{
	if (op->store)
		sroce_atomic_store(p, op->swap);
	else
		op->orig = sroce_atomic_apply(p, op->cmp_swap, op->compare_add,
					      op->swap);
}

/* A user MR's page: mapped for the operation only. */
static int sroce_atomic_page(struct page *page, unsigned int pgoff,
			     void *arg)
{
	u64 *p = kmap_local_page(page) + pgoff;

	sroce_atomic_exec(p, arg);
	kunmap_local(p);
	flush_dcache_page(page);
	return 0;
}

/*
 * Run @op on the 8 bytes at @va of @mr, a range sroce_mr_check()
 * accepted.  -EINVAL unless they are naturally aligned in the kernel
 * mapping too (an MR whose iova and address differ in their low bits can
 * break that); -EAGAIN or -EFAULT for an ODP page that is missing.
 */
static int sroce_atomic_on(struct sroce_qp *qp, struct sroce_mr *mr, u64 va,
			   struct sroce_atomic_op *op)
{
	u64 off, *p;

	if (mr->type == SROCE_MR_DMA || mr->type == SROCE_MR_FAST) {
		p = sroce_atomic_kaddr(mr, va);
		if (!p)
			return -EINVAL;
		sroce_atomic_exec(p, op);
		return 0;
	}
	/* ib_core makes the iova and the address agree within a page. */
	if (mr->type == SROCE_MR_ODP)
		return sroce_odp_with_page(qp, mr, va, 8, true,
					   sroce_atomic_page, op);
	off = va - mr->iova + mr->page_offset;
	if ((off & 7) || (off >> PAGE_SHIFT) >= mr->npages)
		return -EINVAL;
	return sroce_atomic_page(mr->pages[off >> PAGE_SHIFT],
				 offset_in_page(off), op);
}

/*
 * @op on the naturally aligned word at @va through @rkey, which must
 * grant @access: -EINVAL for a misaligned one, -EACCES for a bad rkey or
 * range, -EAGAIN or -EFAULT for an ODP page (above).
 */
static int sroce_atomic_run(struct sroce_qp *qp, u32 rkey, u64 va, int access,
			    struct sroce_atomic_op *op)
{
	struct sroce_mr *mr;
	int err;

	if (va & 7)
		return -EINVAL;
	mr = sroce_copy_get_rmr(qp, rkey, va, 8, access);
	if (!mr)
		return -EACCES;
	err = sroce_atomic_on(qp, mr, va, op);
	sroce_mr_put(mr);
	return err;
}

/* CMP_SWAP or FETCH_ADD on the 8 bytes at @va; errors as above. */
int sroce_copy_atomic(struct sroce_qp *qp, u32 rkey, u64 va, bool cmp_swap,
		      u64 compare_add, u64 swap, u64 *orig)
{
	struct sroce_atomic_op op = {
		.cmp_swap = cmp_swap, .compare_add = compare_add, .swap = swap,
	};
	int err = sroce_atomic_run(qp, rkey, va, IB_ACCESS_REMOTE_ATOMIC, &op);

	if (!err)
		*orig = op.orig;
	return err;
}

/*
 * ATOMIC WRITE: @val, the 8 bytes as they came, into the 8 bytes at @va,
 * which the rkey must open for remote writing.  Errors as above; and
 * -EINVAL on a 32-bit kernel, where no plain store writes 8 bytes at
 * once: a peer there must not think it was atomic.
 */
int sroce_copy_atomic_write(struct sroce_qp *qp, u32 rkey, u64 va, u64 val)
{
	struct sroce_atomic_op op = { .store = true, .swap = val };

	if (!IS_ENABLED(CONFIG_64BIT))
		return -EINVAL;
	return sroce_atomic_run(qp, rkey, va, IB_ACCESS_REMOTE_WRITE, &op);
}
