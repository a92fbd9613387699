// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * The verbs libsroce implements: device and port queries, protection
 * domains and memory regions.  All of them are a single uverbs command;
 * the kernel owns the objects, we only keep the handles libibverbs needs.
 * Parent and thread domains are the exception: the kernel has no such
 * objects, they live here only (see struct sroce_pd).
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>

#include "sroce.h"

/* ------------------------------------------------------------------ */
/* Queries                                                             */
/* ------------------------------------------------------------------ */

/*
 * The kernel reports the firmware version as a number; libibverbs leaves
 * turning it into ibv_device_attr.fw_ver to the provider.  sroce.ko packs
 * major.minor.sub as 16-bit fields, like rxe.
 */
static void sroce_fw_ver_format(char *buf, size_t len, uint64_t raw)
{
	snprintf(buf, len, "%u.%u.%u", (unsigned int)(raw >> 32) & 0xffff,
		 (unsigned int)(raw >> 16) & 0xffff,
		 (unsigned int)raw & 0xffff);
}

/*
 * The hash RSS QPs take, which uverbs has no field for: when the kernel
 * reports RSS (its raw_packet parameter is on) and the caller's struct
 * has room.
 */
static void sroce_rss_caps(struct ibv_device_attr_ex *attr, size_t attr_size)
{
	struct ibv_rss_caps *c = &attr->rss_caps;

	if (attr_size < offsetof(struct ibv_device_attr_ex, rss_caps) +
			sizeof(*c) || !c->supported_qpts)
		return;
	c->rx_hash_function = IBV_RX_HASH_FUNC_TOEPLITZ;
	c->rx_hash_fields_mask = IBV_RX_HASH_SRC_IPV4 | IBV_RX_HASH_DST_IPV4 |
				 IBV_RX_HASH_SRC_IPV6 | IBV_RX_HASH_DST_IPV6 |
				 IBV_RX_HASH_SRC_PORT_TCP |
				 IBV_RX_HASH_DST_PORT_TCP |
				 IBV_RX_HASH_SRC_PORT_UDP |
				 IBV_RX_HASH_DST_PORT_UDP;
}

/*
 * Also serves ibv_query_device(): libibverbs 44 implements it by calling
 * this op with attr_size == sizeof(struct ibv_device_attr).
 */
static int sroce_query_device_ex(struct ibv_context *ibctx,
				 const struct ibv_query_device_ex_input *input,
				 struct ibv_device_attr_ex *attr,
				 size_t attr_size)
{
	struct ib_uverbs_ex_query_device_resp resp = {};
	size_t resp_size = sizeof(resp);
	int ret;

	ret = ibv_cmd_query_device_any(ibctx, input, attr, attr_size, &resp,
				       &resp_size);
	if (ret)
		return ret;

	if (attr_size >= sizeof(attr->orig_attr.fw_ver))
		sroce_fw_ver_format(attr->orig_attr.fw_ver,
				    sizeof(attr->orig_attr.fw_ver),
				    resp.base.fw_ver);
	sroce_rss_caps(attr, attr_size);
	return 0;
}

static int sroce_query_port(struct ibv_context *ibctx, uint8_t port_num,
			    struct ibv_port_attr *attr)
{
	struct ibv_query_port cmd = {};

	return ibv_cmd_query_port(ibctx, port_num, attr, &cmd, sizeof(cmd));
}

/* ------------------------------------------------------------------ */
/* Protection domains                                                  */
/* ------------------------------------------------------------------ */

struct sroce_alloc_pd_resp_buf {
	struct ib_uverbs_alloc_pd_resp ibv;
	struct sroce_alloc_pd_resp drv;
};
_Static_assert(offsetof(struct sroce_alloc_pd_resp_buf, drv) ==
	       sizeof(struct ib_uverbs_alloc_pd_resp),
	       "driver response must follow the core one without padding");

static struct ibv_pd *sroce_alloc_pd(struct ibv_context *ibctx)
{
	struct sroce_alloc_pd_resp_buf resp = {};
	struct ibv_alloc_pd cmd = {};
	struct sroce_pd *pd;
	int ret;

	pd = calloc(1, sizeof(*pd));
	if (!pd)
		return NULL;

	ret = ibv_cmd_alloc_pd(ibctx, &pd->ibv_pd, &cmd, sizeof(cmd),
			       &resp.ibv, sizeof(resp));
	if (ret) {
		free(pd);
		errno = ret;
		return NULL;
	}
	pd->pdn = resp.drv.pdn;
	return &pd->ibv_pd;
}

/* Nothing holds it any more (the acquire pairs with sroce_pd_put()). */
static bool sroce_unused(uint32_t *users)
{
	return !__atomic_load_n(users, __ATOMIC_ACQUIRE);
}

static int sroce_dealloc_parent_domain(struct sroce_pd *parent)
{
	if (!sroce_unused(&parent->users))
		return EBUSY;
	__atomic_sub_fetch(&parent->protection->users, 1, __ATOMIC_RELEASE);
	if (parent->td)
		__atomic_sub_fetch(&parent->td->users, 1, __ATOMIC_RELEASE);
	free(parent);
	return 0;
}

/*
 * Also frees parent domains.  A protection domain with parent domains on
 * it stays: they carry its handle.  Its other users (QPs, MRs) are the
 * kernel's to count.
 */
static int sroce_dealloc_pd(struct ibv_pd *ibpd)
{
	struct sroce_pd *pd = to_spd(ibpd);
	int ret;

	if (sroce_pd_is_parent(pd))
		return sroce_dealloc_parent_domain(pd);
	if (!sroce_unused(&pd->users))
		return EBUSY;
	ret = ibv_cmd_dealloc_pd(ibpd);
	if (ret)
		return ret;
	free(pd);
	return 0;
}

/*
 * ibv_import_pd(): a PD of an imported context.  The kernel has nothing
 * to tell about it but its handle (pdn is only ever copied, never used,
 * so it stays 0); unimporting it frees our part and leaves the kernel's
 * to the context that allocated it.
 */
static struct ibv_pd *sroce_import_pd(struct ibv_context *ibctx,
				      uint32_t pd_handle)
{
	struct sroce_pd *pd;

	pd = calloc(1, sizeof(*pd));
	if (!pd)
		return NULL;
	pd->ibv_pd.context = ibctx;
	pd->ibv_pd.handle = pd_handle;
	return &pd->ibv_pd;
}

static void sroce_unimport_pd(struct ibv_pd *ibpd)
{
	free(to_spd(ibpd));
}

/* ------------------------------------------------------------------ */
/* Thread and parent domains                                           */
/* ------------------------------------------------------------------ */

static struct ibv_td *sroce_alloc_td(struct ibv_context *ibctx,
				     struct ibv_td_init_attr *attr)
{
	struct sroce_td *td;

	if (attr->comp_mask) {
		errno = EOPNOTSUPP;
		return NULL;
	}
	td = calloc(1, sizeof(*td));
	if (!td)
		return NULL;
	td->ibv_td.context = ibctx;
	return &td->ibv_td;
}

static int sroce_dealloc_td(struct ibv_td *ibtd)
{
	struct sroce_td *td = to_std(ibtd);

	if (!sroce_unused(&td->users))
		return EBUSY;
	free(td);
	return 0;
}

#define SROCE_PARENT_DOMAIN_MASK	(IBV_PARENT_DOMAIN_INIT_ATTR_ALLOCATORS | \
					 IBV_PARENT_DOMAIN_INIT_ATTR_PD_CONTEXT)

/* A parent domain wraps a protection domain (not another parent domain). */
static int sroce_parent_domain_check(struct ibv_context *ibctx,
				     const struct ibv_parent_domain_init_attr *attr)
{
	if (attr->comp_mask & ~(uint32_t)SROCE_PARENT_DOMAIN_MASK)
		return EOPNOTSUPP;
	if (!attr->pd || attr->pd->context != ibctx ||
	    sroce_pd_is_parent(to_spd(attr->pd)))
		return EINVAL;
	if (attr->td && attr->td->context != ibctx)
		return EINVAL;
	return 0;
}

static struct ibv_pd *
sroce_alloc_parent_domain(struct ibv_context *ibctx,
			  struct ibv_parent_domain_init_attr *attr)
{
	struct sroce_pd *parent, *pd;
	int ret;

	ret = sroce_parent_domain_check(ibctx, attr);
	if (ret) {
		errno = ret;
		return NULL;
	}
	parent = calloc(1, sizeof(*parent));
	if (!parent)
		return NULL;
	pd = to_spd(attr->pd);
	/* What libibverbs' own helpers copy: the PD's context and handle. */
	parent->ibv_pd.context = ibctx;
	parent->ibv_pd.handle = pd->ibv_pd.handle;
	parent->pdn = pd->pdn;
	parent->protection = pd;
	__atomic_add_fetch(&pd->users, 1, __ATOMIC_RELAXED);
	if (attr->td) {
		parent->td = to_std(attr->td);
		__atomic_add_fetch(&parent->td->users, 1, __ATOMIC_RELAXED);
	}
	if (attr->comp_mask & IBV_PARENT_DOMAIN_INIT_ATTR_ALLOCATORS) {
		parent->alloc = attr->alloc;
		parent->free = attr->free;
	}
	if (attr->comp_mask & IBV_PARENT_DOMAIN_INIT_ATTR_PD_CONTEXT)
		parent->pd_context = attr->pd_context;
	return &parent->ibv_pd;
}

/* ------------------------------------------------------------------ */
/* Memory regions                                                      */
/* ------------------------------------------------------------------ */

/* Our part of an MR, holding @ibpd if it is a parent domain. */
struct sroce_mr *sroce_mr_new(struct ibv_pd *ibpd)
{
	struct sroce_mr *mr = calloc(1, sizeof(*mr));

	if (mr)
		mr->parent = sroce_pd_get(ibpd);
	return mr;
}

/* ... and its end: the kernel's MR is gone, or was never ours to free. */
void sroce_mr_free(struct sroce_mr *mr)
{
	sroce_pd_put(mr->parent);
	free(mr);
}

/*
 * The kernel pins the pages (or, for IBV_ACCESS_ON_DEMAND, faults them in
 * as they are used) and hands back the keys; ibv_cmd_reg_mr()
 * fills ibv_mr's handle, lkey, rkey and verbs_mr's type and access.
 */
static struct ibv_mr *sroce_reg_mr(struct ibv_pd *ibpd, void *addr,
				   size_t length, uint64_t hca_va, int access)
{
	struct ib_uverbs_reg_mr_resp resp = {};
	struct ibv_reg_mr cmd = {};
	struct sroce_mr *mr;
	int ret;

	/* ibv_reg_mr() itself sets mr->pd to what the caller passed. */
	mr = sroce_mr_new(ibpd);
	if (!mr)
		return NULL;
	ret = ibv_cmd_reg_mr(sroce_pd_real(ibpd), addr, length, hca_va, access,
			     &mr->vmr, &cmd, sizeof(cmd), &resp, sizeof(resp));
	if (ret) {
		sroce_mr_free(mr);
		errno = ret;
		return NULL;
	}
	return &mr->vmr.ibv_mr;
}

/*
 * Prefetch into an on-demand paging MR: the kernel faults the pages in
 * before it returns, whether or not IBV_ADVISE_MR_FLAG_FLUSH asks it.
 */
static int sroce_advise_mr(struct ibv_pd *ibpd,
			   enum ibv_advise_mr_advice advice, uint32_t flags,
			   struct ibv_sge *sg_list, uint32_t num_sge)
{
	return ibv_cmd_advise_mr(sroce_pd_real(ibpd), advice, flags, sg_list,
				 num_sge);
}

/* Raw packet QPs' flows: the kernel keeps the rule, we the handle. */
static struct ibv_flow *sroce_create_flow(struct ibv_qp *qp,
					  struct ibv_flow_attr *attr)
{
	struct ibv_flow *flow = calloc(1, sizeof(*flow));
	int ret;

	if (!flow) {
		errno = ENOMEM;
		return NULL;
	}
	ret = ibv_cmd_create_flow(qp, flow, attr, NULL, 0);
	if (ret) {
		free(flow);
		errno = ret;
		return NULL;
	}
	return flow;
}

static int sroce_destroy_flow(struct ibv_flow *flow)
{
	int ret = ibv_cmd_destroy_flow(flow);

	if (ret)
		return ret;
	free(flow);
	return 0;
}

static int sroce_dereg_mr(struct verbs_mr *vmr)
{
	int ret;

	ret = ibv_cmd_dereg_mr(vmr);
	if (ret)
		return ret;
	sroce_mr_free(to_smr(vmr));
	return 0;
}

/*
 * ibv_import_mr(): the kernel tells the keys and length of an MR that
 * the imported context registered; it stays registered after unimport.
 */
static struct ibv_mr *sroce_import_mr(struct ibv_pd *ibpd, uint32_t mr_handle)
{
	struct sroce_mr *mr;
	int ret;

	mr = sroce_mr_new(ibpd);
	if (!mr)
		return NULL;
	ret = ibv_cmd_query_mr(sroce_pd_real(ibpd), &mr->vmr, mr_handle);
	if (ret) {
		sroce_mr_free(mr);
		errno = ret;
		return NULL;
	}
	/* Reported as libibverbs' reg_mr reports it: the PD passed in. */
	mr->vmr.ibv_mr.pd = ibpd;
	return &mr->vmr.ibv_mr;
}

static void sroce_unimport_mr(struct ibv_mr *ibmr)
{
	sroce_mr_free(to_smr(container_of(ibmr, struct verbs_mr, ibv_mr)));
}

/*
 * The kernel re-registers in place and keeps the keys (ibv_cmd_rereg_mr()
 * copies them back all the same); libibverbs then updates mr->pd, addr
 * and length itself.  A new (parent) domain takes over our hold.
 */
static int sroce_rereg_mr(struct verbs_mr *vmr, int flags, struct ibv_pd *pd,
			  void *addr, size_t length, int access)
{
	struct ib_uverbs_rereg_mr_resp resp = {};
	struct ibv_rereg_mr cmd = {};
	struct sroce_mr *mr = to_smr(vmr);
	struct sroce_pd *held = NULL;
	int ret;

	if (flags & IBV_REREG_MR_CHANGE_PD)
		held = sroce_pd_get(pd);
	ret = ibv_cmd_rereg_mr(vmr, flags, addr, length, (uintptr_t)addr,
			       access,
			       (flags & IBV_REREG_MR_CHANGE_PD) ?
			       sroce_pd_real(pd) : NULL,
			       &cmd, sizeof(cmd), &resp, sizeof(resp));
	if (ret) {
		sroce_pd_put(held);
		return ret;
	}
	if (flags & IBV_REREG_MR_CHANGE_PD) {
		sroce_pd_put(mr->parent);
		mr->parent = held;
	}
	return 0;
}

const struct verbs_context_ops sroce_verbs_ops = {
	.advise_mr = sroce_advise_mr,
	.alloc_parent_domain = sroce_alloc_parent_domain,
	.alloc_pd = sroce_alloc_pd,
	.alloc_td = sroce_alloc_td,
	.create_flow = sroce_create_flow,
	.dealloc_pd = sroce_dealloc_pd,
	.dealloc_td = sroce_dealloc_td,
	.dereg_mr = sroce_dereg_mr,
	.destroy_flow = sroce_destroy_flow,
	.import_mr = sroce_import_mr,
	.import_pd = sroce_import_pd,
	.query_device_ex = sroce_query_device_ex,
	.query_port = sroce_query_port,
	.reg_mr = sroce_reg_mr,
	.rereg_mr = sroce_rereg_mr,
	.unimport_mr = sroce_unimport_mr,
	.unimport_pd = sroce_unimport_pd,
};
