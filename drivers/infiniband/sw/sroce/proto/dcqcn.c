// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * DCQCN's reaction point (dcqcn.h).
 */
#include "dcqcn.h"

/* The highest rate the arithmetic keeps: far above any link. */
#define SROCE_DCQCN_MAX_PPS	(1ULL << 40)
#define SROCE_DCQCN_PERIOD_MAX_NS	1000000000ULL

void sroce_dcqcn_set_period(struct sroce_dcqcn *d, uint64_t period_ns)
{
	if (period_ns < SROCE_DCQCN_PERIOD_MIN_NS)
		period_ns = SROCE_DCQCN_PERIOD_MIN_NS;
	if (period_ns > SROCE_DCQCN_PERIOD_MAX_NS)
		period_ns = SROCE_DCQCN_PERIOD_MAX_NS;
	d->period_ns = period_ns;
}

void sroce_dcqcn_init(struct sroce_dcqcn *d, uint64_t period_ns,
		      uint64_t now)
{
	memset(d, 0, sizeof(*d));
	sroce_dcqcn_set_period(d, period_ns);
	d->alpha = SROCE_DCQCN_ONE;
	d->stage_at = now;
	d->alpha_at = now;
}

static uint64_t sroce_dcqcn_clamp(uint64_t pps)
{
	if (pps < SROCE_DCQCN_MIN_PPS)
		return SROCE_DCQCN_MIN_PPS;
	return pps > SROCE_DCQCN_MAX_PPS ? SROCE_DCQCN_MAX_PPS : pps;
}

/*
 * Whole periods from @*at to @now, at most SROCE_DCQCN_STAGES_MAX; @*at
 * moves by what was taken (to @now when capped: the rest is forgotten).
 */
static unsigned int sroce_dcqcn_periods(const struct sroce_dcqcn *d,
					uint64_t *at, uint64_t now)
{
	uint64_t n;

	if (now <= *at)
		return 0;
	n = sroce_div64(now - *at, d->period_ns);
	if (n >= SROCE_DCQCN_STAGES_MAX) {
		*at = now;
		return SROCE_DCQCN_STAGES_MAX;
	}
	*at += n * d->period_ns;
	return (unsigned int)n;
}

/*
 * One rate-increase stage, its counter already moved: the first F of
 * each kind recover toward the target; past F on one counter the target
 * rises by the additive step, past F on both by the hyper step.  True if
 * the rate changed.
 */
static bool sroce_dcqcn_stage(struct sroce_dcqcn *d)
{
	uint16_t hi = d->t_stages > d->b_stages ? d->t_stages : d->b_stages;
	uint16_t lo = d->t_stages > d->b_stages ? d->b_stages : d->t_stages;
	uint64_t old = d->rate;

	if (lo > SROCE_DCQCN_F)
		d->target += d->ref >> SROCE_DCQCN_HAI_SHIFT;
	else if (hi > SROCE_DCQCN_F)
		d->target += d->ref >> SROCE_DCQCN_AI_SHIFT;
	d->target = sroce_dcqcn_clamp(d->target);
	d->rate = (d->rate + d->target) / 2;
	if (d->rate > d->ref * SROCE_DCQCN_UNPACE_X) {
		d->rate = 0;
		d->target = 0;
	}
	return d->rate != old;
}

static uint16_t sroce_dcqcn_inc16(uint16_t v)
{
	return v == (uint16_t)~0 ? v : v + 1;
}

/* Make the stages and alpha decays the time since the last call holds. */
bool sroce_dcqcn_tick(struct sroce_dcqcn *d, uint64_t now)
{
	unsigned int n;
	bool changed = false;

	if (!d->rate)
		return false;
	for (n = sroce_dcqcn_periods(d, &d->alpha_at, now); n; n--)
		d->alpha -= d->alpha >> SROCE_DCQCN_G_SHIFT;
	for (n = sroce_dcqcn_periods(d, &d->stage_at, now); n && d->rate; n--) {
		d->t_stages = sroce_dcqcn_inc16(d->t_stages);
		changed |= sroce_dcqcn_stage(d);
	}
	return changed;
}

/*
 * The peer saw congestion.  @cur_pps is the rate the flow sends at now,
 * the starting point when it is not paced yet.  True if the rate changed.
 */
bool sroce_dcqcn_cnp(struct sroce_dcqcn *d, uint64_t cur_pps, uint64_t now)
{
	bool changed = sroce_dcqcn_tick(d, now);

	if (d->rate && now - d->cut_at < d->period_ns) {
		/* Too soon to cut again, but congestion lasts: no decay. */
		d->alpha_at = now;
		return changed;
	}
	if (!d->rate) {
		/* A new episode: believe the worst, as a new flow does. */
		d->rate = sroce_dcqcn_clamp(cur_pps);
		d->ref = d->rate;
		d->alpha = SROCE_DCQCN_ONE;
	}
	d->target = d->rate;
	d->rate = sroce_dcqcn_clamp(d->rate - ((d->rate * d->alpha) >> 17));
	d->alpha += (SROCE_DCQCN_ONE - d->alpha) >> SROCE_DCQCN_G_SHIFT;
	d->cut_at = now;
	d->alpha_at = now;
	d->stage_at = now;
	d->t_stages = 0;
	d->b_stages = 0;
	d->bytes = 0;
	d->cuts++;
	return true;
}

/* @bytes more went out: the byte counter's stages.  True if the rate changed. */
bool sroce_dcqcn_sent(struct sroce_dcqcn *d, uint32_t bytes, uint64_t now)
{
	bool changed = sroce_dcqcn_tick(d, now);

	if (!d->rate)
		return changed;
	d->bytes += bytes;
	if (d->bytes < SROCE_DCQCN_BC_BYTES)
		return changed;
	d->bytes = 0;
	d->b_stages = sroce_dcqcn_inc16(d->b_stages);
	return sroce_dcqcn_stage(d) || changed;
}
