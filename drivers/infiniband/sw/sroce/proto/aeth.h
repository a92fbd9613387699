/* SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause */
/*
 * AETH syndrome encoding (IBTA vol 1 ch. 9, the AETH syndrome table):
 *
 *   bit 7	reserved (0)
 *   bits 6:5	type: 00 ACK, 01 RNR NAK, 10 reserved, 11 NAK
 *   bits 4:0	ACK: credit count code (31 = no credit information)
 *		RNR NAK: RNR timer code (minimum delay before a retry)
 *		NAK: NAK code
 *
 * The AETH's other 24 bits are the MSN, handled by wire.c.
 */
#ifndef _SROCE_PROTO_AETH_H
#define _SROCE_PROTO_AETH_H

#include "compat.h"

enum sroce_aeth_type {
	SROCE_AETH_ACK		= 0,
	SROCE_AETH_RNR_NAK	= 1,
	SROCE_AETH_RESERVED	= 2,
	SROCE_AETH_NAK		= 3,
};

enum sroce_nak_code {
	SROCE_NAK_PSN_SEQ_ERR	= 0,
	SROCE_NAK_INVALID_REQ	= 1,
	SROCE_NAK_REM_ACCESS	= 2,
	SROCE_NAK_REM_OP_ERR	= 3,
	SROCE_NAK_INVALID_RD_REQ = 4,
};

#define SROCE_AETH_VALUE_MASK	0x1f
#define SROCE_AETH_CREDIT_NONE	31	/* credit field not valid */
#define SROCE_AETH_CREDIT_MAX	30	/* largest code with a count */

/*
 * Completion status numbers.  These MUST equal enum ib_wc_status in
 * include/rdma/ib_verbs.h (they are copied into ib_wc.status as is); the
 * kernel side asserts that at compile time.
 */
enum sroce_wc_status {
	SROCE_WC_SUCCESS		= 0,
	SROCE_WC_LOC_LEN_ERR		= 1,
	SROCE_WC_LOC_QP_OP_ERR		= 2,
	SROCE_WC_LOC_EEC_OP_ERR		= 3,
	SROCE_WC_LOC_PROT_ERR		= 4,
	SROCE_WC_WR_FLUSH_ERR		= 5,
	SROCE_WC_MW_BIND_ERR		= 6,
	SROCE_WC_BAD_RESP_ERR		= 7,
	SROCE_WC_LOC_ACCESS_ERR		= 8,
	SROCE_WC_REM_INV_REQ_ERR	= 9,
	SROCE_WC_REM_ACCESS_ERR		= 10,
	SROCE_WC_REM_OP_ERR		= 11,
	SROCE_WC_RETRY_EXC_ERR		= 12,
	SROCE_WC_RNR_RETRY_EXC_ERR	= 13,
	SROCE_WC_LOC_RDD_VIOL_ERR	= 14,
	SROCE_WC_REM_INV_RD_REQ_ERR	= 15,
	SROCE_WC_REM_ABORT_ERR		= 16,
	SROCE_WC_INV_EECN_ERR		= 17,
	SROCE_WC_INV_EEC_STATE_ERR	= 18,
	SROCE_WC_FATAL_ERR		= 19,
	SROCE_WC_RESP_TIMEOUT_ERR	= 20,
	SROCE_WC_GENERAL_ERR		= 21,
};

/* A decoded syndrome. */
struct sroce_aeth {
	uint8_t type;		/* enum sroce_aeth_type */
	uint8_t value;		/* credit code, RNR timer code or NAK code */
};

uint8_t sroce_aeth_ack(uint8_t credit_code);
uint8_t sroce_aeth_rnr_nak(uint8_t timer);
uint8_t sroce_aeth_nak(enum sroce_nak_code code);
int sroce_aeth_decode(uint8_t syndrome, struct sroce_aeth *out);

uint32_t sroce_aeth_credits(uint8_t credit_code);
uint8_t sroce_aeth_credit_code(uint32_t credits);
uint32_t sroce_aeth_rnr_usec(uint8_t timer);
uint8_t sroce_aeth_rnr_timer(uint32_t usec);

enum sroce_wc_status sroce_aeth_nak_to_wc_status(uint8_t syndrome);

#endif /* _SROCE_PROTO_AETH_H */
