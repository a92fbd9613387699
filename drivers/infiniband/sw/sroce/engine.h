/* SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause */
/*
 * The RC transport engine: requester, responder, completer.  Each QP's
 * engine runs in one work item (qp->work) at a time, so its state needs no
 * lock; packets reach it through qp->rxq from softirq.  The internals
 * (WQE shadows, packet records, responder resources) are in rc.h.
 */
#ifndef _SROCE_ENGINE_H
#define _SROCE_ENGINE_H

#include <linux/types.h>
#include <linux/timer.h>
#include <linux/hrtimer.h>
#include <linux/skbuff.h>
#include <net/dst_cache.h>

#include "proto/req.h"
#include "proto/cc.h"
#include "proto/dcqcn.h"
#include "proto/sack.h"

struct sroce_qp;
struct sroce_dev;
struct sroce_swqe;
struct sroce_txpkt;
struct sroce_res;
struct sroce_recv_wqe;

/*
 * Packets of a QP still inside the local stack (qdisc, backlog, device
 * ring): counted up as they are sent, down by their skb destructor.
 * Refcounted apart from the QP, because an skb can outlive its QP.
 */
struct sroce_txacct {
	refcount_t ref;
	atomic_t inflight;
};

/*
 * Why the requester goes back, or its window moves: the tracepoints
 * (trace.h) print these.
 */
enum sroce_why {
	SROCE_WHY_TIMEOUT,	/* the retransmit timer expired */
	SROCE_WHY_SEQ_NAK,	/* a PSN sequence error NAK */
	SROCE_WHY_RNR_NAK,	/* receiver not ready */
	SROCE_WHY_IMPLIED,	/* a READ/ATOMIC response found lost */
	SROCE_WHY_LOCAL,	/* the local stack refused a packet */
	SROCE_WHY_ACK,		/* acknowledgements grew the window */
	SROCE_WHY_SACK,		/* a SACK showed a packet lost (sr.c) */
	SROCE_WHY_SACK_RESEND,	/* resending one packet a SACK found lost */
	SROCE_WHY_TLP,		/* a tail loss probe: the newest packet */
	SROCE_WHY_REFUSED,	/* a timeout, then the offer refused (sr.c) */
};

/* Congestion control policies (cc.c). */
enum sroce_cc_mode {
	SROCE_CC_AIMD,
	SROCE_CC_WAN,
	SROCE_CC_DCQCN,
};

/* The requester's side of the selective repeat negotiation (sr.c). */
enum sroce_sr_state {
	SROCE_SR_OFF,		/* standard go-back-N */
	SROCE_SR_OFFER,		/* offering; the first response decides */
	SROCE_SR_ON,		/* the peer agreed */
};

/* Bits of sroce_req.flags: the only engine state touched outside it. */
enum sroce_eng_flag {
	SROCE_ENG_STOPPED,	/* reset or destroy: no kicks, no timers */
	SROCE_ENG_AV_CHANGED,	/* modify_qp set an AV: drop cached routes */
	SROCE_ENG_RUNNING,	/* someone is in the engine (a bit lock) */
	SROCE_ENG_AGAIN,	/* new input since that run began */
	SROCE_ENG_CE,		/* a packet came CE-marked: owe a CNP */
	SROCE_ENG_CNP,		/* a CNP came: slow down (DCQCN) */
};

/*
 * Requester and completer state: the send side of the QP.
 *
 * Ring indices are free-running like the SQ's own: WQEs in
 * [qp->sq.index, fetch) have been copied out of the ring and validated
 * into wqes[]; qp->sq.index is the oldest one not yet retired (the
 * consumer index userspace sees, so a slot is reusable only once its WQE
 * completed); cur is the WQE being sent or resent; started is the first
 * WQE that was never sent.
 */
struct sroce_req {
	unsigned long flags;		/* enum sroce_eng_flag, atomic */
	int cpu;			/* home CPU of qp->work */
	bool ready;			/* set at RTS, store-release */
	struct timer_list timer;	/* retransmit and RNR waits */
	struct hrtimer backoff;		/* local queue full: retry soon */
	struct dst_cache dst_cache;
	struct sroce_txacct *txacct;
	bool via_lo;			/* last route went through lo */
	/*
	 * A train of data packets gathered into one UDP GSO skb (gso.c):
	 * open only while sroce_req_run() sends, empty outside it.
	 */
	bool gso_open;
	u8 gso_frags;			/* page fragments the train holds */
	u8 gso_ecn;			/* its ECN field */
	u32 gso_size;			/* UDP payload of its first packet */
	struct sk_buff_head gso_q;

	struct sroce_swqe *wqes;	/* one per SQ slot */
	u8 *raw;			/* the copies, one SQ stride each */
	u32 fetch;
	u32 cur;
	u32 cur_off;			/* next byte of cur to send */
	u32 started;
	u32 rd_atomic;			/* READ/ATOMIC started, not retired */

	u32 psn;			/* next PSN to (re)send */
	u32 psn_max;			/* one past the highest PSN sent */
	u32 una;			/* oldest unacknowledged PSN */
	u32 ackreq_psn;			/* last packet that asked for an ACK */

	/*
	 * One record per packet in flight, oldest at tail, in PSN order; a
	 * READ request is one record spanning its response PSNs.  The ring
	 * grows on demand, so the window is a policy, not a structure.
	 */
	struct sroce_txpkt *pkts;
	u32 pkt_cap;			/* power of two */
	u32 pkt_head;
	u32 pkt_tail;
	/*
	 * The window, in PSNs outstanding (READ responses included), AIMD
	 * (proto/req.c).  BDP estimates and pacing plug in here.
	 */
	struct sroce_cwnd cwnd;

	/*
	 * Congestion control (cc.c): the policy; the WAN model; packets
	 * delivered so far and when the last was, and this ACK's rate
	 * sample; the pace (0: none), when the next data packet is due
	 * (sroce_clock_ns()) and whether the last one went behind it.
	 * DCQCN's rate, and when this QP last sent a CNP (as a
	 * notification point, whatever its own policy).
	 */
	u8 cc;				/* enum sroce_cc_mode */
	struct sroce_wan wan;
	struct sroce_dcqcn dcqcn;
	u64 cnp_sent_ns;
	u64 delivered;
	u64 delivered_ns;
	u64 first_tx_ns;		/* sent: the last delivered packet */
	u64 app_limited;		/* delivered count ending it; 0: not */
	struct sroce_rate_sample rs;
	u64 pace_gap_ns;
	u64 pace_next_ns;
	bool pace_behind;
	u64 pace_kbps;			/* its share of rc_pacing_kbps */

	/*
	 * Selective repeat (sr.c): PSNs the peer holds beyond a gap, and
	 * records found lost and not resent yet; RACK's newest delivered
	 * packet (send time, round trip) and the reorder timer.
	 */
	u8 sr;				/* enum sroce_sr_state */
	/* ICRC elision (elide.c): we take it; the peer does, so we elide. */
	bool nocrc_ok;
	bool nocrc;
	/* Bytes per SEND/WRITE packet of new WQEs: qp->mtu, or large (seg.c). */
	u32 seg;
	u32 sacked;
	u32 sack_high;			/* end of the highest block reported */
	u32 lost;
	u64 rack_xmit_ns;
	u64 rack_rtt_ns;
	u64 rack_min_rtt_ns;		/* of packets sent once; 0: none yet */
	bool reo_armed;
	unsigned long reo_at;		/* jiffies */
	/* Tail loss probe: armed; a probe is out until una moves. */
	bool tlp_armed;
	bool tlp_out;
	/* Timed out while offering: go back N if the answer is no. */
	bool offer_rto;
	u32 tlp_psn;			/* the probe's */
	unsigned long tlp_at;		/* jiffies */

	/*
	 * The RTT, timed on one packet per round trip, never one sent
	 * twice; rtt_psn is its last PSN.
	 */
	struct sroce_rtt rtt;
	bool rtt_timing;
	u32 rtt_psn;
	u64 rtt_start_ns;		/* sroce_clock_ns() */
	u64 rx_now_ns;			/* sroce_req_rx_now(); 0: unread */
	u64 tx_now_ns;			/* sroce_req_tx_now(); 0: unread */

	u8 retry_left;
	u8 rnr_left;
	bool rewound;			/* resending from rewind_psn */
	u32 rewind_psn;
	bool rto_armed;
	u8 rto_deferred;		/* RTOs waited out: still queued here */
	unsigned long rto_at;		/* jiffies */
	bool rnr_wait;
	unsigned long rnr_at;		/* jiffies */
	bool drained;			/* SQD: SQ_DRAINED reported */

	/* Since the last RESET; read racily by restrack and debugfs. */
	u32 retransmits;		/* packets sent again */
	u32 timeouts;			/* retransmit timer expirations */
};

/* A READ response stream in progress (new or replayed). */
struct sroce_rdout {
	bool active;
	u64 va;
	u32 rkey;
	u32 length;
	u32 off;
	u32 psn;			/* of the next response packet */
	u32 xrc_srqn;			/* XRC TGT: whose SRQ's PD holds rkey */
};

/* Responder state: the receive side of the QP. */
struct sroce_resp {
	bool ready;			/* set at RTR, store-release */
	u32 epsn;			/* expected PSN */
	u32 msn;
	bool comm_est;			/* COMM_EST raised in this RTR */
	u8 nak;				/* a NAK for epsn is out: be quiet */
	/* Message in progress. */
	u8 msg;				/* enum sroce_op_kind or NONE */
	u32 xrc_srqn;			/* XRC TGT: the SRQ of that message */
	u32 offset;			/* bytes placed so far */
	u64 va;				/* WRITE: RETH */
	u32 rkey;
	u32 length;
	/* Receive WQE copied out of the RQ, retired when its message is. */
	struct sroce_recv_wqe *rwqe;
	bool have_rwqe;
	u64 rwqe_len;			/* bytes its SGEs hold */
	/* ACK coalescing: one ACK per engine run for what asked for one. */
	bool ack_due;
	u32 ack_psn;
	/* Requests waiting while READ responses go out. */
	struct sk_buff_head pending;
	/* Selective repeat (sr.c): requests held beyond a gap, PSN order. */
	bool sr_ok;			/* we may accept (device knob) */
	bool sr_peer;			/* the requester offered: we agree */
	bool nocrc_ok;			/* we take elided ICRCs (elide.c) */
	bool nocrc_peer;		/* and so does the requester: elide */
	bool seg_ok;			/* we take large segments (seg.c) */
	struct sk_buff_head ofo;
	u32 ofo_bytes;			/* their truesize */
	u32 ofo_unacked;		/* held since the last ACK */
	struct sroce_sack_map held;	/* the PSNs ofo holds, for SACKs */
	/* Responder resources: the last max_dest_rd_atomic READ/ATOMICs. */
	struct sroce_res *res;
	u32 nres;
	u32 res_next;
	struct sroce_rdout rd;
};

/*
 * Called by the verbs layer (qp.c), in process context, with no spinlock
 * held.  The state hooks run after qp->state holds the new state.
 * sroce_engine_qp_destroy() must come after the QP left the QPN table
 * (no packet can find it any more); after it returns the engine touches
 * nothing of the QP.
 */
int sroce_engine_qp_init(struct sroce_qp *qp);
void sroce_engine_qp_destroy(struct sroce_qp *qp);
void sroce_engine_qp_reset(struct sroce_qp *qp);
void sroce_engine_qp_rtr(struct sroce_qp *qp);
void sroce_engine_qp_rts(struct sroce_qp *qp);
void sroce_engine_qp_error(struct sroce_qp *qp);
/* Any context: queue a run on the QP's home CPU. */
void sroce_engine_kick(struct sroce_qp *qp);
/* Process context or softirq, IRQs on: run here if we may, else kick. */
void sroce_engine_poke(struct sroce_qp *qp);

/* Called by the receive path (net_rx.c) for a verified packet. */
void sroce_engine_recv(struct sroce_dev *sdev, struct sk_buff *skb, bool ce);
bool sroce_engine_steers(unsigned int len);
/* Queue a verified packet to @qp (mcast.c: one per member); consumes it. */
void sroce_engine_deliver(struct sroce_qp *qp, struct sk_buff *skb);

int sroce_engine_init(void);
void sroce_engine_exit(void);

/* crc.c: the ICRC's CRC32, accelerated where the CPU allows. */
void sroce_crc_init(void);
void sroce_crc_exit(void);

#endif /* _SROCE_ENGINE_H */
