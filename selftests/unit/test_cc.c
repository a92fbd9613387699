// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * The WAN congestion control (proto/cc.h), first by its rules, then on a
 * simulated path: a bottleneck of 100 Mbit/s (12207 packets of 1 KiB a
 * second) with a deep FIFO queue, 100 ms of round trip, random loss of
 * data packets, an ACK for every packet, and a sender that finds losses
 * as soon as a later packet is acknowledged (what selective repeat
 * gives), whose pacing timer fires 2 ms late and who sees ACKs in
 * bunches every 5 ms, as a guest may.  Issue
 * 7's targets are checked on it: at least 92 % of the
 * link clean, 91 % at 0.1 % loss and 89 % at 1 %, with little queue;
 * and AIMD on the same path, which halves on loss, shown to collapse.
 * Then two flows through the one bottleneck, which must share it.
 */
#include "tap.h"
#include "cc.h"
#include "req.h"

#define NS		1000000000ULL
#define MS		1000000ULL
#define US		1000ULL
/* How late the sender's pacing timer fires; how ACKs bunch up. */
#define WAKE_LATE	(2 * MS)
#define ACK_BATCH	(5 * MS)
/*
 * A flow keeps between half its queue share and all of it queued
 * (sroce_wan_share()): at most this long at the link's rate, plus a
 * little for the bunched ACKs.
 */
#define SHARE_MS	(SROCE_WAN_QUEUE_PKTS * 1000 / 12207 + 4)

static void test_rules(void)
{
	struct sroce_rate_sample rs = { 0 };
	struct sroce_wan w;
	uint64_t t = 0;
	unsigned int i;

	sroce_wan_init(&w, 16, 1024, 8192, 0);
	ok(w.state == SROCE_WAN_STARTUP && w.cwnd == 1024,
	   "starts in startup at the initial window");
	is(sroce_wan_pacing_pps(&w), 0, "no estimate yet: not paced");
	/* One round trip of 10 ms delivering 100 packets: 10000 pps. */
	rs.delivered = 100;
	rs.prior_delivered = 0;
	rs.interval_ns = 10 * MS;
	rs.rtt_ns = 10 * MS;
	rs.acked = 100;
	rs.inflight = 100;
	sroce_wan_ack(&w, &rs, 10 * MS);
	is(sroce_wan_bw(&w), 10000, "bandwidth: delivered over the interval");
	is(w.min_rtt_ns, 10 * MS, "min RTT from the sample");
	is(sroce_wan_bdp(&w), 100, "BDP: 10000 pps x 10 ms");
	is(sroce_wan_pacing_pps(&w), 30000, "startup paces at 3x the rate");
	rs.interval_ns = 5 * MS;
	rs.delivered = 300;
	rs.prior_delivered = 100;
	sroce_wan_ack(&w, &rs, 20 * MS);
	is(sroce_wan_bw(&w), 10000,
	   "a sample shorter than the min RTT is not believed");
	/* Flat bandwidth for three rounds ends startup, then drain. */
	for (i = 0; i < 5; i++) {
		t += 10 * MS;
		rs.prior_delivered = rs.delivered;
		rs.delivered += 100;
		rs.interval_ns = 10 * MS;
		rs.inflight = 300;
		sroce_wan_ack(&w, &rs, 20 * MS + t);
	}
	ok(w.full && w.state == SROCE_WAN_DRAIN, "flat for 3 rounds: drain");
	ok(sroce_wan_pacing_pps(&w) < sroce_wan_bw(&w), "drain paces below bw");
	rs.inflight = 90;
	sroce_wan_ack(&w, &rs, 100 * MS);
	is(w.state, SROCE_WAN_PROBE_BW, "queue gone: probe_bw");
	is(w.cwnd, 200, "window: twice the BDP");
	rs.rtt_ns = 50 * MS;
	sroce_wan_ack(&w, &rs, 110 * MS);
	is(w.min_rtt_ns, 10 * MS, "a longer RTT does not raise the minimum");
	sroce_wan_ack(&w, &rs, 110 * MS + SROCE_WAN_MIN_RTT_NS + 1);
	is(w.min_rtt_ns, 50 * MS, "... until the minimum is 10 s old");
	sroce_wan_init(&w, 16, 5, 8192, 0);
	is(w.cwnd, 16, "never below the minimum window");
}

/* A model cruising in PROBE_BW at @bw pps over @min_rtt, fresh at @at. */
static void wan_cruising(struct sroce_wan *w, uint64_t bw, uint64_t min_rtt,
			 uint64_t at)
{
	sroce_wan_init(w, 16, 1024, 8192, 0);
	w->state = SROCE_WAN_PROBE_BW;
	w->full = true;
	w->cycle = 2;
	w->bw[0] = bw;
	w->min_rtt_ns = min_rtt;
	w->min_rtt_at = at;
}

/*
 * PROBE_RTT: once the minimum RTT is ten seconds old, half the BDP in
 * flight for 200 ms shows the bare path, then the window comes back.
 */
static void test_probe_rtt(void)
{
	struct sroce_rate_sample rs = { 0 };
	struct sroce_wan w;
	uint64_t t = 20 * NS, end;

	wan_cruising(&w, 10000, 10 * MS, t);
	w.cwnd = 200;
	rs.acked = 1;
	rs.rtt_ns = 30 * MS;
	rs.inflight = 200;
	sroce_wan_ack(&w, &rs, t + 5 * NS);
	ok(w.state == SROCE_WAN_PROBE_BW && w.min_rtt_ns == 10 * MS,
	   "a fresh minimum: no probe, a queued sample is not the path");
	t += SROCE_WAN_MIN_RTT_NS + MS;
	sroce_wan_ack(&w, &rs, t);
	ok(w.state == SROCE_WAN_PROBE_RTT, "ten seconds old: PROBE_RTT");
	is(w.min_rtt_ns, 30 * MS, "the stale minimum gives way to what is seen");
	is(w.cwnd, 150, "in flight: half the BDP of that");
	is(sroce_wan_pacing_pps(&w), 10000, "paced at the bandwidth");
	rs.rtt_ns = 12 * MS;
	rs.inflight = 140;
	sroce_wan_ack(&w, &rs, t + MS);
	is(w.min_rtt_ns, 12 * MS, "the queue drains: a lower sample is taken");
	ok(!w.probe_rtt_end && w.cwnd == 60,
	   "the window follows it down; the hold waits for it");
	rs.inflight = 50;
	sroce_wan_ack(&w, &rs, t + 2 * MS);
	end = t + 2 * MS + SROCE_WAN_PROBE_RTT_NS;
	is(w.probe_rtt_end, end, "down to it: 200 ms from now");
	sroce_wan_ack(&w, &rs, end - MS);
	is(w.state, SROCE_WAN_PROBE_RTT, "still probing before then");
	sroce_wan_ack(&w, &rs, end + MS);
	ok(w.state == SROCE_WAN_PROBE_BW && w.cwnd >= 200,
	   "then back to PROBE_BW with the window it had");
	is(w.min_rtt_at, end + MS, "and the minimum counts as fresh");
	t = end + MS + SROCE_WAN_MIN_RTT_NS / 2;
	sroce_wan_ack(&w, &rs, t);
	is(w.state, SROCE_WAN_PROBE_BW, "no new probe for ten seconds");
	sroce_wan_init(&w, 16, 1024, 8192, 0);
	w.bw[0] = 10000;
	w.min_rtt_ns = 10 * MS;
	sroce_wan_ack(&w, &rs, SROCE_WAN_MIN_RTT_NS + MS);
	is(w.state, SROCE_WAN_STARTUP, "startup is not interrupted");
}

/*
 * A sender with little to send (a ping-pong, verbs posted one at a time)
 * delivers at its own rate: those samples must not lower the estimate,
 * nor end startup, however many rounds they last.
 */
/* A fresh model after one full round: 100 packets in 10 ms. */
static void wan_one_round(struct sroce_wan *w, struct sroce_rate_sample *rs)
{
	sroce_wan_init(w, 16, 1024, 8192, 0);
	rs->delivered = 100;
	rs->interval_ns = 10 * MS;
	rs->rtt_ns = 10 * MS;
	rs->acked = 100;
	sroce_wan_ack(w, rs, 10 * MS);
}

static void test_app_limited(void)
{
	struct sroce_rate_sample rs = { 0 };
	struct sroce_wan w;
	unsigned int i;

	wan_one_round(&w, &rs);
	is(sroce_wan_bw(&w), 10000, "a full round: 10000 pps");
	rs.app_limited = true;
	for (i = 0; i < 50; i++) {
		rs.prior_delivered = rs.delivered;
		rs.delivered += 1;
		rs.acked = 1;
		sroce_wan_ack(&w, &rs, (20 + 10 * i) * MS);
	}
	is(sroce_wan_bw(&w), 10000,
	   "50 rounds of one packet each, app-limited: estimate kept");
	ok(!w.full, "app-limited rounds do not end startup");
	rs.prior_delivered = rs.delivered;
	rs.delivered += 300;
	sroce_wan_ack(&w, &rs, 600 * MS);
	is(sroce_wan_bw(&w), 30000, "an app-limited sample above it counts");
	rs.app_limited = false;
	for (i = 0; i < SROCE_WAN_BW_ROUNDS + 1; i++) {
		rs.prior_delivered = rs.delivered;
		rs.delivered += 10;
		sroce_wan_ack(&w, &rs, (700 + 10 * i) * MS);
	}
	is(sroce_wan_bw(&w), 1000, "full rounds at a lower rate replace it");
	rs.late = true;
	for (i = 0; i < SROCE_WAN_BW_ROUNDS + 1; i++) {
		rs.prior_delivered = rs.delivered;
		rs.delivered += 1;
		sroce_wan_ack(&w, &rs, (900 + 10 * i) * MS);
	}
	is(sroce_wan_bw(&w), 1000,
	   "rounds of packets sent behind their pace: estimate kept");
}

/* The simulated path and its senders. */
#define RING	32768
#define FLOWS	2
struct spkt {
	uint64_t sent;
	uint64_t del;		/* delivered count when sent */
	uint64_t del_t;		/* time of that delivery */
	uint64_t first_tx;	/* send time of the packet delivered then */
	bool acked;
	bool lost;
	bool late;		/* sent behind its pace */
};

enum { CC_WAN, CC_AIMD };

/* One sender: its congestion control and what it has in flight. */
struct flow {
	int kind;
	struct sroce_wan w;
	struct sroce_cwnd c;
	uint64_t una_psn;
	uint64_t start;		/* it begins sending then */
	struct spkt p[RING];
	uint64_t next_seq, oldest, delivered, del_t, first_tx, pipe, next_send;
	uint64_t wake;
	uint64_t good, good_at_warm;
};

struct sim {
	/* path */
	uint64_t service;	/* ns per packet at the bottleneck */
	uint64_t owd;		/* one-way delay */
	uint32_t loss_ppm;
	uint64_t stall_max;	/* the senders' guest stalls up to this long */
	uint64_t stall_until;
	uint64_t rng;
	/* queue at the bottleneck: (flow, seq), FIFO */
	uint64_t q[RING];
	uint8_t qf[RING];
	uint32_t qh, qt;
	uint64_t link_free;
	/* after the bottleneck: (arrival at sender of the ACK, flow, seq) */
	uint64_t ack_t[RING], ack_s[RING];
	uint8_t ack_f[RING];
	uint32_t ah, at;
	struct flow f[FLOWS];
	unsigned int nflows;
	/* measurement */
	uint64_t qdelay_sum, qdelay_n;
};

static uint32_t sim_rand(struct sim *s)
{
	s->rng = s->rng * 6364136223846793005ULL + 1442695040888963407ULL;
	return (uint32_t)(s->rng >> 33);
}

static uint32_t snd_cwnd(const struct flow *x)
{
	return x->kind == CC_WAN ? x->w.cwnd : x->c.cwnd;
}

static uint64_t snd_gap(const struct flow *x)
{
	uint64_t pps = x->kind == CC_WAN ? sroce_wan_pacing_pps(&x->w) : 0;

	return pps ? NS / pps : 0;
}

/* Everything unacked sent before an acked packet is lost (FIFO path). */
static void sim_losses(struct flow *x, uint64_t upto)
{
	bool any = false;

	while (x->oldest < upto) {
		struct spkt *o = &x->p[x->oldest % RING];

		if (!o->acked && !o->lost) {
			o->lost = true;
			x->pipe--;
			any = true;
		}
		x->oldest++;
	}
	if (any && x->kind == CC_AIMD)
		sroce_cwnd_loss(&x->c, (uint32_t)x->una_psn & 0xffffff,
				(uint32_t)x->next_seq & 0xffffff);
}

static void sim_ack(struct flow *x, uint64_t seq, uint64_t t)
{
	struct spkt *k = &x->p[seq % RING];
	struct sroce_rate_sample rs = { 0 };

	sim_losses(x, seq);
	if (k->acked || k->lost)
		return;
	k->acked = true;
	x->pipe--;
	x->delivered++;
	x->del_t = t;
	x->first_tx = k->sent;
	x->good++;
	if (x->oldest == seq)
		x->oldest++;
	rs.delivered = x->delivered;
	rs.prior_delivered = k->del;
	rs.interval_ns = sroce_rate_interval(t, k->del_t, k->sent, k->first_tx);
	rs.rtt_ns = t - k->sent;
	rs.acked = 1;
	rs.inflight = (uint32_t)x->pipe;
	rs.late = k->late;
	if (x->kind == CC_WAN) {
		sroce_wan_ack(&x->w, &rs, t);
	} else {
		x->una_psn = seq + 1;
		sroce_cwnd_acked(&x->c, (uint32_t)x->una_psn & 0xffffff, 1);
	}
}

/* The bottleneck serves its queue up to @t; @dt: the step. */
static void sim_serve(struct sim *s, uint64_t t, uint64_t dt, uint64_t warm)
{
	while (s->qh != s->qt && s->link_free <= t) {
		uint64_t seq = s->q[s->qh % RING];
		uint8_t fi = s->qf[s->qh++ % RING];
		/* Busy until link_free, inside this step: no gap. */
		uint64_t done = (s->link_free > t - dt ? s->link_free :
				 t - dt) + s->service;

		if (t >= warm) {
			s->qdelay_sum += t - s->f[fi].p[seq % RING].sent;
			s->qdelay_n++;
		}
		s->link_free = done;
		if (sim_rand(s) % 1000000 < s->loss_ppm)
			continue;
		s->ack_t[s->at % RING] = done + 2 * s->owd;
		s->ack_s[s->at % RING] = seq;
		s->ack_f[s->at % RING] = fi;
		s->at++;
	}
}

/*
 * A sender, when woken (an ACK, its pacing timer): window, then pace.
 * Its timer fires WAKE_LATE late, as a guest's do.
 */
static void sim_send(struct sim *s, uint8_t fi, uint64_t t)
{
	struct flow *x = &s->f[fi];

	while (t >= x->start && t >= x->wake && x->pipe < snd_cwnd(x) &&
	       s->qt - s->qh < RING - 1) {
		struct spkt *k = &x->p[x->next_seq % RING];
		uint64_t gap = snd_gap(x);

		if (gap && !sroce_pace_ok(x->next_send, t)) {
			x->wake = x->next_send - SROCE_PACE_EARLY_NS + WAKE_LATE;
			break;
		}
		k->sent = t;
		k->del = x->delivered;
		k->del_t = x->del_t ? x->del_t : t;
		k->first_tx = x->first_tx ? x->first_tx : t;
		k->acked = false;
		k->lost = false;
		k->late = gap && x->w.state == SROCE_WAN_PROBE_BW &&
			  sroce_pace_behind(x->next_send, t);
		s->qf[s->qt % RING] = fi;
		s->q[s->qt++ % RING] = x->next_seq++;
		x->pipe++;
		if (gap)
			x->next_send = sroce_pace_next(x->next_send, t, gap);
	}
}

static void sim_flow_init(struct flow *x, int kind, uint64_t start)
{
	memset(x, 0, sizeof(*x));
	x->kind = kind;
	x->start = start;
	x->wake = start;
	sroce_wan_init(&x->w, 16, 1024, 8192, start);
	sroce_cwnd_init(&x->c, 16, 1024, 8192, 8);
}

/*
 * Run @s for @secs, its flows set up; goodput is counted from 10 s on.
 * With stall_max set, the senders' guest stalls now and then (every 50
 * ms on average), for up to that long, and takes the ACKs that came
 * meanwhile all at once, as a busy guest does.
 */
static void sim_loop(struct sim *s, unsigned int secs)
{
	uint64_t t, end = secs * NS, warm = 10 * NS, dt = 10 * US;
	unsigned int i;

	for (t = 0; t < end; t += dt) {
		if (s->stall_max && t >= s->stall_until &&
		    sim_rand(s) % 5000 == 0)
			s->stall_until = t + sim_rand(s) % s->stall_max;
		/* ACKs due, taken in bunches as a slow guest does */
		while (t >= s->stall_until && t % ACK_BATCH == 0 &&
		       s->ah != s->at && s->ack_t[s->ah % RING] <= t) {
			struct flow *x = &s->f[s->ack_f[s->ah % RING]];

			sim_ack(x, s->ack_s[s->ah % RING], t);
			s->ah++;
			x->wake = t;	/* an ACK runs the engine */
		}
		sim_serve(s, t, dt, warm);
		for (i = 0; i < s->nflows; i++)
			sim_send(s, (uint8_t)i, t);
		if (t == warm)
			for (i = 0; i < s->nflows; i++)
				s->f[i].good_at_warm = s->f[i].good;
	}
}

static void sim_path(struct sim *s, uint32_t loss_ppm, uint64_t stall)
{
	memset(s, 0, sizeof(*s));
	s->service = NS / 12207;
	s->owd = 50 * MS;
	s->loss_ppm = loss_ppm;
	s->stall_max = stall;
	s->rng = 42;
}

/* A flow's goodput after the warm-up, in permille of the link. */
static unsigned int sim_goodput(const struct flow *x, unsigned int secs)
{
	return (unsigned int)((x->good - x->good_at_warm) * 1000 /
			      ((secs - 10) * 12207ULL));
}

/*
 * One flow for @secs; goodput over the last @secs - 10 s, in permille of
 * the link; with @stall, guest stalls of up to that long (sim_loop()); the
 * model's bandwidth at the end, in permille of the link, in @bw.
 */
static unsigned int sim_run_stalls(int kind, uint32_t loss_ppm,
				   unsigned int secs, uint64_t stall,
				   uint64_t *qdelay_ms, unsigned int *bw)
{
	static struct sim s;

	sim_path(&s, loss_ppm, stall);
	s.nflows = 1;
	sim_flow_init(&s.f[0], kind, 0);
	sim_loop(&s, secs);
	*qdelay_ms = s.qdelay_n ? s.qdelay_sum / s.qdelay_n / MS : 0;
	if (bw)
		*bw = (unsigned int)(sroce_wan_bw(&s.f[0].w) * 1000 / 12207);
	return sim_goodput(&s.f[0], secs);
}

static unsigned int sim_run(int kind, uint32_t loss_ppm, unsigned int secs,
			    uint64_t *qdelay_ms)
{
	return sim_run_stalls(kind, loss_ppm, secs, 0, qdelay_ms, NULL);
}

static void test_path(void)
{
	static const struct { uint32_t ppm; unsigned int want; } c[] = {
		{ 0, 920 }, { 1000, 910 }, { 10000, 890 },
	};
	uint64_t qd;
	unsigned int i, g;

	for (i = 0; i < SROCE_ARRAY_SIZE(c); i++) {
		g = sim_run(CC_WAN, c[i].ppm, 40, &qd);
		ok(g >= c[i].want, "WAN, loss %u ppm: %u.%u %% of the link "
		   "(want %u.%u %%)", c[i].ppm, g / 10, g % 10,
		   c[i].want / 10, c[i].want % 10);
		ok(qd <= SHARE_MS, "WAN, loss %u ppm: %u ms queued on average "
		   "(want <= %u, the queue share)", c[i].ppm,
		   (unsigned int)qd, SHARE_MS);
	}
	g = sim_run(CC_AIMD, 10000, 40, &qd);
	ok(g < 500, "AIMD, 1 %% loss, same path: %u.%u %% of the link "
	   "(collapses, as the WAN mode must not)", g / 10, g % 10);
}

/*
 * Two WAN flows through one bottleneck, the second starting @late after
 * the first: each one's goodput after the warm-up, in permille of the
 * link, and the queue.  Issue 7 asks for 2:1 at worst; the simulation,
 * without a guest's noise, must do 3:2 (without the queue share, the
 * first flow kept 2.35 times the second's rate).
 */
static void sim_pair(uint32_t loss_ppm, uint64_t late, uint64_t stall,
		     unsigned int secs, unsigned int g[2], uint64_t *qdelay_ms)
{
	static struct sim s;

	sim_path(&s, loss_ppm, stall);
	s.nflows = 2;
	sim_flow_init(&s.f[0], CC_WAN, 0);
	sim_flow_init(&s.f[1], CC_WAN, late);
	sim_loop(&s, secs);
	g[0] = sim_goodput(&s.f[0], secs);
	g[1] = sim_goodput(&s.f[1], secs);
	*qdelay_ms = s.qdelay_n ? s.qdelay_sum / s.qdelay_n / MS : 0;
}

static void test_fair(void)
{
	static const struct { uint64_t late, stall; uint32_t ppm; } c[] = {
		{ 500 * MS, 0, 0 }, { 3 * NS, 0, 0 }, { 3 * NS, 15 * MS, 0 },
		{ 3 * NS, 0, 10000 },
	};
	unsigned int g[2], i, hi, lo;
	uint64_t qd;

	for (i = 0; i < SROCE_ARRAY_SIZE(c); i++) {
		sim_pair(c[i].ppm, c[i].late, c[i].stall, 40, g, &qd);
		hi = g[0] > g[1] ? g[0] : g[1];
		lo = g[0] > g[1] ? g[1] : g[0];
		ok(2 * hi <= 3 * lo && g[0] + g[1] >= 900,
		   "two WAN flows, the second %u ms later, stalls %u ms, "
		   "loss %u ppm: %u.%u and %u.%u %% of the link, %u ms queued",
		   (unsigned int)(c[i].late / MS),
		   (unsigned int)(c[i].stall / MS), c[i].ppm, g[0] / 10,
		   g[0] % 10, g[1] / 10, g[1] % 10, (unsigned int)qd);
	}
}

/*
 * The queue share: a model cruising at 10000 pps over 100 ms (window
 * 2000) that keeps more than SROCE_WAN_QUEUE_PKTS queued is capped to
 * give back half the excess; the estimate stays while the cap holds;
 * between half that and it, the cap holds; with the queue gone it grows
 * back, then goes.
 */
static void share_round(struct sroce_wan *w, struct sroce_rate_sample *rs,
			uint64_t *t, uint64_t rtt, uint32_t inflight,
			uint32_t n)
{
	*t += 100 * MS;
	rs->prior_delivered = rs->delivered;
	rs->delivered += n;
	rs->acked = n;
	rs->interval_ns = 100 * MS;
	rs->rtt_ns = rtt;
	rs->inflight = inflight;
	sroce_wan_ack(w, rs, *t);
}

static void test_share(void)
{
	struct sroce_rate_sample rs = { 0 };
	struct sroce_wan w;
	uint64_t t = NS;
	unsigned int i;

	wan_cruising(&w, 10000, 100 * MS, t);
	w.cwnd = 2000;
	rs.delivered = 1000;
	share_round(&w, &rs, &t, 150 * MS, 1500, 1000);
	is(w.share_cwnd, 0, "the round's first sample: nothing to judge yet");
	share_round(&w, &rs, &t, 150 * MS, 1500, 1000);
	/* 1500 x 50/150 = 500 queued, 116 over: cap 1500 - 58. */
	is(w.share_cwnd, 1442, "500 queued of its own: half the excess back");
	is(w.cwnd, 1442, "... the window follows the cap");
	/* Each round judges the RTT of the one before: 150 ms again. */
	share_round(&w, &rs, &t, 120 * MS, 1442, 500);
	is(w.share_cwnd, 1394, "480 queued: cut again, to 1442 - 48");
	for (i = 0; i < 2 * SROCE_WAN_BW_ROUNDS; i++)
		share_round(&w, &rs, &t, 120 * MS, 1394, 500);
	is(sroce_wan_bw(&w), 10000,
	   "capped rounds at half the rate do not age the estimate out");
	is(w.share_cwnd, 1394,
	   "120 ms with 1394 in flight (232 queued, within the band): held");
	share_round(&w, &rs, &t, 100 * MS, 1394, 1000);
	share_round(&w, &rs, &t, 100 * MS, 1394, 1000);
	ok(w.share_cwnd > 1394, "no queue: the cap grows back (%u)",
	   w.share_cwnd);
	for (i = 0; i < 20; i++)
		share_round(&w, &rs, &t, 100 * MS, w.cwnd, 1000);
	is(w.share_cwnd, 0, "... and goes once it reaches twice the BDP");
	is(w.cwnd, 2000, "the window is twice the BDP again");
	w.share_cwnd = 600;
	w.min_rtt_at = t - SROCE_WAN_MIN_RTT_NS;
	share_round(&w, &rs, &t, 100 * MS, 600, 600);
	ok(w.state == SROCE_WAN_PROBE_RTT && w.cwnd == 300,
	   "PROBE_RTT under a cap of 600: half of it (%u), not half the BDP",
	   w.cwnd);
}

/*
 * A flow paced at a low estimate of its own, holding little of a queue
 * that others keep, raises its estimate by an eighth of the share per
 * round trip: 48 packets per 100 ms, 480 pps a round.
 */
static void test_share_claim(void)
{
	struct sroce_rate_sample rs = { 0 };
	struct sroce_wan w;
	uint64_t t = NS;

	wan_cruising(&w, 5000, 100 * MS, t);
	rs.delivered = 1000;
	share_round(&w, &rs, &t, 130 * MS, 300, 500);
	share_round(&w, &rs, &t, 130 * MS, 300, 500);
	/* 300 x 30/130 = 69 queued of its own, a queue of 30 ms. */
	ok(sroce_wan_bw(&w) == 5480 && !w.share_cwnd,
	   "69 queued of its own in a 30 ms queue: estimate up by 480 (%u)",
	   (unsigned int)sroce_wan_bw(&w));
	/* Each round judges the RTT of the one before. */
	share_round(&w, &rs, &t, 105 * MS, 300, 500);
	is(sroce_wan_bw(&w), 5960, "a second such round: up by 480 again");
	share_round(&w, &rs, &t, 105 * MS, 300, 500);
	is(sroce_wan_bw(&w), 5960, "no queue to claim from: nothing more");
	share_round(&w, &rs, &t, 130 * MS, 300, 500);
	rs.late = true;
	share_round(&w, &rs, &t, 130 * MS, 300, 500);
	is(sroce_wan_bw(&w), 5960,
	   "a round that ends behind its pace: the CPU, not the path, held it");
}

/* A timeout restarts the window from its floor; the model stays. */
static void test_timeout(void)
{
	struct sroce_rate_sample rs = { 0 };
	struct sroce_wan w;

	wan_one_round(&w, &rs);
	sroce_wan_timeout(&w);
	is(w.cwnd, 16, "a timeout: the window restarts at its floor");
	is(sroce_wan_bw(&w), 10000, "... the bandwidth estimate stays");
	is(w.min_rtt_ns, 10 * MS, "... and so does the min RTT");
	rs.prior_delivered = rs.delivered;
	rs.delivered += 16;
	rs.acked = 16;
	sroce_wan_ack(&w, &rs, 30 * MS);
	is(w.cwnd, 32, "... and grows by what each ACK delivers");
}

/*
 * A sender whose guest stalls for up to 15 ms and then takes the ACKs
 * that came meanwhile all at once: each end of a rate sample pairs the
 * delivered count with the time it was taken, so the stall lengthens
 * one sample and shortens none, and the estimate stays near the link
 * (above it by what claims the queue share: sroce_wan_share()).
 */
static void test_stalls(void)
{
	static const uint32_t ppm[] = { 0, 10000 };
	unsigned int g, bw, i;
	uint64_t qd;

	for (i = 0; i < SROCE_ARRAY_SIZE(ppm); i++) {
		g = sim_run_stalls(CC_WAN, ppm[i], 40, 15 * MS, &qd, &bw);
		ok(g >= (ppm[i] ? 890 : 920) && qd <= SHARE_MS && bw < 1100,
		   "WAN, loss %u ppm, stalls of up to 15 ms: %u.%u %% of the "
		   "link, %u ms queued, bandwidth %u.%u %% of the link",
		   ppm[i], g / 10, g % 10, (unsigned int)qd, bw / 10, bw % 10);
	}
}

int main(void)
{
	tap_start();
	test_rules();
	test_probe_rtt();
	test_app_limited();
	test_timeout();
	test_share();
	test_share_claim();
	test_path();
	test_stalls();
	test_fair();
	return tap_done();
}
