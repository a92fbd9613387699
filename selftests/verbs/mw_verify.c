// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * mw_verify - memory windows over RC, with every byte checked.
 *
 *   mw_verify -d DEV1 -D DEV2 [-g GIDIDX] [-G GIDIDX2] [-R] [-S SEED] [-v]
 *
 * Side A (DEV1) reaches side B's memory (DEV2) only through windows.  B's
 * MR allows local write and binding, and no remote access of its own; A
 * has two RC QPs, a0 and a1, connected to B's b0 and b1.  B binds type 1
 * windows (ibv_bind_mw) and type 2 windows (IBV_WR_BIND_MW) on b0, and
 * the checks are:
 *
 *   - remote WRITE and READ through a window succeed inside it, at its
 *     first and last byte, and fail (remote access error) one byte
 *     outside it, with the old rkey, without the right, through the MR's
 *     own rkey;
 *   - a type 1 window serves every QP of its PD (b1 too), a type 2 window
 *     only the QP that bound it (b1 is refused), and only that QP may
 *     invalidate it remotely (a SEND with Invalidate through b1 fails
 *     with IBV_WC_REM_INV_REQ_ERR and the window stays);
 *   - after a type 1 rebind with length 0, a local invalidation, a SEND
 *     with Invalidate from the peer (the receive reports IBV_WC_WITH_INV
 *     and the rkey) and a dealloc, access fails;
 *   - a bind completes (IBV_WC_BIND_MW, in order) with nothing else
 *     outstanding, and after a WRITE in the same post;
 *   - binds the IBA forbids fail with IBV_WC_MW_BIND_ERR: a bound type 2
 *     window, an MR without MW_BIND, a range beyond the MR, a window of
 *     another PD; invalidating a type 1 window too;
 *   - ibv_dereg_mr() of an MR with a bound window fails with EBUSY, and
 *     works once the window is gone;
 *   - B's counters mw_access_refused and mw_op_errors moved;
 *   - with -R (security review G4): a type 2 window bound to b0 refuses
 *     a QP of another PD that got b0's number once b0 was destroyed (as
 *     many QP creations as B has QP numbers: 65536 on sroce).
 *
 * B's whole buffer, including a guard page on each side of the MR, has a
 * shadow copy; after every operation it is compared in full, so a write
 * that went through a window it should not have is caught.  A failed
 * access leaves both QPs in ERROR: the pair is reset and reconnected.
 * Output is TAP.
 */
#include <endian.h>
#include <errno.h>
#include <getopt.h>
#include <sched.h>
#include <inttypes.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include <infiniband/verbs.h>

#include "common.h"

#define PAGE		4096
#define BUF_LEN		(16 * PAGE)	/* B: guard page, MR, guard page */
#define MR_OFF		PAGE
#define MR_LEN		(BUF_LEN - 2 * PAGE)
#define NQP		2
#define TIMEOUT_S	10

static struct {
	const char *dev[2];
	int gidx[2];
	uint64_t seed;
	bool verbose;
	bool reuse;
} opt = { .gidx = { 0, 0 } };


static uint64_t rng;

static uint64_t rnd64(void)
{
	rng ^= rng >> 12;
	rng ^= rng << 25;
	rng ^= rng >> 27;
	return rng * 0x2545f4914f6cdd1dULL;
}

static void rnd_fill(uint8_t *p, size_t len)
{
	size_t i;

	for (i = 0; i < len; i++)
		p[i] = rnd64() >> 56;
}

/* ------------------------------------------------------------------ */
/* Sides                                                               */
/* ------------------------------------------------------------------ */

struct side {
	char name;
	struct ibv_context *ctx;
	struct ibv_pd *pd;
	struct ibv_cq *scq, *rcq;
	struct ibv_qp *qp[NQP];
	uint32_t psn[NQP];
	union ibv_gid gid;
	int gidx;
	uint8_t *buf, *shadow;		/* B: checked in full */
	struct ibv_mr *mr;		/* A: source/sink; B: the windows' MR */
	struct ibv_mr *plain;		/* B: an MR without MW_BIND */
	uint8_t *rbuf;			/* B: receive buffer */
	struct ibv_mr *rmr;
};

static struct side A = { .name = 'A' }, B = { .name = 'B' };
static uint64_t wr_seq;

static double now(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec + ts.tv_nsec / 1e9;
}

static int poll_one(struct ibv_cq *cq, struct ibv_wc *wc)
{
	double end = now() + TIMEOUT_S;
	int n;

	for (;;) {
		n = ibv_poll_cq(cq, 1, wc);
		if (n)
			return n < 0 ? EIO : 0;
		if (now() > end)
			return ETIMEDOUT;
		usleep(20);
	}
}

static void wc_print(const char *what, const struct ibv_wc *wc)
{
	diag("%s: wr_id %" PRIu64 " status %s opcode %d byte_len %u wc_flags %#x imm/rkey %#x qp %#x",
	     what, wc->wr_id, ibv_wc_status_str(wc->status), wc->opcode,
	     wc->byte_len, wc->wc_flags, wc->imm_data, wc->qp_num);
}

/*
 * The next completion on @cq must be @wr_id with @status (and, when it
 * succeeded, @opcode).
 */
static bool wc_expect(struct ibv_cq *cq, const char *what, uint64_t wr_id,
		      enum ibv_wc_status status, enum ibv_wc_opcode opcode,
		      struct ibv_wc *out)
{
	struct ibv_wc wc;
	int ret = poll_one(cq, &wc);

	if (ret) {
		diag("%s: no completion (%s)", what, strerror(ret));
		return false;
	}
	if (out)
		*out = wc;
	if (wc.wr_id == wr_id && wc.status == status &&
	    (status != IBV_WC_SUCCESS || wc.opcode == opcode)) {
		if (opt.verbose)
			wc_print(what, &wc);
		return true;
	}
	wc_print(what, &wc);
	diag("%s: want wr_id %" PRIu64 " status %s opcode %d", what, wr_id,
	     ibv_wc_status_str(status), opcode);
	return false;
}

static struct ibv_context *dev_open(const char *name)
{
	struct ibv_device **list = ibv_get_device_list(NULL);
	struct ibv_context *ctx = NULL;
	int i;

	for (i = 0; list && list[i]; i++)
		if (!strcmp(ibv_get_device_name(list[i]), name))
			ctx = ibv_open_device(list[i]);
	if (list)
		ibv_free_device_list(list);
	if (!ctx)
		diag("cannot open %s: %s", name, strerror(errno ?: ENODEV));
	return ctx;
}

/* An RC QP of @s's on its CQs, in @pd. */
static struct ibv_qp *qp_create(struct side *s, struct ibv_pd *pd)
{
	struct ibv_qp_init_attr init = {
		.qp_type = IBV_QPT_RC, .send_cq = s->scq, .recv_cq = s->rcq,
		.cap = { .max_send_wr = 16, .max_recv_wr = 16,
			 .max_send_sge = 1, .max_recv_sge = 1,
			 .max_inline_data = 64 },
	};

	return ibv_create_qp(pd, &init);
}

static int side_setup(struct side *s, const char *dev, int gidx)
{
	int i;

	s->ctx = dev_open(dev);
	if (!s->ctx)
		return ENODEV;
	s->gidx = gidx;
	if (ibv_query_gid(s->ctx, 1, gidx, &s->gid))
		return errno ?: EINVAL;
	s->pd = ibv_alloc_pd(s->ctx);
	s->scq = ibv_create_cq(s->ctx, 64, NULL, NULL, 0);
	s->rcq = ibv_create_cq(s->ctx, 64, NULL, NULL, 0);
	if (!s->pd || !s->scq || !s->rcq)
		return errno ?: ENOMEM;
	for (i = 0; i < NQP; i++) {
		s->qp[i] = qp_create(s, s->pd);
		if (!s->qp[i])
			return errno ?: ENOMEM;
	}
	s->buf = aligned_alloc(PAGE, BUF_LEN);
	s->shadow = malloc(BUF_LEN);
	s->rbuf = aligned_alloc(PAGE, PAGE);
	if (!s->buf || !s->shadow || !s->rbuf)
		return ENOMEM;
	rnd_fill(s->buf, BUF_LEN);
	memcpy(s->shadow, s->buf, BUF_LEN);
	return 0;
}

static void side_teardown(struct side *s)
{
	int i;

	for (i = 0; i < NQP; i++)
		if (s->qp[i])
			ibv_destroy_qp(s->qp[i]);
	if (s->mr)
		ibv_dereg_mr(s->mr);
	if (s->plain)
		ibv_dereg_mr(s->plain);
	if (s->rmr)
		ibv_dereg_mr(s->rmr);
	if (s->scq)
		ibv_destroy_cq(s->scq);
	if (s->rcq)
		ibv_destroy_cq(s->rcq);
	if (s->pd)
		ibv_dealloc_pd(s->pd);
	if (s->ctx)
		ibv_close_device(s->ctx);
	free(s->buf);
	free(s->shadow);
	free(s->rbuf);
}

static int qp_modify(struct ibv_qp *qp, struct ibv_qp_attr *a, int mask)
{
	int ret = ibv_modify_qp(qp, a, mask);

	if (ret)
		diag("modify_qp to state %d: %s", a->qp_state, strerror(ret));
	return ret;
}

static int qp_connect(struct side *s, struct side *peer, int i)
{
	struct ibv_qp_attr a = {
		.qp_state = IBV_QPS_RESET,
	};

	if (qp_modify(s->qp[i], &a, IBV_QP_STATE))
		return -1;
	a = (struct ibv_qp_attr){
		.qp_state = IBV_QPS_INIT, .port_num = 1,
		.qp_access_flags = IBV_ACCESS_LOCAL_WRITE |
				   IBV_ACCESS_REMOTE_WRITE |
				   IBV_ACCESS_REMOTE_READ,
	};
	if (qp_modify(s->qp[i], &a, IBV_QP_STATE | IBV_QP_PKEY_INDEX |
		      IBV_QP_PORT | IBV_QP_ACCESS_FLAGS))
		return -1;
	a = (struct ibv_qp_attr){
		.qp_state = IBV_QPS_RTR, .path_mtu = IBV_MTU_1024,
		.dest_qp_num = peer->qp[i]->qp_num, .rq_psn = peer->psn[i],
		.max_dest_rd_atomic = 4, .min_rnr_timer = 12,
		.ah_attr = {
			.is_global = 1, .port_num = 1,
			.grh = { .dgid = peer->gid, .sgid_index = s->gidx,
				 .hop_limit = 64 },
		},
	};
	if (qp_modify(s->qp[i], &a, IBV_QP_STATE | IBV_QP_AV |
		      IBV_QP_PATH_MTU | IBV_QP_DEST_QPN | IBV_QP_RQ_PSN |
		      IBV_QP_MAX_DEST_RD_ATOMIC | IBV_QP_MIN_RNR_TIMER))
		return -1;
	a = (struct ibv_qp_attr){
		.qp_state = IBV_QPS_RTS, .sq_psn = s->psn[i], .timeout = 14,
		.retry_cnt = 7, .rnr_retry = 7, .max_rd_atomic = 4,
	};
	return qp_modify(s->qp[i], &a, IBV_QP_STATE | IBV_QP_SQ_PSN |
			 IBV_QP_TIMEOUT | IBV_QP_RETRY_CNT | IBV_QP_RNR_RETRY |
			 IBV_QP_MAX_QP_RD_ATOMIC);
}

static void cq_drain(struct ibv_cq *cq)
{
	struct ibv_wc wc;

	while (ibv_poll_cq(cq, 1, &wc) > 0)
		if (opt.verbose)
			wc_print("drained", &wc);
}

/* Pair @i anew (after an error took it down): fresh PSNs, empty CQs. */
static bool pair_connect(int i)
{
	A.psn[i] = rnd64() & 0xffffff;
	B.psn[i] = rnd64() & 0xffffff;
	if (qp_connect(&A, &B, i) || qp_connect(&B, &A, i))
		return false;
	usleep(50000);		/* flushes of the old incarnation */
	cq_drain(A.scq);
	cq_drain(A.rcq);
	cq_drain(B.scq);
	cq_drain(B.rcq);
	return true;
}

/* ------------------------------------------------------------------ */
/* Operations                                                          */
/* ------------------------------------------------------------------ */

/* B's byte at @va (an address inside B.buf). */
static size_t b_off(uint64_t va)
{
	return va - (uintptr_t)B.buf;
}

static uint64_t mr_va(size_t off)
{
	return (uintptr_t)B.buf + MR_OFF + off;
}

static bool b_intact(const char *what)
{
	size_t i;

	for (i = 0; i < BUF_LEN; i++)
		if (B.buf[i] != B.shadow[i]) {
			diag("%s: B's byte %zu (MR offset %zd) is %#x, want %#x",
			     what, i, (ssize_t)i - MR_OFF, B.buf[i],
			     B.shadow[i]);
			return false;
		}
	return true;
}

/*
 * RDMA WRITE (or READ) of @len bytes at B's @va with @rkey, through A's
 * QP @qi; the completion must have @want.  What a WRITE that must succeed
 * puts in B's memory goes into the shadow too; a READ's data must be
 * B's.  B's memory is checked in full either way.  A failure takes the
 * pair down: it is reconnected.
 */
static bool rdma(int qi, enum ibv_wr_opcode op, uint32_t rkey, uint64_t va,
		 uint32_t len, enum ibv_wc_status want, const char *what)
{
	struct ibv_sge sge = {
		.addr = (uintptr_t)A.buf, .length = len, .lkey = A.mr->lkey,
	};
	struct ibv_send_wr wr = {
		.wr_id = ++wr_seq, .opcode = op, .sg_list = &sge, .num_sge = 1,
		.send_flags = IBV_SEND_SIGNALED,
		.wr.rdma = { .remote_addr = va, .rkey = rkey },
	}, *bad;
	bool ok;
	int ret;

	rnd_fill(A.buf, len);
	ret = ibv_post_send(A.qp[qi], &wr, &bad);
	if (ret) {
		diag("%s: post_send: %s", what, strerror(ret));
		return false;
	}
	ok = wc_expect(A.scq, what, wr.wr_id, want,
		       op == IBV_WR_RDMA_READ ? IBV_WC_RDMA_READ :
						IBV_WC_RDMA_WRITE, NULL);
	if (ok && want == IBV_WC_SUCCESS && op == IBV_WR_RDMA_WRITE)
		memcpy(B.shadow + b_off(va), A.buf, len);
	if (ok && want == IBV_WC_SUCCESS && op == IBV_WR_RDMA_READ &&
	    memcmp(A.buf, B.buf + b_off(va), len)) {
		diag("%s: READ returned other bytes than B holds", what);
		ok = false;
	}
	ok &= b_intact(what);
	if (want != IBV_WC_SUCCESS || !ok)
		ok &= pair_connect(qi);
	return ok;
}

static bool write_ok(int qi, uint32_t rkey, uint64_t va, uint32_t len,
		     const char *what)
{
	return rdma(qi, IBV_WR_RDMA_WRITE, rkey, va, len, IBV_WC_SUCCESS,
		    what);
}

static bool write_refused(int qi, uint32_t rkey, uint64_t va, uint32_t len,
			  const char *what)
{
	return rdma(qi, IBV_WR_RDMA_WRITE, rkey, va, len,
		    IBV_WC_REM_ACCESS_ERR, what);
}

/* A window's range: first and last byte, all of it, READ too. */
static bool window_works(int qi, uint32_t rkey, uint64_t va, uint32_t len,
			 bool can_read)
{
	bool ok = true;

	ok &= write_ok(qi, rkey, va, 1, "WRITE its first byte");
	ok &= write_ok(qi, rkey, va + len - 1, 1, "WRITE its last byte");
	ok &= write_ok(qi, rkey, va, len, "WRITE all of it");
	ok &= write_ok(qi, rkey, va + len / 3, len / 3, "WRITE inside it");
	if (can_read)
		ok &= rdma(qi, IBV_WR_RDMA_READ, rkey, va + 7, len - 7,
			   IBV_WC_SUCCESS, "READ it back");
	return ok;
}

/* Post @wr on b0 and expect its completion. */
static bool b_post(struct ibv_send_wr *wr, enum ibv_wc_status want,
		   enum ibv_wc_opcode opcode, const char *what)
{
	struct ibv_send_wr *bad;
	int ret;

	wr->wr_id = ++wr_seq;
	wr->send_flags |= IBV_SEND_SIGNALED;
	ret = ibv_post_send(B.qp[0], wr, &bad);
	if (ret) {
		diag("%s: post_send: %s", what, strerror(ret));
		return false;
	}
	return wc_expect(B.scq, what, wr->wr_id, want, opcode, NULL);
}

static bool bind2(struct ibv_mw *mw, uint32_t *rkey, struct ibv_mr *mr,
		  uint64_t va, uint64_t len, unsigned int access,
		  enum ibv_wc_status want, const char *what)
{
	struct ibv_send_wr wr = {
		.opcode = IBV_WR_BIND_MW,
		.bind_mw = {
			.mw = mw, .rkey = ibv_inc_rkey(*rkey),
			.bind_info = { .mr = mr, .addr = va, .length = len,
				       .mw_access_flags = access },
		},
	};

	if (!b_post(&wr, want, IBV_WC_BIND_MW, what))
		return false;
	if (want == IBV_WC_SUCCESS)
		*rkey = wr.bind_mw.rkey;
	return true;
}

static bool bind1(struct ibv_mw *mw, uint64_t va, uint64_t len,
		  unsigned int access, enum ibv_wc_status want,
		  const char *what)
{
	struct ibv_mw_bind bind = {
		.wr_id = ++wr_seq, .send_flags = IBV_SEND_SIGNALED,
		.bind_info = { .mr = B.mr, .addr = va, .length = len,
			       .mw_access_flags = access },
	};
	uint32_t old = mw->rkey;
	int ret;

	ret = ibv_bind_mw(B.qp[0], mw, &bind);
	if (ret) {
		diag("%s: ibv_bind_mw: %s", what, strerror(ret));
		return false;
	}
	if (mw->rkey != ibv_inc_rkey(old)) {
		diag("%s: mw->rkey %#x, want %#x", what, mw->rkey,
		     ibv_inc_rkey(old));
		return false;
	}
	return wc_expect(B.scq, what, bind.wr_id, want, IBV_WC_BIND_MW, NULL);
}

static bool local_inv(uint32_t rkey, enum ibv_wc_status want,
		      const char *what)
{
	struct ibv_send_wr wr = {
		.opcode = IBV_WR_LOCAL_INV, .invalidate_rkey = rkey,
	};

	return b_post(&wr, want, IBV_WC_LOCAL_INV, what);
}

/* A SEND with Invalidate of @rkey from a0 into a receive on b0. */
/* A SEND with Invalidate of @rkey from a@qi to b@qi. */
static bool send_inv(int qi, uint32_t rkey, bool valid, const char *what)
{
	struct ibv_sge rsge = {
		.addr = (uintptr_t)B.rbuf, .length = 64, .lkey = B.rmr->lkey,
	}, sge = {
		.addr = (uintptr_t)A.buf, .length = 24, .lkey = A.mr->lkey,
	};
	struct ibv_recv_wr rwr = {
		.wr_id = ++wr_seq, .sg_list = &rsge, .num_sge = 1,
	}, *rbad;
	struct ibv_send_wr wr = {
		.wr_id = ++wr_seq, .opcode = IBV_WR_SEND_WITH_INV,
		.sg_list = &sge, .num_sge = 1,
		.send_flags = IBV_SEND_SIGNALED, .invalidate_rkey = rkey,
	}, *bad;
	struct ibv_wc wc;
	bool ok;

	rnd_fill(A.buf, 24);
	if (ibv_post_recv(B.qp[qi], &rwr, &rbad) ||
	    ibv_post_send(A.qp[qi], &wr, &bad)) {
		diag("%s: post failed", what);
		return false;
	}
	if (!valid) {
		ok = wc_expect(A.scq, what, wr.wr_id, IBV_WC_REM_INV_REQ_ERR,
			       IBV_WC_SEND, NULL);
		ok &= wc_expect(B.rcq, what, rwr.wr_id, IBV_WC_REM_INV_REQ_ERR,
				IBV_WC_RECV, NULL);
		return pair_connect(qi) && ok;
	}
	ok = wc_expect(A.scq, what, wr.wr_id, IBV_WC_SUCCESS, IBV_WC_SEND,
		       NULL);
	ok &= wc_expect(B.rcq, what, rwr.wr_id, IBV_WC_SUCCESS, IBV_WC_RECV,
			&wc);
	if (ok && (!(wc.wc_flags & IBV_WC_WITH_INV) ||
		   wc.invalidated_rkey != rkey || wc.byte_len != 24 ||
		   memcmp(B.rbuf, A.buf, 24))) {
		wc_print(what, &wc);
		diag("%s: want IBV_WC_WITH_INV, rkey %#x, 24 bytes as sent",
		     what, rkey);
		ok = false;
	}
	return ok;
}

/* ------------------------------------------------------------------ */
/* Checks                                                              */
/* ------------------------------------------------------------------ */

static bool check_type1(void)
{
	struct ibv_mw *mw = ibv_alloc_mw(B.pd, IBV_MW_TYPE_1);
	uint64_t va = mr_va(PAGE + 100);
	uint32_t len = 3 * PAGE + 17, old;
	bool ok = true;

	if (!mw) {
		diag("ibv_alloc_mw type 1: %s", strerror(errno));
		return false;
	}
	old = mw->rkey;
	ok &= bind1(mw, va, len, IBV_ACCESS_REMOTE_WRITE |
		    IBV_ACCESS_REMOTE_READ, IBV_WC_SUCCESS, "type 1 bind");
	tap(ok && window_works(0, mw->rkey, va, len, true),
	    "type 1: WRITE/READ inside the window, every byte checked");
	tap(window_works(1, mw->rkey, va, len, true),
	    "type 1: the other QP of the PD may use it too");
	tap(write_refused(0, mw->rkey, va + len - 1, 2,
			  "one byte past its end") &&
	    write_refused(0, mw->rkey, va - 1, 2, "one byte before it") &&
	    rdma(0, IBV_WR_RDMA_READ, mw->rkey, va + len, 1,
		 IBV_WC_REM_ACCESS_ERR, "READ past it"),
	    "type 1: outside the window: remote access error, nothing written");
	tap(write_refused(0, old, va, 8, "the rkey before the bind") &&
	    write_refused(0, B.mr->rkey, va, 8, "the MR's own rkey"),
	    "type 1: the old rkey and the MR's rkey are refused");
	old = mw->rkey;
	ok = bind1(mw, va, PAGE, IBV_ACCESS_REMOTE_READ, IBV_WC_SUCCESS,
		   "type 1 rebind, read only");
	tap(ok && write_refused(0, mw->rkey, va, 8, "WRITE, no right") &&
	    rdma(0, IBV_WR_RDMA_READ, mw->rkey, va, PAGE, IBV_WC_SUCCESS,
		 "READ, right") &&
	    write_refused(0, old, va, 8, "previous binding's rkey"),
	    "type 1: rebound read-only: WRITE refused, READ works, old key dead");
	ok = bind1(mw, 0, 0, 0, IBV_WC_SUCCESS, "type 1 unbind (length 0)");
	tap(ok && rdma(0, IBV_WR_RDMA_READ, mw->rkey, va, 8,
		       IBV_WC_REM_ACCESS_ERR, "READ after unbind"),
	    "type 1: bound to length 0: access refused");
	ok = bind1(mw, va, PAGE, IBV_ACCESS_REMOTE_WRITE, IBV_WC_SUCCESS,
		   "type 1 bind again");
	tap(ok && local_inv(mw->rkey, IBV_WC_MW_BIND_ERR,
			    "LOCAL_INV of a type 1 window") &&
	    pair_connect(0) && write_ok(0, mw->rkey, va, 8, "still bound"),
	    "type 1: local invalidation refused (MW_BIND_ERR), window stays");
	tap(!ibv_dealloc_mw(mw) &&
	    write_refused(0, mw->rkey, va, 8, "after dealloc"),
	    "type 1: deallocated while bound: access refused");
	return true;
}

static bool check_type2(void)
{
	struct ibv_mw *mw = ibv_alloc_mw(B.pd, IBV_MW_TYPE_2);
	uint64_t va = mr_va(5 * PAGE - 3);
	uint32_t len = 2 * PAGE + 6, key, old;
	struct ibv_send_wr wr[2];
	bool ok;
	int ret;

	if (!mw) {
		diag("ibv_alloc_mw type 2: %s", strerror(errno));
		return false;
	}
	key = mw->rkey;
	ok = bind2(mw, &key, B.mr, va, len, IBV_ACCESS_REMOTE_WRITE |
		   IBV_ACCESS_REMOTE_READ, IBV_WC_SUCCESS, "type 2 bind");
	tap(ok && window_works(0, key, va, len, true),
	    "type 2: WRITE/READ inside the window, every byte checked");
	tap(write_refused(1, key, va, 8, "through b1"),
	    "type 2: another QP of the PD is refused (bound to b0)");
	tap(write_refused(0, key, va + len - 4, 8, "past its end"),
	    "type 2: outside the window: refused");
	tap(bind2(mw, &key, B.mr, va, 8, IBV_ACCESS_REMOTE_WRITE,
		  IBV_WC_MW_BIND_ERR, "bind a bound type 2 window") &&
	    pair_connect(0) && write_ok(0, key, va, 8, "still bound"),
	    "type 2: binding it again while bound: MW_BIND_ERR, binding stays");

	/* Dereg of a held MR: EBUSY, and nothing changes. */
	ret = ibv_dereg_mr(B.mr);
	tap(ret == EBUSY && write_ok(0, key, va, 8, "after the refused dereg"),
	    "ibv_dereg_mr with a bound window: EBUSY (got %d)", ret);

	old = key;
	ok = local_inv(key, IBV_WC_SUCCESS, "LOCAL_INV");
	tap(ok && write_refused(0, old, va, 8, "after LOCAL_INV"),
	    "type 2: locally invalidated: access refused");
	tap(local_inv(old, IBV_WC_MW_BIND_ERR, "LOCAL_INV again") &&
	    pair_connect(0), "type 2: invalidating a free window: MW_BIND_ERR");

	ok = bind2(mw, &key, B.mr, va, len, IBV_ACCESS_REMOTE_WRITE,
		   IBV_WC_SUCCESS, "bind after LOCAL_INV");
	tap(ok && write_ok(0, key, va, len, "rebound") &&
	    send_inv(1, key, false, "SEND with Invalidate through b1") &&
	    write_ok(0, key, va, 8, "after b1's attempt"),
	    "type 2: remote invalidation through another QP (b1): REM_INV_REQ_ERR, the window stays");
	tap(send_inv(0, key, true, "SEND with Invalidate") &&
	    write_refused(0, key, va, 8, "after SEND with Invalidate"),
	    "type 2: SEND with Invalidate: receive has WITH_INV and the rkey, then access refused");
	tap(send_inv(0, key, false, "SEND with Invalidate of a free window"),
	    "type 2: remote invalidation of a free window: REM_INV_REQ_ERR both sides");

	/* A LOCAL_INV and a bind in one post: both, in order. */
	ok = bind2(mw, &key, B.mr, va, len, IBV_ACCESS_REMOTE_WRITE,
		   IBV_WC_SUCCESS, "bind after SEND with Invalidate");
	memset(wr, 0, sizeof(wr));
	wr[0] = (struct ibv_send_wr){
		.wr_id = ++wr_seq, .opcode = IBV_WR_LOCAL_INV,
		.send_flags = IBV_SEND_SIGNALED, .invalidate_rkey = key,
		.next = &wr[1],
	};
	wr[1] = (struct ibv_send_wr){
		.wr_id = ++wr_seq, .opcode = IBV_WR_BIND_MW,
		.send_flags = IBV_SEND_SIGNALED,
		.bind_mw = { .mw = mw, .rkey = ibv_inc_rkey(key),
			     .bind_info = { .mr = B.mr, .addr = va,
					    .length = PAGE,
					    .mw_access_flags =
						IBV_ACCESS_REMOTE_WRITE } },
	};
	if (ok) {
		struct ibv_send_wr *bad;

		ok = !ibv_post_send(B.qp[0], wr, &bad) &&
		     wc_expect(B.scq, "LOCAL_INV in a list", wr[0].wr_id,
			       IBV_WC_SUCCESS, IBV_WC_LOCAL_INV, NULL) &&
		     wc_expect(B.scq, "BIND_MW after it", wr[1].wr_id,
			       IBV_WC_SUCCESS, IBV_WC_BIND_MW, NULL);
		old = key;
		key = wr[1].bind_mw.rkey;
	}
	tap(ok && write_ok(0, key, va, PAGE, "new binding") &&
	    write_refused(0, old, va, 8, "old key"),
	    "type 2: LOCAL_INV + BIND_MW in one post complete in order");

	tap(!ibv_dealloc_mw(mw) &&
	    write_refused(0, key, va, 8, "after dealloc"),
	    "type 2: deallocated while bound: access refused");
	return true;
}

/* After a data WQE of b0's: a bind completes in order behind it. */
static bool check_bind_order(void)
{
	struct ibv_mw *mw = ibv_alloc_mw(B.pd, IBV_MW_TYPE_2);
	uint8_t *dst = A.buf + 2 * PAGE;
	struct ibv_sge sge = {
		.addr = (uintptr_t)B.buf + MR_OFF, .length = 3000,
		.lkey = B.mr->lkey,
	};
	struct ibv_send_wr wr[2] = {
		{ .wr_id = ++wr_seq, .opcode = IBV_WR_RDMA_WRITE,
		  .sg_list = &sge, .num_sge = 1,
		  .send_flags = IBV_SEND_SIGNALED,
		  .wr.rdma = { .remote_addr = (uintptr_t)dst,
			       .rkey = A.mr->rkey },
		  .next = &wr[1] },
		{ .wr_id = ++wr_seq, .opcode = IBV_WR_BIND_MW,
		  .send_flags = IBV_SEND_SIGNALED },
	}, *bad;
	bool ok;

	if (!mw)
		return false;
	wr[1].bind_mw.mw = mw;
	wr[1].bind_mw.rkey = ibv_inc_rkey(mw->rkey);
	wr[1].bind_mw.bind_info = (struct ibv_mw_bind_info){
		.mr = B.mr, .addr = mr_va(0), .length = MR_LEN,
		.mw_access_flags = IBV_ACCESS_REMOTE_READ,
	};
	ok = !ibv_post_send(B.qp[0], wr, &bad) &&
	     wc_expect(B.scq, "b0's WRITE", wr[0].wr_id, IBV_WC_SUCCESS,
		       IBV_WC_RDMA_WRITE, NULL) &&
	     wc_expect(B.scq, "BIND_MW behind it", wr[1].wr_id,
		       IBV_WC_SUCCESS, IBV_WC_BIND_MW, NULL) &&
	     !memcmp(dst, B.buf + MR_OFF, 3000);
	tap(ok && rdma(0, IBV_WR_RDMA_READ, wr[1].bind_mw.rkey, mr_va(0),
		       MR_LEN, IBV_WC_SUCCESS, "READ the whole MR"),
	    "a bind posted behind a WRITE completes after it, then serves");
	ibv_dealloc_mw(mw);
	return ok;
}

/* What the IBA forbids a bind: MW_BIND_ERR, QP to ERROR. */
static void check_bind_errors(void)
{
	struct ibv_mw *mw = ibv_alloc_mw(B.pd, IBV_MW_TYPE_2);
	struct ibv_pd *pd2 = ibv_alloc_pd(B.ctx);
	struct ibv_mw *other = pd2 ? ibv_alloc_mw(pd2, IBV_MW_TYPE_2) : NULL;
	uint32_t key;

	if (!mw || !other) {
		tap(false, "bind errors: cannot allocate windows: %s",
		    strerror(errno));
		return;
	}
	key = mw->rkey;
	tap(bind2(mw, &key, B.plain, (uintptr_t)B.rbuf + PAGE / 2, 16,
		  IBV_ACCESS_REMOTE_READ, IBV_WC_MW_BIND_ERR,
		  "MR without MW_BIND") && pair_connect(0),
	    "bind to an MR without MW_BIND access: MW_BIND_ERR");
	tap(bind2(mw, &key, B.mr, mr_va(MR_LEN - 8), 16,
		  IBV_ACCESS_REMOTE_READ, IBV_WC_MW_BIND_ERR,
		  "range beyond the MR") && pair_connect(0),
	    "bind beyond the MR's end: MW_BIND_ERR");
	key = other->rkey;
	tap(bind2(other, &key, B.mr, mr_va(0), 16, IBV_ACCESS_REMOTE_READ,
		  IBV_WC_MW_BIND_ERR, "window of another PD") &&
	    pair_connect(0),
	    "bind a window of another PD: MW_BIND_ERR");
	ibv_dealloc_mw(other);
	ibv_dealloc_pd(pd2);
	ibv_dealloc_mw(mw);
}

/*
 * G4: a type 2 window outlives the QP it is bound to, and the window
 * knows that QP by address and number.  sroce hands QP numbers 0x10 to
 * 0x1000f out in turn (sroce.h, SROCE_MAX_QP), so QPs of another PD are
 * made and destroyed until the next number is b0's.  Then b0 goes, and
 * the next QP gets its number and its memory: the slab gives the object
 * freed last on this CPU back first, if it lies in the CPU's current
 * slab page, hence a b0 made anew here on this CPU, just before.  That
 * QP must not reach B's memory through the window.
 */
#define QPN_FIRST	0x10
#define QPN_COUNT	0x10000

/* The number handed out last before @qpn, skipping b1's (held). */
static uint32_t qpn_before(uint32_t qpn)
{
	do
		qpn = qpn == QPN_FIRST ? QPN_FIRST + QPN_COUNT - 1 : qpn - 1;
	while (qpn == B.qp[1]->qp_num);
	return qpn;
}

/*
 * Make and destroy QPs in @pd until one gets @qpn: that one is kept and
 * returned.
 */
static struct ibv_qp *qp_advance_to(struct ibv_pd *pd, uint32_t qpn,
				    int *made)
{
	struct ibv_qp *qp;

	for (*made = 1; *made <= QPN_COUNT + 64; ++*made) {
		qp = qp_create(&B, pd);
		if (!qp || qp->qp_num == qpn || ibv_destroy_qp(qp))
			return qp && qp->qp_num == qpn ? qp : NULL;
	}
	return NULL;
}

static void stay_on_this_cpu(void)
{
	int cpu = sched_getcpu();
	cpu_set_t set;

	CPU_ZERO(&set);
	CPU_SET(cpu < 0 ? 0 : cpu, &set);
	if (sched_setaffinity(0, sizeof(set), &set))
		diag("sched_setaffinity: %s", strerror(errno));
}

static void check_type2_reuse(void)
{
	struct ibv_mw *mw = ibv_alloc_mw(B.pd, IBV_MW_TYPE_2);
	struct ibv_pd *pd2 = ibv_alloc_pd(B.ctx);
	uint64_t va = mr_va(3 * PAGE);
	struct ibv_qp *qp = NULL, *last;
	uint32_t key, qpn = 0;
	bool ok;
	int made = 0;

	if (!mw || !pd2) {
		tap(false, "QP number reuse: cannot allocate: %s",
		    strerror(errno));
		return;
	}
	stay_on_this_cpu();
	ibv_destroy_qp(B.qp[0]);
	B.qp[0] = qp_create(&B, B.pd);
	key = mw->rkey;
	ok = B.qp[0] && pair_connect(0) &&
	     bind2(mw, &key, B.mr, va, PAGE, IBV_ACCESS_REMOTE_WRITE,
		   IBV_WC_SUCCESS, "bind to b0") &&
	     write_ok(0, key, va, 8, "through b0");
	if (ok)
		qpn = B.qp[0]->qp_num;
	/*
	 * Creating a QP takes two objects of its slab size from the CPU's
	 * free list, the QP the second: b0 is freed before the QP made
	 * last, so that it comes second.
	 */
	last = ok ? qp_advance_to(pd2, qpn_before(qpn), &made) : NULL;
	if (last && !ibv_destroy_qp(B.qp[0])) {
		B.qp[0] = NULL;
		ibv_destroy_qp(last);
		qp = qp_create(&B, pd2);
	}
	ok = ok && qp && qp->qp_num == qpn;
	if (ok) {
		B.qp[0] = qp;
		ok = pair_connect(0) &&
		     write_refused(0, key, va, 8, "through b0's successor");
	}
	if (qp)
		ibv_destroy_qp(qp);
	tap(ok, "type 2 window of dead b0 (QPN %#x): a QP of another PD that got its number after %d creations is refused",
	    qpn, made + 1);
	B.qp[0] = qp_create(&B, B.pd);
	if (!B.qp[0] || !pair_connect(0))
		diag("b0 cannot be made again: %s", strerror(errno));
	ibv_dealloc_mw(mw);
	ibv_dealloc_pd(pd2);
}

static int setup(void)
{
	int ret;

	ret = side_setup(&A, opt.dev[0], opt.gidx[0]);
	if (!ret)
		ret = side_setup(&B, opt.dev[1], opt.gidx[1]);
	if (ret)
		return ret;
	A.mr = ibv_reg_mr(A.pd, A.buf, BUF_LEN, IBV_ACCESS_LOCAL_WRITE |
			  IBV_ACCESS_REMOTE_WRITE);
	/* No remote right of its own: only windows grant any. */
	B.mr = ibv_reg_mr(B.pd, B.buf + MR_OFF, MR_LEN,
			  IBV_ACCESS_LOCAL_WRITE | IBV_ACCESS_MW_BIND);
	B.plain = ibv_reg_mr(B.pd, B.rbuf + PAGE / 2, PAGE / 2,
			     IBV_ACCESS_LOCAL_WRITE);
	B.rmr = ibv_reg_mr(B.pd, B.rbuf, PAGE / 2, IBV_ACCESS_LOCAL_WRITE);
	if (!A.mr || !B.mr || !B.plain || !B.rmr)
		return errno ?: ENOMEM;
	return pair_connect(0) && pair_connect(1) ? 0 : EIO;
}

static void usage(void)
{
	fprintf(stderr, "usage: mw_verify -d DEV1 -D DEV2 [-g GIDIDX] [-G GIDIDX2] [-R] [-S SEED] [-v]\n");
	exit(2);
}

int main(int argc, char **argv)
{
	long refused, errors;
	int c, ret;

	while ((c = getopt(argc, argv, "d:D:g:G:RS:v")) != -1) {
		switch (c) {
		case 'd': opt.dev[0] = optarg; break;
		case 'D': opt.dev[1] = optarg; break;
		case 'g': opt.gidx[0] = atoi(optarg); break;
		case 'G': opt.gidx[1] = atoi(optarg); break;
		case 'S': opt.seed = strtoull(optarg, NULL, 0); break;
		case 'v': opt.verbose = true; break;
		case 'R': opt.reuse = true; break;
		default: usage();
		}
	}
	if (!opt.dev[0] || !opt.dev[1])
		usage();
	setvbuf(stdout, NULL, _IOLBF, 0);
	if (!opt.seed)
		opt.seed = (uint64_t)time(NULL) * 2654435761u ^ getpid();
	rng = opt.seed | 1;
	diag("seed %#" PRIx64, opt.seed);

	ret = setup();
	tap(!ret, "setup: %s <-> %s, two RC QP pairs, B's MR without remote rights (%s)",
	    opt.dev[0], opt.dev[1], strerror(ret));
	if (ret)
		goto out;
	refused = port_counter(opt.dev[1], "mw_access_refused");
	errors = port_counter(opt.dev[1], "mw_op_errors");
	tap(write_refused(0, B.mr->rkey, mr_va(0), 8, "the bare MR"),
	    "the MR's rkey alone grants no remote access");
	check_type1();
	check_type2();
	check_bind_order();
	check_bind_errors();
	if (opt.reuse)
		check_type2_reuse();
	ret = ibv_dereg_mr(B.mr);
	tap(!ret, "ibv_dereg_mr once its windows are gone (%s)", strerror(ret));
	if (!ret)
		B.mr = NULL;
	tap(port_counter(opt.dev[1], "mw_access_refused") > refused &&
	    port_counter(opt.dev[1], "mw_op_errors") > errors && refused >= 0,
	    "%s counters: mw_access_refused %ld -> %ld, mw_op_errors %ld -> %ld",
	    opt.dev[1], refused, port_counter(opt.dev[1], "mw_access_refused"),
	    errors, port_counter(opt.dev[1], "mw_op_errors"));
out:
	side_teardown(&A);
	side_teardown(&B);
	printf("1..%d\n", tap_n);
	return tap_failed ? 1 : 0;
}
