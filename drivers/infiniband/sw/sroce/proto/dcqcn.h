/* SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause */
/*
 * DCQCN's reaction point: the rate a requester sends at, cut when the
 * peer reports congestion with a CNP and recovered in stages when it does
 * not (Zhu et al., "Congestion Control for Large-Scale RDMA Deployments",
 * SIGCOMM 2015).  The notification point (a CE-marked packet arrives: send
 * a CNP, at most one per SROCE_DCQCN_CNP_GAP_NS) and the marking switch
 * are not here: they are a counter and a timestamp in the module, and a
 * queue in the simulation (selftests/unit/test_dcqcn.c).
 *
 *   CNP	target = rate; rate *= 1 - alpha/2; alpha moves toward 1.
 *		At most one cut per period: the CNPs of one congestion
 *		episode (one per 50 us from the peer) are one signal.
 *   period	without a CNP, alpha decays by 1 - g; and the rate-increase
 *		timer makes a stage.
 *   bytes	every SROCE_DCQCN_BC_BYTES sent make a stage too.
 *   stage	the first SROCE_DCQCN_F stages of each kind halve the way
 *		back to the target (fast recovery); after that, the target
 *		rises by SROCE_DCQCN_AI of the reference rate per stage
 *		(additive increase), or by SROCE_DCQCN_HAI of it once both
 *		kinds passed F (hyper increase).
 *
 * The paper's increase steps are absolute (40 and 100 Mbit/s for a 40
 * Gbit/s NIC); a software device knows no line rate, so they are
 * fractions of the reference rate, the rate at which the first CNP found
 * the flow.  The period is the caller's: 55 us in the paper, a round trip
 * here, since a TCG guest's round trip is milliseconds and five 55 us
 * stages would undo a cut before its effect could be seen.
 *
 * Timers are lazy: no timer runs, each call first makes the stages the
 * time since the last one holds.  Units: packets per second and
 * nanoseconds; alpha in 1/65536.  rate 0 means not paced: no CNP yet, or
 * the flow recovered far above where congestion found it.
 */
#ifndef _SROCE_PROTO_DCQCN_H
#define _SROCE_PROTO_DCQCN_H

#include "compat.h"

#define SROCE_DCQCN_ONE		65536U	/* alpha's 1.0 */
#define SROCE_DCQCN_G_SHIFT	4	/* g = 1/16 */
#define SROCE_DCQCN_F		5	/* fast recovery stages */
#define SROCE_DCQCN_AI_SHIFT	7	/* additive step: reference / 128 */
#define SROCE_DCQCN_HAI_SHIFT	4	/* hyper step: reference / 16 */
#define SROCE_DCQCN_BC_BYTES	(10ULL << 20)	/* the paper's 10 MB */
#define SROCE_DCQCN_PERIOD_MIN_NS	55000ULL	/* the paper's 55 us */
#define SROCE_DCQCN_CNP_GAP_NS	50000ULL	/* NP: a CNP per 50 us */
#define SROCE_DCQCN_MIN_PPS	100ULL
/* Far above where congestion found it: stop pacing. */
#define SROCE_DCQCN_UNPACE_X	4
/* Stages one call makes at most: after an idle second, not 20000. */
#define SROCE_DCQCN_STAGES_MAX	64

struct sroce_dcqcn {
	uint64_t rate;		/* current rate (RC); 0: not paced */
	uint64_t target;	/* target rate (RT) */
	uint64_t ref;		/* rate at the first cut: the step's scale */
	uint64_t period_ns;
	uint64_t stage_at;	/* the rate-increase timer last fired */
	uint64_t alpha_at;	/* alpha last moved */
	uint64_t cut_at;	/* the last cut */
	uint64_t bytes;		/* sent since the last byte stage */
	uint32_t alpha;
	uint16_t t_stages;	/* timer stages since the last cut */
	uint16_t b_stages;	/* byte stages since the last cut */
	uint32_t cuts;		/* for observability */
};

void sroce_dcqcn_init(struct sroce_dcqcn *d, uint64_t period_ns,
		      uint64_t now);
void sroce_dcqcn_set_period(struct sroce_dcqcn *d, uint64_t period_ns);
bool sroce_dcqcn_cnp(struct sroce_dcqcn *d, uint64_t cur_pps, uint64_t now);
bool sroce_dcqcn_tick(struct sroce_dcqcn *d, uint64_t now);
bool sroce_dcqcn_sent(struct sroce_dcqcn *d, uint32_t bytes, uint64_t now);

/* The pace: packets per second, 0 for none. */
static inline uint64_t sroce_dcqcn_pps(const struct sroce_dcqcn *d)
{
	return d->rate;
}

#endif /* _SROCE_PROTO_DCQCN_H */
