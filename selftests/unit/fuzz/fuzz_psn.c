// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/* PSN arithmetic and responder classification properties. */
#include <assert.h>
#include "psn.h"
#include "resp.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static void check(uint32_t a, uint32_t b, uint32_t n)
{
	int32_t d = sroce_psn_diff(a, b);
	enum sroce_resp_psn_class c = sroce_resp_classify_psn(b, a);

	assert(d >= -0x800000 && d < 0x800000);
	assert(sroce_psn_add(b, (uint32_t)d) == sroce_psn_mask(a));
	assert(sroce_psn_sub(a, (uint32_t)d) == sroce_psn_mask(b));
	assert(sroce_psn_diff(sroce_psn_add(a, n), sroce_psn_add(b, n)) == d);
	if (d != -0x800000)
		assert(sroce_psn_diff(b, a) == -d);
	assert(sroce_psn_before(a, b) == (d < 0));
	assert(sroce_psn_after(a, b) == (d > 0));
	assert(sroce_psn_before_eq(a, b) == !sroce_psn_after(a, b));
	assert(c == (d == 0 ? SROCE_RESP_PSN_NEW : d < 0 ?
		     SROCE_RESP_PSN_DUPLICATE : SROCE_RESP_PSN_OUT_OF_SEQ));
	assert(sroce_psn_in_window(a, b, n) ==
	       (((a - b) & SROCE_PSN_MASK) < n));
	assert(sroce_psn_in_window(sroce_psn_add(b, n & 0xffff), b,
				   (n & 0xffff) + 1));
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	size_t i;

	for (i = 0; i + 12 <= size; i += 12)
		check(sroce_be_load32(data + i), sroce_be_load32(data + i + 4),
		      sroce_be_load32(data + i + 8));
	return 0;
}
