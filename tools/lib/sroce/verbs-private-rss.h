/* SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause */
/*
 * verbs-private-rss.h - the part of libibverbs' private provider ABI
 * (IBVERBS_PRIVATE_34, rdma-core 44) that receive work queues,
 * indirection tables and RSS QPs use, declared in our own words like
 * verbs-private.h: the extended write() command buffers and the
 * ibv_cmd_*() helpers, with the sizes libibverbs.so.1 44.0 builds them
 * with pinned below (read from its ibv_cmd_create_wq: 0x40 and 0x18,
 * ibv_cmd_modify_wq: 0x30, ibv_cmd_create_qp_ex2: 0x58 and 0x28).
 *
 * Each helper takes the command and response buffers as the caller lays
 * them out: the core structure, then the provider's data at exactly its
 * size (libibverbs cuts the two apart there), as for the other commands.
 */
#ifndef SROCE_VERBS_PRIVATE_RSS_H
#define SROCE_VERBS_PRIVATE_RSS_H

#include "verbs-private.h"

/* Extended commands: the two headers, then the kernel's request struct. */
struct ibv_create_wq {
	struct ex_hdr hdr;
	struct ib_uverbs_ex_create_wq core_payload;
};

struct ibv_modify_wq {
	struct ex_hdr hdr;
	struct ib_uverbs_ex_modify_wq core_payload;
};

struct ibv_create_qp_ex {
	struct ex_hdr hdr;
	struct ib_uverbs_ex_create_qp core_payload;
};

/*
 * Fails with EINVAL on comp_mask bits beyond IBV_WQ_INIT_ATTR_FLAGS and
 * EOPNOTSUPP on unknown create flags; fills wq's context, pd, cq,
 * wq_type, handle and wq_num, and writes the kernel's max_wr and max_sge
 * back into @wq_init_attr.  ibv_create_wq() then sets wq_context, the
 * mutex, cond and events_completed; the provider sets post_recv.
 */
int ibv_cmd_create_wq(struct ibv_context *context,
		      struct ibv_wq_init_attr *wq_init_attr,
		      struct ibv_wq *wq, struct ibv_create_wq *cmd,
		      size_t cmd_size,
		      struct ib_uverbs_ex_create_wq_resp *resp,
		      size_t resp_size);
/*
 * EINVAL on attr_mask bits beyond IBV_WQ_ATTR_FLAGS; sends curr_wq_state
 * and wq_state whatever the mask (the kernel reads them by the mask) and
 * sets wq->state after a successful IBV_WQ_ATTR_STATE.
 */
int ibv_cmd_modify_wq(struct ibv_wq *wq, struct ibv_wq_attr *attr,
		      struct ibv_modify_wq *cmd, size_t cmd_size);
/* Waits for the WQ's events to be acknowledged, as ibv_destroy_wq() says. */
int ibv_cmd_destroy_wq(struct ibv_wq *wq);
/*
 * Sends the handles of the 2^log_ind_tbl_size WQs of @init_attr (no
 * provider data); fills ind_tbl_handle, ind_tbl_num and context.
 */
int ibv_cmd_create_rwq_ind_table(struct ibv_context *context,
				 struct ibv_rwq_ind_table_init_attr *init_attr,
				 struct ibv_rwq_ind_table *rwq_ind_table,
				 struct ib_uverbs_ex_create_rwq_ind_table_resp *resp,
				 size_t resp_size);
int ibv_cmd_destroy_rwq_ind_table(struct ibv_rwq_ind_table *rwq_ind_table);
/*
 * ibv_cmd_create_qp_ex() with the extended command: also accepts
 * comp_mask CREATE_FLAGS, MAX_TSO_HEADER, IND_TABLE and RX_HASH, and
 * sends the table's handle (the hash itself is the provider's to send).
 * An RSS QP (IND_TABLE) must ask for no receive queue, recv_cq or SRQ.
 */
int ibv_cmd_create_qp_ex2(struct ibv_context *context, struct verbs_qp *qp,
			  struct ibv_qp_init_attr_ex *attr_ex,
			  struct ibv_create_qp_ex *cmd, size_t cmd_size,
			  struct ib_uverbs_ex_create_qp_resp *resp,
			  size_t resp_size);

/* Sizes rdma-core 44 builds these commands with. */
SROCE_ABI_ASSERT(sizeof(struct ex_hdr) == 24);
SROCE_ABI_ASSERT(sizeof(struct ibv_create_wq) == 0x40);
SROCE_ABI_ASSERT(sizeof(struct ib_uverbs_ex_create_wq_resp) == 0x18);
SROCE_ABI_ASSERT(sizeof(struct ibv_modify_wq) == 0x30);
SROCE_ABI_ASSERT(sizeof(struct ibv_create_qp_ex) == 0x58);
SROCE_ABI_ASSERT(sizeof(struct ib_uverbs_ex_create_qp_resp) == 0x28);
SROCE_ABI_ASSERT(sizeof(struct ib_uverbs_ex_create_rwq_ind_table_resp) == 16);

#if defined(__x86_64__)
/*
 * ibv_cmd_modify_wq reads wq->handle at 0x24 and writes wq->state at
 * 0x28 (<infiniband/verbs.h>, public: pinned here as the helper sees it).
 */
SROCE_ABI_ASSERT(offsetof(struct ibv_wq, handle) == 0x24);
SROCE_ABI_ASSERT(offsetof(struct ibv_wq, state) == 0x28);
/* The slots verbs_set_ops() reads for these verbs (8 bytes each). */
SROCE_ABI_ASSERT(offsetof(struct verbs_context_ops, create_rwq_ind_table) == 0xa8);
SROCE_ABI_ASSERT(offsetof(struct verbs_context_ops, create_wq) == 0xc0);
SROCE_ABI_ASSERT(offsetof(struct verbs_context_ops, destroy_rwq_ind_table) == 0x118);
SROCE_ABI_ASSERT(offsetof(struct verbs_context_ops, destroy_wq) == 0x128);
SROCE_ABI_ASSERT(offsetof(struct verbs_context_ops, modify_wq) == 0x190);
#endif

#endif /* SROCE_VERBS_PRIVATE_RSS_H */
