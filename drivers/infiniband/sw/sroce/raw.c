// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * Raw packet QPs (raw.h): whole Ethernet frames out of and into the
 * device's netdev.  They run in UD's loops (ud.c), which call here for
 * the three steps that differ: what a send WQE may be, how it leaves,
 * and how a frame lands.
 *
 * Send: SEND only, one frame per WQE, from its destination MAC on, at
 * least an Ethernet header and at most the netdev's MTU plus the
 * Ethernet header and one VLAN tag (else LOC_LEN_ERR).  It goes to
 * dev_queue_xmit() as the consumer built it: no checksums are filled
 * in, as a NIC's raw QP fills in none unless asked.  A NIC loops its raw
 * QPs' frames back to its own port's flows as well; a netdev never
 * hands back what it sent, so sroce does that here (lo excepted: its
 * frames come round through the receive path, where the flows see
 * them).  The WQE completes once the frame is handed over: nothing
 * acknowledges Ethernet.
 *
 * Receive: a frame some flow matched (flow.c), from the MAC header on,
 * takes the next receive WQE of the RQ or SRQ; none posted: dropped and
 * counted, as UD does.  No GRH area: the frame is what the consumer gets.
 * An RSS QP's frames go to its table's WQs instead (rss.c).
 */
#include <linux/if_vlan.h>

#include "sroce.h"
#include "rc.h"

/*
 * On by default, with the receive WQs, indirection tables and RSS QPs
 * that rdma-core's tests (and so, presumably, its users) expect of a
 * device with raw packet QPs (wq.c, rss.c).  Off, creating any of them
 * fails with EOPNOTSUPP, and contexts opened then are not offered them:
 * for a host whose CAP_NET_RAW processes should not see frames through
 * RDMA.
 */
static bool raw_packet = true;
module_param(raw_packet, bool, 0644);
MODULE_PARM_DESC(raw_packet,
		 "Offer raw packet QPs, flow steering, receive WQs and RSS to CAP_NET_RAW (default Y)");

bool sroce_raw_enabled(void)
{
	return READ_ONCE(raw_packet);
}

/* The longest frame: the netdev's MTU, Ethernet header, one VLAN tag. */
static u32 sroce_raw_max(const struct sroce_qp *qp)
{
	return READ_ONCE(qp->sdev->ndev->mtu) + ETH_HLEN + VLAN_HLEN;
}

enum ib_wc_status sroce_raw_validate(struct sroce_qp *qp,
				     struct sroce_swqe *w, u8 *raw,
				     const u8 *slot)
{
	enum ib_wc_status st;

	if (w->opcode != IB_UVERBS_WR_SEND)
		return IB_WC_LOC_QP_OP_ERR;
	w->kind = SROCE_OPK_SEND;
	st = sroce_ud_copy_body(qp, w, raw, slot, sroce_raw_max(qp));
	if (st == IB_WC_SUCCESS && w->length < ETH_HLEN)
		st = IB_WC_LOC_LEN_ERR;
	return st;
}

/* The frame of @w into a new skb, or NULL with *err set. */
static struct sk_buff *sroce_raw_build(struct sroce_qp *qp,
				       struct sroce_swqe *w, int *err)
{
	struct net_device *ndev = qp->sdev->ndev;
	struct sroce_data d = {};
	struct sk_buff *skb;

	skb = alloc_skb(LL_RESERVED_SPACE(ndev) + w->length,
			GFP_ATOMIC | __GFP_NOWARN);
	if (!skb) {
		*err = -ENOMEM;
		return NULL;
	}
	skb_reserve(skb, LL_RESERVED_SPACE(ndev));
	d.buf = skb_put(skb, w->length);
	if (w->inline_data) {
		memcpy(d.buf, w->inline_data, w->length);
		*err = 0;
	} else {
		*err = sroce_copy_sgl(qp, w->sge, w->num_sge, 0, w->length,
				      &d, false);
	}
	if (*err) {
		kfree_skb(skb);
		return NULL;
	}
	skb_reset_mac_header(skb);
	skb_set_network_header(skb, ETH_HLEN);
	skb->protocol = eth_hdr(skb)->h_proto;
	skb->dev = ndev;
	return skb;
}

/*
 * Send the frame of @w: 0 once it was handed to the netdev (or lost
 * there: Ethernet may lose it); -ENOBUFS or -ENOMEM to try again
 * shortly, -EAGAIN when an ODP fault's end will kick us, -EINVAL with
 * w->status set if it never can be sent.
 */
int sroce_raw_xmit(struct sroce_qp *qp, struct sroce_swqe *w)
{
	struct sroce_dev *sdev = qp->sdev;
	struct sk_buff *skb;
	int err;

	if (sroce_tx_throttled(qp))
		return -ENOBUFS;
	skb = sroce_raw_build(qp, w, &err);
	if (!skb) {
		if (err == -ENOMEM) {
			sroce_engine_backoff(qp);
			return -ENOMEM;
		}
		if (err == -EAGAIN)
			return -EAGAIN;
		w->status = IB_WC_LOC_PROT_ERR;
		return -EINVAL;
	}
	if (!(sdev->ndev->flags & IFF_LOOPBACK))
		sroce_flows_recv(sdev, skb, true);
	sroce_tx_set_owner(qp, skb);
	sroce_cnt_inc(&sdev->cnt, SROCE_CNT_RAW_TX_PACKETS);
	/* Consumes the skb whatever it returns; a drop is counted there. */
	if (dev_queue_xmit(skb) != NET_XMIT_SUCCESS)
		sroce_cnt_inc(&sdev->cnt, SROCE_CNT_TX_DROPPED);
	return 0;
}

/* One frame off the QP's queue (engine run); consumes @skb. */
void sroce_raw_recv(struct sroce_qp *qp, struct sk_buff *skb)
{
	struct sroce_counters *cnt = sroce_qp_cnt(qp);
	struct sroce_cqe cqe = {
		.opcode = IB_WC_RECV,
		.byte_len = skb->len,
	};
	struct sroce_data d = { .skb = skb };
	u64 room;
	int err;

	switch (sroce_ud_rwqe(qp, &room)) {
	case 1:
		break;
	case 0:
		sroce_cnt_inc(cnt, SROCE_CNT_RAW_RX_DROPPED);
		goto out;
	default:
		goto out;
	}
	if (skb->len > room) {
		cqe.status = IB_WC_LOC_LEN_ERR;
	} else {
		err = sroce_copy_sgl(qp, sroce_ud_rsges(qp),
				     qp->resp.rwqe->num_sge, 0, skb->len, &d,
				     true);
		/* Lost, as UD may lose it; the WQE waits for the next one. */
		if (err == -EAGAIN)
			goto out;
		cqe.status = err ? IB_WC_LOC_PROT_ERR : IB_WC_SUCCESS;
	}
	if (cqe.status == IB_WC_SUCCESS)
		sroce_cnt_inc(cnt, SROCE_CNT_RAW_RX_PACKETS);
	sroce_ud_recv_done(qp, &cqe, false);
	/* A receive WQE naming memory it may not write: the QP fails. */
	if (cqe.status == IB_WC_LOC_PROT_ERR)
		sroce_engine_error(qp);
out:
	consume_skb(skb);
}

/*
 * A frame a flow of @qp matched, at its MAC header (softirq, or a raw
 * send of this device when @local): queue it for the engine.  A local
 * one kicks the work rather than run the engine here, inside another
 * QP's run (or this one's).
 */
void sroce_raw_deliver(struct sroce_qp *qp, struct sk_buff *skb, bool local)
{
	enum ib_qp_state state = READ_ONCE(qp->state);

	if (state < IB_QPS_RTR || state == IB_QPS_ERR ||
	    skb_queue_len(&qp->rxq) >= SROCE_RXQ_MAX) {
		sroce_cnt_inc(&qp->sdev->cnt, SROCE_CNT_RAW_RX_DROPPED);
		kfree_skb(skb);
		return;
	}
	skb_dst_drop(skb);
	skb_queue_tail(&qp->rxq, skb);
	if (local)
		sroce_engine_kick(qp);
	else
		sroce_engine_poke(qp);
}

/* qp_post.c: a kernel consumer's WR on a raw QP; nothing to add. */
int sroce_raw_wqe_from_wr(const struct ib_send_wr *wr)
{
	return wr->opcode == IB_WR_SEND ? 0 : -EINVAL;
}
