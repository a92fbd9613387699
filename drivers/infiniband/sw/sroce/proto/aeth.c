// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * AETH syndrome encode/decode, the credit and RNR timer code tables, and
 * the mapping of a NAK to the completion status the requester reports.
 */
#include "aeth.h"

#define SROCE_AETH_TYPE_SHIFT	5
#define SROCE_AETH_TYPE_MASK	0x3

/* Credit count code -> number of credits (IBTA vol 1 credit table). */
static const uint16_t sroce_aeth_credit_table[SROCE_AETH_CREDIT_MAX + 1] = {
	0, 1, 2, 3, 4, 6, 8, 12, 16, 24, 32, 48, 64, 96, 128, 192,
	256, 384, 512, 768, 1024, 1536, 2048, 3072, 4096, 6144, 8192,
	12288, 16384, 24576, 32768,
};

/*
 * RNR timer code -> microseconds (IBTA vol 1 RNR timer table).  Code 0
 * is the longest delay, not the shortest; codes 1..31 grow monotonically.
 */
static const uint32_t sroce_aeth_rnr_table[32] = {
	655360, 10, 20, 30, 40, 60, 80, 120,
	160, 240, 320, 480, 640, 960, 1280, 1920,
	2560, 3840, 5120, 7680, 10240, 15360, 20480, 30720,
	40960, 61440, 81920, 122880, 163840, 245760, 327680, 491520,
};

static uint8_t sroce_aeth_syn(enum sroce_aeth_type type, uint8_t value)
{
	return (uint8_t)(type << SROCE_AETH_TYPE_SHIFT) |
	       (value & SROCE_AETH_VALUE_MASK);
}

/* Codes above 31 do not fit; they degrade to "no credit information". */
uint8_t sroce_aeth_ack(uint8_t credit_code)
{
	if (credit_code > SROCE_AETH_CREDIT_NONE)
		credit_code = SROCE_AETH_CREDIT_NONE;
	return sroce_aeth_syn(SROCE_AETH_ACK, credit_code);
}

/* timer is an RNR timer code, 0..31 (only the low 5 bits are used). */
uint8_t sroce_aeth_rnr_nak(uint8_t timer)
{
	return sroce_aeth_syn(SROCE_AETH_RNR_NAK, timer);
}

uint8_t sroce_aeth_nak(enum sroce_nak_code code)
{
	return sroce_aeth_syn(SROCE_AETH_NAK, (uint8_t)code);
}

/*
 * Split a syndrome into type and value.  Bit 7 is reserved and ignored.
 * Returns -EINVAL (with *out still filled in) for the reserved type and
 * for NAK codes the spec reserves, so callers can count them.
 */
int sroce_aeth_decode(uint8_t syndrome, struct sroce_aeth *out)
{
	out->type = (syndrome >> SROCE_AETH_TYPE_SHIFT) & SROCE_AETH_TYPE_MASK;
	out->value = syndrome & SROCE_AETH_VALUE_MASK;

	if (out->type == SROCE_AETH_RESERVED)
		return -EINVAL;
	if (out->type == SROCE_AETH_NAK &&
	    out->value > SROCE_NAK_INVALID_RD_REQ)
		return -EINVAL;
	return 0;
}

/* Credits for a code; UINT32_MAX for 31, "no credit information". */
uint32_t sroce_aeth_credits(uint8_t credit_code)
{
	if (credit_code > SROCE_AETH_CREDIT_MAX)
		return 0xffffffffu;
	return sroce_aeth_credit_table[credit_code];
}

/*
 * Code to advertise for a number of free receive WQEs: the largest one
 * that does not promise more than we have, since the requester may send
 * that many messages without waiting.
 */
uint8_t sroce_aeth_credit_code(uint32_t credits)
{
	uint8_t code = SROCE_AETH_CREDIT_MAX;

	while (sroce_aeth_credit_table[code] > credits)
		code--;
	return code;
}

uint32_t sroce_aeth_rnr_usec(uint8_t timer)
{
	return sroce_aeth_rnr_table[timer & SROCE_AETH_VALUE_MASK];
}

/*
 * Smallest RNR timer code whose delay is at least usec, so a responder
 * never asks for a shorter back-off than it needs.  Beyond the largest
 * of codes 1..31 only code 0 (655.36 ms) is left.
 */
uint8_t sroce_aeth_rnr_timer(uint32_t usec)
{
	uint8_t code;

	for (code = 1; code < SROCE_ARRAY_SIZE(sroce_aeth_rnr_table); code++)
		if (sroce_aeth_rnr_table[code] >= usec)
			return code;
	return 0;
}

/*
 * Completion status a requester reports for a response with this
 * syndrome.  For a PSN sequence error NAK and an RNR NAK the requester
 * retries first; the status given is the one it reports once the retry
 * budget (retry_cnt / rnr_retry) is exhausted.  Reserved syndromes are
 * a broken responder: BAD_RESP_ERR.
 */
enum sroce_wc_status sroce_aeth_nak_to_wc_status(uint8_t syndrome)
{
	static const uint8_t nak_status[] = {
		[SROCE_NAK_PSN_SEQ_ERR] = SROCE_WC_RETRY_EXC_ERR,
		[SROCE_NAK_INVALID_REQ] = SROCE_WC_REM_INV_REQ_ERR,
		[SROCE_NAK_REM_ACCESS] = SROCE_WC_REM_ACCESS_ERR,
		[SROCE_NAK_REM_OP_ERR] = SROCE_WC_REM_OP_ERR,
		[SROCE_NAK_INVALID_RD_REQ] = SROCE_WC_REM_INV_RD_REQ_ERR,
	};
	struct sroce_aeth a;

	if (sroce_aeth_decode(syndrome, &a))
		return SROCE_WC_BAD_RESP_ERR;
	switch (a.type) {
	case SROCE_AETH_ACK:
		return SROCE_WC_SUCCESS;
	case SROCE_AETH_RNR_NAK:
		return SROCE_WC_RNR_RETRY_EXC_ERR;
	default:
		return (enum sroce_wc_status)nak_status[a.value];
	}
}
