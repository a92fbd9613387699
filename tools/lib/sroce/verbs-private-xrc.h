/* SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause */
/*
 * verbs-private-xrc.h - the part of libibverbs' private provider ABI
 * (IBVERBS_PRIVATE_34, rdma-core 44) that XRC uses, declared in our own
 * words like verbs-private.h: the domain and SRQ objects the core shares
 * with providers, the write() command buffers and the ibv_cmd_*()
 * helpers, with the sizes and table offsets libibverbs.so.1 44.0 uses
 * pinned below.
 */
#ifndef SROCE_VERBS_PRIVATE_XRC_H
#define SROCE_VERBS_PRIVATE_XRC_H

#include "verbs-private-ud.h"

/* verbs_xrcd.comp_mask: handle is valid (always, for a 44 provider). */
enum {
	VERBS_XRCD_HANDLE	= 1 << 0,
};

/*
 * A provider's XRC domain embeds this; ibv_cmd_open_xrcd() fills the
 * context and the kernel's handle, which ibv_cmd_create_qp_ex(),
 * ibv_cmd_create_srq_ex() and ibv_cmd_open_qp() then read.
 */
struct verbs_xrcd {
	struct ibv_xrcd xrcd;
	uint32_t comp_mask;
	uint32_t handle;
};

/*
 * A provider's SRQ embeds this when it may be an XRC SRQ:
 * ibv_cmd_create_srq_ex() records the type, domain, CQ and the SRQ
 * number the kernel gave it here.
 */
struct verbs_srq {
	struct ibv_srq srq;
	enum ibv_srq_type srq_type;
	struct verbs_xrcd *xrcd;
	struct ibv_cq *cq;
	uint32_t srq_num;
};

/* Command buffers: the uverbs header, then the kernel's request struct. */
struct ibv_open_xrcd {
	struct ib_uverbs_cmd_hdr hdr;
	struct ib_uverbs_open_xrcd core_payload;
};

struct ibv_create_xsrq {
	struct ib_uverbs_cmd_hdr hdr;
	struct ib_uverbs_create_xsrq core_payload;
};

struct ibv_open_qp {
	struct ib_uverbs_cmd_hdr hdr;
	struct ib_uverbs_open_qp core_payload;
};

/*
 * Requires comp_mask FD | OFLAGS (EINVAL otherwise); sets
 * xrcd->xrcd.context, and comp_mask and handle when @vxrcd_size says
 * the struct has them.
 */
int ibv_cmd_open_xrcd(struct ibv_context *context, struct verbs_xrcd *xrcd,
		      int vxrcd_size, struct ibv_xrcd_init_attr *attr,
		      struct ibv_open_xrcd *cmd, size_t cmd_size,
		      struct ib_uverbs_open_xrcd_resp *resp, size_t resp_size);
int ibv_cmd_close_xrcd(struct verbs_xrcd *xrcd);
/*
 * Requires comp_mask PD, and for an XRC SRQ XRCD and CQ (EINVAL); fills
 * the ibv_srq like ibv_cmd_create_srq() and the verbs_srq fields, and
 * writes the kernel's max_wr and max_sge back into attr_ex->attr.
 */
int ibv_cmd_create_srq_ex(struct ibv_context *context, struct verbs_srq *srq,
			  struct ibv_srq_init_attr_ex *attr_ex,
			  struct ibv_create_xsrq *cmd, size_t cmd_size,
			  struct ib_uverbs_create_srq_resp *resp,
			  size_t resp_size);
/*
 * Requires comp_mask XRCD | NUM | TYPE (EINVAL); fills the ibv_qp with
 * no PD, CQs or SRQ and state IBV_QPS_UNKNOWN.
 */
int ibv_cmd_open_qp(struct ibv_context *context, struct verbs_qp *qp,
		    int vqp_sz, struct ibv_qp_open_attr *attr,
		    struct ibv_open_qp *cmd, size_t cmd_size,
		    struct ib_uverbs_create_qp_resp *resp, size_t resp_size);

/* Sizes rdma-core 44 builds these commands with. */
SROCE_ABI_ASSERT(sizeof(struct ibv_open_xrcd) == 24);
SROCE_ABI_ASSERT(sizeof(struct ibv_create_xsrq) == 56);
SROCE_ABI_ASSERT(sizeof(struct ibv_open_qp) == 40);
SROCE_ABI_ASSERT(sizeof(struct ib_uverbs_open_xrcd_resp) == 4);

#if defined(__x86_64__)
SROCE_ABI_ASSERT(offsetof(struct verbs_xrcd, handle) == 12);
SROCE_ABI_ASSERT(offsetof(struct verbs_srq, srq_type) == 0x80);
SROCE_ABI_ASSERT(offsetof(struct verbs_srq, srq_num) == 0x98);
/* The slots verbs_set_ops() reads for these verbs (8 bytes each). */
SROCE_ABI_ASSERT(offsetof(struct verbs_context_ops, close_xrcd) == 0x58);
SROCE_ABI_ASSERT(offsetof(struct verbs_context_ops, create_srq_ex) == 0xb8);
SROCE_ABI_ASSERT(offsetof(struct verbs_context_ops, get_srq_num) == 0x148);
SROCE_ABI_ASSERT(offsetof(struct verbs_context_ops, open_qp) == 0x198);
SROCE_ABI_ASSERT(offsetof(struct verbs_context_ops, open_xrcd) == 0x1a0);
#endif

#endif /* SROCE_VERBS_PRIVATE_XRC_H */
