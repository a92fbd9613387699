// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/* AETH syndrome encoding, code tables and the NAK -> WC status map. */
#include "tap.h"
#include "aeth.h"

#if __has_include(<infiniband/verbs.h>)
#include <infiniband/verbs.h>
#define HAVE_IBV 1
#endif

static void test_encode(void)
{
	is(sroce_aeth_ack(0), 0x00, "ACK, 0 credits");
	is(sroce_aeth_ack(17), 0x11, "ACK, credit code 17");
	is(sroce_aeth_ack(SROCE_AETH_CREDIT_NONE), 0x1f,
	   "ACK, no credit information");
	is(sroce_aeth_ack(200), 0x1f, "oversized credit code -> 'none'");
	is(sroce_aeth_rnr_nak(0), 0x20, "RNR NAK, timer 0 (655.36 ms)");
	is(sroce_aeth_rnr_nak(14), 0x2e, "RNR NAK, timer 14");
	is(sroce_aeth_rnr_nak(31), 0x3f, "RNR NAK, timer 31");
	is(sroce_aeth_nak(SROCE_NAK_PSN_SEQ_ERR), 0x60, "NAK PSN seq error");
	is(sroce_aeth_nak(SROCE_NAK_INVALID_REQ), 0x61, "NAK invalid req");
	is(sroce_aeth_nak(SROCE_NAK_REM_ACCESS), 0x62, "NAK remote access");
	is(sroce_aeth_nak(SROCE_NAK_REM_OP_ERR), 0x63, "NAK remote op error");
	is(sroce_aeth_nak(SROCE_NAK_INVALID_RD_REQ), 0x64,
	   "NAK invalid RD request");
}

static void test_decode_all(void)
{
	unsigned int s, bad = 0, rejected = 0;

	for (s = 0; s < 256; s++) {
		struct sroce_aeth a;
		unsigned int t = (s >> 5) & 3, v = s & 31;
		bool want_err = t == 2 || (t == 3 && v > 4);
		int err = sroce_aeth_decode((uint8_t)s, &a);

		if (a.type != t || a.value != v || (err != 0) != want_err ||
		    (err && err != -EINVAL))
			bad++;
		if (err)
			rejected++;
		/* Valid syndromes re-encode to themselves minus bit 7. */
		if (!err) {
			uint8_t e = t == 0 ? sroce_aeth_ack(a.value) :
				    t == 1 ? sroce_aeth_rnr_nak(a.value) :
				    sroce_aeth_nak(a.value);
			if (e != (s & 0x7f))
				bad++;
		}
	}
	is(bad, 0, "decode/re-encode of all 256 syndromes");
	is(rejected, 2 * (32 + 27), "reserved type and NAK codes 5..31 "
	   "rejected (bit 7 ignored)");
}

static void test_credits(void)
{
	uint32_t c, bad = 0;

	is(sroce_aeth_credits(0), 0, "credit code 0");
	is(sroce_aeth_credits(5), 6, "credit code 5 -> 6");
	is(sroce_aeth_credits(13), 96, "credit code 13 -> 96");
	is(sroce_aeth_credits(30), 32768, "credit code 30 -> 32768");
	is(sroce_aeth_credits(31), UINT32_MAX, "credit code 31 is 'none'");
	is(sroce_aeth_credit_code(0), 0, "0 credits -> code 0");
	is(sroce_aeth_credit_code(5), 4, "5 credits -> code 4 (4)");
	is(sroce_aeth_credit_code(6), 5, "6 credits -> code 5");
	is(sroce_aeth_credit_code(32767), 29, "32767 credits -> code 29");
	is(sroce_aeth_credit_code(1u << 31), 30, "huge -> code 30");
	for (c = 0; c < 70000; c++) {
		uint8_t k = sroce_aeth_credit_code(c);

		if (sroce_aeth_credits(k) > c ||
		    (k < 30 && sroce_aeth_credits(k + 1) <= c))
			bad++;
	}
	is(bad, 0, "credit_code() is the largest code not above credits");
}

static void test_rnr(void)
{
	uint32_t us, bad = 0, k;

	is(sroce_aeth_rnr_usec(0), 655360, "RNR code 0 = 655.36 ms");
	is(sroce_aeth_rnr_usec(1), 10, "RNR code 1 = 0.01 ms");
	is(sroce_aeth_rnr_usec(14), 1280, "RNR code 14 = 1.28 ms");
	is(sroce_aeth_rnr_usec(25), 61440, "RNR code 25 = 61.44 ms");
	is(sroce_aeth_rnr_usec(31), 491520, "RNR code 31 = 491.52 ms");
	for (k = 2; k < 32; k++)
		if (sroce_aeth_rnr_usec(k) <= sroce_aeth_rnr_usec(k - 1))
			bad++;
	is(bad, 0, "RNR codes 1..31 strictly increasing");
	is(sroce_aeth_rnr_timer(0), 1, "0 us -> code 1");
	is(sroce_aeth_rnr_timer(11), 2, "11 us -> code 2");
	is(sroce_aeth_rnr_timer(491520), 31, "491520 us -> code 31");
	is(sroce_aeth_rnr_timer(491521), 0, "491521 us -> code 0");
	bad = 0;
	for (us = 0; us < 700000; us += 7) {
		uint8_t t = sroce_aeth_rnr_timer(us);

		if (us <= 491520 && (sroce_aeth_rnr_usec(t) < us ||
				     (t > 1 && sroce_aeth_rnr_usec(t - 1) >= us)))
			bad++;
		if (us > 491520 && t != 0)
			bad++;
	}
	is(bad, 0, "rnr_timer() is the smallest code with delay >= usec");
}

static void test_wc(void)
{
	is(sroce_aeth_nak_to_wc_status(0x1f), SROCE_WC_SUCCESS, "ACK");
	is(sroce_aeth_nak_to_wc_status(0x2e), 13, "RNR -> RNR_RETRY_EXC");
	is(sroce_aeth_nak_to_wc_status(0x60), 12, "seq -> RETRY_EXC");
	is(sroce_aeth_nak_to_wc_status(0x61), 9, "inv req -> REM_INV_REQ");
	is(sroce_aeth_nak_to_wc_status(0x62), 10, "access -> REM_ACCESS");
	is(sroce_aeth_nak_to_wc_status(0x63), 11, "op err -> REM_OP");
	is(sroce_aeth_nak_to_wc_status(0x64), 15, "rd req -> REM_INV_RD_REQ");
	is(sroce_aeth_nak_to_wc_status(0x65), 7, "reserved NAK -> BAD_RESP");
	is(sroce_aeth_nak_to_wc_status(0x40), 7, "reserved type -> BAD_RESP");
	is(sroce_aeth_nak_to_wc_status(0xe2), 10, "bit 7 ignored");
#ifdef HAVE_IBV
	/* libibverbs' ibv_wc_status mirrors the kernel's ib_wc_status. */
#define SAME(x)	((int)SROCE_WC_##x == (int)IBV_WC_##x)
	ok(SAME(SUCCESS) &&
	   SAME(LOC_LEN_ERR) &&
	   SAME(LOC_QP_OP_ERR) &&
	   SAME(LOC_EEC_OP_ERR) &&
	   SAME(LOC_PROT_ERR) &&
	   SAME(WR_FLUSH_ERR) &&
	   SAME(MW_BIND_ERR) &&
	   SAME(BAD_RESP_ERR) &&
	   SAME(LOC_ACCESS_ERR) &&
	   SAME(REM_INV_REQ_ERR) &&
	   SAME(REM_ACCESS_ERR) &&
	   SAME(REM_OP_ERR) &&
	   SAME(RETRY_EXC_ERR) &&
	   SAME(RNR_RETRY_EXC_ERR) &&
	   SAME(LOC_RDD_VIOL_ERR) &&
	   SAME(REM_INV_RD_REQ_ERR) &&
	   SAME(REM_ABORT_ERR) &&
	   SAME(INV_EECN_ERR) &&
	   SAME(INV_EEC_STATE_ERR) &&
	   SAME(FATAL_ERR) &&
	   SAME(RESP_TIMEOUT_ERR) &&
	   SAME(GENERAL_ERR),
	   "sroce_wc_status matches libibverbs ibv_wc_status");
#else
	ok(SROCE_WC_GENERAL_ERR == 21, "sroce_wc_status numbering "
	   "(libibverbs headers absent: spot check only)");
#endif
}

int main(void)
{
	tap_start();
	test_encode();
	test_decode_all();
	test_credits();
	test_rnr();
	test_wc();
	return tap_done();
}
