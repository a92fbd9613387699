// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * Responder PSN classification, exhaustively around the wrap; whether a
 * SEND's next packet fits its WQE and the 2^31-byte limit (G17).
 */
#include "tap.h"
#include "resp.h"

/*
 * Reference written differently from the implementation: count how far
 * behind ePSN the PSN is, modulo 2^24.
 */
static enum sroce_resp_psn_class ref(uint32_t epsn, uint32_t psn)
{
	uint32_t behind = (epsn - psn) & 0xffffff;

	if (behind == 0)
		return SROCE_RESP_PSN_NEW;
	if (behind <= 0x800000)
		return SROCE_RESP_PSN_DUPLICATE;
	return SROCE_RESP_PSN_OUT_OF_SEQ;
}

static void test_points(void)
{
	is(sroce_resp_classify_psn(5, 5), SROCE_RESP_PSN_NEW, "== ePSN");
	is(sroce_resp_classify_psn(5, 4), SROCE_RESP_PSN_DUPLICATE,
	   "one behind");
	is(sroce_resp_classify_psn(5, 6), SROCE_RESP_PSN_OUT_OF_SEQ,
	   "one ahead");
	is(sroce_resp_classify_psn(0, 0xffffff), SROCE_RESP_PSN_DUPLICATE,
	   "ePSN 0: 0xffffff is the previous PSN");
	is(sroce_resp_classify_psn(0xffffff, 0), SROCE_RESP_PSN_OUT_OF_SEQ,
	   "ePSN 0xffffff: 0 is one ahead");
	is(sroce_resp_classify_psn(0, 0x800000), SROCE_RESP_PSN_DUPLICATE,
	   "exactly half behind is a duplicate");
	is(sroce_resp_classify_psn(0, 0x7fffff), SROCE_RESP_PSN_OUT_OF_SEQ,
	   "2^23 - 1 ahead is out of sequence");
	is(sroce_resp_classify_psn(0x800000, 0), SROCE_RESP_PSN_DUPLICATE,
	   "ePSN 2^23: 0 is half behind");
	is(sroce_resp_classify_psn(0x1000005, 0x2000005), SROCE_RESP_PSN_NEW,
	   "bits above 24 ignored");
}

static void test_exhaustive(void)
{
	static const uint32_t epsns[] = { 0, 1, 0x7fffff, 0x800000,
					  0x800001, 0xfffffe, 0xffffff };
	unsigned int i;

	for (i = 0; i < ARRAY_SIZE(epsns); i++) {
		uint32_t e = epsns[i], psn, bad = 0, n[3] = { 0 };

		for (psn = 0; psn < 0x1000000; psn++) {
			enum sroce_resp_psn_class c;

			c = sroce_resp_classify_psn(e, psn);
			if (c != ref(e, psn))
				bad++;
			n[c]++;
		}
		is(bad, 0, "all 2^24 PSNs against ePSN 0x%06x", e);
		ok(n[0] == 1 && n[1] == 0x800000 && n[2] == 0x7fffff,
		   "ePSN 0x%06x: 1 new, 2^23 duplicate, 2^23-1 ahead", e);
	}
}

/*
 * A SEND's bytes so far and its next packet's against its WQE and the
 * message limit.  With a WQE of 8 GiB only the limit counts, and an
 * offset near 4 GiB must not wrap back into the WQE.
 */
static void test_send_overruns(void)
{
	const uint64_t big = 8ULL << 30;

	ok(!sroce_resp_send_overruns(0, 256, 1024), "256 of 1024: fits");
	ok(!sroce_resp_send_overruns(768, 256, 1024),
	   "the last 256 bytes of 1024: fits exactly");
	ok(sroce_resp_send_overruns(769, 256, 1024),
	   "one byte past the WQE: overruns");
	ok(sroce_resp_send_overruns(0, 1, 0), "any byte into an empty WQE");
	ok(!sroce_resp_send_overruns(0, 0, 0), "nothing into an empty WQE");
	ok(!sroce_resp_send_overruns(SROCE_MSG_MAX - 4096, 4096, big),
	   "up to 2^31 bytes in an 8 GiB WQE: fits");
	ok(sroce_resp_send_overruns(SROCE_MSG_MAX - 4096, 4097, big),
	   "one byte beyond 2^31 in an 8 GiB WQE: overruns");
	ok(sroce_resp_send_overruns(SROCE_MSG_MAX, 1, big),
	   "at 2^31 already: overruns");
	ok(sroce_resp_send_overruns(0xffffff00u, 0x200, big),
	   "offset 4 GiB - 256 plus 512 (wraps to 256 in 32 bits): overruns");
	ok(sroce_resp_send_overruns(0xffffffffu, 0xffffffffu, UINT64_MAX),
	   "largest offset and length, unbounded WQE: overruns");
}

int main(void)
{
	tap_start();
	test_points();
	test_exhaustive();
	test_send_overruns();
	return tap_done();
}
