// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * lfn_write - stream RC RDMA WRITEs between two hosts, sleeping on the
 * completion channel instead of spinning, and check every byte.
 *
 *   lfn_write -d DEV -x GIDIDX [-s SIZE] [-n ITERS] [-w DEPTH] [-p PORT]
 *             [SERVER]
 *
 * Without SERVER it waits for a client on TCP PORT (18515); with it, it
 * connects there and sends.  The two exchange QP number, PSN, GID and
 * the target buffer over that socket, as perftest does.
 *
 * Why not ib_write_bw: perftest busy-polls the CQ for WRITE ("Events
 * feature not available on WRITE verb").  In a TCG guest a spinning vCPU
 * takes a host core that the transfer itself (both VMs' kernels) needs,
 * so on a two-core host the benchmark measures the poll loop as much as
 * the path.  iperf3 sleeps; so does this.
 *
 * Each message is a WRITE WITH IMMEDIATE of SIZE bytes (IMM = its
 * sequence number) into the next of 2 * DEPTH + 1 slots of the server's
 * buffer.  Its first and last 8 bytes hold the sequence number, the rest
 * one of DEPTH pseudo-random patterns (that of its source slot).  The
 * server checks each message in full when its completion arrives, then
 * tells the client over the socket how many it has checked, and the
 * client reuses a slot only after that: a lost, stale or misplaced byte
 * fails the run.  (With 2 * DEPTH + 1 slots, a slot's previous message
 * came from another source slot, so its pattern differs.)
 *
 * Prints one line, "lfn_write: N messages of S bytes, T s, R Mbit/s"
 * (the client's send-to-last-completion time), and exits 0 only if every
 * message arrived intact.
 */
#include <arpa/inet.h>
#include <errno.h>
#include <inttypes.h>
#include <netdb.h>
#include <poll.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>
#include <sys/socket.h>

#include <infiniband/verbs.h>

#include "common.h"	/* selftests/verbs: open_dev(), rc_connect_to() */

struct wire_info {		/* what the ends exchange, network order */
	uint32_t qpn;
	uint32_t psn;
	uint32_t rkey;
	uint32_t mtu;
	uint64_t addr;
	uint8_t gid[16];
};

struct ctx {
	struct ibv_context *dev;
	struct ibv_pd *pd;
	struct ibv_comp_channel *ch;
	struct ibv_cq *cq;
	struct ibv_qp *qp;
	struct ibv_mr *mr;
	uint8_t *buf;
	uint8_t *pat;		/* DEPTH patterns of SIZE bytes */
	size_t size;
	unsigned int depth, slots;
	int port_num;
	int sock;
};

static void die(const char *what)
{
	fprintf(stderr, "lfn_write: %s: %s\n", what, strerror(errno));
	exit(2);
}

static void fail(const char *fmt, unsigned long long a, unsigned long long b)
{
	fprintf(stderr, "lfn_write: ");
	fprintf(stderr, fmt, a, b);
	fputc('\n', stderr);
	exit(1);
}

/* Pattern @i: xorshift64 from a seed of its own. */
static void fill_pattern(uint8_t *p, size_t n, unsigned int i)
{
	uint64_t x = 0x9e3779b97f4a7c15ULL * (i + 1);
	size_t k;

	for (k = 0; k + 8 <= n; k += 8) {
		x ^= x << 13;
		x ^= x >> 7;
		x ^= x << 17;
		memcpy(p + k, &x, 8);
	}
	for (; k < n; k++)
		p[k] = (uint8_t)(x >> (8 * (k & 7)));
}

static void setup(struct ctx *c, bool server)
{
	struct ibv_qp_init_attr qa = {
		.qp_type = IBV_QPT_RC,
		.cap = { .max_send_wr = c->depth, .max_recv_wr = c->slots,
			 .max_send_sge = 1, .max_recv_sge = 1 },
	};
	size_t len = c->size * (server ? c->slots : c->depth);
	unsigned int i;

	c->pd = ibv_alloc_pd(c->dev);
	c->ch = ibv_create_comp_channel(c->dev);
	if (!c->pd || !c->ch)
		die("ibv_alloc_pd/ibv_create_comp_channel");
	c->cq = ibv_create_cq(c->dev, c->depth + c->slots, NULL, c->ch, 0);
	if (!c->cq)
		die("ibv_create_cq");
	qa.send_cq = c->cq;
	qa.recv_cq = c->cq;
	c->qp = ibv_create_qp(c->pd, &qa);
	if (!c->qp)
		die("ibv_create_qp");
	if (posix_memalign((void **)&c->buf, 4096, len) ||
	    posix_memalign((void **)&c->pat, 4096, c->size * c->depth))
		die("posix_memalign");
	memset(c->buf, 0, len);
	for (i = 0; i < c->depth; i++)
		fill_pattern(c->pat + i * c->size, c->size, i);
	/* A source slot's pattern never changes: only its ends do. */
	if (!server)
		memcpy(c->buf, c->pat, len);
	c->mr = ibv_reg_mr(c->pd, c->buf, len, IBV_ACCESS_LOCAL_WRITE |
			   IBV_ACCESS_REMOTE_WRITE);
	if (!c->mr)
		die("ibv_reg_mr");
}

static void xfer(int fd, void *p, size_t n, bool out)
{
	uint8_t *b = p;

	while (n) {
		ssize_t r = out ? write(fd, b, n) : read(fd, b, n);

		if (r <= 0) {
			if (r < 0 && errno == EINTR)
				continue;
			errno = r ? errno : ECONNRESET;
			die("socket");
		}
		b += r;
		n -= (size_t)r;
	}
}

static int tcp_open(const char *host, const char *port)
{
	struct addrinfo hints = { .ai_socktype = SOCK_STREAM,
				  .ai_flags = host ? 0 : AI_PASSIVE };
	struct addrinfo *ai;
	int fd, one = 1, lfd;

	if (getaddrinfo(host, port, &hints, &ai))
		die("getaddrinfo");
	fd = socket(ai->ai_family, SOCK_STREAM, 0);
	if (fd < 0)
		die("socket");
	if (host) {
		int tries;

		/* The server may still be starting: retry for 30 s. */
		for (tries = 0; connect(fd, ai->ai_addr, ai->ai_addrlen); tries++) {
			if (tries == 300)
				die("connect");
			usleep(100000);
		}
		freeaddrinfo(ai);
		return fd;
	}
	setsockopt(fd, SOL_SOCKET, SO_REUSEADDR, &one, sizeof(one));
	if (bind(fd, ai->ai_addr, ai->ai_addrlen) || listen(fd, 1))
		die("bind/listen");
	freeaddrinfo(ai);
	lfd = fd;
	fd = accept(lfd, NULL, NULL);
	if (fd < 0)
		die("accept");
	close(lfd);
	return fd;
}

static void connect_qp(struct ctx *c, int gid_idx, struct wire_info *peer)
{
	struct ibv_port_attr pa;
	struct wire_info me = { 0 };
	union ibv_gid gid;
	struct rc_peer p = { .sgid_idx = gid_idx, .dest_rd_atomic = 1,
			     .rd_atomic = 1 };

	p.my_psn = (uint32_t)(lrand48() & 0xffffff);
	if (ibv_query_port(c->dev, (uint8_t)c->port_num, &pa) ||
	    ibv_query_gid(c->dev, (uint8_t)c->port_num, gid_idx, &gid))
		die("ibv_query_port/gid");
	me.qpn = htonl(c->qp->qp_num);
	me.psn = htonl(p.my_psn);
	me.rkey = htonl(c->mr->rkey);
	me.mtu = htonl(pa.active_mtu);
	me.addr = htobe64((uintptr_t)c->buf);
	memcpy(me.gid, gid.raw, 16);
	xfer(c->sock, &me, sizeof(me), true);
	xfer(c->sock, peer, sizeof(*peer), false);

	p.qpn = ntohl(peer->qpn);
	p.psn = ntohl(peer->psn);
	p.mtu = ntohl(peer->mtu) < pa.active_mtu ? ntohl(peer->mtu) :
		pa.active_mtu;
	memcpy(p.gid.raw, peer->gid, 16);
	/* RESET to RTS as the verbs tests connect: timeout 14, 7 retries. */
	if (rc_connect_to(c->qp, &p)) {
		fprintf(stderr, "lfn_write: cannot connect the QP\n");
		exit(2);
	}
}

/* Sleep until the CQ has news (or @fd, if >= 0, is readable). */
static void wait_cq(struct ctx *c, int fd)
{
	struct pollfd p[2] = {
		{ .fd = c->ch->fd, .events = POLLIN },
		{ .fd = fd, .events = POLLIN },
	};
	struct ibv_cq *cq;
	void *cq_ctx;

	if (poll(p, fd >= 0 ? 2 : 1, 60000) <= 0)
		die("nothing for 60 s");
	if (!(p[0].revents & POLLIN))
		return;
	if (ibv_get_cq_event(c->ch, &cq, &cq_ctx))
		die("ibv_get_cq_event");
	ibv_ack_cq_events(cq, 1);
	if (ibv_req_notify_cq(cq, 0))
		die("ibv_req_notify_cq");
}

static bool readable(int fd)
{
	struct pollfd p = { .fd = fd, .events = POLLIN };

	return poll(&p, 1, 0) == 1;
}

static void post_recv(struct ctx *c)
{
	struct ibv_recv_wr wr = { 0 }, *bad;

	if (ibv_post_recv(c->qp, &wr, &bad))
		die("ibv_post_recv");
}

/* Message @seq in slot @slot: its sequence number, then its pattern. */
static void check_msg(const struct ctx *c, uint64_t seq, unsigned int slot)
{
	const uint8_t *m = c->buf + (size_t)slot * c->size;
	const uint8_t *pat = c->pat + (seq % c->depth) * c->size;
	uint64_t head, tail;

	memcpy(&head, m, 8);
	memcpy(&tail, m + c->size - 8, 8);
	if (head != seq || tail != seq)
		fail("message %llu: sequence %llu in its slot",
		     (unsigned long long)seq,
		     (unsigned long long)(head != seq ? head : tail));
	if (memcmp(m + 8, pat + 8, c->size - 16))
		fail("message %llu: payload differs (slot %llu)",
		     (unsigned long long)seq, (unsigned long long)slot);
}

static int run_server(struct ctx *c, uint64_t iters)
{
	struct ibv_wc wc[32];
	uint64_t seq = 0;
	unsigned int i;
	int n;

	for (i = 0; i < c->slots; i++)
		post_recv(c);
	if (ibv_req_notify_cq(c->cq, 0))
		die("ibv_req_notify_cq");
	while (seq < iters) {
		n = ibv_poll_cq(c->cq, 32, wc);
		if (n < 0)
			die("ibv_poll_cq");
		if (!n) {
			wait_cq(c, -1);
			continue;
		}
		for (i = 0; i < (unsigned int)n; i++) {
			if (wc[i].status != IBV_WC_SUCCESS ||
			    wc[i].opcode != IBV_WC_RECV_RDMA_WITH_IMM)
				fail("completion status %llu opcode %llu",
				     (unsigned long long)wc[i].status,
				     (unsigned long long)wc[i].opcode);
			if (ntohl(wc[i].imm_data) != (uint32_t)seq)
				fail("IMM %llu, expected %llu",
				     (unsigned long long)ntohl(wc[i].imm_data),
				     (unsigned long long)seq);
			check_msg(c, seq, (unsigned int)(seq % c->slots));
			seq++;
			post_recv(c);
		}
		/* Slots checked: the client may write them again. */
		xfer(c->sock, &seq, sizeof(seq), true);
	}
	/*
	 * Stay until the client has every completion: our ACK of the last
	 * message may be lost, and only this QP can answer its resend.
	 */
	xfer(c->sock, &seq, sizeof(seq), false);
	return 0;
}

static void post_write(struct ctx *c, const struct wire_info *peer,
		       uint64_t seq)
{
	unsigned int src = (unsigned int)(seq % c->depth);
	uint8_t *m = c->buf + (size_t)src * c->size;
	struct ibv_sge sge = {
		.addr = (uintptr_t)m, .length = (uint32_t)c->size,
		.lkey = c->mr->lkey,
	};
	struct ibv_send_wr wr = {
		.wr_id = seq, .sg_list = &sge, .num_sge = 1,
		.opcode = IBV_WR_RDMA_WRITE_WITH_IMM,
		.send_flags = IBV_SEND_SIGNALED,
		.imm_data = htonl((uint32_t)seq),
	}, *bad;

	memcpy(m, &seq, 8);
	memcpy(m + c->size - 8, &seq, 8);
	wr.wr.rdma.remote_addr = be64toh(peer->addr) +
				 (seq % c->slots) * c->size;
	wr.wr.rdma.rkey = ntohl(peer->rkey);
	if (ibv_post_send(c->qp, &wr, &bad))
		die("ibv_post_send");
}

static int run_client(struct ctx *c, const struct wire_info *peer,
		      uint64_t iters)
{
	struct ibv_wc wc[32];
	uint64_t posted = 0, done = 0, checked = 0;
	struct timespec t0, t1 = { 0 };
	double secs;
	int n, i;

	if (ibv_req_notify_cq(c->cq, 0))
		die("ibv_req_notify_cq");
	clock_gettime(CLOCK_MONOTONIC, &t0);
	while (done < iters || checked < iters) {
		/* A slot is written again only once the server checked it. */
		while (posted < iters && posted - done < c->depth &&
		       posted < checked + c->slots)
			post_write(c, peer, posted++);
		n = ibv_poll_cq(c->cq, 32, wc);
		if (n < 0)
			die("ibv_poll_cq");
		for (i = 0; i < n; i++) {
			if (wc[i].status != IBV_WC_SUCCESS ||
			    wc[i].wr_id != done)
				fail("send completion status %llu wr_id %llu",
				     (unsigned long long)wc[i].status,
				     (unsigned long long)wc[i].wr_id);
			if (++done == iters)
				clock_gettime(CLOCK_MONOTONIC, &t1);
		}
		if (n)
			continue;
		/* The server's count, if it said one: more slots to write. */
		if (checked < iters && readable(c->sock)) {
			xfer(c->sock, &checked, sizeof(checked), false);
			continue;
		}
		if (done < iters || checked < iters)
			wait_cq(c, c->sock);
	}
	xfer(c->sock, &done, sizeof(done), true);
	secs = (double)(t1.tv_sec - t0.tv_sec) +
	       (double)(t1.tv_nsec - t0.tv_nsec) / 1e9;
	printf("lfn_write: %" PRIu64 " messages of %zu bytes, %.2f s, %.1f Mbit/s, every byte checked\n",
	       iters, c->size, secs, (double)iters * c->size * 8 / secs / 1e6);
	return 0;
}

int main(int argc, char **argv)
{
	struct ctx c = { .size = 65536, .depth = 64, .port_num = 1 };
	const char *dev = NULL, *port = "18515";
	struct wire_info peer;
	uint64_t iters = 1000;
	int gid_idx = 0, opt;

	while ((opt = getopt(argc, argv, "d:x:s:n:w:p:")) != -1) {
		switch (opt) {
		case 'd': dev = optarg; break;
		case 'x': gid_idx = atoi(optarg); break;
		case 's': c.size = strtoul(optarg, NULL, 0); break;
		case 'n': iters = strtoull(optarg, NULL, 0); break;
		case 'w': c.depth = (unsigned int)atoi(optarg); break;
		case 'p': port = optarg; break;
		default:
			fprintf(stderr, "usage: lfn_write -d DEV -x GIDIDX [-s SIZE] [-n ITERS] [-w DEPTH] [-p PORT] [SERVER]\n");
			return 2;
		}
	}
	if (!dev || c.size < 16 || c.depth < 2 || !iters) {
		fprintf(stderr, "lfn_write: need -d, SIZE >= 16, DEPTH >= 2\n");
		return 2;
	}
	c.slots = 2 * c.depth + 1;
	srand48(getpid() ^ time(NULL));
	c.dev = open_dev(dev);
	if (!c.dev) {
		fprintf(stderr, "lfn_write: no device %s\n", dev);
		return 2;
	}
	setup(&c, optind == argc);
	c.sock = tcp_open(optind < argc ? argv[optind] : NULL, port);
	connect_qp(&c, gid_idx, &peer);
	if (optind == argc)
		return run_server(&c, iters);
	return run_client(&c, &peer, iters);
}
