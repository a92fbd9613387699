// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * Trains: the requester's data packets, gathered while it sends and
 * handed to IP as one UDP GSO skb (net_tx.c, sroce_tx_train()).
 *
 * Every packet sroce sends crosses IP, the qdisc and the driver, and
 * each crossing costs about as much for 60 bytes as for 1500.  TCP
 * crosses once per 64 KiB and lets the stack or the NIC cut segments
 * after the qdisc.  RoCE packets each carry their own BTH and ICRC, so
 * they cannot be cut out of one payload; but laid end to end, each a
 * whole UDP payload of the same length, they are exactly what UDP GSO
 * cuts (as QUIC stacks use it).  Segmentation repeats the IP and UDP
 * headers and numbers the IP identifications in order, and the ICRC of
 * each packet is computed for the headers its segment will have.
 *
 * Only between sroce peers (selective repeat negotiated), over IPv4:
 * GSO gives every segment a UDP checksum, which RoCEv2 leaves at zero
 * and a standard peer need not expect.  A train ends when the
 * requester's run ends, at SROCE_GSO_MAX packets, at one packet shorter
 * than the first (the last of a message), or at a packet that may not
 * join; packets of the QP that do not join never pass it.
 *
 * Off by default: where the device after the qdisc cuts the train (a
 * NIC, virtio-net on 6.1) it saves work, but a veth hands it on whole
 * and the receiving namespace's UDP cuts it, which halved ib_write_bw
 * 64 KiB between namespaces (make demo: 55 MB/s against 105).
 */
#include <linux/module.h>

#include "sroce.h"
#include "rc.h"

#define SROCE_GSO_MAX		16

static bool tx_gso;
module_param(tx_gso, bool, 0644);
MODULE_PARM_DESC(tx_gso,
		 "Send trains of data packets to sroce peers as UDP GSO skbs (default N)");

/* The requester begins to send: packets may gather from here. */
void sroce_gso_open(struct sroce_qp *qp)
{
	struct sroce_req *req = &qp->req;

	req->gso_open = READ_ONCE(tx_gso) && req->sr == SROCE_SR_ON &&
			qp->av.network_type != RDMA_NETWORK_IPV6;
}

/* Page fragments @skb adds to a train: its linear part and its own. */
static unsigned int sroce_gso_frags(const struct sk_buff *skb)
{
	return !!skb_headlen(skb) + skb_shinfo(skb)->nr_frags;
}

/*
 * May @skb join the train?  A packet after the first lends its linear
 * part as a fragment, so it must be a page fragment; all but the last
 * are as long as the first, and all fit one skb's fragments.
 */
static bool sroce_gso_fits(const struct sroce_req *req,
			   const struct sk_buff *skb, u8 ecn)
{
	const struct sroce_opcode_info *oi = sroce_wire_opcode_info(skb->data[0]);

	if (!oi || !(oi->flags & SROCE_OPF_PAYLOAD))
		return false;
	if (skb_queue_empty(&req->gso_q))
		return skb->len > SROCE_BTH_BYTES + SROCE_ICRC_BYTES;
	return skb->head_frag && skb->len <= req->gso_size &&
	       ecn == req->gso_ecn &&
	       req->gso_frags + sroce_gso_frags(skb) <= MAX_SKB_FRAGS;
}

/*
 * Add @skb (ready but for its IP and UDP headers; its ECN field to be
 * @ecn) to the train, or false if it may not join.  A full train, or one
 * ended by a shorter packet, leaves at once.
 */
bool sroce_gso_add(struct sroce_qp *qp, struct sk_buff *skb, u8 ecn)
{
	struct sroce_req *req = &qp->req;

	if (!sroce_gso_fits(req, skb, ecn))
		return false;
	if (skb_queue_empty(&req->gso_q)) {
		req->gso_size = skb->len;
		req->gso_ecn = ecn;
		req->gso_frags = skb_shinfo(skb)->nr_frags;
	} else {
		req->gso_frags += sroce_gso_frags(skb);
	}
	__skb_queue_tail(&req->gso_q, skb);
	if (skb->len < req->gso_size ||
	    skb_queue_len(&req->gso_q) >= SROCE_GSO_MAX)
		sroce_gso_flush(qp);
	return true;
}

/* Send what the train holds. */
void sroce_gso_flush(struct sroce_qp *qp)
{
	struct sroce_req *req = &qp->req;

	if (skb_queue_empty(&req->gso_q))
		return;
	sroce_tx_train(qp, &req->gso_q, req->gso_ecn);
	req->gso_frags = 0;
	req->tx_now_ns = 0;
}

/* The requester's run is over: the train leaves, none gathers. */
void sroce_gso_close(struct sroce_qp *qp)
{
	sroce_gso_flush(qp);
	qp->req.gso_open = false;
}
