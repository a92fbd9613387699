// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * The engine's dispatch and lifecycle.
 *
 * Threading: a QP's transport runs in one place at a time, guarded by a
 * bit lock (SROCE_ENG_RUNNING), so the requester, completer and responder
 * state of a QP needs no other lock.  Nobody ever spins on that bit: who
 * finds it taken sets SROCE_ENG_AGAIN and leaves, and the runner goes
 * round once more before it returns.  Runs happen with BHs off, in one of
 * three places:
 *
 *  - inline, where the input arrives: the doorbell system call of a user
 *    QP, and the softirq that received a packet.  No thread is woken, so
 *    a ping-pong costs no context switch: rxe's one real virtue, kept;
 *  - the QP's work item, qp->work, on its home CPU, when a run stopped on
 *    its budget, for timers and state changes, and for posts by kernel
 *    ULPs (they may hold locks their completion handlers take, so we never
 *    complete work from inside their ib_post_send());
 *  - for a large received packet, a work item on another CPU than the
 *    one it arrived on (receive steering, sroce_engine_steer()): the
 *    home's qp->work, or qp->steer_work on the next CPU;
 *  - never from hard IRQ context.
 *
 * Home CPU: each QP has one, where its work runs and from where its
 * packets are sent.  veth and lo deliver through the *sending* CPU's
 * backlog, so a QP that sent from two CPUs with packets in flight would
 * reorder them, which RC reads as loss (a sequence NAK and a go-back-N
 * storm); on a NIC, XPS picks the TX queue by CPU with the same effect.
 * So an inline run on another CPU is allowed only while the QP is quiet
 * (nothing of it in flight), and then moves its home there: a ping-pong
 * follows its application, a stream stays put.  Otherwise the run is
 * handed to the home CPU's work.  The workqueue is high priority
 * (latency) and has a rescuer (WQ_MEM_RECLAIM), because kernel ULPs such
 * as NFS over RDMA may need it to make progress while memory is being
 * reclaimed.
 *
 * A run handles a bounded number of packets per stage and requeues
 * itself if there is more, so no QP monopolises a CPU.
 *
 * Stopping: reset and destroy set SROCE_ENG_STOPPED, after which kicks,
 * pokes and timers do nothing, then wait for the timer, the work and any
 * inline run.
 */
#include <linux/module.h>
#include <linux/workqueue.h>
#include <net/ip.h>
#include <net/ipv6.h>

#include "sroce.h"
#include "rc.h"
#include "trace.h"
#include "proto/runner.h"

static struct workqueue_struct *sroce_wq;
static atomic_t sroce_engine_next_cpu = ATOMIC_INIT(0);

void sroce_engine_kick(struct sroce_qp *qp)
{
	int cpu = READ_ONCE(qp->req.cpu);

	if (test_bit(SROCE_ENG_STOPPED, &qp->req.flags))
		return;
	/* Gone offline: run anywhere until a reset picks a new home. */
	if (unlikely(!cpu_online(cpu)))
		cpu = WORK_CPU_UNBOUND;
	queue_work_on(cpu, sroce_wq, &qp->work);
}

static void sroce_engine_pick_cpu(struct sroce_qp *qp)
{
	WRITE_ONCE(qp->req.cpu,
		   cpumask_local_spread(atomic_inc_return(&sroce_engine_next_cpu),
					NUMA_NO_NODE));
}

static void sroce_engine_timer(struct timer_list *t)
{
	struct sroce_qp *qp = from_timer(qp, t, req.timer);

	sroce_engine_kick(qp);
}

static enum hrtimer_restart sroce_engine_backoff_fn(struct hrtimer *t)
{
	struct sroce_qp *qp = container_of(t, struct sroce_qp, req.backoff);

	sroce_engine_kick(qp);
	return HRTIMER_NORESTART;
}

/*
 * The local stack refused a packet: run again shortly.  Not at once (the
 * softirq that drains the queue may need this CPU) and not a jiffy later
 * (4 ms at HZ=250 is an eternity next to a packet time).
 */
void sroce_engine_backoff(struct sroce_qp *qp)
{
	sroce_engine_backoff_ns(qp, SROCE_BACKOFF_NS);
}

/* Run again in @ns (pacing: cc.c), or sooner if the timer is set already. */
void sroce_engine_backoff_ns(struct sroce_qp *qp, u64 ns)
{
	if (test_bit(SROCE_ENG_STOPPED, &qp->req.flags) ||
	    hrtimer_active(&qp->req.backoff))
		return;
	hrtimer_start(&qp->req.backoff, ns_to_ktime(ns), HRTIMER_MODE_REL_SOFT);
}

/* Post a completion; a CQ overflow is fatal to the QP, as the spec says. */
void sroce_engine_cqe(struct sroce_qp *qp, struct sroce_cq *cq,
		      struct sroce_cqe *cqe, bool solicited)
{
	if (cqe->status == IB_WC_SUCCESS &&
	    (cqe->opcode == IB_WC_RECV ||
	     cqe->opcode == IB_WC_RECV_RDMA_WITH_IMM))
		sroce_cnt_inc(sroce_qp_cnt(qp), SROCE_CNT_RECVS_COMPLETED);
	if (sroce_cq_post(cq, cqe, qp, solicited))
		sroce_engine_fatal(qp, IB_EVENT_QP_FATAL);
}

/*
 * Move the QP to ERROR from inside the engine; the next run flushes.
 * _fatal raises @event; _error is for errors a completion reports.
 */
void sroce_engine_fatal(struct sroce_qp *qp, enum ib_event_type event)
{
	sroce_qp_set_error(qp, true, event);
}

void sroce_engine_error(struct sroce_qp *qp)
{
	sroce_qp_set_error(qp, false, 0);
}

static void sroce_engine_count_rx(struct sroce_dev *sdev,
				  const struct sk_buff *skb)
{
	sroce_cnt_inc(&sdev->cnt, SROCE_CNT_RX_PACKETS);
	sroce_cnt_add(&sdev->cnt, SROCE_CNT_RX_BYTES, skb->len);
}

/*
 * A packet whose ICRC the receive path left to us (net_rx.c): checked
 * before anything of it is used; a bad one is dropped and counted.
 */
static bool sroce_engine_icrc_ok(struct sroce_qp *qp, struct sk_buff *skb)
{
	struct sroce_rx_cb *cb = sroce_rx_cb(skb);

	if (!cb->icrc_later)
		return true;
	/* Without an ICRC, if we agreed to that (elide.c). */
	if (sroce_icrc_may_skip(skb->data[8], cb->udp_csum,
				sroce_elide_rx_ok(qp, skb))) {
		sroce_cnt_inc(&qp->sdev->cnt, SROCE_CNT_RX_ICRC_ELIDED);
	} else if (!sroce_rx_icrc_verify(skb)) {
		sroce_rx_drop(qp->sdev, skb, SROCE_CNT_RX_ICRC_ERR);
		return false;
	}
	sroce_engine_count_rx(qp->sdev, skb);
	return true;
}

/*
 * Up to @budget packets off rxq into @batch: only what has arrived by
 * now, so that the batch's arrival time, read after this, is not earlier
 * than any of its packets' (52 saw a 40 ms path's RTT as 38 ms when
 * packets that came during a long batch joined it).
 */
static void sroce_engine_rx_take(struct sroce_qp *qp,
				 struct sk_buff_head *batch, int budget)
{
	struct sk_buff *skb;
	unsigned long flags;

	spin_lock_irqsave(&qp->rxq.lock, flags);
	while (budget-- > 0 && (skb = __skb_dequeue(&qp->rxq)))
		__skb_queue_tail(batch, skb);
	spin_unlock_irqrestore(&qp->rxq.lock, flags);
}

/*
 * Take packets off rxq: requests go to the responder's queue (they may
 * have to wait behind READ responses), responses to the completer now.
 */
static bool sroce_engine_rx(struct sroce_qp *qp, int budget)
{
	/* Pairs with sroce_req_arm(): its fields are visible if set. */
	bool req_ready = smp_load_acquire(&qp->req.ready);
	struct sk_buff_head batch;
	struct sroce_pkt_hdr h;
	struct sk_buff *skb;

	__skb_queue_head_init(&batch);
	sroce_engine_rx_take(qp, &batch, budget);
	/* One arrival time for the batch (sroce_req_rx_now()). */
	qp->req.rx_now_ns = 0;
	while (READ_ONCE(qp->state) != IB_QPS_ERR) {
		skb = __skb_dequeue(&batch);
		if (!skb)
			break;
		if (!sroce_engine_icrc_ok(qp, skb))
			continue;
		/* Checked in softirq already; this cannot fail. */
		if (sroce_wire_parse(skb->data, skb->len, &h)) {
			kfree_skb(skb);
			continue;
		}
		if (sroce_wire_opcode_info(h.opcode)->flags & SROCE_OPF_REQ) {
			sroce_resp_queue(qp, skb, &h);
		} else if (req_ready) {
			sroce_comp_recv(qp, skb, &h);
		} else {
			/* A response before we sent anything. */
			sroce_cnt_inc(sroce_qp_cnt(qp),
				      SROCE_CNT_RX_STALE_RESP);
			kfree_skb(skb);
		}
	}
	qp->req.rx_now_ns = 0;
	/* In ERROR: dropped, as the flush drops what is left on rxq. */
	__skb_queue_purge(&batch);
	return !skb_queue_empty(&qp->rxq);
}

/*
 * One run.  @away: we are not on the QP's home CPU and it is not quiet,
 * so only what cannot reorder our data may happen here: taking packets
 * in, placing SENDs and WRITEs, completions, ACKs (cumulative, so an
 * overtaken one is harmless).  Sending requests or READ and atomic
 * responses is left to the home CPU: true asks for it.
 */
static bool sroce_engine_run(struct sroce_qp *qp, bool away)
{
	/*
	 * Outranked by a busier class (proto/prio.h): shorter runs, since
	 * bottom halves stay off for a whole run, and the higher class's
	 * packets wait in this CPU's backlog meanwhile.
	 */
	int budget = sroce_prio_budget(SROCE_BUDGET, sroce_tx_outranked(qp));
	bool more;

	/* RTR published before the hook armed the responder: it kicks. */
	if (!smp_load_acquire(&qp->resp.ready))
		return false;
	if (sroce_qp_is_ud(qp) || sroce_qp_is_raw(qp))
		return sroce_ud_run(qp, budget);
	if (qp->ibqp.qp_type == IB_QPT_UC)
		return sroce_uc_run(qp, budget);
	more = sroce_engine_rx(qp, budget);
	more |= sroce_resp_run(qp, budget, away);
	/* After the responses: a CNP never delays an ACK. */
	sroce_cc_signals(qp);
	/* Pairs with sroce_req_arm(). */
	if (smp_load_acquire(&qp->req.ready)) {
		sroce_comp_timers(qp);
		if (!away)
			more |= sroce_req_run(qp, budget);
		else
			more |= sroce_req_has_work(qp);
	}
	return more;
}

/* ERROR: complete everything posted with FLUSH_ERR, drop packets. */
static bool sroce_engine_flush(struct sroce_qp *qp)
{
	bool more;

	skb_queue_purge(&qp->rxq);
	/* Not _sync: we run in the work its callback would queue. */
	del_timer(&qp->req.timer);
	more = sroce_req_flush(qp, SROCE_BUDGET);
	if (sroce_qp_is_xrc_tgt(qp))
		more |= sroce_xrc_resp_flush(qp, SROCE_BUDGET);
	else
		more |= sroce_resp_flush(qp, SROCE_BUDGET);
	return more;
}

/*
 * Nothing of the QP is in the network: no skb of it in the local stack
 * (the skb destructor counts them out as the receiving IP layer or the
 * device takes them), no request unacknowledged, no READ response stream
 * or request waiting behind one.  Only then may its packets start
 * leaving from another CPU without overtaking older ones: an skb the
 * peer's IP layer took may still be on its way to the peer's QP (ICRC
 * check, queueing) on the old CPU.
 */
static bool sroce_engine_quiet(struct sroce_qp *qp)
{
	return !atomic_read(&qp->req.txacct->inflight) &&
	       qp->req.una == qp->req.psn_max && !qp->resp.rd.active &&
	       skb_queue_empty(&qp->resp.pending);
}

enum sroce_pass { SROCE_PASS_DONE, SROCE_PASS_MORE, SROCE_PASS_HOME };

/* One engine run, RUNNING held, BHs off. */
static enum sroce_pass sroce_engine_pass(struct sroce_qp *qp, bool at_home)
{
	int cpu = smp_processor_id();

	if (test_bit(SROCE_ENG_STOPPED, &qp->req.flags))
		return SROCE_PASS_DONE;
	/* No state of its own: its WQs' decide, and it never sends. */
	if (sroce_qp_is_rss(qp))
		return sroce_rss_run(qp, SROCE_BUDGET) ? SROCE_PASS_MORE :
							 SROCE_PASS_DONE;
	switch (READ_ONCE(qp->state)) {
	case IB_QPS_RESET:
	case IB_QPS_INIT:
		skb_queue_purge(&qp->rxq);
		return SROCE_PASS_DONE;
	case IB_QPS_ERR:
		return sroce_engine_flush(qp) ? SROCE_PASS_MORE :
						SROCE_PASS_DONE;
	default:
		break;
	}
	if (!at_home && cpu != READ_ONCE(qp->req.cpu)) {
		if (!sroce_engine_quiet(qp))
			return sroce_engine_run(qp, true) ? SROCE_PASS_HOME :
							    SROCE_PASS_DONE;
		WRITE_ONCE(qp->req.cpu, cpu);
	}
	return sroce_engine_run(qp, false) ? SROCE_PASS_MORE :
					     SROCE_PASS_DONE;
}

/*
 * Run the engine here unless someone else is running it; that runner
 * then sees AGAIN and runs once more for us.  The flag store and the lock
 * test are ordered against the runner's unlock and flag test (both
 * sides: store, full barrier, load), so input is never left unhandled.
 */
static void sroce_engine_try(struct sroce_qp *qp, bool at_home)
{
	unsigned long *flags = &qp->req.flags;
	enum sroce_runner_next next;
	unsigned int passes = 0;
	bool more;

	set_bit(SROCE_ENG_AGAIN, flags);
	/* AGAIN visible before we test RUNNING; pairs with the one below. */
	smp_mb__after_atomic();
	while (!test_and_set_bit_lock(SROCE_ENG_RUNNING, flags)) {
		clear_bit(SROCE_ENG_AGAIN, flags);
		/*
		 * RUNNING and the cleared AGAIN before any engine state or
		 * STOPPED is read: quiesce sets STOPPED, then waits for us.
		 */
		smp_mb__after_atomic();
		more = sroce_engine_pass(qp, at_home) != SROCE_PASS_DONE;
		clear_bit_unlock(SROCE_ENG_RUNNING, flags);
		/* RUNNING cleared before AGAIN is read: pairs with the first. */
		smp_mb__after_atomic();
		/*
		 * Other CPUs can set AGAIN as fast as we run: the pass limit
		 * (G18) hands the QP to its work, AGAIN still set for it.
		 */
		next = sroce_runner_next(&passes, more,
					 test_bit(SROCE_ENG_AGAIN, flags));
		if (next == SROCE_RUNNER_STOP)
			return;
		if (next == SROCE_RUNNER_HANDOFF) {
			sroce_engine_kick(qp);
			return;
		}
	}
}

void sroce_engine_poke(struct sroce_qp *qp)
{
	if (test_bit(SROCE_ENG_STOPPED, &qp->req.flags))
		return;
	local_bh_disable();
	sroce_engine_try(qp, false);
	local_bh_enable();
}

static void sroce_engine_work(struct work_struct *work)
{
	struct sroce_qp *qp = container_of(work, struct sroce_qp, work);

	local_bh_disable();
	sroce_engine_try(qp, true);
	local_bh_enable();
}

/*
 * A run the receive path steered to another CPU (sroce_engine_steer()):
 * one away from home, as an inline run is.  Its own work item, so that
 * what it leaves for the home CPU (a kick of qp->work) is queued there,
 * not back on the CPU this one is still running on.
 */
static void sroce_engine_steer_work(struct work_struct *work)
{
	struct sroce_qp *qp = container_of(work, struct sroce_qp, steer_work);

	local_bh_disable();
	sroce_engine_try(qp, false);
	local_bh_enable();
}

/*
 * Stop the engine: after this neither the work nor the timer runs, and
 * they stay quiet until SROCE_ENG_STOPPED is cleared.  The work may arm
 * the timer and the timer queue the work, hence the second round.
 */
static void sroce_engine_quiesce(struct sroce_qp *qp)
{
	set_bit(SROCE_ENG_STOPPED, &qp->req.flags);
	/* Kickers and the timer that run after this see the bit. */
	smp_mb__after_atomic();
	del_timer_sync(&qp->req.timer);
	hrtimer_cancel(&qp->req.backoff);
	cancel_work_sync(&qp->work);
	cancel_work_sync(&qp->steer_work);
	del_timer_sync(&qp->req.timer);
	hrtimer_cancel(&qp->req.backoff);
	cancel_work_sync(&qp->work);
	cancel_work_sync(&qp->steer_work);
	/* An inline run that began before the bit: let it finish. */
	while (test_bit(SROCE_ENG_RUNNING, &qp->req.flags))
		cpu_relax();
	/* Only runs ask for faults, and none runs now. */
	sroce_odp_qp_stop(qp);
}

int sroce_engine_qp_init(struct sroce_qp *qp)
{
	int err;

	INIT_WORK(&qp->work, sroce_engine_work);
	INIT_WORK(&qp->steer_work, sroce_engine_steer_work);
	sroce_odp_qp_init(qp);
	sroce_engine_pick_cpu(qp);
	skb_queue_head_init(&qp->rxq);
	__skb_queue_head_init(&qp->req.gso_q);
	timer_setup(&qp->req.timer, sroce_engine_timer, 0);
	hrtimer_init(&qp->req.backoff, CLOCK_MONOTONIC, HRTIMER_MODE_REL_SOFT);
	qp->req.backoff.function = sroce_engine_backoff_fn;
	qp->req.txacct = sroce_txacct_alloc();
	if (!qp->req.txacct)
		return -ENOMEM;
	err = dst_cache_init(&qp->req.dst_cache, GFP_KERNEL);
	if (err)
		goto err_acct;
	err = sroce_req_init(qp);
	if (err)
		goto err_dst;
	err = sroce_resp_init(qp);
	if (err)
		goto err_req;
	return 0;

err_req:
	sroce_req_free(qp);
err_dst:
	dst_cache_destroy(&qp->req.dst_cache);
err_acct:
	sroce_txacct_put(qp->req.txacct);
	return err;
}

void sroce_engine_qp_destroy(struct sroce_qp *qp)
{
	sroce_engine_quiesce(qp);
	skb_queue_purge(&qp->rxq);
	sroce_cc_set_pace(qp, 0);
	sroce_resp_free(qp);
	sroce_req_free(qp);
	dst_cache_destroy(&qp->req.dst_cache);
	sroce_txacct_put(qp->req.txacct);
}

/* Back to RESET: forget everything, including what was posted. */
void sroce_engine_qp_reset(struct sroce_qp *qp)
{
	sroce_engine_quiesce(qp);
	skb_queue_purge(&qp->rxq);
	sroce_req_reset(qp);
	sroce_resp_reset(qp);
	/* Congestion signals were for the old connection, its pace too. */
	clear_bit(SROCE_ENG_CE, &qp->req.flags);
	clear_bit(SROCE_ENG_CNP, &qp->req.flags);
	sroce_cc_set_pace(qp, 0);
	if (!cpu_online(qp->req.cpu))
		sroce_engine_pick_cpu(qp);
	set_bit(SROCE_ENG_AV_CHANGED, &qp->req.flags);
	/* Everything reset above is visible before kicks work again. */
	smp_mb__before_atomic();
	clear_bit(SROCE_ENG_STOPPED, &qp->req.flags);
}

void sroce_engine_qp_rtr(struct sroce_qp *qp)
{
	set_bit(SROCE_ENG_AV_CHANGED, &qp->req.flags);
	sroce_resp_arm(qp);
	sroce_engine_kick(qp);
}

void sroce_engine_qp_rts(struct sroce_qp *qp)
{
	sroce_req_arm(qp);
	sroce_engine_kick(qp);
}

void sroce_engine_qp_error(struct sroce_qp *qp)
{
	sroce_engine_kick(qp);
}

/*
 * A connected QP takes packets only from its peer, to the address it was
 * given: the IP addresses are the rest of a connection's identity, and
 * the ICRC covers them, so a forger on the path must match them too.
 */
static bool sroce_engine_addr_ok(const struct sroce_qp *qp,
				 const struct sk_buff *skb)
{
	const struct sroce_av *av = &qp->av;

	if (ip_hdr(skb)->version == 4)
		return av->network_type == RDMA_NETWORK_IPV4 &&
		       ip_hdr(skb)->saddr == av->daddr.in4.sin_addr.s_addr &&
		       ip_hdr(skb)->daddr == av->saddr.in4.sin_addr.s_addr;
	return av->network_type == RDMA_NETWORK_IPV6 &&
	       ipv6_addr_equal(&ipv6_hdr(skb)->saddr,
			       &av->daddr.in6.sin6_addr) &&
	       ipv6_addr_equal(&ipv6_hdr(skb)->daddr,
			       &av->saddr.in6.sin6_addr);
}

/*
 * Queue a verified packet on @qp (softirq), or drop and count it; true
 * if queued.  The caller kicks the work.
 */
static bool sroce_engine_take(struct sroce_qp *qp, struct sk_buff *skb)
{
	struct sroce_dev *sdev = qp->sdev;
	enum ib_qp_state state;

	/*
	 * A UD packet for an RC QP, or the reverse, or an XRC response for
	 * a TGT QP: not for this QP.
	 */
	if ((skb->data[0] & SROCE_TR_MASK) != sroce_qp_transport(qp) ||
	    !sroce_xrc_accepts(qp, skb->data[0])) {
		sroce_cnt_inc(&sdev->cnt, SROCE_CNT_RX_BAD_TRANSPORT);
		goto drop;
	}
	/* The AV is set before RTR is published and fixed from then on. */
	state = READ_ONCE(qp->state);
	if (state >= IB_QPS_RTR && state != IB_QPS_ERR &&
	    !sroce_qp_is_ud(qp) && !sroce_engine_addr_ok(qp, skb)) {
		sroce_cnt_inc(&sdev->cnt, SROCE_CNT_RX_BAD_ADDR);
		goto drop;
	}
	if (state < IB_QPS_RTR || state == IB_QPS_ERR ||
	    skb_queue_len(&qp->rxq) >= SROCE_RXQ_MAX) {
		sroce_cnt_inc(&sdev->cnt, SROCE_CNT_RX_DROPPED);
		goto drop;
	}
	/* Nothing below needs the route the packet came in on. */
	skb_dst_drop(skb);
	skb_queue_tail(&qp->rxq, skb);
	return true;

drop:
	kfree_skb(skb);
	return false;
}

/*
 * Receive steering.  veth and lo deliver through the sending CPU's
 * backlog, so left alone a stream's receiver runs on its sender's CPU,
 * inline, and one CPU does both ends while the others idle.  A packet
 * carrying a large payload (what costs: placing it in memory) is
 * instead handed to the QP's work on another CPU: its home, or, when
 * the home is this CPU, the next one, where the run moves the home if
 * the QP is quiet.  Small packets (ping-pongs, ACKs) still run inline,
 * which costs no wakeup.
 */
#define SROCE_STEER_MIN		1024

static bool rx_steer = true;
module_param(rx_steer, bool, 0644);
MODULE_PARM_DESC(rx_steer,
		 "Run a QP's engine for large received packets on another CPU than the one they arrive on (default Y)");

/* Would a packet of @len bytes (BTH to ICRC) be steered, QP permitting? */
bool sroce_engine_steers(unsigned int len)
{
	return len >= SROCE_STEER_MIN && READ_ONCE(rx_steer);
}

static bool sroce_engine_steer(struct sroce_qp *qp, unsigned int len)
{
	struct work_struct *work = &qp->work;
	int cpu = smp_processor_id();
	int to = READ_ONCE(qp->req.cpu);

	if (!sroce_engine_steers(len) ||
	    test_bit(SROCE_ENG_STOPPED, &qp->req.flags))
		return false;
	if (to == cpu || !cpu_online(to)) {
		to = cpumask_next_wrap(cpu, cpu_online_mask, cpu, true);
		work = &qp->steer_work;
	}
	if (to >= nr_cpu_ids || to == cpu)
		return false;
	queue_work_on(to, sroce_wq, work);
	sroce_cnt_inc(sroce_qp_cnt(qp), SROCE_CNT_RX_STEERED);
	return true;
}

void sroce_engine_deliver(struct sroce_qp *qp, struct sk_buff *skb)
{
	if (sroce_engine_take(qp, skb))
		sroce_engine_poke(qp);
}

/*
 * A CNP for a QP that sends requests, in RTS or SQD, from its peer's
 * address (a forged one could only slow us down): a flag for the
 * engine (cc.c); the packet itself says nothing more.
 */
static void sroce_engine_cnp(struct sroce_qp *qp, struct sk_buff *skb)
{
	struct sroce_dev *sdev = qp->sdev;
	enum ib_qp_state state = READ_ONCE(qp->state);

	if (qp->ibqp.qp_type != IB_QPT_RC &&
	    qp->ibqp.qp_type != IB_QPT_XRC_INI) {
		sroce_cnt_inc(&sdev->cnt, SROCE_CNT_RX_BAD_TRANSPORT);
	} else if ((state != IB_QPS_RTS && state != IB_QPS_SQD) ||
		   !sroce_engine_addr_ok(qp, skb)) {
		sroce_cnt_inc(&sdev->cnt, SROCE_CNT_RX_DROPPED);
	} else {
		sroce_cnt_inc(&sdev->cnt, SROCE_CNT_CNPS_RCVD);
		set_bit(SROCE_ENG_CNP, &qp->req.flags);
		sroce_engine_poke(qp);
	}
	kfree_skb(skb);
}

/*
 * A verified packet for @sdev (softirq): find its QP and queue it there;
 * @ce: it came CE-marked, and a connected QP owes its peer a CNP.  The
 * QP reference is dropped once the work is kicked; destroy removes the
 * QP from the table (waiting for us) before it stops the engine.
 */
void sroce_engine_recv(struct sroce_dev *sdev, struct sk_buff *skb, bool ce)
{
	u32 qpn = sroce_be_load24(skb->data + 5);	/* BTH DestQP */
	unsigned int len = skb->len;
	struct sroce_qp *qp;

	trace_sroce_rx(qpn, skb->data, skb->len);
	/* One whose ICRC is still to be checked counts when it passes. */
	if (!sroce_rx_cb(skb)->icrc_later)
		sroce_engine_count_rx(sdev, skb);
	if (qpn == 1)
		sroce_cnt_inc(&sdev->cnt, SROCE_CNT_RX_GSI);
	if (qpn == SROCE_MCAST_QPN) {
		sroce_mcast_recv(sdev, skb);
		return;
	}
	qp = sroce_qp_lookup(sdev, qpn);
	if (!qp) {
		sroce_cnt_inc(&sdev->cnt, SROCE_CNT_RX_UNKNOWN_QP);
		kfree_skb(skb);
		return;
	}
	if (skb->data[0] == SROCE_OPCODE_CNP) {
		sroce_engine_cnp(qp, skb);
	} else if (sroce_engine_take(qp, skb)) {
		if (ce && !sroce_qp_is_ud(qp) &&
		    qp->ibqp.qp_type != IB_QPT_UC)
			set_bit(SROCE_ENG_CE, &qp->req.flags);
		if (!sroce_engine_steer(qp, len))
			sroce_engine_poke(qp);
	}
	sroce_qp_put(qp);
}

int sroce_engine_init(void)
{
	sroce_wq = alloc_workqueue("sroce", WQ_HIGHPRI | WQ_MEM_RECLAIM, 0);
	return sroce_wq ? 0 : -ENOMEM;
}

void sroce_engine_exit(void)
{
	destroy_workqueue(sroce_wq);
}
