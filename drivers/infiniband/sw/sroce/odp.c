// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * On-demand paging (ODP) MRs: user memory registered without pinning.
 *
 * ib_core's ib_umem_odp does the hard part: an mmu interval notifier
 * that tells us when the process's mapping of a range changes, and
 * ib_umem_odp_map_dma_and_lock(), which faults pages in through hmm.
 * Both need to sleep, the engine never may (bottom halves off).  So:
 *
 *  - Each registered range, a region, keeps its own table of the pages
 *    the engine may use, under a spinlock.  The engine looks a page up
 *    and holds the lock for as long as it copies to or from it; the
 *    invalidation clears the entries under the same lock before the mm
 *    goes on to change the page tables, so no byte ever moves to or from
 *    a page that has left the mapping (migration, swap, munmap, COW).
 *  - A page that is not in the table is faulted in by the QP's fault
 *    work (process context); the engine meanwhile stops what it was doing
 *    as it would for a full queue: the requester waits, the responder
 *    answers RNR NAK (the peer sends again after the RNR delay, which is
 *    how RoCE NICs resolve responder faults), a READ response stream
 *    pauses, and a response for a local buffer is dropped as if lost.
 *    The work kicks the QP when the pages are in.
 *  - An implicit MR (address 0, length U64_MAX: the whole address space)
 *    has a child region per 2 MiB, made on the first fault there.
 */
#include <linux/hmm.h>
#include <linux/highmem.h>
#include <linux/sched/mm.h>
#include <linux/slab.h>
#include <rdma/ib_umem_odp.h>

#include "sroce.h"
#include "rc.h"
#include "odp.h"

#define SROCE_ODP_CHILD_SHIFT	21
#define SROCE_ODP_CHILD_SIZE	(1UL << SROCE_ODP_CHILD_SHIFT)
/*
 * 32 GiB of an implicit MR touched; each child costs about 13 KiB, and a
 * peer with the rkey chooses the addresses.
 */
#define SROCE_ODP_MAX_CHILDREN	16384
/* A hint looks this far ahead of a WQE or message, no further. */
#define SROCE_ODP_HINT_MAX	(4UL << 20)

/* One ib_umem_odp and the pages of it that the engine may use. */
struct sroce_odp_region {
	struct ib_umem_odp *umem;
	struct sroce_dev *sdev;
	spinlock_t lock;		/* pages and writable, BHs off */
	u64 start;			/* user address of pages[0] */
	unsigned long npages;
	struct page **pages;		/* NULL: not mapped */
	unsigned long *writable;
};

struct sroce_odp {
	u64 base;			/* user address of the MR's iova */
	struct sroce_odp_region *region;	/* an explicit MR's */
	/* An implicit MR: its parent umem and its children, by index. */
	struct ib_umem_odp *root;
	struct mm_struct *mm;		/* grabbed: the children's */
	struct xarray children;
	struct mutex child_lock;	/* making children */
	unsigned int nchildren;
};

static u64 sroce_odp_uva(const struct sroce_mr *mr, u64 iova)
{
	return mr->odp->base + (iova - mr->iova);
}

/* ------------------------------------------------------------------ */
/* Regions                                                             */
/* ------------------------------------------------------------------ */

/*
 * The notifier's callback: the mm is about to change [start, end).  The
 * engine loses the pages first, then ib_core unmaps them (and marks the
 * written ones dirty) with the spinlock dropped: set_page_dirty() of a
 * file page takes locks that softirqs must never wait behind.
 */
static bool sroce_odp_invalidate(struct mmu_interval_notifier *mni,
				 const struct mmu_notifier_range *range,
				 unsigned long cur_seq)
{
	struct ib_umem_odp *umem = container_of(mni, struct ib_umem_odp,
						 notifier);
	struct sroce_odp_region *r = READ_ONCE(umem->private);
	unsigned long i, n;
	u64 start, end;

	if (!mmu_notifier_range_blockable(range))
		return false;
	mutex_lock(&umem->umem_mutex);
	mmu_interval_set_seq(mni, cur_seq);
	start = max_t(u64, ib_umem_start(umem), range->start);
	end = min_t(u64, ib_umem_end(umem), range->end);
	if (r && start < end) {
		i = (start - r->start) >> PAGE_SHIFT;
		n = DIV_ROUND_UP(end - r->start, PAGE_SIZE);
		spin_lock_bh(&r->lock);
		for (; i < n && i < r->npages; i++)
			r->pages[i] = NULL;
		spin_unlock_bh(&r->lock);
		sroce_cnt_inc(&r->sdev->cnt, SROCE_CNT_ODP_INVALIDATIONS);
	}
	if (start < end)
		ib_umem_odp_unmap_dma_pages(umem, start, end);
	mutex_unlock(&umem->umem_mutex);
	return true;
}

static const struct mmu_interval_notifier_ops sroce_odp_mni_ops = {
	.invalidate = sroce_odp_invalidate,
};

/* Takes @umem: released with the region, or here on failure. */
static struct sroce_odp_region *sroce_odp_region_new(struct sroce_dev *sdev,
						     struct ib_umem_odp *umem)
{
	struct sroce_odp_region *r;

	r = kzalloc(sizeof(*r), GFP_KERNEL);
	if (!r)
		goto err_umem;
	r->umem = umem;
	r->sdev = sdev;
	spin_lock_init(&r->lock);
	r->start = ib_umem_start(umem);
	r->npages = (ib_umem_end(umem) - r->start) >> PAGE_SHIFT;
	r->pages = kvcalloc(r->npages, sizeof(*r->pages), GFP_KERNEL_ACCOUNT);
	r->writable = kvcalloc(BITS_TO_LONGS(r->npages), sizeof(long),
			       GFP_KERNEL_ACCOUNT);
	if (!r->pages || !r->writable)
		goto err_free;
	/* Initialised before the callback can find it. */
	smp_store_release(&umem->private, r);
	return r;

err_free:
	kvfree(r->writable);
	kvfree(r->pages);
	kfree(r);
err_umem:
	ib_umem_odp_release(umem);
	return ERR_PTR(-ENOMEM);
}

static void sroce_odp_region_free(struct sroce_odp_region *r)
{
	/* Unmaps everything and waits out a callback in progress. */
	ib_umem_odp_release(r->umem);
	kvfree(r->writable);
	kvfree(r->pages);
	kfree(r);
}

/* Where the engine finds @uva: NULL if no region holds it (yet). */
static struct sroce_odp_region *sroce_odp_region(struct sroce_odp *odp,
						 u64 uva)
{
	struct sroce_odp_region *r = odp->region;

	if (odp->root)
		return xa_load(&odp->children, uva >> SROCE_ODP_CHILD_SHIFT);
	if (uva < r->start || (uva - r->start) >> PAGE_SHIFT >= r->npages)
		return NULL;
	return r;
}

/* Does the process map @uva at all?  No child for addresses it does not. */
static bool sroce_odp_mapped(struct mm_struct *mm, u64 uva)
{
	bool mapped;

	if (!mmget_not_zero(mm))
		return false;
	mmap_read_lock(mm);
	mapped = vma_lookup(mm, uva);
	mmap_read_unlock(mm);
	mmput(mm);
	return mapped;
}

/* An implicit MR's child for @uva, made if need be (process context). */
static struct sroce_odp_region *sroce_odp_child(struct sroce_odp *odp,
						struct sroce_dev *sdev, u64 uva)
{
	unsigned long idx = uva >> SROCE_ODP_CHILD_SHIFT;
	struct sroce_odp_region *r;
	struct ib_umem_odp *umem;
	int err;

	mutex_lock(&odp->child_lock);
	r = xa_load(&odp->children, idx);
	if (r)
		goto out;
	r = ERR_PTR(-EFAULT);
	if (!sroce_odp_mapped(odp->mm, uva))
		goto out;
	r = ERR_PTR(-ENOMEM);
	if (odp->nchildren >= SROCE_ODP_MAX_CHILDREN)
		goto out;
	umem = ib_umem_odp_alloc_child(odp->root, idx << SROCE_ODP_CHILD_SHIFT,
				       SROCE_ODP_CHILD_SIZE,
				       &sroce_odp_mni_ops);
	if (IS_ERR(umem)) {
		r = ERR_CAST(umem);
		goto out;
	}
	r = sroce_odp_region_new(sdev, umem);
	if (IS_ERR(r))
		goto out;
	err = xa_err(xa_store(&odp->children, idx, r, GFP_KERNEL));
	if (err) {
		sroce_odp_region_free(r);
		r = ERR_PTR(err);
		goto out;
	}
	odp->nchildren++;
out:
	mutex_unlock(&odp->child_lock);
	return r;
}

/*
 * What ib_core mapped of [from, to) (the mutex held), into the table.
 * A page counts only where its DMA entry says so: the entries are what
 * the invalidation clears.
 */
static void sroce_odp_publish(struct sroce_odp_region *r, u64 from, u64 to)
{
	struct ib_umem_odp *umem = r->umem;
	unsigned int shift = umem->page_shift - PAGE_SHIFT;
	unsigned long i = (from - r->start) >> PAGE_SHIFT;
	unsigned long n = min_t(unsigned long, r->npages,
				DIV_ROUND_UP(to - r->start, PAGE_SIZE));

	lockdep_assert_held(&umem->umem_mutex);
	spin_lock_bh(&r->lock);
	for (; i < n; i++) {
		dma_addr_t dma = umem->dma_list[i >> shift];
		unsigned long pfn = umem->pfn_list[i];

		if (!(dma & ODP_READ_ALLOWED_BIT) || !(pfn & HMM_PFN_VALID))
			continue;
		r->pages[i] = hmm_pfn_to_page(pfn);
		if (dma & ODP_WRITE_ALLOWED_BIT)
			__set_bit(i, r->writable);
		else
			__clear_bit(i, r->writable);
	}
	spin_unlock_bh(&r->lock);
}

/*
 * Fault [uva, uva + len) of @r in (@fault) or map what is present, for
 * writing too if the MR may be written (as RoCE NICs do: a later write
 * would fault again otherwise).  Sleeps.
 */
static int sroce_odp_map(struct sroce_odp_region *r, u64 uva, u64 len,
			 bool fault)
{
	struct ib_umem_odp *umem = r->umem;
	u64 access = ODP_READ_ALLOWED_BIT;
	int ret;

	if (umem->umem.writable)
		access |= ODP_WRITE_ALLOWED_BIT;
	ret = ib_umem_odp_map_dma_and_lock(umem, uva, len, access, fault);
	if (ret < 0)
		return ret;
	sroce_odp_publish(r, uva, uva + len);
	mutex_unlock(&umem->umem_mutex);
	return 0;
}

/* Fault in @len bytes at @uva of @mr, region by region.  Sleeps. */
static int sroce_odp_fault_range(struct sroce_dev *sdev, struct sroce_mr *mr,
				 u64 uva, u64 len, bool fault)
{
	struct sroce_odp *odp = mr->odp;

	while (len) {
		struct sroce_odp_region *r = sroce_odp_region(odp, uva);
		u64 room, n;
		int err;

		if (!r && odp->root)
			r = sroce_odp_child(odp, sdev, uva);
		if (IS_ERR_OR_NULL(r))
			return r ? PTR_ERR(r) : -EFAULT;
		room = ((u64)r->npages << PAGE_SHIFT) - (uva - r->start);
		n = min(len, room);
		err = sroce_odp_map(r, uva, n, fault);
		if (err)
			return err;
		uva += n;
		len -= n;
	}
	return 0;
}

/* ------------------------------------------------------------------ */
/* Registration                                                        */
/* ------------------------------------------------------------------ */

int sroce_odp_mr_init(struct sroce_dev *sdev, struct sroce_mr *mr,
		      u64 start, u64 length, int access)
{
	struct ib_umem_odp *umem;
	struct sroce_odp *odp;
	int err;

	odp = kzalloc(sizeof(*odp), GFP_KERNEL);
	if (!odp)
		return -ENOMEM;
	odp->base = start;
	xa_init(&odp->children);
	mutex_init(&odp->child_lock);
	if (!start && length == U64_MAX) {
		/* Implicit: the iova is the address. */
		err = -EINVAL;
		if (mr->iova)
			goto err_free;
		odp->root = ib_umem_odp_alloc_implicit(&sdev->ibdev, access);
		if (IS_ERR(odp->root)) {
			err = PTR_ERR(odp->root);
			goto err_free;
		}
		/* The root holds no notifier, so nothing else holds it. */
		odp->mm = odp->root->umem.owning_mm;
		mmgrab(odp->mm);
	} else {
		umem = ib_umem_odp_get(&sdev->ibdev, start, length, access,
				       &sroce_odp_mni_ops);
		if (IS_ERR(umem)) {
			err = PTR_ERR(umem);
			goto err_free;
		}
		odp->region = sroce_odp_region_new(sdev, umem);
		if (IS_ERR(odp->region)) {
			err = PTR_ERR(odp->region);
			goto err_free;
		}
	}
	mr->odp = odp;
	mr->type = SROCE_MR_ODP;
	return 0;

err_free:
	kfree(odp);
	return err;
}

/* After the MR left the table: no engine can be looking. */
void sroce_odp_mr_release(struct sroce_mr *mr)
{
	struct sroce_odp *odp = mr->odp;
	struct sroce_odp_region *r;
	unsigned long idx;

	if (!odp)
		return;
	if (odp->region)
		sroce_odp_region_free(odp->region);
	xa_for_each(&odp->children, idx, r)
		sroce_odp_region_free(r);
	xa_destroy(&odp->children);
	if (odp->root) {
		ib_umem_odp_release(odp->root);
		mmdrop(odp->mm);
	}
	kfree(odp);
	mr->odp = NULL;
}

/* ------------------------------------------------------------------ */
/* The engine's side                                                   */
/* ------------------------------------------------------------------ */

static bool sroce_odp_in_bad(const struct sroce_odp_fault *f, u32 key,
			     u64 uva)
{
	return f->bad && f->bad_key == key && uva >= f->bad_uva &&
	       uva - f->bad_uva < f->bad_len;
}

/*
 * Ask for @len bytes at @uva of @mr: -EAGAIN, the QP kicked when they
 * are in (or the one fault already on its way ends); -EFAULT if the last
 * try for them failed, which an access (not a @hint) then takes: the
 * next access tries again.
 */
static int sroce_odp_want(struct sroce_qp *qp, struct sroce_mr *mr, u64 uva,
			  u64 len, bool hint)
{
	struct sroce_odp_fault *f = &qp->odp;

	/* Pairs with the work's release: its bad range is visible. */
	if (smp_load_acquire(&f->busy))
		return -EAGAIN;
	if (sroce_odp_in_bad(f, mr->key, uva)) {
		if (!hint)
			f->bad = false;
		return -EFAULT;
	}
	if (test_bit(SROCE_ENG_STOPPED, &qp->req.flags))
		return -EAGAIN;
	f->key = mr->key;
	f->uva = uva;
	f->len = len;
	WRITE_ONCE(f->busy, true);
	sroce_cnt_inc(sroce_qp_cnt(qp), SROCE_CNT_ODP_WAITS);
	queue_work(system_unbound_wq, &f->work);
	return -EAGAIN;
}

int sroce_odp_with_page(struct sroce_qp *qp, struct sroce_mr *mr, u64 iova,
			u64 len, bool write, sroce_odp_fn fn, void *arg)
{
	u64 uva = sroce_odp_uva(mr, iova);
	struct sroce_odp_region *r = sroce_odp_region(mr->odp, uva);
	unsigned long i;
	struct page *page;
	int err = -EAGAIN;

	if (r) {
		i = (uva - r->start) >> PAGE_SHIFT;
		spin_lock_bh(&r->lock);
		page = r->pages[i];
		if (page && (!write || test_bit(i, r->writable)))
			err = fn(page, offset_in_page(uva), arg);
		spin_unlock_bh(&r->lock);
	}
	if (err != -EAGAIN)
		return err;
	return sroce_odp_want(qp, mr, uva, min_t(u64, len, SROCE_ODP_HINT_MAX),
			      false);
}

/* The first page of [uva, uva + len) the engine cannot use; or len. */
static u64 sroce_odp_missing(struct sroce_odp *odp, u64 uva, u64 len,
			     bool write)
{
	u64 done = 0;

	while (done < len) {
		u64 at = uva + done;
		struct sroce_odp_region *r = sroce_odp_region(odp, at);
		unsigned long i;
		bool ok;

		if (!r)
			return done;
		i = (at - r->start) >> PAGE_SHIFT;
		spin_lock_bh(&r->lock);
		ok = r->pages[i] && (!write || test_bit(i, r->writable));
		spin_unlock_bh(&r->lock);
		if (!ok)
			return done;
		done += PAGE_SIZE - offset_in_page(at);
	}
	return len;
}

static int sroce_odp_check(struct sroce_qp *qp, struct sroce_mr *mr,
			   u64 iova, u64 len, bool write, bool hint)
{
	u64 uva = sroce_odp_uva(mr, iova), skip;

	len = min_t(u64, len, SROCE_ODP_HINT_MAX);
	skip = sroce_odp_missing(mr->odp, uva, len, write);
	if (skip == len)
		return 0;
	return sroce_odp_want(qp, mr, uva + skip, len - skip, hint);
}

int sroce_odp_ready(struct sroce_qp *qp, struct sroce_mr *mr, u64 iova,
		    u64 len, bool write)
{
	return sroce_odp_check(qp, mr, iova, len, write, false);
}

void sroce_odp_hint(struct sroce_qp *qp, struct sroce_mr *mr, u64 iova,
		    u64 len, bool write)
{
	sroce_odp_check(qp, mr, iova, len, write, true);
}

bool sroce_odp_waiting(const struct sroce_qp *qp)
{
	return READ_ONCE(qp->odp.busy);
}

static void sroce_odp_fault_work(struct work_struct *work)
{
	struct sroce_odp_fault *f = container_of(work, struct sroce_odp_fault,
						 work);
	struct sroce_qp *qp = container_of(f, struct sroce_qp, odp);
	struct sroce_mr *mr = sroce_mr_lookup(qp->sdev, f->key);
	int err = -EFAULT;

	/* Gone meanwhile: the engine will find no MR either. */
	if (mr) {
		if (mr->type == SROCE_MR_ODP)
			err = sroce_odp_fault_range(qp->sdev, mr, f->uva, f->len,
						    true);
		sroce_mr_put(mr);
	}
	if (err) {
		sroce_cnt_inc(sroce_qp_cnt(qp), SROCE_CNT_ODP_FAULT_ERRORS);
		f->bad = true;
		f->bad_key = f->key;
		f->bad_uva = f->uva;
		f->bad_len = f->len;
	} else {
		sroce_cnt_inc(sroce_qp_cnt(qp), SROCE_CNT_ODP_FAULTS);
	}
	/* The bad range before the flag: pairs with sroce_odp_want(). */
	smp_store_release(&f->busy, false);
	sroce_engine_kick(qp);
}

void sroce_odp_qp_init(struct sroce_qp *qp)
{
	INIT_WORK(&qp->odp.work, sroce_odp_fault_work);
	qp->odp.busy = false;
	qp->odp.bad = false;
}

/* The engine is stopped: no new fault can be asked for. */
void sroce_odp_qp_stop(struct sroce_qp *qp)
{
	cancel_work_sync(&qp->odp.work);
	/* A work cancelled before it ran left it set. */
	qp->odp.busy = false;
	qp->odp.bad = false;
}

/* ------------------------------------------------------------------ */
/* ibv_advise_mr(): prefetch                                           */
/* ------------------------------------------------------------------ */

static int sroce_odp_prefetch(struct sroce_dev *sdev, struct sroce_pd *pd,
			      const struct ib_sge *sge, bool write,
			      bool fault)
{
	struct sroce_mr *mr = sroce_mr_lookup(sdev, sge->lkey);
	int err = -ENOENT;

	if (!mr)
		return err;
	err = -EINVAL;
	if (mr->type == SROCE_MR_ODP &&
	    !sroce_mr_check(mr, pd, sge->addr, sge->length,
			    write ? IB_ACCESS_LOCAL_WRITE : 0))
		err = sroce_odp_fault_range(sdev, mr,
					    sroce_odp_uva(mr, sge->addr),
					    sge->length, fault);
	sroce_mr_put(mr);
	return err;
}

/*
 * Done at once, whether or not IB_UVERBS_ADVISE_MR_FLAG_FLUSH asks it:
 * the caller is in process context with its own mm, which is what a
 * fault needs.
 */
int sroce_odp_advise(struct ib_pd *ibpd,
		     enum ib_uverbs_advise_mr_advice advice, u32 flags,
		     struct ib_sge *sg_list, u32 num_sge,
		     struct uverbs_attr_bundle *attrs)
{
	struct sroce_dev *sdev = to_sdev(ibpd->device);
	bool write, fault = true;
	u32 i;
	int err;

	switch (advice) {
	case IB_UVERBS_ADVISE_MR_ADVICE_PREFETCH:
		write = false;
		break;
	case IB_UVERBS_ADVISE_MR_ADVICE_PREFETCH_WRITE:
		write = true;
		break;
	case IB_UVERBS_ADVISE_MR_ADVICE_PREFETCH_NO_FAULT:
		write = false;
		fault = false;
		break;
	default:
		return -EOPNOTSUPP;
	}
	for (i = 0; i < num_sge; i++) {
		if (!sg_list[i].length)
			continue;
		err = sroce_odp_prefetch(sdev, to_spd(ibpd), &sg_list[i], write,
					 fault);
		if (err)
			return err;
	}
	return 0;
}

/*
 * What ODP covers: every RC and XRC operation on both sides; UD and UC
 * only as senders (a receive into a missing page of theirs loses the
 * message: neither transport can ask the sender to wait).
 */
void sroce_odp_caps(struct ib_device_attr *a)
{
	u32 rc = IB_ODP_SUPPORT_SEND | IB_ODP_SUPPORT_RECV |
		 IB_ODP_SUPPORT_WRITE | IB_ODP_SUPPORT_READ |
		 IB_ODP_SUPPORT_ATOMIC | IB_ODP_SUPPORT_SRQ_RECV;

	a->kernel_cap_flags |= IBK_ON_DEMAND_PAGING;
	a->odp_caps.general_caps = IB_ODP_SUPPORT | IB_ODP_SUPPORT_IMPLICIT;
	a->odp_caps.per_transport_caps.rc_odp_caps = rc;
	a->odp_caps.per_transport_caps.xrc_odp_caps = rc;
	a->odp_caps.per_transport_caps.uc_odp_caps = IB_ODP_SUPPORT_SEND;
	a->odp_caps.per_transport_caps.ud_odp_caps = IB_ODP_SUPPORT_SEND;
}
