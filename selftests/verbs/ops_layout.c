// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * ops_layout - check our struct verbs_context_ops against the installed
 * libibverbs, on the host, without any device.
 *
 * verbs_set_ops() copies each slot of the provider's table into the
 * library's private copy and, for most slots, also into a public field of
 * struct verbs_context or struct ibv_context_ops (<infiniband/verbs.h>),
 * whose names we can trust.  So: fill a table declared with
 * tools/lib/sroce/verbs-private.h with distinct fake pointers, let the real
 * verbs_set_ops() copy it into a scratch context, and check that every
 * public mirror received the pointer of the slot with the same name.  Two
 * swapped, missing or extra slots in our declaration show up as mismatches.
 *
 * The pointers are never called.  Slots without a public mirror (the ops
 * added since ibv_context_ops froze: query_port, import_*, set_ece...) are
 * checked in a VM by abi_ops.  Output is TAP.
 */
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <infiniband/verbs.h>

#include "verbs-private.h"

/* In libibverbs 44 (amd64), the private copy of the table starts here. */
#define PRIV_OPS_OFFSET	0x18

struct mirror {
	const char *name;
	const void *pub;	/* the public field verbs_set_ops() fills */
	const void *slot;	/* our table's slot of that name */
};

static int tap_count, tap_failed;

static void tap(bool ok, const char *what, const char *detail)
{
	printf("%s %d - %s%s\n", ok ? "ok" : "not ok", ++tap_count, what,
	       detail);
	if (!ok)
		tap_failed++;
}

/* Distinct, recognisable, never-called values in every slot. */
static void table_fill(struct verbs_context_ops *tbl)
{
	uintptr_t v[SROCE_VERBS_CONTEXT_OPS_SLOTS];
	int i;

	for (i = 0; i < SROCE_VERBS_CONTEXT_OPS_SLOTS; i++)
		v[i] = 0x5eed0000 + 0x10 * (i + 1);
	memcpy(tbl, v, sizeof(v));
}

#define VCTX(op, field)	{ #op, &vctx->field, &tbl->op }
#define CTX(op, field)	{ #op, &vctx->context.ops.field, &tbl->op }

static int check_mirrors(struct verbs_context *vctx,
			 const struct verbs_context_ops *tbl)
{
	const struct mirror m[] = {
		VCTX(advise_mr, advise_mr),
		VCTX(alloc_dm, alloc_dm),
		CTX(alloc_mw, alloc_mw),
		VCTX(alloc_null_mr, alloc_null_mr),
		VCTX(alloc_parent_domain, alloc_parent_domain),
		CTX(alloc_pd, _compat_alloc_pd),
		VCTX(alloc_td, alloc_td),
		CTX(async_event, _compat_async_event),
		VCTX(attach_counters_point_flow, attach_counters_point_flow),
		CTX(attach_mcast, _compat_attach_mcast),
		CTX(bind_mw, bind_mw),
		VCTX(close_xrcd, close_xrcd),
		CTX(cq_event, _compat_cq_event),
		CTX(create_ah, _compat_create_ah),
		VCTX(create_counters, create_counters),
		CTX(create_cq, _compat_create_cq),
		VCTX(create_flow, ibv_create_flow),
		VCTX(create_flow_action_esp, create_flow_action_esp),
		CTX(create_qp, _compat_create_qp),
		VCTX(create_qp_ex, create_qp_ex),
		VCTX(create_rwq_ind_table, create_rwq_ind_table),
		CTX(create_srq, _compat_create_srq),
		VCTX(create_srq_ex, create_srq_ex),
		VCTX(create_wq, create_wq),
		CTX(dealloc_mw, dealloc_mw),
		CTX(dealloc_pd, _compat_dealloc_pd),
		VCTX(dealloc_td, dealloc_td),
		CTX(dereg_mr, _compat_dereg_mr),
		CTX(destroy_ah, _compat_destroy_ah),
		VCTX(destroy_counters, destroy_counters),
		CTX(destroy_cq, _compat_destroy_cq),
		VCTX(destroy_flow, ibv_destroy_flow),
		VCTX(destroy_flow_action, destroy_flow_action),
		CTX(destroy_qp, _compat_destroy_qp),
		VCTX(destroy_rwq_ind_table, destroy_rwq_ind_table),
		CTX(destroy_srq, _compat_destroy_srq),
		VCTX(destroy_wq, destroy_wq),
		CTX(detach_mcast, _compat_detach_mcast),
		VCTX(free_dm, free_dm),
		VCTX(get_srq_num, get_srq_num),
		VCTX(modify_cq, modify_cq),
		VCTX(modify_flow_action_esp, modify_flow_action_esp),
		CTX(modify_qp, _compat_modify_qp),
		VCTX(modify_qp_rate_limit, modify_qp_rate_limit),
		CTX(modify_srq, _compat_modify_srq),
		VCTX(modify_wq, modify_wq),
		VCTX(open_qp, open_qp),
		VCTX(open_xrcd, open_xrcd),
		CTX(poll_cq, poll_cq),
		CTX(post_recv, post_recv),
		CTX(post_send, post_send),
		VCTX(post_srq_ops, post_srq_ops),
		CTX(post_srq_recv, post_srq_recv),
		VCTX(query_device_ex, query_device_ex),
		CTX(query_qp, _compat_query_qp),
		VCTX(query_rt_values, query_rt_values),
		CTX(query_srq, _compat_query_srq),
		VCTX(read_counters, read_counters),
		VCTX(reg_dm_mr, reg_dm_mr),
		CTX(reg_mr, _compat_reg_mr),
		CTX(req_notify_cq, req_notify_cq),
		CTX(rereg_mr, _compat_rereg_mr),
		CTX(resize_cq, _compat_resize_cq),
	};
	char detail[128];
	size_t i;
	int bad = 0;

	for (i = 0; i < sizeof(m) / sizeof(m[0]); i++) {
		bool ok = !memcmp(m[i].pub, m[i].slot, sizeof(void *));

		if (!ok) {
			uintptr_t got, want;

			memcpy(&got, m[i].pub, sizeof(got));
			memcpy(&want, m[i].slot, sizeof(want));
			snprintf(detail, sizeof(detail),
				 " (public field holds %#lx, our slot %#lx)",
				 (unsigned long)got, (unsigned long)want);
			bad++;
		}
		tap(ok, m[i].name, ok ? " lands in its public mirror" : detail);
	}
	return bad;
}

int main(void)
{
	/* Nonzero guards after the table: an over-read would copy them. */
	struct {
		struct verbs_context_ops tbl;
		uintptr_t guard[8];
	} buf;
	struct verbs_context_ops *tbl = &buf.tbl;
	struct verbs_context *vctx;
	unsigned char *priv, zero[sizeof(buf.guard)] = {};
	int i;

	vctx = calloc(1, sizeof(*vctx));
	/* Generously larger than libibverbs' private struct. */
	priv = calloc(1, 4096);
	if (!vctx || !priv)
		return 2;
	vctx->priv = (struct verbs_ex_private *)priv;

	table_fill(tbl);
	for (i = 0; i < 8; i++)
		buf.guard[i] = 0xbad00000 + i;
	verbs_set_ops(vctx, tbl);

	check_mirrors(vctx, tbl);
#if defined(__x86_64__)
	/* Our table's size equals the number of slots libibverbs copies. */
	tap(!memcmp(priv + PRIV_OPS_OFFSET, tbl, sizeof(*tbl)),
	    "all 76 slots copied verbatim into the private table", "");
	tap(!memcmp(priv + PRIV_OPS_OFFSET + sizeof(*tbl), zero, sizeof(zero)),
	    "nothing read past our 76 slots", "");
#endif
	printf("1..%d\n", tap_count);
	free(priv);
	free(vctx);
	return tap_failed ? 1 : 0;
}
