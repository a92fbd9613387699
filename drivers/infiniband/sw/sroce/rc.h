/* SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause */
/*
 * Internals of the RC transport engine, shared by engine.c (dispatch and
 * lifecycle), req.c (requester), comp.c (completer), resp.c (responder),
 * copy.c (data movement) and net_tx.c/net_rx.c (the UDP/IP path).
 * Include after sroce.h.
 */
#ifndef _SROCE_RC_H
#define _SROCE_RC_H

#include "proto/wire.h"
#include "proto/psn.h"
#include "proto/aeth.h"
#include "proto/icrc.h"
#include "proto/req.h"
#include "proto/sack.h"
#include "proto/resp.h"
#include "counters.h"

#include <linux/timekeeping.h>

/* Packets each stage may handle per engine run before yielding. */
#define SROCE_BUDGET		64
/* Packets waiting for a QP's engine before we drop (a flood bound). */
#define SROCE_RXQ_MAX		8192
/* Ask for an ACK at least this often inside long messages. */
#define SROCE_ACKREQ_EVERY	64
/*
 * ... and, when paced, at least every 1 ms of sending: a slow pace would
 * otherwise hold the oldest packet's ACK for as long as the pace takes to
 * send the distance, longer than the RTO (a spurious timeout), and make
 * every RTT sample that much longer.
 */
#define SROCE_ACKREQ_PACED_NS	1000000ULL
/*
 * Send window, PSNs: the congestion window starts at the default and
 * moves between the minimum and the maximum.  The maximum holds a
 * 100 Mbit/s, 200 ms path's bandwidth-delay product at a 1024-byte MTU
 * three times over, and bounds the packet records (16 bytes each).
 */
#define SROCE_WINDOW_DEFAULT	1024
#define SROCE_WINDOW_MAX	8192
#define SROCE_CWND_MIN		16
/* Additive increase: one more PSN of window per this many acknowledged. */
#define SROCE_CWND_GROW_EVERY	8
/* Packet records to start with; the ring grows as the window fills. */
#define SROCE_PKTS_MIN		64
/* The spec's hard limit on PSNs outstanding, minus one for safety. */
#define SROCE_PSN_INFLIGHT_MAX	(SROCE_PSN_HALF - 1)
/*
 * A packet the local stack refused (its queue or the backlog is full) is
 * tried again after this long: long enough for a softirq to drain a
 * backlog, far shorter than a jiffy.
 */
#define SROCE_BACKOFF_NS	(50 * NSEC_PER_USEC)
/*
 * Packets of one QP allowed in the local stack at once (TCP small
 * queues' idea): beyond it a QP would only fill the qdisc or the
 * backlog (1000 packets by default) and lose packets to itself.
 */
#define SROCE_TX_INFLIGHT_MAX	256
/* RTOs in a row a QP may wait out while its packets are still queued. */
#define SROCE_RTO_DEFER_MAX	8
/* A send WQE copied out of the SQ and validated (req.c). */
struct sroce_swqe {
	u64 wr_id;
	u64 remote_addr;
	u64 compare_add;
	u64 swap;
	u32 rkey;
	u32 imm;			/* network order, as posted */
	u32 opcode;			/* IB_UVERBS_WR_* */
	u32 send_flags;			/* IB_SEND_* */
	u32 length;			/* message bytes */
	u32 num_sge;
	u32 xrc_srqn;			/* XRC INI: the SRQ at the target */
	const struct sroce_sge *sge;	/* in req.raw */
	const u8 *inline_data;		/* in req.raw, or NULL */
	u8 kind;			/* enum sroce_op_kind */
	u8 status;			/* not SUCCESS: fails when retired */
	bool started;
	u32 first_psn;
	u32 npsn;			/* PSNs: packets, or READ responses */
	u32 seg;			/* bytes per packet but the last */
	u32 rd_pkts;			/* READ: response packets placed */
};

/* Scoreboard bits of a packet in flight (sr.c). */
enum {
	SROCE_TXPKT_SACKED	= 1 << 0,	/* the peer holds it */
	SROCE_TXPKT_LOST	= 1 << 1,	/* to be resent */
	SROCE_TXPKT_RESENT	= 1 << 2,	/* sent more than once */
	SROCE_TXPKT_APP_LIMITED	= 1 << 3,	/* sent with the SQ run dry */
	SROCE_TXPKT_LATE	= 1 << 4,	/* sent behind its pace */
};

/* A packet in flight (req.pkts). */
struct sroce_txpkt {
	u32 psn;
	u32 npsn;
	u32 wqe;			/* SQ index */
	u8 flags;			/* SROCE_TXPKT_* */
	u64 xmit_ns;			/* sroce_clock_ns() when last sent */
	u64 del;			/* req.delivered when sent (cc.c) */
	u64 del_ns;			/* req.delivered_ns then */
	u64 first_tx_ns;		/* req.first_tx_ns then */
};

/* A responder resource: enough to answer a duplicate READ or ATOMIC. */
struct sroce_res {
	u8 kind;			/* SROCE_OPK_READ_REQ, _CMP_SWAP... */
	u32 psn;
	u32 npsn;
	u64 orig;			/* ATOMIC: the value returned */
};

/*
 * The transport's clock, for round trips, RACK and pacing: one for all
 * CPUs, as TCP's.  Not local_clock(): a packet's send and its ACK are
 * often seen on different CPUs, and where the kernel finds the TSC
 * unstable (a TCG guest does) local_clock() may differ between them; 52
 * once measured a 40 ms path's minimum round trip as 39.75 ms.
 */
static inline u64 sroce_clock_ns(void)
{
	return ktime_get_ns();
}

/*
 * When the responses the engine is taking in arrived, for their RTT and
 * rate samples: read once per batch (sroce_engine_rx()), not once per
 * packet.  They all sat on rxq before the batch began, so a clock read
 * per packet would add the time spent on the ones before it, and under
 * TCG each read is an HPET access (4 % of a READ stream's samples).
 */
static inline u64 sroce_req_rx_now(struct sroce_req *req)
{
	if (!req->rx_now_ns)
		req->rx_now_ns = sroce_clock_ns();
	return req->rx_now_ns;
}

/*
 * The requester's time for the packets it is about to send: read once
 * per packet that enters IP, or once per train (gso.c), whose packets
 * enter IP together; three reads a packet (its send time, the pacing
 * check, the next pacing slot) were 9 % of a sending guest's samples
 * under TCG, where each is an HPET access.  Forgotten whenever packets
 * have gone to IP (softirqs may run there, for milliseconds on a busy
 * guest: a later send time read before them would make a round trip
 * look shorter than it was; read earlier, it can only look longer).
 */
static inline u64 sroce_req_tx_now(struct sroce_req *req)
{
	if (!req->tx_now_ns)
		req->tx_now_ns = sroce_clock_ns();
	return req->tx_now_ns;
}

static inline struct sroce_counters *sroce_qp_cnt(struct sroce_qp *qp)
{
	return &qp->sdev->cnt;
}

static inline struct sroce_swqe *sroce_req_wqe(struct sroce_qp *qp, u32 i)
{
	return &qp->req.wqes[i & qp->sq.mask];
}

/* Record @i of the packet ring (free-running index). */
static inline struct sroce_txpkt *sroce_req_pkt(struct sroce_req *req, u32 i)
{
	return &req->pkts[i & (req->pkt_cap - 1)];
}

/* PSNs sent and neither acknowledged nor held by the peer. */
static inline u32 sroce_req_in_flight(const struct sroce_req *req)
{
	u32 out = sroce_psn_sub(req->psn_max, req->una);

	return out - min(out, req->sacked);
}

static inline bool sroce_kind_is_rd_atomic(u8 kind)
{
	return kind == SROCE_OPK_READ_REQ || kind == SROCE_OPK_CMP_SWAP ||
	       kind == SROCE_OPK_FETCH_ADD;
}

/* engine.c */
void sroce_engine_cqe(struct sroce_qp *qp, struct sroce_cq *cq,
		      struct sroce_cqe *cqe, bool solicited);
void sroce_engine_fatal(struct sroce_qp *qp, enum ib_event_type event);
void sroce_engine_error(struct sroce_qp *qp);
void sroce_engine_backoff(struct sroce_qp *qp);
void sroce_engine_backoff_ns(struct sroce_qp *qp, u64 ns);

/* net_tx.c */
void sroce_tx_hdr_init(const struct sroce_qp *qp, struct sroce_pkt_hdr *h,
		       u8 opcode, u32 psn);
struct sk_buff *sroce_tx_alloc(struct sroce_qp *qp, struct sroce_pkt_hdr *h,
			       u32 paylen);
struct sroce_data;
bool sroce_tx_zc_wanted(const struct sroce_qp *qp, u32 paylen);
struct sk_buff *sroce_tx_alloc_data(struct sroce_qp *qp,
				    struct sroce_pkt_hdr *h, u32 paylen,
				    bool zc, struct sroce_data *d);
int sroce_tx_data_done(struct sk_buff *skb, const struct sroce_pkt_hdr *h,
		       const struct sroce_data *d);
int sroce_tx_xmit(struct sroce_qp *qp, struct sk_buff *skb);
bool sroce_tx_throttled(struct sroce_qp *qp);
bool sroce_tx_outranked(const struct sroce_qp *qp);
/* local.c: packets for a sroce device of this host, past lo. */
struct sroce_dev *sroce_local_target(struct net *net,
				     const struct dst_entry *dst,
				     const struct sroce_av *av);
int sroce_local_xmit(struct sroce_dev *sdev, struct sk_buff *skb);
void sroce_tx_train(struct sroce_qp *qp, struct sk_buff_head *q, u8 ecn);

/* gso.c */
void sroce_gso_open(struct sroce_qp *qp);
bool sroce_gso_add(struct sroce_qp *qp, struct sk_buff *skb, u8 ecn);
void sroce_gso_flush(struct sroce_qp *qp);
void sroce_gso_close(struct sroce_qp *qp);

/* Count @skb against @qp until it leaves the host (raw.c sends its own). */
void sroce_tx_set_owner(struct sroce_qp *qp, struct sk_buff *skb);
struct sroce_txacct *sroce_txacct_alloc(void);
void sroce_txacct_put(struct sroce_txacct *acct);

/* crc.c */
u32 sroce_crc32(u32 crc, const void *p, size_t n);

/* net_rx.c */
/* What the receive path tells the engine of a packet it queued. */
struct sroce_rx_cb {
	bool icrc_later;	/* ICRC not checked yet: the engine does */
	bool udp_csum;		/* a verified UDP checksum covers it */
};

static inline struct sroce_rx_cb *sroce_rx_cb(struct sk_buff *skb)
{
	BUILD_BUG_ON(sizeof(struct sroce_rx_cb) > sizeof(skb->cb));
	return (struct sroce_rx_cb *)skb->cb;
}

bool sroce_rx_icrc_verify(struct sk_buff *skb);
void sroce_rx_drop(struct sroce_dev *sdev, struct sk_buff *skb,
		   enum sroce_counter why);
void sroce_icrc_skb(struct sroce_icrc_ctx *ctx, struct sk_buff *skb,
		    unsigned int off, unsigned int len);

/*
 * copy.c: bytes between packets or buffers and local memory.  A
 * sroce_data is where the other end of a copy is: an skb at an offset or
 * a linear buffer.  Zero-copy transmit will add page fragments here.
 */
struct sroce_data {
	struct sk_buff *skb;		/* source: payload of a packet */
	u8 *buf;			/* or a linear buffer */
	unsigned int off;
	/*
	 * From memory only: attach the pages to @skb as fragments instead
	 * of copying (zero-copy TX); -E2BIG where that cannot be done.
	 */
	bool zc;
};

int sroce_copy_sgl(struct sroce_qp *qp, const struct sroce_sge *sge,
		   u32 num_sge, u64 off, u32 len, struct sroce_data *d,
		   bool to_mem);
int sroce_copy_sgl_pd(struct sroce_qp *qp, struct sroce_pd *pd,
		      const struct sroce_sge *sge, u32 num_sge, u64 off,
		      u32 len, struct sroce_data *d, bool to_mem);
void sroce_copy_sgl_hint(struct sroce_qp *qp, const struct sroce_sge *sge,
			 u32 num_sge);
int sroce_copy_sgl_ready(struct sroce_qp *qp, const struct sroce_sge *sge,
			 u32 num_sge);
int sroce_copy_sgl_check(struct sroce_qp *qp, const struct sroce_sge *sge,
			 u32 num_sge, int access, u64 *total);
int sroce_copy_remote(struct sroce_qp *qp, u32 rkey, u64 va, u32 len,
		      struct sroce_data *d, bool to_mem);
int sroce_copy_check_remote(struct sroce_qp *qp, u32 rkey, u64 va, u32 len,
			    int access);
int sroce_copy_atomic(struct sroce_qp *qp, u32 rkey, u64 va, bool cmp_swap,
		      u64 compare_add, u64 swap, u64 *orig);
int sroce_copy_atomic_write(struct sroce_qp *qp, u32 rkey, u64 va, u64 val);

/* req.c */
int sroce_req_init(struct sroce_qp *qp);
void sroce_req_free(struct sroce_qp *qp);
void sroce_req_reset(struct sroce_qp *qp);
void sroce_req_arm(struct sroce_qp *qp);
bool sroce_req_run(struct sroce_qp *qp, int budget);
bool sroce_req_has_work(struct sroce_qp *qp);
void sroce_req_rewind(struct sroce_qp *qp, u32 psn, enum sroce_why why);
void sroce_req_seek(struct sroce_qp *qp, u32 psn);
void sroce_req_timer_set(struct sroce_qp *qp, unsigned long when);
void sroce_req_restart_rto(struct sroce_qp *qp);
unsigned long sroce_req_rto(const struct sroce_qp *qp);
bool sroce_req_flush(struct sroce_qp *qp, int budget);

/* comp.c */
void sroce_comp_recv(struct sroce_qp *qp, struct sk_buff *skb,
		     const struct sroce_pkt_hdr *h);
void sroce_comp_timers(struct sroce_qp *qp);
void sroce_comp_ack(struct sroce_qp *qp, u32 psn);
void sroce_comp_retire_errors(struct sroce_qp *qp);
void sroce_comp_retire_local(struct sroce_qp *qp);
void sroce_comp_wqe(struct sroce_qp *qp, struct sroce_swqe *w,
		    enum ib_wc_status status);

/* cc.c: congestion control and pacing */
void sroce_cc_arm(struct sroce_qp *qp);
const char *sroce_cc_name(const struct sroce_qp *qp);
void sroce_cc_loss(struct sroce_qp *qp, enum sroce_why why);
void sroce_cc_acked(struct sroce_qp *qp, u32 n);
void sroce_cc_sent(struct sroce_req *req, struct sroce_txpkt *p);
void sroce_cc_app_idle(struct sroce_req *req);
void sroce_cc_delivered(struct sroce_req *req, const struct sroce_txpkt *p,
			u64 now);
void sroce_cc_ack_done(struct sroce_qp *qp);
bool sroce_cc_pace_ok(struct sroce_qp *qp);
void sroce_cc_paced(struct sroce_qp *qp, u32 len);
void sroce_cc_signals(struct sroce_qp *qp);
void sroce_cc_set_pace(struct sroce_qp *qp, u64 pps);
void sroce_cc_rtt_gauge(struct sroce_qp *qp, u64 us);
u8 sroce_cc_ecn(const struct sroce_qp *qp, u8 opcode);

/* sr.c: selective repeat between sroce peers */
void sroce_sr_req_arm(struct sroce_qp *qp);
const char *sroce_sr_name(const struct sroce_qp *qp);
void sroce_sr_req_learn(struct sroce_qp *qp, const struct sroce_pkt_hdr *h);
void sroce_sr_req_forget(struct sroce_req *req, struct sroce_txpkt *p,
			 u32 npsn);
void sroce_sr_req_acked(struct sroce_req *req, const struct sroce_txpkt *p,
			u64 now);
void sroce_sr_req_sack(struct sroce_qp *qp, const struct sk_buff *skb,
		       const struct sroce_pkt_hdr *h);
bool sroce_sr_req_dupack(struct sroce_qp *qp, const struct sk_buff *skb,
			 const struct sroce_pkt_hdr *h);
void sroce_sr_req_timer(struct sroce_qp *qp);
void sroce_sr_req_tlp_arm(struct sroce_qp *qp);
void sroce_sr_req_offer_rto(struct sroce_qp *qp);
void sroce_sr_req_refused(struct sroce_qp *qp);
void sroce_sr_req_rto(struct sroce_qp *qp);
struct sroce_txpkt *sroce_sr_req_next_lost(struct sroce_req *req);
void sroce_sr_resp_reset(struct sroce_qp *qp);
void sroce_sr_resp_purge(struct sroce_qp *qp);
void sroce_sr_resp_arm(struct sroce_qp *qp);
void sroce_sr_resp_learn(struct sroce_qp *qp, const struct sroce_pkt_hdr *h);
bool sroce_sr_resp_hold(struct sroce_qp *qp, struct sk_buff *skb,
			const struct sroce_pkt_hdr *h);
struct sk_buff *sroce_sr_resp_next(struct sroce_qp *qp);
void sroce_sr_resp_take(struct sroce_qp *qp, struct sk_buff *skb);
void sroce_sr_resp_sack(struct sroce_qp *qp, struct sroce_sack *s);

/* elide.c: ICRC elision between sroce peers, riding on sr.c's offer. */
void sroce_elide_req_arm(struct sroce_qp *qp);
void sroce_elide_req_learn(struct sroce_qp *qp, const struct sroce_pkt_hdr *h);
void sroce_elide_req_hdr(const struct sroce_qp *qp, struct sroce_pkt_hdr *h);
void sroce_elide_resp_arm(struct sroce_qp *qp);
void sroce_elide_resp_learn(struct sroce_qp *qp,
			    const struct sroce_pkt_hdr *h);
void sroce_elide_resp_hdr(const struct sroce_qp *qp, struct sroce_pkt_hdr *h);
bool sroce_elide_rx_ok(const struct sroce_qp *qp, const struct sk_buff *skb);

/* seg.c: large segments between sroce peers, riding on sr.c's offer. */
void sroce_seg_req_arm(struct sroce_qp *qp);
void sroce_seg_req_learn(struct sroce_qp *qp, const struct sroce_pkt_hdr *h);
u32 sroce_seg_for(const struct sroce_qp *qp, u8 kind);
void sroce_seg_resp_arm(struct sroce_qp *qp);
void sroce_seg_resp_hdr(const struct sroce_qp *qp, struct sroce_pkt_hdr *h);
size_t sroce_seg_resp_max(const struct sroce_qp *qp,
			  const struct sroce_pkt_hdr *h);

/* resp.c */
int sroce_resp_init(struct sroce_qp *qp);
void sroce_resp_free(struct sroce_qp *qp);
void sroce_resp_reset(struct sroce_qp *qp);
void sroce_resp_arm(struct sroce_qp *qp);
void sroce_resp_queue(struct sroce_qp *qp, struct sk_buff *skb,
		      const struct sroce_pkt_hdr *h);
bool sroce_resp_run(struct sroce_qp *qp, int budget, bool away);
bool sroce_resp_flush(struct sroce_qp *qp, int budget);

/* A SEND's next @len bytes do not fit (proto/resp.c). */
static inline bool sroce_resp_send_too_long(const struct sroce_resp *resp,
					    u32 len)
{
	return sroce_resp_send_overruns(resp->offset, len, resp->rwqe_len);
}

#endif /* _SROCE_RC_H */
