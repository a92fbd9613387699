// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * DCQCN's reaction point fed whatever a network and a clock can produce,
 * 8 bytes an event (a CNP with any rate, bytes sent, a tick, a new
 * period; any step of the clock, back too): the rate stays 0 or within
 * its bounds, alpha at most 1, and nothing overflows (UBSan).
 */
#include <assert.h>
#include "dcqcn.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct sroce_dcqcn d;
	uint64_t now = 1ULL << 40;
	size_t i;

	sroce_dcqcn_init(&d, 1000000, now);
	for (i = 0; i + 8 <= size; i += 8) {
		const uint8_t *p = data + i;
		uint32_t v = sroce_be_load32(p + 4);
		int32_t step = (int32_t)(sroce_be_load16(p + 1) << 8 | p[3]);

		/* The clock mostly goes on, by up to 2^31 ns; now and then back. */
		now += (uint64_t)(int64_t)(step - (p[0] & 0x80 ? 0x800000 : 0)) *
		       (1ULL << (p[0] & 7));
		switch ((p[0] >> 3) & 3) {
		case 0:
			sroce_dcqcn_cnp(&d, (uint64_t)v << (p[0] & 7), now);
			break;
		case 1:
			sroce_dcqcn_sent(&d, v, now);
			break;
		case 2:
			sroce_dcqcn_tick(&d, now);
			break;
		default:
			sroce_dcqcn_set_period(&d, (uint64_t)v << (p[0] & 7));
			break;
		}
		assert(!d.rate || (d.rate >= SROCE_DCQCN_MIN_PPS &&
				   d.rate <= 1ULL << 40));
		assert(d.alpha <= SROCE_DCQCN_ONE);
		assert(d.period_ns >= SROCE_DCQCN_PERIOD_MIN_NS);
	}
	return 0;
}
