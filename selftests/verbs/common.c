// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
#include <getopt.h>
#include <inttypes.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "common.h"

int tap_n, tap_failed;

bool tap(bool ok, const char *fmt, ...)
{
	va_list ap;

	printf("%s %d - ", ok ? "ok" : "not ok", ++tap_n);
	va_start(ap, fmt);
	vprintf(fmt, ap);
	va_end(ap);
	putchar('\n');
	/* The runner may kill a hung program: what it said must be out. */
	fflush(stdout);
	tap_failed += !ok;
	return ok;
}

void diag(const char *fmt, ...)
{
	va_list ap;

	fputs("# ", stdout);
	va_start(ap, fmt);
	vprintf(fmt, ap);
	va_end(ap);
	putchar('\n');
}

const char *dev_name[2];
int gid_idx[2] = { 0, -1 };

bool dev_opt(int c, const char *arg)
{
	switch (c) {
	case 'd':
		dev_name[0] = arg;
		return true;
	case 'D':
		dev_name[1] = arg;
		return true;
	case 'g':
		gid_idx[0] = atoi(arg);
		return true;
	case 'G':
		gid_idx[1] = atoi(arg);
		return true;
	}
	return false;
}

bool dev_opts_done(void)
{
	if (!dev_name[0])
		return false;
	if (!dev_name[1])
		dev_name[1] = dev_name[0];
	if (gid_idx[1] < 0)
		gid_idx[1] = gid_idx[0];
	return true;
}

void verify_args(int argc, char **argv, bool *verbose)
{
	int c;

	while ((c = getopt(argc, argv, "d:D:g:G:v")) != -1) {
		if (c == 'v')
			*verbose = true;
		else if (!dev_opt(c, optarg))
			goto usage;
	}
	if (dev_opts_done()) {
		/* TAP lines reach a runner that may kill us, one by one. */
		setvbuf(stdout, NULL, _IOLBF, 0);
		return;
	}
usage:
	fprintf(stderr, "usage: %s -d DEV1 -D DEV2 [-g GIDIDX] [-G GIDIDX2] [-v]\n",
		argv[0]);
	exit(2);
}

struct ibv_context *open_dev(const char *name)
{
	struct ibv_device **list = ibv_get_device_list(NULL);
	struct ibv_context *ctx = NULL;
	int i;

	for (i = 0; list && list[i]; i++)
		if (!strcmp(ibv_get_device_name(list[i]), name))
			ctx = ibv_open_device(list[i]);
	ibv_free_device_list(list);
	return ctx;
}

long ms_since(const struct timespec *t0)
{
	struct timespec t;

	clock_gettime(CLOCK_MONOTONIC, &t);
	return (t.tv_sec - t0->tv_sec) * 1000 +
	       (t.tv_nsec - t0->tv_nsec) / 1000000;
}

int poll_one_ms(struct ibv_cq *cq, struct ibv_wc *wc, int ms)
{
	struct timespec t0;
	int n;

	clock_gettime(CLOCK_MONOTONIC, &t0);
	for (;;) {
		n = ibv_poll_cq(cq, 1, wc);
		if (n)
			return n > 0 ? 0 : -1;
		if (ms_since(&t0) > ms)
			return -1;
		usleep(100);
	}
}

static int rc_modify(struct ibv_qp *qp, struct ibv_qp_attr *a, int mask,
		     const char *to)
{
	int ret = ibv_modify_qp(qp, a, mask);

	if (ret)
		diag("modify_qp to %s: %s", to, strerror(ret));
	return ret;
}

int rc_connect_to(struct ibv_qp *qp, const struct rc_peer *p)
{
	struct ibv_qp_attr a = {
		.qp_state = IBV_QPS_INIT, .port_num = 1,
		.qp_access_flags = IBV_ACCESS_LOCAL_WRITE |
				   IBV_ACCESS_REMOTE_WRITE |
				   IBV_ACCESS_REMOTE_READ |
				   IBV_ACCESS_REMOTE_ATOMIC,
	};

	if (rc_modify(qp, &a, IBV_QP_STATE | IBV_QP_PKEY_INDEX | IBV_QP_PORT |
		      IBV_QP_ACCESS_FLAGS, "INIT"))
		return -1;
	a = (struct ibv_qp_attr){
		.qp_state = IBV_QPS_RTR, .path_mtu = p->mtu,
		.dest_qp_num = p->qpn, .rq_psn = p->psn,
		.max_dest_rd_atomic = p->dest_rd_atomic, .min_rnr_timer = 12,
		.ah_attr = {
			.is_global = 1, .port_num = 1,
			.grh = { .dgid = p->gid, .sgid_index = p->sgid_idx,
				 .hop_limit = 64 },
		},
	};
	if (rc_modify(qp, &a, IBV_QP_STATE | IBV_QP_AV | IBV_QP_PATH_MTU |
		      IBV_QP_DEST_QPN | IBV_QP_RQ_PSN |
		      IBV_QP_MAX_DEST_RD_ATOMIC | IBV_QP_MIN_RNR_TIMER, "RTR"))
		return -1;
	a = (struct ibv_qp_attr){
		.qp_state = IBV_QPS_RTS, .sq_psn = p->my_psn, .timeout = 14,
		.retry_cnt = 7, .rnr_retry = 7, .max_rd_atomic = p->rd_atomic,
	};
	return rc_modify(qp, &a, IBV_QP_STATE | IBV_QP_SQ_PSN | IBV_QP_TIMEOUT |
			 IBV_QP_RETRY_CNT | IBV_QP_RNR_RETRY |
			 IBV_QP_MAX_QP_RD_ATOMIC, "RTS");
}

long port_counter(const char *dev, const char *name)
{
	char path[256];
	long v = -1;
	FILE *f;

	snprintf(path, sizeof(path),
		 "/sys/class/infiniband/%s/ports/1/hw_counters/%s", dev, name);
	f = fopen(path, "r");
	if (!f)
		return -1;
	if (fscanf(f, "%ld", &v) != 1)
		v = -1;
	fclose(f);
	return v;
}

void drain_cq(struct ibv_cq *cq, bool verbose)
{
	struct ibv_wc wc;

	while (ibv_poll_cq(cq, 1, &wc) > 0)
		if (verbose)
			diag("drained wr %" PRIu64 ": %s", wc.wr_id,
			     ibv_wc_status_str(wc.status));
}
