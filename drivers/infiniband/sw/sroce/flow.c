// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * Flow steering: create_flow/destroy_flow and the tap that feeds raw
 * packet QPs (raw.h).
 *
 * ib_core hands us its specs (struct ib_flow_attr); the pure core
 * (proto/flow.c) turns them into a rule and decides, per frame, which
 * rules take it.  A device's flows are a list read under RCU; each holds
 * its QP's number, looked up per frame in the QP table, which hands out
 * a reference or nothing: a frame never reaches a QP that is going away.
 * ib_core keeps a QP from being destroyed while a flow points at it
 * (qp->usecnt), so the number is the flow's QP's until the flow is gone.
 *
 * The frames come from a packet_type tap on the netdev, there only while
 * the device has a flow: with none, receiving costs nothing.  It sees a
 * frame after the stack untagged it, so the tag goes back into the
 * frame a QP gets.  Frames the host sends are not received here; those
 * a raw QP of this device sends are, from raw.c, as a NIC's are.
 */
#include <linux/if_vlan.h>
#include <linux/rculist.h>

#include "sroce.h"
#include "proto/flow.h"

struct sroce_flow {
	struct ib_flow ibflow;
	struct list_head node;		/* in sdev->flows.list */
	struct rcu_head rcu;
	struct sroce_dev *sdev;
	u32 qpn;
	struct sroce_flow_rule rule;
};

/* The core takes ib_core's filter bytes and numbers as they are. */
static_assert(offsetof(struct ib_flow_eth_filter, real_sz) ==
	      SROCE_FLOW_ETH_BYTES);
static_assert(offsetof(struct ib_flow_ipv4_filter, real_sz) ==
	      SROCE_FLOW_IP4_BYTES);
static_assert(offsetof(struct ib_flow_ipv6_filter, real_sz) ==
	      SROCE_FLOW_IP6_BYTES);
static_assert(offsetof(struct ib_flow_tcp_udp_filter, real_sz) ==
	      SROCE_FLOW_L4_BYTES);
/* Numbers the core shares with ib_core, one by one. */
#define SROCE_FLOW_SAME(a, b)	static_assert((int)(a) == (int)(b))
SROCE_FLOW_SAME(IB_FLOW_SPEC_ETH, SROCE_FLOW_SPEC_ETH);
SROCE_FLOW_SAME(IB_FLOW_SPEC_IPV4, SROCE_FLOW_SPEC_IPV4);
SROCE_FLOW_SAME(IB_FLOW_SPEC_IPV6, SROCE_FLOW_SPEC_IPV6);
SROCE_FLOW_SAME(IB_FLOW_SPEC_TCP, SROCE_FLOW_SPEC_TCP);
SROCE_FLOW_SAME(IB_FLOW_SPEC_UDP, SROCE_FLOW_SPEC_UDP);
SROCE_FLOW_SAME(IB_FLOW_ATTR_NORMAL, SROCE_FLOW_NORMAL);
SROCE_FLOW_SAME(IB_FLOW_ATTR_ALL_DEFAULT, SROCE_FLOW_ALL_DEFAULT);
SROCE_FLOW_SAME(IB_FLOW_ATTR_MC_DEFAULT, SROCE_FLOW_MC_DEFAULT);
SROCE_FLOW_SAME(IB_FLOW_ATTR_SNIFFER, SROCE_FLOW_SNIFFER);
SROCE_FLOW_SAME(IB_FLOW_ATTR_FLAGS_DONT_TRAP, SROCE_FLOW_F_DONT_TRAP);
SROCE_FLOW_SAME(IB_IPV4_DONT_FRAG, SROCE_FLOW_IP4_DF);
SROCE_FLOW_SAME(IB_IPV4_MORE_FRAG, SROCE_FLOW_IP4_MF);

/* Copies of a frame at most: more QPs taking it get none (counted). */
#define SROCE_FLOW_COPIES_MAX	16

static int sroce_flows_tap(struct sk_buff *skb, struct net_device *dev,
			   struct packet_type *pt, struct net_device *orig);

void sroce_flows_init(struct sroce_dev *sdev)
{
	struct sroce_flows *fl = &sdev->flows;

	mutex_init(&fl->lock);
	INIT_LIST_HEAD(&fl->list);
	fl->tap.type = htons(ETH_P_ALL);
	fl->tap.dev = sdev->ndev;
	fl->tap.func = sroce_flows_tap;
	fl->tap.ignore_outgoing = true;
}

/* dealloc_driver: ib_core destroyed every flow with its uobject. */
void sroce_flows_destroy(struct sroce_dev *sdev)
{
	WARN_ON(!list_empty(&sdev->flows.list));
	mutex_destroy(&sdev->flows.lock);
}

/* One spec, @len bytes long (the caller checked it fits the attr). */
static int sroce_flow_add_spec(struct sroce_flow_rule *r,
			       const union ib_flow_spec *s, u16 len)
{
	switch (s->type) {
	case IB_FLOW_SPEC_ETH:
		if (len < sizeof(s->eth))
			return -EINVAL;
		return sroce_flow_rule_add(r, s->type, (const u8 *)&s->eth.val,
					   (const u8 *)&s->eth.mask,
					   SROCE_FLOW_ETH_BYTES);
	case IB_FLOW_SPEC_IPV4:
		if (len < sizeof(s->ipv4))
			return -EINVAL;
		return sroce_flow_rule_add(r, s->type,
					   (const u8 *)&s->ipv4.val,
					   (const u8 *)&s->ipv4.mask,
					   SROCE_FLOW_IP4_BYTES);
	case IB_FLOW_SPEC_IPV6:
		if (len < sizeof(s->ipv6))
			return -EINVAL;
		return sroce_flow_rule_add(r, s->type,
					   (const u8 *)&s->ipv6.val,
					   (const u8 *)&s->ipv6.mask,
					   SROCE_FLOW_IP6_BYTES);
	case IB_FLOW_SPEC_TCP:
	case IB_FLOW_SPEC_UDP:
		if (len < sizeof(s->tcp_udp))
			return -EINVAL;
		return sroce_flow_rule_add(r, s->type,
					   (const u8 *)&s->tcp_udp.val,
					   (const u8 *)&s->tcp_udp.mask,
					   SROCE_FLOW_L4_BYTES);
	default:
		/* Tunnels, inner headers, actions: nothing we can do. */
		return -EOPNOTSUPP;
	}
}

/* @attr's specs follow it, each spec->size long, attr->size in all. */
static int sroce_flow_rule_from_attr(struct sroce_flow_rule *r,
				     const struct ib_flow_attr *attr)
{
	const u8 *p = (const u8 *)(attr + 1);
	size_t left;
	int err, i;

	err = sroce_flow_rule_init(r, attr->type, attr->priority,
				   attr->flags);
	if (err)
		return err;
	if (attr->size < sizeof(*attr))
		return -EINVAL;
	left = attr->size - sizeof(*attr);
	for (i = 0; i < attr->num_of_specs; i++) {
		const union ib_flow_spec *s = (const void *)p;

		if (left < sizeof(s->eth.type) + sizeof(s->eth.size) ||
		    s->size > left || !s->size)
			return -EINVAL;
		err = sroce_flow_add_spec(r, s, s->size);
		if (err)
			return err;
		left -= s->size;
		p += s->size;
	}
	return 0;
}

static int sroce_flows_add(struct sroce_dev *sdev, struct sroce_flow *f)
{
	struct sroce_flows *fl = &sdev->flows;

	if (fl->n >= SROCE_MAX_FLOWS)
		return -ENOMEM;
	list_add_tail_rcu(&f->node, &fl->list);
	/* The first flow: frames start coming now. */
	if (!fl->n++)
		dev_add_pack(&fl->tap);
	return 0;
}

struct ib_flow *sroce_flow_create(struct ib_qp *ibqp,
				  struct ib_flow_attr *attr,
				  struct ib_udata *udata)
{
	struct sroce_dev *sdev = to_sdev(ibqp->device);
	struct sroce_flow *f;
	int err;

	/* ib_core allows UD QPs too: a UD QP takes RoCE, not frames. */
	if (ibqp->qp_type != IB_QPT_RAW_PACKET || !sroce_raw_enabled())
		return ERR_PTR(-EOPNOTSUPP);
	if (udata && udata->inlen &&
	    !ib_is_udata_cleared(udata, 0, udata->inlen))
		return ERR_PTR(-EOPNOTSUPP);
	f = kzalloc(sizeof(*f), GFP_KERNEL);
	if (!f)
		return ERR_PTR(-ENOMEM);
	err = sroce_flow_rule_from_attr(&f->rule, attr);
	if (err)
		goto err_free;
	f->sdev = sdev;
	f->qpn = ibqp->qp_num;
	mutex_lock(&sdev->flows.lock);
	err = sroce_flows_add(sdev, f);
	mutex_unlock(&sdev->flows.lock);
	if (err)
		goto err_free;
	return &f->ibflow;

err_free:
	kfree(f);
	return ERR_PTR(err);
}

int sroce_flow_destroy(struct ib_flow *ibflow)
{
	struct sroce_flow *f = container_of(ibflow, struct sroce_flow, ibflow);
	struct sroce_flows *fl = &f->sdev->flows;

	mutex_lock(&fl->lock);
	list_del_rcu(&f->node);
	/* The last one: off the netdev, which waits out running taps. */
	if (!--fl->n)
		dev_remove_pack(&fl->tap);
	mutex_unlock(&fl->lock);
	kfree_rcu(f, rcu);
	return 0;
}

/*
 * The headers of the frame in @skb (its MAC header on), the tag back in
 * line, into @hdr: the bytes copied, or -EINVAL if there is no frame.
 */
static int sroce_flows_hdr(const struct sk_buff *skb, u8 *hdr)
{
	int start = skb_mac_offset(skb);	/* <= 0 */
	int frame = (int)skb->len - start;
	int off = 2 * ETH_ALEN, n;

	if (!skb_mac_header_was_set(skb) || start > 0 || frame < ETH_HLEN)
		return -EINVAL;
	memcpy(hdr, skb_mac_header(skb), 2 * ETH_ALEN);
	if (skb_vlan_tag_present(skb)) {
		put_unaligned(skb->vlan_proto, (__be16 *)(hdr + off));
		put_unaligned(htons(skb_vlan_tag_get(skb)),
			      (__be16 *)(hdr + off + 2));
		off += VLAN_HLEN;
	}
	/* From the type on; the MAC header is in the linear part. */
	n = min_t(int, SROCE_FLOW_HDR_MAX - off, frame - 2 * ETH_ALEN);
	if (skb_copy_bits(skb, start + 2 * ETH_ALEN, hdr + off, n))
		return -EINVAL;
	return off + n;
}

/* A copy of the frame for a QP: from the MAC header on, tag in line. */
static struct sk_buff *sroce_flows_copy(struct sk_buff *skb)
{
	struct sk_buff *c = skb_clone(skb, GFP_ATOMIC);

	if (!c)
		return NULL;
	skb_push(c, -skb_mac_offset(c));
	if (skb_vlan_tag_present(c))
		c = __vlan_hwaccel_push_inside(c);	/* frees it on error */
	return c;
}

/* One frame, from its MAC header on, to raw QP @qp; consumes @c. */
static void sroce_flows_hand(struct sroce_qp *qp, struct sk_buff *c,
			     const struct sroce_flow_key *key, bool local)
{
	/* A checksum the sender left to offload: the wire would have it. */
	if (c->ip_summed == CHECKSUM_PARTIAL && skb_checksum_help(c)) {
		sroce_cnt_inc(&qp->sdev->cnt, SROCE_CNT_RAW_RX_DROPPED);
		kfree_skb(c);
		return;
	}
	if (sroce_qp_is_rss(qp))
		sroce_rss_deliver(qp, c, key, local);
	else
		sroce_raw_deliver(qp, c, local);
}

/*
 * A raw QP gets what the wire carried, as a NIC's does: a GSO train (a
 * veth peer's TSO, GRO's aggregate of a NIC's frames) is cut back into
 * its frames, which share its headers and so its key.  Consumes @c.
 */
static void sroce_flows_deliver(struct sroce_qp *qp, struct sk_buff *c,
				const struct sroce_flow_key *key, bool local)
{
	struct sk_buff *segs, *seg, *next;

	if (!skb_is_gso(c)) {
		sroce_flows_hand(qp, c, key, local);
		return;
	}
	/*
	 * In software: no offload features, so checksums are done too.  The
	 * headers become our own first: segmenting may write the TCP or UDP
	 * checksum into them, and they are the stack's too (a clone).
	 */
	segs = skb_cow_head(c, 0) ? NULL : __skb_gso_segment(c, 0, false);
	if (IS_ERR_OR_NULL(segs)) {
		sroce_cnt_inc(&qp->sdev->cnt, SROCE_CNT_RAW_RX_DROPPED);
		kfree_skb(c);
		return;
	}
	consume_skb(c);
	skb_list_walk_safe(segs, seg, next) {
		skb_mark_not_on_list(seg);
		sroce_flows_hand(qp, seg, key, local);
	}
}

/* A copy of @skb, parsed into @key, for the QP numbered @qpn. */
static void sroce_flows_give(struct sroce_dev *sdev, u32 qpn,
			     struct sk_buff *skb,
			     const struct sroce_flow_key *key, bool local)
{
	struct sroce_qp *qp = sroce_qp_lookup(sdev, qpn);
	struct sk_buff *c;

	if (!qp)
		return;
	/* A flow just destroyed, its QP too, the number taken again. */
	if (!sroce_qp_is_raw(qp))
		goto out;
	c = sroce_flows_copy(skb);
	if (!c)
		sroce_cnt_inc(&sdev->cnt, SROCE_CNT_RAW_RX_DROPPED);
	else
		sroce_flows_deliver(qp, c, key, local);
out:
	sroce_qp_put(qp);
}

static bool sroce_flows_given(const u32 *qpns, int n, u32 qpn)
{
	int i;

	for (i = 0; i < n; i++)
		if (qpns[i] == qpn)
			return true;
	return false;
}

/*
 * A frame on the device's link (the tap, softirq) or sent by one of its
 * raw QPs (@local): a copy to each QP whose flows take it, one each.
 * Does not consume @skb.
 */
void sroce_flows_recv(struct sroce_dev *sdev, struct sk_buff *skb,
		      bool local)
{
	u32 given[SROCE_FLOW_COPIES_MAX];
	u8 hdr[SROCE_FLOW_HDR_MAX];
	struct sroce_flow_pick pick;
	struct sroce_flow_key key;
	struct sroce_flow *f;
	int len, n = 0;

	len = sroce_flows_hdr(skb, hdr);
	if (len < 0 || sroce_flow_parse(hdr, len, &key))
		return;
	rcu_read_lock();
	sroce_flow_pick_init(&pick);
	list_for_each_entry_rcu(f, &sdev->flows.list, node)
		sroce_flow_pick_see(&pick, &f->rule, &key);
	list_for_each_entry_rcu(f, &sdev->flows.list, node) {
		if (!sroce_flow_pick_takes(&pick, &f->rule, &key) ||
		    sroce_flows_given(given, n, f->qpn))
			continue;
		if (n == SROCE_FLOW_COPIES_MAX) {
			sroce_cnt_inc(&sdev->cnt, SROCE_CNT_RAW_RX_DROPPED);
			break;
		}
		given[n++] = f->qpn;
		sroce_flows_give(sdev, f->qpn, skb, &key, local);
	}
	rcu_read_unlock();
}

static int sroce_flows_tap(struct sk_buff *skb, struct net_device *dev,
			   struct packet_type *pt, struct net_device *orig)
{
	struct sroce_dev *sdev = container_of(pt, struct sroce_dev, flows.tap);

	sroce_flows_recv(sdev, skb, false);
	/* Ours was a reference of its own. */
	consume_skb(skb);
	return NET_RX_SUCCESS;
}
