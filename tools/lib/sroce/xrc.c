// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * XRC domains.  sroce.ko keeps nothing for a domain: ib_core shares it
 * between the processes that open the same file and counts its users,
 * and the kernel checks that an XRC TGT QP and the SRQs its requests
 * name belong to the same one.  XRC SRQs are in srq.c, XRC INI and TGT
 * QPs (and ibv_open_qp()) in qp.c.
 */
#include <errno.h>
#include <stdlib.h>

#include "sroce.h"

struct sroce_xrcd {
	struct verbs_xrcd vxrcd;
};

static struct ibv_xrcd *sroce_open_xrcd(struct ibv_context *ctx,
					struct ibv_xrcd_init_attr *attr)
{
	struct ib_uverbs_open_xrcd_resp resp = {};
	struct ibv_open_xrcd cmd = {};
	struct sroce_xrcd *x;
	int ret;

	if (!sroce_ctx_has_xrc(ctx)) {
		errno = EOPNOTSUPP;
		return NULL;
	}
	x = calloc(1, sizeof(*x));
	if (!x)
		return NULL;
	ret = ibv_cmd_open_xrcd(ctx, &x->vxrcd, sizeof(x->vxrcd), attr, &cmd,
				sizeof(cmd), &resp, sizeof(resp));
	if (ret) {
		free(x);
		errno = ret;
		return NULL;
	}
	return &x->vxrcd.xrcd;
}

static int sroce_close_xrcd(struct ibv_xrcd *ibxrcd)
{
	struct sroce_xrcd *x = container_of(ibxrcd, struct sroce_xrcd,
					    vxrcd.xrcd);
	int ret;

	ret = ibv_cmd_close_xrcd(&x->vxrcd);
	if (ret)
		return ret;
	free(x);
	return 0;
}

const struct verbs_context_ops sroce_xrc_ops = {
	.close_xrcd = sroce_close_xrcd,
	.open_xrcd = sroce_open_xrcd,
};
