// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * Receive side scaling (proto/rss.h): the Toeplitz hash against
 * Microsoft's published verification suite ("Verifying the RSS Hash
 * Calculation": IPv4, IPv4 with TCP ports, IPv6, IPv6 with TCP ports,
 * with its sample key), the fields a frame's hash covers, what happens
 * to a frame without them, and the configurations refused.
 */
#include "tap.h"
#include "rss.h"

/* The verification suite's key. */
static const uint8_t ms_key[SROCE_RSS_KEY_LEN] = {
	0x6d, 0x5a, 0x56, 0xda, 0x25, 0x5b, 0x0e, 0xc2,
	0x41, 0x67, 0x25, 0x3d, 0x43, 0xa3, 0x8f, 0xb0,
	0xd0, 0xca, 0x2b, 0xcb, 0xae, 0x7b, 0x30, 0xb4,
	0x77, 0xcb, 0x2d, 0xa3, 0x80, 0x30, 0xf2, 0x0c,
	0x6a, 0x42, 0xb7, 0x3b, 0xbe, 0xac, 0x01, 0xfa,
};

struct v4 {
	uint8_t dst[4];
	uint16_t dport;
	uint8_t src[4];
	uint16_t sport;
	uint32_t ip, tcp;	/* IPv4 only; with TCP ports */
};

static const struct v4 v4s[] = {
	{ { 161, 142, 100, 80 }, 1766, { 66, 9, 149, 187 }, 2794,
	  0x323e8fc2, 0x51ccc178 },
	{ { 65, 69, 140, 83 }, 4739, { 199, 92, 111, 2 }, 14230,
	  0xd718262a, 0xc626b0ea },
	{ { 12, 22, 207, 184 }, 38024, { 24, 19, 198, 95 }, 12898,
	  0xd2d0a5de, 0x5c2b394a },
	{ { 209, 142, 163, 6 }, 2217, { 38, 27, 205, 30 }, 48228,
	  0x82989176, 0xafc7327f },
	{ { 202, 188, 127, 2 }, 1303, { 153, 39, 163, 191 }, 44251,
	  0x5d1809c5, 0x10e828a2 },
};

struct v6 {
	uint8_t dst[16];
	uint16_t dport;
	uint8_t src[16];
	uint16_t sport;
	uint32_t ip, tcp;
};

static const struct v6 v6s[] = {
	/* 3ffe:2501:200:3::1 <- 3ffe:2501:200:1fff::7 */
	{ { 0x3f, 0xfe, 0x25, 0x01, 0x02, 0x00, 0x00, 0x03,
	    0, 0, 0, 0, 0, 0, 0, 0x01 }, 1766,
	  { 0x3f, 0xfe, 0x25, 0x01, 0x02, 0x00, 0x1f, 0xff,
	    0, 0, 0, 0, 0, 0, 0, 0x07 }, 2794,
	  0x2cc18cd5, 0x40207d3d },
	/* ff02::1 <- 3ffe:501:8::260:97ff:fe40:efab */
	{ { 0xff, 0x02, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0x01 }, 4739,
	  { 0x3f, 0xfe, 0x05, 0x01, 0x00, 0x08, 0x00, 0x00,
	    0x02, 0x60, 0x97, 0xff, 0xfe, 0x40, 0xef, 0xab }, 14230,
	  0x0f0c461c, 0xdde51bbf },
	/* fe80::200:f8ff:fe21:67cf <- 3ffe:1900:4545:3:200:f8ff:fe21:67cf */
	{ { 0xfe, 0x80, 0, 0, 0, 0, 0, 0,
	    0x02, 0x00, 0xf8, 0xff, 0xfe, 0x21, 0x67, 0xcf }, 38024,
	  { 0x3f, 0xfe, 0x19, 0x00, 0x45, 0x45, 0x00, 0x03,
	    0x02, 0x00, 0xf8, 0xff, 0xfe, 0x21, 0x67, 0xcf }, 44251,
	  0x4b61e985, 0x02d1feef },
};

/* Eth | IPv4 (protocol @proto, @frag: the IPv4 flags/offset) | 8 bytes. */
static size_t frame4(uint8_t *f, const struct v4 *v, uint8_t proto,
		     uint16_t frag)
{
	memset(f, 0, 128);
	memset(f, 0xaa, 12);
	sroce_be_store16(f + 12, 0x0800);
	f[14] = 0x45;
	sroce_be_store16(f + 14 + 6, frag);
	f[14 + 8] = 64;
	f[14 + 9] = proto;
	memcpy(f + 14 + 12, v->src, 4);
	memcpy(f + 14 + 16, v->dst, 4);
	sroce_be_store16(f + 34, v->sport);
	sroce_be_store16(f + 36, v->dport);
	return 14 + 20 + 8 + 16;
}

static size_t frame6(uint8_t *f, const struct v6 *v, uint8_t next)
{
	memset(f, 0, 128);
	memset(f, 0xaa, 12);
	sroce_be_store16(f + 12, 0x86dd);
	f[14] = 0x60;
	f[14 + 6] = next;
	f[14 + 7] = 64;
	memcpy(f + 14 + 8, v->src, 16);
	memcpy(f + 14 + 24, v->dst, 16);
	sroce_be_store16(f + 54, v->sport);
	sroce_be_store16(f + 56, v->dport);
	return 14 + 40 + 8 + 16;
}

/* The bit-by-bit definition, written the other way: key bits by index. */
static uint32_t toeplitz_ref(const uint8_t *key, const uint8_t *in, size_t n)
{
	uint32_t hash = 0;
	size_t bit, j;

	for (bit = 0; bit < n * 8; bit++) {
		uint32_t w = 0;

		if (!(in[bit / 8] & 0x80 >> bit % 8))
			continue;
		for (j = 0; j < 32; j++)
			w = w << 1 |
			    (key[(bit + j) / 8] >> (7 - (bit + j) % 8) & 1);
		hash ^= w;
	}
	return hash;
}

static uint32_t hash_of(uint32_t fields, const uint8_t *f, size_t n)
{
	struct sroce_rss_conf c = { .fields = fields };
	struct sroce_flow_key k;

	memcpy(c.key, ms_key, sizeof(c.key));
	if (sroce_flow_parse(f, n, &k))
		return 0xdeadbeef;
	return sroce_rss_hash(&c, &k);
}

static void test_vectors(void)
{
	uint8_t f[128];
	size_t i, n;
	int ip = 0, tcp = 0, udp = 0, ref = 0;

	for (i = 0; i < ARRAY_SIZE(v4s); i++) {
		uint8_t in[12];

		n = frame4(f, &v4s[i], 6, 0x4000);
		ip += hash_of(SROCE_RSS_IPV4, f, n) == v4s[i].ip;
		tcp += hash_of(SROCE_RSS_IPV4 | SROCE_RSS_TCP, f, n) ==
		       v4s[i].tcp;
		/* Same bytes as UDP: the function does not know the proto. */
		n = frame4(f, &v4s[i], 17, 0);
		udp += hash_of(SROCE_RSS_IPV4 | SROCE_RSS_UDP, f, n) ==
		       v4s[i].tcp;
		memcpy(in, v4s[i].src, 4);
		memcpy(in + 4, v4s[i].dst, 4);
		sroce_be_store16(in + 8, v4s[i].sport);
		sroce_be_store16(in + 10, v4s[i].dport);
		ref += toeplitz_ref(ms_key, in, 12) == v4s[i].tcp &&
		       sroce_rss_toeplitz(ms_key, in, 8) == v4s[i].ip;
	}
	is(ip, ARRAY_SIZE(v4s), "IPv4: the 5 published hashes");
	is(tcp, ARRAY_SIZE(v4s), "IPv4 with TCP ports: the 5 published hashes");
	is(udp, ARRAY_SIZE(v4s), "IPv4 with UDP ports: the same 5");
	is(ref, ARRAY_SIZE(v4s), "the reference definition agrees");

	ip = tcp = 0;
	for (i = 0; i < ARRAY_SIZE(v6s); i++) {
		n = frame6(f, &v6s[i], 6);
		ip += hash_of(SROCE_RSS_IPV6, f, n) == v6s[i].ip;
		tcp += hash_of(SROCE_RSS_IPV6 | SROCE_RSS_TCP, f, n) ==
		       v6s[i].tcp;
	}
	is(ip, ARRAY_SIZE(v6s), "IPv6: the 3 published hashes");
	is(tcp, ARRAY_SIZE(v6s), "IPv6 with TCP ports: the 3 published hashes");
}

static void test_fields(void)
{
	const struct v4 *v = &v4s[0];
	uint8_t f[128], in[SROCE_RSS_INPUT_MAX], want[4];
	struct sroce_flow_key k;
	size_t n = frame4(f, v, 17, 0x4000);
	int len;

	sroce_flow_parse(f, n, &k);
	len = sroce_rss_input(SROCE_RSS_DST_IPV4, &k, in);
	ok(len == 4 && !memcmp(in, v->dst, 4), "DST_IPV4 alone: 4 bytes");
	is(hash_of(SROCE_RSS_DST_IPV4, f, n), sroce_rss_toeplitz(ms_key, in, 4),
	   "hashed as they are");
	len = sroce_rss_input(SROCE_RSS_SRC_IPV4 | SROCE_RSS_DST_PORT_UDP, &k,
			      in);
	sroce_be_store16(want, v->dport);
	ok(len == 6 && !memcmp(in, v->src, 4) && !memcmp(in + 4, want, 2),
	   "source address, destination port: in packet order");
	len = sroce_rss_input(SROCE_RSS_UDP, &k, in);
	sroce_be_store16(want, v->sport);
	sroce_be_store16(want + 2, v->dport);
	ok(len == 4 && !memcmp(in, want, 4), "ports alone, source first");
	is(sroce_rss_input(0, &k, in), 0, "no fields, no bytes");
	is(hash_of(0, f, n), 0, "and hash 0");

	/* Frames without the selected fields: entry 0. */
	is(hash_of(SROCE_RSS_IPV6, f, n), 0, "IPv6 fields on IPv4: 0");
	is(hash_of(SROCE_RSS_IPV4 | SROCE_RSS_TCP, f, n), 0,
	   "TCP ports on UDP: 0, not the IPv4 hash");
	n = frame4(f, v, 17, 0x2000);
	is(hash_of(SROCE_RSS_IPV4 | SROCE_RSS_UDP, f, n), 0,
	   "a first fragment (MF) is not hashed with ports");
	is(hash_of(SROCE_RSS_IPV4, f, n), v->ip, "but is by its addresses");
	n = frame4(f, v, 17, 0x0010);
	is(hash_of(SROCE_RSS_UDP, f, n), 0, "a later fragment: 0");
	n = frame6(f, &v6s[0], 17);
	sroce_be_store16(want, v6s[0].sport);
	sroce_be_store16(want + 2, v6s[0].dport);
	is(hash_of(SROCE_RSS_UDP, f, n), sroce_rss_toeplitz(ms_key, want, 4),
	   "ports alone take IPv6 too");
	is(hash_of(SROCE_RSS_IPV4 | SROCE_RSS_UDP, f, n), 0,
	   "IPv4 fields on IPv6: 0");
	memset(f + 12, 0x88, 2);	/* no IP at all */
	is(hash_of(SROCE_RSS_UDP, f, 64), 0, "not IP: 0");
	is(hash_of(0, f, 64), 0, "no fields: 0 whatever the frame");
}

static void test_conf(void)
{
	const uint32_t t = SROCE_RSS_FUNC_TOEPLITZ, kl = SROCE_RSS_KEY_LEN;

	is(sroce_rss_conf_check(t, kl, SROCE_RSS_IPV4, 3), 0,
	   "Toeplitz, 40 bytes, IPv4: pyverbs' RSS QP");
	is(sroce_rss_conf_check(t, kl, SROCE_RSS_IPV6 | SROCE_RSS_TCP, 8), 0,
	   "IPv6 with TCP ports");
	is(sroce_rss_conf_check(t, kl, SROCE_RSS_SRC_PORT_UDP, 1), 0,
	   "one port alone");
	is(sroce_rss_conf_check(0, kl, SROCE_RSS_IPV4, 3), -EOPNOTSUPP,
	   "no function: EOPNOTSUPP");
	is(sroce_rss_conf_check(2, kl, SROCE_RSS_IPV4, 3), -EOPNOTSUPP,
	   "another function: EOPNOTSUPP");
	is(sroce_rss_conf_check(t, kl, 1u << 8, 3), -EOPNOTSUPP,
	   "IPSEC_SPI: EOPNOTSUPP");
	is(sroce_rss_conf_check(t, kl, SROCE_RSS_IPV4 | 1ull << 31, 3),
	   -EOPNOTSUPP, "INNER: EOPNOTSUPP");
	is(sroce_rss_conf_check(t, 39, SROCE_RSS_IPV4, 3), -EINVAL,
	   "a 39-byte key: EINVAL");
	is(sroce_rss_conf_check(t, 0, SROCE_RSS_IPV4, 3), -EINVAL,
	   "no key: EINVAL");
	is(sroce_rss_conf_check(t, kl, SROCE_RSS_SRC_IPV4 | SROCE_RSS_DST_IPV6,
				3), -EINVAL, "IPv4 and IPv6: EINVAL");
	is(sroce_rss_conf_check(t, kl, SROCE_RSS_SRC_PORT_TCP |
				SROCE_RSS_DST_PORT_UDP, 3), -EINVAL,
	   "TCP and UDP: EINVAL");
	is(sroce_rss_conf_check(t, kl, 0, 3), -EINVAL,
	   "no fields for 8 entries: EINVAL");
	is(sroce_rss_conf_check(t, kl, 0, 0), 0, "no fields for one: fine");
}

/* Random inputs: the sliding window against the definition. */
static void test_random(void)
{
	uint8_t key[SROCE_RSS_KEY_LEN], in[SROCE_RSS_INPUT_MAX];
	int i, good = 0;
	size_t j, n;

	for (i = 0; i < 2000; i++) {
		for (j = 0; j < sizeof(key); j++)
			key[j] = (uint8_t)tap_rand();
		n = tap_rand() % (sizeof(in) + 1);
		for (j = 0; j < n; j++)
			in[j] = (uint8_t)tap_rand();
		good += sroce_rss_toeplitz(key, in, n) ==
			toeplitz_ref(key, in, n);
	}
	is(good, 2000, "2000 random keys and inputs agree with the definition");
}

int main(void)
{
	tap_start();
	test_vectors();
	test_fields();
	test_conf();
	test_random();
	return tap_done();
}
