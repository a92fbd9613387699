/* SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause */
/*
 * verbs-private-ud.h - the part of libibverbs' private provider ABI
 * (IBVERBS_PRIVATE_34, rdma-core 44) that shared receive queues and
 * address handles use, declared in our own words like verbs-private.h:
 * the write() command buffers and the ibv_cmd_*() helpers, with the sizes
 * and table offsets libibverbs.so.1 44.0 uses pinned below.
 */
#ifndef SROCE_VERBS_PRIVATE_UD_H
#define SROCE_VERBS_PRIVATE_UD_H

#include "verbs-private.h"

/* Command buffers: the uverbs header, then the kernel's request struct. */
struct ibv_create_srq {
	struct ib_uverbs_cmd_hdr hdr;
	struct ib_uverbs_create_srq core_payload;
};

struct ibv_modify_srq {
	struct ib_uverbs_cmd_hdr hdr;
	struct ib_uverbs_modify_srq core_payload;
};

struct ibv_query_srq {
	struct ib_uverbs_cmd_hdr hdr;
	struct ib_uverbs_query_srq core_payload;
};

/*
 * Fills srq->handle, pd, context, the mutex and cond, and writes the
 * kernel's actual max_wr and max_sge back into attr->attr.
 */
int ibv_cmd_create_srq(struct ibv_pd *pd, struct ibv_srq *srq,
		       struct ibv_srq_init_attr *attr,
		       struct ibv_create_srq *cmd, size_t cmd_size,
		       struct ib_uverbs_create_srq_resp *resp,
		       size_t resp_size);
int ibv_cmd_modify_srq(struct ibv_srq *srq, struct ibv_srq_attr *srq_attr,
		       int srq_attr_mask, struct ibv_modify_srq *cmd,
		       size_t cmd_size);
int ibv_cmd_query_srq(struct ibv_srq *srq, struct ibv_srq_attr *srq_attr,
		      struct ibv_query_srq *cmd, size_t cmd_size);
/* Waits for the SRQ's async events to be acknowledged. */
int ibv_cmd_destroy_srq(struct ibv_srq *srq);

/*
 * Builds the CREATE_AH command from @attr itself; the response is
 * struct ib_uverbs_create_ah_resp followed by the driver's data.  Sets
 * ah->handle.
 */
int ibv_cmd_create_ah(struct ibv_pd *pd, struct ibv_ah *ah,
		      struct ibv_ah_attr *attr,
		      struct ib_uverbs_create_ah_resp *resp,
		      size_t resp_size);
int ibv_cmd_destroy_ah(struct ibv_ah *ah);

/* Sizes rdma-core 44 builds these commands with. */
SROCE_ABI_ASSERT(sizeof(struct ibv_create_srq) == 40);
SROCE_ABI_ASSERT(sizeof(struct ibv_modify_srq) == 24);
SROCE_ABI_ASSERT(sizeof(struct ibv_query_srq) == 24);
SROCE_ABI_ASSERT(sizeof(struct ib_uverbs_create_srq_resp) == 16);
SROCE_ABI_ASSERT(sizeof(struct ib_uverbs_create_ah_resp) == 4);

#if defined(__x86_64__)
/* The slots verbs_set_ops() reads for these verbs (8 bytes each). */
SROCE_ABI_ASSERT(offsetof(struct verbs_context_ops, create_ah) == 0x68);
SROCE_ABI_ASSERT(offsetof(struct verbs_context_ops, create_srq) == 0xb0);
SROCE_ABI_ASSERT(offsetof(struct verbs_context_ops, destroy_ah) == 0xe8);
SROCE_ABI_ASSERT(offsetof(struct verbs_context_ops, destroy_srq) == 0x120);
SROCE_ABI_ASSERT(offsetof(struct verbs_context_ops, modify_srq) == 0x188);
SROCE_ABI_ASSERT(offsetof(struct verbs_context_ops, post_srq_recv) == 0x1c8);
SROCE_ABI_ASSERT(offsetof(struct verbs_context_ops, query_srq) == 0x200);
#endif

#endif /* SROCE_VERBS_PRIVATE_UD_H */
