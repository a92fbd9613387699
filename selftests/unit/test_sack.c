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
	test_roundtrip();
	test_hostile();
	test_rack();
	test_tlp();
	test_wire();
	return tap_done();
}
