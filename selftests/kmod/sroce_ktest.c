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

/* ---- SRQ: receives through a shared queue, and its limit event ---- */

static atomic_t kt_srq_limit_events;

static void kt_srq_event(struct ib_event *ev, void *ctx)
{
	if (ev->event == IB_EVENT_SRQ_LIMIT_REACHED)
		atomic_inc(&kt_srq_limit_events);
}

static int kt_post_srq(struct ib_srq *srq, u8 *buf, u32 lkey, u64 wr_id)
{
	struct ib_sge sge = { (uintptr_t)buf, 256, lkey };
	struct ib_recv_wr wr = { .wr_id = wr_id, .sg_list = &sge,
				 .num_sge = 1 };
	const struct ib_recv_wr *bad;

	return ib_post_srq_recv(srq, &wr, &bad);
}

static void test_srq_data(struct ib_qp *qp, struct ib_srq *srq,
			  struct ib_pd *pd)
{
	u8 *src = kmalloc(256, GFP_KERNEL), *dst = kzalloc(4 * 256, GFP_KERNEL);
	struct ib_sge ssge = { (uintptr_t)src, 200, pd->local_dma_lkey };
	struct ib_srq_attr sa = { .srq_limit = 3 };
	struct ib_recv_wr rwr = {};
	const struct ib_recv_wr *rbad;
	struct ib_send_wr swr = {};
	struct ib_wc wc;
	bool ok = true;
	int i;

	if (!src || !dst)
		goto out;
	for (i = 0; i < 4; i++)
		ok &= !kt_post_srq(srq, dst + i * 256, pd->local_dma_lkey,
				   100 + i);
	check(ok, "ib_post_srq_recv");
	check(!ib_modify_srq(srq, &sa, IB_SRQ_LIMIT), "ib_modify_srq arms limit 3");
	check(ib_post_recv(qp, &rwr, &rbad) != 0,
	      "ib_post_recv on a QP of an SRQ is refused");
	swr.opcode = IB_WR_SEND;
	swr.sg_list = &ssge;
	swr.num_sge = 1;
	for (i = 0; i < 2; i++) {
		memset(src, 0x30 + i, 200);
		swr.wr_id = 10 + i;
		ok = kt_post_and_wait(qp, &swr, IB_WC_SEND) &&
		     !kt_poll(qp->recv_cq, &wc) &&
		     wc.status == IB_WC_SUCCESS && wc.wr_id == 100 + i &&
		     wc.byte_len == 200 && wc.qp == qp &&
		     dst[i * 256 + 199] == 0x30 + i;
		check(ok, "SEND lands in the next SRQ WQE");
		/* The event comes before the completion that caused it. */
		check(atomic_read(&kt_srq_limit_events) == i,
		      i ? "SRQ limit event below the limit" :
			  "no SRQ limit event at the limit");
	}
	check(!ib_query_srq(srq, &sa) && sa.srq_limit == 0,
	      "the limit event disarmed the limit");
out:
	kfree(src);
	kfree(dst);
}

static void test_srq(struct ib_device *ibdev)
{
	struct ib_srq_init_attr sattr = {
		.event_handler = kt_srq_event,
		.attr = { .max_wr = 16, .max_sge = 1 },
		.srq_type = IB_SRQT_BASIC,
	};
	struct ib_cq_init_attr cattr = { .cqe = 64 };
	struct ib_qp_init_attr init = {};
	struct ib_cq *cq, *rcq;
	struct ib_srq *srq;
	struct ib_pd *pd;
	struct ib_qp *qp;

	pd = ib_alloc_pd(ibdev, 0);
	if (IS_ERR(pd))
		return;
	cq = ib_create_cq(ibdev, NULL, NULL, NULL, &cattr);
	rcq = ib_create_cq(ibdev, NULL, NULL, NULL, &cattr);
	srq = ib_create_srq(pd, &sattr);
	check(!IS_ERR(srq) && sattr.attr.max_wr >= 16, "ib_create_srq");
	if (IS_ERR(cq) || IS_ERR(rcq) || IS_ERR(srq))
		goto out;
	init.send_cq = cq;
	init.recv_cq = rcq;
	init.srq = srq;
	init.qp_type = IB_QPT_RC;
	init.sq_sig_type = IB_SIGNAL_REQ_WR;
	init.cap.max_send_wr = 16;
	init.cap.max_send_sge = 1;
	qp = ib_create_qp(pd, &init);
	check(!IS_ERR(qp), "create_qp RC on an SRQ");
	if (IS_ERR(qp))
		goto out;
	if (!test_qp_connect(qp))
		test_srq_data(qp, srq, pd);
	check(!ib_destroy_qp(qp), "destroy_qp (on the SRQ)");
out:
	if (!IS_ERR(srq))
		check(!ib_destroy_srq_user(srq, NULL), "ib_destroy_srq");
	if (!IS_ERR(rcq))
		ib_destroy_cq(rcq);
	if (!IS_ERR(cq))
		ib_destroy_cq(cq);
	ib_dealloc_pd(pd);
}

/* ---- UD: an AH to ourselves, a datagram with its GRH ---- */

#define KT_QKEY		0x4b7e57
#define KT_GRH		40

static int kt_ud_connect(struct ib_qp *qp)
{
	struct ib_qp_attr a = {
		.qp_state = IB_QPS_INIT, .port_num = 1, .qkey = KT_QKEY,
	};
	int err;

	err = ib_modify_qp(qp, &a, IB_QP_STATE | IB_QP_PKEY_INDEX |
			   IB_QP_PORT | IB_QP_QKEY);
	if (!err) {
		a.qp_state = IB_QPS_RTR;
		err = ib_modify_qp(qp, &a, IB_QP_STATE);
	}
	if (!err) {
		a.qp_state = IB_QPS_RTS;
		a.sq_psn = 7;
		err = ib_modify_qp(qp, &a, IB_QP_STATE | IB_QP_SQ_PSN);
	}
	check(!err, "UD QP to RTS");
	return err;
}

static void test_ud_data(struct ib_qp *qp, struct ib_pd *pd, struct ib_ah *ah)
{
	u8 *src = kmalloc(300, GFP_KERNEL), *dst = kzalloc(KT_GRH + 300,
							  GFP_KERNEL);
	struct ib_sge ssge = { (uintptr_t)src, 300, pd->local_dma_lkey };
	struct ib_sge rsge = { (uintptr_t)dst, KT_GRH + 300,
			       pd->local_dma_lkey };
	struct ib_recv_wr rwr = { .wr_id = 5, .sg_list = &rsge, .num_sge = 1 };
	struct ib_ud_wr ud = {};
	const struct ib_recv_wr *rbad;
	struct ib_wc wc;
	int i;

	if (!src || !dst)
		goto out;
	for (i = 0; i < 300; i++)
		src[i] = i * 3 + 1;
	check(!ib_post_recv(qp, &rwr, &rbad), "UD post_recv");
	ud.wr.wr_id = 6;
	ud.wr.opcode = IB_WR_SEND;
	ud.wr.sg_list = &ssge;
	ud.wr.num_sge = 1;
	ud.ah = ah;
	ud.remote_qpn = qp->qp_num;
	ud.remote_qkey = KT_QKEY;
	check(kt_post_and_wait(qp, &ud.wr, IB_WC_SEND), "UD SEND completes");
	check(!kt_poll(qp->recv_cq, &wc) && wc.status == IB_WC_SUCCESS &&
	      wc.wr_id == 5 && wc.byte_len == KT_GRH + 300 &&
	      wc.src_qp == qp->qp_num && (wc.wc_flags & IB_WC_GRH) &&
	      (wc.wc_flags & IB_WC_WITH_NETWORK_HDR_TYPE) &&
	      (wc.network_hdr_type == RDMA_NETWORK_IPV4 ||
	       wc.network_hdr_type == RDMA_NETWORK_IPV6),
	      "UD receive: byte_len, src_qp, GRH, network header type");
	check(!memcmp(dst + KT_GRH, src, 300), "UD data after the GRH area");
out:
	kfree(src);
	kfree(dst);
}

static void test_ud(struct ib_device *ibdev)
{
	struct ib_cq_init_attr cattr = { .cqe = 64 };
	struct ib_qp_init_attr init = {};
	struct rdma_ah_attr aa = {};
	struct ib_cq *cq, *rcq;
	struct ib_ah *ah = NULL;
	union ib_gid gid;
	struct ib_pd *pd;
	struct ib_qp *qp;

	pd = ib_alloc_pd(ibdev, 0);
	if (IS_ERR(pd))
		return;
	cq = ib_create_cq(ibdev, NULL, NULL, NULL, &cattr);
	rcq = ib_create_cq(ibdev, NULL, NULL, NULL, &cattr);
	if (IS_ERR(cq) || IS_ERR(rcq))
		goto out;
	init.send_cq = cq;
	init.recv_cq = rcq;
	init.qp_type = IB_QPT_UD;
	init.sq_sig_type = IB_SIGNAL_REQ_WR;
	init.cap.max_send_wr = 8;
	init.cap.max_recv_wr = 8;
	init.cap.max_send_sge = 1;
	init.cap.max_recv_sge = 1;
	qp = ib_create_qp(pd, &init);
	check(!IS_ERR(qp), "create_qp UD");
	if (IS_ERR(qp))
		goto out;
	if (rdma_query_gid(ibdev, 1, gid_index, &gid))
		goto out_qp;
	aa.type = RDMA_AH_ATTR_TYPE_ROCE;
	rdma_ah_set_port_num(&aa, 1);
	rdma_ah_set_grh(&aa, &gid, 0, gid_index, 64, 0);
	ah = rdma_create_ah(pd, &aa, RDMA_CREATE_AH_SLEEPABLE);
	check(!IS_ERR(ah), "rdma_create_ah (loopback GID)");
	if (!IS_ERR(ah) && !kt_ud_connect(qp))
		test_ud_data(qp, pd, ah);
	if (!IS_ERR(ah))
		check(!rdma_destroy_ah_user(ah, RDMA_DESTROY_AH_SLEEPABLE, NULL),
		      "rdma_destroy_ah");
out_qp:
	check(!ib_destroy_qp(qp), "destroy_qp UD");
out:
	if (!IS_ERR(rcq))
		ib_destroy_cq(rcq);
	if (!IS_ERR(cq))
		ib_destroy_cq(cq);
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
	test_srq(ibdev);
	test_ud(ibdev);
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
