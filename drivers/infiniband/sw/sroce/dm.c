// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * Device memory (ibv_alloc_dm, ibv_reg_dm_mr, ibv_import_dm).
 *
 * On an adapter that has it, device memory is a small pool on the card
 * that the host reaches through a BAR and the adapter without a trip
 * over PCIe.  sroce's adapter is the host CPU, so the nearest memory it
 * has is host memory: a DM here is zeroed kernel memory that the process
 * maps from the command fd, exactly like a ring (queue.c), and a DM MR is
 * an MR over its pages.  Applications written for the DM API run
 * unchanged; they gain nothing, and lose nothing either.
 *
 * It is a kernel object, as on the hardware, so that another context on
 * the same command fd can import it (SROCE_METHOD_DM_QUERY tells where
 * to map it) and ib_core counts its MRs (no free while one is left).
 */
#define UVERBS_MODULE_NAME sroce
#include <linux/vmalloc.h>
#include <rdma/uverbs_named_ioctl.h>

#include "sroce.h"

struct sroce_dm {
	struct ib_dm ibdm;
	void *buf;			/* owned by the mmap entry */
	struct rdma_user_mmap_entry *mmap_entry;
};

static struct sroce_dm *to_sdm(struct ib_dm *ibdm)
{
	return container_of(ibdm, struct sroce_dm, ibdm);
}

/* Zeroed whole pages, handed to the context's mmap entries at once. */
static int sroce_dm_publish(struct sroce_dm *dm, struct ib_ucontext *uctx,
			    size_t bytes)
{
	struct sroce_mmap_entry *e;
	int err;

	dm->buf = __vmalloc(bytes, sroce_queue_gfp(true) | __GFP_ZERO);
	if (!dm->buf)
		return -ENOMEM;
	e = kzalloc(sizeof(*e), GFP_KERNEL);
	err = -ENOMEM;
	if (!e)
		goto err_buf;
	e->addr = dm->buf;
	err = rdma_user_mmap_entry_insert(uctx, &e->rdma, bytes);
	if (err)
		goto err_entry;
	dm->mmap_entry = &e->rdma;
	return 0;

err_entry:
	kfree(e);
err_buf:
	vfree(dm->buf);
	return err;
}

struct ib_dm *sroce_dm_alloc(struct ib_device *ibdev, struct ib_ucontext *uctx,
			     struct ib_dm_alloc_attr *attr,
			     struct uverbs_attr_bundle *attrs)
{
	struct sroce_dm *dm;
	int err;

	/* A page-aligned buffer meets any alignment up to a page. */
	if (!attr->length || attr->length > SROCE_DM_MAX || attr->flags ||
	    attr->alignment > PAGE_SHIFT)
		return ERR_PTR(-EINVAL);
	dm = kzalloc(sizeof(*dm), GFP_KERNEL);
	if (!dm)
		return ERR_PTR(-ENOMEM);
	err = sroce_dm_publish(dm, uctx, PAGE_ALIGN(attr->length));
	if (err) {
		kfree(dm);
		return ERR_PTR(err);
	}
	return &dm->ibdm;
}

/*
 * ib_core calls this only once no MR is left on the DM.  The pages stay
 * until the last mapping of them is gone too (sroce_queue_mmap_free()).
 */
int sroce_dm_dealloc(struct ib_dm *ibdm, struct uverbs_attr_bundle *attrs)
{
	struct sroce_dm *dm = to_sdm(ibdm);

	rdma_user_mmap_entry_remove(dm->mmap_entry);
	kfree(dm);
	return 0;
}

/*
 * ib_core checked the range against the DM and that the MR is
 * zero-based (rdma-core registers DM MRs no other way): iova 0 is byte
 * @attr->offset of the DM.  The pages are copied to and from, never
 * attached to packets (sroce_mr_move()): they are not pinned user pages.
 */
struct ib_mr *sroce_dm_reg_mr(struct ib_pd *ibpd, struct ib_dm *ibdm,
			      struct ib_dm_mr_attr *attr,
			      struct uverbs_attr_bundle *attrs)
{
	struct sroce_dm *dm = to_sdm(ibdm);
	unsigned long first = attr->offset >> PAGE_SHIFT, i;
	struct sroce_mr *mr;
	int err;

	mr = sroce_mr_alloc(attr->access_flags, SROCE_MR_DM);
	if (IS_ERR(mr))
		return ERR_CAST(mr);
	mr->iova = 0;
	mr->length = attr->length;
	mr->page_offset = offset_in_page(attr->offset);
	mr->npages = PAGE_ALIGN(mr->page_offset + attr->length) >> PAGE_SHIFT;
	mr->pages = kvcalloc(max(mr->npages, 1UL), sizeof(*mr->pages),
			     sroce_queue_gfp(true));
	err = -ENOMEM;
	if (!mr->pages)
		goto err_free;
	for (i = 0; i < mr->npages; i++)
		mr->pages[i] = vmalloc_to_page(dm->buf +
					       ((first + i) << PAGE_SHIFT));
	err = sroce_mr_publish(to_sdev(ibpd->device), mr);
	if (err)
		goto err_pages;
	return &mr->ibmr;

err_pages:
	kvfree(mr->pages);
err_free:
	kfree(mr);
	return ERR_PTR(err);
}

/* Where the DM is on the command fd, for its context or an importer. */
static int UVERBS_HANDLER(SROCE_METHOD_DM_QUERY)(struct uverbs_attr_bundle *attrs)
{
	struct ib_dm *ibdm = uverbs_attr_get_obj(attrs,
						 SROCE_ATTR_DM_QUERY_HANDLE);
	struct sroce_dm_query_resp resp = {};

	if (IS_ERR(ibdm))
		return PTR_ERR(ibdm);
	resp.mmap_offset = rdma_user_mmap_get_offset(to_sdm(ibdm)->mmap_entry);
	resp.length = ibdm->length;
	return uverbs_copy_to_struct_or_zero(attrs, SROCE_ATTR_DM_QUERY_RESP,
					     &resp, sizeof(resp));
}

DECLARE_UVERBS_NAMED_METHOD(
	SROCE_METHOD_DM_QUERY,
	UVERBS_ATTR_IDR(SROCE_ATTR_DM_QUERY_HANDLE, UVERBS_OBJECT_DM,
			UVERBS_ACCESS_READ, UA_MANDATORY),
	UVERBS_ATTR_PTR_OUT(SROCE_ATTR_DM_QUERY_RESP,
			    UVERBS_ATTR_STRUCT(struct sroce_dm_query_resp,
					       length),
			    UA_MANDATORY));

ADD_UVERBS_METHODS(sroce_dm_methods, UVERBS_OBJECT_DM,
		   &UVERBS_METHOD(SROCE_METHOD_DM_QUERY));

const struct uapi_definition sroce_dm_uapi_defs[] = {
	UAPI_DEF_CHAIN_OBJ_TREE(UVERBS_OBJECT_DM, &sroce_dm_methods),
	{}
};
