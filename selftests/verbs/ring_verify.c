// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * ring_verify - a hostile process writes its own shared rings.
 *
 *   ring_verify -d DEV1 -D DEV2 [-g GIDIDX] [-G GIDIDX2] [-v]
 *
 * The SQ and RQ of a sroce QP are memory the process shares with the
 * kernel (include/uapi/rdma/sroce-abi.h); libsroce writes them, but any
 * code in the process can.  This program reaches into libsroce's QP (the
 * in-tree provider header), writes WQEs and producer indexes that
 * libsroce never would, and checks that the kernel refuses each with the
 * completion or event the ABI promises and nothing else
 * (Documentation/security.rst, G7):
 *
 *   - send WQEs with a huge num_sge, a huge inline_len, an unknown opcode,
 *     the kernel-only REG_MR opcode, an SGE at a kernel address, an SGE
 *     of 4 GiB: each completes with its error status, and the valid WRITE
 *     posted behind it is flushed, never executed;
 *   - a send producer index far ahead of the ring: IBV_EVENT_QP_FATAL;
 *   - a receive WQE with a huge num_sge: the receive fails with
 *     IBV_WC_LOC_QP_OP_ERR and the peer's SEND with IBV_WC_REM_OP_ERR;
 *     a receive producer index far ahead: IBV_EVENT_QP_FATAL at the
 *     responder, and the SEND is not acknowledged;
 *   - afterwards a fresh QP pair moves data byte-exact, the responder's
 *     memory never changed, and the counter bad_wqes moved.
 *
 * Every case uses a fresh QP pair, so a case cannot pass on the ruins of
 * the one before.  Output is TAP.
 */
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <poll.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "sroce.h"
#include "common.h"

#define PAGE		4096
#define WAIT_MS		10000
/* A SEND to a dead responder gives up after 7 retries of ~67 ms. */
#define DEAD_PEER_MS	20000
/* Kernel-only work request: fast registration (IB_WR_REG_MR). */
#define KERNEL_REG_MR	0x20

struct side {
	struct ibv_context *ctx;
	struct ibv_pd *pd;
	struct ibv_cq *cq;
	struct ibv_qp *qp;
	union ibv_gid gid;
	int gidx;
	uint8_t *buf;		/* A: source; B: target, checked whole */
	struct ibv_mr *mr;
};

static struct side A, B;
static uint8_t *b_shadow;
static bool verbose;
static uint32_t psn = 0x10203;

static void fill(uint8_t *p, size_t len, unsigned int seed)
{
	size_t i;

	for (i = 0; i < len; i++)
		p[i] = (uint8_t)(seed * 29 + i * 13 + (i >> 9));
}

static bool b_intact(void)
{
	if (!memcmp(B.buf, b_shadow, PAGE))
		return true;
	diag("B's memory changed");
	return false;
}

static void async_drain(struct ibv_context *ctx)
{
	struct ibv_async_event ev;

	while (!ibv_get_async_event(ctx, &ev))
		ibv_ack_async_event(&ev);
}

static struct ibv_qp *qp_new(struct side *s)
{
	struct ibv_qp_init_attr init = {
		.send_cq = s->cq, .recv_cq = s->cq, .qp_type = IBV_QPT_RC,
		.cap = { .max_send_wr = 16, .max_recv_wr = 16,
			 .max_send_sge = 2, .max_recv_sge = 2,
			 .max_inline_data = 64 },
	};

	return ibv_create_qp(s->pd, &init);
}

static void pair_free(void)
{
	if (A.qp)
		ibv_destroy_qp(A.qp);
	if (B.qp)
		ibv_destroy_qp(B.qp);
	A.qp = B.qp = NULL;
	drain_cq(A.cq, verbose);
	drain_cq(B.cq, verbose);
	async_drain(A.ctx);
	async_drain(B.ctx);
}

/* A fresh connected pair: the ruins of the last case are gone. */
static bool pair_new(void)
{
	struct rc_peer pa = { .mtu = IBV_MTU_1024, .dest_rd_atomic = 1,
			      .rd_atomic = 1 };
	struct rc_peer pb = pa;

	pair_free();
	A.qp = qp_new(&A);
	B.qp = qp_new(&B);
	if (!A.qp || !B.qp)
		return false;
	psn = (psn + 77777) & 0xffffff;
	pa.qpn = B.qp->qp_num;
	pa.gid = B.gid;
	pa.sgid_idx = A.gidx;
	pa.psn = psn ^ 0x5555;
	pa.my_psn = psn;
	pb.qpn = A.qp->qp_num;
	pb.gid = A.gid;
	pb.sgid_idx = B.gidx;
	pb.psn = psn;
	pb.my_psn = psn ^ 0x5555;
	return !rc_connect_to(A.qp, &pa) && !rc_connect_to(B.qp, &pb);
}

static struct sroce_ring *sq_ring(struct ibv_qp *qp)
{
	return &to_sqp(qp)->sq.ring;
}

static struct sroce_ring *rq_ring(struct ibv_qp *qp)
{
	return &to_sqp(qp)->rq.ring;
}

/*
 * Claim the SQ's next slot behind libsroce's back, as a hostile process
 * would: zeroed, wr_id set.  libsroce's next post goes after it and
 * publishes both.
 */
static struct sroce_send_wqe *sq_forge(uint64_t wr_id)
{
	struct sroce_ring *r = sq_ring(A.qp);
	struct sroce_send_wqe *w = sroce_ring_slot(r, r->head);

	memset(w, 0, r->stride);
	w->wr_id = wr_id;
	r->head++;
	return w;
}

/* A WRITE of @len bytes of A's page to B's, wr_id @id: ibv_post_send(). */
static int post_write(uint64_t id, uint32_t len)
{
	struct ibv_sge sge = { .addr = (uintptr_t)A.buf, .length = len,
			       .lkey = A.mr->lkey };
	struct ibv_send_wr wr = {
		.wr_id = id, .opcode = IBV_WR_RDMA_WRITE, .sg_list = &sge,
		.num_sge = 1, .send_flags = IBV_SEND_SIGNALED,
		.wr.rdma = { .remote_addr = (uintptr_t)B.buf,
			     .rkey = B.mr->rkey },
	};
	struct ibv_send_wr *bad;

	return ibv_post_send(A.qp, &wr, &bad);
}

/* A valid 64-byte WRITE to B's page: it must never execute. */
static int post_write_behind(void)
{
	return post_write(2, 64);
}

/* Completion of wr 1 with @want, then wr 2 flushed. */
static bool sq_outcome(enum ibv_wc_status want, const char *what)
{
	struct ibv_wc wc;
	bool ok = true;

	if (poll_one_ms(A.cq, &wc, WAIT_MS) || wc.wr_id != 1 ||
	    wc.status != want) {
		diag("%s: first completion: wr %" PRIu64 " %s, want wr 1 %s",
		     what, wc.wr_id, ibv_wc_status_str(wc.status),
		     ibv_wc_status_str(want));
		ok = false;
	}
	if (poll_one_ms(A.cq, &wc, WAIT_MS) || wc.wr_id != 2 ||
	    wc.status != IBV_WC_WR_FLUSH_ERR) {
		diag("%s: the WRITE behind it: wr %" PRIu64 " %s, not flushed",
		     what, wc.wr_id, ibv_wc_status_str(wc.status));
		ok = false;
	}
	return ok && b_intact();
}

/* One forged send WQE, shaped by @shape; true if refused as @want. */
static bool sq_case(void (*shape)(struct sroce_send_wqe *),
		    enum ibv_wc_status want, const char *what)
{
	int ret;

	if (!pair_new()) {
		diag("%s: no QP pair", what);
		return false;
	}
	shape(sq_forge(1));
	ret = post_write_behind();
	if (ret) {
		diag("%s: ibv_post_send: %s", what, strerror(ret));
		return false;
	}
	return sq_outcome(want, what);
}

static void wqe_write(struct sroce_send_wqe *w)
{
	w->opcode = IBV_WR_RDMA_WRITE;
	w->send_flags = IBV_SEND_SIGNALED;
	w->wr.rdma.remote_addr = (uintptr_t)B.buf;
	w->wr.rdma.rkey = B.mr->rkey;
}

static struct sroce_sge *wqe_sge(struct sroce_send_wqe *w)
{
	return (struct sroce_sge *)((uint8_t *)w + SROCE_SEND_WQE_HDR_SIZE);
}

static void shape_many_sges(struct sroce_send_wqe *w)
{
	wqe_write(w);
	w->num_sge = 0x10000;
}

static void shape_huge_inline(struct sroce_send_wqe *w)
{
	wqe_write(w);
	w->send_flags |= IBV_SEND_INLINE;
	w->inline_len = 0x7fffffff;
}

static void shape_bad_opcode(struct sroce_send_wqe *w)
{
	w->opcode = 0x7f;
	w->send_flags = IBV_SEND_SIGNALED;
}

static void shape_reg_mr(struct sroce_send_wqe *w)
{
	w->opcode = KERNEL_REG_MR;
	w->send_flags = IBV_SEND_SIGNALED;
	w->wr.reg.iova = (uintptr_t)A.buf;
	w->wr.reg.length = PAGE;
	w->wr.reg.key = A.mr->lkey;
	w->wr.reg.access = 0xf;
}

static void shape_kernel_addr(struct sroce_send_wqe *w)
{
	wqe_write(w);
	w->num_sge = 1;
	wqe_sge(w)->addr = 0xffff888000000000ull;
	wqe_sge(w)->length = 64;
	wqe_sge(w)->lkey = A.mr->lkey;
}

static void shape_4g_sge(struct sroce_send_wqe *w)
{
	wqe_write(w);
	w->num_sge = 1;
	wqe_sge(w)->addr = (uintptr_t)A.buf;
	wqe_sge(w)->length = 0xffffffff;
	wqe_sge(w)->lkey = A.mr->lkey;
}

/* Wait up to @ms for async event @want on @ctx. */
static bool async_wait(struct ibv_context *ctx, enum ibv_event_type want,
		       int ms)
{
	struct pollfd p = { .fd = ctx->async_fd, .events = POLLIN };
	struct ibv_async_event ev;
	bool seen = false;

	while (!seen && poll(&p, 1, ms) > 0) {
		if (ibv_get_async_event(ctx, &ev))
			continue;
		seen = ev.event_type == want;
		if (verbose || !seen)
			diag("async event: %s", ibv_event_type_str(ev.event_type));
		ibv_ack_async_event(&ev);
	}
	return seen;
}

/* The SQ's producer index three rings ahead: the QP is fatal. */
static bool sq_prod_ahead(void)
{
	struct ibv_send_wr *bad;
	struct sroce_ring *r;

	if (!pair_new())
		return false;
	r = sq_ring(A.qp);
	/*
	 * libsroce publishes its head; a hostile process publishes nonsense
	 * and rings the doorbell as libsroce does, with an empty POST_SEND.
	 */
	__atomic_store_n(&r->hdr->prod, r->head + 3 * r->entries,
			 __ATOMIC_RELEASE);
	if (ibv_cmd_post_send(A.qp, NULL, &bad))
		return false;
	return async_wait(A.ctx, IBV_EVENT_QP_FATAL, WAIT_MS) && b_intact();
}

/* A SEND of 64 bytes from A; its completion status, or -1. */
static int send_from_a(int ms)
{
	struct ibv_sge sge = { .addr = (uintptr_t)A.buf, .length = 64,
			       .lkey = A.mr->lkey };
	struct ibv_send_wr wr = {
		.wr_id = 3, .opcode = IBV_WR_SEND, .sg_list = &sge,
		.num_sge = 1, .send_flags = IBV_SEND_SIGNALED,
	};
	struct ibv_send_wr *bad;
	struct ibv_wc wc;

	if (ibv_post_send(A.qp, &wr, &bad) || poll_one_ms(A.cq, &wc, ms))
		return -1;
	return wc.status;
}

/* A receive WQE with a huge num_sge, published by hand. */
static bool rq_many_sges(void)
{
	struct sroce_recv_wqe *w;
	struct sroce_ring *r;
	struct ibv_wc wc;
	bool ok;
	int st;

	if (!pair_new())
		return false;
	r = rq_ring(B.qp);
	w = sroce_ring_slot(r, r->head);
	memset(w, 0, r->stride);
	w->wr_id = 9;
	w->num_sge = 0x10000;
	r->head++;
	sroce_ring_publish(r);
	st = send_from_a(WAIT_MS);
	ok = st == IBV_WC_REM_OP_ERR;
	if (!ok)
		diag("the SEND: %s, not REM_OP_ERR",
		     st < 0 ? "no completion" : ibv_wc_status_str(st));
	if (poll_one_ms(B.cq, &wc, WAIT_MS) || wc.wr_id != 9 ||
	    wc.status != IBV_WC_LOC_QP_OP_ERR) {
		diag("the receive: wr %" PRIu64 " %s, not LOC_QP_OP_ERR",
		     wc.wr_id, ibv_wc_status_str(wc.status));
		ok = false;
	}
	return ok && b_intact();
}

/* The RQ's producer index three rings ahead: fatal when a SEND comes. */
static bool rq_prod_ahead(void)
{
	struct sroce_ring *r;
	int st;

	if (!pair_new())
		return false;
	r = rq_ring(B.qp);
	r->head += 3 * r->entries;
	sroce_ring_publish(r);
	st = send_from_a(DEAD_PEER_MS);
	if (st == IBV_WC_SUCCESS || st < 0)
		diag("the SEND: %s", st < 0 ? "no completion" :
		     ibv_wc_status_str(st));
	return st > 0 && async_wait(B.ctx, IBV_EVENT_QP_FATAL, WAIT_MS) &&
	       b_intact();
}

/* After it all: a fresh pair WRITEs a page and it lands byte-exact. */
static bool still_works(void)
{
	struct ibv_wc wc;

	if (!pair_new())
		return false;
	fill(A.buf, PAGE, 7);
	if (post_write(4, PAGE) || poll_one_ms(A.cq, &wc, WAIT_MS) ||
	    wc.status != IBV_WC_SUCCESS)
		return false;
	memcpy(b_shadow, A.buf, PAGE);
	return b_intact();
}

static bool side_open(struct side *s, const char *dev, int gidx)
{
	int fl;

	s->ctx = open_dev(dev);
	if (!s->ctx) {
		diag("no device %s", dev);
		return false;
	}
	/* A sroce device, or the casts to libsroce's QP are nonsense. */
	if (strcmp(((struct verbs_device *)s->ctx->device)->ops->name,
		   "sroce")) {
		diag("%s is not a sroce device", dev);
		return false;
	}
	if (ibv_query_gid(s->ctx, 1, gidx, &s->gid))
		return false;
	s->gidx = gidx;
	fl = fcntl(s->ctx->async_fd, F_GETFL);
	if (fl < 0 || fcntl(s->ctx->async_fd, F_SETFL, fl | O_NONBLOCK))
		return false;
	s->pd = ibv_alloc_pd(s->ctx);
	s->cq = ibv_create_cq(s->ctx, 64, NULL, NULL, 0);
	s->buf = aligned_alloc(PAGE, PAGE);
	if (!s->pd || !s->cq || !s->buf)
		return false;
	fill(s->buf, PAGE, s == &A ? 1 : 2);
	s->mr = ibv_reg_mr(s->pd, s->buf, PAGE, IBV_ACCESS_LOCAL_WRITE |
			   IBV_ACCESS_REMOTE_WRITE);
	return s->mr;
}

static void side_close(struct side *s)
{
	if (s->mr)
		ibv_dereg_mr(s->mr);
	if (s->cq)
		ibv_destroy_cq(s->cq);
	if (s->pd)
		ibv_dealloc_pd(s->pd);
	if (s->ctx)
		ibv_close_device(s->ctx);
	free(s->buf);
}

int main(int argc, char **argv)
{
	long bad0;

	verify_args(argc, argv, &verbose);
	b_shadow = malloc(PAGE);
	if (!tap(b_shadow && side_open(&A, dev_name[0], gid_idx[0]) &&
		 side_open(&B, dev_name[1], gid_idx[1]),
		 "setup: %s -> %s", dev_name[0], dev_name[1]))
		goto out;
	memcpy(b_shadow, B.buf, PAGE);
	bad0 = port_counter(dev_name[0], "bad_wqes");

	tap(sq_case(shape_many_sges, IBV_WC_LOC_QP_OP_ERR, "num_sge 65536"),
	    "send WQE with num_sge 65536: LOC_QP_OP_ERR, the next flushed");
	tap(sq_case(shape_huge_inline, IBV_WC_LOC_LEN_ERR, "inline 2 GiB"),
	    "send WQE with 2 GiB of inline data: LOC_LEN_ERR");
	tap(sq_case(shape_bad_opcode, IBV_WC_LOC_QP_OP_ERR, "opcode 0x7f"),
	    "send WQE with opcode 0x7f: LOC_QP_OP_ERR");
	tap(sq_case(shape_reg_mr, IBV_WC_LOC_QP_OP_ERR, "REG_MR"),
	    "send WQE with the kernel's REG_MR opcode: LOC_QP_OP_ERR");
	tap(sq_case(shape_kernel_addr, IBV_WC_LOC_PROT_ERR, "kernel address"),
	    "send WQE with an SGE at a kernel address: LOC_PROT_ERR");
	tap(sq_case(shape_4g_sge, IBV_WC_LOC_PROT_ERR, "4 GiB SGE"),
	    "send WQE with a 4 GiB SGE over a 4 KiB MR: LOC_PROT_ERR");
	tap(sq_prod_ahead(), "send producer index 3 rings ahead: QP_FATAL");
	tap(rq_many_sges(),
	    "receive WQE with num_sge 65536: LOC_QP_OP_ERR, the SEND REM_OP_ERR");
	tap(rq_prod_ahead(),
	    "receive producer index 3 rings ahead: QP_FATAL at the responder");
	tap(still_works(), "afterwards a fresh QP pair WRITEs a page byte-exact");
	tap(bad0 >= 0 && port_counter(dev_name[0], "bad_wqes") >= bad0 + 6,
	    "%s's bad_wqes: %ld -> %ld (6 forged WQEs)", dev_name[0], bad0,
	    port_counter(dev_name[0], "bad_wqes"));
out:
	pair_free();
	side_close(&A);
	side_close(&B);
	free(b_shadow);
	printf("1..%d\n", tap_n);
	return tap_failed ? 1 : 0;
}
