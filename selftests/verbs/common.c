// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
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
