// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * sroce_wire_parse() on arbitrary bytes.  Properties when it accepts:
 *   - headers + payload + pad + ICRC == len, header length per the table;
 *   - build(parse(x)) reproduces x's headers except reserved bits, and
 *     parses back to the same header (round trip);
 *   - build is a fixed point: build(parse(build(parse(x)))) == build(...).
 * And sroce_wire_opcode_for() on the first bytes: results are consistent.
 */
#include <assert.h>
#include <stdlib.h>
#include "wire.h"
#include "sack.h"
#include "icrc.h"
#include "req.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static bool same(const struct sroce_pkt_hdr *a, const struct sroce_pkt_hdr *b)
{
	return a->opcode == b->opcode && a->se == b->se &&
	       a->migreq == b->migreq && a->pad == b->pad &&
	       a->tver == b->tver && a->pkey == b->pkey &&
	       a->fecn == b->fecn && a->becn == b->becn &&
	       a->dest_qpn == b->dest_qpn && a->ackreq == b->ackreq &&
	       a->ext == b->ext && a->nocrc_ok == b->nocrc_ok &&
	       a->nocrc == b->nocrc && a->seg_ok == b->seg_ok &&
	       a->psn == b->psn && a->va == b->va && a->rkey == b->rkey &&
	       a->dma_len == b->dma_len && a->syndrome == b->syndrome &&
	       a->msn == b->msn && a->swap_add == b->swap_add &&
	       a->compare == b->compare && a->orig == b->orig &&
	       a->imm == b->imm && a->inv_rkey == b->inv_rkey &&
	       a->qkey == b->qkey && a->src_qpn == b->src_qpn &&
	       a->xrc_srqn == b->xrc_srqn && a->hdr_len == b->hdr_len &&
	       a->payload_len == b->payload_len;
}

/* Reserved bits the builder must clear; everything else is kept. */
static void clear_reserved(uint8_t *p, unsigned int hdrs)
{
	p[4] &= 0xc0;
	p[8] &= 0x80 | SROCE_BTH_EXT_BIT | SROCE_BTH_NOCRC_OK_BIT |
		SROCE_BTH_NOCRC_BIT | SROCE_BTH_SEG_OK_BIT;
	p += SROCE_BTH_BYTES;
	if (hdrs & SROCE_HDR_XRCETH) {
		p[0] = 0;
		p += SROCE_XRCETH_BYTES;
	}
	if (hdrs & SROCE_HDR_DETH)
		p[4] = 0;
	if (hdrs & SROCE_HDR_CNP_RSVD)
		memset(p, 0, SROCE_CNP_RSVD_BYTES);
}

static void check_opcode_for(const uint8_t *data, size_t size)
{
	const struct sroce_opcode_info *oi;
	int r;

	if (size < 3)
		return;
	r = sroce_wire_opcode_for((enum sroce_transport)data[0],
				  (enum sroce_op_kind)data[1],
				  (enum sroce_pos)data[2]);
	if (r < 0) {
		assert(r == -EINVAL);
		return;
	}
	oi = sroce_wire_opcode_info((uint8_t)r);
	assert(oi && (r & SROCE_TR_MASK) == data[0] && oi->pos == data[2]);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct sroce_pkt_hdr h, h2;
	uint8_t *copy, *re;
	size_t hl, hl2;
	int err;

	check_opcode_for(data, size);

	/* A heap copy of exactly size bytes so ASan sees any overread. */
	copy = malloc(size ? size : 1);
	memcpy(copy, data, size);
	err = sroce_wire_parse(copy, size, &h);
	if (err) {
		static const struct sroce_pkt_hdr zero;

		assert(err == -EBADMSG || err == -EPROTONOSUPPORT ||
		       err == -EOPNOTSUPP || err == -EINVAL);
		assert(!memcmp(&h, &zero, sizeof(h)));
		free(copy);
		return 0;
	}
	assert(h.hdr_len == sroce_wire_hdr_len(h.opcode));
	assert(h.hdr_len + h.payload_len + h.pad + SROCE_ICRC_BYTES == size);
	assert(size % 4 == 0 && h.tver == 0);

	re = malloc(size);
	hl = sroce_wire_build(re, h.hdr_len, &h);
	assert(hl == h.hdr_len);
	memcpy(re + hl, copy + hl, size - hl);
	clear_reserved(copy, sroce_wire_opcode_info(h.opcode)->hdrs);
	assert(!memcmp(re, copy, size));

	err = sroce_wire_parse(re, size, &h2);
	assert(!err && same(&h, &h2));
	hl2 = sroce_wire_build(copy, size, &h2);
	assert(hl2 == hl && !memcmp(copy, re, size));
	free(re);
	free(copy);
	return 0;
}
