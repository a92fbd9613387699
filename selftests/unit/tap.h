/* SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause */
/*
 * Minimal TAP 13 producer for the protocol core unit tests.  Each test
 * binary prints "TAP version 13", one "ok N - desc" / "not ok N - desc"
 * line per check, the plan "1..N" last, and exits 1 if any check failed.
 */
#ifndef _SROCE_TAP_H
#define _SROCE_TAP_H

#include <inttypes.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static int tap_count;
static int tap_failed;

static inline void tap_start(void)
{
	printf("TAP version 13\n");
}

static inline bool __attribute__((format(printf, 4, 5)))
tap_ok(bool pass, const char *file, int line, const char *fmt, ...)
{
	va_list ap;

	tap_count++;
	printf("%sok %d - ", pass ? "" : "not ", tap_count);
	va_start(ap, fmt);
	vprintf(fmt, ap);
	va_end(ap);
	printf("\n");
	if (!pass) {
		tap_failed++;
		printf("#   failed at %s:%d\n", file, line);
	}
	return pass;
}

#define ok(cond, ...)	tap_ok(!!(cond), __FILE__, __LINE__, __VA_ARGS__)

/* Equality with both values shown on failure. */
#define is(got, want, ...)						\
	({								\
		uint64_t _g = (uint64_t)(got), _w = (uint64_t)(want);	\
		bool _p = ok(_g == _w, __VA_ARGS__);			\
		if (!_p)						\
			printf("#   got 0x%" PRIx64 " (%" PRId64 "), "	\
			       "want 0x%" PRIx64 " (%" PRId64 ")\n",	\
			       _g, (int64_t)_g, _w, (int64_t)_w);	\
		_p;							\
	})

/* Diagnostic for aggregated loops: at most a few lines per check. */
#define diag(...)							\
	do {								\
		printf("#   ");						\
		printf(__VA_ARGS__);					\
		printf("\n");						\
	} while (0)

#define ARRAY_SIZE(a)	(sizeof(a) / sizeof((a)[0]))

static inline int tap_done(void)
{
	printf("1..%d\n", tap_count);
	if (tap_failed)
		printf("# %d of %d checks failed\n", tap_failed, tap_count);
	return tap_failed ? 1 : 0;
}

/* Deterministic xorshift so failures reproduce. */
static uint64_t tap_rng_state = 0x9e3779b97f4a7c15ull;

static inline uint64_t tap_rand(void)
{
	uint64_t x = tap_rng_state;

	x ^= x << 13;
	x ^= x >> 7;
	x ^= x << 17;
	tap_rng_state = x;
	return x;
}

#endif /* _SROCE_TAP_H */
