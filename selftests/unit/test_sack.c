// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * Selective acknowledgement blocks (proto/sack.h): building them from
 * held PSNs, the wire form, the checks on what arrives, and RACK's loss
 * rule.
 */
#include "tap.h"
#include "sack.h"
#include "psn.h"
#include "wire.h"

static void test_add(void)
{
	struct sroce_sack s;

	sroce_sack_init(&s);
	ok(sroce_sack_add(&s, 10, 1) && sroce_sack_add(&s, 11, 1) &&
	   s.n == 1 && s.blk[0].len == 2, "adjacent PSNs merge into one block");
	ok(sroce_sack_add(&s, 20, 4) && s.n == 2 && s.blk[1].start == 20,
	   "a gap starts a new block");
	ok(!sroce_sack_add(&s, 22, 1) && s.n == 2 && s.blk[1].len == 4,
	   "a PSN already covered is refused");
	ok(!sroce_sack_add(&s, 5, 1), "a PSN before the last block is refused");
	ok(!sroce_sack_add(&s, 30, 0), "an empty range is refused");
	ok(!sroce_sack_add(&s, 0x1000000, 1), "a PSN beyond 24 bits is refused");
	ok(sroce_sack_add(&s, 24, 2) && s.blk[1].len == 6,
	   "a multi-PSN range (a READ) extends a block");
	sroce_sack_init(&s);
	ok(sroce_sack_add(&s, 0xfffffe, 1) && sroce_sack_add(&s, 0xffffff, 1) &&
	   sroce_sack_add(&s, 0, 1) && s.n == 1 && s.blk[0].len == 3,
	   "blocks run across the PSN wrap");
}

static void test_full(void)
{
	struct sroce_sack s;
	unsigned int i;

	sroce_sack_init(&s);
	for (i = 0; i < SROCE_SACK_BLOCKS_MAX; i++)
		sroce_sack_add(&s, 100 + 2 * i, 1);
	is(s.n, SROCE_SACK_BLOCKS_MAX, "eight blocks fit");
	ok(!sroce_sack_add(&s, 200, 1), "a ninth does not");
	ok(sroce_sack_add(&s, 100 + 2 * 7 + 1, 1),
	   "but the last block still grows");
	is(sroce_sack_bytes(&s), 4 + 8 * 8, "68 bytes on the wire");
}


/* A map of @n single PSNs at 100, 102, 104, ... after expected PSN 99. */
static void map_spaced(struct sroce_sack_map *m, unsigned int n)
{
	unsigned int i;

	sroce_sack_map_init(m);
	for (i = 0; i < n; i++)
		sroce_sack_map_add(m, 99, 100 + 2 * i, 1);
}

static void test_map_add(void)
{
	struct sroce_sack_map m;
	struct sroce_sack s;

	sroce_sack_map_init(&m);
	ok(sroce_sack_map_add(&m, 9, 20, 1) && sroce_sack_map_add(&m, 9, 12, 2) &&
	   m.n == 2 && m.r[0].start == 12 && m.r[1].start == 20,
	   "ranges are kept in PSN order");
	ok(sroce_sack_map_add(&m, 9, 14, 1) && m.n == 2 && m.r[0].len == 3,
	   "a PSN touching a range extends it");
	ok(sroce_sack_map_add(&m, 9, 15, 5) && m.n == 1 && m.r[0].start == 12 &&
	   m.r[0].len == 9, "one that fills a gap joins both sides");
	ok(sroce_sack_map_add(&m, 9, 13, 2) && m.n == 1 && m.r[0].len == 9,
	   "one already held changes nothing");
	ok(sroce_sack_map_add(&m, 9, 10, 30) && m.n == 1 && m.r[0].start == 10 &&
	   m.r[0].len == 30, "a READ's span over it covers the union");
	ok(!sroce_sack_map_add(&m, 9, 9, 1) && !sroce_sack_map_add(&m, 9, 5, 1),
	   "the expected PSN and those before it are refused");
	ok(!sroce_sack_map_add(&m, 9, 50, 0) &&
	   !sroce_sack_map_add(&m, 9, 0x1000000, 1) &&
	   !sroce_sack_map_add(&m, 9, 9 + SROCE_PSN_HALF, 1) &&
	   !sroce_sack_map_add(&m, 9, 50, SROCE_PSN_HALF), "bad ranges are refused");
	is(m.n, 1, "and leave the map as it was");
	sroce_sack_map_init(&m);
	ok(sroce_sack_map_add(&m, 0xfffff0, 0xfffffe, 2) &&
	   sroce_sack_map_add(&m, 0xfffff0, 0, 1) && m.n == 1 && m.r[0].len == 3,
	   "ranges join across the PSN wrap");
	map_spaced(&m, SROCE_SACK_MAP_MAX);
	is(m.n, SROCE_SACK_MAP_MAX, "64 ranges fit");
	ok(!sroce_sack_map_add(&m, 99, 1000, 1), "a 65th is refused");
	ok(sroce_sack_map_add(&m, 99, 101, 1) && m.n == SROCE_SACK_MAP_MAX - 1,
	   "but a PSN that joins two still goes in");
	/* The expected PSN moves: what it passed goes, a range it cuts shrinks. */
	map_spaced(&m, 3);			/* 100, 102, 104 */
	sroce_sack_map_add(&m, 99, 105, 3);	/* 104..107 */
	sroce_sack_map_pick(&m, 104, &s);
	ok(s.n == 1 && s.blk[0].start == 105 && s.blk[0].len == 3 && m.n == 1,
	   "ranges up to the expected PSN are forgotten, one across it cut");
}

/* Is PSN @psn said by @s? */
static bool said(const struct sroce_sack *s, uint32_t psn)
{
	return sroce_sack_covers(s, psn, 1);
}

static void test_map_pick(void)
{
	uint8_t buf[SROCE_SACK_MAX_BYTES];
	struct sroce_sack_map m;
	struct sroce_sack s, r;
	unsigned int i, j, seen[40] = { 0 }, rounds;
	bool all;

	map_spaced(&m, 5);
	sroce_sack_map_pick(&m, 99, &s);
	ok(s.n == 5 && s.blk[0].start == 100 && s.blk[4].start == 108,
	   "up to eight ranges: all of them, in order");
	map_spaced(&m, 40);
	sroce_sack_map_pick(&m, 99, &s);
	ok(s.n == SROCE_SACK_BLOCKS_MAX && said(&s, 100 + 2 * 39),
	   "forty ranges: eight said, the highest among them");
	r.n = 0;
	if (sroce_sack_put(buf, sizeof(buf), &s))
		sroce_sack_get(buf, sroce_sack_bytes(&s), 98, &r);
	ok(r.n == s.n, "and they go on the wire as they are");
	/* Nothing changed since: the rotation goes through the rest. */
	for (rounds = 0; rounds < 10; rounds++) {
		sroce_sack_map_pick(&m, 99, &s);
		ok(s.n == SROCE_SACK_BLOCKS_MAX && said(&s, 178),
		   "every SACK says the highest range");
		for (i = 0; i < 40; i++)
			seen[i] += said(&s, 100 + 2 * i);
	}
	for (all = true, i = 0; i < 39; i++)
		all &= seen[i] >= 1;
	ok(all, "ten SACKs said each of the other 39 at least once");
	for (i = 0, j = 0; i < 39; i++)
		j = seen[i] > j ? seen[i] : j;
	ok(j <= 3, "and none more than three times (rotation, not repetition)");
	/* A change is said in the next SACK. */
	sroce_sack_map_add(&m, 99, 141, 1);	/* joins 140 and 142 */
	sroce_sack_map_add(&m, 99, 111, 1);	/* joins 110 and 112 */
	sroce_sack_map_pick(&m, 99, &s);
	ok(said(&s, 110) && said(&s, 112) && said(&s, 140) && said(&s, 142),
	   "ranges that changed are said at once");
	for (i = 0; i < 10; i++) {
		sroce_sack_map_pick(&m, 99, &s);
		if (!sroce_sack_map_add(&m, 99, 200 + 2 * i, 1))
			break;
		sroce_sack_map_pick(&m, 99, &s);
		if (!said(&s, 200 + 2 * i))
			break;
	}
	is(i, 10, "each new highest range is said in the next SACK");
	sroce_sack_map_init(&m);
	sroce_sack_map_pick(&m, 99, &s);
	is(s.n, 0, "nothing held: no block");
}

static void test_roundtrip(void)
{
	uint8_t buf[SROCE_SACK_MAX_BYTES + 8];
	struct sroce_sack s, r;
	size_t n;

	sroce_sack_init(&s);
	is(sroce_sack_put(buf, sizeof(buf), &s), 0, "nothing held: no block");
	sroce_sack_add(&s, 0xfffff0, 3);
	sroce_sack_add(&s, 0x10, 5);
	n = sroce_sack_put(buf, sizeof(buf), &s);
	is(n, 20, "two blocks: 20 bytes");
	ok(buf[0] == SROCE_EXT_SACK && buf[1] == 2 && !buf[2] && !buf[3],
	   "type, count, reserved zero");
	ok(buf[4] == 0 && buf[5] == 0xff && buf[6] == 0xff && buf[7] == 0xf0,
	   "first PSN big endian");
	is(sroce_sack_put(buf, 19, &s), 0, "a short buffer gets nothing");
	ok(!sroce_sack_get(buf, n, 0xffffe0, &r) && r.n == 2 &&
	   r.blk[0].start == 0xfffff0 && r.blk[0].len == 3 &&
	   r.blk[1].start == 0x10 && r.blk[1].len == 5,
	   "read back as written, across the wrap");
	ok(sroce_sack_covers(&r, 0xfffff1, 2) && !sroce_sack_covers(&r, 0xfffff1, 3),
	   "covers what a block holds, not one PSN more");
	ok(sroce_sack_covers(&r, 0x14, 1) && !sroce_sack_covers(&r, 0xf, 1),
	   "second block, and the gap before it");
	is(sroce_sack_end(&r), 0x15, "end: one past the highest PSN held");
}

/* Every way a block from the network can lie. */
static void test_hostile(void)
{
	uint8_t buf[SROCE_SACK_MAX_BYTES];
	struct sroce_sack s, r;
	size_t n;

	sroce_sack_init(&s);
	sroce_sack_add(&s, 110, 2);
	sroce_sack_add(&s, 120, 2);
	n = sroce_sack_put(buf, sizeof(buf), &s);
	ok(!sroce_sack_get(buf, n, 100, &r), "a good block from ACK 100");
	ok(sroce_sack_get(buf, n - 1, 100, &r) && !r.n, "length short: refused");
	ok(sroce_sack_get(buf, n + 4, 100, &r) && !r.n, "length long: refused");
	ok(sroce_sack_get(buf, n, 109, &r), "a block touching the ACK: no gap");
	ok(sroce_sack_get(buf, n, 115, &r), "a block behind the ACK: refused");
	buf[0] = 2;
	ok(sroce_sack_get(buf, n, 100, &r), "unknown type: refused");
	buf[0] = SROCE_EXT_SACK;
	buf[1] = 0;
	ok(sroce_sack_get(buf, 4, 100, &r), "no blocks: refused");
	buf[1] = 9;
	ok(sroce_sack_get(buf, 4 + 9 * 8, 100, &r), "nine blocks: refused");
	buf[1] = 2;
	/* The second block: first PSN at bytes 12-15, count at 16-19. */
	buf[15] = 112;		/* where the first (110, 2 PSNs) ends */
	ok(sroce_sack_get(buf, n, 100, &r), "touching blocks: refused");
	buf[15] = 111;
	ok(sroce_sack_get(buf, n, 100, &r), "overlapping blocks: refused");
	buf[15] = 120;
	ok(!sroce_sack_get(buf, n, 100, &r), "(restored: good again)");
	buf[19] = 0;
	ok(sroce_sack_get(buf, n, 100, &r), "an empty block: refused");
	buf[17] = 0x80;
	ok(sroce_sack_get(buf, n, 100, &r),
	   "a block past half the PSN space: refused");
	buf[17] = 0;
	buf[19] = 2;
	buf[12] = 1;
	ok(sroce_sack_get(buf, n, 100, &r), "a PSN beyond 24 bits: refused");
}

static void test_tlp(void)
{
	ok(sroce_tlp_pto_us(10000, false, false, 4000) == 0,
	   "tlp: no RTT sample, no probe: the RTO decides");
	ok(sroce_tlp_pto_us(10000, true, false, 4000) == 20000,
	   "tlp: two smoothed round trips");
	ok(sroce_tlp_pto_us(10000, true, true, 4000) == 30000,
	   "tlp: one packet out: a round trip more for its ACK");
	ok(sroce_tlp_pto_us(100, true, false, 4000) == 4000,
	   "tlp: never under the timer's tick");
	ok(sroce_tlp_pto_us(0xffffffffu, true, true, 0) == 3ULL * 0xffffffffu,
	   "tlp: no overflow at the largest srtt");
}

static void test_rack(void)
{
	ok(sroce_rack_lost(1000, 100, 200, 500, 100),
	   "sent before a delivered one, out longer than RTT + window: lost");
	ok(!sroce_rack_lost(600, 100, 200, 500, 100),
	   "not yet out that long: not lost");
	ok(!sroce_rack_lost(5000, 300, 200, 500, 100),
	   "sent after the newest delivered packet: never lost by it");
	ok(!sroce_rack_lost(50, 100, 200, 0, 0),
	   "a clock that ran backwards decides nothing");
	ok(sroce_rack_rtt(700, 200, false, 0) == 500,
	   "a packet sent once: its round trip, minimum or not");
	ok(sroce_rack_rtt(700, 200, true, 0) == 0,
	   "resent, no minimum known yet: ambiguous, ignored");
	ok(sroce_rack_rtt(700, 200, true, 600) == 0,
	   "resent, answered sooner than any round trip: the first copy's");
	ok(sroce_rack_rtt(700, 200, true, 400) == 500,
	   "resent, answered a full round trip after the resend: taken");
	ok(sroce_rack_rtt(200, 200, false, 0) == 0,
	   "no time passed (or a clock that ran backwards): nothing");
}

/* The extension bit rides in BTH byte 8 and lets an ACK carry a block. */
static void test_wire(void)
{
	uint8_t pkt[64] = { 0 };
	struct sroce_pkt_hdr h = { 0 };
	size_t n;

	h.opcode = SROCE_OP_ACK;
	h.pkey = 0xffff;
	h.psn = 7;
	h.ext = true;
	n = sroce_wire_build(pkt, sizeof(pkt), &h);
	ok(n == 16 && pkt[8] == SROCE_BTH_EXT_BIT, "builder sets bit 6 of byte 8");
	/* ACK + 12 bytes of block + ICRC */
	ok(!sroce_wire_parse(pkt, n + 12 + 4, &h) && h.ext &&
	   h.payload_len == 12, "an ACK with the bit may carry a block");
	pkt[8] = 0;
	ok(sroce_wire_parse(pkt, n + 12 + 4, &h) == -EINVAL,
	   "without the bit it may not");
	pkt[8] = SROCE_BTH_EXT_BIT;
	ok(sroce_wire_parse(pkt, n + SROCE_SACK_MAX_BYTES + 4 + 4, &h) == -EINVAL,
	   "nor more than the largest block");
	pkt[1] = 0x10;		/* pad 1 */
	ok(sroce_wire_parse(pkt, n + 12 + 4, &h) == -EINVAL,
	   "a block has no pad");
	pkt[1] = 0;
	pkt[0] = SROCE_OP_SEND_ONLY;
	ok(!sroce_wire_parse(pkt, 12 + 8 + 4, &h) && h.ext && h.payload_len == 8,
	   "a request keeps the bit (the offer) and its payload rules");
	pkt[0] = SROCE_OP_ATOMIC_ACK;
	ok(sroce_wire_parse(pkt, 24 + 8 + 4, &h) == -EINVAL,
	   "an atomic ACK may not carry a block");
}

int main(void)
{
	tap_start();
	test_add();
	test_full();
	test_map_add();
	test_map_pick();
	test_roundtrip();
	test_hostile();
	test_rack();
	test_tlp();
	test_wire();
	return tap_done();
}
