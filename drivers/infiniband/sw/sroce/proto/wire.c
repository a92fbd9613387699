// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * RoCEv2 transport header table, parser and builder.
 *
 * The parser is the first thing that touches bytes from the network, so
 * it checks every length before it reads and leaves the parsed header
 * zeroed on failure.  The builder writes every byte of the headers it
 * emits (reserved fields as zero) so no stale buffer content leaks out.
 */
#include "wire.h"
#include "icrc.h"
#include "sack.h"
#include "req.h"

#define HLEN(hd)							\
	(SROCE_BTH_BYTES +						\
	 ((hd) & SROCE_HDR_XRCETH ? SROCE_XRCETH_BYTES : 0) +		\
	 ((hd) & SROCE_HDR_DETH ? SROCE_DETH_BYTES : 0) +		\
	 ((hd) & SROCE_HDR_RETH ? SROCE_RETH_BYTES : 0) +		\
	 ((hd) & SROCE_HDR_ATMETH ? SROCE_ATMETH_BYTES : 0) +		\
	 ((hd) & SROCE_HDR_AETH ? SROCE_AETH_BYTES : 0) +		\
	 ((hd) & SROCE_HDR_ATMACK ? SROCE_ATMACK_BYTES : 0) +		\
	 ((hd) & SROCE_HDR_IMMDT ? SROCE_IMMDT_BYTES : 0) +		\
	 ((hd) & SROCE_HDR_IETH ? SROCE_IETH_BYTES : 0) +		\
	 ((hd) & SROCE_HDR_CNP_RSVD ? SROCE_CNP_RSVD_BYTES : 0))

/*
 * One opcode table entry.  tr and op are combined into the index; the
 * short names below exist only to keep the table readable.
 */
#define OPC(tr, op, nm, k, p, f, hd, q)					\
	[SROCE_TR_##tr | SROCE_OP_##op] = {				\
		.name = nm, .hdrs = (hd), .hdr_len = HLEN(hd),		\
		.flags = (f), .pos = SROCE_POS_##p,			\
		.kind = SROCE_OPK_##k, .qpts = (q),			\
	}

#define REQ		SROCE_OPF_REQ
#define REQ_P		(SROCE_OPF_REQ | SROCE_OPF_PAYLOAD)
#define RSP		SROCE_OPF_RESP
#define RSP_P		(SROCE_OPF_RESP | SROCE_OPF_PAYLOAD)
#define XRCETH		SROCE_HDR_XRCETH
#define DETH		SROCE_HDR_DETH
#define RETH		SROCE_HDR_RETH
#define ATMETH		SROCE_HDR_ATMETH
#define AETH		SROCE_HDR_AETH
#define ATMACK		SROCE_HDR_ATMACK
#define IMM		SROCE_HDR_IMMDT
#define IETH		SROCE_HDR_IETH
#define CNP_RSVD	SROCE_HDR_CNP_RSVD
#define Q_RC		SROCE_QPT_RC
#define Q_UC		SROCE_QPT_UC
#define Q_UD		SROCE_QPT_UD
#define Q_XINI		SROCE_QPT_XRC_INI
#define Q_XTGT		SROCE_QPT_XRC_TGT
#define Q_ALL		(Q_RC | Q_UC | Q_UD | Q_XINI | Q_XTGT)

static const struct sroce_opcode_info sroce_opcodes[256] = {
	/* RC */
	OPC(RC, SEND_FIRST, "RC_SEND_FIRST",
	    SEND, FIRST, REQ_P, 0, Q_RC),
	OPC(RC, SEND_MIDDLE, "RC_SEND_MIDDLE",
	    SEND, MIDDLE, REQ_P, 0, Q_RC),
	OPC(RC, SEND_LAST, "RC_SEND_LAST",
	    SEND, LAST, REQ_P, 0, Q_RC),
	OPC(RC, SEND_LAST_IMM, "RC_SEND_LAST_WITH_IMMEDIATE",
	    SEND_IMM, LAST, REQ_P, IMM, Q_RC),
	OPC(RC, SEND_ONLY, "RC_SEND_ONLY",
	    SEND, ONLY, REQ_P, 0, Q_RC),
	OPC(RC, SEND_ONLY_IMM, "RC_SEND_ONLY_WITH_IMMEDIATE",
	    SEND_IMM, ONLY, REQ_P, IMM, Q_RC),
	OPC(RC, WRITE_FIRST, "RC_RDMA_WRITE_FIRST",
	    WRITE, FIRST, REQ_P, RETH, Q_RC),
	OPC(RC, WRITE_MIDDLE, "RC_RDMA_WRITE_MIDDLE",
	    WRITE, MIDDLE, REQ_P, 0, Q_RC),
	OPC(RC, WRITE_LAST, "RC_RDMA_WRITE_LAST",
	    WRITE, LAST, REQ_P, 0, Q_RC),
	OPC(RC, WRITE_LAST_IMM, "RC_RDMA_WRITE_LAST_WITH_IMMEDIATE",
	    WRITE_IMM, LAST, REQ_P, IMM, Q_RC),
	OPC(RC, WRITE_ONLY, "RC_RDMA_WRITE_ONLY",
	    WRITE, ONLY, REQ_P, RETH, Q_RC),
	OPC(RC, WRITE_ONLY_IMM, "RC_RDMA_WRITE_ONLY_WITH_IMMEDIATE",
	    WRITE_IMM, ONLY, REQ_P, RETH | IMM, Q_RC),
	OPC(RC, READ_REQ, "RC_RDMA_READ_REQUEST",
	    READ_REQ, ONLY, REQ, RETH, Q_RC),
	OPC(RC, READ_RESP_FIRST, "RC_RDMA_READ_RESPONSE_FIRST",
	    READ_RESP, FIRST, RSP_P, AETH, Q_RC),
	OPC(RC, READ_RESP_MIDDLE, "RC_RDMA_READ_RESPONSE_MIDDLE",
	    READ_RESP, MIDDLE, RSP_P, 0, Q_RC),
	OPC(RC, READ_RESP_LAST, "RC_RDMA_READ_RESPONSE_LAST",
	    READ_RESP, LAST, RSP_P, AETH, Q_RC),
	OPC(RC, READ_RESP_ONLY, "RC_RDMA_READ_RESPONSE_ONLY",
	    READ_RESP, ONLY, RSP_P, AETH, Q_RC),
	OPC(RC, ACK, "RC_ACKNOWLEDGE",
	    ACK, ONLY, RSP, AETH, Q_RC),
	OPC(RC, ATOMIC_ACK, "RC_ATOMIC_ACKNOWLEDGE",
	    ATOMIC_ACK, ONLY, RSP, AETH | ATMACK, Q_RC),
	OPC(RC, CMP_SWAP, "RC_COMPARE_SWAP",
	    CMP_SWAP, ONLY, REQ, ATMETH, Q_RC),
	OPC(RC, FETCH_ADD, "RC_FETCH_ADD",
	    FETCH_ADD, ONLY, REQ, ATMETH, Q_RC),
	OPC(RC, SEND_LAST_INV, "RC_SEND_LAST_WITH_INVALIDATE",
	    SEND_INV, LAST, REQ_P, IETH, Q_RC),
	OPC(RC, SEND_ONLY_INV, "RC_SEND_ONLY_WITH_INVALIDATE",
	    SEND_INV, ONLY, REQ_P, IETH, Q_RC),
	/* The payload is the 8 bytes to store, RETH dma_len says 8. */
	OPC(RC, ATOMIC_WRITE, "RC_ATOMIC_WRITE",
	    ATOMIC_WRITE, ONLY, REQ_P, RETH, Q_RC),

	/* UC: no reads, atomics or invalidates */
	OPC(UC, SEND_FIRST, "UC_SEND_FIRST",
	    SEND, FIRST, REQ_P, 0, Q_UC),
	OPC(UC, SEND_MIDDLE, "UC_SEND_MIDDLE",
	    SEND, MIDDLE, REQ_P, 0, Q_UC),
	OPC(UC, SEND_LAST, "UC_SEND_LAST",
	    SEND, LAST, REQ_P, 0, Q_UC),
	OPC(UC, SEND_LAST_IMM, "UC_SEND_LAST_WITH_IMMEDIATE",
	    SEND_IMM, LAST, REQ_P, IMM, Q_UC),
	OPC(UC, SEND_ONLY, "UC_SEND_ONLY",
	    SEND, ONLY, REQ_P, 0, Q_UC),
	OPC(UC, SEND_ONLY_IMM, "UC_SEND_ONLY_WITH_IMMEDIATE",
	    SEND_IMM, ONLY, REQ_P, IMM, Q_UC),
	OPC(UC, WRITE_FIRST, "UC_RDMA_WRITE_FIRST",
	    WRITE, FIRST, REQ_P, RETH, Q_UC),
	OPC(UC, WRITE_MIDDLE, "UC_RDMA_WRITE_MIDDLE",
	    WRITE, MIDDLE, REQ_P, 0, Q_UC),
	OPC(UC, WRITE_LAST, "UC_RDMA_WRITE_LAST",
	    WRITE, LAST, REQ_P, 0, Q_UC),
	OPC(UC, WRITE_LAST_IMM, "UC_RDMA_WRITE_LAST_WITH_IMMEDIATE",
	    WRITE_IMM, LAST, REQ_P, IMM, Q_UC),
	OPC(UC, WRITE_ONLY, "UC_RDMA_WRITE_ONLY",
	    WRITE, ONLY, REQ_P, RETH, Q_UC),
	OPC(UC, WRITE_ONLY_IMM, "UC_RDMA_WRITE_ONLY_WITH_IMMEDIATE",
	    WRITE_IMM, ONLY, REQ_P, RETH | IMM, Q_UC),

	/* UD: single-packet SENDs with a DETH */
	OPC(UD, SEND_ONLY, "UD_SEND_ONLY",
	    SEND, ONLY, REQ_P, DETH, Q_UD),
	OPC(UD, SEND_ONLY_IMM, "UD_SEND_ONLY_WITH_IMMEDIATE",
	    SEND_IMM, ONLY, REQ_P, DETH | IMM, Q_UD),

	/*
	 * A CNP is addressed to whichever QP sent the ECN-marked packet;
	 * it is consumed by congestion control, not by the QP state machine.
	 */
	OPC(CNP, CNP, "CNP", CNP, NONE, 0, CNP_RSVD, Q_ALL),

	/*
	 * XRC: requests carry an XRCETH right after the BTH and go to an XRC
	 * target QP; responses go back to the initiator QP and have none.
	 */
	OPC(XRC, SEND_FIRST, "XRC_SEND_FIRST",
	    SEND, FIRST, REQ_P, XRCETH, Q_XTGT),
	OPC(XRC, SEND_MIDDLE, "XRC_SEND_MIDDLE",
	    SEND, MIDDLE, REQ_P, XRCETH, Q_XTGT),
	OPC(XRC, SEND_LAST, "XRC_SEND_LAST",
	    SEND, LAST, REQ_P, XRCETH, Q_XTGT),
	OPC(XRC, SEND_LAST_IMM, "XRC_SEND_LAST_WITH_IMMEDIATE",
	    SEND_IMM, LAST, REQ_P, XRCETH | IMM, Q_XTGT),
	OPC(XRC, SEND_ONLY, "XRC_SEND_ONLY",
	    SEND, ONLY, REQ_P, XRCETH, Q_XTGT),
	OPC(XRC, SEND_ONLY_IMM, "XRC_SEND_ONLY_WITH_IMMEDIATE",
	    SEND_IMM, ONLY, REQ_P, XRCETH | IMM, Q_XTGT),
	OPC(XRC, WRITE_FIRST, "XRC_RDMA_WRITE_FIRST",
	    WRITE, FIRST, REQ_P, XRCETH | RETH, Q_XTGT),
	OPC(XRC, WRITE_MIDDLE, "XRC_RDMA_WRITE_MIDDLE",
	    WRITE, MIDDLE, REQ_P, XRCETH, Q_XTGT),
	OPC(XRC, WRITE_LAST, "XRC_RDMA_WRITE_LAST",
	    WRITE, LAST, REQ_P, XRCETH, Q_XTGT),
	OPC(XRC, WRITE_LAST_IMM, "XRC_RDMA_WRITE_LAST_WITH_IMMEDIATE",
	    WRITE_IMM, LAST, REQ_P, XRCETH | IMM, Q_XTGT),
	OPC(XRC, WRITE_ONLY, "XRC_RDMA_WRITE_ONLY",
	    WRITE, ONLY, REQ_P, XRCETH | RETH, Q_XTGT),
	OPC(XRC, WRITE_ONLY_IMM, "XRC_RDMA_WRITE_ONLY_WITH_IMMEDIATE",
	    WRITE_IMM, ONLY, REQ_P, XRCETH | RETH | IMM, Q_XTGT),
	OPC(XRC, READ_REQ, "XRC_RDMA_READ_REQUEST",
	    READ_REQ, ONLY, REQ, XRCETH | RETH, Q_XTGT),
	OPC(XRC, READ_RESP_FIRST, "XRC_RDMA_READ_RESPONSE_FIRST",
	    READ_RESP, FIRST, RSP_P, AETH, Q_XINI),
	OPC(XRC, READ_RESP_MIDDLE, "XRC_RDMA_READ_RESPONSE_MIDDLE",
	    READ_RESP, MIDDLE, RSP_P, 0, Q_XINI),
	OPC(XRC, READ_RESP_LAST, "XRC_RDMA_READ_RESPONSE_LAST",
	    READ_RESP, LAST, RSP_P, AETH, Q_XINI),
	OPC(XRC, READ_RESP_ONLY, "XRC_RDMA_READ_RESPONSE_ONLY",
	    READ_RESP, ONLY, RSP_P, AETH, Q_XINI),
	OPC(XRC, ACK, "XRC_ACKNOWLEDGE",
	    ACK, ONLY, RSP, AETH, Q_XINI),
	OPC(XRC, ATOMIC_ACK, "XRC_ATOMIC_ACKNOWLEDGE",
	    ATOMIC_ACK, ONLY, RSP, AETH | ATMACK, Q_XINI),
	OPC(XRC, CMP_SWAP, "XRC_COMPARE_SWAP",
	    CMP_SWAP, ONLY, REQ, XRCETH | ATMETH, Q_XTGT),
	OPC(XRC, FETCH_ADD, "XRC_FETCH_ADD",
	    FETCH_ADD, ONLY, REQ, XRCETH | ATMETH, Q_XTGT),
	OPC(XRC, SEND_LAST_INV, "XRC_SEND_LAST_WITH_INVALIDATE",
	    SEND_INV, LAST, REQ_P, XRCETH | IETH, Q_XTGT),
	OPC(XRC, SEND_ONLY_INV, "XRC_SEND_ONLY_WITH_INVALIDATE",
	    SEND_INV, ONLY, REQ_P, XRCETH | IETH, Q_XTGT),
	OPC(XRC, ATOMIC_WRITE, "XRC_ATOMIC_WRITE",
	    ATOMIC_WRITE, ONLY, REQ_P, XRCETH | RETH, Q_XTGT),
};

#undef REQ
#undef REQ_P
#undef RSP
#undef RSP_P
#undef XRCETH
#undef DETH
#undef RETH
#undef ATMETH
#undef AETH
#undef ATMACK
#undef IMM
#undef IETH
#undef CNP_RSVD
#undef Q_RC
#undef Q_UC
#undef Q_UD
#undef Q_XINI
#undef Q_XTGT
#undef Q_ALL

const struct sroce_opcode_info *sroce_wire_opcode_info(uint8_t opcode)
{
	const struct sroce_opcode_info *oi = &sroce_opcodes[opcode];

	return oi->name ? oi : NULL;
}

const char *sroce_wire_opcode_name(uint8_t opcode)
{
	const struct sroce_opcode_info *oi = sroce_wire_opcode_info(opcode);

	return oi ? oi->name : "UNKNOWN";
}

/* 0 for an unknown opcode: no valid packet has a zero-length header. */
unsigned int sroce_wire_hdr_len(uint8_t opcode)
{
	return sroce_opcodes[opcode].hdr_len;
}

/*
 * Operation (low 5 opcode bits) for each message kind and position, with
 * bit 7 set to tell a valid entry from a missing one.
 */
#define V(op)	(0x80 | SROCE_OP_##op)

static const uint8_t sroce_kind_pos_op[SROCE_OPK_COUNT][SROCE_POS_ONLY + 1] = {
	[SROCE_OPK_SEND] = {
		[SROCE_POS_FIRST] = V(SEND_FIRST),
		[SROCE_POS_MIDDLE] = V(SEND_MIDDLE),
		[SROCE_POS_LAST] = V(SEND_LAST),
		[SROCE_POS_ONLY] = V(SEND_ONLY),
	},
	[SROCE_OPK_SEND_IMM] = {
		[SROCE_POS_FIRST] = V(SEND_FIRST),
		[SROCE_POS_MIDDLE] = V(SEND_MIDDLE),
		[SROCE_POS_LAST] = V(SEND_LAST_IMM),
		[SROCE_POS_ONLY] = V(SEND_ONLY_IMM),
	},
	[SROCE_OPK_SEND_INV] = {
		[SROCE_POS_FIRST] = V(SEND_FIRST),
		[SROCE_POS_MIDDLE] = V(SEND_MIDDLE),
		[SROCE_POS_LAST] = V(SEND_LAST_INV),
		[SROCE_POS_ONLY] = V(SEND_ONLY_INV),
	},
	[SROCE_OPK_WRITE] = {
		[SROCE_POS_FIRST] = V(WRITE_FIRST),
		[SROCE_POS_MIDDLE] = V(WRITE_MIDDLE),
		[SROCE_POS_LAST] = V(WRITE_LAST),
		[SROCE_POS_ONLY] = V(WRITE_ONLY),
	},
	[SROCE_OPK_WRITE_IMM] = {
		[SROCE_POS_FIRST] = V(WRITE_FIRST),
		[SROCE_POS_MIDDLE] = V(WRITE_MIDDLE),
		[SROCE_POS_LAST] = V(WRITE_LAST_IMM),
		[SROCE_POS_ONLY] = V(WRITE_ONLY_IMM),
	},
	[SROCE_OPK_READ_REQ] = { [SROCE_POS_ONLY] = V(READ_REQ) },
	[SROCE_OPK_READ_RESP] = {
		[SROCE_POS_FIRST] = V(READ_RESP_FIRST),
		[SROCE_POS_MIDDLE] = V(READ_RESP_MIDDLE),
		[SROCE_POS_LAST] = V(READ_RESP_LAST),
		[SROCE_POS_ONLY] = V(READ_RESP_ONLY),
	},
	[SROCE_OPK_CMP_SWAP] = { [SROCE_POS_ONLY] = V(CMP_SWAP) },
	[SROCE_OPK_FETCH_ADD] = { [SROCE_POS_ONLY] = V(FETCH_ADD) },
	[SROCE_OPK_ACK] = { [SROCE_POS_ONLY] = V(ACK) },
	[SROCE_OPK_ATOMIC_ACK] = { [SROCE_POS_ONLY] = V(ATOMIC_ACK) },
	[SROCE_OPK_ATOMIC_WRITE] = { [SROCE_POS_ONLY] = V(ATOMIC_WRITE) },
};

#undef V

/*
 * Opcode for packet pos of a message of the given kind on transport tr,
 * e.g. (RC, SEND_IMM, MIDDLE) -> RC_SEND_MIDDLE.  -EINVAL if the
 * transport has no such packet (UD has only SEND ONLY, UC no READ...).
 */
int sroce_wire_opcode_for(enum sroce_transport tr, enum sroce_op_kind kind,
			  enum sroce_pos pos)
{
	unsigned int opcode;
	uint8_t ent, only;

	if ((unsigned int)tr & ~SROCE_TR_MASK)
		return -EINVAL;
	if (kind == SROCE_OPK_CNP || tr == SROCE_TR_CNP) {
		if (kind == SROCE_OPK_CNP && tr == SROCE_TR_CNP &&
		    pos == SROCE_POS_NONE)
			return SROCE_OPCODE_CNP;
		return -EINVAL;
	}
	if ((unsigned int)kind >= SROCE_OPK_COUNT ||
	    (unsigned int)pos > SROCE_POS_ONLY)
		return -EINVAL;
	/*
	 * The transport must support the whole message, not just this
	 * packet: UC has SEND_FIRST but no SEND_LAST_INV, so a SEND_INV
	 * must not get started there.  Every kind has an ONLY form.
	 */
	only = sroce_kind_pos_op[kind][SROCE_POS_ONLY];
	ent = sroce_kind_pos_op[kind][pos];
	if (!(ent & 0x80) || !(only & 0x80) ||
	    !sroce_opcodes[(unsigned int)tr | (only & SROCE_OP_MASK)].name)
		return -EINVAL;
	opcode = (unsigned int)tr | (ent & SROCE_OP_MASK);
	if (!sroce_opcodes[opcode].name)
		return -EINVAL;
	return (int)opcode;
}

/*
 * BTH: byte 4 holds FECN, BECN and 6 reserved bits; byte 8 AckReq,
 * the extension bit (reserved in the spec, sack.h), the two ICRC
 * elision bits (reserved too, icrc.h) and 4 reserved bits.
 */
static void sroce_bth_get(const uint8_t *p, struct sroce_pkt_hdr *h)
{
	h->opcode = p[0];
	h->se = p[1] & 0x80;
	h->migreq = p[1] & 0x40;
	h->pad = (p[1] >> 4) & 0x3;
	h->tver = p[1] & 0xf;
	h->pkey = sroce_be_load16(p + 2);
	h->fecn = p[4] & 0x80;
	h->becn = p[4] & 0x40;
	h->dest_qpn = sroce_be_load24(p + 5);
	h->ackreq = p[8] & 0x80;
	h->ext = p[8] & SROCE_BTH_EXT_BIT;
	h->nocrc_ok = p[8] & SROCE_BTH_NOCRC_OK_BIT;
	h->nocrc = p[8] & SROCE_BTH_NOCRC_BIT;
	h->seg_ok = p[8] & SROCE_BTH_SEG_OK_BIT;
	h->psn = sroce_be_load24(p + 9);
}

static void sroce_bth_put(uint8_t *p, const struct sroce_pkt_hdr *h)
{
	p[0] = h->opcode;
	p[1] = (h->se ? 0x80 : 0) | (h->migreq ? 0x40 : 0) |
	       (uint8_t)((h->pad & 0x3) << 4) | SROCE_BTH_TVER;
	sroce_be_store16(p + 2, h->pkey);
	p[4] = (h->fecn ? 0x80 : 0) | (h->becn ? 0x40 : 0);
	sroce_be_store24(p + 5, h->dest_qpn);
	p[8] = (h->ackreq ? 0x80 : 0) | (h->ext ? SROCE_BTH_EXT_BIT : 0) |
	       (h->nocrc_ok ? SROCE_BTH_NOCRC_OK_BIT : 0) |
	       (h->nocrc ? SROCE_BTH_NOCRC_BIT : 0) |
	       (h->seg_ok ? SROCE_BTH_SEG_OK_BIT : 0);
	sroce_be_store24(p + 9, h->psn);
}

/*
 * The extension headers, walked in wire order.  Reserved bytes (DETH and
 * XRCETH byte 0, the CNP block) are ignored on receive as the spec asks.
 */
static void sroce_ext_get(const uint8_t *p, unsigned int hdrs,
			  struct sroce_pkt_hdr *h)
{
	if (hdrs & SROCE_HDR_XRCETH) {
		h->xrc_srqn = sroce_be_load24(p + 1);
		p += SROCE_XRCETH_BYTES;
	}
	if (hdrs & SROCE_HDR_DETH) {
		h->qkey = sroce_be_load32(p);
		h->src_qpn = sroce_be_load24(p + 5);
		p += SROCE_DETH_BYTES;
	}
	if (hdrs & (SROCE_HDR_RETH | SROCE_HDR_ATMETH)) {
		h->va = sroce_be_load64(p);
		h->rkey = sroce_be_load32(p + 8);
	}
	if (hdrs & SROCE_HDR_RETH) {
		h->dma_len = sroce_be_load32(p + 12);
		p += SROCE_RETH_BYTES;
	}
	if (hdrs & SROCE_HDR_ATMETH) {
		h->swap_add = sroce_be_load64(p + 12);
		h->compare = sroce_be_load64(p + 20);
		p += SROCE_ATMETH_BYTES;
	}
	if (hdrs & SROCE_HDR_AETH) {
		h->syndrome = p[0];
		h->msn = sroce_be_load24(p + 1);
		p += SROCE_AETH_BYTES;
	}
	if (hdrs & SROCE_HDR_ATMACK) {
		h->orig = sroce_be_load64(p);
		p += SROCE_ATMACK_BYTES;
	}
	if (hdrs & SROCE_HDR_IMMDT) {
		h->imm = sroce_be_load32(p);
		p += SROCE_IMMDT_BYTES;
	}
	if (hdrs & SROCE_HDR_IETH)
		h->inv_rkey = sroce_be_load32(p);
}

/* Mirror of sroce_ext_get(); p must be zeroed already. */
static void sroce_ext_put(uint8_t *p, unsigned int hdrs,
			  const struct sroce_pkt_hdr *h)
{
	if (hdrs & SROCE_HDR_XRCETH) {
		sroce_be_store24(p + 1, h->xrc_srqn);
		p += SROCE_XRCETH_BYTES;
	}
	if (hdrs & SROCE_HDR_DETH) {
		sroce_be_store32(p, h->qkey);
		sroce_be_store24(p + 5, h->src_qpn);
		p += SROCE_DETH_BYTES;
	}
	if (hdrs & (SROCE_HDR_RETH | SROCE_HDR_ATMETH)) {
		sroce_be_store64(p, h->va);
		sroce_be_store32(p + 8, h->rkey);
	}
	if (hdrs & SROCE_HDR_RETH) {
		sroce_be_store32(p + 12, h->dma_len);
		p += SROCE_RETH_BYTES;
	}
	if (hdrs & SROCE_HDR_ATMETH) {
		sroce_be_store64(p + 12, h->swap_add);
		sroce_be_store64(p + 20, h->compare);
		p += SROCE_ATMETH_BYTES;
	}
	if (hdrs & SROCE_HDR_AETH) {
		p[0] = h->syndrome;
		sroce_be_store24(p + 1, h->msn);
		p += SROCE_AETH_BYTES;
	}
	if (hdrs & SROCE_HDR_ATMACK) {
		sroce_be_store64(p, h->orig);
		p += SROCE_ATMACK_BYTES;
	}
	if (hdrs & SROCE_HDR_IMMDT) {
		sroce_be_store32(p, h->imm);
		p += SROCE_IMMDT_BYTES;
	}
	if (hdrs & SROCE_HDR_IETH)
		sroce_be_store32(p, h->inv_rkey);
}

/*
 * rest is what follows the headers up to the ICRC: payload plus pad.  All
 * header sizes are multiples of 4 and the whole packet must be too (IB
 * lengths count 4-byte words), so rest is a multiple of 4 here and the
 * pad can only be consistent if it fits in it.
 */
static int sroce_wire_check_payload(const struct sroce_opcode_info *oi,
				    size_t rest, unsigned int pad, bool ext)
{
	/* An ACK with the extension bit may carry a block (sack.h). */
	if (ext && oi->kind == SROCE_OPK_ACK)
		return pad || rest > SROCE_SACK_MAX_BYTES ? -EINVAL : 0;
	if (!(oi->flags & SROCE_OPF_PAYLOAD))
		return rest || pad ? -EINVAL : 0;
	return pad > rest ? -EINVAL : 0;
}

/*
 * Parse the BTH and extension headers of a packet of len bytes (BTH to
 * ICRC inclusive).  Returns 0, or:
 *   -EBADMSG		shorter than its headers + ICRC, or not 4-byte sized
 *   -EPROTONOSUPPORT	TVer is not 0
 *   -EOPNOTSUPP	opcode unknown or of an unsupported transport (RD)
 *   -EINVAL		pad count or payload inconsistent with the opcode
 * On failure *h is all zero.  The ICRC is not checked here.
 */
int sroce_wire_parse(const uint8_t *buf, size_t len, struct sroce_pkt_hdr *h)
{
	const struct sroce_opcode_info *oi;
	unsigned int pad;
	size_t rest;
	int err;

	memset(h, 0, sizeof(*h));
	if (len < SROCE_BTH_BYTES + SROCE_ICRC_BYTES)
		return -EBADMSG;
	if ((buf[1] & 0xf) != SROCE_BTH_TVER)
		return -EPROTONOSUPPORT;
	oi = sroce_wire_opcode_info(buf[0]);
	if (!oi)
		return -EOPNOTSUPP;
	if (len < (size_t)oi->hdr_len + SROCE_ICRC_BYTES || (len & 3))
		return -EBADMSG;

	rest = len - oi->hdr_len - SROCE_ICRC_BYTES;
	pad = (buf[1] >> 4) & 0x3;
	err = sroce_wire_check_payload(oi, rest, pad,
				       buf[8] & SROCE_BTH_EXT_BIT);
	if (err)
		return err;

	sroce_bth_get(buf, h);
	sroce_ext_get(buf + SROCE_BTH_BYTES, oi->hdrs, h);
	h->hdr_len = oi->hdr_len;
	h->payload_len = rest - pad;
	return 0;
}

/*
 * The payload length rules that need the path MTU, for a header accepted
 * by sroce_wire_parse(): FIRST and MIDDLE packets carry exactly pmtu
 * bytes, LAST packets 1..pmtu (an empty one would mean the previous
 * packet should have been the last), ONLY packets 0..pmtu.
 */
int sroce_wire_check_pmtu(const struct sroce_pkt_hdr *h, size_t pmtu)
{
	return sroce_wire_check_seg(h, pmtu, pmtu);
}

/*
 * The same from a peer that may send large segments (req.h): FIRST and
 * MIDDLE packets carry pmtu..@seg_max bytes, the others up to @seg_max.
 * Placement follows the bytes received, so the sizes need not agree.
 */
int sroce_wire_check_seg(const struct sroce_pkt_hdr *h, size_t pmtu,
			 size_t seg_max)
{
	const struct sroce_opcode_info *oi = sroce_wire_opcode_info(h->opcode);

	if (!oi)
		return -EOPNOTSUPP;
	switch (oi->pos) {
	case SROCE_POS_FIRST:
	case SROCE_POS_MIDDLE:
		return h->payload_len >= pmtu && h->payload_len <= seg_max ?
		       0 : -EMSGSIZE;
	case SROCE_POS_LAST:
		return h->payload_len && h->payload_len <= seg_max ?
		       0 : -EMSGSIZE;
	default:
		return h->payload_len <= seg_max ? 0 : -EMSGSIZE;
	}
}

static bool sroce_wire_fields_fit(const struct sroce_opcode_info *oi,
				  const struct sroce_pkt_hdr *h)
{
	if (h->tver != SROCE_BTH_TVER || h->pad > 3)
		return false;
	if (h->pad && !(oi->flags & SROCE_OPF_PAYLOAD))
		return false;
	if (h->dest_qpn > SROCE_U24_MAX || h->psn > SROCE_U24_MAX)
		return false;
	if ((oi->hdrs & SROCE_HDR_AETH) && h->msn > SROCE_U24_MAX)
		return false;
	if ((oi->hdrs & SROCE_HDR_DETH) && h->src_qpn > SROCE_U24_MAX)
		return false;
	if ((oi->hdrs & SROCE_HDR_XRCETH) && h->xrc_srqn > SROCE_U24_MAX)
		return false;
	return true;
}

/*
 * Write the BTH and extension headers for h->opcode at buf.  Returns the
 * number of bytes written (the payload offset), or 0 if the opcode is
 * unknown, a field does not fit its wire width, or cap is too small.
 * Payload, pad bytes and ICRC are the caller's.
 */
size_t sroce_wire_build(uint8_t *buf, size_t cap,
			const struct sroce_pkt_hdr *h)
{
	const struct sroce_opcode_info *oi = sroce_wire_opcode_info(h->opcode);

	if (!oi || cap < oi->hdr_len || !sroce_wire_fields_fit(oi, h))
		return 0;
	memset(buf, 0, oi->hdr_len);
	sroce_bth_put(buf, h);
	sroce_ext_put(buf + SROCE_BTH_BYTES, oi->hdrs, h);
	return oi->hdr_len;
}
