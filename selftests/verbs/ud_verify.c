// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * ud_verify - UD semantics, checked one by one.
 *
 *   ud_verify -d DEV1 [-D DEV2] [-g GIDIDX] [-G GIDIDX2]
 *
 * A UD QP on DEV1 sends to UD QPs on DEV2 (DEV1 by default: loopback),
 * all in this process, through AHs.  Checked, as TAP:
 *
 *  - messages of 0, 1, odd and MTU bytes, from SGEs and inline, with and
 *    without immediate data: byte_len is 40 + length, the payload lands
 *    after the 40-byte GRH area, src_qp is the sender's QPN, IBV_WC_GRH;
 *  - the GRH area: for an IPv4 GID 20 zero bytes then the IPv4 header
 *    (version, protocol UDP, both addresses); for IPv6 the IPv6 header
 *    with both GIDs;
 *  - a WR Q_Key with the high bit set means the sender QP's Q_Key;
 *  - a wrong Q_Key is dropped and counted (rx_bad_qkey), the sender
 *    completes anyway;
 *  - no receive WQE: dropped and counted (rx_ud_no_wqe);
 *  - a receive WQE too small: IBV_WC_LOC_LEN_ERR, the QP goes on;
 *  - a message larger than the MTU: IBV_WC_LOC_LEN_ERR, the QP in SQE
 *    flushes what follows, and SQE -> RTS sends again;
 *  - a UD QP on an SRQ receives from it;
 *  - a burst of sends arrives complete and in order.
 *
 *   ud_verify -d DEV1 [-D DEV2] ... -n COUNT [-a]
 *
 * Stream mode, for a path with faults (selftests/vm/49-faults.sh): COUNT
 * messages of up to 1 KiB, each numbered and patterned, at most 32 ahead
 * of what arrived.  UD may lose or (netem) duplicate a message; it must
 * never deliver one that differs by a byte, or one never sent.  With -a
 * (a clean path) every message must arrive, once.
 */
#include <arpa/inet.h>
#include <errno.h>
#include <getopt.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include <infiniband/verbs.h>

#include "common.h"

#define QKEY		0x11111111u
#define GRH		40
#define SLOT		4096	/* bytes per receive buffer */
#define NSLOT		64
#define BURST		48


struct side {
	const char *dev;
	struct ibv_context *ctx;
	struct ibv_pd *pd;
	struct ibv_cq *cq;
	struct ibv_mr *mr;
	uint8_t *buf;
	union ibv_gid gid;
	int gidx;
	uint32_t mtu;
};

static struct side snd, rcv;
static struct ibv_qp *sqp, *rqp, *srq_qp;
static struct ibv_srq *srq;
static struct ibv_ah *ah;		/* sender -> receiver */

static int side_init(struct side *s, const char *dev, int gidx)
{
	struct ibv_port_attr pa;

	s->dev = dev;
	s->ctx = open_dev(dev);
	if (!s->ctx)
		return ENODEV;
	s->gidx = gidx;
	if (ibv_query_gid(s->ctx, 1, gidx, &s->gid) ||
	    ibv_query_port(s->ctx, 1, &pa))
		return errno;
	s->mtu = 128U << pa.active_mtu;
	s->pd = ibv_alloc_pd(s->ctx);
	s->cq = s->pd ? ibv_create_cq(s->ctx, 256, NULL, NULL, 0) : NULL;
	s->buf = calloc(NSLOT, SLOT);
	if (!s->cq || !s->buf)
		return ENOMEM;
	s->mr = ibv_reg_mr(s->pd, s->buf, NSLOT * SLOT, IBV_ACCESS_LOCAL_WRITE);
	return s->mr ? 0 : errno;
}

static struct ibv_qp *ud_qp(struct side *s, struct ibv_srq *on)
{
	struct ibv_qp_init_attr a = {
		.send_cq = s->cq, .recv_cq = s->cq, .srq = on,
		.cap = { .max_send_wr = 64, .max_recv_wr = on ? 0 : 64,
			 .max_send_sge = 2, .max_recv_sge = on ? 0 : 2,
			 .max_inline_data = 64 },
		.qp_type = IBV_QPT_UD, .sq_sig_all = 1,
	};
	struct ibv_qp_attr m = {
		.qp_state = IBV_QPS_INIT, .port_num = 1, .qkey = QKEY,
	};
	struct ibv_qp *qp = ibv_create_qp(s->pd, &a);

	if (!qp)
		return NULL;
	if (ibv_modify_qp(qp, &m, IBV_QP_STATE | IBV_QP_PKEY_INDEX |
			  IBV_QP_PORT | IBV_QP_QKEY))
		goto err;
	m.qp_state = IBV_QPS_RTR;
	if (ibv_modify_qp(qp, &m, IBV_QP_STATE))
		goto err;
	m.qp_state = IBV_QPS_RTS;
	m.sq_psn = 0x123;
	if (ibv_modify_qp(qp, &m, IBV_QP_STATE | IBV_QP_SQ_PSN))
		goto err;
	return qp;
err:
	diag("modify UD QP: %s", strerror(errno));
	ibv_destroy_qp(qp);
	return NULL;
}

static uint64_t hw_counter(const struct side *s, const char *name)
{
	char path[256];
	unsigned long long v = 0;
	FILE *f;

	/* ib_core serves a cached copy younger than its lifespan (10 ms). */
	usleep(50000);
	snprintf(path, sizeof(path),
		 "/sys/class/infiniband/%s/ports/1/hw_counters/%s", s->dev,
		 name);
	f = fopen(path, "r");
	if (!f)
		return ~0ULL;
	if (fscanf(f, "%llu", &v) != 1)
		v = ~0ULL;
	fclose(f);
	return v;
}

static int post_recv_to(struct ibv_qp *qp, unsigned int slot, uint32_t len)
{
	struct ibv_sge sge = {
		.addr = (uintptr_t)(rcv.buf + slot * SLOT), .length = len,
		.lkey = rcv.mr->lkey,
	};
	struct ibv_recv_wr wr = { .wr_id = slot, .sg_list = &sge,
				  .num_sge = 1 }, *bad;

	memset(rcv.buf + slot * SLOT, 0xee, SLOT);
	if (qp)
		return ibv_post_recv(qp, &wr, &bad);
	return ibv_post_srq_recv(srq, &wr, &bad);
}

static uint8_t pat(unsigned int k, unsigned int i)
{
	return (uint8_t)(k * 13 + i * 5 + 7);
}

struct msg {
	unsigned int k;		/* pattern */
	uint32_t len;
	bool inl, imm;
	uint32_t qkey;
	uint32_t dqpn;
};

/* Post one send and wait for its completion; returns its status. */
static int send_msg(const struct msg *m)
{
	uint8_t *p = snd.buf + (m->k % NSLOT) * SLOT;
	struct ibv_sge sge[2];
	struct ibv_send_wr wr = {
		.wr_id = m->k, .sg_list = sge, .num_sge = m->len ? 2 : 0,
		.opcode = m->imm ? IBV_WR_SEND_WITH_IMM : IBV_WR_SEND,
		.send_flags = m->inl ? IBV_SEND_INLINE : 0,
		.imm_data = htonl(0xabc000 + m->k),
	}, *bad;
	struct ibv_wc wc;
	uint32_t i, half = m->len / 2;

	for (i = 0; i < m->len; i++)
		p[i] = pat(m->k, i);
	/* Two SGEs: the first half, then the rest. */
	sge[0] = (struct ibv_sge){ (uintptr_t)p, half, snd.mr->lkey };
	sge[1] = (struct ibv_sge){ (uintptr_t)p + half, m->len - half,
				   snd.mr->lkey };
	wr.wr.ud.ah = ah;
	wr.wr.ud.remote_qpn = m->dqpn;
	wr.wr.ud.remote_qkey = m->qkey;
	if (ibv_post_send(sqp, &wr, &bad))
		return -1;
	if (poll_one_ms(snd.cq, &wc, 5000)) {
		diag("message %u: no send completion", m->k);
		return -1;
	}
	if (wc.wr_id != m->k)
		diag("message %u: send completion for wr_id %llu", m->k,
		     (unsigned long long)wc.wr_id);
	return wc.status;
}

static bool grh_ok(const uint8_t *g)
{
	bool v4 = !memcmp(snd.gid.raw, "\0\0\0\0\0\0\0\0\0\0\xff\xff", 12);
	static const uint8_t zero[20];

	if (v4) {
		if (memcmp(g, zero, 20) || g[20] != 0x45 || g[29] != 17 ||
		    memcmp(g + 32, snd.gid.raw + 12, 4) ||
		    memcmp(g + 36, rcv.gid.raw + 12, 4)) {
			diag("IPv4 GRH: version/ihl %#x proto %u", g[20], g[29]);
			return false;
		}
		return true;
	}
	if ((g[0] >> 4) != 6 || g[6] != 17 || memcmp(g + 8, snd.gid.raw, 16) ||
	    memcmp(g + 24, rcv.gid.raw, 16)) {
		diag("IPv6 GRH: version %u next header %u", g[0] >> 4, g[6]);
		return false;
	}
	return true;
}

/* The receive of @m in WQE @slot on @qp's CQ. */
static bool recv_ok(const struct msg *m, unsigned int slot, uint32_t src_qp)
{
	const uint8_t *p = rcv.buf + slot * SLOT;
	struct ibv_wc wc;
	uint32_t i;

	if (poll_one_ms(rcv.cq, &wc, 5000)) {
		diag("message %u: no receive completion", m->k);
		return false;
	}
	if (wc.status != IBV_WC_SUCCESS || wc.opcode != IBV_WC_RECV ||
	    wc.wr_id != slot || wc.byte_len != GRH + m->len ||
	    wc.src_qp != src_qp || !(wc.wc_flags & IBV_WC_GRH) ||
	    !!(wc.wc_flags & IBV_WC_WITH_IMM) != m->imm ||
	    (m->imm && wc.imm_data != htonl(0xabc000 + m->k))) {
		diag("message %u: status %s opcode %d wr_id %llu len %u (want %u) src_qp %u (want %u) flags %#x",
		     m->k, ibv_wc_status_str(wc.status), wc.opcode,
		     (unsigned long long)wc.wr_id, wc.byte_len, GRH + m->len,
		     wc.src_qp, src_qp, wc.wc_flags);
		return false;
	}
	for (i = 0; i < m->len; i++) {
		if (p[GRH + i] != pat(m->k, i)) {
			diag("message %u: byte %u is %#x, want %#x", m->k, i,
			     p[GRH + i], pat(m->k, i));
			return false;
		}
	}
	if (p[GRH + m->len] != 0xee) {
		diag("message %u: byte after the payload was written", m->k);
		return false;
	}
	return grh_ok(p);
}

static bool xfer(struct msg *m)
{
	unsigned int slot = m->k % NSLOT;

	m->dqpn = rqp->qp_num;
	if (!m->qkey)
		m->qkey = QKEY;
	return !post_recv_to(rqp, slot, SLOT) && send_msg(m) == 0 &&
	       recv_ok(m, slot, sqp->qp_num);
}

static void test_sizes(void)
{
	uint32_t sizes[] = { 0, 1, 37, 1000, snd.mtu };
	unsigned int i, k = 1;
	struct msg m;
	bool ok;

	for (i = 0; i < sizeof(sizes) / sizeof(sizes[0]); i++) {
		m = (struct msg){ .k = k++, .len = sizes[i] };
		tap(xfer(&m), "%u bytes: GRH area, payload, byte_len, src_qp",
		    sizes[i]);
	}
	m = (struct msg){ .k = k++, .len = 50, .imm = true };
	tap(xfer(&m), "SEND with immediate");
	m = (struct msg){ .k = k++, .len = 60, .inl = true };
	tap(xfer(&m), "inline SEND");
	m = (struct msg){ .k = k++, .len = 10, .qkey = 0x80000000u };
	tap(xfer(&m), "a WR Q_Key with the high bit set uses the QP's Q_Key");
	for (i = 0, ok = true; i < 4 && ok; i++) {
		m = (struct msg){ .k = k++, .len = 100 + i };
		ok = xfer(&m);
	}
	tap(ok, "more messages on the same AH");
}

static void test_drops(void)
{
	uint64_t before = hw_counter(&rcv, "rx_bad_qkey");
	struct msg m = { .k = 20, .len = 8, .qkey = QKEY + 1 };
	struct ibv_wc wc;
	bool ok;

	m.dqpn = rqp->qp_num;
	tap(!post_recv_to(rqp, 20, SLOT) && send_msg(&m) == 0,
	    "a send with a wrong Q_Key completes at the sender");
	tap(poll_one_ms(rcv.cq, &wc, 300), "... and is not received");
	tap(hw_counter(&rcv, "rx_bad_qkey") == before + 1,
	    "... and is counted in rx_bad_qkey");
	/* The WQE posted above is still there: the next message takes it. */
	m = (struct msg){ .k = 21, .len = 9, .qkey = QKEY, .dqpn = rqp->qp_num };
	tap(send_msg(&m) == 0 && recv_ok(&m, 20, sqp->qp_num),
	    "the receive WQE the dropped message did not take gets the next");

	before = hw_counter(&rcv, "rx_ud_no_wqe");
	m = (struct msg){ .k = 22, .len = 9, .qkey = QKEY, .dqpn = rqp->qp_num };
	tap(send_msg(&m) == 0 && poll_one_ms(rcv.cq, &wc, 300) &&
	    hw_counter(&rcv, "rx_ud_no_wqe") == before + 1,
	    "no receive WQE: dropped and counted in rx_ud_no_wqe");

	m = (struct msg){ .k = 23, .len = 100, .qkey = QKEY,
			  .dqpn = rqp->qp_num };
	wc.status = IBV_WC_GENERAL_ERR;
	ok = !post_recv_to(rqp, 23, GRH + 50) && send_msg(&m) == 0 &&
	     !poll_one_ms(rcv.cq, &wc, 3000);
	tap(ok && wc.status == IBV_WC_LOC_LEN_ERR,
	    "a receive WQE too small: IBV_WC_LOC_LEN_ERR (got %s)",
	    ibv_wc_status_str(wc.status));
	m = (struct msg){ .k = 24, .len = 33 };
	tap(xfer(&m), "the receiving QP goes on after it");
}

static enum ibv_qp_state qp_state(struct ibv_qp *qp)
{
	struct ibv_qp_attr a;
	struct ibv_qp_init_attr i;

	if (ibv_query_qp(qp, &a, IBV_QP_STATE, &i))
		return -1;
	return a.qp_state;
}

static void test_too_long(void)
{
	struct msg m = { .k = 30, .len = snd.mtu + 1, .qkey = QKEY,
			 .dqpn = rqp->qp_num };
	struct ibv_qp_attr a = { .qp_state = IBV_QPS_RTS,
				 .cur_qp_state = IBV_QPS_SQE };
	int st;

	st = send_msg(&m);
	tap(st == IBV_WC_LOC_LEN_ERR, "MTU + 1 bytes: IBV_WC_LOC_LEN_ERR (got %s)",
	    st < 0 ? "nothing" : ibv_wc_status_str(st));
	tap(qp_state(sqp) == IBV_QPS_SQE, "the QP is in SQE (state %d)",
	    qp_state(sqp));
	m = (struct msg){ .k = 31, .len = 8, .qkey = QKEY, .dqpn = rqp->qp_num };
	st = send_msg(&m);
	tap(st == IBV_WC_WR_FLUSH_ERR, "in SQE a send is flushed (got %s)",
	    st < 0 ? "nothing" : ibv_wc_status_str(st));
	tap(!ibv_modify_qp(sqp, &a, IBV_QP_STATE | IBV_QP_CUR_STATE),
	    "SQE -> RTS");
	m = (struct msg){ .k = 32, .len = 64 };
	tap(xfer(&m), "sending works again");
}

static void test_srq(void)
{
	struct ibv_srq_init_attr sa = { .attr = { .max_wr = 16, .max_sge = 1 } };
	struct msg m = { .k = 40, .len = 77, .qkey = QKEY };

	srq = ibv_create_srq(rcv.pd, &sa);
	srq_qp = srq ? ud_qp(&rcv, srq) : NULL;
	tap(srq_qp != NULL, "a UD QP on an SRQ (errno %d)", errno);
	if (!srq_qp)
		return;
	m.dqpn = srq_qp->qp_num;
	tap(!post_recv_to(NULL, 40, SLOT) && send_msg(&m) == 0 &&
	    recv_ok(&m, 40, sqp->qp_num), "a UD QP receives from its SRQ");
}

static void test_burst(void)
{
	struct ibv_send_wr wr[BURST], *bad;
	struct ibv_sge sge[BURST];
	struct ibv_wc wc;
	unsigned int i, got = 0;
	bool ok = true;

	for (i = 0; i < BURST; i++) {
		ok &= !post_recv_to(rqp, i, SLOT);
		memset(snd.buf + i * SLOT, i, 200);
		sge[i] = (struct ibv_sge){ (uintptr_t)(snd.buf + i * SLOT),
					   200, snd.mr->lkey };
		wr[i] = (struct ibv_send_wr){
			.wr_id = i, .sg_list = &sge[i], .num_sge = 1,
			.opcode = IBV_WR_SEND,
			.next = i + 1 < BURST ? &wr[i + 1] : NULL,
		};
		wr[i].wr.ud.ah = ah;
		wr[i].wr.ud.remote_qpn = rqp->qp_num;
		wr[i].wr.ud.remote_qkey = QKEY;
	}
	ok &= !ibv_post_send(sqp, wr, &bad);
	for (i = 0; i < BURST && ok; i++)
		ok = !poll_one_ms(snd.cq, &wc, 5000) && wc.status == IBV_WC_SUCCESS;
	for (i = 0; i < BURST && ok; i++) {
		ok = !poll_one_ms(rcv.cq, &wc, 5000) &&
		     wc.status == IBV_WC_SUCCESS && wc.wr_id == i &&
		     rcv.buf[i * SLOT + GRH + 199] == (uint8_t)i;
		got += ok;
	}
	tap(ok, "a burst of %d sends arrives complete and in order (%u)",
	    BURST, got);
}

/* Stream mode: the message with sequence number @seq, @len bytes. */
static void stream_fill(uint8_t *p, uint32_t seq, uint32_t len)
{
	uint32_t i;

	memcpy(p, &seq, sizeof(seq));
	for (i = sizeof(seq); i < len; i++)
		p[i] = pat(seq, i);
}

struct stream {
	uint32_t count, len;
	uint32_t sent, recvd, intact, dups, bad;
	uint8_t *seen;
};

/* A receive completion: check the message, repost the slot. */
static void stream_recv(struct stream *st, const struct ibv_wc *wc)
{
	uint8_t want[SLOT];
	const uint8_t *p = rcv.buf + wc->wr_id * SLOT + GRH;
	uint32_t seq;

	st->recvd++;
	memcpy(&seq, p, sizeof(seq));
	if (wc->status != IBV_WC_SUCCESS || wc->byte_len != GRH + st->len ||
	    seq >= st->count) {
		if (st->bad++ < 5)
			diag("bad message: status %s, byte_len %u, seq %u",
			     ibv_wc_status_str(wc->status), wc->byte_len, seq);
	} else {
		stream_fill(want, seq, st->len);
		if (memcmp(p, want, st->len)) {
			if (st->bad++ < 5)
				diag("message %u differs", seq);
		} else if (st->seen[seq]++) {
			st->dups++;
		} else {
			st->intact++;
		}
	}
	post_recv_to(rqp, wc->wr_id, SLOT);
}

/* Wait up to @ms for receives; true if one came. */
static bool stream_drain(struct stream *st, int ms)
{
	struct ibv_wc wc[16];
	struct timespec t0;
	int n, i;
	bool got = false;

	clock_gettime(CLOCK_MONOTONIC, &t0);
	do {
		n = ibv_poll_cq(rcv.cq, 16, wc);
		for (i = 0; i < n; i++)
			stream_recv(st, &wc[i]);
		got |= n > 0;
		/* Send completions: just reaped (sq_sig_all). */
		while (ibv_poll_cq(snd.cq, 16, wc) > 0)
			;
	} while (!got && ms_since(&t0) < ms);
	return got;
}

static void test_stream(uint32_t count, bool all)
{
	struct stream st = { .count = count, .len = 1024 };
	struct ibv_send_wr wr, *bad;
	struct ibv_sge sge;
	uint32_t lost = 0, i;
	bool posted = true;

	if (st.len > snd.mtu)
		st.len = snd.mtu;
	st.seen = calloc(count, 1);
	for (i = 0; i < NSLOT; i++)
		posted &= !post_recv_to(rqp, i, SLOT);
	while (posted && st.sent < count) {
		/* Paced: never more than 32 in flight, lost ones written off. */
		if (st.sent - st.recvd - lost >= 32 && !stream_drain(&st, 20))
			lost = st.sent - st.recvd;
		if (st.sent - st.recvd - lost >= 32)
			continue;
		stream_fill(snd.buf + (st.sent % NSLOT) * SLOT, st.sent, st.len);
		sge = (struct ibv_sge){ (uintptr_t)(snd.buf + (st.sent % NSLOT) * SLOT),
					st.len, snd.mr->lkey };
		wr = (struct ibv_send_wr){ .wr_id = st.sent, .sg_list = &sge,
					   .num_sge = 1, .opcode = IBV_WR_SEND };
		wr.wr.ud.ah = ah;
		wr.wr.ud.remote_qpn = rqp->qp_num;
		wr.wr.ud.remote_qkey = QKEY;
		if (ibv_post_send(sqp, &wr, &bad)) {
			stream_drain(&st, 1);
			continue;
		}
		st.sent++;
		stream_drain(&st, 0);
	}
	/* Stragglers (netem delays), until 1 s passes without one. */
	while (stream_drain(&st, 1000))
		;
	diag("%u sent, %u received: %u intact, %u duplicates, %u bad",
	     st.sent, st.recvd, st.intact, st.dups, st.bad);
	tap(posted && !st.bad && st.intact > 0,
	    "UD stream: %u x %u B, every message delivered intact (%u of them)",
	    count, st.len, st.intact);
	if (all)
		tap(st.intact == count && !st.dups,
		    "UD stream on a clean path: all %u arrive, once", count);
	free(st.seen);
}

static int setup(void)
{
	struct ibv_ah_attr aa = { .is_global = 1, .port_num = 1 };
	int err;

	err = side_init(&snd, dev_name[0], gid_idx[0]);
	if (!err)
		err = side_init(&rcv, dev_name[1], gid_idx[1]);
	if (err) {
		diag("setup: %s", strerror(err));
		return err;
	}
	if (snd.mtu > SLOT - GRH - 1)
		snd.mtu = SLOT - GRH - 1;
	sqp = ud_qp(&snd, NULL);
	rqp = ud_qp(&rcv, NULL);
	tap(sqp && rqp, "two UD QPs to RTS (errno %d)", errno);
	if (!sqp || !rqp)
		return errno;
	aa.grh.dgid = rcv.gid;
	aa.grh.sgid_index = snd.gidx;
	aa.grh.hop_limit = 64;
	ah = ibv_create_ah(snd.pd, &aa);
	tap(ah != NULL, "create_ah to the receiver's GID (errno %d)", errno);
	return ah ? 0 : errno;
}

int main(int argc, char **argv)
{
	uint32_t stream = 0;
	bool all = false;
	int c;

	while ((c = getopt(argc, argv, "d:D:g:G:n:a")) != -1) {
		if (dev_opt(c, optarg))
			continue;
		switch (c) {
		case 'n':
			stream = strtoul(optarg, NULL, 0);
			break;
		case 'a':
			all = true;
			break;
		default:
			fprintf(stderr, "usage: %s -d DEV [-D DEV2] [-g GIDX] [-G GIDX2] [-n COUNT [-a]]\n",
				argv[0]);
			return 2;
		}
	}
	if (!dev_opts_done())
		return 2;

	if (setup()) {
		printf("1..%d\n", tap_n);
		return 1;
	}
	if (stream) {
		test_stream(stream, all);
		printf("1..%d\n", tap_n);
		return tap_failed ? 1 : 0;
	}
	test_sizes();
	test_drops();
	test_too_long();
	test_srq();
	test_burst();
	tap(!ibv_destroy_ah(ah), "destroy_ah");
	printf("1..%d\n", tap_n);
	return tap_failed ? 1 : 0;
}
