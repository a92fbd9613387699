// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * limits_verify - a sroce device at its limits (selftests/vm/50-lifecycle.sh).
 *
 *   limits_verify -d DEV [-g GIDIDX] qps N      N RC QPs at once
 *   limits_verify -d DEV [-g GIDIDX] mr MIB     one MIB MiB MR, used end to end
 *   limits_verify -d DEV memlock               RLIMIT_MEMLOCK without
 *                                              CAP_IPC_LOCK
 *   limits_verify -d DEV hold MIB              register MIB MiB, print
 *                                              "held", wait to be killed
 *   limits_verify -d DEV memcg CGROUP          rings are charged to the
 *                                              memory cgroup (a cgroup v2
 *                                              directory it joins), and
 *                                              its memory.max bounds them
 *
 * Each limit must give either success or a clean error (an errno, NULL),
 * and leave the device usable: the checks end with a loopback RDMA WRITE
 * and READ verified byte for byte.  TAP on stdout.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/resource.h>
#include <unistd.h>

#include <infiniband/verbs.h>
#include "rdma/sroce-abi.h"

#include "common.h"

#define MIB		(1UL << 20)
#define CHUNK		4096
#define ACCESS		(IBV_ACCESS_LOCAL_WRITE | IBV_ACCESS_REMOTE_WRITE | \
			 IBV_ACCESS_REMOTE_READ)

static struct ibv_context *ctx;
static struct ibv_pd *pd;
static struct ibv_cq *cq;

static struct ibv_qp *rc_qp(uint32_t max_wr)
{
	struct ibv_qp_init_attr a = {
		.send_cq = cq, .recv_cq = cq, .qp_type = IBV_QPT_RC,
		.cap = { .max_send_wr = max_wr, .max_recv_wr = max_wr,
			 .max_send_sge = 1, .max_recv_sge = 1 },
	};

	return ibv_create_qp(pd, &a);
}

static void *map_mib(size_t mib)
{
	void *p = mmap(NULL, mib * MIB, PROT_READ | PROT_WRITE,
		       MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);

	return p == MAP_FAILED ? NULL : p;
}

/* One signalled RDMA op of CHUNK bytes, src -> dst; true on success. */
static bool rdma_op(struct ibv_qp *qp, enum ibv_wr_opcode op,
		    struct ibv_mr *lmr, void *laddr,
		    struct ibv_mr *rmr, void *raddr)
{
	struct ibv_sge sge = {
		.addr = (uintptr_t)laddr, .length = CHUNK, .lkey = lmr->lkey,
	};
	struct ibv_send_wr wr = {
		.sg_list = &sge, .num_sge = 1, .opcode = op,
		.send_flags = IBV_SEND_SIGNALED,
		.wr.rdma = { .remote_addr = (uintptr_t)raddr, .rkey = rmr->rkey },
	}, *bad;
	struct ibv_wc wc;

	if (ibv_post_send(qp, &wr, &bad)) {
		diag("post_send: %s", strerror(errno));
		return false;
	}
	if (poll_one_ms(cq, &wc, 5000)) {
		diag("no completion in 5 s");
		return false;
	}
	if (wc.status != IBV_WC_SUCCESS)
		diag("completion: %s", ibv_wc_status_str(wc.status));
	return wc.status == IBV_WC_SUCCESS;
}

/*
 * Two QPs connected to each other on DEV: a WRITE into the last chunk of
 * @big and a READ of its first, both checked.  True if every byte came.
 */
static bool loopback_uses(struct ibv_mr *big, uint8_t *base, size_t len)
{
	uint8_t *small = calloc(2, CHUNK);
	struct ibv_mr *smr = small ? ibv_reg_mr(pd, small, 2 * CHUNK, ACCESS) : NULL;
	struct ibv_qp *a = rc_qp(4), *b = rc_qp(4);
	struct rc_peer pa = { .psn = 100, .my_psn = 200, .sgid_idx = gid_idx[0],
			      .mtu = IBV_MTU_1024, .dest_rd_atomic = 1,
			      .rd_atomic = 1 };
	struct rc_peer pb = pa;
	uint8_t *last = base + len - CHUNK;
	bool ok = false;
	int i;

	if (!smr || !a || !b ||
	    ibv_query_gid(ctx, 1, gid_idx[0], &pa.gid)) {
		diag("loopback setup: %s", strerror(errno));
		goto out;
	}
	pb.gid = pa.gid;
	pb.psn = 200;
	pb.my_psn = 100;
	pa.qpn = b->qp_num;
	pb.qpn = a->qp_num;
	if (rc_connect_to(a, &pa) || rc_connect_to(b, &pb))
		goto out;
	for (i = 0; i < CHUNK; i++) {
		small[i] = (uint8_t)(i * 7 + 1);
		base[i] = (uint8_t)(i * 13 + 5);
	}
	if (!rdma_op(a, IBV_WR_RDMA_WRITE, smr, small, big, last) ||
	    !rdma_op(a, IBV_WR_RDMA_READ, smr, small + CHUNK, big, base))
		goto out;
	ok = !memcmp(last, small, CHUNK) && !memcmp(small + CHUNK, base, CHUNK);
	if (!ok)
		diag("data differs");
out:
	if (a)
		ibv_destroy_qp(a);
	if (b)
		ibv_destroy_qp(b);
	if (smr)
		ibv_dereg_mr(smr);
	free(small);
	return ok;
}

static int run_qps(long n)
{
	struct ibv_device_attr da;
	struct ibv_qp **qps = calloc(n, sizeof(*qps));
	long made = 0, gone = 0, i;
	int err = 0;

	if (!qps || ibv_query_device(ctx, &da))
		return 1;
	for (; made < n; made++) {
		qps[made] = rc_qp(1);
		if (!qps[made]) {
			err = errno;
			break;
		}
	}
	if (n <= da.max_qp)
		tap(made == n, "%ld RC QPs at once (max_qp %d): %ld made%s%s",
		    n, da.max_qp, made, err ? ", then " : "",
		    err ? strerror(err) : "");
	else
		tap(made < n && (err == ENOMEM || err == EINVAL || err == ENOSPC),
		    "beyond max_qp %d: %ld made, then a clean error (%s)",
		    da.max_qp, made, strerror(err));
	for (i = 0; i < made; i++)
		gone += !ibv_destroy_qp(qps[i]);
	tap(gone == made, "all %ld destroyed", made);
	free(qps);
	return 0;
}

static int run_mr(long mib)
{
	uint8_t *p = map_mib(mib);
	struct ibv_mr *mr = p ? ibv_reg_mr(pd, p, mib * MIB, ACCESS) : NULL;

	if (!tap(mr, "a %ld MiB MR registers%s%s", mib, mr ? "" : ": ",
		 mr ? "" : strerror(errno)))
		return 0;
	tap(loopback_uses(mr, p, mib * MIB),
	    "a WRITE into its last 4 KiB and a READ of its first, byte-exact");
	tap(!ibv_dereg_mr(mr), "and deregisters");
	munmap(p, mib * MIB);
	return 0;
}

/* Without CAP_IPC_LOCK, RLIMIT_MEMLOCK bounds what MRs may pin. */
static int run_memlock(void)
{
	struct rlimit rl;
	size_t lim, big;
	uint8_t *p;
	struct ibv_mr *mr, *mr2;

	if (getrlimit(RLIMIT_MEMLOCK, &rl) || rl.rlim_cur == RLIM_INFINITY ||
	    rl.rlim_cur < 4 * CHUNK || rl.rlim_cur > 64 * MIB) {
		tap(false, "RLIMIT_MEMLOCK must be set, 16 KiB to 64 MiB");
		return 1;
	}
	lim = rl.rlim_cur;
	big = 2 * lim + 64 * MIB;
	p = mmap(NULL, big, PROT_READ | PROT_WRITE,
		 MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	if (p == MAP_FAILED)
		return 1;
	mr = ibv_reg_mr(pd, p, lim / 2, ACCESS);
	tap(mr, "an MR of half RLIMIT_MEMLOCK (%zu KiB) registers", lim / 2048);
	errno = 0;
	mr2 = ibv_reg_mr(pd, p + lim, lim + 64 * MIB, ACCESS);
	tap(!mr2 && errno == ENOMEM,
	    "one past the limit fails with ENOMEM (%s)", strerror(errno));
	if (mr2)
		ibv_dereg_mr(mr2);
	if (mr)
		ibv_dereg_mr(mr);
	mr = ibv_reg_mr(pd, p, lim / 2, ACCESS);
	tap(mr, "the failure gave back what it had counted: half again registers");
	tap(mr && loopback_uses(mr, p, lim / 2),
	    "and that MR works end to end");
	if (mr)
		ibv_dereg_mr(mr);
	munmap(p, big);
	return 0;
}

static long long cg_read(const char *cg, const char *file)
{
	char path[512], buf[64];
	long long v = -1;
	FILE *f;

	snprintf(path, sizeof(path), "%s/%s", cg, file);
	f = fopen(path, "r");
	if (f && fgets(buf, sizeof(buf), f))
		v = atoll(buf);
	if (f)
		fclose(f);
	return v;
}

static bool cg_write(const char *cg, const char *file, const char *val)
{
	char path[512];
	ssize_t n;
	int fd;

	snprintf(path, sizeof(path), "%s/%s", cg, file);
	fd = open(path, O_WRONLY);
	if (fd < 0)
		return false;
	n = write(fd, val, strlen(val));
	close(fd);
	return n == (ssize_t)strlen(val);
}

static bool cg_set_max(const char *cg, long long bytes)
{
	char v[32];

	if (bytes < 0)
		return cg_write(cg, "memory.max", "max");
	snprintf(v, sizeof(v), "%lld", bytes);
	return cg_write(cg, "memory.max", v);
}

/*
 * A CQ ring is the biggest thing one verb makes (max_cqe entries, 64 MiB
 * on sroce): it must show in the creator's memory.current, go when the
 * CQ goes, and fail with ENOMEM, not an OOM kill, over memory.max.
 */
static int run_memcg(const char *cg)
{
	struct ibv_device_attr da;
	long long c0, c1, c2, slack;
	struct ibv_cq *big, *small;
	size_t ring;
	char pid[24];

	snprintf(pid, sizeof(pid), "%d", (int)getpid());
	if (!cg_write(cg, "cgroup.procs", pid))
		diag("%s/cgroup.procs: %s", cg, strerror(errno));
	if (!tap(cg_read(cg, "memory.current") >= 0 &&
		 cg_read(cg, "cgroup.procs") == getpid(),
		 "joined memory cgroup %s", cg) ||
	    ibv_query_device(ctx, &da))
		return 1;
	ring = (size_t)da.max_cqe * sizeof(struct sroce_cqe);
	/*
	 * memory.current moves in per-CPU batches and with the process's
	 * own page faults: 2 MiB of slack, against a 64 MiB ring.
	 */
	slack = 2 * (long long)MIB;
	c0 = cg_read(cg, "memory.current");
	big = ibv_create_cq(ctx, da.max_cqe, NULL, NULL, 0);
	c1 = cg_read(cg, "memory.current");
	if (!tap(big, "a CQ of max_cqe %d entries (a %zu MiB ring)",
		 da.max_cqe, ring / MIB))
		return 1;
	tap(c1 - c0 >= (long long)ring - slack,
	    "it is charged to the cgroup: memory.current +%lld MiB",
	    (c1 - c0) / (long long)MIB);
	tap(!ibv_destroy_cq(big), "destroyed");
	c2 = cg_read(cg, "memory.current");
	tap(c1 - c2 >= (long long)ring - slack,
	    "and uncharged: memory.current -%lld MiB", (c1 - c2) / (long long)MIB);
	/* Room for this process, not for the ring. */
	if (!cg_set_max(cg, c2 + 16 * (long long)MIB))
		return 1;
	errno = 0;
	big = ibv_create_cq(ctx, da.max_cqe, NULL, NULL, 0);
	tap(!big && errno == ENOMEM,
	    "with memory.max 16 MiB above memory.current: ENOMEM (%s)",
	    big ? "created" : strerror(errno));
	if (big)
		ibv_destroy_cq(big);
	small = ibv_create_cq(ctx, 64, NULL, NULL, 0);
	tap(small, "a CQ of 64 entries still fits");
	if (small)
		ibv_destroy_cq(small);
	tap(cg_set_max(cg, -1), "memory.max lifted");
	return 0;
}

static int run_hold(long mib)
{
	uint8_t *p = map_mib(mib);
	struct ibv_mr *mr = p ? ibv_reg_mr(pd, p, mib * MIB, ACCESS) : NULL;

	if (!mr) {
		perror("reg_mr");
		return 1;
	}
	printf("held %ld MiB\n", mib);
	fflush(stdout);
	for (;;)
		pause();
}

static void usage(void)
{
	fprintf(stderr, "usage: limits_verify -d DEV [-g GIDX] qps N | mr MIB | memlock | hold MIB | memcg CGROUP\n");
	exit(2);
}

int main(int argc, char **argv)
{
	const char *what;
	long arg = 0;
	int c, ret;

	while ((c = getopt(argc, argv, "d:g:")) != -1)
		if (!dev_opt(c, optarg))
			usage();
	if (!dev_opts_done() || optind >= argc)
		usage();
	what = argv[optind];
	if (!strcmp(what, "memcg")) {
		if (optind + 1 >= argc)
			usage();
	} else if (strcmp(what, "memlock")) {
		if (optind + 1 >= argc)
			usage();
		arg = atol(argv[optind + 1]);
		if (arg <= 0)
			usage();
	}
	ctx = open_dev(dev_name[0]);
	pd = ctx ? ibv_alloc_pd(ctx) : NULL;
	cq = ctx ? ibv_create_cq(ctx, 64, NULL, NULL, 0) : NULL;
	if (!pd || !cq) {
		printf("Bail out! cannot open %s: %s\n", dev_name[0],
		       strerror(errno));
		return 1;
	}
	if (!strcmp(what, "qps"))
		ret = run_qps(arg);
	else if (!strcmp(what, "mr"))
		ret = run_mr(arg);
	else if (!strcmp(what, "memlock"))
		ret = run_memlock();
	else if (!strcmp(what, "hold"))
		ret = run_hold(arg);
	else if (!strcmp(what, "memcg"))
		ret = run_memcg(argv[optind + 1]);
	else
		usage();
	ibv_destroy_cq(cq);
	ibv_dealloc_pd(pd);
	ibv_close_device(ctx);
	printf("1..%d\n", tap_n);
	return ret || tap_failed;
}
