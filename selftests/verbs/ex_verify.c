// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * ex_verify - the extended verbs over RC: every byte and every completion.
 *
 *   ex_verify -d DEV1 [-D DEV2] [-g GIDIDX] [-G GIDIDX2] [-n ROUNDS]
 *             [-s MAXSIZE] [-m MTU] [-S SEED] [-t SECONDS] [-v]
 *
 * Two RC QPs, A on DEV1 and B on DEV2 (DEV1 again by default: loopback),
 * connected to each other in this process, built only from the extended
 * verbs: each side has a thread domain and a parent domain on its PD
 * (with custom allocators, which libsroce must never call), a send CQ from
 * ibv_create_cq_ex() and a receive CQ created on the parent domain, an RC
 * QP from ibv_create_qp_ex() on the parent domain offering every operation
 * sroce has, and one MR registered on the parent domain.  Work requests
 * are built with ibv_wr_start() ... ibv_wr_complete(); completions are
 * read with ibv_start_poll()/next_poll()/end_poll() and every
 * ibv_wc_read_*() the CQ offers, or with plain ibv_poll_cq() on the same
 * CQ now and then.
 *
 * Each round runs these in random order and direction, with lengths that
 * favour the edges and ranges placed across page boundaries:
 *
 *   SEND, SEND with IMM       gathered from SGEs, scattered into SGEs
 *   SEND inline               wr_set_inline_data(_list), source scribbled
 *   RDMA WRITE (+IMM, inline) gathered into one remote range
 *   RDMA READ                 one remote range scattered into SGEs
 *   ATOMIC CMP_SWP, FETCH_ADD on aligned 64-bit words
 *   ATOMIC WRITE              8 random bytes to an aligned word, built
 *                             with wr_atomic_write or ibv_post_send, the
 *                             source scribbled at once
 *   batch                     up to 16 mixed WRs between one wr_start and
 *                             wr_complete, some unsignaled
 *
 * Then, once: ibv_post_send() interleaved with batches on the same QP, a
 * batch that fills the SQ exactly, wr_abort (nothing happens, the slots
 * are reused), bad work requests that make wr_complete fail with nothing
 * published (too many SGEs, inline too big or on a READ, bad atomics, no
 * WR open, a bad flag, an operation not offered, one WR more than the SQ
 * holds), what ibv_create_qp_ex/cq_ex must refuse, the parent and thread
 * domains refusing to go while in use, ATOMIC WRITEs the responder must
 * refuse (an MR without remote write, a misaligned address: the pair is
 * connected anew after each), and finally an error completion (bad
 * rkey) and the flush that follows, read through the extended CQ.
 *
 * Memory is checked in full against a shadow copy (guard bytes included)
 * after every step, and no completion may appear that was not expected.
 * The first failure stops the run.  Output is TAP; -S SEED reproduces it.
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

#include <infiniband/verbs.h>

#include "common.h"

#define GUARD		64	/* checked bytes around each MR */
#define PAGE		4096
#define MAX_SGE		8	/* per WR, if the QP allows */
#define BATCH_MAX	16	/* WRs in one batch */
#define USED_MAX	(BATCH_MAX * (MAX_SGE + 1))
#define INLINE_WANT	256
#define SQ_WANT		64
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
} opt = {
	.gidx = { 0, -1 }, .rounds = 20, .maxsize = 16384, .timeout = 20,
};

/* Every operation sroce offers on RC. */
#define SEND_OPS	(IBV_QP_EX_WITH_SEND | IBV_QP_EX_WITH_SEND_WITH_IMM | \
			 IBV_QP_EX_WITH_RDMA_WRITE | \
			 IBV_QP_EX_WITH_RDMA_WRITE_WITH_IMM | \
			 IBV_QP_EX_WITH_RDMA_READ | \
			 IBV_QP_EX_WITH_ATOMIC_CMP_AND_SWP | \
			 IBV_QP_EX_WITH_ATOMIC_FETCH_AND_ADD | \
			 IBV_QP_EX_WITH_ATOMIC_WRITE)

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
	size_t i;

	for (i = 0; i < len; i++)
		p[i] = rnd64() >> 56;
}

static size_t min_sz(size_t a, size_t b)
{
	return a < b ? a : b;
}

static double now(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec + ts.tv_nsec / 1e9;
}

/* ------------------------------------------------------------------ */
/* Sides, memory and shadows                                           */
/* ------------------------------------------------------------------ */

/* A range of one side's MR: an SGE or an RDMA target. */
struct span {
	size_t off, len;
};

struct side {
	char name;
	struct ibv_context *ctx;
	struct ibv_pd *pd;		/* the protection domain */
	struct ibv_td *td;
	struct ibv_pd *par;		/* the parent domain everything uses */
	struct ibv_cq_ex *scq, *rcq;
	struct ibv_qp *qp;
	struct ibv_qp_ex *qpx;
	struct ibv_qp_cap cap;
	/* The MR, with guard bytes around it, and what every byte must hold. */
	uint8_t *base, *buf, *shadow;
	size_t alloc, len;
	struct ibv_mr *mr;
	/* Spans taken by the current operation: they must not overlap. */
	struct span used[USED_MAX];
	int nused;
	union ibv_gid gid;
	int gidx;
	uint32_t psn;
	int rd_atom;
};

static uint8_t *mem(struct side *s, const struct span *sp)
{
	return s->buf + sp->off;
}

static uint8_t *shadow(struct side *s, const struct span *sp)
{
	return s->shadow + (s->buf - s->base) + sp->off;
}

static uint64_t span_addr(struct side *s, const struct span *sp)
{
	return (uintptr_t)mem(s, sp);
}

/* New random contents, in memory and shadow. */
static void span_fill(struct side *s, const struct span *sp)
{
	rnd_fill(mem(s, sp), sp->len);
	memcpy(shadow(s, sp), mem(s, sp), sp->len);
}

static bool side_check(struct side *s)
{
	size_t k, end;

	if (!memcmp(s->base, s->shadow, s->alloc))
		return true;
	for (k = 0; s->base[k] == s->shadow[k]; k++)
		;
	for (end = s->alloc; s->base[end - 1] == s->shadow[end - 1]; end--)
		;
	diag("side %c: memory differs from what it must hold at MR offset %td..%td%s: byte %#04x, expected %#04x",
	     s->name, (s->base + k) - s->buf, (s->base + end - 1) - s->buf,
	     s->base + k < s->buf || s->base + k >= s->buf + s->len ?
	     " (in a guard area)" : "", s->base[k], s->shadow[k]);
	return false;
}

/*
 * A random range of @len bytes in @s's MR, aligned to @align, across a
 * page boundary half of the time, and overlapping no range this
 * operation already took on @s.
 */
static bool span_pick(struct side *s, size_t len, size_t align,
		      struct span *sp)
{
	int tries, i;

	for (tries = 0; tries < 1000 && s->nused < USED_MAX; tries++) {
		uintptr_t a;

		if (len + align > s->len)
			break;
		sp->len = len;
		sp->off = rnd(s->len - len - align + 1);
		if (len > 1 && rnd(2)) {
			a = ((uintptr_t)s->buf + sp->off + PAGE) & ~(uintptr_t)(PAGE - 1);
			a -= 1 + rnd(len - 1);
			if (a >= (uintptr_t)s->buf &&
			    a + len + align <= (uintptr_t)s->buf + s->len)
				sp->off = a - (uintptr_t)s->buf;
		}
		a = (uintptr_t)s->buf + sp->off;
		sp->off += (align - a % align) % align;
		for (i = 0; i < s->nused; i++)
			if (sp->off < s->used[i].off + s->used[i].len &&
			    s->used[i].off < sp->off + sp->len)
				break;
		if (i == s->nused) {
			s->used[s->nused++] = *sp;
			return true;
		}
	}
	diag("side %c: no room left for %zu more bytes in its MR", s->name, len);
	return false;
}

/* @n spans of @len bytes in all (zero-length parts allowed). */
static bool spans_pick(struct side *s, size_t len, int n, struct span *sp)
{
	size_t part, left = len;
	int i;

	if (!n)
		return !len;
	for (i = 0; i < n; i++) {
		part = i == n - 1 ? left : rnd(2) ? left / (n - i) : rnd(left + 1);
		if (!span_pick(s, part, 1, &sp[i]))
			return false;
		left -= part;
	}
	return true;
}

static void spans_to_sges(struct side *s, const struct span *sp, int n,
			  struct ibv_sge *sge)
{
	int i;

	for (i = 0; i < n; i++)
		sge[i] = (struct ibv_sge){
			.addr = span_addr(s, &sp[i]), .length = sp[i].len,
			.lkey = s->mr->lkey,
		};
}

/* The bytes a gather list sends (from the shadows: they are equal). */
static void spans_gather(struct side *s, const struct span *sp, int n,
			 uint8_t *out)
{
	int i;

	for (i = 0; i < n; i++) {
		memcpy(out, shadow(s, &sp[i]), sp[i].len);
		out += sp[i].len;
	}
}

/* What a scatter list must end up holding: the first @len bytes. */
static void spans_scatter(struct side *s, const struct span *sp, int n,
			  const uint8_t *in, size_t len)
{
	size_t k;
	int i;

	for (i = 0; i < n && len; i++) {
		k = min_sz(sp[i].len, len);
		memcpy(shadow(s, &sp[i]), in, k);
		in += k;
		len -= k;
	}
}

static void *xmalloc(size_t len)
{
	void *p = malloc(len ? len : 1);

	if (!p)
		diag("out of memory (%zu bytes)", len);
	return p;
}

/* ------------------------------------------------------------------ */
/* Completions                                                         */
/* ------------------------------------------------------------------ */

/* Everything a completion reports, however it was read. */
struct cqe {
	uint64_t wr_id;
	enum ibv_wc_status status;
	enum ibv_wc_opcode opcode;
	uint32_t vendor_err, byte_len, imm, qp_num, src_qp, slid;
	unsigned int wc_flags;
	uint8_t sl, dlid_path_bits;
};

/* The current entry, through every reader IBV_WC_STANDARD_FLAGS gives. */
static void cqe_read_ex(struct ibv_cq_ex *cq, struct cqe *e)
{
	e->wr_id = cq->wr_id;
	e->status = cq->status;
	e->opcode = ibv_wc_read_opcode(cq);
	e->vendor_err = ibv_wc_read_vendor_err(cq);
	e->byte_len = ibv_wc_read_byte_len(cq);
	e->imm = be32toh(ibv_wc_read_imm_data(cq));
	e->qp_num = ibv_wc_read_qp_num(cq);
	e->src_qp = ibv_wc_read_src_qp(cq);
	e->wc_flags = ibv_wc_read_wc_flags(cq);
	e->slid = ibv_wc_read_slid(cq);
	e->sl = ibv_wc_read_sl(cq);
	e->dlid_path_bits = ibv_wc_read_dlid_path_bits(cq);
}

static void cqe_from_wc(const struct ibv_wc *wc, struct cqe *e)
{
	*e = (struct cqe){
		.wr_id = wc->wr_id, .status = wc->status, .opcode = wc->opcode,
		.vendor_err = wc->vendor_err, .byte_len = wc->byte_len,
		.imm = be32toh(wc->imm_data), .qp_num = wc->qp_num,
		.src_qp = wc->src_qp, .slid = wc->slid, .wc_flags = wc->wc_flags,
		.sl = wc->sl, .dlid_path_bits = wc->dlid_path_bits,
	};
}

static void cqe_print(const char *what, const struct cqe *e)
{
	diag("%s: wr_id %#" PRIx64 " status %s (%d) opcode %d byte_len %u wc_flags %#x imm %#x qp_num %#x vendor_err %#x",
	     what, e->wr_id, ibv_wc_status_str(e->status), e->status,
	     e->opcode, e->byte_len, e->wc_flags, e->imm, e->qp_num,
	     e->vendor_err);
}

static void backoff(unsigned int *spins)
{
	if (++*spins > 1000)
		usleep(50);
}

/*
 * Up to @n completions through start/next/end_poll, waiting up to the
 * timeout for them.  Returns how many, or -1 if polling failed.
 */
static int poll_ex(struct side *s, struct ibv_cq_ex *cq, struct cqe *e, int n)
{
	struct ibv_poll_cq_attr attr = {};
	double end = now() + opt.timeout;
	unsigned int spins = 0;
	int got = 0, ret;

	while (got < n) {
		ret = ibv_start_poll(cq, &attr);
		if (ret == ENOENT) {
			if (now() > end)
				break;
			backoff(&spins);
			continue;
		}
		if (ret) {
			diag("side %c: ibv_start_poll: %s", s->name, strerror(ret));
			return -1;
		}
		for (;;) {
			cqe_read_ex(cq, &e[got++]);
			if (got == n)
				break;
			ret = ibv_next_poll(cq);
			if (ret)
				break;
		}
		ibv_end_poll(cq);
		if (got < n && ret != ENOENT) {
			diag("side %c: ibv_next_poll: %s", s->name, strerror(ret));
			return -1;
		}
	}
	return got;
}

/* The same through ibv_poll_cq() on the extended CQ. */
static int poll_plain(struct side *s, struct ibv_cq_ex *cq, struct cqe *e,
		      int n)
{
	double end = now() + opt.timeout;
	unsigned int spins = 0;
	struct ibv_wc wc[4];
	int got = 0, ret, i;

	while (got < n) {
		ret = ibv_poll_cq(ibv_cq_ex_to_cq(cq), min_sz(n - got, 4), wc);
		if (ret < 0) {
			diag("side %c: ibv_poll_cq: %d", s->name, ret);
			return -1;
		}
		for (i = 0; i < ret; i++)
			cqe_from_wc(&wc[i], &e[got++]);
		if (!ret) {
			if (now() > end)
				break;
			backoff(&spins);
		}
	}
	return got;
}

/*
 * A completion as it must be.  byte_len < 0, imm < 0: not defined for the
 * operation (byte_len of SEND and WRITE requester completions, IMM of any
 * requester completion).
 */
enum { IMM_ANY = -1, IMM_NO, IMM_YES };

struct want {
	uint64_t wr_id;
	enum ibv_wc_opcode opcode;
	int64_t byte_len;
	int imm;
	uint32_t imm_data;	/* host order */
	enum ibv_wc_status status;
};

/* A successful completion. */
static struct want want(uint64_t wr_id, enum ibv_wc_opcode opcode,
			int64_t byte_len, int imm, uint32_t imm_data)
{
	return (struct want){ wr_id, opcode, byte_len, imm, imm_data,
			      IBV_WC_SUCCESS };
}

static bool cqe_matches(const struct cqe *e, const struct want *w,
			uint32_t qp_num)
{
	if (e->wr_id != w->wr_id || e->status != w->status ||
	    e->qp_num != qp_num)
		return false;
	/* Only the status, wr_id and QP of an error completion are defined. */
	if (w->status != IBV_WC_SUCCESS)
		return true;
	return e->opcode == w->opcode && !e->vendor_err &&
	       !(e->wc_flags & IBV_WC_WITH_INV) &&
	       (w->byte_len < 0 || e->byte_len == w->byte_len) &&
	       (w->imm < 0 || !!(e->wc_flags & IBV_WC_WITH_IMM) == w->imm) &&
	       (w->imm != IMM_YES || e->imm == w->imm_data);
}

/* The next @n completions on @cq are @w, in order. */
static bool expect(struct side *s, struct ibv_cq_ex *cq, const char *what,
		   const struct want *w, int n)
{
	struct cqe e[BATCH_MAX + 2];
	bool plain = rnd(4) == 0;
	int got, i;

	got = plain ? poll_plain(s, cq, e, n) : poll_ex(s, cq, e, n);
	if (got < 0)
		return false;
	for (i = 0; i < got; i++) {
		if (cqe_matches(&e[i], &w[i], s->qp->qp_num))
			continue;
		diag("side %c: %s: completion %d of %d is wrong (%s)", s->name,
		     what, i + 1, n, plain ? "ibv_poll_cq" : "ibv_start_poll");
		cqe_print("got", &e[i]);
		diag("want: wr_id %#" PRIx64 " status %s opcode %d byte_len %" PRId64 " %s%#x qp_num %#x",
		     w[i].wr_id, ibv_wc_status_str(w[i].status), w[i].opcode,
		     w[i].byte_len,
		     w[i].imm < 0 ? "any IMM " : w[i].imm ? "IMM " : "no IMM ",
		     w[i].imm_data, s->qp->qp_num);
		return false;
	}
	if (got < n)
		diag("side %c: %s: %d of %d completions within %d s", s->name,
		     what, got, n, opt.timeout);
	return got == n;
}

static bool expect1(struct side *s, struct ibv_cq_ex *cq, const char *what,
		    struct want w)
{
	return expect(s, cq, what, &w, 1);
}

/* No completion is waiting, on any CQ of either side. */
static bool cqs_quiet(struct side *sides)
{
	struct ibv_poll_cq_attr attr = {};
	struct ibv_cq_ex *cq;
	struct cqe e;
	bool ok = true;
	int i, j, ret;

	for (i = 0; i < 2; i++) {
		for (j = 0; j < 2; j++) {
			cq = j ? sides[i].rcq : sides[i].scq;
			ret = ibv_start_poll(cq, &attr);
			if (ret == ENOENT)
				continue;
			ok = false;
			if (ret) {
				diag("side %c: ibv_start_poll: %s", sides[i].name,
				     strerror(ret));
				continue;
			}
			cqe_read_ex(cq, &e);
			ibv_end_poll(cq);
			diag("side %c: unexpected %s completion", sides[i].name,
			     j ? "receive" : "send");
			cqe_print("extra", &e);
		}
	}
	return ok;
}

static bool all_checked(struct side *sides)
{
	bool ok = cqs_quiet(sides);

	ok = side_check(&sides[0]) && ok;
	return side_check(&sides[1]) && ok;
}

/* ------------------------------------------------------------------ */
/* Building work requests                                              */
/* ------------------------------------------------------------------ */

static uint64_t wr_seq;

static bool post_recv(struct side *s, const struct span *sp, int n,
		      uint64_t wr_id)
{
	struct ibv_sge sge[MAX_SGE];
	struct ibv_recv_wr wr = { .wr_id = wr_id, .sg_list = sge,
				  .num_sge = n }, *bad;
	int ret;

	spans_to_sges(s, sp, n, sge);
	ret = ibv_post_recv(s->qp, &wr, &bad);
	if (ret)
		diag("side %c: ibv_post_recv: %s", s->name, strerror(ret));
	return !ret;
}

/* Open the next WR of the batch: its wr_id and flags. */
static void wr_head(struct side *s, uint64_t wr_id, bool signaled)
{
	s->qpx->wr_id = wr_id;
	s->qpx->wr_flags = signaled ? IBV_SEND_SIGNALED : 0;
}

/* The WR's local buffers: a list, or one SGE by itself, or none. */
static void wr_sges(struct side *s, const struct span *sp, int n)
{
	struct ibv_sge sge[MAX_SGE];

	spans_to_sges(s, sp, n, sge);
	if (n == 1 && rnd(2))
		ibv_wr_set_sge(s->qpx, sge[0].lkey, sge[0].addr, sge[0].length);
	else if (n || rnd(2))
		ibv_wr_set_sge_list(s->qpx, n, sge);
}

/* Inline data from @data, in one piece or up to three. */
static void wr_inline(struct side *s, uint8_t *data, size_t len)
{
	struct ibv_data_buf buf[3];
	size_t a, b;

	if (rnd(2)) {
		ibv_wr_set_inline_data(s->qpx, data, len);
		return;
	}
	a = rnd(len + 1);
	b = a + rnd(len - a + 1);
	buf[0] = (struct ibv_data_buf){ data, a };
	buf[1] = (struct ibv_data_buf){ data + a, b - a };
	buf[2] = (struct ibv_data_buf){ data + b, len - b };
	ibv_wr_set_inline_data_list(s->qpx, 3, buf);
}

static bool wr_done(struct side *s, const char *what)
{
	int ret = ibv_wr_complete(s->qpx);

	if (ret)
		diag("side %c: ibv_wr_complete (%s): %s", s->name, what,
		     strerror(ret));
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
		return min_sz(max, 1 + rnd(64));
	case 2:
	case 3:
		k = mtu * (1 + rnd(max / mtu + 1)) - 1 + rnd(3);
		return min_sz(k, max);
	default:
		return rnd(max + 1);
	}
}

static int sge_count(uint32_t max, size_t len)
{
	int n = 1 + rnd(min_sz(max, MAX_SGE));

	return len || rnd(2) ? n : 0;
}

static int recv_sges(const struct side *s)
{
	return 1 + rnd(min_sz(s->cap.max_recv_sge, MAX_SGE));
}

/* ------------------------------------------------------------------ */
/* Operations, one WR each                                             */
/* ------------------------------------------------------------------ */

struct op_ctx {
	struct side *sides, *src, *dst;
};

static void op_begin(struct op_ctx *c)
{
	c->src->nused = 0;
	c->dst->nused = 0;
}

/* SEND, with IMM or not, from SGEs or inline. */
static bool do_send(struct op_ctx *c, bool imm, bool inl)
{
	struct side *src = c->src, *dst = c->dst;
	size_t len = len_pick(inl ? src->cap.max_inline_data : opt.maxsize);
	int ns = inl ? 0 : sge_count(src->cap.max_send_sge, len);
	int nr = recv_sges(dst);
	struct span ssp[MAX_SGE], rsp[MAX_SGE];
	uint8_t *data = xmalloc(len), *copy = xmalloc(len);
	uint32_t immv = rnd64();
	uint64_t id = ++wr_seq;
	bool ok = false;

	if (!data || !copy || (!inl && !spans_pick(src, len, ns, ssp)) ||
	    !spans_pick(dst, len + rnd(64), nr, rsp))
		goto out;
	if (inl)
		rnd_fill(data, len);
	else
		spans_gather(src, ssp, ns, data);
	memcpy(copy, data, len);
	if (!post_recv(dst, rsp, nr, WRID_RECV | id))
		goto out;
	ibv_wr_start(src->qpx);
	wr_head(src, id, true);
	if (rnd(4) == 0)
		src->qpx->wr_flags |= IBV_SEND_SOLICITED;
	if (imm)
		ibv_wr_send_imm(src->qpx, htobe32(immv));
	else
		ibv_wr_send(src->qpx);
	if (inl)
		wr_inline(src, data, len);
	else
		wr_sges(src, ssp, ns);
	if (!wr_done(src, "SEND"))
		goto out;
	/* Inline data was copied: the buffer is the caller's again. */
	memset(data, 0xa5, len);
	spans_scatter(dst, rsp, nr, copy, len);
	ok = expect1(src, src->scq, "requester",
		     want(id, IBV_WC_SEND, -1, IMM_ANY, 0)) &&
	     expect1(dst, dst->rcq, "responder",
		     want(WRID_RECV | id, IBV_WC_RECV, len,
			  imm ? IMM_YES : IMM_NO, immv));
out:
	free(data);
	free(copy);
	return ok;
}

static bool op_send(struct op_ctx *c)
{
	return do_send(c, false, false);
}

static bool op_send_imm(struct op_ctx *c)
{
	return do_send(c, true, false);
}

static bool op_send_inline(struct op_ctx *c)
{
	return do_send(c, rnd(2), true);
}

/*
 * RDMA WRITE into one range of dst.  With IMM it consumes a receive,
 * whose buffers must stay untouched.
 */
static bool do_write(struct op_ctx *c, bool imm, bool inl)
{
	struct side *src = c->src, *dst = c->dst;
	size_t len = len_pick(inl ? src->cap.max_inline_data : opt.maxsize);
	int ns = inl ? 0 : sge_count(src->cap.max_send_sge, len);
	int nr = recv_sges(dst);
	struct span ssp[MAX_SGE], rsp[MAX_SGE], dsp;
	uint8_t *data = xmalloc(len);
	uint32_t immv = rnd64();
	uint64_t id = ++wr_seq;
	bool ok = false;

	if (!data || (!inl && !spans_pick(src, len, ns, ssp)) ||
	    !span_pick(dst, len, 1, &dsp) ||
	    (imm && !spans_pick(dst, 64 + rnd(64), nr, rsp)))
		goto out;
	if (inl)
		rnd_fill(data, len);
	else
		spans_gather(src, ssp, ns, data);
	if (imm && !post_recv(dst, rsp, nr, WRID_RECV | id))
		goto out;
	ibv_wr_start(src->qpx);
	wr_head(src, id, true);
	if (imm)
		ibv_wr_rdma_write_imm(src->qpx, dst->mr->rkey,
				      span_addr(dst, &dsp), htobe32(immv));
	else
		ibv_wr_rdma_write(src->qpx, dst->mr->rkey, span_addr(dst, &dsp));
	if (inl)
		wr_inline(src, data, len);
	else
		wr_sges(src, ssp, ns);
	if (!wr_done(src, "RDMA WRITE"))
		goto out;
	memcpy(shadow(dst, &dsp), data, len);
	memset(data, 0xa5, len);
	ok = expect1(src, src->scq, "requester",
		     want(id, IBV_WC_RDMA_WRITE, -1, IMM_ANY, 0)) &&
	     (!imm || expect1(dst, dst->rcq, "responder",
			      want(WRID_RECV | id, IBV_WC_RECV_RDMA_WITH_IMM,
				   len, IMM_YES, immv)));
out:
	free(data);
	return ok;
}

static bool op_write(struct op_ctx *c)
{
	return do_write(c, false, false);
}

static bool op_write_imm(struct op_ctx *c)
{
	return do_write(c, true, false);
}

static bool op_write_inline(struct op_ctx *c)
{
	return do_write(c, rnd(2), true);
}

/* RDMA READ of one range of dst into src's SGEs. */
static bool op_read(struct op_ctx *c)
{
	struct side *src = c->src, *dst = c->dst;
	size_t len = len_pick(opt.maxsize);
	int nl = sge_count(src->cap.max_send_sge, len);
	struct span rem, lsp[MAX_SGE];
	uint64_t id = ++wr_seq;

	if (!span_pick(dst, len, 1, &rem) || !spans_pick(src, len, nl, lsp))
		return false;
	span_fill(dst, &rem);
	ibv_wr_start(src->qpx);
	wr_head(src, id, true);
	ibv_wr_rdma_read(src->qpx, dst->mr->rkey, span_addr(dst, &rem));
	wr_sges(src, lsp, nl);
	if (!wr_done(src, "RDMA READ"))
		return false;
	spans_scatter(src, lsp, nl, shadow(dst, &rem), len);
	return expect1(src, src->scq, "requester",
		       want(id, IBV_WC_RDMA_READ, len, IMM_ANY, 0));
}

/* The atomic's WR on @s, its remote word and old value into @loc. */
static void wr_atomic(struct side *s, struct side *dst, bool cmp_swp,
		      const struct span *rem, const struct span *loc,
		      uint64_t arg, uint64_t swap)
{
	if (cmp_swp)
		ibv_wr_atomic_cmp_swp(s->qpx, dst->mr->rkey,
				      span_addr(dst, rem), arg, swap);
	else
		ibv_wr_atomic_fetch_add(s->qpx, dst->mr->rkey,
					span_addr(dst, rem), arg);
	ibv_wr_set_sge(s->qpx, s->mr->lkey, span_addr(s, loc), 8);
}

/* Set the remote word and pick the operands; returns the new value. */
static uint64_t atomic_prepare(struct side *dst, bool cmp_swp,
			       const struct span *rem, uint64_t *arg,
			       uint64_t *swap, uint64_t *old)
{
	*old = rnd64();
	*arg = rnd64();
	*swap = rnd64();
	memcpy(mem(dst, rem), old, 8);
	memcpy(shadow(dst, rem), old, 8);
	if (cmp_swp && rnd(2))
		*arg = *old;	/* half the compares match */
	if (!cmp_swp)
		return *old + *arg;
	return *arg == *old ? *swap : *old;
}

static bool do_atomic(struct op_ctx *c, bool cmp_swp)
{
	struct side *src = c->src, *dst = c->dst;
	uint64_t old, arg, swap, new, id = ++wr_seq;
	struct span rem, loc;

	if (!span_pick(dst, 8, 8, &rem) || !span_pick(src, 8, 1, &loc))
		return false;
	new = atomic_prepare(dst, cmp_swp, &rem, &arg, &swap, &old);
	ibv_wr_start(src->qpx);
	wr_head(src, id, true);
	wr_atomic(src, dst, cmp_swp, &rem, &loc, arg, swap);
	if (!wr_done(src, "ATOMIC"))
		return false;
	memcpy(shadow(dst, &rem), &new, 8);
	memcpy(shadow(src, &loc), &old, 8);
	return expect1(src, src->scq, "requester",
		       want(id, cmp_swp ? IBV_WC_COMP_SWAP : IBV_WC_FETCH_ADD,
			    8, IMM_ANY, 0));
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
 * An ATOMIC WRITE of @val to @rem of dst: with the builder, or now and
 * then with ibv_post_send, which reads the bytes at sg_list[0].addr.
 */
static bool awrite_post(struct side *src, uint64_t id, uint64_t raddr,
			uint32_t rkey, const uint8_t *val)
{
	struct ibv_sge sge = { (uintptr_t)val, 8, src->mr->lkey };
	struct ibv_send_wr wr = {
		.wr_id = id, .opcode = IBV_WR_ATOMIC_WRITE, .sg_list = &sge,
		.num_sge = 1, .send_flags = IBV_SEND_SIGNALED,
		.wr.rdma = { .remote_addr = raddr, .rkey = rkey },
	}, *bad;
	int ret;

	if (rnd(4)) {
		ibv_wr_start(src->qpx);
		wr_head(src, id, true);
		ibv_wr_atomic_write(src->qpx, rkey, raddr, val);
		return wr_done(src, "ATOMIC WRITE");
	}
	ret = ibv_post_send(src->qp, &wr, &bad);
	if (ret)
		diag("side %c: ibv_post_send (ATOMIC WRITE): %s", src->name,
		     strerror(ret));
	return !ret;
}

/* ATOMIC WRITE of 8 random bytes to an aligned word of dst. */
static bool op_atomic_write(struct op_ctx *c)
{
	struct side *src = c->src, *dst = c->dst;
	uint64_t id = ++wr_seq;
	uint8_t val[8];
	struct span rem;

	if (!span_pick(dst, 8, 8, &rem))
		return false;
	rnd_fill(val, 8);
	memcpy(shadow(dst, &rem), val, 8);
	if (!awrite_post(src, id, span_addr(dst, &rem), dst->mr->rkey, val))
		return false;
	/* The bytes were copied when posted: the buffer is ours again. */
	memset(val, 0xa5, 8);
	return expect1(src, src->scq, "requester",
		       want(id, IBV_WC_ATOMIC_WRITE, -1, IMM_ANY, 0));
}

/* ------------------------------------------------------------------ */
/* Batches                                                             */
/* ------------------------------------------------------------------ */

enum bop { B_SEND, B_SEND_IMM, B_WRITE, B_WRITE_IMM, B_ATOMIC_WRITE,
	   B_READ, B_CMP_SWP, B_FETCH_ADD, B_NOPS };

/* One WR of a batch, and what it must produce. */
struct bwr {
	enum bop op;
	uint64_t id;
	bool signaled;
	size_t len;
	uint32_t imm;
	struct span ssp[MAX_SGE], rsp[MAX_SGE], rem;
	int ns, nr;
	uint8_t *data;		/* SEND and WRITE: the bytes sent */
	uint64_t old, arg, swap, new;
	uint8_t aw[8];		/* ATOMIC WRITE: the bytes stored */
};

static const enum ibv_wc_opcode bop_wc[B_NOPS] = {
	[B_SEND] = IBV_WC_SEND, [B_SEND_IMM] = IBV_WC_SEND,
	[B_WRITE] = IBV_WC_RDMA_WRITE, [B_WRITE_IMM] = IBV_WC_RDMA_WRITE,
	[B_ATOMIC_WRITE] = IBV_WC_ATOMIC_WRITE, [B_READ] = IBV_WC_RDMA_READ,
	[B_CMP_SWP] = IBV_WC_COMP_SWAP, [B_FETCH_ADD] = IBV_WC_FETCH_ADD,
};

static bool bop_recv(enum bop op)
{
	return op == B_SEND || op == B_SEND_IMM || op == B_WRITE_IMM;
}

/* Choose one WR's buffers (all disjoint within the batch). */
static bool bwr_prepare(struct op_ctx *c, struct bwr *w, bool last)
{
	struct side *src = c->src, *dst = c->dst;
	size_t max = opt.maxsize / 4;

	w->op = rnd(B_NOPS);
	w->id = ++wr_seq;
	w->signaled = last || rnd(3);
	w->imm = rnd64();
	w->data = NULL;
	w->ns = w->nr = 0;
	switch (w->op) {
	case B_ATOMIC_WRITE:
		w->len = 8;
		rnd_fill(w->aw, 8);
		return span_pick(dst, 8, 8, &w->rem);
	case B_CMP_SWP:
	case B_FETCH_ADD:
		w->len = 8;
		if (!span_pick(dst, 8, 8, &w->rem) ||
		    !span_pick(src, 8, 1, &w->ssp[0]))
			return false;
		w->new = atomic_prepare(dst, w->op == B_CMP_SWP, &w->rem,
					&w->arg, &w->swap, &w->old);
		return true;
	case B_READ:
		w->len = len_pick(max);
		w->ns = sge_count(src->cap.max_send_sge, w->len);
		if (!span_pick(dst, w->len, 1, &w->rem) ||
		    !spans_pick(src, w->len, w->ns, w->ssp))
			return false;
		span_fill(dst, &w->rem);
		return true;
	default:
		break;
	}
	w->len = len_pick(max);
	w->ns = sge_count(src->cap.max_send_sge, w->len);
	w->data = xmalloc(w->len);
	if (!w->data || !spans_pick(src, w->len, w->ns, w->ssp))
		return false;
	spans_gather(src, w->ssp, w->ns, w->data);
	if (w->op == B_WRITE || w->op == B_WRITE_IMM) {
		if (!span_pick(dst, w->len, 1, &w->rem))
			return false;
	}
	if (!bop_recv(w->op))
		return true;
	w->nr = recv_sges(dst);
	return spans_pick(dst, w->op == B_WRITE_IMM ? 32 : w->len + rnd(64),
			  w->nr, w->rsp) &&
	       post_recv(dst, w->rsp, w->nr, WRID_RECV | w->id);
}

static void bwr_build(struct op_ctx *c, struct bwr *w)
{
	struct side *src = c->src, *dst = c->dst;
	uint64_t raddr = span_addr(dst, &w->rem);

	wr_head(src, w->id, w->signaled);
	switch (w->op) {
	case B_SEND:
		ibv_wr_send(src->qpx);
		break;
	case B_SEND_IMM:
		ibv_wr_send_imm(src->qpx, htobe32(w->imm));
		break;
	case B_WRITE:
		ibv_wr_rdma_write(src->qpx, dst->mr->rkey, raddr);
		break;
	case B_WRITE_IMM:
		ibv_wr_rdma_write_imm(src->qpx, dst->mr->rkey, raddr,
				      htobe32(w->imm));
		break;
	case B_READ:
		ibv_wr_rdma_read(src->qpx, dst->mr->rkey, raddr);
		break;
	case B_ATOMIC_WRITE:
		ibv_wr_atomic_write(src->qpx, dst->mr->rkey, raddr, w->aw);
		return;
	default:
		wr_atomic(src, dst, w->op == B_CMP_SWP, &w->rem, &w->ssp[0],
			  w->arg, w->swap);
		return;
	}
	wr_sges(src, w->ssp, w->ns);
}

/* What the batch leaves in memory, and the completions it must give. */
static int bwr_expect(struct op_ctx *c, struct bwr *w, int n,
		      struct want *ws, struct want *wr, int *nwr)
{
	struct side *src = c->src, *dst = c->dst;
	int i, nws = 0;

	*nwr = 0;
	for (i = 0; i < n; i++) {
		switch (w[i].op) {
		case B_SEND:
		case B_SEND_IMM:
			spans_scatter(dst, w[i].rsp, w[i].nr, w[i].data,
				      w[i].len);
			break;
		case B_WRITE:
		case B_WRITE_IMM:
			memcpy(shadow(dst, &w[i].rem), w[i].data, w[i].len);
			break;
		case B_ATOMIC_WRITE:
			memcpy(shadow(dst, &w[i].rem), w[i].aw, 8);
			break;
		case B_READ:
			spans_scatter(src, w[i].ssp, w[i].ns,
				      shadow(dst, &w[i].rem), w[i].len);
			break;
		default:
			memcpy(shadow(dst, &w[i].rem), &w[i].new, 8);
			memcpy(shadow(src, &w[i].ssp[0]), &w[i].old, 8);
			break;
		}
		if (w[i].signaled)
			ws[nws++] = want(w[i].id, bop_wc[w[i].op],
					 w[i].op >= B_READ ? (int64_t)w[i].len : -1,
					 IMM_ANY, 0);
		if (bop_recv(w[i].op))
			wr[(*nwr)++] = want(WRID_RECV | w[i].id,
					    w[i].op == B_WRITE_IMM ?
					    IBV_WC_RECV_RDMA_WITH_IMM : IBV_WC_RECV,
					    w[i].len,
					    w[i].op == B_SEND ? IMM_NO : IMM_YES,
					    w[i].imm);
	}
	return nws;
}

/*
 * Up to BATCH_MAX mixed WRs between one wr_start and wr_complete; only
 * some are signaled (always the last).  RC completes them in order.
 */
static bool op_batch(struct op_ctx *c)
{
	struct bwr w[BATCH_MAX];
	struct want ws[BATCH_MAX], wr[BATCH_MAX];
	size_t depth = min_sz(min_sz(c->src->cap.max_send_wr,
				     c->dst->cap.max_recv_wr), BATCH_MAX);
	int n = 2 + rnd(depth - 1), i, nws, nwr;
	bool ok = true;

	for (i = 0; i < n; i++)
		w[i].data = NULL;
	for (i = 0; ok && i < n; i++)
		ok = bwr_prepare(c, &w[i], i == n - 1);
	if (ok) {
		ibv_wr_start(c->src->qpx);
		for (i = 0; i < n; i++)
			bwr_build(c, &w[i]);
		ok = wr_done(c->src, "batch");
	}
	if (ok) {
		nws = bwr_expect(c, w, n, ws, wr, &nwr);
		ok = expect(c->src, c->src->scq, "requester, in order", ws, nws) &&
		     expect(c->dst, c->dst->rcq, "responder, in order", wr, nwr);
	}
	for (i = 0; i < n; i++)
		free(w[i].data);
	return ok;
}

static const struct op {
	const char *name;
	bool (*run)(struct op_ctx *c);
} ops[] = {
	{ "wr_send, multi-SGE on both sides", op_send },
	{ "wr_send_imm", op_send_imm },
	{ "wr_send(_imm) + wr_set_inline_data(_list), source reused at once", op_send_inline },
	{ "wr_rdma_write", op_write },
	{ "wr_rdma_write_imm", op_write_imm },
	{ "wr_rdma_write(_imm) + inline data", op_write_inline },
	{ "wr_rdma_read", op_read },
	{ "wr_atomic_cmp_swp", op_cmp_swp },
	{ "wr_atomic_fetch_add", op_fetch_add },
	{ "wr_atomic_write or ibv_post_send ATOMIC_WRITE, source reused at once", op_atomic_write },
	{ "batch of mixed WRs, some unsignaled", op_batch },
};

#define NOPS	(sizeof(ops) / sizeof(ops[0]))

/* One op in a random direction; memory and CQs are checked after it. */
static bool op_run(struct side *sides, const struct op *op)
{
	int d = rnd(2);
	struct op_ctx c = { sides, &sides[d], &sides[!d] };
	bool ok;

	if (opt.verbose)
		diag("%s, %c -> %c", op->name, c.src->name, c.dst->name);
	op_begin(&c);
	ok = op->run(&c);
	ok = all_checked(sides) && ok;
	if (!ok)
		diag("%s failed, %c -> %c", op->name, c.src->name, c.dst->name);
	return ok;
}

struct op_stat {
	long runs;
	long failed_round;	/* 0: none */
};

static bool rounds_run(struct side *sides, struct op_stat *st)
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
				return false;
			}
		}
	}
	return true;
}

static bool report(const struct op_stat *st)
{
	bool ok = true;
	size_t i;

	for (i = 0; i < NOPS; i++) {
		if (st[i].failed_round)
			ok = tap(false, "%s: failed in round %ld", ops[i].name,
				 st[i].failed_round);
		else if (st[i].runs < opt.rounds)
			ok = tap(false, "%s: %ld of %ld rounds run before the run stopped",
				 ops[i].name, st[i].runs, opt.rounds);
		else
			tap(true, "%s: %ld rounds, every byte and completion verified",
			    ops[i].name, st[i].runs);
	}
	return ok;
}

/* ------------------------------------------------------------------ */
/* Single checks                                                       */
/* ------------------------------------------------------------------ */

/*
 * A plain signaled RDMA WRITE A -> B of new bytes, completed: the SQ and
 * both CQs work after whatever came before.
 */
static bool write_ok(struct side *sides, const char *what)
{
	struct op_ctx c = { sides, &sides[0], &sides[1] };
	struct span ssp, dsp;
	uint64_t id = ++wr_seq;

	op_begin(&c);
	if (!span_pick(c.src, 100, 1, &ssp) || !span_pick(c.dst, 100, 1, &dsp))
		return false;
	span_fill(c.src, &ssp);
	ibv_wr_start(c.src->qpx);
	wr_head(c.src, id, true);
	ibv_wr_rdma_write(c.src->qpx, c.dst->mr->rkey, span_addr(c.dst, &dsp));
	ibv_wr_set_sge(c.src->qpx, c.src->mr->lkey, span_addr(c.src, &ssp), 100);
	if (!wr_done(c.src, what))
		return false;
	memcpy(shadow(c.dst, &dsp), shadow(c.src, &ssp), 100);
	return expect1(c.src, c.src->scq, what,
		       want(id, IBV_WC_RDMA_WRITE, -1, IMM_ANY, 0)) &&
	       all_checked(sides);
}

/* ibv_post_send() on the same QP, between two batches: one SQ, in order. */
static bool check_post_send(struct side *sides)
{
	struct op_ctx c = { sides, &sides[1], &sides[0] };
	struct side *src = c.src, *dst = c.dst;
	struct span s1[2], d1, s2[2], r2, s3, d3;
	struct ibv_sge sge[2];
	struct ibv_send_wr wr = {}, *bad = NULL;
	uint64_t id = wr_seq + 1;
	uint8_t data[300];
	int ret;

	wr_seq += 3;
	op_begin(&c);
	if (!spans_pick(src, 200, 2, s1) || !span_pick(dst, 200, 1, &d1) ||
	    !spans_pick(src, 300, 2, s2) || !span_pick(dst, 300, 1, &r2) ||
	    !span_pick(dst, 150, 1, &s3) || !span_pick(src, 150, 1, &d3))
		return false;
	span_fill(src, &s1[0]);
	span_fill(src, &s1[1]);
	span_fill(src, &s2[0]);
	span_fill(src, &s2[1]);
	span_fill(dst, &s3);
	if (!post_recv(dst, &r2, 1, WRID_RECV | (id + 1)))
		return false;

	ibv_wr_start(src->qpx);
	wr_head(src, id, true);
	ibv_wr_rdma_write(src->qpx, dst->mr->rkey, span_addr(dst, &d1));
	wr_sges(src, s1, 2);
	if (!wr_done(src, "first batch"))
		return false;
	spans_to_sges(src, s2, 2, sge);
	wr = (struct ibv_send_wr){
		.wr_id = id + 1, .sg_list = sge, .num_sge = 2,
		.opcode = IBV_WR_SEND_WITH_IMM, .send_flags = IBV_SEND_SIGNALED,
		.imm_data = htobe32(0x12345678),
	};
	ret = ibv_post_send(src->qp, &wr, &bad);
	if (ret) {
		diag("ibv_post_send on the ibv_qp_ex QP: %s", strerror(ret));
		return false;
	}
	ibv_wr_start(src->qpx);
	wr_head(src, id + 2, true);
	ibv_wr_rdma_read(src->qpx, dst->mr->rkey, span_addr(dst, &s3));
	ibv_wr_set_sge(src->qpx, src->mr->lkey, span_addr(src, &d3), 150);
	if (!wr_done(src, "second batch"))
		return false;

	spans_gather(src, s1, 2, data);
	memcpy(shadow(dst, &d1), data, 200);
	spans_gather(src, s2, 2, data);
	memcpy(shadow(dst, &r2), data, 300);
	memcpy(shadow(src, &d3), shadow(dst, &s3), 150);
	{
		struct want ws[3] = {
			want(id, IBV_WC_RDMA_WRITE, -1, IMM_ANY, 0),
			want(id + 1, IBV_WC_SEND, -1, IMM_ANY, 0),
			want(id + 2, IBV_WC_RDMA_READ, 150, IMM_ANY, 0),
		};

		return expect(src, src->scq, "requester, in order", ws, 3) &&
		       expect1(dst, dst->rcq, "responder",
			       want(WRID_RECV | (id + 1), IBV_WC_RECV, 300,
				    IMM_YES, 0x12345678)) &&
		       all_checked(sides);
	}
}

/*
 * max_send_wr WRs in one batch fit the SQ: the unsignaled zero-length
 * WRITEs and the signaled last one all run.
 */
static bool check_full_batch(struct side *sides)
{
	struct side *a = &sides[0], *b = &sides[1];
	uint32_t i, n = a->cap.max_send_wr;
	uint64_t id = wr_seq + n;

	wr_seq += n;
	ibv_wr_start(a->qpx);
	for (i = 1; i <= n; i++) {
		wr_head(a, id - n + i, i == n);
		ibv_wr_rdma_write(a->qpx, b->mr->rkey, (uintptr_t)b->buf);
	}
	if (!wr_done(a, "full SQ"))
		return false;
	return expect1(a, a->scq, "the last of the full batch",
		       want(id, IBV_WC_RDMA_WRITE, -1, IMM_ANY, 0)) &&
	       all_checked(sides);
}

/* A settling pause before "nothing happened" is believed. */
static void settle(void)
{
	usleep(200 * 1000);
}

/*
 * wr_abort after a SEND and a WRITE: nothing reaches B, no completion;
 * the next batch reuses the slots, and the receive B had posted gets the
 * next SEND's bytes, not the aborted one's.
 */
static bool check_abort(struct side *sides)
{
	struct op_ctx c = { sides, &sides[0], &sides[1] };
	struct side *a = c.src, *b = c.dst;
	struct span x, y, canary, r;
	uint64_t id = ++wr_seq;

	op_begin(&c);
	if (!span_pick(a, 256, 1, &x) || !span_pick(a, 200, 1, &y) ||
	    !span_pick(b, 256, 1, &canary) || !span_pick(b, 300, 1, &r))
		return false;
	span_fill(a, &x);
	span_fill(a, &y);
	if (!post_recv(b, &r, 1, WRID_RECV | id))
		return false;
	ibv_wr_start(a->qpx);
	wr_head(a, id + 100, true);
	ibv_wr_send(a->qpx);
	ibv_wr_set_sge(a->qpx, a->mr->lkey, span_addr(a, &x), 256);
	wr_head(a, id + 101, true);
	ibv_wr_rdma_write(a->qpx, b->mr->rkey, span_addr(b, &canary));
	ibv_wr_set_sge(a->qpx, a->mr->lkey, span_addr(a, &x), 256);
	ibv_wr_abort(a->qpx);
	settle();
	if (!all_checked(sides))
		return false;

	ibv_wr_start(a->qpx);
	wr_head(a, id, true);
	ibv_wr_send(a->qpx);
	ibv_wr_set_sge(a->qpx, a->mr->lkey, span_addr(a, &y), 200);
	if (!wr_done(a, "after wr_abort"))
		return false;
	memcpy(shadow(b, &r), shadow(a, &y), 200);
	return expect1(a, a->scq, "requester",
		       want(id, IBV_WC_SEND, -1, IMM_ANY, 0)) &&
	       expect1(b, b->rcq, "responder",
		       want(WRID_RECV | id, IBV_WC_RECV, 200, IMM_NO, 0)) &&
	       all_checked(sides);
}

/* wr_start then wr_abort, nothing between: the SQ is released. */
static bool check_abort_empty(struct side *sides)
{
	ibv_wr_start(sides[0].qpx);
	ibv_wr_abort(sides[0].qpx);
	return write_ok(sides, "after an empty wr_abort");
}

/*
 * Bad work requests.  Each batch starts with a good signaled WRITE of new
 * bytes into B, then goes wrong: wr_complete must fail with the case's
 * error, B's memory must keep its old bytes, and no completion may come,
 * not even after the next good WRITE rings the doorbell.
 */
struct bad_case {
	const char *name;
	int err;
	void (*build)(struct side *a, struct side *b, const struct span *src);
	bool first;	/* the bad part comes before the good WRITE */
};

static void bad_sges(struct side *a, struct side *b, const struct span *src)
{
	uint32_t i, n = a->cap.max_send_sge + 1;
	struct ibv_sge *sge = calloc(n, sizeof(*sge));

	for (i = 0; sge && i < n; i++)
		sge[i] = (struct ibv_sge){ span_addr(a, src), 1, a->mr->lkey };
	ibv_wr_rdma_write(a->qpx, b->mr->rkey, (uintptr_t)b->buf);
	if (sge)
		ibv_wr_set_sge_list(a->qpx, n, sge);
	free(sge);
}

static void bad_inline_big(struct side *a, struct side *b,
			   const struct span *src)
{
	size_t len = a->cap.max_inline_data + 1;
	uint8_t *big = calloc(1, len);

	ibv_wr_send(a->qpx);
	if (big)
		ibv_wr_set_inline_data(a->qpx, big, len);
	free(big);
	(void)b;
	(void)src;
}

static void bad_inline_read(struct side *a, struct side *b,
			    const struct span *src)
{
	ibv_wr_rdma_read(a->qpx, b->mr->rkey, (uintptr_t)b->buf);
	ibv_wr_set_inline_data(a->qpx, mem(a, src), 8);
}

static void bad_atomic_len(struct side *a, struct side *b,
			   const struct span *src)
{
	ibv_wr_atomic_fetch_add(a->qpx, b->mr->rkey, (uintptr_t)b->buf, 1);
	ibv_wr_set_sge(a->qpx, a->mr->lkey, span_addr(a, src), 4);
}

static void bad_atomic_nosge(struct side *a, struct side *b,
			     const struct span *src)
{
	ibv_wr_atomic_cmp_swp(a->qpx, b->mr->rkey, (uintptr_t)b->buf, 0, 1);
	(void)src;
}

static void bad_awrite_sge(struct side *a, struct side *b,
			   const struct span *src)
{
	ibv_wr_atomic_write(a->qpx, b->mr->rkey, (uintptr_t)b->buf, mem(a, src));
	ibv_wr_set_sge(a->qpx, a->mr->lkey, span_addr(a, src), 8);
}

static void bad_no_wr(struct side *a, struct side *b, const struct span *src)
{
	/* Right after wr_start: there is no WR to take the SGE. */
	ibv_wr_set_sge(a->qpx, a->mr->lkey, span_addr(a, src), 8);
	(void)b;
}

static void bad_flags(struct side *a, struct side *b, const struct span *src)
{
	a->qpx->wr_flags = IBV_SEND_SIGNALED | IBV_SEND_IP_CSUM;
	ibv_wr_rdma_write(a->qpx, b->mr->rkey, (uintptr_t)b->buf);
	ibv_wr_set_sge(a->qpx, a->mr->lkey, span_addr(a, src), 8);
}

static void bad_send_tso(struct side *a, struct side *b,
			 const struct span *src)
{
	static char hdr[64];

	ibv_wr_send_tso(a->qpx, hdr, sizeof(hdr), 1024);
	ibv_wr_set_sge(a->qpx, a->mr->lkey, span_addr(a, src), 8);
	(void)b;
}

static void bad_full(struct side *a, struct side *b, const struct span *src)
{
	uint32_t i;

	/* The good WRITE took one slot: max_send_wr more is one too many. */
	for (i = 0; i < a->cap.max_send_wr; i++) {
		a->qpx->wr_id = ++wr_seq;
		a->qpx->wr_flags = IBV_SEND_SIGNALED;
		ibv_wr_rdma_write(a->qpx, b->mr->rkey, (uintptr_t)b->buf);
	}
	(void)src;
}

static const struct bad_case bad_cases[] = {
	{ "more SGEs than max_send_sge", EINVAL, bad_sges, false },
	{ "inline data beyond max_inline_data", EINVAL, bad_inline_big, false },
	{ "inline data on an RDMA READ", EINVAL, bad_inline_read, false },
	{ "atomic with a 4-byte SGE", EINVAL, bad_atomic_len, false },
	{ "atomic without an SGE", EINVAL, bad_atomic_nosge, false },
	{ "atomic write given an SGE", EINVAL, bad_awrite_sge, false },
	{ "wr_set_sge with no WR open", EINVAL, bad_no_wr, true },
	{ "a send flag RC does not take (IP_CSUM)", EINVAL, bad_flags, false },
	{ "wr_send_tso, not offered", EOPNOTSUPP, bad_send_tso, false },
	{ "one WR more than the SQ holds", ENOMEM, bad_full, false },
};

static bool check_bad(struct side *sides, const struct bad_case *bc)
{
	struct op_ctx c = { sides, &sides[0], &sides[1] };
	struct side *a = c.src, *b = c.dst;
	struct span src, dst;
	int ret;

	op_begin(&c);
	if (!span_pick(a, 64, 8, &src) || !span_pick(b, 64, 1, &dst))
		return false;
	span_fill(a, &src);
	ibv_wr_start(a->qpx);
	if (bc->first)
		bc->build(a, b, &src);
	wr_head(a, ++wr_seq, true);
	ibv_wr_rdma_write(a->qpx, b->mr->rkey, span_addr(b, &dst));
	ibv_wr_set_sge(a->qpx, a->mr->lkey, span_addr(a, &src), 64);
	wr_head(a, ++wr_seq, true);
	if (!bc->first)
		bc->build(a, b, &src);
	/* And a good one after it, which must not get through either. */
	wr_head(a, ++wr_seq, true);
	ibv_wr_rdma_write(a->qpx, b->mr->rkey, span_addr(b, &dst));
	ibv_wr_set_sge(a->qpx, a->mr->lkey, span_addr(a, &src), 64);
	ret = ibv_wr_complete(a->qpx);
	if (ret != bc->err) {
		diag("ibv_wr_complete returned %d (%s), want %d (%s)", ret,
		     strerror(ret), bc->err, strerror(bc->err));
		if (!ret)
			settle();	/* let it land before the checks */
		all_checked(sides);
		return false;
	}
	settle();
	return all_checked(sides) && write_ok(sides, "after the bad batch");
}

/* What ibv_create_qp_ex() and ibv_create_cq_ex() must refuse. */
static void check_refusals(struct side *s)
{
	static const struct {
		const char *name;
		uint64_t flag;
	} qp_refuse[] = {
		{ "TSO", IBV_QP_EX_WITH_TSO },
	};
	static const struct {
		const char *name;
		uint64_t flag;
	} cq_refuse[] = {
		{ "COMPLETION_TIMESTAMP", IBV_WC_EX_WITH_COMPLETION_TIMESTAMP },
		{ "COMPLETION_TIMESTAMP_WALLCLOCK",
		  IBV_WC_EX_WITH_COMPLETION_TIMESTAMP_WALLCLOCK },
		{ "CVLAN", IBV_WC_EX_WITH_CVLAN },
		{ "FLOW_TAG", IBV_WC_EX_WITH_FLOW_TAG },
	};
	struct ibv_qp_init_attr_ex qa = {
		.send_cq = ibv_cq_ex_to_cq(s->scq),
		.recv_cq = ibv_cq_ex_to_cq(s->rcq), .qp_type = IBV_QPT_RC,
		.cap = { .max_send_wr = 4, .max_recv_wr = 4, .max_send_sge = 1,
			 .max_recv_sge = 1 },
		.comp_mask = IBV_QP_INIT_ATTR_PD | IBV_QP_INIT_ATTR_SEND_OPS_FLAGS,
		.pd = s->par,
	};
	struct ibv_cq_init_attr_ex ca = { .cqe = 4 };
	struct ibv_cq_ex *cq;
	struct ibv_qp *qp;
	bool ok = true;
	size_t i;

	for (i = 0; i < sizeof(qp_refuse) / sizeof(qp_refuse[0]); i++) {
		qa.send_ops_flags = SEND_OPS | qp_refuse[i].flag;
		qp = ibv_create_qp_ex(s->ctx, &qa);
		if (!qp && errno == EOPNOTSUPP)
			continue;
		diag("send_ops_flags with %s: %s (errno %d)", qp_refuse[i].name,
		     qp ? "created" : "failed", errno);
		ok = false;
		if (qp)
			ibv_destroy_qp(qp);
	}
	tap(ok, "ibv_create_qp_ex refuses TSO send ops: EOPNOTSUPP");

	qa.send_ops_flags = IBV_QP_EX_WITH_ATOMIC_WRITE;
	qp = ibv_create_qp_ex(s->ctx, &qa);
	tap(qp, "ibv_create_qp_ex: RC with only ATOMIC_WRITE is created (errno %d)",
	    qp ? 0 : errno);
	if (qp)
		ibv_destroy_qp(qp);
	qa.qp_type = IBV_QPT_UC;
	qa.send_ops_flags = IBV_QP_EX_WITH_SEND | IBV_QP_EX_WITH_ATOMIC_WRITE;
	qp = ibv_create_qp_ex(s->ctx, &qa);
	tap(!qp && errno == EOPNOTSUPP,
	    "ibv_create_qp_ex: UC with ATOMIC_WRITE: EOPNOTSUPP (errno %d)",
	    qp ? 0 : errno);
	if (qp)
		ibv_destroy_qp(qp);

	ok = true;
	for (i = 0; i < sizeof(cq_refuse) / sizeof(cq_refuse[0]); i++) {
		ca.wc_flags = IBV_WC_STANDARD_FLAGS | cq_refuse[i].flag;
		cq = ibv_create_cq_ex(s->ctx, &ca);
		if (!cq && errno == EOPNOTSUPP)
			continue;
		diag("wc_flags with %s: %s (errno %d)", cq_refuse[i].name,
		     cq ? "created" : "failed", errno);
		ok = false;
		if (cq)
			ibv_destroy_cq(ibv_cq_ex_to_cq(cq));
	}
	tap(ok, "ibv_create_cq_ex refuses completion timestamps, CVLAN, flow tags: EOPNOTSUPP");

	ca.wc_flags = IBV_WC_STANDARD_FLAGS;
	ca.comp_mask = IBV_CQ_INIT_ATTR_MASK_PD;
	ca.parent_domain = s->pd;
	cq = ibv_create_cq_ex(s->ctx, &ca);
	tap(!cq && errno == EINVAL,
	    "ibv_create_cq_ex with a protection domain for parent domain: EINVAL (errno %d)",
	    errno);
	if (cq)
		ibv_destroy_cq(ibv_cq_ex_to_cq(cq));
}

/* Domains in use refuse to go. */
static bool check_busy(struct side *s)
{
	int pd = ibv_dealloc_pd(s->pd), par = ibv_dealloc_pd(s->par);
	int td = ibv_dealloc_td(s->td);

	if (pd == EBUSY && par == EBUSY && td == EBUSY)
		return true;
	diag("dealloc: PD %d, parent domain %d, TD %d (want EBUSY = %d)", pd,
	     par, td, EBUSY);
	return false;
}

static int qp_connect(struct side *s, const struct side *peer);

/* Both QPs anew, on new PSNs: an error left them in ERROR. */
static bool pair_reconnect(struct side *sides)
{
	struct ibv_qp_attr reset = { .qp_state = IBV_QPS_RESET };
	int i, ret;

	for (i = 0; i < 2; i++) {
		sides[i].psn = rnd64() & 0xffffff;
		ret = ibv_modify_qp(sides[i].qp, &reset, IBV_QP_STATE);
		if (ret) {
			diag("side %c: ibv_modify_qp to RESET: %s",
			     sides[i].name, strerror(ret));
			return false;
		}
	}
	return !qp_connect(&sides[0], &sides[1]) &&
	       !qp_connect(&sides[1], &sides[0]);
}

/*
 * An ATOMIC WRITE B must refuse: through an MR without remote write
 * (IBV_WC_REM_ACCESS_ERR), or to an address 4 bytes off alignment
 * (IBV_WC_REM_INV_REQ_ERR).  No byte of B changes.  Then the pair is
 * connected anew and a WRITE goes through.
 */
static bool check_awrite_refused(struct side *sides, bool misaligned)
{
	struct op_ctx c = { sides, &sides[0], &sides[1] };
	struct side *a = c.src, *b = c.dst;
	enum ibv_wc_status want_st = misaligned ? IBV_WC_REM_INV_REQ_ERR :
						  IBV_WC_REM_ACCESS_ERR;
	struct ibv_mr *ro = NULL;
	uint64_t id = ++wr_seq;
	uint32_t rkey = b->mr->rkey;
	uint8_t val[8];
	struct span rem;
	struct cqe e;
	bool ok;

	op_begin(&c);
	if (!span_pick(b, 16, 8, &rem))
		return false;
	if (!misaligned) {
		ro = ibv_reg_mr(b->par, b->buf, b->len, IBV_ACCESS_LOCAL_WRITE |
				IBV_ACCESS_REMOTE_READ);
		if (!ro) {
			diag("side B: ibv_reg_mr without remote write: %s",
			     strerror(errno));
			return false;
		}
		rkey = ro->rkey;
	}
	rnd_fill(val, 8);
	ok = awrite_post(a, id, span_addr(b, &rem) + (misaligned ? 4 : 0),
			 rkey, val);
	if (ok && poll_ex(a, a->scq, &e, 1) != 1) {
		diag("side A: no completion within %d s", opt.timeout);
		ok = false;
	}
	if (ok && (e.wr_id != id || e.status != want_st ||
		   e.qp_num != a->qp->qp_num)) {
		cqe_print("got", &e);
		diag("want: wr_id %#" PRIx64 " status %s", id,
		     ibv_wc_status_str(want_st));
		ok = false;
	}
	ok = side_check(a) && side_check(b) && ok;
	if (ro && ibv_dereg_mr(ro)) {
		diag("side B: ibv_dereg_mr of the read-only MR failed");
		ok = false;
	}
	return pair_reconnect(sides) && ok &&
	       write_ok(sides, "after the refused ATOMIC WRITE");
}

/*
 * An RDMA WRITE with a bad rkey completes with a remote access error (B
 * refuses it); the QP is then in error and the next WR is flushed.  Both
 * read through the extended CQ.
 */
static void check_error_completion(struct side *sides)
{
	struct side *a = &sides[0], *b = &sides[1];
	uint64_t id = ++wr_seq;
	struct cqe e;
	int got;

	ibv_wr_start(a->qpx);
	wr_head(a, id, true);
	ibv_wr_rdma_write(a->qpx, b->mr->rkey ^ 0x80, (uintptr_t)b->buf);
	ibv_wr_set_sge(a->qpx, a->mr->lkey, (uintptr_t)a->buf, 16);
	if (!tap(wr_done(a, "bad rkey"), "a WRITE with a bad rkey is posted"))
		return;
	got = poll_ex(a, a->scq, &e, 1);
	if (got == 1)
		cqe_print("error completion", &e);
	tap(got == 1 && e.wr_id == id && e.status == IBV_WC_REM_ACCESS_ERR &&
	    e.qp_num == a->qp->qp_num,
	    "... completes with IBV_WC_REM_ACCESS_ERR, read with ibv_start_poll");

	ibv_wr_start(a->qpx);
	wr_head(a, id + 1, true);
	ibv_wr_send(a->qpx);
	++wr_seq;
	if (!wr_done(a, "after the error"))
		return;
	got = poll_ex(a, a->scq, &e, 1);
	if (got == 1)
		cqe_print("flush", &e);
	tap(got == 1 && e.wr_id == id + 1 && e.status == IBV_WC_WR_FLUSH_ERR,
	    "the next WR is flushed: IBV_WC_WR_FLUSH_ERR");
	/* B's QP may have seen the error too; it has no receive posted. */
	tap(side_check(a) && side_check(b), "memory untouched by the failed WRITE");
}

/* ------------------------------------------------------------------ */
/* Setup                                                               */
/* ------------------------------------------------------------------ */

static int alloc_calls;

/* sroce allocates no device memory: the allocators must stay unused. */
static void *pd_alloc(struct ibv_pd *pd, void *pd_context, size_t size,
		      size_t alignment, uint64_t resource_type)
{
	(void)pd; (void)pd_context; (void)size; (void)alignment;
	(void)resource_type;
	alloc_calls++;
	return IBV_ALLOCATOR_USE_DEFAULT;
}

static void pd_free(struct ibv_pd *pd, void *pd_context, void *ptr,
		    uint64_t resource_type)
{
	(void)pd; (void)pd_context; (void)ptr; (void)resource_type;
	alloc_calls++;
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

#define FAIL(what)	do { diag("side %c: %s: %s", s->name, what, \
				  strerror(errno ?: EIO)); \
			     return errno ?: EIO; } while (0)

static int side_domains(struct side *s)
{
	struct ibv_td_init_attr ta = {};
	struct ibv_parent_domain_init_attr pa = {
		.comp_mask = IBV_PARENT_DOMAIN_INIT_ATTR_ALLOCATORS |
			     IBV_PARENT_DOMAIN_INIT_ATTR_PD_CONTEXT,
		.alloc = pd_alloc, .free = pd_free, .pd_context = s,
	};

	s->pd = ibv_alloc_pd(s->ctx);
	if (!s->pd)
		FAIL("ibv_alloc_pd");
	s->td = ibv_alloc_td(s->ctx, &ta);
	if (!s->td)
		FAIL("ibv_alloc_td");
	pa.pd = s->pd;
	pa.td = s->td;
	s->par = ibv_alloc_parent_domain(s->ctx, &pa);
	if (!s->par)
		FAIL("ibv_alloc_parent_domain");
	return 0;
}

static int side_queues(struct side *s)
{
	struct ibv_device_attr da;
	struct ibv_cq_init_attr_ex ca = {
		.cqe = 256, .wc_flags = IBV_WC_STANDARD_FLAGS,
	};
	struct ibv_qp_init_attr_ex qa = {
		.qp_type = IBV_QPT_RC,
		.cap = { .max_send_wr = SQ_WANT, .max_recv_wr = 64,
			 .max_inline_data = INLINE_WANT },
		.comp_mask = IBV_QP_INIT_ATTR_PD | IBV_QP_INIT_ATTR_SEND_OPS_FLAGS,
		.send_ops_flags = SEND_OPS,
	};

	if (ibv_query_device(s->ctx, &da))
		FAIL("ibv_query_device");
	qa.cap.max_send_sge = min_sz(da.max_sge, MAX_SGE);
	qa.cap.max_recv_sge = qa.cap.max_send_sge;
	s->rd_atom = min_sz(min_sz(da.max_qp_rd_atom, da.max_qp_init_rd_atom), 16);
	if (s->rd_atom < 1)
		s->rd_atom = 1;
	s->scq = ibv_create_cq_ex(s->ctx, &ca);
	if (!s->scq)
		FAIL("ibv_create_cq_ex (send)");
	/* The receive CQ belongs to the parent domain. */
	ca.comp_mask = IBV_CQ_INIT_ATTR_MASK_PD | IBV_CQ_INIT_ATTR_MASK_FLAGS;
	ca.parent_domain = s->par;
	ca.flags = IBV_CREATE_CQ_ATTR_SINGLE_THREADED;
	s->rcq = ibv_create_cq_ex(s->ctx, &ca);
	if (!s->rcq)
		FAIL("ibv_create_cq_ex (receive, on the parent domain)");
	qa.send_cq = ibv_cq_ex_to_cq(s->scq);
	qa.recv_cq = ibv_cq_ex_to_cq(s->rcq);
	qa.pd = s->par;
	s->qp = ibv_create_qp_ex(s->ctx, &qa);
	if (!s->qp)
		FAIL("ibv_create_qp_ex");
	s->qpx = ibv_qp_to_qp_ex(s->qp);
	if (!s->qpx) {
		diag("side %c: ibv_qp_to_qp_ex: NULL", s->name);
		return EPROTO;
	}
	s->cap = qa.cap;
	if (s->qp->pd != s->par) {
		diag("side %c: qp->pd is not the parent domain", s->name);
		return EPROTO;
	}
	return 0;
}

static int side_memory(struct side *s)
{
	size_t lead = GUARD + rnd(PAGE);
	int access = IBV_ACCESS_LOCAL_WRITE | IBV_ACCESS_REMOTE_WRITE |
		     IBV_ACCESS_REMOTE_READ | IBV_ACCESS_REMOTE_ATOMIC;

	s->len = 10 * opt.maxsize + 2 * PAGE + rnd(opt.maxsize + 1);
	s->alloc = (lead + s->len + GUARD + PAGE - 1) & ~(size_t)(PAGE - 1);
	s->base = aligned_alloc(PAGE, s->alloc);
	s->shadow = malloc(s->alloc);
	if (!s->base || !s->shadow)
		return ENOMEM;
	s->buf = s->base + lead;
	rnd_fill(s->base, s->alloc);
	memcpy(s->shadow, s->base, s->alloc);
	s->mr = ibv_reg_mr(s->par, s->buf, s->len, access);
	if (!s->mr)
		FAIL("ibv_reg_mr on the parent domain");
	return 0;
}

static int side_setup(struct side *s, const char *dev, int gidx)
{
	int ret;

	s->ctx = dev_open(dev);
	if (!s->ctx)
		return ENODEV;
	s->gidx = gidx;
	s->psn = rnd64() & 0xffffff;
	if (ibv_query_gid(s->ctx, 1, gidx, &s->gid))
		FAIL("ibv_query_gid");
	ret = side_domains(s);
	ret = ret ?: side_queues(s);
	return ret ?: side_memory(s);
}

/* Everything goes, in order, and every verb says 0. */
static bool side_teardown(struct side *s)
{
	bool ok = true;

#define GONE(obj, call)	do { if ((obj) && (call)) { \
		diag("side %c: %s failed", s->name, #call); ok = false; } } while (0)
	GONE(s->qp, ibv_destroy_qp(s->qp));
	GONE(s->mr, ibv_dereg_mr(s->mr));
	GONE(s->scq, ibv_destroy_cq(ibv_cq_ex_to_cq(s->scq)));
	GONE(s->rcq, ibv_destroy_cq(ibv_cq_ex_to_cq(s->rcq)));
	GONE(s->par, ibv_dealloc_pd(s->par));
	GONE(s->td, ibv_dealloc_td(s->td));
	GONE(s->pd, ibv_dealloc_pd(s->pd));
#undef GONE
	if (s->ctx)
		ibv_close_device(s->ctx);
	free(s->base);
	free(s->shadow);
	return ok;
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
	fprintf(stderr, "usage: %s -d DEV1 [-D DEV2] [-g GIDIDX] [-G GIDIDX2] [-n ROUNDS] [-s MAXSIZE] [-m MTU] [-S SEED] [-t SECONDS] [-v]\n",
		prog);
	return 2;
}

static int parse_args(int argc, char **argv)
{
	int c;

	while ((c = getopt(argc, argv, "d:D:g:G:n:s:m:S:t:v")) != -1) {
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
		case 'v': opt.verbose = true; break;
		default: return usage(argv[0]);
		}
	}
	if (!opt.dev[0] || opt.rounds < 1 || opt.maxsize < 64 || opt.timeout < 1)
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

/* Everything after the connection; false once a check failed. */
static bool run_checks(struct side *sides)
{
	struct op_stat st[NOPS] = {};
	size_t i;
	bool ok;

	ok = rounds_run(sides, st);
	ok = report(st) && ok;
	if (!ok)
		return false;
	if (!tap(check_post_send(sides),
		 "ibv_post_send between two batches on the ibv_qp_ex: one SQ, completions in order"))
		return false;
	if (!tap(check_full_batch(sides),
		 "a batch of max_send_wr (%u) WRs fills the SQ exactly",
		 sides[0].cap.max_send_wr))
		return false;
	if (!tap(check_abort(sides),
		 "wr_abort: no completion, no byte moved; the next batch reuses the slots and gets the receive"))
		return false;
	if (!tap(check_abort_empty(sides), "wr_abort of an empty batch releases the SQ"))
		return false;
	for (i = 0; i < sizeof(bad_cases) / sizeof(bad_cases[0]); i++)
		if (!tap(check_bad(sides, &bad_cases[i]),
			 "%s: wr_complete fails with %s, nothing of the batch is posted",
			 bad_cases[i].name, strerror(bad_cases[i].err)))
			return false;
	ok = tap(check_busy(&sides[0]),
		 "PD, parent domain and TD in use: ibv_dealloc_pd/td say EBUSY");
	if (!tap(check_awrite_refused(sides, false),
		 "ATOMIC WRITE through an MR without remote write: IBV_WC_REM_ACCESS_ERR, no byte moved; the pair works again after RESET"))
		return false;
	if (!tap(check_awrite_refused(sides, true),
		 "ATOMIC WRITE to an address 4 bytes off alignment: IBV_WC_REM_INV_REQ_ERR, no byte moved; the pair works again after RESET"))
		return false;
	check_error_completion(sides);
	return ok;
}

int main(int argc, char **argv)
{
	struct side sides[2] = { { .name = 'A' }, { .name = 'B' } };
	bool ok;
	int ret;

	ret = parse_args(argc, argv);
	if (ret)
		return ret;
	setvbuf(stdout, NULL, _IOLBF, 0);
	rng_state = opt.seed | 1;
	diag("seed %#" PRIx64 ", A = %s gid %d, B = %s gid %d, %ld rounds, max %zu bytes",
	     opt.seed, opt.dev[0], opt.gidx[0], opt.dev[1], opt.gidx[1],
	     opt.rounds, opt.maxsize);

	ret = side_setup(&sides[0], opt.dev[0], opt.gidx[0]);
	ret = ret ?: side_setup(&sides[1], opt.dev[1], opt.gidx[1]);
	tap(!ret, "per side: TD, parent domain, ex CQs (one on the parent domain), ex RC QP and MR on the parent domain (%s)",
	    ret ? strerror(ret) : "ok");
	if (!ret) {
		diag("caps A: sge %u/%u inline %u wr %u/%u",
		     sides[0].cap.max_send_sge, sides[0].cap.max_recv_sge,
		     sides[0].cap.max_inline_data, sides[0].cap.max_send_wr,
		     sides[0].cap.max_recv_wr);
		check_refusals(&sides[0]);
		ok = mtu_default(&sides[0]) && !qp_connect(&sides[0], &sides[1]) &&
		     !qp_connect(&sides[1], &sides[0]);
		if (tap(ok, "QPs %#x and %#x connected, path MTU %zu",
			sides[0].qp->qp_num, sides[1].qp->qp_num,
			mtu_bytes(opt.mtu)))
			run_checks(sides);
	}
	ok = side_teardown(&sides[1]);
	ok = side_teardown(&sides[0]) && ok;
	tap(ok, "teardown: QPs, MRs, CQs, parent domains, TDs, PDs all go");
	tap(!alloc_calls, "the parent domains' allocators were never called (%d calls)",
	    alloc_calls);
	printf("1..%d\n", tap_n);
	return tap_failed ? 1 : 0;
}
