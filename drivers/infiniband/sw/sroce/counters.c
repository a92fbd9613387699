// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * Counter names (see counters.h).
 */
#include "counters.h"

const char * const sroce_counter_names[SROCE_CNT_MAX] = {
	[SROCE_CNT_TX_PACKETS] = "tx_packets",
	[SROCE_CNT_TX_BYTES] = "tx_bytes",
	[SROCE_CNT_TX_DROPPED] = "tx_dropped",
	[SROCE_CNT_TX_BUSY] = "tx_busy",
	[SROCE_CNT_RX_PACKETS] = "rx_packets",
	[SROCE_CNT_RX_BYTES] = "rx_bytes",
	[SROCE_CNT_RX_BAD_HDR] = "rx_bad_hdr",
	[SROCE_CNT_RX_ICRC_ERR] = "rx_icrc_err",
	[SROCE_CNT_RX_BAD_PKEY] = "rx_bad_pkey",
	[SROCE_CNT_RX_BAD_TRANSPORT] = "rx_bad_transport",
	[SROCE_CNT_RX_UNKNOWN_QP] = "rx_unknown_qp",
	[SROCE_CNT_RX_GSI] = "rx_gsi",
	[SROCE_CNT_RX_DROPPED] = "rx_dropped",
	[SROCE_CNT_RX_DUP_REQ] = "rx_dup_requests",
	[SROCE_CNT_RX_OOS_REQ] = "rx_out_of_sequence",
	[SROCE_CNT_RX_STALE_RESP] = "rx_stale_responses",
	[SROCE_CNT_RX_BAD_RESP] = "rx_bad_responses",
	[SROCE_CNT_ACKS_SENT] = "acks_sent",
	[SROCE_CNT_ACKS_RCVD] = "acks_received",
	[SROCE_CNT_SEQ_NAKS_SENT] = "seq_naks_sent",
	[SROCE_CNT_SEQ_NAKS_RCVD] = "seq_naks_received",
	[SROCE_CNT_RNR_NAKS_SENT] = "rnr_naks_sent",
	[SROCE_CNT_RNR_NAKS_RCVD] = "rnr_naks_received",
	[SROCE_CNT_ERR_NAKS_SENT] = "err_naks_sent",
	[SROCE_CNT_ERR_NAKS_RCVD] = "err_naks_received",
	[SROCE_CNT_RETRANSMITS] = "retransmits",
	[SROCE_CNT_TIMEOUTS] = "timeouts",
	[SROCE_CNT_RETRY_EXCEEDED] = "retry_exceeded",
	[SROCE_CNT_RNR_RETRY_EXCEEDED] = "rnr_retry_exceeded",
	[SROCE_CNT_IMPLIED_NAKS] = "implied_naks",
	[SROCE_CNT_DUP_READS] = "dup_reads",
	[SROCE_CNT_DUP_ATOMICS] = "dup_atomics",
	[SROCE_CNT_BAD_WQES] = "bad_wqes",
};
