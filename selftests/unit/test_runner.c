// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * The engine runner's decision (proto/runner.h, security.rst G18): every
 * schedule of "the pass left work" and "another CPU set AGAIN" up to a few
 * passes beyond the limit, then the two schedules that matter most.
 */
#include "tap.h"
#include "runner.h"

#define STEPS	(SROCE_RUNNER_PASSES + 2)

struct outcome {
	unsigned int passes;		/* passes the runner made */
	enum sroce_runner_next last;	/* how it left */
	unsigned int lost;		/* left with input owed and no work queued */
	unsigned int early;		/* handed off owed input it could still run */
};

/*
 * Pass i sees bit 2i of @sched as "more" and bit 2i+1 as "again"; the
 * runner goes on until it stops or hands off, at most STEPS passes.
 */
static struct outcome run(unsigned int sched)
{
	struct outcome o = { 0, SROCE_RUNNER_AGAIN, 0, 0 };
	unsigned int passes = 0, i;

	for (i = 0; i < STEPS && o.last == SROCE_RUNNER_AGAIN; i++) {
		bool more = sched >> (2 * i) & 1;
		bool again = sched >> (2 * i + 1) & 1;

		o.last = sroce_runner_next(&passes, more, again);
		o.passes++;
		if (o.last == SROCE_RUNNER_STOP && (more || again))
			o.lost++;
		if (o.last == SROCE_RUNNER_HANDOFF && !more &&
		    o.passes < SROCE_RUNNER_PASSES)
			o.early++;
	}
	return o;
}

static void test_every_schedule(void)
{
	unsigned int sched, n = 1u << (2 * STEPS);
	unsigned int lost = 0, early = 0, over = 0, open = 0, handoffs = 0;

	for (sched = 0; sched < n; sched++) {
		struct outcome o = run(sched);

		lost += o.lost;
		early += o.early;
		over += o.passes > SROCE_RUNNER_PASSES;
		open += o.last == SROCE_RUNNER_AGAIN;
		handoffs += o.last == SROCE_RUNNER_HANDOFF;
	}
	is(lost, 0, "%u schedules: never stops with input owed", n);
	is(over, 0, "never more than %d passes in one runner",
	   SROCE_RUNNER_PASSES);
	is(open, 0, "every schedule ends, in a stop or a handoff");
	is(early, 0, "owed input runs here while passes remain");
	ok(handoffs > 0 && handoffs < n, "both endings occur (%u handoffs)",
	   handoffs);
}

/* A schedule with the same (more, again) at every pass. */
static unsigned int every_pass(bool more, bool again)
{
	unsigned int sched = 0, i;

	for (i = 0; i < STEPS; i++)
		sched |= (unsigned int)(more | again << 1) << (2 * i);
	return sched;
}

static void test_flood(void)
{
	struct outcome o = run(every_pass(false, true));

	is(o.last, SROCE_RUNNER_HANDOFF, "AGAIN set before every check: the "
	   "work takes over");
	is(o.passes, SROCE_RUNNER_PASSES, "after exactly %d passes",
	   SROCE_RUNNER_PASSES);
	ok(SROCE_RUNNER_PASSES >= 2 && SROCE_RUNNER_PASSES <= 16,
	   "the limit (%d) lets a runner serve others, briefly",
	   SROCE_RUNNER_PASSES);
}

static void test_quiet(void)
{
	unsigned int sched = every_pass(false, true);
	struct outcome o;

	/* AGAIN for all passes but the last the limit allows. */
	sched &= (1u << (2 * (SROCE_RUNNER_PASSES - 1))) - 1;
	o = run(sched);
	is(o.last, SROCE_RUNNER_STOP, "AGAIN %d times, then quiet: stops",
	   SROCE_RUNNER_PASSES - 1);
	is(o.passes, SROCE_RUNNER_PASSES, "having run every pass here");

	o = run(every_pass(false, false));
	is(o.last, SROCE_RUNNER_STOP, "nothing owed: one pass, stop");
	is(o.passes, 1, "one pass");

	o = run(every_pass(true, false));
	is(o.last, SROCE_RUNNER_HANDOFF, "a pass that left work hands off");
	is(o.passes, 1, "at once");
}

int main(void)
{
	tap_start();
	test_every_schedule();
	test_flood();
	test_quiet();
	return tap_done();
}
