// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * The ib_device's parent device, /sys/devices/virtual/sroce/sroceN.
 *
 * Tools find the netdev of an RDMA device in sysfs, as
 * /sys/class/infiniband/DEV/device/net/NETDEV (rdma-core's pyverbs does,
 * and skips its rdma_cm tests without it).  For a hardware driver that
 * directory is the PCI function's.  sroce cannot borrow its netdev's
 * parent: veth, bridges, bonds and VLANs have none, and a NIC's PCI
 * function would hand its modalias to libibverbs, which matches providers
 * by modalias one provider at a time, so the NIC vendor's provider could
 * claim the sroce device.  The netdev itself is no parent either: it is
 * namespaced and unregisters before the ib_device does.
 *
 * So each sroce device gets a parent of its own, in the "sroce" class,
 * with no bus and hence no modalias, whose net/ directory holds one link
 * to the netdev, renamed when the netdev is.
 */
#include <linux/device.h>
#include <linux/idr.h>
#include <linux/rtnetlink.h>
#include <linux/slab.h>

#include "sroce.h"

static struct class *sroce_parent_class;
static DEFINE_IDA(sroce_parent_ida);

#define SROCE_PARENT_NET "net"

/* Empty: the directory only holds the netdev's link. */
static struct attribute *sroce_parent_net_attrs[] = {
	NULL,
};

static const struct attribute_group sroce_parent_net_group = {
	.name = SROCE_PARENT_NET,
	.attrs = sroce_parent_net_attrs,
};

static const struct attribute_group *sroce_parent_groups[] = {
	&sroce_parent_net_group,
	NULL,
};

struct sroce_parent {
	struct device dev;
	int id;
};

static void sroce_parent_release(struct device *dev)
{
	struct sroce_parent *p = container_of(dev, struct sroce_parent, dev);

	ida_free(&sroce_parent_ida, p->id);
	kfree(p);
}

/* Under RTNL, which orders it against a rename of the netdev. */
static int sroce_parent_link(struct sroce_dev *sdev)
{
	int err;

	ASSERT_RTNL();
	strscpy(sdev->parent_link, netdev_name(sdev->ndev),
		sizeof(sdev->parent_link));
	err = sysfs_add_link_to_group(&sdev->parent->kobj, SROCE_PARENT_NET,
				      &sdev->ndev->dev.kobj, sdev->parent_link);
	if (err)
		sdev->parent_link[0] = '\0';
	return err;
}

static void sroce_parent_unlink(struct sroce_dev *sdev)
{
	ASSERT_RTNL();
	if (!sdev->parent_link[0])
		return;
	sysfs_remove_link_from_group(&sdev->parent->kobj, SROCE_PARENT_NET,
				     sdev->parent_link);
	sdev->parent_link[0] = '\0';
}

/* Before registration: ib_register_device() adds the ib_device below it. */
int sroce_parent_add(struct sroce_dev *sdev)
{
	struct sroce_parent *p;
	struct device *dev;
	int err;

	p = kzalloc(sizeof(*p), GFP_KERNEL);
	if (!p)
		return -ENOMEM;
	p->id = ida_alloc(&sroce_parent_ida, GFP_KERNEL);
	if (p->id < 0) {
		err = p->id;
		kfree(p);
		return err;
	}
	dev = &p->dev;
	device_initialize(dev);
	dev->class = sroce_parent_class;
	dev->groups = sroce_parent_groups;
	dev->release = sroce_parent_release;
	err = dev_set_name(dev, "sroce%d", p->id);
	if (err)
		goto err_put;
	err = device_add(dev);
	if (err)
		goto err_put;
	sdev->parent = dev;

	rtnl_lock();
	err = sroce_parent_link(sdev);
	rtnl_unlock();
	if (err)
		goto err_del;
	sdev->ibdev.dev.parent = dev;
	return 0;

err_del:
	device_del(dev);
	sdev->parent = NULL;
err_put:
	put_device(dev);
	return err;
}

/* From dealloc_driver: the ib_device has left sysfs already. */
void sroce_parent_del(struct sroce_dev *sdev)
{
	if (!sdev->parent)
		return;
	rtnl_lock();
	sroce_parent_unlink(sdev);
	rtnl_unlock();
	device_unregister(sdev->parent);
	sdev->parent = NULL;
}

/* NETDEV_CHANGENAME, under RTNL: the link goes by the netdev's name. */
void sroce_parent_rename(struct sroce_dev *sdev)
{
	if (!sdev->parent)
		return;
	sroce_parent_unlink(sdev);
	if (sroce_parent_link(sdev))
		pr_warn("sroce: %s: no sysfs link for renamed netdev %s\n",
			dev_name(&sdev->ibdev.dev), netdev_name(sdev->ndev));
}

int sroce_parent_init(void)
{
	sroce_parent_class = class_create(THIS_MODULE, "sroce");
	return PTR_ERR_OR_ZERO(sroce_parent_class);
}

void sroce_parent_exit(void)
{
	class_destroy(sroce_parent_class);
	ida_destroy(&sroce_parent_ida);
}
