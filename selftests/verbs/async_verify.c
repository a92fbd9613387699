// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * async_verify - the asynchronous events a sroce device raises, provoked
 * one by one and awaited on the context's async_fd.
 *
 *   async_verify -d DEV -n NETDEV -a ADDR/PREFIX [-g GIDIDX]
 *
 * Runs in NETDEV's network namespace, with the rights to change NETDEV
 * (it runs ip(8)).  All QPs are on DEV, connected to each other through
 * GID GIDIDX (loopback).  Checked, as TAP:
 *
 *  - NETDEV down: IBV_EVENT_PORT_ERR on port 1; up: IBV_EVENT_PORT_ACTIVE;
 *  - a new address ADDR on NETDEV, and its removal: IBV_EVENT_GID_CHANGE
 *    each time (ib_core raises it from its GID cache);
 *  - a send CQ that overflows: IBV_EVENT_CQ_ERR on that CQ and
 *    IBV_EVENT_QP_FATAL on the QP that overflowed it, which is in ERROR;
 *  - an RDMA WRITE with a bad rkey: IBV_EVENT_QP_ACCESS_ERR on the
 *    responder's QP, IBV_WC_REM_ACCESS_ERR at the requester;
 *  - an RDMA READ to a QP that allows no incoming READs
 *    (max_dest_rd_atomic 0): IBV_EVENT_QP_REQ_ERR on the responder's QP,
 *    IBV_WC_REM_INV_REQ_ERR at the requester;
 *  - a QP the consumer moves to ERROR raises no event.
 *
 * Each wait skips (and reports) events it does not want, so a missing
 * event fails by timeout and a wrong one never passes for it.
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

#include <infiniband/verbs.h>

#include "common.h"

#define WAIT_MS		5000
#define QUIET_MS	500
#define BUF		4096

static const char *ibdev, *netdev, *addr;
static int gidx;

static struct ibv_context *ctx;
static struct ibv_pd *pd;
static struct ibv_mr *mr;
static union ibv_gid gid;
static uint8_t *buf;

/* The element an event names: a QP, a CQ, or (port events) a port. */
static bool ev_matches(const struct ibv_async_event *ev,
		       enum ibv_event_type type, const void *obj)
{
	if (ev->event_type != type)
		return false;
	switch (type) {
	case IBV_EVENT_CQ_ERR:
		return ev->element.cq == obj;
	case IBV_EVENT_QP_FATAL:
	case IBV_EVENT_QP_REQ_ERR:
	case IBV_EVENT_QP_ACCESS_ERR:
		return ev->element.qp == obj;
	default:
		return ev->element.port_num == 1;
	}
}

/*
 * Wait up to @ms for event @type on @obj.  Other events are acknowledged
 * and reported; if @others is given, they are counted there.
 */
static bool wait_event(enum ibv_event_type type, const void *obj, int ms,
		       int *others)
{
	struct pollfd p = { .fd = ctx->async_fd, .events = POLLIN };
	struct ibv_async_event ev;
	struct timespec t0;
	long left;
	bool hit;

	clock_gettime(CLOCK_MONOTONIC, &t0);
	while ((left = ms - ms_since(&t0)) > 0) {
		if (poll(&p, 1, left) != 1)
			break;
		if (ibv_get_async_event(ctx, &ev))
			return false;
		hit = ev_matches(&ev, type, obj);
		if (!hit) {
			diag("other event: %s", ibv_event_type_str(ev.event_type));
			if (others)
				++*others;
		}
		ibv_ack_async_event(&ev);
		if (hit)
			return true;
	}
	return false;
}

/* Acknowledge whatever is pending (e.g. GID changes of a link flap). */
static void drain_events(int ms)
{
	/* sroce never raises SM_CHANGE: this waits out @ms. */
	wait_event(IBV_EVENT_SM_CHANGE, NULL, ms, NULL);
}

static int sh(const char *fmt, ...) __attribute__((format(printf, 1, 2)));

static int sh(const char *fmt, ...)
{
	char cmd[256];
	va_list ap;
	int r;

	va_start(ap, fmt);
	vsnprintf(cmd, sizeof(cmd), fmt, ap);
	va_end(ap);
	r = system(cmd);
	if (r)
		diag("'%s' failed: %d", cmd, r);
	return r;
}

static enum ibv_qp_state qp_state(struct ibv_qp *qp)
{
	struct ibv_qp_init_attr init;
	struct ibv_qp_attr a;

	if (ibv_query_qp(qp, &a, IBV_QP_STATE, &init))
		return (enum ibv_qp_state)-1;
	return a.qp_state;
}

/* ------------------------------------------------------------------ */
/* Port and GID events                                                 */
/* ------------------------------------------------------------------ */

static void check_port(void)
{
	bool ok;

	drain_events(QUIET_MS);
	ok = !sh("ip link set dev %s down", netdev) &&
	     wait_event(IBV_EVENT_PORT_ERR, NULL, WAIT_MS, NULL);
	tap(ok, "%s down: IBV_EVENT_PORT_ERR on port 1", netdev);
	ok = !sh("ip link set dev %s up", netdev) &&
	     wait_event(IBV_EVENT_PORT_ACTIVE, NULL, WAIT_MS, NULL);
	tap(ok, "%s up: IBV_EVENT_PORT_ACTIVE on port 1", netdev);
}

static void check_gid(void)
{
	bool ok;

	/* A link flap adds and removes GIDs: not the ones we want. */
	drain_events(QUIET_MS * 2);
	ok = !sh("ip addr add %s dev %s", addr, netdev) &&
	     wait_event(IBV_EVENT_GID_CHANGE, NULL, WAIT_MS, NULL);
	tap(ok, "address %s added: IBV_EVENT_GID_CHANGE", addr);
	drain_events(QUIET_MS);
	ok = !sh("ip addr del %s dev %s", addr, netdev) &&
	     wait_event(IBV_EVENT_GID_CHANGE, NULL, WAIT_MS, NULL);
	tap(ok, "address %s removed: IBV_EVENT_GID_CHANGE", addr);
	drain_events(QUIET_MS);
}

/* ------------------------------------------------------------------ */
/* CQ overflow: CQ_ERR on the CQ, QP_FATAL on the QP                   */
/* ------------------------------------------------------------------ */

static struct ibv_qp *ud_qp(struct ibv_cq *scq, struct ibv_cq *rcq)
{
	struct ibv_qp_init_attr init = {
		.send_cq = scq, .recv_cq = rcq, .qp_type = IBV_QPT_UD,
		.sq_sig_all = 1,
		.cap = { .max_send_wr = 64, .max_recv_wr = 1,
			 .max_send_sge = 1, .max_recv_sge = 1 },
	};
	struct ibv_qp_attr a = {
		.qp_state = IBV_QPS_INIT, .port_num = 1, .qkey = 0x11111111,
	};
	struct ibv_qp *qp = ibv_create_qp(pd, &init);

	if (!qp)
		return NULL;
	if (ibv_modify_qp(qp, &a, IBV_QP_STATE | IBV_QP_PKEY_INDEX |
			  IBV_QP_PORT | IBV_QP_QKEY))
		goto err;
	a.qp_state = IBV_QPS_RTR;
	if (ibv_modify_qp(qp, &a, IBV_QP_STATE))
		goto err;
	a.qp_state = IBV_QPS_RTS;
	a.sq_psn = 0;
	if (ibv_modify_qp(qp, &a, IBV_QP_STATE | IBV_QP_SQ_PSN))
		goto err;
	return qp;
err:
	ibv_destroy_qp(qp);
	return NULL;
}

static void check_cq_overflow(void)
{
	struct ibv_ah_attr aa = {
		.is_global = 1, .port_num = 1,
		.grh = { .dgid = gid, .sgid_index = gidx, .hop_limit = 64 },
	};
	struct ibv_cq *scq = ibv_create_cq(ctx, 1, NULL, NULL, 0);
	struct ibv_cq *rcq = ibv_create_cq(ctx, 16, NULL, NULL, 0);
	struct ibv_qp *qp = scq && rcq ? ud_qp(scq, rcq) : NULL;
	struct ibv_ah *ah = qp ? ibv_create_ah(pd, &aa) : NULL;
	struct ibv_sge sge = { .addr = (uintptr_t)buf, .length = 8,
			       .lkey = mr->lkey };
	struct ibv_send_wr wr = {
		.sg_list = &sge, .num_sge = 1, .opcode = IBV_WR_SEND,
	}, *bad;
	bool cq_err, qp_fatal;
	int i, n, err = 0;

	if (!ah) {
		tap(false, "UD QP, CQs and AH for the overflow: %s",
		    strerror(errno));
		tap(false, "... no QP to check");
		return;
	}
	wr.wr.ud.ah = ah;
	wr.wr.ud.remote_qpn = 0xfffffe;	/* nobody: only the CQE matters */
	wr.wr.ud.remote_qkey = 0x11111111;
	/* More signalled sends than the send CQ holds, never polled. */
	n = scq->cqe + 8;
	for (i = 0; i < n && !err; i++) {
		wr.wr_id = i;
		err = ibv_post_send(qp, &wr, &bad);
	}
	cq_err = !err && wait_event(IBV_EVENT_CQ_ERR, scq, WAIT_MS, NULL);
	tap(cq_err, "%d sends into a CQ of %d: IBV_EVENT_CQ_ERR on it", n,
	    scq->cqe);
	qp_fatal = !err && wait_event(IBV_EVENT_QP_FATAL, qp, WAIT_MS, NULL);
	tap(qp_fatal && qp_state(qp) == IBV_QPS_ERR,
	    "... and IBV_EVENT_QP_FATAL on the QP, now in ERROR");
	ibv_destroy_qp(qp);
	ibv_destroy_ah(ah);
	ibv_destroy_cq(scq);
	ibv_destroy_cq(rcq);
}

/* ------------------------------------------------------------------ */
/* Responder errors on RC                                              */
/* ------------------------------------------------------------------ */

struct rc_pair {
	struct ibv_cq *cq;
	struct ibv_qp *req, *resp;
};

static struct ibv_qp *rc_qp(struct ibv_cq *cq)
{
	struct ibv_qp_init_attr init = {
		.send_cq = cq, .recv_cq = cq, .qp_type = IBV_QPT_RC,
		.sq_sig_all = 1,
		.cap = { .max_send_wr = 8, .max_recv_wr = 8,
			 .max_send_sge = 1, .max_recv_sge = 1 },
	};

	return ibv_create_qp(pd, &init);
}

static int rc_connect(struct ibv_qp *qp, uint32_t dqpn, uint8_t dest_rd)
{
	struct ibv_qp_attr a = {
		.qp_state = IBV_QPS_INIT, .port_num = 1,
		.qp_access_flags = IBV_ACCESS_REMOTE_WRITE |
				   IBV_ACCESS_REMOTE_READ,
	};

	if (ibv_modify_qp(qp, &a, IBV_QP_STATE | IBV_QP_PKEY_INDEX |
			  IBV_QP_PORT | IBV_QP_ACCESS_FLAGS))
		return errno;
	memset(&a, 0, sizeof(a));
	a.qp_state = IBV_QPS_RTR;
	a.path_mtu = IBV_MTU_1024;
	a.dest_qp_num = dqpn;
	a.max_dest_rd_atomic = dest_rd;
	a.min_rnr_timer = 1;
	a.ah_attr.is_global = 1;
	a.ah_attr.port_num = 1;
	a.ah_attr.grh.dgid = gid;
	a.ah_attr.grh.sgid_index = gidx;
	a.ah_attr.grh.hop_limit = 64;
	if (ibv_modify_qp(qp, &a, IBV_QP_STATE | IBV_QP_AV | IBV_QP_PATH_MTU |
			  IBV_QP_DEST_QPN | IBV_QP_RQ_PSN |
			  IBV_QP_MAX_DEST_RD_ATOMIC | IBV_QP_MIN_RNR_TIMER))
		return errno;
	memset(&a, 0, sizeof(a));
	a.qp_state = IBV_QPS_RTS;
	a.timeout = 14;
	a.retry_cnt = 2;
	a.rnr_retry = 2;
	a.max_rd_atomic = 1;
	if (ibv_modify_qp(qp, &a, IBV_QP_STATE | IBV_QP_SQ_PSN |
			  IBV_QP_TIMEOUT | IBV_QP_RETRY_CNT |
			  IBV_QP_RNR_RETRY | IBV_QP_MAX_QP_RD_ATOMIC))
		return errno;
	return 0;
}

static int rc_pair_init(struct rc_pair *p, uint8_t resp_dest_rd)
{
	memset(p, 0, sizeof(*p));
	p->cq = ibv_create_cq(ctx, 32, NULL, NULL, 0);
	if (!p->cq)
		return errno;
	p->req = rc_qp(p->cq);
	p->resp = rc_qp(p->cq);
	if (!p->req || !p->resp)
		return errno;
	return rc_connect(p->req, p->resp->qp_num, 1) ?:
	       rc_connect(p->resp, p->req->qp_num, resp_dest_rd);
}

static void rc_pair_fini(struct rc_pair *p)
{
	if (p->req)
		ibv_destroy_qp(p->req);
	if (p->resp)
		ibv_destroy_qp(p->resp);
	if (p->cq)
		ibv_destroy_cq(p->cq);
}

/* The requester's completion status for its only WQE, or -1. */
static int rc_post_one(struct rc_pair *p, enum ibv_wr_opcode op, uint32_t rkey)
{
	struct ibv_sge sge = { .addr = (uintptr_t)buf, .length = 64,
			       .lkey = mr->lkey };
	struct ibv_send_wr wr = {
		.wr_id = 1, .sg_list = &sge, .num_sge = 1, .opcode = op,
		.wr.rdma = { .remote_addr = (uintptr_t)buf + 1024,
			     .rkey = rkey },
	}, *bad;
	struct ibv_wc wc;

	if (ibv_post_send(p->req, &wr, &bad))
		return -1;
	/* Flushes of the responder's (empty) RQ would not carry wr_id 1. */
	while (!poll_one_ms(p->cq, &wc, WAIT_MS))
		if (wc.qp_num == p->req->qp_num)
			return wc.status;
	return -1;
}

static void check_access_err(void)
{
	struct rc_pair p;
	int st = -1;
	bool ev;

	if (rc_pair_init(&p, 1) == 0)
		st = rc_post_one(&p, IBV_WR_RDMA_WRITE, mr->rkey ^ 0x5a);
	ev = st >= 0 && wait_event(IBV_EVENT_QP_ACCESS_ERR, p.resp, WAIT_MS,
				   NULL);
	tap(ev, "WRITE with a bad rkey: IBV_EVENT_QP_ACCESS_ERR on the responder's QP");
	tap(st == IBV_WC_REM_ACCESS_ERR,
	    "... and IBV_WC_REM_ACCESS_ERR at the requester (got %s)",
	    st < 0 ? "nothing" : ibv_wc_status_str(st));
	rc_pair_fini(&p);
}

static void check_req_err(void)
{
	struct rc_pair p;
	int st = -1;
	bool ev;

	if (rc_pair_init(&p, 0) == 0)
		st = rc_post_one(&p, IBV_WR_RDMA_READ, mr->rkey);
	ev = st >= 0 && wait_event(IBV_EVENT_QP_REQ_ERR, p.resp, WAIT_MS,
				   NULL);
	tap(ev, "READ to a QP with max_dest_rd_atomic 0: IBV_EVENT_QP_REQ_ERR on it");
	tap(st == IBV_WC_REM_INV_REQ_ERR,
	    "... and IBV_WC_REM_INV_REQ_ERR at the requester (got %s)",
	    st < 0 ? "nothing" : ibv_wc_status_str(st));
	rc_pair_fini(&p);
}

/* The consumer's own move to ERROR is no asynchronous error. */
static void check_quiet(void)
{
	struct ibv_qp_attr a = { .qp_state = IBV_QPS_ERR };
	struct rc_pair p;
	int others = 0;
	bool ok;

	ok = rc_pair_init(&p, 1) == 0 &&
	     !ibv_modify_qp(p.resp, &a, IBV_QP_STATE) &&
	     !wait_event(IBV_EVENT_QP_FATAL, p.resp, QUIET_MS, &others) &&
	     !others;
	tap(ok, "modify_qp to ERROR raises no event");
	rc_pair_fini(&p);
}

static void usage(void)
{
	fprintf(stderr, "usage: async_verify -d DEV -n NETDEV -a ADDR/PREFIX [-g GIDIDX]\n");
	exit(2);
}

int main(int argc, char **argv)
{
	int c;

	while ((c = getopt(argc, argv, "d:n:a:g:")) != -1) {
		switch (c) {
		case 'd': ibdev = optarg; break;
		case 'n': netdev = optarg; break;
		case 'a': addr = optarg; break;
		case 'g': gidx = atoi(optarg); break;
		default: usage();
		}
	}
	if (!ibdev || !netdev || !addr)
		usage();

	printf("1..12\n");
	ctx = open_dev(ibdev);
	pd = ctx ? ibv_alloc_pd(ctx) : NULL;
	buf = calloc(1, BUF);
	mr = pd && buf ? ibv_reg_mr(pd, buf, BUF, IBV_ACCESS_LOCAL_WRITE |
				    IBV_ACCESS_REMOTE_WRITE |
				    IBV_ACCESS_REMOTE_READ) : NULL;
	if (!mr || ibv_query_gid(ctx, 1, gidx, &gid)) {
		printf("Bail out! cannot open %s: %s\n", ibdev,
		       strerror(errno));
		return 1;
	}
	tap(true, "%s open, GID index %d", ibdev, gidx);

	check_port();
	check_gid();
	check_cq_overflow();
	check_access_err();
	check_req_err();
	check_quiet();

	ibv_dereg_mr(mr);
	ibv_dealloc_pd(pd);
	ibv_close_device(ctx);
	free(buf);
	return tap_failed ? 1 : 0;
}
