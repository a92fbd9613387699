// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * Every verb libsroce does not implement yet.
 *
 * sroce_stub_ops fills all 76 slots of verbs_context_ops, and alloc_context
 * installs it first, so nothing falls through to libibverbs' defaults: an
 * unimplemented verb fails the same way on every rdma-core, following the
 * op's own convention (NULL + errno, a returned errno value, or nothing
 * for void ops).  Later stages override single slots from verbs.c, cq.c,
 * qp.c...; a stub is never wrong, only incomplete.
 *
 * Each stub records its name in sroce_stub_last, which selftests read with
 * dlsym() to prove that the public verb they called landed in the slot
 * they meant: a mis-laid ops table shows up as the wrong name.
 */
#include <errno.h>
#include <string.h>

#include "sroce.h"

/* Diagnostic only: the last stub hit, unsynchronised. */
SROCE_EXPORT const char *sroce_stub_last;

/* sroce_stub_<op> -> "<op>" */
#define SROCE_STUB_NAME	(__func__ + sizeof("sroce_stub_") - 1)

static int sroce_stub_err(const char *op)
{
	sroce_stub_last = op;
	sroce_dbg("%s: not supported yet", op);
	errno = EOPNOTSUPP;
	return EOPNOTSUPP;
}

static void *sroce_stub_null(const char *op)
{
	sroce_stub_err(op);
	return NULL;
}

static void sroce_stub_void(const char *op)
{
	sroce_stub_last = op;
	sroce_dbg("%s: ignored", op);
}

/* ---- object creation: NULL with errno ---- */

static struct ibv_dm *sroce_stub_alloc_dm(struct ibv_context *c,
					  struct ibv_alloc_dm_attr *a)
{
	return sroce_stub_null(SROCE_STUB_NAME);
}

static struct ibv_mw *sroce_stub_alloc_mw(struct ibv_pd *pd,
					  enum ibv_mw_type t)
{
	return sroce_stub_null(SROCE_STUB_NAME);
}

static struct ibv_mr *sroce_stub_alloc_null_mr(struct ibv_pd *pd)
{
	return sroce_stub_null(SROCE_STUB_NAME);
}

static struct ibv_pd *
sroce_stub_alloc_parent_domain(struct ibv_context *c,
			       struct ibv_parent_domain_init_attr *a)
{
	return sroce_stub_null(SROCE_STUB_NAME);
}

static struct ibv_pd *sroce_stub_alloc_pd(struct ibv_context *c)
{
	return sroce_stub_null(SROCE_STUB_NAME);
}

static struct ibv_td *sroce_stub_alloc_td(struct ibv_context *c,
					  struct ibv_td_init_attr *a)
{
	return sroce_stub_null(SROCE_STUB_NAME);
}

static struct ibv_ah *sroce_stub_create_ah(struct ibv_pd *pd,
					   struct ibv_ah_attr *a)
{
	return sroce_stub_null(SROCE_STUB_NAME);
}

static struct ibv_counters *
sroce_stub_create_counters(struct ibv_context *c,
			   struct ibv_counters_init_attr *a)
{
	return sroce_stub_null(SROCE_STUB_NAME);
}

static struct ibv_cq *sroce_stub_create_cq(struct ibv_context *c, int cqe,
					   struct ibv_comp_channel *ch, int vec)
{
	return sroce_stub_null(SROCE_STUB_NAME);
}

static struct ibv_cq_ex *sroce_stub_create_cq_ex(struct ibv_context *c,
						 struct ibv_cq_init_attr_ex *a)
{
	return sroce_stub_null(SROCE_STUB_NAME);
}

static struct ibv_flow *sroce_stub_create_flow(struct ibv_qp *qp,
					       struct ibv_flow_attr *a)
{
	return sroce_stub_null(SROCE_STUB_NAME);
}

static struct ibv_flow_action *
sroce_stub_create_flow_action_esp(struct ibv_context *c,
				  struct ibv_flow_action_esp_attr *a)
{
	return sroce_stub_null(SROCE_STUB_NAME);
}

static struct ibv_qp *sroce_stub_create_qp(struct ibv_pd *pd,
					   struct ibv_qp_init_attr *a)
{
	return sroce_stub_null(SROCE_STUB_NAME);
}

static struct ibv_qp *sroce_stub_create_qp_ex(struct ibv_context *c,
					      struct ibv_qp_init_attr_ex *a)
{
	return sroce_stub_null(SROCE_STUB_NAME);
}

static struct ibv_rwq_ind_table *
sroce_stub_create_rwq_ind_table(struct ibv_context *c,
				struct ibv_rwq_ind_table_init_attr *a)
{
	return sroce_stub_null(SROCE_STUB_NAME);
}

static struct ibv_srq *sroce_stub_create_srq(struct ibv_pd *pd,
					     struct ibv_srq_init_attr *a)
{
	return sroce_stub_null(SROCE_STUB_NAME);
}

static struct ibv_srq *sroce_stub_create_srq_ex(struct ibv_context *c,
						struct ibv_srq_init_attr_ex *a)
{
	return sroce_stub_null(SROCE_STUB_NAME);
}

static struct ibv_wq *sroce_stub_create_wq(struct ibv_context *c,
					   struct ibv_wq_init_attr *a)
{
	return sroce_stub_null(SROCE_STUB_NAME);
}

static struct ibv_dm *sroce_stub_import_dm(struct ibv_context *c,
					   uint32_t handle)
{
	return sroce_stub_null(SROCE_STUB_NAME);
}

static struct ibv_mr *sroce_stub_import_mr(struct ibv_pd *pd, uint32_t handle)
{
	return sroce_stub_null(SROCE_STUB_NAME);
}

static struct ibv_pd *sroce_stub_import_pd(struct ibv_context *c,
					   uint32_t handle)
{
	return sroce_stub_null(SROCE_STUB_NAME);
}

static struct ibv_qp *sroce_stub_open_qp(struct ibv_context *c,
					 struct ibv_qp_open_attr *a)
{
	return sroce_stub_null(SROCE_STUB_NAME);
}

static struct ibv_xrcd *sroce_stub_open_xrcd(struct ibv_context *c,
					     struct ibv_xrcd_init_attr *a)
{
	return sroce_stub_null(SROCE_STUB_NAME);
}

static struct ibv_mr *sroce_stub_reg_dm_mr(struct ibv_pd *pd,
					   struct ibv_dm *dm, uint64_t off,
					   size_t len, unsigned int access)
{
	return sroce_stub_null(SROCE_STUB_NAME);
}

static struct ibv_mr *sroce_stub_reg_dmabuf_mr(struct ibv_pd *pd,
					       uint64_t off, size_t len,
					       uint64_t iova, int fd,
					       int access)
{
	return sroce_stub_null(SROCE_STUB_NAME);
}

static struct ibv_mr *sroce_stub_reg_mr(struct ibv_pd *pd, void *addr,
					size_t len, uint64_t hca_va,
					int access)
{
	return sroce_stub_null(SROCE_STUB_NAME);
}

/* ---- everything returning an errno value ---- */

static int sroce_stub_advise_mr(struct ibv_pd *pd,
				enum ibv_advise_mr_advice advice,
				uint32_t flags, struct ibv_sge *sg,
				uint32_t nsge)
{
	return sroce_stub_err(SROCE_STUB_NAME);
}

static int sroce_stub_attach_counters_point_flow(
	struct ibv_counters *c, struct ibv_counter_attach_attr *a,
	struct ibv_flow *f)
{
	return sroce_stub_err(SROCE_STUB_NAME);
}

static int sroce_stub_attach_mcast(struct ibv_qp *qp, const union ibv_gid *g,
				   uint16_t lid)
{
	return sroce_stub_err(SROCE_STUB_NAME);
}

static int sroce_stub_bind_mw(struct ibv_qp *qp, struct ibv_mw *mw,
			      struct ibv_mw_bind *b)
{
	return sroce_stub_err(SROCE_STUB_NAME);
}

static int sroce_stub_close_xrcd(struct ibv_xrcd *x)
{
	return sroce_stub_err(SROCE_STUB_NAME);
}

static int sroce_stub_dealloc_mw(struct ibv_mw *mw)
{
	return sroce_stub_err(SROCE_STUB_NAME);
}

static int sroce_stub_dealloc_pd(struct ibv_pd *pd)
{
	return sroce_stub_err(SROCE_STUB_NAME);
}

static int sroce_stub_dealloc_td(struct ibv_td *td)
{
	return sroce_stub_err(SROCE_STUB_NAME);
}

static int sroce_stub_dereg_mr(struct verbs_mr *vmr)
{
	return sroce_stub_err(SROCE_STUB_NAME);
}

static int sroce_stub_destroy_ah(struct ibv_ah *ah)
{
	return sroce_stub_err(SROCE_STUB_NAME);
}

static int sroce_stub_destroy_counters(struct ibv_counters *c)
{
	return sroce_stub_err(SROCE_STUB_NAME);
}

static int sroce_stub_destroy_cq(struct ibv_cq *cq)
{
	return sroce_stub_err(SROCE_STUB_NAME);
}

static int sroce_stub_destroy_flow(struct ibv_flow *f)
{
	return sroce_stub_err(SROCE_STUB_NAME);
}

static int sroce_stub_destroy_flow_action(struct ibv_flow_action *a)
{
	return sroce_stub_err(SROCE_STUB_NAME);
}

static int sroce_stub_destroy_qp(struct ibv_qp *qp)
{
	return sroce_stub_err(SROCE_STUB_NAME);
}

static int sroce_stub_destroy_rwq_ind_table(struct ibv_rwq_ind_table *t)
{
	return sroce_stub_err(SROCE_STUB_NAME);
}

static int sroce_stub_destroy_srq(struct ibv_srq *srq)
{
	return sroce_stub_err(SROCE_STUB_NAME);
}

static int sroce_stub_destroy_wq(struct ibv_wq *wq)
{
	return sroce_stub_err(SROCE_STUB_NAME);
}

static int sroce_stub_detach_mcast(struct ibv_qp *qp, const union ibv_gid *g,
				   uint16_t lid)
{
	return sroce_stub_err(SROCE_STUB_NAME);
}

static int sroce_stub_free_dm(struct ibv_dm *dm)
{
	return sroce_stub_err(SROCE_STUB_NAME);
}

static int sroce_stub_get_srq_num(struct ibv_srq *srq, uint32_t *num)
{
	return sroce_stub_err(SROCE_STUB_NAME);
}

static int sroce_stub_modify_cq(struct ibv_cq *cq, struct ibv_modify_cq_attr *a)
{
	return sroce_stub_err(SROCE_STUB_NAME);
}

static int sroce_stub_modify_flow_action_esp(struct ibv_flow_action *act,
					     struct ibv_flow_action_esp_attr *a)
{
	return sroce_stub_err(SROCE_STUB_NAME);
}

static int sroce_stub_modify_qp(struct ibv_qp *qp, struct ibv_qp_attr *a,
				int mask)
{
	return sroce_stub_err(SROCE_STUB_NAME);
}

static int sroce_stub_modify_qp_rate_limit(struct ibv_qp *qp,
					   struct ibv_qp_rate_limit_attr *a)
{
	return sroce_stub_err(SROCE_STUB_NAME);
}

static int sroce_stub_modify_srq(struct ibv_srq *srq, struct ibv_srq_attr *a,
				 int mask)
{
	return sroce_stub_err(SROCE_STUB_NAME);
}

static int sroce_stub_modify_wq(struct ibv_wq *wq, struct ibv_wq_attr *a)
{
	return sroce_stub_err(SROCE_STUB_NAME);
}

static int sroce_stub_query_device_ex(struct ibv_context *c,
				      const struct ibv_query_device_ex_input *in,
				      struct ibv_device_attr_ex *a, size_t len)
{
	return sroce_stub_err(SROCE_STUB_NAME);
}

static int sroce_stub_query_ece(struct ibv_qp *qp, struct ibv_ece *ece)
{
	return sroce_stub_err(SROCE_STUB_NAME);
}

static int sroce_stub_query_port(struct ibv_context *c, uint8_t port,
				 struct ibv_port_attr *a)
{
	return sroce_stub_err(SROCE_STUB_NAME);
}

static int sroce_stub_query_qp(struct ibv_qp *qp, struct ibv_qp_attr *a,
			       int mask, struct ibv_qp_init_attr *init)
{
	return sroce_stub_err(SROCE_STUB_NAME);
}

static int sroce_stub_query_rt_values(struct ibv_context *c,
				      struct ibv_values_ex *v)
{
	return sroce_stub_err(SROCE_STUB_NAME);
}

static int sroce_stub_query_srq(struct ibv_srq *srq, struct ibv_srq_attr *a)
{
	return sroce_stub_err(SROCE_STUB_NAME);
}

static int sroce_stub_read_counters(struct ibv_counters *c, uint64_t *val,
				    uint32_t n, uint32_t flags)
{
	return sroce_stub_err(SROCE_STUB_NAME);
}

static int sroce_stub_req_notify_cq(struct ibv_cq *cq, int solicited)
{
	return sroce_stub_err(SROCE_STUB_NAME);
}

static int sroce_stub_resize_cq(struct ibv_cq *cq, int cqe)
{
	return sroce_stub_err(SROCE_STUB_NAME);
}

static int sroce_stub_set_ece(struct ibv_qp *qp, struct ibv_ece *ece)
{
	return sroce_stub_err(SROCE_STUB_NAME);
}

/*
 * Overridden by verbs.c; kept so that every slot has a stub.  libibverbs
 * 44 turns any failure into IBV_REREG_MR_ERR_CMD; errno
 * carries the reason.
 */
static int sroce_stub_rereg_mr(struct verbs_mr *vmr, int flags,
			       struct ibv_pd *pd, void *addr, size_t len,
			       int access)
{
	return sroce_stub_err(SROCE_STUB_NAME);
}

/* ---- posting: the whole list is the bad part ---- */

static int sroce_stub_post_recv(struct ibv_qp *qp, struct ibv_recv_wr *wr,
				struct ibv_recv_wr **bad)
{
	*bad = wr;
	return sroce_stub_err(SROCE_STUB_NAME);
}

static int sroce_stub_post_send(struct ibv_qp *qp, struct ibv_send_wr *wr,
				struct ibv_send_wr **bad)
{
	*bad = wr;
	return sroce_stub_err(SROCE_STUB_NAME);
}

static int sroce_stub_post_srq_ops(struct ibv_srq *srq, struct ibv_ops_wr *op,
				   struct ibv_ops_wr **bad)
{
	*bad = op;
	return sroce_stub_err(SROCE_STUB_NAME);
}

static int sroce_stub_post_srq_recv(struct ibv_srq *srq,
				    struct ibv_recv_wr *wr,
				    struct ibv_recv_wr **bad)
{
	*bad = wr;
	return sroce_stub_err(SROCE_STUB_NAME);
}

/* ---- ops with their own error conventions ---- */

/*
 * ibv_poll_cq(): a negative count is the error; a positive one would
 * claim completions.
 */
static int sroce_stub_poll_cq(struct ibv_cq *cq, int n, struct ibv_wc *wc)
{
	return -sroce_stub_err(SROCE_STUB_NAME);
}


/*
 * ibv_query_qp_data_in_order() returns a yes/no answer: "no ordering
 * guarantee" (0) is the only safe one for a verb we do not implement.
 */
static int sroce_stub_query_qp_data_in_order(struct ibv_qp *qp,
					     enum ibv_wr_opcode op,
					     uint32_t flags)
{
	sroce_stub_err(SROCE_STUB_NAME);
	return 0;
}

/* ---- void ops: nothing to undo, nothing to report ---- */

static void sroce_stub_async_event(struct ibv_context *c,
				   struct ibv_async_event *e)
{
	sroce_stub_void(SROCE_STUB_NAME);
}

static void sroce_stub_cq_event(struct ibv_cq *cq)
{
	sroce_stub_void(SROCE_STUB_NAME);
}

/* Overridden by sroce.c; here so that the table has no hole. */
static void sroce_stub_free_context(struct ibv_context *c)
{
	sroce_stub_void(SROCE_STUB_NAME);
}

static void sroce_stub_unimport_dm(struct ibv_dm *dm)
{
	sroce_stub_void(SROCE_STUB_NAME);
}

static void sroce_stub_unimport_mr(struct ibv_mr *mr)
{
	sroce_stub_void(SROCE_STUB_NAME);
}

static void sroce_stub_unimport_pd(struct ibv_pd *pd)
{
	sroce_stub_void(SROCE_STUB_NAME);
}

#define SROCE_STUB(op) .op = sroce_stub_##op

const struct verbs_context_ops sroce_stub_ops = {
	SROCE_STUB(advise_mr),
	SROCE_STUB(alloc_dm),
	SROCE_STUB(alloc_mw),
	SROCE_STUB(alloc_null_mr),
	SROCE_STUB(alloc_parent_domain),
	SROCE_STUB(alloc_pd),
	SROCE_STUB(alloc_td),
	SROCE_STUB(async_event),
	SROCE_STUB(attach_counters_point_flow),
	SROCE_STUB(attach_mcast),
	SROCE_STUB(bind_mw),
	SROCE_STUB(close_xrcd),
	SROCE_STUB(cq_event),
	SROCE_STUB(create_ah),
	SROCE_STUB(create_counters),
	SROCE_STUB(create_cq),
	SROCE_STUB(create_cq_ex),
	SROCE_STUB(create_flow),
	SROCE_STUB(create_flow_action_esp),
	SROCE_STUB(create_qp),
	SROCE_STUB(create_qp_ex),
	SROCE_STUB(create_rwq_ind_table),
	SROCE_STUB(create_srq),
	SROCE_STUB(create_srq_ex),
	SROCE_STUB(create_wq),
	SROCE_STUB(dealloc_mw),
	SROCE_STUB(dealloc_pd),
	SROCE_STUB(dealloc_td),
	SROCE_STUB(dereg_mr),
	SROCE_STUB(destroy_ah),
	SROCE_STUB(destroy_counters),
	SROCE_STUB(destroy_cq),
	SROCE_STUB(destroy_flow),
	SROCE_STUB(destroy_flow_action),
	SROCE_STUB(destroy_qp),
	SROCE_STUB(destroy_rwq_ind_table),
	SROCE_STUB(destroy_srq),
	SROCE_STUB(destroy_wq),
	SROCE_STUB(detach_mcast),
	SROCE_STUB(free_context),
	SROCE_STUB(free_dm),
	SROCE_STUB(get_srq_num),
	SROCE_STUB(import_dm),
	SROCE_STUB(import_mr),
	SROCE_STUB(import_pd),
	SROCE_STUB(modify_cq),
	SROCE_STUB(modify_flow_action_esp),
	SROCE_STUB(modify_qp),
	SROCE_STUB(modify_qp_rate_limit),
	SROCE_STUB(modify_srq),
	SROCE_STUB(modify_wq),
	SROCE_STUB(open_qp),
	SROCE_STUB(open_xrcd),
	SROCE_STUB(poll_cq),
	SROCE_STUB(post_recv),
	SROCE_STUB(post_send),
	SROCE_STUB(post_srq_ops),
	SROCE_STUB(post_srq_recv),
	SROCE_STUB(query_device_ex),
	SROCE_STUB(query_ece),
	SROCE_STUB(query_port),
	SROCE_STUB(query_qp),
	SROCE_STUB(query_qp_data_in_order),
	SROCE_STUB(query_rt_values),
	SROCE_STUB(query_srq),
	SROCE_STUB(read_counters),
	SROCE_STUB(reg_dm_mr),
	SROCE_STUB(reg_dmabuf_mr),
	SROCE_STUB(reg_mr),
	SROCE_STUB(req_notify_cq),
	SROCE_STUB(rereg_mr),
	SROCE_STUB(resize_cq),
	SROCE_STUB(set_ece),
	SROCE_STUB(unimport_dm),
	SROCE_STUB(unimport_mr),
	SROCE_STUB(unimport_pd),
};

/*
 * Designated initialisers leave a forgotten slot NULL without a warning.
 * Returns the first empty slot, or -1 if the table is complete.
 */
int sroce_stub_ops_check(void)
{
	void (*slot[SROCE_VERBS_CONTEXT_OPS_SLOTS])(void);
	int i;

	memcpy(slot, &sroce_stub_ops, sizeof(slot));
	for (i = 0; i < SROCE_VERBS_CONTEXT_OPS_SLOTS; i++)
		if (!slot[i])
			return i;
	return -1;
}
