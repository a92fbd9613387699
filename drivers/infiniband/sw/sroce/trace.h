/* SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause */
/*
 * Tracepoints of the transport, system "sroce": packets sent and
 * received, go-back-N rewinds, NAKs, QP state changes and congestion
 * window moves.  Disabled, each is a static branch not taken.
 *
 *   echo 1 > /sys/kernel/tracing/events/sroce/enable
 *   perf trace -e 'sroce:*'
 *
 * The events take plain numbers (and, for packets, a pointer to the BTH)
 * rather than the QP, so that this header needs no driver internals and
 * the values are read only when the event is enabled.
 */
#undef TRACE_SYSTEM
#define TRACE_SYSTEM sroce

#if !defined(_SROCE_TRACE_H) || defined(TRACE_HEADER_MULTI_READ)
#define _SROCE_TRACE_H

#include <linux/tracepoint.h>
#include <rdma/ib_verbs.h>

#include "engine.h"

TRACE_DEFINE_ENUM(SROCE_WHY_TIMEOUT);
TRACE_DEFINE_ENUM(SROCE_WHY_SEQ_NAK);
TRACE_DEFINE_ENUM(SROCE_WHY_RNR_NAK);
TRACE_DEFINE_ENUM(SROCE_WHY_IMPLIED);
TRACE_DEFINE_ENUM(SROCE_WHY_LOCAL);
TRACE_DEFINE_ENUM(SROCE_WHY_ACK);
TRACE_DEFINE_ENUM(SROCE_WHY_SACK);
TRACE_DEFINE_ENUM(SROCE_WHY_SACK_RESEND);
TRACE_DEFINE_ENUM(SROCE_WHY_TLP);
TRACE_DEFINE_ENUM(SROCE_WHY_REFUSED);

#define sroce_show_why(w)					\
	__print_symbolic(w,					\
			 { SROCE_WHY_TIMEOUT, "timeout" },	\
			 { SROCE_WHY_SEQ_NAK, "seq_nak" },	\
			 { SROCE_WHY_RNR_NAK, "rnr_nak" },	\
			 { SROCE_WHY_IMPLIED, "implied_nak" },	\
			 { SROCE_WHY_LOCAL, "local" },		\
			 { SROCE_WHY_ACK, "ack" },		\
			 { SROCE_WHY_SACK, "sack" },		\
			 { SROCE_WHY_SACK_RESEND, "sack_resend" },	\
			 { SROCE_WHY_TLP, "tlp" },		\
			 { SROCE_WHY_REFUSED, "refused" })

TRACE_DEFINE_ENUM(IB_QPS_RESET);
TRACE_DEFINE_ENUM(IB_QPS_INIT);
TRACE_DEFINE_ENUM(IB_QPS_RTR);
TRACE_DEFINE_ENUM(IB_QPS_RTS);
TRACE_DEFINE_ENUM(IB_QPS_SQD);
TRACE_DEFINE_ENUM(IB_QPS_SQE);
TRACE_DEFINE_ENUM(IB_QPS_ERR);

#define sroce_show_qps(s)				\
	__print_symbolic(s,				\
			 { IB_QPS_RESET, "RESET" },	\
			 { IB_QPS_INIT, "INIT" },	\
			 { IB_QPS_RTR, "RTR" },		\
			 { IB_QPS_RTS, "RTS" },		\
			 { IB_QPS_SQD, "SQD" },		\
			 { IB_QPS_SQE, "SQE" },		\
			 { IB_QPS_ERR, "ERR" })

/*
 * A packet, at its BTH: @qpn is the local QP (TX) or the BTH's
 * destination QP (RX); @len runs from the BTH to the end of the ICRC.
 */
DECLARE_EVENT_CLASS(sroce_pkt,
	TP_PROTO(u32 qpn, const u8 *bth, u32 len),
	TP_ARGS(qpn, bth, len),
	TP_STRUCT__entry(
		__field(u32, qpn)
		__field(u32, dqpn)
		__field(u32, psn)
		__field(u32, len)
		__field(u8, opcode)
		__field(bool, ackreq)
	),
	TP_fast_assign(
		__entry->qpn = qpn;
		__entry->dqpn = bth[5] << 16 | bth[6] << 8 | bth[7];
		__entry->psn = bth[9] << 16 | bth[10] << 8 | bth[11];
		__entry->len = len;
		__entry->opcode = bth[0];
		__entry->ackreq = bth[8] >> 7;
	),
	TP_printk("qpn=%u dqpn=%u opcode=0x%02x psn=%u len=%u%s",
		  __entry->qpn, __entry->dqpn, __entry->opcode, __entry->psn,
		  __entry->len, __entry->ackreq ? " ackreq" : "")
);

DEFINE_EVENT(sroce_pkt, sroce_tx,
	TP_PROTO(u32 qpn, const u8 *bth, u32 len),
	TP_ARGS(qpn, bth, len)
);

DEFINE_EVENT(sroce_pkt, sroce_rx,
	TP_PROTO(u32 qpn, const u8 *bth, u32 len),
	TP_ARGS(qpn, bth, len)
);

/* Go-back-N: the requester resends from @psn; @psn_max was the front. */
TRACE_EVENT(sroce_rewind,
	TP_PROTO(u32 qpn, u32 psn, u32 psn_max, enum sroce_why why),
	TP_ARGS(qpn, psn, psn_max, why),
	TP_STRUCT__entry(
		__field(u32, qpn)
		__field(u32, psn)
		__field(u32, psn_max)
		__field(u32, why)
	),
	TP_fast_assign(
		__entry->qpn = qpn;
		__entry->psn = psn;
		__entry->psn_max = psn_max;
		__entry->why = why;
	),
	TP_printk("qpn=%u psn=%u psn_max=%u reason=%s",
		  __entry->qpn, __entry->psn, __entry->psn_max,
		  sroce_show_why(__entry->why))
);

/* A NAK's AETH syndrome: bits 6:5 are 01 for RNR, 11 for the others. */
DECLARE_EVENT_CLASS(sroce_nak,
	TP_PROTO(u32 qpn, u32 psn, u8 syndrome),
	TP_ARGS(qpn, psn, syndrome),
	TP_STRUCT__entry(
		__field(u32, qpn)
		__field(u32, psn)
		__field(u8, syndrome)
	),
	TP_fast_assign(
		__entry->qpn = qpn;
		__entry->psn = psn;
		__entry->syndrome = syndrome;
	),
	TP_printk("qpn=%u psn=%u syndrome=0x%02x", __entry->qpn,
		  __entry->psn, __entry->syndrome)
);

DEFINE_EVENT(sroce_nak, sroce_nak_send,
	TP_PROTO(u32 qpn, u32 psn, u8 syndrome),
	TP_ARGS(qpn, psn, syndrome)
);

DEFINE_EVENT(sroce_nak, sroce_nak_recv,
	TP_PROTO(u32 qpn, u32 psn, u8 syndrome),
	TP_ARGS(qpn, psn, syndrome)
);

TRACE_EVENT(sroce_qp_state,
	TP_PROTO(u32 qpn, enum ib_qp_state old, enum ib_qp_state new),
	TP_ARGS(qpn, old, new),
	TP_STRUCT__entry(
		__field(u32, qpn)
		__field(u32, old)
		__field(u32, new)
	),
	TP_fast_assign(
		__entry->qpn = qpn;
		__entry->old = old;
		__entry->new = new;
	),
	TP_printk("qpn=%u %s -> %s", __entry->qpn,
		  sroce_show_qps(__entry->old), sroce_show_qps(__entry->new))
);

/* The congestion window (PSNs outstanding) moved to @cwnd. */
TRACE_EVENT(sroce_cwnd,
	TP_PROTO(u32 qpn, u32 cwnd, enum sroce_why why),
	TP_ARGS(qpn, cwnd, why),
	TP_STRUCT__entry(
		__field(u32, qpn)
		__field(u32, cwnd)
		__field(u32, why)
	),
	TP_fast_assign(
		__entry->qpn = qpn;
		__entry->cwnd = cwnd;
		__entry->why = why;
	),
	TP_printk("qpn=%u cwnd=%u reason=%s", __entry->qpn, __entry->cwnd,
		  sroce_show_why(__entry->why))
);

/* DCQCN cut the pace to @pps on a CNP; @alpha in 1/65536 (cc.c). */
TRACE_EVENT(sroce_dcqcn_cut,
	TP_PROTO(u32 qpn, u64 pps, u32 alpha),
	TP_ARGS(qpn, pps, alpha),
	TP_STRUCT__entry(
		__field(u32, qpn)
		__field(u64, pps)
		__field(u32, alpha)
	),
	TP_fast_assign(
		__entry->qpn = qpn;
		__entry->pps = pps;
		__entry->alpha = alpha;
	),
	TP_printk("qpn=%u pps=%llu alpha=%u/65536", __entry->qpn,
		  __entry->pps, __entry->alpha)
);

/*
 * A WAN rate sample (cc.c): @n PSNs delivered since the newest acked
 * packet left, over the longer of the time the ACKs took (@ack_us) and
 * the time the packets took to leave (@send_us); the model's bandwidth
 * and min RTT after it.  What a wrong estimate is made of.
 */
TRACE_EVENT(sroce_rate,
	TP_PROTO(u32 qpn, u64 n, u64 ack_ns, u64 send_ns, u64 rtt_ns,
		 bool app_limited, u64 bw_pps, u64 min_rtt_ns),
	TP_ARGS(qpn, n, ack_ns, send_ns, rtt_ns, app_limited, bw_pps,
		min_rtt_ns),
	TP_STRUCT__entry(
		__field(u32, qpn)
		__field(u32, n)
		__field(u32, ack_us)
		__field(u32, send_us)
		__field(u32, rtt_us)
		__field(bool, app_limited)
		__field(u32, bw_pps)
		__field(u32, min_rtt_us)
	),
	TP_fast_assign(
		__entry->qpn = qpn;
		__entry->n = (u32)n;
		__entry->ack_us = (u32)div_u64(ack_ns, NSEC_PER_USEC);
		__entry->send_us = (u32)div_u64(send_ns, NSEC_PER_USEC);
		__entry->rtt_us = (u32)div_u64(rtt_ns, NSEC_PER_USEC);
		__entry->app_limited = app_limited;
		__entry->bw_pps = (u32)bw_pps;
		__entry->min_rtt_us = (u32)div_u64(min_rtt_ns, NSEC_PER_USEC);
	),
	TP_printk("qpn=%u n=%u ack_us=%u send_us=%u rtt_us=%u app_limited=%d bw_pps=%u min_rtt_us=%u",
		  __entry->qpn, __entry->n, __entry->ack_us, __entry->send_us,
		  __entry->rtt_us, __entry->app_limited, __entry->bw_pps,
		  __entry->min_rtt_us)
);

/* The peer's answer to the selective repeat offer (sr.c). */
TRACE_EVENT(sroce_sr,
	TP_PROTO(u32 qpn, u8 state),
	TP_ARGS(qpn, state),
	TP_STRUCT__entry(
		__field(u32, qpn)
		__field(u8, state)
	),
	TP_fast_assign(
		__entry->qpn = qpn;
		__entry->state = state;
	),
	TP_printk("qpn=%u selective_repeat=%s", __entry->qpn,
		  __entry->state == SROCE_SR_ON ? "on" : "off")
);

#endif /* _SROCE_TRACE_H */

/* Out of tree: define_trace.h finds us through -I$(src) (Kbuild). */
#undef TRACE_INCLUDE_PATH
#define TRACE_INCLUDE_PATH .
#undef TRACE_INCLUDE_FILE
#define TRACE_INCLUDE_FILE trace
#include <trace/define_trace.h>
