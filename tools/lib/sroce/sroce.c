// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * libsroce: the rdma-core provider for sroce devices.
 *
 * This file is the provider's front door: it registers with libibverbs,
 * decides which devices are ours, and opens and closes contexts.  The verbs
 * themselves live in verbs.c (implemented) and stubs.c (not yet).
 */
#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <rdma/ib_user_ioctl_cmds.h>

#include "sroce.h"

/* ------------------------------------------------------------------ */
/* Logging                                                             */
/* ------------------------------------------------------------------ */

static bool sroce_debug;

/*
 * Tracing is opt-in (SROCE_DEBUG=1, or libibverbs' own IBV_SHOW_WARNINGS):
 * every verbs program runs our match code for every RDMA device, so a
 * chatty provider would spam all of them.  Errors that lose the user a
 * device (an ABI mismatch) are printed regardless, as libibverbs does.
 */
static void sroce_debug_init(void)
{
	const char *env = getenv("SROCE_DEBUG");

	sroce_debug = (env && *env && strcmp(env, "0")) ||
		      getenv("IBV_SHOW_WARNINGS");
}

bool sroce_debug_enabled(void)
{
	return sroce_debug;
}

void sroce_log(const char *fmt, ...)
{
	va_list ap;

	fputs("libsroce: ", stderr);
	va_start(ap, fmt);
	vfprintf(stderr, fmt, ap);
	va_end(ap);
	fputc('\n', stderr);
}

/* ------------------------------------------------------------------ */
/* Matching                                                            */
/* ------------------------------------------------------------------ */

/*
 * libibverbs 44 asks about a device up to twice in a row (its driver-id
 * pass, then its pass over every provider).  Say why a device is refused
 * once per scan, not twice: drop a message equal to the previous one.
 * Scans run under libibverbs' device-list lock.
 */
static void sroce_match_refuse(const char *fmt, ...)
	__attribute__((format(printf, 1, 2)));

static void sroce_match_refuse(const char *fmt, ...)
{
	static char last[256];
	char msg[256];
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(msg, sizeof(msg), fmt, ap);
	va_end(ap);
	if (!strcmp(msg, last))
		return;
	strcpy(last, msg);
	sroce_log("%s", msg);
}

static bool sroce_abi_known(unsigned long abi)
{
	return abi >= SROCE_ABI_MIN && abi <= SROCE_ABI_MAX;
}

/*
 * Read the kernel's ABI marker, <ibdev_path>/sroce_abi_version.  Returns
 * 0 and the version, -ENOENT if the file is absent (not an sroce device),
 * -EBADMSG if it does not hold a number, or the -errno of a failed read.
 */
static int sroce_marker_read(struct verbs_sysfs_dev *sysfs_dev,
			     unsigned long *abi)
{
	char buf[32], *end;
	int len;

	len = ibv_read_ibdev_sysfs_file(buf, sizeof(buf), sysfs_dev, "%s",
					SROCE_SYSFS_ABI_ATTR);
	if (len < 0)
		return errno ? -errno : -EIO;

	errno = 0;
	*abi = strtoul(buf, &end, 10);
	if (errno || end == buf || (*end && *end != '\n'))
		return -EBADMSG;
	return 0;
}

/*
 * libibverbs calls this for every device it has not placed yet, after the
 * table match and whether or not the table matched.  The sysfs marker is
 * the authority: it exists only on sroce devices, whatever their name, so
 * an rxe device (no marker) is never ours.  The table's driver-id entry
 * only buys us priority: libibverbs 44 tries driver-id matches before any
 * name match, which keeps librxe's "rxe*" name pattern off a sroce device
 * that happens to be called rxe9.
 */
static bool sroce_match_device(struct verbs_sysfs_dev *sysfs_dev)
{
	unsigned long abi;
	int ret;

	ret = sroce_marker_read(sysfs_dev, &abi);
	if (ret == -ENOENT) {
		/* Our driver id but no marker: a different, colliding driver. */
		if (sysfs_dev->match)
			sroce_match_refuse("%s: driver id %#x but no %s file; not an sroce device",
					   sysfs_dev->ibdev_name,
					   SROCE_DRIVER_ID,
					   SROCE_SYSFS_ABI_ATTR);
		return false;
	}
	if (ret) {
		sroce_match_refuse("%s: cannot read %s/%s: %s; device ignored",
				   sysfs_dev->ibdev_name, sysfs_dev->ibdev_path,
				   SROCE_SYSFS_ABI_ATTR,
				   ret == -EBADMSG ? "not a version number" :
						     strerror(-ret));
		return false;
	}
	if (!sroce_abi_known(abi)) {
		sroce_match_refuse("%s: kernel sroce ABI version %lu, this libsroce supports %u..%u; device ignored (install matching sroce.ko and libsroce)",
				   sysfs_dev->ibdev_name, abi, SROCE_ABI_MIN,
				   SROCE_ABI_MAX);
		return false;
	}
	/* Without netlink the id is 0 (unknown); any other value is wrong. */
	if (sysfs_dev->driver_id && sysfs_dev->driver_id != SROCE_DRIVER_ID) {
		sroce_match_refuse("%s: has %s but driver id %#x, expected %#x; device ignored",
				   sysfs_dev->ibdev_name, SROCE_SYSFS_ABI_ATTR,
				   sysfs_dev->driver_id, SROCE_DRIVER_ID);
		return false;
	}

	sroce_dbg("%s: sroce device, kernel ABI %lu, uverbs ABI %u, driver id %#x",
		  sysfs_dev->ibdev_name, abi, sysfs_dev->abi_ver,
		  sysfs_dev->driver_id);
	/* provider_data is ours to carry state from match to alloc_device. */
	sysfs_dev->provider_data = (void *)(uintptr_t)abi;
	return true;
}

/* ------------------------------------------------------------------ */
/* Devices                                                             */
/* ------------------------------------------------------------------ */

static struct verbs_device *sroce_alloc_device(struct verbs_sysfs_dev *sysfs_dev)
{
	struct sroce_device *sdev;

	sdev = calloc(1, sizeof(*sdev));
	if (!sdev)
		return NULL;
	sdev->abi_version = (uintptr_t)sysfs_dev->provider_data;
	return &sdev->vdev;
}

static void sroce_uninit_device(struct verbs_device *vdev)
{
	free(to_sdev(&vdev->device));
}

/* ------------------------------------------------------------------ */
/* Contexts                                                            */
/* ------------------------------------------------------------------ */

/*
 * alloc_ucontext request: the core command, then our handshake, which the
 * kernel requires so that no other provider can open a sroce context.
 */
struct sroce_get_context_cmd {
	struct ibv_get_context ibv;
	struct sroce_alloc_ucontext_req drv;
};
_Static_assert(offsetof(struct sroce_get_context_cmd, drv) ==
	       sizeof(struct ibv_get_context),
	       "driver request must follow the core one without padding");

/* alloc_ucontext response: the core part, then struct sroce-abi.h's. */
struct sroce_get_context_resp {
	struct ib_uverbs_get_context_resp ibv;
	struct sroce_alloc_ucontext_resp drv;
};
_Static_assert(offsetof(struct sroce_get_context_resp, drv) ==
	       sizeof(struct ib_uverbs_get_context_resp),
	       "driver response must follow the core one without padding");

static void sroce_free_context(struct ibv_context *ibctx)
{
	struct sroce_context *ctx = to_sctx(ibctx);

	verbs_uninit_context(&ctx->vctx);
	free(ctx);
}

/* Context lifetime ops, set after the stubs and before the verbs. */
static const struct verbs_context_ops sroce_ctx_ops = {
	.free_context = sroce_free_context,
};

/*
 * Check the kernel's half of the handshake.  The response buffer starts
 * zeroed, so a kernel that wrote no driver data reads as version 0.
 */
static int sroce_ctx_check_abi(struct sroce_context *ctx,
			       const struct sroce_alloc_ucontext_resp *drv,
			       const char *cmd)
{
	const char *name = ctx->vctx.context.device->name;

	if (!sroce_abi_known(drv->abi_version)) {
		sroce_log("%s: %s answered ABI version %u, this libsroce supports %u..%u",
			  name, cmd, drv->abi_version, SROCE_ABI_MIN,
			  SROCE_ABI_MAX);
		return EPROTONOSUPPORT;
	}
	ctx->abi_version = drv->abi_version;
	ctx->caps = drv->caps;
	ctx->max_inline = drv->max_inline;
	sroce_dbg("%s: context open, ABI %u, caps %#x, max_inline %u", name,
		  ctx->abi_version, ctx->caps, ctx->max_inline);
	return 0;
}

static struct sroce_context *sroce_ctx_new(struct ibv_device *ibdev,
					   int cmd_fd)
{
	return _verbs_init_and_alloc_context(ibdev, cmd_fd,
		sizeof(struct sroce_context),
		(struct verbs_context *)offsetof(struct sroce_context, vctx),
		SROCE_DRIVER_ID);
}

/* The handshake done (@ret == 0) or failed: the context, or NULL. */
static struct verbs_context *sroce_ctx_ready(struct sroce_context *ctx,
					     int ret)
{
	if (ret) {
		verbs_uninit_context(&ctx->vctx);
		free(ctx);
		errno = ret;
		return NULL;
	}
	/* Later tables override earlier ones slot by slot (NULLs skip). */
	verbs_set_ops(&ctx->vctx, &sroce_stub_ops);
	verbs_set_ops(&ctx->vctx, &sroce_mw_ops);
	verbs_set_ops(&ctx->vctx, &sroce_dm_ops);
	verbs_set_ops(&ctx->vctx, &sroce_dm_ops);
	verbs_set_ops(&ctx->vctx, &sroce_ctx_ops);
	verbs_set_ops(&ctx->vctx, &sroce_verbs_ops);
	verbs_set_ops(&ctx->vctx, &sroce_cq_ops);
	verbs_set_ops(&ctx->vctx, &sroce_qp_ops);
	verbs_set_ops(&ctx->vctx, &sroce_srq_ops);
	verbs_set_ops(&ctx->vctx, &sroce_ah_ops);
	verbs_set_ops(&ctx->vctx, &sroce_xrc_ops);
	verbs_set_ops(&ctx->vctx, &sroce_wq_ops);
	return &ctx->vctx;
}

static struct verbs_context *sroce_alloc_context(struct ibv_device *ibdev,
						 int cmd_fd,
						 void *private_data)
{
	struct sroce_get_context_resp resp = {};
	struct sroce_get_context_cmd cmd = {
		.drv.abi_version = SROCE_UVERBS_ABI_VERSION,
	};
	struct sroce_context *ctx;
	int ret;

	ctx = sroce_ctx_new(ibdev, cmd_fd);
	if (!ctx)
		return NULL;
	ret = ibv_cmd_get_context(&ctx->vctx, &cmd.ibv, sizeof(cmd), &resp.ibv,
				  sizeof(resp));
	if (!ret)
		ret = sroce_ctx_check_abi(ctx, &resp.drv, "alloc_ucontext");
	return sroce_ctx_ready(ctx, ret);
}

/*
 * A driver block of one attribute for ibv_cmd_query_context(): where the
 * kernel writes the handshake's answer again (sroce-abi.h).
 */
struct sroce_query_context_block {
	struct ibv_command_buffer cb;
	struct ib_uverbs_attr attr;	/* cb.hdr.attrs[0] */
};
_Static_assert(offsetof(struct sroce_query_context_block, attr) ==
	       sizeof(struct ibv_command_buffer),
	       "the attribute must be hdr.attrs[0]");

static void sroce_query_context_block_init(struct sroce_query_context_block *b,
					   struct sroce_alloc_ucontext_resp *r)
{
	b->cb = (struct ibv_command_buffer){
		.next_attr = &b->attr + 1,
		.last_attr = &b->attr + 1,
		.uhw_in_idx = SROCE_CMDB_NO_UHW,
		.uhw_out_idx = SROCE_CMDB_NO_UHW,
		.hdr.object_id = UVERBS_OBJECT_DEVICE,
		.hdr.method_id = UVERBS_METHOD_QUERY_CONTEXT,
	};
	b->attr = (struct ib_uverbs_attr){
		.attr_id = SROCE_ATTR_QUERY_CONTEXT_RESP,
		.len = sizeof(*r),
		.flags = UVERBS_ATTR_F_MANDATORY,
		.data = (uintptr_t)r,
	};
}

/*
 * ibv_import_device(): @cmd_fd is a context another process (or another
 * part of this one) opened; it shares the kernel's objects, so there is
 * nothing to open, only the handshake's answer to learn again.
 */
static struct verbs_context *sroce_import_context(struct ibv_device *ibdev,
						  int cmd_fd)
{
	struct sroce_alloc_ucontext_resp drv = {};
	struct sroce_query_context_block block;
	struct sroce_context *ctx;
	int ret;

	ctx = sroce_ctx_new(ibdev, cmd_fd);
	if (!ctx)
		return NULL;
	sroce_query_context_block_init(&block, &drv);
	ret = ibv_cmd_query_context(&ctx->vctx.context, &block.cb);
	if (!ret)
		ret = sroce_ctx_check_abi(ctx, &drv, "query_context (import)");
	return sroce_ctx_ready(ctx, ret);
}

/* ------------------------------------------------------------------ */
/* Registration                                                        */
/* ------------------------------------------------------------------ */

static const struct verbs_match_ent sroce_match_table[] = {
	{ .u.driver_id = SROCE_DRIVER_ID, .kind = VERBS_MATCH_DRIVER_ID },
	{ .kind = VERBS_MATCH_SENTINEL },
};

static const struct verbs_device_ops sroce_dev_ops = {
	.name = "sroce",
	/*
	 * Compared with the device's uverbs abi_version, which sroce.ko
	 * sets to SROCE_UVERBS_ABI_VERSION.
	 */
	.match_min_abi_version = SROCE_ABI_MIN,
	.match_max_abi_version = SROCE_ABI_MAX,
	.match_table = sroce_match_table,
	.match_device = sroce_match_device,
	.alloc_context = sroce_alloc_context,
	.import_context = sroce_import_context,
	.alloc_device = sroce_alloc_device,
	.uninit_device = sroce_uninit_device,
};

/* Runs at dlopen(), which libibverbs does for each "driver" config line. */
static void __attribute__((constructor)) sroce_register_driver(void)
{
	int hole;

	sroce_debug_init();
	hole = sroce_stub_ops_check();
	if (hole >= 0)
		sroce_log("BUG: stub ops slot %d is empty", hole);
	verbs_register_driver_34(&sroce_dev_ops);
	sroce_dbg("registered (private ABI %d, kernel ABI %u..%u)",
		  SROCE_IBVERBS_PABI, SROCE_ABI_MIN, SROCE_ABI_MAX);
}
