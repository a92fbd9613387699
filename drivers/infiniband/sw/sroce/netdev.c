// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * Netdev events: the device follows its netdev's life and link state.
 */
#include <linux/netdevice.h>

#include "sroce.h"

static int sroce_netdev_event(struct notifier_block *nb, unsigned long event,
			      void *ptr)
{
	struct net_device *ndev = netdev_notifier_info_to_dev(ptr);
	struct ib_device *ibdev;

	ibdev = ib_device_get_by_netdev(ndev, SROCE_DRIVER_ID);
	if (!ibdev)
		return NOTIFY_DONE;

	switch (event) {
	case NETDEV_UNREGISTER:
		/*
		 * Queued, because unregistering waits for users and must not
		 * run under the RTNL that this notifier holds.
		 */
		ib_unregister_device_queued(ibdev);
		break;
	case NETDEV_CHANGENAME:
		sroce_parent_rename(to_sdev(ibdev));
		break;
	case NETDEV_UP:
	case NETDEV_DOWN:
	case NETDEV_CHANGE:
	case NETDEV_CHANGEMTU:
		sroce_port_update(to_sdev(ibdev));
		break;
	default:
		break;
	}
	ib_device_put(ibdev);
	return NOTIFY_DONE;
}

static struct notifier_block sroce_netdev_nb = {
	.notifier_call = sroce_netdev_event,
};

int sroce_netdev_init(void)
{
	return register_netdevice_notifier(&sroce_netdev_nb);
}

void sroce_netdev_exit(void)
{
	unregister_netdevice_notifier(&sroce_netdev_nb);
}
