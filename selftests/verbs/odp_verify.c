// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * odp_verify - on-demand paging MRs whose memory went away.
 *
 *   odp_verify -d DEV1 [-D DEV2] [-g GIDIDX] [-G GIDIDX2] [-v]
 *
 * rc_verify -o checks that ODP data arrives intact while pages come and
 * go; this checks what happens when they cannot come back: an ODP MR
 * stays registered over memory the process unmapped.  Each case gets a
 * fresh RC pair (A on DEV1, B on DEV2; loopback by default):
 *
 *   - A writes into B's ODP MR over unmapped memory: A's WRITE completes
 *     with a remote access error, and nothing else of B is touched;
 *   - A sends from its ODP MR over unmapped memory: a local protection
 *     error on A's SEND;
 *   - A reads into its ODP MR over unmapped memory: a local protection
 *     error on A's READ;
 *   - ibv_advise_mr() to prefetch that memory fails with EFAULT;
 *   - and, last, the same MR over memory mapped again (MAP_FIXED) works:
 *     a WRITE lands, a READ returns it.
 *
 * Output is TAP.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <sys/mman.h>

#include <infiniband/verbs.h>

#include "common.h"

#define LEN	(64 * 1024)
#define MSG	4096

struct end {
	struct ibv_context *ctx;
	struct ibv_pd *pd;
	struct ibv_cq *cq;
	struct ibv_qp *qp;
	union ibv_gid gid;
	int gidx;
	uint8_t *mem;		/* LEN bytes, mmapped: the ODP MR's */
	struct ibv_mr *odp;
	uint8_t *buf;		/* pinned scratch */
	struct ibv_mr *pin;
};

static bool verbose;

static int end_open(struct end *e, const char *dev, int gidx)
{
	struct ibv_qp_init_attr qa = {
		.qp_type = IBV_QPT_RC,
		.cap = { .max_send_wr = 8, .max_recv_wr = 8,
			 .max_send_sge = 1, .max_recv_sge = 1 },
	};
	int access = IBV_ACCESS_LOCAL_WRITE | IBV_ACCESS_REMOTE_WRITE |
		     IBV_ACCESS_REMOTE_READ;

	e->gidx = gidx;
	e->ctx = open_dev(dev);
	if (!e->ctx || ibv_query_gid(e->ctx, 1, gidx, &e->gid))
		return -1;
	e->pd = ibv_alloc_pd(e->ctx);
	e->cq = e->pd ? ibv_create_cq(e->ctx, 16, NULL, NULL, 0) : NULL;
	if (!e->cq)
		return -1;
	qa.send_cq = qa.recv_cq = e->cq;
	e->qp = ibv_create_qp(e->pd, &qa);
	e->mem = mmap(NULL, LEN, PROT_READ | PROT_WRITE,
		      MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	e->buf = aligned_alloc(4096, LEN);
	if (!e->qp || e->mem == MAP_FAILED || !e->buf)
		return -1;
	memset(e->buf, 0x5a, LEN);
	e->odp = ibv_reg_mr(e->pd, e->mem, LEN,
			    access | IBV_ACCESS_ON_DEMAND);
	e->pin = ibv_reg_mr(e->pd, e->buf, LEN, access);
	return e->odp && e->pin ? 0 : -1;
}

static void end_close(struct end *e)
{
	if (e->odp)
		ibv_dereg_mr(e->odp);
	if (e->pin)
		ibv_dereg_mr(e->pin);
	if (e->qp)
		ibv_destroy_qp(e->qp);
	if (e->cq)
		ibv_destroy_cq(e->cq);
	if (e->pd)
		ibv_dealloc_pd(e->pd);
	if (e->ctx)
		ibv_close_device(e->ctx);
	if (e->mem && e->mem != MAP_FAILED)
		munmap(e->mem, LEN);
	free(e->buf);
	memset(e, 0, sizeof(*e));
}

static int connect_pair(struct end *a, struct end *b)
{
	struct rc_peer pa = {
		.qpn = b->qp->qp_num, .gid = b->gid, .psn = 200, .my_psn = 100,
		.sgid_idx = a->gidx, .mtu = IBV_MTU_1024,
		.dest_rd_atomic = 1, .rd_atomic = 1,
	};
	struct rc_peer pb = {
		.qpn = a->qp->qp_num, .gid = a->gid, .psn = 100, .my_psn = 200,
		.sgid_idx = b->gidx, .mtu = IBV_MTU_1024,
		.dest_rd_atomic = 1, .rd_atomic = 1,
	};

	return rc_connect_to(a->qp, &pa) || rc_connect_to(b->qp, &pb);
}

/* A fresh pair with both ODP MRs mapped; false after a diagnostic. */
static bool pair_up(struct end *a, struct end *b)
{
	if (end_open(a, dev_name[0], gid_idx[0]) ||
	    end_open(b, dev_name[1], gid_idx[1]) || connect_pair(a, b)) {
		diag("setting up the pair failed: %s", strerror(errno));
		return false;
	}
	return true;
}

/* Take @mem's pages away for good; the MR stays. */
static bool unmap(struct end *e)
{
	if (munmap(e->mem, LEN)) {
		diag("munmap: %s", strerror(errno));
		return false;
	}
	e->mem = NULL;
	return true;
}

/* One RDMA op or SEND from A; its completion status, or -1. */
static int post_one(struct end *a, enum ibv_wr_opcode op, uint64_t laddr,
		    uint32_t lkey, uint64_t raddr, uint32_t rkey)
{
	struct ibv_sge sge = { laddr, MSG, lkey };
	struct ibv_send_wr wr = {
		.wr_id = 7, .sg_list = &sge, .num_sge = 1, .opcode = op,
		.send_flags = IBV_SEND_SIGNALED,
		.wr.rdma = { raddr, rkey },
	}, *bad;
	struct ibv_wc wc;

	if (ibv_post_send(a->qp, &wr, &bad)) {
		diag("ibv_post_send: %s", strerror(errno));
		return -1;
	}
	if (poll_one_ms(a->cq, &wc, 20000)) {
		diag("no completion in 20 s");
		return -1;
	}
	if (verbose)
		diag("wr_id %llu status %s", (unsigned long long)wc.wr_id,
		     ibv_wc_status_str(wc.status));
	return wc.wr_id == 7 ? (int)wc.status : -1;
}

static bool expect(int got, enum ibv_wc_status want)
{
	if (got != (int)want)
		diag("status %d (%s), want %s", got,
		     got < 0 ? "none" : ibv_wc_status_str(got),
		     ibv_wc_status_str(want));
	return got == (int)want;
}

static void case_remote_write(void)
{
	struct end a = {}, b = {};
	bool ok = pair_up(&a, &b) && unmap(&b);

	ok = ok && expect(post_one(&a, IBV_WR_RDMA_WRITE, (uintptr_t)a.buf,
				   a.pin->lkey,
				   (uintptr_t)b.odp->addr + 8192, b.odp->rkey),
			  IBV_WC_REM_ACCESS_ERR);
	tap(ok, "WRITE into an ODP MR over unmapped memory: remote access error");
	end_close(&b);
	end_close(&a);
}

static void case_local(enum ibv_wr_opcode op, const char *what)
{
	struct end a = {}, b = {};
	void *addr;
	bool ok;

	ok = pair_up(&a, &b);
	addr = ok ? a.odp->addr : NULL;
	ok = ok && unmap(&a);
	if (ok && op == IBV_WR_SEND) {
		struct ibv_sge sge = { (uintptr_t)b.buf, MSG, b.pin->lkey };
		struct ibv_recv_wr rwr = { .sg_list = &sge, .num_sge = 1 };
		struct ibv_recv_wr *bad;

		ok = !ibv_post_recv(b.qp, &rwr, &bad);
	}
	ok = ok && expect(post_one(&a, op, (uintptr_t)addr + 4096,
				   a.odp->lkey, (uintptr_t)b.buf,
				   b.pin->rkey),
			  IBV_WC_LOC_PROT_ERR);
	tap(ok, "%s an ODP MR over unmapped memory: local protection error",
	    what);
	end_close(&b);
	end_close(&a);
}

static void case_advise_and_back(void)
{
	struct end a = {}, b = {};
	struct ibv_sge sge;
	void *addr, *again;
	int ret;
	bool ok;

	ok = pair_up(&a, &b);
	addr = ok ? b.odp->addr : NULL;
	ok = ok && unmap(&b);
	if (ok) {
		sge = (struct ibv_sge){ (uintptr_t)addr, LEN, b.odp->lkey };
		ret = ibv_advise_mr(b.pd, IBV_ADVISE_MR_ADVICE_PREFETCH_WRITE,
				    IBV_ADVISE_MR_FLAG_FLUSH, &sge, 1);
		tap(ret == EFAULT, "prefetch of unmapped memory: EFAULT (got %d)",
		    ret);
		/* The same range mapped again: the MR works again. */
		again = mmap(addr, LEN, PROT_READ | PROT_WRITE,
			     MAP_PRIVATE | MAP_ANONYMOUS | MAP_FIXED, -1, 0);
		ok = again == addr;
		b.mem = ok ? again : NULL;
	} else {
		tap(false, "prefetch of unmapped memory: EFAULT (no pair)");
	}
	ok = ok && expect(post_one(&a, IBV_WR_RDMA_WRITE, (uintptr_t)a.buf,
				   a.pin->lkey, (uintptr_t)addr + 100,
				   b.odp->rkey), IBV_WC_SUCCESS);
	ok = ok && !memcmp(b.mem + 100, a.buf, MSG) && !b.mem[99] &&
	     !b.mem[100 + MSG];
	memset(a.buf, 0, MSG);
	ok = ok && expect(post_one(&a, IBV_WR_RDMA_READ, (uintptr_t)a.buf,
				   a.pin->lkey, (uintptr_t)addr + 100,
				   b.odp->rkey), IBV_WC_SUCCESS);
	ok = ok && !memcmp(b.mem + 100, a.buf, MSG);
	tap(ok, "mapped again: a WRITE lands there, a READ returns it");
	end_close(&b);
	end_close(&a);
}

int main(int argc, char **argv)
{
	verify_args(argc, argv, &verbose);
	setvbuf(stdout, NULL, _IOLBF, 0);
	case_remote_write();
	case_local(IBV_WR_SEND, "SEND from");
	case_local(IBV_WR_RDMA_READ, "READ into");
	case_advise_and_back();
	printf("1..%d\n", tap_n);
	return tap_failed ? 1 : 0;
}
