// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * The engine's dispatch and lifecycle.
 *
 * Threading: each QP's transport runs in one work item, qp->work, on the
 * "sroce" workqueue.  A work item never runs on two CPUs at once, so the
 * requester, completer and responder state of a QP needs no lock.
 *
 * The workqueue is per-cpu and each QP has a home CPU, handed out round
 * robin at creation, where its work always runs.  Not unbound: veth and
 * lo deliver through the *sending* CPU's backlog, so a QP whose runs
 * wandered between CPUs would reorder its own packets, which RC reads as
 * loss (a sequence NAK and a go-back-N storm).  A home CPU keeps a QP's
 * packets in order, as a hardware send queue does, keeps its state in one
 * cache, and spreads QPs over CPUs.  It is high priority (latency) and
 * has a rescuer (WQ_MEM_RECLAIM), because kernel ULPs such as NFS over
 * RDMA may need it to make progress while memory is being reclaimed.
 *
 * Everything else only kicks the work: the softirq receive path after
 * queueing a packet on qp->rxq, the doorbell (post_send), post_recv in
 * ERR, timers, the state hooks.  A run handles a bounded number of packets
 * per stage and requeues itself if there is more, so no QP monopolises a
 * CPU.
 *
 * Stopping: reset and destroy set SROCE_ENG_STOPPED, after which kicks and
 * timers do nothing, then wait for the timer and the work.
 */
#include <linux/module.h>
#include <linux/workqueue.h>

#include "sroce.h"
#include "rc.h"

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

/* Post a completion; a CQ overflow is fatal to the QP, as the spec says. */
void sroce_engine_cqe(struct sroce_qp *qp, struct sroce_cq *cq,
		      struct sroce_cqe *cqe, bool solicited)
{
	if (sroce_cq_post(cq, cqe, qp, solicited))
		sroce_engine_fatal(qp, IB_EVENT_QP_FATAL);
}

/* Move the QP to ERROR from inside the engine; the next run flushes. */
void sroce_engine_fatal(struct sroce_qp *qp, enum ib_event_type event)
{
	sroce_qp_set_error(qp, event);
}

/*
 * Take packets off rxq: requests go to the responder's queue (they may
 * have to wait behind READ responses), responses to the completer now.
 */
static bool sroce_engine_rx(struct sroce_qp *qp, int budget)
{
	/* Pairs with sroce_req_arm(): its fields are visible if set. */
	bool req_ready = smp_load_acquire(&qp->req.ready);
	struct sroce_pkt_hdr h;
	struct sk_buff *skb;

	while (budget-- > 0 && READ_ONCE(qp->state) != IB_QPS_ERR) {
		skb = skb_dequeue(&qp->rxq);
		if (!skb)
			break;
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
	return !skb_queue_empty(&qp->rxq);
}

static bool sroce_engine_run(struct sroce_qp *qp)
{
	bool more;

	/* RTR published before the hook armed the responder: it kicks. */
	if (!smp_load_acquire(&qp->resp.ready))
		return false;
	more = sroce_engine_rx(qp, SROCE_BUDGET);
	more |= sroce_resp_run(qp, SROCE_BUDGET);
	/* Pairs with sroce_req_arm(). */
	if (smp_load_acquire(&qp->req.ready)) {
		sroce_comp_timers(qp);
		more |= sroce_req_run(qp, SROCE_BUDGET);
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
	more |= sroce_resp_flush(qp, SROCE_BUDGET);
	return more;
}

static void sroce_engine_work(struct work_struct *work)
{
	struct sroce_qp *qp = container_of(work, struct sroce_qp, work);
	bool more;

	if (test_bit(SROCE_ENG_STOPPED, &qp->req.flags))
		return;
	switch (READ_ONCE(qp->state)) {
	case IB_QPS_RESET:
	case IB_QPS_INIT:
		skb_queue_purge(&qp->rxq);
		return;
	case IB_QPS_ERR:
		more = sroce_engine_flush(qp);
		break;
	default:
		more = sroce_engine_run(qp);
		break;
	}
	if (more)
		sroce_engine_kick(qp);
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
	cancel_work_sync(&qp->work);
	del_timer_sync(&qp->req.timer);
	cancel_work_sync(&qp->work);
}

int sroce_engine_qp_init(struct sroce_qp *qp)
{
	int err;

	INIT_WORK(&qp->work, sroce_engine_work);
	sroce_engine_pick_cpu(qp);
	skb_queue_head_init(&qp->rxq);
	timer_setup(&qp->req.timer, sroce_engine_timer, 0);
	err = dst_cache_init(&qp->req.dst_cache, GFP_KERNEL);
	if (err)
		return err;
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
	return err;
}

void sroce_engine_qp_destroy(struct sroce_qp *qp)
{
	sroce_engine_quiesce(qp);
	skb_queue_purge(&qp->rxq);
	sroce_resp_free(qp);
	sroce_req_free(qp);
	dst_cache_destroy(&qp->req.dst_cache);
}

/* Back to RESET: forget everything, including what was posted. */
void sroce_engine_qp_reset(struct sroce_qp *qp)
{
	sroce_engine_quiesce(qp);
	skb_queue_purge(&qp->rxq);
	sroce_req_reset(qp);
	sroce_resp_reset(qp);
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
 * A verified packet for @sdev (softirq): find its QP and queue it there.
 * The QP reference is dropped once the work is kicked; destroy removes
 * the QP from the table (waiting for us) before it stops the engine.
 */
void sroce_engine_recv(struct sroce_dev *sdev, struct sk_buff *skb)
{
	u32 qpn = sroce_be_load24(skb->data + 5);	/* BTH DestQP */
	enum ib_qp_state state;
	struct sroce_qp *qp;

	sroce_cnt_inc(&sdev->cnt, SROCE_CNT_RX_PACKETS);
	sroce_cnt_add(&sdev->cnt, SROCE_CNT_RX_BYTES, skb->len);
	if (qpn == 1) {
		sroce_cnt_inc(&sdev->cnt, SROCE_CNT_RX_GSI);
		goto drop;
	}
	qp = sroce_qp_lookup(sdev, qpn);
	if (!qp) {
		sroce_cnt_inc(&sdev->cnt, SROCE_CNT_RX_UNKNOWN_QP);
		goto drop;
	}
	state = READ_ONCE(qp->state);
	if (state < IB_QPS_RTR || state == IB_QPS_ERR ||
	    skb_queue_len(&qp->rxq) >= SROCE_RXQ_MAX) {
		sroce_cnt_inc(&sdev->cnt, SROCE_CNT_RX_DROPPED);
		sroce_qp_put(qp);
		goto drop;
	}
	/* Nothing below needs the route the packet came in on. */
	skb_dst_drop(skb);
	skb_queue_tail(&qp->rxq, skb);
	sroce_engine_kick(qp);
	sroce_qp_put(qp);
	return;

drop:
	kfree_skb(skb);
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
