/* SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause */
/*
 * Flow steering for raw packet QPs: which Ethernet frames a rule takes.
 *
 * A frame is parsed once into a key: its Ethernet, VLAN, IPv4 or IPv6
 * and TCP or UDP fields, laid out exactly as ib_core's flow filters lay
 * out theirs (struct ib_flow_eth_filter, ..._ipv4_, ..._ipv6_,
 * ..._tcp_udp_filter), so a rule is the filters' value and mask bytes
 * copied as they come, and matching is a masked byte compare.  A spec
 * also asks for its layer: an IPv4 spec takes IPv4 frames only, a TCP
 * spec TCP segments only, whatever it masks.
 *
 * Which rules take a frame (sroce_flow_pick_*): IB_FLOW_ATTR_NORMAL rules
 * that match, at the best (lowest) priority among them; a DONT_TRAP rule
 * takes what it matches and leaves the others to decide; ALL_DEFAULT
 * rules take what no NORMAL rule took, MC_DEFAULT rules the multicast
 * part of that; SNIFFER rules take everything.
 */
#ifndef _SROCE_PROTO_FLOW_H
#define _SROCE_PROTO_FLOW_H

#include "compat.h"

/* ib_core's spec types (enum ib_flow_spec_type): those we match on. */
#define SROCE_FLOW_SPEC_ETH	0x20
#define SROCE_FLOW_SPEC_IPV4	0x30
#define SROCE_FLOW_SPEC_IPV6	0x31
#define SROCE_FLOW_SPEC_TCP	0x40
#define SROCE_FLOW_SPEC_UDP	0x41

/* enum ib_flow_attr_type and the DONT_TRAP flag. */
enum sroce_flow_type {
	SROCE_FLOW_NORMAL = 0,
	SROCE_FLOW_ALL_DEFAULT = 1,
	SROCE_FLOW_MC_DEFAULT = 2,
	SROCE_FLOW_SNIFFER = 3,
};

#define SROCE_FLOW_F_DONT_TRAP	(1u << 1)

/* The bytes of each filter, up to its real_sz: dmac, smac, type, tci. */
#define SROCE_FLOW_ETH_BYTES	16
/* src, dst, proto, tos, ttl, flags (IB_IPV4_DONT_FRAG / _MORE_FRAG). */
#define SROCE_FLOW_IP4_BYTES	12
/* src, dst, flow label (20 bits, big-endian 32), next, tclass, hop. */
#define SROCE_FLOW_IP6_BYTES	39
/* destination port, then source port. */
#define SROCE_FLOW_L4_BYTES	4

#define SROCE_FLOW_IP4_DF	0x2
#define SROCE_FLOW_IP4_MF	0x4

/* Layers a frame has, or a rule asks for. */
#define SROCE_FLOW_L_ETH	(1u << 0)
#define SROCE_FLOW_L_VLAN	(1u << 1)
#define SROCE_FLOW_L_IPV4	(1u << 2)
#define SROCE_FLOW_L_IPV6	(1u << 3)
#define SROCE_FLOW_L_TCP	(1u << 4)
#define SROCE_FLOW_L_UDP	(1u << 5)

/*
 * The headers the parser looks at, at most: Ethernet, one VLAN tag, an
 * IPv4 header with all its options, four bytes of ports.
 */
#define SROCE_FLOW_HDR_MAX	(14 + 4 + 60 + 4)

struct sroce_flow_key {
	uint32_t layers;
	uint8_t eth[SROCE_FLOW_ETH_BYTES];
	uint8_t ip4[SROCE_FLOW_IP4_BYTES];
	uint8_t ip6[SROCE_FLOW_IP6_BYTES];
	uint8_t l4[SROCE_FLOW_L4_BYTES];
};

struct sroce_flow_rule {
	uint8_t type;			/* enum sroce_flow_type */
	bool dont_trap;
	uint16_t priority;
	uint32_t specs;			/* spec kinds seen, as layers */
	struct sroce_flow_key val;	/* val.layers: the layers required */
	struct sroce_flow_key mask;
};

/*
 * Parse the first @len bytes of a frame, from its destination MAC on,
 * VLAN tag in line.  0, or -EINVAL if it is shorter than an Ethernet
 * header.  A truncated or malformed upper header just leaves its layer
 * out of the key.
 */
int sroce_flow_parse(const uint8_t *frame, size_t len,
		     struct sroce_flow_key *key);

/*
 * A rule with no specs yet; -EINVAL for an unknown @type, -EOPNOTSUPP for
 * flags other than DONT_TRAP, -EINVAL for DONT_TRAP on a default rule.
 */
int sroce_flow_rule_init(struct sroce_flow_rule *r, uint32_t type,
			 uint16_t priority, uint32_t flags);

/*
 * Add one spec: @val and @mask are @len bytes of the filter (at least
 * its real size; what follows is not looked at).  -EOPNOTSUPP for a spec
 * kind we do not match on, -EINVAL for a contradiction (IPv4 and IPv6,
 * TCP and UDP, a kind twice, bytes we cannot match), or a spec on a
 * rule type that takes none.
 */
int sroce_flow_rule_add(struct sroce_flow_rule *r, uint32_t spec,
			const uint8_t *val, const uint8_t *mask, size_t len);

bool sroce_flow_match(const struct sroce_flow_rule *r,
		      const struct sroce_flow_key *key);

/* The decision over all of a device's rules, in two passes. */
struct sroce_flow_pick {
	bool normal;		/* a trapping NORMAL rule matched */
	uint16_t best;		/* its best priority */
};

void sroce_flow_pick_init(struct sroce_flow_pick *p);
/* Pass 1, every rule. */
void sroce_flow_pick_see(struct sroce_flow_pick *p,
			 const struct sroce_flow_rule *r,
			 const struct sroce_flow_key *key);
/* Pass 2, every rule: does it take the frame? */
bool sroce_flow_pick_takes(const struct sroce_flow_pick *p,
			   const struct sroce_flow_rule *r,
			   const struct sroce_flow_key *key);

#endif /* _SROCE_PROTO_FLOW_H */
