// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * access_verify - the MR and AH rules of a provider, over real verbs,
 * with every byte of the target memory checked.
 *
 *   access_verify -d DEV1 -D DEV2 [-g GIDIDX] [-G GIDIDX2] [-v]
 *
 * Side A (DEV1) is the requester, side B (DEV2) the responder, over one
 * RC QP pair and one UD QP pair.  B registers five MRs over one buffer,
 * one page each, between guard pages: all rights; no REMOTE_WRITE; no
 * REMOTE_READ or REMOTE_ATOMIC; all rights but in a second PD; and no
 * rights at all.  A sixth MR is registered and deregistered, its rkey
 * kept.  The checks (Documentation/security.rst, G13, G15, G16):
 *
 *   - remote (G13): a WRITE, a READ and an atomic the MR allows work; the
 *     same without the right, through the rkey of an MR of another PD,
 *     through a deregistered rkey, or one byte past the MR, complete with
 *     IBV_WC_REM_ACCESS_ERR; a SEND with Invalidate of a plain MR's rkey
 *     completes with IBV_WC_REM_INV_REQ_ERR and the MR still works;
 *     ibv_reg_mr() with a remote write or atomic right but no
 *     LOCAL_WRITE fails with EINVAL;
 *   - local (G16): a send whose SGE has a made-up lkey, the lkey of an MR
 *     of another PD, or runs past its MR, a READ into an MR without
 *     LOCAL_WRITE, and a receive into one, complete with
 *     IBV_WC_LOC_PROT_ERR (the peer's SEND with IBV_WC_REM_OP_ERR);
 *   - the AH's PD (G15): a UD send through an AH of another PD fails and
 *     nothing arrives; the same send through an AH of the QP's PD arrives.
 *
 * After every operation all of B's buffer and A's landing page are
 * compared with shadow copies: a refused access must change nothing.  An
 * error takes the RC pair down; it is reset and reconnected before the
 * next check.  B's counter mr_access_refused must have moved.  TAP.
 */
#include <errno.h>
#include <inttypes.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <infiniband/verbs.h>

#include "common.h"

#define PAGE		4096
#define QKEY		0x11111111
#define GRH_LEN		40
#define WAIT_MS		10000
/* How long a refused UD datagram is given to show up anyway. */
#define UD_QUIET_MS	500

/* B's MRs, one page each after a guard page, in this order. */
enum { MR_ALL, MR_NO_WRITE, MR_NO_READ, MR_OTHER_PD, MR_NONE, NR_MR };
#define B_LEN		((NR_MR + 2) * PAGE)

static const int b_access[NR_MR] = {
	[MR_ALL] = IBV_ACCESS_LOCAL_WRITE | IBV_ACCESS_REMOTE_WRITE |
		   IBV_ACCESS_REMOTE_READ | IBV_ACCESS_REMOTE_ATOMIC,
	[MR_NO_WRITE] = IBV_ACCESS_LOCAL_WRITE | IBV_ACCESS_REMOTE_READ |
			IBV_ACCESS_REMOTE_ATOMIC,
	[MR_NO_READ] = IBV_ACCESS_LOCAL_WRITE | IBV_ACCESS_REMOTE_WRITE,
	[MR_OTHER_PD] = IBV_ACCESS_LOCAL_WRITE | IBV_ACCESS_REMOTE_WRITE |
			IBV_ACCESS_REMOTE_READ | IBV_ACCESS_REMOTE_ATOMIC,
	[MR_NONE] = 0,
};

struct side {
	struct ibv_context *ctx;
	struct ibv_pd *pd, *pd2;
	struct ibv_cq *cq;
	struct ibv_qp *rc, *ud;
	union ibv_gid gid;
	int gidx;
	uint32_t psn;
};

static struct side A, B;
static bool verbose;

/* B's buffer and its shadow; B's MRs and a dead rkey. */
static uint8_t *b_buf, *b_shadow;
static struct ibv_mr *b_mr[NR_MR];
static uint32_t b_dead_rkey;
/* A: a work page (LOCAL_WRITE) and its shadow; an MR without LOCAL_WRITE
 * and one in A's second PD, both over a page of their own. */
static uint8_t *a_buf, *a_shadow, *a_ro_buf, *a_other_buf;
static struct ibv_mr *a_mr, *a_ro, *a_other;
static uint64_t seq;

static uint64_t b_va(int mr, size_t off)
{
	return (uintptr_t)b_buf + (size_t)(mr + 1) * PAGE + off;
}

static void fill(uint8_t *p, size_t len, unsigned int seed)
{
	size_t i;

	for (i = 0; i < len; i++)
		p[i] = (uint8_t)(seed * 131 + i * 7 + (i >> 8));
}

/* Both shadows match: no byte changed that the checks did not expect. */
static bool intact(const char *what)
{
	size_t i;

	for (i = 0; i < B_LEN; i++)
		if (b_buf[i] != b_shadow[i]) {
			diag("%s: B's byte %zu (page %zu) is %#x, not %#x",
			     what, i, i / PAGE, b_buf[i], b_shadow[i]);
			return false;
		}
	if (memcmp(a_buf, a_shadow, PAGE)) {
		diag("%s: A's work page changed", what);
		return false;
	}
	return true;
}

/* The RC pair anew: after an error both QPs are in ERROR. */
static bool rc_pair_connect(void)
{
	struct ibv_qp_attr reset = { .qp_state = IBV_QPS_RESET };
	struct rc_peer pa = {
		.qpn = B.rc->qp_num, .gid = B.gid, .sgid_idx = A.gidx,
		.mtu = IBV_MTU_1024, .dest_rd_atomic = 4, .rd_atomic = 4,
	};
	struct rc_peer pb = {
		.qpn = A.rc->qp_num, .gid = A.gid, .sgid_idx = B.gidx,
		.mtu = IBV_MTU_1024, .dest_rd_atomic = 4, .rd_atomic = 4,
	};

	A.psn = (A.psn + 1000003) & 0xffffff;
	B.psn = (B.psn + 999983) & 0xffffff;
	pa.psn = B.psn;
	pa.my_psn = A.psn;
	pb.psn = A.psn;
	pb.my_psn = B.psn;
	if (ibv_modify_qp(A.rc, &reset, IBV_QP_STATE) ||
	    ibv_modify_qp(B.rc, &reset, IBV_QP_STATE))
		return false;
	if (rc_connect_to(A.rc, &pa) || rc_connect_to(B.rc, &pb))
		return false;
	drain_cq(A.cq, verbose);
	drain_cq(B.cq, verbose);
	return true;
}

/* Post @wr on @qp and wait for its completion: its status, or -1. */
static int post_wait(struct ibv_qp *qp, struct ibv_cq *cq,
		     struct ibv_send_wr *wr)
{
	struct ibv_send_wr *bad;
	struct ibv_wc wc;
	int ret;

	wr->wr_id = ++seq;
	wr->send_flags |= IBV_SEND_SIGNALED;
	ret = ibv_post_send(qp, wr, &bad);
	if (ret) {
		diag("ibv_post_send: %s", strerror(ret));
		return -1;
	}
	if (poll_one_ms(cq, &wc, WAIT_MS)) {
		diag("no completion for wr %" PRIu64, wr->wr_id);
		return -1;
	}
	if (wc.wr_id != wr->wr_id) {
		diag("completion of wr %" PRIu64 ", not %" PRIu64,
		     wc.wr_id, wr->wr_id);
		return -1;
	}
	return wc.status;
}

/*
 * One RDMA operation from A: @op of @len bytes at B's @va with @rkey,
 * A's side at @sge.  True if it completed with @want, everything else in
 * memory is as the shadows say, and (after an error) the pair is back.
 */
static bool rdma_op(enum ibv_wr_opcode op, uint32_t rkey, uint64_t va,
		    struct ibv_sge *sge, enum ibv_wc_status want,
		    const char *what)
{
	struct ibv_send_wr wr = {
		.opcode = op, .sg_list = sge, .num_sge = 1,
	};
	int st;

	if (op == IBV_WR_ATOMIC_FETCH_AND_ADD) {
		wr.wr.atomic.remote_addr = va;
		wr.wr.atomic.rkey = rkey;
		wr.wr.atomic.compare_add = 1;
	} else {
		wr.wr.rdma.remote_addr = va;
		wr.wr.rdma.rkey = rkey;
	}
	st = post_wait(A.rc, A.cq, &wr);
	if (st != (int)want)
		diag("%s: %s, not %s", what,
		     st < 0 ? "no completion" : ibv_wc_status_str(st),
		     ibv_wc_status_str(want));
	if (want != IBV_WC_SUCCESS && !rc_pair_connect()) {
		diag("%s: cannot reconnect", what);
		return false;
	}
	return st == (int)want;
}

static struct ibv_sge a_sge(uint32_t len)
{
	return (struct ibv_sge){
		.addr = (uintptr_t)a_buf, .length = len, .lkey = a_mr->lkey,
	};
}

/* A WRITE of @len fresh bytes from A's work page: refused with @want, or
 * (success) landed, which the shadow then expects. */
static bool write_to(int mr, uint32_t rkey, size_t off, uint32_t len,
		     enum ibv_wc_status want, const char *what)
{
	struct ibv_sge sge = a_sge(len);
	bool ok;

	fill(a_buf, len, (unsigned int)++seq);
	memcpy(a_shadow, a_buf, len);
	ok = rdma_op(IBV_WR_RDMA_WRITE, rkey, b_va(mr, off), &sge, want, what);
	if (want == IBV_WC_SUCCESS)
		memcpy(b_shadow + (b_va(mr, off) - (uintptr_t)b_buf),
		       a_buf, len);
	return ok && intact(what);
}

/* A READ of @len bytes into A's work page. */
static bool read_from(int mr, uint32_t rkey, size_t off, uint32_t len,
		      enum ibv_wc_status want, const char *what)
{
	struct ibv_sge sge = a_sge(len);
	bool ok;

	ok = rdma_op(IBV_WR_RDMA_READ, rkey, b_va(mr, off), &sge, want, what);
	if (want == IBV_WC_SUCCESS)
		memcpy(a_shadow, b_buf + (b_va(mr, off) - (uintptr_t)b_buf),
		       len);
	return ok && intact(what);
}

/* A FETCH_AND_ADD of 1 at the start of @mr. */
static bool fadd_at(int mr, uint32_t rkey, enum ibv_wc_status want,
		    const char *what)
{
	struct ibv_sge sge = a_sge(8);
	uint64_t old;
	bool ok;

	ok = rdma_op(IBV_WR_ATOMIC_FETCH_AND_ADD, rkey, b_va(mr, 0), &sge,
		     want, what);
	if (want == IBV_WC_SUCCESS) {
		uint8_t *t = b_shadow + (b_va(mr, 0) - (uintptr_t)b_buf);

		memcpy(&old, t, 8);
		memcpy(a_shadow, &old, 8);
		old++;
		memcpy(t, &old, 8);
	}
	return ok && intact(what);
}

/* Rights that need LOCAL_WRITE beside them. */
static const struct {
	int access;
	const char *name;
} needs_lw[] = {
	{ IBV_ACCESS_REMOTE_WRITE, "REMOTE_WRITE" },
	{ IBV_ACCESS_REMOTE_ATOMIC, "REMOTE_ATOMIC" },
};

static void check_remote(void)
{
	uint32_t all = b_mr[MR_ALL]->rkey;
	struct ibv_mr *mr;
	unsigned int i;

	tap(write_to(MR_ALL, all, 0, PAGE, IBV_WC_SUCCESS, "WRITE") &&
	    read_from(MR_ALL, all, 100, 512, IBV_WC_SUCCESS, "READ") &&
	    fadd_at(MR_ALL, all, IBV_WC_SUCCESS, "FETCH_ADD"),
	    "WRITE, READ and FETCH_ADD where the MR allows them");
	tap(write_to(MR_NO_WRITE, b_mr[MR_NO_WRITE]->rkey, 0, 64,
		     IBV_WC_REM_ACCESS_ERR, "WRITE, no REMOTE_WRITE"),
	    "WRITE to an MR without REMOTE_WRITE: REM_ACCESS_ERR, nothing written");
	tap(read_from(MR_NO_READ, b_mr[MR_NO_READ]->rkey, 0, 64,
		      IBV_WC_REM_ACCESS_ERR, "READ, no REMOTE_READ"),
	    "READ of an MR without REMOTE_READ: REM_ACCESS_ERR, nothing read");
	tap(fadd_at(MR_NO_READ, b_mr[MR_NO_READ]->rkey, IBV_WC_REM_ACCESS_ERR,
		    "FETCH_ADD, no REMOTE_ATOMIC"),
	    "FETCH_ADD on an MR without REMOTE_ATOMIC: REM_ACCESS_ERR, no change");
	tap(write_to(MR_OTHER_PD, b_mr[MR_OTHER_PD]->rkey, 0, 64,
		     IBV_WC_REM_ACCESS_ERR, "WRITE, MR of another PD") &&
	    read_from(MR_OTHER_PD, b_mr[MR_OTHER_PD]->rkey, 0, 64,
		      IBV_WC_REM_ACCESS_ERR, "READ, MR of another PD"),
	    "WRITE and READ through an MR of another PD: REM_ACCESS_ERR");
	tap(write_to(MR_ALL, b_dead_rkey, 0, 64, IBV_WC_REM_ACCESS_ERR,
		     "WRITE, deregistered rkey"),
	    "WRITE through the rkey of a deregistered MR: REM_ACCESS_ERR");
	tap(write_to(MR_ALL, all, PAGE - 63, 64, IBV_WC_REM_ACCESS_ERR,
		     "WRITE, one byte past the MR") &&
	    read_from(MR_ALL, all, PAGE - 63, 64, IBV_WC_REM_ACCESS_ERR,
		      "READ, one byte past the MR"),
	    "WRITE and READ one byte past the MR: REM_ACCESS_ERR");
	tap(write_to(MR_ALL, all, PAGE - 64, 64, IBV_WC_SUCCESS,
		     "WRITE, the MR's last 64 bytes"),
	    "... the same WRITE one byte earlier works");

	/* The IBA: remote write or atomic rights need LOCAL_WRITE. */
	for (i = 0; i < sizeof(needs_lw) / sizeof(needs_lw[0]); i++) {
		mr = ibv_reg_mr(B.pd, b_buf + PAGE, PAGE, needs_lw[i].access);
		tap(!mr && errno == EINVAL,
		    "ibv_reg_mr with %s but no LOCAL_WRITE: EINVAL (%s)",
		    needs_lw[i].name, mr ? "registered" : strerror(errno));
		if (mr)
			ibv_dereg_mr(mr);
	}
}

/* B posts one receive of @len bytes at @addr under @lkey. */
static bool b_recv(uint64_t addr, uint32_t len, uint32_t lkey)
{
	struct ibv_sge sge = { .addr = addr, .length = len, .lkey = lkey };
	struct ibv_recv_wr wr = { .wr_id = ++seq, .sg_list = &sge,
				  .num_sge = 1 };
	struct ibv_recv_wr *bad;

	return !ibv_post_recv(B.rc, &wr, &bad);
}

/* A SEND of @sge; B's receive must complete with @b_want. */
static bool send_to_b(struct ibv_sge *sge, enum ibv_wr_opcode op,
		      uint32_t inv, enum ibv_wc_status a_want,
		      enum ibv_wc_status b_want, const char *what)
{
	struct ibv_send_wr wr = {
		.opcode = op, .sg_list = sge, .num_sge = 1,
		.invalidate_rkey = inv,
	};
	struct ibv_wc wc;
	bool ok;
	int st;

	st = post_wait(A.rc, A.cq, &wr);
	ok = st == (int)a_want;
	if (!ok)
		diag("%s: A got %s, not %s", what,
		     st < 0 ? "no completion" : ibv_wc_status_str(st),
		     ibv_wc_status_str(a_want));
	if (poll_one_ms(B.cq, &wc, WAIT_MS) || wc.status != b_want) {
		diag("%s: B's receive: %s, not %s", what,
		     ibv_wc_status_str(wc.status), ibv_wc_status_str(b_want));
		ok = false;
	}
	if (!rc_pair_connect()) {
		diag("%s: cannot reconnect", what);
		return false;
	}
	return ok && intact(what);
}

static void check_local(void)
{
	struct ibv_sge sge = a_sge(64);

	sge.lkey = a_mr->lkey ^ 0x5a5a00;
	tap(rdma_op(IBV_WR_RDMA_WRITE, b_mr[MR_ALL]->rkey, b_va(MR_ALL, 0),
		    &sge, IBV_WC_LOC_PROT_ERR, "made-up lkey") &&
	    intact("made-up lkey"),
	    "WRITE from an SGE with a made-up lkey: LOC_PROT_ERR, nothing sent");
	sge = (struct ibv_sge){ .addr = (uintptr_t)a_other_buf, .length = 64,
				.lkey = a_other->lkey };
	tap(rdma_op(IBV_WR_RDMA_WRITE, b_mr[MR_ALL]->rkey, b_va(MR_ALL, 0),
		    &sge, IBV_WC_LOC_PROT_ERR, "lkey of another PD") &&
	    intact("lkey of another PD"),
	    "WRITE from an MR of another PD: LOC_PROT_ERR, nothing sent");
	sge = a_sge(64);
	sge.addr += PAGE - 32;
	tap(rdma_op(IBV_WR_RDMA_WRITE, b_mr[MR_ALL]->rkey, b_va(MR_ALL, 0),
		    &sge, IBV_WC_LOC_PROT_ERR, "SGE past its MR") &&
	    intact("SGE past its MR"),
	    "WRITE from an SGE that runs past its MR: LOC_PROT_ERR");

	/* A READ lands in local memory: that MR needs LOCAL_WRITE. */
	memset(a_ro_buf, 0xa5, PAGE);
	sge = (struct ibv_sge){ .addr = (uintptr_t)a_ro_buf, .length = 64,
				.lkey = a_ro->lkey };
	tap(rdma_op(IBV_WR_RDMA_READ, b_mr[MR_ALL]->rkey, b_va(MR_ALL, 0),
		    &sge, IBV_WC_LOC_PROT_ERR, "READ into no LOCAL_WRITE") &&
	    a_ro_buf[0] == 0xa5 && a_ro_buf[63] == 0xa5,
	    "READ into an MR without LOCAL_WRITE: LOC_PROT_ERR, not written");

	/* And so does a receive. */
	fill(a_buf, 64, (unsigned int)++seq);
	memcpy(a_shadow, a_buf, 64);
	sge = a_sge(64);
	tap(b_recv(b_va(MR_NONE, 0), 64, b_mr[MR_NONE]->lkey) &&
	    send_to_b(&sge, IBV_WR_SEND, 0, IBV_WC_REM_OP_ERR,
		      IBV_WC_LOC_PROT_ERR, "receive into no LOCAL_WRITE"),
	    "receive into an MR without LOCAL_WRITE: LOC_PROT_ERR, the SEND REM_OP_ERR");
	tap(b_recv(b_va(MR_ALL, 0), 64, b_mr[MR_ALL]->lkey ^ 0x5a5a00) &&
	    send_to_b(&sge, IBV_WR_SEND, 0, IBV_WC_REM_OP_ERR,
		      IBV_WC_LOC_PROT_ERR, "receive, made-up lkey"),
	    "receive with a made-up lkey: LOC_PROT_ERR, the SEND REM_OP_ERR");

	/*
	 * Only a window or a fast-registered MR may be remotely invalidated.
	 * The payload may land before the IETH is looked at (the receive
	 * buffer was the receive's to fill): B already holds those bytes.
	 */
	memcpy(b_buf + PAGE, a_buf, 64);
	memcpy(b_shadow + PAGE, a_buf, 64);
	tap(b_recv(b_va(MR_ALL, 0), 64, b_mr[MR_ALL]->lkey) &&
	    send_to_b(&sge, IBV_WR_SEND_WITH_INV, b_mr[MR_ALL]->rkey,
		      IBV_WC_REM_INV_REQ_ERR, IBV_WC_REM_INV_REQ_ERR,
		      "SEND with Invalidate of an MR") &&
	    write_to(MR_ALL, b_mr[MR_ALL]->rkey, 0, 64, IBV_WC_SUCCESS,
		     "WRITE after the refused invalidation"),
	    "SEND with Invalidate of a plain MR: REM_INV_REQ_ERR, the MR still works");
}

/* The UD pair: INIT -> RTR -> RTS with QKEY. */
static bool ud_ready(struct ibv_qp *qp)
{
	struct ibv_qp_attr a = {
		.qp_state = IBV_QPS_INIT, .port_num = 1, .qkey = QKEY,
	};

	if (ibv_modify_qp(qp, &a, IBV_QP_STATE | IBV_QP_PKEY_INDEX |
			  IBV_QP_PORT | IBV_QP_QKEY))
		return false;
	a.qp_state = IBV_QPS_RTR;
	if (ibv_modify_qp(qp, &a, IBV_QP_STATE))
		return false;
	a.qp_state = IBV_QPS_RTS;
	a.sq_psn = 0;
	return !ibv_modify_qp(qp, &a, IBV_QP_STATE | IBV_QP_SQ_PSN);
}

/* B posts one UD receive: the GRH and 64 bytes, at the start of MR_ALL. */
static bool b_recv_ud(void)
{
	struct ibv_sge sge = { .addr = b_va(MR_ALL, 0),
			       .length = GRH_LEN + 64,
			       .lkey = b_mr[MR_ALL]->lkey };
	struct ibv_recv_wr wr = { .wr_id = ++seq, .sg_list = &sge,
				  .num_sge = 1 };
	struct ibv_recv_wr *bad;

	return !ibv_post_recv(B.ud, &wr, &bad);
}

/* A UD datagram of 64 bytes to B through @ah: A's completion status. */
static int ud_send(struct ibv_ah *ah)
{
	struct ibv_sge sge = a_sge(64);
	struct ibv_send_wr wr = {
		.opcode = IBV_WR_SEND, .sg_list = &sge, .num_sge = 1,
		.wr.ud = { .ah = ah, .remote_qpn = B.ud->qp_num,
			   .remote_qkey = QKEY },
	};

	return post_wait(A.ud, A.cq, &wr);
}

static void check_ah_pd(void)
{
	struct ibv_ah_attr attr = {
		.is_global = 1, .port_num = 1,
		.grh = { .dgid = B.gid, .sgid_index = A.gidx, .hop_limit = 64 },
	};
	struct ibv_ah *own = ibv_create_ah(A.pd, &attr);
	struct ibv_ah *other = ibv_create_ah(A.pd2, &attr);
	struct ibv_wc wc;
	int st;

	if (!tap(own && other && ud_ready(A.ud) && ud_ready(B.ud) &&
		 b_recv_ud(), "UD pair and two AHs, one per PD"))
		goto out;
	fill(a_buf, 64, (unsigned int)++seq);
	memcpy(a_shadow, a_buf, 64);
	st = ud_send(own);
	tap(st == IBV_WC_SUCCESS && !poll_one_ms(B.cq, &wc, WAIT_MS) &&
	    wc.status == IBV_WC_SUCCESS && wc.byte_len == GRH_LEN + 64 &&
	    !memcmp(b_buf + (b_va(MR_ALL, GRH_LEN) - (uintptr_t)b_buf),
		    a_buf, 64),
	    "UD send through an AH of the QP's PD arrives");
	memcpy(b_shadow + PAGE, b_buf + PAGE, GRH_LEN + 64);
	if (!b_recv_ud())
		goto out;
	st = ud_send(other);
	tap(st != IBV_WC_SUCCESS && poll_one_ms(B.cq, &wc, UD_QUIET_MS),
	    "UD send through an AH of another PD: %s, nothing arrives",
	    st < 0 ? "no completion" : ibv_wc_status_str(st));
	tap(intact("UD, AH of another PD"), "... and B's memory is unchanged");
out:
	if (own)
		ibv_destroy_ah(own);
	if (other)
		ibv_destroy_ah(other);
}

static bool side_open(struct side *s, const char *dev, int gidx)
{
	struct ibv_qp_init_attr init = {
		.cap = { .max_send_wr = 8, .max_recv_wr = 8,
			 .max_send_sge = 1, .max_recv_sge = 1 },
	};

	s->ctx = open_dev(dev);
	if (!s->ctx) {
		diag("no device %s", dev);
		return false;
	}
	s->gidx = gidx;
	if (ibv_query_gid(s->ctx, 1, gidx, &s->gid))
		return false;
	s->pd = ibv_alloc_pd(s->ctx);
	s->pd2 = ibv_alloc_pd(s->ctx);
	s->cq = ibv_create_cq(s->ctx, 32, NULL, NULL, 0);
	if (!s->pd || !s->pd2 || !s->cq)
		return false;
	init.send_cq = s->cq;
	init.recv_cq = s->cq;
	init.qp_type = IBV_QPT_RC;
	s->rc = ibv_create_qp(s->pd, &init);
	init.qp_type = IBV_QPT_UD;
	s->ud = ibv_create_qp(s->pd, &init);
	return s->rc && s->ud;
}

static void side_close(struct side *s)
{
	if (s->rc)
		ibv_destroy_qp(s->rc);
	if (s->ud)
		ibv_destroy_qp(s->ud);
	if (s->cq)
		ibv_destroy_cq(s->cq);
	if (s->pd2)
		ibv_dealloc_pd(s->pd2);
	if (s->pd)
		ibv_dealloc_pd(s->pd);
	if (s->ctx)
		ibv_close_device(s->ctx);
}

static bool mrs_register(void)
{
	struct ibv_mr *dead;
	int i;

	b_buf = aligned_alloc(PAGE, B_LEN);
	b_shadow = malloc(B_LEN);
	a_buf = aligned_alloc(PAGE, 3 * PAGE);
	a_shadow = malloc(PAGE);
	if (!b_buf || !b_shadow || !a_buf || !a_shadow)
		return false;
	fill(b_buf, B_LEN, 1);
	memcpy(b_shadow, b_buf, B_LEN);
	memset(a_buf, 0, 3 * PAGE);
	memset(a_shadow, 0, PAGE);
	a_ro_buf = a_buf + PAGE;
	a_other_buf = a_buf + 2 * PAGE;
	for (i = 0; i < NR_MR; i++) {
		b_mr[i] = ibv_reg_mr(i == MR_OTHER_PD ? B.pd2 : B.pd,
				     (void *)(uintptr_t)b_va(i, 0), PAGE,
				     b_access[i]);
		if (!b_mr[i])
			return false;
	}
	/* A deregistered MR over the same page as MR_ALL. */
	dead = ibv_reg_mr(B.pd, (void *)(uintptr_t)b_va(MR_ALL, 0), PAGE,
			  b_access[MR_ALL]);
	if (!dead)
		return false;
	b_dead_rkey = dead->rkey;
	ibv_dereg_mr(dead);
	a_mr = ibv_reg_mr(A.pd, a_buf, PAGE, IBV_ACCESS_LOCAL_WRITE);
	a_ro = ibv_reg_mr(A.pd, a_ro_buf, PAGE, 0);
	a_other = ibv_reg_mr(A.pd2, a_other_buf, PAGE, IBV_ACCESS_LOCAL_WRITE);
	return a_mr && a_ro && a_other;
}

static void mrs_release(void)
{
	int i;

	for (i = 0; i < NR_MR; i++)
		if (b_mr[i])
			ibv_dereg_mr(b_mr[i]);
	if (a_mr)
		ibv_dereg_mr(a_mr);
	if (a_ro)
		ibv_dereg_mr(a_ro);
	if (a_other)
		ibv_dereg_mr(a_other);
	free(b_buf);
	free(b_shadow);
	free(a_buf);
	free(a_shadow);
}

int main(int argc, char **argv)
{
	long refused;

	verify_args(argc, argv, &verbose);
	A.psn = 0x123456;
	B.psn = 0xabcdef;
	if (!tap(side_open(&A, dev_name[0], gid_idx[0]) &&
		 side_open(&B, dev_name[1], gid_idx[1]) && mrs_register() &&
		 rc_pair_connect(),
		 "setup: %s -> %s, RC and UD pairs, B's MRs of every kind",
		 dev_name[0], dev_name[1]))
		goto out;
	refused = port_counter(dev_name[1], "mr_access_refused");
	check_remote();
	check_local();
	check_ah_pd();
	tap(refused >= 0 &&
	    port_counter(dev_name[1], "mr_access_refused") > refused,
	    "%s's mr_access_refused moved: %ld -> %ld", dev_name[1], refused,
	    port_counter(dev_name[1], "mr_access_refused"));
out:
	mrs_release();
	side_close(&A);
	side_close(&B);
	printf("1..%d\n", tap_n);
	return tap_failed ? 1 : 0;
}
