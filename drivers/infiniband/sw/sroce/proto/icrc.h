/* SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause */
/*
 * RoCEv2 invariant CRC (IBTA vol 1 ch. 7.8 and RoCEv2 annex A17).
 *
 * The ICRC is the Ethernet CRC-32 (reflected polynomial 0xEDB88320,
 * register preset to all ones, result inverted) computed over:
 *
 *   8 bytes of 0xff		(stand-in for the LRH of native IB)
 *   IP header			IPv4: TOS, TTL, header checksum set to 1s
 *				IPv6: traffic class, flow label, hop limit
 *				set to 1s
 *   UDP header			checksum set to 1s
 *   BTH			byte 4 (FECN, BECN, 6 reserved bits) set to 1s
 *   extension headers, payload and pad, unmodified
 *
 * i.e. everything from the IP header to the end of the pad with the fields
 * that routers may rewrite replaced by ones.  It is stored after the pad
 * least significant byte first (the same byte order as an Ethernet FCS),
 * which makes the CRC register over pseudo header + ICRC, without the
 * final inversion, equal the CRC-32 residue 0xdebb20e3.
 *
 * The CRC primitive is pluggable so the kernel can use crc32_le() (or an
 * accelerated shash) while userspace tests use the portable table here.
 * It must behave like crc32_le(): no inversion on input or output.
 */
#ifndef _SROCE_PROTO_ICRC_H
#define _SROCE_PROTO_ICRC_H

#include "compat.h"

typedef uint32_t (*sroce_crc32_fn)(uint32_t crc, const void *p, size_t n);

#define SROCE_IPV4_MIN_BYTES	20
#define SROCE_IPV6_BYTES	40
#define SROCE_UDP_BYTES		8

/* CRC register after a good packet's pseudo header and ICRC. */
#define SROCE_CRC32_RESIDUE	0xdebb20e3u

struct sroce_icrc_ctx {
	sroce_crc32_fn crcfn;
	uint32_t crc;
};

uint32_t sroce_crc32_le(uint32_t crc, const void *p, size_t n);

int sroce_icrc_begin(struct sroce_icrc_ctx *ctx, sroce_crc32_fn crcfn,
		     const uint8_t *l3, size_t len, bool ipv6);
void sroce_icrc_update(struct sroce_icrc_ctx *ctx, const void *p, size_t n);
uint32_t sroce_icrc_final(const struct sroce_icrc_ctx *ctx);
int sroce_icrc_compute(sroce_crc32_fn crcfn, const uint8_t *l3, size_t len,
		       bool ipv6, uint32_t *icrc);
int sroce_icrc_verify(sroce_crc32_fn crcfn, const uint8_t *l3, size_t len,
		      bool ipv6);

static inline uint32_t sroce_icrc_load(const uint8_t *p)
{
	return ((uint32_t)p[3] << 24) | ((uint32_t)p[2] << 16) |
	       ((uint32_t)p[1] << 8) | p[0];
}

static inline void sroce_icrc_store(uint8_t *p, uint32_t icrc)
{
	p[0] = (uint8_t)icrc;
	p[1] = (uint8_t)(icrc >> 8);
	p[2] = (uint8_t)(icrc >> 16);
	p[3] = (uint8_t)(icrc >> 24);
}

/*
 * ICRC elision between sroce peers (Documentation/wire.rst, "ICRC
 * elision"), two more reserved bits of BTH byte 8.  NOCRC_OK rides with
 * the extension bit while it is negotiated: "I accept packets without an
 * ICRC".  NOCRC marks such a packet: its ICRC field is zero and its UDP
 * checksum, which the receiving stack verifies before we see the packet,
 * covers it instead.  Never sent to a peer that did not say NOCRC_OK.
 */
#define SROCE_BTH_NOCRC_OK_BIT	0x20
#define SROCE_BTH_NOCRC_BIT	0x10

/*
 * A received packet may skip its ICRC check only if it says so (@bth8,
 * BTH byte 8), a UDP checksum covers it (@udp_csum: IPv6, or a non-zero
 * IPv4 checksum) and we told its sender we accept that (@accepted).
 * Anything else is checked as usual, and a zero ICRC then fails.
 */
static inline bool sroce_icrc_may_skip(uint8_t bth8, bool udp_csum,
				       bool accepted)
{
	return (bth8 & SROCE_BTH_NOCRC_BIT) && udp_csum && accepted;
}

#endif /* _SROCE_PROTO_ICRC_H */
