// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * Counter names (see counters.h), and their export as the port's hw
 * statistics: `rdma statistic show link DEV/1`.
 */
#include "sroce.h"

const struct rdma_stat_desc sroce_counter_descs[SROCE_CNT_MAX] = {
	[SROCE_CNT_TX_PACKETS].name = "tx_packets",
	[SROCE_CNT_TX_BYTES].name = "tx_bytes",
	[SROCE_CNT_TX_DROPPED].name = "tx_dropped",
	[SROCE_CNT_TX_BUSY].name = "tx_busy",
	[SROCE_CNT_TX_THROTTLED].name = "tx_throttled",
	[SROCE_CNT_TX_ZEROCOPY].name = "tx_zerocopy",
	[SROCE_CNT_TX_LOCAL].name = "tx_local",
	[SROCE_CNT_TX_TRAINS].name = "tx_trains",
	[SROCE_CNT_RX_PACKETS].name = "rx_packets",
	[SROCE_CNT_RX_BYTES].name = "rx_bytes",
	[SROCE_CNT_RX_BAD_HDR].name = "rx_bad_hdr",
	[SROCE_CNT_RX_ICRC_ERR].name = "rx_icrc_err",
	[SROCE_CNT_RX_BAD_PKEY].name = "rx_bad_pkey",
	[SROCE_CNT_RX_BAD_TRANSPORT].name = "rx_bad_transport",
	[SROCE_CNT_RX_UNKNOWN_QP].name = "rx_unknown_qp",
	[SROCE_CNT_RX_BAD_ADDR].name = "rx_bad_addr",
	[SROCE_CNT_RX_GSI].name = "rx_gsi",
	[SROCE_CNT_RX_DROPPED].name = "rx_dropped",
	[SROCE_CNT_RX_STEERED].name = "rx_steered",
	[SROCE_CNT_RX_DUP_REQ].name = "rx_dup_requests",
	[SROCE_CNT_RX_OOS_REQ].name = "rx_out_of_sequence",
	[SROCE_CNT_RX_STALE_RESP].name = "rx_stale_responses",
	[SROCE_CNT_RX_BAD_RESP].name = "rx_bad_responses",
	[SROCE_CNT_ACKS_SENT].name = "acks_sent",
	[SROCE_CNT_ACKS_RCVD].name = "acks_received",
	[SROCE_CNT_SEQ_NAKS_SENT].name = "seq_naks_sent",
	[SROCE_CNT_SEQ_NAKS_RCVD].name = "seq_naks_received",
	[SROCE_CNT_RNR_NAKS_SENT].name = "rnr_naks_sent",
	[SROCE_CNT_RNR_NAKS_RCVD].name = "rnr_naks_received",
	[SROCE_CNT_ERR_NAKS_SENT].name = "err_naks_sent",
	[SROCE_CNT_ERR_NAKS_RCVD].name = "err_naks_received",
	[SROCE_CNT_MW_ACCESS_REFUSED].name = "mw_access_refused",
	[SROCE_CNT_MW_OP_ERRORS].name = "mw_op_errors",
	[SROCE_CNT_RETRANSMITS].name = "retransmits",
	[SROCE_CNT_TIMEOUTS].name = "timeouts",
	[SROCE_CNT_TIMEOUTS_DEFERRED].name = "timeouts_deferred",
	[SROCE_CNT_RETRY_EXCEEDED].name = "retry_exceeded",
	[SROCE_CNT_RNR_RETRY_EXCEEDED].name = "rnr_retry_exceeded",
	[SROCE_CNT_IMPLIED_NAKS].name = "implied_naks",
	[SROCE_CNT_DUP_READS].name = "dup_reads",
	[SROCE_CNT_DUP_ATOMICS].name = "dup_atomics",
	[SROCE_CNT_BAD_WQES].name = "bad_wqes",
	[SROCE_CNT_RX_BAD_QKEY].name = "rx_bad_qkey",
	[SROCE_CNT_RX_UD_NO_WQE].name = "rx_ud_no_wqe",
	[SROCE_CNT_RX_UC_DROPPED].name = "rx_uc_dropped",
	[SROCE_CNT_RX_MCAST].name = "rx_mcast_packets",
	[SROCE_CNT_RX_MCAST_DROPPED].name = "rx_mcast_dropped",
	[SROCE_CNT_MR_ACCESS_REFUSED].name = "mr_access_refused",
	[SROCE_CNT_FR_OP_ERRORS].name = "fr_op_errors",
	[SROCE_CNT_RX_XRC_BAD_SRQ].name = "rx_xrc_bad_srq",
	[SROCE_CNT_RX_ECN_CE].name = "rx_ecn_ce",
	[SROCE_CNT_CNPS_RCVD].name = "cnps_received",
	[SROCE_CNT_CNPS_SENT].name = "cnps_sent",
	[SROCE_CNT_SACKS_SENT].name = "sacks_sent",
	[SROCE_CNT_SACKS_RCVD].name = "sacks_received",
	[SROCE_CNT_SACK_RETRANSMITS].name = "sack_retransmits",
	[SROCE_CNT_RX_OFO_QUEUED].name = "rx_ofo_queued",
	[SROCE_CNT_RX_OFO_DROPPED].name = "rx_ofo_dropped",
	[SROCE_CNT_TLP_PROBES].name = "tlp_probes",
	[SROCE_CNT_SENDS_COMPLETED].name = "sends_completed",
	[SROCE_CNT_RECVS_COMPLETED].name = "recvs_completed",
	[SROCE_CNT_LINK_DOWNED].name = "link_downed",
	[SROCE_CNT_ODP_WAITS].name = "odp_waits",
	[SROCE_CNT_ODP_FAULTS].name = "odp_faults",
	[SROCE_CNT_ODP_FAULT_ERRORS].name = "odp_fault_errors",
	[SROCE_CNT_ODP_INVALIDATIONS].name = "odp_invalidations",
	[SROCE_CNT_RAW_TX_PACKETS].name = "raw_tx_packets",
	[SROCE_CNT_RAW_RX_PACKETS].name = "raw_rx_packets",
	[SROCE_CNT_RAW_RX_DROPPED].name = "raw_rx_dropped",
	[SROCE_CNT_TX_YIELDED].name = "tx_yielded",
	[SROCE_CNT_TX_ICRC_ELIDED].name = "tx_icrc_elided",
	[SROCE_CNT_RX_ICRC_ELIDED].name = "rx_icrc_elided",
	[SROCE_CNT_RC_PACING_KBPS].name = "rc_pacing_kbps",
	[SROCE_CNT_RC_SRTT_US].name = "rc_srtt_us",
};

struct rdma_hw_stats *sroce_counters_alloc_stats(struct ib_device *ibdev,
						 u32 port_num)
{
	return rdma_alloc_hw_stats_struct(sroce_counter_descs, SROCE_CNT_MAX,
					  RDMA_HW_STATS_DEFAULT_LIFESPAN);
}

int sroce_counters_get_stats(struct ib_device *ibdev,
			     struct rdma_hw_stats *stats, u32 port, int index)
{
	struct sroce_dev *sdev = to_sdev(ibdev);
	int i;

	for (i = 0; i < SROCE_CNT_MAX; i++)
		stats->value[i] = atomic64_read(&sdev->cnt.c[i]);
	return SROCE_CNT_MAX;
}
