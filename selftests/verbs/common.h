/* SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause */
/*
 * What the *_verify programs share: TAP output, opening a device by name
 * and waiting for one completion.  Linked into each of them.
 */
#ifndef SROCE_VERBS_COMMON_H
#define SROCE_VERBS_COMMON_H

#include <stdbool.h>
#include <stdint.h>
#include <time.h>
#include <infiniband/verbs.h>

/* Test points printed so far, and how many of them failed. */
extern int tap_n, tap_failed;

/* One TAP line, "ok N - ..." or "not ok N - ..."; returns @ok. */
bool tap(bool ok, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
/* A "# ..." diagnostic line. */
void diag(const char *fmt, ...) __attribute__((format(printf, 1, 2)));

/*
 * Two devices from the command line: -d DEV, -D DEV2 (DEV by default:
 * loopback), -g GIDX and -G GIDX2 (GIDX by default).
 */
extern const char *dev_name[2];
extern int gid_idx[2];
/* Take getopt's @c if it is one of those four: true if it was. */
bool dev_opt(int c, const char *arg);
/* After getopt: fill in the defaults; false if -d was missing. */
bool dev_opts_done(void);

/* The usual command line: -d, -D, -g, -G and -v; exit(2) with a usage
 * line if it is wrong. */
void verify_args(int argc, char **argv, bool *verbose);

/* Open the device called @name, NULL if there is none. */
struct ibv_context *open_dev(const char *name);

/* Poll @cq for one completion for up to @ms ms: 0 with @wc filled, or -1. */
int poll_one_ms(struct ibv_cq *cq, struct ibv_wc *wc, int ms);

/*
 * An RC connection as one end sees it: the far end's QP number, GID and
 * starting PSN; our own PSN, local GID index, path MTU, and READ/atomic
 * depths (dest_rd_atomic: the far end's requests we take at once;
 * rd_atomic: ours in flight).
 */
struct rc_peer {
	uint32_t qpn;
	union ibv_gid gid;
	uint32_t psn;
	uint32_t my_psn;
	int sgid_idx;
	enum ibv_mtu mtu;
	uint8_t dest_rd_atomic;
	uint8_t rd_atomic;
};

/*
 * RESET -> INIT -> RTR -> RTS towards @p: RoCE v2, every remote access,
 * timeout 14, 7 retries, RNR retry for ever.  0, or -1 with a diagnostic.
 */
int rc_connect_to(struct ibv_qp *qp, const struct rc_peer *p);

/* Port 1 hw counter @name of device @dev (sysfs), or -1. */
long port_counter(const char *dev, const char *name);

/* Poll @cq until it is empty; with @verbose, say what was there. */
void drain_cq(struct ibv_cq *cq, bool verbose);

/* Milliseconds since @t0 (CLOCK_MONOTONIC). */
long ms_since(const struct timespec *t0);

#endif
