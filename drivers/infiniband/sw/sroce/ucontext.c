// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * User contexts: the handshake that tells libsroce what this module offers.
 */
#define UVERBS_MODULE_NAME sroce
#include <rdma/uverbs_named_ioctl.h>

#include "sroce.h"

/* Only libsroce, speaking our ABI version, may open a context. */
static int sroce_ucontext_check_req(struct ib_ucontext *ibuc,
				    struct ib_udata *udata)
{
	struct sroce_alloc_ucontext_req req;
	int err;

	if (udata->inlen < sizeof(req)) {
		pr_warn_ratelimited("sroce: %s: context request without the sroce handshake (not libsroce?)\n",
				    dev_name(&ibuc->device->dev));
		return -EPROTONOSUPPORT;
	}
	err = ib_copy_from_udata(&req, udata, sizeof(req));
	if (err)
		return err;
	if (req.abi_version != SROCE_UVERBS_ABI_VERSION || req.reserved) {
		pr_warn_ratelimited("sroce: %s: provider speaks ABI %u, module %u\n",
				    dev_name(&ibuc->device->dev),
				    req.abi_version, SROCE_UVERBS_ABI_VERSION);
		return -EPROTONOSUPPORT;
	}
	return 0;
}

/* What a context is told: at its opening, and again when it is imported. */
static const struct sroce_alloc_ucontext_resp sroce_ucontext_resp = {
	.abi_version = SROCE_UVERBS_ABI_VERSION,
	.caps = SROCE_CAP_SRQ | SROCE_CAP_UD | SROCE_CAP_XRC |
		SROCE_CAP_ATOMIC_WRITE,
	.max_inline = SROCE_MAX_INLINE,
};

/* The answer, with the caps a module parameter turns on. */
static void sroce_ucontext_fill(struct sroce_alloc_ucontext_resp *resp)
{
	*resp = sroce_ucontext_resp;
	if (sroce_raw_enabled())
		resp->caps |= SROCE_CAP_RAW_PACKET | SROCE_CAP_RSS;
}

int sroce_ucontext_alloc(struct ib_ucontext *ibuc, struct ib_udata *udata)
{
	struct sroce_alloc_ucontext_resp resp;
	int err;

	err = sroce_ucontext_check_req(ibuc, udata);
	if (err)
		return err;
	sroce_ucontext_fill(&resp);
	/* An older provider may ask for less; never write past its buffer. */
	return ib_copy_to_udata(udata, &resp, min(udata->outlen, sizeof(resp)));
}

/*
 * ibv_import_device() in another process: the handshake's answer again.
 * The context was opened by libsroce, so there is no request to check.
 * A shorter buffer (an older provider) gets a prefix, a longer one zeros.
 */
int sroce_ucontext_query(struct ib_ucontext *ibuc,
			 struct uverbs_attr_bundle *attrs)
{
	struct sroce_alloc_ucontext_resp resp;

	sroce_ucontext_fill(&resp);
	return uverbs_copy_to_struct_or_zero(attrs,
					     SROCE_ATTR_QUERY_CONTEXT_RESP,
					     &resp, sizeof(resp));
}

/* The attribute above, added to ib_core's QUERY_CONTEXT method. */
ADD_UVERBS_ATTRIBUTES_SIMPLE(
	sroce_query_context,
	UVERBS_OBJECT_DEVICE,
	UVERBS_METHOD_QUERY_CONTEXT,
	UVERBS_ATTR_PTR_OUT(SROCE_ATTR_QUERY_CONTEXT_RESP,
			    UVERBS_ATTR_STRUCT(struct sroce_alloc_ucontext_resp,
					       max_inline),
			    UA_MANDATORY));

const struct uapi_definition sroce_uapi_defs[] = {
	UAPI_DEF_CHAIN_OBJ_TREE(UVERBS_OBJECT_DEVICE, &sroce_query_context),
	UAPI_DEF_CHAIN(sroce_dm_uapi_defs),
	{}
};

void sroce_ucontext_dealloc(struct ib_ucontext *ibuc)
{
}

/*
 * The device goes away (rdma link delete, the netdev's removal, rmmod)
 * while a process still has it open.  Offering this hook is what makes
 * ib_core destroy the process's objects now and report DEVICE_FATAL,
 * instead of making the removal wait for the process to exit; without it
 * `rdma link delete` hangs behind a running application, and rmmod is
 * refused.  Nothing is left for us to do: every object was destroyed
 * through its own verb, which stopped its engine work and removed its
 * mmap entries.  The process's ring mappings still hold their pages
 * (remap_vmalloc_range took a reference), so it reads stale rings, never
 * freed memory, and no sroce code runs on its behalf any more.
 */
void sroce_ucontext_disassociate(struct ib_ucontext *ibuc)
{
}
