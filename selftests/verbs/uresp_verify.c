// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * uresp_verify DEV: what sroce.ko writes back to userspace holds no stale
 * kernel memory (G11 in Documentation/security.rst).
 *
 * With raw write() commands, as libsroce would send them, it opens a
 * context and makes a PD, a CQ, an SRQ and a QP.  Each response buffer
 * starts as 0xa5 bytes: the driver's reserved fields must come back zero,
 * the bytes after its response untouched, and each ring sroce.ko maps
 * must be zero but for its flags word.  TAP output.
 */
#include <errno.h>
#include <fcntl.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>
#include <rdma/ib_user_ioctl_verbs.h>
#include <rdma/ib_user_verbs.h>
#include "rdma/sroce-abi.h"

#include "common.h"

#define FILL	0xa5
#define TAIL	32

static int open_uverbs(const char *dev)
{
	char path[128], name[64];
	FILE *f;
	int i;

	for (i = 0; i < 64; i++) {
		snprintf(path, sizeof(path),
			 "/sys/class/infiniband_verbs/uverbs%d/ibdev", i);
		f = fopen(path, "r");
		if (!f)
			continue;
		if (fscanf(f, "%63s", name) == 1 && !strcmp(name, dev)) {
			fclose(f);
			snprintf(path, sizeof(path), "/dev/infiniband/uverbs%d", i);
			return open(path, O_RDWR | O_CLOEXEC);
		}
		fclose(f);
	}
	errno = ENODEV;
	return -1;
}

/*
 * One legacy write() command.  @cmd starts with its header; its core
 * part's first field is the response pointer.  @resp is filled first.
 */
static int command(int fd, __u32 op, void *cmd, size_t clen,
		   void *resp, size_t rlen)
{
	struct ib_uverbs_cmd_hdr *hdr = cmd;
	__aligned_u64 *response = (void *)(hdr + 1);

	memset(resp, FILL, rlen);
	hdr->command = op;
	hdr->in_words = clen / 4;
	hdr->out_words = (rlen - TAIL) / 4;
	*response = (uintptr_t)resp;
	return write(fd, cmd, clen) == (ssize_t)clen ? 0 : errno;
}

/* The TAIL bytes after a response of @len bytes are still FILL. */
static bool tail_untouched(const void *resp, size_t len)
{
	const uint8_t *p = (const uint8_t *)resp + len;
	int i;

	for (i = 0; i < TAIL; i++)
		if (p[i] != FILL)
			return false;
	return true;
}

/*
 * A ring's mapping: zero everywhere but the header's flags word, where a
 * fresh SQ may already say SROCE_RING_F_KICK (nothing runs yet).
 */
static bool ring_zero(int fd, const struct sroce_ring_info *r)
{
	const uint8_t *p;
	bool zero = true;
	size_t i;

	if (!r->mmap_size || r->mmap_size > (1ULL << 30))
		return false;
	p = mmap(NULL, r->mmap_size, PROT_READ, MAP_SHARED, fd,
		 r->mmap_offset);
	if (p == MAP_FAILED)
		return false;
	for (i = 0; i < r->mmap_size && zero; i++)
		zero = !p[i] ||
		       i - offsetof(struct sroce_ring_hdr, flags) < sizeof(__u32);
	munmap((void *)p, r->mmap_size);
	return zero;
}

struct ctx_cmd {
	struct ib_uverbs_cmd_hdr hdr;
	struct ib_uverbs_get_context core;
	struct sroce_alloc_ucontext_req drv;
};

struct ctx_resp {
	struct ib_uverbs_get_context_resp core;
	struct sroce_alloc_ucontext_resp drv;
	uint8_t tail[TAIL];
};

static bool check_ctx(int fd)
{
	struct ctx_cmd c = { .drv.abi_version = SROCE_UVERBS_ABI_VERSION };
	struct ctx_resp r;
	int err = command(fd, IB_USER_VERBS_CMD_GET_CONTEXT, &c, sizeof(c),
			  &r, sizeof(r));

	if (!tap(!err, "get_context (%s)", strerror(err)))
		return false;
	tap(!r.drv.reserved && tail_untouched(&r, offsetof(struct ctx_resp, tail)),
	    "get_context: reserved zero, nothing written past the response");
	return true;
}

struct pd_cmd {
	struct ib_uverbs_cmd_hdr hdr;
	struct ib_uverbs_alloc_pd core;
};

struct pd_resp {
	struct ib_uverbs_alloc_pd_resp core;
	struct sroce_alloc_pd_resp drv;
	uint8_t tail[TAIL];
};

static bool check_pd(int fd, __u32 *pd)
{
	struct pd_cmd c = {};
	struct pd_resp r;
	int err = command(fd, IB_USER_VERBS_CMD_ALLOC_PD, &c, sizeof(c),
			  &r, sizeof(r));

	if (!tap(!err, "alloc_pd (%s)", strerror(err)))
		return false;
	*pd = r.core.pd_handle;
	tap(!r.drv.reserved && tail_untouched(&r, offsetof(struct pd_resp, tail)),
	    "alloc_pd: reserved zero, nothing written past the response");
	return true;
}

struct cq_cmd {
	struct ib_uverbs_cmd_hdr hdr;
	struct ib_uverbs_create_cq core;
};

struct cq_resp {
	struct ib_uverbs_create_cq_resp core;
	struct sroce_create_cq_resp drv;
	uint8_t tail[TAIL];
};

static bool check_cq(int fd, __u32 *cq)
{
	struct cq_cmd c = { .core = { .cqe = 100, .comp_channel = -1 } };
	struct cq_resp r;
	int err = command(fd, IB_USER_VERBS_CMD_CREATE_CQ, &c, sizeof(c),
			  &r, sizeof(r));

	if (!tap(!err, "create_cq (%s)", strerror(err)))
		return false;
	*cq = r.core.cq_handle;
	tap(tail_untouched(&r, offsetof(struct cq_resp, tail)),
	    "create_cq: nothing written past the response");
	tap(ring_zero(fd, &r.drv.ring), "create_cq: the CQ ring is all zero");
	return true;
}

struct srq_cmd {
	struct ib_uverbs_cmd_hdr hdr;
	struct ib_uverbs_create_srq core;
};

struct srq_resp {
	struct ib_uverbs_create_srq_resp core;
	struct sroce_create_srq_resp drv;
	uint8_t tail[TAIL];
};

static void check_srq(int fd, __u32 pd)
{
	struct srq_cmd c = { .core = { .pd_handle = pd, .max_wr = 64,
				       .max_sge = 2 } };
	struct srq_resp r;
	int err = command(fd, IB_USER_VERBS_CMD_CREATE_SRQ, &c, sizeof(c),
			  &r, sizeof(r));

	if (!tap(!err, "create_srq (%s)", strerror(err)))
		return;
	tap(!r.drv.reserved[0] && !r.drv.reserved[1] &&
	    tail_untouched(&r, offsetof(struct srq_resp, tail)),
	    "create_srq: reserved zero, nothing written past the response");
	tap(ring_zero(fd, &r.drv.rq), "create_srq: the SRQ ring is all zero");
}

struct qp_cmd {
	struct ib_uverbs_cmd_hdr hdr;
	struct ib_uverbs_create_qp core;
	struct sroce_create_qp_req drv;
};

struct qp_resp {
	struct ib_uverbs_create_qp_resp core;
	struct sroce_create_qp_resp drv;
	uint8_t tail[TAIL];
};

static void check_qp(int fd, __u32 pd, __u32 cq)
{
	struct qp_cmd c = { .core = {
		.pd_handle = pd, .send_cq_handle = cq, .recv_cq_handle = cq,
		.max_send_wr = 16, .max_recv_wr = 16, .max_send_sge = 2,
		.max_recv_sge = 2, .qp_type = IB_UVERBS_QPT_RC } };
	struct qp_resp r;
	int err = command(fd, IB_USER_VERBS_CMD_CREATE_QP, &c, sizeof(c),
			  &r, sizeof(r));

	if (!tap(!err, "create_qp (%s)", strerror(err)))
		return;
	tap(!r.core.reserved && !r.drv.reserved &&
	    tail_untouched(&r, offsetof(struct qp_resp, tail)),
	    "create_qp: reserved zero, nothing written past the response");
	tap(ring_zero(fd, &r.drv.sq) && ring_zero(fd, &r.drv.rq),
	    "create_qp: the SQ and RQ rings are all zero");
}

int main(int argc, char **argv)
{
	__u32 pd, cq;
	int fd;

	if (argc != 2) {
		fprintf(stderr, "usage: uresp_verify DEV\n");
		return 2;
	}
	fd = open_uverbs(argv[1]);
	if (fd < 0) {
		printf("Bail out! %s: %s\n", argv[1], strerror(errno));
		return 1;
	}
	if (check_ctx(fd) && check_pd(fd, &pd)) {
		check_srq(fd, pd);
		if (check_cq(fd, &cq))
			check_qp(fd, pd, cq);
	}
	/* Closing the file destroys every object, as ib_core does at exit. */
	close(fd);
	printf("1..%d\n", tap_n);
	return tap_failed;
}
