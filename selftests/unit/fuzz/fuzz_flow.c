// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * Flow steering (proto/flow.h): any bytes as a frame, and as a rule's
 * specs.  The parser keeps to the frame, a key's layers agree with its
 * frame, and a rule the core accepted agrees with itself.
 */
#include <assert.h>
#include "flow.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

/* Rule from the input's head: type, flags, then (spec, 2x40 bytes)... */
static void build_rule(const uint8_t *d, size_t n, struct sroce_flow_rule *r)
{
	static const uint32_t specs[] = { 0x20, 0x30, 0x31, 0x40, 0x41, 0x50 };
	size_t off = 2;
	int err;

	if (n < 2 || sroce_flow_rule_init(r, d[0] & 3, d[0] >> 2, d[1] & 3))
		sroce_flow_rule_init(r, 0, 0, 0);
	while (off + 81 <= n && off < 4 * 81) {
		err = sroce_flow_rule_add(r, specs[d[off] % 6], d + off + 1,
					  d + off + 41, 40);
		assert(err == 0 || err == -EINVAL || err == -EOPNOTSUPP);
		off += 81;
	}
	assert(!((r->val.layers & SROCE_FLOW_L_IPV4) &&
		 (r->val.layers & SROCE_FLOW_L_IPV6)));
	assert(!((r->val.layers & SROCE_FLOW_L_TCP) &&
		 (r->val.layers & SROCE_FLOW_L_UDP)));
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct sroce_flow_rule r;
	struct sroce_flow_pick p;
	struct sroce_flow_key k;
	uint8_t *frame;
	bool m;

	/* A copy of exactly @size bytes: ASan sees any read beyond. */
	frame = size ? __builtin_malloc(size) : NULL;
	if (size)
		memcpy(frame, data, size);
	if (sroce_flow_parse(frame, size, &k)) {
		assert(size < 14 && k.layers == 0);
		__builtin_free(frame);
		return 0;
	}
	assert(k.layers & SROCE_FLOW_L_ETH);
	assert(!((k.layers & SROCE_FLOW_L_IPV4) &&
		 (k.layers & SROCE_FLOW_L_IPV6)));
	if (k.layers & (SROCE_FLOW_L_TCP | SROCE_FLOW_L_UDP))
		assert(k.layers & (SROCE_FLOW_L_IPV4 | SROCE_FLOW_L_IPV6));
	build_rule(data, size, &r);
	m = sroce_flow_match(&r, &k);
	sroce_flow_pick_init(&p);
	sroce_flow_pick_see(&p, &r, &k);
	if (r.type == SROCE_FLOW_NORMAL)
		assert(sroce_flow_pick_takes(&p, &r, &k) == m);
	if (r.type == SROCE_FLOW_SNIFFER)
		assert(sroce_flow_pick_takes(&p, &r, &k));
	__builtin_free(frame);
	return 0;
}
