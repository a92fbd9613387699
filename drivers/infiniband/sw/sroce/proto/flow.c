// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * Flow steering for raw packet QPs (flow.h): the frame parser, the rules
 * built from ib_core's specs, and the decision which rules take a frame.
 */
#include "flow.h"

#define SROCE_ETH_HLEN		14
#define SROCE_VLAN_HLEN		4
#define SROCE_ETH_P_8021Q	0x8100
#define SROCE_ETH_P_8021AD	0x88a8
#define SROCE_ETH_P_IP		0x0800
#define SROCE_ETH_P_IPV6	0x86dd
#define SROCE_IPPROTO_TCP	6
#define SROCE_IPPROTO_UDP	17
#define SROCE_IP6_HLEN		40

/* In rule->specs beside the layers: the rule has an ETH spec. */
#define SROCE_FLOW_S_ETH	(1u << 31)

/* The ports of a TCP or UDP header at @l4, if it is all there. */
static void sroce_flow_parse_l4(const uint8_t *l4, size_t room, uint8_t proto,
				struct sroce_flow_key *key)
{
	if (room < SROCE_FLOW_L4_BYTES)
		return;
	if (proto == SROCE_IPPROTO_TCP)
		key->layers |= SROCE_FLOW_L_TCP;
	else if (proto == SROCE_IPPROTO_UDP)
		key->layers |= SROCE_FLOW_L_UDP;
	else
		return;
	/* The filter has the destination port first. */
	memcpy(key->l4, l4 + 2, 2);
	memcpy(key->l4 + 2, l4, 2);
}

static void sroce_flow_parse_ip4(const uint8_t *ip, size_t room,
				 struct sroce_flow_key *key)
{
	size_t ihl;
	uint8_t flags = 0;

	if (room < 20 || ip[0] >> 4 != 4)
		return;
	ihl = (size_t)(ip[0] & 0xf) * 4;
	if (ihl < 20 || ihl > room)
		return;
	key->layers |= SROCE_FLOW_L_IPV4;
	memcpy(key->ip4, ip + 12, 8);	/* source, destination */
	key->ip4[8] = ip[9];		/* protocol */
	key->ip4[9] = ip[1];		/* TOS */
	key->ip4[10] = ip[8];		/* TTL */
	if (ip[6] & 0x40)
		flags |= SROCE_FLOW_IP4_DF;
	if (ip[6] & 0x20)
		flags |= SROCE_FLOW_IP4_MF;
	key->ip4[11] = flags;
	/* Only the first fragment carries the ports. */
	if (sroce_be_load16(ip + 6) & 0x1fff)
		return;
	sroce_flow_parse_l4(ip + ihl, room - ihl, ip[9], key);
}

/* No extension headers are walked: next_hdr is the first one's. */
static void sroce_flow_parse_ip6(const uint8_t *ip, size_t room,
				 struct sroce_flow_key *key)
{
	if (room < SROCE_IP6_HLEN || ip[0] >> 4 != 6)
		return;
	key->layers |= SROCE_FLOW_L_IPV6;
	memcpy(key->ip6, ip + 8, 32);	/* source, destination */
	sroce_be_store32(key->ip6 + 32, sroce_be_load32(ip) & 0xfffff);
	key->ip6[36] = ip[6];		/* next header */
	key->ip6[37] = (uint8_t)(sroce_be_load16(ip) >> 4);
	key->ip6[38] = ip[7];		/* hop limit */
	sroce_flow_parse_l4(ip + SROCE_IP6_HLEN, room - SROCE_IP6_HLEN, ip[6],
			    key);
}

int sroce_flow_parse(const uint8_t *frame, size_t len,
		     struct sroce_flow_key *key)
{
	size_t off = SROCE_ETH_HLEN;
	uint16_t type;

	memset(key, 0, sizeof(*key));
	if (len < SROCE_ETH_HLEN)
		return -EINVAL;
	key->layers = SROCE_FLOW_L_ETH;
	memcpy(key->eth, frame, 12);	/* destination, source */
	type = sroce_be_load16(frame + 12);
	if (type == SROCE_ETH_P_8021Q || type == SROCE_ETH_P_8021AD) {
		if (len < SROCE_ETH_HLEN + SROCE_VLAN_HLEN)
			return 0;
		key->layers |= SROCE_FLOW_L_VLAN;
		memcpy(key->eth + 14, frame + 14, 2);	/* TCI */
		type = sroce_be_load16(frame + 16);
		off += SROCE_VLAN_HLEN;
	}
	/* The type after the tag: what the filter's ether_type means. */
	sroce_be_store16(key->eth + 12, type);
	if (type == SROCE_ETH_P_IP)
		sroce_flow_parse_ip4(frame + off, len - off, key);
	else if (type == SROCE_ETH_P_IPV6)
		sroce_flow_parse_ip6(frame + off, len - off, key);
	return 0;
}

int sroce_flow_rule_init(struct sroce_flow_rule *r, uint32_t type,
			 uint16_t priority, uint32_t flags)
{
	memset(r, 0, sizeof(*r));
	if (type > SROCE_FLOW_SNIFFER)
		return -EINVAL;
	if (flags & ~SROCE_FLOW_F_DONT_TRAP)
		return -EOPNOTSUPP;
	if (flags & SROCE_FLOW_F_DONT_TRAP && type != SROCE_FLOW_NORMAL &&
	    type != SROCE_FLOW_SNIFFER)
		return -EINVAL;
	r->type = (uint8_t)type;
	r->priority = priority;
	r->dont_trap = !!(flags & SROCE_FLOW_F_DONT_TRAP);
	r->val.layers = SROCE_FLOW_L_ETH;
	return 0;
}

/* Where a spec kind's bytes go in the key, and the layer it asks for. */
static int sroce_flow_spec_slot(struct sroce_flow_key *k, uint32_t spec,
				uint8_t **slot, size_t *bytes, uint32_t *layer)
{
	switch (spec) {
	case SROCE_FLOW_SPEC_ETH:
		*slot = k->eth;
		*bytes = SROCE_FLOW_ETH_BYTES;
		*layer = SROCE_FLOW_L_ETH;
		return 0;
	case SROCE_FLOW_SPEC_IPV4:
		*slot = k->ip4;
		*bytes = SROCE_FLOW_IP4_BYTES;
		*layer = SROCE_FLOW_L_IPV4;
		return 0;
	case SROCE_FLOW_SPEC_IPV6:
		*slot = k->ip6;
		*bytes = SROCE_FLOW_IP6_BYTES;
		*layer = SROCE_FLOW_L_IPV6;
		return 0;
	case SROCE_FLOW_SPEC_TCP:
	case SROCE_FLOW_SPEC_UDP:
		*slot = k->l4;
		*bytes = SROCE_FLOW_L4_BYTES;
		*layer = spec == SROCE_FLOW_SPEC_TCP ? SROCE_FLOW_L_TCP :
						       SROCE_FLOW_L_UDP;
		return 0;
	default:
		return -EOPNOTSUPP;
	}
}

/* Mask bits no frame has: refuse them rather than never match. */
static bool sroce_flow_mask_ok(uint32_t spec, const uint8_t *mask)
{
	if (spec == SROCE_FLOW_SPEC_IPV4)
		return !(mask[11] & ~(SROCE_FLOW_IP4_DF | SROCE_FLOW_IP4_MF));
	if (spec == SROCE_FLOW_SPEC_IPV6)
		return !(sroce_be_load32(mask + 32) & ~0xfffffu);
	return true;
}

int sroce_flow_rule_add(struct sroce_flow_rule *r, uint32_t spec,
			const uint8_t *val, const uint8_t *mask, size_t len)
{
	const uint32_t l3 = SROCE_FLOW_L_IPV4 | SROCE_FLOW_L_IPV6;
	const uint32_t l4 = SROCE_FLOW_L_TCP | SROCE_FLOW_L_UDP;
	uint8_t *v, *m;
	uint32_t layer, kind;
	size_t bytes, i;
	int err;

	err = sroce_flow_spec_slot(&r->val, spec, &v, &bytes, &layer);
	if (err)
		return err;
	/* The default and sniffer rules take frames by their type alone. */
	if (r->type != SROCE_FLOW_NORMAL || len < bytes)
		return -EINVAL;
	/* Every frame has ETH: a rule's ETH spec needs a bit of its own. */
	kind = spec == SROCE_FLOW_SPEC_ETH ? SROCE_FLOW_S_ETH : layer;
	if (r->specs & kind)
		return -EINVAL;
	if ((layer & l3 && r->val.layers & l3) ||
	    (layer & l4 && r->val.layers & l4))
		return -EINVAL;
	if (!sroce_flow_mask_ok(spec, mask))
		return -EINVAL;
	/* The same place in the mask. */
	m = (uint8_t *)&r->mask + (v - (uint8_t *)&r->val);
	for (i = 0; i < bytes; i++) {
		m[i] = mask[i];
		v[i] = val[i] & mask[i];
	}
	r->specs |= kind;
	r->val.layers |= layer;
	/* Matching on the tag means the frame must have one. */
	if (spec == SROCE_FLOW_SPEC_ETH && (m[14] | m[15]))
		r->val.layers |= SROCE_FLOW_L_VLAN;
	return 0;
}

static bool sroce_flow_bytes_match(const uint8_t *k, const uint8_t *v,
				   const uint8_t *m, size_t n)
{
	size_t i;

	for (i = 0; i < n; i++)
		if ((k[i] & m[i]) != v[i])
			return false;
	return true;
}

bool sroce_flow_match(const struct sroce_flow_rule *r,
		      const struct sroce_flow_key *key)
{
	const struct sroce_flow_key *v = &r->val, *m = &r->mask;

	if ((key->layers & v->layers) != v->layers)
		return false;
	return sroce_flow_bytes_match(key->eth, v->eth, m->eth,
				      SROCE_FLOW_ETH_BYTES) &&
	       sroce_flow_bytes_match(key->ip4, v->ip4, m->ip4,
				      SROCE_FLOW_IP4_BYTES) &&
	       sroce_flow_bytes_match(key->ip6, v->ip6, m->ip6,
				      SROCE_FLOW_IP6_BYTES) &&
	       sroce_flow_bytes_match(key->l4, v->l4, m->l4,
				      SROCE_FLOW_L4_BYTES);
}

void sroce_flow_pick_init(struct sroce_flow_pick *p)
{
	p->normal = false;
	p->best = 0;
}

void sroce_flow_pick_see(struct sroce_flow_pick *p,
			 const struct sroce_flow_rule *r,
			 const struct sroce_flow_key *key)
{
	if (r->type != SROCE_FLOW_NORMAL || r->dont_trap ||
	    !sroce_flow_match(r, key))
		return;
	if (!p->normal || r->priority < p->best)
		p->best = r->priority;
	p->normal = true;
}

bool sroce_flow_pick_takes(const struct sroce_flow_pick *p,
			   const struct sroce_flow_rule *r,
			   const struct sroce_flow_key *key)
{
	switch (r->type) {
	case SROCE_FLOW_NORMAL:
		if (!sroce_flow_match(r, key))
			return false;
		return r->dont_trap || r->priority == p->best;
	case SROCE_FLOW_ALL_DEFAULT:
		return !p->normal;
	case SROCE_FLOW_MC_DEFAULT:
		return !p->normal && (key->eth[0] & 1);
	case SROCE_FLOW_SNIFFER:
		return true;
	default:
		return false;
	}
}
