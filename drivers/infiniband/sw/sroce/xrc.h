/* SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause */
/*
 * XRC: extended reliable connected transport (xrc.c).
 *
 * An XRC domain groups XRC SRQs and XRC TGT QPs.  An XRC INI QP is an RC
 * requester whose messages each name an SRQ at the target (XRCETH); the
 * XRC TGT QP that receives them is an RC responder with no queues of its
 * own: for every request it takes the SRQ the packet names from the
 * device's SRQ table, checks that it belongs to its own domain, and then
 * uses that SRQ's receive WQEs, completion queue and protection domain as
 * if they were its own, for that packet only.
 *
 * The XRC QPs run the RC engine unchanged otherwise: the same PSNs, ACKs,
 * retransmission and responder resources, with the XRC opcodes (0xa0..).
 * INI QPs take only responses, TGT QPs only requests.
 *
 * An XRC TGT QP is created by ib_core as a kernel QP (no udata) and shared
 * by every process that opens it; it never has a ring userspace maps.
 */
#ifndef _SROCE_XRC_H
#define _SROCE_XRC_H

/* Included at the end of sroce.h: its types are complete here. */

struct sroce_xrcd {
	struct ib_xrcd ibxrcd;
};

static inline bool sroce_qp_is_xrc(const struct sroce_qp *qp)
{
	return qp->ibqp.qp_type == IB_QPT_XRC_INI ||
	       qp->ibqp.qp_type == IB_QPT_XRC_TGT;
}

static inline bool sroce_qp_is_xrc_tgt(const struct sroce_qp *qp)
{
	return qp->ibqp.qp_type == IB_QPT_XRC_TGT;
}

/*
 * May @qp take a packet with @opcode (of its transport)?  An XRC TGT QP
 * is a responder only, an INI QP a requester only; others take both.
 */
static inline bool sroce_xrc_accepts(const struct sroce_qp *qp, u8 opcode)
{
	const struct sroce_opcode_info *oi = sroce_wire_opcode_info(opcode);
	bool req = oi && (oi->flags & SROCE_OPF_REQ);

	if (!sroce_qp_is_xrc(qp))
		return true;
	return req == sroce_qp_is_xrc_tgt(qp);
}

int sroce_xrcd_alloc(struct ib_xrcd *ibxrcd, struct ib_udata *udata);
int sroce_xrcd_dealloc(struct ib_xrcd *ibxrcd, struct ib_udata *udata);

/* srq.c: an XRC SRQ gets its number, and loses it before it goes. */
int sroce_xrc_srq_check(const struct ib_srq_init_attr *init);
int sroce_xrc_srq_add(struct sroce_srq *srq);
void sroce_xrc_srq_remove(struct sroce_srq *srq);

/* qp.c: checks and the private RQ slot of an XRC QP. */
int sroce_xrc_qp_check(const struct ib_qp_init_attr *init,
		       struct ib_udata *udata);
int sroce_xrc_qp_init(struct sroce_qp *qp, struct ib_qp_init_attr *init);

/*
 * resp.c, TGT QPs (others: 0, nothing to do): bind the SRQ a request
 * names for the packet at hand, or fail (-EINVAL: no such SRQ, another
 * domain's, or not the SRQ of the message in progress, unless @dup, a
 * duplicate); unbind after.
 */
int sroce_xrc_resp_bind(struct sroce_qp *qp, const struct sroce_pkt_hdr *h,
			bool dup);
int sroce_xrc_resp_bind_srqn(struct sroce_qp *qp, u32 srqn);
void sroce_xrc_resp_unbind(struct sroce_qp *qp);
/* A WQE lent by an SRQ that can no longer take its completion: drop it. */
void sroce_xrc_resp_drop(struct sroce_qp *qp);
/* engine.c: sroce_resp_flush() for a TGT QP. */
bool sroce_xrc_resp_flush(struct sroce_qp *qp, int budget);

#endif /* _SROCE_XRC_H */
