/* SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause */
/*
 * Receive side scaling: which entry of an RSS QP's indirection table a
 * frame goes to.
 *
 * The hash is Microsoft's Toeplitz hash ("RSS hashing functions") over
 * the fields the QP's mask selects, concatenated in the order they have
 * in the packet: source address, destination address, source port,
 * destination port (only those selected).  The entry is the hash's low
 * bits: hash & (table size - 1).
 *
 * A frame that lacks a field the mask selects is not hashed: its hash is
 * 0, so it goes to entry 0.  That is NDIS's rule (a NIC that cannot
 * interpret a packet for the hash type must not compute a hash; the
 * packet then goes to the default queue), and it keeps one flow on one
 * entry: a non-first IPv4 fragment has no ports, so with ports in the
 * mask every fragment of a datagram, the first included, goes to entry
 * 0 rather than the first one elsewhere.  The frame's IP version must be
 * the mask's, and with ports in the mask its transport the mask's (TCP
 * or UDP).  A mask without IP fields takes ports of either IP version; a
 * mask of nothing sends everything to entry 0 (only a one-entry table
 * may have it, as mlx5 has it).
 *
 * The mask bits and the hash function number are rdma-core's
 * (IBV_RX_HASH_*, IBV_RX_HASH_FUNC_TOEPLITZ), which sroce-abi.h repeats.
 */
#ifndef _SROCE_PROTO_RSS_H
#define _SROCE_PROTO_RSS_H

#include "compat.h"
#include "flow.h"

/* enum ibv_rx_hash_fields */
#define SROCE_RSS_SRC_IPV4		(1u << 0)
#define SROCE_RSS_DST_IPV4		(1u << 1)
#define SROCE_RSS_SRC_IPV6		(1u << 2)
#define SROCE_RSS_DST_IPV6		(1u << 3)
#define SROCE_RSS_SRC_PORT_TCP		(1u << 4)
#define SROCE_RSS_DST_PORT_TCP		(1u << 5)
#define SROCE_RSS_SRC_PORT_UDP		(1u << 6)
#define SROCE_RSS_DST_PORT_UDP		(1u << 7)

#define SROCE_RSS_IPV4	(SROCE_RSS_SRC_IPV4 | SROCE_RSS_DST_IPV4)
#define SROCE_RSS_IPV6	(SROCE_RSS_SRC_IPV6 | SROCE_RSS_DST_IPV6)
#define SROCE_RSS_TCP	(SROCE_RSS_SRC_PORT_TCP | SROCE_RSS_DST_PORT_TCP)
#define SROCE_RSS_UDP	(SROCE_RSS_SRC_PORT_UDP | SROCE_RSS_DST_PORT_UDP)
#define SROCE_RSS_FIELDS \
	(SROCE_RSS_IPV4 | SROCE_RSS_IPV6 | SROCE_RSS_TCP | SROCE_RSS_UDP)

/* enum ibv_rx_hash_function_flags: the one hash there is. */
#define SROCE_RSS_FUNC_TOEPLITZ		(1u << 0)

/*
 * The key is 40 bytes, as NDIS and mlx5 have it: enough for the longest
 * input (two IPv6 addresses and two ports, 36 bytes) plus the 32 bits
 * the window slides over.
 */
#define SROCE_RSS_KEY_LEN		40
/* The longest input: the bytes hashed, at most. */
#define SROCE_RSS_INPUT_MAX		36

struct sroce_rss_conf {
	uint32_t fields;		/* SROCE_RSS_* */
	uint8_t key[SROCE_RSS_KEY_LEN];
};

/*
 * Is this a configuration sroce hashes with, for a table of
 * 2^@log_size entries?  0; -EOPNOTSUPP for another function or fields we
 * do not hash (IPsec SPI, inner headers); -EINVAL for a key that is not
 * SROCE_RSS_KEY_LEN bytes, IPv4 and IPv6 fields together, TCP and UDP
 * ports together, or no fields with more than one entry.
 */
int sroce_rss_conf_check(uint32_t func, uint32_t key_len, uint64_t fields,
			 uint32_t log_size);

/* Toeplitz over @len bytes of @in with @key (at least @len + 4 bytes). */
uint32_t sroce_rss_toeplitz(const uint8_t *key, const uint8_t *in,
			    size_t len);

/*
 * The bytes the hash of a frame covers, into @in (SROCE_RSS_INPUT_MAX
 * bytes): how many, or -ENOENT if the frame lacks a selected field.
 */
int sroce_rss_input(uint32_t fields, const struct sroce_flow_key *key,
		    uint8_t *in);

/* The hash of a parsed frame: 0 when it lacks a selected field. */
uint32_t sroce_rss_hash(const struct sroce_rss_conf *c,
			const struct sroce_flow_key *key);

#endif /* _SROCE_PROTO_RSS_H */
