// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * A snapshot of a QP's transport state, for restrack and debugfs.
 *
 * The engine's state has no lock a reader could take: it belongs to
 * whoever holds the SROCE_ENG_RUNNING bit (engine.c), and that bit is
 * never waited on, least of all from here, since a reader that stalled
 * the engine would change what it measures.  So each field is read once
 * with READ_ONCE() while the engine may be running: every value is one
 * the field really held, but two fields may be a packet or an ACK apart.
 * The caller holds a reference on the QP, so its memory stays.
 */
#include "sroce.h"
#include "rc.h"
#include "observe.h"

static void sroce_qp_snap_put(struct sroce_qp_snap *s, const char *name,
			      u32 val, bool seq)
{
	if (WARN_ON_ONCE(s->n >= SROCE_SNAP_FIELDS_MAX))
		return;
	s->f[s->n].name = name;
	s->f[s->n].val = val;
	s->f[s->n].seq = seq;
	s->n++;
}

static void sroce_qp_snap_add(struct sroce_qp_snap *s, const char *name,
			      u32 val)
{
	sroce_qp_snap_put(s, name, val, false);
}

/* A live PSN or MSN: with it and the QPN, a packet would be accepted. */
static void sroce_qp_snap_add_seq(struct sroce_qp_snap *s, const char *name,
				  u32 val)
{
	sroce_qp_snap_put(s, name, val, true);
}

static u32 sroce_qp_snap_u32(u64 v)
{
	return v > U32_MAX ? U32_MAX : v;
}

/* The requester's and responder's sequence state, window and RTT. */
static void sroce_qp_snap_rc(struct sroce_qp *qp, struct sroce_qp_snap *s)
{
	struct sroce_req *req = &qp->req;
	u32 una, psn_max;

	/*
	 * una never passes psn_max, and psn_max only grows: read in this
	 * order, the difference cannot go negative within one connection.
	 * The engine orders its stores only by program order and its bit
	 * lock, so on a weakly ordered CPU (and after a RESET, when both
	 * jump) it still may: clamp rather than show 16 million.
	 */
	una = READ_ONCE(req->una);
	/* una's load before psn_max's, as above. */
	smp_rmb();
	psn_max = READ_ONCE(req->psn_max);
	sroce_qp_snap_add_seq(s, "psn_una", una);
	sroce_qp_snap_add_seq(s, "psn_max", psn_max);
	sroce_qp_snap_add(s, "in_flight", sroce_psn_before(psn_max, una) ?
			  0 : sroce_psn_sub(psn_max, una));
	sroce_qp_snap_add_seq(s, "psn_expected", READ_ONCE(qp->resp.epsn));
	sroce_qp_snap_add_seq(s, "msn", READ_ONCE(qp->resp.msn) & SROCE_PSN_MASK);
	sroce_qp_snap_add(s, "cwnd", READ_ONCE(req->cwnd.cwnd));
	/* 0 until the first sample. */
	sroce_qp_snap_add(s, "srtt_us", READ_ONCE(req->rtt.srtt_us));
	sroce_qp_snap_add(s, "rttvar_us", READ_ONCE(req->rtt.rttvar_us));
	sroce_qp_snap_add(s, "retransmits", READ_ONCE(req->retransmits));
	sroce_qp_snap_add(s, "timeouts", READ_ONCE(req->timeouts));
	sroce_qp_snap_add(s, "retry_left", READ_ONCE(req->retry_left));
	sroce_qp_snap_add(s, "tx_queued",
			  atomic_read(&req->txacct->inflight));
	/* Selective repeat (sr.c): held by the peer, lost, held here. */
	sroce_qp_snap_add(s, "sacked", READ_ONCE(req->sacked));
	sroce_qp_snap_add(s, "lost", READ_ONCE(req->lost));
	sroce_qp_snap_add(s, "ofo_held", skb_queue_len_lockless(&qp->resp.ofo));
	/* RACK's minimum RTT (sr.c): 0 without selective repeat. */
	sroce_qp_snap_add(s, "rack_min_rtt_us",
			  sroce_qp_snap_u32(div_u64(READ_ONCE(req->rack_min_rtt_ns),
						    NSEC_PER_USEC)));
	/* The WAN model (cc.c): 0 under AIMD or before the first sample. */
	sroce_qp_snap_add(s, "bw_pps", sroce_qp_snap_u32(sroce_wan_bw(&req->wan)));
	sroce_qp_snap_add(s, "min_rtt_us",
			  sroce_qp_snap_u32(div_u64(READ_ONCE(req->wan.min_rtt_ns),
						    NSEC_PER_USEC)));
	sroce_qp_snap_add(s, "wan_state", READ_ONCE(req->wan.state));
	sroce_qp_snap_add(s, "wan_share", READ_ONCE(req->wan.share_cwnd));
	sroce_qp_snap_add(s, "pace_pps", READ_ONCE(req->pace_gap_ns) ?
			  sroce_qp_snap_u32(div64_u64(NSEC_PER_SEC,
						      READ_ONCE(req->pace_gap_ns))) :
			  0);
	/* DCQCN (cc.c): cuts so far, alpha in 1/65536. */
	sroce_qp_snap_add(s, "dcqcn_cuts", READ_ONCE(req->dcqcn.cuts));
	sroce_qp_snap_add(s, "dcqcn_alpha", READ_ONCE(req->dcqcn.alpha));
	/* ICRC elision (elide.c): our requests, our responses. */
	sroce_qp_snap_add(s, "elide_req", READ_ONCE(req->nocrc));
	sroce_qp_snap_add(s, "elide_resp", READ_ONCE(qp->resp.nocrc_peer));
	/* Large segments (seg.c): bytes per SEND/WRITE packet now. */
	sroce_qp_snap_add(s, "seg", READ_ONCE(req->seg));
	s->cc = sroce_cc_name(qp);
	s->sr = sroce_sr_name(qp);
}

void sroce_qp_snap(struct sroce_qp *qp, struct sroce_qp_snap *s)
{
	s->qpn = qp->obj.index;
	s->type = qp->ibqp.qp_type;
	s->state = READ_ONCE(qp->state);
	s->cc = NULL;
	s->sr = NULL;
	s->n = 0;
	sroce_qp_snap_add(s, "home_cpu", READ_ONCE(qp->req.cpu));
	sroce_qp_snap_add(s, "prio", sroce_qp_prio(qp));
	sroce_qp_snap_add_seq(s, "psn_next", READ_ONCE(qp->req.psn));
	/* XRC QPs run the RC engine (xrc.h). */
	if (s->type == IB_QPT_RC || sroce_qp_is_xrc(qp))
		sroce_qp_snap_rc(qp, s);
}

const char *sroce_qp_type_name(enum ib_qp_type type)
{
	switch (type) {
	case IB_QPT_RC:
		return "RC";
	case IB_QPT_UC:
		return "UC";
	case IB_QPT_UD:
		return "UD";
	case IB_QPT_GSI:
		return "GSI";
	case IB_QPT_XRC_INI:
		return "XRC_INI";
	case IB_QPT_XRC_TGT:
		return "XRC_TGT";
	case IB_QPT_RAW_PACKET:
		return "RAW_PACKET";
	default:
		return "?";
	}
}

const char *sroce_qp_state_name(enum ib_qp_state state)
{
	static const char * const names[] = {
		[IB_QPS_RESET] = "RESET",
		[IB_QPS_INIT] = "INIT",
		[IB_QPS_RTR] = "RTR",
		[IB_QPS_RTS] = "RTS",
		[IB_QPS_SQD] = "SQD",
		[IB_QPS_SQE] = "SQE",
		[IB_QPS_ERR] = "ERR",
	};

	return (unsigned int)state < ARRAY_SIZE(names) ? names[state] : "?";
}
