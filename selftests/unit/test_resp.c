// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * Responder PSN classification, exhaustively around the wrap; whether a
 * SEND's next packet fits its WQE and the 2^31-byte limit (G17); which
 * ATOMIC WRITE requests are valid.
 */
#include "tap.h"
#include "resp.h"
#include "wire.h"

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

/*
 * ATOMIC WRITE: only dma_len 8, 8 bytes of payload, an aligned address.
 * Every combination of small lengths and the address's low bits, then
 * the extremes.
 */
static void test_atomic_write_ok(void)
{
	unsigned int dma, pl, lo, n = 0, bad = 0;

	for (dma = 0; dma <= 32; dma++)
		for (pl = 0; pl <= 32; pl++)
			for (lo = 0; lo < 16; lo++) {
				bool want = dma == 8 && pl == 8 && !(lo & 7);

				if (sroce_resp_atomic_write_ok(0x1000 + lo, dma,
							       pl) != want)
					bad++;
				n += want;
			}
	is(bad, 0, "dma_len and payload 0..32, address low bits 0..15");
	is(n, 2, "only dma_len 8, payload 8, at offsets 0 and 8 of 16");
	ok(sroce_resp_atomic_write_ok(0, 8, 8), "address 0, aligned");
	ok(sroce_resp_atomic_write_ok(UINT64_MAX - 7, 8, 8),
	   "the last aligned word of the address space");
	ok(!sroce_resp_atomic_write_ok(UINT64_MAX, 8, 8),
	   "the last byte of the address space: misaligned");
	ok(!sroce_resp_atomic_write_ok(0x1000, 0x80000008u, 8),
	   "dma_len 2^31 + 8");
	ok(!sroce_resp_atomic_write_ok(0x1000, UINT32_MAX, 8),
	   "dma_len 2^32 - 1");
	ok(!sroce_resp_atomic_write_ok(0x1000, 8, SIZE_MAX),
	   "a payload length that is not a packet's");
}

/* A packet as the parser leaves it, with a RETH that asks for 16. */
static void test_atomic_write_parsed(void)
{
	struct sroce_pkt_hdr in = {
		.opcode = SROCE_TR_RC | SROCE_OP_ATOMIC_WRITE, .pkey = 0xffff,
		.dest_qpn = 5, .psn = 9, .va = 0x2008, .rkey = 0x1234,
		.dma_len = 8,
	}, out;
	uint8_t b[64] = { 0 };
	size_t hl = sroce_wire_build(b, sizeof(b), &in);

	ok(hl == 28 && !sroce_wire_parse(b, hl + 8 + 4, &out) &&
	   sroce_resp_atomic_write_ok(out.va, out.dma_len, out.payload_len),
	   "built, parsed: a valid ATOMIC WRITE");
	in.dma_len = 16;
	hl = sroce_wire_build(b, sizeof(b), &in);
	ok(!sroce_wire_parse(b, hl + 8 + 4, &out) &&
	   !sroce_resp_atomic_write_ok(out.va, out.dma_len, out.payload_len),
	   "... with a dma_len of 16: invalid");
	in.dma_len = 8;
	hl = sroce_wire_build(b, sizeof(b), &in);
	ok(!sroce_wire_parse(b, hl + 16 + 4, &out) &&
	   !sroce_resp_atomic_write_ok(out.va, out.dma_len, out.payload_len),
	   "... carrying 16 bytes: invalid");
	in.va = 0x2004;
	hl = sroce_wire_build(b, sizeof(b), &in);
	ok(!sroce_wire_parse(b, hl + 8 + 4, &out) &&
	   !sroce_resp_atomic_write_ok(out.va, out.dma_len, out.payload_len),
	   "... at an address 4 bytes off: invalid");
}

int main(void)
{
	tap_start();
	test_points();
	test_exhaustive();
	test_send_overruns();
	test_atomic_write_ok();
	test_atomic_write_parsed();
	return tap_done();
}
