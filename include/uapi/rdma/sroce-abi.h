/* SPDX-License-Identifier: ((GPL-2.0 WITH Linux-syscall-note) OR BSD-2-Clause) */
/*
 * sroce-abi.h - the only contract between sroce.ko and libsroce.
 *
 * Every structure here has explicit widths and explicit padding, so that a
 * 32-bit and a 64-bit build, and the kernel and the provider, agree on the
 * layout.  Bump SROCE_UVERBS_ABI_VERSION on any incompatible change; the
 * provider refuses a kernel whose version it does not know.
 */
#ifndef SROCE_ABI_USER_H
#define SROCE_ABI_USER_H

#include <linux/types.h>

#define SROCE_UVERBS_ABI_VERSION	1

/*
 * ib_core's enum rdma_driver_id has no entry for out-of-tree drivers.  sroce
 * reports this private id; libsroce matches on it (and double-checks the
 * sysfs marker below), so neither librxe nor any other provider claims
 * sroce devices, whatever their name.  It fits the 16 bits that
 * libibverbs' match table stores.
 */
#define SROCE_DRIVER_ID			0x5352

/* Present in /sys/class/infiniband/<dev>/ of every sroce device. */
#define SROCE_SYSFS_ABI_ATTR		"sroce_abi_version"

/* Feature bits of sroce_alloc_ucontext_resp.caps. */
enum sroce_ucontext_caps {
	SROCE_CAP_NONE = 0,
};

/*
 * libsroce opens every context with this request.  A context opened
 * without it (by librxe, say, which claims devices named "rxe*" when
 * libsroce is not installed) is refused instead of misdriven.
 */
struct sroce_alloc_ucontext_req {
	__u32 abi_version;	/* == SROCE_UVERBS_ABI_VERSION */
	__u32 reserved;		/* must be zero */
};

struct sroce_alloc_ucontext_resp {
	__u32 abi_version;	/* == SROCE_UVERBS_ABI_VERSION */
	__u32 caps;		/* enum sroce_ucontext_caps */
	__u32 max_inline;	/* bytes of inline data per WQE */
	__u32 reserved;
};

struct sroce_alloc_pd_resp {
	__u32 pdn;
	__u32 reserved;
};

#endif /* SROCE_ABI_USER_H */
