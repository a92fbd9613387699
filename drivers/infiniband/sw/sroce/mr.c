// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * Memory regions: kernel DMA MRs, pinned user memory through ib_umem and
 * unpinned user memory through ib_umem_odp (odp.c), and the key lookup and checks that the packet path will use.  Fast
 * registration MRs (frmr.c) share the table, the lookup and the checks.
 */
#include <linux/random.h>
#include <linux/slab.h>
#include <linux/mm.h>
#include <linux/delay.h>
#include <rdma/ib_umem.h>

#include "sroce.h"

/*
 * lkey == rkey == index << 8 | variant.  The low byte is random so that a
 * peer cannot guess a live rkey from the index alone.
 */
static u32 sroce_mr_key(u32 index)
{
	return index << 8 | get_random_u8();
}

struct sroce_mr *sroce_mr_alloc(int access, enum sroce_mr_type type)
{
	struct sroce_mr *mr;

	mr = kzalloc(sizeof(*mr), GFP_KERNEL);
	if (!mr)
		return ERR_PTR(-ENOMEM);
	mr->type = type;
	mr->access = access;
	return mr;
}

/*
 * Make @mr visible to lookups; after this the packet path may use it,
 * unless it is hidden (a fast MR until its first registration).
 */
int sroce_mr_publish(struct sroce_dev *sdev, struct sroce_mr *mr)
{
	int err;

	err = sroce_table_add(&sdev->mr_table, &mr->obj);
	if (err)
		return err;
	mr->ibmr.lkey = sroce_mr_key(mr->obj.index);
	mr->ibmr.rkey = mr->ibmr.lkey;
	WRITE_ONCE(mr->key, mr->ibmr.lkey);
	return 0;
}

struct ib_mr *sroce_mr_get_dma(struct ib_pd *ibpd, int access)
{
	struct sroce_mr *mr;
	int err;

	mr = sroce_mr_alloc(access, SROCE_MR_DMA);
	if (IS_ERR(mr))
		return ERR_CAST(mr);
	mr->length = U64_MAX;
	err = sroce_mr_publish(to_sdev(ibpd->device), mr);
	if (err) {
		kfree(mr);
		return ERR_PTR(err);
	}
	return &mr->ibmr;
}

static int sroce_mr_map_umem(struct sroce_mr *mr)
{
	struct ib_umem *umem = mr->umem;
	struct sg_page_iter piter;
	unsigned long i = 0;

	mr->npages = ib_umem_num_pages(umem);
	/* 2 MiB for a 1 GiB MR: the process's to pay, like its rings. */
	mr->pages = kvcalloc(mr->npages, sizeof(*mr->pages),
			     sroce_queue_gfp(true));
	if (!mr->pages)
		return -ENOMEM;
	for_each_sgtable_page(&umem->sgt_append.sgt, &piter, 0) {
		if (WARN_ON_ONCE(i >= mr->npages))
			return -EFAULT;
		mr->pages[i++] = sg_page_iter_page(&piter);
	}
	mr->page_offset = ib_umem_offset(umem);
	return 0;
}

struct ib_mr *sroce_mr_reg_user(struct ib_pd *ibpd, u64 start, u64 length,
				u64 iova, int access, struct ib_udata *udata)
{
	struct sroce_dev *sdev = to_sdev(ibpd->device);
	struct sroce_mr *mr;
	int err;

	mr = sroce_mr_alloc(access, SROCE_MR_USER);
	if (IS_ERR(mr))
		return ERR_CAST(mr);
	mr->iova = iova;
	mr->length = length;

	if (access & IB_ACCESS_ON_DEMAND) {
		err = sroce_odp_mr_init(sdev, mr, start, length, access);
		if (err)
			goto err_free;
		err = sroce_mr_publish(sdev, mr);
		if (err)
			goto err_release;
		return &mr->ibmr;
	}
	mr->umem = ib_umem_get(&sdev->ibdev, start, length, access);
	if (IS_ERR(mr->umem)) {
		err = PTR_ERR(mr->umem);
		mr->umem = NULL;
		goto err_free;
	}
	err = sroce_mr_map_umem(mr);
	if (err)
		goto err_release;
	err = sroce_mr_publish(sdev, mr);
	if (err)
		goto err_release;
	return &mr->ibmr;

err_release:
	kvfree(mr->pages);
	ib_umem_release(mr->umem);
	sroce_odp_mr_release(mr);
err_free:
	kfree(mr);
	return ERR_PTR(err);
}

/*
 * Hide @mr from the packet path and wait for the copies in progress (they
 * hold a reference for one copy only).  A packet meanwhile finds no MR,
 * as for any rkey that is not valid.
 */
static void sroce_mr_hide(struct sroce_mr *mr)
{
	WRITE_ONCE(mr->hidden, true);
	/* The flag before the count; sroce_mr_lookup() the other way. */
	smp_mb();
	while (refcount_read(&mr->obj.ref) > 1)
		usleep_range(20, 100);
}

/* New pages for a new range; the old ones stay until the swap. */
static int sroce_mr_rereg_trans(struct sroce_mr *mr, struct ib_device *ibdev,
				u64 start, u64 length, int access,
				struct sroce_mr *tmp)
{
	int err;

	tmp->umem = ib_umem_get(ibdev, start, length, access);
	if (IS_ERR(tmp->umem)) {
		err = PTR_ERR(tmp->umem);
		tmp->umem = NULL;
		return err;
	}
	err = sroce_mr_map_umem(tmp);
	if (err) {
		kvfree(tmp->pages);
		ib_umem_release(tmp->umem);
	}
	return err;
}

/*
 * Re-register in place: the keys stay, as with rxe and hardware (a peer
 * may already hold the rkey).  New translation, or more rights than the
 * pages were pinned for, means new pages; the MR is hidden while its
 * fields change.
 */
struct ib_mr *sroce_mr_rereg_user(struct ib_mr *ibmr, int flags, u64 start,
				  u64 length, u64 iova, int access,
				  struct ib_pd *ibpd, struct ib_udata *udata)
{
	struct sroce_mr *mr = to_smr(ibmr);
	struct sroce_mr tmp = {};
	bool repin;
	int err;

	/* An ODP MR is registered again with dereg and reg: no pages move. */
	if (mr->type == SROCE_MR_ODP)
		return ERR_PTR(-EOPNOTSUPP);
	if (mr->type != SROCE_MR_USER)
		return ERR_PTR(-EINVAL);
	if (!(flags & IB_MR_REREG_TRANS)) {
		start = mr->umem->address;
		length = mr->length;
		iova = mr->iova;
	}
	if (!(flags & IB_MR_REREG_ACCESS))
		access = mr->access;
	repin = (flags & IB_MR_REREG_TRANS) ||
		(!mr->umem->writable && (access & ~IB_ACCESS_REMOTE_READ));
	/* Windows are bound to the old range and rights. */
	if (sroce_mw_mr_close(mr))
		return ERR_PTR(-EBUSY);
	if (repin) {
		err = sroce_mr_rereg_trans(mr, ibmr->device, start, length,
					   access, &tmp);
		if (err) {
			sroce_mw_mr_reopen(mr);
			return ERR_PTR(err);
		}
	}
	sroce_mr_hide(mr);
	if (repin) {
		swap(mr->umem, tmp.umem);
		swap(mr->pages, tmp.pages);
		mr->npages = tmp.npages;
		mr->page_offset = tmp.page_offset;
		mr->iova = iova;
		mr->length = length;
	}
	mr->access = access;
	if (flags & IB_MR_REREG_PD)
		ibmr->pd = ibpd;	/* ib_core sets it too, after us */
	smp_store_release(&mr->hidden, false);
	sroce_mw_mr_reopen(mr);
	if (repin) {
		kvfree(tmp.pages);
		ib_umem_release(tmp.umem);
	}
	return NULL;
}

int sroce_mr_dereg(struct ib_mr *ibmr, struct ib_udata *udata)
{
	struct sroce_mr *mr = to_smr(ibmr);

	/* Bound memory windows hold it: the consumer must unbind first. */
	if (sroce_mw_mr_close(mr))
		return -EBUSY;
	/* Waits until no packet is copying to or from the pages. */
	sroce_table_remove(&to_sdev(ibmr->device)->mr_table, &mr->obj);
	kfree(mr->fr.pages);
	kvfree(mr->pages);
	ib_umem_release(mr->umem);
	sroce_odp_mr_release(mr);
	kfree(mr);
	return 0;
}

/*
 * Find the MR named by @key (an lkey or rkey) with a reference held.  The
 * full key must match, not only its index: a stale key of a destroyed MR
 * whose index was reused names nothing.
 */
struct sroce_mr *sroce_mr_lookup(struct sroce_dev *sdev, u32 key)
{
	struct sroce_obj *obj;
	struct sroce_mr *mr;

	obj = sroce_table_get(&sdev->mr_table, key >> 8);
	if (!obj)
		return NULL;
	mr = container_of(obj, struct sroce_mr, obj);
	/*
	 * Our reference before the flag: pairs with sroce_mr_hide() and the
	 * fast MR's invalidation (frmr.c).
	 */
	smp_mb__after_atomic();
	/* The flag before the key: pairs with the registration's release. */
	if (smp_load_acquire(&mr->hidden) || READ_ONCE(mr->key) != key) {
		sroce_obj_put(obj);
		return NULL;
	}
	return mr;
}

void sroce_mr_put(struct sroce_mr *mr)
{
	sroce_obj_put(&mr->obj);
}

/*
 * May @len bytes at @iova of @mr be accessed with @access by a QP of @pd?
 * Written so that no sum can overflow.
 */
int sroce_mr_check(const struct sroce_mr *mr, const struct sroce_pd *pd,
		   u64 iova, u64 len, int access)
{
	if (mr->ibmr.pd != &pd->ibpd)
		return -EACCES;
	if ((mr->access & access) != access)
		return -EACCES;
	if (mr->type == SROCE_MR_DMA)
		return 0;
	if (iova < mr->iova || len > mr->length ||
	    iova - mr->iova > mr->length - len)
		return -ERANGE;
	return 0;
}
