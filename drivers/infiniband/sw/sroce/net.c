// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * Per network namespace UDP sockets for RoCEv2 (port 4791).
 *
 * A namespace gets its sockets when its first sroce device is created and
 * loses them with its last device, so loading sroce binds nothing: rdma_rxe
 * (which binds 4791 in init_net when it loads) and sroce can coexist as
 * long as they live in different namespaces.
 *
 * struct sroce_net is allocated apart from the pernet area and refcounted
 * by devices, because a device is freed asynchronously and may outlive the
 * namespace exit.  The exit hook closes the sockets (kernel sockets do not
 * pin their namespace) and leaves the devices a sroce_net with no sockets.
 */
#include <linux/module.h>
#include <net/netns/generic.h>
#include <net/udp_tunnel.h>

#include "sroce.h"

static unsigned int sroce_net_id;

struct sroce_pernet {
	struct sroce_net *snet;
};

/* Serialises socket creation, the last put, and namespace exit. */
static DEFINE_MUTEX(sroce_net_mutex);

/* UDP encap hook (softirq): 0 = consumed.  net_rx.c does the work. */
static int sroce_net_encap_recv(struct sock *sk, struct sk_buff *skb)
{
	struct sroce_net *snet = rcu_dereference_sk_user_data(sk);

	if (!snet) {
		kfree_skb(skb);
		return 0;
	}
	return sroce_net_rx(snet, skb);
}

static struct socket *sroce_net_sock_open(struct net *net,
					  struct sroce_net *snet, bool ipv6)
{
	struct udp_tunnel_sock_cfg tcfg = {
		.sk_user_data = snet,
		.encap_type = 1,
		.encap_rcv = sroce_net_encap_recv,
	};
	struct udp_port_cfg ucfg = {
		.local_udp_port = htons(SROCE_UDP_PORT),
		/*
		 * Accept a zero IPv6 UDP checksum on receive: rdma_rxe sends
		 * one, and the ICRC covers the payload anyway.
		 */
		.use_udp6_rx_checksums = 0,
		.use_udp6_tx_checksums = 1,
	};
	struct socket *sock;
	int err;

	if (ipv6) {
		ucfg.family = AF_INET6;
		ucfg.ipv6_v6only = 1;
	} else {
		ucfg.family = AF_INET;
	}
	err = udp_sock_create(net, &ucfg, &sock);
	if (err)
		return ERR_PTR(err);
	setup_udp_tunnel_sock(net, sock, &tcfg);
	/*
	 * That turned IPv4 multicast loopback off, as a VXLAN wants; RoCE
	 * multicast goes to this host's members too (mcast.c), as it does
	 * over IPv6, whose loopback flag it left alone.
	 */
	if (!ipv6)
		inet_sk(sock->sk)->mc_loop = 1;
	return sock;
}

static void sroce_net_sock_close(struct socket __rcu **slot)
{
	struct socket *sock = rcu_replace_pointer(*slot, NULL,
						  lockdep_is_held(&sroce_net_mutex));

	if (!sock)
		return;
	/* Senders read the slot under RCU. */
	synchronize_rcu();
	udp_tunnel_sock_release(sock);
}

static struct sroce_net *sroce_net_create(struct net *net)
{
	struct sroce_net *snet;
	struct socket *sock;

	snet = kzalloc(sizeof(*snet), GFP_KERNEL);
	if (!snet)
		return ERR_PTR(-ENOMEM);
	refcount_set(&snet->ref, 1);
	snet->pernet = net_generic(net, sroce_net_id);

	sock = sroce_net_sock_open(net, snet, false);
	if (IS_ERR(sock))
		goto err_sock;
	rcu_assign_pointer(snet->sock4, sock);

	/* A kernel without IPv6 (or with it disabled) still does IPv4. */
	sock = sroce_net_sock_open(net, snet, true);
	if (IS_ERR(sock) && PTR_ERR(sock) != -EAFNOSUPPORT)
		goto err_sock6;
	if (!IS_ERR(sock))
		rcu_assign_pointer(snet->sock6, sock);
	return snet;

err_sock6:
	sroce_net_sock_close(&snet->sock4);
err_sock:
	kfree(snet);
	return ERR_CAST(sock);
}

/*
 * The namespace's sroce_net, created with its sockets on first use.  Fails
 * with -EADDRINUSE when something else, such as rdma_rxe, owns the port.
 */
struct sroce_net *sroce_net_get(struct net *net)
{
	struct sroce_pernet *pn = net_generic(net, sroce_net_id);
	struct sroce_net *snet;

	mutex_lock(&sroce_net_mutex);
	snet = pn->snet;
	if (snet) {
		refcount_inc(&snet->ref);
		goto out;
	}
	snet = sroce_net_create(net);
	if (IS_ERR(snet)) {
		if (PTR_ERR(snet) == -EADDRINUSE)
			pr_err("sroce: UDP port %u is already in use in this network namespace (is rdma_rxe loaded here?)\n",
			       SROCE_UDP_PORT);
		else
			pr_err("sroce: cannot open UDP port %u: %ld\n",
			       SROCE_UDP_PORT, PTR_ERR(snet));
		goto out;
	}
	pn->snet = snet;
out:
	mutex_unlock(&sroce_net_mutex);
	return snet;
}

static void sroce_net_close(struct sroce_net *snet)
{
	sroce_net_sock_close(&snet->sock4);
	sroce_net_sock_close(&snet->sock6);
	if (snet->pernet)
		snet->pernet->snet = NULL;
	snet->pernet = NULL;
}

void sroce_net_put(struct sroce_net *snet)
{
	mutex_lock(&sroce_net_mutex);
	if (refcount_dec_and_test(&snet->ref)) {
		sroce_net_close(snet);
		kfree(snet);
	}
	mutex_unlock(&sroce_net_mutex);
}

static void __net_exit sroce_net_exit(struct net *net)
{
	struct sroce_pernet *pn = net_generic(net, sroce_net_id);

	mutex_lock(&sroce_net_mutex);
	if (pn->snet)
		sroce_net_close(pn->snet);
	mutex_unlock(&sroce_net_mutex);
}

static struct pernet_operations sroce_net_ops = {
	.exit = sroce_net_exit,
	.id = &sroce_net_id,
	.size = sizeof(struct sroce_pernet),
};

int sroce_net_init(void)
{
	return register_pernet_subsys(&sroce_net_ops);
}

void sroce_net_exit_module(void)
{
	unregister_pernet_subsys(&sroce_net_ops);
}
