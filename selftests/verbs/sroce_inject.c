// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * sroce_inject - hostile RoCEv2 packets against one sroce device (issue 3:
 * "a packet is never trusted").
 *
 *   sroce_inject -d DEV [-g GIDIDX] [-6] [-l LOCAL] [-r PEER] [-P NETNS]
 *                [-q PEERQPN] [-n GARBAGE] [-S SEED] [-c CASE] [-L]
 *
 * DEV (address LOCAL, by default 192.168.77.2, or fd77::2 with -6; GID
 * index GIDIDX, by default LOCAL's) gets RC QPs connected to a peer that
 * does not exist: QPN PEERQPN (0x123) at PEER (192.168.77.1 or fd77::1).
 * We play that peer by hand.  Packets are built with the protocol core
 * the module itself uses (proto/wire.c, icrc.c) and sent through a raw
 * IP socket with our own IP header, so that every byte covered by the
 * ICRC is ours: the IPv4 Identification must then be non-zero (the
 * kernel would pick one after we computed the ICRC otherwise), and the
 * lengths the kernel fills in are the ones we put there anyway.
 *
 * With -P NETNS (a /run/netns/ path) the raw socket, and a UDP socket
 * bound to PEER:4791 that receives whatever the device answers, are
 * opened in the peer's namespace: the packets then cross the veth like a
 * real peer's, and we see the ACKs and NAKs themselves, not only the
 * counters.  No sroce device may live in that namespace meanwhile (it
 * would own port 4791).  Without -P both live in our own namespace.
 *
 * The counters are read from /sys/class/infiniband/DEV/ports/1/
 * hw_counters, so run where sysfs shows DEV in full: in rdma's shared
 * netns mode (the default) that is the init namespace, as other
 * namespaces see a compat device without counters.
 *
 * Each case gets a fresh QP (a NAK of class C moves it to ERROR), fresh
 * random memory, and is judged on four things:
 *  - the counters (hw_counters in sysfs) that must move, by exactly how
 *    much, and all the other error counters, which must not;
 *  - the answers on the wire: ACK, NAK and its syndrome, PSN, READ data;
 *  - memory: every registered buffer lies inside guard bytes in the same
 *    pages, and the whole allocation is compared with a shadow copy, so a
 *    write outside its range, or a write that should not have happened,
 *    is seen wherever it lands;
 *  - the QP state afterwards.
 * Positive cases (a valid WRITE, SEND, READ, atomics) prove that the
 * packets we build are right, so the negative ones mean something.
 *
 * Then GARBAGE packets are thrown at a live QP, which is brought back
 * from ERROR as often as needed: random opcodes, lengths and fields,
 * mostly with a valid ICRC so they get past the first check, mixed with
 * packets of well-formed multi-packet messages with a field spoiled now
 * and then.  Afterwards the memory no packet could legally reach must be
 * untouched and a valid WRITE must still work.  -S SEED replays a run.
 *
 * Output is TAP: one line per case ("ok N - NAME"), with "# NAME: ..."
 * diagnostics before it.  Exit status: 0 all passed, 1 a case failed,
 * 2 setup failed.  -L lists the cases ("NAME<TAB>what it checks").
 */
#include <arpa/inet.h>
#include <errno.h>
#include <fcntl.h>
#include <getopt.h>
#include <inttypes.h>
#include <netinet/in.h>
#include <poll.h>
#include <sched.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <time.h>
#include <unistd.h>

#include <infiniband/verbs.h>

#include "wire.h"
#include "icrc.h"
#include "aeth.h"
#include "psn.h"
#include "sack.h"

#define PAGE		4096
#define PMTU		256		/* every QP's path MTU */
#define PMTU_ENUM	IBV_MTU_256
#define RQ_DEPTH	16
#define SQ_PSN		0x000abc	/* our QPs' send PSN: nothing is sent */
#define RNR_TIMER	12		/* min_rnr_timer given to every QP */
#define RD_ATOMIC	4		/* responder resources */
#define QP_TIMEOUT	22		/* 17 s: no retransmission in a case */
#define SETTLE_MS	3000		/* longest wait for an expected effect */
#define QUIET_MS	120		/* silence that ends a case */
#define MAX_RESP	48
#define PKT_ROOM	2048		/* UDP payload room in a packet */

#define OP(x)		(SROCE_TR_RC | SROCE_OP_##x)
#define ACCESS_ALL	(IBV_ACCESS_LOCAL_WRITE | IBV_ACCESS_REMOTE_WRITE | \
			 IBV_ACCESS_REMOTE_READ | IBV_ACCESS_REMOTE_ATOMIC)

static struct {
	const char *dev;
	int gidx;
	bool ipv6;
	const char *laddr, *raddr, *peer_ns;
	uint32_t peer_qpn;
	long garbage;
	uint64_t seed;
	const char *only;
	bool list;
} opt = { .gidx = -1, .peer_qpn = 0x123, .garbage = 20000 };

/* ------------------------------------------------------------------ */
/* TAP, randomness                                                     */
/* ------------------------------------------------------------------ */

static int tap_n, tap_failed;
static const char *diag_tag = "setup";

static void diag(const char *fmt, ...) __attribute__((format(printf, 1, 2)));

static void diag(const char *fmt, ...)
{
	va_list ap;

	printf("# %s: ", diag_tag);
	va_start(ap, fmt);
	vprintf(fmt, ap);
	va_end(ap);
	putchar('\n');
}

static void tap(bool ok, const char *name)
{
	printf("%s %d - %s\n", ok ? "ok" : "not ok", ++tap_n, name);
	fflush(stdout);
	tap_failed += !ok;
}

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
static uint64_t rnd(uint64_t n)
{
	return rnd64() % n;
}

static void rnd_fill(uint8_t *p, size_t len)
{
	size_t i;

	for (i = 0; i < len; i++)
		p[i] = (uint8_t)rnd64();
}

static long now_ms(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec * 1000 + ts.tv_nsec / 1000000;
}

static void sleep_ms(long ms)
{
	struct timespec ts = { ms / 1000, (ms % 1000) * 1000000 };

	nanosleep(&ts, NULL);
}

/* ------------------------------------------------------------------ */
/* Counters                                                            */
/* ------------------------------------------------------------------ */

/*
 * The counters a hostile packet can move.  Every case states how much
 * each must move; those it does not name must stay put.
 */
enum cnt {
	C_RX, C_BAD_HDR, C_ICRC, C_PKEY, C_TRANSPORT, C_UNKNOWN_QP, C_GSI,
	C_DROPPED, C_DUP, C_OOS, C_STALE, C_BAD_RESP, C_ACKS, C_SEQ_NAKS,
	C_RNR_NAKS, C_ERR_NAKS, C_DUP_READS, C_DUP_ATOMICS, C_BAD_ADDR,
	C_MCAST_DROPPED, C_ECN_CE, C_CNPS, C_CNPS_SENT, C_XRC_BAD_SRQ, NCNT
};

static const char *const cnt_names[NCNT] = {
	[C_RX] = "rx_packets",
	[C_BAD_HDR] = "rx_bad_hdr",
	[C_ICRC] = "rx_icrc_err",
	[C_PKEY] = "rx_bad_pkey",
	[C_TRANSPORT] = "rx_bad_transport",
	[C_UNKNOWN_QP] = "rx_unknown_qp",
	[C_GSI] = "rx_gsi",
	[C_DROPPED] = "rx_dropped",
	[C_DUP] = "rx_dup_requests",
	[C_OOS] = "rx_out_of_sequence",
	[C_STALE] = "rx_stale_responses",
	[C_BAD_RESP] = "rx_bad_responses",
	[C_ACKS] = "acks_sent",
	[C_SEQ_NAKS] = "seq_naks_sent",
	[C_RNR_NAKS] = "rnr_naks_sent",
	[C_ERR_NAKS] = "err_naks_sent",
	[C_DUP_READS] = "dup_reads",
	[C_DUP_ATOMICS] = "dup_atomics",
	[C_BAD_ADDR] = "rx_bad_addr",
	[C_MCAST_DROPPED] = "rx_mcast_dropped",
	[C_ECN_CE] = "rx_ecn_ce",
	[C_CNPS] = "cnps_received",
	[C_CNPS_SENT] = "cnps_sent",
	[C_XRC_BAD_SRQ] = "rx_xrc_bad_srq",
};

#define ANY	INT64_MIN	/* a counter the case does not judge */

static int cnt_fd[NCNT];

static int cnt_open(void)
{
	char path[256];
	int i;

	for (i = 0; i < NCNT; i++) {
		snprintf(path, sizeof(path),
			 "/sys/class/infiniband/%s/ports/1/hw_counters/%s",
			 opt.dev, cnt_names[i]);
		cnt_fd[i] = open(path, O_RDONLY | O_CLOEXEC);
		if (cnt_fd[i] < 0) {
			diag("%s: %s", path, strerror(errno));
			return -1;
		}
	}
	return 0;
}

/* A sysfs attribute is generated anew by every read at offset 0. */
static int64_t cnt_read(int i)
{
	char buf[32];
	ssize_t n = pread(cnt_fd[i], buf, sizeof(buf) - 1, 0);

	if (n <= 0)
		return -1;
	buf[n] = 0;
	return strtoll(buf, NULL, 10);
}

static void cnt_snap(int64_t *v)
{
	int i;

	for (i = 0; i < NCNT; i++)
		v[i] = cnt_read(i);
}

/* ------------------------------------------------------------------ */
/* Memory: registered buffers inside guard bytes, with shadows          */
/* ------------------------------------------------------------------ */

enum { R_TGT, R_NOWR, R_OTHER, R_RECV, NREG };

/*
 * alloc bytes, of which [off, off + len) are registered.  The guards share
 * pages with the MR: the kernel holds those pages pinned and mapped, so a
 * copy that overshoots lands there and is caught.  shadow holds what every
 * byte of the allocation must contain.
 */
struct region {
	const char *name;
	size_t alloc, off, len;
	int access;
	bool other_pd;
	uint8_t *base, *shadow;
	struct ibv_mr *mr;
};

static struct region regs[NREG] = {
	/* Starts 192 bytes before a page end: crosses two page boundaries. */
	[R_TGT] = { "target MR", 4 * PAGE, PAGE - 192, 2 * PAGE, ACCESS_ALL },
	[R_NOWR] = { "MR without remote write", 2 * PAGE, 512, PAGE,
		     IBV_ACCESS_LOCAL_WRITE | IBV_ACCESS_REMOTE_READ },
	[R_OTHER] = { "MR of another PD", 2 * PAGE, 512, PAGE, ACCESS_ALL,
		      true },
	[R_RECV] = { "receive buffer", 2 * PAGE, 1024, PAGE,
		     IBV_ACCESS_LOCAL_WRITE },
};

#define TGT	(&regs[R_TGT])

static uint64_t mr_va(const struct region *r, int64_t off)
{
	return (uint64_t)(uintptr_t)(r->base + r->off) + (uint64_t)off;
}

static uint64_t mr_end(const struct region *r)
{
	return mr_va(r, (int64_t)r->len);
}

static uint8_t *mr_ptr(const struct region *r, size_t off)
{
	return r->base + r->off + off;
}

/* Say that @n bytes at @off of the MR are expected to become @d. */
static void shadow_put(struct region *r, size_t off, const void *d, size_t n)
{
	memcpy(r->shadow + r->off + off, d, n);
}

static void regions_fill(void)
{
	int i;

	for (i = 0; i < NREG; i++) {
		rnd_fill(regs[i].base, regs[i].alloc);
		memcpy(regs[i].shadow, regs[i].base, regs[i].alloc);
	}
}

/*
 * Compare a region with its shadow; with @mr_free the MR itself may hold
 * anything (garbage may write it legally) and only the guards count.
 */
static bool region_check(const struct region *r, bool mr_free)
{
	size_t i, first = 0, last = 0, bad = 0;

	for (i = 0; i < r->alloc; i++) {
		if (mr_free && i >= r->off && i < r->off + r->len)
			continue;
		if (r->base[i] == r->shadow[i])
			continue;
		if (!bad++)
			first = i;
		last = i;
	}
	if (!bad)
		return true;
	diag("%s: %zu byte(s) differ from what they must hold, first at MR%+ld, last at MR%+ld (MR is [0, %zu))%s",
	     r->name, bad, (long)first - (long)r->off,
	     (long)last - (long)r->off, r->len,
	     first < r->off || last >= r->off + r->len ?
	     ": OUTSIDE the MR" : "");
	return false;
}

static bool regions_check(bool garbage)
{
	bool ok = true;
	int i;

	for (i = 0; i < NREG; i++)
		ok = region_check(&regs[i],
				  garbage && (i == R_TGT || i == R_RECV)) && ok;
	return ok;
}

/* ------------------------------------------------------------------ */
/* Verbs                                                               */
/* ------------------------------------------------------------------ */

union addr {
	struct in_addr v4;
	struct in6_addr v6;
};

static struct {
	union addr local, peer, spoof;
	int raw, sink;
	uint16_t ip_id, sport;
} net = { .raw = -1, .sink = -1 };

static void addr_gid(const union addr *a, union ibv_gid *gid);

static struct {
	struct ibv_context *ctx;
	struct ibv_pd *pd, *pd2;
	struct ibv_cq *cq;
	union ibv_gid peer_gid;
} v;

/* The GID index of our local address, unless -g named one. */
static int gid_find(void)
{
	union ibv_gid want, gid;
	struct ibv_port_attr pa;
	int i;

	if (opt.gidx >= 0)
		return 0;
	addr_gid(&net.local, &want);
	if (ibv_query_port(v.ctx, 1, &pa))
		return -1;
	for (i = 0; i < pa.gid_tbl_len; i++) {
		if (ibv_query_gid(v.ctx, 1, i, &gid))
			continue;
		if (!memcmp(&gid, &want, sizeof(gid))) {
			opt.gidx = i;
			return 0;
		}
	}
	diag("%s has no GID for %s", opt.dev, opt.laddr);
	return -1;
}

static int verbs_open(void)
{
	struct ibv_device **list = ibv_get_device_list(NULL);
	int i;

	for (i = 0; list && list[i]; i++)
		if (!strcmp(ibv_get_device_name(list[i]), opt.dev))
			v.ctx = ibv_open_device(list[i]);
	if (list)
		ibv_free_device_list(list);
	if (!v.ctx) {
		diag("cannot open device %s", opt.dev);
		return -1;
	}
	if (gid_find())
		return -1;
	v.pd = ibv_alloc_pd(v.ctx);
	v.pd2 = ibv_alloc_pd(v.ctx);
	v.cq = ibv_create_cq(v.ctx, 1024, NULL, NULL, 0);
	if (!v.pd || !v.pd2 || !v.cq) {
		diag("PD/CQ: %s", strerror(errno));
		return -1;
	}
	for (i = 0; i < NREG; i++) {
		struct region *r = &regs[i];

		r->base = aligned_alloc(PAGE, r->alloc);
		r->shadow = malloc(r->alloc);
		if (!r->base || !r->shadow)
			return -1;
		r->mr = ibv_reg_mr(r->other_pd ? v.pd2 : v.pd,
				   r->base + r->off, r->len, r->access);
		if (!r->mr) {
			diag("reg_mr %s: %s", r->name, strerror(errno));
			return -1;
		}
	}
	return 0;
}

static void cq_drain(void)
{
	struct ibv_wc wc[16];

	while (ibv_poll_cq(v.cq, 16, wc) > 0)
		;
}

static struct ibv_qp *qp_new(void)
{
	struct ibv_qp_init_attr ia = {
		.send_cq = v.cq, .recv_cq = v.cq, .qp_type = IBV_QPT_RC,
		.cap = { .max_send_wr = 4, .max_recv_wr = RQ_DEPTH,
			 .max_send_sge = 1, .max_recv_sge = 1 },
	};
	struct ibv_qp *qp = ibv_create_qp(v.pd, &ia);

	if (!qp)
		diag("create_qp: %s", strerror(errno));
	return qp;
}

static int qp_modify(struct ibv_qp *qp, struct ibv_qp_attr *a, int mask)
{
	int ret = ibv_modify_qp(qp, a, mask);

	if (ret)
		diag("modify_qp to state %d: %s", a->qp_state, strerror(ret));
	return ret;
}

/*
 * RESET -> INIT -> RTR -> RTS (or up to @upto) towards the fake peer,
 * expecting @epsn first.  ERROR: through RTS, then an explicit move.
 */
static int qp_up(struct ibv_qp *qp, int access, enum ibv_qp_state upto,
		 uint32_t epsn, int rd_atomic)
{
	struct ibv_qp_attr a = {
		.qp_state = IBV_QPS_INIT, .port_num = 1,
		.qp_access_flags = access,
	};

	if (qp_modify(qp, &a, IBV_QP_STATE | IBV_QP_PKEY_INDEX | IBV_QP_PORT |
		      IBV_QP_ACCESS_FLAGS))
		return -1;
	if (upto == IBV_QPS_INIT)
		return 0;
	a = (struct ibv_qp_attr){
		.qp_state = IBV_QPS_RTR, .path_mtu = PMTU_ENUM,
		.dest_qp_num = opt.peer_qpn, .rq_psn = epsn,
		.max_dest_rd_atomic = rd_atomic, .min_rnr_timer = RNR_TIMER,
		.ah_attr = {
			.is_global = 1, .port_num = 1,
			.grh = { .dgid = v.peer_gid, .sgid_index = opt.gidx,
				 .hop_limit = 64 },
		},
	};
	if (qp_modify(qp, &a, IBV_QP_STATE | IBV_QP_AV | IBV_QP_PATH_MTU |
		      IBV_QP_DEST_QPN | IBV_QP_RQ_PSN |
		      IBV_QP_MAX_DEST_RD_ATOMIC | IBV_QP_MIN_RNR_TIMER))
		return -1;
	if (upto == IBV_QPS_RTR)
		return 0;
	a = (struct ibv_qp_attr){
		.qp_state = IBV_QPS_RTS, .sq_psn = SQ_PSN, .timeout = QP_TIMEOUT,
		.retry_cnt = 7, .rnr_retry = 7, .max_rd_atomic = RD_ATOMIC,
	};
	if (qp_modify(qp, &a, IBV_QP_STATE | IBV_QP_SQ_PSN | IBV_QP_TIMEOUT |
		      IBV_QP_RETRY_CNT | IBV_QP_RNR_RETRY |
		      IBV_QP_MAX_QP_RD_ATOMIC))
		return -1;
	if (upto != IBV_QPS_ERR)
		return 0;
	a = (struct ibv_qp_attr){ .qp_state = IBV_QPS_ERR };
	return qp_modify(qp, &a, IBV_QP_STATE);
}

static int qp_state(struct ibv_qp *qp)
{
	struct ibv_qp_init_attr ia;
	struct ibv_qp_attr a;

	if (ibv_query_qp(qp, &a, IBV_QP_STATE, &ia))
		return -1;
	return a.qp_state;
}

static const char *state_name(int s)
{
	static const char *const names[] = {
		[IBV_QPS_RESET] = "RESET", [IBV_QPS_INIT] = "INIT",
		[IBV_QPS_RTR] = "RTR", [IBV_QPS_RTS] = "RTS",
		[IBV_QPS_SQD] = "SQD", [IBV_QPS_SQE] = "SQE",
		[IBV_QPS_ERR] = "ERROR",
	};

	if (s < 0 || s >= (int)(sizeof(names) / sizeof(names[0])) || !names[s])
		return "?";
	return names[s];
}

/* One receive of @len bytes at @off of the receive buffer. */
static int post_recv_q(struct ibv_qp *qp, size_t off, uint32_t len)
{
	struct region *r = &regs[R_RECV];
	struct ibv_sge sge = {
		.addr = mr_va(r, (int64_t)off), .length = len,
		.lkey = r->mr->lkey,
	};
	struct ibv_recv_wr wr = {
		.wr_id = 0x5200 + off, .sg_list = &sge, .num_sge = 1,
	}, *bad;

	return ibv_post_recv(qp, &wr, &bad);
}

static int post_recv(struct ibv_qp *qp, size_t off, uint32_t len)
{
	int ret = post_recv_q(qp, off, len);

	if (ret)
		diag("post_recv: %s", strerror(ret));
	return ret;
}

/* ------------------------------------------------------------------ */
/* Network: raw injection socket and the sink for the answers          */
/* ------------------------------------------------------------------ */

static int family(void)
{
	return opt.ipv6 ? AF_INET6 : AF_INET;
}

static int addr_parse(const char *s, union addr *a)
{
	if (inet_pton(family(), s, a) == 1)
		return 0;
	diag("bad %s address %s", opt.ipv6 ? "IPv6" : "IPv4", s);
	return -1;
}

/* The GID of an address: IPv4-mapped for IPv4, as RoCEv2 wants. */
static void addr_gid(const union addr *a, union ibv_gid *gid)
{
	memset(gid, 0, sizeof(*gid));
	if (opt.ipv6) {
		memcpy(gid->raw, &a->v6, 16);
		return;
	}
	gid->raw[10] = 0xff;
	gid->raw[11] = 0xff;
	memcpy(gid->raw + 12, &a->v4, 4);
}

static socklen_t sockaddr_of(const union addr *a, uint16_t port,
			     struct sockaddr_storage *ss)
{
	memset(ss, 0, sizeof(*ss));
	if (opt.ipv6) {
		struct sockaddr_in6 *s6 = (struct sockaddr_in6 *)ss;

		s6->sin6_family = AF_INET6;
		s6->sin6_addr = a->v6;
		s6->sin6_port = htons(port);
		return sizeof(*s6);
	} else {
		struct sockaddr_in *s4 = (struct sockaddr_in *)ss;

		s4->sin_family = AF_INET;
		s4->sin_addr = a->v4;
		s4->sin_port = htons(port);
		return sizeof(*s4);
	}
}

static int net_sockets(void)
{
	struct sockaddr_storage ss;
	socklen_t sl = sockaddr_of(&net.peer, SROCE_WIRE_UDP_PORT, &ss);
	int one = 1, buf = 4 << 20;

	/* IPPROTO_RAW: we write the IP header ourselves (IP_HDRINCL). */
	net.raw = socket(family(), SOCK_RAW | SOCK_CLOEXEC, IPPROTO_RAW);
	net.sink = socket(family(), SOCK_DGRAM | SOCK_CLOEXEC | SOCK_NONBLOCK,
			  0);
	if (net.raw < 0 || net.sink < 0) {
		diag("socket: %s", strerror(errno));
		return -1;
	}
	if (opt.ipv6)
		setsockopt(net.sink, IPPROTO_IPV6, IPV6_V6ONLY, &one,
			   sizeof(one));
	setsockopt(net.sink, SOL_SOCKET, SO_RCVBUF, &buf, sizeof(buf));
	if (bind(net.sink, (struct sockaddr *)&ss, sl)) {
		diag("bind UDP %d at the peer address: %s (is there an RoCE device in the peer namespace?)",
		     SROCE_WIRE_UDP_PORT, strerror(errno));
		return -1;
	}
	return 0;
}

/* Open the sockets in the peer's namespace if asked, then come back. */
static int net_open(void)
{
	int self = -1, peer, err;

	if (opt.peer_ns) {
		self = open("/proc/self/ns/net", O_RDONLY | O_CLOEXEC);
		peer = open(opt.peer_ns, O_RDONLY | O_CLOEXEC);
		if (self < 0 || peer < 0 || setns(peer, CLONE_NEWNET)) {
			diag("enter netns %s: %s", opt.peer_ns,
			     strerror(errno));
			return -1;
		}
		close(peer);
	}
	err = net_sockets();
	if (self >= 0) {
		if (setns(self, CLONE_NEWNET)) {
			diag("back to our netns: %s", strerror(errno));
			err = -1;
		}
		close(self);
	}
	net.sport = 0xc000 | (uint16_t)rnd(0x4000);
	net.ip_id = 1 + (uint16_t)rnd(0xfff0);
	return err;
}

/* ------------------------------------------------------------------ */
/* Packets                                                             */
/* ------------------------------------------------------------------ */

/*
 * A datagram from the IP header on.  The UDP payload (BTH first) has
 * ulen bytes before the ICRC; pkt_seal() appends the ICRC, pkt_plain()
 * leaves it out (for packets too short to have one).
 */
struct pkt {
	uint8_t b[64 + PKT_ROOM];
	size_t iplen;
	size_t ulen;
	size_t len;
	bool spoof;		/* from another address than the peer's */
	bool udp4_csum;		/* a UDP checksum over IPv4 too */
};

static uint8_t *pkt_udp(struct pkt *p)
{
	return p->b + p->iplen;
}

static uint8_t *pkt_bth(struct pkt *p)
{
	return p->b + p->iplen + SROCE_UDP_BYTES;
}

static void pkt_init(struct pkt *p)
{
	memset(p, 0, sizeof(*p));
	p->iplen = opt.ipv6 ? SROCE_IPV6_BYTES : SROCE_IPV4_MIN_BYTES;
}

/* IP and UDP headers for @ulen bytes of UDP payload. */
static void pkt_headers(struct pkt *p, size_t ulen)
{
	const union addr *src = p->spoof ? &net.spoof : &net.peer;
	uint8_t *ip = p->b, *udp = pkt_udp(p);

	p->len = p->iplen + SROCE_UDP_BYTES + ulen;
	if (opt.ipv6) {
		ip[0] = 0x60;
		memset(ip + 1, 0, 3);
		sroce_be_store16(ip + 4, (uint16_t)(SROCE_UDP_BYTES + ulen));
		ip[6] = IPPROTO_UDP;
		ip[7] = 64;
		memcpy(ip + 8, &src->v6, 16);
		memcpy(ip + 24, &net.local.v6, 16);
	} else {
		ip[0] = (uint8_t)(0x40 | p->iplen / 4);
		memset(ip + SROCE_IPV4_MIN_BYTES, 1,		/* NOPs */
		       p->iplen - SROCE_IPV4_MIN_BYTES);
		ip[1] = 0;
		sroce_be_store16(ip + 2, (uint16_t)p->len);
		/* Non-zero: the kernel keeps it, and the ICRC covers it. */
		if (!++net.ip_id)
			net.ip_id = 1;
		sroce_be_store16(ip + 4, net.ip_id);
		sroce_be_store16(ip + 6, 0x4000);	/* DF */
		ip[8] = 64;
		ip[9] = IPPROTO_UDP;
		ip[10] = ip[11] = 0;			/* the kernel's */
		memcpy(ip + 12, &src->v4, 4);
		memcpy(ip + 16, &net.local.v4, 4);
	}
	sroce_be_store16(udp, net.sport);
	sroce_be_store16(udp + 2, SROCE_WIRE_UDP_PORT);
	sroce_be_store16(udp + 4, (uint16_t)(SROCE_UDP_BYTES + ulen));
	udp[6] = udp[7] = 0;
}

static void pkt_plain(struct pkt *p)
{
	pkt_headers(p, p->ulen);
}

/* Headers for ulen bytes plus an ICRC, and the ICRC. */
static void pkt_seal(struct pkt *p)
{
	uint32_t icrc = 0;

	pkt_headers(p, p->ulen + SROCE_ICRC_BYTES);
	if (sroce_icrc_compute(sroce_crc32_le, p->b,
			       p->iplen + SROCE_UDP_BYTES + p->ulen,
			       opt.ipv6, &icrc))
		diag("internal: ICRC of a %zu-byte packet", p->ulen);
	sroce_icrc_store(pkt_bth(p) + p->ulen, icrc);
}

static uint32_t csum_add(uint32_t sum, const uint8_t *b, size_t n)
{
	size_t i;

	for (i = 0; i + 1 < n; i += 2)
		sum += (uint32_t)(b[i] << 8 | b[i + 1]);
	if (n & 1)
		sum += (uint32_t)b[n - 1] << 8;
	return sum;
}

/*
 * IPv6 UDP wants a real checksum (the sroce socket would take zero, but
 * a peer that sends one is the normal case); IPv4 gets zero, as RoCEv2
 * senders commonly do, unless the case asks (p->udp4_csum).  Done last:
 * it covers the ICRC.
 */
static void pkt_udp_csum(struct pkt *p)
{
	uint8_t *udp = pkt_udp(p);
	size_t ulen = sroce_be_load16(udp + 4);
	uint32_t sum = 0;

	if (ulen > p->len - p->iplen)
		ulen = p->len - p->iplen;
	uint16_t c;

	udp[6] = udp[7] = 0;
	if (opt.ipv6)
		sum = csum_add(sum, p->b + 8, 32);	/* source, destination */
	else
		sum = csum_add(sum, p->b + 12, 8);
	sum += (uint32_t)ulen + IPPROTO_UDP;
	sum = csum_add(sum, udp, ulen);
	while (sum >> 16)
		sum = (sum & 0xffff) + (sum >> 16);
	c = (uint16_t)~sum;
	sroce_be_store16(udp + 6, c ? c : 0xffff);
}

static long send_errors;

static bool pkt_send(struct pkt *p)
{
	struct sockaddr_storage ss;
	socklen_t sl = sockaddr_of(&net.local, 0, &ss);
	ssize_t n;

	if (opt.ipv6 || p->udp4_csum)
		pkt_udp_csum(p);
	n = sendto(net.raw, p->b, p->len, 0, (struct sockaddr *)&ss, sl);
	if (n == (ssize_t)p->len)
		return true;
	send_errors++;
	diag("sendto(%zu bytes): %s", p->len, n < 0 ? strerror(errno) : "short");
	return false;
}

/*
 * BTH, extension headers and @n payload bytes with their pad, from @h
 * (whose pad field is the caller's: it may lie).  False if the builder
 * refused the header.
 */
static bool pkt_roce(struct pkt *p, const struct sroce_pkt_hdr *h,
		     const void *data, size_t n)
{
	uint8_t *bth = pkt_bth(p);
	size_t hl = sroce_wire_build(bth, PKT_ROOM, h), pad;

	if (!hl || hl + n + 3 > PKT_ROOM)
		return false;
	pad = sroce_wire_pad(n);
	if (n)
		memcpy(bth + hl, data, n);
	memset(bth + hl + n, 0, pad);
	p->ulen = hl + n + pad;
	return true;
}

/* Rewrite TTL/hop limit and TOS/traffic class (+ flow label) in place. */
static void pkt_set_ttl_tos(struct pkt *p, uint8_t ttl, uint8_t tos)
{
	uint8_t *ip = p->b;

	if (opt.ipv6) {
		ip[0] = (uint8_t)(0x60 | tos >> 4);
		ip[1] = (uint8_t)(tos << 4 | 0x0a);	/* + a flow label */
		ip[2] = 0xbc;
		ip[3] = 0xde;
		ip[7] = ttl;
	} else {
		ip[1] = tos;
		ip[8] = ttl;
	}
}

/* ------------------------------------------------------------------ */
/* Answers from the device                                             */
/* ------------------------------------------------------------------ */

struct resp {
	struct sroce_pkt_hdr h;
	int perr;		/* sroce_wire_parse() result */
	size_t len;
	uint8_t b[PKT_ROOM];
};

static bool sink_recv(struct resp *r)
{
	ssize_t n = recv(net.sink, r->b, sizeof(r->b), MSG_DONTWAIT);

	if (n < 0)
		return false;
	r->len = (size_t)n;
	r->perr = sroce_wire_parse(r->b, r->len, &r->h);
	return true;
}

static void sink_drain(void)
{
	static struct resp junk;

	while (sink_recv(&junk))
		;
}

static bool sink_wait(int ms)
{
	struct pollfd pfd = { .fd = net.sink, .events = POLLIN };

	return poll(&pfd, 1, ms) > 0;
}

static const char *nak_name(uint8_t code)
{
	switch (code) {
	case SROCE_NAK_PSN_SEQ_ERR: return "PSN sequence error";
	case SROCE_NAK_INVALID_REQ: return "invalid request";
	case SROCE_NAK_REM_ACCESS: return "remote access error";
	case SROCE_NAK_REM_OP_ERR: return "remote operational error";
	case SROCE_NAK_INVALID_RD_REQ: return "invalid RD request";
	default: return "reserved NAK code";
	}
}

static void resp_describe(const struct resp *r, char *s, size_t n)
{
	const struct sroce_pkt_hdr *h = &r->h;
	struct sroce_aeth a = { 0 };

	if (r->perr) {
		snprintf(s, n, "unparsable %zu-byte answer (%d)", r->len,
			 r->perr);
		return;
	}
	if (h->opcode == OP(ACK) && !sroce_aeth_decode(h->syndrome, &a)) {
		if (a.type == SROCE_AETH_ACK)
			snprintf(s, n, "ACK psn %#x", h->psn);
		else if (a.type == SROCE_AETH_RNR_NAK)
			snprintf(s, n, "RNR NAK (timer %u) psn %#x", a.value,
				 h->psn);
		else
			snprintf(s, n, "NAK (%s) psn %#x", nak_name(a.value),
				 h->psn);
		return;
	}
	snprintf(s, n, "%s psn %#x, %zu payload bytes, syndrome %#x",
		 sroce_wire_opcode_name(h->opcode), h->psn, h->payload_len,
		 h->syndrome);
}

/* ------------------------------------------------------------------ */
/* Cases                                                               */
/* ------------------------------------------------------------------ */

/* An answer a case expects, in order. */
struct want_resp {
	uint8_t opcode;
	int syndrome;		/* exact AETH syndrome; -1: any ACK */
	uint32_t psn;
	const uint8_t *data;	/* READ responses: the bytes */
	size_t len;
	bool check_orig;
	uint64_t orig;		/* ATOMIC ACK */
};

struct cx;

struct tcase {
	const char *name;
	const char *desc;
	void (*fn)(struct cx *c);
	int access;			/* of the QP; 0: everything */
	enum ibv_qp_state upto;		/* 0: RTS */
	int rd_atomic;			/* 0: RD_ATOMIC, -1: none */
	uint32_t epsn;			/* 0: random */
	bool v4_only;
};

struct cx {
	const struct tcase *tc;
	struct ibv_qp *qp;
	uint32_t qpn, epsn;
	int64_t base[NCNT], want[NCNT];
	struct resp resp[MAX_RESP];
	int nresp;
	struct want_resp wr[MAX_RESP];
	int nwant;
	int want_state;			/* -1: not judged */
	bool failed;
	uint8_t data[4 * PMTU];		/* random payload of the case */
};

static struct cx cx;

static void fail(struct cx *c, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));

static void fail(struct cx *c, const char *fmt, ...)
{
	va_list ap;

	printf("# %s: ", diag_tag);
	va_start(ap, fmt);
	vprintf(fmt, ap);
	va_end(ap);
	putchar('\n');
	c->failed = true;
}

static void expect(struct cx *c, enum cnt i, int64_t n)
{
	if (n == ANY || c->want[i] == ANY)
		c->want[i] = n;
	else
		c->want[i] += n;
}

static struct want_resp *want_resp(struct cx *c, uint8_t opcode, int syn,
				   uint32_t psn)
{
	struct want_resp *w = &c->wr[c->nwant < MAX_RESP ? c->nwant++ :
				    MAX_RESP - 1];

	memset(w, 0, sizeof(*w));
	w->opcode = opcode;
	w->syndrome = syn;
	w->psn = psn & SROCE_PSN_MASK;
	return w;
}

static void want_ack(struct cx *c, uint32_t psn)
{
	want_resp(c, OP(ACK), -1, psn);
	expect(c, C_ACKS, 1);
}

/* A NAK of class C also ends the QP. */
static void want_nak(struct cx *c, enum sroce_nak_code code, uint32_t psn)
{
	want_resp(c, OP(ACK), sroce_aeth_nak(code), psn);
	if (code == SROCE_NAK_PSN_SEQ_ERR) {
		expect(c, C_SEQ_NAKS, 1);
		return;
	}
	expect(c, C_ERR_NAKS, 1);
	c->want_state = IBV_QPS_ERR;
}

static void want_rnr(struct cx *c, uint32_t psn)
{
	want_resp(c, OP(ACK), sroce_aeth_rnr_nak(RNR_TIMER), psn);
	expect(c, C_RNR_NAKS, 1);
}

static struct sroce_pkt_hdr hdr(const struct cx *c, uint8_t opcode,
				uint32_t psn)
{
	struct sroce_pkt_hdr h = {
		.opcode = opcode, .pkey = SROCE_PKEY_DEFAULT,
		.dest_qpn = c->qpn, .psn = psn & SROCE_PSN_MASK,
	};

	return h;
}

/* Build @h with @n bytes of @data and a consistent pad, seal, send. */
static void inject(struct cx *c, struct sroce_pkt_hdr *h, const void *data,
		   size_t n)
{
	struct pkt p;

	pkt_init(&p);
	h->pad = sroce_wire_opcode_info(h->opcode) &&
		 (sroce_wire_opcode_info(h->opcode)->flags &
		  SROCE_OPF_PAYLOAD) ? sroce_wire_pad(n) : 0;
	if (!pkt_roce(&p, h, data, n)) {
		fail(c, "internal: cannot build %s",
		     sroce_wire_opcode_name(h->opcode));
		return;
	}
	pkt_seal(&p);
	pkt_send(&p);
}

/*
 * Like a real requester, ask for an ACK at the end of a message only: an
 * ACK after a FIRST would be an answer the cases do not expect.
 */
static bool ends_message(uint8_t opcode)
{
	uint8_t pos = sroce_wire_opcode_info(opcode)->pos;

	return pos == SROCE_POS_LAST || pos == SROCE_POS_ONLY;
}

/* An RDMA WRITE packet; FIRST and ONLY carry @va, @rkey, @dma_len. */
static void inject_write(struct cx *c, uint8_t opcode, uint32_t psn,
			 uint32_t rkey, uint64_t va, uint32_t dma_len,
			 const void *data, size_t n)
{
	struct sroce_pkt_hdr h = hdr(c, opcode, psn);

	h.rkey = rkey;
	h.va = va;
	h.dma_len = dma_len;
	h.ackreq = ends_message(opcode);
	inject(c, &h, data, n);
}

/* The usual probe: a WRITE ONLY of @n case bytes at @va. */
static void write_only(struct cx *c, uint32_t psn, uint32_t rkey,
		       uint64_t va, size_t n)
{
	inject_write(c, OP(WRITE_ONLY), psn, rkey, va, (uint32_t)n, c->data,
		     n);
}

/*
 * The header most cases start from: a WRITE ONLY of @len bytes at @off
 * in the target MR, at the expected PSN, asking for an ACK.
 */
static struct sroce_pkt_hdr tgt_write_hdr(const struct cx *c, int64_t off,
					  uint32_t len)
{
	struct sroce_pkt_hdr h = hdr(c, OP(WRITE_ONLY), c->epsn);

	h.rkey = TGT->mr->rkey;
	h.va = mr_va(TGT, off);
	h.dma_len = len;
	h.ackreq = true;
	return h;
}

static void inject_read(struct cx *c, uint32_t psn, uint32_t rkey,
			uint64_t va, uint32_t len)
{
	struct sroce_pkt_hdr h = hdr(c, OP(READ_REQ), psn);

	h.rkey = rkey;
	h.va = va;
	h.dma_len = len;
	inject(c, &h, NULL, 0);
}

static void inject_atomic(struct cx *c, uint8_t opcode, uint32_t psn,
			  uint32_t rkey, uint64_t va, uint64_t swap_add,
			  uint64_t compare)
{
	struct sroce_pkt_hdr h = hdr(c, opcode, psn);

	h.rkey = rkey;
	h.va = va;
	h.swap_add = swap_add;
	h.compare = compare;
	inject(c, &h, NULL, 0);
}

/* Bytes a WRITE of the case's data is expected to have left in the MR. */
static void lands(struct cx *c, struct region *r, size_t off,
		  size_t data_off, size_t n)
{
	shadow_put(r, off, c->data + data_off, n);
}

/* ------------------------------------------------------------------ */
/* Judging a case                                                      */
/* ------------------------------------------------------------------ */

static void collect(struct cx *c)
{
	while (c->nresp < MAX_RESP && sink_recv(&c->resp[c->nresp]))
		c->nresp++;
}

static bool counters_reached(const struct cx *c)
{
	int64_t now[NCNT];
	int i;

	cnt_snap(now);
	for (i = 0; i < NCNT; i++)
		if (c->want[i] != ANY && c->want[i] > 0 &&
		    now[i] - c->base[i] < c->want[i])
			return false;
	return true;
}

/*
 * Wait until what the case expects so far has happened (or SETTLE_MS),
 * then for QUIET_MS of silence, so that what should not happen has had
 * its chance to.
 */
static void settle(struct cx *c)
{
	long deadline = now_ms() + SETTLE_MS, quiet_end;

	for (;;) {
		collect(c);
		if (c->nresp >= c->nwant && counters_reached(c))
			break;
		if (now_ms() > deadline)
			break;
		sink_wait(5);
	}
	quiet_end = now_ms() + QUIET_MS;
	while (now_ms() < quiet_end) {
		if (sink_wait((int)(quiet_end - now_ms()))) {
			collect(c);
			quiet_end = now_ms() + QUIET_MS;
		}
	}
}

static bool resp_match(const struct resp *r, const struct want_resp *w)
{
	const struct sroce_pkt_hdr *h = &r->h;
	struct sroce_aeth a;

	if (r->perr || h->opcode != w->opcode || h->psn != w->psn ||
	    h->dest_qpn != opt.peer_qpn)
		return false;
	if (sroce_wire_opcode_info(h->opcode)->hdrs & SROCE_HDR_AETH) {
		if (w->syndrome >= 0 && h->syndrome != w->syndrome)
			return false;
		if (w->syndrome < 0 && (sroce_aeth_decode(h->syndrome, &a) ||
					a.type != SROCE_AETH_ACK))
			return false;
	}
	if (w->check_orig && h->orig != w->orig)
		return false;
	if (w->data && (h->payload_len != w->len ||
			memcmp(r->b + h->hdr_len, w->data, w->len)))
		return false;
	return true;
}

static void want_describe(const struct want_resp *w, char *s, size_t n)
{
	struct resp r = { .h = { .opcode = w->opcode, .psn = w->psn,
				 .syndrome = (uint8_t)w->syndrome,
				 .payload_len = w->len } };

	if (w->syndrome < 0)
		snprintf(s, n, "%s psn %#x", w->opcode == OP(ACK) ? "ACK" :
			 sroce_wire_opcode_name(w->opcode), w->psn);
	else
		resp_describe(&r, s, n);
}

/*
 * G11: what the device sends carries no stray bits.  Reserved BTH bits
 * are zero (byte 4 below FECN/BECN, byte 8 below sroce's three bits),
 * the pad bytes are zero, a response never has the extension bit (this
 * peer never offered it), nothing is sent without an ICRC (it never said
 * it takes that) and bit 5 comes only with an offer.  NULL, or what is
 * wrong.
 */
static const char *resp_unclean(const struct resp *r)
{
	const struct sroce_opcode_info *oi = sroce_wire_opcode_info(r->h.opcode);
	size_t i;

	if (r->b[4] & 0x3f)
		return "reserved bits of BTH byte 4 set";
	if (r->b[8] & 0x0f)
		return "reserved bits of BTH byte 8 set";
	/* ICRC elision: this peer never said it takes it; it may be offered. */
	if (r->b[8] & SROCE_BTH_NOCRC_BIT)
		return "ICRC elided toward a peer that never accepted that";
	if ((r->b[8] & SROCE_BTH_NOCRC_OK_BIT) && !r->h.ext)
		return "bit 5 of BTH byte 8 without the extension bit";
	if (oi && (oi->kind == SROCE_OPK_ACK || oi->kind == SROCE_OPK_READ_RESP ||
		   oi->kind == SROCE_OPK_ATOMIC_ACK) && r->h.ext)
		return "the extension bit on a response to a peer that never offered it";
	for (i = r->len - 4 - r->h.pad; i < r->len - 4; i++)
		if (r->b[i])
			return "a pad byte is not zero";
	return NULL;
}

static void check_resps(struct cx *c)
{
	char got[160] = "", want[160] = "";
	int i;

	for (i = 0; i < c->nresp || i < c->nwant; i++) {
		if (i < c->nresp)
			resp_describe(&c->resp[i], got, sizeof(got));
		if (i < c->nwant)
			want_describe(&c->wr[i], want, sizeof(want));
		if (i >= c->nwant)
			fail(c, "unexpected answer: %s", got);
		else if (i >= c->nresp)
			fail(c, "no answer; want %s", want);
		else if (!resp_match(&c->resp[i], &c->wr[i]))
			fail(c, "answer %d: got %s; want %s", i + 1, got, want);
		if (i < c->nresp && !c->resp[i].perr &&
		    resp_unclean(&c->resp[i]))
			fail(c, "answer %d (%s): %s", i + 1, got,
			     resp_unclean(&c->resp[i]));
	}
}

static void check_counters(struct cx *c, const int64_t *now)
{
	int64_t d;
	int i;

	for (i = 0; i < NCNT; i++) {
		d = now[i] - c->base[i];
		if (c->want[i] != ANY && d != c->want[i])
			fail(c, "counter %s moved by %" PRId64 ", want %" PRId64,
			     cnt_names[i], d, c->want[i]);
	}
}

static void append(char *s, size_t cap, size_t *o, const char *fmt, ...)
	__attribute__((format(printf, 4, 5)));

static void append(char *s, size_t cap, size_t *o, const char *fmt, ...)
{
	va_list ap;
	int n;

	if (*o >= cap)
		return;
	va_start(ap, fmt);
	n = vsnprintf(s + *o, cap - *o, fmt, ap);
	va_end(ap);
	if (n > 0)
		*o += (size_t)n;
}

/* One line saying what happened: state, answers, counters that moved. */
static void summary(struct cx *c, const int64_t *now, int state)
{
	char line[2048], one[160];
	size_t o = 0;
	int i, k = 0;

	append(line, sizeof(line), &o, "QP %s; answers:",
	       c->qp ? state_name(state) : "destroyed");
	for (i = 0; i < c->nresp; i++) {
		resp_describe(&c->resp[i], one, sizeof(one));
		append(line, sizeof(line), &o, "%s %s", i ? ";" : "", one);
	}
	if (!c->nresp)
		append(line, sizeof(line), &o, " none");
	for (i = 0; i < NCNT; i++)
		if (now[i] != c->base[i])
			append(line, sizeof(line), &o, "%s %s %+" PRId64,
			       k++ ? "," : "; counters:", cnt_names[i],
			       now[i] - c->base[i]);
	diag("%s", line);
}

static void judge(struct cx *c)
{
	int64_t now[NCNT];
	int state = -1;

	settle(c);
	cnt_snap(now);
	if (c->qp)
		state = qp_state(c->qp);
	summary(c, now, state);
	check_counters(c, now);
	check_resps(c);
	if (!regions_check(false))
		c->failed = true;
	if (c->qp && c->want_state >= 0 && state != c->want_state)
		fail(c, "QP is %s, want %s", state_name(state),
		     state_name(c->want_state));
}

/* ------------------------------------------------------------------ */
/* The cases: malformed packets, dropped by the first checks            */
/* ------------------------------------------------------------------ */

static void case_udp_empty(struct cx *c)
{
	struct pkt p;

	pkt_init(&p);
	pkt_plain(&p);
	pkt_send(&p);
	expect(c, C_BAD_HDR, 1);
}

/* The first 8 bytes of a good BTH: shorter than BTH + ICRC. */
static void case_udp_short(struct cx *c)
{
	struct sroce_pkt_hdr h = hdr(c, OP(SEND_ONLY), c->epsn);
	struct pkt p;

	pkt_init(&p);
	sroce_wire_build(pkt_bth(&p), PKT_ROOM, &h);
	p.ulen = 8;
	pkt_plain(&p);
	pkt_send(&p);
	expect(c, C_BAD_HDR, 1);
}

/* A whole BTH and nothing after it, not even the ICRC. */
static void case_bth_only(struct cx *c)
{
	struct sroce_pkt_hdr h = hdr(c, OP(SEND_ONLY), c->epsn);
	struct pkt p;

	pkt_init(&p);
	sroce_wire_build(pkt_bth(&p), PKT_ROOM, &h);
	p.ulen = SROCE_BTH_BYTES;
	pkt_plain(&p);
	pkt_send(&p);
	expect(c, C_BAD_HDR, 1);
}

/* WRITE ONLY cut in the middle of its RETH, with a valid ICRC after. */
static void case_reth_truncated(struct cx *c)
{
	struct sroce_pkt_hdr h = hdr(c, OP(WRITE_ONLY), c->epsn);
	struct pkt p;

	h.rkey = TGT->mr->rkey;
	h.va = mr_va(TGT, 0);
	h.dma_len = 64;
	pkt_init(&p);
	pkt_roce(&p, &h, c->data, 64);
	p.ulen = SROCE_BTH_BYTES + 8;
	pkt_seal(&p);
	pkt_send(&p);
	expect(c, C_BAD_HDR, 1);
}

/* Complete WRITE ONLY headers, no payload, and no ICRC. */
static void case_no_icrc(struct cx *c)
{
	struct sroce_pkt_hdr h = hdr(c, OP(WRITE_ONLY), c->epsn);
	struct pkt p;

	h.rkey = TGT->mr->rkey;
	h.va = mr_va(TGT, 0);
	pkt_init(&p);
	pkt_roce(&p, &h, NULL, 0);
	pkt_plain(&p);
	pkt_send(&p);
	expect(c, C_BAD_HDR, 1);
}

/* IB packets are whole 4-byte words: 3 payload bytes and no pad. */
static void case_len_not_words(struct cx *c)
{
	struct sroce_pkt_hdr h = hdr(c, OP(SEND_ONLY), c->epsn);
	struct pkt p;

	post_recv(c->qp, 0, 1024);
	pkt_init(&p);
	pkt_roce(&p, &h, c->data, 3);
	p.ulen = SROCE_BTH_BYTES + 3;
	pkt_seal(&p);
	pkt_send(&p);
	expect(c, C_BAD_HDR, 1);
}

/* A pad count of 3 on a packet with no payload bytes at all. */
static void case_pad_over_payload(struct cx *c)
{
	struct sroce_pkt_hdr h = hdr(c, OP(WRITE_ONLY), c->epsn);
	struct pkt p;

	h.rkey = TGT->mr->rkey;
	h.va = mr_va(TGT, 0);
	h.pad = 3;
	pkt_init(&p);
	pkt_roce(&p, &h, NULL, 0);
	pkt_seal(&p);
	pkt_send(&p);
	expect(c, C_BAD_HDR, 1);
}

/* A pad count on an opcode that carries no payload (READ request). */
static void case_pad_no_payload_op(struct cx *c)
{
	struct sroce_pkt_hdr h = hdr(c, OP(READ_REQ), c->epsn);
	struct pkt p;

	h.rkey = TGT->mr->rkey;
	h.va = mr_va(TGT, 0);
	h.dma_len = 16;
	pkt_init(&p);
	pkt_roce(&p, &h, NULL, 0);
	pkt_bth(&p)[1] |= 1 << 4;
	pkt_seal(&p);
	pkt_send(&p);
	expect(c, C_BAD_HDR, 1);
}

/* Payload bytes after a READ request, which has none. */
static void case_payload_no_payload_op(struct cx *c)
{
	struct sroce_pkt_hdr h = hdr(c, OP(READ_REQ), c->epsn);
	struct pkt p;

	h.rkey = TGT->mr->rkey;
	h.va = mr_va(TGT, 0);
	h.dma_len = 16;
	pkt_init(&p);
	pkt_roce(&p, &h, NULL, 0);
	memcpy(pkt_bth(&p) + p.ulen, c->data, 8);
	p.ulen += 8;
	pkt_seal(&p);
	pkt_send(&p);
	expect(c, C_BAD_HDR, 1);
}

/*
 * A valid WRITE of @len bytes, sealed, then one bit of it changed (@at
 * from the BTH).
 */
static void send_corrupted_write(struct cx *c, long at, uint32_t len)
{
	struct sroce_pkt_hdr h = tgt_write_hdr(c, 64, len);
	struct pkt p;

	pkt_init(&p);
	pkt_roce(&p, &h, c->data, len);
	pkt_seal(&p);
	if (at >= 0)
		pkt_bth(&p)[at] ^= 0x01;
	else if (opt.ipv6)
		p.b[8 + 15] ^= 0x02;	/* last byte of the source */
	else
		p.b[4] ^= 0x01;		/* Identification */
	pkt_send(&p);
	expect(c, C_ICRC, 1);
}

/*
 * A WRITE that says its ICRC is elided (BTH byte 8, bit 4), with a zero
 * ICRC field and a valid UDP checksum, to a QP that never agreed to that
 * (elide.c): its ICRC is checked after all, fails, nothing is written.
 */
static void case_icrc_elided_unasked(struct cx *c)
{
	struct sroce_pkt_hdr h = tgt_write_hdr(c, 64, 128);
	struct pkt p;

	h.nocrc = true;
	pkt_init(&p);
	pkt_roce(&p, &h, c->data, 128);
	/* pkt_init() zeroed the ICRC field; the checksum covers it. */
	pkt_headers(&p, p.ulen + SROCE_ICRC_BYTES);
	p.udp4_csum = true;
	pkt_send(&p);
	expect(c, C_ICRC, 1);
}

static void case_bad_icrc(struct cx *c)
{
	send_corrupted_write(c, SROCE_BTH_BYTES + SROCE_RETH_BYTES + 128, 128);
}

static void case_icrc_covers_payload(struct cx *c)
{
	send_corrupted_write(c, SROCE_BTH_BYTES + SROCE_RETH_BYTES + 77, 128);
}

/*
 * 1 KiB or more: the receive path leaves the ICRC to the QP's engine
 * (receive steering), which must still drop it, and before anything
 * else of the packet counts: unchecked, it would be NAKed for its
 * length (over the path MTU) and the QP would fail.
 */
static void case_icrc_late(struct cx *c)
{
	send_corrupted_write(c, SROCE_BTH_BYTES + SROCE_RETH_BYTES + 700,
			     sizeof(c->data));
}

/* IPv4: the Identification; IPv6: the source address. */
static void case_icrc_covers_ip(struct cx *c)
{
	send_corrupted_write(c, -1, 128);
}

/*
 * A valid 100-byte WRITE at @off of the target whose TTL and TOS (and,
 * with @bth4, the BTH's FECN/BECN byte) are changed after sealing, as a
 * router would: it must land and be ACKed.
 */
static void write_rerouted(struct cx *c, int off, uint8_t ttl, uint8_t tos,
			   bool bth4)
{
	struct sroce_pkt_hdr h = tgt_write_hdr(c, off, 100);
	struct pkt p;

	pkt_init(&p);
	pkt_roce(&p, &h, c->data, 100);
	pkt_seal(&p);
	pkt_set_ttl_tos(&p, ttl, tos);
	if (bth4)
		pkt_bth(&p)[4] = 0xff;
	pkt_send(&p);
	expect(c, C_RX, 1);
	want_ack(c, c->epsn);
	lands(c, TGT, off, 0, 100);
}

/*
 * What routers may change is masked out of the ICRC: TTL, TOS (traffic
 * class, flow label), and the BTH byte with FECN, BECN and 6 reserved
 * bits.  Changing all of them after sealing must not matter.
 */
static void case_icrc_masked(struct cx *c)
{
	write_rerouted(c, 300, 3, 0xba, true);
}

/*
 * Congestion Experienced on the way: executed as usual, counted, and, after
 * the ACK, a CNP to the sender's QP (BECN, PSN 0).
 */
static void case_ecn_ce(struct cx *c)
{
	write_rerouted(c, 200, 64, 0x03, false);
	want_resp(c, SROCE_OPCODE_CNP, -1, 0);
	expect(c, C_ECN_CE, 1);
	expect(c, C_CNPS_SENT, 1);
}

static void case_bad_tver(struct cx *c)
{
	struct sroce_pkt_hdr h = hdr(c, OP(WRITE_ONLY), c->epsn);
	struct pkt p;

	h.rkey = TGT->mr->rkey;
	h.va = mr_va(TGT, 0);
	h.dma_len = 64;
	pkt_init(&p);
	pkt_roce(&p, &h, c->data, 64);
	pkt_bth(&p)[1] |= 1;
	pkt_seal(&p);
	pkt_send(&p);
	expect(c, C_BAD_HDR, 1);
}

/* A BTH with opcode @op (no table entry) and @n bytes after it. */
static void send_opcode(struct cx *c, uint8_t op, size_t n)
{
	struct sroce_pkt_hdr h = hdr(c, OP(SEND_ONLY), c->epsn);
	struct pkt p;

	pkt_init(&p);
	pkt_roce(&p, &h, c->data, n);
	pkt_bth(&p)[0] = op;
	pkt_seal(&p);
	pkt_send(&p);
}

static void case_opcode_rc_reserved(struct cx *c)
{
	send_opcode(c, OP(SEND_ONLY_INV) + 1, 32);
	expect(c, C_BAD_HDR, 1);
}

/* RD (reliable datagram) is not supported: its opcodes are unknown. */
static void case_opcode_rd(struct cx *c)
{
	send_opcode(c, SROCE_TR_RD | SROCE_OP_SEND_ONLY, 32);
	expect(c, C_BAD_HDR, 1);
}

/* Every opcode without a table entry, once each. */
static void case_opcode_unknown_all(struct cx *c)
{
	int op, n = 0;

	for (op = 0; op < 256; op++) {
		if (sroce_wire_opcode_info((uint8_t)op))
			continue;
		send_opcode(c, (uint8_t)op, 64);
		n++;
	}
	expect(c, C_BAD_HDR, n);
}

/* A well formed packet of another transport, with a valid rkey. */
static void send_transport(struct cx *c, uint8_t tr, uint8_t op)
{
	struct sroce_pkt_hdr h = hdr(c, tr | op, c->epsn);

	h.rkey = TGT->mr->rkey;
	h.va = mr_va(TGT, 0);
	h.dma_len = 64;
	h.qkey = 0x11111111;
	h.src_qpn = opt.peer_qpn;
	h.ackreq = true;
	inject(c, &h, c->data,
	       sroce_wire_opcode_info(tr | op)->flags & SROCE_OPF_PAYLOAD ?
	       64 : 0);
	/*
	 * A CNP is for the QP's requester: counted; a QP under aimd (the
	 * default) does nothing more.
	 */
	expect(c, tr == SROCE_TR_CNP ? C_CNPS : C_TRANSPORT, 1);
}

/*
 * The device handles UD, UC and XRC, so these packets pass the device's
 * checks (and count in rx_packets) and are refused by the RC QP they
 * name.
 */
static void case_transport_ud(struct cx *c)
{
	post_recv(c->qp, 0, 1024);
	send_transport(c, SROCE_TR_UD, SROCE_OP_SEND_ONLY);
	expect(c, C_RX, 1);
}

static void case_transport_uc(struct cx *c)
{
	send_transport(c, SROCE_TR_UC, SROCE_OP_WRITE_ONLY);
	expect(c, C_RX, 1);
}

static void case_transport_xrc(struct cx *c)
{
	send_transport(c, SROCE_TR_XRC, SROCE_OP_WRITE_ONLY);
	expect(c, C_RX, 1);
}

static void case_transport_cnp(struct cx *c)
{
	send_transport(c, SROCE_TR_CNP, SROCE_OP_CNP);
	expect(c, C_RX, 1);
}

/* A CNP for a QP whose requester is not running yet: dropped. */
static void case_cnp_rtr(struct cx *c)
{
	struct sroce_pkt_hdr h = hdr(c, SROCE_OPCODE_CNP, 0);

	h.becn = true;
	inject(c, &h, NULL, 0);
	expect(c, C_RX, 1);
	expect(c, C_DROPPED, 1);
}

/* A good WRITE, but to QPN @qpn. */
static void write_to_qpn(struct cx *c, uint32_t qpn)
{
	struct sroce_pkt_hdr h = tgt_write_hdr(c, 0, 64);

	h.dest_qpn = qpn;
	inject(c, &h, c->data, 64);
	expect(c, C_RX, 1);
}

static void case_qpn_unknown(struct cx *c)
{
	write_to_qpn(c, 0xfedcba);
	expect(c, C_UNKNOWN_QP, 1);
}

/* The QPN of a QP destroyed a moment ago. */
static void case_qpn_stale(struct cx *c)
{
	ibv_destroy_qp(c->qp);
	c->qp = NULL;
	write_to_qpn(c, c->qpn);
	expect(c, C_UNKNOWN_QP, 1);
}

static void case_qpn_zero(struct cx *c)
{
	write_to_qpn(c, 0);
	expect(c, C_UNKNOWN_QP, 1);
}

/*
 * DestQP 0xFFFFFF names the members of a multicast group: not a QP, and
 * only for a UD SEND to an IP multicast address.
 */
static void case_qpn_mcast_rc(struct cx *c)
{
	write_to_qpn(c, 0xffffff);
	expect(c, C_MCAST_DROPPED, 1);
}

static void case_qpn_mcast_unicast(struct cx *c)
{
	struct sroce_pkt_hdr h = hdr(c, SROCE_TR_UD | SROCE_OP_SEND_ONLY,
				     c->epsn);

	h.dest_qpn = 0xffffff;
	h.qkey = 0x11111111;
	h.src_qpn = opt.peer_qpn;
	inject(c, &h, c->data, 64);
	expect(c, C_RX, 1);
	expect(c, C_MCAST_DROPPED, 1);
}

/* QP1 (GSI, the CM's) is not handled: counted apart. */
/* QP1 is the GSI QP, a UD QP: it counts the packet and refuses an RC one. */
static void case_qpn_gsi(struct cx *c)
{
	write_to_qpn(c, 1);
	expect(c, C_GSI, 1);
	expect(c, C_TRANSPORT, 1);
}

static void write_pkey(struct cx *c, uint16_t pkey)
{
	struct sroce_pkt_hdr h = tgt_write_hdr(c, 0, 64);

	h.pkey = pkey;
	inject(c, &h, c->data, 64);
}

static void case_pkey_wrong(struct cx *c)
{
	write_pkey(c, 0x1234);
	expect(c, C_PKEY, 1);
}

/* 0x0000/0x8000: the invalid partition. */
static void case_pkey_invalid(struct cx *c)
{
	write_pkey(c, 0x8000);
	expect(c, C_PKEY, 1);
}

/* A limited member of the default partition may talk to a full one. */
static void case_pkey_limited(struct cx *c)
{
	write_pkey(c, 0x7fff);
	expect(c, C_RX, 1);
	want_ack(c, c->epsn);
	lands(c, TGT, 0, 0, 64);
}

/* Requests to a QP not yet (INIT) or no longer (ERROR) receiving. */
static void case_qp_init(struct cx *c)
{
	write_only(c, c->epsn, TGT->mr->rkey, mr_va(TGT, 0), 64);
	expect(c, C_RX, 1);
	expect(c, C_DROPPED, 1);
}

static void case_qp_error(struct cx *c)
{
	case_qp_init(c);
}

/* RTR is enough to be a responder. */
static void case_qp_rtr(struct cx *c)
{
	write_only(c, c->epsn, TGT->mr->rkey, mr_va(TGT, 0), 64);
	expect(c, C_RX, 1);
	want_ack(c, c->epsn);
	lands(c, TGT, 0, 0, 64);
}

/* ------------------------------------------------------------------ */
/* The cases: PSN                                                      */
/* ------------------------------------------------------------------ */

/* A duplicate WRITE is acknowledged again, never executed again. */
static void dup_write(struct cx *c, uint32_t behind)
{
	write_only(c, sroce_psn_sub(c->epsn, behind), TGT->mr->rkey,
		   mr_va(TGT, 0), 64);
	expect(c, C_RX, 1);
	expect(c, C_DUP, 1);
	want_ack(c, sroce_psn_sub(c->epsn, 1));
}

static void case_psn_dup(struct cx *c)
{
	dup_write(c, 1);
}

/* The duplicate region is the 2^23 PSNs behind the expected one. */
static void case_psn_dup_far(struct cx *c)
{
	dup_write(c, SROCE_PSN_HALF - 1);
}

/*
 * Ahead of the expected PSN (a packet was lost, or a forged PSN): one
 * sequence NAK naming the expected PSN, then silence while more come,
 * nothing executed; the expected PSN then goes through.
 */
static void case_psn_ahead(struct cx *c)
{
	write_only(c, sroce_psn_add(c->epsn, SROCE_PSN_HALF / 2),
		   TGT->mr->rkey, mr_va(TGT, 0), 64);
	expect(c, C_RX, 1);
	expect(c, C_OOS, 1);
	want_nak(c, SROCE_NAK_PSN_SEQ_ERR, c->epsn);
	settle(c);
	write_only(c, sroce_psn_add(c->epsn, 1), TGT->mr->rkey,
		   mr_va(TGT, 0), 64);
	expect(c, C_RX, 1);
	expect(c, C_OOS, 1);
	settle(c);
	write_only(c, c->epsn, TGT->mr->rkey, mr_va(TGT, 512), 32);
	expect(c, C_RX, 1);
	want_ack(c, c->epsn);
	lands(c, TGT, 512, 0, 32);
}

/* The 24-bit PSN wraps: 0xfffffe, 0xffffff, 0 all go through. */
static void case_psn_wrap(struct cx *c)
{
	uint32_t i, psn;

	for (i = 0; i < 3; i++) {
		psn = sroce_psn_add(c->epsn, i);
		write_only(c, psn, TGT->mr->rkey, mr_va(TGT, 64 * i), 64);
		expect(c, C_RX, 1);
		want_ack(c, psn);
		lands(c, TGT, 64 * i, 0, 64);
		settle(c);
	}
}

/* ------------------------------------------------------------------ */
/* The cases: rkeys, bounds and access rights                           */
/* ------------------------------------------------------------------ */

/* A WRITE ONLY that must be refused with a remote access NAK. */
static void write_denied(struct cx *c, uint32_t rkey, uint64_t va, size_t n)
{
	write_only(c, c->epsn, rkey, va, n);
	expect(c, C_RX, 1);
	want_nak(c, SROCE_NAK_REM_ACCESS, c->epsn);
}

/* The MR's index with another key byte: a guess, or a stale key. */
static void case_write_rkey_variant(struct cx *c)
{
	write_denied(c, TGT->mr->rkey ^ 0x5a, mr_va(TGT, 0), 64);
}

static void case_write_rkey_unknown(struct cx *c)
{
	write_denied(c, 0x00fffe00 | (uint32_t)rnd(256), mr_va(TGT, 0), 64);
}

static void case_write_past_end(struct cx *c)
{
	write_denied(c, TGT->mr->rkey, mr_end(TGT), 64);
}

static void case_write_straddle_end(struct cx *c)
{
	write_denied(c, TGT->mr->rkey, mr_end(TGT) - 32, 64);
}

static void case_write_before_start(struct cx *c)
{
	write_denied(c, TGT->mr->rkey, mr_va(TGT, -32), 64);
}

/* va + length overflows 64 bits. */
static void case_write_va_wrap(struct cx *c)
{
	write_denied(c, TGT->mr->rkey, ~0ULL - 63, 128);
}

static void case_write_mr_no_remote_write(struct cx *c)
{
	struct region *r = &regs[R_NOWR];

	write_denied(c, r->mr->rkey, mr_va(r, 0), 64);
}

static void case_write_mr_other_pd(struct cx *c)
{
	struct region *r = &regs[R_OTHER];

	write_denied(c, r->mr->rkey, mr_va(r, 0), 64);
}

/* The QP itself was not given remote write access. */
static void case_write_qp_no_remote_write(struct cx *c)
{
	write_denied(c, TGT->mr->rkey, mr_va(TGT, 0), 64);
}

/* FIRST of a message whose DMA length runs past the MR: refused whole. */
static void case_write_first_straddle(struct cx *c)
{
	inject_write(c, OP(WRITE_FIRST), c->epsn, TGT->mr->rkey,
		     mr_end(TGT) - PMTU, 2 * PMTU, c->data, PMTU);
	expect(c, C_RX, 1);
	want_nak(c, SROCE_NAK_REM_ACCESS, c->epsn);
}

/* A DMA length over the 2^31 message limit. */
static void case_write_dma_len_huge(struct cx *c)
{
	inject_write(c, OP(WRITE_FIRST), c->epsn, TGT->mr->rkey,
		     mr_va(TGT, 0), 0x80000001u, c->data, PMTU);
	expect(c, C_RX, 1);
	want_nak(c, SROCE_NAK_INVALID_REQ, c->epsn);
}

/* FIRST + MIDDLE that carry more than the RETH's DMA length. */
static void case_write_middle_overrun(struct cx *c)
{
	inject_write(c, OP(WRITE_FIRST), c->epsn, TGT->mr->rkey,
		     mr_va(TGT, 0), PMTU + 44, c->data, PMTU);
	inject_write(c, OP(WRITE_MIDDLE), sroce_psn_add(c->epsn, 1), 0, 0, 0,
		     c->data + PMTU, PMTU);
	expect(c, C_RX, 2);
	want_nak(c, SROCE_NAK_INVALID_REQ, sroce_psn_add(c->epsn, 1));
	lands(c, TGT, 0, 0, PMTU);
}

/* FIRST + LAST that carry less than the RETH's DMA length. */
static void case_write_last_short(struct cx *c)
{
	inject_write(c, OP(WRITE_FIRST), c->epsn, TGT->mr->rkey,
		     mr_va(TGT, 0), 2 * PMTU, c->data, PMTU);
	inject_write(c, OP(WRITE_LAST), sroce_psn_add(c->epsn, 1), 0, 0, 0,
		     c->data + PMTU, PMTU / 2);
	expect(c, C_RX, 2);
	want_nak(c, SROCE_NAK_INVALID_REQ, sroce_psn_add(c->epsn, 1));
	lands(c, TGT, 0, 0, PMTU);
}

/* A READ request that must be refused with NAK @code, no data sent. */
static void read_denied(struct cx *c, uint32_t rkey, uint64_t va,
			uint32_t len, enum sroce_nak_code code)
{
	inject_read(c, c->epsn, rkey, va, len);
	expect(c, C_RX, 1);
	want_nak(c, code, c->epsn);
}

static void case_read_rkey_bad(struct cx *c)
{
	read_denied(c, TGT->mr->rkey ^ 0x5a, mr_va(TGT, 0), 64,
		    SROCE_NAK_REM_ACCESS);
}

static void case_read_past_end(struct cx *c)
{
	read_denied(c, TGT->mr->rkey, mr_end(TGT) - 16, 64,
		    SROCE_NAK_REM_ACCESS);
}

static void case_read_mr_no_remote_read(struct cx *c)
{
	struct region *r = &regs[R_RECV];

	read_denied(c, r->mr->rkey, mr_va(r, 0), 64, SROCE_NAK_REM_ACCESS);
}

static void case_read_len_huge(struct cx *c)
{
	read_denied(c, TGT->mr->rkey, mr_va(TGT, 0), 0x80000001u,
		    SROCE_NAK_INVALID_REQ);
}

/* max_dest_rd_atomic 0: no READ or atomic may come at all. */
static void case_read_no_resources(struct cx *c)
{
	read_denied(c, TGT->mr->rkey, mr_va(TGT, 0), 64,
		    SROCE_NAK_INVALID_REQ);
}

static void atomic_denied(struct cx *c, uint32_t rkey, uint64_t va,
			  enum sroce_nak_code code)
{
	inject_atomic(c, OP(FETCH_ADD), c->epsn, rkey, va, 1, 0);
	expect(c, C_RX, 1);
	want_nak(c, code, c->epsn);
}

static void case_atomic_misaligned(struct cx *c)
{
	atomic_denied(c, TGT->mr->rkey, mr_va(TGT, 12),
		      SROCE_NAK_INVALID_REQ);
}

static void case_atomic_rkey_bad(struct cx *c)
{
	atomic_denied(c, TGT->mr->rkey ^ 0x5a, mr_va(TGT, 8),
		      SROCE_NAK_REM_ACCESS);
}

static void case_atomic_past_end(struct cx *c)
{
	atomic_denied(c, TGT->mr->rkey, mr_end(TGT), SROCE_NAK_REM_ACCESS);
}

static void case_atomic_mr_no_access(struct cx *c)
{
	struct region *r = &regs[R_NOWR];

	atomic_denied(c, r->mr->rkey, mr_va(r, 8), SROCE_NAK_REM_ACCESS);
}

/* ------------------------------------------------------------------ */
/* The cases: ATOMIC WRITE                                             */
/* ------------------------------------------------------------------ */

/* An ATOMIC WRITE: RETH (@va, @rkey, @dma_len), @n case bytes from @off. */
static void inject_awrite(struct cx *c, uint32_t psn, uint32_t rkey,
			  uint64_t va, uint32_t dma_len, size_t off, size_t n)
{
	inject_write(c, OP(ATOMIC_WRITE), psn, rkey, va, dma_len,
		     c->data + off, n);
}

static void awrite_denied(struct cx *c, uint32_t rkey, uint64_t va,
			  uint32_t dma_len, size_t n, enum sroce_nak_code code)
{
	inject_awrite(c, c->epsn, rkey, va, dma_len, 0, n);
	expect(c, C_RX, 1);
	want_nak(c, code, c->epsn);
}

/* 8 bytes to an aligned word: ACK, the bytes as sent. */
static void case_awrite_valid(struct cx *c)
{
	inject_awrite(c, c->epsn, TGT->mr->rkey, mr_va(TGT, 24), 8, 0, 8);
	expect(c, C_RX, 1);
	want_ack(c, c->epsn);
	lands(c, TGT, 24, 0, 8);
}

/*
 * A duplicate ATOMIC WRITE is acknowledged again, never executed again:
 * a WRITE that came after it must keep the word.
 */
static void case_awrite_dup(struct cx *c)
{
	uint32_t next = sroce_psn_add(c->epsn, 1);

	inject_awrite(c, c->epsn, TGT->mr->rkey, mr_va(TGT, 32), 8, 0, 8);
	expect(c, C_RX, 1);
	want_ack(c, c->epsn);
	settle(c);
	inject_write(c, OP(WRITE_ONLY), next, TGT->mr->rkey, mr_va(TGT, 32),
		     8, c->data + 8, 8);
	expect(c, C_RX, 1);
	want_ack(c, next);
	settle(c);
	inject_awrite(c, c->epsn, TGT->mr->rkey, mr_va(TGT, 32), 8, 0, 8);
	expect(c, C_RX, 1);
	expect(c, C_DUP, 1);
	want_ack(c, next);
	lands(c, TGT, 32, 8, 8);
}

static void case_awrite_misaligned(struct cx *c)
{
	awrite_denied(c, TGT->mr->rkey, mr_va(TGT, 12), 8, 8,
		      SROCE_NAK_INVALID_REQ);
}

static void case_awrite_dma_len(struct cx *c)
{
	awrite_denied(c, TGT->mr->rkey, mr_va(TGT, 24), 16, 8,
		      SROCE_NAK_INVALID_REQ);
}

static void case_awrite_short(struct cx *c)
{
	awrite_denied(c, TGT->mr->rkey, mr_va(TGT, 24), 8, 4,
		      SROCE_NAK_INVALID_REQ);
}

static void case_awrite_rkey_bad(struct cx *c)
{
	awrite_denied(c, TGT->mr->rkey ^ 0x5a, mr_va(TGT, 24), 8, 8,
		      SROCE_NAK_REM_ACCESS);
}

static void case_awrite_past_end(struct cx *c)
{
	awrite_denied(c, TGT->mr->rkey, mr_end(TGT), 8, 8,
		      SROCE_NAK_REM_ACCESS);
}

static void case_awrite_mr_no_write(struct cx *c)
{
	struct region *r = &regs[R_NOWR];

	awrite_denied(c, r->mr->rkey, mr_va(r, 8), 8, 8, SROCE_NAK_REM_ACCESS);
}

/* The QP was not given remote write access (remote atomic is no help). */
static void case_awrite_qp_no_remote_write(struct cx *c)
{
	awrite_denied(c, TGT->mr->rkey, mr_va(TGT, 24), 8, 8,
		      SROCE_NAK_REM_ACCESS);
}

/* ------------------------------------------------------------------ */
/* The cases: opcode sequence and lengths                               */
/* ------------------------------------------------------------------ */

static void case_write_middle_alone(struct cx *c)
{
	inject_write(c, OP(WRITE_MIDDLE), c->epsn, 0, 0, 0, c->data, PMTU);
	expect(c, C_RX, 1);
	want_nak(c, SROCE_NAK_INVALID_REQ, c->epsn);
}

static void case_write_last_alone(struct cx *c)
{
	inject_write(c, OP(WRITE_LAST), c->epsn, 0, 0, 0, c->data, 64);
	expect(c, C_RX, 1);
	want_nak(c, SROCE_NAK_INVALID_REQ, c->epsn);
}

static void send_pkt(struct cx *c, uint8_t opcode, uint32_t psn, size_t n)
{
	struct sroce_pkt_hdr h = hdr(c, opcode, psn);

	h.ackreq = ends_message(opcode);
	inject(c, &h, c->data, n);
}

static void case_send_middle_alone(struct cx *c)
{
	post_recv(c->qp, 0, 1024);
	send_pkt(c, OP(SEND_MIDDLE), c->epsn, PMTU);
	expect(c, C_RX, 1);
	want_nak(c, SROCE_NAK_INVALID_REQ, c->epsn);
}

static void case_send_last_alone(struct cx *c)
{
	post_recv(c->qp, 0, 1024);
	send_pkt(c, OP(SEND_LAST), c->epsn, 64);
	expect(c, C_RX, 1);
	want_nak(c, SROCE_NAK_INVALID_REQ, c->epsn);
}

/* A WRITE left open, then a SEND: the SEND is out of sequence. */
static void case_write_first_then_send(struct cx *c)
{
	post_recv(c->qp, 0, 1024);
	inject_write(c, OP(WRITE_FIRST), c->epsn, TGT->mr->rkey,
		     mr_va(TGT, 0), 2 * PMTU, c->data, PMTU);
	send_pkt(c, OP(SEND_ONLY), sroce_psn_add(c->epsn, 1), 64);
	expect(c, C_RX, 2);
	want_nak(c, SROCE_NAK_INVALID_REQ, sroce_psn_add(c->epsn, 1));
	lands(c, TGT, 0, 0, PMTU);
}

static void case_write_first_then_first(struct cx *c)
{
	inject_write(c, OP(WRITE_FIRST), c->epsn, TGT->mr->rkey,
		     mr_va(TGT, 0), 2 * PMTU, c->data, PMTU);
	inject_write(c, OP(WRITE_FIRST), sroce_psn_add(c->epsn, 1),
		     TGT->mr->rkey, mr_va(TGT, 1024), 2 * PMTU, c->data, PMTU);
	expect(c, C_RX, 2);
	want_nak(c, SROCE_NAK_INVALID_REQ, sroce_psn_add(c->epsn, 1));
	lands(c, TGT, 0, 0, PMTU);
}

/* A SEND left open, then a WRITE. */
static void case_send_first_then_write(struct cx *c)
{
	post_recv(c->qp, 0, 1024);
	send_pkt(c, OP(SEND_FIRST), c->epsn, PMTU);
	write_only(c, sroce_psn_add(c->epsn, 1), TGT->mr->rkey,
		   mr_va(TGT, 0), 64);
	expect(c, C_RX, 2);
	want_nak(c, SROCE_NAK_INVALID_REQ, sroce_psn_add(c->epsn, 1));
	lands(c, &regs[R_RECV], 0, 0, PMTU);
}

/* ONLY packets whose payload is not the RETH's DMA length. */
static void case_write_only_len_short(struct cx *c)
{
	inject_write(c, OP(WRITE_ONLY), c->epsn, TGT->mr->rkey,
		     mr_va(TGT, 0), 64, c->data, 32);
	expect(c, C_RX, 1);
	want_nak(c, SROCE_NAK_INVALID_REQ, c->epsn);
}

static void case_write_only_len_long(struct cx *c)
{
	inject_write(c, OP(WRITE_ONLY), c->epsn, TGT->mr->rkey,
		     mr_va(TGT, 0), 32, c->data, 64);
	expect(c, C_RX, 1);
	want_nak(c, SROCE_NAK_INVALID_REQ, c->epsn);
}

/* FIRST and MIDDLE packets carry exactly one path MTU. */
static void case_write_first_short(struct cx *c)
{
	inject_write(c, OP(WRITE_FIRST), c->epsn, TGT->mr->rkey,
		     mr_va(TGT, 0), 2 * PMTU, c->data, PMTU / 2);
	expect(c, C_RX, 1);
	want_nak(c, SROCE_NAK_INVALID_REQ, c->epsn);
}

static void case_write_only_over_pmtu(struct cx *c)
{
	inject_write(c, OP(WRITE_ONLY), c->epsn, TGT->mr->rkey,
		     mr_va(TGT, 0), 2 * PMTU, c->data, 2 * PMTU);
	expect(c, C_RX, 1);
	want_nak(c, SROCE_NAK_INVALID_REQ, c->epsn);
}

/* A SEND larger than the receive buffer posted for it. */
static void case_send_too_long(struct cx *c)
{
	post_recv(c->qp, 0, 64);
	send_pkt(c, OP(SEND_ONLY), c->epsn, 128);
	expect(c, C_RX, 1);
	want_nak(c, SROCE_NAK_INVALID_REQ, c->epsn);
}

/*
 * No receive posted: RNR NAK, not an error; the same PSN sent again once
 * a receive is there goes through.
 */
static void case_send_no_recv(struct cx *c)
{
	send_pkt(c, OP(SEND_ONLY), c->epsn, 100);
	expect(c, C_RX, 1);
	want_rnr(c, c->epsn);
	settle(c);
	post_recv(c->qp, 0, 1024);
	send_pkt(c, OP(SEND_ONLY), c->epsn, 100);
	expect(c, C_RX, 1);
	want_ack(c, c->epsn);
	lands(c, &regs[R_RECV], 0, 0, 100);
}

/* WRITE with immediate and no receive: RNR NAK, and nothing written. */
static void case_write_imm_no_recv(struct cx *c)
{
	struct sroce_pkt_hdr h = hdr(c, OP(WRITE_ONLY_IMM), c->epsn);

	h.rkey = TGT->mr->rkey;
	h.va = mr_va(TGT, 0);
	h.dma_len = 64;
	h.imm = 0x12345678;
	inject(c, &h, c->data, 64);
	expect(c, C_RX, 1);
	want_rnr(c, c->epsn);
}

/*
 * XRC (G14): an XRC target QP, two XRC SRQs of its domain, one receive
 * each, at offsets 0 and 2048 of the receive buffer.
 */
struct xrc_tgt {
	struct ibv_xrcd *xrcd;
	struct ibv_srq *srq[2];
	uint32_t srqn[2];
	struct ibv_qp *qp;
};

static void xrc_tgt_free(struct xrc_tgt *x)
{
	int i;

	if (x->qp)
		ibv_destroy_qp(x->qp);
	for (i = 0; i < 2; i++)
		if (x->srq[i])
			ibv_destroy_srq(x->srq[i]);
	if (x->xrcd)
		ibv_close_xrcd(x->xrcd);
}

/* One receive on SRQ @i, into its 1024 bytes of the receive buffer. */
static int xrc_post(struct xrc_tgt *x, int i)
{
	struct region *r = &regs[R_RECV];
	struct ibv_sge sge = {
		.addr = mr_va(r, 2048 * i), .length = 1024,
		.lkey = r->mr->lkey,
	};
	struct ibv_recv_wr wr = {
		.wr_id = 0x5800 + (uint64_t)i, .sg_list = &sge, .num_sge = 1,
	}, *bad;

	return ibv_post_srq_recv(x->srq[i], &wr, &bad);
}

static int xrc_srq_new(struct xrc_tgt *x, int i)
{
	struct ibv_srq_init_attr_ex sa = {
		.attr = { .max_wr = 4, .max_sge = 1 },
		.comp_mask = IBV_SRQ_INIT_ATTR_TYPE | IBV_SRQ_INIT_ATTR_PD |
			     IBV_SRQ_INIT_ATTR_XRCD | IBV_SRQ_INIT_ATTR_CQ,
		.srq_type = IBV_SRQT_XRC, .pd = v.pd, .xrcd = x->xrcd,
		.cq = v.cq,
	};

	x->srq[i] = ibv_create_srq_ex(v.ctx, &sa);
	if (!x->srq[i] || ibv_get_srq_num(x->srq[i], &x->srqn[i]))
		return -1;
	return xrc_post(x, i);
}

static int xrc_tgt_new(struct cx *c, struct xrc_tgt *x)
{
	struct ibv_xrcd_init_attr xa = {
		.comp_mask = IBV_XRCD_INIT_ATTR_FD | IBV_XRCD_INIT_ATTR_OFLAGS,
		.fd = -1, .oflags = O_CREAT,
	};
	struct ibv_qp_init_attr_ex qa = {
		.qp_type = IBV_QPT_XRC_RECV,
		.comp_mask = IBV_QP_INIT_ATTR_XRCD,
	};

	memset(x, 0, sizeof(*x));
	x->xrcd = ibv_open_xrcd(v.ctx, &xa);
	if (!x->xrcd || xrc_srq_new(x, 0) || xrc_srq_new(x, 1)) {
		fail(c, "XRC domain or SRQs: %s", strerror(errno));
		return -1;
	}
	qa.xrcd = x->xrcd;
	x->qp = ibv_create_qp_ex(v.ctx, &qa);
	if (!x->qp || qp_up(x->qp, ACCESS_ALL, IBV_QPS_RTR, c->epsn,
			    RD_ATOMIC)) {
		fail(c, "XRC target QP: %s", strerror(errno));
		return -1;
	}
	return 0;
}

/* A SEND packet of PMTU case bytes to the target, naming SRQ @srqn. */
static void xrc_send(struct cx *c, uint8_t op, uint32_t psn, uint32_t srqn,
		     size_t data_off)
{
	struct sroce_pkt_hdr h = hdr(c, SROCE_TR_XRC | op, psn);

	h.xrc_srqn = srqn;
	h.ackreq = op == SROCE_OP_SEND_LAST;
	inject(c, &h, c->data + data_off, PMTU);
}

/* The completions on the CQ: how many, and whether one is @wr_id's. */
static int cq_take(uint64_t wr_id, bool *seen)
{
	struct ibv_wc wc[8];
	int n, i, all = 0;

	*seen = false;
	while ((n = ibv_poll_cq(v.cq, 8, wc)) > 0) {
		for (i = 0; i < n; i++)
			*seen |= wc[i].wr_id == wr_id &&
				 wc[i].status == IBV_WC_SUCCESS;
		all += n;
	}
	return all;
}

/*
 * Every packet of an XRC message names the SRQ of its first one.  A
 * valid two-packet SEND to SRQ 1 is ACKed and completes there; then a
 * SEND FIRST naming SRQ 0 and a SEND LAST naming SRQ 1 get a NAK
 * (invalid request) at the LAST: nothing reaches SRQ 1's buffer.
 */
static void case_xrc_srq_switch(struct cx *c)
{
	uint8_t ack = SROCE_TR_XRC | SROCE_OP_ACK;
	struct xrc_tgt x;
	bool seen;
	int n;

	if (xrc_tgt_new(c, &x))
		goto out;
	c->qpn = x.qp->qp_num;
	xrc_send(c, SROCE_OP_SEND_FIRST, c->epsn, x.srqn[1], 0);
	xrc_send(c, SROCE_OP_SEND_LAST, c->epsn + 1, x.srqn[1], PMTU);
	expect(c, C_RX, 2);
	want_resp(c, ack, -1, c->epsn + 1);
	expect(c, C_ACKS, 1);
	lands(c, &regs[R_RECV], 2048, 0, 2 * PMTU);
	settle(c);
	n = cq_take(0x5801, &seen);
	if (n != 1 || !seen)
		fail(c, "valid XRC SEND: %d completion(s), SRQ 1's %s", n,
		     seen ? "among them" : "missing");
	/* Phase one judged; then fresh memory and a receive for SRQ 1. */
	if (!regions_check(false))
		c->failed = true;
	regions_fill();
	if (xrc_post(&x, 1)) {
		fail(c, "post to SRQ 1 again");
		goto out;
	}
	xrc_send(c, SROCE_OP_SEND_FIRST, c->epsn + 2, x.srqn[0], 0);
	xrc_send(c, SROCE_OP_SEND_LAST, c->epsn + 3, x.srqn[1], PMTU);
	expect(c, C_RX, 2);
	want_resp(c, ack, sroce_aeth_nak(SROCE_NAK_INVALID_REQ), c->epsn + 3);
	expect(c, C_ERR_NAKS, 1);
	expect(c, C_XRC_BAD_SRQ, 1);
	/* The FIRST's bytes went to SRQ 0's buffer, legally. */
	lands(c, &regs[R_RECV], 0, 0, PMTU);
	settle(c);
	n = cq_take(0x5801, &seen);
	if (seen)
		fail(c, "SRQ 1's receive completed after the mixed message");
	if (qp_state(x.qp) != IBV_QPS_ERR)
		fail(c, "XRC target QP is %s, want ERROR",
		     state_name(qp_state(x.qp)));
out:
	xrc_tgt_free(&x);
}

/* ------------------------------------------------------------------ */
/* The cases: responses to a requester that asked for nothing           */
/* ------------------------------------------------------------------ */

static void stale(struct cx *c, uint8_t opcode, uint8_t syndrome, size_t n)
{
	struct sroce_pkt_hdr h = hdr(c, opcode, SQ_PSN);

	h.syndrome = syndrome;
	h.msn = 1;
	h.orig = 0x1122334455667788ULL;
	inject(c, &h, c->data, n);
	expect(c, C_RX, 1);
	expect(c, C_STALE, 1);
}

static void case_ack_idle(struct cx *c)
{
	stale(c, OP(ACK), sroce_aeth_ack(SROCE_AETH_CREDIT_NONE), 0);
}

/* A forged NAK must not fail a QP that has nothing outstanding. */
static void case_nak_idle(struct cx *c)
{
	stale(c, OP(ACK), sroce_aeth_nak(SROCE_NAK_REM_ACCESS), 0);
}

static void case_read_resp_idle(struct cx *c)
{
	stale(c, OP(READ_RESP_ONLY), sroce_aeth_ack(SROCE_AETH_CREDIT_NONE),
	      64);
}

static void case_read_resp_middle_idle(struct cx *c)
{
	stale(c, OP(READ_RESP_MIDDLE), 0, PMTU);
}

static void case_atomic_ack_idle(struct cx *c)
{
	stale(c, OP(ATOMIC_ACK), sroce_aeth_ack(SROCE_AETH_CREDIT_NONE), 0);
}

/* RTR: the requester is not even armed. */
static void case_ack_rtr(struct cx *c)
{
	case_ack_idle(c);
}

/* ------------------------------------------------------------------ */
/* The cases: valid requests (the injector is right)                    */
/* ------------------------------------------------------------------ */

static void case_write_valid(struct cx *c)
{
	write_only(c, c->epsn, TGT->mr->rkey, mr_va(TGT, 1000), 200);
	expect(c, C_RX, 1);
	want_ack(c, c->epsn);
	lands(c, TGT, 1000, 0, 200);
}

/* FIRST, MIDDLE, LAST across a page boundary of the MR. */
static void case_write_multi(struct cx *c)
{
	uint32_t len = 2 * PMTU + 100, rkey = TGT->mr->rkey;

	inject_write(c, OP(WRITE_FIRST), c->epsn, rkey, mr_va(TGT, 100), len,
		     c->data, PMTU);
	inject_write(c, OP(WRITE_MIDDLE), sroce_psn_add(c->epsn, 1), 0, 0, 0,
		     c->data + PMTU, PMTU);
	inject_write(c, OP(WRITE_LAST), sroce_psn_add(c->epsn, 2), 0, 0, 0,
		     c->data + 2 * PMTU, 100);
	expect(c, C_RX, 3);
	want_ack(c, sroce_psn_add(c->epsn, 2));
	lands(c, TGT, 100, 0, len);
}

/* Collect it, then the receive must have completed exactly so. */
static void check_recv_cqe(struct cx *c, uint32_t len)
{
	long deadline = now_ms() + SETTLE_MS;
	struct ibv_wc wc;
	int n;

	do {
		n = ibv_poll_cq(v.cq, 1, &wc);
	} while (!n && now_ms() < deadline);
	if (n != 1) {
		fail(c, "no receive completion");
		return;
	}
	if (wc.status != IBV_WC_SUCCESS || wc.opcode != IBV_WC_RECV ||
	    wc.byte_len != len || wc.qp_num != c->qpn || wc.wr_id != 0x5200)
		fail(c, "receive completion: status %s, opcode %d, %u bytes, QP %#x, wr_id %#" PRIx64,
		     ibv_wc_status_str(wc.status), wc.opcode, wc.byte_len,
		     wc.qp_num, wc.wr_id);
}

static void case_send_valid(struct cx *c)
{
	post_recv(c->qp, 0, 1024);
	send_pkt(c, OP(SEND_ONLY), c->epsn, 100);
	expect(c, C_RX, 1);
	want_ack(c, c->epsn);
	lands(c, &regs[R_RECV], 0, 0, 100);
	settle(c);
	check_recv_cqe(c, 100);
}

/* A zero-length WRITE touches no memory: its rkey and va are not checked. */
static void case_write_zero_len(struct cx *c)
{
	write_only(c, c->epsn, 0xdeadbe00, 1, 0);
	expect(c, C_RX, 1);
	want_ack(c, c->epsn);
}

static void case_read_valid(struct cx *c)
{
	struct want_resp *w;

	inject_read(c, c->epsn, TGT->mr->rkey, mr_va(TGT, 100), PMTU + 44);
	expect(c, C_RX, 1);
	w = want_resp(c, OP(READ_RESP_FIRST), -1, c->epsn);
	w->data = mr_ptr(TGT, 100);
	w->len = PMTU;
	w = want_resp(c, OP(READ_RESP_LAST), -1, sroce_psn_add(c->epsn, 1));
	w->data = mr_ptr(TGT, 100 + PMTU);
	w->len = 44;
}

/* FETCH_ADD then CMP_SWAP on the same word, values in host order. */
static void case_atomic_valid(struct cx *c)
{
	uint64_t old, add = 0x0102030405060708ULL, swap = rnd64(), now;
	struct want_resp *w;

	memcpy(&old, mr_ptr(TGT, 8), 8);
	inject_atomic(c, OP(FETCH_ADD), c->epsn, TGT->mr->rkey,
		      mr_va(TGT, 8), add, 0);
	w = want_resp(c, OP(ATOMIC_ACK), -1, c->epsn);
	w->check_orig = true;
	w->orig = old;
	expect(c, C_RX, 1);
	settle(c);
	now = old + add;
	inject_atomic(c, OP(CMP_SWAP), sroce_psn_add(c->epsn, 1),
		      TGT->mr->rkey, mr_va(TGT, 8), swap, now);
	w = want_resp(c, OP(ATOMIC_ACK), -1, sroce_psn_add(c->epsn, 1));
	w->check_orig = true;
	w->orig = now;
	expect(c, C_RX, 1);
	shadow_put(TGT, 8, &swap, 8);
}

/*
 * A request from an address that is not the QP's peer: a connected QP
 * takes packets from its peer only (rxe checks this too), so that
 * writing into it takes more than guessing a QPN, PSN and rkey.
 */
static void case_src_mismatch(struct cx *c)
{
	struct sroce_pkt_hdr h = tgt_write_hdr(c, 0, 64);
	struct pkt p;

	pkt_init(&p);
	p.spoof = true;
	pkt_roce(&p, &h, c->data, 64);
	pkt_seal(&p);
	pkt_send(&p);
	/* A connected QP's peer is part of its identity: dropped. */
	expect(c, C_RX, 1);
	expect(c, C_BAD_ADDR, 1);
}

/*
 * The UDP length is what counts, not the IP length: 8 bytes fewer in the
 * UDP header than the datagram has, and the ICRC is not where it was.
 */
static void case_udp_len_short(struct cx *c)
{
	struct sroce_pkt_hdr h = tgt_write_hdr(c, 0, 128);
	struct pkt p;

	pkt_init(&p);
	pkt_roce(&p, &h, c->data, 128);
	pkt_seal(&p);
	sroce_be_store16(pkt_udp(&p) + 4,
			 (uint16_t)(sroce_be_load16(pkt_udp(&p) + 4) - 8));
	pkt_send(&p);
	expect(c, C_ICRC, 1);
}

/* A UDP length past the datagram's end: UDP drops it, we never see it. */
static void case_udp_len_long(struct cx *c)
{
	struct sroce_pkt_hdr h = tgt_write_hdr(c, 0, 64);
	struct pkt p;

	pkt_init(&p);
	pkt_roce(&p, &h, c->data, 64);
	pkt_seal(&p);
	sroce_be_store16(pkt_udp(&p) + 4,
			 (uint16_t)(sroce_be_load16(pkt_udp(&p) + 4) + 64));
	pkt_send(&p);
}

/*
 * A duplicate atomic is answered from the saved result and never
 * executed twice: FETCH_ADD, then the same request again.
 */
static void case_atomic_dup_replay(struct cx *c)
{
	uint64_t old, add = 0x1000000000000001ULL, now;
	struct want_resp *w;
	int i;

	memcpy(&old, mr_ptr(TGT, 16), 8);
	for (i = 0; i < 2; i++) {
		inject_atomic(c, OP(FETCH_ADD), c->epsn, TGT->mr->rkey,
			      mr_va(TGT, 16), add, 0);
		w = want_resp(c, OP(ATOMIC_ACK), -1, c->epsn);
		w->check_orig = true;
		w->orig = old;
		expect(c, C_RX, 1);
		settle(c);
	}
	expect(c, C_DUP, 1);
	expect(c, C_DUP_ATOMICS, 1);
	now = old + add;
	shadow_put(TGT, 16, &now, 8);
}

/* A duplicate READ is answered again, from memory. */
/* A 64-byte READ at 2000 of the target, answered with its bytes. */
static void read_answered(struct cx *c)
{
	struct want_resp *w;

	inject_read(c, c->epsn, TGT->mr->rkey, mr_va(TGT, 2000), 64);
	w = want_resp(c, OP(READ_RESP_ONLY), -1, c->epsn);
	w->data = mr_ptr(TGT, 2000);
	w->len = 64;
	expect(c, C_RX, 1);
	settle(c);
}

static void case_read_dup_replay(struct cx *c)
{
	read_answered(c);
	read_answered(c);
	expect(c, C_DUP, 1);
	expect(c, C_DUP_READS, 1);
}

/*
 * G9: a duplicate READ is answered only as the READ it repeats (the same
 * PSN span), never as a longer one: one of 64 bytes asked again for
 * three packets' worth gets nothing, so a replay amplifies no more than
 * the original READ, which the rkey allowed.
 */
static void case_read_dup_longer(struct cx *c)
{
	read_answered(c);
	inject_read(c, c->epsn, TGT->mr->rkey, mr_va(TGT, 2000), 3 * PMTU);
	expect(c, C_RX, 1);
	expect(c, C_DUP, 1);
}

/*
 * A duplicate READ after modify_qp (RTS -> RTS) took remote reads away:
 * not answered again (security review G3).
 */
static void case_read_dup_revoked(struct cx *c)
{
	struct ibv_qp_attr a = {
		.qp_access_flags = IBV_ACCESS_REMOTE_WRITE |
				   IBV_ACCESS_REMOTE_ATOMIC,
	};

	read_answered(c);
	if (ibv_modify_qp(c->qp, &a, IBV_QP_ACCESS_FLAGS))
		fail(c, "modify_qp RTS -> RTS without REMOTE_READ: %s",
		     strerror(errno));
	inject_read(c, c->epsn, TGT->mr->rkey, mr_va(TGT, 2000), 64);
	expect(c, C_RX, 1);
	expect(c, C_DUP, 1);
}

/*
 * G8: requests that arrive while a READ is being answered wait in the
 * responder's queue, which holds SROCE_RXQ_MAX (8192) skbs: the rest are
 * dropped and counted, so a flood costs bounded memory.  A 32 MiB READ
 * (131072 responses at our PMTU, one queued at a time with tx_queue_max
 * at 1) and QB_WRITES WRITEs behind it.  The responder then answers the
 * ones it held, and a sequence NAK names the first it dropped: that PSN
 * says how many were held.  A WRITE at that PSN is ACKed: the QP goes on.
 */
#define QB_READ		(32u << 20)
#define QB_WRITES	9000
#define QB_HOLD		8192
#define TXQ_PARAM	"/sys/module/sroce/parameters/tx_queue_max"

static long param_swap(const char *path, long val)
{
	char buf[32] = "";
	long old = -1;
	FILE *f = fopen(path, "r+");

	if (!f)
		return -1;
	if (fgets(buf, sizeof(buf), f))
		old = strtol(buf, NULL, 10);
	rewind(f);
	fprintf(f, "%ld\n", val);
	if (fclose(f))
		old = -1;
	return old;
}

/* Drain the answers until @quiet_ms without one: READ responses, a NAK. */
static long qb_drain(int quiet_ms, int32_t *nak_psn)
{
	struct resp r;
	long reads = 0;

	while (sink_wait(quiet_ms))
		while (sink_recv(&r)) {
			if (r.perr)
				continue;
			if (r.h.opcode != OP(ACK))
				reads++;
			else if (*nak_psn < 0 && r.h.syndrome ==
				 sroce_aeth_nak(SROCE_NAK_PSN_SEQ_ERR))
				*nak_psn = (int32_t)r.h.psn;
		}
	return reads;
}

static void case_queue_bound(struct cx *c)
{
	uint32_t first = (c->epsn + QB_READ / PMTU) & SROCE_PSN_MASK, held;
	uint8_t *big = aligned_alloc(PAGE, QB_READ);
	struct ibv_mr *mr = big ? ibv_reg_mr(v.pd, big, QB_READ,
					     IBV_ACCESS_REMOTE_READ) : NULL;
	int64_t dropped = cnt_read(C_DROPPED);
	int32_t nak_psn = -1;
	long old, reads;
	int i;

	old = mr ? param_swap(TXQ_PARAM, 1) : -1;
	if (old < 0) {
		fail(c, "32 MiB MR or %s: %s", TXQ_PARAM, strerror(errno));
		goto out;
	}
	inject_read(c, c->epsn, mr->rkey, (uintptr_t)big, QB_READ);
	for (i = 0; i < QB_WRITES; i++)
		write_only(c, first + i, TGT->mr->rkey, mr_va(TGT, 0), 0);
	reads = qb_drain(1000, &nak_psn);
	param_swap(TXQ_PARAM, old);
	dropped = cnt_read(C_DROPPED) - dropped;
	if (nak_psn < 0) {
		write_only(c, first + QB_WRITES, TGT->mr->rkey, mr_va(TGT, 0),
			   0);
		qb_drain(QUIET_MS, &nak_psn);
	}
	diag("%ld READ responses seen; %" PRId64 " dropped", reads, dropped);
	held = nak_psn < 0 ? QB_WRITES : sroce_psn_sub((uint32_t)nak_psn,
							first);
	if (nak_psn < 0)
		fail(c, "no sequence NAK after the flood: every WRITE was held");
	else if (held > QB_HOLD)
		fail(c, "NAK at PSN %#x: the responder held %u WRITEs, at most %d allowed",
		     nak_psn, held, QB_HOLD);
	else
		diag("NAK at PSN %#x: %u of %d WRITEs held", nak_psn, held,
		     QB_WRITES);
	if (dropped < QB_WRITES - QB_HOLD)
		fail(c, "rx_dropped moved by %" PRId64 ", want at least %d",
		     dropped, QB_WRITES - QB_HOLD);
	if (nak_psn >= 0) {
		write_only(c, (uint32_t)nak_psn, TGT->mr->rkey,
			   mr_va(TGT, 100), 8);
		lands(c, TGT, 100, 0, 8);
		want_ack(c, (uint32_t)nak_psn);
	}
	for (i = 0; i < NCNT; i++)
		if (i != C_BAD_HDR && i != C_ICRC && i != C_BAD_ADDR &&
		    i != C_ERR_NAKS)
			expect(c, (enum cnt)i, ANY);
out:
	if (mr)
		ibv_dereg_mr(mr);
	free(big);
}

/*
 * Requester side: our QP sends a request to the fake peer (seen on the
 * wire), and the peer's answers are the hostile ones.
 */
static void post_send(struct cx *c, enum ibv_wr_opcode op, size_t off,
		      uint32_t len)
{
	struct region *r = &regs[R_RECV];
	struct ibv_sge sge = {
		.addr = mr_va(r, (int64_t)off), .length = len,
		.lkey = r->mr->lkey,
	};
	struct ibv_send_wr wr = {
		.wr_id = 0x5e00, .sg_list = &sge, .num_sge = 1, .opcode = op,
		.send_flags = IBV_SEND_SIGNALED,
		.wr.rdma = { .remote_addr = 0x10000, .rkey = 0x4242 },
	}, *bad;
	int ret = ibv_post_send(c->qp, &wr, &bad);

	if (ret)
		fail(c, "post_send: %s", strerror(ret));
}

static void check_send_cqe(struct cx *c, enum ibv_wc_opcode op,
			   uint32_t len)
{
	long deadline = now_ms() + SETTLE_MS;
	struct ibv_wc wc;
	int n;

	do {
		n = ibv_poll_cq(v.cq, 1, &wc);
	} while (!n && now_ms() < deadline);
	if (n != 1) {
		fail(c, "no send completion");
		return;
	}
	if (wc.status != IBV_WC_SUCCESS || wc.opcode != op ||
	    (op == IBV_WC_RDMA_READ && wc.byte_len != len) ||
	    wc.wr_id != 0x5e00)
		fail(c, "send completion: status %s, opcode %d, %u bytes, wr_id %#" PRIx64,
		     ibv_wc_status_str(wc.status), wc.opcode, wc.byte_len,
		     wc.wr_id);
}

static bool cq_empty(void)
{
	struct ibv_wc wc;

	return ibv_poll_cq(v.cq, 1, &wc) == 0;
}

/*
 * Our READ of 100 bytes is answered with 200 (it must not overflow the
 * local buffer), then at a PSN never sent, then properly.
 */
static void case_read_resp_forged(struct cx *c)
{
	struct sroce_pkt_hdr h;

	post_send(c, IBV_WR_RDMA_READ, 0, 100);
	want_resp(c, OP(READ_REQ), -1, SQ_PSN);
	settle(c);
	h = hdr(c, OP(READ_RESP_ONLY), SQ_PSN);
	h.syndrome = sroce_aeth_ack(SROCE_AETH_CREDIT_NONE);
	inject(c, &h, c->data, 200);
	expect(c, C_RX, 1);
	expect(c, C_BAD_RESP, 1);
	settle(c);
	h.psn = SQ_PSN + 1;
	inject(c, &h, c->data, 100);
	expect(c, C_RX, 1);
	expect(c, C_STALE, 1);
	settle(c);
	if (!cq_empty())
		fail(c, "the READ completed on a forged response");
	h.psn = SQ_PSN;
	inject(c, &h, c->data + 200, 100);
	expect(c, C_RX, 1);
	lands(c, &regs[R_RECV], 0, 200, 100);
	settle(c);
	check_send_cqe(c, IBV_WC_RDMA_READ, 100);
}

/* Our WRITE is acknowledged for PSNs never sent, then properly. */
static void case_ack_unsent_psn(struct cx *c)
{
	struct sroce_pkt_hdr h;

	post_send(c, IBV_WR_RDMA_WRITE, 0, 64);
	want_resp(c, OP(WRITE_ONLY), -1, SQ_PSN);
	settle(c);
	h = hdr(c, OP(ACK), SQ_PSN + 10);
	h.syndrome = sroce_aeth_ack(SROCE_AETH_CREDIT_NONE);
	inject(c, &h, NULL, 0);
	expect(c, C_RX, 1);
	expect(c, C_STALE, 1);
	settle(c);
	if (!cq_empty())
		fail(c, "the WRITE completed on an ACK for an unsent PSN");
	h.psn = SQ_PSN;
	inject(c, &h, NULL, 0);
	expect(c, C_RX, 1);
	settle(c);
	check_send_cqe(c, IBV_WC_RDMA_WRITE, 64);
}

/*
 * A NAK storm (forged, or duplicated on the way): 50 copies of one PSN
 * sequence NAK at our oldest PSN make one resend, not fifty, since the
 * resend from there is already under way; the QP stays RTS and an ACK
 * completes the WRITE.
 */
static void case_nak_storm(struct cx *c)
{
	struct sroce_pkt_hdr h;
	int i;

	post_send(c, IBV_WR_RDMA_WRITE, 0, 64);
	want_resp(c, OP(WRITE_ONLY), -1, SQ_PSN);
	settle(c);
	h = hdr(c, OP(ACK), SQ_PSN);
	h.syndrome = sroce_aeth_nak(SROCE_NAK_PSN_SEQ_ERR);
	for (i = 0; i < 50; i++)
		inject(c, &h, NULL, 0);
	expect(c, C_RX, 50);
	want_resp(c, OP(WRITE_ONLY), -1, SQ_PSN);
	settle(c);
	if (!cq_empty())
		fail(c, "the WRITE completed on a NAK");
	h.syndrome = sroce_aeth_ack(SROCE_AETH_CREDIT_NONE);
	inject(c, &h, NULL, 0);
	expect(c, C_RX, 1);
	settle(c);
	check_send_cqe(c, IBV_WC_RDMA_WRITE, 64);
}

/* One SACK payload: type, block count, then @nb blocks (start, length). */
static size_t sack_bytes(uint8_t *b, uint8_t type, uint8_t n,
			 const uint32_t (*blk)[2], unsigned int nb)
{
	unsigned int i;

	b[0] = type;
	b[1] = n;
	b[2] = b[3] = 0;
	for (i = 0; i < nb; i++) {
		sroce_be_store32(b + 4 + 8 * i, blk[i][0]);
		sroce_be_store32(b + 8 + 8 * i, blk[i][1]);
	}
	return 4 + 8 * (size_t)nb;
}

/*
 * Our WRITE of four packets; our first ACK agrees to selective repeat
 * (the extension bit), then comes a burst of duplicate ACKs whose SACK
 * blocks break every rule of wire.rst: wrong type, no block, more than
 * eight (too long for an ACK: a bad header), a length that does not
 * match, a block with no gap before it, empty, out of order,
 * overlapping, too far, too long, a start beyond 24 bits, trailing
 * bytes.  Each is counted in rx_bad_responses (or rx_bad_hdr) and marks
 * nothing: nothing is sent again, and the cumulative ACK completes the
 * WRITE.  One burst, long before the tail loss probe's two round trips
 * (the first ACK came a settle after the data, so the RTT is long).
 */
static void case_sack_hostile(struct cx *c)
{
	const uint32_t q = SQ_PSN, far = 1u << 23;
	const uint32_t one[][2] = { { q + 2, 1 } };
	const uint32_t nine[][2] = {
		{ q + 2, 1 }, { q + 4, 1 }, { q + 6, 1 }, { q + 8, 1 },
		{ q + 10, 1 }, { q + 12, 1 }, { q + 14, 1 }, { q + 16, 1 },
		{ q + 18, 1 },
	};
	const uint32_t nogap[][2] = { { q + 1, 1 } };
	const uint32_t empty[][2] = { { q + 2, 0 } };
	const uint32_t order[][2] = { { q + 3, 1 }, { q + 2, 1 } };
	const uint32_t overlap[][2] = { { q + 2, 2 }, { q + 3, 1 } };
	const uint32_t toofar[][2] = { { q + far, 1 } };
	const uint32_t toolong[][2] = { { q + 2, far } };
	const uint32_t wide[][2] = { { 0xff000000u | (q + 2), 1 } };
	/*
	 * Type, count, blocks written, extra bytes after them; nine blocks
	 * are more bytes than an ACK may carry, which the header parser
	 * drops (rx_bad_hdr) before the SACK code sees them.
	 */
	const struct {
		uint8_t type, n;
		const uint32_t (*blk)[2];
		unsigned int nb, extra;
	} bad[] = {
		{ 7, 1, one, 1, 0 },
		{ SROCE_EXT_SACK, 0, NULL, 0, 0 },
		{ SROCE_EXT_SACK, 9, nine, 9, 0 },	/* 76 > 68 bytes */
		{ SROCE_EXT_SACK, 2, one, 1, 0 },
		{ SROCE_EXT_SACK, 1, nogap, 1, 0 },
		{ SROCE_EXT_SACK, 1, empty, 1, 0 },
		{ SROCE_EXT_SACK, 2, order, 2, 0 },
		{ SROCE_EXT_SACK, 2, overlap, 2, 0 },
		{ SROCE_EXT_SACK, 1, toofar, 1, 0 },
		{ SROCE_EXT_SACK, 1, toolong, 1, 0 },
		{ SROCE_EXT_SACK, 1, wide, 1, 0 },
		{ SROCE_EXT_SACK, 1, one, 1, 4 },
	};
	const int nbad = (int)(sizeof(bad) / sizeof(bad[0]));
	uint8_t b[sizeof(bad) / sizeof(bad[0])][4 + 8 * 10];
	size_t len[sizeof(bad) / sizeof(bad[0])];
	struct sroce_pkt_hdr h;
	int i;

	/* Built first, so that the burst leaves at once. */
	for (i = 0; i < nbad; i++) {
		len[i] = sack_bytes(b[i], bad[i].type, bad[i].n, bad[i].blk,
				    bad[i].nb) + bad[i].extra;
		memset(b[i] + len[i] - bad[i].extra, 0, bad[i].extra);
	}
	post_send(c, IBV_WR_RDMA_WRITE, 0, 4 * PMTU);
	want_resp(c, OP(WRITE_FIRST), -1, q);
	want_resp(c, OP(WRITE_MIDDLE), -1, q + 1);
	want_resp(c, OP(WRITE_MIDDLE), -1, q + 2);
	want_resp(c, OP(WRITE_LAST), -1, q + 3);
	settle(c);
	h = hdr(c, OP(ACK), q);
	h.syndrome = sroce_aeth_ack(SROCE_AETH_CREDIT_NONE);
	h.ext = true;
	inject(c, &h, NULL, 0);
	for (i = 0; i < nbad; i++)
		inject(c, &h, b[i], len[i]);
	h.psn = q + 3;
	inject(c, &h, NULL, 0);
	expect(c, C_RX, 2 + nbad - 1);
	expect(c, C_BAD_HDR, 1);
	expect(c, C_BAD_RESP, nbad - 1);
	settle(c);
	check_send_cqe(c, IBV_WC_RDMA_WRITE, 4 * PMTU);
}

/*
 * IPv4 options (IHL 6: four NOPs) are part of the IP header the ICRC
 * covers; a packet with them is as valid as one without.
 */
static void case_ipv4_options(struct cx *c)
{
	struct sroce_pkt_hdr h = tgt_write_hdr(c, 4000, 96);
	struct pkt p;

	pkt_init(&p);
	p.iplen = SROCE_IPV4_MIN_BYTES + 4;
	pkt_roce(&p, &h, c->data, 96);
	pkt_seal(&p);
	pkt_send(&p);
	expect(c, C_RX, 1);
	want_ack(c, c->epsn);
	lands(c, TGT, 4000, 0, 96);
}

#define RO	(IBV_ACCESS_LOCAL_WRITE | IBV_ACCESS_REMOTE_READ | \
		 IBV_ACCESS_REMOTE_ATOMIC)

static const struct tcase cases[] = {
	/* Malformed: dropped before any QP sees them. */
	{ .name = "udp_empty", .desc = "UDP datagram with no payload: rx_bad_hdr",
	  .fn = case_udp_empty },
	{ .name = "udp_short", .desc = "8-byte UDP payload, shorter than BTH+ICRC: rx_bad_hdr",
	  .fn = case_udp_short },
	{ .name = "bth_only", .desc = "BTH without ICRC: rx_bad_hdr",
	  .fn = case_bth_only },
	{ .name = "reth_truncated", .desc = "WRITE ONLY cut inside its RETH: rx_bad_hdr",
	  .fn = case_reth_truncated },
	{ .name = "no_icrc", .desc = "complete WRITE headers, no ICRC: rx_bad_hdr",
	  .fn = case_no_icrc },
	{ .name = "len_not_words", .desc = "length not a multiple of 4: rx_bad_hdr",
	  .fn = case_len_not_words },
	{ .name = "pad_over_payload", .desc = "pad count 3 with no payload: rx_bad_hdr",
	  .fn = case_pad_over_payload },
	{ .name = "pad_no_payload_op", .desc = "pad count on a READ request: rx_bad_hdr",
	  .fn = case_pad_no_payload_op },
	{ .name = "payload_no_payload_op", .desc = "payload after a READ request: rx_bad_hdr",
	  .fn = case_payload_no_payload_op },
	{ .name = "udp_len_short", .desc = "UDP length 8 short of the datagram: the ICRC is not found, rx_icrc_err",
	  .fn = case_udp_len_short },
	{ .name = "udp_len_long", .desc = "UDP length past the datagram: dropped by UDP, no counter moves",
	  .fn = case_udp_len_long },
	{ .name = "bad_icrc", .desc = "ICRC off by one bit: rx_icrc_err, nothing written",
	  .fn = case_bad_icrc },
	{ .name = "icrc_elided_unasked", .desc = "ICRC elided (BTH byte 8 bit 4, UDP checksum good) to a QP that never agreed: rx_icrc_err, nothing written",
	  .fn = case_icrc_elided_unasked },
	{ .name = "icrc_covers_payload", .desc = "payload bit flipped after sealing: rx_icrc_err",
	  .fn = case_icrc_covers_payload },
	{ .name = "icrc_late", .desc = "1 KiB WRITE, payload bit flipped: its ICRC, checked by the engine, drops it: rx_icrc_err only",
	  .fn = case_icrc_late },
	{ .name = "icrc_covers_ip", .desc = "IP ID (v4) / source (v6) changed after sealing: rx_icrc_err",
	  .fn = case_icrc_covers_ip },
	{ .name = "ipv4_options", .desc = "IPv4 header with options (IHL 6), ICRC over them: accepted",
	  .fn = case_ipv4_options, .v4_only = true },
	{ .name = "icrc_masked", .desc = "TTL, TOS/flow label, FECN/BECN changed after sealing: accepted",
	  .fn = case_icrc_masked },
	{ .name = "ecn_ce", .desc = "WRITE marked ECN CE: executed, ACKed, rx_ecn_ce, a CNP back",
	  .fn = case_ecn_ce },
	{ .name = "bad_tver", .desc = "BTH transport version 1: rx_bad_hdr",
	  .fn = case_bad_tver },
	{ .name = "opcode_rc_reserved", .desc = "reserved RC opcode 0x18: rx_bad_hdr",
	  .fn = case_opcode_rc_reserved },
	{ .name = "opcode_rd", .desc = "RD (unsupported transport) SEND ONLY: rx_bad_hdr",
	  .fn = case_opcode_rd },
	{ .name = "opcode_unknown_all", .desc = "every opcode without a table entry: rx_bad_hdr each",
	  .fn = case_opcode_unknown_all },
	{ .name = "transport_ud", .desc = "UD SEND ONLY to an RC QP: rx_bad_transport",
	  .fn = case_transport_ud },
	{ .name = "transport_uc", .desc = "UC WRITE ONLY to an RC QP: rx_bad_transport",
	  .fn = case_transport_uc },
	{ .name = "transport_xrc", .desc = "XRC WRITE ONLY to an RC QP: rx_bad_transport",
	  .fn = case_transport_xrc },
	{ .name = "transport_cnp", .desc = "CNP: cnps_received, nothing else",
	  .fn = case_transport_cnp },
	{ .name = "cnp_rtr", .desc = "CNP to a QP in RTR: rx_dropped",
	  .fn = case_cnp_rtr, .upto = IBV_QPS_RTR },
	{ .name = "qpn_unknown", .desc = "destination QPN 0xfedcba: rx_unknown_qp",
	  .fn = case_qpn_unknown },
	{ .name = "qpn_stale", .desc = "QPN of a QP just destroyed: rx_unknown_qp",
	  .fn = case_qpn_stale },
	{ .name = "qpn_zero", .desc = "destination QPN 0: rx_unknown_qp",
	  .fn = case_qpn_zero },
	{ .name = "qpn_gsi", .desc = "RC WRITE to QPN 1 (GSI, UD): rx_gsi, rx_bad_transport",
	  .fn = case_qpn_gsi },
	{ .name = "qpn_mcast_rc", .desc = "RC WRITE to QPN 0xffffff (multicast): rx_mcast_dropped",
	  .fn = case_qpn_mcast_rc },
	{ .name = "qpn_mcast_unicast", .desc = "UD SEND to QPN 0xffffff at a unicast address: rx_mcast_dropped",
	  .fn = case_qpn_mcast_unicast },
	{ .name = "pkey_wrong", .desc = "P_Key 0x1234: rx_bad_pkey",
	  .fn = case_pkey_wrong },
	{ .name = "pkey_invalid", .desc = "P_Key 0x8000 (invalid partition): rx_bad_pkey",
	  .fn = case_pkey_invalid },
	{ .name = "pkey_limited", .desc = "P_Key 0x7fff (limited member): accepted",
	  .fn = case_pkey_limited },
	{ .name = "qp_init", .desc = "WRITE to a QP in INIT: rx_dropped",
	  .fn = case_qp_init, .upto = IBV_QPS_INIT },
	{ .name = "qp_error", .desc = "WRITE to a QP in ERROR: rx_dropped",
	  .fn = case_qp_error, .upto = IBV_QPS_ERR },
	{ .name = "qp_rtr", .desc = "WRITE to a QP in RTR: executed and ACKed",
	  .fn = case_qp_rtr, .upto = IBV_QPS_RTR },

	/* PSN checks. */
	{ .name = "psn_dup", .desc = "WRITE at ePSN-1: rx_dup_requests, ACK again, not executed",
	  .fn = case_psn_dup },
	{ .name = "psn_dup_far", .desc = "WRITE at ePSN-(2^23-1): duplicate as well",
	  .fn = case_psn_dup_far },
	{ .name = "psn_ahead", .desc = "WRITE at ePSN+2^22, then ePSN+1: one sequence NAK, nothing executed, then ePSN works",
	  .fn = case_psn_ahead },
	{ .name = "psn_wrap", .desc = "WRITEs at PSN 0xfffffe, 0xffffff, 0: all executed",
	  .fn = case_psn_wrap, .epsn = 0xfffffe },

	/* rkey, bounds and access. */
	{ .name = "write_rkey_variant", .desc = "WRITE, rkey with another key byte: NAK remote access",
	  .fn = case_write_rkey_variant },
	{ .name = "write_rkey_unknown", .desc = "WRITE, rkey of no MR: NAK remote access",
	  .fn = case_write_rkey_unknown },
	{ .name = "write_past_end", .desc = "WRITE at the MR's end: NAK remote access",
	  .fn = case_write_past_end },
	{ .name = "write_straddle_end", .desc = "WRITE across the MR's end: NAK remote access",
	  .fn = case_write_straddle_end },
	{ .name = "write_before_start", .desc = "WRITE starting before the MR: NAK remote access",
	  .fn = case_write_before_start },
	{ .name = "write_va_wrap", .desc = "WRITE whose va+len wraps 2^64: NAK remote access",
	  .fn = case_write_va_wrap },
	{ .name = "write_mr_no_remote_write", .desc = "WRITE to an MR without remote write: NAK remote access",
	  .fn = case_write_mr_no_remote_write },
	{ .name = "write_mr_other_pd", .desc = "WRITE to an MR of another PD: NAK remote access",
	  .fn = case_write_mr_other_pd },
	{ .name = "write_qp_no_remote_write", .desc = "WRITE to a QP without remote write: NAK remote access",
	  .fn = case_write_qp_no_remote_write, .access = RO },
	{ .name = "write_first_straddle", .desc = "WRITE FIRST whose DMA length crosses the MR's end: NAK remote access",
	  .fn = case_write_first_straddle },
	{ .name = "write_dma_len_huge", .desc = "WRITE FIRST with DMA length 2^31+1: NAK invalid request",
	  .fn = case_write_dma_len_huge },
	{ .name = "write_middle_overrun", .desc = "FIRST+MIDDLE beyond the DMA length: NAK invalid request",
	  .fn = case_write_middle_overrun },
	{ .name = "write_last_short", .desc = "FIRST+LAST short of the DMA length: NAK invalid request",
	  .fn = case_write_last_short },
	{ .name = "read_rkey_bad", .desc = "READ with a bad rkey: NAK remote access",
	  .fn = case_read_rkey_bad },
	{ .name = "read_past_end", .desc = "READ across the MR's end: NAK remote access",
	  .fn = case_read_past_end },
	{ .name = "read_mr_no_remote_read", .desc = "READ of an MR without remote read: NAK remote access",
	  .fn = case_read_mr_no_remote_read },
	{ .name = "read_len_huge", .desc = "READ of 2^31+1 bytes: NAK invalid request",
	  .fn = case_read_len_huge },
	{ .name = "read_no_resources", .desc = "READ to a QP with max_dest_rd_atomic 0: NAK invalid request",
	  .fn = case_read_no_resources, .rd_atomic = -1 },
	{ .name = "atomic_misaligned", .desc = "FETCH_ADD at a misaligned address: NAK invalid request",
	  .fn = case_atomic_misaligned },
	{ .name = "atomic_rkey_bad", .desc = "FETCH_ADD with a bad rkey: NAK remote access",
	  .fn = case_atomic_rkey_bad },
	{ .name = "atomic_past_end", .desc = "FETCH_ADD at the MR's end: NAK remote access",
	  .fn = case_atomic_past_end },
	{ .name = "atomic_mr_no_access", .desc = "FETCH_ADD on an MR without remote atomic: NAK remote access",
	  .fn = case_atomic_mr_no_access },
	{ .name = "awrite_misaligned", .desc = "ATOMIC WRITE at a misaligned address: NAK invalid request",
	  .fn = case_awrite_misaligned },
	{ .name = "awrite_dma_len", .desc = "ATOMIC WRITE whose RETH says 16 bytes: NAK invalid request",
	  .fn = case_awrite_dma_len },
	{ .name = "awrite_short", .desc = "ATOMIC WRITE carrying 4 bytes: NAK invalid request",
	  .fn = case_awrite_short },
	{ .name = "awrite_rkey_bad", .desc = "ATOMIC WRITE with a bad rkey: NAK remote access",
	  .fn = case_awrite_rkey_bad },
	{ .name = "awrite_past_end", .desc = "ATOMIC WRITE at the MR's end: NAK remote access",
	  .fn = case_awrite_past_end },
	{ .name = "awrite_mr_no_write", .desc = "ATOMIC WRITE on an MR without remote write: NAK remote access",
	  .fn = case_awrite_mr_no_write },
	{ .name = "awrite_qp_no_remote_write", .desc = "ATOMIC WRITE to a QP without remote write: NAK remote access",
	  .fn = case_awrite_qp_no_remote_write, .access = RO },

	/* Opcode sequence and lengths. */
	{ .name = "write_middle_alone", .desc = "WRITE MIDDLE without FIRST: NAK invalid request",
	  .fn = case_write_middle_alone },
	{ .name = "write_last_alone", .desc = "WRITE LAST without FIRST: NAK invalid request",
	  .fn = case_write_last_alone },
	{ .name = "send_middle_alone", .desc = "SEND MIDDLE without FIRST: NAK invalid request",
	  .fn = case_send_middle_alone },
	{ .name = "send_last_alone", .desc = "SEND LAST without FIRST: NAK invalid request",
	  .fn = case_send_last_alone },
	{ .name = "write_first_then_send", .desc = "WRITE FIRST then SEND ONLY: NAK invalid request",
	  .fn = case_write_first_then_send },
	{ .name = "write_first_then_first", .desc = "WRITE FIRST then WRITE FIRST: NAK invalid request",
	  .fn = case_write_first_then_first },
	{ .name = "send_first_then_write", .desc = "SEND FIRST then WRITE ONLY: NAK invalid request",
	  .fn = case_send_first_then_write },
	{ .name = "write_only_len_short", .desc = "WRITE ONLY payload < DMA length: NAK invalid request",
	  .fn = case_write_only_len_short },
	{ .name = "write_only_len_long", .desc = "WRITE ONLY payload > DMA length: NAK invalid request",
	  .fn = case_write_only_len_long },
	{ .name = "write_first_short", .desc = "WRITE FIRST shorter than the path MTU: NAK invalid request",
	  .fn = case_write_first_short },
	{ .name = "write_only_over_pmtu", .desc = "WRITE ONLY longer than the path MTU: NAK invalid request",
	  .fn = case_write_only_over_pmtu },
	{ .name = "send_too_long", .desc = "SEND larger than the posted receive: NAK invalid request",
	  .fn = case_send_too_long },
	{ .name = "send_no_recv", .desc = "SEND with no receive posted: RNR NAK; resent later: executed",
	  .fn = case_send_no_recv },
	{ .name = "write_imm_no_recv", .desc = "WRITE with immediate, no receive: RNR NAK, nothing written",
	  .fn = case_write_imm_no_recv },

	{ .name = "atomic_dup_replay", .desc = "duplicate FETCH_ADD: same result replayed, executed once",
	  .fn = case_atomic_dup_replay },
	{ .name = "awrite_dup", .desc = "duplicate ATOMIC WRITE after a WRITE to its word: ACKed again, not executed again",
	  .fn = case_awrite_dup },
	{ .name = "read_dup_replay", .desc = "duplicate READ: answered again from memory",
	  .fn = case_read_dup_replay },
	{ .name = "read_dup_longer", .desc = "duplicate READ asking for more than the READ it repeats: not answered",
	  .fn = case_read_dup_longer },
	{ .name = "read_dup_revoked", .desc = "duplicate READ after RTS -> RTS took remote reads away: not answered",
	  .fn = case_read_dup_revoked },

	/* Responses nobody asked for, or not like that. */
	{ .name = "ack_idle", .desc = "ACK to a QP that sent nothing: rx_stale_responses",
	  .fn = case_ack_idle },
	{ .name = "nak_idle", .desc = "NAK to a QP that sent nothing: stale, QP stays RTS",
	  .fn = case_nak_idle },
	{ .name = "read_resp_idle", .desc = "READ RESPONSE ONLY to a QP that sent nothing: stale",
	  .fn = case_read_resp_idle },
	{ .name = "read_resp_middle_idle", .desc = "READ RESPONSE MIDDLE to a QP that sent nothing: stale",
	  .fn = case_read_resp_middle_idle },
	{ .name = "atomic_ack_idle", .desc = "ATOMIC ACK to a QP that sent nothing: stale",
	  .fn = case_atomic_ack_idle },
	{ .name = "read_resp_forged", .desc = "our READ of 100 B answered with 200 B, then at an unsent PSN: bad/stale, buffer intact; then properly",
	  .fn = case_read_resp_forged },
	{ .name = "ack_unsent_psn", .desc = "our WRITE ACKed at a PSN never sent: stale, no completion; then properly",
	  .fn = case_ack_unsent_psn },
	{ .name = "queue_bound", .desc = "9000 WRITEs behind a 32 MiB READ: at most 8192 held, the rest in rx_dropped; a NAK names the first dropped, a WRITE there is ACKed",
	  .fn = case_queue_bound },
	{ .name = "nak_storm", .desc = "our WRITE NAKed 50 times at its PSN: sent again once, QP stays RTS; then ACKed",
	  .fn = case_nak_storm },
	{ .name = "sack_hostile", .desc = "selective repeat agreed, then 12 SACKs that break its rules: rx_bad_responses (one rx_bad_hdr), nothing resent; then ACKed",
	  .fn = case_sack_hostile },
	{ .name = "ack_rtr", .desc = "ACK to a QP in RTR: stale",
	  .fn = case_ack_rtr,
	  .upto = IBV_QPS_RTR },

	/* Valid: the injector builds packets right. */
	{ .name = "write_valid", .desc = "valid WRITE ONLY: ACK, the bytes land exactly",
	  .fn = case_write_valid },
	{ .name = "write_multi", .desc = "valid WRITE FIRST/MIDDLE/LAST across a page: lands exactly",
	  .fn = case_write_multi },
	{ .name = "send_valid", .desc = "valid SEND ONLY: ACK, data and completion exact",
	  .fn = case_send_valid },
	{ .name = "write_zero_len", .desc = "zero-length WRITE with a bogus rkey: ACK, nothing written",
	  .fn = case_write_zero_len },
	{ .name = "read_valid", .desc = "valid READ: two responses with the MR's bytes",
	  .fn = case_read_valid },
	{ .name = "atomic_valid", .desc = "valid FETCH_ADD and CMP_SWAP: right results and memory",
	  .fn = case_atomic_valid },
	{ .name = "awrite_valid", .desc = "valid ATOMIC WRITE: ACK, the 8 bytes as sent",
	  .fn = case_awrite_valid },
	{ .name = "xrc_srq_switch", .desc = "XRC SEND FIRST to SRQ 0, LAST to SRQ 1: NAK invalid request (valid one first)",
	  .fn = case_xrc_srq_switch },
	{ .name = "src_mismatch", .desc = "WRITE from an address that is not the QP's peer: dropped",
	  .fn = case_src_mismatch },
};

#define NCASES	(sizeof(cases) / sizeof(cases[0]))

static bool case_applies(const struct tcase *tc)
{
	return !(tc->v4_only && opt.ipv6);
}

static void run_case(const struct tcase *tc, const char *name)
{
	struct cx *c = &cx;
	int rd = tc->rd_atomic ? (tc->rd_atomic < 0 ? 0 : tc->rd_atomic) :
		 RD_ATOMIC;
	enum ibv_qp_state upto = tc->upto ? tc->upto : IBV_QPS_RTS;
	long errs;

	memset(c, 0, sizeof(*c));
	diag_tag = name;
	c->tc = tc;
	c->want_state = upto;
	rnd_fill(c->data, sizeof(c->data));
	regions_fill();
	cq_drain();
	c->epsn = tc->epsn ? tc->epsn : 0x1000 + (uint32_t)rnd(0xf00000);
	c->qp = qp_new();
	if (!c->qp || qp_up(c->qp, tc->access ? tc->access : ACCESS_ALL, upto,
			    c->epsn, rd)) {
		fail(c, "cannot set up the QP");
		goto out;
	}
	c->qpn = c->qp->qp_num;
	sink_drain();
	cnt_snap(c->base);
	errs = send_errors;
	tc->fn(c);
	judge(c);
	if (send_errors != errs)
		fail(c, "%ld packet(s) could not be sent", send_errors - errs);
out:
	if (c->qp)
		ibv_destroy_qp(c->qp);
	tap(!c->failed, name);
}

/* ------------------------------------------------------------------ */
/* Garbage                                                             */
/* ------------------------------------------------------------------ */

struct garbage {
	struct ibv_qp *qp;
	uint32_t guess;		/* the responder's ePSN, as far as we know */
	int posted;		/* receives posted */
	uint8_t kind;		/* message under way: SROCE_OPK_WRITE/SEND */
	uint32_t left;		/* its bytes still to send */
	long sent, resets, answers, send_errs, coherent;
};

static const uint8_t rc_ops[] = {
	0x00, 0x01, 0x02, 0x03, 0x04, 0x05, 0x06, 0x07, 0x08, 0x09, 0x0a,
	0x0b, 0x0c, 0x13, 0x14, 0x16, 0x17,			/* requests */
	0x0d, 0x0e, 0x0f, 0x10, 0x11, 0x12,			/* responses */
};

static uint8_t garbage_opcode(void)
{
	uint64_t r = rnd(100);
	uint8_t op;

	if (r < 85)
		return rc_ops[rnd(sizeof(rc_ops))];
	if (r < 95) {
		do {
			op = (uint8_t)rnd(256);
		} while (!sroce_wire_opcode_info(op));
		return op;
	}
	return (uint8_t)rnd(256);
}

static uint32_t garbage_psn(const struct garbage *g)
{
	uint64_t r = rnd(100);

	if (r < 55)
		return g->guess;
	if (r < 70)
		return sroce_psn_add(g->guess, (uint32_t)rnd(9) - 4);
	if (r < 80)
		return sroce_psn_sub(g->guess, 1);
	if (r < 90)
		return (uint32_t)rnd(SROCE_PSN_MASK + 1);
	return sroce_psn_add(g->guess, (uint32_t)rnd(SROCE_PSN_HALF));
}

/* rkey and va: mostly real MRs, at and around their edges. */
static void garbage_target(struct sroce_pkt_hdr *h, size_t n)
{
	struct region *r = &regs[rnd(NREG)];
	uint64_t k = rnd(100);

	if (k < 55)
		r = TGT;
	h->rkey = r->mr->rkey;
	if (k >= 95)
		h->rkey = (uint32_t)rnd64();
	else if (k >= 88)
		h->rkey ^= 1 + (uint32_t)rnd(255);
	k = rnd(100);
	if (k < 70)
		h->va = mr_va(r, (int64_t)rnd(r->len + 128) - 64);
	else if (k < 85)
		h->va = mr_end(r) - rnd(2 * PMTU);
	else
		h->va = rnd64();
	if (h->opcode == OP(CMP_SWAP) || h->opcode == OP(FETCH_ADD))
		if (rnd(5))
			h->va &= ~7ULL;
	k = rnd(100);
	if (k < 60)
		h->dma_len = (uint32_t)n;
	else if (k < 80)
		h->dma_len = (uint32_t)(PMTU * (1 + rnd(3)) + rnd(PMTU));
	else if (k < 95)
		h->dma_len = (uint32_t)rnd(0x2000);
	else
		h->dma_len = (uint32_t)rnd64();
}

/* Payload bytes for a packet at @pos: mostly what the MTU rules allow. */
static size_t garbage_len(uint8_t pos)
{
	if (rnd(20) == 0)
		return rnd(2 * PMTU + 1);
	if (pos == SROCE_POS_FIRST || pos == SROCE_POS_MIDDLE)
		return rnd(6) ? PMTU : rnd(PMTU + 1);
	return rnd(PMTU + 1);
}

static void garbage_fields(struct sroce_pkt_hdr *h, const struct garbage *g)
{
	h->pkey = rnd(40) ? SROCE_PKEY_DEFAULT : (uint16_t)rnd64();
	h->dest_qpn = g->qp->qp_num;
	if (!rnd(15))
		h->dest_qpn = rnd(2) ? (uint32_t)rnd(SROCE_U24_MAX + 1) :
				       h->dest_qpn ^ 1;
	h->psn = garbage_psn(g);
	h->se = rnd(2);
	h->migreq = !rnd(8);
	h->ackreq = rnd(2);
	h->fecn = !rnd(16);
	h->becn = !rnd(16);
	h->swap_add = rnd64();
	h->compare = rnd(2) ? rnd64() : 0;
	h->syndrome = (uint8_t)rnd64();
	h->msn = (uint32_t)rnd(SROCE_U24_MAX + 1);
	h->orig = rnd64();
	h->imm = (uint32_t)rnd64();
	h->inv_rkey = rnd(2) ? TGT->mr->rkey : (uint32_t)rnd64();
	h->qkey = (uint32_t)rnd64();
	h->src_qpn = (uint32_t)rnd(SROCE_U24_MAX + 1);
	h->xrc_srqn = (uint32_t)rnd(SROCE_U24_MAX + 1);
}

/*
 * A packet of a well-formed WRITE or SEND message into the target MR or
 * the receives (continuing the one under way), at the PSN we believe is
 * expected, with one field spoiled now and then.  Random packets alone
 * rarely get past the first packet of a message: these take the
 * responder deep into multi-packet state, where the spoilt ones strike.
 */
static void garbage_coherent(struct pkt *p, struct garbage *g)
{
	struct sroce_pkt_hdr h = { .pkey = SROCE_PKEY_DEFAULT };
	enum sroce_pos pos;
	uint8_t data[PMTU];
	uint32_t n, len;

	if (!g->left) {
		g->kind = rnd(2) ? SROCE_OPK_WRITE : SROCE_OPK_SEND;
		len = (uint32_t)rnd(3 * PMTU + 1);
		g->left = len;
		h.rkey = TGT->mr->rkey;
		h.va = mr_va(TGT, (int64_t)rnd(TGT->len - len + 1));
		h.dma_len = len;
		pos = len > PMTU ? SROCE_POS_FIRST : SROCE_POS_ONLY;
	} else {
		pos = g->left > PMTU ? SROCE_POS_MIDDLE : SROCE_POS_LAST;
	}
	n = g->left > PMTU ? PMTU : g->left;
	g->left -= n;
	h.opcode = (uint8_t)sroce_wire_opcode_for(SROCE_TR_RC, g->kind, pos);
	h.dest_qpn = g->qp->qp_num;
	h.psn = g->guess;
	/* Optimistic: an ACK or NAK will set us right. */
	g->guess = sroce_psn_add(g->guess, 1);
	h.ackreq = !g->left || !rnd(4);
	rnd_fill(data, n);
	if (!rnd(6)) {
		switch (rnd(5)) {
		case 0: h.psn = sroce_psn_add(h.psn, (uint32_t)rnd(3) - 1); break;
		case 1: h.rkey ^= 1u << rnd(32); break;
		case 2: h.va += rnd(2 * PMTU) - PMTU; break;
		case 3: h.dma_len += (uint32_t)rnd(2 * PMTU) - PMTU; break;
		default: n = (uint32_t)rnd(n + 1); break;
		}
	}
	h.pad = sroce_wire_pad(n);
	pkt_roce(p, &h, data, n);
	g->coherent++;
}

/* Headers and payload of one random packet into @p (ulen set). */
static void garbage_build(struct pkt *p, const struct garbage *g)
{
	struct sroce_pkt_hdr h = { .opcode = garbage_opcode() };
	const struct sroce_opcode_info *oi = sroce_wire_opcode_info(h.opcode);
	uint8_t *bth = pkt_bth(p);
	size_t n = 0, hl;

	garbage_fields(&h, g);
	if (oi && (oi->flags & SROCE_OPF_PAYLOAD))
		n = garbage_len(oi->pos);
	garbage_target(&h, n);
	if (oi && (oi->flags & SROCE_OPF_PAYLOAD))
		h.pad = sroce_wire_pad(n);
	hl = oi ? sroce_wire_build(bth, PKT_ROOM, &h) : 0;
	if (!hl) {
		/* Unknown opcode: a plausible BTH, then anything. */
		hl = SROCE_BTH_BYTES;
		h.opcode = 0;
		sroce_wire_build(bth, PKT_ROOM, &h);
		bth[0] = garbage_opcode();
		n = rnd(64);
	}
	rnd_fill(bth + hl, n + sroce_wire_pad(n));
	p->ulen = hl + n + sroce_wire_pad(n);
	if (!rnd(50))
		bth[1] = (uint8_t)((bth[1] & 0xf0) | rnd(16));	/* TVer */
	if (!rnd(25))
		bth[1] = (uint8_t)((bth[1] & 0xcf) | rnd(4) << 4); /* pad */
	if (!rnd(25))
		p->ulen = rnd(p->ulen + 1);			/* cut */
}

static void garbage_one(struct garbage *g)
{
	struct pkt p;

	pkt_init(&p);
	if (rnd(100) < 40) {
		garbage_coherent(&p, g);
		pkt_seal(&p);
		if (pkt_send(&p))
			g->sent++;
		else
			g->send_errs++;
		return;
	}
	garbage_build(&p, g);
	if (p.ulen >= SROCE_BTH_BYTES && rnd(50))
		pkt_seal(&p);
	else
		pkt_plain(&p);
	/* Now and then a bit flipped after sealing: mostly a bad ICRC. */
	if (!rnd(30) && p.len > p.iplen + SROCE_UDP_BYTES)
		pkt_bth(&p)[rnd(p.len - p.iplen - SROCE_UDP_BYTES)] ^=
			(uint8_t)(1 << rnd(8));
	if (pkt_send(&p))
		g->sent++;
	else
		g->send_errs++;
}

/* Learn the responder's ePSN from its answers. */
static bool garbage_listen(struct garbage *g)
{
	static struct resp r;
	struct sroce_aeth a;
	bool fatal = false;

	while (sink_recv(&r)) {
		g->answers++;
		if (r.perr)
			continue;
		if (r.h.opcode != OP(ACK) ||
		    sroce_aeth_decode(r.h.syndrome, &a)) {
			g->guess = sroce_psn_add(r.h.psn, 1);
			continue;
		}
		if (a.type == SROCE_AETH_ACK) {
			g->guess = sroce_psn_add(r.h.psn, 1);
			continue;
		}
		/* A NAK: the message under way is over. */
		g->left = 0;
		if (a.type == SROCE_AETH_NAK &&
		    a.value != SROCE_NAK_PSN_SEQ_ERR)
			fatal = true;
		else
			g->guess = r.h.psn;
	}
	return fatal;
}

/*
 * Receives consumed (or flushed) are posted again.  Flush completions
 * may still come in after a RESET, which forgot those receives already:
 * hence the clamp, and a full RQ simply ends the refill.
 */
static void garbage_refill(struct garbage *g)
{
	struct ibv_wc wc[16];
	int n;

	while ((n = ibv_poll_cq(v.cq, 16, wc)) > 0)
		g->posted -= n;
	if (g->posted < 0)
		g->posted = 0;
	while (g->posted < RQ_DEPTH &&
	       !post_recv_q(g->qp, 64 * rnd(8), 512))
		g->posted++;
}

/* Back from ERROR: RESET and up again, with a new ePSN. */
static int garbage_reset(struct garbage *g)
{
	struct ibv_qp_attr a = { .qp_state = IBV_QPS_RESET };

	cq_drain();
	if (qp_modify(g->qp, &a, IBV_QP_STATE))
		return -1;
	g->posted = 0;
	g->left = 0;
	g->guess = (uint32_t)rnd(SROCE_PSN_MASK + 1);
	g->resets++;
	if (qp_up(g->qp, ACCESS_ALL, IBV_QPS_RTS, g->guess, RD_ATOMIC))
		return -1;
	garbage_refill(g);
	return 0;
}

/* Wait until rx_packets stops moving: everything sent has been seen. */
static void garbage_settle(void)
{
	int64_t last = -1, now;
	long deadline = now_ms() + 10 * SETTLE_MS;

	while (now_ms() < deadline) {
		sleep_ms(QUIET_MS);
		sink_drain();
		now = cnt_read(C_RX) + cnt_read(C_BAD_HDR) + cnt_read(C_ICRC);
		if (now == last)
			break;
		last = now;
	}
}

static void garbage_run(long count)
{
	struct garbage g = { 0 };
	int64_t base[NCNT], now[NCNT];
	long i, t0 = now_ms();
	bool ok = true, fatal = false;
	int s, k;

	diag_tag = "garbage";
	regions_fill();
	g.qp = qp_new();
	if (!g.qp || garbage_reset(&g)) {
		tap(false, "garbage");
		return;
	}
	cnt_snap(base);
	for (i = 0; i < count; i++) {
		garbage_one(&g);
		fatal |= garbage_listen(&g);
		/* After a fatal NAK, and now and then in case we missed one. */
		if (!fatal && i % 128)
			continue;
		garbage_refill(&g);
		if (qp_state(g.qp) != IBV_QPS_RTS && garbage_reset(&g)) {
			ok = false;
			break;
		}
		fatal = false;
	}
	garbage_settle();
	cnt_snap(now);
	s = qp_state(g.qp);
	diag("%ld packets sent (%ld of them parts of real messages) in %ld ms, %ld refused by the local stack, %ld answers, %ld QP resets, QP now %s",
	     g.sent, g.coherent, now_ms() - t0, g.send_errs, g.answers,
	     g.resets, state_name(s));
	for (k = 0; k < NCNT; k++)
		if (now[k] != base[k])
			diag("%s %+" PRId64, cnt_names[k], now[k] - base[k]);
	if (g.sent < count * 9 / 10) {
		diag("too few packets could be sent");
		ok = false;
	}
	if (now[C_RX] == base[C_RX] || now[C_BAD_HDR] == base[C_BAD_HDR]) {
		diag("the garbage never reached the QP or the header checks");
		ok = false;
	}
	if (s != IBV_QPS_RTS && s != IBV_QPS_ERR) {
		diag("QP in state %s", state_name(s));
		ok = false;
	}
	/* The target MR and the receive buffer may be written; no guard. */
	ok = regions_check(true) && ok;
	ibv_destroy_qp(g.qp);
	cq_drain();
	tap(ok, "garbage");
}

/* ------------------------------------------------------------------ */
/* Main                                                                */
/* ------------------------------------------------------------------ */

static void usage(const char *argv0)
{
	fprintf(stderr,
		"usage: %s -d DEV [-g GIDIDX] [-6] [-l LOCAL] [-r PEER] [-P NETNS]\n"
		"          [-q PEERQPN] [-n GARBAGE] [-S SEED] [-c CASE] [-L]\n",
		argv0);
	exit(2);
}

static void parse_args(int argc, char **argv)
{
	int ch;

	while ((ch = getopt(argc, argv, "d:g:6l:r:P:q:n:S:c:L")) != -1) {
		switch (ch) {
		case 'd': opt.dev = optarg; break;
		case 'g': opt.gidx = atoi(optarg); break;
		case '6': opt.ipv6 = true; break;
		case 'l': opt.laddr = optarg; break;
		case 'r': opt.raddr = optarg; break;
		case 'P': opt.peer_ns = optarg; break;
		case 'q': opt.peer_qpn = strtoul(optarg, NULL, 0) & 0xffffff;
			break;
		case 'n': opt.garbage = atol(optarg); break;
		case 'S': opt.seed = strtoull(optarg, NULL, 0); break;
		case 'c': opt.only = optarg; break;
		case 'L': opt.list = true; break;
		default: usage(argv[0]);
		}
	}
	if (!opt.laddr)
		opt.laddr = opt.ipv6 ? "fd77::2" : "192.168.77.2";
	if (!opt.raddr)
		opt.raddr = opt.ipv6 ? "fd77::1" : "192.168.77.1";
	if (!opt.list && !opt.dev)
		usage(argv[0]);
}

static void list_cases(void)
{
	size_t i;

	for (i = 0; i < NCASES; i++)
		if (case_applies(&cases[i]))
			printf("%s\t%s\n", cases[i].name, cases[i].desc);
	printf("garbage\trandom packets, valid ICRC, at a live QP: no memory outside the MRs touched\n");
	printf("write_valid_after_garbage\tvalid WRITE ONLY after the garbage: ACK, bytes land\n");
}

static int setup(void)
{
	if (addr_parse(opt.laddr, &net.local) ||
	    addr_parse(opt.raddr, &net.peer))
		return -1;
	/* The spoofed source: the peer's address + 2 (.3 or ::3). */
	net.spoof = net.peer;
	if (opt.ipv6)
		net.spoof.v6.s6_addr[15] += 2;
	else
		net.spoof.v4.s_addr = htonl(ntohl(net.peer.v4.s_addr) + 2);
	addr_gid(&net.peer, &v.peer_gid);
	if (cnt_open() || verbs_open() || net_open())
		return -1;
	return 0;
}

int main(int argc, char **argv)
{
	size_t i;

	setvbuf(stdout, NULL, _IOLBF, 0);
	parse_args(argc, argv);
	if (opt.list) {
		list_cases();
		return 0;
	}
	if (!opt.seed)
		opt.seed = (uint64_t)time(NULL) ^ ((uint64_t)getpid() << 32);
	rng_state = opt.seed | 1;
	if (setup()) {
		printf("Bail out! setup failed\n");
		return 2;
	}
	diag("device %s, GID index %d, %s -> %s, peer QPN %#x, seed %#" PRIx64,
	     opt.dev, opt.gidx, opt.raddr, opt.laddr, opt.peer_qpn, opt.seed);
	for (i = 0; i < NCASES; i++)
		if (case_applies(&cases[i]) &&
		    (!opt.only || !strcmp(opt.only, cases[i].name)))
			run_case(&cases[i], cases[i].name);
	if (opt.garbage > 0 && (!opt.only || !strcmp(opt.only, "garbage"))) {
		garbage_run(opt.garbage);
		for (i = 0; i < NCASES; i++)
			if (cases[i].fn == case_write_valid)
				run_case(&cases[i],
					 "write_valid_after_garbage");
	}
	printf("1..%d\n", tap_n);
	return tap_failed ? 1 : 0;
}
