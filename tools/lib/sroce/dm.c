// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * Device memory: ibv_alloc_dm(), ibv_free_dm(), ibv_import_dm(),
 * ibv_unimport_dm(), ibv_reg_dm_mr() and the memcpy_to_dm/memcpy_from_dm
 * ops.
 *
 * sroce.ko keeps a DM as zeroed host memory (its adapter is the CPU, see
 * drivers/infiniband/sw/sroce/dm.c); we map it from the command fd where
 * SROCE_METHOD_DM_QUERY says, and copy to and from the mapping.  The rules
 * are those of the adapters that have device memory, so that code tested
 * here behaves the same there: at most max_dm_size bytes, no comp_mask
 * bits, access through the memcpy ops in 4-byte words within the DM, and
 * DM MRs zero-based (libibverbs' ibv_cmd_reg_dm_mr() insists).
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/mman.h>
#include <unistd.h>

#include <rdma/ib_user_ioctl_cmds.h>
#include <rdma/rdma_user_ioctl.h>

#include "sroce.h"

/* The access granularity of the memcpy ops, as on the hardware. */
#define SROCE_DM_WORD	4u

struct sroce_dm {
	struct verbs_dm vdm;
	void *buf;		/* the mapping */
	size_t length;		/* usable bytes */
	size_t map_len;		/* the mapping's length, whole pages */
};

static struct sroce_dm *to_sdm(struct ibv_dm *ibdm)
{
	return container_of(ibdm, struct sroce_dm, vdm.dm);
}

/* May [@off, @off + @len) of @dm be copied? */
static bool sroce_dm_range_ok(const struct sroce_dm *dm, uint64_t off,
			      size_t len)
{
	if ((off | len) % SROCE_DM_WORD)
		return false;
	return off <= dm->length && len <= dm->length - off;
}

static int sroce_dm_copy_to(struct ibv_dm *ibdm, uint64_t off,
			    const void *src, size_t len)
{
	struct sroce_dm *dm = to_sdm(ibdm);

	if (!sroce_dm_range_ok(dm, off, len))
		return EINVAL;
	memcpy((char *)dm->buf + off, src, len);
	return 0;
}

static int sroce_dm_copy_from(void *dst, struct ibv_dm *ibdm, uint64_t off,
			      size_t len)
{
	struct sroce_dm *dm = to_sdm(ibdm);

	if (!sroce_dm_range_ok(dm, off, len))
		return EINVAL;
	memcpy(dst, (char *)dm->buf + off, len);
	return 0;
}

/* SROCE_METHOD_DM_QUERY on the DM @handle: 0 or an errno value. */
static int sroce_dm_query(struct ibv_context *ibctx, uint32_t handle,
			  struct sroce_dm_query_resp *resp)
{
	struct {
		struct ib_uverbs_ioctl_hdr hdr;
		struct ib_uverbs_attr attrs[2];
	} cmd = {
		.hdr = {
			.length = sizeof(cmd),
			.object_id = UVERBS_OBJECT_DM,
			.method_id = SROCE_METHOD_DM_QUERY,
			.num_attrs = 2,
			.driver_id = SROCE_DRIVER_ID,
		},
		.attrs = {
			{ .attr_id = SROCE_ATTR_DM_QUERY_HANDLE,
			  .flags = UVERBS_ATTR_F_MANDATORY, .data = handle },
			{ .attr_id = SROCE_ATTR_DM_QUERY_RESP,
			  .len = sizeof(*resp),
			  .flags = UVERBS_ATTR_F_MANDATORY,
			  .data = (uintptr_t)resp },
		},
	};

	if (ioctl(ibctx->cmd_fd, RDMA_VERBS_IOCTL, &cmd))
		return errno;
	return 0;
}

/* Map the DM @dm->vdm.handle names; 0 or an errno value. */
static int sroce_dm_map(struct ibv_context *ibctx, struct sroce_dm *dm)
{
	struct sroce_dm_query_resp resp = {};
	size_t page = (size_t)sysconf(_SC_PAGESIZE);
	int ret;

	ret = sroce_dm_query(ibctx, dm->vdm.handle, &resp);
	if (ret)
		return ret;
	dm->length = resp.length;
	dm->map_len = (resp.length + page - 1) & ~(page - 1);
	dm->buf = mmap(NULL, dm->map_len, PROT_READ | PROT_WRITE, MAP_SHARED,
		       ibctx->cmd_fd, (off_t)resp.mmap_offset);
	if (dm->buf == MAP_FAILED)
		return errno;
	dm->vdm.dm.context = ibctx;
	dm->vdm.dm.memcpy_to_dm = sroce_dm_copy_to;
	dm->vdm.dm.memcpy_from_dm = sroce_dm_copy_from;
	dm->vdm.dm.comp_mask = IBV_DM_MASK_HANDLE;
	dm->vdm.dm.handle = dm->vdm.handle;
	return 0;
}

static struct ibv_dm *sroce_alloc_dm(struct ibv_context *ibctx,
				     struct ibv_alloc_dm_attr *attr)
{
	struct sroce_dm *dm;
	int ret;

	/* No comp_mask bit is defined; the kernel checks the rest. */
	if (attr->comp_mask) {
		errno = EINVAL;
		return NULL;
	}
	dm = calloc(1, sizeof(*dm));
	if (!dm)
		return NULL;
	ret = ibv_cmd_alloc_dm(ibctx, attr, &dm->vdm, NULL);
	if (ret)
		goto err_free;
	ret = sroce_dm_map(ibctx, dm);
	if (ret) {
		ibv_cmd_free_dm(&dm->vdm);
		goto err_free;
	}
	return &dm->vdm.dm;

err_free:
	free(dm);
	errno = ret;
	return NULL;
}

/* EBUSY while an MR is on it (the kernel counts them). */
static int sroce_free_dm(struct ibv_dm *ibdm)
{
	struct sroce_dm *dm = to_sdm(ibdm);
	int ret;

	ret = ibv_cmd_free_dm(&dm->vdm);
	if (ret)
		return ret;
	munmap(dm->buf, dm->map_len);
	free(dm);
	return 0;
}

/* Another context on the same command fd made it: map it here too. */
static struct ibv_dm *sroce_import_dm(struct ibv_context *ibctx,
				      uint32_t handle)
{
	struct sroce_dm *dm = calloc(1, sizeof(*dm));
	int ret;

	if (!dm)
		return NULL;
	dm->vdm.handle = handle;
	ret = sroce_dm_map(ibctx, dm);
	if (ret) {
		free(dm);
		errno = ret;
		return NULL;
	}
	return &dm->vdm.dm;
}

/* The DM stays, the context that allocated it owns it. */
static void sroce_unimport_dm(struct ibv_dm *ibdm)
{
	struct sroce_dm *dm = to_sdm(ibdm);

	munmap(dm->buf, dm->map_len);
	free(dm);
}

/* iova 0 is byte @off of the DM: DM MRs are zero-based. */
static struct ibv_mr *sroce_reg_dm_mr(struct ibv_pd *ibpd, struct ibv_dm *ibdm,
				      uint64_t off, size_t len,
				      unsigned int access)
{
	struct sroce_mr *mr = sroce_mr_new(ibpd);
	int ret;

	if (!mr)
		return NULL;
	ret = ibv_cmd_reg_dm_mr(sroce_pd_real(ibpd), &to_sdm(ibdm)->vdm, off,
				len, access, &mr->vmr, NULL);
	if (ret) {
		sroce_mr_free(mr);
		errno = ret;
		return NULL;
	}
	/* As for every MR: the PD the caller gave, parent or not. */
	mr->vmr.ibv_mr.pd = ibpd;
	return &mr->vmr.ibv_mr;
}

const struct verbs_context_ops sroce_dm_ops = {
	.alloc_dm = sroce_alloc_dm,
	.free_dm = sroce_free_dm,
	.import_dm = sroce_import_dm,
	.reg_dm_mr = sroce_reg_dm_mr,
	.unimport_dm = sroce_unimport_dm,
};
