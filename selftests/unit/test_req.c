// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * Requester arithmetic: segmentation, READ response placement, the ACK
 * timeout and the congestion window.
 */
#include "tap.h"
#include "req.h"
#include "wire.h"
#include "psn.h"

static void test_pmtu(void)
{
	static const uint32_t good[] = { 256, 512, 1024, 2048, 4096 };
	static const uint32_t bad[] = { 0, 1, 128, 255, 257, 1500, 8192 };
	unsigned int i, n = 0;

	for (i = 0; i < ARRAY_SIZE(good); i++)
		n += sroce_seg_pmtu_ok(good[i]);
	is(n, ARRAY_SIZE(good), "the five IB MTUs are accepted");
	n = 0;
	for (i = 0; i < ARRAY_SIZE(bad); i++)
		n += sroce_seg_pmtu_ok(bad[i]);
	is(n, 0, "anything else is refused");
}

static void test_npsn(void)
{
	is(sroce_seg_npsn(0, 1024), 1, "empty message: one packet");
	is(sroce_seg_npsn(1, 1024), 1, "1 byte: one packet");
	is(sroce_seg_npsn(1024, 1024), 1, "exactly one MTU: one packet");
	is(sroce_seg_npsn(1025, 1024), 2, "one byte more: two packets");
	is(sroce_seg_npsn(65536, 4096), 16, "64 KiB at 4096");
	is(sroce_seg_npsn(1ULL << 31, 256), 1U << 23, "2 GiB at 256: 2^23");
	is(sroce_seg_npsn(100, 1001), 0, "bad size: 0");
	is(sroce_seg_npsn(65536, 1432), 46, "64 KiB in 1432-byte segments");
}

/* Large segments: what a link carries whole, and what is a size at all. */
static void test_large(void)
{
	static const uint32_t good[] = { 256, 1024, 1432, 1412, 8192 };
	static const uint32_t bad[] = { 0, 252, 1430, 1433, 8196, 65536 };
	unsigned int i, n = 0;

	for (i = 0; i < ARRAY_SIZE(good); i++)
		n += sroce_seg_size_ok(good[i]);
	is(n, ARRAY_SIZE(good),
	   "IB MTUs and 4-byte multiples up to 8192 are sizes");
	n = 0;
	for (i = 0; i < ARRAY_SIZE(bad); i++)
		n += sroce_seg_size_ok(bad[i]);
	is(n, 0, "short, unaligned and oversized ones are not");
	is(sroce_seg_large(1500, false), 1432, "1500 over IPv4: 1432");
	is(sroce_seg_large(1500, true), 1412, "1500 over IPv6: 1412");
	is(sroce_seg_large(1501, false), 1432, "rounded down to 4 bytes");
	is(sroce_seg_large(9000, false), 8192, "9000: capped at 8192");
	is(sroce_seg_large(65536, true), 8192, "lo: capped at 8192");
	is(sroce_seg_large(323, false), 0, "too small for 256: none");
	is(sroce_seg_large(324, false), 256, "just 256");
	/* Every header a data request may carry fits beside the segment. */
	is(20 + 8 + 12 + 4 + 16 + 4 + sroce_seg_large(1500, false) + 4, 1500,
	   "XRC WRITE ONLY with IMM at 1432 fills 1500 exactly");
}

/* Walk a message packet by packet and check what the segments add up to. */
static bool walk(uint64_t len, uint32_t pmtu)
{
	uint64_t off = 0, sum = 0;
	uint32_t n = 0, npsn = sroce_seg_npsn(len, pmtu);
	struct sroce_seg s;

	do {
		if (sroce_seg_at(len, off, pmtu, &s) || s.index != n)
			return false;
		if (n == 0 && s.pos != (npsn == 1 ? SROCE_POS_ONLY :
						    SROCE_POS_FIRST))
			return false;
		if (n > 0 && n + 1 < npsn && s.pos != SROCE_POS_MIDDLE)
			return false;
		if (n > 0 && n + 1 == npsn && s.pos != SROCE_POS_LAST)
			return false;
		if (s.pos != SROCE_POS_LAST && s.pos != SROCE_POS_ONLY &&
		    s.len != pmtu)
			return false;
		if (s.len > pmtu || (s.pos == SROCE_POS_LAST && !s.len))
			return false;
		sum += s.len;
		off += s.len;
		n++;
	} while (s.pos != SROCE_POS_LAST && s.pos != SROCE_POS_ONLY);
	return sum == len && n == npsn;
}

static void test_seg(void)
{
	static const uint64_t lens[] = { 0, 1, 255, 256, 257, 1023, 1024,
					 1025, 4096, 65535, 65536, 1048577 };
	static const uint32_t mtus[] = { 256, 1024, 4096 };
	unsigned int i, j, bad = 0;
	struct sroce_seg s;

	for (i = 0; i < ARRAY_SIZE(lens); i++)
		for (j = 0; j < ARRAY_SIZE(mtus); j++)
			bad += !walk(lens[i], mtus[j]);
	is(bad, 0, "segments of 12 lengths x 3 MTUs add up, positions right");
	for (i = bad = 0; i < ARRAY_SIZE(lens); i++)
		bad += !walk(lens[i], 1432) + !walk(lens[i], 8192);
	is(bad, 0, "and at the large sizes 1432 and 8192");
	ok(sroce_seg_at(4000, 1000, 1000, &s) == 0 && s.len == 1000 &&
	   s.pos == SROCE_POS_MIDDLE && s.index == 1,
	   "a size that is no power of two cuts at its multiples");

	ok(sroce_seg_at(3000, 1000, 1024, &s) == -EINVAL,
	   "an offset off a packet boundary is refused");
	ok(sroce_seg_at(2048, 2048, 1024, &s) == -EINVAL,
	   "an offset at the end of a message is refused");
	ok(sroce_seg_at(0, 0, 1024, &s) == 0 && s.pos == SROCE_POS_ONLY &&
	   s.len == 0, "an empty message is one empty ONLY packet");
	ok(sroce_seg_at(1U << 31, (1U << 31) - 256, 256, &s) == 0 &&
	   s.pos == SROCE_POS_LAST && s.index == (1U << 23) - 1,
	   "last packet of 2 GiB at 256");
}

static void test_read_resp(void)
{
	ok(sroce_seg_read_resp_ok(3000, 0, 1024, SROCE_POS_FIRST, 1024),
	   "FIRST of a 3-packet READ");
	ok(sroce_seg_read_resp_ok(3000, 1024, 1024, SROCE_POS_MIDDLE, 1024),
	   "MIDDLE");
	ok(sroce_seg_read_resp_ok(3000, 2048, 1024, SROCE_POS_LAST, 952),
	   "LAST with the rest");
	ok(sroce_seg_read_resp_ok(3000, 1024, 1024, SROCE_POS_FIRST, 1024),
	   "a resumed READ starts with FIRST in the middle");
	ok(sroce_seg_read_resp_ok(3000, 2048, 1024, SROCE_POS_ONLY, 952),
	   "... or ONLY for its last packet");
	ok(sroce_seg_read_resp_ok(0, 0, 1024, SROCE_POS_ONLY, 0),
	   "empty READ: one empty ONLY");
	ok(!sroce_seg_read_resp_ok(3000, 2048, 1024, SROCE_POS_LAST, 951),
	   "a LAST that falls short is refused");
	ok(!sroce_seg_read_resp_ok(3000, 2048, 1024, SROCE_POS_MIDDLE, 952),
	   "a short MIDDLE is refused");
	ok(!sroce_seg_read_resp_ok(3000, 0, 1024, SROCE_POS_FIRST, 1025),
	   "more than the MTU is refused");
	ok(!sroce_seg_read_resp_ok(2048, 1024, 1024, SROCE_POS_MIDDLE, 1024),
	   "the packet ending the READ must say so");
	ok(!sroce_seg_read_resp_ok(3000, 3072, 1024, SROCE_POS_LAST, 0),
	   "an offset past the end is refused");
	ok(!sroce_seg_read_resp_ok(3000, 100, 1024, SROCE_POS_MIDDLE, 1024),
	   "an offset off a packet boundary is refused");
}

static void test_timeout(void)
{
	is(sroce_ack_timeout_ns(1), 8192, "code 1: 8.192 us");
	is(sroce_ack_timeout_ns(14), 67108864, "code 14: 67.1 ms");
	is(sroce_ack_timeout_ns(31), 4096ULL << 31, "code 31: 8796 s");
}

static void test_cwnd(void)
{
	struct sroce_cwnd c;
	uint32_t i;

	sroce_cwnd_init(&c, 16, 1024, 1024, 8);
	is(c.cwnd, 1024, "starts open");
	ok(sroce_cwnd_allows(&c, 100, 100, 100, 5000, 0),
	   "nothing outstanding: even a READ larger than the window goes");
	ok(sroce_cwnd_allows(&c, 100, 1124, 1123, 1, 0),
	   "a resend inside what was sent always goes");
	ok(!sroce_cwnd_allows(&c, 100, 1124, 1124, 1, 0),
	   "a full window stops new PSNs");
	ok(sroce_cwnd_allows(&c, 100, 1123, 1123, 1, 0),
	   "the last PSN that fits goes");
	ok(sroce_cwnd_allows(&c, 0xfffff0, 0x3e0, 0x3e0, 0x10, 0),
	   "the window works across the PSN wrap: 1024 fit");
	ok(!sroce_cwnd_allows(&c, 0xfffff0, 0x3e0, 0x3e0, 0x11, 0),
	   "... 1025 do not");

	ok(sroce_cwnd_loss(&c, 100, 1124) && c.cwnd == 512, "loss halves");
	ok(!sroce_cwnd_loss(&c, 500, 1124) && c.cwnd == 512,
	   "a second loss in the same episode does not");
	sroce_cwnd_acked(&c, 1124, 80);
	is(c.cwnd, 522, "grows by 1 per 8 PSNs acknowledged");
	ok(sroce_cwnd_loss(&c, 1124, 2000) && c.cwnd == 261,
	   "a loss after the episode ended halves again");
	for (i = 0; i < 10; i++)
		sroce_cwnd_loss(&c, 2000 + i, 2000 + i);
	is(c.cwnd, 16, "never below the minimum");
	sroce_cwnd_acked(&c, 5000, 0x100000);
	is(c.cwnd, 1024, "never above the maximum");
	sroce_cwnd_acked(&c, 5001, 7);
	is(c.acc, 0, "no credit piles up at the maximum");
}

/* Selective repeat: PSNs the peer holds leave the window, not the span. */
static void test_cwnd_sacked(void)
{
	struct sroce_cwnd c;

	sroce_cwnd_init(&c, 16, 100, 400, 8);
	is(c.cwnd, 100, "starts at init, below max");
	ok(!sroce_cwnd_allows(&c, 0, 100, 100, 1, 0),
	   "100 outstanding, none held: the window is full");
	ok(sroce_cwnd_allows(&c, 0, 100, 100, 1, 1),
	   "one held beyond a gap: one more may go");
	ok(sroce_cwnd_allows(&c, 0, 399, 399, 1, 300),
	   "the span may reach max while the peer holds PSNs");
	ok(!sroce_cwnd_allows(&c, 0, 400, 400, 1, 399),
	   "... but never beyond it");
	ok(sroce_cwnd_allows(&c, 0, 100, 100, 1, 0xffffffff),
	   "a held count above the span counts as the span, no underflow");
	sroce_cwnd_init(&c, 16, 5, 400, 8);
	is(c.cwnd, 16, "init below min starts at min");
	sroce_cwnd_init(&c, 16, 5000, 400, 8);
	is(c.cwnd, 400, "init above max starts at max");
}

static void test_rtt(void)
{
	struct sroce_rtt r = { 0 };
	int i;

	is(sroce_rtt_rto_us(&r), 0, "no sample: no RTO of its own");
	sroce_rtt_sample(&r, 100000);
	is(r.srtt_us, 100000, "first sample: srtt is the sample");
	is(r.rttvar_us, 50000, "first sample: rttvar is half of it");
	is(sroce_rtt_rto_us(&r), 300000, "RTO = srtt + 4 rttvar");
	sroce_rtt_sample(&r, 100000);
	is(r.srtt_us, 100000, "same sample: srtt stays");
	is(r.rttvar_us, 37500, "same sample: rttvar shrinks by a quarter");
	for (i = 0; i < 200; i++)
		sroce_rtt_sample(&r, 20);
	ok(r.srtt_us < 100, "srtt follows a faster path (%u us)", r.srtt_us);
	is(sroce_rtt_rto_us(&r), r.srtt_us + 1000,
	   "steady: at least a 1 ms margin over srtt");
	sroce_rtt_sample(&r, 5000000);
	ok(r.srtt_us > 600000 && r.srtt_us < 700000,
	   "one 5 s sample moves srtt by an eighth (%u us)", r.srtt_us);
	ok(sroce_rtt_rto_us(&r) > 5000000,
	   "and the variance lifts the RTO above the spike");
	memset(&r, 0, sizeof(r));
	for (i = 0; i < 200; i++)
		sroce_rtt_sample(&r, 100000);
	ok(r.rttvar_us < 10, "a steady 100 ms path: no variance (%u)", r.rttvar_us);
	is(sroce_rtt_rto_us(&r), 150000, "RTO still half an RTT above it");
	sroce_rtt_sample(&r, ~0ULL);
	ok(r.srtt_us <= 60000000 && sroce_rtt_rto_us(&r) < (1ULL << 32) * 5,
	   "absurd sample: clamped, no overflow");
}

/* 67 ms: the usual Local ACK Timeout, 14. */
#define T14_NS	(4096ULL << 14)

static void test_rto(void)
{
	struct sroce_rtt r = { 0 };
	int i;

	is(sroce_rto_ns(&r, T14_NS), T14_NS, "no sample: the Local ACK Timeout");
	sroce_rtt_timeout(&r);
	is(sroce_rto_ns(&r, T14_NS), 2 * T14_NS, "one timeout doubles it");
	sroce_rtt_timeout(&r);
	is(sroce_rto_ns(&r, T14_NS), 4 * T14_NS, "two: four times");
	for (i = 0; i < 100; i++)
		sroce_rtt_timeout(&r);
	is(r.backoff, SROCE_RTO_BACKOFF_MAX, "the backoff saturates");
	is(sroce_rto_ns(&r, T14_NS), SROCE_RTO_BACKOFF_CAP_NS,
	   "and the RTO stops at 4 s");
	is(sroce_rto_ns(&r, 8000000000ULL), 8000000000ULL,
	   "a Local ACK Timeout above the cap is the application's");
	sroce_rtt_sample(&r, 1000);
	is(r.backoff, 0, "a sample ends the backoff");
	is(sroce_rto_ns(&r, T14_NS), T14_NS,
	   "a 1 ms path: the Local ACK Timeout again");
	is(sroce_rto_ns(&r, 1000000), 3000000,
	   "with a 1 ms floor: srtt + 4 rttvar");
	memset(&r, 0, sizeof(r));
	for (i = 0; i < 200; i++)
		sroce_rtt_sample(&r, 100000);
	is(sroce_rto_ns(&r, T14_NS), 150000000ULL,
	   "a 100 ms path stretches a 67 ms timeout");
	sroce_rtt_sample(&r, 60000000);
	is(sroce_rto_ns(&r, T14_NS), SROCE_RTO_RTT_MAX_NS,
	   "the estimate's share stops at 4 s");
}

/*
 * The runaway that was: at 10 % loss, timeouts in a row must not ratchet
 * the estimate itself up; only the backoff grows, and one clean sample
 * brings the RTO back to the path.
 */
static void test_rto_no_runaway(void)
{
	struct sroce_rtt r = { 0 };
	int i, j;

	sroce_rtt_sample(&r, 1000);
	for (i = 0; i < 50; i++) {
		for (j = 0; j < 3; j++)
			sroce_rtt_timeout(&r);
		sroce_rtt_sample(&r, 1000);
	}
	is(r.srtt_us, 1000, "srtt is still the path's");
	is(sroce_rto_ns(&r, T14_NS), T14_NS, "the RTO is back to the floor");
}

int main(void)
{
	tap_start();
	test_pmtu();
	test_npsn();
	test_large();
	test_seg();
	test_read_resp();
	test_timeout();
	test_cwnd();
	test_cwnd_sacked();
	test_rtt();
	test_rto();
	test_rto_no_runaway();
	return tap_done();
}
