// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * sroce_ktest: exercises a sroce device the way a kernel ULP does, at load
 * time.  Loading succeeds only if every check passed; each check logs one
 * line "sroce_ktest: ok|FAIL ...", which the VM test reads.
 *
 *   insmod sroce_ktest.ko dev=fab1
 */
#include <linux/module.h>
#include <rdma/ib_verbs.h>

static char *dev;
module_param(dev, charp, 0444);
MODULE_PARM_DESC(dev, "name of the RDMA device to test");

static int fails;

static void check(bool ok, const char *what)
{
	pr_info("sroce_ktest: %s %s\n", ok ? "ok" : "FAIL", what);
	fails += !ok;
}

/* A PD as ULPs allocate it: the core asks the driver for a DMA MR. */
static void test_pd(struct ib_device *ibdev, unsigned int flags,
		    const char *what)
{
	struct ib_pd *pd = ib_alloc_pd(ibdev, flags);

	check(!IS_ERR(pd), what);
	if (IS_ERR(pd))
		return;
	check(pd->local_dma_lkey != 0, "PD has a local DMA lkey");
	if (flags & IB_PD_UNSAFE_GLOBAL_RKEY)
		check(pd->unsafe_global_rkey != 0 &&
		      pd->unsafe_global_rkey == pd->__internal_mr->rkey,
		      "global rkey comes from the DMA MR");
	ib_dealloc_pd(pd);
}

static void test_attrs(struct ib_device *ibdev)
{
	struct ib_port_attr pattr;

	check(ibdev->attrs.max_pd > 0 && ibdev->attrs.max_mr > 0,
	      "device reports PD and MR limits");
	check(!ib_query_port(ibdev, 1, &pattr), "ib_query_port");
	check(rdma_protocol_roce_udp_encap(ibdev, 1), "port is RoCE v2");
	check(rdma_port_get_link_layer(ibdev, 1) == IB_LINK_LAYER_ETHERNET,
	      "link layer is Ethernet");
	check(ib_uses_virt_dma(ibdev), "device uses virtual DMA addresses");
}

static int __init sroce_ktest_init(void)
{
	struct ib_device *ibdev;

	if (!dev)
		return -EINVAL;
	ibdev = ib_device_get_by_name(dev, RDMA_DRIVER_UNKNOWN);
	if (!ibdev) {
		pr_info("sroce_ktest: no device %s\n", dev);
		return -ENODEV;
	}
	test_attrs(ibdev);
	test_pd(ibdev, 0, "ib_alloc_pd");
	test_pd(ibdev, IB_PD_UNSAFE_GLOBAL_RKEY,
		"ib_alloc_pd(IB_PD_UNSAFE_GLOBAL_RKEY)");
	ib_device_put(ibdev);
	pr_info("sroce_ktest: %d failures\n", fails);
	return fails ? -EIO : 0;
}

static void __exit sroce_ktest_exit(void)
{
}

module_init(sroce_ktest_init);
module_exit(sroce_ktest_exit);
MODULE_LICENSE("Dual BSD/GPL");
MODULE_DESCRIPTION("Kernel-consumer checks for sroce devices");
