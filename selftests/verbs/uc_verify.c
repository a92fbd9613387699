// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * uc_verify - UC semantics, checked one by one.
 *
 *   uc_verify -d DEV1 [-D DEV2] [-g GIDIDX] [-G GIDIDX2] [-m MTU] [-l]
 *
 * A UC QP on DEV1 connected to one on DEV2 (DEV1 by default: loopback),
 * in this process.  Checked, as TAP:
 *
 *  - SENDs of 0 bytes to several MTUs, with and without immediate:
 *    every byte, byte_len, IMM;
 *  - RDMA WRITE and WRITE with immediate (RECV_RDMA_WITH_IMM, byte_len
 *    the WRITE's length) across MTU boundaries;
 *  - a WRITE with a bad rkey and a SEND with no receive WQE are dropped
 *    silently (the sender completes, nothing arrives, rx_uc_dropped
 *    counts them) and the QP goes on;
 *  - with -l, on a lossy link (netem set up by the caller): of a stream
 *    of multi-packet SENDs every one that arrives is whole and in order,
 *    some are lost, and none is ever a mix of two.
 */
#include <arpa/inet.h>
#include <errno.h>
#include <getopt.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include <infiniband/verbs.h>

#include "common.h"

#define BUF		(256 * 1024)
#define SLOT		16384
#define NSLOT		(BUF / SLOT)
#define LOSSY_N		200

static enum ibv_mtu mtu_enum = IBV_MTU_1024;
static bool lossy;

struct side {
	const char *dev;
	struct ibv_context *ctx;
	struct ibv_pd *pd;
	struct ibv_cq *cq;
	struct ibv_mr *mr;
	struct ibv_qp *qp;
	uint8_t *buf;
	union ibv_gid gid;
	int gidx;
};

static struct side snd, rcv;
static uint32_t mtu;

static int side_init(struct side *s, const char *dev, int gidx)
{
	struct ibv_qp_init_attr a = {
		.cap = { .max_send_wr = 256, .max_recv_wr = 256,
			 .max_send_sge = 2, .max_recv_sge = 2 },
		.qp_type = IBV_QPT_UC, .sq_sig_all = 1,
	};

	s->dev = dev;
	s->ctx = open_dev(dev);
	if (!s->ctx)
		return ENODEV;
	s->gidx = gidx;
	if (ibv_query_gid(s->ctx, 1, gidx, &s->gid))
		return errno;
	s->pd = ibv_alloc_pd(s->ctx);
	s->cq = s->pd ? ibv_create_cq(s->ctx, 1024, NULL, NULL, 0) : NULL;
	s->buf = calloc(1, BUF);
	if (!s->cq || !s->buf)
		return ENOMEM;
	s->mr = ibv_reg_mr(s->pd, s->buf, BUF, IBV_ACCESS_LOCAL_WRITE |
			   IBV_ACCESS_REMOTE_WRITE);
	if (!s->mr)
		return errno;
	a.send_cq = a.recv_cq = s->cq;
	s->qp = ibv_create_qp(s->pd, &a);
	return s->qp ? 0 : errno;
}

static int to_rts(struct side *s, struct side *peer)
{
	struct ibv_qp_attr a = {
		.qp_state = IBV_QPS_INIT, .port_num = 1,
		.qp_access_flags = IBV_ACCESS_REMOTE_WRITE,
	};

	if (ibv_modify_qp(s->qp, &a, IBV_QP_STATE | IBV_QP_PKEY_INDEX |
			  IBV_QP_PORT | IBV_QP_ACCESS_FLAGS))
		return errno;
	memset(&a, 0, sizeof(a));
	a.qp_state = IBV_QPS_RTR;
	a.path_mtu = mtu_enum;
	a.dest_qp_num = peer->qp->qp_num;
	a.rq_psn = 0xfffff0;	/* wraps within the first messages */
	a.ah_attr.is_global = 1;
	a.ah_attr.port_num = 1;
	a.ah_attr.grh.dgid = peer->gid;
	a.ah_attr.grh.sgid_index = s->gidx;
	a.ah_attr.grh.hop_limit = 64;
	if (ibv_modify_qp(s->qp, &a, IBV_QP_STATE | IBV_QP_AV |
			  IBV_QP_PATH_MTU | IBV_QP_DEST_QPN | IBV_QP_RQ_PSN))
		return errno;
	memset(&a, 0, sizeof(a));
	a.qp_state = IBV_QPS_RTS;
	a.sq_psn = 0xfffff0;
	if (ibv_modify_qp(s->qp, &a, IBV_QP_STATE | IBV_QP_SQ_PSN))
		return errno;
	return 0;
}

static uint64_t hw_counter(const struct side *s, const char *name)
{
	char path[256];
	unsigned long long v = 0;
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

static uint8_t pat(unsigned int k, unsigned int i)
{
	return (uint8_t)(k * 29 + i * 11 + 3);
}

static void fill(uint8_t *p, unsigned int k, uint32_t len)
{
	uint32_t i;

	for (i = 0; i < len; i++)
		p[i] = pat(k, i);
}

static bool same(const uint8_t *p, unsigned int k, uint32_t len)
{
	uint32_t i;

	for (i = 0; i < len; i++) {
		if (p[i] != pat(k, i)) {
			diag("message %u: byte %u is %#x, want %#x", k, i, p[i],
			     pat(k, i));
			return false;
		}
	}
	return true;
}

static int post_recv(unsigned int slot)
{
	struct ibv_sge sge = { (uintptr_t)(rcv.buf + slot * SLOT), SLOT,
			       rcv.mr->lkey };
	struct ibv_recv_wr wr = { .wr_id = slot, .sg_list = &sge,
				  .num_sge = 1 }, *bad;

	return ibv_post_recv(rcv.qp, &wr, &bad);
}

/* Post one operation of @len bytes from send slot @k % NSLOT. */
static int post_op(enum ibv_wr_opcode op, unsigned int k, uint32_t len,
		   uint64_t raddr, uint32_t rkey)
{
	uint8_t *p = snd.buf + (k % NSLOT) * SLOT;
	uint32_t half = len / 3;
	struct ibv_sge sge[2] = {
		{ (uintptr_t)p, half, snd.mr->lkey },
		{ (uintptr_t)p + half, len - half, snd.mr->lkey },
	};
	struct ibv_send_wr wr = {
		.wr_id = k, .sg_list = sge, .num_sge = 2, .opcode = op,
		.imm_data = htonl(0x7700 + k),
	}, *bad;

	fill(p, k, len);
	wr.wr.rdma.remote_addr = raddr;
	wr.wr.rdma.rkey = rkey;
	return ibv_post_send(snd.qp, &wr, &bad);
}

static bool send_done(unsigned int k)
{
	struct ibv_wc wc;

	if (poll_one_ms(snd.cq, &wc, 5000)) {
		diag("op %u: no send completion", k);
		return false;
	}
	if (wc.status != IBV_WC_SUCCESS || wc.wr_id != k) {
		diag("op %u: send status %s wr_id %llu", k,
		     ibv_wc_status_str(wc.status), (unsigned long long)wc.wr_id);
		return false;
	}
	return true;
}

static bool recv_done(unsigned int slot, enum ibv_wc_opcode op, uint32_t len,
		      bool imm, unsigned int k)
{
	struct ibv_wc wc;

	if (poll_one_ms(rcv.cq, &wc, 5000)) {
		diag("op %u: no receive completion", k);
		return false;
	}
	if (wc.status != IBV_WC_SUCCESS || wc.opcode != op ||
	    wc.wr_id != slot || wc.byte_len != len ||
	    !!(wc.wc_flags & IBV_WC_WITH_IMM) != imm ||
	    (imm && wc.imm_data != htonl(0x7700 + k))) {
		diag("op %u: status %s opcode %d wr_id %llu len %u (want %u) flags %#x",
		     k, ibv_wc_status_str(wc.status), wc.opcode,
		     (unsigned long long)wc.wr_id, wc.byte_len, len,
		     wc.wc_flags);
		return false;
	}
	return true;
}

static bool send_one(unsigned int k, uint32_t len, bool imm)
{
	unsigned int slot = k % NSLOT;

	return !post_recv(slot) &&
	       !post_op(imm ? IBV_WR_SEND_WITH_IMM : IBV_WR_SEND, k, len, 0, 0) &&
	       send_done(k) && recv_done(slot, IBV_WC_RECV, len, imm, k) &&
	       same(rcv.buf + slot * SLOT, k, len);
}

static void test_send(void)
{
	uint32_t sizes[] = { 0, 1, mtu - 1, mtu, mtu + 1, 3 * mtu + 7, SLOT };
	unsigned int i, k = 1;

	for (i = 0; i < sizeof(sizes) / sizeof(sizes[0]); i++, k++)
		tap(send_one(k, sizes[i], false), "SEND of %u bytes", sizes[i]);
	tap(send_one(k++, 2 * mtu + 5, true), "SEND with immediate, 3 packets");
}

static void test_write(void)
{
	uint64_t dst = (uintptr_t)rcv.buf + 8 * SLOT + 13;
	uint32_t len = 5 * mtu + 100;
	unsigned int k = 20;

	/* A WRITE, then a SEND behind it: UC keeps their order. */
	tap(!post_op(IBV_WR_RDMA_WRITE, k, len, dst, rcv.mr->rkey) &&
	    send_done(k) && send_one(k + 1, 10, false) &&
	    same((uint8_t *)(uintptr_t)dst, k, len),
	    "RDMA WRITE of %u bytes lands", len);
	k += 2;
	dst += 7;
	tap(!post_recv(0) &&
	    !post_op(IBV_WR_RDMA_WRITE_WITH_IMM, k, len, dst, rcv.mr->rkey) &&
	    send_done(k) &&
	    recv_done(0, IBV_WC_RECV_RDMA_WITH_IMM, len, true, k) &&
	    same((uint8_t *)(uintptr_t)dst, k, len),
	    "RDMA WRITE with immediate: RECV_RDMA_WITH_IMM, data in place");
}

static void test_drops(void)
{
	uint64_t before = hw_counter(&rcv, "rx_uc_dropped");
	unsigned int k = 30;
	struct ibv_wc wc;

	tap(!post_op(IBV_WR_RDMA_WRITE, k, 3000, (uintptr_t)rcv.buf,
		     rcv.mr->rkey ^ 0x80) && send_done(k),
	    "a WRITE with a bad rkey completes at the sender");
	tap(send_one(k + 1, 100, false),
	    "... is dropped silently, and the QP goes on");
	tap(hw_counter(&rcv, "rx_uc_dropped") == before + 1,
	    "... and counted in rx_uc_dropped");
	k += 2;
	tap(!post_op(IBV_WR_SEND, k, 2000, 0, 0) && send_done(k) &&
	    poll_one_ms(rcv.cq, &wc, 300) &&
	    hw_counter(&rcv, "rx_uc_dropped") == before + 2,
	    "a SEND with no receive WQE is dropped and counted");
	tap(send_one(k + 1, 2000, false), "the next SEND arrives");
}

/* Multi-packet SENDs over a lossy link: whole or not at all. */
static void test_lossy(void)
{
	uint32_t len = 3 * mtu - 1;
	unsigned int k, got = 0, last = 0, posted = 0;
	struct ibv_wc wc;
	bool ok = true;

	/* One slot per message: a lost message's WQE takes the next. */
	for (k = 0; k < NSLOT; k++, posted++)
		ok &= !post_recv(k);
	for (k = 1; k <= LOSSY_N && ok; k++) {
		ok = !post_op(IBV_WR_SEND, k, len, 0, 0) && send_done(k);
		/* The first 4 bytes say which message filled a buffer. */
		while (ok && !poll_one_ms(rcv.cq, &wc, 0)) {
			uint8_t *p = rcv.buf + wc.wr_id * SLOT;
			unsigned int id;

			ok = wc.status == IBV_WC_SUCCESS && wc.byte_len == len;
			for (id = last + 1; id <= k && p[0] != pat(id, 0); id++)
				;
			ok = ok && id <= k && same(p, id, len);
			last = id;
			got++;
			ok = ok && !post_recv(wc.wr_id);
		}
		if (!ok)
			diag("message %u: a receive that is not a whole message in order",
			     k);
	}
	usleep(500000);
	while (ok && !poll_one_ms(rcv.cq, &wc, 0)) {
		ok = wc.status == IBV_WC_SUCCESS && wc.byte_len == len;
		got++;
	}
	tap(ok, "every message that arrives is whole, in order (%u of %u)",
	    got, LOSSY_N);
	tap(got > 0 && got < LOSSY_N, "some arrived, some were lost");
}

int main(int argc, char **argv)
{
	int c, err;

	while ((c = getopt(argc, argv, "d:D:g:G:m:l")) != -1) {
		if (dev_opt(c, optarg))
			continue;
		switch (c) {
		case 'm':
			mtu_enum = atoi(optarg) == 256 ? IBV_MTU_256 :
				   atoi(optarg) == 512 ? IBV_MTU_512 :
				   atoi(optarg) == 2048 ? IBV_MTU_2048 :
				   IBV_MTU_1024;
			break;
		case 'l':
			lossy = true;
			break;
		default:
			fprintf(stderr, "usage: %s -d DEV [-D DEV2] [-g GIDX] [-G GIDX2] [-m MTU] [-l]\n",
				argv[0]);
			return 2;
		}
	}
	if (!dev_opts_done())
		return 2;
	mtu = 128U << mtu_enum;

	err = side_init(&snd, dev_name[0], gid_idx[0]);
	if (!err)
		err = side_init(&rcv, dev_name[1], gid_idx[1]);
	if (!err)
		err = to_rts(&rcv, &snd);
	if (!err)
		err = to_rts(&snd, &rcv);
	tap(!err, "two UC QPs connected (%s)", strerror(err));
	if (err) {
		printf("1..%d\n", tap_n);
		return 1;
	}
	if (lossy) {
		test_lossy();
	} else {
		test_send();
		test_write();
		test_drops();
	}
	printf("1..%d\n", tap_n);
	return tap_failed ? 1 : 0;
}
