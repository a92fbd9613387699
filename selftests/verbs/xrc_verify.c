// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * xrc_verify - XRC, checked one operation at a time.
 *
 *   xrc_verify -d DEV1 [-D DEV2] [-g GIDIDX] [-G GIDIDX2]
 *
 * The receiving side (DEV2, DEV1 by default: loopback) has an XRC domain
 * with two XRC SRQs, A and B, each completing on its own CQ, and the XRC
 * TGT QPs T1 and T2; a second domain holds SRQ C.  The sending side
 * (DEV1) has the XRC INI QPs Q1 -> T1 and Q2 -> T2 (a TGT QP is one end
 * of one connection, so each INI QP has its own), all in this process.
 * Checked, as TAP:
 *
 *  - both INI QPs reach both SRQs through their TGT QPs: SEND and
 *    SEND_WITH_IMM, one packet and several, byte for byte, each receive
 *    on the named SRQ's CQ with the TGT QP's number;
 *  - RDMA WRITE and WRITE_WITH_IMM (which takes a WQE of the SRQ it
 *    names) and RDMA READ, through the SRQ's protection domain;
 *  - a second context opens the domain by its file and the TGT QP by
 *    number (ibv_open_qp) and sees it;
 *  - a message naming an SRQ of another domain, or an SRQ number that
 *    does not exist, fails at the sender with a remote invalid request
 *    error, delivers nothing, and counts in rx_xrc_bad_srq; the other
 *    connections carry on.
 */
#include <errno.h>
#include <fcntl.h>
#include <getopt.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>
#include <arpa/inet.h>

#include <infiniband/verbs.h>

#include "common.h"

#define NTGT		3	/* T1, T2, and T3 for the bad request */
#define NSRQ		3	/* A, B (domain 1), C (domain 2) */
#define SRQ_WR		32
#define SLOT		4096	/* bytes per WQE; messages up to this */
#define BUF		(SRQ_WR * SLOT)
#define PSN		0x2000


struct side {
	const char *dev;
	struct ibv_context *ctx;
	struct ibv_pd *pd;
	struct ibv_mr *mr;
	uint8_t *buf;
	union ibv_gid gid;
	int gidx;
};

static struct side snd, rcv;
/* Sender: the INI QPs and their CQ. */
static struct ibv_cq *scq;
static struct ibv_qp *ini[NTGT];
/* Receiver: domains, SRQs with a CQ each, TGT QPs, a WRITE target. */
static struct ibv_xrcd *xrcd, *xrcd2;
static struct ibv_srq *srq[NSRQ];
static struct ibv_cq *rcq[NSRQ];
static struct ibv_qp *tgt[NTGT];
static uint32_t srqn[NSRQ];
static uint8_t *target;
static struct ibv_mr *target_mr;
static char xrcd_path[64];
static int xrcd_fd = -1;
static uint64_t posted[NSRQ];	/* WQEs posted per SRQ, for wr_ids */

static int side_init(struct side *s, const char *dev, int gidx)
{
	s->dev = dev;
	s->ctx = open_dev(dev);
	if (!s->ctx)
		return ENODEV;
	s->gidx = gidx;
	if (ibv_query_gid(s->ctx, 1, gidx, &s->gid))
		return errno;
	s->pd = ibv_alloc_pd(s->ctx);
	s->buf = calloc(1, BUF);
	if (!s->pd || !s->buf)
		return ENOMEM;
	s->mr = ibv_reg_mr(s->pd, s->buf, BUF, IBV_ACCESS_LOCAL_WRITE);
	return s->mr ? 0 : errno;
}

static uint64_t hw_counter(const struct side *s, const char *name)
{
	unsigned long long v = 0;
	char path[256];
	FILE *f;

	/* ib_core serves a cached copy younger than its lifespan (10 ms). */
	usleep(50000);
	snprintf(path, sizeof(path),
		 "/sys/class/infiniband/%s/ports/1/hw_counters/%s", s->dev,
		 name);
	f = fopen(path, "r");
	if (!f)
		return ~0ULL;
	if (fscanf(f, "%llu", &v) != 1)
		v = ~0ULL;
	fclose(f);
	return v;
}

/* ------------------------------------------------------------------ */
/* Setup                                                               */
/* ------------------------------------------------------------------ */

static struct ibv_xrcd *xrcd_open(struct ibv_context *ctx, int fd)
{
	struct ibv_xrcd_init_attr a = {
		.comp_mask = IBV_XRCD_INIT_ATTR_FD | IBV_XRCD_INIT_ATTR_OFLAGS,
		.fd = fd, .oflags = O_CREAT,
	};

	return ibv_open_xrcd(ctx, &a);
}

static struct ibv_srq *xsrq_create(struct ibv_xrcd *x, struct ibv_cq *cq)
{
	struct ibv_srq_init_attr_ex a = {
		.attr = { .max_wr = SRQ_WR, .max_sge = 2 },
		.comp_mask = IBV_SRQ_INIT_ATTR_TYPE | IBV_SRQ_INIT_ATTR_PD |
			     IBV_SRQ_INIT_ATTR_XRCD | IBV_SRQ_INIT_ATTR_CQ,
		.srq_type = IBV_SRQT_XRC, .pd = rcv.pd, .xrcd = x, .cq = cq,
	};

	return ibv_create_srq_ex(rcv.ctx, &a);
}

static struct ibv_qp *tgt_create(void)
{
	struct ibv_qp_init_attr_ex a = {
		.qp_type = IBV_QPT_XRC_RECV,
		.comp_mask = IBV_QP_INIT_ATTR_XRCD, .xrcd = xrcd,
	};

	return ibv_create_qp_ex(rcv.ctx, &a);
}

static struct ibv_qp *ini_create(void)
{
	struct ibv_qp_init_attr_ex a = {
		.qp_type = IBV_QPT_XRC_SEND, .send_cq = scq, .sq_sig_all = 1,
		.cap = { .max_send_wr = 16, .max_send_sge = 2 },
		.comp_mask = IBV_QP_INIT_ATTR_PD, .pd = snd.pd,
	};

	return ibv_create_qp_ex(snd.ctx, &a);
}

static int qp_init(struct ibv_qp *qp, int access)
{
	struct ibv_qp_attr a = {
		.qp_state = IBV_QPS_INIT, .port_num = 1,
		.qp_access_flags = access,
	};

	return ibv_modify_qp(qp, &a, IBV_QP_STATE | IBV_QP_PKEY_INDEX |
			     IBV_QP_PORT | IBV_QP_ACCESS_FLAGS) ? errno : 0;
}

static int qp_rtr(struct ibv_qp *qp, struct side *peer, uint32_t dqpn,
		  int gidx)
{
	struct ibv_qp_attr a = {
		.qp_state = IBV_QPS_RTR, .path_mtu = IBV_MTU_1024,
		.dest_qp_num = dqpn, .rq_psn = PSN, .max_dest_rd_atomic = 4,
		.min_rnr_timer = 1,
		.ah_attr = { .is_global = 1, .port_num = 1,
			     .grh = { .dgid = peer->gid, .sgid_index = gidx,
				      .hop_limit = 64 } },
	};

	return ibv_modify_qp(qp, &a, IBV_QP_STATE | IBV_QP_AV |
			     IBV_QP_PATH_MTU | IBV_QP_DEST_QPN |
			     IBV_QP_RQ_PSN | IBV_QP_MAX_DEST_RD_ATOMIC |
			     IBV_QP_MIN_RNR_TIMER) ? errno : 0;
}

static int ini_rts(struct ibv_qp *qp)
{
	struct ibv_qp_attr a = {
		.qp_state = IBV_QPS_RTS, .sq_psn = PSN, .timeout = 14,
		.retry_cnt = 7, .rnr_retry = 7, .max_rd_atomic = 4,
	};

	return ibv_modify_qp(qp, &a, IBV_QP_STATE | IBV_QP_SQ_PSN |
			     IBV_QP_TIMEOUT | IBV_QP_RETRY_CNT |
			     IBV_QP_RNR_RETRY | IBV_QP_MAX_QP_RD_ATOMIC) ?
	       errno : 0;
}

/* INI QP @i -> TGT QP @i; the TGT goes to RTR only, as it may. */
static int connect_pair(int i)
{
	int access = IBV_ACCESS_REMOTE_WRITE | IBV_ACCESS_REMOTE_READ;
	int err;

	err = qp_init(tgt[i], access);
	if (!err)
		err = qp_rtr(tgt[i], &snd, ini[i]->qp_num, rcv.gidx);
	if (!err)
		err = qp_init(ini[i], 0);
	if (!err)
		err = qp_rtr(ini[i], &rcv, tgt[i]->qp_num, snd.gidx);
	if (!err)
		err = ini_rts(ini[i]);
	return err;
}

static int srq_post(int s, uint64_t wr_id)
{
	struct ibv_sge sge[2] = {
		{ .addr = (uintptr_t)(rcv.buf + (wr_id % SRQ_WR) * SLOT),
		  .length = 1000, .lkey = rcv.mr->lkey },
		{ .addr = (uintptr_t)(rcv.buf + (wr_id % SRQ_WR) * SLOT + 1000),
		  .length = SLOT - 1000, .lkey = rcv.mr->lkey },
	};
	struct ibv_recv_wr wr = { .wr_id = wr_id, .sg_list = sge,
				  .num_sge = 2 }, *bad;

	return ibv_post_srq_recv(srq[s], &wr, &bad);
}

/*
 * One WQE for the next message to SRQ @s, or 0: its wr_id names the SRQ
 * (high word, from 1) and its buffer slot (low word, 10 per SRQ).
 */
static uint64_t srq_next(int s)
{
	uint64_t id = (uint64_t)(s + 1) << 32 | (s * 10 + posted[s]++ % 10);

	return srq_post(s, id) ? 0 : id;
}

static int setup_rcv(void)
{
	int i;

	snprintf(xrcd_path, sizeof(xrcd_path), "/tmp/xrc_verify.%d",
		 (int)getpid());
	xrcd_fd = open(xrcd_path, O_RDONLY | O_CREAT, 0600);
	xrcd = xrcd_fd >= 0 ? xrcd_open(rcv.ctx, xrcd_fd) : NULL;
	xrcd2 = xrcd_open(rcv.ctx, -1);
	tap(xrcd && xrcd2, "two XRC domains (one by file)");
	if (!xrcd || !xrcd2)
		return errno ? errno : EIO;
	for (i = 0; i < NSRQ; i++) {
		rcq[i] = ibv_create_cq(rcv.ctx, 64, NULL, NULL, 0);
		srq[i] = rcq[i] ? xsrq_create(i < 2 ? xrcd : xrcd2, rcq[i]) :
				  NULL;
		if (!srq[i] || ibv_get_srq_num(srq[i], &srqn[i]))
			return errno ? errno : EIO;
	}
	tap(srqn[0] != srqn[1] && srqn[1] != srqn[2] && srqn[0] != srqn[2],
	    "three XRC SRQs, numbers %u %u %u", srqn[0], srqn[1], srqn[2]);
	target = calloc(1, SLOT);
	target_mr = target ? ibv_reg_mr(rcv.pd, target, SLOT,
					IBV_ACCESS_LOCAL_WRITE |
					IBV_ACCESS_REMOTE_WRITE |
					IBV_ACCESS_REMOTE_READ) : NULL;
	return target_mr ? 0 : ENOMEM;
}

static int setup(void)
{
	int i, err;

	err = side_init(&snd, dev_name[0], gid_idx[0]);
	if (!err)
		err = side_init(&rcv, dev_name[1], gid_idx[1]);
	if (!err)
		err = setup_rcv();
	if (err)
		return err;
	scq = ibv_create_cq(snd.ctx, 64, NULL, NULL, 0);
	for (i = 0; i < NTGT && scq; i++) {
		tgt[i] = tgt_create();
		ini[i] = ini_create();
		if (!tgt[i] || !ini[i])
			return errno ? errno : EIO;
		err = connect_pair(i);
		if (err)
			return err;
	}
	tap(scq, "%d XRC INI QPs connected to %d TGT QPs", NTGT, NTGT);
	return scq ? 0 : ENOMEM;
}

/* ------------------------------------------------------------------ */
/* Traffic                                                             */
/* ------------------------------------------------------------------ */

static uint8_t msg_byte(unsigned int k, unsigned int i)
{
	return (uint8_t)(k * 29 + i * 13 + 5);
}

/* Post one work request on INI QP @q and wait for its completion. */
static bool ini_post(int q, struct ibv_send_wr *wr, enum ibv_wc_status want)
{
	struct ibv_send_wr *bad;
	struct ibv_wc wc;

	if (ibv_post_send(ini[q], wr, &bad)) {
		diag("post_send on INI %d: %s", q, strerror(errno));
		return false;
	}
	if (poll_one_ms(scq, &wc, 10000)) {
		diag("INI %d: no send completion", q);
		return false;
	}
	if (wc.status != want || wc.wr_id != wr->wr_id) {
		diag("INI %d: send status %s (want %s), wr_id %llu", q,
		     ibv_wc_status_str(wc.status), ibv_wc_status_str(want),
		     (unsigned long long)wc.wr_id);
		return false;
	}
	return true;
}

/* The receive on SRQ @s's CQ: from TGT @q, the WQE @id, @len bytes. */
static bool srq_recv(int s, int q, uint64_t id, uint32_t len,
		     enum ibv_wc_opcode op, const uint32_t *imm)
{
	struct ibv_wc wc;

	if (poll_one_ms(rcq[s], &wc, 10000)) {
		diag("SRQ %d: no receive completion", s);
		return false;
	}
	if (wc.status != IBV_WC_SUCCESS || wc.opcode != op ||
	    wc.wr_id != id || wc.byte_len != len ||
	    wc.qp_num != tgt[q]->qp_num ||
	    !!(wc.wc_flags & IBV_WC_WITH_IMM) != !!imm ||
	    (imm && ntohl(wc.imm_data) != *imm)) {
		diag("SRQ %d: status %s opcode %d wr_id %#llx (want %#llx) len %u (want %u) qp %u (want %u) imm %#x",
		     s, ibv_wc_status_str(wc.status), wc.opcode,
		     (unsigned long long)wc.wr_id, (unsigned long long)id,
		     wc.byte_len, len, wc.qp_num, tgt[q]->qp_num,
		     ntohl(wc.imm_data));
		return false;
	}
	return true;
}

static bool bytes_ok(const uint8_t *p, unsigned int k, uint32_t len)
{
	uint32_t i;

	for (i = 0; i < len; i++) {
		if (p[i] != msg_byte(k, i)) {
			diag("message %u: byte %u is %#x, want %#x", k, i,
			     p[i], msg_byte(k, i));
			return false;
		}
	}
	return true;
}

/* Message @k of @len bytes from INI @q to SRQ @s, SEND or with IMM. */
static bool xsend(int q, int s, unsigned int k, uint32_t len, bool imm)
{
	uint8_t *src = snd.buf + (k % SRQ_WR) * SLOT;
	struct ibv_sge sge = { .addr = (uintptr_t)src, .length = len,
			       .lkey = snd.mr->lkey };
	struct ibv_send_wr wr = {
		.wr_id = k, .sg_list = &sge, .num_sge = 1,
		.opcode = imm ? IBV_WR_SEND_WITH_IMM : IBV_WR_SEND,
		.imm_data = htonl(0xab000000 | k),
	};
	uint32_t want_imm = 0xab000000 | k;
	uint64_t id = srq_next(s);
	uint32_t i;

	wr.qp_type.xrc.remote_srqn = srqn[s];
	for (i = 0; i < len; i++)
		src[i] = msg_byte(k, i);
	if (!id || !ini_post(q, &wr, IBV_WC_SUCCESS) ||
	    !srq_recv(s, q, id, len, IBV_WC_RECV, imm ? &want_imm : NULL))
		return false;
	return bytes_ok(rcv.buf + (id % SRQ_WR) * SLOT, k, len);
}

/*
 * RDMA WRITE of @len bytes from INI @q, through SRQ @s (whose PD holds
 * the target MR); with IMM it also takes a WQE of @s.
 */
static bool xwrite(int q, int s, unsigned int k, uint32_t len, bool imm)
{
	uint8_t *src = snd.buf + (k % SRQ_WR) * SLOT;
	struct ibv_sge sge = { .addr = (uintptr_t)src, .length = len,
			       .lkey = snd.mr->lkey };
	struct ibv_send_wr wr = {
		.wr_id = k, .sg_list = &sge, .num_sge = 1,
		.opcode = imm ? IBV_WR_RDMA_WRITE_WITH_IMM : IBV_WR_RDMA_WRITE,
		.imm_data = htonl(0xcd000000 | k),
		.wr.rdma = { .remote_addr = (uintptr_t)target,
			     .rkey = target_mr->rkey },
	};
	uint32_t want_imm = 0xcd000000 | k;
	uint64_t id = imm ? srq_next(s) : 1;
	uint32_t i;

	wr.qp_type.xrc.remote_srqn = srqn[s];
	memset(target, 0, SLOT);
	for (i = 0; i < len; i++)
		src[i] = msg_byte(k, i);
	if (!id || !ini_post(q, &wr, IBV_WC_SUCCESS))
		return false;
	if (imm && !srq_recv(s, q, id, len, IBV_WC_RECV_RDMA_WITH_IMM,
			     &want_imm))
		return false;
	return bytes_ok(target, k, len) && !target[len];
}

/* RDMA READ of @len bytes of the target, by INI @q through SRQ @s. */
static bool xread(int q, int s, unsigned int k, uint32_t len)
{
	uint8_t *dst = snd.buf + (k % SRQ_WR) * SLOT;
	struct ibv_sge sge = { .addr = (uintptr_t)dst, .length = len,
			       .lkey = snd.mr->lkey };
	struct ibv_send_wr wr = {
		.wr_id = k, .sg_list = &sge, .num_sge = 1,
		.opcode = IBV_WR_RDMA_READ,
		.wr.rdma = { .remote_addr = (uintptr_t)target,
			     .rkey = target_mr->rkey },
	};
	uint32_t i;

	wr.qp_type.xrc.remote_srqn = srqn[s];
	for (i = 0; i < len; i++)
		target[i] = msg_byte(k, i);
	memset(dst, 0, len);
	return ini_post(q, &wr, IBV_WC_SUCCESS) && bytes_ok(dst, k, len);
}

/* ------------------------------------------------------------------ */
/* Tests                                                               */
/* ------------------------------------------------------------------ */

static void test_sends(void)
{
	tap(xsend(0, 0, 1, 100, false), "SEND Q1 -> T1 -> SRQ A, 100 B");
	tap(xsend(0, 1, 2, 300, false), "SEND Q1 -> T1 -> SRQ B, 300 B");
	tap(xsend(1, 0, 3, 64, false), "SEND Q2 -> T2 -> SRQ A, 64 B");
	tap(xsend(1, 1, 4, 1, false), "SEND Q2 -> T2 -> SRQ B, 1 B");
	tap(xsend(0, 0, 5, 3000, false),
	    "SEND Q1 -> SRQ A, 3000 B (3 packets, across two SGEs)");
	tap(xsend(1, 1, 6, SLOT, false), "SEND Q2 -> SRQ B, 4096 B");
	tap(xsend(1, 1, 7, 0, false), "SEND Q2 -> SRQ B, empty");
	tap(xsend(0, 1, 8, 200, true), "SEND_WITH_IMM Q1 -> SRQ B");
	tap(xsend(1, 0, 9, 2500, true), "SEND_WITH_IMM Q2 -> SRQ A, 3 packets");
}

static void test_rdma(void)
{
	tap(xwrite(0, 0, 10, 777, false), "RDMA WRITE Q1 via SRQ A's PD");
	tap(xwrite(1, 1, 11, 3500, false), "RDMA WRITE Q2, 3500 B");
	tap(xwrite(0, 1, 12, 1500, true),
	    "RDMA WRITE_WITH_IMM Q1 -> WQE of SRQ B");
	tap(xread(1, 0, 13, 2100), "RDMA READ Q2, 2100 B");
}

/* A second context: the domain by its file, the TGT QP by number. */
static void test_open_qp(void)
{
	struct ibv_qp_open_attr o = {
		.comp_mask = IBV_QP_OPEN_ATTR_XRCD | IBV_QP_OPEN_ATTR_NUM |
			     IBV_QP_OPEN_ATTR_TYPE,
		.qp_num = tgt[0]->qp_num, .qp_type = IBV_QPT_XRC_RECV,
	};
	struct ibv_qp_init_attr init;
	struct ibv_context *ctx2;
	struct ibv_qp_attr attr;
	struct ibv_xrcd *x2;
	struct ibv_qp *qp;
	bool ok = false;

	ctx2 = open_dev(rcv.dev);
	x2 = ctx2 ? xrcd_open(ctx2, xrcd_fd) : NULL;
	o.xrcd = x2;
	qp = x2 ? ibv_open_qp(ctx2, &o) : NULL;
	if (qp)
		ok = !ibv_query_qp(qp, &attr, IBV_QP_STATE, &init) &&
		     attr.qp_state == IBV_QPS_RTR &&
		     init.qp_type == IBV_QPT_XRC_RECV;
	tap(ok, "another context opens TGT QP %u through the domain's file",
	    tgt[0]->qp_num);
	if (qp)
		tap(!ibv_destroy_qp(qp), "its handle closes; the QP lives on");
	if (x2)
		ibv_close_xrcd(x2);
	if (ctx2)
		ibv_close_device(ctx2);
	tap(xsend(0, 0, 14, 128, false), "Q1 -> T1 still delivers");
}

/*
 * Q3 sends to SRQ number @n, which T3 must refuse (what: why): the SEND
 * fails with a remote invalid request, rx_xrc_bad_srq counts it, nothing
 * reaches any SRQ, and Q1 and Q2 carry on (messages @k and @k + 1).
 */
static void bad_srq_send(uint32_t n, uint64_t wr_id, unsigned int k,
			 const char *what)
{
	uint64_t before = hw_counter(&rcv, "rx_xrc_bad_srq");
	struct ibv_sge sge = { .addr = (uintptr_t)snd.buf, .length = 64,
			       .lkey = snd.mr->lkey };
	struct ibv_send_wr wr = { .wr_id = wr_id, .sg_list = &sge,
				  .num_sge = 1, .opcode = IBV_WR_SEND };
	struct ibv_wc wc;

	wr.qp_type.xrc.remote_srqn = n;
	tap(ini_post(2, &wr, IBV_WC_REM_INV_REQ_ERR),
	    "SEND naming %s: remote invalid request", what);
	tap(hw_counter(&rcv, "rx_xrc_bad_srq") == before + 1,
	    "rx_xrc_bad_srq counted it (%llu -> %llu)",
	    (unsigned long long)before,
	    (unsigned long long)hw_counter(&rcv, "rx_xrc_bad_srq"));
	tap(poll_one_ms(rcq[2], &wc, 200) && poll_one_ms(rcq[0], &wc, 10) &&
	    poll_one_ms(rcq[1], &wc, 10), "nothing was delivered anywhere");
	tap(xsend(0, 0, k, 512, false) && xsend(1, 1, k + 1, 512, true),
	    "Q1 and Q2 carry on");
}

/* Q3 -> T3 names SRQ C, of the other domain. */
static void test_bad_srq(void)
{
	/* A WQE on SRQ C: had it been used, we would see it complete. */
	srq_next(2);
	bad_srq_send(srqn[2], 99, 15, "another domain's SRQ");
}

/* Q3 -> T3 anew (the last test took both to ERROR), naming no SRQ at all. */
static void test_unknown_srq(void)
{
	struct ibv_qp_attr reset = { .qp_state = IBV_QPS_RESET };
	uint32_t unknown = 0xfffff0;
	char what[64];
	int i;

	/* A number no SRQ has (the highest are not handed out this early). */
	for (i = 0; i < NSRQ; i++)
		if (srqn[i] == unknown)
			unknown--;
	if (!tap(!ibv_modify_qp(ini[2], &reset, IBV_QP_STATE) &&
		 !ibv_modify_qp(tgt[2], &reset, IBV_QP_STATE) &&
		 !connect_pair(2), "Q3 -> T3 reconnected"))
		return;
	snprintf(what, sizeof(what), "SRQ %#x, which does not exist", unknown);
	bad_srq_send(unknown, 98, 17, what);
}

static void usage(const char *argv0)
{
	fprintf(stderr, "usage: %s -d DEV [-D DEV2] [-g GIDX] [-G GIDX2]\n",
		argv0);
}

int main(int argc, char **argv)
{
	int c, err;

	while ((c = getopt(argc, argv, "d:D:g:G:")) != -1) {
		if (dev_opt(c, optarg))
			continue;
		switch (c) {
		default:
			usage(argv[0]);
			return 2;
		}
	}
	if (!dev_opts_done()) {
		usage(argv[0]);
		return 2;
	}

	err = setup();
	if (err) {
		tap(false, "setup: %s", strerror(err));
	} else {
		test_sends();
		test_rdma();
		test_open_qp();
		test_bad_srq();
		test_unknown_srq();
	}
	if (xrcd_fd >= 0) {
		close(xrcd_fd);
		unlink(xrcd_path);
	}
	printf("1..%d\n", tap_n);
	return tap_failed ? 1 : 0;
}
