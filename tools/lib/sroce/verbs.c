// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * The verbs libsroce implements: device and port queries, protection
 * domains and memory regions.  All of them are a single uverbs command;
 * the kernel owns the objects, we only keep the handles libibverbs needs.
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

static int sroce_dealloc_pd(struct ibv_pd *ibpd)
{
	int ret;

	ret = ibv_cmd_dealloc_pd(ibpd);
	if (ret)
		return ret;
	free(to_spd(ibpd));
	return 0;
}

/* ------------------------------------------------------------------ */
/* Memory regions                                                      */
/* ------------------------------------------------------------------ */

/*
 * The kernel pins the pages and hands back the keys; ibv_cmd_reg_mr()
 * fills ibv_mr's handle, lkey, rkey and verbs_mr's type and access.
 */
static struct ibv_mr *sroce_reg_mr(struct ibv_pd *ibpd, void *addr,
				   size_t length, uint64_t hca_va, int access)
{
	struct ib_uverbs_reg_mr_resp resp = {};
	struct ibv_reg_mr cmd = {};
	struct sroce_mr *mr;
	int ret;

	mr = calloc(1, sizeof(*mr));
	if (!mr)
		return NULL;

	ret = ibv_cmd_reg_mr(ibpd, addr, length, hca_va, access, &mr->vmr,
			     &cmd, sizeof(cmd), &resp, sizeof(resp));
	if (ret) {
		free(mr);
		errno = ret;
		return NULL;
	}
	return &mr->vmr.ibv_mr;
}

static int sroce_dereg_mr(struct verbs_mr *vmr)
{
	int ret;

	ret = ibv_cmd_dereg_mr(vmr);
	if (ret)
		return ret;
	free(to_smr(vmr));
	return 0;
}

const struct verbs_context_ops sroce_verbs_ops = {
	.alloc_pd = sroce_alloc_pd,
	.dealloc_pd = sroce_dealloc_pd,
	.dereg_mr = sroce_dereg_mr,
	.query_device_ex = sroce_query_device_ex,
	.query_port = sroce_query_port,
	.reg_mr = sroce_reg_mr,
};
