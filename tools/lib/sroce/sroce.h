/* SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause */
/*
 * libsroce internals: the objects the provider wraps around libibverbs'
 * ones, and the entry points each source file offers the others.
 *
 *   sroce.c  - registration, device matching, context alloc/free
 *   verbs.c  - the verbs this stage implements (query, PD, MR)
 *   stubs.c  - every other verb, failing with EOPNOTSUPP
 */
#ifndef SROCE_PROVIDER_H
#define SROCE_PROVIDER_H

#include <stdbool.h>
#include <stdint.h>

#include "verbs-private.h"
#include "rdma/sroce-abi.h"

/* Symbols outside the provider's own namespace stay hidden (-fvisibility). */
#define SROCE_EXPORT	__attribute__((visibility("default")))

#ifndef container_of
#define container_of(ptr, type, member) \
	((type *)((char *)(ptr) - offsetof(type, member)))
#endif

/* The kernel ABI versions this provider speaks. */
#define SROCE_ABI_MIN	1
#define SROCE_ABI_MAX	SROCE_UVERBS_ABI_VERSION

struct sroce_device {
	struct verbs_device vdev;	/* must be first: libibverbs frees via it */
	unsigned int abi_version;	/* from the sysfs marker */
};

struct sroce_context {
	struct verbs_context vctx;
	unsigned int abi_version;	/* from the alloc_ucontext response */
	uint32_t caps;			/* enum sroce_ucontext_caps */
	uint32_t max_inline;
};

struct sroce_pd {
	struct ibv_pd ibv_pd;
	uint32_t pdn;
};

struct sroce_mr {
	struct verbs_mr vmr;
};

static inline struct sroce_device *to_sdev(struct ibv_device *ibdev)
{
	return container_of(ibdev, struct sroce_device, vdev.device);
}

static inline struct sroce_context *to_sctx(struct ibv_context *ibctx)
{
	return container_of(ibctx, struct sroce_context, vctx.context);
}

static inline struct sroce_pd *to_spd(struct ibv_pd *ibpd)
{
	return container_of(ibpd, struct sroce_pd, ibv_pd);
}

static inline struct sroce_mr *to_smr(struct verbs_mr *vmr)
{
	return container_of(vmr, struct sroce_mr, vmr);
}

/* sroce.c */
bool sroce_debug_enabled(void);
void sroce_log(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
#define sroce_dbg(...)					\
	do {						\
		if (sroce_debug_enabled())		\
			sroce_log(__VA_ARGS__);		\
	} while (0)

/* verbs.c: the implemented verbs, set over the stubs */
extern const struct verbs_context_ops sroce_verbs_ops;

/* stubs.c: a complete table, every slot failing with EOPNOTSUPP */
extern const struct verbs_context_ops sroce_stub_ops;
int sroce_stub_ops_check(void);

#endif /* SROCE_PROVIDER_H */
