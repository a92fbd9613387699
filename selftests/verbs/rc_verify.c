// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * rc_verify - RC data integrity: every byte and every completion.
 *
 *   rc_verify -d DEV1 [-D DEV2] [-g GIDIDX] [-G GIDIDX2] [-n ROUNDS]
 *             [-s MAXSIZE] [-m MTU] [-S SEED] [-t SECONDS] [-o] [-v]
 *
 * Two RC QPs, A on DEV1 and B on DEV2 (DEV1 again by default: loopback),
 * each with its own context, PD, send and receive CQs and several MRs of
 * random sizes at random page offsets, are connected to each other in
 * this process (QPN, PSN and GID exchanged directly).  Each round runs
 * every operation type once, in random order and direction:
 *
 *   SEND            1..max_send_sge SGEs into 1..max_recv_sge SGEs
 *   SEND with IMM   the same, with immediate data
 *   SEND inline     from unregistered memory, scribbled right after post
 *   SEND zero-length, with and without IMM
 *   RDMA WRITE      gathered from SGEs into one remote range
 *   RDMA WRITE with IMM, which consumes a receive and must not touch it
 *   RDMA READ       one remote range scattered into SGEs
 *   ATOMIC CMP_SWP  matching and non-matching compares
 *   ATOMIC FETCH_ADD
 *   pipelined list  a burst of SENDs and WRITEs in one post_send
 *
 * Lengths favour the edges (0, 1, around multiples of the MTU) and ranges
 * are placed to straddle page and SGE boundaries.  Every MR, with guard
 * bytes around it, has a shadow copy holding what it must contain; after
 * each operation both sides' memory is compared with the shadows in full,
 * so a stray write anywhere is caught, not only a wrong payload.  Every
 * completion is checked: status, opcode, byte_len, IMM, wr_id, QP number,
 * order, and that no unexpected one appears.  Atomics operate on host-order
 * 64-bit values and return the original value in host order.
 *
 * With -o the MRs are on-demand paging MRs (IBV_ACCESS_ON_DEMAND), and
 * before each operation random pages of them leave the mapping
 * (MADV_DONTNEED), so the provider must fault them in again on both
 * sides: as sender, receiver, READ responder and atomic target.
 *
 * The first failure stops the run (the QPs are then likely in ERROR).
 * Output is TAP, one line per operation type; -S SEED reproduces a run.
 */
#include <endian.h>
#include <errno.h>
#include <getopt.h>
#include <inttypes.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>
#include <sys/mman.h>

#include <infiniband/verbs.h>

#include "common.h"

#define NREG		4	/* MRs per side */
#define GUARD		64	/* checked bytes around each MR */
#define PAGE		4096
#define MAX_SGE		8	/* per WR, if the QP allows */
#define PIPE_MAX	16	/* WRs in a pipelined list */
#define WRID_RECV	0x5200000000000000ULL

static struct {
	const char *dev[2];
	int gidx[2];
	long rounds;
	size_t maxsize;
	enum ibv_mtu mtu;
	uint64_t seed;
	int timeout;
	bool verbose;
	bool odp;	/* -o: on-demand paging MRs, pages dropped between ops */
} opt = {
	.gidx = { 0, -1 }, .rounds = 100, .maxsize = 16384, .timeout = 20,
};

/* ------------------------------------------------------------------ */
/* TAP, diagnostics, randomness                                        */
/* ------------------------------------------------------------------ */


static uint64_t rng_state;

static uint64_t rnd64(void)
{
	uint64_t x = rng_state;

	x ^= x >> 12;
	x ^= x << 25;
	x ^= x >> 27;
	rng_state = x;
	return x * 0x2545f4914f6cdd1dULL;
}

/* Uniform in [0, n); n > 0. */
static size_t rnd(size_t n)
{
	return rnd64() % n;
}

static void rnd_fill(uint8_t *p, size_t len)
{
	uint64_t v;
	size_t i;

	for (i = 0; i + 8 <= len; i += 8) {
		v = rnd64();
		memcpy(p + i, &v, 8);
	}
	for (; i < len; i++)
		p[i] = rnd64();
}

static void *xmalloc(size_t len)
{
	void *p = malloc(len);

	if (!p)
		diag("out of memory (%zu bytes)", len);
	return p;
}

/* ------------------------------------------------------------------ */
/* Memory with shadows                                                 */
/* ------------------------------------------------------------------ */

/*
 * An MR and the guard bytes around it.  shadow mirrors base..base+alloc:
 * what every byte must hold.  Whoever changes memory on purpose (the
 * test, or an operation the test expects) changes the shadow too.
 */
struct region {
	uint8_t *base, *buf, *shadow;
	size_t alloc, len;
	struct ibv_mr *mr;
};

struct side {
	char name;
	struct ibv_context *ctx;
	struct ibv_pd *pd;
	struct ibv_cq *scq, *rcq;
	struct ibv_qp *qp;
	struct ibv_qp_cap cap;
	struct region reg[NREG];
	union ibv_gid gid;
	int gidx;
	uint32_t psn;
	int rd_atom;
};

/* A byte range in one region: an SGE, or an RDMA target. */
struct span {
	struct region *r;
	size_t off, len;
};

static int region_alloc(struct side *s, struct region *r, size_t len)
{
	size_t lead = GUARD + rnd(PAGE);
	int access = IBV_ACCESS_LOCAL_WRITE | IBV_ACCESS_REMOTE_WRITE |
		     IBV_ACCESS_REMOTE_READ | IBV_ACCESS_REMOTE_ATOMIC;

	r->alloc = (lead + len + GUARD + PAGE - 1) & ~(size_t)(PAGE - 1);
	r->base = aligned_alloc(PAGE, r->alloc);
	r->shadow = malloc(r->alloc);
	if (!r->base || !r->shadow)
		return ENOMEM;
	r->buf = r->base + lead;
	r->len = len;
	rnd_fill(r->base, r->alloc);
	memcpy(r->shadow, r->base, r->alloc);
	if (opt.odp)
		access |= IBV_ACCESS_ON_DEMAND;
	r->mr = ibv_reg_mr(s->pd, r->buf, len, access);
	return r->mr ? 0 : errno;
}

/*
 * ODP: some of the MRs' pages leave the mapping (MADV_DONTNEED: they read
 * as zeros after, and the shadows say so), so the next operations find
 * them missing and the provider must fault them in again.  The pages
 * are the test's alone: aligned_alloc() gave whole pages.
 */
static void side_drop_pages(struct side *s)
{
	int i;

	for (i = 0; i < NREG; i++) {
		struct region *r = &s->reg[i];
		size_t first = rnd(r->alloc / PAGE), n;

		if (rnd(2))
			continue;
		n = 1 + rnd(r->alloc / PAGE - first);
		if (madvise(r->base + first * PAGE, n * PAGE, MADV_DONTNEED)) {
			diag("madvise: %s", strerror(errno));
			continue;
		}
		memset(r->shadow + first * PAGE, 0, n * PAGE);
	}
}

static void region_free(struct region *r)
{
	if (r->mr)
		ibv_dereg_mr(r->mr);
	free(r->base);
	free(r->shadow);
	memset(r, 0, sizeof(*r));
}

/* Compare memory with its shadow; say where the first difference is. */
static bool region_check(const struct side *s, int i)
{
	const struct region *r = &s->reg[i];
	size_t k, end;

	if (!memcmp(r->base, r->shadow, r->alloc))
		return true;
	for (k = 0; r->base[k] == r->shadow[k]; k++)
		;
	for (end = r->alloc; r->base[end - 1] == r->shadow[end - 1]; end--)
		;
	diag("side %c MR %d (%zu bytes): memory differs from what it must hold at MR offset %td..%td%s: byte %#04x, expected %#04x",
	     s->name, i, r->len, (r->base + k) - r->buf,
	     (r->base + end - 1) - r->buf,
	     k < (size_t)(r->buf - r->base) || k >= (size_t)(r->buf - r->base) + r->len ?
	     " (in a guard area)" : "", r->base[k], r->shadow[k]);
	return false;
}

static bool side_check(const struct side *s)
{
	bool ok = true;
	int i;

	for (i = 0; i < NREG; i++)
		ok &= region_check(s, i);
	return ok;
}

static uint8_t *span_mem(const struct span *sp)
{
	return sp->r->buf + sp->off;
}

static uint8_t *span_shadow(const struct span *sp)
{
	return sp->r->shadow + (sp->r->buf - sp->r->base) + sp->off;
}

/* New random contents, in memory and shadow. */
static void span_fill(const struct span *sp)
{
	rnd_fill(span_mem(sp), sp->len);
	memcpy(span_shadow(sp), span_mem(sp), sp->len);
}

static bool span_overlaps(const struct span *a, const struct span *b)
{
	return a->r == b->r && a->off < b->off + b->len &&
	       b->off < a->off + a->len;
}

/*
 * A random range of @len bytes in one of @s's MRs, aligned to @align,
 * straddling a page boundary half of the time, and overlapping none of
 * the @nused spans in @used (destinations must not overlap: which write
 * lands last would be undefined).
 */
static bool span_pick(struct side *s, size_t len, size_t align,
		      const struct span *used, int nused, struct span *sp)
{
	int tries, i;

	for (tries = 0; tries < 1000; tries++) {
		struct region *r = &s->reg[rnd(NREG)];
		uintptr_t a;

		if (len + align > r->len)
			continue;
		sp->r = r;
		sp->len = len;
		sp->off = rnd(r->len - len - align + 1);
		if (len > 1 && rnd(2)) {
			/* Put a page boundary strictly inside the range. */
			a = ((uintptr_t)r->buf + sp->off + PAGE) & ~(uintptr_t)(PAGE - 1);
			a -= 1 + rnd(len - 1);
			if (a >= (uintptr_t)r->buf &&
			    a + len + align <= (uintptr_t)r->buf + r->len)
				sp->off = a - (uintptr_t)r->buf;
		}
		a = (uintptr_t)r->buf + sp->off;
		sp->off += (align - a % align) % align;
		for (i = 0; i < nused; i++)
			if (span_overlaps(sp, &used[i]))
				break;
		if (i == nused)
			return true;
	}
	diag("side %c: no room left for %zu more bytes in its MRs", s->name,
	     len);
	return false;
}

/* Split @len into @n random parts (zero-length parts allowed). */
static void split_len(size_t len, int n, size_t *part)
{
	size_t left = len;
	int i;

	for (i = 0; i < n - 1; i++) {
		part[i] = rnd(left + 1);
		if (rnd(2))
			part[i] = left / (n - i);
		left -= part[i];
	}
	part[n - 1] = left;
}

/*
 * @n spans for @len bytes in all.  Destinations (@disjoint) avoid each
 * other and the @nused spans in @used; the chosen spans are appended to
 * @used if it has room for them.
 */
static bool spans_pick(struct side *s, size_t len, int n, bool disjoint,
		       struct span *used, int *nused, int used_max,
		       struct span *sp)
{
	size_t part[MAX_SGE];
	int i, base = disjoint ? *nused : 0;

	if (!n && len)
		diag("bug: %zu bytes and no SGE to put them in", len);
	if (!n)
		return !len;
	split_len(len, n, part);
	for (i = 0; i < n; i++) {
		if (!span_pick(s, part[i], 1, used, disjoint ? base + i : 0,
			       &sp[i]))
			return false;
		if (disjoint && base + i < used_max)
			used[base + i] = sp[i];
	}
	if (disjoint)
		*nused = base + n < used_max ? base + n : used_max;
	return true;
}

static void spans_to_sges(const struct span *sp, int n, struct ibv_sge *sge)
{
	int i;

	for (i = 0; i < n; i++)
		sge[i] = (struct ibv_sge){
			.addr = (uintptr_t)span_mem(&sp[i]),
			.length = sp[i].len, .lkey = sp[i].r->mr->lkey,
		};
}

/* The bytes a gather list sends (from the shadows: they are equal). */
static void spans_gather(const struct span *sp, int n, uint8_t *out)
{
	int i;

	for (i = 0; i < n; i++) {
		memcpy(out, span_shadow(&sp[i]), sp[i].len);
		out += sp[i].len;
	}
}

/* What a scatter list must end up holding: the first @len bytes. */
static void spans_scatter(const struct span *sp, int n, const uint8_t *in,
			  size_t len)
{
	size_t k;
	int i;

	for (i = 0; i < n && len; i++) {
		k = sp[i].len < len ? sp[i].len : len;
		memcpy(span_shadow(&sp[i]), in, k);
		in += k;
		len -= k;
	}
}

/* ------------------------------------------------------------------ */
/* Completions                                                         */
/* ------------------------------------------------------------------ */

static double now(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec + ts.tv_nsec / 1e9;
}

static int poll_one(struct ibv_cq *cq, struct ibv_wc *wc)
{
	double end = now() + opt.timeout;
	unsigned int spins = 0;
	int n;

	for (;;) {
		n = ibv_poll_cq(cq, 1, wc);
		if (n)
			return n < 0 ? EIO : 0;
		if (now() > end)
			return ETIMEDOUT;
		if (++spins > 1000)
			usleep(50);
	}
}

/*
 * A completion as it must be.  byte_len < 0 and imm < 0: not defined for
 * the operation (the verbs leave byte_len of SEND and WRITE requester
 * completions, and the IMM flag of any requester completion, to the
 * provider).
 */
enum { IMM_ANY = -1, IMM_NO, IMM_YES };

struct want {
	uint64_t wr_id;
	enum ibv_wc_opcode opcode;
	int64_t byte_len;
	int imm;
	uint32_t imm_data;	/* host order */
	uint32_t qp_num;
};

static void wc_print(const char *what, const struct ibv_wc *wc)
{
	diag("%s: wr_id %#" PRIx64 " status %s (%d) opcode %d byte_len %u wc_flags %#x imm %#x qp_num %#x vendor_err %#x",
	     what, wc->wr_id, ibv_wc_status_str(wc->status), wc->status,
	     wc->opcode, wc->byte_len, wc->wc_flags, be32toh(wc->imm_data),
	     wc->qp_num, wc->vendor_err);
}

static bool wc_expect(struct side *s, struct ibv_cq *cq, const char *what,
		      const struct want *w)
{
	struct ibv_wc wc;
	int ret;

	ret = poll_one(cq, &wc);
	if (ret) {
		diag("side %c: %s: no completion (%s), expected wr_id %#" PRIx64,
		     s->name, what, strerror(ret), w->wr_id);
		return false;
	}
	if (wc.status == IBV_WC_SUCCESS && wc.wr_id == w->wr_id &&
	    wc.opcode == w->opcode && wc.qp_num == w->qp_num &&
	    (w->byte_len < 0 || wc.byte_len == w->byte_len) &&
	    (w->imm < 0 || !!(wc.wc_flags & IBV_WC_WITH_IMM) == w->imm) &&
	    (w->imm != IMM_YES || be32toh(wc.imm_data) == w->imm_data))
		return true;
	diag("side %c: %s: wrong completion", s->name, what);
	wc_print("got", &wc);
	diag("want: wr_id %#" PRIx64 " status success opcode %d byte_len %" PRId64 " %s%#x qp_num %#x",
	     w->wr_id, w->opcode, w->byte_len,
	     w->imm < 0 ? "any IMM " : w->imm ? "IMM " : "no IMM ",
	     w->imm_data, w->qp_num);
	return false;
}

/* Nothing else completed, on either CQ of either side. */
static bool cqs_quiet(struct side *sides)
{
	struct ibv_wc wc;
	bool ok = true;
	int i;

	for (i = 0; i < 2; i++) {
		if (ibv_poll_cq(sides[i].scq, 1, &wc)) {
			diag("side %c: unexpected send completion", sides[i].name);
			wc_print("extra", &wc);
			ok = false;
		}
		if (ibv_poll_cq(sides[i].rcq, 1, &wc)) {
			diag("side %c: unexpected receive completion", sides[i].name);
			wc_print("extra", &wc);
			ok = false;
		}
	}
	return ok;
}

/* ------------------------------------------------------------------ */
/* Posting                                                             */
/* ------------------------------------------------------------------ */

static uint64_t wr_seq;

static bool post_recv(struct side *s, const struct span *sp, int n,
		      uint64_t wr_id)
{
	struct ibv_sge sge[MAX_SGE];
	struct ibv_recv_wr wr = { .wr_id = wr_id, .sg_list = sge,
				  .num_sge = n }, *bad;
	int ret;

	spans_to_sges(sp, n, sge);
	ret = ibv_post_recv(s->qp, &wr, &bad);
	if (ret)
		diag("side %c: ibv_post_recv: %s", s->name, strerror(ret));
	return !ret;
}

static bool post_send(struct side *s, struct ibv_send_wr *wr)
{
	struct ibv_send_wr *bad = NULL;
	int ret;

	ret = ibv_post_send(s->qp, wr, &bad);
	if (ret)
		diag("side %c: ibv_post_send: %s (bad_wr %#" PRIx64 ")", s->name,
		     strerror(ret), bad ? bad->wr_id : 0);
	return !ret;
}

/* ------------------------------------------------------------------ */
/* Lengths                                                             */
/* ------------------------------------------------------------------ */

static size_t mtu_bytes(enum ibv_mtu m)
{
	return 128u << m;	/* IBV_MTU_256 == 1 */
}

/* Edges first: 0, 1, a multiple of the MTU and its neighbours. */
static size_t len_pick(size_t max)
{
	size_t mtu = mtu_bytes(opt.mtu), k;

	switch (rnd(10)) {
	case 0:
		return 0;
	case 1:
		return 1 + rnd(max < 64 ? max : 64);
	case 2:
	case 3:
		k = mtu * (1 + rnd(max / mtu + 1)) - 1 + rnd(3);
		return k > max ? max : k;
	default:
		return rnd(max + 1);
	}
}

static int sge_count(uint32_t max, size_t len)
{
	int n = 1 + rnd(max < MAX_SGE ? max : MAX_SGE);

	return len || rnd(2) ? n : 0;
}

/* ------------------------------------------------------------------ */
/* Operations                                                          */
/* ------------------------------------------------------------------ */

struct op_ctx {
	struct side *sides;
	struct side *src, *dst;	/* requester, responder */
};

/*
 * A SEND of @len bytes from src's SGEs into a receive of dst's SGEs with
 * room to spare.  @inline_: from unregistered memory, which is scribbled
 * over right after ibv_post_send() returns.
 */
static bool do_send(struct op_ctx *c, size_t len, bool imm, bool inline_)
{
	struct span ssp[MAX_SGE], rsp[MAX_SGE], used[MAX_SGE];
	struct ibv_sge sge[MAX_SGE];
	uint8_t *data = xmalloc(len + 1), *copy = NULL;
	int ns = sge_count(c->src->cap.max_send_sge, len);
	int nr = sge_count(c->dst->cap.max_recv_sge, len), nused = 0;
	uint32_t immv = rnd64();
	uint64_t id = ++wr_seq;
	struct ibv_send_wr wr = {
		.wr_id = id, .sg_list = sge, .num_sge = ns,
		.opcode = imm ? IBV_WR_SEND_WITH_IMM : IBV_WR_SEND,
		.send_flags = IBV_SEND_SIGNALED | (inline_ ? IBV_SEND_INLINE : 0),
		.imm_data = htobe32(immv),
	};
	struct want ws = { id, IBV_WC_SEND, -1, IMM_ANY, 0,
			   c->src->qp->qp_num };
	struct want wr_ = { WRID_RECV | id, IBV_WC_RECV, len, imm, immv,
			    c->dst->qp->qp_num };
	size_t room = nr ? len + rnd(65) : 0, off;
	bool ok = false;
	int i;

	if (!data || !spans_pick(c->src, len, ns, false, NULL, &nused, 0, ssp) ||
	    !spans_pick(c->dst, room, nr, true, used, &nused, MAX_SGE, rsp))
		goto out;
	spans_gather(ssp, ns, data);
	spans_to_sges(ssp, ns, sge);
	if (inline_) {
		/* Inline data needs no MR: gather from a private copy. */
		copy = xmalloc(len + 1);
		if (!copy)
			goto out;
		memcpy(copy, data, len);
		for (i = 0, off = 0; i < ns; off += sge[i].length, i++) {
			sge[i].addr = (uintptr_t)(copy + off);
			sge[i].lkey = 0;
		}
	}
	if (!post_recv(c->dst, rsp, nr, WRID_RECV | id) || !post_send(c->src, &wr))
		goto out;
	if (copy)
		memset(copy, 0xee, len);
	spans_scatter(rsp, nr, data, len);
	ok = wc_expect(c->src, c->src->scq, "requester", &ws) &&
	     wc_expect(c->dst, c->dst->rcq, "responder", &wr_);
out:
	free(copy);
	free(data);
	return ok;
}

static bool op_send(struct op_ctx *c)
{
	return do_send(c, len_pick(opt.maxsize), false, false);
}

static bool op_send_imm(struct op_ctx *c)
{
	return do_send(c, len_pick(opt.maxsize), true, false);
}

static bool op_send_inline(struct op_ctx *c)
{
	size_t max = c->src->cap.max_inline_data;

	return do_send(c, max ? len_pick(max) : 0, rnd(2), true);
}

static bool op_send_zero(struct op_ctx *c)
{
	static bool imm;

	imm = !imm;
	return do_send(c, 0, imm, false);
}

/* RDMA WRITE of @len gathered bytes into one range of dst's memory. */
static bool do_write(struct op_ctx *c, bool imm)
{
	struct span ssp[MAX_SGE], dsp, rsp[MAX_SGE], used[MAX_SGE + 1];
	size_t len = len_pick(opt.maxsize);
	int ns = sge_count(c->src->cap.max_send_sge, len), nused = 0;
	int nr = rnd(3);
	size_t room = nr ? rnd(100) : 0;
	struct ibv_sge sge[MAX_SGE];
	uint8_t *data = xmalloc(len + 1);
	uint32_t immv = rnd64();
	uint64_t id = ++wr_seq;
	struct ibv_send_wr wr = {
		.wr_id = id, .sg_list = sge, .num_sge = ns,
		.opcode = imm ? IBV_WR_RDMA_WRITE_WITH_IMM : IBV_WR_RDMA_WRITE,
		.send_flags = IBV_SEND_SIGNALED, .imm_data = htobe32(immv),
	};
	struct want ws = { id, IBV_WC_RDMA_WRITE, -1, IMM_ANY, 0,
			   c->src->qp->qp_num };
	struct want wr_ = { WRID_RECV | id, IBV_WC_RECV_RDMA_WITH_IMM, len,
			    IMM_YES, immv, c->dst->qp->qp_num };
	bool ok = false;

	if (!data || !spans_pick(c->src, len, ns, false, NULL, &nused, 0, ssp) ||
	    !span_pick(c->dst, len, 1, NULL, 0, &dsp))
		goto out;
	used[0] = dsp;
	nused = 1;
	/* The receive a WRITE with IMM consumes: its buffers stay intact. */
	if (imm && !spans_pick(c->dst, room, nr, true, used, &nused,
			       MAX_SGE + 1, rsp))
		goto out;
	spans_gather(ssp, ns, data);
	spans_to_sges(ssp, ns, sge);
	wr.wr.rdma.remote_addr = (uintptr_t)span_mem(&dsp);
	wr.wr.rdma.rkey = dsp.r->mr->rkey;
	if ((imm && !post_recv(c->dst, rsp, nr, WRID_RECV | id)) ||
	    !post_send(c->src, &wr))
		goto out;
	memcpy(span_shadow(&dsp), data, len);
	ok = wc_expect(c->src, c->src->scq, "requester", &ws) &&
	     (!imm || wc_expect(c->dst, c->dst->rcq, "responder", &wr_));
out:
	free(data);
	return ok;
}

static bool op_write(struct op_ctx *c)
{
	return do_write(c, false);
}

static bool op_write_imm(struct op_ctx *c)
{
	return do_write(c, true);
}

/* RDMA READ of one range of dst's memory into src's SGEs. */
static bool op_read(struct op_ctx *c)
{
	struct span rem, lsp[MAX_SGE], used[MAX_SGE];
	size_t len = len_pick(opt.maxsize);
	int nl = sge_count(c->src->cap.max_send_sge, len), nused = 0;
	struct ibv_sge sge[MAX_SGE];
	uint64_t id = ++wr_seq;
	struct ibv_send_wr wr = {
		.wr_id = id, .sg_list = sge, .num_sge = nl,
		.opcode = IBV_WR_RDMA_READ, .send_flags = IBV_SEND_SIGNALED,
	};
	struct want ws = { id, IBV_WC_RDMA_READ, len, IMM_ANY, 0,
			   c->src->qp->qp_num };

	if (!span_pick(c->dst, len, 1, NULL, 0, &rem) ||
	    !spans_pick(c->src, len, nl, true, used, &nused, MAX_SGE, lsp))
		return false;
	span_fill(&rem);
	spans_to_sges(lsp, nl, sge);
	wr.wr.rdma.remote_addr = (uintptr_t)span_mem(&rem);
	wr.wr.rdma.rkey = rem.r->mr->rkey;
	if (!post_send(c->src, &wr))
		return false;
	spans_scatter(lsp, nl, span_shadow(&rem), len);
	return wc_expect(c->src, c->src->scq, "requester", &ws);
}

/* An atomic on an aligned 64-bit word of dst; old value into src. */
static bool do_atomic(struct op_ctx *c, bool cmp_swp)
{
	struct span rem, loc;
	uint64_t old = rnd64(), arg = rnd64(), swap = rnd64(), new;
	uint64_t id = ++wr_seq;
	struct ibv_sge sge;
	struct ibv_send_wr wr = {
		.wr_id = id, .sg_list = &sge, .num_sge = 1,
		.opcode = cmp_swp ? IBV_WR_ATOMIC_CMP_AND_SWP :
				    IBV_WR_ATOMIC_FETCH_AND_ADD,
		.send_flags = IBV_SEND_SIGNALED,
	};
	struct want ws = { id, cmp_swp ? IBV_WC_COMP_SWAP : IBV_WC_FETCH_ADD,
			   8, IMM_ANY, 0, c->src->qp->qp_num };

	if (!span_pick(c->dst, 8, 8, NULL, 0, &rem) ||
	    !span_pick(c->src, 8, 1, NULL, 0, &loc))
		return false;
	memcpy(span_mem(&rem), &old, 8);
	memcpy(span_shadow(&rem), &old, 8);
	if (cmp_swp && rnd(2))
		arg = old;	/* half the compares match */
	new = cmp_swp ? (arg == old ? swap : old) : old + arg;
	spans_to_sges(&loc, 1, &sge);
	wr.wr.atomic.remote_addr = (uintptr_t)span_mem(&rem);
	wr.wr.atomic.rkey = rem.r->mr->rkey;
	wr.wr.atomic.compare_add = arg;
	wr.wr.atomic.swap = swap;
	if (!post_send(c->src, &wr))
		return false;
	memcpy(span_shadow(&rem), &new, 8);
	memcpy(span_shadow(&loc), &old, 8);
	return wc_expect(c->src, c->src->scq, "requester", &ws);
}

static bool op_cmp_swp(struct op_ctx *c)
{
	return do_atomic(c, true);
}

static bool op_fetch_add(struct op_ctx *c)
{
	return do_atomic(c, false);
}

/*
 * One ibv_post_send() list of SENDs and WRITEs, all in flight together;
 * RC completes them in order, and the receives in order too.
 */
struct pipe_wr {
	struct ibv_send_wr wr;
	struct ibv_sge sge[MAX_SGE];
	struct span ssp[MAX_SGE], dsp[MAX_SGE];
	int nd;
	size_t len;
};

static bool pipe_prepare(struct op_ctx *c, struct pipe_wr *p,
			 struct span *used, int *nused, int used_max)
{
	size_t len = len_pick(opt.maxsize / 4);
	int ns = sge_count(c->src->cap.max_send_sge, len), n0 = 0;
	bool send = rnd(2);

	p->len = len;
	p->wr = (struct ibv_send_wr){
		.wr_id = ++wr_seq, .sg_list = p->sge, .num_sge = ns,
		.opcode = send ? IBV_WR_SEND : IBV_WR_RDMA_WRITE,
		.send_flags = IBV_SEND_SIGNALED,
	};
	if (!spans_pick(c->src, len, ns, false, NULL, &n0, 0, p->ssp))
		return false;
	spans_to_sges(p->ssp, ns, p->sge);
	p->nd = send ? 1 + rnd(c->dst->cap.max_recv_sge < MAX_SGE ?
			       c->dst->cap.max_recv_sge : MAX_SGE) : 1;
	if (!spans_pick(c->dst, len, p->nd, true, used, nused, used_max,
			p->dsp))
		return false;
	if (!send) {
		p->wr.wr.rdma.remote_addr = (uintptr_t)span_mem(&p->dsp[0]);
		p->wr.wr.rdma.rkey = p->dsp[0].r->mr->rkey;
	} else if (!post_recv(c->dst, p->dsp, p->nd, WRID_RECV | p->wr.wr_id)) {
		return false;
	}
	return true;
}

static bool op_pipeline(struct op_ctx *c)
{
	struct span used[PIPE_MAX * MAX_SGE];
	struct pipe_wr p[PIPE_MAX];
	uint8_t *data = xmalloc(opt.maxsize / 4 + 1);
	uint32_t depth = c->src->cap.max_send_wr;
	int n, i, nused = 0;
	bool ok = data;

	if (depth > c->dst->cap.max_recv_wr)
		depth = c->dst->cap.max_recv_wr;
	n = 2 + rnd((depth < PIPE_MAX ? depth : PIPE_MAX) - 1);
	for (i = 0; ok && i < n; i++) {
		ok = pipe_prepare(c, &p[i], used, &nused, PIPE_MAX * MAX_SGE);
		if (i)
			p[i - 1].wr.next = &p[i].wr;
	}
	if (ok)
		p[n - 1].wr.next = NULL;
	ok = ok && post_send(c->src, &p[0].wr);
	for (i = 0; ok && i < n; i++) {
		spans_gather(p[i].ssp, p[i].wr.num_sge, data);
		spans_scatter(p[i].dsp, p[i].nd, data, p[i].len);
	}
	for (i = 0; ok && i < n; i++) {
		struct want w = { p[i].wr.wr_id,
				  p[i].wr.opcode == IBV_WR_SEND ? IBV_WC_SEND :
								  IBV_WC_RDMA_WRITE,
				  -1, IMM_ANY, 0, c->src->qp->qp_num };

		ok = wc_expect(c->src, c->src->scq, "requester, in order", &w);
	}
	for (i = 0; ok && i < n; i++) {
		struct want w = { WRID_RECV | p[i].wr.wr_id, IBV_WC_RECV,
				  p[i].len, IMM_NO, 0, c->dst->qp->qp_num };

		if (p[i].wr.opcode == IBV_WR_SEND)
			ok = wc_expect(c->dst, c->dst->rcq, "responder, in order", &w);
	}
	free(data);
	return ok;
}

static const struct op {
	const char *name;
	bool (*run)(struct op_ctx *c);
} ops[] = {
	{ "SEND, multi-SGE on both sides", op_send },
	{ "SEND with IMM", op_send_imm },
	{ "SEND inline, source reused at once", op_send_inline },
	{ "SEND zero-length, with and without IMM", op_send_zero },
	{ "RDMA WRITE", op_write },
	{ "RDMA WRITE with IMM", op_write_imm },
	{ "RDMA READ", op_read },
	{ "ATOMIC CMP_SWP", op_cmp_swp },
	{ "ATOMIC FETCH_ADD", op_fetch_add },
	{ "pipelined list of SENDs and WRITEs", op_pipeline },
};

#define NOPS	(sizeof(ops) / sizeof(ops[0]))

/* ------------------------------------------------------------------ */
/* Setup                                                               */
/* ------------------------------------------------------------------ */

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

static int side_qp_create(struct side *s)
{
	struct ibv_device_attr da;
	struct ibv_qp_init_attr init = {
		.qp_type = IBV_QPT_RC,
		.cap = { .max_send_wr = 64, .max_recv_wr = 64,
			 .max_inline_data = 256 },
	};

	if (ibv_query_device(s->ctx, &da))
		return errno ?: EIO;
	init.cap.max_send_sge = da.max_sge < MAX_SGE ? da.max_sge : MAX_SGE;
	init.cap.max_recv_sge = init.cap.max_send_sge;
	s->rd_atom = da.max_qp_rd_atom < 16 ? da.max_qp_rd_atom : 16;
	if (da.max_qp_init_rd_atom < s->rd_atom)
		s->rd_atom = da.max_qp_init_rd_atom;
	if (s->rd_atom < 1)
		s->rd_atom = 1;
	s->scq = ibv_create_cq(s->ctx, 256, NULL, NULL, 0);
	s->rcq = ibv_create_cq(s->ctx, 256, NULL, NULL, 0);
	if (!s->scq || !s->rcq)
		return errno ?: ENOMEM;
	init.send_cq = s->scq;
	init.recv_cq = s->rcq;
	s->qp = ibv_create_qp(s->pd, &init);
	if (!s->qp)
		return errno ?: ENOMEM;
	s->cap = init.cap;
	return 0;
}

static int side_setup(struct side *s, const char *dev, int gidx)
{
	int i, ret;

	s->ctx = dev_open(dev);
	if (!s->ctx)
		return ENODEV;
	s->gidx = gidx;
	s->psn = rnd64() & 0xffffff;
	if (ibv_query_gid(s->ctx, 1, gidx, &s->gid))
		return errno ?: EINVAL;
	s->pd = ibv_alloc_pd(s->ctx);
	if (!s->pd)
		return errno ?: ENOMEM;
	ret = side_qp_create(s);
	for (i = 0; !ret && i < NREG; i++)
		ret = region_alloc(s, &s->reg[i],
				   2 * opt.maxsize + 8 + rnd(opt.maxsize + 1));
	return ret;
}

static void side_teardown(struct side *s)
{
	int i;

	if (s->qp)
		ibv_destroy_qp(s->qp);
	for (i = 0; i < NREG; i++)
		region_free(&s->reg[i]);
	if (s->scq)
		ibv_destroy_cq(s->scq);
	if (s->rcq)
		ibv_destroy_cq(s->rcq);
	if (s->pd)
		ibv_dealloc_pd(s->pd);
	if (s->ctx)
		ibv_close_device(s->ctx);
}

/* RESET -> INIT -> RTR -> RTS towards @peer, RoCE v2 by GID. */
static int qp_connect(struct side *s, const struct side *peer)
{
	struct rc_peer p = {
		.qpn = peer->qp->qp_num, .gid = peer->gid, .psn = peer->psn,
		.my_psn = s->psn, .sgid_idx = s->gidx, .mtu = opt.mtu,
		.dest_rd_atomic = s->rd_atom, .rd_atomic = peer->rd_atom,
	};

	return rc_connect_to(s->qp, &p);
}

/* ------------------------------------------------------------------ */

struct op_stat {
	long runs;
	long failed_round;	/* 0: none */
};

/* One op in a random direction; the memory of both sides is checked. */
static bool op_run(struct side *sides, const struct op *op)
{
	int d = rnd(2);
	struct op_ctx c = { sides, &sides[d], &sides[!d] };
	bool ok;

	if (opt.verbose)
		diag("%s, %c -> %c", op->name, c.src->name, c.dst->name);
	if (opt.odp) {
		side_drop_pages(&sides[0]);
		side_drop_pages(&sides[1]);
	}
	ok = op->run(&c);
	ok = cqs_quiet(sides) && ok;
	ok = side_check(&sides[0]) && ok;
	ok = side_check(&sides[1]) && ok;
	if (!ok)
		diag("%s failed, %c -> %c", op->name, c.src->name, c.dst->name);
	return ok;
}

static void rounds_run(struct side *sides, struct op_stat *st)
{
	size_t order[NOPS], i, j, t;
	long r;

	for (r = 1; r <= opt.rounds; r++) {
		for (i = 0; i < NOPS; i++)
			order[i] = i;
		for (i = NOPS - 1; i > 0; i--) {
			j = rnd(i + 1);
			t = order[i];
			order[i] = order[j];
			order[j] = t;
		}
		for (i = 0; i < NOPS; i++) {
			st[order[i]].runs++;
			if (!op_run(sides, &ops[order[i]])) {
				st[order[i]].failed_round = r;
				diag("stopping in round %ld (seed %#" PRIx64 ")",
				     r, opt.seed);
				return;
			}
		}
	}
}

static void report(const struct op_stat *st)
{
	size_t i;

	for (i = 0; i < NOPS; i++) {
		if (st[i].failed_round)
			tap(false, "%s: failed in round %ld", ops[i].name,
			    st[i].failed_round);
		else if (st[i].runs < opt.rounds)
			tap(false, "%s: %ld of %ld rounds run before the run stopped",
			    ops[i].name, st[i].runs, opt.rounds);
		else
			tap(true, "%s: %ld rounds, every byte and completion verified",
			    ops[i].name, st[i].runs);
	}
}

static enum ibv_mtu mtu_parse(const char *s)
{
	switch (atoi(s)) {
	case 256: return IBV_MTU_256;
	case 512: return IBV_MTU_512;
	case 1024: return IBV_MTU_1024;
	case 2048: return IBV_MTU_2048;
	case 4096: return IBV_MTU_4096;
	default: return 0;
	}
}

static int usage(const char *prog)
{
	fprintf(stderr, "usage: %s -d DEV1 [-D DEV2] [-g GIDIDX] [-G GIDIDX2] [-n ROUNDS] [-s MAXSIZE] [-m MTU] [-S SEED] [-t SECONDS] [-o] [-v]\n",
		prog);
	return 2;
}

static int parse_args(int argc, char **argv)
{
	int c;

	while ((c = getopt(argc, argv, "d:D:g:G:n:s:m:S:t:ov")) != -1) {
		switch (c) {
		case 'd': opt.dev[0] = optarg; break;
		case 'D': opt.dev[1] = optarg; break;
		case 'g': opt.gidx[0] = atoi(optarg); break;
		case 'G': opt.gidx[1] = atoi(optarg); break;
		case 'n': opt.rounds = atol(optarg); break;
		case 's': opt.maxsize = strtoul(optarg, NULL, 0); break;
		case 'm':
			opt.mtu = mtu_parse(optarg);
			if (!opt.mtu)
				return usage(argv[0]);
			break;
		case 'S': opt.seed = strtoull(optarg, NULL, 0); break;
		case 't': opt.timeout = atoi(optarg); break;
		case 'o': opt.odp = true; break;
		case 'v': opt.verbose = true; break;
		default: return usage(argv[0]);
		}
	}
	if (!opt.dev[0] || opt.rounds < 1 || opt.maxsize < 8 || opt.timeout < 1)
		return usage(argv[0]);
	if (!opt.dev[1])
		opt.dev[1] = opt.dev[0];
	if (opt.gidx[1] < 0)
		opt.gidx[1] = opt.gidx[0];
	if (!opt.seed)
		opt.seed = (uint64_t)time(NULL) << 20 ^ getpid();
	return 0;
}

/* Default MTU: the active MTU of DEV1's port. */
static bool mtu_default(struct side *s)
{
	struct ibv_port_attr pa;

	if (opt.mtu)
		return true;
	if (ibv_query_port(s->ctx, 1, &pa))
		return false;
	opt.mtu = pa.active_mtu;
	return true;
}

int main(int argc, char **argv)
{
	struct side sides[2] = { { .name = 'A' }, { .name = 'B' } };
	struct op_stat st[NOPS] = {};
	bool ok;
	int ret;

	ret = parse_args(argc, argv);
	if (ret)
		return ret;
	setvbuf(stdout, NULL, _IOLBF, 0);
	rng_state = opt.seed | 1;
	diag("seed %#" PRIx64 ", A = %s gid %d, B = %s gid %d, %ld rounds, max %zu bytes%s",
	     opt.seed, opt.dev[0], opt.gidx[0], opt.dev[1], opt.gidx[1],
	     opt.rounds, opt.maxsize, opt.odp ? ", ODP" : "");

	ret = side_setup(&sides[0], opt.dev[0], opt.gidx[0]);
	ret = ret ?: side_setup(&sides[1], opt.dev[1], opt.gidx[1]);
	tap(!ret, "PDs, CQs, RC QPs and %d MRs per side on %s and %s (%s)",
	    NREG, opt.dev[0], opt.dev[1], ret ? strerror(ret) : "ok");
	if (!ret) {
		diag("caps A: sge %u/%u inline %u wr %u/%u",
		     sides[0].cap.max_send_sge, sides[0].cap.max_recv_sge,
		     sides[0].cap.max_inline_data, sides[0].cap.max_send_wr,
		     sides[0].cap.max_recv_wr);
		ok = mtu_default(&sides[0]) && !qp_connect(&sides[0], &sides[1]) &&
		     !qp_connect(&sides[1], &sides[0]);
		tap(ok, "QPs %#x and %#x connected, path MTU %zu", sides[0].qp->qp_num,
		    sides[1].qp->qp_num, mtu_bytes(opt.mtu));
		if (ok)
			rounds_run(sides, st);
		report(st);
	}
	side_teardown(&sides[1]);
	side_teardown(&sides[0]);
	printf("1..%d\n", tap_n);
	return tap_failed ? 1 : 0;
}
