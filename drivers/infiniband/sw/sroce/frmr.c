// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * Fast registration memory regions, for kernel ULPs (NVMe over Fabrics,
 * iSER, NFS over RDMA, rdma_rw).
 *
 * A ULP allocates the MR once (ib_alloc_mr), and then, for each I/O, maps
 * a scatterlist into its page list (ib_map_mr_sg), makes it valid under a
 * new key with an IB_WR_REG_MR work request, lets the peer use the rkey,
 * and revokes it with IB_WR_LOCAL_INV or by the peer's SEND with
 * Invalidate.  Registration and invalidation run in SQ order, as local
 * operations of the requester (req.c), beside the memory window ones.
 *
 * States: an MR is Free (mr->hidden set: every lookup fails, as for any
 * key that names nothing) or Valid.  A registration needs a Free MR and
 * may change only the key's low byte; it publishes the range, rights and
 * page layout, then clears the flag with release semantics, which the
 * lookup's acquire pairs with.
 *
 * Invalidation sets the flag and then waits until no copy holds the MR:
 * once it completes, the ULP frees or reuses the pages, and a peer's
 * packet still being copied into them would write to freed memory.  The
 * wait spins: it runs with BHs off, and every other holder is a copy of
 * at most one packet, also with BHs off, on another CPU.  Memory windows
 * would hold an MR for as long as they are bound, so fast MRs refuse
 * binds (mw.c).
 *
 * The pages come from the ULP's scatterlist; a software device's DMA
 * addresses are kernel virtual addresses (ib_uses_virt_dma()), which is
 * what the page list holds.
 */
#include <linux/slab.h>
#include <linux/log2.h>

#include "sroce.h"
#include "rc.h"

/* The rights a fast registration may grant, and those it ignores. */
#define SROCE_FR_ACCESS		(IB_ACCESS_LOCAL_WRITE | \
				 IB_ACCESS_REMOTE_READ | \
				 IB_ACCESS_REMOTE_WRITE | \
				 IB_ACCESS_REMOTE_ATOMIC)
/* Windows are not bound to fast MRs (see above): MW_BIND is dropped. */
#define SROCE_FR_ACCESS_IGNORED	(IB_ACCESS_OPTIONAL | IB_ACCESS_MW_BIND)

struct ib_mr *sroce_frmr_alloc(struct ib_pd *ibpd, enum ib_mr_type type,
			       u32 max_num_sg)
{
	struct sroce_mr *mr;
	int err;

	if (type != IB_MR_TYPE_MEM_REG || !max_num_sg ||
	    max_num_sg > SROCE_FR_MAX_PAGES)
		return ERR_PTR(-EINVAL);
	mr = kzalloc(sizeof(*mr), GFP_KERNEL);
	if (!mr)
		return ERR_PTR(-ENOMEM);
	mr->fr.pages = kcalloc(max_num_sg, sizeof(*mr->fr.pages), GFP_KERNEL);
	if (!mr->fr.pages) {
		err = -ENOMEM;
		goto err_free;
	}
	mr->type = SROCE_MR_FAST;
	mr->fr.max = max_num_sg;
	spin_lock_init(&mr->fr.lock);
	/* Free until the first registration. */
	mr->hidden = true;
	/* ib_core sets ibmr.pd only after we return; checks need it. */
	mr->ibmr.pd = ibpd;
	err = sroce_mr_publish(to_sdev(ibpd->device), mr);
	if (err)
		goto err_pages;
	return &mr->ibmr;

err_pages:
	kfree(mr->fr.pages);
err_free:
	kfree(mr);
	return ERR_PTR(err);
}

static int sroce_frmr_set_page(struct ib_mr *ibmr, u64 addr)
{
	struct sroce_mr *mr = to_smr(ibmr);

	if (mr->fr.map.npages >= mr->fr.max)
		return -ENOMEM;
	mr->fr.pages[mr->fr.map.npages++] = addr;
	return 0;
}

/*
 * The ULP maps only a Free MR (the IBA's rules), so no packet reads the
 * page list meanwhile; the registration takes the layout it leaves.
 */
int sroce_frmr_map_sg(struct ib_mr *ibmr, struct scatterlist *sg,
		      int sg_nents, unsigned int *sg_offset)
{
	struct sroce_mr *mr = to_smr(ibmr);

	int n;

	if (!is_power_of_2(ibmr->page_size))
		return -EINVAL;
	mr->fr.map.npages = 0;
	mr->fr.map.shift = ilog2(ibmr->page_size);
	/* Sets ibmr->iova (of the first byte) and ibmr->length. */
	n = ib_sg_to_pages(ibmr, sg, sg_nents, sg_offset, sroce_frmr_set_page);
	/*
	 * The first byte's place in its page, taken now: the ULP may move
	 * ibmr->iova before it registers (a zero-based range, say).
	 */
	mr->fr.map.offset = ibmr->iova & (ibmr->page_size - 1);
	return n;
}

/*
 * Post time, kernel QPs only: the registration's parameters go into the
 * WQE, as the consumer had them when it posted.
 */
int sroce_frmr_wqe(const struct sroce_qp *qp, const struct ib_reg_wr *wr,
		   struct sroce_send_wqe *wqe)
{
	struct ib_mr *ibmr = wr->mr;

	if (!ibmr || ibmr->device != qp->ibqp.device ||
	    to_smr(ibmr)->type != SROCE_MR_FAST ||
	    (ibmr->lkey >> 8) != (wr->key >> 8))
		return -EINVAL;
	wqe->wr.reg.iova = ibmr->iova;
	wqe->wr.reg.length = ibmr->length;
	wqe->wr.reg.key = wr->key;
	wqe->wr.reg.access = wr->access;
	return 0;
}

/* The fast MR whose index @key names, in any state; a reference held. */
static struct sroce_mr *sroce_frmr_get(struct sroce_dev *sdev, u32 key)
{
	struct sroce_obj *obj = sroce_table_get(&sdev->mr_table, key >> 8);
	struct sroce_mr *mr;

	if (!obj)
		return NULL;
	mr = container_of(obj, struct sroce_mr, obj);
	if (mr->type != SROCE_MR_FAST) {
		sroce_mr_put(mr);
		return NULL;
	}
	return mr;
}

/*
 * Wait until no copy holds @mr but the table and our caller.  Copies
 * that look it up from now on find it hidden; see the head comment.
 */
static void sroce_frmr_quiesce(struct sroce_mr *mr)
{
	/* The flag before the count; sroce_mr_lookup() the other way. */
	smp_mb();
	while (refcount_read(&mr->obj.ref) > 2)
		cpu_relax();
}

/* Bytes the mapped page list covers from the first byte on. */
static u64 sroce_frmr_capacity(const struct sroce_fr_layout *l)
{
	return ((u64)l->npages << l->shift) - l->offset;
}

/*
 * The IBA's rules for a fast registration: a Free MR of the QP's PD, a
 * key that keeps its index (checked at post time too), rights that make
 * sense (remote write or atomic need local write), and a range the page
 * list covers.
 */
static int sroce_frmr_reg_check(const struct sroce_qp *qp,
				const struct sroce_mr *mr,
				const struct sroce_send_wqe *wqe)
{
	u32 access = wqe->wr.reg.access & ~SROCE_FR_ACCESS_IGNORED;

	if (!mr->hidden || mr->ibmr.pd != &qp->pd->ibpd)
		return -EINVAL;
	if (access & ~SROCE_FR_ACCESS)
		return -EINVAL;
	if ((access & (IB_ACCESS_REMOTE_WRITE | IB_ACCESS_REMOTE_ATOMIC)) &&
	    !(access & IB_ACCESS_LOCAL_WRITE))
		return -EINVAL;
	if (!mr->fr.map.npages ||
	    wqe->wr.reg.length > sroce_frmr_capacity(&mr->fr.map))
		return -EINVAL;
	return 0;
}

static void sroce_frmr_reg_do(struct sroce_mr *mr,
			      const struct sroce_send_wqe *wqe)
{
	/* A copy that looked the old key up may still be reading. */
	sroce_frmr_quiesce(mr);
	mr->fr.reg = mr->fr.map;
	mr->iova = wqe->wr.reg.iova;
	mr->length = wqe->wr.reg.length;
	mr->access = wqe->wr.reg.access & SROCE_FR_ACCESS;
	WRITE_ONCE(mr->key, wqe->wr.reg.key);
	/* Everything above before the flag: pairs with the lookup. */
	smp_store_release(&mr->hidden, false);
}

enum ib_wc_status sroce_frmr_exec_reg(struct sroce_qp *qp,
				      const struct sroce_send_wqe *wqe)
{
	struct sroce_mr *mr;
	int err = -EINVAL;

	mr = sroce_frmr_get(qp->sdev, wqe->wr.reg.key);
	if (!mr)
		goto out;
	spin_lock_bh(&mr->fr.lock);
	err = sroce_frmr_reg_check(qp, mr, wqe);
	if (!err)
		sroce_frmr_reg_do(mr, wqe);
	spin_unlock_bh(&mr->fr.lock);
	sroce_mr_put(mr);
out:
	if (!err)
		return IB_WC_SUCCESS;
	sroce_cnt_inc(sroce_qp_cnt(qp), SROCE_CNT_FR_OP_ERRORS);
	return IB_WC_MW_BIND_ERR;
}

/*
 * Invalidate the fast MR @key names: it must be in the QP's PD and @key
 * its current key.  A Free MR stays Free (as rxe, which ULPs were tested
 * against); an MR of another kind cannot be invalidated.
 */
static int sroce_frmr_invalidate(struct sroce_qp *qp, u32 key)
{
	struct sroce_mr *mr = sroce_frmr_get(qp->sdev, key);
	int err = 0;

	if (!mr)
		return -EINVAL;
	spin_lock_bh(&mr->fr.lock);
	if (mr->ibmr.pd != &qp->pd->ibpd || READ_ONCE(mr->key) != key) {
		err = -EINVAL;
	} else if (!mr->hidden) {
		WRITE_ONCE(mr->hidden, true);
		sroce_frmr_quiesce(mr);
	}
	spin_unlock_bh(&mr->fr.lock);
	sroce_mr_put(mr);
	if (err)
		sroce_cnt_inc(sroce_qp_cnt(qp), SROCE_CNT_FR_OP_ERRORS);
	return err;
}

/* IB_WR_LOCAL_INV of an MR key; failure is a memory management error. */
enum ib_wc_status sroce_frmr_exec_inv(struct sroce_qp *qp, u32 key)
{
	return sroce_frmr_invalidate(qp, key) ? IB_WC_MW_BIND_ERR :
						IB_WC_SUCCESS;
}

/* SEND with Invalidate naming an MR key: 0 or -EINVAL. */
int sroce_frmr_remote_inv(struct sroce_qp *qp, u32 rkey)
{
	return sroce_frmr_invalidate(qp, rkey);
}

/*
 * The kernel address of @iova in a valid fast MR, a range that
 * sroce_mr_check() accepted, and in *@room the bytes that follow it in
 * the same page.  NULL if the page list does not reach (never, after the
 * registration's check; not trusted).
 */
void *sroce_frmr_kaddr(const struct sroce_mr *mr, u64 iova, u32 *room)
{
	const struct sroce_fr_layout *l = &mr->fr.reg;
	u64 off = iova - mr->iova + l->offset;
	u64 idx = off >> l->shift;
	u64 pgoff = off & ((1ULL << l->shift) - 1);

	if (idx >= l->npages || idx >= mr->fr.max)
		return NULL;
	*room = min_t(u64, U32_MAX, (1ULL << l->shift) - pgoff);
	return (void *)(uintptr_t)(mr->fr.pages[idx] + pgoff);
}
