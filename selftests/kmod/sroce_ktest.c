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
#include <linux/scatterlist.h>
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

/* Connect @qp to QP @dest_qpn on the same device (loopback GID). */
static int kt_connect(struct ib_qp *qp, u32 dest_qpn)
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
	a.dest_qp_num = dest_qpn;
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

static int test_qp_connect(struct ib_qp *qp)
{
	return kt_connect(qp, qp->qp_num);
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

/* ---- Fast registration: REG_MR, access through it, invalidation ---- */

#define KT_FR_OFF	100			/* not page aligned */
#define KT_FR_LEN	(2 * PAGE_SIZE + 300)	/* three pages */
#define KT_FR_ACCESS	(IB_ACCESS_LOCAL_WRITE | IB_ACCESS_REMOTE_WRITE | \
			 IB_ACCESS_REMOTE_READ)

struct kt_fr {
	struct ib_pd *pd;
	struct ib_cq *cq, *rcq;
	struct ib_qp *peer;	/* the responder of the negative checks */
	struct ib_mr *mr;
	struct scatterlist sg;
	u8 *buf;		/* the registered memory, at KT_FR_OFF */
	u8 *src;		/* the local side, through the DMA lkey */
};

/* Post @wr signalled and wait for its completion, whatever its status. */
static bool kt_post_wc(struct ib_qp *qp, struct ib_send_wr *wr,
		       struct ib_wc *wc)
{
	const struct ib_send_wr *bad;

	wr->send_flags |= IB_SEND_SIGNALED;
	return !ib_post_send(qp, wr, &bad) && !kt_poll(qp->send_cq, wc);
}

static struct ib_qp *kt_fr_create_qp(struct kt_fr *f)
{
	struct ib_qp_init_attr init = {
		.send_cq = f->cq, .recv_cq = f->rcq, .qp_type = IB_QPT_RC,
		.sq_sig_type = IB_SIGNAL_REQ_WR,
		.cap = { .max_send_wr = 16, .max_recv_wr = 16,
			 .max_send_sge = 1, .max_recv_sge = 1 },
	};
	struct ib_qp *qp = ib_create_qp(f->pd, &init);

	return IS_ERR(qp) ? NULL : qp;
}

/*
 * A QP and f->peer, connected to each other: a QP connected to itself
 * would fail as the responder before its requester saw the NAK, and
 * report a flush instead of the remote error.
 */
static struct ib_qp *kt_fr_qp(struct kt_fr *f)
{
	struct ib_qp *qp = kt_fr_create_qp(f);

	f->peer = kt_fr_create_qp(f);
	if (!qp || !f->peer || kt_connect(qp, f->peer->qp_num) ||
	    kt_connect(f->peer, qp->qp_num)) {
		if (qp)
			ib_destroy_qp(qp);
		if (f->peer)
			ib_destroy_qp(f->peer);
		f->peer = NULL;
		return NULL;
	}
	return qp;
}

static void kt_fr_qp_destroy(struct kt_fr *f, struct ib_qp *qp)
{
	ib_destroy_qp(qp);
	ib_destroy_qp(f->peer);
	f->peer = NULL;
}

/* Map the buffer into the MR and register it under a new key. */
static bool kt_fr_reg(struct ib_qp *qp, struct kt_fr *f, int access)
{
	struct ib_reg_wr reg = {
		.wr = { .wr_id = 20, .opcode = IB_WR_REG_MR },
		.mr = f->mr, .access = access,
	};
	struct ib_wc wc;

	if (ib_map_mr_sg(f->mr, &f->sg, 1, NULL, PAGE_SIZE) != 1 ||
	    f->mr->length != KT_FR_LEN ||
	    f->mr->iova != (uintptr_t)f->buf + KT_FR_OFF)
		return false;
	ib_update_fast_reg_key(f->mr, ib_inc_rkey(f->mr->rkey));
	reg.key = f->mr->rkey;
	return kt_post_wc(qp, &reg.wr, &wc) && wc.status == IB_WC_SUCCESS &&
	       wc.opcode == IB_WC_REG_MR;
}

/* RDMA WRITE or READ of @len bytes at @off of the MR, through @rkey. */
static enum ib_wc_status kt_fr_rdma(struct ib_qp *qp, struct kt_fr *f,
				    enum ib_wr_opcode op, u32 rkey, u32 off,
				    u32 len)
{
	struct ib_sge sge = { (uintptr_t)f->src, len, f->pd->local_dma_lkey };
	struct ib_rdma_wr rdma = {
		.wr = { .wr_id = 21, .opcode = op, .sg_list = &sge,
			.num_sge = 1 },
		.remote_addr = f->mr->iova + off, .rkey = rkey,
	};
	struct ib_wc wc;

	if (!kt_post_wc(qp, &rdma.wr, &wc))
		return IB_WC_GENERAL_ERR;
	if (wc.status != IB_WC_SUCCESS)
		pr_info("sroce_ktest: FRWR: %s completes with %s\n",
			op == IB_WR_RDMA_READ ? "READ" : "WRITE",
			ib_wc_status_msg(wc.status));
	return wc.status;
}

static bool kt_fr_write_ok(struct ib_qp *qp, struct kt_fr *f, u8 pattern)
{
	memset(f->src, pattern, KT_FR_LEN);
	return kt_fr_rdma(qp, f, IB_WR_RDMA_WRITE, f->mr->rkey, 0,
			  KT_FR_LEN) == IB_WC_SUCCESS &&
	       !memcmp(f->buf + KT_FR_OFF, f->src, KT_FR_LEN);
}

/* SEND with Invalidate to the peer: its receive reports the rkey. */
static bool kt_fr_send_inv(struct ib_qp *qp, struct kt_fr *f, u32 rkey)
{
	struct ib_sge sge = { (uintptr_t)f->src, 64, f->pd->local_dma_lkey };
	struct ib_sge rsge = { (uintptr_t)f->src + 64, 64,
			       f->pd->local_dma_lkey };
	struct ib_recv_wr rwr = { .wr_id = 22, .sg_list = &rsge,
				  .num_sge = 1 };
	struct ib_send_wr swr = { .wr_id = 23, .opcode = IB_WR_SEND_WITH_INV,
				  .sg_list = &sge, .num_sge = 1,
				  .ex.invalidate_rkey = rkey };
	const struct ib_recv_wr *rbad;
	struct ib_wc wc;

	if (ib_post_recv(f->peer, &rwr, &rbad) || !kt_post_wc(qp, &swr, &wc) ||
	    wc.status != IB_WC_SUCCESS || kt_poll(f->rcq, &wc))
		return false;
	return wc.status == IB_WC_SUCCESS && wc.wr_id == 22 &&
	       (wc.wc_flags & IB_WC_WITH_INVALIDATE) &&
	       wc.ex.invalidate_rkey == rkey;
}

static bool kt_fr_local_inv(struct ib_qp *qp, u32 rkey)
{
	struct ib_send_wr wr = { .wr_id = 24, .opcode = IB_WR_LOCAL_INV,
				 .ex.invalidate_rkey = rkey };
	struct ib_wc wc;

	return kt_post_wc(qp, &wr, &wc) && wc.status == IB_WC_SUCCESS &&
	       wc.opcode == IB_WC_LOCAL_INV;
}

/*
 * One QP: registration, WRITE and READ through the rkey, remote
 * invalidation, registration again, local invalidation, and then the
 * rkey must fail with a remote access error (which ends the QP).
 */
static void test_frwr_cycle(struct kt_fr *f)
{
	struct ib_qp *qp = kt_fr_qp(f);
	u32 rkey;

	check(qp != NULL, "FRWR: RC QP connected");
	if (!qp)
		return;
	check(kt_fr_reg(qp, f, KT_FR_ACCESS), "FRWR: REG_MR completes");
	check(kt_fr_write_ok(qp, f, 0x5a), "FRWR: RDMA WRITE via fast-reg rkey");
	memset(f->buf + KT_FR_OFF + PAGE_SIZE - 10, 0xc3, 500);
	check(kt_fr_rdma(qp, f, IB_WR_RDMA_READ, f->mr->rkey,
			 PAGE_SIZE - 10, 500) == IB_WC_SUCCESS &&
	      f->src[0] == 0xc3 && f->src[499] == 0xc3,
	      "FRWR: RDMA READ across a page boundary");
	rkey = f->mr->rkey;
	check(kt_fr_send_inv(qp, f, rkey),
	      "FRWR: SEND_WITH_INV, receive has WITH_INVALIDATE and the rkey");
	check(kt_fr_reg(qp, f, KT_FR_ACCESS) && f->mr->rkey != rkey,
	      "FRWR: registered again after remote invalidation, new key");
	check(kt_fr_write_ok(qp, f, 0x6b), "FRWR: RDMA WRITE via the new rkey");
	check(kt_fr_local_inv(qp, f->mr->rkey), "FRWR: LOCAL_INV completes");
	memset(f->src, 0x7c, KT_FR_LEN);
	check(kt_fr_rdma(qp, f, IB_WR_RDMA_WRITE, f->mr->rkey, 0, 64) ==
	      IB_WC_REM_ACCESS_ERR && f->buf[KT_FR_OFF] == 0x6b,
	      "FRWR: invalidated rkey gives REM_ACCESS_ERR, memory untouched");
	kt_fr_qp_destroy(f, qp);
}

/* A fresh QP: the previous key of a registered-again MR is dead. */
static void test_frwr_old_key(struct kt_fr *f)
{
	struct ib_qp *qp = kt_fr_qp(f);
	u32 old = f->mr->rkey;

	if (!qp)
		return;
	check(kt_fr_reg(qp, f, KT_FR_ACCESS), "FRWR: REG_MR on a fresh QP");
	memset(f->src, 0x11, KT_FR_LEN);
	check(kt_fr_rdma(qp, f, IB_WR_RDMA_WRITE, old, 0, 64) ==
	      IB_WC_REM_ACCESS_ERR && f->buf[KT_FR_OFF] == 0x6b,
	      "FRWR: the key before REG_MR gives REM_ACCESS_ERR");
	kt_fr_qp_destroy(f, qp);
}

/* A fresh QP: REG_MR of a valid MR is a memory management error. */
static void test_frwr_reg_valid(struct kt_fr *f)
{
	struct ib_reg_wr reg = {
		.wr = { .wr_id = 25, .opcode = IB_WR_REG_MR },
		.mr = f->mr, .access = KT_FR_ACCESS,
	};
	struct ib_qp *qp = kt_fr_qp(f);
	struct ib_wc wc;

	if (!qp)
		return;
	/* Valid since test_frwr_old_key(): no invalidation came since. */
	ib_update_fast_reg_key(f->mr, ib_inc_rkey(f->mr->rkey));
	reg.key = f->mr->rkey;
	check(kt_post_wc(qp, &reg.wr, &wc) && wc.status == IB_WC_MW_BIND_ERR,
	      "FRWR: REG_MR of a valid MR fails (MW_BIND_ERR)");
	kt_fr_qp_destroy(f, qp);
}

static void test_frwr(struct ib_device *ibdev)
{
	struct ib_cq_init_attr cattr = { .cqe = 64 };
	struct kt_fr f = {};

	check(ibdev->attrs.device_cap_flags & IB_DEVICE_MEM_MGT_EXTENSIONS &&
	      ibdev->attrs.max_fast_reg_page_list_len >= 256,
	      "FRWR: device reports memory management extensions");
	f.pd = ib_alloc_pd(ibdev, 0);
	if (IS_ERR(f.pd))
		return;
	f.cq = ib_create_cq(ibdev, NULL, NULL, NULL, &cattr);
	f.rcq = ib_create_cq(ibdev, NULL, NULL, NULL, &cattr);
	f.buf = kzalloc(KT_FR_OFF + KT_FR_LEN, GFP_KERNEL);
	f.src = kzalloc(KT_FR_LEN, GFP_KERNEL);
	if (IS_ERR(f.cq) || IS_ERR(f.rcq) || !f.buf || !f.src)
		goto out;
	check(IS_ERR(ib_alloc_mr(f.pd, IB_MR_TYPE_MEM_REG, 100000)),
	      "FRWR: ib_alloc_mr beyond the page list limit fails");
	f.mr = ib_alloc_mr(f.pd, IB_MR_TYPE_MEM_REG, 8);
	check(!IS_ERR(f.mr), "FRWR: ib_alloc_mr(MEM_REG, 8)");
	if (IS_ERR(f.mr))
		goto out;
	sg_init_one(&f.sg, f.buf + KT_FR_OFF, KT_FR_LEN);
	if (ib_dma_map_sg(ibdev, &f.sg, 1, DMA_BIDIRECTIONAL) == 1) {
		test_frwr_cycle(&f);
		test_frwr_old_key(&f);
		test_frwr_reg_valid(&f);
		ib_dma_unmap_sg(ibdev, &f.sg, 1, DMA_BIDIRECTIONAL);
	}
	check(!ib_dereg_mr(f.mr), "FRWR: ib_dereg_mr");
out:
	kfree(f.src);
	kfree(f.buf);
	if (!IS_ERR_OR_NULL(f.rcq))
		ib_destroy_cq(f.rcq);
	if (!IS_ERR_OR_NULL(f.cq))
		ib_destroy_cq(f.cq);
	ib_dealloc_pd(f.pd);
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
	test_frwr(ibdev);
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
