// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * mcast_verify - UD multicast through ibv_attach_mcast, checked one by one.
 *
 *   mcast_verify -d SDEV -D RDEV -g SGIDX -m GROUP [-x CMD] [-y CMD]
 *
 * GROUP is an IPv4 (239.x.y.z) or IPv6 (ff0e::...) multicast address;
 * its MGID is the v4-mapped address or the IPv6 address itself, as
 * rdma_cm makes them for RoCE v2.  A UD QP on SDEV (source GID SGIDX)
 * sends to the MGID, DestQP 0xFFFFFF; NRCV UD QPs on RDEV (which may be
 * SDEV: loopback) attach to it, one more QP on RDEV does not.  Checked,
 * as TAP:
 *
 *  - the device offers multicast (max_mcast_grp, max_mcast_qp_attach);
 *  - attaching every receiver succeeds; with -x, CMD (a shell command,
 *    e.g. one that looks for the group in `ip maddr`) succeeds while they
 *    are attached;
 *  - every attached QP receives every message, with its bytes, the
 *    sender's QPN and a GRH naming the group; the QP not attached and a
 *    QP attached with the wrong Q_Key receive nothing;
 *  - after one receiver detaches it receives nothing, the others still
 *    do; a second detach of it fails;
 *  - once all have detached, nothing arrives anywhere; with -y, CMD
 *    (e.g. one that checks the group is gone from `ip maddr`) succeeds.
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

#define NRCV		3		/* attached receivers */
#define NMSG		4		/* messages per round */
#define MSG		256
#define GRH		40
#define SLOT		(GRH + MSG)
#define QKEY		0x22222222
#define MCAST_QPN	0xffffff
#define WAIT_MS		3000
#define QUIET_MS	700

static const char *sdev_name, *rdev_name, *group, *cmd_on, *cmd_off;
static int sgid_idx;
static union ibv_gid mgid;

struct ud {
	struct ibv_context *ctx;
	struct ibv_pd *pd;
	struct ibv_cq *cq;
	struct ibv_qp *qp;
	struct ibv_mr *mr;
	uint8_t *buf;		/* NMSG receive slots, or the send buffer */
	bool attached;
};

/* rcv[0..NRCV-1] attached, rcv[NRCV] never, rcv[NRCV+1] wrong Q_Key. */
#define NQP	(NRCV + 2)
static struct ud snd, rcv[NQP];
static struct ibv_ah *ah;

static int parse_group(const char *s, union ibv_gid *gid)
{
	struct in_addr a4;

	memset(gid, 0, sizeof(*gid));
	if (inet_pton(AF_INET, s, &a4) == 1) {
		gid->raw[10] = gid->raw[11] = 0xff;
		memcpy(&gid->raw[12], &a4, 4);
		return 0;
	}
	return inet_pton(AF_INET6, s, gid->raw) == 1 ? 0 : -1;
}

static int ud_init(struct ud *u, struct ibv_context *ctx, uint32_t qkey,
		   bool rts)
{
	struct ibv_qp_init_attr init = {
		.qp_type = IBV_QPT_UD, .sq_sig_all = 1,
		.cap = { .max_send_wr = NMSG * 2, .max_recv_wr = NMSG * 4,
			 .max_send_sge = 1, .max_recv_sge = 1 },
	};
	struct ibv_qp_attr a = {
		.qp_state = IBV_QPS_INIT, .port_num = 1, .qkey = qkey,
	};

	u->ctx = ctx;
	u->pd = ibv_alloc_pd(ctx);
	u->cq = ibv_create_cq(ctx, NMSG * 8, NULL, NULL, 0);
	u->buf = calloc(NMSG * 4, SLOT);
	if (!u->pd || !u->cq || !u->buf)
		return ENOMEM;
	u->mr = ibv_reg_mr(u->pd, u->buf, NMSG * 4 * SLOT,
			   IBV_ACCESS_LOCAL_WRITE);
	if (!u->mr)
		return errno;
	init.send_cq = init.recv_cq = u->cq;
	u->qp = ibv_create_qp(u->pd, &init);
	if (!u->qp)
		return errno;
	if (ibv_modify_qp(u->qp, &a, IBV_QP_STATE | IBV_QP_PKEY_INDEX |
			  IBV_QP_PORT | IBV_QP_QKEY))
		return errno;
	a.qp_state = IBV_QPS_RTR;
	if (ibv_modify_qp(u->qp, &a, IBV_QP_STATE))
		return errno;
	if (!rts)
		return 0;
	a.qp_state = IBV_QPS_RTS;
	a.sq_psn = 0;
	return ibv_modify_qp(u->qp, &a, IBV_QP_STATE | IBV_QP_SQ_PSN) ? errno : 0;
}

static int post_recvs(struct ud *u)
{
	struct ibv_sge sge = { .length = SLOT, .lkey = u->mr->lkey };
	struct ibv_recv_wr wr = { .sg_list = &sge, .num_sge = 1 }, *bad;
	int i;

	for (i = 0; i < NMSG * 4; i++) {
		sge.addr = (uintptr_t)(u->buf + i * SLOT);
		wr.wr_id = i;
		if (ibv_post_recv(u->qp, &wr, &bad))
			return -1;
	}
	return 0;
}

static uint8_t pat(unsigned int round, unsigned int k, unsigned int i)
{
	return (uint8_t)(round * 131 + k * 31 + i * 7 + 1);
}

/* Send NMSG messages of round @round to the group; 0 when all left. */
static int send_round(unsigned int round)
{
	struct ibv_sge sge = { .addr = (uintptr_t)snd.buf, .length = MSG,
			       .lkey = snd.mr->lkey };
	struct ibv_send_wr wr = {
		.sg_list = &sge, .num_sge = 1, .opcode = IBV_WR_SEND,
		.wr.ud = { .ah = ah, .remote_qpn = MCAST_QPN,
			   .remote_qkey = QKEY },
	}, *bad;
	struct ibv_wc wc;
	unsigned int k, i, got = 0;
	struct timespec t0, t;

	for (k = 0; k < NMSG; k++) {
		for (i = 0; i < MSG; i++)
			snd.buf[i] = pat(round, k, i);
		wr.wr_id = k;
		if (ibv_post_send(snd.qp, &wr, &bad))
			return -1;
		/* One at a time: the buffer is reused. */
		clock_gettime(CLOCK_MONOTONIC, &t0);
		while (got <= k) {
			int n = ibv_poll_cq(snd.cq, 1, &wc);

			if (n < 0 || (n && wc.status != IBV_WC_SUCCESS))
				return -1;
			got += n;
			clock_gettime(CLOCK_MONOTONIC, &t);
			if (t.tv_sec - t0.tv_sec > WAIT_MS / 1000)
				return -1;
		}
	}
	return 0;
}

/* A received slot: its GRH names the group, its bytes are message @k's. */
static int check_msg(const uint8_t *p, unsigned int round, int k)
{
	unsigned int i;

	/* GRH: an IPv6 header's daddr at 24, an IPv4 header's at 36. */
	if (memcmp(p + 24, mgid.raw, 16) && memcmp(p + 36, mgid.raw + 12, 4)) {
		diag("GRH does not name the group");
		return 1;
	}
	for (i = 0; i < MSG; i++) {
		if (p[GRH + i] != pat(round, k, i)) {
			diag("message %d: byte %u wrong", k, i);
			return 1;
		}
	}
	return 0;
}

static void repost(struct ud *u, uint64_t slot)
{
	struct ibv_sge sge = {
		.addr = (uintptr_t)(u->buf + slot * SLOT), .length = SLOT,
		.lkey = u->mr->lkey,
	};
	struct ibv_recv_wr wr = { .wr_id = slot, .sg_list = &sge,
				  .num_sge = 1 }, *bad;

	if (ibv_post_recv(u->qp, &wr, &bad))
		diag("repost: %s", strerror(errno));
}

/*
 * Receive completions on @u for up to @ms; checks each against round
 * @round.  Returns the count of good ones, -1 on a bad one.
 */
static int drain(struct ud *u, unsigned int round, int want, int ms)
{
	struct timespec t0, t;
	struct ibv_wc wc;
	int got = 0, bad = 0;
	long el;

	clock_gettime(CLOCK_MONOTONIC, &t0);
	do {
		int n = ibv_poll_cq(u->cq, 1, &wc);

		if (n > 0) {
			const uint8_t *p = u->buf + wc.wr_id * SLOT;

			if (wc.status != IBV_WC_SUCCESS ||
			    wc.byte_len != SLOT || wc.src_qp != snd.qp->qp_num ||
			    !(wc.wc_flags & IBV_WC_GRH)) {
				diag("bad completion: %s, %u bytes, src_qp %u",
				     ibv_wc_status_str(wc.status),
				     wc.byte_len, wc.src_qp);
				bad++;
			} else {
				bad += check_msg(p, round, got++);
			}
			repost(u, wc.wr_id);
		}
		clock_gettime(CLOCK_MONOTONIC, &t);
		el = (t.tv_sec - t0.tv_sec) * 1000 +
		     (t.tv_nsec - t0.tv_nsec) / 1000000;
		if (!n)
			usleep(200);
	} while (el < ms && (want < 0 || got < want));
	return bad ? -1 : got;
}

static int run(const char *what, int cmd_ok)
{
	int r;

	if (!cmd_ok)
		return 0;
	r = system(what);
	if (r)
		diag("'%s' exited %d", what, r);
	return r;
}

/* One round: who must get every message, who must get none. */
static void round_check(unsigned int round, const char *when,
			const bool *member)
{
	int i, n[NQP];
	bool ok_in = true, ok_out = true;

	if (send_round(round)) {
		tap(false, "%s: round %u sent", when, round);
		tap(false, "%s: ... (not checked)", when);
		return;
	}
	for (i = 0; i < NQP; i++) {
		n[i] = drain(&rcv[i], round, member[i] ? NMSG : -1,
			     member[i] ? WAIT_MS : QUIET_MS);
		if (member[i] && n[i] != NMSG)
			ok_in = false;
		if (!member[i] && n[i] != 0)
			ok_out = false;
	}
	tap(ok_in, "%s: every attached QP got all %d messages (%d %d %d)",
	    when, NMSG, n[0], n[1], n[2]);
	tap(ok_out, "%s: no message for the others (%d %d %d, unattached %d, wrong Q_Key %d)",
	    when, member[0] ? 0 : n[0], member[1] ? 0 : n[1],
	    member[2] ? 0 : n[2], n[NRCV], n[NRCV + 1]);
}

static int setup(void)
{
	struct ibv_context *sctx = open_dev(sdev_name);
	struct ibv_context *rctx = rdev_name ? open_dev(rdev_name) : sctx;
	struct ibv_ah_attr aa = {
		.is_global = 1, .port_num = 1,
		.grh = { .sgid_index = sgid_idx, .hop_limit = 8 },
	};
	struct ibv_device_attr da;
	int i, err;

	if (!sctx || !rctx)
		return ENODEV;
	if (ibv_query_device(rctx, &da))
		return errno;
	tap(da.max_mcast_grp > 0 && da.max_mcast_qp_attach >= NRCV + 1 &&
	    da.max_total_mcast_qp_attach >= da.max_mcast_qp_attach,
	    "%s offers multicast: %d groups, %d QPs each, %d in all",
	    rdev_name ?: sdev_name, da.max_mcast_grp, da.max_mcast_qp_attach,
	    da.max_total_mcast_qp_attach);
	err = ud_init(&snd, sctx, QKEY, true);
	for (i = 0; i < NQP && !err; i++)
		err = ud_init(&rcv[i], rctx, i == NRCV + 1 ? QKEY + 1 : QKEY,
			      false) ?: post_recvs(&rcv[i]);
	if (err)
		return err;
	aa.grh.dgid = mgid;
	ah = ibv_create_ah(snd.pd, &aa);
	return ah ? 0 : errno;
}

static void usage(void)
{
	fprintf(stderr, "usage: mcast_verify -d SDEV [-D RDEV] -g SGIDX -m GROUP [-x CMD] [-y CMD]\n");
	exit(2);
}

int main(int argc, char **argv)
{
	bool member[NQP] = { true, true, true, false, true };
	int c, i, err;
	bool ok;

	while ((c = getopt(argc, argv, "d:D:g:m:x:y:")) != -1) {
		switch (c) {
		case 'd': sdev_name = optarg; break;
		case 'D': rdev_name = optarg; break;
		case 'g': sgid_idx = atoi(optarg); break;
		case 'm': group = optarg; break;
		case 'x': cmd_on = optarg; break;
		case 'y': cmd_off = optarg; break;
		default: usage();
		}
	}
	if (!sdev_name || !group || parse_group(group, &mgid))
		usage();

	printf("1..11\n");
	err = setup();
	if (err) {
		printf("Bail out! setup: %s\n", strerror(err));
		return 1;
	}

	ok = true;
	for (i = 0; i < NQP; i++) {
		if (i == NRCV)
			continue;	/* the one never attached */
		if (ibv_attach_mcast(rcv[i].qp, &mgid, 0)) {
			diag("attach QP %u: %s", rcv[i].qp->qp_num,
			     strerror(errno));
			ok = false;
		}
		rcv[i].attached = true;
	}
	tap(ok, "%d QPs attached to %s", NRCV + 1, group);
	tap(!run(cmd_on, !!cmd_on), "while attached: %s",
	    cmd_on ?: "(no command)");

	/* The wrong Q_Key's QP is attached but must drop everything. */
	member[NRCV + 1] = false;
	round_check(1, "attached", member);

	ok = !ibv_detach_mcast(rcv[0].qp, &mgid, 0);
	rcv[0].attached = false;
	tap(ok, "QP %u detached", rcv[0].qp->qp_num);
	tap(ibv_detach_mcast(rcv[0].qp, &mgid, 0) != 0,
	    "... a second detach fails");
	member[0] = false;
	round_check(2, "one detached", member);

	ok = true;
	for (i = 1; i < NQP; i++) {
		if (!rcv[i].attached)
			continue;
		ok &= !ibv_detach_mcast(rcv[i].qp, &mgid, 0);
		rcv[i].attached = false;
		member[i] = false;
	}
	if (send_round(3))
		ok = false;
	for (i = 0; i < NQP; i++)
		ok &= drain(&rcv[i], 3, -1, i ? 100 : QUIET_MS) == 0;
	tap(ok, "all detached: nothing arrives");
	tap(!run(cmd_off, !!cmd_off), "after the last detach: %s",
	    cmd_off ?: "(no command)");

	for (i = 0; i < NQP; i++)
		ibv_destroy_qp(rcv[i].qp);
	ibv_destroy_qp(snd.qp);
	return tap_failed ? 1 : 0;
}
