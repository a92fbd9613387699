// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * The receive path, in softirq.  The UDP encap hook (net.c) hands us every
 * datagram to port 4791 in the namespace.  Before the engine sees a packet
 * we check everything it says about itself: the headers, the ICRC, the
 * device it is for, the P_Key and the transport; the engine then finds
 * the QP (engine.c).  Whatever fails is dropped and counted.
 */
#include <net/dsfield.h>
#include <net/inet_ecn.h>
#include <net/ip.h>
#include <net/ipv6.h>
#include <net/addrconf.h>
#include <linux/inetdevice.h>

#include "sroce.h"
#include "rc.h"

/* Feed @len bytes at @off of a possibly non-linear skb to the ICRC. */
void sroce_icrc_skb(struct sroce_icrc_ctx *ctx, struct sk_buff *skb,
		    unsigned int off, unsigned int len)
{
	struct skb_seq_state st;
	unsigned int done = 0, n;
	const u8 *p;

	if (off + len <= skb_headlen(skb)) {
		sroce_icrc_update(ctx, skb->data + off, len);
		return;
	}
	skb_prepare_seq_read(skb, off, off + len, &st);
	while (done < len) {
		n = skb_seq_read(done, &p, &st);
		if (!n)
			break;
		/* A block may run past the upper bound: clamp it. */
		n = min(n, len - done);
		sroce_icrc_update(ctx, p, n);
		done += n;
	}
	skb_abort_seq_read(&st);
}

/*
 * The device a packet is for: the one on the netdev it arrived on, or,
 * for loopback (lo) and weak-host delivery, the one on the netdev that
 * owns the destination address.  Returns it with a reference held.
 */
static struct sroce_dev *sroce_rx_dev(struct sk_buff *skb, bool ipv6)
{
	struct ib_device *ibdev;
	struct net_device *ndev;

	ibdev = ib_device_get_by_netdev(skb->dev, SROCE_DRIVER_ID);
	if (ibdev)
		return to_sdev(ibdev);
	rcu_read_lock();
	if (ipv6)
		ndev = ipv6_dev_find(dev_net(skb->dev), &ipv6_hdr(skb)->daddr,
				     NULL);
	else
		ndev = __ip_dev_find(dev_net(skb->dev), ip_hdr(skb)->daddr,
				     false);
	if (ndev && ndev != skb->dev)
		ibdev = ib_device_get_by_netdev(ndev, SROCE_DRIVER_ID);
	rcu_read_unlock();
	return ibdev ? to_sdev(ibdev) : NULL;
}

/*
 * ICRC over the IP and UDP headers as received, the headers (@hlen bytes,
 * linear: pulled) and the rest up to the ICRC field.  IPv6 extension
 * headers are not supported: UDP must follow the fixed header.
 */
static bool sroce_rx_icrc_ok(struct sk_buff *skb, unsigned int hlen,
			     bool ipv6)
{
	const u8 *l3 = skb_network_header(skb);
	unsigned int iplen = skb_transport_header(skb) - l3;
	unsigned int l3len = skb->data - l3;	/* IP + UDP */
	struct sroce_icrc_ctx ctx;
	u8 icrc[SROCE_ICRC_BYTES];

	if (iplen != (ipv6 ? sizeof(struct ipv6hdr) : ip_hdrlen(skb)) ||
	    l3len != iplen + sizeof(struct udphdr))
		return false;
	if (sroce_icrc_begin(&ctx, sroce_crc32, l3, l3len + hlen, ipv6))
		return false;
	sroce_icrc_skb(&ctx, skb, hlen, skb->len - hlen - SROCE_ICRC_BYTES);
	if (skb_copy_bits(skb, skb->len - SROCE_ICRC_BYTES, icrc, sizeof(icrc)))
		return false;
	return sroce_icrc_final(&ctx) == sroce_icrc_load(icrc);
}

/*
 * The ICRC of a packet whose check sroce_rx_check() left to the engine,
 * as it takes the packet off the QP's queue: headers already checked and
 * linear, the IP and UDP headers still in front of skb->data.
 */
bool sroce_rx_icrc_verify(struct sk_buff *skb)
{
	return sroce_rx_icrc_ok(skb, sroce_wire_hdr_len(skb->data[0]),
				skb->protocol == htons(ETH_P_IPV6));
}

/*
 * The ICRC of a large RC or XRC packet that the engine will place on
 * another CPU (receive steering) is checked there, not here: it is as
 * much work as the placing, and this CPU is often the sender's.
 */
static bool sroce_rx_icrc_later(const struct sk_buff *skb)
{
	u8 tr = skb->data[0] & SROCE_TR_MASK;

	if (tr != SROCE_TR_RC && tr != SROCE_TR_XRC)
		return false;
	/* Elided, it says (elide.c): whether we agreed depends on the QP. */
	if (skb->data[8] & SROCE_BTH_NOCRC_BIT)
		return true;
	return sroce_engine_steers(skb->len);
}

/*
 * A UDP checksum covers the packet, and the stack verified it before the
 * encap hook: always over IPv6, over IPv4 unless the sender left it 0.
 */
static bool sroce_rx_udp_csum(const struct sk_buff *skb, bool ipv6)
{
	return ipv6 || udp_hdr(skb)->check;
}

/*
 * Validate the packet; on success skb->data is at the BTH, the headers
 * are linear and skb->len runs to the end of the ICRC, whose check may
 * be left to the engine (sroce_rx_cb(skb)->icrc_later).  Returns the
 * counter to charge on failure, or SROCE_CNT_MAX.
 */
static enum sroce_counter sroce_rx_check(struct sk_buff *skb, bool ipv6,
					 bool local)
{
	struct sroce_pkt_hdr h;
	unsigned int hlen;

	/* UDP checked its length and trimmed the skb to it. */
	if (!pskb_may_pull(skb, sizeof(struct udphdr) + SROCE_BTH_BYTES))
		return SROCE_CNT_RX_BAD_HDR;
	__skb_pull(skb, sizeof(struct udphdr));
	hlen = sroce_wire_hdr_len(skb->data[0]);
	if (!hlen || !pskb_may_pull(skb, hlen))
		return SROCE_CNT_RX_BAD_HDR;
	if (sroce_wire_parse(skb->data, skb->len, &h))
		return SROCE_CNT_RX_BAD_HDR;
	/* Built by this host for this host (local.c): it carries none. */
	sroce_rx_cb(skb)->udp_csum = sroce_rx_udp_csum(skb, ipv6);
	sroce_rx_cb(skb)->icrc_later = !local && sroce_rx_icrc_later(skb);
	if (!local && !sroce_rx_cb(skb)->icrc_later &&
	    !sroce_rx_icrc_ok(skb, hlen, ipv6))
		return SROCE_CNT_RX_ICRC_ERR;
	/* One partition, the default; either membership type. */
	if ((h.pkey & 0x7fff) != (SROCE_PKEY_DEFAULT & 0x7fff))
		return SROCE_CNT_RX_BAD_PKEY;
	/* A CNP asks us to slow down: its QP decides (sroce_engine_recv()). */
	if (h.opcode == SROCE_OPCODE_CNP)
		return SROCE_CNT_MAX;
	if (!sroce_transport_supported(h.opcode))
		return SROCE_CNT_RX_BAD_TRANSPORT;
	return SROCE_CNT_MAX;
}

/* A router on the way marked the packet Congestion Experienced. */
static bool sroce_rx_ce(struct sk_buff *skb, bool ipv6)
{
	u8 ds = ipv6 ? ipv6_get_dsfield(ipv6_hdr(skb)) : ip_hdr(skb)->tos;

	return INET_ECN_is_ce(ds);
}

/* Drop @skb and charge counter @why, with a log line for damage. */
void sroce_rx_drop(struct sroce_dev *sdev, struct sk_buff *skb,
		   enum sroce_counter why)
{
	sroce_cnt_inc(&sdev->cnt, why);
	if (why == SROCE_CNT_RX_ICRC_ERR || why == SROCE_CNT_RX_BAD_HDR)
		net_notice_ratelimited("sroce: %s: dropped a packet with %s\n",
				       dev_name(&sdev->ibdev.dev),
				       sroce_counter_descs[why].name);
	kfree_skb(skb);
}

/*
 * A packet for @sdev, from the wire or from this host (@local); data at
 * the UDP header.  Always consumes @skb.
 */
void sroce_net_rx_dev(struct sroce_dev *sdev, struct sk_buff *skb,
		      bool local)
{
	bool ipv6 = skb->protocol == htons(ETH_P_IPV6);
	enum sroce_counter why;
	bool ce;

	why = sroce_rx_check(skb, ipv6, local);
	if (why != SROCE_CNT_MAX) {
		sroce_rx_drop(sdev, skb, why);
		return;
	}
	ce = sroce_rx_ce(skb, ipv6);
	if (ce)
		sroce_cnt_inc(&sdev->cnt, SROCE_CNT_RX_ECN_CE);
	sroce_engine_recv(sdev, skb, ce);
}

/* The encap hook's work: always consumes @skb. */
int sroce_net_rx(struct sroce_net *snet, struct sk_buff *skb)
{
	struct sroce_dev *sdev;

	sdev = sroce_rx_dev(skb, skb->protocol == htons(ETH_P_IPV6));
	if (!sdev) {
		atomic64_inc(&snet->rx_dropped);
		kfree_skb(skb);
		return 0;
	}
	sroce_net_rx_dev(sdev, skb, false);
	ib_device_put(&sdev->ibdev);
	return 0;
}
