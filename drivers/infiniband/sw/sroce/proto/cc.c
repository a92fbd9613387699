// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * The WAN congestion control's path model (cc.h).
 */
#include "cc.h"

#define NS_PER_S	1000000000ULL

/* PROBE_BW pacing gains, in quarters: probe, drain what it queued, cruise. */
static const uint8_t sroce_wan_cycle_gain[SROCE_WAN_CYCLE] = {
	5, 3, 4, 4, 4, 4, 4, 4
};

void sroce_wan_init(struct sroce_wan *w, uint32_t min_cwnd, uint32_t init,
		    uint32_t max_cwnd, uint64_t now)
{
	memset(w, 0, sizeof(*w));
	w->min_cwnd = min_cwnd ? min_cwnd : 1;
	w->max_cwnd = max_cwnd < w->min_cwnd ? w->min_cwnd : max_cwnd;
	w->cwnd = init < w->min_cwnd ? w->min_cwnd :
		  init > w->max_cwnd ? w->max_cwnd : init;
	w->state = SROCE_WAN_STARTUP;
	w->min_rtt_at = now;
	w->cycle_at = now;
}

/* The bottleneck bandwidth: the highest rate of the last rounds. */
uint64_t sroce_wan_bw(const struct sroce_wan *w)
{
	uint64_t m = 0;
	unsigned int i;

	for (i = 0; i < SROCE_WAN_BW_ROUNDS; i++)
		if (w->bw[i] > m)
			m = w->bw[i];
	return m;
}

/* Packets the path holds at the bottleneck's rate: bw x min RTT. */
uint64_t sroce_wan_bdp(const struct sroce_wan *w)
{
	return sroce_div64(sroce_wan_bw(w) * w->min_rtt_ns, NS_PER_S);
}

static unsigned int sroce_wan_gain(const struct sroce_wan *w)
{
	switch (w->state) {
	case SROCE_WAN_STARTUP:
		return SROCE_WAN_STARTUP_GAIN;
	case SROCE_WAN_DRAIN:
		return 4 * 4 / SROCE_WAN_STARTUP_GAIN;	/* 1/3, in quarters */
	case SROCE_WAN_PROBE_RTT:
		return 4;
	default:
		return sroce_wan_cycle_gain[w->cycle];
	}
}

/* The rate to pace at; 0 until there is an estimate (do not pace). */
uint64_t sroce_wan_pacing_pps(const struct sroce_wan *w)
{
	uint64_t bw = sroce_wan_bw(w);

	if (!bw || !w->min_rtt_ns)
		return 0;
	/* DRAIN's gain is below a quarter: compute it as a third. */
	if (w->state == SROCE_WAN_DRAIN)
		return bw * 4 / SROCE_WAN_STARTUP_GAIN ?: 1;
	return bw * sroce_wan_gain(w) / 4 ?: 1;
}

/*
 * Samples that show a limit of our own, not the path's: the application
 * had nothing to send, the sender's CPU was behind its pace, or the
 * queue share (sroce_wan_share()) held the window.  They may raise the
 * estimate but not age it out; else the share's cut would lower the
 * estimate, the estimate the window, and a flow once cut would never
 * win its share back.
 */
static bool sroce_wan_limited(const struct sroce_wan *w,
			      const struct sroce_rate_sample *rs)
{
	return rs->app_limited || rs->late || w->share_cwnd;
}

/*
 * A new round begins when a packet sent after the last one began is acked.
 * Rounds whose samples we limited leave the bandwidth of the last full
 * rounds in place rather than forget it.
 */
static bool sroce_wan_round(struct sroce_wan *w,
			    const struct sroce_rate_sample *rs)
{
	if (rs->prior_delivered < w->round_end)
		return false;
	w->round_end = rs->delivered;
	if (sroce_wan_limited(w, rs))
		return true;
	w->round++;
	w->bw[w->round % SROCE_WAN_BW_ROUNDS] = 0;
	return true;
}

static void sroce_wan_bw_sample(struct sroce_wan *w,
				const struct sroce_rate_sample *rs)
{
	uint64_t n = rs->delivered - rs->prior_delivered, bw;
	uint64_t *slot = &w->bw[w->round % SROCE_WAN_BW_ROUNDS];

	/* A sample over less than a round trip overstates the rate. */
	if (!n || !rs->interval_ns || rs->interval_ns < w->min_rtt_ns)
		return;
	bw = sroce_div64(n * NS_PER_S, rs->interval_ns);
	/* Our own limit's rate says only that the path does at least it. */
	if (sroce_wan_limited(w, rs) && bw <= sroce_wan_bw(w))
		return;
	if (bw > *slot)
		*slot = bw;
}

/*
 * The lowest RTT of ten seconds.  When it grows stale, it is replaced by
 * what the path shows now, and PROBE_RTT empties our part of the queue
 * so that what it shows is the bare path; without that, a flow that
 * keeps the queue full takes its own queue for the path, raises its BDP
 * and queues more (BBR's PROBE_RTT, at BBRv2's half BDP rather than four
 * packets).
 */
static void sroce_wan_min_rtt(struct sroce_wan *w, uint64_t rtt, uint64_t now)
{
	bool stale = w->min_rtt_ns && now - w->min_rtt_at > SROCE_WAN_MIN_RTT_NS;

	if (rtt && (!w->min_rtt_ns || rtt <= w->min_rtt_ns || stale)) {
		w->min_rtt_ns = rtt;
		w->min_rtt_at = now;
	}
	if (stale && w->full && w->state != SROCE_WAN_PROBE_RTT) {
		w->prior_cwnd = w->cwnd;
		w->state = SROCE_WAN_PROBE_RTT;
		w->probe_rtt_end = 0;
	}
}

/*
 * Half the BDP; or, for a flow that its queue share holds (whose estimate
 * is kept, not aged), half that share, so that flows sharing a queue all
 * halve what they keep in it and the queue does drain.
 */
static uint64_t sroce_wan_probe_rtt_cwnd(const struct sroce_wan *w)
{
	uint64_t c = sroce_wan_bdp(w) / 2;

	if (w->share_cwnd && w->share_cwnd / 2 < c)
		c = w->share_cwnd / 2;

	return c < w->min_cwnd ? w->min_cwnd : c;
}

/* Half the BDP in flight for 200 ms (a round trip at least), then back. */
static void sroce_wan_probe_rtt(struct sroce_wan *w,
				const struct sroce_rate_sample *rs,
				uint64_t now)
{
	uint64_t hold = w->min_rtt_ns > SROCE_WAN_PROBE_RTT_NS ?
			w->min_rtt_ns : SROCE_WAN_PROBE_RTT_NS;

	if (!w->probe_rtt_end) {
		if (rs->inflight <= sroce_wan_probe_rtt_cwnd(w))
			w->probe_rtt_end = now + hold;
		return;
	}
	if (now < w->probe_rtt_end)
		return;
	w->min_rtt_at = now;
	w->state = SROCE_WAN_PROBE_BW;
	w->cycle = 2;
	w->cycle_at = now;
	if (w->cwnd < w->prior_cwnd)
		w->cwnd = w->prior_cwnd;
}

/* Startup ends once three rounds in a row brought no 25 % more. */
static void sroce_wan_check_full(struct sroce_wan *w)
{
	uint64_t bw = sroce_wan_bw(w);

	if (w->full)
		return;
	if (bw >= w->full_bw + w->full_bw / 4) {
		w->full_bw = bw;
		w->full_rounds = 0;
		return;
	}
	if (++w->full_rounds >= 3)
		w->full = true;
}

static void sroce_wan_state(struct sroce_wan *w,
			    const struct sroce_rate_sample *rs, uint64_t now)
{
	switch (w->state) {
	case SROCE_WAN_STARTUP:
		if (w->full)
			w->state = SROCE_WAN_DRAIN;
		break;
	case SROCE_WAN_DRAIN:
		if (rs->inflight <= sroce_wan_bdp(w)) {
			w->state = SROCE_WAN_PROBE_BW;
			w->cycle = 2;		/* cruise first */
			w->cycle_at = now;
		}
		break;
	case SROCE_WAN_PROBE_RTT:
		sroce_wan_probe_rtt(w, rs, now);
		break;
	default:
		if (now - w->cycle_at > w->min_rtt_ns) {
			w->cycle = (w->cycle + 1) % SROCE_WAN_CYCLE;
			w->cycle_at = now;
		}
		break;
	}
}

/*
 * The queue share: at the end of each round in PROBE_BW, the packets this
 * flow keeps queued at the bottleneck are its inflight times the part of
 * the RTT that is queue (Little's law).  Over SROCE_WAN_QUEUE_PKTS, the
 * window is capped to take back half the excess.  Under half that, a
 * capped flow's cap grows again, and goes once it no longer binds; a
 * flow without a cap that finds a queue (the RTT an eighth over the
 * minimum) raises its estimate, so that it paces faster and claims its
 * part of the queue.  Between the two, nothing moves, so that a flow at
 * its share does not swing around it.
 *
 * Why: the bandwidth estimate is the maximum of noisy samples and runs
 * above the path, so flows end bound by their windows, each window
 * twice the flow's own estimate; their shares of the queue then follow
 * those windows whatever they are, and the flow that came first keeps
 * what it took.  A share of the queue counted in packets, the same for
 * every flow, is what the shares converge to instead (as in TCP Vegas):
 * the larger flow holds more of the queue, so it is the one cut, and
 * the smaller one, paced at its own low estimate, the one that grows.
 * The lowest RTT of this round and the one before, not each sample, is
 * taken, so that the guests' own jitter is not read as queue: under 1 %
 * loss, with one ACK for a hundred packets, a round of 100 ms has only
 * some twenty samples, and the lowest of them can be 50 ms over the path.
 */
static uint64_t sroce_wan_queued(const struct sroce_wan *w,
				 const struct sroce_rate_sample *rs,
				 uint64_t rtt)
{
	uint64_t q;

	if (rtt <= w->min_rtt_ns)
		return 0;
	q = sroce_div64(rs->inflight * (rtt - w->min_rtt_ns), rtt);
	return q < rs->inflight ? q : rs->inflight;	/* no wrap */
}

static void sroce_wan_share_grow(struct sroce_wan *w)
{
	uint64_t grow = w->share_cwnd / 16, cap;

	if (grow < SROCE_WAN_QUEUE_PKTS / 8)
		grow = SROCE_WAN_QUEUE_PKTS / 8;
	cap = w->share_cwnd + grow;
	w->share_cwnd = cap >= sroce_wan_bdp(w) * SROCE_WAN_CWND_GAIN / 4 ?
			0 : (uint32_t)cap;
}

/* An eighth of the queue share more per round trip, as a rate. */
static void sroce_wan_share_claim(struct sroce_wan *w)
{
	uint64_t *slot = &w->bw[w->round % SROCE_WAN_BW_ROUNDS];
	uint64_t bw = sroce_wan_bw(w) +
		      sroce_div64(SROCE_WAN_QUEUE_PKTS / 8 * NS_PER_S,
				  w->min_rtt_ns);

	if (bw > *slot)
		*slot = bw;
}

static void sroce_wan_share(struct sroce_wan *w,
			    const struct sroce_rate_sample *rs)
{
	uint64_t rtt = w->round_rtt_ns, queued, cap;

	if (w->last_rtt_ns && (!rtt || w->last_rtt_ns < rtt))
		rtt = w->last_rtt_ns;
	w->last_rtt_ns = w->round_rtt_ns;
	w->round_rtt_ns = 0;
	if (w->state != SROCE_WAN_PROBE_BW || !rtt || !w->min_rtt_ns ||
	    rs->app_limited)
		return;
	queued = sroce_wan_queued(w, rs, rtt);
	if (queued > SROCE_WAN_QUEUE_PKTS) {
		cap = rs->inflight - (queued - SROCE_WAN_QUEUE_PKTS) / 2;
		w->share_cwnd = cap < w->min_cwnd ? w->min_cwnd : (uint32_t)cap;
	} else if (queued > SROCE_WAN_QUEUE_PKTS / 2) {
		return;
	} else if (w->share_cwnd) {
		sroce_wan_share_grow(w);
	} else if (!rs->late && rtt > w->min_rtt_ns + w->min_rtt_ns / 8) {
		sroce_wan_share_claim(w);
	}
}

/*
 * The window: twice the BDP once it is known (enough for ACKs that come
 * in bunches); in startup it grows by what each ACK delivers.
 */
static void sroce_wan_cwnd(struct sroce_wan *w,
			   const struct sroce_rate_sample *rs)
{
	uint64_t target = sroce_wan_bdp(w) * SROCE_WAN_CWND_GAIN / 4;
	uint64_t c = w->cwnd;

	if (w->full && target)
		c = c + rs->acked < target ? c + rs->acked : target;
	else if (!target || c < target)
		c += rs->acked;
	if (w->state == SROCE_WAN_PROBE_RTT) {
		uint64_t cap = sroce_wan_probe_rtt_cwnd(w);

		c = c < cap ? c : cap;
	}
	if (w->share_cwnd && c > w->share_cwnd)
		c = w->share_cwnd;
	if (c < w->min_cwnd)
		c = w->min_cwnd;
	if (c > w->max_cwnd)
		c = w->max_cwnd;
	w->cwnd = (uint32_t)c;
}

void sroce_wan_ack(struct sroce_wan *w, const struct sroce_rate_sample *rs,
		   uint64_t now)
{
	bool round;

	sroce_wan_min_rtt(w, rs->rtt_ns, now);
	if (rs->prior_delivered >= w->round_end)
		sroce_wan_share(w, rs);
	if (rs->rtt_ns && (!w->round_rtt_ns || rs->rtt_ns < w->round_rtt_ns))
		w->round_rtt_ns = rs->rtt_ns;
	round = sroce_wan_round(w, rs);
	sroce_wan_bw_sample(w, rs);
	/* Startup is over when the path stops giving more, not the sender. */
	if (round && !rs->app_limited)
		sroce_wan_check_full(w);
	sroce_wan_state(w, rs, now);
	sroce_wan_cwnd(w, rs);
}

/*
 * A retransmit timeout: nothing came back for a whole RTO, so what was in
 * flight is gone, or queued somewhere far longer than the model thinks.
 * Start again from the smallest window and grow by what each ACK
 * delivers (sroce_wan_cwnd()), as BBR does on a timeout; the model
 * stays.  Random loss that selective repeat repairs does not come here.
 */
void sroce_wan_timeout(struct sroce_wan *w)
{
	w->cwnd = w->min_cwnd;
}
