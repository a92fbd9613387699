// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * The transmit path: a packet's transport part (BTH to ICRC) is built by
 * the engine in an skb with room for the lower headers; here it gets its
 * ICRC, a UDP header (source port = the QP's entropy port, destination
 * 4791) and an IP header, and leaves through the namespace's UDP socket.
 *
 * The ICRC covers the IP and UDP headers except the fields routers may
 * rewrite, so those headers must be known before it is computed:
 *
 *  - IPv4: the Identification field is covered, and iptunnel_xmit()
 *    (behind udp_tunnel_xmit_skb()) picks it only as it sends.  So the
 *    headers are built here (DF set, ID from __ip_select_ident()), the
 *    ICRC computed over them, and the packet sent with ip_local_out().
 *    The UDP checksum is zero, which IPv4 allows; the ICRC covers all.
 *  - IPv6: built the same way and sent with ip6_local_out(), because
 *    udp_tunnel6_xmit_skb() throws away the verdict we need (below).  The
 *    UDP checksum, which IPv6 requires, is offloaded (CHECKSUM_PARTIAL)
 *    or completed by the stack; the ICRC masks that field.
 *
 * Routes come from a per-QP dst_cache, looked up again when the AV
 * changes or the route goes stale.  A route through lo to a sroce
 * device of this host is taken past lo, with no ICRC (local.c).  A packet that cannot be sent (no
 * route, namespace gone) is dropped and counted: to the engine it is a
 * lost packet, which the retransmit timer deals with.
 */
#include <linux/module.h>
#include <net/ip.h>
#include <net/ipv6.h>
#include <net/ipv6_stubs.h>
#include <net/udp.h>
#include <net/ip6_checksum.h>
#include <net/route.h>
#include <net/addrconf.h>
#include <net/dst_cache.h>
#include <net/inet_ecn.h>

#include "sroce.h"
#include "rc.h"
#include "trace.h"

/* sroce_tx_ip4_gso(): a train to this host, to be sent packet by packet. */
#define SROCE_TX_SPLIT		1

void sroce_tx_hdr_init(const struct sroce_qp *qp, struct sroce_pkt_hdr *h,
		       u8 opcode, u32 psn)
{
	memset(h, 0, sizeof(*h));
	h->opcode = opcode;
	h->pkey = SROCE_PKEY_DEFAULT;
	h->dest_qpn = qp->dest_qpn;
	h->psn = psn;
}

/*
 * Heads of the packets we build come from page fragments, as a NIC
 * driver's receive buffers do, not from kmalloc: an ACK's or a
 * zero-copy packet's head is a few hundred bytes, which kmalloc would
 * zero first under Debian's init_on_alloc (with the slab refills, 3 % of
 * a READ stream's samples), and a fragment page, once every packet on it
 * is freed, is reused as it is.  One cache per CPU, used with BHs off.
 */
static DEFINE_PER_CPU(struct page_frag_cache, sroce_tx_frags);

static struct sk_buff *sroce_tx_alloc_skb(unsigned int size)
{
	const gfp_t gfp = GFP_ATOMIC | __GFP_NOWARN;
	unsigned int len = SKB_HEAD_ALIGN(size);
	struct sk_buff *skb;
	void *data;

	if (len > PAGE_SIZE || in_hardirq() || irqs_disabled())
		return alloc_skb(size, gfp);
	local_bh_disable();
	data = page_frag_alloc(this_cpu_ptr(&sroce_tx_frags), len, gfp);
	local_bh_enable();
	if (!data)
		return NULL;
	skb = build_skb(data, len);
	if (!skb)
		skb_free_frag(data);
	return skb;
}

/* Unload: the caches' own references to their pages (skbs hold theirs). */
void sroce_tx_exit(void)
{
	struct page_frag_cache *nc;
	int cpu;

	for_each_possible_cpu(cpu) {
		nc = per_cpu_ptr(&sroce_tx_frags, cpu);
		if (nc->va)
			__page_frag_cache_drain(virt_to_head_page(nc->va),
						nc->pagecnt_bias);
		nc->va = NULL;
	}
}

/*
 * An skb holding the headers of @h, with headroom for Ethernet + IPv6 +
 * UDP (the stack makes more if the route needs it) and @linear more bytes.
 */
static struct sk_buff *sroce_tx_alloc_hdr(struct sroce_qp *qp,
					  struct sroce_pkt_hdr *h, u32 paylen,
					  u32 linear)
{
	unsigned int room = LL_RESERVED_SPACE(qp->sdev->ndev) +
			    sizeof(struct ipv6hdr) + sizeof(struct udphdr);
	unsigned int hlen = sroce_wire_hdr_len(h->opcode);
	struct sk_buff *skb;

	skb = sroce_tx_alloc_skb(room + hlen + linear);
	if (!skb)
		return NULL;
	skb_reserve(skb, room);
	h->pad = sroce_wire_pad(paylen);
	if (WARN_ON_ONCE(sroce_wire_build(skb_put(skb, hlen), hlen, h) != hlen)) {
		kfree_skb(skb);
		return NULL;
	}
	return skb;
}

/*
 * An skb holding the headers of @h and room for @paylen bytes of payload
 * at skb->data + sroce_wire_hdr_len(h->opcode), zero pad included; the
 * caller fills the payload.
 */
struct sk_buff *sroce_tx_alloc(struct sroce_qp *qp, struct sroce_pkt_hdr *h,
			       u32 paylen)
{
	u32 pad = sroce_wire_pad(paylen);
	struct sk_buff *skb;

	skb = sroce_tx_alloc_hdr(qp, h, paylen,
				 paylen + pad + SROCE_ICRC_BYTES);
	if (!skb)
		return NULL;
	skb_put(skb, paylen);
	if (pad)
		skb_put_zero(skb, pad);
	return skb;
}

/*
 * Zero copy: payloads of at least this many bytes leave from the memory
 * region's own pages, attached to the skb as fragments, instead of being
 * copied into it (and the copy's buffer zeroed first, as Debian's
 * init_on_alloc does to every kmalloc).  Smaller ones are cheaper copied.
 */
#define SROCE_TX_ZC_MIN		512

static bool tx_zerocopy = true;
module_param(tx_zerocopy, bool, 0644);
MODULE_PARM_DESC(tx_zerocopy,
		 "Send payloads from the memory region's pages, not a copy (default Y)");

/*
 * Should a payload of @paylen bytes go zero copy?  Only toward a netdev
 * with scatter-gather: elsewhere the stack would linearize it again.
 */
bool sroce_tx_zc_wanted(const struct sroce_qp *qp, u32 paylen)
{
	return paylen >= SROCE_TX_ZC_MIN && READ_ONCE(tx_zerocopy) &&
	       (READ_ONCE(qp->sdev->ndev->features) & NETIF_F_SG);
}

/*
 * An skb for @h with @paylen bytes of payload to come through @d: if
 * @zc, headers only, and the copy functions attach the MR pages as
 * fragments (struct sroce_data's zc); else the linear room they copy
 * into.  Either way sroce_tx_data_done() follows the payload.
 */
struct sk_buff *sroce_tx_alloc_data(struct sroce_qp *qp,
				    struct sroce_pkt_hdr *h, u32 paylen,
				    bool zc, struct sroce_data *d)
{
	struct sk_buff *skb;

	skb = zc ? sroce_tx_alloc_hdr(qp, h, paylen, 0) :
		   sroce_tx_alloc(qp, h, paylen);
	*d = (struct sroce_data){ .zc = zc };
	if (skb && zc)
		d->skb = skb;
	else if (skb)
		d->buf = skb->data + sroce_wire_hdr_len(h->opcode);
	return skb;
}

/*
 * After the payload fragments: the zero pad and the ICRC, in a fragment
 * of their own (nothing linear may follow fragments).
 */
static int sroce_tx_seal(struct sk_buff *skb, const struct sroce_pkt_hdr *h)
{
	struct skb_shared_info *si = skb_shinfo(skb);
	unsigned int n = h->pad + SROCE_ICRC_BYTES;
	struct page *page;
	void *tail;

	if (si->nr_frags >= MAX_SKB_FRAGS)
		return -E2BIG;
	tail = netdev_alloc_frag(n);
	if (!tail)
		return -ENOMEM;
	memset(tail, 0, n);
	page = virt_to_head_page(tail);
	skb_fill_page_desc(skb, si->nr_frags, page, tail - page_address(page),
			   n);
	skb->len += n;
	skb->data_len += n;
	skb->truesize += n;
	/* The payload is the application's memory: never write it here. */
	si->flags |= SKBFL_SHARED_FRAG;
	return 0;
}

/*
 * The payload is in: seal a zero-copy skb.  -E2BIG if that failed (no
 * slot or no memory for the seal): the caller copies instead.
 */
int sroce_tx_data_done(struct sk_buff *skb, const struct sroce_pkt_hdr *h,
		       const struct sroce_data *d)
{
	if (!d->zc)
		return 0;
	return sroce_tx_seal(skb, h) ? -E2BIG : 0;
}

/* Where the ICRC goes: the linear tail, or the sealing fragment's end. */
static u8 *sroce_tx_icrc_slot(struct sk_buff *skb)
{
	struct skb_shared_info *si = skb_shinfo(skb);
	skb_frag_t *f;

	if (!skb->data_len)
		return skb_tail_pointer(skb) - SROCE_ICRC_BYTES;
	f = &si->frags[si->nr_frags - 1];
	return (u8 *)skb_frag_address(f) + skb_frag_size(f) - SROCE_ICRC_BYTES;
}

/*
 * Compute the ICRC: @l3 holds the IP and UDP headers as they will be sent
 * followed by the BTH, @rest is where the data after the BTH starts in
 * the skb, and the ICRC field is the skb's last four bytes.
 */
static void sroce_tx_icrc(struct sk_buff *skb, const u8 *l3,
			  unsigned int l3len, unsigned int rest, bool ipv6)
{
	struct sroce_icrc_ctx ctx;

	if (WARN_ON_ONCE(sroce_icrc_begin(&ctx, sroce_crc32, l3, l3len, ipv6)))
		return;
	sroce_icrc_skb(&ctx, skb, rest, skb->len - rest - SROCE_ICRC_BYTES);
	sroce_icrc_store(sroce_tx_icrc_slot(skb), sroce_icrc_final(&ctx));
}

/*
 * The packet's end-to-end check: its ICRC; or, where the peer agreed to
 * elide it (elide.c), a zero ICRC field and the UDP checksum, which the
 * netdev offloads or the stack computes as the packet leaves.  skb->data
 * is at the IP header, @l3len bytes of IP and UDP header before the BTH.
 */
static void sroce_tx_check(struct sroce_qp *qp, struct sk_buff *skb,
			   unsigned int l3len, bool ipv6)
{
	unsigned int rest = l3len + SROCE_BTH_BYTES;
	struct iphdr *iph;

	/* The BTH's byte 8: what the requester or responder decided. */
	if (!(skb->data[l3len + 8] & SROCE_BTH_NOCRC_BIT)) {
		sroce_tx_icrc(skb, skb->data, rest, rest, ipv6);
		return;
	}
	sroce_icrc_store(sroce_tx_icrc_slot(skb), 0);
	/* IPv6 has its UDP checksum already (sroce_tx_ip6()). */
	if (!ipv6) {
		iph = ip_hdr(skb);
		udp_set_csum(false, skb, iph->saddr, iph->daddr,
			     skb->len - ip_hdrlen(skb));
	}
	sroce_cnt_inc(&qp->sdev->cnt, SROCE_CNT_TX_ICRC_ELIDED);
}

static struct rtable *sroce_tx_route4_lookup(struct sroce_qp *qp,
					     struct net *net, int oif)
{
	const struct sroce_av *av = &qp->av;
	struct flowi4 fl4 = {
		.flowi4_oif = oif,
		.flowi4_tos = RT_TOS(av->traffic_class),
		.flowi4_proto = IPPROTO_UDP,
		.daddr = av->daddr.in4.sin_addr.s_addr,
		.saddr = av->saddr.in4.sin_addr.s_addr,
		.fl4_sport = htons(qp->src_port),
		.fl4_dport = htons(SROCE_UDP_PORT),
	};

	return ip_route_output_key(net, &fl4);
}

/*
 * Leave through our netdev; but a peer on another local netdev (another
 * sroce device in this namespace) is reached through lo, which a lookup
 * bound to our netdev would not find.
 */
static struct rtable *sroce_tx_route4(struct sroce_qp *qp, struct net *net)
{
	__be32 daddr = qp->av.daddr.in4.sin_addr.s_addr;
	struct rtable *rt;
	__be32 saddr;
	int oif = qp->sdev->ndev->ifindex;

	rt = dst_cache_get_ip4(&qp->req.dst_cache, &saddr);
	if (rt)
		return rt;
	if (inet_addr_type(net, daddr) == RTN_LOCAL)
		oif = 0;
	rt = sroce_tx_route4_lookup(qp, net, oif);
	if (!IS_ERR(rt))
		dst_cache_set_ip4(&qp->req.dst_cache, &rt->dst,
				  qp->av.saddr.in4.sin_addr.s_addr);
	return rt;
}

/*
 * Through lo (a peer on this host), the skb is orphaned as it enters the
 * backlog, so our count says nothing about what is still queued there;
 * the engine then uses a stricter rule to move the QP (engine.c).
 */
static void sroce_tx_note_route(struct sroce_qp *qp, struct dst_entry *dst)
{
	qp->req.via_lo = !!(dst->dev->flags & IFF_LOOPBACK);
}

/*
 * A qdisc or a veth peer's full backlog refused the packet: it never left
 * this host, so the sender may simply try it again a little later
 * (-ENOBUFS) instead of losing it and paying a retransmission.
 */
static int sroce_tx_result(int err)
{
	if (!err || err == NET_XMIT_CN)
		return 0;
	return err == NET_XMIT_DROP ? -ENOBUFS : -EIO;
}

static void sroce_tx_udp(struct sroce_qp *qp, struct sk_buff *skb)
{
	struct udphdr *uh;

	uh = skb_push(skb, sizeof(*uh));
	skb_reset_transport_header(skb);
	uh->source = htons(qp->src_port);
	uh->dest = htons(SROCE_UDP_PORT);
	uh->len = htons(skb->len);
	uh->check = 0;
}

/* The traffic class, with the ECN field congestion control asks for. */
static u8 sroce_tx_tclass(const struct sroce_av *av, u8 ecn)
{
	return ecn ? (av->traffic_class & ~INET_ECN_MASK) | ecn :
		     av->traffic_class;
}

/*
 * To a sroce device of this host (local.c): the IP header just pushed,
 * skb->data moved back to the UDP header, as the receive path takes it.
 */
static int sroce_tx_local(struct sroce_qp *qp, struct sroce_dev *local,
			  struct sk_buff *skb, u16 proto)
{
	skb_reset_network_header(skb);
	skb->protocol = htons(proto);
	__skb_pull(skb, skb_transport_offset(skb));
	skb->ip_summed = CHECKSUM_UNNECESSARY;
	if (sroce_local_xmit(local, skb))
		return -ENOBUFS;
	sroce_cnt_inc(&qp->sdev->cnt, SROCE_CNT_TX_LOCAL);
	return 0;
}

/* The UDP and IPv4 headers of @skb, its identification aside. */
static struct iphdr *sroce_tx_ip4_hdr(struct sroce_qp *qp, struct sk_buff *skb,
				      struct rtable *rt, u8 ecn)
{
	const struct sroce_av *av = &qp->av;
	struct iphdr *iph;

	sroce_tx_udp(qp, skb);
	iph = skb_push(skb, sizeof(*iph));
	skb_reset_network_header(skb);
	iph->version = 4;
	iph->ihl = sizeof(*iph) >> 2;
	iph->tos = sroce_tx_tclass(av, ecn);
	iph->tot_len = htons(skb->len);
	iph->frag_off = htons(IP_DF);
	iph->ttl = av->hop_limit ?: ip4_dst_hoplimit(&rt->dst);
	iph->protocol = IPPROTO_UDP;
	iph->check = 0;
	iph->saddr = av->saddr.in4.sin_addr.s_addr;
	iph->daddr = av->daddr.in4.sin_addr.s_addr;
	return iph;
}

static int sroce_tx_ip4_out(struct net *net, struct socket *sock,
			    struct sk_buff *skb, struct rtable *rt)
{
	memset(IPCB(skb), 0, sizeof(*IPCB(skb)));
	skb_dst_set(skb, &rt->dst);
	return sroce_tx_result(ip_local_out(net, sock->sk, skb));
}

static int sroce_tx_ip4(struct sroce_qp *qp, struct sk_buff *skb,
			struct socket *sock, u8 ecn)
{
	struct net *net = sock_net(sock->sk);
	struct sroce_dev *local;
	struct iphdr *iph;
	struct rtable *rt;

	rt = sroce_tx_route4(qp, net);
	if (IS_ERR(rt)) {
		kfree_skb(skb);
		return PTR_ERR(rt);
	}
	sroce_tx_note_route(qp, &rt->dst);
	local = sroce_local_target(net, &rt->dst, &qp->av);
	iph = sroce_tx_ip4_hdr(qp, skb, rt, ecn);
	if (local) {
		ip_rt_put(rt);
		return sroce_tx_local(qp, local, skb, ETH_P_IP);
	}
	__ip_select_ident(net, iph, 1);
	skb->ip_summed = CHECKSUM_NONE;
	sroce_tx_check(qp, skb, sizeof(*iph) + sizeof(struct udphdr), false);
	return sroce_tx_ip4_out(net, sock, skb, rt);
}

/*
 * The ICRC of a packet of a train (gso.c) that starts at its BTH, as the
 * segment that carries it will be: @hdr is the train's IPv4 and UDP
 * header, and the segment gets identification @id and its own lengths.
 */
static void sroce_tx_gso_icrc(struct sroce_qp *qp, struct sk_buff *skb,
			      const u8 *hdr, u16 id)
{
	u8 l3[sizeof(struct iphdr) + sizeof(struct udphdr) + SROCE_BTH_BYTES];
	struct iphdr *iph = (struct iphdr *)l3;
	struct udphdr *uh = (struct udphdr *)(iph + 1);

	/* Elided: GSO gives the segment its UDP checksum. */
	if (skb->data[8] & SROCE_BTH_NOCRC_BIT) {
		sroce_icrc_store(sroce_tx_icrc_slot(skb), 0);
		sroce_cnt_inc(&qp->sdev->cnt, SROCE_CNT_TX_ICRC_ELIDED);
		return;
	}
	memcpy(l3, hdr, sizeof(*iph) + sizeof(*uh));
	memcpy(uh + 1, skb->data, SROCE_BTH_BYTES);
	iph->id = htons(id);
	iph->tot_len = htons(sizeof(*iph) + sizeof(*uh) + skb->len);
	uh->len = htons(sizeof(*uh) + skb->len);
	sroce_tx_icrc(skb, l3, sizeof(l3), SROCE_BTH_BYTES, false);
}

/*
 * Move @m's bytes into @head's fragments: its linear part (a page
 * fragment, sroce_tx_alloc_skb()) and its fragments, each with a
 * reference of its own; @m is then freed.
 */
static void sroce_tx_gso_append(struct sk_buff *head, struct sk_buff *m)
{
	struct skb_shared_info *si = skb_shinfo(head), *mi = skb_shinfo(m);
	unsigned int i;

	if (skb_headlen(m)) {
		struct page *page = virt_to_head_page(m->data);

		get_page(page);
		skb_fill_page_desc(head, si->nr_frags, page,
				   m->data - (u8 *)page_address(page),
				   skb_headlen(m));
	}
	for (i = 0; i < mi->nr_frags; i++) {
		si->frags[si->nr_frags] = mi->frags[i];
		__skb_frag_ref(&si->frags[si->nr_frags]);
		si->nr_frags++;
	}
	si->flags |= mi->flags & SKBFL_SHARED_FRAG;
	head->len += m->len;
	head->data_len += m->len;
	head->truesize += m->len;
	consume_skb(m);
}

/*
 * Send the train @q (gso.c: two packets or more, all as long as the first
 * but the last, each a page-fragment head and fragments that fit one skb)
 * as one UDP GSO skb.  The stack, or the netdev, cuts it into one
 * datagram per packet after the qdisc: one pass through IP, the qdisc
 * and the driver's doorbell for the train, as TCP's segments get.  Each
 * segment's ICRC is computed here for the identification and lengths
 * that segmentation gives it.  A nonzero UDP checksum comes with GSO, so
 * only a sroce peer gets trains.  Consumes the train, but for one to
 * this host's own addresses: SROCE_TX_SPLIT, and the caller sends each
 * packet alone, as sroce_tx_ip4() hands it to a local device (local.c)
 * or to lo.
 */
static int sroce_tx_ip4_gso(struct sroce_qp *qp, struct sk_buff_head *q,
			    struct socket *sock, u8 ecn)
{
	struct net *net = sock_net(sock->sk);
	unsigned int n = skb_queue_len(q), size, i;
	struct sk_buff *head, *m;
	struct udphdr *uh;
	struct iphdr *iph;
	struct rtable *rt;
	u16 id;

	rt = sroce_tx_route4(qp, net);
	if (IS_ERR(rt)) {
		__skb_queue_purge(q);
		return PTR_ERR(rt);
	}
	sroce_tx_note_route(qp, &rt->dst);
	/* This host's own addresses: the caller sends them one by one. */
	if (rt->dst.dev->flags & IFF_LOOPBACK) {
		ip_rt_put(rt);
		return SROCE_TX_SPLIT;
	}
	head = __skb_dequeue(q);
	size = head->len;
	iph = sroce_tx_ip4_hdr(qp, head, rt, ecn);
	__ip_select_ident(net, iph, n);
	id = ntohs(iph->id);
	sroce_tx_check(qp, head, sizeof(*iph) + sizeof(*uh), false);
	for (i = 1; (m = __skb_dequeue(q)); i++) {
		sroce_tx_gso_icrc(qp, m, head->data, id + i);
		sroce_tx_gso_append(head, m);
	}
	uh = udp_hdr(head);
	uh->len = htons(head->len - sizeof(*iph));
	uh->check = ~udp_v4_check(head->len - sizeof(*iph), iph->saddr,
				  iph->daddr, 0);
	head->ip_summed = CHECKSUM_PARTIAL;
	head->csum_start = skb_transport_header(head) - head->head;
	head->csum_offset = offsetof(struct udphdr, check);
	skb_shinfo(head)->gso_size = size;
	skb_shinfo(head)->gso_type = SKB_GSO_UDP_L4;
	skb_shinfo(head)->gso_segs = n;
	return sroce_tx_ip4_out(net, sock, head, rt);
}

static struct dst_entry *sroce_tx_route6(struct sroce_qp *qp,
					 struct socket *sock)
{
	const struct sroce_av *av = &qp->av;
	struct net *net = sock_net(sock->sk);
	struct flowi6 fl6 = {
		.flowi6_oif = qp->sdev->ndev->ifindex,
		.flowi6_proto = IPPROTO_UDP,
		.daddr = av->daddr.in6.sin6_addr,
		.saddr = av->saddr.in6.sin6_addr,
		.flowlabel = ip6_make_flowinfo(av->traffic_class,
					       htonl(av->flow_label) &
					       IPV6_FLOWLABEL_MASK),
		.fl6_sport = htons(qp->src_port),
		.fl6_dport = htons(SROCE_UDP_PORT),
	};
	struct dst_entry *dst;
	struct in6_addr saddr;

	dst = dst_cache_get_ip6(&qp->req.dst_cache, &saddr);
	if (dst)
		return dst;
	if (ipv6_chk_addr(net, &fl6.daddr, NULL, 0))
		fl6.flowi6_oif = 0;	/* another local device: via lo */
	dst = ipv6_stub->ipv6_dst_lookup_flow(net, sock->sk, &fl6, NULL);
	if (IS_ERR(dst))
		return dst;
	if (dst->error) {
		dst_release(dst);
		return ERR_PTR(-ENETUNREACH);
	}
	dst_cache_set_ip6(&qp->req.dst_cache, dst, &fl6.saddr);
	return dst;
}

static int sroce_tx_ip6(struct sroce_qp *qp, struct sk_buff *skb,
			struct socket *sock, u8 ecn)
{
	const struct sroce_av *av = &qp->av;
	struct net *net = sock_net(sock->sk);
	struct sroce_dev *local;
	struct dst_entry *dst;
	struct ipv6hdr *ip6h;
	int err;

	dst = sroce_tx_route6(qp, sock);
	if (IS_ERR(dst)) {
		kfree_skb(skb);
		return PTR_ERR(dst);
	}
	sroce_tx_note_route(qp, dst);
	local = sroce_local_target(net, dst, av);
	sroce_tx_udp(qp, skb);
	/* IPv6 needs a UDP checksum: offloaded, or done by the stack. */
	if (!local)
		udp6_set_csum(false, skb, &av->saddr.in6.sin6_addr,
			      &av->daddr.in6.sin6_addr, skb->len);
	ip6h = skb_push(skb, sizeof(*ip6h));
	skb_reset_network_header(skb);
	ip6_flow_hdr(ip6h, sroce_tx_tclass(av, ecn),
		     htonl(av->flow_label) & IPV6_FLOWLABEL_MASK);
	ip6h->payload_len = htons(skb->len - sizeof(*ip6h));
	ip6h->nexthdr = IPPROTO_UDP;
	ip6h->hop_limit = av->hop_limit ?: ip6_dst_hoplimit(dst);
	ip6h->saddr = av->saddr.in6.sin6_addr;
	ip6h->daddr = av->daddr.in6.sin6_addr;
	if (local) {
		dst_release(dst);
		return sroce_tx_local(qp, local, skb, ETH_P_IPV6);
	}
	sroce_tx_check(qp, skb, sizeof(*ip6h) + sizeof(struct udphdr), true);

	memset(IP6CB(skb), 0, sizeof(*IP6CB(skb)));
	skb_dst_set(skb, dst);
	err = ip6_local_out(net, sock->sk, skb);
	return sroce_tx_result(err);
}

struct sroce_txacct *sroce_txacct_alloc(void)
{
	struct sroce_txacct *acct = kzalloc(sizeof(*acct), GFP_KERNEL);

	if (acct)
		refcount_set(&acct->ref, 1);
	return acct;
}

void sroce_txacct_put(struct sroce_txacct *acct)
{
	if (acct && refcount_dec_and_test(&acct->ref))
		kfree(acct);
}

/*
 * The skb left the local stack: the receiving IP layer took it (veth),
 * the device sent it, or it was dropped.  destructor_arg is free for us:
 * we never set SKBFL_ZEROCOPY_ENABLE, the only other user's flag.
 */
static void sroce_tx_destructor(struct sk_buff *skb)
{
	struct sroce_txacct *acct = skb_shinfo(skb)->destructor_arg;

	atomic_dec(&acct->inflight);
	sroce_txacct_put(acct);
}

/*
 * Too much of ours is still queued locally: hold back data packets and
 * look again shortly.  ACKs are never held (they are what drains it).
 */
static unsigned int tx_queue_max = SROCE_TX_INFLIGHT_MAX;
module_param(tx_queue_max, uint, 0644);
MODULE_PARM_DESC(tx_queue_max,
		 "Packets a QP may have queued in this host before it waits (default 256)");

/*
 * Through lo, the PSNs that may still sit in the backlog: those sent and
 * not acknowledged, less what the peer holds beyond a gap.  From the
 * next to send, not the highest sent: after a rewind (an RNR or sequence
 * NAK, a timeout) the packets beyond it have left the backlog, and
 * counting them would keep the resend that the peer waits for from ever
 * leaving.
 */
static u32 sroce_tx_lo_queued(const struct sroce_req *req)
{
	u32 out = sroce_psn_sub(req->psn, req->una);

	return out - min(out, req->sacked);
}

/*
 * Lower priority classes yield to a higher one that is active on the
 * device (proto/prio.h); off, every class is queued alike.  Off by
 * default: under TCG the yielding QPs' 50 us backoff timers cost the
 * CPUs more than the queueing they save, and the higher class's tail
 * latency grew (Documentation/testing.rst, bench-prio).
 */
static bool prio_sched;
module_param(prio_sched, bool, 0644);
MODULE_PARM_DESC(prio_sched,
		 "Lower SL/DSCP classes yield to higher ones on a device (default N)");

/* Does a higher class than this QP's send on its device right now? */
bool sroce_tx_outranked(const struct sroce_qp *qp)
{
	return READ_ONCE(prio_sched) &&
	       sroce_prio_outranked(qp->sdev->prio_until, sroce_qp_prio(qp),
				    jiffies);
}

/*
 * A class above 0 sent: it is active for the next SROCE_PRIO_HOLD_MS.
 * Written at most once a jiffy, so a busy class costs no cache-line
 * bouncing between the CPUs that read it.
 */
static void sroce_tx_note_prio(struct sroce_dev *sdev, unsigned int prio)
{
	unsigned long until = jiffies + msecs_to_jiffies(SROCE_PRIO_HOLD_MS);

	if (prio && READ_ONCE(sdev->prio_until[prio]) != until)
		WRITE_ONCE(sdev->prio_until[prio], until);
}

bool sroce_tx_throttled(struct sroce_qp *qp)
{
	const struct sroce_req *req = &qp->req;
	u32 queued = atomic_read(&req->txacct->inflight);
	bool yield = sroce_tx_outranked(qp);

	/*
	 * Through lo the count is blind (see sroce_tx_note_route()) and the
	 * backlog drops silently when full: bound the unacknowledged PSNs
	 * instead, which also counts what still sits in the backlog.  So
	 * too when yielding on a short path: the count lets go of a packet
	 * as the peer's IP layer takes it (ip_rcv orphans it), though it
	 * may then wait in the peer's receive queues, and on a LAN what is
	 * unacknowledged is mostly still in the hosts, not on the wire.
	 * Only RC and XRC have PSNs: nothing acknowledges UD or UC.
	 */
	if ((req->via_lo ||
	     (yield && sroce_prio_short_path(req->rack_min_rtt_ns))) &&
	    (qp->ibqp.qp_type == IB_QPT_RC || sroce_qp_is_xrc(qp)))
		queued = max(queued, sroce_tx_lo_queued(req));
	if (queued < sroce_prio_queue_max(READ_ONCE(tx_queue_max), yield))
		return false;
	sroce_cnt_inc(&qp->sdev->cnt, yield ? SROCE_CNT_TX_YIELDED :
					      SROCE_CNT_TX_THROTTLED);
	/*
	 * Yielding too: waiting for an ACK instead stalled bulk QPs until
	 * their tail loss probe, as the held packets need not ask for one.
	 */
	sroce_engine_backoff(qp);
	return true;
}

void sroce_tx_set_owner(struct sroce_qp *qp, struct sk_buff *skb)
{
	struct sroce_txacct *acct = qp->req.txacct;

	refcount_inc(&acct->ref);
	atomic_inc(&acct->inflight);
	skb_shinfo(skb)->destructor_arg = acct;
	skb->destructor = sroce_tx_destructor;
}

/*
 * The socket of the QP's address family, and the engine's route cache
 * reset if the address changed.  Called with BHs off, under RCU (the
 * dst_cache is per CPU; the socket is freed after an RCU period).
 */
static struct socket *sroce_tx_sock(struct sroce_qp *qp, bool ipv6)
{
	struct sroce_net *snet = qp->sdev->snet;

	/* Only the engine's work item uses the cache: reset it from there. */
	if (test_and_clear_bit(SROCE_ENG_AV_CHANGED, &qp->req.flags))
		dst_cache_reset(&qp->req.dst_cache);
	return ipv6 ? rcu_dereference(snet->sock6) :
		      rcu_dereference(snet->sock4);
}

static void sroce_tx_count(struct sroce_qp *qp, int err, unsigned int n,
			   unsigned int bytes, unsigned int zc)
{
	struct sroce_counters *cnt = &qp->sdev->cnt;

	if (err) {
		sroce_cnt_add(cnt, err == -ENOBUFS ? SROCE_CNT_TX_BUSY :
			      SROCE_CNT_TX_DROPPED, n);
		return;
	}
	sroce_cnt_add(cnt, SROCE_CNT_TX_PACKETS, n);
	sroce_cnt_add(cnt, SROCE_CNT_TX_BYTES, bytes);
	if (zc)
		sroce_cnt_add(cnt, SROCE_CNT_TX_ZEROCOPY, zc);
}

/* Send one packet, ready but for its IP and UDP headers; consumes it. */
static int sroce_tx_out(struct sroce_qp *qp, struct sk_buff *skb, u8 ecn)
{
	bool ipv6 = qp->av.network_type == RDMA_NETWORK_IPV6;
	unsigned int len = skb->len;
	bool zc = skb_is_nonlinear(skb);
	struct socket *sock;
	int err;

	local_bh_disable();
	rcu_read_lock();
	sock = sroce_tx_sock(qp, ipv6);
	if (!sock) {
		kfree_skb(skb);
		err = -ENOTCONN;
	} else if (ipv6) {
		err = sroce_tx_ip6(qp, skb, sock, ecn);
	} else {
		err = sroce_tx_ip4(qp, skb, sock, ecn);
	}
	rcu_read_unlock();
	local_bh_enable();
	sroce_tx_count(qp, err, 1, len, zc);
	return err;
}

/*
 * Send the train gathered in @q (gso.c): one packet alone, more as one
 * GSO skb.  What is lost here is lost as on the wire: the requester's
 * retransmission repairs it.
 */
void sroce_tx_train(struct sroce_qp *qp, struct sk_buff_head *q, u8 ecn)
{
	unsigned int n = skb_queue_len(q), bytes = 0, zc = 0;
	struct socket *sock;
	struct sk_buff *skb;
	int err;

	if (n <= 1) {
		skb = __skb_dequeue(q);
		if (skb)
			sroce_tx_out(qp, skb, ecn);
		return;
	}
	skb_queue_walk(q, skb) {
		bytes += skb->len;
		zc += skb_is_nonlinear(skb);
	}
	local_bh_disable();
	rcu_read_lock();
	sock = sroce_tx_sock(qp, false);
	if (sock) {
		err = sroce_tx_ip4_gso(qp, q, sock, ecn);
	} else {
		__skb_queue_purge(q);
		err = -ENOTCONN;
	}
	rcu_read_unlock();
	local_bh_enable();
	if (err == SROCE_TX_SPLIT) {
		/* Each counted as it goes: no train left. */
		while ((skb = __skb_dequeue(q)))
			sroce_tx_out(qp, skb, ecn);
		return;
	}
	sroce_tx_count(qp, err, n, bytes, zc);
	if (!err)
		sroce_cnt_inc(&qp->sdev->cnt, SROCE_CNT_TX_TRAINS);
}

/*
 * Send a packet built by sroce_tx_alloc(); always consumes @skb.
 * Returns 0, -ENOBUFS if it was refused locally and can be sent again
 * soon, or another error when it is lost (no route, namespace gone);
 * either way it is counted.  While the requester gathers a train
 * (gso.c), its data packets join it instead and go when it does.
 */
int sroce_tx_xmit(struct sroce_qp *qp, struct sk_buff *skb)
{
	bool zc = skb_is_nonlinear(skb);
	u8 ecn = sroce_cc_ecn(qp, skb->data[0]);
	unsigned int prio = sroce_qp_prio(qp);
	int err;

	/*
	 * Zeroed: if the ICRC were ever not computed, no stale heap leaves.
	 * A zero-copy skb has its room already (sroce_tx_seal()).
	 */
	if (!zc)
		skb_put_zero(skb, SROCE_ICRC_BYTES);
	trace_sroce_tx(qp->ibqp.qp_num, skb->data, skb->len);
	sroce_tx_set_owner(qp, skb);
	/* For the qdiscs: mqprio and VLAN egress maps read it as 802.1p. */
	skb->priority = prio;
	sroce_tx_note_prio(qp->sdev, prio);
	if (qp->req.gso_open) {
		if (sroce_gso_add(qp, skb, ecn))
			return 0;
		/* Not one for the train: what it holds goes first. */
		sroce_gso_flush(qp);
	}
	err = sroce_tx_out(qp, skb, ecn);
	qp->req.tx_now_ns = 0;
	return err;
}
