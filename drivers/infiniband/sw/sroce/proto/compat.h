/* SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause */
/*
 * sroce protocol core: the only place that knows whether it is built into
 * the kernel module or into a userspace test.  Everything else in proto/
 * includes this header and nothing else from the platform, so the same
 * code runs under ASan/UBSan/libFuzzer in seconds and in the module.
 *
 * The core handles raw byte buffers and does its own big-endian loads and
 * stores byte by byte: that makes it independent of host endianness and
 * alignment, and keeps sparse quiet without __be annotations.
 */
#ifndef _SROCE_PROTO_COMPAT_H
#define _SROCE_PROTO_COMPAT_H

#ifdef __KERNEL__
#include <linux/types.h>
#include <linux/string.h>
#include <linux/errno.h>
#include <linux/math64.h>
#include <asm/byteorder.h>
#else
#include <stddef.h>
#include <stdint.h>
#include <stdbool.h>
#include <string.h>
#include <errno.h>
#include <endian.h>
#endif

#define SROCE_ARRAY_SIZE(a)	(sizeof(a) / sizeof((a)[0]))

/* 64-bit division, which 32-bit kernels do not have as an operator. */
static inline uint64_t sroce_div64(uint64_t a, uint64_t b)
{
#ifdef __KERNEL__
	return div64_u64(a, b);
#else
	return a / b;
#endif
}

static inline uint16_t sroce_be_load16(const uint8_t *p)
{
	return (uint16_t)((p[0] << 8) | p[1]);
}

/* 24-bit fields (QPNs, PSNs, MSNs) are common enough to deserve a helper. */
static inline uint32_t sroce_be_load24(const uint8_t *p)
{
	return ((uint32_t)p[0] << 16) | ((uint32_t)p[1] << 8) | p[2];
}

static inline uint32_t sroce_be_load32(const uint8_t *p)
{
	return ((uint32_t)p[0] << 24) | ((uint32_t)p[1] << 16) |
	       ((uint32_t)p[2] << 8) | p[3];
}

static inline uint64_t sroce_be_load64(const uint8_t *p)
{
	return ((uint64_t)sroce_be_load32(p) << 32) | sroce_be_load32(p + 4);
}

static inline void sroce_be_store16(uint8_t *p, uint16_t v)
{
	p[0] = (uint8_t)(v >> 8);
	p[1] = (uint8_t)v;
}

static inline void sroce_be_store24(uint8_t *p, uint32_t v)
{
	p[0] = (uint8_t)(v >> 16);
	p[1] = (uint8_t)(v >> 8);
	p[2] = (uint8_t)v;
}

static inline void sroce_be_store32(uint8_t *p, uint32_t v)
{
	p[0] = (uint8_t)(v >> 24);
	p[1] = (uint8_t)(v >> 16);
	p[2] = (uint8_t)(v >> 8);
	p[3] = (uint8_t)v;
}

static inline void sroce_be_store64(uint8_t *p, uint64_t v)
{
	sroce_be_store32(p, (uint32_t)(v >> 32));
	sroce_be_store32(p + 4, (uint32_t)v);
}

#endif /* _SROCE_PROTO_COMPAT_H */
