// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * Requester arithmetic properties: segmentation covers a message exactly,
 * READ response checks agree with segmentation, the congestion window
 * stays within its bounds whatever losses and ACKs come.
 */
#include <assert.h>
#include "req.h"
#include "wire.h"
#include "psn.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static const uint32_t mtus[] = { 256, 512, 1024, 2048, 4096 };

static void check_seg(uint64_t len, uint32_t pmtu, uint64_t off)
{
	uint32_t npsn = sroce_seg_npsn(len, pmtu);
	struct sroce_seg s;
	int err;

	assert(npsn >= 1);
	assert((uint64_t)(npsn - 1) * pmtu <= len || len == 0);
	err = sroce_seg_at(len, off, pmtu, &s);
	if (off % pmtu || (off && off >= len)) {
		assert(err == -EINVAL);
		return;
	}
	assert(!err && s.index < npsn && s.len <= pmtu);
	assert(off + s.len <= len);
	assert((s.index + 1 == npsn) ==
	       (s.pos == SROCE_POS_LAST || s.pos == SROCE_POS_ONLY));
	assert((s.index == 0) ==
	       (s.pos == SROCE_POS_FIRST || s.pos == SROCE_POS_ONLY));
	/* What the requester sends, the requester accepts back. */
	assert(sroce_seg_read_resp_ok(len, off, pmtu, s.pos, s.len));
	if (s.len)
		assert(!sroce_seg_read_resp_ok(len, off, pmtu, s.pos,
					       s.len - 1));
}

static void check_cwnd(const uint8_t *p, size_t n)
{
	struct sroce_cwnd c;
	uint32_t una, max;
	size_t i;

	if (n < 3)
		return;
	una = sroce_be_load24(p);
	max = una;
	sroce_cwnd_init(&c, 16, 256, 1024, 8);
	for (i = 3; i + 3 <= n; i += 3) {
		uint32_t v = sroce_be_load24(p + i) & 0xffff;

		switch (p[i] >> 6) {
		case 0:
			max = sroce_psn_add(max, v);
			break;
		case 1:
			v %= sroce_psn_sub(max, una) + 1;
			una = sroce_psn_add(una, v);
			sroce_cwnd_acked(&c, una, v);
			break;
		default:
			sroce_cwnd_loss(&c, una, max);
			break;
		}
		assert(c.cwnd >= c.min && c.cwnd <= c.max);
		assert(c.acc < c.grow_every || c.cwnd == c.max);
		assert(sroce_cwnd_allows(&c, una, max, una, 1, p[i + 1]));
	}
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	if (size < 13)
		return 0;
	check_seg(sroce_be_load64(data) & 0xfffffffffULL,
		  mtus[data[8] % 5],
		  (uint64_t)sroce_be_load32(data + 9) * (data[8] & 0x80 ? 1 : 256));
	check_cwnd(data + 13, size - 13);
	return 0;
}
