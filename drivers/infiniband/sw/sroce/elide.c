// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * ICRC elision between sroce peers (Documentation/wire.rst, "ICRC
 * elision"): off by default, never toward a peer that did not agree.
 *
 * The ICRC is a CRC-32 over every byte of every packet, computed by the
 * sender and again by the receiver.  Where both ends are sroce, the UDP
 * checksum can carry the end-to-end check instead: the NIC (or veth,
 * which has nothing to check) offloads it on transmit, and the stack
 * verifies it before the encap hook sees the packet.  In a guest without
 * fast CRC instructions the two ICRC passes were half the busy time of a
 * bulk transfer: eliding them doubled ib_write_bw (testing.rst).
 *
 * It rides on the selective repeat negotiation (sr.c): whoever sets the
 * extension bit also says, with NOCRC_OK, whether it takes packets
 * without an ICRC.  Each side decides once, the requester at the first
 * response and the responder at the first request, and each direction
 * on its own.  Consent is fixed when the QP is connected, so turning the
 * knob off never breaks a connection that agreed before.
 */
#include <linux/moduleparam.h>

#include "sroce.h"
#include "rc.h"

static bool icrc_elide;
module_param(icrc_elide, bool, 0644);
MODULE_PARM_DESC(icrc_elide,
		 "Offer and accept ICRC elision, the UDP checksum instead (sroce peers with selective repeat only), the default for new devices; per device: /sys/class/infiniband/DEV/icrc_elide [N]");

bool sroce_elide_default(void)
{
	return READ_ONCE(icrc_elide);
}

/* RTS: consent to elided responses if we offer extensions at all. */
void sroce_elide_req_arm(struct sroce_qp *qp)
{
	struct sroce_req *req = &qp->req;

	req->nocrc_ok = req->sr != SROCE_SR_OFF &&
			READ_ONCE(qp->sdev->icrc_elide);
	req->nocrc = false;
}

/* The first response decides, with selective repeat (sr.c). */
void sroce_elide_req_learn(struct sroce_qp *qp, const struct sroce_pkt_hdr *h)
{
	struct sroce_req *req = &qp->req;

	req->nocrc = req->sr == SROCE_SR_ON && req->nocrc_ok && h->nocrc_ok;
}

/* A request: say whether we take elided responses; elide if agreed. */
void sroce_elide_req_hdr(const struct sroce_qp *qp, struct sroce_pkt_hdr *h)
{
	h->nocrc_ok = h->ext && qp->req.nocrc_ok;
	h->nocrc = qp->req.nocrc;
}

/* RTR: whether we take elided requests, fixed for the connection. */
void sroce_elide_resp_arm(struct sroce_qp *qp)
{
	qp->resp.nocrc_ok = qp->resp.sr_ok && READ_ONCE(qp->sdev->icrc_elide);
	qp->resp.nocrc_peer = false;
}

/*
 * A request from a peer that offered extensions (sroce_sr_resp_learn()):
 * we elide if it takes that and we offer it ourselves.
 */
void sroce_elide_resp_learn(struct sroce_qp *qp, const struct sroce_pkt_hdr *h)
{
	if (h->ext && h->nocrc_ok && qp->resp.nocrc_ok)
		qp->resp.nocrc_peer = true;
}

/* A response: say whether we take elided requests; elide if agreed. */
void sroce_elide_resp_hdr(const struct sroce_qp *qp, struct sroce_pkt_hdr *h)
{
	h->nocrc_ok = h->ext && qp->resp.nocrc_ok;
	h->nocrc = h->ext && qp->resp.nocrc_peer;
}

/*
 * Whether we told the sender of @skb that we take packets without an
 * ICRC: as responder, on responses to a peer that offered extensions;
 * as requester, on our offer, unless the peer refused it.  Anyone else's
 * "elided" packet is checked as usual, and its zero ICRC fails.
 */
bool sroce_elide_rx_ok(const struct sroce_qp *qp, const struct sk_buff *skb)
{
	const struct sroce_opcode_info *oi = sroce_wire_opcode_info(skb->data[0]);

	if (oi->flags & SROCE_OPF_REQ)
		return qp->resp.nocrc_ok && qp->resp.sr_peer;
	return qp->req.nocrc_ok && qp->req.sr != SROCE_SR_OFF;
}
