// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * Opcode table, parser and builder.  The expected layouts below are
 * restated from the spec independently of proto/wire.c's table.
 */
#include "tap.h"
#include "wire.h"
#include "req.h"
#include "icrc.h"
#include "sack.h"
#include "icrc_vectors.h"

/*
 * hdrs letters, in wire order: X XRCETH, D DETH, R RETH, T AtomicETH,
 * A AETH, K AtomicAckETH, I ImmDt, V IETH, C CNP reserved block.
 */
static const struct exp_op {
	uint8_t op;
	const char *hdrs;
	uint8_t len;		/* BTH + extension headers */
	char payload;		/* 'P' or '-' */
	char pos;		/* F M L O or - */
	char dir;		/* q request, r response, c CNP */
} exp_ops[] = {
	{ 0x00, "", 12, 'P', 'F', 'q' }, { 0x01, "", 12, 'P', 'M', 'q' },
	{ 0x02, "", 12, 'P', 'L', 'q' }, { 0x03, "I", 16, 'P', 'L', 'q' },
	{ 0x04, "", 12, 'P', 'O', 'q' }, { 0x05, "I", 16, 'P', 'O', 'q' },
	{ 0x06, "R", 28, 'P', 'F', 'q' }, { 0x07, "", 12, 'P', 'M', 'q' },
	{ 0x08, "", 12, 'P', 'L', 'q' }, { 0x09, "I", 16, 'P', 'L', 'q' },
	{ 0x0a, "R", 28, 'P', 'O', 'q' }, { 0x0b, "RI", 32, 'P', 'O', 'q' },
	{ 0x0c, "R", 28, '-', 'O', 'q' }, { 0x0d, "A", 16, 'P', 'F', 'r' },
	{ 0x0e, "", 12, 'P', 'M', 'r' }, { 0x0f, "A", 16, 'P', 'L', 'r' },
	{ 0x10, "A", 16, 'P', 'O', 'r' }, { 0x11, "A", 16, '-', 'O', 'r' },
	{ 0x12, "AK", 24, '-', 'O', 'r' }, { 0x13, "T", 40, '-', 'O', 'q' },
	{ 0x14, "T", 40, '-', 'O', 'q' }, { 0x16, "V", 16, 'P', 'L', 'q' },
	{ 0x17, "V", 16, 'P', 'O', 'q' }, { 0x1d, "R", 28, 'P', 'O', 'q' },

	{ 0x20, "", 12, 'P', 'F', 'q' }, { 0x21, "", 12, 'P', 'M', 'q' },
	{ 0x22, "", 12, 'P', 'L', 'q' }, { 0x23, "I", 16, 'P', 'L', 'q' },
	{ 0x24, "", 12, 'P', 'O', 'q' }, { 0x25, "I", 16, 'P', 'O', 'q' },
	{ 0x26, "R", 28, 'P', 'F', 'q' }, { 0x27, "", 12, 'P', 'M', 'q' },
	{ 0x28, "", 12, 'P', 'L', 'q' }, { 0x29, "I", 16, 'P', 'L', 'q' },
	{ 0x2a, "R", 28, 'P', 'O', 'q' }, { 0x2b, "RI", 32, 'P', 'O', 'q' },

	{ 0x64, "D", 20, 'P', 'O', 'q' }, { 0x65, "DI", 24, 'P', 'O', 'q' },

	{ 0x81, "C", 28, '-', '-', 'c' },

	{ 0xa0, "X", 16, 'P', 'F', 'q' }, { 0xa1, "X", 16, 'P', 'M', 'q' },
	{ 0xa2, "X", 16, 'P', 'L', 'q' }, { 0xa3, "XI", 20, 'P', 'L', 'q' },
	{ 0xa4, "X", 16, 'P', 'O', 'q' }, { 0xa5, "XI", 20, 'P', 'O', 'q' },
	{ 0xa6, "XR", 32, 'P', 'F', 'q' }, { 0xa7, "X", 16, 'P', 'M', 'q' },
	{ 0xa8, "X", 16, 'P', 'L', 'q' }, { 0xa9, "XI", 20, 'P', 'L', 'q' },
	{ 0xaa, "XR", 32, 'P', 'O', 'q' }, { 0xab, "XRI", 36, 'P', 'O', 'q' },
	{ 0xac, "XR", 32, '-', 'O', 'q' }, { 0xad, "A", 16, 'P', 'F', 'r' },
	{ 0xae, "", 12, 'P', 'M', 'r' }, { 0xaf, "A", 16, 'P', 'L', 'r' },
	{ 0xb0, "A", 16, 'P', 'O', 'r' }, { 0xb1, "A", 16, '-', 'O', 'r' },
	{ 0xb2, "AK", 24, '-', 'O', 'r' }, { 0xb3, "XT", 44, '-', 'O', 'q' },
	{ 0xb4, "XT", 44, '-', 'O', 'q' }, { 0xb6, "XV", 20, 'P', 'L', 'q' },
	{ 0xb7, "XV", 20, 'P', 'O', 'q' }, { 0xbd, "XR", 32, 'P', 'O', 'q' },
};

#define N_EXP	(ARRAY_SIZE(exp_ops))

static const struct exp_op *find_exp(unsigned int op)
{
	unsigned int i;

	for (i = 0; i < N_EXP; i++)
		if (exp_ops[i].op == op)
			return &exp_ops[i];
	return NULL;
}

static unsigned int letters_len(const char *s)
{
	unsigned int n = 12;

	for (; *s; s++)
		n += strchr("XAIV", *s) ? 4 : *s == 'D' || *s == 'K' ? 8 :
		     *s == 'R' || *s == 'C' ? 16 : *s == 'T' ? 28 : 1000;
	return n;
}

static void test_table(void)
{
	unsigned int op, bad = 0, known = 0;
	static const char pos_ch[] = "-FMLO";

	for (op = 0; op < 256; op++) {
		const struct sroce_opcode_info *oi = sroce_wire_opcode_info(op);
		const struct exp_op *e = find_exp(op);

		if (!e) {
			if (oi || sroce_wire_hdr_len(op)) {
				diag("opcode 0x%02x should be unknown", op);
				bad++;
			}
			continue;
		}
		known++;
		if (!oi) {
			diag("opcode 0x%02x missing", op);
			bad++;
			continue;
		}
		if (oi->hdr_len != e->len || letters_len(e->hdrs) != e->len ||
		    sroce_wire_hdr_len(op) != e->len ||
		    !!(oi->flags & SROCE_OPF_PAYLOAD) != (e->payload == 'P') ||
		    pos_ch[oi->pos] != e->pos ||
		    !!(oi->flags & SROCE_OPF_REQ) != (e->dir == 'q') ||
		    !!(oi->flags & SROCE_OPF_RESP) != (e->dir == 'r') ||
		    strcmp(sroce_wire_opcode_name(op), oi->name)) {
			diag("opcode 0x%02x (%s) layout differs", op, oi->name);
			bad++;
		}
	}
	is(known, 63, "63 opcodes expected (RC 24, UC 12, UD 2, CNP, XRC 24)");
	{
		unsigned int max = 0;

		for (op = 0; op < 256; op++)
			if (sroce_wire_hdr_len(op) > max)
				max = sroce_wire_hdr_len(op);
		is(max, SROCE_MAX_HDR_BYTES, "SROCE_MAX_HDR_BYTES is the "
		   "largest header length");
	}
	is(bad, 0, "every opcode: header length, payload, position, "
	   "direction as per the spec; others unknown");
	ok(!strcmp(sroce_wire_opcode_name(0x04), "RC_SEND_ONLY") &&
	   !strcmp(sroce_wire_opcode_name(0xab),
		   "XRC_RDMA_WRITE_ONLY_WITH_IMMEDIATE") &&
	   !strcmp(sroce_wire_opcode_name(0x40), "UNKNOWN"),
	   "opcode names");
	ok(sroce_wire_opcode_info(0x13)->qpts == SROCE_QPT_RC &&
	   sroce_wire_opcode_info(0x24)->qpts == SROCE_QPT_UC &&
	   sroce_wire_opcode_info(0x64)->qpts == SROCE_QPT_UD &&
	   sroce_wire_opcode_info(0xa4)->qpts == SROCE_QPT_XRC_TGT &&
	   sroce_wire_opcode_info(0xb1)->qpts == SROCE_QPT_XRC_INI &&
	   sroce_wire_opcode_info(0x1d)->qpts == SROCE_QPT_RC &&
	   sroce_wire_opcode_info(0xbd)->qpts == SROCE_QPT_XRC_TGT,
	   "receiving QP types");
}

static void rand_hdr(struct sroce_pkt_hdr *h, uint8_t op)
{
	memset(h, 0, sizeof(*h));
	h->opcode = op;
	h->se = tap_rand() & 1;
	h->migreq = tap_rand() & 1;
	h->pkey = (uint16_t)tap_rand();
	h->fecn = tap_rand() & 1;
	h->becn = tap_rand() & 1;
	h->dest_qpn = tap_rand() & 0xffffff;
	h->ackreq = tap_rand() & 1;
	h->psn = tap_rand() & 0xffffff;
	h->va = tap_rand();
	h->rkey = (uint32_t)tap_rand();
	h->dma_len = (uint32_t)tap_rand();
	h->syndrome = (uint8_t)tap_rand();
	h->msn = tap_rand() & 0xffffff;
	h->swap_add = tap_rand();
	h->compare = tap_rand();
	h->orig = tap_rand();
	h->imm = (uint32_t)tap_rand();
	h->inv_rkey = (uint32_t)tap_rand();
	h->qkey = (uint32_t)tap_rand();
	h->src_qpn = tap_rand() & 0xffffff;
	h->xrc_srqn = tap_rand() & 0xffffff;
}

/* Compare the fields that the opcode carries; all others must be 0. */
static bool same_hdr(const struct sroce_pkt_hdr *in,
		     const struct sroce_pkt_hdr *out, const char *hd)
{
	bool x = strchr(hd, 'X'), d = strchr(hd, 'D'), r = strchr(hd, 'R');
	bool t = strchr(hd, 'T'), a = strchr(hd, 'A'), k = strchr(hd, 'K');
	bool i = strchr(hd, 'I'), v = strchr(hd, 'V');

	return out->opcode == in->opcode && out->se == in->se &&
	       out->migreq == in->migreq && out->pad == in->pad &&
	       out->tver == 0 && out->pkey == in->pkey &&
	       out->fecn == in->fecn && out->becn == in->becn &&
	       out->dest_qpn == in->dest_qpn && out->ackreq == in->ackreq &&
	       out->psn == in->psn &&
	       out->va == (r || t ? in->va : 0) &&
	       out->rkey == (r || t ? in->rkey : 0) &&
	       out->dma_len == (r ? in->dma_len : 0) &&
	       out->syndrome == (a ? in->syndrome : 0) &&
	       out->msn == (a ? in->msn : 0) &&
	       out->swap_add == (t ? in->swap_add : 0) &&
	       out->compare == (t ? in->compare : 0) &&
	       out->orig == (k ? in->orig : 0) &&
	       out->imm == (i ? in->imm : 0) &&
	       out->inv_rkey == (v ? in->inv_rkey : 0) &&
	       out->qkey == (d ? in->qkey : 0) &&
	       out->src_qpn == (d ? in->src_qpn : 0) &&
	       out->xrc_srqn == (x ? in->xrc_srqn : 0);
}

static void test_roundtrip(void)
{
	static const size_t plens[] = { 0, 1, 2, 3, 4, 5, 7, 8, 255, 4096 };
	static uint8_t buf[8192];
	unsigned int i, j, rep, bad = 0, n = 0;

	for (i = 0; i < N_EXP; i++) {
		const struct exp_op *e = &exp_ops[i];

		for (j = 0; j < ARRAY_SIZE(plens); j++) {
			size_t pl = e->payload == 'P' ? plens[j] : 0;

			for (rep = 0; rep < 8; rep++) {
				struct sroce_pkt_hdr in, out;
				size_t hl, len;
				int err;

				rand_hdr(&in, e->op);
				in.pad = sroce_wire_pad(pl);
				memset(buf, 0x5a, sizeof(buf));
				hl = sroce_wire_build(buf, sizeof(buf), &in);
				len = hl + pl + in.pad + 4;
				err = sroce_wire_parse(buf, len, &out);
				n++;
				if (hl != e->len || err ||
				    !same_hdr(&in, &out, e->hdrs) ||
				    out.hdr_len != e->len ||
				    out.payload_len != pl) {
					if (bad++ < 5)
						diag("0x%02x pl %zu: hl %zu "
						     "err %d", e->op, pl, hl,
						     err);
				}
			}
		}
	}
	is(bad, 0, "build -> parse round trip, %u packets over every opcode "
	   "and payload lengths 0..4096", n);
}

/* Hand-made packets: byte offsets straight from the spec layouts. */
static const uint8_t pkt_xrc_cswap[] = {
	0xb3, 0x80, 0x12, 0x34, 0x00, 0xab, 0xcd, 0xef,		/* BTH */
	0x80, 0x00, 0x00, 0x07,
	0x00, 0x12, 0x34, 0x56,					/* XRCETH */
	0x01, 0x02, 0x03, 0x04, 0x05, 0x06, 0x07, 0x08,		/* AtomicETH */
	0x11, 0x22, 0x33, 0x44,
	0xa1, 0xa2, 0xa3, 0xa4, 0xa5, 0xa6, 0xa7, 0xa8,
	0xb1, 0xb2, 0xb3, 0xb4, 0xb5, 0xb6, 0xb7, 0xb8,
	0xde, 0xad, 0xbe, 0xef,					/* ICRC */
};

static const uint8_t pkt_rc_atomic_ack[] = {
	0x12, 0x00, 0xff, 0xff, 0x00, 0x00, 0x00, 0x11,
	0x00, 0x00, 0x00, 0x2a,
	0x00, 0x00, 0x00, 0x05,					/* AETH */
	0xc1, 0xc2, 0xc3, 0xc4, 0xc5, 0xc6, 0xc7, 0xc8,		/* AtomicAck */
	0x00, 0x00, 0x00, 0x00,
};

static const uint8_t pkt_rc_send_only_inv[] = {
	0x17, 0x20, 0xff, 0xff, 0x00, 0x00, 0x00, 0x01,		/* pad 2 */
	0x00, 0x00, 0x00, 0x01,
	0xde, 0xad, 0xbe, 0xef,					/* IETH */
	0x55, 0x66, 0x00, 0x00,					/* 2 + pad */
	0x00, 0x00, 0x00, 0x00,
};

static const uint8_t pkt_rc_write_only_imm[] = {
	0x0b, 0x40, 0xff, 0xff, 0x40, 0x00, 0x00, 0x02,		/* MigReq */
	0x00, 0x00, 0x00, 0x03,
	0x00, 0x00, 0x7f, 0xff, 0x12, 0x34, 0x56, 0x78,		/* RETH */
	0x00, 0x00, 0x10, 0x01, 0x00, 0x00, 0x00, 0x00,
	0x01, 0x02, 0x03, 0x04,					/* ImmDt */
	0x00, 0x00, 0x00, 0x00,
};

static const uint8_t pkt_ud_send_only[] = {
	0x64, 0x00, 0xff, 0xff, 0x00, 0x00, 0x00, 0x01,
	0x00, 0x00, 0x00, 0x00,
	0x80, 0x01, 0x00, 0x00, 0x00, 0x00, 0x00, 0x07,		/* DETH */
	0x61, 0x62, 0x63, 0x64,					/* payload */
	0x00, 0x00, 0x00, 0x00,
};

/* RC ATOMIC_WRITE: RETH with dma_len 8, then the 8 bytes to store. */
static const uint8_t pkt_rc_atomic_write[] = {
	0x1d, 0x00, 0xff, 0xff, 0x00, 0x00, 0x00, 0x33,
	0x80, 0x00, 0x01, 0x00,
	0x00, 0x00, 0x7f, 0xfe, 0xdc, 0xba, 0x98, 0x70,		/* RETH */
	0xab, 0xcd, 0xef, 0x01, 0x00, 0x00, 0x00, 0x08,
	0x11, 0x22, 0x33, 0x44, 0x55, 0x66, 0x77, 0x88,		/* payload */
	0x00, 0x00, 0x00, 0x00,					/* ICRC */
};

/*
 * ATOMIC_WRITE: 12 + 16 header bytes and an 8-byte payload that the
 * parser hands over untouched; a RETH dma_len other than 8 parses as it
 * came (the responder refuses it: test_resp.c).
 */
static void test_atomic_write(void)
{
	struct sroce_pkt_hdr h, h2;
	uint8_t b[64];

	is(sroce_wire_hdr_len(0x1d), SROCE_BTH_BYTES + SROCE_RETH_BYTES,
	   "RC ATOMIC_WRITE headers: BTH + RETH, 28 bytes");
	is(sroce_wire_hdr_len(0xbd), SROCE_BTH_BYTES + SROCE_XRCETH_BYTES +
	   SROCE_RETH_BYTES, "XRC ATOMIC_WRITE headers: + XRCETH, 32 bytes");
	is(sroce_wire_parse(pkt_rc_atomic_write, sizeof(pkt_rc_atomic_write),
			    &h), 0, "RC ATOMIC_WRITE parses");
	ok(h.opcode == 0x1d && h.dest_qpn == 0x33 && h.ackreq &&
	   h.psn == 0x100 && h.va == 0x00007ffedcba9870ull &&
	   h.rkey == 0xabcdef01 && h.dma_len == 8 && h.hdr_len == 28 &&
	   h.payload_len == SROCE_ATOMIC_WRITE_BYTES && !h.pad,
	   "RC ATOMIC_WRITE fields: RETH, 8 payload bytes at offset 28");
	ok(!memcmp(pkt_rc_atomic_write + h.hdr_len,
		   "\x11\x22\x33\x44\x55\x66\x77\x88", 8),
	   "the payload is the bytes as sent");
	memset(b, 0xaa, sizeof(b));
	ok(sroce_wire_build(b, sizeof(b), &h) == 28 &&
	   !memcmp(b, pkt_rc_atomic_write, 28) && b[28] == 0xaa,
	   "RC ATOMIC_WRITE rebuilds byte-identical, nothing past the RETH");

	memcpy(b, pkt_rc_atomic_write, sizeof(pkt_rc_atomic_write));
	b[27] = 0x10;		/* dma_len 16 */
	ok(!sroce_wire_parse(b, sizeof(pkt_rc_atomic_write), &h2) &&
	   h2.dma_len == 16 && h2.payload_len == 8,
	   "a dma_len of 16 parses as it came");
	b[1] = 0x30;		/* pad 3: 5 payload bytes */
	ok(!sroce_wire_parse(b, sizeof(pkt_rc_atomic_write), &h2) &&
	   h2.payload_len == 5, "so does a short payload (pad 3)");
	is(sroce_wire_parse(b, 28 + 4, &h2), -EINVAL,
	   "pad 3 with no payload at all: rejected");
}

static void test_layouts(void)
{
	struct sroce_pkt_hdr h;
	uint8_t b[64];

	is(sroce_wire_parse(pkt_xrc_cswap, sizeof(pkt_xrc_cswap), &h), 0,
	   "XRC COMPARE_SWAP parses");
	ok(h.se && h.pkey == 0x1234 && h.dest_qpn == 0xabcdef && h.ackreq &&
	   h.psn == 7 && h.xrc_srqn == 0x123456 &&
	   h.va == 0x0102030405060708ull && h.rkey == 0x11223344 &&
	   h.swap_add == 0xa1a2a3a4a5a6a7a8ull &&
	   h.compare == 0xb1b2b3b4b5b6b7b8ull && h.payload_len == 0,
	   "XRC COMPARE_SWAP fields");
	ok(sroce_wire_build(b, sizeof(b), &h) == 44 &&
	   !memcmp(b, pkt_xrc_cswap, 44), "XRC COMPARE_SWAP rebuilds "
	   "byte-identical");

	is(sroce_wire_parse(pkt_rc_atomic_ack, sizeof(pkt_rc_atomic_ack),
			    &h), 0, "RC ATOMIC_ACK parses");
	ok(h.dest_qpn == 0x11 && h.psn == 42 && h.syndrome == 0 &&
	   h.msn == 5 && h.orig == 0xc1c2c3c4c5c6c7c8ull,
	   "RC ATOMIC_ACK fields");

	is(sroce_wire_parse(pkt_rc_send_only_inv,
			    sizeof(pkt_rc_send_only_inv), &h), 0,
	   "RC SEND_ONLY_INV parses");
	ok(h.pad == 2 && h.inv_rkey == 0xdeadbeef && h.hdr_len == 16 &&
	   h.payload_len == 2, "RC SEND_ONLY_INV: IETH, payload 2, pad 2");

	is(sroce_wire_parse(pkt_rc_write_only_imm,
			    sizeof(pkt_rc_write_only_imm), &h), 0,
	   "RC WRITE_ONLY_IMM parses");
	ok(h.migreq && !h.se && h.becn && !h.fecn &&
	   h.va == 0x00007fff12345678ull && h.rkey == 0x1001 &&
	   h.dma_len == 0 && h.imm == 0x01020304 && h.payload_len == 0,
	   "RC WRITE_ONLY_IMM: RETH then ImmDt, zero-length write");
	ok(sroce_wire_build(b, sizeof(b), &h) == 32 &&
	   !memcmp(b, pkt_rc_write_only_imm, 32),
	   "RC WRITE_ONLY_IMM rebuilds byte-identical");

	is(sroce_wire_parse(pkt_ud_send_only, sizeof(pkt_ud_send_only), &h),
	   0, "UD SEND_ONLY parses");
	ok(h.qkey == 0x80010000 && h.src_qpn == 7 && h.payload_len == 4 &&
	   h.hdr_len == 20, "UD SEND_ONLY: DETH qkey/src QPN, payload");
}

/* L4 payload (BTH onward) of an ICRC vector. */
static const uint8_t *vec_bth(const struct icrc_vector *v, size_t *len)
{
	size_t ip = v->ipv6 ? 40 : (size_t)(v->pkt[0] & 0xf) * 4;

	*len = v->len - ip - 8;
	return v->pkt + ip + 8;
}

/* The packets built by the independent Python generator. */
static void test_vectors(void)
{
	struct sroce_pkt_hdr h;
	const uint8_t *p;
	size_t len;

	p = vec_bth(&icrc_vectors[0], &len);
	ok(!sroce_wire_parse(p, len, &h) && h.opcode == SROCE_OPCODE_CNP &&
	   h.becn && !h.fecn && h.dest_qpn == 0x118 && h.pkey == 0xffff &&
	   h.psn == 0 && h.payload_len == 0,
	   "ConnectX-4 CNP capture parses");
	p = vec_bth(&icrc_vectors[2], &len);
	ok(!sroce_wire_parse(p, len, &h) && h.opcode == 0x0b && h.se &&
	   h.pad == 1 && h.pkey == 0x8001 && h.fecn && !h.becn &&
	   h.dest_qpn == 0x123456 && h.ackreq && h.psn == 0xfffffe &&
	   h.va == 0x1122334455667788ull && h.rkey == 0xcafebabe &&
	   h.dma_len == 7 && h.imm == 0xdeadbeef && h.payload_len == 7,
	   "generated IPv4 RC WRITE_ONLY_IMM parses");
	p = vec_bth(&icrc_vectors[3], &len);
	ok(!sroce_wire_parse(p, len, &h) && h.opcode == 0x65 && h.se &&
	   h.migreq && h.pad == 3 && h.fecn && h.becn && h.dest_qpn == 1 &&
	   h.psn == 0x100 && h.qkey == 0x80010000 && h.src_qpn == 0xabcdef &&
	   h.imm == 0x01020304 && h.payload_len == 13 && h.hdr_len == 24,
	   "generated IPv6 UD SEND_ONLY_IMM parses");
	p = vec_bth(&icrc_vectors[4], &len);
	ok(!sroce_wire_parse(p, len, &h) && h.opcode == 0x11 &&
	   h.syndrome == 0x1f && h.msn == 0x42 && h.psn == 0x7fffff,
	   "generated IPv6 RC ACK parses");
}

static bool hdr_is_zero(const struct sroce_pkt_hdr *h)
{
	static const struct sroce_pkt_hdr z;

	return !memcmp(h, &z, sizeof(z));
}

static void test_reject(void)
{
	static uint8_t b[128];
	struct sroce_pkt_hdr h;
	unsigned int i, op, bad;
	size_t len;

	bad = 0;
	memcpy(b, pkt_ud_send_only, sizeof(pkt_ud_send_only));
	for (len = 0; len < 16; len++)
		if (sroce_wire_parse(b, len, &h) != -EBADMSG ||
		    !hdr_is_zero(&h))
			bad++;
	is(bad, 0, "lengths 0..15 (< BTH + ICRC) rejected, h zeroed");

	bad = 0;
	for (i = 1; i < 16; i++) {
		memcpy(b, pkt_ud_send_only, sizeof(pkt_ud_send_only));
		b[1] |= i;
		if (sroce_wire_parse(b, sizeof(pkt_ud_send_only), &h) !=
		    -EPROTONOSUPPORT)
			bad++;
	}
	is(bad, 0, "TVer 1..15 rejected");

	bad = 0;
	for (op = 0; op < 256; op++) {
		if (find_exp(op))
			continue;
		memset(b, 0, sizeof(b));
		b[0] = op;
		if (sroce_wire_parse(b, 64, &h) != -EOPNOTSUPP)
			bad++;
	}
	is(bad, 0, "all 193 unknown opcodes (incl. RD) rejected");

	bad = 0;
	for (i = 0; i < N_EXP; i++) {
		const struct exp_op *e = &exp_ops[i];

		memset(b, 0, sizeof(b));
		b[0] = e->op;
		for (len = 16; len < e->len + 4u; len += 4)
			if (sroce_wire_parse(b, len, &h) != -EBADMSG)
				bad++;
		for (len = e->len + 4u; len < e->len + 12u; len++)
			if ((len & 3) &&
			    sroce_wire_parse(b, len, &h) != -EBADMSG)
				bad++;
		if (sroce_wire_parse(b, e->len + 4u, &h))
			bad++;
	}
	is(bad, 0, "every opcode: truncated headers and non-multiple-of-4 "
	   "lengths rejected, exact minimum accepted");

	bad = 0;
	for (i = 0; i < N_EXP; i++) {
		const struct exp_op *e = &exp_ops[i];
		unsigned int pad;

		for (pad = 0; pad < 4; pad++) {
			int want_empty, want_4;

			memset(b, 0, sizeof(b));
			b[0] = e->op;
			b[1] = pad << 4;
			/* rest 0: only pad 0 is consistent */
			want_empty = pad ? -EINVAL : 0;
			/* rest 4: needs a payload-carrying opcode */
			want_4 = e->payload == 'P' ? 0 : -EINVAL;
			if (sroce_wire_parse(b, e->len + 4u, &h) != want_empty ||
			    sroce_wire_parse(b, e->len + 8u, &h) != want_4)
				bad++;
			if (!want_4 && h.payload_len != 4 - pad)
				bad++;
		}
	}
	is(bad, 0, "pad larger than the payload, and payload on opcodes "
	   "without one, rejected");
}

static void test_reserved(void)
{
	struct sroce_pkt_hdr h1, h2;
	uint8_t b[64], r[64];

	memcpy(b, pkt_ud_send_only, sizeof(pkt_ud_send_only));
	b[4] |= 0x3f;		/* BTH resv6a */
	b[8] |= 0x07;		/* BTH resv7, but for sroce's four bits */
	b[16] = 0xff;		/* DETH reserved */
	ok(!sroce_wire_parse(pkt_ud_send_only, sizeof(pkt_ud_send_only),
			     &h1) &&
	   !sroce_wire_parse(b, sizeof(pkt_ud_send_only), &h2) &&
	   !memcmp(&h1, &h2, sizeof(h1)),
	   "reserved BTH/DETH bits are ignored on receive");
	b[8] |= 0x40;
	h1.ext = true;
	ok(!sroce_wire_parse(b, sizeof(pkt_ud_send_only), &h2) &&
	   !memcmp(&h1, &h2, sizeof(h1)),
	   "the extension bit (BTH byte 8, bit 6) sets ext and nothing else");
	b[8] |= SROCE_BTH_NOCRC_OK_BIT;
	h1.nocrc_ok = true;
	ok(!sroce_wire_parse(b, sizeof(pkt_ud_send_only), &h2) &&
	   !memcmp(&h1, &h2, sizeof(h1)),
	   "bit 5 (accepts elided ICRCs) sets nocrc_ok and nothing else");
	b[8] |= SROCE_BTH_NOCRC_BIT;
	h1.nocrc = true;
	ok(!sroce_wire_parse(b, sizeof(pkt_ud_send_only), &h2) &&
	   !memcmp(&h1, &h2, sizeof(h1)),
	   "bit 4 (ICRC elided) sets nocrc and nothing else");
	b[8] |= SROCE_BTH_SEG_OK_BIT;
	h1.seg_ok = true;
	ok(!sroce_wire_parse(b, sizeof(pkt_ud_send_only), &h2) &&
	   !memcmp(&h1, &h2, sizeof(h1)),
	   "bit 3 (takes large segments) sets seg_ok and nothing else");
	memset(r, 0xaa, sizeof(r));
	ok(sroce_wire_build(r, sizeof(r), &h2) == 20 &&
	   r[8] == (SROCE_BTH_EXT_BIT | SROCE_BTH_NOCRC_OK_BIT |
		    SROCE_BTH_NOCRC_BIT | SROCE_BTH_SEG_OK_BIT),
	   "builder writes the four extension bits of byte 8");
	h2.ext = false;
	h2.nocrc_ok = false;
	h2.nocrc = false;
	h2.seg_ok = false;
	memset(r, 0xaa, sizeof(r));
	ok(sroce_wire_build(r, sizeof(r), &h2) == 20 &&
	   !memcmp(r, pkt_ud_send_only, 20) && r[20] == 0xaa,
	   "builder zeroes reserved bits, writes nothing past the headers");

	memcpy(b, pkt_xrc_cswap, sizeof(pkt_xrc_cswap));
	b[12] = 0xff;		/* XRCETH reserved */
	ok(!sroce_wire_parse(b, sizeof(pkt_xrc_cswap), &h1) &&
	   h1.xrc_srqn == 0x123456, "XRCETH reserved byte ignored");

	memcpy(b, icrc_vectors[0].pkt + 28, 32);
	memset(b + 12, 0xee, 16);	/* CNP reserved block */
	memset(r, 0xaa, sizeof(r));
	ok(!sroce_wire_parse(b, 32, &h1) &&
	   sroce_wire_build(r, sizeof(r), &h1) == 28 &&
	   !memcmp(r, icrc_vectors[0].pkt + 28, 28),
	   "CNP reserved block ignored on receive, zeroed on build");
}

static void test_build_errors(void)
{
	struct sroce_pkt_hdr h;
	uint8_t b[64];

	rand_hdr(&h, 0x0b);
	h.pad = 0;
	is(sroce_wire_build(b, 32, &h), 32, "exact capacity is enough");
	is(sroce_wire_build(b, 31, &h), 0, "capacity one short");
	h.pad = 4;
	is(sroce_wire_build(b, 64, &h), 0, "pad 4 refused");
	h.pad = 0;
	h.tver = 1;
	is(sroce_wire_build(b, 64, &h), 0, "TVer 1 refused");
	h.tver = 0;
	h.dest_qpn = 0x1000000;
	is(sroce_wire_build(b, 64, &h), 0, "25-bit QPN refused");
	h.dest_qpn = 1;
	h.psn = 0x1000000;
	is(sroce_wire_build(b, 64, &h), 0, "25-bit PSN refused");
	rand_hdr(&h, 0x11);
	h.pad = 1;
	is(sroce_wire_build(b, 64, &h), 0, "pad on ACK refused");
	h.pad = 0;
	h.msn = 0x1000000;
	is(sroce_wire_build(b, 64, &h), 0, "25-bit MSN refused");
	rand_hdr(&h, 0x64);
	h.src_qpn = 0x1000000;
	is(sroce_wire_build(b, 64, &h), 0, "25-bit DETH src QPN refused");
	rand_hdr(&h, 0xa4);
	h.xrc_srqn = 0x1000000;
	is(sroce_wire_build(b, 64, &h), 0, "25-bit XRC SRQN refused");
	rand_hdr(&h, 0x40);
	is(sroce_wire_build(b, 64, &h), 0, "RD opcode refused");
	rand_hdr(&h, 0x04);
	h.msn = 0xffffffff;	/* no AETH on SEND: ignored */
	is(sroce_wire_build(b, 64, &h), 12, "fields of absent headers ignored");
}

static void test_opcode_for(void)
{
	unsigned int tr, k, p, bad = 0, valid = 0;

	is(sroce_wire_opcode_for(SROCE_TR_RC, SROCE_OPK_SEND, SROCE_POS_FIRST),
	   0x00, "RC SEND first");
	is(sroce_wire_opcode_for(SROCE_TR_RC, SROCE_OPK_SEND_IMM,
				 SROCE_POS_MIDDLE), 0x01,
	   "RC SEND_IMM middle is a plain SEND_MIDDLE");
	is(sroce_wire_opcode_for(SROCE_TR_RC, SROCE_OPK_SEND_IMM,
				 SROCE_POS_LAST), 0x03, "RC SEND_IMM last");
	is(sroce_wire_opcode_for(SROCE_TR_UC, SROCE_OPK_WRITE_IMM,
				 SROCE_POS_FIRST), 0x26,
	   "UC WRITE_IMM first is a plain WRITE_FIRST");
	is(sroce_wire_opcode_for(SROCE_TR_UC, SROCE_OPK_READ_REQ,
				 SROCE_POS_ONLY), -EINVAL, "no UC READ");
	is(sroce_wire_opcode_for(SROCE_TR_UD, SROCE_OPK_SEND, SROCE_POS_FIRST),
	   -EINVAL, "no multi-packet UD");
	is(sroce_wire_opcode_for(SROCE_TR_UD, SROCE_OPK_SEND_IMM,
				 SROCE_POS_ONLY), 0x65, "UD SEND_IMM only");
	is(sroce_wire_opcode_for(SROCE_TR_XRC, SROCE_OPK_WRITE_IMM,
				 SROCE_POS_ONLY), 0xab, "XRC WRITE_IMM only");
	is(sroce_wire_opcode_for(SROCE_TR_XRC, SROCE_OPK_SEND_INV,
				 SROCE_POS_LAST), 0xb6, "XRC SEND_INV last");
	is(sroce_wire_opcode_for(SROCE_TR_CNP, SROCE_OPK_CNP, SROCE_POS_NONE),
	   0x81, "CNP");
	is(sroce_wire_opcode_for(SROCE_TR_RC, SROCE_OPK_CNP, SROCE_POS_NONE),
	   -EINVAL, "CNP only on the CNP transport");
	is(sroce_wire_opcode_for(SROCE_TR_RD, SROCE_OPK_SEND, SROCE_POS_ONLY),
	   -EINVAL, "RD unsupported");
	is(sroce_wire_opcode_for(0x13, SROCE_OPK_SEND, SROCE_POS_ONLY),
	   -EINVAL, "bogus transport value");
	is(sroce_wire_opcode_for(SROCE_TR_RC, SROCE_OPK_ACK, SROCE_POS_FIRST),
	   -EINVAL, "ACK is single-packet");
	is(sroce_wire_opcode_for(SROCE_TR_RC, SROCE_OPK_ATOMIC_WRITE,
				 SROCE_POS_ONLY), 0x1d, "RC ATOMIC_WRITE");
	is(sroce_wire_opcode_for(SROCE_TR_XRC, SROCE_OPK_ATOMIC_WRITE,
				 SROCE_POS_ONLY), 0xbd, "XRC ATOMIC_WRITE");
	is(sroce_wire_opcode_for(SROCE_TR_RC, SROCE_OPK_ATOMIC_WRITE,
				 SROCE_POS_FIRST), -EINVAL,
	   "ATOMIC_WRITE is single-packet");
	is(sroce_wire_opcode_for(SROCE_TR_UC, SROCE_OPK_ATOMIC_WRITE,
				 SROCE_POS_ONLY), -EINVAL, "no UC ATOMIC_WRITE");
	is(sroce_wire_opcode_for(SROCE_TR_UD, SROCE_OPK_ATOMIC_WRITE,
				 SROCE_POS_ONLY), -EINVAL, "no UD ATOMIC_WRITE");

	for (tr = 0; tr < 256; tr += 0x20)
		for (k = 0; k <= SROCE_OPK_COUNT; k++)
			for (p = 0; p <= SROCE_POS_ONLY + 1; p++) {
				int r = sroce_wire_opcode_for(tr, k, p);
				const struct sroce_opcode_info *oi;

				if (r < 0)
					continue;
				valid++;
				oi = sroce_wire_opcode_info(r);
				if (!oi || (r & 0xe0) != (int)tr ||
				    oi->pos != p ||
				    (oi->kind != k && !(p <= SROCE_POS_MIDDLE &&
				     (k == SROCE_OPK_SEND_IMM ||
				      k == SROCE_OPK_SEND_INV ||
				      k == SROCE_OPK_WRITE_IMM))))
					bad++;
			}
	is(bad, 0, "every (transport, kind, position) result is consistent");
	/*
	 * RC: 5 SEND/WRITE kinds x 4 positions, READ_RESP x 4, 6 singles;
	 * UC: 4 kinds x 4 (no SEND_INV); UD: 2; CNP: 1; XRC as RC.
	 */
	is(valid, 30 + 16 + 2 + 1 + 30, "number of valid combinations");
	is(sroce_wire_opcode_for(SROCE_TR_UC, SROCE_OPK_SEND_INV,
				 SROCE_POS_FIRST), -EINVAL,
	   "UC cannot start a SEND_INV it could not finish");
	is(sroce_wire_pad(0), 0, "pad(0)");
	is(sroce_wire_pad(1), 3, "pad(1)");
	is(sroce_wire_pad(2), 2, "pad(2)");
	is(sroce_wire_pad(3), 1, "pad(3)");
	is(sroce_wire_pad(4), 0, "pad(4)");
}

static void test_pmtu(void)
{
	struct sroce_pkt_hdr h = { .opcode = 0x00, .payload_len = 1024 };

	is(sroce_wire_check_pmtu(&h, 1024), 0, "FIRST with PMTU bytes");
	h.payload_len = 1020;
	is(sroce_wire_check_pmtu(&h, 1024), -EMSGSIZE, "short FIRST");
	h.opcode = 0xa7;
	is(sroce_wire_check_pmtu(&h, 1024), -EMSGSIZE, "short XRC MIDDLE");
	h.payload_len = 1028;
	is(sroce_wire_check_pmtu(&h, 1024), -EMSGSIZE, "long MIDDLE");
	h.opcode = 0x0f;
	h.payload_len = 0;
	is(sroce_wire_check_pmtu(&h, 1024), -EMSGSIZE, "empty READ_RESP LAST");
	h.payload_len = 1;
	is(sroce_wire_check_pmtu(&h, 1024), 0, "1-byte LAST");
	h.payload_len = 1025;
	is(sroce_wire_check_pmtu(&h, 1024), -EMSGSIZE, "LAST over PMTU");
	h.opcode = 0x64;
	h.payload_len = 0;
	is(sroce_wire_check_pmtu(&h, 256), 0, "empty UD SEND ONLY");
	h.payload_len = 257;
	is(sroce_wire_check_pmtu(&h, 256), -EMSGSIZE, "UD ONLY over PMTU");
	h.opcode = 0x11;
	h.payload_len = 0;
	is(sroce_wire_check_pmtu(&h, 256), 0, "ACK");
	h.opcode = 0x40;
	is(sroce_wire_check_pmtu(&h, 256), -EOPNOTSUPP, "unknown opcode");

	/* Large segments: pmtu..seg_max for FIRST/MIDDLE, up to it for others. */
	h.opcode = 0x06;	/* RC WRITE FIRST */
	h.payload_len = 1432;
	is(sroce_wire_check_pmtu(&h, 1024), -EMSGSIZE, "1432 FIRST, plain");
	is(sroce_wire_check_seg(&h, 1024, 8192), 0, "1432 FIRST, large");
	h.payload_len = 1020;
	is(sroce_wire_check_seg(&h, 1024, 8192), -EMSGSIZE,
	   "FIRST below the path MTU, large or not");
	h.opcode = 0x07;	/* MIDDLE */
	h.payload_len = 8196;
	is(sroce_wire_check_seg(&h, 1024, 8192), -EMSGSIZE, "MIDDLE over max");
	h.opcode = 0x08;	/* LAST */
	h.payload_len = 0;
	is(sroce_wire_check_seg(&h, 1024, 8192), -EMSGSIZE, "empty LAST");
	h.payload_len = 8192;
	is(sroce_wire_check_seg(&h, 1024, 8192), 0, "LAST of 8192");
	h.opcode = 0x0a;	/* ONLY */
	h.payload_len = 8193;
	is(sroce_wire_check_seg(&h, 1024, 8192), -EMSGSIZE, "ONLY over max");
}

int main(void)
{
	tap_start();
	test_table();
	test_roundtrip();
	test_layouts();
	test_atomic_write();
	test_vectors();
	test_reject();
	test_reserved();
	test_build_errors();
	test_opcode_for();
	test_pmtu();
	return tap_done();
}
