// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * The responder's map of held PSNs (sroce_sack_map): every input is a
 * run of 4-byte steps (hold a range, move the expected PSN, build a
 * SACK), checked against a plain bitmap of what is held.  A SACK may
 * only say PSNs that are held, must go on the wire and back unchanged,
 * and must always say the highest held PSN.
 */
#include <assert.h>
#include "sack.h"
#include "psn.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

#define WIN	4096		/* PSNs the bitmap follows past epsn */

static bool held[WIN];		/* offset from the starting PSN */

static void check_pick(struct sroce_sack_map *m, uint32_t base,
		       uint32_t epsn)
{
	uint8_t buf[SROCE_SACK_MAX_BYTES];
	struct sroce_sack s, r;
	uint32_t i, p, top = 0, off;

	sroce_sack_map_pick(m, epsn, &s);
	for (off = sroce_psn_sub(epsn, base) + 1; off < WIN; off++)
		if (held[off])
			top = off;
	if (!top) {
		assert(s.n == 0);
		return;
	}
	assert(s.n >= 1 && s.n <= SROCE_SACK_BLOCKS_MAX);
	for (i = 0; i < s.n; i++)
		for (p = 0; p < s.blk[i].len; p++) {
			off = sroce_psn_sub(sroce_psn_add(s.blk[i].start, p),
					    base);
			assert(off < WIN && held[off]);
			assert(sroce_psn_after(sroce_psn_add(base, off), epsn));
		}
	assert(sroce_sack_end(&s) == sroce_psn_add(base, top + 1));
	assert(sroce_sack_put(buf, sizeof(buf), &s) == sroce_sack_bytes(&s));
	assert(!sroce_sack_get(buf, sroce_sack_bytes(&s),
			       sroce_psn_sub(epsn, 1), &r) && r.n == s.n);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	static struct sroce_sack_map m;
	uint32_t base, epsn, psn, n, rel;
	size_t i;

	if (size < 3)
		return 0;
	/* Start near the wrap as often as not. */
	base = sroce_be_load24(data);
	epsn = base;
	memset(held, 0, sizeof(held));
	sroce_sack_map_init(&m);
	for (i = 3; i + 4 <= size; i += 4) {
		const uint8_t *op = data + i;

		rel = ((op[1] << 8 | op[2]) % (WIN / 2));
		switch (op[0] % 3) {
		case 0:	/* hold [epsn + rel, + n) */
			n = op[3] % 16;
			psn = sroce_psn_add(epsn, rel);
			if (sroce_psn_sub(psn, base) + n >= WIN)
				break;
			if (sroce_sack_map_add(&m, epsn, psn, n)) {
				uint32_t k;

				assert(rel && n);
				for (k = 0; k < n; k++)
					held[sroce_psn_sub(psn, base) + k] = true;
			} else {
				assert(!rel || !n || m.n == SROCE_SACK_MAP_MAX);
			}
			break;
		case 1:	/* the expected PSN moves on */
			n = op[3] % 64;
			if (sroce_psn_sub(epsn, base) + n < WIN / 2)
				epsn = sroce_psn_add(epsn, n);
			break;
		default:
			check_pick(&m, base, epsn);
			break;
		}
	}
	check_pick(&m, base, epsn);
	return 0;
}
