// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * srq_verify - shared receive queue semantics, checked one by one.
 *
 *   srq_verify -d DEV1 [-D DEV2] [-g GIDIDX] [-G GIDIDX2]
 *
 * NQP RC QPs on the receiving side (DEV2, DEV1 by default: loopback)
 * share one SRQ; each is connected to a sender QP on DEV1, all in this
 * process.  Checked, as TAP:
 *
 *  - create/query/modify: the sizes, an unarmed limit, refusals;
 *  - post_recv on a QP of an SRQ is refused;
 *  - the limit event fires exactly once, when the count of WQEs on the
 *    SRQ drops below the armed limit, and disarms the limit;
 *  - every message lands in the next SRQ WQE, whatever QP it came on,
 *    with its bytes, length, QP number and wr_id right;
 *  - a QP moved to ERROR reports LAST_WQE_REACHED and does not flush
 *    the WQEs still on the SRQ: the other QPs receive into them;
 *  - a message to an empty SRQ waits (RNR) and lands once a WQE is
 *    posted, with no system call for the post;
 *  - the SRQ cannot be destroyed while QPs use it.
 */
#include <errno.h>
#include <getopt.h>
#include <poll.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>
#include <fcntl.h>

#include <infiniband/verbs.h>

#include "common.h"

#define NQP		3
#define SRQ_WR		32
#define POSTED		12	/* WQEs posted before the limit test */
#define LIMIT		8
#define SLOT		256	/* bytes per message and per WQE */
#define WRID_BASE	100


struct side {
	struct ibv_context *ctx;
	struct ibv_pd *pd;
	struct ibv_cq *cq;
	struct ibv_mr *mr;
	uint8_t *buf;
	union ibv_gid gid;
	int gidx;
	struct ibv_qp *qp[NQP];
};

static struct side snd, rcv;
static struct ibv_srq *srq;

static int side_init(struct side *s, const char *dev, int gidx)
{
	s->ctx = open_dev(dev);
	if (!s->ctx)
		return ENODEV;
	s->gidx = gidx;
	if (ibv_query_gid(s->ctx, 1, gidx, &s->gid))
		return errno;
	s->pd = ibv_alloc_pd(s->ctx);
	s->cq = s->pd ? ibv_create_cq(s->ctx, 256, NULL, NULL, 0) : NULL;
	s->buf = calloc(SRQ_WR, SLOT);
	if (!s->cq || !s->buf)
		return ENOMEM;
	s->mr = ibv_reg_mr(s->pd, s->buf, SRQ_WR * SLOT,
			   IBV_ACCESS_LOCAL_WRITE);
	return s->mr ? 0 : errno;
}

static struct ibv_qp *qp_create(struct side *s, struct ibv_srq *on)
{
	struct ibv_qp_init_attr a = {
		.send_cq = s->cq, .recv_cq = s->cq, .srq = on,
		.cap = { .max_send_wr = 16, .max_recv_wr = on ? 0 : 1,
			 .max_send_sge = 1, .max_recv_sge = on ? 0 : 1 },
		.qp_type = IBV_QPT_RC, .sq_sig_all = 1,
	};

	return ibv_create_qp(s->pd, &a);
}

static int qp_to_rts(struct ibv_qp *qp, struct side *peer, uint32_t dqpn,
		     int gidx)
{
	struct ibv_qp_attr a = {
		.qp_state = IBV_QPS_INIT, .port_num = 1,
		.qp_access_flags = IBV_ACCESS_LOCAL_WRITE,
	};

	if (ibv_modify_qp(qp, &a, IBV_QP_STATE | IBV_QP_PKEY_INDEX |
			  IBV_QP_PORT | IBV_QP_ACCESS_FLAGS))
		return errno;
	memset(&a, 0, sizeof(a));
	a.qp_state = IBV_QPS_RTR;
	a.path_mtu = IBV_MTU_1024;
	a.dest_qp_num = dqpn;
	a.rq_psn = 0x1000;
	a.max_dest_rd_atomic = 1;
	a.min_rnr_timer = 1;
	a.ah_attr.is_global = 1;
	a.ah_attr.port_num = 1;
	a.ah_attr.grh.dgid = peer->gid;
	a.ah_attr.grh.sgid_index = gidx;
	a.ah_attr.grh.hop_limit = 64;
	if (ibv_modify_qp(qp, &a, IBV_QP_STATE | IBV_QP_AV | IBV_QP_PATH_MTU |
			  IBV_QP_DEST_QPN | IBV_QP_RQ_PSN |
			  IBV_QP_MAX_DEST_RD_ATOMIC | IBV_QP_MIN_RNR_TIMER))
		return errno;
	memset(&a, 0, sizeof(a));
	a.qp_state = IBV_QPS_RTS;
	a.sq_psn = 0x1000;
	a.timeout = 14;
	a.retry_cnt = 7;
	a.rnr_retry = 7;	/* forever: an empty SRQ only delays */
	a.max_rd_atomic = 1;
	if (ibv_modify_qp(qp, &a, IBV_QP_STATE | IBV_QP_SQ_PSN |
			  IBV_QP_TIMEOUT | IBV_QP_RETRY_CNT |
			  IBV_QP_RNR_RETRY | IBV_QP_MAX_QP_RD_ATOMIC))
		return errno;
	return 0;
}

/* Connect sender QP i with receiver QP i, from RESET. */
static int connect_pair(int i)
{
	int err;

	err = qp_to_rts(rcv.qp[i], &snd, snd.qp[i]->qp_num, rcv.gidx);
	if (!err)
		err = qp_to_rts(snd.qp[i], &rcv, rcv.qp[i]->qp_num, snd.gidx);
	return err;
}

static int to_reset(struct ibv_qp *qp)
{
	struct ibv_qp_attr a = { .qp_state = IBV_QPS_RESET };

	return ibv_modify_qp(qp, &a, IBV_QP_STATE) ? errno : 0;
}

/* Poll @cq for one completion for up to @ms; 0, or -1 on timeout. */
/* Wait up to @ms for an async event on the receiving context. */
static bool async_event(struct ibv_async_event *ev, int ms)
{
	struct pollfd p = { .fd = rcv.ctx->async_fd, .events = POLLIN };

	if (poll(&p, 1, ms) != 1)
		return false;
	if (ibv_get_async_event(rcv.ctx, ev))
		return false;
	ibv_ack_async_event(ev);
	return true;
}

static int srq_post(uint64_t wr_id, unsigned int slot)
{
	struct ibv_sge sge = {
		.addr = (uintptr_t)(rcv.buf + slot * SLOT),
		.length = SLOT, .lkey = rcv.mr->lkey,
	};
	struct ibv_recv_wr wr = { .wr_id = wr_id, .sg_list = &sge,
				  .num_sge = 1 }, *bad;

	return ibv_post_srq_recv(srq, &wr, &bad);
}

/* Message @k: SLOT - k % 7 bytes of a pattern only @k makes. */
static unsigned int msg_len(unsigned int k)
{
	return SLOT - k % 7;
}

static uint8_t msg_byte(unsigned int k, unsigned int i)
{
	return (uint8_t)(k * 31 + i * 7 + 1);
}

/* Send message @k on sender QP @q and wait for its send completion. */
static bool send_msg(int q, unsigned int k)
{
	uint8_t *p = snd.buf + (k % SRQ_WR) * SLOT;
	struct ibv_sge sge = { .addr = (uintptr_t)p, .length = msg_len(k),
			       .lkey = snd.mr->lkey };
	struct ibv_send_wr wr = { .wr_id = k, .sg_list = &sge, .num_sge = 1,
				  .opcode = IBV_WR_SEND }, *bad;
	struct ibv_wc wc;
	unsigned int i;

	for (i = 0; i < msg_len(k); i++)
		p[i] = msg_byte(k, i);
	if (ibv_post_send(snd.qp[q], &wr, &bad))
		return false;
	if (poll_one_ms(snd.cq, &wc, 5000)) {
		diag("message %u: no send completion", k);
		return false;
	}
	if (wc.status != IBV_WC_SUCCESS || wc.wr_id != k) {
		diag("message %u: send status %s, wr_id %llu", k,
		     ibv_wc_status_str(wc.status), (unsigned long long)wc.wr_id);
		return false;
	}
	return true;
}

/* The receive of message @k on receiver QP @q, into WQE @wr_id. */
static bool recv_msg(int q, unsigned int k, uint64_t wr_id)
{
	unsigned int slot = wr_id - WRID_BASE, i;
	struct ibv_wc wc;
	uint8_t *p;

	if (poll_one_ms(rcv.cq, &wc, 5000)) {
		diag("message %u: no receive completion", k);
		return false;
	}
	if (wc.status != IBV_WC_SUCCESS || wc.opcode != IBV_WC_RECV ||
	    wc.wr_id != wr_id || wc.byte_len != msg_len(k) ||
	    wc.qp_num != rcv.qp[q]->qp_num) {
		diag("message %u: status %s opcode %d wr_id %llu (want %llu) len %u (want %u) qp %u (want %u)",
		     k, ibv_wc_status_str(wc.status), wc.opcode,
		     (unsigned long long)wc.wr_id, (unsigned long long)wr_id,
		     wc.byte_len, msg_len(k), wc.qp_num, rcv.qp[q]->qp_num);
		return false;
	}
	p = rcv.buf + slot * SLOT;
	for (i = 0; i < msg_len(k); i++) {
		if (p[i] != msg_byte(k, i)) {
			diag("message %u: byte %u is %#x, want %#x", k, i,
			     p[i], msg_byte(k, i));
			return false;
		}
	}
	return true;
}

static bool xfer(int q, unsigned int k, uint64_t wr_id)
{
	return send_msg(q, k) && recv_msg(q, k, wr_id);
}

static void test_attrs(void)
{
	struct ibv_srq_attr a = {};
	struct ibv_recv_wr wr = {}, *bad;
	struct ibv_sge sge = {};

	int ret = ibv_query_srq(srq, &a);

	tap(!ret && a.max_wr >= SRQ_WR && a.max_sge >= 1 && a.srq_limit == 0,
	    "query_srq: max_wr %u >= %u, limit unarmed", a.max_wr, SRQ_WR);
	a.srq_limit = a.max_wr + 1;
	tap(ibv_modify_srq(srq, &a, IBV_SRQ_LIMIT) != 0,
	    "modify_srq: a limit above max_wr is refused");
	wr.sg_list = &sge;
	wr.num_sge = 1;
	tap(ibv_post_recv(rcv.qp[0], &wr, &bad) != 0,
	    "post_recv on a QP of an SRQ is refused");
}

static void test_limit(void)
{
	struct ibv_srq_attr a = { .srq_limit = LIMIT };
	struct ibv_async_event ev;
	unsigned int k;
	bool ok = true;

	for (k = 0; k < POSTED; k++)
		ok &= !srq_post(WRID_BASE + k, k);
	tap(ok, "post_srq_recv of %d WQEs", POSTED);
	tap(!ibv_modify_srq(srq, &a, IBV_SRQ_LIMIT) &&
	    !ibv_query_srq(srq, &a) && a.srq_limit == LIMIT,
	    "modify_srq arms the limit at %d", LIMIT);

	/* 12 -> 8 WQEs left: not below the limit yet. */
	for (k = 0, ok = true; k < POSTED - LIMIT && ok; k++)
		ok = xfer(k % NQP, k, WRID_BASE + k);
	tap(ok, "%d messages over %d QPs land in SRQ WQEs in order",
	    POSTED - LIMIT, NQP);
	tap(!async_event(&ev, 300), "no limit event at %d WQEs left", LIMIT);

	/* 7 left: below. */
	ok = xfer(k % NQP, k, WRID_BASE + k);
	k++;
	tap(ok && async_event(&ev, 3000) &&
	    ev.event_type == IBV_EVENT_SRQ_LIMIT_REACHED &&
	    ev.element.srq == srq,
	    "SRQ_LIMIT_REACHED when the count drops below the limit");
	tap(!ibv_query_srq(srq, &a) && a.srq_limit == 0,
	    "the event disarmed the limit");
	ok = xfer(k % NQP, k, WRID_BASE + k);
	tap(ok && !async_event(&ev, 300), "no second event once disarmed");
}

/* WQEs WRID_BASE + 6 .. POSTED - 1 are still on the SRQ. */
static void test_error(void)
{
	struct ibv_qp_attr a = { .qp_state = IBV_QPS_ERR };
	struct ibv_async_event ev;
	unsigned int k = 6;
	struct ibv_wc wc;
	bool ok = true;

	tap(!ibv_modify_qp(rcv.qp[0], &a, IBV_QP_STATE) &&
	    async_event(&ev, 3000) &&
	    ev.event_type == IBV_EVENT_QP_LAST_WQE_REACHED &&
	    ev.element.qp == rcv.qp[0],
	    "QP of an SRQ in ERROR: LAST_WQE_REACHED");
	tap(poll_one_ms(rcv.cq, &wc, 300),
	    "no flush completion for WQEs still on the SRQ");
	for (; k < POSTED && ok; k++)
		ok = xfer(1 + k % (NQP - 1), k, WRID_BASE + k);
	tap(ok, "the other QPs receive into the WQEs the error left");

	/* Back to work: RESET re-arms LAST_WQE_REACHED for the next error. */
	tap(!to_reset(rcv.qp[0]) && !to_reset(snd.qp[0]) && !connect_pair(0),
	    "the QP reconnects after ERROR");
}

/* The SRQ is empty now: a message waits (RNR) until a post. */
static bool rnr_then_post(void)
{
	unsigned int k = POSTED;
	uint8_t *p = snd.buf + k * SLOT;
	struct ibv_sge sge = { .addr = (uintptr_t)p, .length = msg_len(k),
			       .lkey = snd.mr->lkey };
	struct ibv_send_wr wr = { .wr_id = k, .sg_list = &sge, .num_sge = 1,
				  .opcode = IBV_WR_SEND }, *bad;
	struct ibv_wc wc;
	unsigned int i;

	for (i = 0; i < msg_len(k); i++)
		p[i] = msg_byte(k, i);
	if (ibv_post_send(snd.qp[0], &wr, &bad))
		return false;
	if (!poll_one_ms(snd.cq, &wc, 300)) {
		diag("a SEND to an empty SRQ completed (status %s)",
		     ibv_wc_status_str(wc.status));
		return false;
	}
	if (srq_post(WRID_BASE + k, k))
		return false;
	if (poll_one_ms(snd.cq, &wc, 5000) || wc.status != IBV_WC_SUCCESS) {
		diag("no successful send completion after the post");
		return false;
	}
	return recv_msg(0, k, WRID_BASE + k);
}

static void test_destroy(void)
{
	int i, err = 0;

	tap(ibv_destroy_srq(srq) != 0, "destroy_srq refused while QPs use it");
	for (i = 0; i < NQP; i++) {
		err |= ibv_destroy_qp(rcv.qp[i]);
		err |= ibv_destroy_qp(snd.qp[i]);
	}
	tap(!err && !ibv_destroy_srq(srq), "destroy QPs, then the SRQ");
}

static int setup(void)
{
	struct ibv_srq_init_attr sa = {
		.attr = { .max_wr = SRQ_WR, .max_sge = 1 },
	};
	int i, err;

	err = side_init(&snd, dev_name[0], gid_idx[0]);
	if (!err)
		err = side_init(&rcv, dev_name[1], gid_idx[1]);
	if (err) {
		diag("setup: %s", strerror(err));
		return err;
	}
	srq = ibv_create_srq(rcv.pd, &sa);
	tap(srq && sa.attr.max_wr >= SRQ_WR, "create_srq (max_wr %u)",
	    sa.attr.max_wr);
	if (!srq)
		return errno;
	for (i = 0; i < NQP; i++) {
		snd.qp[i] = qp_create(&snd, NULL);
		rcv.qp[i] = qp_create(&rcv, srq);
		if (!snd.qp[i] || !rcv.qp[i])
			return errno;
		err = connect_pair(i);
		if (err)
			return err;
	}
	tap(true, "%d RC QPs on the SRQ connected", NQP);
	/* async events are polled with a timeout */
	fcntl(rcv.ctx->async_fd, F_SETFL,
	      fcntl(rcv.ctx->async_fd, F_GETFL) | O_NONBLOCK);
	return 0;
}

int main(int argc, char **argv)
{
	int c;

	while ((c = getopt(argc, argv, "d:D:g:G:")) != -1) {
		if (dev_opt(c, optarg))
			continue;
		switch (c) {
		default:
			fprintf(stderr, "usage: %s -d DEV [-D DEV2] [-g GIDX] [-G GIDX2]\n",
				argv[0]);
			return 2;
		}
	}
	if (!dev_opts_done())
		return 2;

	if (setup()) {
		tap(false, "setup");
		printf("1..%d\n", tap_n);
		return 1;
	}
	test_attrs();
	test_limit();
	test_error();
	tap(rnr_then_post(),
	    "a SEND to an empty SRQ waits (RNR), lands after a post");
	test_destroy();
	printf("1..%d\n", tap_n);
	return tap_failed ? 1 : 0;
}
