/* SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause */
/*
 * The engine runner's decision after one pass (engine.c, sroce_engine_try).
 *
 * A QP's engine runs on one CPU at a time.  A CPU that finds it busy sets
 * AGAIN and leaves, so the runner owes the input of others one more pass.
 * What the runner must never do:
 *
 *  - stop while AGAIN is set: that input would wait for the next packet
 *    or timer, which may never come;
 *  - pass on and on in one softirq because others keep setting AGAIN as
 *    fast as it runs (security.rst G18: a soft lockup a peer can cause).
 *
 * Hence a bounded number of passes, then the QP's work item takes over.
 * Kept here, pure, so that the unit tests can drive every schedule.
 */
#ifndef _SROCE_PROTO_RUNNER_H
#define _SROCE_PROTO_RUNNER_H

#include "compat.h"

/* Passes one runner makes, its own and for other CPUs' input. */
#define SROCE_RUNNER_PASSES	4

enum sroce_runner_next {
	SROCE_RUNNER_STOP,	/* nothing owed: leave */
	SROCE_RUNNER_AGAIN,	/* another pass, here and now */
	SROCE_RUNNER_HANDOFF,	/* owed, but not here: queue the work */
};

/*
 * Called after each pass.  @passes: the runner's count, 0 before its
 * first pass; @more: the pass itself left work (its budget ran out, or the
 * QP must move CPU); @again: AGAIN, read after RUNNING was released.
 */
static inline enum sroce_runner_next
sroce_runner_next(unsigned int *passes, bool more, bool again)
{
	++*passes;
	if (more)
		return SROCE_RUNNER_HANDOFF;
	if (!again)
		return SROCE_RUNNER_STOP;
	if (*passes >= SROCE_RUNNER_PASSES)
		return SROCE_RUNNER_HANDOFF;
	return SROCE_RUNNER_AGAIN;
}

#endif /* _SROCE_PROTO_RUNNER_H */
