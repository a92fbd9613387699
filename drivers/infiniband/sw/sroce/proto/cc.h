/* SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause */
/*
 * The WAN congestion control: a model of the path, not a reaction to
 * loss, in the manner of BBR (Cardwell et al., "BBR: Congestion-Based
 * Congestion Control", ACM Queue 2016).  Each acknowledgement gives a
 * delivery rate sample; the bottleneck bandwidth is the highest of the
 * last ten rounds, the propagation delay the lowest RTT of the last ten
 * seconds.  The requester paces at a gain times that bandwidth and keeps
 * at most twice the bandwidth-delay product in flight.  Random loss
 * moves neither estimate, so a lossy long path stays full, where AIMD
 * (req.h) halves its window every round trip.  Flows that share a
 * bottleneck each keep a share of its queue counted in packets (cc.c:
 * sroce_wan_share()), so that their rates converge.
 *
 * Units: packets (PSNs) and nanoseconds; rates in packets per second.
 */
#ifndef _SROCE_PROTO_CC_H
#define _SROCE_PROTO_CC_H

#include "compat.h"

/* Rounds the bandwidth filter remembers. */
#define SROCE_WAN_BW_ROUNDS	10
/* How long a minimum RTT stays valid. */
#define SROCE_WAN_MIN_RTT_NS	10000000000ULL
/* Gains in quarters: 2.89 ~ 2/ln 2 in startup, 2 for the window. */
#define SROCE_WAN_STARTUP_GAIN	12	/* 3.0: doubles each round */
#define SROCE_WAN_CWND_GAIN	8	/* 2.0 */
#define SROCE_WAN_CYCLE		8	/* PROBE_BW phases */
/* PROBE_RTT: how long in flight stays at half the BDP, at least. */
#define SROCE_WAN_PROBE_RTT_NS	200000000ULL
/*
 * Packets of its own a flow may keep queued at the bottleneck (see
 * sroce_wan_share() in cc.c): a count, not a time, so that flows sharing
 * a queue converge to equal rates.  A flow alone keeps between half of
 * it and all of it queued: at 100 Mbit/s of 1432-byte packets, 23 to 46
 * ms of RTT above the minimum, of which a TCG guest adds 20 to 40 on its
 * own under loss (256, judged by one round's lowest RTT, cut a single
 * flow to 75 and 77 Mbit/s at 1 % loss).
 */
#define SROCE_WAN_QUEUE_PKTS	384

enum sroce_wan_state {
	SROCE_WAN_STARTUP,	/* double the rate each round until full */
	SROCE_WAN_DRAIN,	/* empty the queue startup built */
	SROCE_WAN_PROBE_BW,	/* cruise at the bandwidth, probe now and then */
	SROCE_WAN_PROBE_RTT,	/* half the BDP in flight: see the bare path */
};

/* What one acknowledgement delivered (BBR's rate sample). */
struct sroce_rate_sample {
	uint64_t delivered;	/* packets delivered so far, this one included */
	uint64_t prior_delivered;	/* when the newest acked packet left */
	uint64_t interval_ns;	/* since the delivery before it left */
	uint64_t ack_ns;	/* the interval's two legs (for the trace) */
	uint64_t send_ns;
	uint64_t rtt_ns;	/* of a packet sent once; 0: none */
	uint32_t acked;		/* packets newly delivered by this ACK */
	uint32_t inflight;	/* packets in flight after it */
	bool app_limited;	/* sent while the sender had nothing to send */
	bool late;		/* sent behind its pace (sroce_pace_behind()) */
};

struct sroce_wan {
	uint8_t state;		/* enum sroce_wan_state */
	uint8_t cycle;		/* PROBE_BW phase */
	uint8_t full_rounds;	/* rounds without 25 % more bandwidth */
	bool full;		/* startup found the bottleneck */
	uint32_t round;
	uint64_t round_end;	/* delivered count that ends the round */
	uint64_t bw[SROCE_WAN_BW_ROUNDS];	/* per-round max, pps */
	uint64_t full_bw;
	uint64_t min_rtt_ns;	/* 0: none yet */
	uint64_t min_rtt_at;
	uint64_t cycle_at;
	uint64_t probe_rtt_end;	/* PROBE_RTT ends then; 0: not down yet */
	uint32_t prior_cwnd;	/* the window PROBE_RTT gives back */
	uint64_t round_rtt_ns;	/* the lowest RTT of this round; 0: none */
	uint64_t last_rtt_ns;	/* ... and of the round before */
	uint32_t share_cwnd;	/* the queue share's cap; 0: none */
	uint32_t cwnd;
	uint32_t min_cwnd;
	uint32_t max_cwnd;
};

/*
 * A rate sample's interval, for a packet sent at @xmit when the newest
 * delivery (at @del_ns) was of a packet sent at @first_tx: the longer of
 * the time over which the packets delivered since were sent and the time
 * over which they were acknowledged.  ACKs that come bunched (a TCG guest,
 * a gap closing) would otherwise show a rate the path never had.
 */
static inline uint64_t sroce_rate_interval(uint64_t now, uint64_t del_ns,
					   uint64_t xmit, uint64_t first_tx)
{
	uint64_t ack = now > del_ns ? now - del_ns : 1;
	uint64_t send = xmit > first_tx ? xmit - first_tx : 0;

	return ack > send ? ack : send;
}

/*
 * Pacing arithmetic, shared by the module and the simulation: a packet
 * may go SROCE_PACE_EARLY_NS before it is due, so that one timer sends
 * a train; time a late timer lost is made up, up to SROCE_PACE_LATE_NS
 * of it, or a guest whose timers run late would send ever slower than
 * its pace, and the bandwidth model, fed those rates, would follow it
 * down.
 */
#define SROCE_PACE_EARLY_NS	1000000ULL
#define SROCE_PACE_LATE_NS	10000000ULL

static inline bool sroce_pace_ok(uint64_t next, uint64_t now)
{
	return now + SROCE_PACE_EARLY_NS >= next;
}

/*
 * A packet that leaves SROCE_PACE_BEHIND_NS after it was due went at the
 * pace the sender's CPU allowed, not the path: its rate sample may raise
 * the bandwidth estimate but not age it out.  Otherwise a sender short
 * of CPU (a busy guest, two QPs on one core) follows its own stalls
 * down, paces slower, and gives up its share for good.
 */
#define SROCE_PACE_BEHIND_NS	4000000ULL

static inline bool sroce_pace_behind(uint64_t next, uint64_t now)
{
	return now > next + SROCE_PACE_BEHIND_NS;
}

/* When the packet after one that went at @now is due. */
static inline uint64_t sroce_pace_next(uint64_t next, uint64_t now,
				       uint64_t gap)
{
	if (next + SROCE_PACE_LATE_NS < now)
		next = now - SROCE_PACE_LATE_NS;
	return next + gap;
}

void sroce_wan_init(struct sroce_wan *w, uint32_t min_cwnd, uint32_t init,
		    uint32_t max_cwnd, uint64_t now);
void sroce_wan_ack(struct sroce_wan *w, const struct sroce_rate_sample *rs,
		   uint64_t now);
void sroce_wan_timeout(struct sroce_wan *w);
uint64_t sroce_wan_bw(const struct sroce_wan *w);
uint64_t sroce_wan_pacing_pps(const struct sroce_wan *w);
uint64_t sroce_wan_bdp(const struct sroce_wan *w);

#endif /* _SROCE_PROTO_CC_H */
