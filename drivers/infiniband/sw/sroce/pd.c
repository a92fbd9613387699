// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * Protection domains.
 */
#include "sroce.h"

int sroce_pd_alloc(struct ib_pd *ibpd, struct ib_udata *udata)
{
	struct sroce_dev *sdev = to_sdev(ibpd->device);
	struct sroce_pd *pd = to_spd(ibpd);
	struct sroce_alloc_pd_resp resp = {};
	int id, err;

	id = ida_alloc_max(&sdev->pd_ida, SROCE_MAX_PD - 1, GFP_KERNEL);
	if (id < 0)
		return id;
	pd->pdn = id;

	if (udata) {
		resp.pdn = pd->pdn;
		err = ib_copy_to_udata(udata, &resp,
				       min(udata->outlen, sizeof(resp)));
		if (err)
			goto err_free;
	}
	return 0;

err_free:
	ida_free(&sdev->pd_ida, pd->pdn);
	return err;
}

int sroce_pd_dealloc(struct ib_pd *ibpd, struct ib_udata *udata)
{
	ida_free(&to_sdev(ibpd->device)->pd_ida, to_spd(ibpd)->pdn);
	return 0;
}
