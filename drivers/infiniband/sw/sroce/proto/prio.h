/* SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause */
/*
 * Priority classes: a latency-sensitive QP (a game, a remote desktop)
 * must not wait behind bulk QPs of the same device.
 *
 * A QP's class (0..7) is the higher of its SL and the class selector of
 * its traffic class (the DSCP's top three bits: EF, 46, is class 5).
 * RoCE carries no SL on the wire; the traffic class becomes the DSCP.
 *
 * Under load what a small packet waits behind is local: the packets the
 * bulk QPs hold in this host's queues (a veth or lo delivers through a
 * per-CPU backlog, in order), and an engine run of a bulk QP, which sends
 * a budget of packets with bottom halves off.  So while a higher class
 * has sent in the last SROCE_PRIO_HOLD_MS, lower classes yield: they keep
 * fewer packets queued in the host and send fewer per run.  Nothing is
 * dropped or reordered, and a class alone on the device is never slowed.
 *
 * Kept here, pure, so that the unit tests can drive it.
 */
#ifndef _SROCE_PROTO_PRIO_H
#define _SROCE_PROTO_PRIO_H

#include "compat.h"

#define SROCE_PRIO_CLASSES	8

/* How long a class counts as active after its last packet. */
#define SROCE_PRIO_HOLD_MS	100

/* What a yielding QP may keep queued in this host, and send per run. */
#define SROCE_PRIO_YIELD_QUEUE	16
#define SROCE_PRIO_YIELD_BUDGET	8

static inline unsigned int sroce_prio_class(unsigned int sl,
					    unsigned int traffic_class)
{
	unsigned int a = sl & 7, b = (traffic_class >> 5) & 7;

	return a > b ? a : b;
}

/*
 * Is a class above @prio active at @now?  @until: per class, the time
 * (in a wrapping tick count) until which it counts as active; the caller
 * starts every entry at its clock's value at creation.
 */
static inline bool sroce_prio_outranked(const unsigned long *until,
					unsigned int prio, unsigned long now)
{
	unsigned int p;

	for (p = prio + 1; p < SROCE_PRIO_CLASSES; p++)
		if ((long)(until[p] - now) > 0)
			return true;
	return false;
}

/*
 * A path this short (the minimum RTT its packets saw) is a LAN or this
 * host: what a QP has unacknowledged on it is mostly still queued in
 * the hosts, so a yielding QP may count it as queued.  On a longer path
 * (broadband, 20 ms and up) it is on the wire, and bounding it would
 * only cost the bulk its window.  5 ms, not less: under load a veth
 * between two namespaces of a TCG guest sees 0.4 to 0.8 ms as its
 * minimum.  0: no sample yet.
 */
#define SROCE_PRIO_SHORT_RTT_NS	5000000ULL

static inline bool sroce_prio_short_path(uint64_t min_rtt_ns)
{
	return min_rtt_ns && min_rtt_ns < SROCE_PRIO_SHORT_RTT_NS;
}

/* The packets a QP may keep queued in this host, @base when not yielding. */
static inline unsigned int sroce_prio_queue_max(unsigned int base,
						bool outranked)
{
	if (outranked && base > SROCE_PRIO_YIELD_QUEUE)
		return SROCE_PRIO_YIELD_QUEUE;
	return base;
}

/* The packets an engine run may handle per stage, @base when not yielding. */
static inline int sroce_prio_budget(int base, bool outranked)
{
	if (outranked && base > SROCE_PRIO_YIELD_BUDGET)
		return SROCE_PRIO_YIELD_BUDGET;
	return base;
}

#endif /* _SROCE_PROTO_PRIO_H */
