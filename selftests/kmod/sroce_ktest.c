// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * sroce_ktest: exercises a sroce device the way a kernel ULP does, at load
 * time.  Loading succeeds only if every check passed; each check logs one
 * line "sroce_ktest: ok|FAIL ...", which the VM test reads.
 *
 *   insmod sroce_ktest.ko dev=fab1
 */
#include <linux/module.h>
#include <linux/delay.h>
#include <linux/slab.h>
#include <rdma/ib_verbs.h>
#include <rdma/ib_cache.h>

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

static int gid_index = 1;
module_param(gid_index, int, 0444);
MODULE_PARM_DESC(gid_index, "GID index the test QP uses (loopback to itself)");

static int test_qp_connect(struct ib_qp *qp)
{
	struct ib_qp_attr a = {};
	union ib_gid gid;
	int err;

	a.qp_state = IB_QPS_INIT;
	a.port_num = 1;
	a.qp_access_flags = IB_ACCESS_REMOTE_WRITE | IB_ACCESS_REMOTE_READ;
	err = ib_modify_qp(qp, &a, IB_QP_STATE | IB_QP_PKEY_INDEX |
			   IB_QP_PORT | IB_QP_ACCESS_FLAGS);
	check(!err, "modify_qp RESET->INIT");
	if (err)
		return err;

	err = rdma_query_gid(qp->device, 1, gid_index, &gid);
	check(!err, "rdma_query_gid");
	if (err)
		return err;
	memset(&a, 0, sizeof(a));
	a.qp_state = IB_QPS_RTR;
	a.path_mtu = IB_MTU_1024;
	a.dest_qp_num = qp->qp_num;
	a.rq_psn = 0xfffff0;	/* wraps within the first messages */
	a.max_dest_rd_atomic = 1;
	a.min_rnr_timer = 12;
	a.ah_attr.type = RDMA_AH_ATTR_TYPE_ROCE;
	rdma_ah_set_port_num(&a.ah_attr, 1);
	rdma_ah_set_grh(&a.ah_attr, &gid, 0, gid_index, 64, 0);
	err = ib_modify_qp(qp, &a, IB_QP_STATE | IB_QP_AV | IB_QP_PATH_MTU |
			   IB_QP_DEST_QPN | IB_QP_RQ_PSN |
			   IB_QP_MAX_DEST_RD_ATOMIC | IB_QP_MIN_RNR_TIMER);
	check(!err, "modify_qp INIT->RTR (loopback AV)");
	if (err)
		return err;

	memset(&a, 0, sizeof(a));
	a.qp_state = IB_QPS_RTS;
	a.sq_psn = 0xfffff0;
	a.timeout = 14;
	a.retry_cnt = 7;
	a.rnr_retry = 7;
	a.max_rd_atomic = 1;
	err = ib_modify_qp(qp, &a, IB_QP_STATE | IB_QP_SQ_PSN | IB_QP_TIMEOUT |
			   IB_QP_RETRY_CNT | IB_QP_RNR_RETRY |
			   IB_QP_MAX_QP_RD_ATOMIC);
	check(!err, "modify_qp RTR->RTS");
	return err;
}

static void test_qp_query(struct ib_qp *qp)
{
	struct ib_qp_init_attr init;
	struct ib_qp_attr a;
	int err;

	err = ib_query_qp(qp, &a, IB_QP_STATE | IB_QP_DEST_QPN, &init);
	check(!err && a.qp_state == IB_QPS_RTS && a.dest_qp_num == qp->qp_num &&
	      a.sq_psn == 0xfffff0 && a.path_mtu == IB_MTU_1024,
	      "query_qp returns what was set");
	/* RTS -> INIT is not a legal transition. */
	a.qp_state = IB_QPS_INIT;
	check(ib_modify_qp(qp, &a, IB_QP_STATE) == -EINVAL,
	      "illegal transition RTS->INIT refused");
}

#define KT_LEN	5000	/* crosses pages and MTU-sized packets */

/* Busy-poll @cq for one completion, for at most two seconds. */
static int kt_poll(struct ib_cq *cq, struct ib_wc *wc)
{
	unsigned long end = jiffies + 2 * HZ;
	int n;

	do {
		n = ib_poll_cq(cq, 1, wc);
		if (n)
			return n < 0 ? n : 0;
		usleep_range(100, 200);
	} while (time_before(jiffies, end));
	return -ETIMEDOUT;
}

static bool kt_post_and_wait(struct ib_qp *qp, struct ib_send_wr *wr,
			     enum ib_wc_opcode op)
{
	const struct ib_send_wr *bad;
	struct ib_wc wc;

	wr->send_flags = IB_SEND_SIGNALED;
	if (ib_post_send(qp, wr, &bad) || kt_poll(qp->send_cq, &wc))
		return false;
	return wc.status == IB_WC_SUCCESS && wc.opcode == op &&
	       wc.wr_id == wr->wr_id && wc.qp == qp;
}

/* SEND, WRITE and READ from the QP to itself, through the engine. */
static void test_qp_data(struct ib_qp *qp, struct ib_pd *pd)
{
	u8 *src = kmalloc(KT_LEN, GFP_KERNEL), *dst = kzalloc(KT_LEN, GFP_KERNEL);
	struct ib_sge ssge = { (uintptr_t)src, KT_LEN, pd->local_dma_lkey };
	struct ib_sge rsge = { (uintptr_t)dst, KT_LEN, pd->local_dma_lkey };
	struct ib_recv_wr rwr = { .wr_id = 7, .sg_list = &rsge, .num_sge = 1 };
	struct ib_rdma_wr rdma = {};
	struct ib_send_wr swr = {};
	const struct ib_recv_wr *rbad;
	struct ib_wc wc;
	int i;

	if (!src || !dst)
		goto out;
	for (i = 0; i < KT_LEN; i++)
		src[i] = i * 7 + 3;
	check(!ib_post_recv(qp, &rwr, &rbad), "post_recv");
	swr.wr_id = 1;
	swr.opcode = IB_WR_SEND;
	swr.sg_list = &ssge;
	swr.num_sge = 1;
	check(kt_post_and_wait(qp, &swr, IB_WC_SEND), "SEND completes");
	check(!kt_poll(qp->recv_cq, &wc) && wc.status == IB_WC_SUCCESS &&
	      wc.wr_id == 7 && wc.byte_len == KT_LEN &&
	      wc.opcode == IB_WC_RECV, "receive completes");
	check(!memcmp(src, dst, KT_LEN), "SEND data arrives intact");

	memset(dst, 0, KT_LEN);
	rdma.wr.wr_id = 2;
	rdma.wr.opcode = IB_WR_RDMA_WRITE;
	rdma.wr.sg_list = &ssge;
	rdma.wr.num_sge = 1;
	rdma.remote_addr = (uintptr_t)dst;
	rdma.rkey = pd->unsafe_global_rkey;
	check(kt_post_and_wait(qp, &rdma.wr, IB_WC_RDMA_WRITE) &&
	      !memcmp(src, dst, KT_LEN), "RDMA WRITE data intact");

	memset(src, 0, KT_LEN);
	rdma.wr.wr_id = 3;
	rdma.wr.opcode = IB_WR_RDMA_READ;
	/* Read dst (remote) back into src (local). */
	check(kt_post_and_wait(qp, &rdma.wr, IB_WC_RDMA_READ) &&
	      !memcmp(src, dst, KT_LEN), "RDMA READ data intact");
out:
	kfree(src);
	kfree(dst);
}

static void test_qp(struct ib_device *ibdev)
{
	struct ib_qp_init_attr init = {};
	struct ib_cq_init_attr cattr = { .cqe = 64 };
	struct ib_cq *cq, *rcq;
	struct ib_pd *pd;
	struct ib_qp *qp;

	pd = ib_alloc_pd(ibdev, IB_PD_UNSAFE_GLOBAL_RKEY);
	if (IS_ERR(pd))
		return;
	cq = ib_create_cq(ibdev, NULL, NULL, NULL, &cattr);
	check(!IS_ERR(cq) && cq->cqe >= 64, "create_cq");
	if (IS_ERR(cq))
		goto out_pd;
	/* Separate CQs, so each poll below sees only its own kind. */
	rcq = ib_create_cq(ibdev, NULL, NULL, NULL, &cattr);
	check(!IS_ERR(rcq), "create_cq (receive)");
	if (IS_ERR(rcq))
		goto out_cq;
	init.send_cq = cq;
	init.recv_cq = rcq;
	init.qp_type = IB_QPT_RC;
	init.sq_sig_type = IB_SIGNAL_REQ_WR;
	init.cap.max_send_wr = 16;
	init.cap.max_recv_wr = 16;
	init.cap.max_send_sge = 2;
	init.cap.max_recv_sge = 2;
	qp = ib_create_qp(pd, &init);
	check(!IS_ERR(qp) && qp->qp_num >= 16, "create_qp RC");
	if (IS_ERR(qp))
		goto out_rcq;
	check(init.cap.max_send_wr >= 16 && init.cap.max_recv_sge >= 2,
	      "create_qp reports caps at least as asked");
	if (!test_qp_connect(qp)) {
		test_qp_query(qp);
		test_qp_data(qp, pd);
	}
	check(!ib_destroy_qp(qp), "destroy_qp");
out_rcq:
	check(!ib_destroy_cq_user(rcq, NULL), "destroy_cq (receive)");
out_cq:
	check(!ib_destroy_cq_user(cq, NULL), "destroy_cq");
out_pd:
	ib_dealloc_pd(pd);
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
	test_qp(ibdev);
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
