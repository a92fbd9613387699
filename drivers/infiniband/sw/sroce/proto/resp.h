/* SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause */
/*
 * Responder-side classification of a request PSN against the expected
 * PSN (IBTA vol 1 ch. 9.7, the responder's PSN checks).
 */
#ifndef _SROCE_PROTO_RESP_H
#define _SROCE_PROTO_RESP_H

#include "compat.h"

enum sroce_resp_psn_class {
	/* psn == ePSN: the next request, execute it. */
	SROCE_RESP_PSN_NEW = 0,
	/*
	 * psn in the half of the PSN space behind ePSN, [ePSN - 2^23,
	 * ePSN): a retransmission of something already executed; re-ACK
	 * it or replay a read/atomic response, never execute it again.
	 */
	SROCE_RESP_PSN_DUPLICATE,
	/*
	 * psn in the half ahead of ePSN, (ePSN, ePSN + 2^23): packets were
	 * lost; RC answers with one PSN sequence error NAK.
	 */
	SROCE_RESP_PSN_OUT_OF_SEQ,
};

enum sroce_resp_psn_class sroce_resp_classify_psn(uint32_t epsn,
						  uint32_t psn);

/* The longest message, DMA length or bytes sent (IBTA: 2^31 bytes). */
#define SROCE_MSG_MAX		(1U << 31)

bool sroce_resp_send_overruns(uint32_t offset, uint32_t len,
			      uint64_t wqe_len);
bool sroce_resp_atomic_write_ok(uint64_t va, uint32_t dma_len,
				size_t payload_len);

#endif /* _SROCE_PROTO_RESP_H */
