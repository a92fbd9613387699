// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * SACK blocks from the network: the first 3 bytes are the ACK's PSN, the
 * rest the block.  Whatever sroce_sack_get() accepts must satisfy every
 * promise the requester relies on, and write back byte for byte.
 */
#include <assert.h>
#include "sack.h"
#include "psn.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	uint8_t out[SROCE_SACK_MAX_BYTES];
	struct sroce_sack s, t;
	uint32_t ack, floor;
	unsigned int i;

	if (size < 3)
		return 0;
	ack = sroce_be_load24(data);
	if (sroce_sack_get(data + 3, size - 3, ack, &s)) {
		assert(s.n == 0);
		return 0;
	}
	assert(s.n >= 1 && s.n <= SROCE_SACK_BLOCKS_MAX);
	floor = sroce_psn_add(ack, 1);
	sroce_sack_init(&t);
	for (i = 0; i < s.n; i++) {
		assert(s.blk[i].start <= SROCE_PSN_MASK && s.blk[i].len);
		assert(sroce_psn_after(s.blk[i].start, floor));
		assert(sroce_psn_sub(sroce_sack_end(&s), ack) < SROCE_PSN_HALF);
		assert(sroce_sack_covers(&s, s.blk[i].start, s.blk[i].len));
		assert(!sroce_sack_covers(&s, floor, 1));
		floor = sroce_psn_add(s.blk[i].start, s.blk[i].len);
		/* Rebuilding from the blocks gives the same blocks. */
		assert(sroce_sack_add(&t, s.blk[i].start, s.blk[i].len));
	}
	assert(t.n == s.n);
	/* Byte for byte, but for the reserved bytes, ignored on receive. */
	assert(sroce_sack_put(out, sizeof(out), &s) == size - 3);
	assert(!memcmp(out, data + 3, 2) && !out[2] && !out[3]);
	assert(!memcmp(out + 4, data + 7, size - 7));
	return 0;
}
