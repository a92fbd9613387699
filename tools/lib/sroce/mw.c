// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * Memory windows: ibv_alloc_mw(), ibv_dealloc_mw(), ibv_bind_mw() (type
 * 1), and the send WQEs that bind and invalidate windows (IBV_WR_BIND_MW,
 * IBV_WR_LOCAL_INV, IBV_WR_SEND_WITH_INV) for ibv_post_send() and the
 * ibv_qp_ex builders.
 *
 * sroce.ko owns the windows.  A bind is a WQE like any other: the kernel's
 * requester executes it in SQ order and completes it with IBV_WC_BIND_MW
 * (IBV_WC_MW_BIND_ERR when the IBA's rules refuse it).  A type 1 bind
 * through ibv_bind_mw() posts such a WQE on the given QP with the next
 * rkey (ibv_inc_rkey()), and, as the verbs require, updates mw->rkey when
 * the WQE is posted; the consumer learns of a refusal from the completion.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "sroce.h"

/*
 * rdma-core's kern-abi.h request for IB_USER_VERBS_CMD_ALLOC_MW, and the
 * two helpers libibverbs exports at IBVERBS_PRIVATE_34 (see
 * verbs-private.h for the conventions).  ibv_cmd_alloc_mw() fills mw's
 * context, pd, rkey, handle and type.
 */
struct ibv_alloc_mw {
	struct ib_uverbs_cmd_hdr hdr;
	struct ib_uverbs_alloc_mw core_payload;
};

int ibv_cmd_alloc_mw(struct ibv_pd *pd, enum ibv_mw_type type,
		     struct ibv_mw *mw, struct ibv_alloc_mw *cmd,
		     size_t cmd_size, struct ib_uverbs_alloc_mw_resp *resp,
		     size_t resp_size);
int ibv_cmd_dealloc_mw(struct ibv_mw *mw);

struct sroce_mw {
	struct ibv_mw ibv_mw;
	struct sroce_pd *parent;	/* parent domain held, or NULL */
};

static struct sroce_mw *to_smw(struct ibv_mw *ibmw)
{
	return container_of(ibmw, struct sroce_mw, ibv_mw);
}

/*
 * Types 1 and 2 (2B); the kernel refuses any other type with EINVAL,
 * which is what an application asking for one should see.
 */
static struct ibv_mw *sroce_alloc_mw(struct ibv_pd *ibpd,
				     enum ibv_mw_type type)
{
	struct ib_uverbs_alloc_mw_resp resp = {};
	struct ibv_alloc_mw cmd = {};
	struct sroce_mw *mw;
	int ret;

	mw = calloc(1, sizeof(*mw));
	if (!mw)
		return NULL;
	mw->parent = sroce_pd_get(ibpd);
	ret = ibv_cmd_alloc_mw(sroce_pd_real(ibpd), type, &mw->ibv_mw, &cmd,
			       sizeof(cmd), &resp, sizeof(resp));
	if (ret) {
		sroce_pd_put(mw->parent);
		free(mw);
		errno = ret;
		return NULL;
	}
	/* As for MRs and QPs: the PD the caller gave, parent or not. */
	mw->ibv_mw.pd = ibpd;
	return &mw->ibv_mw;
}

static int sroce_dealloc_mw(struct ibv_mw *ibmw)
{
	struct sroce_mw *mw = to_smw(ibmw);
	int ret;

	ret = ibv_cmd_dealloc_mw(ibmw);
	if (ret)
		return ret;
	sroce_pd_put(mw->parent);
	free(mw);
	return 0;
}

/*
 * What a bind can be refused for before it is posted: no window, a range
 * without an MR, a zero-based window (not offered).  The kernel checks
 * the rest when it executes the WQE.
 */
int sroce_mw_bind_check(const struct ibv_mw *mw,
			const struct ibv_mw_bind_info *info)
{
	if (!mw || (!info->mr && (info->addr || info->length)) ||
	    info->mw_access_flags & IBV_ACCESS_ZERO_BASED)
		return EINVAL;
	return 0;
}

void sroce_wqe_bind(struct sroce_send_wqe *wqe, const struct ibv_mw *mw,
		    uint32_t rkey, const struct ibv_mw_bind_info *info)
{
	wqe->wr.bind.addr = info->addr;
	wqe->wr.bind.length = info->mr ? info->length : 0;
	wqe->wr.bind.mw_rkey = mw->rkey;
	wqe->wr.bind.new_rkey = rkey;
	wqe->wr.bind.mr_lkey = info->mr ? info->mr->lkey : 0;
	wqe->wr.bind.access = info->mw_access_flags;
}

/* ibv_bind_mw(): libibverbs has checked the type and the PDs. */
static int sroce_bind_mw(struct ibv_qp *ibqp, struct ibv_mw *mw,
			 struct ibv_mw_bind *bind)
{
	struct ibv_send_wr wr = {
		.wr_id = bind->wr_id,
		.opcode = IBV_WR_BIND_MW,
		.send_flags = bind->send_flags,
		.bind_mw = {
			.mw = mw,
			.rkey = ibv_inc_rkey(mw->rkey),
			.bind_info = bind->bind_info,
		},
	};
	struct ibv_send_wr *bad = NULL;
	int ret;

	if (mw->type != IBV_MW_TYPE_1)
		return EINVAL;
	ret = sroce_post_send(ibqp, &wr, &bad);
	/* Posted (a failed doorbell leaves bad NULL): the key is the new one. */
	if (!ret || !bad)
		mw->rkey = wr.bind_mw.rkey;
	return ret;
}

const struct verbs_context_ops sroce_mw_ops = {
	.alloc_mw = sroce_alloc_mw,
	.bind_mw = sroce_bind_mw,
	.dealloc_mw = sroce_dealloc_mw,
};

/* ------------------------------------------------------------------ */
/* ibv_qp_ex builders                                                  */
/* ------------------------------------------------------------------ */

void sroce_mw_wr_bind(struct ibv_qp_ex *x, struct ibv_mw *mw, uint32_t rkey,
		      const struct ibv_mw_bind_info *info)
{
	struct sroce_send_wqe *wqe = sroce_wr_new(x, IBV_WR_BIND_MW);

	if (!wqe)
		return;
	if (sroce_mw_bind_check(mw, info)) {
		sroce_wr_fail(ex_to_sqp(x), EINVAL);
		return;
	}
	sroce_wqe_bind(wqe, mw, rkey, info);
}

void sroce_mw_wr_local_inv(struct ibv_qp_ex *x, uint32_t invalidate_rkey)
{
	struct sroce_send_wqe *wqe = sroce_wr_new(x, IBV_WR_LOCAL_INV);

	if (wqe)
		wqe->imm_data = invalidate_rkey;
}

void sroce_mw_wr_send_inv(struct ibv_qp_ex *x, uint32_t invalidate_rkey)
{
	struct sroce_send_wqe *wqe = sroce_wr_new(x, IBV_WR_SEND_WITH_INV);

	if (wqe)
		wqe->imm_data = invalidate_rkey;
}
