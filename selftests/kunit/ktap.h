/* SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause */
/*
 * The kernel side of selftests/unit/tap.h: the protocol core's userspace
 * unit tests are compiled unchanged into a KUnit module, so the same
 * checks also run in-kernel, under KASAN and lockdep on the debug kernel.
 *
 * Included first by each t_*.c wrapper; defining _SROCE_TAP_H makes the
 * test's own #include "tap.h" a no-op. A failed check becomes a KUnit
 * failure of the case that runs that test file (see suite.c).
 */
#ifndef _SROCE_KTAP_H
#define _SROCE_KTAP_H
#define _SROCE_TAP_H

#include <kunit/test.h>
#include <linux/kernel.h>
#include <linux/types.h>

/* The bits of <stdint.h> and <inttypes.h> the tests use. */
#define PRIx64 "llx"
#define PRId64 "lld"
#define UINT8_MAX U8_MAX
#define UINT16_MAX U16_MAX
#define UINT32_MAX U32_MAX
#define UINT64_MAX U64_MAX
#define INT32_MAX S32_MAX
#define INT32_MIN S32_MIN

/* The test being run, set by suite.c around each test file's main(). */
extern struct kunit *sroce_kunit_test;

/* Each test file's main(), renamed by its wrapper. */
int sroce_kunit_aeth(void);
int sroce_kunit_icrc(void);
int sroce_kunit_psn(void);
int sroce_kunit_req(void);
int sroce_kunit_resp(void);
int sroce_kunit_sack(void);
int sroce_kunit_cc(void);
int sroce_kunit_dcqcn(void);
int sroce_kunit_wire(void);
int sroce_kunit_runner(void);
int sroce_kunit_flow(void);
int sroce_kunit_rss(void);

static int tap_count;
static int tap_failed;

static inline void tap_start(void)
{
	tap_count = 0;
	tap_failed = 0;
}

static inline __printf(4, 5) bool
tap_ok(bool pass, const char *file, int line, const char *fmt, ...)
{
	struct va_format vaf;
	va_list ap;

	tap_count++;
	if (pass)
		return true;
	tap_failed++;
	va_start(ap, fmt);
	vaf.fmt = fmt;
	vaf.va = &ap;
	KUNIT_FAIL(sroce_kunit_test, "check %d: %pV (%s:%d)", tap_count,
		   &vaf, kbasename(file), line);
	va_end(ap);
	return false;
}

#define ok(cond, ...)	tap_ok(!!(cond), __FILE__, __LINE__, __VA_ARGS__)

#define is(got, want, ...)						\
	({								\
		u64 _g = (u64)(got), _w = (u64)(want);			\
		bool _p = ok(_g == _w, __VA_ARGS__);			\
		if (!_p)						\
			kunit_err(sroce_kunit_test,			\
				  "got 0x%llx (%lld), want 0x%llx (%lld)", \
				  _g, (s64)_g, _w, (s64)_w);		\
		_p;							\
	})

#define diag(...)	kunit_info(sroce_kunit_test, __VA_ARGS__)

static inline int tap_done(void)
{
	kunit_info(sroce_kunit_test, "%d checks, %d failed", tap_count,
		   tap_failed);
	return tap_failed ? 1 : 0;
}

static u64 tap_rng_state = 0x9e3779b97f4a7c15ull;

static inline u64 tap_rand(void)
{
	u64 x = tap_rng_state;

	x ^= x << 13;
	x ^= x >> 7;
	x ^= x << 17;
	tap_rng_state = x;
	return x;
}

#endif /* _SROCE_KTAP_H */
