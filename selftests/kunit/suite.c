// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * sroce_kunit: the protocol core's unit tests (selftests/unit) as a KUnit
 * suite, one case per test file. Loading the module runs them; results are
 * in the kernel log and /sys/kernel/debug/kunit/sroce-proto/results.
 * selftests/vm/05-kunit.sh runs it on a kernel with KUnit (the debug
 * kernel, tools/debug-kernel).
 */
#include <linux/module.h>
#include "ktap.h"

struct kunit *sroce_kunit_test;

static void sroce_kunit_run(struct kunit *test, int (*fn)(void))
{
	sroce_kunit_test = test;
	fn();
	sroce_kunit_test = NULL;
}

#define SROCE_KUNIT_CASE(name)					\
static void name(struct kunit *test)				\
{								\
	sroce_kunit_run(test, sroce_kunit_##name);		\
}

SROCE_KUNIT_CASE(aeth)
SROCE_KUNIT_CASE(cc)
SROCE_KUNIT_CASE(dcqcn)
SROCE_KUNIT_CASE(flow)
SROCE_KUNIT_CASE(icrc)
SROCE_KUNIT_CASE(psn)
SROCE_KUNIT_CASE(req)
SROCE_KUNIT_CASE(resp)
SROCE_KUNIT_CASE(rss)
SROCE_KUNIT_CASE(runner)
SROCE_KUNIT_CASE(sack)
SROCE_KUNIT_CASE(wire)

static struct kunit_case sroce_kunit_cases[] = {
	KUNIT_CASE(aeth),
	KUNIT_CASE(cc),
	KUNIT_CASE(dcqcn),
	KUNIT_CASE(flow),
	KUNIT_CASE(icrc),
	KUNIT_CASE(psn),
	KUNIT_CASE(req),
	KUNIT_CASE(resp),
	KUNIT_CASE(rss),
	KUNIT_CASE(runner),
	KUNIT_CASE(sack),
	KUNIT_CASE(wire),
	{}
};

static struct kunit_suite sroce_kunit_suite = {
	.name = "sroce-proto",
	.test_cases = sroce_kunit_cases,
};
kunit_test_suite(sroce_kunit_suite);

MODULE_DESCRIPTION("sroce protocol core unit tests (KUnit)");
MODULE_LICENSE("Dual BSD/GPL");
