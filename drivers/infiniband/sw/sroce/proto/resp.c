// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * Responder PSN classification.  Kept out of line and pure so it can be
 * tested exhaustively around the 24-bit wrap.
 */
#include "resp.h"
#include "psn.h"

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
