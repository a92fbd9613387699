// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * linger.so - keep a process's QPs alive for SROCE_LINGER seconds after it
 * asks to destroy them (LD_PRELOAD), so that unchanged programs without a
 * closing handshake can be tested on a lossy path.
 *
 * Why: ibv_rc_pingpong exits as soon as its own work is complete.  Its
 * last SEND completes only when the peer's ACK arrives; if that ACK is
 * lost and the peer, which has everything it wanted, has already
 * destroyed its QP, the retransmissions reach no QP and the SEND ends in
 * "transport retry counter exceeded" on any RC transport (rxe or a NIC
 * too).  Under netem loss this happens in a few percent of runs.  While
 * the QP lingers, its responder answers the duplicate with the ACK the
 * program does not wait for.
 */
#include <dlfcn.h>
#include <stdlib.h>
#include <time.h>

#include <infiniband/verbs.h>

/* The unversioned definition below satisfies the versioned reference. */
int ibv_destroy_qp(struct ibv_qp *qp)
{
	static int (*real)(struct ibv_qp *qp);
	const char *s = getenv("SROCE_LINGER");
	struct timespec ts = { .tv_sec = s ? atoi(s) : 0 };

	if (!real)
		real = (int (*)(struct ibv_qp *))dlvsym(RTLD_NEXT, "ibv_destroy_qp",
							 "IBVERBS_1.1");
	if (!real)
		abort();
	while (ts.tv_sec > 0 && nanosleep(&ts, &ts))
		;
	return real(qp);
}
