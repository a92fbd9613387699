// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * Flow steering rules (proto/flow.h): the frame parser, rules built from
 * ib_core filter bytes, matching, and which rules take a frame.  The
 * frames are those rdma-core's pyverbs flow tests send.
 */
#include "tap.h"
#include "flow.h"

static const uint8_t dmac[6] = { 0x01, 0x50, 0x56, 0x19, 0x20, 0xa7 };
static const uint8_t smac[6] = { 0x24, 0x8a, 0x07, 0xa5, 0x28, 0xc8 };

/* Eth | [VLAN] | IPv4 (1.1.1.1 -> 2.2.2.2, DF) | UDP or TCP 1234 -> 5678. */
static size_t frame4(uint8_t *f, uint8_t proto, bool vlan)
{
	size_t o = 12;

	memset(f, 0, 128);
	memcpy(f, dmac, 6);
	memcpy(f + 6, smac, 6);
	if (vlan) {
		sroce_be_store16(f + o, 0x8100);
		sroce_be_store16(f + o + 2, 0x6005);	/* prio 3, VID 5 */
		o += 4;
	}
	sroce_be_store16(f + o, 0x0800);
	o += 2;
	f[o] = 0x45;
	f[o + 1] = 0xb8;			/* TOS */
	sroce_be_store16(f + o + 6, 0x4000);	/* DF */
	f[o + 8] = 64;
	f[o + 9] = proto;
	sroce_be_store32(f + o + 12, 0x01010101);
	sroce_be_store32(f + o + 16, 0x02020202);
	o += 20;
	sroce_be_store16(f + o, 1234);
	sroce_be_store16(f + o + 2, 5678);
	return o + 8 + 32;
}

/* Eth | IPv6 (a0a1::... -> b0b1::..., flow 0x12345) | TCP 1234 -> 5678. */
static size_t frame6(uint8_t *f)
{
	size_t o = 14;
	int i;

	memset(f, 0, 128);
	memcpy(f, dmac, 6);
	memcpy(f + 6, smac, 6);
	sroce_be_store16(f + 12, 0x86dd);
	sroce_be_store32(f + o, 0x60000000 | 0x2a << 20 | 0x12345);
	f[o + 6] = 6;
	f[o + 7] = 255;
	for (i = 0; i < 16; i++) {
		f[o + 8 + i] = (uint8_t)(0xa0 + i);
		f[o + 24 + i] = (uint8_t)(0xb0 + i);
	}
	o += 40;
	sroce_be_store16(f + o, 1234);
	sroce_be_store16(f + o + 2, 5678);
	return o + 20 + 16;
}

/* An ETH filter's bytes: dmac, smac, ether_type, vlan_tag. */
static void eth_filter(uint8_t *v, const uint8_t *d, const uint8_t *s,
		       uint16_t type, uint16_t tci)
{
	memcpy(v, d, 6);
	memcpy(v + 6, s, 6);
	sroce_be_store16(v + 12, type);
	sroce_be_store16(v + 14, tci);
}

static void test_parse(void)
{
	struct sroce_flow_key k;
	uint8_t f[128];
	size_t n;

	n = frame4(f, 17, false);
	is(sroce_flow_parse(f, n, &k), 0, "an IPv4/UDP frame parses");
	is(k.layers, SROCE_FLOW_L_ETH | SROCE_FLOW_L_IPV4 | SROCE_FLOW_L_UDP,
	   "with Ethernet, IPv4 and UDP layers");
	ok(!memcmp(k.eth, dmac, 6) && !memcmp(k.eth + 6, smac, 6) &&
	   sroce_be_load16(k.eth + 12) == 0x0800, "MACs and type in place");
	is(sroce_be_load32(k.ip4), 0x01010101, "IPv4 source first");
	is(sroce_be_load32(k.ip4 + 4), 0x02020202, "then destination");
	ok(k.ip4[8] == 17 && k.ip4[9] == 0xb8 && k.ip4[10] == 64,
	   "protocol, TOS, TTL");
	is(k.ip4[11], SROCE_FLOW_IP4_DF, "DF in ib_core's encoding");
	ok(sroce_be_load16(k.l4) == 5678 && sroce_be_load16(k.l4 + 2) == 1234,
	   "destination port first, as the filter has it");

	n = frame4(f, 6, true);
	sroce_flow_parse(f, n, &k);
	ok(k.layers & SROCE_FLOW_L_VLAN && k.layers & SROCE_FLOW_L_TCP,
	   "a tagged TCP frame has VLAN and TCP layers");
	ok(sroce_be_load16(k.eth + 14) == 0x6005 &&
	   sroce_be_load16(k.eth + 12) == 0x0800,
	   "the TCI is kept, the type is the one after the tag");

	n = frame6(f);
	sroce_flow_parse(f, n, &k);
	is(k.layers, SROCE_FLOW_L_ETH | SROCE_FLOW_L_IPV6 | SROCE_FLOW_L_TCP,
	   "an IPv6/TCP frame parses");
	ok(k.ip6[0] == 0xa0 && k.ip6[16] == 0xb0, "IPv6 source, destination");
	is(sroce_be_load32(k.ip6 + 32), 0x12345, "flow label, 20 bits");
	ok(k.ip6[36] == 6 && k.ip6[37] == 0x2a && k.ip6[38] == 255,
	   "next header, traffic class, hop limit");

	is(sroce_flow_parse(f, 13, &k), -EINVAL, "13 bytes are no frame");
	n = frame4(f, 17, false);
	sroce_flow_parse(f, 14 + 19, &k);
	is(k.layers, SROCE_FLOW_L_ETH, "a cut IPv4 header is no IPv4 layer");
	sroce_flow_parse(f, 14 + 20 + 3, &k);
	ok(k.layers & SROCE_FLOW_L_IPV4 && !(k.layers & SROCE_FLOW_L_UDP),
	   "cut ports are no UDP layer");
	f[14] = 0x4f;	/* IHL 60 bytes, beyond the frame */
	sroce_flow_parse(f, 40, &k);
	is(k.layers, SROCE_FLOW_L_ETH, "an IHL beyond the frame is refused");
	frame4(f, 17, false);
	sroce_be_store16(f + 14 + 6, 0x2001);	/* MF, offset 8 */
	sroce_flow_parse(f, n, &k);
	ok(k.ip4[11] == SROCE_FLOW_IP4_MF && !(k.layers & SROCE_FLOW_L_UDP),
	   "a later fragment has no ports");
}

static void test_rules(void)
{
	uint8_t v[40] = { 0 }, m[40] = { 0 };
	struct sroce_flow_rule r;
	struct sroce_flow_key k4, k6;
	uint8_t f[128];

	sroce_flow_parse(f, frame4(f, 17, false), &k4);
	sroce_flow_parse(f, frame6(f), &k6);

	is(sroce_flow_rule_init(&r, 0, 0, 0), 0, "a NORMAL rule");
	ok(sroce_flow_match(&r, &k4) && sroce_flow_match(&r, &k6),
	   "with no specs it takes every frame");

	eth_filter(v, dmac, smac, 0x0800, 0);
	eth_filter(m, (const uint8_t *)"\xff\xff\xff\xff\xff\xff", smac,
		   0xffff, 0);
	is(sroce_flow_rule_add(&r, SROCE_FLOW_SPEC_ETH, v, m, 16), 0,
	   "an ETH spec as pyverbs makes it");
	ok(sroce_flow_match(&r, &k4), "matches the IPv4 frame");
	ok(!sroce_flow_match(&r, &k6), "not the IPv6 one (ether_type)");
	is(sroce_flow_rule_add(&r, SROCE_FLOW_SPEC_ETH, v, m, 16), -EINVAL,
	   "an ETH spec twice is refused");

	memset(v, 0, sizeof(v));
	memset(m, 0, sizeof(m));
	sroce_be_store32(v, 0x01010101);
	sroce_be_store32(m, 0xffffffff);
	v[8] = 17;
	m[8] = 0xff;
	is(sroce_flow_rule_add(&r, SROCE_FLOW_SPEC_IPV4, v, m, 12), 0,
	   "an IPv4 spec on source and protocol");
	ok(sroce_flow_match(&r, &k4), "still matches");
	k4.ip4[0] ^= 1;
	ok(!sroce_flow_match(&r, &k4), "another source does not");
	k4.ip4[0] ^= 1;
	is(sroce_flow_rule_add(&r, SROCE_FLOW_SPEC_IPV6, v, m, 39), -EINVAL,
	   "IPv6 beside IPv4 is refused");
	memset(v, 0, 4);
	memset(m, 0, 4);
	sroce_be_store16(v, 5678);
	sroce_be_store16(m, 0xffff);
	is(sroce_flow_rule_add(&r, SROCE_FLOW_SPEC_UDP, v, m, 4), 0,
	   "a UDP spec on the destination port");
	ok(sroce_flow_match(&r, &k4), "matches");
	is(sroce_flow_rule_add(&r, SROCE_FLOW_SPEC_TCP, v, m, 4), -EINVAL,
	   "TCP beside UDP is refused");
	k4.layers &= ~SROCE_FLOW_L_UDP;
	ok(!sroce_flow_match(&r, &k4), "a frame without the UDP layer does not");
	k4.layers |= SROCE_FLOW_L_UDP;

	sroce_flow_rule_init(&r, 0, 0, 0);
	memset(m, 0, sizeof(m));
	is(sroce_flow_rule_add(&r, SROCE_FLOW_SPEC_TCP, v, m, 4), 0,
	   "a TCP spec with an empty mask");
	ok(sroce_flow_match(&r, &k6) && !sroce_flow_match(&r, &k4),
	   "asks for TCP all the same");

	sroce_flow_rule_init(&r, 0, 0, 0);
	memset(m, 0, sizeof(m));
	m[11] = 0x8;
	is(sroce_flow_rule_add(&r, SROCE_FLOW_SPEC_IPV4, v, m, 12), -EINVAL,
	   "an IPv4 flag bit ib_core has no meaning for is refused");
	memset(m, 0, sizeof(m));
	sroce_be_store32(m + 32, 0x100000);
	is(sroce_flow_rule_add(&r, SROCE_FLOW_SPEC_IPV6, v, m, 39), -EINVAL,
	   "a flow label mask beyond 20 bits is refused");
	is(sroce_flow_rule_add(&r, SROCE_FLOW_SPEC_IPV6, v, m, 38), -EINVAL,
	   "a short filter is refused");
	is(sroce_flow_rule_add(&r, 0x50, v, m, 8), -EOPNOTSUPP,
	   "VXLAN is not supported");
	is(sroce_flow_rule_add(&r, 0x120, v, m, 16), -EOPNOTSUPP,
	   "neither are inner headers");

	memset(v, 0, sizeof(v));
	memset(m, 0, sizeof(m));
	sroce_flow_rule_init(&r, 0, 0, 0);
	sroce_be_store16(v + 14, 0x0005);
	sroce_be_store16(m + 14, 0x0fff);
	sroce_flow_rule_add(&r, SROCE_FLOW_SPEC_ETH, v, m, 16);
	ok(!sroce_flow_match(&r, &k4), "a VLAN match needs a tagged frame");
	sroce_flow_parse(f, frame4(f, 6, true), &k4);
	ok(sroce_flow_match(&r, &k4), "and takes one with the VID");

	is(sroce_flow_rule_init(&r, 4, 0, 0), -EINVAL, "an unknown type");
	is(sroce_flow_rule_init(&r, 0, 0, 1 << 2), -EOPNOTSUPP,
	   "EGRESS is not supported");
	is(sroce_flow_rule_init(&r, 1, 0, SROCE_FLOW_F_DONT_TRAP), -EINVAL,
	   "DONT_TRAP on a default rule is refused");
	sroce_flow_rule_init(&r, SROCE_FLOW_SNIFFER, 0, 0);
	is(sroce_flow_rule_add(&r, SROCE_FLOW_SPEC_ETH, v, m, 16), -EINVAL,
	   "a sniffer takes no specs");
}

/* Rules on the destination port 5678 (or another), at @prio. */
static void port_rule(struct sroce_flow_rule *r, uint16_t port,
		      uint16_t prio, uint32_t flags)
{
	uint8_t v[4] = { 0 }, m[4] = { 0xff, 0xff, 0, 0 };

	sroce_flow_rule_init(r, SROCE_FLOW_NORMAL, prio, flags);
	sroce_be_store16(v, port);
	sroce_flow_rule_add(r, SROCE_FLOW_SPEC_UDP, v, m, 4);
}

static int picked(struct sroce_flow_rule *r, int n,
		  const struct sroce_flow_key *k)
{
	struct sroce_flow_pick p;
	int i, mask = 0;

	sroce_flow_pick_init(&p);
	for (i = 0; i < n; i++)
		sroce_flow_pick_see(&p, &r[i], k);
	for (i = 0; i < n; i++)
		if (sroce_flow_pick_takes(&p, &r[i], k))
			mask |= 1 << i;
	return mask;
}

static void test_pick(void)
{
	struct sroce_flow_rule r[6];
	struct sroce_flow_key k;
	uint8_t f[128];

	sroce_flow_parse(f, frame4(f, 17, false), &k);
	port_rule(&r[0], 5678, 2, 0);
	port_rule(&r[1], 5678, 1, 0);
	port_rule(&r[2], 9999, 0, 0);
	sroce_flow_rule_init(&r[3], SROCE_FLOW_ALL_DEFAULT, 0, 0);
	sroce_flow_rule_init(&r[4], SROCE_FLOW_MC_DEFAULT, 0, 0);
	sroce_flow_rule_init(&r[5], SROCE_FLOW_SNIFFER, 0, 0);
	is(picked(r, 6, &k), 1 << 1 | 1 << 5,
	   "the best priority that matches, and the sniffer");
	port_rule(&r[0], 5678, 1, 0);
	is(picked(r, 6, &k), 1 << 0 | 1 << 1 | 1 << 5,
	   "equal priorities both take it");
	port_rule(&r[0], 5678, 0, SROCE_FLOW_F_DONT_TRAP);
	is(picked(r, 6, &k), 1 << 0 | 1 << 1 | 1 << 5,
	   "DONT_TRAP takes it and leaves the rest to decide");
	is(picked(r + 2, 4, &k), 1 << 1 | 1 << 2 | 1 << 3,
	   "unmatched multicast goes to both defaults and the sniffer");
	k.eth[0] = 0x02;
	is(picked(r + 2, 4, &k), 1 << 1 | 1 << 3,
	   "unmatched unicast to ALL_DEFAULT only");
	is(picked(r, 1, &k), 1, "DONT_TRAP alone still takes it");
	port_rule(&r[0], 5678, 0, SROCE_FLOW_F_DONT_TRAP);
	sroce_flow_rule_init(&r[1], SROCE_FLOW_ALL_DEFAULT, 0, 0);
	is(picked(r, 2, &k), 3, "a DONT_TRAP match leaves the default its due");
}

int main(void)
{
	tap_start();
	test_parse();
	test_rules();
	test_pick();
	return tap_done();
}
