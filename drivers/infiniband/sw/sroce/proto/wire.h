/* SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause */
/*
 * RoCEv2 transport headers: the opcode table, a parser that trusts nothing
 * in the packet, and a builder (IBTA vol 1 ch. 9, annex A17).
 *
 * Buffers handed to the parser and the builder start at the BTH, i.e. at
 * the UDP payload of a RoCEv2 packet, and (for the parser) run to the end
 * of the ICRC.  All multi-byte fields are big endian on the wire except
 * the ICRC (see icrc.h).
 */
#ifndef _SROCE_PROTO_WIRE_H
#define _SROCE_PROTO_WIRE_H

#include "compat.h"

/* Header sizes in bytes. */
#define SROCE_BTH_BYTES		12
#define SROCE_RETH_BYTES	16
#define SROCE_AETH_BYTES	4
#define SROCE_ATMETH_BYTES	28
#define SROCE_ATMACK_BYTES	8
#define SROCE_IMMDT_BYTES	4
#define SROCE_IETH_BYTES	4
#define SROCE_DETH_BYTES	8
#define SROCE_XRCETH_BYTES	4
#define SROCE_CNP_RSVD_BYTES	16	/* reserved block after a CNP's BTH */
#define SROCE_ICRC_BYTES	4
/* ATOMIC WRITE's payload: the naturally aligned 8 bytes it stores. */
#define SROCE_ATOMIC_WRITE_BYTES	8

/* Largest BTH + extension headers of any opcode (XRC atomics). */
#define SROCE_MAX_HDR_BYTES	(SROCE_BTH_BYTES + SROCE_XRCETH_BYTES + \
				 SROCE_ATMETH_BYTES)

/* Largest value of the 24-bit fields (QPNs, PSN, MSN, XRC SRQ number). */
#define SROCE_U24_MAX		0x00ffffffu

/* UDP destination port of RoCEv2. */
#define SROCE_WIRE_UDP_PORT	4791

/* The only transport header version defined by the spec. */
#define SROCE_BTH_TVER		0

/* Default partition key, full membership. */
#define SROCE_PKEY_DEFAULT	0xffff

/* Opcode bits 7:5 select the transport, bits 4:0 the operation. */
enum sroce_transport {
	SROCE_TR_RC	= 0x00,
	SROCE_TR_UC	= 0x20,
	SROCE_TR_RD	= 0x40,	/* not supported: rejected as unknown */
	SROCE_TR_UD	= 0x60,
	SROCE_TR_CNP	= 0x80,
	SROCE_TR_XRC	= 0xa0,
};

#define SROCE_TR_MASK		0xe0
/* No transport: what a QP that takes no RoCE packets says (raw packet). */
#define SROCE_TR_NONE		0xff
#define SROCE_OP_MASK		0x1f

/* Operation codes within a transport (include/rdma/ib_pack.h numbering). */
enum sroce_op {
	SROCE_OP_SEND_FIRST		= 0x00,
	SROCE_OP_SEND_MIDDLE		= 0x01,
	SROCE_OP_SEND_LAST		= 0x02,
	SROCE_OP_SEND_LAST_IMM		= 0x03,
	SROCE_OP_SEND_ONLY		= 0x04,
	SROCE_OP_SEND_ONLY_IMM		= 0x05,
	SROCE_OP_WRITE_FIRST		= 0x06,
	SROCE_OP_WRITE_MIDDLE		= 0x07,
	SROCE_OP_WRITE_LAST		= 0x08,
	SROCE_OP_WRITE_LAST_IMM		= 0x09,
	SROCE_OP_WRITE_ONLY		= 0x0a,
	SROCE_OP_WRITE_ONLY_IMM		= 0x0b,
	SROCE_OP_READ_REQ		= 0x0c,
	SROCE_OP_READ_RESP_FIRST	= 0x0d,
	SROCE_OP_READ_RESP_MIDDLE	= 0x0e,
	SROCE_OP_READ_RESP_LAST		= 0x0f,
	SROCE_OP_READ_RESP_ONLY		= 0x10,
	SROCE_OP_ACK			= 0x11,
	SROCE_OP_ATOMIC_ACK		= 0x12,
	SROCE_OP_CMP_SWAP		= 0x13,
	SROCE_OP_FETCH_ADD		= 0x14,
	SROCE_OP_SEND_LAST_INV		= 0x16,
	SROCE_OP_SEND_ONLY_INV		= 0x17,
	SROCE_OP_ATOMIC_WRITE		= 0x1d,	/* IBTA 1.5 */
	SROCE_OP_CNP			= 0x01,	/* only with SROCE_TR_CNP */
};

/* Full opcodes used often enough by callers to name them. */
#define SROCE_OPCODE_CNP	(SROCE_TR_CNP | SROCE_OP_CNP)

/* Extension headers, in the order they follow the BTH on the wire. */
enum sroce_hdr {
	SROCE_HDR_XRCETH	= 1 << 0,
	SROCE_HDR_DETH		= 1 << 1,
	SROCE_HDR_RETH		= 1 << 2,
	SROCE_HDR_ATMETH	= 1 << 3,
	SROCE_HDR_AETH		= 1 << 4,
	SROCE_HDR_ATMACK	= 1 << 5,
	SROCE_HDR_IMMDT		= 1 << 6,
	SROCE_HDR_IETH		= 1 << 7,
	SROCE_HDR_CNP_RSVD	= 1 << 8,
};

/* Opcode properties. */
enum sroce_opf {
	SROCE_OPF_PAYLOAD	= 1 << 0,	/* carries a data payload */
	SROCE_OPF_REQ		= 1 << 1,	/* request (requester -> responder) */
	SROCE_OPF_RESP		= 1 << 2,	/* response (responder -> requester) */
};

/* Position of a packet within a message. */
enum sroce_pos {
	SROCE_POS_NONE		= 0,	/* CNP: not part of a message */
	SROCE_POS_FIRST		= 1,
	SROCE_POS_MIDDLE	= 2,
	SROCE_POS_LAST		= 3,
	SROCE_POS_ONLY		= 4,
};

/*
 * What a message does; SEND_IMM/SEND_INV/WRITE_IMM first and middle
 * packets are plain SEND/WRITE packets since the extra header only rides
 * on the last (or only) one.
 */
enum sroce_op_kind {
	SROCE_OPK_NONE		= 0,
	SROCE_OPK_SEND,
	SROCE_OPK_SEND_IMM,
	SROCE_OPK_SEND_INV,
	SROCE_OPK_WRITE,
	SROCE_OPK_WRITE_IMM,
	SROCE_OPK_READ_REQ,
	SROCE_OPK_READ_RESP,
	SROCE_OPK_CMP_SWAP,
	SROCE_OPK_FETCH_ADD,
	SROCE_OPK_ACK,
	SROCE_OPK_ATOMIC_ACK,
	SROCE_OPK_CNP,
	SROCE_OPK_ATOMIC_WRITE,
	SROCE_OPK_COUNT
};

/* QP types that may receive an opcode (bit mask). */
enum sroce_qpt {
	SROCE_QPT_RC		= 1 << 0,
	SROCE_QPT_UC		= 1 << 1,
	SROCE_QPT_UD		= 1 << 2,
	SROCE_QPT_XRC_INI	= 1 << 3,	/* receives XRC responses */
	SROCE_QPT_XRC_TGT	= 1 << 4,	/* receives XRC requests */
};

struct sroce_opcode_info {
	const char *name;	/* NULL: opcode unknown / unsupported */
	uint16_t hdrs;		/* enum sroce_hdr bits after the BTH */
	uint8_t hdr_len;	/* BTH + extension headers, bytes */
	uint8_t flags;		/* enum sroce_opf */
	uint8_t pos;		/* enum sroce_pos */
	uint8_t kind;		/* enum sroce_op_kind */
	uint8_t qpts;		/* enum sroce_qpt receivers */
};

/*
 * Parsed view of BTH + extension headers.  Fields of headers the opcode
 * does not carry are zero after sroce_wire_parse(); sroce_wire_build()
 * ignores them.  24-bit fields must fit in 24 bits for the builder.
 */
struct sroce_pkt_hdr {
	/* BTH */
	uint8_t opcode;
	bool se;		/* solicited event */
	bool migreq;
	uint8_t pad;		/* pad count, 0..3 */
	uint8_t tver;		/* always SROCE_BTH_TVER */
	uint16_t pkey;
	bool fecn;
	bool becn;
	uint32_t dest_qpn;	/* 24 bits */
	bool ackreq;
	bool ext;		/* sroce extension bit (sack.h); reserved */
	bool nocrc_ok;		/* accepts elided ICRCs (icrc.h); reserved */
	bool nocrc;		/* this packet's ICRC is elided; reserved */
	bool seg_ok;		/* takes large segments (req.h); reserved */
	uint32_t psn;		/* 24 bits */

	/* RETH, and the first two fields of AtomicETH */
	uint64_t va;
	uint32_t rkey;
	uint32_t dma_len;	/* RETH only */

	/* AETH */
	uint8_t syndrome;
	uint32_t msn;		/* 24 bits */

	/* AtomicETH */
	uint64_t swap_add;	/* swap data or add data */
	uint64_t compare;

	/* AtomicAckETH */
	uint64_t orig;

	uint32_t imm;		/* ImmDt; host order, the wc wants cpu_to_be32() */
	uint32_t inv_rkey;	/* IETH */

	/* DETH */
	uint32_t qkey;
	uint32_t src_qpn;	/* 24 bits */

	uint32_t xrc_srqn;	/* XRCETH, 24 bits */

	/* Filled in by sroce_wire_parse() only. */
	uint16_t hdr_len;	/* == payload offset from the BTH */
	size_t payload_len;	/* payload bytes, without pad */
};

const struct sroce_opcode_info *sroce_wire_opcode_info(uint8_t opcode);
const char *sroce_wire_opcode_name(uint8_t opcode);
unsigned int sroce_wire_hdr_len(uint8_t opcode);
int sroce_wire_opcode_for(enum sroce_transport tr, enum sroce_op_kind kind,
			  enum sroce_pos pos);
int sroce_wire_parse(const uint8_t *buf, size_t len, struct sroce_pkt_hdr *h);
int sroce_wire_check_pmtu(const struct sroce_pkt_hdr *h, size_t pmtu);
int sroce_wire_check_seg(const struct sroce_pkt_hdr *h, size_t pmtu,
			 size_t seg_max);
size_t sroce_wire_build(uint8_t *buf, size_t cap,
			const struct sroce_pkt_hdr *h);

/* Pad bytes needed after len payload bytes to reach a 4-byte boundary. */
static inline uint8_t sroce_wire_pad(size_t len)
{
	return (uint8_t)(-len & 3);
}

#endif /* _SROCE_PROTO_WIRE_H */
