// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * prov_rings - libsroce's ring code against rings in ordinary memory, no
 * kernel and no device: this program plays sroce.ko's half of the
 * protocol in include/uapi/rdma/sroce-abi.h.
 *
 * It is linked with the provider's own cq.c, qp.c, send.c and ring.c, and
 * drives the very functions libibverbs calls (poll_cq, the ibv_cq_ex
 * pollers, post_send, the ibv_qp_ex builders, post_recv) on CQs and QPs
 * set up the way create_cq / create_qp set them up after their mmap().
 * Checked: index arithmetic at empty, full and 2^32 wrap-around; WQE and
 * CQE encoding field by field; local validation and its errors; batches
 * that fail or abort publish nothing; the doorbell decision; and, with
 * threads, that concurrent producers and consumers lose, duplicate and
 * reorder nothing.
 *
 * No KICK flag is ever set on a posted ring: the doorbell is a system
 * call on a real QP.  Output is TAP; exit status 0 only if all passed.
 */
#include <errno.h>
#include <pthread.h>
#include <stdlib.h>
#include <string.h>

#include "sroce.h"

/* The unit tests' TAP helpers (ok, is, diag, tap_rand), included last. */
#include "../unit/tap.h"

/* The provider's log hooks live in sroce.c, which registers a driver. */
bool sroce_debug_enabled(void)
{
	return false;
}

void sroce_log(const char *fmt, ...)
{
	va_list ap;

	fputs("# libsroce: ", stdout);
	va_start(ap, fmt);
	vprintf(fmt, ap);
	va_end(ap);
	putchar('\n');
}

/* ------------------------------------------------------------------ */
/* Rings in memory, as sroce.ko lays them out                          */
/* ------------------------------------------------------------------ */

struct fake_ring {
	void *mem;
	struct sroce_ring_info info;
};

static struct sroce_ring_hdr *fr_hdr(struct fake_ring *f)
{
	return f->mem;
}

static void *fr_slot(struct fake_ring *f, uint32_t idx)
{
	return (uint8_t *)f->mem + SROCE_RING_ENTRIES_OFFSET +
	       (size_t)(idx & (f->info.entries - 1)) * f->info.stride;
}

/* Both indices start at @start; stale slots are 0xa5, as after reuse. */
static void fr_init(struct fake_ring *f, uint32_t entries, uint32_t stride,
		    uint32_t start)
{
	size_t size = SROCE_RING_ENTRIES_OFFSET + (size_t)entries * stride;

	size = (size + 4095) & ~(size_t)4095;
	f->mem = aligned_alloc(4096, size);
	if (!f->mem)
		abort();
	memset(f->mem, 0, SROCE_RING_ENTRIES_OFFSET);
	memset((uint8_t *)f->mem + SROCE_RING_ENTRIES_OFFSET, 0xa5,
	       size - SROCE_RING_ENTRIES_OFFSET);
	fr_hdr(f)->prod = start;
	fr_hdr(f)->cons = start;
	f->info = (struct sroce_ring_info){
		.mmap_size = size, .entries = entries, .stride = stride,
	};
}

static void fr_free(struct fake_ring *f)
{
	free(f->mem);
	f->mem = NULL;
}

/* Entries published and not yet taken back. */
static uint32_t fr_pending(struct fake_ring *f)
{
	return __atomic_load_n(&fr_hdr(f)->prod, __ATOMIC_ACQUIRE) -
	       __atomic_load_n(&fr_hdr(f)->cons, __ATOMIC_ACQUIRE);
}

static void fr_consume(struct fake_ring *f, uint32_t n)
{
	__atomic_store_n(&fr_hdr(f)->cons, fr_hdr(f)->cons + n,
			 __ATOMIC_RELEASE);
}

/* sroce.ko's SQ stride rule. */
static uint32_t sq_stride(uint32_t max_sge, uint32_t max_inline)
{
	uint32_t body = max_sge * 16 > max_inline ? max_sge * 16 : max_inline;
	uint32_t s = 1;

	while (s < SROCE_SEND_WQE_HDR_SIZE + body)
		s <<= 1;
	return s;
}

/* ------------------------------------------------------------------ */
/* ring.h                                                              */
/* ------------------------------------------------------------------ */

static void test_ring_info_check(void)
{
	struct sroce_ring_info i = {
		.mmap_size = 4096, .entries = 16, .stride = 64,
	};

	is(sroce_ring_info_check(&i, 64), 0, "info: 16 x 64 in 4096 bytes is fine");
	i.entries = 12;
	is(sroce_ring_info_check(&i, 64), EPROTO, "info: entries not a power of two");
	i.entries = 0;
	is(sroce_ring_info_check(&i, 64), EPROTO, "info: zero entries");
	i.entries = 16;
	i.stride = 96;
	is(sroce_ring_info_check(&i, 64), EPROTO, "info: stride not a power of two");
	i.stride = 32;
	is(sroce_ring_info_check(&i, 64), EPROTO, "info: stride below the entry size");
	i.stride = 256;
	is(sroce_ring_info_check(&i, 64), EPROTO, "info: mapping smaller than the ring");
	i.entries = 1U << 31;
	i.mmap_size = (1ULL << 31) * 256 + 256;
	is(sroce_ring_info_check(&i, 64), 0, "info: 2^31 entries still fit 32-bit indices");
	i.mmap_size -= 1;
	is(sroce_ring_info_check(&i, 64), EPROTO, "info: ... but not one byte short");
}

static void test_ring_producer(uint32_t start)
{
	struct sroce_ring r;
	struct fake_ring f;
	uint32_t room = 0, i;

	fr_init(&f, 8, 64, start);
	sroce_ring_attach(&r, f.mem, &f.info, true);
	is(r.head, start, "producer (start %#x): head starts at the kernel's prod", start);
	is(sroce_ring_free(&r), 8, "producer: empty ring has 8 free");
	for (i = 0; i < 8; i++) {
		if (!sroce_ring_has_room(&r, &room))
			break;
		r.head++;
		room--;
	}
	is(i, 8, "producer: exactly 8 entries fit");
	ok(!sroce_ring_has_room(&r, &room), "producer: full ring has no room");
	is(fr_hdr(&f)->prod, start, "producer: nothing visible before publish");
	sroce_ring_publish(&r);
	is(fr_hdr(&f)->prod, start + 8, "producer: publish stores head");
	fr_consume(&f, 3);
	ok(sroce_ring_has_room(&r, &room), "producer: room reappears as the kernel consumes");
	is(room, 3, "producer: ... as much as it consumed");
	/* A consumer index ahead of our prod, or a ring behind: garbage. */
	fr_hdr(&f)->cons = start + 9;
	is(sroce_ring_free(&r), 0, "producer: cons past prod means no room");
	fr_hdr(&f)->cons = start - 1;
	is(sroce_ring_free(&r), 0, "producer: cons more than a ring behind means no room");
	fr_free(&f);
}

static void test_ring_consumer(uint32_t start)
{
	struct sroce_ring r;
	struct fake_ring f;

	fr_init(&f, 8, 64, start);
	sroce_ring_attach(&r, f.mem, &f.info, false);
	is(sroce_ring_avail(&r), 0, "consumer (start %#x): empty", start);
	fr_hdr(&f)->prod = start + 8;
	is(sroce_ring_avail(&r), 8, "consumer: full ring has 8 available");
	fr_hdr(&f)->prod = start + 9;
	is(sroce_ring_avail(&r), -EIO, "consumer: prod a ring ahead is an error");
	fr_hdr(&f)->prod = start - 1;
	is(sroce_ring_avail(&r), -EIO, "consumer: prod behind cons is an error");
	fr_hdr(&f)->prod = start + 5;
	r.head += 5;
	sroce_ring_release(&r);
	is(fr_hdr(&f)->cons, start + 5, "consumer: release stores head");
	ok(sroce_ring_slot(&r, start + 5) == fr_slot(&f, start + 5) &&
	   sroce_ring_slot(&r, start + 13) == fr_slot(&f, start + 5),
	   "consumer: slots wrap modulo entries");
	fr_free(&f);
}

static void test_ring_kick(void)
{
	struct sroce_ring r;
	struct fake_ring f;

	fr_init(&f, 4, 128, 0);
	sroce_ring_attach(&r, f.mem, &f.info, true);
	ok(!sroce_ring_kick_needed(&r), "kick: engine running, no doorbell");
	fr_hdr(&f)->flags = SROCE_RING_F_KICK;
	ok(sroce_ring_kick_needed(&r), "kick: engine idle, doorbell");
	fr_free(&f);
}

/* ------------------------------------------------------------------ */
/* CQ                                                                  */
/* ------------------------------------------------------------------ */

static struct sroce_cq *fake_cq(struct fake_ring *f)
{
	struct sroce_cq *cq = calloc(1, sizeof(*cq));

	if (!cq || pthread_spin_init(&cq->lock, PTHREAD_PROCESS_PRIVATE))
		abort();
	sroce_cq_attach(cq, f->mem, &f->info);
	sroce_cq_ex_init(cq);
	return cq;
}

static void fake_cq_free(struct sroce_cq *cq)
{
	pthread_spin_destroy(&cq->lock);
	free(cq);
}

/* A CQE whose every field derives from @n. */
static void cqe_make(struct sroce_cqe *c, uint32_t n)
{
	memset(c, 0x5a, sizeof(*c));
	c->wr_id = 0x1000000000ULL + n;
	c->status = n % 3 ? IBV_WC_SUCCESS : IBV_WC_REM_ACCESS_ERR;
	c->opcode = n % 2 ? IBV_WC_RECV : IBV_WC_RDMA_READ;
	c->vendor_err = n * 7;
	c->byte_len = n * 13;
	c->imm_data = htobe32(n ^ 0xabcdef);
	c->qp_num = 0x100 + n;
	c->src_qp = 0x200 + n;
	c->wc_flags = n & 0xf;
	c->pkey_index = n & 0xff;
	c->slid = n & 0xffff;
	c->sl = n & 0xf;
	c->dlid_path_bits = n & 0x7f;
	c->port_num = 1;
}

/* The kernel's producer side: one CQE, published. */
static void cq_produce(struct fake_ring *f, uint32_t n)
{
	struct sroce_ring_hdr *h = fr_hdr(f);

	cqe_make(fr_slot(f, h->prod), n);
	__atomic_store_n(&h->prod, h->prod + 1, __ATOMIC_RELEASE);
}

static unsigned int flags_want(uint32_t n)
{
	unsigned int w = 0;

	w |= n & 1 ? IBV_WC_GRH : 0;
	w |= n & 2 ? IBV_WC_WITH_IMM : 0;
	w |= n & 4 ? IBV_WC_WITH_INV : 0;
	w |= n & 8 ? IBV_WC_IP_CSUM_OK : 0;
	return w;
}

static bool wc_matches(const struct ibv_wc *wc, uint32_t n)
{
	struct sroce_cqe c;

	cqe_make(&c, n);
	return wc->wr_id == c.wr_id && wc->status == c.status &&
	       wc->opcode == c.opcode && wc->vendor_err == c.vendor_err &&
	       wc->byte_len == c.byte_len && wc->imm_data == c.imm_data &&
	       wc->qp_num == c.qp_num && wc->src_qp == c.src_qp &&
	       wc->wc_flags == flags_want(n) &&
	       wc->pkey_index == c.pkey_index && wc->slid == c.slid &&
	       wc->sl == c.sl && wc->dlid_path_bits == c.dlid_path_bits;
}

static void test_cq_poll(uint32_t start)
{
	struct ibv_wc wc[16];
	struct fake_ring f;
	struct sroce_cq *cq;
	bool all = true;
	int i, n;

	fr_init(&f, 8, sizeof(struct sroce_cqe), start);
	cq = fake_cq(&f);
	is(sroce_cq_poll(&cq->vcq.cq, 16, wc), 0, "poll_cq (start %#x): empty CQ gives 0", start);
	for (i = 0; i < 16; i++)
		cq_produce(&f, i);	/* overruns: checked below */
	is(sroce_cq_poll(&cq->vcq.cq, 16, wc), -EIO,
	   "poll_cq: a prod more than a ring ahead is an error");
	fr_hdr(&f)->prod = start;
	for (i = 0; i < 8; i++)
		cq_produce(&f, i);
	n = sroce_cq_poll(&cq->vcq.cq, 3, wc);
	is(n, 3, "poll_cq: at most num_entries");
	is(fr_hdr(&f)->cons, start + 3, "poll_cq: cons published");
	n += sroce_cq_poll(&cq->vcq.cq, 16, wc + 3);
	is(n, 8, "poll_cq: the rest, full ring drained");
	for (i = 0; i < 8; i++)
		all &= wc_matches(&wc[i], i);
	ok(all, "poll_cq: every ibv_wc field, in order (wc_flags translated)");
	is(sroce_cq_poll(&cq->vcq.cq, 0, wc), 0, "poll_cq: num_entries 0");
	/* Past the wrap of the slot index, and of the 32-bit counter. */
	all = true;
	for (i = 0; i < 40; i++) {
		cq_produce(&f, 100 + i);
		all &= sroce_cq_poll(&cq->vcq.cq, 1, wc) == 1 &&
		       wc_matches(wc, 100 + i);
	}
	ok(all, "poll_cq: 40 one-by-one CQEs across wrap-around");
	/* The device was removed: what the kernel left comes first. */
	cq_produce(&f, 200);
	fr_hdr(&f)->flags = SROCE_RING_F_DEAD;
	ok(sroce_cq_poll(&cq->vcq.cq, 4, wc) == 1 && wc_matches(wc, 200),
	   "poll_cq on a dead CQ: the CQEs left are still delivered");
	is(sroce_cq_poll(&cq->vcq.cq, 4, wc), -EIO,
	   "poll_cq on a dead, empty CQ: -EIO, not 0 for ever");
	fr_hdr(&f)->flags = 0;
	ok(!pthread_spin_trylock(&cq->lock), "poll_cq: lock released");
	pthread_spin_unlock(&cq->lock);
	fake_cq_free(cq);
	fr_free(&f);
}

static bool cq_ex_matches(struct ibv_cq_ex *x, uint32_t n)
{
	struct sroce_cqe c;

	cqe_make(&c, n);
	return x->wr_id == c.wr_id && x->status == c.status &&
	       ibv_wc_read_opcode(x) == c.opcode &&
	       ibv_wc_read_vendor_err(x) == c.vendor_err &&
	       ibv_wc_read_byte_len(x) == c.byte_len &&
	       ibv_wc_read_imm_data(x) == c.imm_data &&
	       ibv_wc_read_qp_num(x) == c.qp_num &&
	       ibv_wc_read_src_qp(x) == c.src_qp &&
	       ibv_wc_read_wc_flags(x) == flags_want(n) &&
	       ibv_wc_read_slid(x) == c.slid && ibv_wc_read_sl(x) == c.sl &&
	       ibv_wc_read_dlid_path_bits(x) == c.dlid_path_bits;
}

static void test_cq_ex(uint32_t start)
{
	struct ibv_poll_cq_attr attr = {};
	struct ibv_cq_ex *x;
	struct fake_ring f;
	struct sroce_cq *cq;
	bool all = true;
	int i, ret;

	fr_init(&f, 8, sizeof(struct sroce_cqe), start);
	cq = fake_cq(&f);
	x = &cq->vcq.cq_ex;
	is(ibv_start_poll(x, &attr), ENOENT, "cq_ex (start %#x): start_poll on empty: ENOENT", start);
	ok(!pthread_spin_trylock(&cq->lock), "cq_ex: ... and the lock is not held");
	pthread_spin_unlock(&cq->lock);
	attr.comp_mask = 1;
	cq_produce(&f, 0);
	is(ibv_start_poll(x, &attr), EINVAL, "cq_ex: start_poll with a comp_mask: EINVAL");
	attr.comp_mask = 0;

	for (i = 1; i < 3; i++)
		cq_produce(&f, i);
	ret = ibv_start_poll(x, &attr);
	is(ret, 0, "cq_ex: start_poll finds CQEs");
	for (i = 0; !ret; i++) {
		all &= cq_ex_matches(x, i);
		/* The kernel adds more while we iterate, up to 10 in all. */
		if (i >= 2 && i < 9)
			cq_produce(&f, i + 1);
		ret = ibv_next_poll(x);
	}
	is(ret, ENOENT, "cq_ex: next_poll ends with ENOENT");
	is(i, 10, "cq_ex: saw the 3 initial and 7 late CQEs");
	ok(all, "cq_ex: wr_id, status and every read_*() match");
	ibv_end_poll(x);
	is(fr_hdr(&f)->cons, start + 10, "cq_ex: end_poll publishes cons");
	ok(!pthread_spin_trylock(&cq->lock), "cq_ex: end_poll releases the lock");
	pthread_spin_unlock(&cq->lock);

	/* end_poll right after start_poll consumes that one CQE. */
	cq_produce(&f, 50);
	cq_produce(&f, 51);
	ibv_start_poll(x, &attr);
	ibv_end_poll(x);
	ok(ibv_start_poll(x, &attr) == 0 && cq_ex_matches(x, 51),
	   "cq_ex: start+end consumes exactly one CQE");
	ibv_end_poll(x);
	is(fr_hdr(&f)->cons, start + 12, "cq_ex: cons after both");

	cq->ring.hdr = NULL;	/* what a failed resize leaves */
	is(sroce_cq_poll(&cq->vcq.cq, 1, (struct ibv_wc[1]){}), -EIO,
	   "poll_cq on a CQ that lost its ring: error");
	is(ibv_start_poll(x, &attr), EIO, "start_poll on it: EIO");
	fake_cq_free(cq);
	fr_free(&f);
}

/*
 * sroce_cq_clean(): a QP's unconsumed CQEs are voided in place, and both
 * pollers step over them, consuming them, without reporting them.
 * cqe_make(n) gives qp_num 0x100 + n: QP 0x101 owns CQEs 1 and 3 here.
 */
static void test_cq_clean(uint32_t start)
{
	struct ibv_poll_cq_attr attr = {};
	struct ibv_wc wc[8];
	struct fake_ring f;
	struct sroce_cq *cq;
	int i, n, seen = 0;

	fr_init(&f, 8, sizeof(struct sroce_cqe), start);
	cq = fake_cq(&f);
	for (i = 0; i < 3; i++)
		cq_produce(&f, i);
	sroce_cq_clean(cq, 0x101);
	cq_produce(&f, 3);	/* after the clean: not voided */
	n = sroce_cq_poll(&cq->vcq.cq, 8, wc);
	ok(n == 3 && wc_matches(&wc[0], 0) && wc_matches(&wc[1], 2) &&
	   wc_matches(&wc[2], 3),
	   "cq_clean (start %#x): poll_cq skips the voided CQE only", start);
	is(fr_hdr(&f)->cons, start + 4, "cq_clean: ... and consumes it");

	/* Voided entries first, in the middle and last, for cq_ex. */
	cq_produce(&f, 1);
	cq_produce(&f, 4);
	cq_produce(&f, 1);
	cq_produce(&f, 5);
	cq_produce(&f, 1);
	sroce_cq_clean(cq, 0x101);
	if (ibv_start_poll(&cq->vcq.cq_ex, &attr) == 0) {
		do
			seen |= 1 << (ibv_wc_read_qp_num(&cq->vcq.cq_ex) - 0x100);
		while (ibv_next_poll(&cq->vcq.cq_ex) == 0);
		ibv_end_poll(&cq->vcq.cq_ex);
	}
	is(seen, (1 << 4) | (1 << 5), "cq_clean: cq_ex sees CQEs 4 and 5 only");
	is(fr_hdr(&f)->cons, start + 9, "cq_clean: cq_ex consumed all five");
	cq_produce(&f, 1);
	sroce_cq_clean(cq, 0x101);
	is(ibv_start_poll(&cq->vcq.cq_ex, &attr), ENOENT,
	   "cq_clean: only voided CQEs: start_poll says ENOENT");
	is(fr_hdr(&f)->cons, start + 10, "cq_clean: ... and gives the slot back");
	ok(!pthread_spin_trylock(&cq->lock), "cq_clean: the lock is free");
	pthread_spin_unlock(&cq->lock);
	fake_cq_free(cq);
	fr_free(&f);
}

/* ------------------------------------------------------------------ */
/* QP                                                                  */
/* ------------------------------------------------------------------ */

struct fake_qp {
	struct sroce_qp *qp;
	struct fake_ring sq, rq;
	struct ibv_qp_cap cap;
};

/*
 * A QP as create_qp leaves it: rings sized by sroce.ko's rules from what
 * the kernel granted (@k), caps reported back in fq->cap.
 */
static void fake_qp_init(struct fake_qp *fq, enum ibv_qp_type type,
			 uint32_t entries, const struct ibv_qp_cap *k,
			 uint32_t stride, uint32_t start)
{
	struct sroce_qp *qp = calloc(1, sizeof(*qp));

	if (!qp || pthread_spin_init(&qp->sq.lock, PTHREAD_PROCESS_PRIVATE) ||
	    pthread_spin_init(&qp->rq.lock, PTHREAD_PROCESS_PRIVATE))
		abort();
	fr_init(&fq->sq, entries, stride, start);
	fr_init(&fq->rq, entries, 64, start);
	qp->vqp.qp.qp_type = type;
	qp->vqp.qp.qp_num = 0x42;
	qp->vqp.qp.state = IBV_QPS_RTS;	/* what libibverbs tracks */
	sroce_ring_attach(&qp->sq.ring, fq->sq.mem, &fq->sq.info, true);
	sroce_ring_attach(&qp->rq.ring, fq->rq.mem, &fq->rq.info, true);
	fq->cap = *k;
	sroce_qp_caps(qp, k->max_inline_data, &fq->cap);
	qp->send_ops = sroce_send_ops_of(type, SROCE_CAP_ATOMIC_WRITE);
	qp->vqp.comp_mask = VERBS_QP_EX;
	sroce_qp_ex_init(qp);
	fq->qp = qp;
}

static void fake_qp_free(struct fake_qp *fq)
{
	pthread_spin_destroy(&fq->qp->sq.lock);
	pthread_spin_destroy(&fq->qp->rq.lock);
	free(fq->qp);
	fr_free(&fq->sq);
	fr_free(&fq->rq);
}

static struct sroce_send_wqe *sq_wqe(struct fake_qp *fq, uint32_t idx)
{
	return fr_slot(&fq->sq, idx);
}

static bool bytes_are(const void *p, int c, size_t n)
{
	const uint8_t *b = p;
	size_t i;

	for (i = 0; i < n; i++)
		if (b[i] != c)
			return false;
	return true;
}

/* Header fields the operation does not use must read as zero. */
static bool wqe_rest_zero(const struct sroce_send_wqe *w, size_t used)
{
	return !w->xrc_srqn &&
	       bytes_are((const uint8_t *)&w->wr + used, 0,
			 sizeof(w->wr) - used);
}

static bool sge_is(const struct sroce_sge *s, const struct ibv_sge *want)
{
	return s->addr == want->addr && s->length == want->length &&
	       s->lkey == want->lkey;
}

static void test_qp_caps(void)
{
	struct ibv_qp_cap k = {
		.max_send_wr = 64, .max_recv_wr = 64, .max_send_sge = 32,
		.max_recv_sge = 32, .max_inline_data = 512,
	};
	struct fake_qp fq;

	/* The kernel claims more than a 256-byte slot holds. */
	fake_qp_init(&fq, IBV_QPT_RC, 16, &k, 256, 0);
	is(fq.cap.max_send_sge, 8, "caps: send SGEs cut to what a 256-byte slot holds");
	is(fq.cap.max_inline_data, 128, "caps: inline cut to the slot");
	is(fq.cap.max_recv_sge, 3, "caps: recv SGEs cut to a 64-byte slot");
	is(fq.cap.max_send_wr, 16, "caps: send WRs cut to the ring");
	is(fq.cap.max_recv_wr, 16, "caps: recv WRs cut to the ring");
	fake_qp_free(&fq);

	k = (struct ibv_qp_cap){ .max_send_wr = 8, .max_recv_wr = 8,
		.max_send_sge = 4, .max_recv_sge = 2, .max_inline_data = 100 };
	fake_qp_init(&fq, IBV_QPT_RC, 8, &k, sq_stride(4, 100), 0);
	ok(fq.cap.max_send_sge == 4 && fq.cap.max_inline_data == 100 &&
	   fq.cap.max_recv_sge == 2 && fq.cap.max_send_wr == 8,
	   "caps: consistent kernel caps are reported unchanged");
	fake_qp_free(&fq);
}

static const struct ibv_qp_cap small_caps = {
	.max_send_wr = 8, .max_recv_wr = 8, .max_send_sge = 4,
	.max_recv_sge = 3, .max_inline_data = 64,
};

static void test_post_send_opcodes(uint32_t start)
{
	struct ibv_sge sg[4] = {
		{ 0x1000, 10, 0x11 }, { 0x2ff8, 4096, 0x22 },
		{ 0x9000, 0, 0x33 }, { 0xfff0, 1, 0x44 },
	};
	struct ibv_sge asg = { 0x7000, 8, 0x55 };
	struct ibv_send_wr wr[6] = {}, *bad = NULL;
	struct sroce_send_wqe *w;
	struct fake_qp fq;
	bool all;
	int i;

	fake_qp_init(&fq, IBV_QPT_RC, 8, &small_caps, sq_stride(4, 64), start);
	memset(fr_slot(&fq.sq, start), 0xff, 8 * fq.sq.info.stride);

	wr[0] = (struct ibv_send_wr){ .wr_id = 1, .opcode = IBV_WR_SEND,
		.sg_list = sg, .num_sge = 4, .send_flags = IBV_SEND_SIGNALED };
	wr[1] = (struct ibv_send_wr){ .wr_id = 2, .opcode = IBV_WR_SEND_WITH_IMM,
		.imm_data = htobe32(0xdeadbeef),
		.send_flags = IBV_SEND_SOLICITED | IBV_SEND_FENCE };
	wr[2] = (struct ibv_send_wr){ .wr_id = 3, .opcode = IBV_WR_RDMA_WRITE_WITH_IMM,
		.sg_list = sg, .num_sge = 2, .imm_data = htobe32(7),
		.wr.rdma = { .remote_addr = 0x123456789abcULL, .rkey = 0x77 } };
	wr[3] = (struct ibv_send_wr){ .wr_id = 4, .opcode = IBV_WR_RDMA_READ,
		.sg_list = sg + 1, .num_sge = 1,
		.wr.rdma = { .remote_addr = 0xfedcba987654ULL, .rkey = 0x88 } };
	wr[4] = (struct ibv_send_wr){ .wr_id = 5, .opcode = IBV_WR_ATOMIC_CMP_AND_SWP,
		.sg_list = &asg, .num_sge = 1,
		.wr.atomic = { .remote_addr = 0x8000, .compare_add = 11,
			       .swap = 22, .rkey = 0x99 } };
	wr[5] = (struct ibv_send_wr){ .wr_id = 6, .opcode = IBV_WR_ATOMIC_FETCH_AND_ADD,
		.sg_list = &asg, .num_sge = 1,
		.wr.atomic = { .remote_addr = 0x8008, .compare_add = 33,
			       .swap = 44, .rkey = 0x9a } };
	for (i = 0; i < 5; i++)
		wr[i].next = &wr[i + 1];

	is(sroce_post_send(&fq.qp->vqp.qp, wr, &bad), 0,
	   "post_send (start %#x): six RC opcodes in one list", start);
	is(fr_pending(&fq.sq), 6, "post_send: six WQEs published");

	w = sq_wqe(&fq, start);
	all = w->wr_id == 1 && w->opcode == IBV_WR_SEND &&
	      w->send_flags == IBV_SEND_SIGNALED && w->num_sge == 4 &&
	      !w->inline_len && !w->imm_data && wqe_rest_zero(w, 0);
	for (i = 0; i < 4; i++)
		all &= sge_is((struct sroce_sge *)(w + 1) + i, &sg[i]);
	ok(all, "SEND: header, zeroed fields, 4 SGEs (one zero-length)");

	w = sq_wqe(&fq, start + 1);
	ok(w->wr_id == 2 && w->opcode == IBV_WR_SEND_WITH_IMM &&
	   w->send_flags == (IBV_SEND_SOLICITED | IBV_SEND_FENCE) &&
	   !w->num_sge && !w->inline_len && w->imm_data == htobe32(0xdeadbeef) &&
	   wqe_rest_zero(w, 0),
	   "SEND_WITH_IMM: zero-length, imm as given (network order)");

	w = sq_wqe(&fq, start + 2);
	ok(w->wr_id == 3 && w->opcode == IBV_WR_RDMA_WRITE_WITH_IMM &&
	   w->imm_data == htobe32(7) && w->num_sge == 2 &&
	   w->wr.rdma.remote_addr == 0x123456789abcULL &&
	   w->wr.rdma.rkey == 0x77 && !w->wr.rdma.reserved &&
	   wqe_rest_zero(w, sizeof(w->wr.rdma)) &&
	   sge_is((struct sroce_sge *)(w + 1) + 1, &sg[1]),
	   "RDMA_WRITE_WITH_IMM: remote address, rkey, imm, SGEs");

	w = sq_wqe(&fq, start + 3);
	ok(w->wr_id == 4 && w->opcode == IBV_WR_RDMA_READ && !w->imm_data &&
	   w->wr.rdma.remote_addr == 0xfedcba987654ULL &&
	   w->wr.rdma.rkey == 0x88 && w->num_sge == 1 &&
	   wqe_rest_zero(w, sizeof(w->wr.rdma)),
	   "RDMA_READ: remote address, rkey, SGE");

	w = sq_wqe(&fq, start + 4);
	ok(w->wr_id == 5 && w->opcode == IBV_WR_ATOMIC_CMP_AND_SWP &&
	   w->wr.atomic.remote_addr == 0x8000 &&
	   w->wr.atomic.compare_add == 11 && w->wr.atomic.swap == 22 &&
	   w->wr.atomic.rkey == 0x99 && !w->wr.atomic.reserved &&
	   w->num_sge == 1 && wqe_rest_zero(w, sizeof(w->wr.atomic)),
	   "ATOMIC_CMP_AND_SWP: compare, swap, rkey, one 8-byte SGE");

	w = sq_wqe(&fq, start + 5);
	ok(w->wr_id == 6 && w->opcode == IBV_WR_ATOMIC_FETCH_AND_ADD &&
	   w->wr.atomic.compare_add == 33 && w->wr.atomic.rkey == 0x9a &&
	   sge_is((struct sroce_sge *)(w + 1), &asg),
	   "ATOMIC_FETCH_AND_ADD: add value, rkey, SGE");
	fake_qp_free(&fq);
}

static void test_post_send_inline(void)
{
	char a[40], b[24], c[1];
	struct ibv_sge sg[3] = {
		{ (uintptr_t)a, sizeof(a), 0 }, { (uintptr_t)b, sizeof(b), 0 },
		{ (uintptr_t)c, 0, 0 },
	};
	struct ibv_send_wr wr = {
		.wr_id = 9, .opcode = IBV_WR_RDMA_WRITE, .sg_list = sg,
		.num_sge = 3, .send_flags = IBV_SEND_INLINE,
		.wr.rdma = { .remote_addr = 0x4000, .rkey = 5 },
	}, *bad;
	struct sroce_send_wqe *w;
	struct fake_qp fq;
	uint8_t *d;

	memset(a, 'a', sizeof(a));
	memset(b, 'b', sizeof(b));
	fake_qp_init(&fq, IBV_QPT_RC, 8, &small_caps, sq_stride(4, 64), 0);
	is(sroce_post_send(&fq.qp->vqp.qp, &wr, &bad), 0,
	   "inline: 64 bytes from 3 SGEs (max_inline 64)");
	w = sq_wqe(&fq, 0);
	d = (uint8_t *)(w + 1);
	ok(w->inline_len == 64 && !w->num_sge &&
	   w->send_flags == IBV_SEND_INLINE && bytes_are(d, 'a', 40) &&
	   bytes_are(d + 40, 'b', 24),
	   "inline: gathered in order, inline_len 64, num_sge 0, flag kept");

	wr.num_sge = 0;
	wr.opcode = IBV_WR_SEND;
	is(sroce_post_send(&fq.qp->vqp.qp, &wr, &bad), 0, "inline: zero-length");
	w = sq_wqe(&fq, 1);
	ok(!w->inline_len && !w->num_sge && w->send_flags == IBV_SEND_INLINE,
	   "inline: zero-length WQE");

	sg[2].length = 1;
	wr.num_sge = 3;
	bad = NULL;
	is(sroce_post_send(&fq.qp->vqp.qp, &wr, &bad), EINVAL,
	   "inline: 65 bytes > max_inline: EINVAL");
	ok(bad == &wr && fr_pending(&fq.sq) == 2, "inline: ... nothing posted");
	wr.opcode = IBV_WR_RDMA_READ;
	wr.num_sge = 1;
	is(sroce_post_send(&fq.qp->vqp.qp, &wr, &bad), EINVAL,
	   "inline: not for RDMA_READ");
	fake_qp_free(&fq);
}

/* post_send of one WR; expects @want, and nothing published on error. */
static void post_one_expect(struct fake_qp *fq, struct ibv_send_wr *wr,
			    int want, const char *what)
{
	uint32_t before = fr_pending(&fq->sq);
	struct ibv_send_wr *bad = NULL;
	int ret;

	ret = sroce_post_send(&fq->qp->vqp.qp, wr, &bad);
	ok(ret == want && (!ret || (bad == wr && fr_pending(&fq->sq) == before)),
	   "%s: %s (got %d)", what, want ? strerror(want) : "ok", ret);
}

static void test_post_send_errors(void)
{
	struct ibv_sge sg[5] = {
		{ 0x1000, 8, 1 }, { 0x2000, 8, 1 }, { 0x3000, 8, 1 },
		{ 0x4000, 8, 1 }, { 0x5000, 8, 1 },
	};
	struct ibv_send_wr wr[10] = {}, *bad = NULL;
	struct fake_qp fq;
	int i;

	fake_qp_init(&fq, IBV_QPT_RC, 8, &small_caps, sq_stride(4, 64), 0);
	wr[0] = (struct ibv_send_wr){ .opcode = IBV_WR_SEND, .sg_list = sg,
				      .num_sge = 5 };
	post_one_expect(&fq, wr, EINVAL, "5 SGEs > max_send_sge 4");
	wr[0].num_sge = -1;
	post_one_expect(&fq, wr, EINVAL, "negative num_sge");
	wr[0] = (struct ibv_send_wr){ .opcode = IBV_WR_TSO };
	post_one_expect(&fq, wr, EINVAL, "TSO (not supported)");
	wr[0].opcode = (enum ibv_wr_opcode)77;
	post_one_expect(&fq, wr, EINVAL, "unknown opcode 77");
	wr[0] = (struct ibv_send_wr){ .opcode = IBV_WR_SEND,
				      .send_flags = IBV_SEND_IP_CSUM };
	post_one_expect(&fq, wr, EINVAL, "IBV_SEND_IP_CSUM on RC");
	wr[0] = (struct ibv_send_wr){ .opcode = IBV_WR_ATOMIC_FETCH_AND_ADD,
				      .sg_list = sg, .num_sge = 2 };
	post_one_expect(&fq, wr, EINVAL, "atomic with 2 SGEs");
	wr[0].num_sge = 0;
	post_one_expect(&fq, wr, EINVAL, "atomic with no SGE");
	sg[4].length = 4;
	wr[0].sg_list = &sg[4];
	wr[0].num_sge = 1;
	post_one_expect(&fq, wr, EINVAL, "atomic with a 4-byte SGE");

	/* The third WR is bad: the first two are posted, bad_wr is it. */
	for (i = 0; i < 10; i++)
		wr[i] = (struct ibv_send_wr){ .wr_id = i, .opcode = IBV_WR_SEND,
					      .next = &wr[i + 1] };
	wr[9].next = NULL;
	wr[2].num_sge = 9;
	is(sroce_post_send(&fq.qp->vqp.qp, wr, &bad), EINVAL,
	   "list with a bad third WR: EINVAL");
	ok(bad == &wr[2] && fr_pending(&fq.sq) == 2,
	   "... bad_wr is the third, the first two are published");
	/* Ring of 8 with 2 used: WRs 3..8 fit, the 9th does not. */
	bad = NULL;
	is(sroce_post_send(&fq.qp->vqp.qp, &wr[3], &bad), ENOMEM,
	   "full SQ: ENOMEM");
	ok(bad == &wr[9] && fr_pending(&fq.sq) == 8,
	   "... at the WR that found it full, after filling it");
	fr_consume(&fq.sq, 1);
	wr[9].next = NULL;
	is(sroce_post_send(&fq.qp->vqp.qp, &wr[9], &bad), 0,
	   "a slot freed by the kernel is reused");
	ok(sq_wqe(&fq, 8)->wr_id == 9, "... and holds the new WQE");
	fake_qp_free(&fq);

	fake_qp_init(&fq, IBV_QPT_UC, 8, &small_caps, sq_stride(4, 64), 0);
	wr[0] = (struct ibv_send_wr){ .opcode = IBV_WR_RDMA_READ };
	post_one_expect(&fq, wr, EINVAL, "UC: RDMA_READ");
	wr[0].opcode = IBV_WR_RDMA_WRITE_WITH_IMM;
	post_one_expect(&fq, wr, 0, "UC: RDMA_WRITE_WITH_IMM");
	fake_qp_free(&fq);
}

static void test_qp_ex(uint32_t start)
{
	char data[20];
	struct ibv_data_buf bufs[2] = { { data, 12 }, { data + 12, 8 } };
	struct ibv_sge sg[2] = { { 0xa000, 100, 7 }, { 0xb000, 200, 8 } };
	struct sroce_send_wqe *w;
	struct ibv_qp_ex *x;
	struct fake_qp fq;
	int i;

	for (i = 0; i < 20; i++)
		data[i] = i;
	fake_qp_init(&fq, IBV_QPT_RC, 8, &small_caps, sq_stride(4, 64), start);
	x = ibv_qp_to_qp_ex(&fq.qp->vqp.qp);
	ok(x == &fq.qp->vqp.qp_ex, "qp_ex: ibv_qp_to_qp_ex finds it (VERBS_QP_EX)");

	ibv_wr_start(x);
	x->wr_id = 100;
	x->wr_flags = IBV_SEND_SIGNALED;
	ibv_wr_send(x);
	ibv_wr_set_sge_list(x, 2, sg);
	x->wr_id = 101;
	x->wr_flags = IBV_SEND_INLINE;
	ibv_wr_rdma_write_imm(x, 0x31, 0x5000, htobe32(0x1234));
	ibv_wr_set_inline_data_list(x, 2, bufs);
	x->wr_id = 102;
	x->wr_flags = 0;
	ibv_wr_atomic_fetch_add(x, 0x32, 0x6000, 5);
	ibv_wr_set_sge(x, 0x33, 0xc000, 8);
	x->wr_id = 103;
	ibv_wr_rdma_read(x, 0x34, 0x7000);
	ibv_wr_set_sge(x, 0x35, 0xd000, 0);
	x->wr_id = 104;
	ibv_wr_send_imm(x, htobe32(99));
	is(fr_pending(&fq.sq), 0, "qp_ex (start %#x): nothing visible before wr_complete", start);
	is(ibv_wr_complete(x), 0, "qp_ex: wr_complete of 5 WRs");
	is(fr_pending(&fq.sq), 5, "qp_ex: 5 WQEs published");

	w = sq_wqe(&fq, start);
	ok(w->wr_id == 100 && w->opcode == IBV_WR_SEND &&
	   w->send_flags == IBV_SEND_SIGNALED && w->num_sge == 2 &&
	   sge_is((struct sroce_sge *)(w + 1) + 1, &sg[1]) && wqe_rest_zero(w, 0),
	   "qp_ex: wr_send + wr_set_sge_list");
	w = sq_wqe(&fq, start + 1);
	ok(w->wr_id == 101 && w->opcode == IBV_WR_RDMA_WRITE_WITH_IMM &&
	   w->send_flags == IBV_SEND_INLINE && w->inline_len == 20 &&
	   !w->num_sge && !memcmp(w + 1, data, 20) &&
	   w->imm_data == htobe32(0x1234) && w->wr.rdma.rkey == 0x31 &&
	   w->wr.rdma.remote_addr == 0x5000,
	   "qp_ex: wr_rdma_write_imm + wr_set_inline_data_list");
	w = sq_wqe(&fq, start + 2);
	ok(w->wr_id == 102 && w->opcode == IBV_WR_ATOMIC_FETCH_AND_ADD &&
	   w->wr.atomic.compare_add == 5 && w->wr.atomic.rkey == 0x32 &&
	   w->wr.atomic.remote_addr == 0x6000 && !w->wr.atomic.swap &&
	   w->num_sge == 1 && ((struct sroce_sge *)(w + 1))->lkey == 0x33,
	   "qp_ex: wr_atomic_fetch_add + wr_set_sge");
	w = sq_wqe(&fq, start + 3);
	ok(w->wr_id == 103 && w->opcode == IBV_WR_RDMA_READ && w->num_sge == 1 &&
	   w->wr.rdma.rkey == 0x34,
	   "qp_ex: wr_rdma_read + zero-length wr_set_sge");
	w = sq_wqe(&fq, start + 4);
	ok(w->wr_id == 104 && w->opcode == IBV_WR_SEND_WITH_IMM &&
	   !w->num_sge && !w->inline_len && w->imm_data == htobe32(99),
	   "qp_ex: wr_send_imm without data: zero-length");

	/* A failing builder voids the whole batch. */
	ibv_wr_start(x);
	ibv_wr_send(x);
	ibv_wr_rdma_write(x, 1, 2);
	ibv_wr_set_inline_data(x, data, 65);
	ibv_wr_send(x);
	is(ibv_wr_complete(x), EINVAL, "qp_ex: inline too long: EINVAL from wr_complete");
	is(fr_pending(&fq.sq), 5, "qp_ex: ... and the batch is dropped");
	ok(!pthread_spin_trylock(&fq.qp->sq.lock), "qp_ex: ... lock released");
	pthread_spin_unlock(&fq.qp->sq.lock);

	ibv_wr_start(x);
	ibv_wr_atomic_cmp_swp(x, 1, 0x8000, 1, 2);
	is(ibv_wr_complete(x), EINVAL, "qp_ex: atomic without its SGE: EINVAL");
	ibv_wr_start(x);
	ibv_wr_set_sge(x, 1, 2, 3);
	is(ibv_wr_complete(x), EINVAL, "qp_ex: wr_set_sge before any WR: EINVAL");
	ibv_wr_start(x);
	ibv_wr_send(x);
	ibv_wr_send_tso(x, NULL, 0, 0);
	is(ibv_wr_complete(x), EOPNOTSUPP, "qp_ex: wr_send_tso: EOPNOTSUPP");
	ibv_wr_start(x);
	ibv_wr_send(x);
	ibv_wr_set_ud_addr(x, NULL, 1, 2);
	is(ibv_wr_complete(x), EINVAL, "qp_ex: wr_set_ud_addr on an RC QP: EINVAL");
	ibv_wr_start(x);
	x->wr_flags = IBV_SEND_IP_CSUM;
	ibv_wr_send(x);
	x->wr_flags = 0;
	is(ibv_wr_complete(x), EINVAL, "qp_ex: IP_CSUM flag: EINVAL");
	ibv_wr_start(x);
	for (i = 0; i < 4; i++)
		ibv_wr_send(x);
	is(ibv_wr_complete(x), ENOMEM, "qp_ex: 4 WRs with 3 slots free: ENOMEM");
	is(fr_pending(&fq.sq), 5, "qp_ex: ... none published");

	ibv_wr_start(x);
	ibv_wr_send(x);
	ibv_wr_abort(x);
	ok(fr_pending(&fq.sq) == 5 && fq.qp->sq.ring.head == start + 5,
	   "qp_ex: wr_abort rolls back");
	fr_consume(&fq.sq, 5);
	ibv_wr_start(x);
	x->wr_id = 200;
	ibv_wr_send(x);
	ok(!ibv_wr_complete(x) && sq_wqe(&fq, start + 5)->wr_id == 200,
	   "qp_ex: next batch reuses the rolled-back slot");
	ok(!pthread_spin_trylock(&fq.qp->sq.lock), "qp_ex: lock released");
	pthread_spin_unlock(&fq.qp->sq.lock);
	fake_qp_free(&fq);
}

/* An ATOMIC WRITE WQE: target, the 8 bytes, nothing else. */
static bool awrite_is(const struct sroce_send_wqe *w, uint64_t wr_id,
		      uint32_t rkey, uint64_t addr, const uint8_t *data)
{
	return w->wr_id == wr_id && w->opcode == SROCE_WR_ATOMIC_WRITE &&
	       !(w->send_flags & IBV_SEND_INLINE) && !w->num_sge &&
	       !w->inline_len && !w->imm_data &&
	       w->wr.atomic_write.rkey == rkey &&
	       w->wr.atomic_write.remote_addr == addr &&
	       !w->wr.atomic_write.reserved &&
	       !memcmp(w->wr.atomic_write.data, data, 8) &&
	       wqe_rest_zero(w, sizeof(w->wr.atomic_write));
}

/*
 * ATOMIC WRITE: offered with SROCE_CAP_ATOMIC_WRITE on RC and XRC INI;
 * the builder and post_send put the 8 bytes, as given, in the WQE (from
 * sg_list[0] for post_send); anything else with them is refused; the
 * completion's opcode is IBV_WC_ATOMIC_WRITE.
 */
static void test_atomic_write(void)
{
	uint8_t v[8] = { 0x01, 0x23, 0x45, 0x67, 0x89, 0xab, 0xcd, 0xef };
	uint8_t u[8] = { 0xfe, 0xdc, 0xba, 0x98, 0x76, 0x54, 0x32, 0x10 };
	uint8_t keep[8];
	struct ibv_sge sg[2] = { { (uintptr_t)u, 8, 0x66 },
				 { (uintptr_t)v, 8, 0x67 } };
	struct ibv_send_wr wr = {
		.wr_id = 7, .opcode = IBV_WR_ATOMIC_WRITE, .sg_list = sg,
		.num_sge = 1, .send_flags = IBV_SEND_SIGNALED,
		.wr.rdma = { .remote_addr = 0x9008, .rkey = 0x44 },
	}, *bad;
	struct ibv_poll_cq_attr attr = {};
	struct sroce_cqe *c;
	struct fake_ring f;
	struct sroce_cq *cq;
	struct ibv_qp_ex *x;
	struct fake_qp fq;
	struct ibv_wc wc;

	ok((sroce_send_ops_flags_of(IBV_QPT_RC, SROCE_CAP_ATOMIC_WRITE) &
	    IBV_QP_EX_WITH_ATOMIC_WRITE) &&
	   (sroce_send_ops_flags_of(IBV_QPT_XRC_SEND, SROCE_CAP_ATOMIC_WRITE) &
	    IBV_QP_EX_WITH_ATOMIC_WRITE) &&
	   !(sroce_send_ops_flags_of(IBV_QPT_RC, 0) &
	     IBV_QP_EX_WITH_ATOMIC_WRITE) &&
	   !(sroce_send_ops_flags_of(IBV_QPT_UC, SROCE_CAP_ATOMIC_WRITE) &
	     IBV_QP_EX_WITH_ATOMIC_WRITE) &&
	   !(sroce_send_ops_flags_of(IBV_QPT_UD, SROCE_CAP_ATOMIC_WRITE) &
	     IBV_QP_EX_WITH_ATOMIC_WRITE),
	   "atomic write: offered on RC and XRC INI with the kernel's cap only");

	fake_qp_init(&fq, IBV_QPT_RC, 8, &small_caps, sq_stride(4, 64), 0);
	x = ibv_qp_to_qp_ex(&fq.qp->vqp.qp);
	memcpy(keep, v, 8);
	ibv_wr_start(x);
	x->wr_id = 5;
	x->wr_flags = IBV_SEND_SIGNALED | IBV_SEND_INLINE;
	ibv_wr_atomic_write(x, 0x42, 0x8000, v);
	memset(v, 0, 8);	/* copied already */
	is(ibv_wr_complete(x), 0, "atomic write: wr_atomic_write, wr_complete");
	ok(awrite_is(sq_wqe(&fq, 0), 5, 0x42, 0x8000, keep) &&
	   sq_wqe(&fq, 0)->send_flags == IBV_SEND_SIGNALED,
	   "atomic write: opcode 15, rkey, address, the 8 bytes as given, no SGE, no inline flag");
	memcpy(v, keep, 8);

	is(sroce_post_send(&fq.qp->vqp.qp, &wr, &bad), 0,
	   "atomic write: ibv_post_send with one 8-byte SGE");
	ok(awrite_is(sq_wqe(&fq, 1), 7, 0x44, 0x9008, u),
	   "atomic write: post_send takes the bytes at sg_list[0].addr, the target from wr.rdma");

	ibv_wr_start(x);
	ibv_wr_atomic_write(x, 1, 0x8000, v);
	ibv_wr_set_sge(x, 1, 0x1000, 8);
	is(ibv_wr_complete(x), EINVAL, "atomic write: with an SGE: EINVAL");
	ibv_wr_start(x);
	ibv_wr_atomic_write(x, 1, 0x8000, v);
	ibv_wr_set_inline_data(x, v, 8);
	is(ibv_wr_complete(x), EINVAL, "atomic write: with inline data: EINVAL");
	wr.num_sge = 2;
	post_one_expect(&fq, &wr, EINVAL, "atomic write: post_send with 2 SGEs");
	wr.num_sge = 0;
	post_one_expect(&fq, &wr, EINVAL, "atomic write: post_send with no SGE");
	wr.num_sge = 1;
	sg[0].length = 4;
	post_one_expect(&fq, &wr, EINVAL, "atomic write: post_send with 4 bytes");
	sg[0].length = 8;
	wr.send_flags = IBV_SEND_INLINE;
	post_one_expect(&fq, &wr, EINVAL, "atomic write: post_send, inline flag");
	wr.send_flags = 0;

	fq.qp->send_ops = sroce_send_ops_of(IBV_QPT_RC, 0);
	post_one_expect(&fq, &wr, EINVAL, "atomic write: kernel without the cap");
	ibv_wr_start(x);
	ibv_wr_atomic_write(x, 1, 0x8000, v);
	is(ibv_wr_complete(x), EINVAL, "atomic write: ... nor with wr_atomic_write");
	is(fr_pending(&fq.sq), 2, "atomic write: nothing refused was published");
	fake_qp_free(&fq);

	fake_qp_init(&fq, IBV_QPT_UC, 8, &small_caps, sq_stride(4, 64), 0);
	post_one_expect(&fq, &wr, EINVAL, "atomic write: not on UC");
	fake_qp_free(&fq);

	fr_init(&f, 8, sizeof(struct sroce_cqe), 0);
	cq = fake_cq(&f);
	c = fr_slot(&f, 0);
	cqe_make(c, 1);
	c->opcode = SROCE_CQE_OPCODE_ATOMIC_WRITE;
	c->status = IBV_WC_SUCCESS;
	cqe_make(fr_slot(&f, 1), 2);
	((struct sroce_cqe *)fr_slot(&f, 1))->opcode =
		SROCE_CQE_OPCODE_ATOMIC_WRITE;
	__atomic_store_n(&fr_hdr(&f)->prod, 2, __ATOMIC_RELEASE);
	ok(sroce_cq_poll(&cq->vcq.cq, 1, &wc) == 1 &&
	   wc.opcode == IBV_WC_ATOMIC_WRITE && wc.status == IBV_WC_SUCCESS,
	   "atomic write: ibv_poll_cq reports IBV_WC_ATOMIC_WRITE");
	ok(!ibv_start_poll(&cq->vcq.cq_ex, &attr) &&
	   ibv_wc_read_opcode(&cq->vcq.cq_ex) == IBV_WC_ATOMIC_WRITE,
	   "atomic write: so does ibv_wc_read_opcode");
	ibv_end_poll(&cq->vcq.cq_ex);
	fake_cq_free(cq);
	fr_free(&f);
}

static void test_post_recv(uint32_t start)
{
	struct ibv_sge sg[4] = {
		{ 0x1000, 100, 1 }, { 0x2000, 200, 2 }, { 0x3000, 0, 3 },
		{ 0x4000, 1, 4 },
	};
	struct ibv_recv_wr wr[9] = {}, *bad = NULL;
	struct sroce_recv_wqe *w;
	struct fake_qp fq;
	bool all = true;
	int i;

	fake_qp_init(&fq, IBV_QPT_RC, 8, &small_caps, sq_stride(4, 64), start);
	memset(fr_slot(&fq.rq, start), 0xff, 8 * fq.rq.info.stride);
	for (i = 0; i < 9; i++)
		wr[i] = (struct ibv_recv_wr){ .wr_id = 50 + i, .sg_list = sg,
					      .num_sge = i % 4, .next = &wr[i + 1] };
	wr[8].next = NULL;
	is(sroce_post_recv(&fq.qp->vqp.qp, wr, &bad), ENOMEM,
	   "post_recv (start %#x): 9 WRs into 8 slots: ENOMEM", start);
	ok(bad == &wr[8] && fr_pending(&fq.rq) == 8, "post_recv: 8 posted, bad_wr the 9th");
	for (i = 0; i < 8; i++) {
		w = fr_slot(&fq.rq, start + i);
		all &= w->wr_id == 50u + i && w->num_sge == (uint32_t)i % 4 &&
		       !w->reserved;
		if (i % 4 == 3)
			all &= sge_is((struct sroce_sge *)(w + 1) + 2, &sg[2]);
	}
	ok(all, "post_recv: wr_id, num_sge, SGEs, reserved zero");
	fr_consume(&fq.rq, 8);
	wr[0].num_sge = 4;
	wr[0].next = NULL;
	is(sroce_post_recv(&fq.qp->vqp.qp, wr, &bad), EINVAL,
	   "post_recv: 4 SGEs > max_recv_sge 3: EINVAL");
	fq.qp->rq.ring.hdr = NULL;	/* a QP on an SRQ */
	wr[0].num_sge = 1;
	is(sroce_post_recv(&fq.qp->vqp.qp, wr, &bad), EINVAL,
	   "post_recv on a QP without RQ: EINVAL");
	fake_qp_free(&fq);
}

/* Sends only from RTS on, receives from INIT on (the IB state rules). */
static void test_qp_state(void)
{
	static const struct {
		enum ibv_qp_state state;
		bool send, recv;
	} rules[] = {
		{ IBV_QPS_RESET, false, false }, { IBV_QPS_INIT, false, true },
		{ IBV_QPS_RTR, false, true }, { IBV_QPS_RTS, true, true },
		{ IBV_QPS_SQD, true, true }, { IBV_QPS_SQE, true, true },
		{ IBV_QPS_ERR, true, true },
	};
	struct ibv_send_wr swr = { .opcode = IBV_WR_SEND }, *sbad;
	struct ibv_recv_wr rwr = {}, *rbad;
	struct ibv_qp_ex *x;
	struct fake_qp fq;
	bool all = true;
	size_t i;
	int ret;

	fake_qp_init(&fq, IBV_QPT_RC, 64, &small_caps, sq_stride(4, 64), 0);
	x = &fq.qp->vqp.qp_ex;
	for (i = 0; i < ARRAY_SIZE(rules); i++) {
		uint32_t sq = fr_pending(&fq.sq), rq = fr_pending(&fq.rq);

		fq.qp->vqp.qp.state = rules[i].state;
		sbad = NULL;
		rbad = NULL;
		ret = sroce_post_send(&fq.qp->vqp.qp, &swr, &sbad);
		all &= rules[i].send ? !ret && fr_pending(&fq.sq) == sq + 1 :
				       ret == EINVAL && sbad == &swr &&
				       fr_pending(&fq.sq) == sq;
		ibv_wr_start(x);
		ibv_wr_send(x);
		ret = ibv_wr_complete(x);
		all &= rules[i].send ? !ret : ret == EINVAL;
		ret = sroce_post_recv(&fq.qp->vqp.qp, &rwr, &rbad);
		all &= rules[i].recv ? !ret && fr_pending(&fq.rq) == rq + 1 :
				       ret == EINVAL && rbad == &rwr &&
				       fr_pending(&fq.rq) == rq;
		if (!all) {
			diag("wrong answer in QP state %d", rules[i].state);
			break;
		}
	}
	ok(all, "QP state: sends (both APIs) refused before RTS, receives in RESET, nothing published");
	fake_qp_free(&fq);
}

/* ------------------------------------------------------------------ */
/* Concurrency                                                         */
/* ------------------------------------------------------------------ */

#define SQ_THREADS	3
#define SQ_PER_THREAD	100000
#define CQ_TOTAL	100000
#define CQ_POLLERS	3
#define CQ_RACE_ENTRIES	256	/* room enough for pollers to collide */

/* tap_rand() is not for threads: one xorshift state each. */
static uint32_t rnd(uint64_t *s)
{
	*s ^= *s << 13;
	*s ^= *s >> 7;
	*s ^= *s << 17;
	return *s >> 32;
}

struct sq_race {
	struct fake_qp fq;
	uint32_t next[SQ_THREADS];	/* kernel side: next seq per thread */
	unsigned long bad;
	int stop;
};

/* Each WR carries (thread, seq) in wr_id and seq in its inline data. */
static void *sq_poster(void *arg)
{
	struct sq_race *r = ((void **)arg)[0];
	uintptr_t t = (uintptr_t)((void **)arg)[1];
	struct ibv_send_wr wr[4], *bad;
	uint32_t seq = 0, data[4];
	uint64_t rs = 0x9e3779b97f4a7c15ULL + t;
	struct ibv_sge sg[4];
	int i, n;

	while (seq < SQ_PER_THREAD) {
		n = 1 + rnd(&rs) % 4;
		if (seq + n > SQ_PER_THREAD)
			n = SQ_PER_THREAD - seq;
		for (i = 0; i < n; i++) {
			data[i] = seq + i;
			sg[i] = (struct ibv_sge){ (uintptr_t)&data[i], 4, 0 };
			wr[i] = (struct ibv_send_wr){
				.wr_id = (uint64_t)t << 32 | (seq + i),
				.opcode = IBV_WR_SEND, .sg_list = &sg[i],
				.num_sge = 1, .send_flags = IBV_SEND_INLINE,
				.next = i + 1 < n ? &wr[i + 1] : NULL,
			};
		}
		bad = NULL;
		if (sroce_post_send(&r->fq.qp->vqp.qp, wr, &bad) == ENOMEM)
			n = bad - wr;	/* retry from the refused one */
		seq += n;
	}
	return NULL;
}

static void *sq_kernel(void *arg)
{
	struct sq_race *r = arg;
	struct sroce_send_wqe *w;
	uint32_t t, seq, data;

	while (!__atomic_load_n(&r->stop, __ATOMIC_ACQUIRE) ||
	       fr_pending(&r->fq.sq)) {
		if (!fr_pending(&r->fq.sq))
			continue;
		w = fr_slot(&r->fq.sq, fr_hdr(&r->fq.sq)->cons);
		t = w->wr_id >> 32;
		seq = (uint32_t)w->wr_id;
		memcpy(&data, w + 1, 4);
		if (t >= SQ_THREADS || seq != r->next[t] || data != seq ||
		    w->inline_len != 4)
			r->bad++;
		else
			r->next[t]++;
		fr_consume(&r->fq.sq, 1);
	}
	return NULL;
}

static void test_sq_race(void)
{
	static struct sq_race r;
	pthread_t k, p[SQ_THREADS];
	void *args[SQ_THREADS][2];
	uintptr_t t;

	fake_qp_init(&r.fq, IBV_QPT_RC, 16, &small_caps, sq_stride(4, 64),
		     0xfffff000);
	pthread_create(&k, NULL, sq_kernel, &r);
	for (t = 0; t < SQ_THREADS; t++) {
		args[t][0] = &r;
		args[t][1] = (void *)t;
		pthread_create(&p[t], NULL, sq_poster, args[t]);
	}
	for (t = 0; t < SQ_THREADS; t++)
		pthread_join(p[t], NULL);
	__atomic_store_n(&r.stop, 1, __ATOMIC_RELEASE);
	pthread_join(k, NULL);
	ok(!r.bad && r.next[0] == SQ_PER_THREAD && r.next[1] == SQ_PER_THREAD &&
	   r.next[2] == SQ_PER_THREAD,
	   "SQ race: %d posters x %d WRs through 16 slots, across the 2^32 wrap: none lost, duplicated or reordered (%lu bad)",
	   SQ_THREADS, SQ_PER_THREAD, r.bad);
	fake_qp_free(&r.fq);
}

struct cq_race {
	struct fake_ring f;
	struct sroce_cq *cq;
	uint8_t seen[CQ_TOTAL];
	unsigned long dup, total;
	int done;
};

static void *cq_kernel(void *arg)
{
	struct cq_race *r = arg;
	struct sroce_ring_hdr *h = fr_hdr(&r->f);
	uint32_t n;

	for (n = 0; n < CQ_TOTAL; n++) {
		while (h->prod - __atomic_load_n(&h->cons, __ATOMIC_ACQUIRE) >=
		       r->f.info.entries)
			;
		cq_produce(&r->f, n);
	}
	__atomic_store_n(&r->done, 1, __ATOMIC_RELEASE);
	return NULL;
}

static void cq_race_see(struct cq_race *r, uint64_t wr_id)
{
	uint64_t n = wr_id - 0x1000000000ULL;

	if (n >= CQ_TOTAL || __atomic_exchange_n(&r->seen[n], 1, __ATOMIC_RELAXED))
		__atomic_fetch_add(&r->dup, 1, __ATOMIC_RELAXED);
	__atomic_fetch_add(&r->total, 1, __ATOMIC_RELAXED);
}

/* Alternates ibv_poll_cq() and the extended API on the same CQ. */
static void *cq_poller(void *arg)
{
	struct cq_race *r = arg;
	struct ibv_cq_ex *x = &r->cq->vcq.cq_ex;
	struct ibv_poll_cq_attr attr = {};
	uint64_t rs = (uintptr_t)&attr;
	struct ibv_wc wc[8];
	int i, n, round = 0;

	/* Until the kernel is done and every CQE is consumed. */
	while (!__atomic_load_n(&r->done, __ATOMIC_ACQUIRE) ||
	       fr_pending(&r->f)) {
		if (round++ & 1) {
			n = sroce_cq_poll(&r->cq->vcq.cq, 1 + rnd(&rs) % 8, wc);
			for (i = 0; i < n; i++)
				cq_race_see(r, wc[i].wr_id);
			continue;
		}
		if (ibv_start_poll(x, &attr))
			continue;
		n = 1 + rnd(&rs) % 8;
		do {
			cq_race_see(r, x->wr_id);
		} while (--n && !ibv_next_poll(x));
		ibv_end_poll(x);
	}
	return NULL;
}

static void test_cq_race(void)
{
	static struct cq_race r;
	pthread_t k, p[CQ_POLLERS];
	int i;

	fr_init(&r.f, CQ_RACE_ENTRIES, sizeof(struct sroce_cqe), 0xffffff00);
	r.cq = fake_cq(&r.f);
	pthread_create(&k, NULL, cq_kernel, &r);
	for (i = 0; i < CQ_POLLERS; i++)
		pthread_create(&p[i], NULL, cq_poller, &r);
	pthread_join(k, NULL);
	for (i = 0; i < CQ_POLLERS; i++)
		pthread_join(p[i], NULL);
	ok(!r.dup && r.total == CQ_TOTAL && !memchr(r.seen, 0, CQ_TOTAL),
	   "CQ race: %d CQEs through %d slots, %d pollers mixing poll_cq and start/next/end_poll: each seen once (%lu dup, %lu total)",
	   CQ_TOTAL, CQ_RACE_ENTRIES, CQ_POLLERS, r.dup, r.total);
	fake_cq_free(r.cq);
	fr_free(&r.f);
}

/*
 * Memory window WQEs: binds carry the window's current rkey, the new one,
 * the MR's lkey, range and rights; invalidations carry the rkey in
 * imm_data; binds and local invalidations carry no SGE.
 */
static void test_post_send_mw(void)
{
	struct ibv_mr mr = { .lkey = 0x1234 };
	struct ibv_mw mw = { .rkey = 0x80000105, .type = IBV_MW_TYPE_2 };
	struct ibv_sge sg = { 0x1000, 8, 1 };
	struct ibv_send_wr wr = {}, *bad = NULL;
	struct sroce_send_wqe *w;
	struct ibv_qp_ex *x;
	struct fake_qp fq;

	fake_qp_init(&fq, IBV_QPT_RC, 8, &small_caps, sq_stride(4, 64), 0);
	wr = (struct ibv_send_wr){
		.wr_id = 1, .opcode = IBV_WR_BIND_MW, .sg_list = &sg,
		.num_sge = 1, .send_flags = IBV_SEND_SIGNALED,
		.bind_mw = { .mw = &mw, .rkey = 0x80000106,
			     .bind_info = { .mr = &mr, .addr = 0x5000,
					    .length = 0x300,
					    .mw_access_flags =
						IBV_ACCESS_REMOTE_WRITE } },
	};
	is(sroce_post_send(&fq.qp->vqp.qp, &wr, &bad), 0, "mw: BIND_MW posts");
	w = sq_wqe(&fq, 0);
	ok(w->opcode == IBV_WR_BIND_MW && w->wr_id == 1 && !w->num_sge &&
	   w->wr.bind.mw_rkey == 0x80000105 &&
	   w->wr.bind.new_rkey == 0x80000106 && w->wr.bind.mr_lkey == 0x1234 &&
	   w->wr.bind.addr == 0x5000 && w->wr.bind.length == 0x300 &&
	   w->wr.bind.access == IBV_ACCESS_REMOTE_WRITE &&
	   wqe_rest_zero(w, sizeof(w->wr.bind)),
	   "mw: ... its WQE: keys, range, rights, no SGE");
	wr.bind_mw.bind_info.mr = NULL;
	post_one_expect(&fq, &wr, EINVAL, "mw: a range without an MR");
	wr.bind_mw.bind_info.mr = &mr;
	wr.bind_mw.bind_info.mw_access_flags |= IBV_ACCESS_ZERO_BASED;
	post_one_expect(&fq, &wr, EINVAL, "mw: zero-based window");
	wr.bind_mw.mw = NULL;
	post_one_expect(&fq, &wr, EINVAL, "mw: no window");
	wr = (struct ibv_send_wr){ .wr_id = 2, .opcode = IBV_WR_LOCAL_INV,
				   .invalidate_rkey = 0x80000106 };
	is(sroce_post_send(&fq.qp->vqp.qp, &wr, &bad), 0, "mw: LOCAL_INV posts");
	w = sq_wqe(&fq, 1);
	ok(w->opcode == IBV_WR_LOCAL_INV && w->imm_data == 0x80000106 &&
	   !w->num_sge && wqe_rest_zero(w, 0), "mw: ... rkey in imm_data");
	wr = (struct ibv_send_wr){ .wr_id = 3, .opcode = IBV_WR_SEND_WITH_INV,
				   .sg_list = &sg, .num_sge = 1,
				   .invalidate_rkey = 0x80000107 };
	is(sroce_post_send(&fq.qp->vqp.qp, &wr, &bad), 0,
	   "mw: SEND_WITH_INV posts");
	w = sq_wqe(&fq, 2);
	ok(w->opcode == IBV_WR_SEND_WITH_INV && w->imm_data == 0x80000107 &&
	   w->num_sge == 1 && sge_is((struct sroce_sge *)(w + 1), &sg),
	   "mw: ... rkey in imm_data, its SGE");

	x = ibv_qp_to_qp_ex(&fq.qp->vqp.qp);
	ibv_wr_start(x);
	x->wr_id = 10;
	x->wr_flags = IBV_SEND_SIGNALED;
	ibv_wr_bind_mw(x, &mw, 0x80000107, &(struct ibv_mw_bind_info){
		       .mr = &mr, .addr = 0x6000, .length = 0x10,
		       .mw_access_flags = IBV_ACCESS_REMOTE_READ });
	x->wr_id = 11;
	ibv_wr_local_inv(x, 0x80000107);
	x->wr_id = 12;
	ibv_wr_send_inv(x, 0x80000108);
	ibv_wr_set_sge(x, 1, 0x2000, 4);
	is(ibv_wr_complete(x), 0, "mw: qp_ex bind, local_inv, send_inv");
	w = sq_wqe(&fq, 3);
	ok(w->opcode == IBV_WR_BIND_MW && w->wr_id == 10 &&
	   w->wr.bind.new_rkey == 0x80000107 && w->wr.bind.addr == 0x6000 &&
	   w->wr.bind.length == 0x10 &&
	   w->wr.bind.access == IBV_ACCESS_REMOTE_READ,
	   "mw: ... wr_bind_mw's WQE");
	ok(sq_wqe(&fq, 4)->opcode == IBV_WR_LOCAL_INV &&
	   sq_wqe(&fq, 4)->imm_data == 0x80000107 &&
	   sq_wqe(&fq, 5)->opcode == IBV_WR_SEND_WITH_INV &&
	   sq_wqe(&fq, 5)->imm_data == 0x80000108 &&
	   sq_wqe(&fq, 5)->num_sge == 1, "mw: ... wr_local_inv's, wr_send_inv's");
	ibv_wr_start(x);
	ibv_wr_bind_mw(x, NULL, 1, &(struct ibv_mw_bind_info){ 0 });
	is(ibv_wr_complete(x), EINVAL, "mw: qp_ex bind without a window: EINVAL");
	fake_qp_free(&fq);

	/* UC: no memory windows. */
	fake_qp_init(&fq, IBV_QPT_UC, 8, &small_caps, sq_stride(4, 64), 0);
	wr = (struct ibv_send_wr){ .opcode = IBV_WR_LOCAL_INV };
	post_one_expect(&fq, &wr, EINVAL, "mw: LOCAL_INV on UC");
	fake_qp_free(&fq);
}

int main(void)
{
	static const uint32_t starts[] = { 0, 0xfffffffc };
	size_t i;

	setvbuf(stdout, NULL, _IOLBF, 0);
	tap_start();
	test_ring_info_check();
	for (i = 0; i < ARRAY_SIZE(starts); i++) {
		test_ring_producer(starts[i]);
		test_ring_consumer(starts[i]);
	}
	test_ring_kick();
	for (i = 0; i < ARRAY_SIZE(starts); i++) {
		test_cq_poll(starts[i]);
		test_cq_ex(starts[i]);
		test_cq_clean(starts[i]);
	}
	test_qp_caps();
	for (i = 0; i < ARRAY_SIZE(starts); i++) {
		test_post_send_opcodes(starts[i]);
		test_qp_ex(starts[i]);
		test_post_recv(starts[i]);
	}
	test_post_send_inline();
	test_post_send_errors();
	test_post_send_mw();
	test_atomic_write();
	test_qp_state();
	test_sq_race();
	test_cq_race();
	return tap_done();
}
