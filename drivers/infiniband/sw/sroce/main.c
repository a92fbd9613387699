// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * sroce - software RoCEv2 over UDP/IPv4 and IPv6.
 *
 * Module entry: registers the "sroce" RDMA link type and the netdev
 * notifier, and on exit removes every device still present.
 */
#include <linux/module.h>
#include <rdma/rdma_netlink.h>

#include "sroce.h"
#include "observe.h"

static int sroce_link_newlink(const char *name, struct net_device *ndev)
{
	return sroce_device_add(name, ndev);
}

static struct rdma_link_ops sroce_link_ops = {
	.type = "sroce",
	.newlink = sroce_link_newlink,
};

static int __init sroce_mod_init(void)
{
	int err;

	sroce_crc_init();
	err = sroce_local_init();
	if (err)
		goto err_local;
	sroce_debugfs_init();
	err = sroce_parent_init();
	if (err)
		goto err_parent;
	err = sroce_engine_init();
	if (err)
		goto err_engine;
	err = sroce_net_init();
	if (err)
		goto err_net;
	err = sroce_netdev_init();
	if (err)
		goto err_netdev;
	rdma_link_register(&sroce_link_ops);
	pr_info("sroce: version %s loaded, ABI %u\n", SROCE_VERSION,
		SROCE_UVERBS_ABI_VERSION);
	return 0;

err_netdev:
	sroce_net_exit_module();
err_net:
	sroce_engine_exit();
err_engine:
	sroce_parent_exit();
err_parent:
	sroce_debugfs_exit();
	sroce_local_exit();
err_local:
	sroce_crc_exit();
	return err;
}

static void __exit sroce_mod_exit(void)
{
	/* No new links from here on, then take down the ones that exist. */
	rdma_link_unregister(&sroce_link_ops);
	sroce_netdev_exit();
	ib_unregister_driver(SROCE_DRIVER_ID);
	/* Each packet queued for local delivery held its device up. */
	sroce_local_exit();
	sroce_net_exit_module();
	/* Every QP is gone with its device: no work is left. */
	sroce_engine_exit();
	sroce_tx_exit();
	/* After every device's directory went with the device. */
	sroce_parent_exit();
	sroce_debugfs_exit();
	sroce_crc_exit();
	pr_info("sroce: unloaded\n");
}

module_init(sroce_mod_init);
module_exit(sroce_mod_exit);

MODULE_AUTHOR("sroce developers");
MODULE_DESCRIPTION("Software RoCEv2 RDMA provider");
MODULE_LICENSE("Dual BSD/GPL");
MODULE_VERSION(SROCE_VERSION);
MODULE_ALIAS_RDMA_LINK("sroce");
