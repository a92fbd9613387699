// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * dm_verify - device memory (sroce.ko's and libsroce's dm.c) used for real.
 *
 *   dm_verify -d DEV [-g GIDIDX] [-v]
 *
 * The pyverbs suite only allocates, copies and registers device memory.
 * This also moves data through it, over two RC QPs connected to each
 * other on DEV:
 *
 *   - the device reports max_dm_size, and refuses more, a comp_mask, an
 *     alignment beyond a page;
 *   - memcpy_to_dm/memcpy_from_dm round-trip a pattern, and refuse an
 *     unaligned offset or length and a range beyond the allocation;
 *   - ibv_reg_dm_mr() registers zero-based (mr->addr NULL), empty, and at
 *     an unaligned offset (a WRITE to its address 16 lands at that offset
 *     plus 16); refuses a range beyond the DM and an MR that is not
 *     zero-based; ibv_free_dm() is EBUSY while an MR is on the DM;
 *   - ibv_import_dm() in a context imported from a dup of the command fd
 *     reads what the original DM's owner wrote; a made-up handle fails;
 *   - an RDMA WRITE lands at a zero-based address of the DM MR (every
 *     byte of the DM checked, so nothing else moved), an RDMA READ brings
 *     a DM range back, an RDMA WRITE from the DM MR as the local SGE
 *     sends DM bytes, and a WRITE one byte past the DM MR fails with a
 *     remote access error.
 *
 * Output is TAP.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <infiniband/verbs.h>

#include "common.h"

#define DM_LEN		(64 * 1024)
#define CHUNK		4096
#define ACCESS		(IBV_ACCESS_LOCAL_WRITE | IBV_ACCESS_REMOTE_WRITE | \
			 IBV_ACCESS_REMOTE_READ)

static struct ibv_context *ctx;
static struct ibv_pd *pd;
static struct ibv_cq *cq;
static struct ibv_qp *qa, *qb;
static bool verbose;

static void fill(uint8_t *p, size_t len, unsigned int seed)
{
	size_t i;

	for (i = 0; i < len; i++)
		p[i] = (uint8_t)(i * 31 + seed);
}

static struct ibv_qp *rc_qp(void)
{
	struct ibv_qp_init_attr a = {
		.send_cq = cq, .recv_cq = cq, .qp_type = IBV_QPT_RC,
		.cap = { .max_send_wr = 8, .max_recv_wr = 8,
			 .max_send_sge = 1, .max_recv_sge = 1 },
	};

	return ibv_create_qp(pd, &a);
}

static bool connect_pair(void)
{
	struct rc_peer pa = { .psn = 100, .my_psn = 200, .sgid_idx = gid_idx[0],
			      .mtu = IBV_MTU_1024, .dest_rd_atomic = 1,
			      .rd_atomic = 1 };
	struct rc_peer pb = pa;

	qa = rc_qp();
	qb = rc_qp();
	if (!qa || !qb || ibv_query_gid(ctx, 1, gid_idx[0], &pa.gid))
		return false;
	pb.gid = pa.gid;
	pb.psn = 200;
	pb.my_psn = 100;
	pa.qpn = qb->qp_num;
	pb.qpn = qa->qp_num;
	return !rc_connect_to(qa, &pa) && !rc_connect_to(qb, &pb);
}

/* One signalled RDMA op on @qp; the completion's status, or -1. */
static int rdma_op(struct ibv_qp *qp, enum ibv_wr_opcode op, uint32_t lkey,
		   uint64_t laddr, uint32_t len, uint32_t rkey, uint64_t raddr)
{
	struct ibv_sge sge = { .addr = laddr, .length = len, .lkey = lkey };
	struct ibv_send_wr wr = {
		.sg_list = &sge, .num_sge = 1, .opcode = op,
		.send_flags = IBV_SEND_SIGNALED,
		.wr.rdma = { .remote_addr = raddr, .rkey = rkey },
	}, *bad;
	struct ibv_wc wc;

	if (ibv_post_send(qp, &wr, &bad)) {
		diag("post_send: %s", strerror(errno));
		return -1;
	}
	if (poll_one_ms(cq, &wc, 5000)) {
		diag("no completion in 5 s");
		return -1;
	}
	if (verbose || wc.status != IBV_WC_SUCCESS)
		diag("completion: %s", ibv_wc_status_str(wc.status));
	return wc.status;
}

static struct ibv_dm *alloc_dm(size_t len, uint32_t log_align,
			       uint32_t comp_mask)
{
	struct ibv_alloc_dm_attr a = {
		.length = len, .log_align_req = log_align,
		.comp_mask = comp_mask,
	};

	return ibv_alloc_dm(ctx, &a);
}

static bool refused(void *obj, int err)
{
	return !obj && errno == err;
}

static void check_alloc(uint64_t max)
{
	tap(max >= DM_LEN, "max_dm_size %llu", (unsigned long long)max);
	tap(refused(alloc_dm(max + 1, 0, 0), EINVAL), "more than max_dm_size refused");
	tap(refused(alloc_dm(64, 0, 1), EINVAL), "a comp_mask bit refused");
	tap(refused(alloc_dm(64, 13, 0), EINVAL), "alignment beyond a page refused");
	tap(refused(alloc_dm(0, 0, 0), EINVAL), "an empty DM refused");
}

static void check_copy(struct ibv_dm *dm)
{
	static uint8_t in[DM_LEN], out[DM_LEN];

	fill(in, sizeof(in), 3);
	tap(!ibv_memcpy_to_dm(dm, 0, in, DM_LEN) &&
	    !ibv_memcpy_from_dm(out, dm, 0, DM_LEN) &&
	    !memcmp(in, out, DM_LEN), "memcpy to and from the DM round-trip");
	tap(ibv_memcpy_to_dm(dm, 2, in, 8) == EINVAL &&
	    ibv_memcpy_from_dm(out, dm, 4, 6) == EINVAL,
	    "unaligned offset or length refused");
	tap(ibv_memcpy_to_dm(dm, DM_LEN - 4, in, 8) == EINVAL &&
	    ibv_memcpy_from_dm(out, dm, DM_LEN + 4, 4) == EINVAL,
	    "a range past the DM refused");
}

/* The DM's bytes; true if they are @want's. */
static bool dm_is(struct ibv_dm *dm, const uint8_t *want)
{
	static uint8_t now[DM_LEN];

	return !ibv_memcpy_from_dm(now, dm, 0, DM_LEN) &&
	       !memcmp(now, want, DM_LEN);
}

static void check_traffic(struct ibv_dm *dm, struct ibv_mr *dmr)
{
	static uint8_t shadow[DM_LEN], host[2 * CHUNK];
	struct ibv_mr *hmr = ibv_reg_mr(pd, host, sizeof(host), ACCESS);
	const uint64_t at = 3 * CHUNK + 100;	/* zero-based: DM offset */

	if (!tap(hmr && connect_pair(), "two RC QPs on %s", dev_name[0]))
		return;
	fill(shadow, DM_LEN, 9);
	ibv_memcpy_to_dm(dm, 0, shadow, DM_LEN);
	fill(host, CHUNK, 77);
	memcpy(shadow + at, host, CHUNK);
	tap(rdma_op(qa, IBV_WR_RDMA_WRITE, hmr->lkey, (uintptr_t)host, CHUNK,
		    dmr->rkey, at) == IBV_WC_SUCCESS && dm_is(dm, shadow),
	    "RDMA WRITE to zero-based address %llu of the DM MR, nothing else moved",
	    (unsigned long long)at);
	tap(rdma_op(qa, IBV_WR_RDMA_READ, hmr->lkey, (uintptr_t)host + CHUNK,
		    CHUNK, dmr->rkey, 0) == IBV_WC_SUCCESS &&
	    !memcmp(host + CHUNK, shadow, CHUNK),
	    "RDMA READ of the DM MR's first 4 KiB");
	memset(host, 0, CHUNK);
	tap(rdma_op(qb, IBV_WR_RDMA_WRITE, dmr->lkey, 5 * CHUNK, CHUNK,
		    hmr->rkey, (uintptr_t)host) == IBV_WC_SUCCESS &&
	    !memcmp(host, shadow + 5 * CHUNK, CHUNK),
	    "RDMA WRITE from the DM MR as the local SGE");
	tap(rdma_op(qa, IBV_WR_RDMA_WRITE, hmr->lkey, (uintptr_t)host, 8,
		    dmr->rkey, DM_LEN - 4) == IBV_WC_REM_ACCESS_ERR &&
	    dm_is(dm, shadow),
	    "RDMA WRITE one word past the DM MR: remote access error, DM intact");
	ibv_destroy_qp(qa);
	ibv_destroy_qp(qb);
	ibv_dereg_mr(hmr);
}

/* A zero-based MR at an unaligned offset: iova 0 is DM byte @off. */
static void check_offset_mr(struct ibv_dm *dm, struct ibv_mr *mr,
			    uint64_t off)
{
	static uint8_t shadow[DM_LEN];
	uint8_t word[8] = { 1, 2, 3, 4, 5, 6, 7, 8 };
	struct ibv_mr *hmr = ibv_reg_mr(pd, word, sizeof(word), ACCESS);

	if (!hmr || ibv_memcpy_from_dm(shadow, dm, 0, DM_LEN))
		return;
	memcpy(shadow + off + 16, word, sizeof(word));
	tap(rdma_op(qa, IBV_WR_RDMA_WRITE, hmr->lkey, (uintptr_t)word,
		    sizeof(word), mr->rkey, 16) == IBV_WC_SUCCESS &&
	    dm_is(dm, shadow),
	    "RDMA WRITE to address 16 of the MR at DM offset %llu lands at %llu",
	    (unsigned long long)off, (unsigned long long)off + 16);
	ibv_dereg_mr(hmr);
}

static void check_mrs(struct ibv_dm *dm)
{
	const uint64_t off = 4 * CHUNK + 8;
	struct ibv_mr *zb, *empty, *at, *mr;

	zb = ibv_reg_dm_mr(pd, dm, 0, DM_LEN, ACCESS | IBV_ACCESS_ZERO_BASED);
	tap(zb && !zb->addr && zb->length == DM_LEN, "zero-based DM MR, addr 0");
	empty = ibv_reg_dm_mr(pd, dm, 0, 0, ACCESS | IBV_ACCESS_ZERO_BASED);
	tap(empty != NULL, "an empty DM MR");
	at = ibv_reg_dm_mr(pd, dm, off, 64, ACCESS | IBV_ACCESS_ZERO_BASED);
	tap(at != NULL, "a DM MR at offset %llu", (unsigned long long)off);
	mr = ibv_reg_dm_mr(pd, dm, 8, DM_LEN, ACCESS | IBV_ACCESS_ZERO_BASED);
	tap(refused(mr, EINVAL), "a DM MR past the DM refused");
	mr = ibv_reg_dm_mr(pd, dm, 0, 64, ACCESS);
	tap(refused(mr, EINVAL), "a DM MR that is not zero-based refused");
	tap(ibv_free_dm(dm) == EBUSY, "ibv_free_dm() with MRs on it: EBUSY");
	if (zb)
		check_traffic(dm, zb);
	if (zb && at && connect_pair()) {
		check_offset_mr(dm, at, off);
		ibv_destroy_qp(qa);
		ibv_destroy_qp(qb);
	}
	tap((!zb || !ibv_dereg_mr(zb)) && (!empty || !ibv_dereg_mr(empty)) &&
	    (!at || !ibv_dereg_mr(at)), "the DM MRs deregistered");
}

/* A second context on a dup of the command fd sees the same DM. */
static void check_import(struct ibv_dm *dm)
{
	static uint8_t in[DM_LEN], out[DM_LEN];
	struct ibv_context *ctx2 = ibv_import_device(dup(ctx->cmd_fd));
	struct ibv_dm *dm2;

	if (!tap(ctx2 != NULL, "ibv_import_device() on a dup of the command fd"))
		return;
	dm2 = ibv_import_dm(ctx2, dm->handle);
	fill(in, DM_LEN, 41);
	tap(dm2 && !ibv_memcpy_to_dm(dm, 0, in, DM_LEN) &&
	    !ibv_memcpy_from_dm(out, dm2, 0, DM_LEN) && !memcmp(in, out, DM_LEN),
	    "ibv_import_dm(): the imported DM reads what the original wrote");
	tap(refused(ibv_import_dm(ctx2, dm->handle + 1000), ENOENT),
	    "importing a DM that does not exist: ENOENT");
	if (dm2)
		ibv_unimport_dm(dm2);
	ibv_close_device(ctx2);
}

int main(int argc, char **argv)
{
	struct ibv_device_attr_ex attr = {};
	struct ibv_dm *dm;

	verify_args(argc, argv, &verbose);
	ctx = open_dev(dev_name[0]);
	if (!ctx) {
		printf("Bail out! no device %s\n", dev_name[0]);
		return 1;
	}
	pd = ibv_alloc_pd(ctx);
	cq = ibv_create_cq(ctx, 16, NULL, NULL, 0);
	if (!pd || !cq || ibv_query_device_ex(ctx, NULL, &attr)) {
		printf("Bail out! setup: %s\n", strerror(errno));
		return 1;
	}
	check_alloc(attr.max_dm_size);
	dm = alloc_dm(DM_LEN, 6, 0);
	if (!tap(dm != NULL, "a %d KiB DM, 64-byte aligned", DM_LEN / 1024))
		return 1;
	check_copy(dm);
	check_mrs(dm);
	check_import(dm);
	tap(!ibv_free_dm(dm), "ibv_free_dm() once the MRs are gone");
	ibv_destroy_cq(cq);
	ibv_dealloc_pd(pd);
	ibv_close_device(ctx);
	printf("1..%d\n", tap_n);
	return tap_failed ? 1 : 0;
}
