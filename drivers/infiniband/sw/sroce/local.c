// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * Local delivery: a packet for a sroce device of this host, in the same
 * namespace (a QP talking to another on its own device, or on another
 * local device), goes straight to that device's receive path.
 *
 * Through lo such a packet pays IP output, the netfilter hooks, lo's
 * transmit, the backlog, IP input, the route and socket lookups, and an
 * ICRC computed on one side only to be checked on the other, for bytes
 * that never leave this host's memory.  That is most of a small packet's
 * cost, and four such trips make one ping-pong (two messages, two ACKs).
 * rdma_rxe does the same for its own addresses.
 *
 * What stays the same: the headers are built as for the wire, so the
 * receive path checks them (all but the ICRC) and finds the address
 * vector's addresses where it looks; and the packet is handed over in
 * softirq, after the sending run has let go of its QP, as the backlog
 * would: a per-CPU queue and its tasklet.  (Its lock is for CPU hotplug
 * only: a dead CPU's tasklet moves to another, which then drains a queue
 * its CPU may fill again once back.)  A QP still sends from one CPU at a
 * time, so its packets stay in order (engine.c).  What is lost: lo's
 * packet taps and nftables rules do not see these packets; the tx_local
 * parameter turns it off.
 *
 * A queued packet holds its device, and ib_core's unregistration waits
 * for that; so a device on its way out takes no more (a client of ours
 * learns of it first), and what is sent to it goes through lo.
 */
#include <linux/inetdevice.h>
#include <linux/interrupt.h>
#include <linux/module.h>
#include <net/addrconf.h>

#include "sroce.h"
#include "rc.h"

static bool tx_local = true;
module_param(tx_local, bool, 0644);
MODULE_PARM_DESC(tx_local,
		 "Deliver packets for a local sroce device directly, not through lo (default Y)");

/* Packets a CPU may hold for delivery, like the backlog's bound. */
#define SROCE_LOCAL_QUEUE_MAX	1024
/* Delivered per tasklet run before it yields to other softirqs. */
#define SROCE_LOCAL_BUDGET	64

struct sroce_local {
	struct sk_buff_head q;
	struct tasklet_struct tasklet;
};

static DEFINE_PER_CPU(struct sroce_local, sroce_local);

/* While queued: the device it is for, whose reference it holds. */
struct sroce_local_cb {
	struct sroce_rx_cb rx;
	struct sroce_dev *sdev;
};

static struct sroce_local_cb *sroce_local_cb(struct sk_buff *skb)
{
	BUILD_BUG_ON(sizeof(struct sroce_local_cb) > sizeof(skb->cb));
	return (struct sroce_local_cb *)skb->cb;
}

static void sroce_local_run(struct tasklet_struct *t)
{
	struct sroce_local *l = from_tasklet(l, t, tasklet);
	struct sk_buff *skb;
	int budget = SROCE_LOCAL_BUDGET;

	while (budget-- > 0 && (skb = skb_dequeue(&l->q))) {
		struct sroce_dev *sdev = sroce_local_cb(skb)->sdev;

		sroce_net_rx_dev(sdev, skb, true);
		ib_device_put(&sdev->ibdev);
	}
	if (!skb_queue_empty(&l->q))
		tasklet_schedule(&l->tasklet);
}

/*
 * The local sroce device that owns @daddr, with a reference, if the route
 * @dst says the destination is this host's; NULL otherwise (the packet
 * then takes the usual way, and finds whatever listens there).
 */
struct sroce_dev *sroce_local_target(struct net *net,
				     const struct dst_entry *dst,
				     const struct sroce_av *av)
{
	struct ib_device *ibdev = NULL;
	struct net_device *ndev;

	if (!READ_ONCE(tx_local) || !(dst->dev->flags & IFF_LOOPBACK))
		return NULL;
	rcu_read_lock();
	if (av->network_type == RDMA_NETWORK_IPV6)
		ndev = ipv6_dev_find(net, &av->daddr.in6.sin6_addr, NULL);
	else
		ndev = __ip_dev_find(net, av->daddr.in4.sin_addr.s_addr, false);
	if (ndev)
		ibdev = ib_device_get_by_netdev(ndev, SROCE_DRIVER_ID);
	rcu_read_unlock();
	if (ibdev && READ_ONCE(to_sdev(ibdev)->going)) {
		ib_device_put(ibdev);
		ibdev = NULL;
	}
	return ibdev ? to_sdev(ibdev) : NULL;
}

/*
 * Hand @skb (IP header at its network header, data at the UDP header,
 * no ICRC) to @sdev, whose reference it takes over.  BHs are off.
 * Consumes @skb; 0, or -ENOBUFS if this CPU holds too many already (the
 * sender tries again, as when a qdisc refuses).
 */
int sroce_local_xmit(struct sroce_dev *sdev, struct sk_buff *skb)
{
	struct sroce_local *l = this_cpu_ptr(&sroce_local);

	if (skb_queue_len(&l->q) >= SROCE_LOCAL_QUEUE_MAX) {
		ib_device_put(&sdev->ibdev);
		kfree_skb(skb);
		return -ENOBUFS;
	}
	/* Gone from the sender's count, as lo's transmit orphans it. */
	skb_orphan(skb);
	skb->dev = sdev->ndev;
	sroce_local_cb(skb)->sdev = sdev;
	skb_queue_tail(&l->q, skb);
	tasklet_schedule(&l->tasklet);
	return 0;
}

static int sroce_local_add(struct ib_device *ibdev)
{
	return 0;
}

/*
 * ib_core removes its clients from a device before it waits for the
 * device's references: from here on no packet takes one for the queue.
 */
static void sroce_local_remove(struct ib_device *ibdev, void *data)
{
	if (ibdev->ops.driver_id == SROCE_DRIVER_ID)
		WRITE_ONCE(to_sdev(ibdev)->going, true);
}

static struct ib_client sroce_local_client = {
	.name = "sroce_local",
	.add = sroce_local_add,
	.remove = sroce_local_remove,
};

int sroce_local_init(void)
{
	int cpu;

	for_each_possible_cpu(cpu) {
		struct sroce_local *l = per_cpu_ptr(&sroce_local, cpu);

		skb_queue_head_init(&l->q);
		tasklet_setup(&l->tasklet, sroce_local_run);
	}
	return ib_register_client(&sroce_local_client);
}

/* Every device is gone, so every queued packet was delivered or freed. */
void sroce_local_exit(void)
{
	int cpu;

	ib_unregister_client(&sroce_local_client);
	for_each_possible_cpu(cpu) {
		struct sroce_local *l = per_cpu_ptr(&sroce_local, cpu);

		tasklet_kill(&l->tasklet);
		WARN_ON(!skb_queue_empty(&l->q));
	}
}
