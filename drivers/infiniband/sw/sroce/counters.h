/* SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause */
/*
 * Per-device transport counters.  Every packet the module drops, every
 * retransmission and every NAK is counted here, so that a misbehaving
 * peer or link shows up in numbers rather than only in rate-limited log
 * lines.  The names are stable: they become rdma statistics.
 */
#ifndef _SROCE_COUNTERS_H
#define _SROCE_COUNTERS_H

#include <linux/atomic.h>
#include <rdma/ib_verbs.h>

enum sroce_counter {
	SROCE_CNT_TX_PACKETS,
	SROCE_CNT_TX_BYTES,
	SROCE_CNT_TX_DROPPED,		/* no route, no socket, no memory */
	SROCE_CNT_TX_BUSY,		/* refused locally, sent again later */
	SROCE_CNT_TX_THROTTLED,		/* held back: too much queued locally */
	SROCE_CNT_TX_ZEROCOPY,		/* sent with the payload not copied */
	SROCE_CNT_TX_LOCAL,		/* to a local device, past lo */
	SROCE_CNT_TX_TRAINS,		/* GSO skbs of several packets (gso.c) */
	SROCE_CNT_RX_PACKETS,
	SROCE_CNT_RX_BYTES,
	SROCE_CNT_RX_BAD_HDR,		/* malformed UDP/BTH/extension headers */
	SROCE_CNT_RX_ICRC_ERR,
	SROCE_CNT_RX_BAD_PKEY,
	SROCE_CNT_RX_BAD_TRANSPORT,	/* RD, or not its QP's */
	SROCE_CNT_RX_UNKNOWN_QP,
	SROCE_CNT_RX_BAD_ADDR,		/* connected QP, not from its peer */
	SROCE_CNT_RX_GSI,		/* QP1 (CM) packets */
	SROCE_CNT_RX_DROPPED,		/* QP not ready, queue full */
	SROCE_CNT_RX_STEERED,		/* handed to another CPU (engine.c) */
	SROCE_CNT_RX_DUP_REQ,		/* responder: duplicate requests */
	SROCE_CNT_RX_OOS_REQ,		/* responder: out of sequence */
	SROCE_CNT_RX_STALE_RESP,	/* requester: duplicate/ghost responses */
	SROCE_CNT_RX_BAD_RESP,		/* requester: impossible responses */
	SROCE_CNT_ACKS_SENT,
	SROCE_CNT_ACKS_RCVD,
	SROCE_CNT_SEQ_NAKS_SENT,
	SROCE_CNT_SEQ_NAKS_RCVD,
	SROCE_CNT_RNR_NAKS_SENT,
	SROCE_CNT_RNR_NAKS_RCVD,
	SROCE_CNT_ERR_NAKS_SENT,	/* invalid request, access, op error */
	SROCE_CNT_ERR_NAKS_RCVD,
	/* Memory windows (mw.c). */
	SROCE_CNT_MW_ACCESS_REFUSED,	/* remote access through a MW refused */
	SROCE_CNT_MW_OP_ERRORS,		/* binds and invalidations refused */
	SROCE_CNT_RETRANSMITS,		/* packets sent again */
	SROCE_CNT_TIMEOUTS,		/* retransmit timer expirations */
	SROCE_CNT_TIMEOUTS_DEFERRED,	/* expired with packets still queued */
	SROCE_CNT_RETRY_EXCEEDED,
	SROCE_CNT_RNR_RETRY_EXCEEDED,
	SROCE_CNT_IMPLIED_NAKS,		/* READ/ATOMIC responses found lost */
	SROCE_CNT_DUP_READS,		/* READ responses replayed */
	SROCE_CNT_DUP_ATOMICS,		/* atomic results replayed */
	SROCE_CNT_BAD_WQES,		/* WQEs that failed validation */
	SROCE_CNT_RX_BAD_QKEY,		/* UD: Q_Key is not the QP's */
	SROCE_CNT_RX_UD_NO_WQE,		/* UD: no receive WQE posted */
	SROCE_CNT_RX_UC_DROPPED,	/* UC: messages lost or refused */
	SROCE_CNT_RX_MCAST,		/* UD: packets to a group with members */
	SROCE_CNT_RX_MCAST_DROPPED,	/* to no group here, or not a UD SEND */
	/* Memory regions, fast registration (frmr.c). */
	SROCE_CNT_MR_ACCESS_REFUSED,	/* remote access through an MR refused */
	SROCE_CNT_FR_OP_ERRORS,		/* fast reg, MR invalidations refused */
	SROCE_CNT_RX_XRC_BAD_SRQ,	/* XRC: no such SRQ in the TGT's domain */
	/* Congestion signals (cc.c). */
	SROCE_CNT_RX_ECN_CE,		/* packets that arrived ECN CE-marked */
	SROCE_CNT_CNPS_RCVD,		/* CNPs received */
	SROCE_CNT_CNPS_SENT,		/* CNPs sent for CE-marked packets */
	/* Selective repeat between sroce peers (proto/sack.h). */
	SROCE_CNT_SACKS_SENT,		/* ACKs that carried SACK blocks */
	SROCE_CNT_SACKS_RCVD,
	SROCE_CNT_SACK_RETRANSMITS,	/* packets resent because SACK said */
	SROCE_CNT_RX_OFO_QUEUED,	/* requests held beyond a gap */
	SROCE_CNT_RX_OFO_DROPPED,	/* beyond a gap, no room to hold */
	SROCE_CNT_TLP_PROBES,		/* tail loss probes sent */
	/* rxe's rdma_sends, rdma_recvs and link_downed, for users of it. */
	SROCE_CNT_SENDS_COMPLETED,	/* SEND WRs completed successfully */
	SROCE_CNT_RECVS_COMPLETED,	/* receive WRs completed successfully */
	SROCE_CNT_LINK_DOWNED,		/* port edges from ACTIVE to DOWN */
	/* On-demand paging MRs (odp.c). */
	SROCE_CNT_ODP_WAITS,		/* faults the engine asked for */
	SROCE_CNT_ODP_FAULTS,		/* of them, resolved */
	SROCE_CNT_ODP_FAULT_ERRORS,	/* ranges that could not be mapped */
	SROCE_CNT_ODP_INVALIDATIONS,	/* mapping changes that took pages */
	/* Raw packet QPs (raw.c, flow.c). */
	SROCE_CNT_RAW_TX_PACKETS,	/* frames sent */
	SROCE_CNT_RAW_RX_PACKETS,	/* frames a flow matched, received */
	SROCE_CNT_RAW_RX_DROPPED,	/* matched; QP not ready, no WQE, full */
	/* Priority classes (proto/prio.h, net_tx.c). */
	SROCE_CNT_TX_YIELDED,		/* held back for a higher class */
	/* ICRC elision (elide.c): the UDP checksum instead. */
	SROCE_CNT_TX_ICRC_ELIDED,	/* sent without an ICRC */
	SROCE_CNT_RX_ICRC_ELIDED,	/* taken without an ICRC */
	/*
	 * Gauges, not counters (cc.c): the pace of all paced RC QPs added
	 * up, and a smoothed RTT over every RC QP's samples.
	 */
	SROCE_CNT_RC_PACING_KBPS,
	SROCE_CNT_RC_SRTT_US,
	SROCE_CNT_MAX
};

struct sroce_counters {
	atomic64_t c[SROCE_CNT_MAX];
};

extern const struct rdma_stat_desc sroce_counter_descs[SROCE_CNT_MAX];

struct rdma_hw_stats *sroce_counters_alloc_stats(struct ib_device *ibdev,
						 u32 port_num);
int sroce_counters_get_stats(struct ib_device *ibdev,
			     struct rdma_hw_stats *stats, u32 port, int index);

static inline void sroce_cnt_add(struct sroce_counters *cnt,
				 enum sroce_counter c, u64 n)
{
	atomic64_add(n, &cnt->c[c]);
}

static inline void sroce_cnt_inc(struct sroce_counters *cnt,
				 enum sroce_counter c)
{
	atomic64_inc(&cnt->c[c]);
}

#endif /* _SROCE_COUNTERS_H */
