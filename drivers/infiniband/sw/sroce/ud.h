/* SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause */
/*
 * Address handles (ah.c) and the UD transport (ud.c).
 *
 * Every AH, kernel or user, gets a number in a per-device table; a UD
 * send WQE names its destination by that number, so the kernel never
 * takes an address vector from a ring userspace writes.  The engine
 * copies the AH's address vector out under the table lock, for each
 * packet: an AH destroyed while WQEs name it makes them fail, never
 * touch freed memory.
 *
 * UD QPs (and the GSI QP, QP1, which is UD with its own number) run in
 * the same engine slots as RC: one packet per WQE, with a DETH, no ACK
 * and no retransmission; a receive takes the next WQE of the RQ or SRQ
 * and gets the 40-byte GRH area first.  UC (uc.c) shares their send
 * side's steps: messages segmented like RC's, never acknowledged.
 */
#ifndef _SROCE_UD_H
#define _SROCE_UD_H

#include "proto/wire.h"

/* Included at the end of sroce.h: its types are complete here. */

struct sroce_ah {
	struct ib_ah ibah;
	struct sroce_av av;
	u32 ahn;
};

static inline struct sroce_ah *to_sah(struct ib_ah *ibah)
{
	return container_of(ibah, struct sroce_ah, ibah);
}

static inline bool sroce_qp_is_ud(const struct sroce_qp *qp)
{
	return qp->ibqp.qp_type == IB_QPT_UD || qp->ibqp.qp_type == IB_QPT_GSI;
}

static inline bool sroce_qp_is_raw(const struct sroce_qp *qp)
{
	return qp->ibqp.qp_type == IB_QPT_RAW_PACKET;
}

/* A raw packet QP created with an indirection table (rss.c). */
static inline bool sroce_qp_is_rss(const struct sroce_qp *qp)
{
	return qp->ibqp.rwq_ind_tbl;
}

/* Transports the receive path lets through to a QP lookup. */
static inline bool sroce_transport_supported(u8 opcode)
{
	u8 tr = opcode & SROCE_TR_MASK;

	return tr == SROCE_TR_RC || tr == SROCE_TR_UD || tr == SROCE_TR_UC ||
	       tr == SROCE_TR_XRC;
}

/* The transport of the packets a QP may receive (BTH opcode bits). */
static inline u8 sroce_qp_transport(const struct sroce_qp *qp)
{
	switch (qp->ibqp.qp_type) {
	case IB_QPT_UD:
	case IB_QPT_GSI:
		return SROCE_TR_UD;
	case IB_QPT_UC:
		return SROCE_TR_UC;
	case IB_QPT_XRC_INI:
	case IB_QPT_XRC_TGT:
		return SROCE_TR_XRC;
	/* Takes no RoCE packets: no BTH's transport bits are this. */
	case IB_QPT_RAW_PACKET:
		return SROCE_TR_NONE;
	default:
		return SROCE_TR_RC;
	}
}

/* ah.c */
void sroce_ah_table_init(struct sroce_dev *sdev);
void sroce_ah_table_destroy(struct sroce_dev *sdev);
int sroce_ah_create(struct ib_ah *ibah, struct rdma_ah_init_attr *init,
		    struct ib_udata *udata);
int sroce_ah_destroy(struct ib_ah *ibah, u32 flags);
int sroce_ah_query(struct ib_ah *ibah, struct rdma_ah_attr *attr);
int sroce_av_from_attr(struct sroce_av *av, const struct rdma_ah_attr *ah);
void sroce_av_to_attr(const struct sroce_av *av, struct rdma_ah_attr *ah);
int sroce_ah_get_av(struct sroce_qp *qp, u32 ahn, struct sroce_av *av);

/* ud.c */
bool sroce_ud_run(struct sroce_qp *qp, int budget);
int sroce_ud_wqe_from_wr(const struct ib_send_wr *wr,
			 struct sroce_send_wqe *wqe);

/* ud.c, shared with uc.c: the unreliable transports' common steps. */
struct sroce_swqe;
u8 *sroce_ud_raw(struct sroce_qp *qp, u32 idx);
enum ib_wc_status sroce_ud_copy_body(struct sroce_qp *qp,
				     struct sroce_swqe *w, u8 *raw,
				     const u8 *slot, u64 max);
bool sroce_ud_sq_ready(struct sroce_qp *qp);
void sroce_ud_sq_error(struct sroce_qp *qp, struct sroce_swqe *w);
void sroce_ud_drained(struct sroce_qp *qp);
struct sroce_sge *sroce_ud_rsges(struct sroce_qp *qp);
int sroce_ud_rwqe(struct sroce_qp *qp, u64 *room);
void sroce_ud_recv_done(struct sroce_qp *qp, struct sroce_cqe *cqe,
			bool solicited);

/* uc.c */
bool sroce_uc_run(struct sroce_qp *qp, int budget);

#endif /* _SROCE_UD_H */
