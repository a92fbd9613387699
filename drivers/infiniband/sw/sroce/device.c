// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * The ib_device: creation from `rdma link add`, its ops table, the device
 * attributes it reports, and its release.
 */
#include <linux/module.h>
#include <linux/rtnetlink.h>
#include <linux/if_arp.h>
#include <net/addrconf.h>
#include <rdma/ib_umem.h>

#include "sroce.h"
#include "observe.h"

/* Serialises the duplicate checks in sroce_device_add() with registration. */
static DEFINE_MUTEX(sroce_device_mutex);

/*
 * Receive WQs, indirection tables and RSS QPs (wq.c, rss.c), with raw
 * packet QPs: what the raw_packet parameter says now.
 */
static void sroce_device_rss_caps(struct ib_device_attr *a)
{
	a->max_wq_type_rq = SROCE_MAX_WQ;
	a->rss_caps.supported_qpts = BIT(IB_QPT_RAW_PACKET);
	a->rss_caps.max_rwq_indirection_tables = SROCE_MAX_RWQ_IND_TBL;
	a->rss_caps.max_rwq_indirection_table_size =
		BIT(SROCE_RWQ_IND_TBL_LOG_MAX);
}

static int sroce_device_query(struct ib_device *ibdev,
			      struct ib_device_attr *attr,
			      struct ib_udata *udata)
{
	if (udata->inlen || udata->outlen)
		return -EINVAL;
	*attr = to_sdev(ibdev)->attr;
	if (sroce_raw_enabled())
		sroce_device_rss_caps(attr);
	return 0;
}

/*
 * Only what the module really implements is advertised; every object type
 * that is not implemented yet reports a limit of zero.
 */
static void sroce_device_init_attr(struct sroce_dev *sdev)
{
	struct ib_device_attr *a = &sdev->attr;

	memset(a, 0, sizeof(*a));
	a->vendor_id = SROCE_VENDOR_ID;
	a->fw_ver = 0;
	a->sys_image_guid = sdev->ibdev.node_guid;
	a->max_mr_size = U64_MAX;
	a->max_dm_size = SROCE_DM_MAX;
	a->page_size_cap = PAGE_SIZE;
	a->max_pd = SROCE_MAX_PD;
	a->max_mr = SROCE_MAX_MR;
	a->max_pkeys = 1;
	a->max_qp = SROCE_MAX_QP;
	a->max_qp_wr = SROCE_MAX_QP_WR;
	a->max_send_sge = SROCE_MAX_SGE;
	a->max_recv_sge = SROCE_MAX_SGE;
	a->max_sge_rd = SROCE_MAX_SGE;
	a->max_cq = SROCE_MAX_CQ;
	a->max_cqe = SROCE_MAX_CQE_DEV - 1;
	a->max_ah = SROCE_MAX_AH;
	a->max_srq = SROCE_MAX_SRQ;
	a->max_srq_wr = SROCE_MAX_QP_WR;
	a->max_srq_sge = SROCE_MAX_SGE;
	a->max_qp_rd_atom = SROCE_MAX_RD_ATOMIC;
	a->max_qp_init_rd_atom = SROCE_MAX_RD_ATOMIC;
	a->max_res_rd_atom = SROCE_MAX_RD_ATOMIC * SROCE_MAX_QP;
	a->atomic_cap = IB_ATOMIC_HCA;
	a->device_cap_flags = IB_DEVICE_RC_RNR_NAK_GEN |
			      IB_DEVICE_SYS_IMAGE_GUID;
	/* Memory windows: type 1 and type 2B (mw.c). */
	a->max_mw = SROCE_MAX_MW;
	a->device_cap_flags |= IB_DEVICE_MEM_WINDOW |
			       IB_DEVICE_MEM_WINDOW_TYPE_2B;
	/* XRC domains, SRQs and QPs (xrc.c). */
	a->device_cap_flags |= IB_DEVICE_XRC;
	a->kernel_cap_flags = IBK_ALLOW_USER_UNREG;
	/* UD multicast (mcast.c). */
	a->max_mcast_grp = SROCE_MAX_MCAST_GRP;
	a->max_mcast_qp_attach = SROCE_MAX_MCAST_QP_ATTACH;
	a->max_total_mcast_qp_attach = SROCE_MAX_MCAST_GRP *
				       SROCE_MAX_MCAST_QP_ATTACH;
	/* Fast registration, local and remote invalidation (frmr.c). */
	a->device_cap_flags |= IB_DEVICE_MEM_MGT_EXTENSIONS;
	a->max_fast_reg_page_list_len = SROCE_FR_MAX_PAGES;
	/* On-demand paging MRs, implicit ones too (odp.c). */
	sroce_odp_caps(a);
}

/* Registered, so named: debugfs, which goes by the name, comes now. */
static int sroce_device_enable(struct ib_device *ibdev)
{
	sroce_debugfs_add(to_sdev(ibdev));
	return 0;
}

static void sroce_device_dealloc(struct ib_device *ibdev)
{
	struct sroce_dev *sdev = to_sdev(ibdev);

	/* First: its readers walk the tables torn down below. */
	sroce_debugfs_del(sdev);
	/* After the ib_device, which ib_core took out of sysfs first. */
	sroce_parent_del(sdev);
	if (sdev->snet)
		sroce_net_put(sdev->snet);
	sroce_ah_table_destroy(sdev);
	sroce_mcast_destroy(sdev);
	sroce_flows_destroy(sdev);
	sroce_wq_destroy_dev(sdev);
	sroce_table_destroy(&sdev->qp_table);
	sroce_table_destroy(&sdev->srq_table);
	sroce_table_destroy(&sdev->mw_table);
	sroce_table_destroy(&sdev->mr_table);
	ida_destroy(&sdev->pd_ida);
}

static const struct ib_device_ops sroce_dev_ops = {
	.owner = THIS_MODULE,
	.driver_id = SROCE_DRIVER_ID,
	.uverbs_abi_ver = SROCE_UVERBS_ABI_VERSION,

	.advise_mr = sroce_odp_advise,
	.alloc_hw_port_stats = sroce_counters_alloc_stats,
	.alloc_mr = sroce_frmr_alloc,
	.alloc_dm = sroce_dm_alloc,
	.alloc_mw = sroce_mw_alloc,
	.alloc_pd = sroce_pd_alloc,
	.alloc_ucontext = sroce_ucontext_alloc,
	.alloc_xrcd = sroce_xrcd_alloc,
	.attach_mcast = sroce_mcast_attach,
	.create_ah = sroce_ah_create,
	.create_cq = sroce_cq_create,
	.create_flow = sroce_flow_create,
	.create_qp = sroce_qp_create,
	.create_rwq_ind_table = sroce_rss_table_create,
	.create_srq = sroce_srq_create,
	.create_user_ah = sroce_ah_create,
	.create_wq = sroce_wq_create,
	.dealloc_driver = sroce_device_dealloc,
	.dealloc_mw = sroce_mw_dealloc,
	.dealloc_pd = sroce_pd_dealloc,
	.dealloc_ucontext = sroce_ucontext_dealloc,
	.dealloc_xrcd = sroce_xrcd_dealloc,
	.destroy_ah = sroce_ah_destroy,
	.dealloc_dm = sroce_dm_dealloc,
	.dereg_mr = sroce_mr_dereg,
	.destroy_cq = sroce_cq_destroy,
	.destroy_flow = sroce_flow_destroy,
	.destroy_qp = sroce_qp_destroy,
	.destroy_rwq_ind_table = sroce_rss_table_destroy,
	.destroy_srq = sroce_srq_destroy,
	.destroy_wq = sroce_wq_destroy,
	.disassociate_ucontext = sroce_ucontext_disassociate,
	.detach_mcast = sroce_mcast_detach,
	.device_group = &sroce_device_attr_group,
	.enable_driver = sroce_device_enable,
	.fill_res_qp_entry = sroce_restrack_fill_qp,
	.get_dma_mr = sroce_mr_get_dma,
	.get_hw_stats = sroce_counters_get_stats,
	.get_link_layer = sroce_port_link_layer,
	.get_port_immutable = sroce_port_immutable,
	.map_mr_sg = sroce_frmr_map_sg,
	.mmap = sroce_queue_mmap,
	.mmap_free = sroce_queue_mmap_free,
	.modify_qp = sroce_qp_modify,
	.modify_srq = sroce_srq_modify,
	.modify_wq = sroce_wq_modify,
	.poll_cq = sroce_cq_poll,
	.post_recv = sroce_qp_post_recv,
	.post_send = sroce_qp_post_send,
	.post_srq_recv = sroce_srq_post_recv,
	.query_device = sroce_device_query,
	.query_pkey = sroce_port_query_pkey,
	.query_port = sroce_port_query,
	.query_ah = sroce_ah_query,
	.query_qp = sroce_qp_query,
	.query_srq = sroce_srq_query,
	.query_ucontext = sroce_ucontext_query,
	.reg_dm_mr = sroce_dm_reg_mr,
	.reg_user_mr = sroce_mr_reg_user,
	.rereg_user_mr = sroce_mr_rereg_user,
	.req_notify_cq = sroce_cq_req_notify,
	.resize_cq = sroce_cq_resize,

	INIT_RDMA_OBJ_SIZE(ib_ah, sroce_ah, ibah),
	INIT_RDMA_OBJ_SIZE(ib_cq, sroce_cq, ibcq),
	INIT_RDMA_OBJ_SIZE(ib_mw, sroce_mw, ibmw),
	INIT_RDMA_OBJ_SIZE(ib_pd, sroce_pd, ibpd),
	INIT_RDMA_OBJ_SIZE(ib_qp, sroce_qp, ibqp),
	INIT_RDMA_OBJ_SIZE(ib_rwq_ind_table, sroce_rwq_ind_table, ibtbl),
	INIT_RDMA_OBJ_SIZE(ib_srq, sroce_srq, ibsrq),
	INIT_RDMA_OBJ_SIZE(ib_ucontext, sroce_ucontext, ibuc),
	INIT_RDMA_OBJ_SIZE(ib_xrcd, sroce_xrcd, ibxrcd),
};

static ssize_t parent_show(struct device *device,
			   struct device_attribute *attr, char *buf)
{
	struct sroce_dev *sdev =
		rdma_device_to_drv_device(device, struct sroce_dev, ibdev);

	return sysfs_emit(buf, "%s\n", netdev_name(sdev->ndev));
}
static DEVICE_ATTR_RO(parent);

/* The provider's marker: see SROCE_SYSFS_ABI_ATTR in sroce-abi.h. */
static ssize_t sroce_abi_version_show(struct device *device,
				      struct device_attribute *attr, char *buf)
{
	return sysfs_emit(buf, "%u\n", SROCE_UVERBS_ABI_VERSION);
}
static DEVICE_ATTR_RO(sroce_abi_version);

/* A device's on/off knob in sysfs: "1" or "0" out, kstrtobool() in. */
static ssize_t sroce_knob_show(char *buf, const bool *knob)
{
	return sysfs_emit(buf, "%d\n", READ_ONCE(*knob));
}

static ssize_t sroce_knob_store(const char *buf, size_t count, bool *knob)
{
	bool on;
	int err;

	err = kstrtobool(buf, &on);
	if (err)
		return err;
	WRITE_ONCE(*knob, on);
	return count;
}

/*
 * Selective repeat for this device's QPs (sr.c), from the module
 * parameter at creation; a QP reads it when it is connected.
 */
static ssize_t selective_repeat_show(struct device *device,
				     struct device_attribute *attr, char *buf)
{
	return sroce_knob_show(buf, &rdma_device_to_drv_device(device,
				struct sroce_dev, ibdev)->sr);
}

static ssize_t selective_repeat_store(struct device *device,
				      struct device_attribute *attr,
				      const char *buf, size_t count)
{
	return sroce_knob_store(buf, count, &rdma_device_to_drv_device(device,
				struct sroce_dev, ibdev)->sr);
}
static DEVICE_ATTR_RW(selective_repeat);

/* ICRC elision for this device's QPs (elide.c), read at RTR and RTS. */
static ssize_t icrc_elide_show(struct device *device,
			       struct device_attribute *attr, char *buf)
{
	return sroce_knob_show(buf, &rdma_device_to_drv_device(device,
				struct sroce_dev, ibdev)->icrc_elide);
}

static ssize_t icrc_elide_store(struct device *device,
				struct device_attribute *attr,
				const char *buf, size_t count)
{
	return sroce_knob_store(buf, count, &rdma_device_to_drv_device(device,
				struct sroce_dev, ibdev)->icrc_elide);
}
static DEVICE_ATTR_RW(icrc_elide);

/* Congestion control of this device's QPs (cc.c), read at RTS. */
static ssize_t cc_show(struct device *device, struct device_attribute *attr,
		       char *buf)
{
	struct sroce_dev *sdev =
		rdma_device_to_drv_device(device, struct sroce_dev, ibdev);

	return sysfs_emit(buf, "%s\n", sroce_cc_mode_name(READ_ONCE(sdev->cc)));
}

static ssize_t cc_store(struct device *device, struct device_attribute *attr,
			const char *buf, size_t count)
{
	struct sroce_dev *sdev =
		rdma_device_to_drv_device(device, struct sroce_dev, ibdev);
	int mode = sroce_cc_parse(buf);

	if (mode < 0)
		return mode;
	WRITE_ONCE(sdev->cc, mode);
	return count;
}
static DEVICE_ATTR_RW(cc);

static struct attribute *sroce_device_attrs[] = {
	&dev_attr_parent.attr,
	&dev_attr_sroce_abi_version.attr,
	&dev_attr_selective_repeat.attr,
	&dev_attr_icrc_elide.attr,
	&dev_attr_cc.attr,
	NULL,
};

const struct attribute_group sroce_device_attr_group = {
	.attrs = sroce_device_attrs,
};

static int sroce_device_check_netdev(const char *name, struct net_device *ndev)
{
	struct ib_device *other;

	if (ndev->type != ARPHRD_ETHER) {
		pr_err("sroce: %s: netdev %s is not Ethernet (type %u)\n",
		       name, netdev_name(ndev), ndev->type);
		return -EPROTONOSUPPORT;
	}
	other = ib_device_get_by_name(name, RDMA_DRIVER_UNKNOWN);
	if (other) {
		ib_device_put(other);
		pr_err("sroce: device name %s is already in use\n", name);
		return -EEXIST;
	}
	other = ib_device_get_by_netdev(ndev, SROCE_DRIVER_ID);
	if (other) {
		pr_err("sroce: %s: netdev %s already has sroce device %s\n",
		       name, netdev_name(ndev), dev_name(&other->dev));
		ib_device_put(other);
		return -EEXIST;
	}
	return 0;
}

static void sroce_device_init(struct sroce_dev *sdev, struct net_device *ndev)
{
	struct ib_device *ibdev = &sdev->ibdev;
	unsigned int p;

	sdev->ndev = ndev;
	/* Every class inactive: "until now", not 0, as jiffies wrap. */
	for (p = 0; p < SROCE_PRIO_CLASSES; p++)
		sdev->prio_until[p] = jiffies;
	spin_lock_init(&sdev->port_lock);
	sdev->port_state = IB_PORT_NOP;
	sdev->sr = sroce_sr_default();
	sdev->icrc_elide = sroce_elide_default();
	sdev->cc = sroce_cc_default_mode();
	ida_init(&sdev->pd_ida);
	/* Keys are index << 8 | variant, so the index must fit 24 bits. */
	sroce_table_init(&sdev->mr_table, 1, SROCE_MAX_MR);
	/* QPNs 0 and 1 are the SMI and GSI QPs; 24 bits on the wire. */
	sroce_table_init(&sdev->qp_table, 16, 16 + SROCE_MAX_QP - 1);
	/* XRC SRQ numbers: 24 bits in an XRCETH; 0 is never one. */
	sroce_table_init(&sdev->srq_table, 1, SROCE_MAX_SRQ);
	sroce_ah_table_init(sdev);
	sroce_mcast_init(sdev);
	sroce_flows_init(sdev);
	sroce_wq_init_dev(sdev);
	/* Above every MR index: an rkey's index tells MW from MR. */
	sroce_table_init(&sdev->mw_table, SROCE_MW_INDEX_MIN,
			 SROCE_MW_INDEX_MIN + SROCE_MAX_MW - 1);

	addrconf_addr_eui48((unsigned char *)&ibdev->node_guid,
			    ndev->dev_addr);
	sroce_device_init_attr(sdev);

	ibdev->node_type = RDMA_NODE_IB_CA;
	ibdev->phys_port_cnt = 1;
	ibdev->num_comp_vectors = num_possible_cpus();
	ibdev->local_dma_lkey = 0;
	strscpy(ibdev->node_desc, "sroce", sizeof(ibdev->node_desc));
	ib_set_device_ops(ibdev, &sroce_dev_ops);
	ibdev->driver_def = sroce_uapi_defs;
	/*
	 * The doorbells: libsroce calls POST_SEND/POST_RECV with no work
	 * requests, and REQ_NOTIFY_CQ to arm a CQ; ib_core leaves these
	 * write() commands out of its default mask.
	 */
	ibdev->uverbs_cmd_mask |= BIT_ULL(IB_USER_VERBS_CMD_POST_SEND) |
				  BIT_ULL(IB_USER_VERBS_CMD_POST_RECV) |
				  BIT_ULL(IB_USER_VERBS_CMD_REQ_NOTIFY_CQ);
}

/*
 * In exclusive rdma netns mode a device belongs to one namespace: make it
 * its netdev's, so only processes there see it.  In shared mode (the
 * default) devices stay in init_net and ib_core shows them in every
 * namespace, as it does rxe's.  The device is not registered yet, so
 * rdma_dev_access_netns() answers for its initial namespace, init_net:
 * false means exclusive mode.
 */
static void sroce_device_set_netns(struct sroce_dev *sdev, struct net *net)
{
	if (!rdma_dev_access_netns(&sdev->ibdev, net))
		write_pnet(&sdev->ibdev.coredev.rdma_net, net);
}

/*
 * The netdev may start unregistering while we register.  Its notifier only
 * finds registered devices, so check again under RTNL, which orders us
 * against NETDEV_UNREGISTER.
 */
static bool sroce_device_netdev_gone(struct net_device *ndev)
{
	bool gone;

	rtnl_lock();
	gone = ndev->reg_state != NETREG_REGISTERED;
	rtnl_unlock();
	return gone;
}

int sroce_device_add(const char *name, struct net_device *ndev)
{
	struct sroce_dev *sdev;
	bool registered;
	int err;

	mutex_lock(&sroce_device_mutex);
	err = sroce_device_check_netdev(name, ndev);
	if (err)
		goto err_unlock;

	sdev = ib_alloc_device(sroce_dev, ibdev);
	if (!sdev) {
		err = -ENOMEM;
		goto err_unlock;
	}
	sroce_device_init(sdev, ndev);

	sdev->snet = sroce_net_get(dev_net(ndev));
	if (IS_ERR(sdev->snet)) {
		err = PTR_ERR(sdev->snet);
		sdev->snet = NULL;
		goto err_dealloc;
	}
	err = ib_device_set_netdev(&sdev->ibdev, ndev, SROCE_PORT);
	if (err)
		goto err_dealloc;
	err = sroce_parent_add(sdev);
	if (err)
		goto err_dealloc;

	sroce_device_set_netns(sdev, dev_net(ndev));

	err = ib_register_device(&sdev->ibdev, name, NULL);
	if (err) {
		pr_err("sroce: %s: registration failed: %d\n", name, err);
		goto err_dealloc;
	}
	/*
	 * Once registered, a NETDEV_UNREGISTER may free the device at any
	 * time; hold a reference of our own for the checks below.
	 */
	registered = ib_device_try_get(&sdev->ibdev);
	mutex_unlock(&sroce_device_mutex);
	if (!registered)
		return -ENODEV;

	if (sroce_device_netdev_gone(ndev)) {
		ib_unregister_device_and_put(&sdev->ibdev);
		return -ENODEV;
	}
	sroce_port_update(sdev);
	ib_device_put(&sdev->ibdev);
	pr_info("sroce: %s: added on %s\n", name, netdev_name(ndev));
	return 0;

err_dealloc:
	/* Calls our dealloc_driver, which undoes sroce_device_init(). */
	ib_dealloc_device(&sdev->ibdev);
err_unlock:
	mutex_unlock(&sroce_device_mutex);
	return err;
}
