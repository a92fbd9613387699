// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * DCQCN's reaction point (proto/dcqcn.h), first by its rules, then on a
 * simulated switch: a bottleneck of 50000 packets a second with a FIFO
 * that marks ECN CE the way DCQCN's paper configures RED (nothing below
 * KMIN packets, a probability rising to PMAX at KMAX, every packet
 * above), a notification point that sends at most one CNP per 50 us per
 * flow, and 1 ms of round trip, a TCG guest's; senders whose NIC is twice
 * as fast as the bottleneck.  One flow must keep the link busy with a
 * short queue; a second that joins later must get its fair share; the
 * same flows deaf to CNPs fill the queue to its limit.
 */
#include "tap.h"
#include "dcqcn.h"

#define MS		1000000ULL
#define US		1000ULL
#define ONE		SROCE_DCQCN_ONE

static void test_cut(void)
{
	struct sroce_dcqcn d;

	sroce_dcqcn_init(&d, 1 * MS, 0);
	is(sroce_dcqcn_pps(&d), 0, "no CNP yet: not paced");
	ok(!sroce_dcqcn_tick(&d, 100 * MS), "no CNP yet: time changes nothing");
	ok(!sroce_dcqcn_sent(&d, 1 << 30, 100 * MS),
	   "no CNP yet: bytes change nothing");
	ok(sroce_dcqcn_cnp(&d, 10000, 100 * MS), "the first CNP cuts");
	is(sroce_dcqcn_pps(&d), 5000, "alpha starts at 1: the rate halves");
	is(d.target, 10000, "the target is the rate before the cut");
	is(d.ref, 10000, "the step's scale: the rate the CNP found");
	is(d.alpha, ONE, "alpha stays at 1 after a cut from 1");
	ok(!sroce_dcqcn_cnp(&d, 10000, 100 * MS + MS / 2),
	   "a second CNP within the period does not cut");
	is(sroce_dcqcn_pps(&d), 5000, "... the rate stays");
	ok(sroce_dcqcn_cnp(&d, 0, 101 * MS + MS / 2), "a period later it does");
	/* The period's stage (7500) and alpha decay (15/16) come first. */
	is(d.target, 7500, "... from the rate it had, one stage recovered");
	is(sroce_dcqcn_pps(&d), 7500 - (7500 * (ONE - ONE / 16) >> 17),
	   "... by alpha/2, alpha decayed once");

	sroce_dcqcn_init(&d, 1 * MS, 0);
	sroce_dcqcn_cnp(&d, 50, 0);
	is(sroce_dcqcn_pps(&d), SROCE_DCQCN_MIN_PPS, "the rate has a floor");
	sroce_dcqcn_init(&d, 1, 0);
	is(d.period_ns, SROCE_DCQCN_PERIOD_MIN_NS, "the period has a floor");
}

static void test_alpha(void)
{
	struct sroce_dcqcn d;
	uint64_t a = ONE;
	unsigned int i;

	sroce_dcqcn_init(&d, 1 * MS, 0);
	sroce_dcqcn_cnp(&d, 100000, 0);
	for (i = 1; i <= 8; i++) {
		sroce_dcqcn_tick(&d, i * MS);
		a -= a >> SROCE_DCQCN_G_SHIFT;
	}
	is(d.alpha, a, "alpha decays by 1 - g each period without a CNP");
	ok(d.alpha < ONE * 6 / 10 && d.alpha > ONE / 2,
	   "... eight periods: (15/16)^8 = 0.60");
	sroce_dcqcn_cnp(&d, 0, 8 * MS + MS / 2);
	is(d.alpha, a + ((ONE - a) >> SROCE_DCQCN_G_SHIFT),
	   "a cut moves alpha by g toward 1");
	a = d.alpha;
	sroce_dcqcn_cnp(&d, 0, 9 * MS);
	sroce_dcqcn_tick(&d, 9 * MS + MS * 3 / 4);
	is(d.alpha, a, "a CNP too soon to cut still holds alpha's decay off");
}

static void test_recovery(void)
{
	struct sroce_dcqcn d;
	uint64_t prev = 0, t = 0;
	unsigned int i;
	bool up = true;

	sroce_dcqcn_init(&d, 1 * MS, 0);
	sroce_dcqcn_cnp(&d, 12800, 0);
	for (i = 1; i <= SROCE_DCQCN_F; i++) {
		t = i * MS;
		sroce_dcqcn_tick(&d, t);
		up &= sroce_dcqcn_pps(&d) > prev;
		prev = sroce_dcqcn_pps(&d);
	}
	ok(up, "fast recovery: every stage raises the rate");
	is(d.target, 12800, "fast recovery keeps the target");
	is(sroce_dcqcn_pps(&d), 12800 - 6400 / 32,
	   "... and halves the way to it each stage");
	sroce_dcqcn_tick(&d, t + MS);
	is(d.target, 12800 + 12800 / 128,
	   "past F timer stages: the target rises by the additive step");
	sroce_dcqcn_sent(&d, SROCE_DCQCN_BC_BYTES, t + MS);
	is(d.b_stages, 1, "10 MB sent make a byte stage");
	is(d.target, 12800 + 2 * 12800 / 128, "... additive too");
	for (i = 0; i < SROCE_DCQCN_F; i++)
		sroce_dcqcn_sent(&d, SROCE_DCQCN_BC_BYTES, t + MS);
	/* The byte stages 2 to F add, the one past F hypers. */
	is(d.target, 12800 + (SROCE_DCQCN_F + 1) * 12800 / 128 + 12800 / 16,
	   "past F stages of both kinds: the hyper step");
	for (i = 0; i < 100 && sroce_dcqcn_pps(&d); i++)
		sroce_dcqcn_sent(&d, SROCE_DCQCN_BC_BYTES, t + MS);
	ok(!sroce_dcqcn_pps(&d) && i < 100,
	   "far above where congestion began, pacing stops (%u stages)", i);
	ok(sroce_dcqcn_cnp(&d, 30000, t + 2 * MS) &&
	   sroce_dcqcn_pps(&d) == 15000 && d.ref == 30000,
	   "a new episode starts from the rate the flow has then");
}

/* Ticking every period or once for all of them: the same state. */
static void test_lazy(void)
{
	struct sroce_dcqcn a, b;
	unsigned int i;

	sroce_dcqcn_init(&a, 1 * MS, 0);
	sroce_dcqcn_cnp(&a, 64000, 0);
	b = a;
	for (i = 1; i <= 9; i++)
		sroce_dcqcn_tick(&a, i * MS + 3);
	sroce_dcqcn_tick(&b, 9 * MS + 3);
	ok(!memcmp(&a, &b, sizeof(a)), "lazy timers: nine ticks or one");
	sroce_dcqcn_init(&a, 1 * MS, 0);
	sroce_dcqcn_cnp(&a, 64000, 0);
	sroce_dcqcn_tick(&a, 3600ULL * 1000 * MS);
	ok(a.t_stages == SROCE_DCQCN_STAGES_MAX || !a.rate,
	   "an hour idle makes at most %u stages", SROCE_DCQCN_STAGES_MAX);
	ok(!sroce_dcqcn_tick(&a, 1 * MS), "a clock that steps back is ignored");
}

/* The simulated switch and its flows ------------------------------------ */

#define LINK_PPS	50000ULL	/* 1 KiB packets: 400 Mbit/s */
#define NIC_X		2		/* an unpaced sender: twice that */
#define OWD		(500 * US)	/* one way; 1 ms round trip */
#define STEP		(10 * US)
/* The BDP is 50 packets: mark from a tenth of it, all beyond it. */
#define KMIN		5
#define KMAX		50
#define PMAX_PPM	100000		/* 10 % just below KMAX */
#define QLIMIT		2000
#define FLOWS		2
#define LINE		(1 << 13)	/* packets in flight on the wire */

struct flow {
	struct sroce_dcqcn d;
	bool deaf;		/* ignores CNPs: what the queue does then */
	uint64_t tokens;	/* in 1/1000 packet */
	uint64_t last_cnp;
	uint64_t got;		/* delivered in the measured half */
};

struct wire {			/* a delay line: (time, flow, ce) */
	uint64_t at[LINE];
	uint8_t flow[LINE];
	uint8_t ce[LINE];
	unsigned int h, t;
};

struct dsim {
	struct flow f[FLOWS];
	uint8_t q[QLIMIT];	/* flow of each queued packet */
	uint8_t qce[QLIMIT];
	unsigned int qh, qn, qmax;
	uint64_t qsum, qsamples, drops, sent_link, link_credit;
	struct wire fwd, back;
	uint64_t rng;
};

static uint32_t dsim_rand(struct dsim *s)
{
	s->rng ^= s->rng << 13;
	s->rng ^= s->rng >> 7;
	s->rng ^= s->rng << 17;
	return (uint32_t)s->rng;
}

static void wire_put(struct wire *w, uint64_t at, unsigned int f, bool ce)
{
	unsigned int i = w->t++ % LINE;

	w->at[i] = at;
	w->flow[i] = (uint8_t)f;
	w->ce[i] = ce;
}

/* RED on the queue's length, as DCQCN marks: KMIN, KMAX, PMAX. */
static bool dsim_mark(struct dsim *s)
{
	uint32_t p;

	if (s->qn <= KMIN)
		return false;
	if (s->qn >= KMAX)
		return true;
	p = (uint32_t)((uint64_t)PMAX_PPM * (s->qn - KMIN) / (KMAX - KMIN));
	return dsim_rand(s) % 1000000 < p;
}

static void dsim_send(struct dsim *s, unsigned int i, uint64_t t)
{
	struct flow *f = &s->f[i];
	uint64_t pps = sroce_dcqcn_pps(&f->d);

	/* Unpaced, a sender goes at its NIC's rate: the link's. */
	f->tokens += (pps ? pps : NIC_X * LINK_PPS) * STEP / (1000 * US);
	while (f->tokens >= 1000) {
		f->tokens -= 1000;
		sroce_dcqcn_sent(&f->d, 1024, t);
		if (s->qn == QLIMIT) {
			s->drops++;
			continue;
		}
		s->q[(s->qh + s->qn) % QLIMIT] = (uint8_t)i;
		s->qce[(s->qh + s->qn) % QLIMIT] = dsim_mark(s);
		s->qn++;
	}
}

static void dsim_link(struct dsim *s, uint64_t t)
{
	s->link_credit += LINK_PPS * STEP / (1000 * US);
	while (s->link_credit >= 1000 && s->qn) {
		s->link_credit -= 1000;
		wire_put(&s->fwd, t + OWD, s->q[s->qh], s->qce[s->qh]);
		s->qh = (s->qh + 1) % QLIMIT;
		s->qn--;
		s->sent_link++;
	}
	if (!s->qn && s->link_credit > 1000)
		s->link_credit = 1000;	/* an idle link saves nothing up */
}

/* The receivers: count, and CNP a CE mark at most once per 50 us. */
static void dsim_arrive(struct dsim *s, uint64_t t, bool measure)
{
	while (s->fwd.h != s->fwd.t && s->fwd.at[s->fwd.h % LINE] <= t) {
		unsigned int i = s->fwd.h % LINE;
		struct flow *f = &s->f[s->fwd.flow[i]];

		s->fwd.h++;
		if (measure)
			f->got++;
		if (!s->fwd.ce[i] || t - f->last_cnp < SROCE_DCQCN_CNP_GAP_NS)
			continue;
		f->last_cnp = t;
		wire_put(&s->back, t + OWD, s->fwd.flow[i], true);
	}
	while (s->back.h != s->back.t && s->back.at[s->back.h % LINE] <= t) {
		struct flow *f = &s->f[s->back.flow[s->back.h % LINE]];

		s->back.h++;
		if (!f->deaf)
			sroce_dcqcn_cnp(&f->d, LINK_PPS, t);
	}
}

/* @n flows (deaf or not) for @secs seconds; the second half is measured. */
static void dsim_run(struct dsim *s, unsigned int n, bool deaf,
		     unsigned int secs)
{
	uint64_t t, end = secs * 1000 * MS;
	unsigned int i;

	memset(s, 0, sizeof(*s));
	s->rng = 0x2545f4914f6cdd1dULL;
	for (i = 0; i < n; i++) {
		sroce_dcqcn_init(&s->f[i].d, 2 * OWD, 0);
		s->f[i].deaf = deaf;
		s->f[i].last_cnp = 0;
	}
	for (t = 0; t < end; t += STEP) {
		bool measure = t >= end / 2;

		/*
		 * Flows take turns at going first; the second joins a
		 * second late, into a busy link.
		 */
		for (i = 0; i < n; i++) {
			unsigned int j = (i + (unsigned int)(t / STEP)) % n;

			if (!j || t >= 1000 * MS)
				dsim_send(s, j, t);
		}
		dsim_link(s, t);
		dsim_arrive(s, t, measure);
		if (measure) {
			s->qsum += s->qn;
			s->qsamples++;
			if (s->qn > s->qmax)
				s->qmax = s->qn;
		}
	}
}

/* In tenths of a percent: no floating point, as KUnit runs this too. */
static unsigned int permille(uint64_t part, uint64_t whole)
{
	return (unsigned int)(part * 1000 / whole);
}

static void test_switch(void)
{
	static struct dsim s;
	uint64_t half = 5 * LINK_PPS, a, b;
	unsigned int jain;

	dsim_run(&s, 1, false, 10);
	diag("1 flow: %u permille of the link, queue mean %u max %u, %u cuts, %u drops",
	     permille(s.f[0].got, half), (unsigned int)(s.qsum / s.qsamples),
	     s.qmax, s.f[0].d.cuts, (unsigned int)s.drops);
	ok(s.f[0].got * 100 >= half * 90, "one flow keeps >= 90 %% of the link busy");
	ok(s.qmax < 2 * KMAX, "... with the queue below 2 x KMAX (%u)", s.qmax);
	ok(s.f[0].d.cuts > 0, "... because CNPs cut its rate");

	dsim_run(&s, 2, false, 10);
	a = s.f[0].got;
	b = s.f[1].got;
	/* Jain's index, in thousandths: (a + b)^2 / (2 (a^2 + b^2)). */
	jain = permille((a + b) * (a + b), 2 * (a * a + b * b));
	diag("2 flows: %u and %u permille, Jain %u/1000, queue mean %u max %u, %u drops",
	     permille(a, half), permille(b, half), jain,
	     (unsigned int)(s.qsum / s.qsamples), s.qmax, (unsigned int)s.drops);
	ok((a + b) * 100 >= half * 90, "two flows keep >= 90 %% of the link busy");
	ok(jain >= 950, "... and share it fairly (Jain %u/1000)", jain);
	ok(s.qmax < 2 * KMAX && !s.drops,
	   "... with the queue below 2 x KMAX (%u), without a drop", s.qmax);

	dsim_run(&s, 2, true, 4);
	diag("2 flows deaf to CNPs: queue max %u, %u drops", s.qmax,
	     (unsigned int)s.drops);
	ok(s.qmax >= QLIMIT - 1 && s.drops,
	   "deaf to CNPs, the same flows overflow the queue");
}

int main(void)
{
	tap_start();
	test_cut();
	test_alpha();
	test_recovery();
	test_lazy();
	test_switch();
	return tap_done();
}
