/* SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause */
/*
 * Selective acknowledgement, a sroce extension (Documentation/wire.rst,
 * "Negotiated extensions").  A responder that holds requests beyond a
 * gap reports which PSNs it holds in a block after the AETH of an ACK,
 * so that the requester resends only what is missing.  Sent only to a
 * requester that offered the extension: a standard peer never sees it.
 *
 * Wire layout, after the AETH, when the BTH's extension bit is set:
 *   byte 0	type (SROCE_EXT_SACK)
 *   byte 1	number of blocks, 1..SROCE_SACK_BLOCKS_MAX
 *   bytes 2-3	reserved, 0
 *   then per block: 4 bytes first PSN (24 bits), 4 bytes PSN count
 * Blocks ascend from the ACK's PSN, never touch and never overlap.
 */
#ifndef _SROCE_PROTO_SACK_H
#define _SROCE_PROTO_SACK_H

#include "compat.h"

/* BTH byte 8, bit 6 (reserved in the spec): see wire.rst. */
#define SROCE_BTH_EXT_BIT	0x40

#define SROCE_EXT_SACK		1
#define SROCE_SACK_BLOCKS_MAX	8
#define SROCE_SACK_HDR_BYTES	4
#define SROCE_SACK_BLOCK_BYTES	8
#define SROCE_SACK_MAX_BYTES	(SROCE_SACK_HDR_BYTES + \
				 SROCE_SACK_BLOCKS_MAX * SROCE_SACK_BLOCK_BYTES)

struct sroce_sack_block {
	uint32_t start;		/* first PSN held */
	uint32_t len;		/* PSNs held from there */
};

struct sroce_sack {
	uint8_t n;
	struct sroce_sack_block blk[SROCE_SACK_BLOCKS_MAX];
};

/*
 * What a responder holds beyond the gap, as maximal PSN ranges in
 * ascending order after the expected PSN, kept up to date as requests
 * are held: a SACK is then built without walking the held queue, and
 * the map knows which ranges changed since the last SACK.  On a long
 * lossy path dozens of ranges are open at once, and an ACK has room for
 * eight.  The lowest eight alone would hide every packet beyond them:
 * the requester would count them in flight, stall on its window and
 * underrate the path.  So a SACK says the highest range (the newest
 * arrivals, which RACK measures the holes below against), then the
 * ranges that changed since the last SACK, lowest first, then others in
 * turn, so that each is said soon and said again if an ACK was lost.
 * The requester remembers what it was told.  Ranges never touch.
 */
#define SROCE_SACK_MAP_MAX	64

struct sroce_sack_range {
	uint32_t start;
	uint32_t len;
	bool dirty;		/* changed since a SACK last said it */
};

struct sroce_sack_map {
	uint32_t n;
	uint32_t turn;		/* PSN from which the rotation goes on */
	struct sroce_sack_range r[SROCE_SACK_MAP_MAX];
};

void sroce_sack_map_init(struct sroce_sack_map *m);
bool sroce_sack_map_add(struct sroce_sack_map *m, uint32_t epsn,
			uint32_t psn, uint32_t npsn);
void sroce_sack_map_pick(struct sroce_sack_map *m, uint32_t epsn,
			 struct sroce_sack *s);

void sroce_sack_init(struct sroce_sack *s);
bool sroce_sack_add(struct sroce_sack *s, uint32_t psn, uint32_t npsn);
size_t sroce_sack_bytes(const struct sroce_sack *s);
size_t sroce_sack_put(uint8_t *buf, size_t cap, const struct sroce_sack *s);
int sroce_sack_get(const uint8_t *buf, size_t len, uint32_t ack_psn,
		   struct sroce_sack *s);
bool sroce_sack_covers(const struct sroce_sack *s, uint32_t psn,
		       uint32_t npsn);
uint32_t sroce_sack_end(const struct sroce_sack *s);

/*
 * RACK's rule (RFC 8985): a packet not acknowledged is lost once a
 * packet sent after it was, and it has been out longer than that
 * packet's round trip plus a reordering allowance.  Times in ns.
 */
bool sroce_rack_lost(uint64_t now, uint64_t xmit, uint64_t rack_xmit,
		     uint64_t rack_rtt, uint64_t reo_wnd);

/*
 * The round trip a delivery of a packet last sent at @xmit, seen at @now,
 * gives RACK, or 0 if it must be ignored.  A resent packet's delivery may
 * answer its first copy: then the time since the resend is shorter than
 * any round trip of the path, and taking it would make every packet sent
 * before the resend look lost.  So a resent packet counts only once the
 * path's minimum round trip @min_rtt (0: none seen) has passed since the
 * resend, as Linux's RACK does (tcp_rack_advance()).
 */
uint64_t sroce_rack_rtt(uint64_t now, uint64_t xmit, bool resent,
			uint64_t min_rtt);

/*
 * Tail loss probe (RFC 8985, section 7.2): how long, in us, a requester
 * waits without an answer before it resends its newest packet to make
 * the peer say what of the tail it holds.  Two smoothed round trips,
 * one more when a single packet is out (its ACK has nothing to ride
 * on), at least @floor_us (the timer's tick).  0 without an RTT sample:
 * then only the RTO knows how long to wait.
 */
uint64_t sroce_tlp_pto_us(uint32_t srtt_us, bool valid, bool single,
			  uint64_t floor_us);

#endif /* _SROCE_PROTO_SACK_H */
