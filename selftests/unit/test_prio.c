// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * Priority classes (proto/prio.h): the class of an SL and traffic class,
 * who is outranked when, across the tick counter's wrap, and what a
 * yielding QP keeps.
 */
#include <limits.h>

#include "tap.h"
#include "prio.h"

static void test_class(void)
{
	unsigned int sl, tc, bad = 0;

	is(sroce_prio_class(0, 0), 0, "SL 0, best effort: class 0");
	is(sroce_prio_class(0, 46 << 2), 5, "DSCP EF (46): class 5");
	is(sroce_prio_class(0, (46 << 2) | 3), 5, "ECN bits do not count");
	is(sroce_prio_class(7, 0), 7, "SL 7: class 7");
	is(sroce_prio_class(15, 0), 7, "SL 15: its low three bits");
	is(sroce_prio_class(2, 26 << 2), 3, "the higher of SL 2 and AF31");
	for (sl = 0; sl < 16; sl++)
		for (tc = 0; tc < 256; tc++)
			bad += sroce_prio_class(sl, tc) >= SROCE_PRIO_CLASSES;
	is(bad, 0, "every SL and traffic class gives a class below %d",
	   SROCE_PRIO_CLASSES);
}

static void set_all(unsigned long *until, unsigned long v)
{
	unsigned int p;

	for (p = 0; p < SROCE_PRIO_CLASSES; p++)
		until[p] = v;
}

static void test_outranked(void)
{
	unsigned long until[SROCE_PRIO_CLASSES], now = 1000;
	unsigned int p, bad = 0;

	set_all(until, now);
	for (p = 0; p < SROCE_PRIO_CLASSES; p++)
		bad += sroce_prio_outranked(until, p, now);
	is(bad, 0, "no class active: nobody is outranked");

	until[5] = now + 25;
	ok(sroce_prio_outranked(until, 0, now), "class 5 active: 0 yields");
	ok(sroce_prio_outranked(until, 4, now), "and 4");
	ok(!sroce_prio_outranked(until, 5, now), "not 5 itself");
	ok(!sroce_prio_outranked(until, 7, now), "nor a class above it");
	ok(sroce_prio_outranked(until, 0, now + 24), "still one tick before");
	ok(!sroce_prio_outranked(until, 0, now + 25), "over at its time");
	ok(!sroce_prio_outranked(until, 0, now + 1000), "and after");

	/* Across the wrap of the tick counter (jiffies start near it). */
	now = ULONG_MAX - 5;
	set_all(until, now);
	until[3] = now + 25;
	ok(sroce_prio_outranked(until, 1, now), "active across the wrap");
	ok(sroce_prio_outranked(until, 1, now + 10), "and after it");
	ok(!sroce_prio_outranked(until, 1, now + 30), "over after it");

	/* A device created "until now" is never outranked later on. */
	set_all(until, ULONG_MAX - 5);
	ok(!sroce_prio_outranked(until, 0, 7), "old entries stay inactive");
}

static void test_limits(void)
{
	is(sroce_prio_queue_max(256, false), 256, "not yielding: the bound");
	is(sroce_prio_queue_max(256, true), SROCE_PRIO_YIELD_QUEUE,
	   "yielding: %d packets queued", SROCE_PRIO_YIELD_QUEUE);
	is(sroce_prio_queue_max(4, true), 4, "never above a smaller bound");
	is(sroce_prio_budget(64, false), 64, "not yielding: the budget");
	is(sroce_prio_budget(64, true), SROCE_PRIO_YIELD_BUDGET,
	   "yielding: %d per run", SROCE_PRIO_YIELD_BUDGET);
	is(sroce_prio_budget(1, true), 1, "never above a smaller budget");
	ok(SROCE_PRIO_YIELD_BUDGET > 0 && SROCE_PRIO_YIELD_QUEUE > 0,
	   "a yielding QP still makes progress");
}

static void test_short_path(void)
{
	ok(!sroce_prio_short_path(0), "no RTT sample yet: not short");
	ok(sroce_prio_short_path(40000), "a veth under TCG (40 us): short");
	ok(sroce_prio_short_path(800000), "that veth under load (0.8 ms): short");
	ok(sroce_prio_short_path(4999999), "just under 5 ms: short");
	ok(!sroce_prio_short_path(5000000), "5 ms: not short");
	ok(!sroce_prio_short_path(100000000ULL), "100 ms (broadband): not short");
}

int main(void)
{
	tap_start();
	test_class();
	test_outranked();
	test_limits();
	test_short_path();
	return tap_done();
}
