// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * Memory windows.
 *
 * A window grants remote access to part of an MR under its own rkey, and
 * can be moved or revoked without touching the MR.  sroce offers type 1
 * (bound with ibv_bind_mw(), tied to its PD) and type 2B (bound with a
 * BIND_MW work request, tied to the QP that bound it, revoked by a local
 * or remote invalidation).  Both kinds are bound by a WQE that the
 * requester executes in SQ order (req.c), so a bind takes effect after
 * every earlier WQE was sent and before any later one.
 *
 * Windows live in their own table, whose indices start above every MR
 * index: an rkey with bit 31 set names a window (sroce_key_is_mw()).  The
 * packet path resolves such an rkey here, under the window's lock, to the
 * MR behind it with a reference held; the copy then proceeds on the MR.
 *
 * A bound window holds a reference on its MR and counts itself in
 * mr->mw_binds.  Deregistering an MR closes that count (it goes negative)
 * or fails with -EBUSY while windows are bound: the window's reference
 * would otherwise make the deregistration wait forever.  A bind that
 * finds the count closed fails.
 */
#include <linux/random.h>

#include "sroce.h"
#include "rc.h"

#define SROCE_MR_MW_CLOSED	(-1)

/* Rights a window can grant; LOCAL_WRITE is accepted and means nothing. */
#define SROCE_MW_ACCESS_REMOTE	(IB_ACCESS_REMOTE_READ | \
				 IB_ACCESS_REMOTE_WRITE | \
				 IB_ACCESS_REMOTE_ATOMIC)
#define SROCE_MW_ACCESS_OK	(SROCE_MW_ACCESS_REMOTE | IB_ACCESS_LOCAL_WRITE)

static struct sroce_mw *sroce_mw_lookup(struct sroce_dev *sdev, u32 key)
{
	struct sroce_obj *obj = sroce_table_get(&sdev->mw_table, key >> 8);

	return obj ? container_of(obj, struct sroce_mw, obj) : NULL;
}

static void sroce_mw_put(struct sroce_mw *mw)
{
	sroce_obj_put(&mw->obj);
}

int sroce_mw_alloc(struct ib_mw *ibmw, struct ib_udata *udata)
{
	struct sroce_dev *sdev = to_sdev(ibmw->device);
	struct sroce_mw *mw = to_smw(ibmw);
	int err;

	spin_lock_init(&mw->lock);
	/* A type 1 window is valid from the start, bound to nothing. */
	mw->state = ibmw->type == IB_MW_TYPE_1 ? SROCE_MW_VALID :
						  SROCE_MW_FREE;
	err = sroce_table_add(&sdev->mw_table, &mw->obj);
	if (err)
		return err;
	/* Before the rkey is set no lookup can match it. */
	spin_lock_bh(&mw->lock);
	ibmw->rkey = mw->obj.index << 8 | get_random_u8();
	spin_unlock_bh(&mw->lock);
	return 0;
}

/* The MR a bind is about to use: counted, and a reference for the MW. */
static int sroce_mw_mr_hold(struct sroce_mr *mr)
{
	if (!atomic_inc_unless_negative(&mr->mw_binds))
		return -EBUSY;
	/* The caller's lookup reference keeps the count above zero. */
	sroce_obj_get(&mr->obj);
	return 0;
}

/* Drop the binding, if any; mw->lock held (or the MW unreachable). */
static void sroce_mw_unbind(struct sroce_mw *mw)
{
	struct sroce_mr *mr = mw->mr;

	mw->mr = NULL;
	mw->va = 0;
	mw->length = 0;
	mw->access = 0;
	mw->qp = NULL;
	mw->qpn = 0;
	if (!mr)
		return;
	/* Count first: a deregistration then waits only for the put. */
	atomic_dec(&mr->mw_binds);
	sroce_mr_put(mr);
}

int sroce_mw_dealloc(struct ib_mw *ibmw)
{
	struct sroce_mw *mw = to_smw(ibmw);

	/* Waits for the packet path; nobody can find the MW after this. */
	sroce_table_remove(&to_sdev(ibmw->device)->mw_table, &mw->obj);
	sroce_mw_unbind(mw);
	return 0;
}

/*
 * MR deregistration (and re-registration, which replaces the MR): refuse
 * while windows are bound, and let no bind in afterwards.
 */
int sroce_mw_mr_close(struct sroce_mr *mr)
{
	return atomic_cmpxchg(&mr->mw_binds, 0, SROCE_MR_MW_CLOSED) > 0 ?
	       -EBUSY : 0;
}

/* A re-registration failed: the old MR stays and may be bound again. */
void sroce_mw_mr_reopen(struct sroce_mr *mr)
{
	atomic_set(&mr->mw_binds, 0);
}

static bool sroce_mw_bound_to(const struct sroce_mw *mw,
			      const struct sroce_qp *qp)
{
	return mw->qp == qp && mw->qpn == qp->ibqp.qp_num;
}

static bool sroce_mw_in_range(const struct sroce_mw *mw, u64 va, u64 len)
{
	return va >= mw->va && len <= mw->length &&
	       va - mw->va <= mw->length - len;
}

/*
 * May @qp's peer access @len bytes at @va through @mw with @rkey?  Type 1
 * windows serve the QPs of their PD, type 2B windows only the QP that
 * bound them.  That QP may be gone, and a new one, of anybody's, may have
 * its address and number: the PD must match too.
 */
static bool sroce_mw_access_ok(const struct sroce_mw *mw,
			       const struct sroce_qp *qp, u32 rkey, u64 va,
			       u64 len, int access)
{
	if (mw->state != SROCE_MW_VALID || !mw->mr || mw->ibmw.rkey != rkey)
		return false;
	if (mw->ibmw.pd != &qp->pd->ibpd)
		return false;
	if (mw->ibmw.type != IB_MW_TYPE_1 && !sroce_mw_bound_to(mw, qp))
		return false;
	if ((mw->access & access) != access)
		return false;
	return sroce_mw_in_range(mw, va, len);
}

struct sroce_mr *sroce_mw_get_mr(struct sroce_qp *qp, u32 rkey, u64 va,
				 u64 len, int access)
{
	struct sroce_mr *mr = NULL;
	struct sroce_mw *mw;

	mw = sroce_mw_lookup(qp->sdev, rkey);
	if (!mw)
		goto out;
	spin_lock_bh(&mw->lock);
	if (sroce_mw_access_ok(mw, qp, rkey, va, len, access)) {
		/* The window's own reference keeps the MR alive. */
		mr = mw->mr;
		sroce_obj_get(&mr->obj);
	}
	spin_unlock_bh(&mw->lock);
	sroce_mw_put(mw);
out:
	if (!mr)
		sroce_cnt_inc(sroce_qp_cnt(qp), SROCE_CNT_MW_ACCESS_REFUSED);
	return mr;
}

/*
 * The IBA's rules for a bind (C10-72..75, o10-36.2.2, o10-37.2.30/40):
 * the window and the MR are in the QP's PD, a type 1 window is named by
 * its current rkey, a type 2 window must be free and is bound to
 * something, the MR allows binds and, for remote write or atomic rights,
 * local write, and the window lies inside the MR.  Zero-based windows
 * are not offered.
 */
static int sroce_mw_bind_check(const struct sroce_qp *qp,
			       const struct sroce_mw *mw,
			       const struct sroce_mr *mr, u32 mw_rkey,
			       u64 addr, u64 length, u32 access)
{
	if (mw->ibmw.pd != &qp->pd->ibpd || access & ~SROCE_MW_ACCESS_OK)
		return -EINVAL;
	if (mw->ibmw.type == IB_MW_TYPE_1) {
		if (mw->ibmw.rkey != mw_rkey)
			return -EINVAL;
	} else if (mw->state != SROCE_MW_FREE || !mr) {
		return -EINVAL;
	}
	if (!mr)
		return 0;
	/* A fast MR is never pinned by a window (frmr.c). */
	if (mr->type == SROCE_MR_FAST || !(mr->access & IB_ACCESS_MW_BIND))
		return -EACCES;
	if ((access & (IB_ACCESS_REMOTE_WRITE | IB_ACCESS_REMOTE_ATOMIC)) &&
	    !(mr->access & IB_ACCESS_LOCAL_WRITE))
		return -EACCES;
	return sroce_mr_check(mr, qp->pd, addr, length, 0);
}

/* Bind @mw (lock held) to @mr, or to nothing (type 1, length 0). */
static int sroce_mw_bind_do(struct sroce_qp *qp, struct sroce_mw *mw,
			    struct sroce_mr *mr, u64 addr, u64 length,
			    u32 access, u32 new_rkey)
{
	if (mr && sroce_mw_mr_hold(mr))
		return -EBUSY;
	/* A type 1 window may be bound again: the old binding goes. */
	sroce_mw_unbind(mw);
	mw->mr = mr;
	if (mr) {
		mw->va = addr;
		mw->length = length;
		mw->access = access & SROCE_MW_ACCESS_REMOTE;
	}
	if (mw->ibmw.type == IB_MW_TYPE_2) {
		mw->qp = qp;
		mw->qpn = qp->ibqp.qp_num;
	}
	/* The consumer owns the low 8 bits: old rkeys stop working. */
	mw->ibmw.rkey = (mw->ibmw.rkey & ~0xffU) | (new_rkey & 0xff);
	mw->state = SROCE_MW_VALID;
	return 0;
}

static int sroce_mw_bind(struct sroce_qp *qp,
			 const struct sroce_send_wqe *wqe)
{
	u64 addr = wqe->wr.bind.addr, length = wqe->wr.bind.length;
	u32 access = wqe->wr.bind.access;
	struct sroce_mr *mr = NULL;
	struct sroce_mw *mw;
	int err = -EINVAL;

	if (!sroce_key_is_mw(wqe->wr.bind.mw_rkey))
		return -EINVAL;
	mw = sroce_mw_lookup(qp->sdev, wqe->wr.bind.mw_rkey);
	if (!mw)
		return -EINVAL;
	if (length) {
		mr = sroce_mr_lookup(qp->sdev, wqe->wr.bind.mr_lkey);
		if (!mr)
			goto err_put_mw;
	}
	spin_lock_bh(&mw->lock);
	err = sroce_mw_bind_check(qp, mw, mr, wqe->wr.bind.mw_rkey, addr,
				  length, access);
	if (!err)
		err = sroce_mw_bind_do(qp, mw, mr, addr, length, access,
				       wqe->wr.bind.new_rkey);
	spin_unlock_bh(&mw->lock);
	if (mr)
		sroce_mr_put(mr);
err_put_mw:
	sroce_mw_put(mw);
	return err;
}

/*
 * Invalidate the type 2 window @rkey names: it must be bound, in the QP's
 * PD, and for a remote invalidation bound to this very QP (type 2B).
 * Type 1 windows cannot be invalidated (o10-37.2.26).
 */
static int sroce_mw_invalidate(struct sroce_qp *qp, u32 rkey, bool remote)
{
	struct sroce_mw *mw;
	int err = 0;

	/* MR keys go to frmr.c; the callers tell them apart. */
	if (!sroce_key_is_mw(rkey))
		return -EINVAL;
	mw = sroce_mw_lookup(qp->sdev, rkey);
	if (!mw)
		return -EINVAL;
	spin_lock_bh(&mw->lock);
	if (mw->ibmw.type != IB_MW_TYPE_2 || mw->state != SROCE_MW_VALID ||
	    mw->ibmw.rkey != rkey || mw->ibmw.pd != &qp->pd->ibpd ||
	    (remote && !sroce_mw_bound_to(mw, qp))) {
		err = -EINVAL;
	} else {
		sroce_mw_unbind(mw);
		mw->state = SROCE_MW_FREE;
	}
	spin_unlock_bh(&mw->lock);
	sroce_mw_put(mw);
	return err;
}

/*
 * A bind or local invalidation that fails completes with the Memory
 * Management Operation Error (IB_WC_MW_BIND_ERR) and takes the QP to
 * ERROR, as the IBA asks.
 */
enum ib_wc_status sroce_mw_exec(struct sroce_qp *qp, struct sroce_swqe *w,
				const struct sroce_send_wqe *wqe)
{
	int err;

	if (w->kind == SROCE_OPK_BIND_MW)
		err = sroce_mw_bind(qp, wqe);
	else
		err = sroce_mw_invalidate(qp, w->imm, false);
	if (!err)
		return IB_WC_SUCCESS;
	sroce_cnt_inc(sroce_qp_cnt(qp), SROCE_CNT_MW_OP_ERRORS);
	return IB_WC_MW_BIND_ERR;
}

int sroce_mw_remote_inv(struct sroce_qp *qp, u32 rkey)
{
	int err = sroce_mw_invalidate(qp, rkey, true);

	if (err)
		sroce_cnt_inc(sroce_qp_cnt(qp), SROCE_CNT_MW_OP_ERRORS);
	return err;
}
