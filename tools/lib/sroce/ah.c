// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * Address handles.  sroce.ko resolves the address vector (ib_core's RoCE
 * address resolution) and keeps it; we get back the AH's number, which
 * is all a UD send WQE carries (see sroce_wqe_ud()): the kernel never
 * takes an address vector from memory we write.
 */
#include <errno.h>
#include <stdlib.h>

#include "sroce.h"
#include "verbs-private-ud.h"

struct sroce_create_ah_resp_buf {
	struct ib_uverbs_create_ah_resp ibv;
	struct sroce_create_ah_resp drv;
};
_Static_assert(offsetof(struct sroce_create_ah_resp_buf, drv) ==
	       sizeof(struct ib_uverbs_create_ah_resp),
	       "driver response must follow the core one without padding");

static struct ibv_ah *sroce_create_ah(struct ibv_pd *pd,
				      struct ibv_ah_attr *attr)
{
	struct sroce_create_ah_resp_buf resp = {};
	struct sroce_ah *ah;
	int ret;

	/* A kernel that does not say it has AHs must not be asked. */
	if (!(to_sctx(pd->context)->caps & SROCE_CAP_UD)) {
		errno = EOPNOTSUPP;
		return NULL;
	}
	ah = calloc(1, sizeof(*ah));
	if (!ah)
		return NULL;
	ah->parent = sroce_pd_get(pd);
	ret = ibv_cmd_create_ah(sroce_pd_real(pd), &ah->ibv_ah, attr, &resp.ibv,
				sizeof(resp));
	if (ret) {
		sroce_pd_put(ah->parent);
		free(ah);
		errno = ret;
		return NULL;
	}
	ah->ahn = resp.drv.ahn;
	return &ah->ibv_ah;
}

static int sroce_destroy_ah(struct ibv_ah *ibah)
{
	int ret;

	ret = ibv_cmd_destroy_ah(ibah);
	if (ret)
		return ret;
	sroce_pd_put(to_sah(ibah)->parent);
	free(to_sah(ibah));
	return 0;
}

const struct verbs_context_ops sroce_ah_ops = {
	.create_ah = sroce_create_ah,
	.destroy_ah = sroce_destroy_ah,
};
