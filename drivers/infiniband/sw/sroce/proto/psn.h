/* SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause */
/*
 * 24-bit packet sequence number arithmetic (IBTA vol 1 ch. 9.7).
 *
 * PSNs live in a circular space of 2^24 values.  Comparisons only make
 * sense between PSNs less than half the space apart, so "a before b" is
 * defined by the sign of the shortest signed distance from b to a, which
 * lies in [-2^23, 2^23).  Callers keep the distance between any two PSNs
 * they compare well inside that window (the spec limits outstanding PSNs
 * to 2^23 for exactly this reason).
 */
#ifndef _SROCE_PROTO_PSN_H
#define _SROCE_PROTO_PSN_H

#include "compat.h"

#define SROCE_PSN_BITS		24
#define SROCE_PSN_MASK		0x00ffffffu
#define SROCE_PSN_HALF		0x00800000u

static inline uint32_t sroce_psn_mask(uint32_t psn)
{
	return psn & SROCE_PSN_MASK;
}

static inline uint32_t sroce_psn_add(uint32_t psn, uint32_t n)
{
	return (psn + n) & SROCE_PSN_MASK;
}

static inline uint32_t sroce_psn_sub(uint32_t psn, uint32_t n)
{
	return (psn - n) & SROCE_PSN_MASK;
}

/*
 * Signed distance a - b in [-2^23, 2^23).  Done without shifting a signed
 * value so that it is well defined C and UBSan-clean.
 */
static inline int32_t sroce_psn_diff(uint32_t a, uint32_t b)
{
	uint32_t d = (a - b) & SROCE_PSN_MASK;

	if (d & SROCE_PSN_HALF)
		return (int32_t)d - (int32_t)(SROCE_PSN_MASK + 1);
	return (int32_t)d;
}

static inline bool sroce_psn_before(uint32_t a, uint32_t b)
{
	return sroce_psn_diff(a, b) < 0;
}

static inline bool sroce_psn_before_eq(uint32_t a, uint32_t b)
{
	return sroce_psn_diff(a, b) <= 0;
}

static inline bool sroce_psn_after(uint32_t a, uint32_t b)
{
	return sroce_psn_diff(a, b) > 0;
}

static inline bool sroce_psn_after_eq(uint32_t a, uint32_t b)
{
	return sroce_psn_diff(a, b) >= 0;
}

/* True if psn lies in the circular interval [lo, lo + n). */
static inline bool sroce_psn_in_window(uint32_t psn, uint32_t lo, uint32_t n)
{
	return ((psn - lo) & SROCE_PSN_MASK) < n;
}

#endif /* _SROCE_PROTO_PSN_H */
