// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * ICRC against independent vectors: a ConnectX-4 Lx capture, scapy's ICRC
 * code, and tools/icrc_vectors.py (zlib.crc32 following the spec text).
 */
#include "tap.h"
#include "icrc.h"
#include "wire.h"
#include "icrc_vectors.h"

/* Bit-serial CRC-32, a second primitive to show pluggability. */
static uint32_t crc32_bitwise(uint32_t crc, const void *p, size_t n)
{
	const uint8_t *b = p;
	int k;

	while (n--) {
		crc ^= *b++;
		for (k = 0; k < 8; k++)
			crc = (crc >> 1) ^ (0xedb88320u & -(crc & 1));
	}
	return crc;
}

static void test_crc32(void)
{
	static const char check[] = "123456789";

	is(~sroce_crc32_le(~0u, check, 9), 0xcbf43926,
	   "table CRC-32 check value");
	is(~crc32_bitwise(~0u, check, 9), 0xcbf43926,
	   "bitwise CRC-32 check value");
	is(sroce_crc32_le(0x12345678, check, 0), 0x12345678,
	   "zero-length update is identity");
}

static void test_vectors(void)
{
	unsigned int i;

	for (i = 0; i < ARRAY_SIZE(icrc_vectors); i++) {
		const struct icrc_vector *v = &icrc_vectors[i];
		size_t n = v->len - 4;
		uint32_t icrc = 0, icrc2 = 0;
		struct sroce_icrc_ctx ctx;

		is(sroce_icrc_compute(sroce_crc32_le, v->pkt, n, v->ipv6,
				      &icrc), 0, "%s: computes", v->name);
		is(icrc, sroce_icrc_load(v->pkt + n),
		   "%s: ICRC matches the reference", v->name);
		is(sroce_icrc_compute(crc32_bitwise, v->pkt, n, v->ipv6,
				      &icrc2), 0, "%s: bitwise primitive",
		   v->name);
		is(icrc2, icrc, "%s: same ICRC with another primitive",
		   v->name);
		is(sroce_icrc_verify(sroce_crc32_le, v->pkt, v->len, v->ipv6),
		   0, "%s: verifies", v->name);
		/* Feeding the stored ICRC too leaves the CRC-32 residue. */
		sroce_icrc_begin(&ctx, sroce_crc32_le, v->pkt, v->len, v->ipv6);
		is(ctx.crc, SROCE_CRC32_RESIDUE, "%s: residue 0xdebb20e3 "
		   "(ICRC stored LSB first)", v->name);
	}
	is(sroce_icrc_load(icrc_vectors[0].pkt + icrc_vectors[0].len - 4),
	   0x2a00fd82, "hardware CNP: wire bytes 82 fd 00 2a = 0x2a00fd82");
}

static size_t l3_hdrs(const struct icrc_vector *v)
{
	return (v->ipv6 ? 40 : (size_t)(v->pkt[0] & 0xf) * 4) + 8 + 12;
}

/* Every split of the packet into head + 1 or 2 fragments. */
static void test_streaming(void)
{
	unsigned int i, bad = 0, n = 0;

	for (i = 0; i < ARRAY_SIZE(icrc_vectors); i++) {
		const struct icrc_vector *v = &icrc_vectors[i];
		size_t len = v->len - 4, h = l3_hdrs(v), a, b;
		uint32_t want = sroce_icrc_load(v->pkt + len);

		for (a = h; a <= len; a++) {
			for (b = a; b <= len; b += (len - a) / 7 + 1) {
				struct sroce_icrc_ctx c;

				if (sroce_icrc_begin(&c, sroce_crc32_le,
						     v->pkt, a, v->ipv6))
					bad++;
				sroce_icrc_update(&c, v->pkt + a, b - a);
				sroce_icrc_update(&c, v->pkt + b, len - b);
				if (sroce_icrc_final(&c) != want)
					bad++;
				n++;
			}
		}
	}
	is(bad, 0, "streaming begin/update/final == one-shot (%u splits)", n);
}

static bool masked_bit(const struct icrc_vector *v, size_t byte,
		       unsigned int bit)
{
	size_t ip = v->ipv6 ? 40 : (size_t)(v->pkt[0] & 0xf) * 4;

	if (byte == ip + 6 || byte == ip + 7 || byte == ip + 8 + 4)
		return true;		/* UDP checksum, BTH byte 4 */
	if (v->ipv6)
		return (byte == 0 && bit < 4) || byte == 1 || byte == 2 ||
		       byte == 3 || byte == 7;
	return byte == 1 || byte == 8 || byte == 10 || byte == 11;
}

/*
 * Flip every bit of every vector: masked fields must not change the ICRC,
 * any other bit must be caught (CRC-32 catches all single-bit errors).
 */
static void test_bitflips(void)
{
	static uint8_t buf[1024];
	unsigned int i, bad = 0, masked = 0, caught = 0;

	for (i = 0; i < ARRAY_SIZE(icrc_vectors); i++) {
		const struct icrc_vector *v = &icrc_vectors[i];
		size_t byte;
		unsigned int bit;

		for (byte = 0; byte < v->len; byte++) {
			for (bit = 0; bit < 8; bit++) {
				bool m = masked_bit(v, byte, bit);
				int err;

				memcpy(buf, v->pkt, v->len);
				buf[byte] ^= 1u << bit;
				err = sroce_icrc_verify(sroce_crc32_le, buf,
							v->len, v->ipv6);
				if (m ? err != 0 : err == 0) {
					if (bad++ < 5)
						diag("%s byte %zu bit %u",
						     v->name, byte, bit);
				}
				masked += m;
				caught += !m;
			}
		}
	}
	is(bad, 0, "bit flips: %u in masked fields ignored, %u elsewhere "
	   "detected", masked, caught);
}

static void test_errors(void)
{
	const struct icrc_vector *v4 = &icrc_vectors[0];
	uint8_t buf[128];
	uint32_t icrc;
	unsigned int ihl, bad = 0;
	size_t n;

	for (n = 0; n < 40; n++)
		if (sroce_icrc_compute(sroce_crc32_le, v4->pkt, n, false,
				       &icrc) != -EINVAL)
			bad++;
	is(bad, 0, "IPv4: fewer than 40 bytes (IP+UDP+BTH) refused");
	is(sroce_icrc_compute(sroce_crc32_le, v4->pkt, 40, false, &icrc), 0,
	   "IPv4: exactly IP+UDP+BTH accepted");
	bad = 0;
	for (n = 0; n < 60; n++)
		if (sroce_icrc_compute(sroce_crc32_le, icrc_vectors[3].pkt, n,
				       true, &icrc) != -EINVAL)
			bad++;
	is(bad, 0, "IPv6: fewer than 60 bytes refused");
	bad = 0;
	for (ihl = 0; ihl < 5; ihl++) {
		memcpy(buf, v4->pkt, v4->len);
		buf[0] = 0x40 | ihl;
		if (sroce_icrc_compute(sroce_crc32_le, buf, v4->len - 4, false,
				       &icrc) != -EINVAL)
			bad++;
	}
	is(bad, 0, "IPv4 IHL < 5 refused");
	memcpy(buf, v4->pkt, v4->len);
	buf[0] = 0x4f;		/* 60-byte header + UDP + BTH = 80 > 56 */
	is(sroce_icrc_compute(sroce_crc32_le, buf, v4->len - 4, false, &icrc),
	   -EINVAL, "IPv4 IHL beyond the buffer refused");
	is(sroce_icrc_verify(sroce_crc32_le, v4->pkt, 3, false), -EINVAL,
	   "verify: shorter than an ICRC refused");
}

/* Build a packet with the core's builder and ICRC, then check it. */
static void test_generate(void)
{
	uint8_t pkt[128];
	struct sroce_pkt_hdr h = {
		.opcode = 0x04, .pkey = 0xffff, .dest_qpn = 0x11, .psn = 9,
		.pad = 1,
	};
	size_t ip = 20, hl, len;
	uint32_t icrc;

	memcpy(pkt, icrc_vectors[0].pkt, 28);	/* IPv4 + UDP of the CNP */
	hl = sroce_wire_build(pkt + ip + 8, sizeof(pkt) - 28, &h);
	memcpy(pkt + ip + 8 + hl, "abc", 4);	/* 3 bytes + 1 pad */
	len = ip + 8 + hl + 4;
	sroce_icrc_compute(sroce_crc32_le, pkt, len, false, &icrc);
	sroce_icrc_store(pkt + len, icrc);
	is(sroce_icrc_verify(sroce_crc32_le, pkt, len + 4, false), 0,
	   "built packet with stored ICRC verifies");
	ok(pkt[len] == (icrc & 0xff) && pkt[len + 3] == icrc >> 24,
	   "ICRC stored least significant byte first");
}

/* Only a packet that says so, with a UDP checksum, from a peer we told. */
static void test_may_skip(void)
{
	unsigned int m, n = 0;

	for (m = 0; m < 8; m++) {
		uint8_t bth8 = (m & 1) ? SROCE_BTH_NOCRC_BIT : 0;
		bool skip = sroce_icrc_may_skip(bth8 | 0x80, m & 2, m & 4);

		n += skip == (m == 7);
	}
	ok(n == 8, "ICRC skipped only with bit 4, a UDP checksum and consent");
	ok(!sroce_icrc_may_skip(SROCE_BTH_NOCRC_OK_BIT | 0xcf, true, true),
	   "no other bit of byte 8 skips it");
	ok(SROCE_BTH_NOCRC_BIT != SROCE_BTH_NOCRC_OK_BIT &&
	   !((SROCE_BTH_NOCRC_BIT | SROCE_BTH_NOCRC_OK_BIT) & 0xc0),
	   "the elision bits are reserved ones, clear of AckReq and bit 6");
}

int main(void)
{
	tap_start();
	test_crc32();
	test_vectors();
	test_streaming();
	test_bitflips();
	test_errors();
	test_generate();
	test_may_skip();
	return tap_done();
}
