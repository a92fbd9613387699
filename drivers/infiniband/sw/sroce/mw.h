/* SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause */
/*
 * Memory windows (mw.c): type 1 and type 2B windows over memory regions,
 * bound and invalidated by send queue operations, and the rkey checks of
 * remote access through them.  Include after sroce.h.
 */
#ifndef _SROCE_MW_H
#define _SROCE_MW_H

#include <linux/spinlock.h>
#include <rdma/ib_verbs.h>

#include "table.h"
#include "proto/wire.h"

#define SROCE_MAX_MW		0x100000
/*
 * MW table indices start here, above every MR index (SROCE_MAX_MR is
 * 2^20), so bit 31 of a key tells a window from a region.  Indices stay
 * below 2^24: keys are index << 8 | variant.
 */
#define SROCE_MW_INDEX_MIN	(1U << 23)

/*
 * Send WQE kinds that are local operations: no packet, no PSN.  They
 * extend enum sroce_op_kind (proto/wire.h) past its last value.
 */
#define SROCE_OPK_BIND_MW	(SROCE_OPK_COUNT + 0)
#define SROCE_OPK_LOCAL_INV	(SROCE_OPK_COUNT + 1)
#define SROCE_OPK_REG_MR	(SROCE_OPK_COUNT + 2)	/* frmr.c */

static inline bool sroce_kind_is_local(u8 kind)
{
	return kind == SROCE_OPK_BIND_MW || kind == SROCE_OPK_LOCAL_INV ||
	       kind == SROCE_OPK_REG_MR;
}

enum sroce_mw_state {
	SROCE_MW_FREE,		/* type 2: not bound */
	SROCE_MW_VALID,		/* type 1 always; type 2 while bound */
};

struct sroce_mw {
	struct ib_mw ibmw;
	struct sroce_obj obj;		/* in sdev->mw_table */
	/* Binds, invalidations and remote lookups; BHs off. */
	spinlock_t lock;
	enum sroce_mw_state state;
	struct sroce_mr *mr;		/* bound: a reference and a bind count */
	u64 va;
	u64 length;
	int access;			/* IB_ACCESS_REMOTE_* */
	/*
	 * Type 2B: the QP it is bound to, by identity only (never
	 * dereferenced, so no reference); the QPN as well, so that a new QP
	 * at the same address is not taken for the old one.
	 */
	const struct sroce_qp *qp;
	u32 qpn;
};

static inline struct sroce_mw *to_smw(struct ib_mw *ibmw)
{
	return container_of(ibmw, struct sroce_mw, ibmw);
}

static inline bool sroce_key_is_mw(u32 key)
{
	return (key >> 8) >= SROCE_MW_INDEX_MIN;
}

struct sroce_qp;
struct sroce_mr;
struct sroce_swqe;
struct sroce_send_wqe;

/* Verbs. */
int sroce_mw_alloc(struct ib_mw *ibmw, struct ib_udata *udata);
int sroce_mw_dealloc(struct ib_mw *ibmw);

/* MR hooks: dereg and rereg refuse while windows are bound (-EBUSY). */
int sroce_mw_mr_close(struct sroce_mr *mr);
void sroce_mw_mr_reopen(struct sroce_mr *mr);

/* Remote access: the MR behind a window, range and rights checked. */
struct sroce_mr *sroce_mw_get_mr(struct sroce_qp *qp, u32 rkey, u64 va,
				 u64 len, int access);

/* The requester: executes a bind or local invalidate WQE in SQ order. */
enum ib_wc_status sroce_mw_exec(struct sroce_qp *qp, struct sroce_swqe *w,
				const struct sroce_send_wqe *wqe);

/* The responder: SEND with Invalidate of a window; 0 or -EINVAL. */
int sroce_mw_remote_inv(struct sroce_qp *qp, u32 rkey);

#endif /* _SROCE_MW_H */
