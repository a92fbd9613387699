// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/* 24-bit PSN arithmetic, with the wrap as the main concern. */
#include "tap.h"
#include "psn.h"

static void test_basic(void)
{
	is(sroce_psn_mask(0x12345678), 0x345678, "mask keeps 24 bits");
	is(sroce_psn_add(0xffffff, 1), 0, "add wraps at 2^24");
	is(sroce_psn_add(0xfffffe, 5), 3, "add wraps past 0");
	is(sroce_psn_add(5, 0x1000000), 5, "add of 2^24 is identity");
	is(sroce_psn_sub(0, 1), 0xffffff, "sub wraps below 0");
	is(sroce_psn_sub(3, 5), 0xfffffe, "sub 3 - 5");
}

static void test_diff(void)
{
	is(sroce_psn_diff(0, 0xffffff), 1, "diff across wrap is +1");
	is(sroce_psn_diff(0xffffff, 0), -1, "diff across wrap is -1");
	is(sroce_psn_diff(0x7fffff, 0), 0x7fffff, "diff max positive");
	is(sroce_psn_diff(0x800000, 0), -0x800000,
	   "diff of exactly half is -2^23");
	is(sroce_psn_diff(0, 0x800000), -0x800000,
	   "diff of exactly half is -2^23 both ways");
	is(sroce_psn_diff(0x1000005, 5), 0, "diff ignores bits above 24");
	is(sroce_psn_diff(0xff000010, 0x00fffff0), 0x20,
	   "diff with garbage upper bits");
	ok(sroce_psn_before(0xfffff0, 0x10), "0xfffff0 before 0x10");
	ok(sroce_psn_after(0x10, 0xfffff0), "0x10 after 0xfffff0");
	ok(!sroce_psn_before(0x10, 0x10) && sroce_psn_before_eq(0x10, 0x10),
	   "before is strict, before_eq is not");
	ok(!sroce_psn_after(0x10, 0x10) && sroce_psn_after_eq(0x10, 0x10),
	   "after is strict, after_eq is not");
	ok(sroce_psn_before(0x800000, 0) && sroce_psn_before(0, 0x800000),
	   "half-space apart: both 'before' (ambiguous by design)");
}

/* diff(add(b, d), b) == d for every d in [-2^23, 2^23) and several b. */
static void test_diff_exhaustive(void)
{
	static const uint32_t bases[] = { 0, 1, 0x7fffff, 0x800000,
					  0xfffffe, 0xffffff };
	unsigned int i;

	for (i = 0; i < ARRAY_SIZE(bases); i++) {
		uint32_t b = bases[i], bad = 0;
		int32_t d;

		for (d = -0x800000; d < 0x800000; d++) {
			uint32_t a = sroce_psn_add(b, (uint32_t)d);

			if (sroce_psn_diff(a, b) != d ||
			    sroce_psn_before(a, b) != (d < 0) ||
			    sroce_psn_after(a, b) != (d > 0))
				bad++;
		}
		is(bad, 0, "diff/before/after exhaustive around base 0x%06x",
		   b);
	}
}

static void test_window(void)
{
	ok(sroce_psn_in_window(0xfffffe, 0xfffffe, 4), "window start");
	ok(sroce_psn_in_window(1, 0xfffffe, 4), "window across wrap");
	ok(!sroce_psn_in_window(2, 0xfffffe, 4), "window end is open");
	ok(!sroce_psn_in_window(0xfffffd, 0xfffffe, 4), "below window");
	ok(!sroce_psn_in_window(5, 5, 0), "empty window");
}

int main(void)
{
	tap_start();
	test_basic();
	test_diff();
	test_diff_exhaustive();
	test_window();
	return tap_done();
}
