// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * Large segments between sroce peers (Documentation/wire.rst, "Large
 * segments"): on by default, never toward a peer that did not agree.
 *
 * RoCE cuts messages at the path MTU, one of 256..4096 bytes, so a
 * 1500-byte link carries 1024 bytes of payload per packet and a 9000-byte
 * one 4096: 94.6 % of the frame in the first case.  A sender under load
 * pays per packet, not per byte.  A responder that places what it gets
 * in order does not need the cut at all, so sroce peers that agree fill
 * the link's MTU instead: 1432 bytes over IPv4 at 1500, 29 % fewer
 * packets for the same data, and 96.1 % of the frame.
 *
 * It rides on the selective repeat negotiation (sr.c), like ICRC
 * elision: a responder that answers an offer says, with SEG_OK, whether
 * it takes SEND and WRITE packets longer than the path MTU.  The
 * requester cuts each WQE once, when it is taken from the ring: WQEs
 * taken before the answer keep the path MTU, later ones the large size.
 * READ responses keep the path MTU, which both ends count their PSNs by.
 *
 * Only where the application asked for at least the port's active MTU:
 * a smaller path_mtu says the path is narrower than the link, and the
 * packets must keep to it.
 */
#include <linux/moduleparam.h>

#include "sroce.h"
#include "rc.h"

static bool large_segments = true;
module_param(large_segments, bool, 0644);
MODULE_PARM_DESC(large_segments,
		 "Offer and take SEND/WRITE packets as long as the link's MTU allows, not the path MTU (sroce peers with selective repeat only) [Y]");

/* RTS: the path MTU until the peer's answer says otherwise. */
void sroce_seg_req_arm(struct sroce_qp *qp)
{
	qp->req.seg = qp->mtu;
}

/* The size the link carries whole, if the path MTU does not forbid it. */
static u32 sroce_seg_link(const struct sroce_qp *qp)
{
	bool ipv6 = qp->av.network_type == RDMA_NETWORK_IPV6;

	if (qp->path_mtu < sroce_port_active_mtu(qp->sdev))
		return 0;
	return sroce_seg_large(READ_ONCE(qp->sdev->ndev->mtu), ipv6);
}

/* The first response decides, with selective repeat (sr.c). */
void sroce_seg_req_learn(struct sroce_qp *qp, const struct sroce_pkt_hdr *h)
{
	struct sroce_req *req = &qp->req;
	u32 seg;

	if (req->sr != SROCE_SR_ON || !h->seg_ok ||
	    !READ_ONCE(large_segments))
		return;
	seg = sroce_seg_link(qp);
	if (seg > qp->mtu)
		req->seg = seg;
}

/* Bytes per packet for a new WQE of @kind: READs keep the path MTU. */
u32 sroce_seg_for(const struct sroce_qp *qp, u8 kind)
{
	switch (kind) {
	case SROCE_OPK_SEND:
	case SROCE_OPK_SEND_IMM:
	case SROCE_OPK_SEND_INV:
	case SROCE_OPK_WRITE:
	case SROCE_OPK_WRITE_IMM:
		return qp->req.seg ?: qp->mtu;
	default:
		return qp->mtu;
	}
}

/* RTR: whether we take large segments, fixed for the connection. */
void sroce_seg_resp_arm(struct sroce_qp *qp)
{
	qp->resp.seg_ok = qp->resp.sr_ok && READ_ONCE(large_segments);
}

/* A response: say whether we take them, beside the extension bit. */
void sroce_seg_resp_hdr(const struct sroce_qp *qp, struct sroce_pkt_hdr *h)
{
	h->seg_ok = h->ext && qp->resp.seg_ok;
}

/*
 * The longest payload a request may carry: large only from a peer we
 * told so, on a request that keeps the extension bit.  Anyone else is
 * held to the path MTU, as the specification says.
 */
size_t sroce_seg_resp_max(const struct sroce_qp *qp,
			  const struct sroce_pkt_hdr *h)
{
	if (h->ext && qp->resp.sr_peer && qp->resp.seg_ok)
		return SROCE_SEG_MAX;
	return qp->mtu;
}
