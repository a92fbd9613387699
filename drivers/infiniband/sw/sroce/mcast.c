// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * UD multicast: attach_mcast/detach_mcast and delivery.
 *
 * RoCE v2 carries a multicast GID as the IP destination: a v4-mapped
 * MGID (::ffff:239.x.y.z, as rdma_cm makes them) is an IPv4 group, any
 * other (ff0e::...) an IPv6 one.  The first QP attached to a group on a
 * device joins the group on the netdev (ip_mc_inc_group() or
 * ipv6_dev_mc_inc()), so IGMP/MLD reports go out, the NIC filters the
 * group's MAC in and the IP layer delivers the group's packets to our
 * UDP socket; the last QP detached leaves it.  The IP layer keeps a count
 * per group, so rdma_cm's own IGMP join of the same IPv4 group does not
 * get in the way.
 *
 * A device's groups are a list read under RCU by the receive path.  Each
 * group holds the QPNs attached to it, replaced as a whole (copy, then
 * swap) on every attach and detach; delivery looks every QPN up in the QP
 * table, which hands out a reference or nothing, so it never holds a
 * pointer to a QP that is going away.  ib_core keeps a QP from being
 * destroyed while it is attached (qp->usecnt).
 *
 * A packet whose BTH DestQP is 0xFFFFFF must be a UD SEND to an IP
 * multicast address; each attached QP gets a clone and checks its Q_Key
 * and takes a receive WQE like any UD receive (ud.c).  Like a switch, we
 * deliver to every member on the device, the sender's own QP included
 * when it is attached and the IP layer loops the packet back.
 */
#include <linux/igmp.h>
#include <linux/inetdevice.h>
#include <linux/rculist.h>
#include <net/addrconf.h>
#include <net/ipv6.h>

#include "sroce.h"

struct sroce_mcg {
	struct list_head node;		/* in sdev->mcast.groups */
	struct rcu_head rcu;
	union ib_gid mgid;
	u32 nqp;
	u32 qpn[];
};

void sroce_mcast_init(struct sroce_dev *sdev)
{
	mutex_init(&sdev->mcast.lock);
	INIT_LIST_HEAD(&sdev->mcast.groups);
}

/* dealloc_driver: ib_core detached every QP before destroying it. */
void sroce_mcast_destroy(struct sroce_dev *sdev)
{
	WARN_ON(!list_empty(&sdev->mcast.groups));
	mutex_destroy(&sdev->mcast.lock);
}

static bool sroce_mgid_is_v4(const union ib_gid *mgid)
{
	return ipv6_addr_v4mapped((const struct in6_addr *)mgid->raw);
}

static __be32 sroce_mgid_v4(const union ib_gid *mgid)
{
	return ((const struct in6_addr *)mgid->raw)->s6_addr32[3];
}

/* Join the group on the netdev, under RTNL: IGMP or MLD goes out. */
static int sroce_mcast_ip_join(struct sroce_dev *sdev,
			       const union ib_gid *mgid)
{
	struct in_device *in_dev;
	int err = -ENODEV;

	rtnl_lock();
	if (!sroce_mgid_is_v4(mgid)) {
		err = ipv6_dev_mc_inc(sdev->ndev,
				      (const struct in6_addr *)mgid->raw);
	} else {
		in_dev = __in_dev_get_rtnl(sdev->ndev);
		if (in_dev) {
			/* Cannot fail, bar an allocation it does not report. */
			ip_mc_inc_group(in_dev, sroce_mgid_v4(mgid));
			err = 0;
		}
	}
	rtnl_unlock();
	return err;
}

/* The netdev may have lost its IP state already (unregistering). */
static void sroce_mcast_ip_leave(struct sroce_dev *sdev,
				 const union ib_gid *mgid)
{
	struct in_device *in_dev;

	rtnl_lock();
	if (!sroce_mgid_is_v4(mgid)) {
		ipv6_dev_mc_dec(sdev->ndev, (const struct in6_addr *)mgid->raw);
	} else {
		in_dev = __in_dev_get_rtnl(sdev->ndev);
		if (in_dev)
			ip_mc_dec_group(in_dev, sroce_mgid_v4(mgid));
	}
	rtnl_unlock();
}

/* Under mcast.lock. */
static struct sroce_mcg *sroce_mcast_find(struct sroce_dev *sdev,
					  const union ib_gid *mgid)
{
	struct sroce_mcg *g;

	list_for_each_entry(g, &sdev->mcast.groups, node)
		if (!memcmp(&g->mgid, mgid, sizeof(*mgid)))
			return g;
	return NULL;
}

static int sroce_mcg_index(const struct sroce_mcg *g, u32 qpn)
{
	u32 i;

	for (i = 0; i < g->nqp; i++)
		if (g->qpn[i] == qpn)
			return i;
	return -1;
}

/* A copy of @old (or an empty group) with room for @nqp QPNs. */
static struct sroce_mcg *sroce_mcg_alloc(const union ib_gid *mgid,
					 const struct sroce_mcg *old, u32 nqp)
{
	struct sroce_mcg *g = kzalloc(struct_size(g, qpn, nqp), GFP_KERNEL);

	if (!g)
		return NULL;
	g->mgid = *mgid;
	if (old)
		memcpy(g->qpn, old->qpn,
		       min(old->nqp, nqp) * sizeof(g->qpn[0]));
	return g;
}

/* A new group, joined on the netdev first: no member before the join. */
static int sroce_mcast_new_group(struct sroce_dev *sdev,
				 const union ib_gid *mgid, u32 qpn)
{
	struct sroce_mcg *g;
	int err;

	if (sdev->mcast.ngroups >= SROCE_MAX_MCAST_GRP)
		return -ENOMEM;
	g = sroce_mcg_alloc(mgid, NULL, 1);
	if (!g)
		return -ENOMEM;
	err = sroce_mcast_ip_join(sdev, mgid);
	if (err) {
		kfree(g);
		return err;
	}
	g->qpn[0] = qpn;
	g->nqp = 1;
	sdev->mcast.ngroups++;
	list_add_tail_rcu(&g->node, &sdev->mcast.groups);
	return 0;
}

static int sroce_mcast_add_qp(struct sroce_mcg *old, u32 qpn)
{
	struct sroce_mcg *g;

	if (sroce_mcg_index(old, qpn) >= 0)
		return -EEXIST;
	if (old->nqp >= SROCE_MAX_MCAST_QP_ATTACH)
		return -ENOMEM;
	g = sroce_mcg_alloc(&old->mgid, old, old->nqp + 1);
	if (!g)
		return -ENOMEM;
	g->nqp = old->nqp + 1;
	g->qpn[old->nqp] = qpn;
	list_replace_rcu(&old->node, &g->node);
	kfree_rcu(old, rcu);
	return 0;
}

int sroce_mcast_attach(struct ib_qp *ibqp, union ib_gid *mgid, u16 mlid)
{
	struct sroce_dev *sdev = to_sdev(ibqp->device);
	struct sroce_mcg *g;
	int err;

	/* ib_core checked: a UD QP and a multicast GID. */
	mutex_lock(&sdev->mcast.lock);
	g = sroce_mcast_find(sdev, mgid);
	if (g)
		err = sroce_mcast_add_qp(g, ibqp->qp_num);
	else
		err = sroce_mcast_new_group(sdev, mgid, ibqp->qp_num);
	mutex_unlock(&sdev->mcast.lock);
	return err;
}

/* The last member leaves: so does the device, from the IP group. */
static void sroce_mcast_del_group(struct sroce_dev *sdev,
				  struct sroce_mcg *g)
{
	list_del_rcu(&g->node);
	sdev->mcast.ngroups--;
	sroce_mcast_ip_leave(sdev, &g->mgid);
	kfree_rcu(g, rcu);
}

static int sroce_mcast_del_qp(struct sroce_mcg *old, int i)
{
	struct sroce_mcg *g = sroce_mcg_alloc(&old->mgid, old, old->nqp - 1);

	if (!g)
		return -ENOMEM;
	g->nqp = old->nqp - 1;
	/* The last QPN takes the place of the one that leaves. */
	if (i < g->nqp)
		g->qpn[i] = old->qpn[g->nqp];
	list_replace_rcu(&old->node, &g->node);
	kfree_rcu(old, rcu);
	return 0;
}

int sroce_mcast_detach(struct ib_qp *ibqp, union ib_gid *mgid, u16 mlid)
{
	struct sroce_dev *sdev = to_sdev(ibqp->device);
	struct sroce_mcg *g;
	int i, err = 0;

	mutex_lock(&sdev->mcast.lock);
	g = sroce_mcast_find(sdev, mgid);
	i = g ? sroce_mcg_index(g, ibqp->qp_num) : -1;
	if (i < 0)
		err = -EINVAL;
	else if (g->nqp == 1)
		sroce_mcast_del_group(sdev, g);
	else
		err = sroce_mcast_del_qp(g, i);
	mutex_unlock(&sdev->mcast.lock);
	return err;
}

/* ------------------------------------------------------------------ */
/* Receive (softirq)                                                   */
/* ------------------------------------------------------------------ */

/* The MGID a packet is addressed to, if its IP destination is multicast. */
static bool sroce_mcast_dest(const struct sk_buff *skb, union ib_gid *mgid)
{
	if (skb->protocol == htons(ETH_P_IP)) {
		__be32 daddr = ip_hdr(skb)->daddr;

		if (!ipv4_is_multicast(daddr))
			return false;
		ipv6_addr_set_v4mapped(daddr, (struct in6_addr *)mgid->raw);
		return true;
	}
	memcpy(mgid->raw, &ipv6_hdr(skb)->daddr, sizeof(mgid->raw));
	return ipv6_addr_is_multicast((struct in6_addr *)mgid->raw);
}

/* Only UD SENDs, with or without immediate, may go to a group. */
static bool sroce_mcast_opcode_ok(u8 opcode)
{
	return opcode == (SROCE_TR_UD | SROCE_OP_SEND_ONLY) ||
	       opcode == (SROCE_TR_UD | SROCE_OP_SEND_ONLY_IMM);
}

/* The members' QPNs, copied out under RCU; 0 if no such group. */
static u32 sroce_mcast_members(struct sroce_dev *sdev,
			       const union ib_gid *mgid, u32 *qpn)
{
	struct sroce_mcg *g;
	u32 n = 0;

	rcu_read_lock();
	list_for_each_entry_rcu(g, &sdev->mcast.groups, node) {
		if (memcmp(&g->mgid, mgid, sizeof(*mgid)))
			continue;
		n = g->nqp;
		memcpy(qpn, g->qpn, n * sizeof(*qpn));
		break;
	}
	rcu_read_unlock();
	return n;
}

/*
 * A packet to the multicast QPN (engine.c, softirq): a clone for every
 * attached QP.  Consumes @skb.
 */
void sroce_mcast_recv(struct sroce_dev *sdev, struct sk_buff *skb)
{
	u32 qpn[SROCE_MAX_MCAST_QP_ATTACH];
	struct sk_buff *clone;
	union ib_gid mgid;
	struct sroce_qp *qp;
	u32 i, n = 0;

	if (sroce_mcast_opcode_ok(skb->data[0]) &&
	    sroce_mcast_dest(skb, &mgid))
		n = sroce_mcast_members(sdev, &mgid, qpn);
	if (!n) {
		sroce_cnt_inc(&sdev->cnt, SROCE_CNT_RX_MCAST_DROPPED);
		kfree_skb(skb);
		return;
	}
	sroce_cnt_inc(&sdev->cnt, SROCE_CNT_RX_MCAST);
	for (i = 0; i < n; i++) {
		qp = sroce_qp_lookup(sdev, qpn[i]);
		if (!qp)
			continue;
		/* The last member takes the packet itself. */
		clone = i + 1 < n ? skb_clone(skb, GFP_ATOMIC) : skb;
		if (clone)
			sroce_engine_deliver(qp, clone);
		else
			sroce_cnt_inc(&sdev->cnt, SROCE_CNT_RX_DROPPED);
		sroce_qp_put(qp);
		if (clone == skb)
			return;
	}
	kfree_skb(skb);
}
