// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * User contexts: the handshake that tells libsroce what this module offers.
 */
#include "sroce.h"

int sroce_ucontext_alloc(struct ib_ucontext *ibuc, struct ib_udata *udata)
{
	struct sroce_alloc_ucontext_resp resp = {
		.abi_version = SROCE_UVERBS_ABI_VERSION,
		.caps = SROCE_CAP_NONE,
		.max_inline = 0,
	};

	/* An older provider may ask for less; never write past its buffer. */
	return ib_copy_to_udata(udata, &resp, min(udata->outlen, sizeof(resp)));
}

void sroce_ucontext_dealloc(struct ib_ucontext *ibuc)
{
}
