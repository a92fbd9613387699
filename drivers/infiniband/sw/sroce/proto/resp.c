// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * Responder decisions kept out of line and pure, so that they can be
 * tested exhaustively: PSN classification around the 24-bit wrap,
 * whether a SEND's next packet still fits, and whether an ATOMIC WRITE's
 * headers describe what the operation can be.
 */
#include "resp.h"
#include "psn.h"
#include "wire.h"

/*
 * Both arguments are taken modulo 2^24 (bits above are ignored), so a
 * caller holding an unmasked counter cannot misclassify.  The distance
 * psn - ePSN = -2^23 counts as a duplicate: it is exactly half the space
 * behind, which the spec assigns to the duplicate region.
 */
enum sroce_resp_psn_class sroce_resp_classify_psn(uint32_t epsn,
						  uint32_t psn)
{
	int32_t d = sroce_psn_diff(psn, epsn);

	if (d == 0)
		return SROCE_RESP_PSN_NEW;
	return d < 0 ? SROCE_RESP_PSN_DUPLICATE : SROCE_RESP_PSN_OUT_OF_SEQ;
}

/*
 * A SEND whose next @len bytes, after the @offset it has placed, would
 * overrun its receive WQE (@wqe_len bytes in its SGEs) or make the
 * message longer than 2^31 bytes.  The sum is 64-bit: the responder's
 * offset is 32-bit and a 32-bit sum would wrap at 4 GiB, back inside a
 * WQE whose SGEs hold more (G17 in Documentation/security.rst).
 */
bool sroce_resp_send_overruns(uint32_t offset, uint32_t len,
			      uint64_t wqe_len)
{
	uint64_t end = (uint64_t)offset + len;

	return end > wqe_len || end > SROCE_MSG_MAX;
}

/*
 * An ATOMIC WRITE stores exactly 8 bytes at a naturally aligned address
 * in one access: the RETH must say 8, the packet must carry 8, and the
 * address must be aligned, or the request is invalid (the parser only
 * knows that the opcode has a payload).  Access rights are the caller's.
 */
bool sroce_resp_atomic_write_ok(uint64_t va, uint32_t dma_len,
				size_t payload_len)
{
	return dma_len == SROCE_ATOMIC_WRITE_BYTES &&
	       payload_len == SROCE_ATOMIC_WRITE_BYTES &&
	       !(va & (SROCE_ATOMIC_WRITE_BYTES - 1));
}
