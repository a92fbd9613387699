// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * AETH decoding and the code tables: every input byte is a syndrome,
 * every 4 bytes a credit count / delay in microseconds.
 */
#include <assert.h>
#include "aeth.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static void check_syndrome(uint8_t s)
{
	struct sroce_aeth a;
	int err = sroce_aeth_decode(s, &a);
	enum sroce_wc_status st = sroce_aeth_nak_to_wc_status(s);
	uint8_t e;

	assert(a.type <= 3 && a.value <= 31);
	if (err) {
		assert(err == -EINVAL && st == SROCE_WC_BAD_RESP_ERR);
		return;
	}
	e = a.type == SROCE_AETH_ACK ? sroce_aeth_ack(a.value) :
	    a.type == SROCE_AETH_RNR_NAK ? sroce_aeth_rnr_nak(a.value) :
	    sroce_aeth_nak((enum sroce_nak_code)a.value);
	assert(e == (s & 0x7f));
	assert((st == SROCE_WC_SUCCESS) == (a.type == SROCE_AETH_ACK));
}

static void check_u32(uint32_t v)
{
	uint8_t c = sroce_aeth_credit_code(v);
	uint8_t t = sroce_aeth_rnr_timer(v);

	assert(c <= SROCE_AETH_CREDIT_MAX && sroce_aeth_credits(c) <= v);
	assert(c == SROCE_AETH_CREDIT_MAX || sroce_aeth_credits(c + 1) > v);
	assert(t <= 31);
	if (t)
		assert(sroce_aeth_rnr_usec(t) >= v &&
		       (t == 1 || sroce_aeth_rnr_usec(t - 1) < v));
	else
		assert(v > sroce_aeth_rnr_usec(31));
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	size_t i;

	for (i = 0; i < size; i++)
		check_syndrome(data[i]);
	for (i = 0; i + 4 <= size; i += 4)
		check_u32(sroce_be_load32(data + i));
	return 0;
}
