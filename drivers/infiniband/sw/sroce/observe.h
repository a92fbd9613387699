/* SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause */
/*
 * Looking at a live device from outside the engine: a QP's transport
 * state as `rdma resource show qp -dd` shows it (restrack.c) and as
 * debugfs lists it (debugfs.c), both from one snapshot (qp_snap.c).
 */
#ifndef _SROCE_OBSERVE_H
#define _SROCE_OBSERVE_H

#include <linux/types.h>
#include <rdma/ib_verbs.h>

struct sroce_dev;
struct sroce_qp;
struct sk_buff;

/*
 * One named number of a snapshot; the names are stable (sroce(7)).  A
 * live sequence number (seq) is what an off-path forger lacks: only
 * root-only views show it (G2 in Documentation/security.rst).
 */
struct sroce_snap_field {
	const char *name;
	u32 val;
	bool seq;
};

#define SROCE_SNAP_FIELDS_MAX	32

/*
 * A QP's transport state, read without stopping its engine: each field
 * is a single racy read, so fields of one snapshot may be a packet apart.
 */
struct sroce_qp_snap {
	u32 qpn;
	enum ib_qp_type type;
	enum ib_qp_state state;
	const char *cc;			/* congestion control; RC only */
	const char *sr;			/* selective repeat; RC only */
	unsigned int n;
	struct sroce_snap_field f[SROCE_SNAP_FIELDS_MAX];
};

/* qp_snap.c */
void sroce_qp_snap(struct sroce_qp *qp, struct sroce_qp_snap *s);
const char *sroce_qp_type_name(enum ib_qp_type type);
const char *sroce_qp_state_name(enum ib_qp_state state);

/* restrack.c: ib_device_ops.fill_res_qp_entry */
int sroce_restrack_fill_qp(struct sk_buff *msg, struct ib_qp *ibqp);

/* debugfs.c: /sys/kernel/debug/sroce/<dev>/{qps,counters} */
void sroce_debugfs_init(void);
void sroce_debugfs_exit(void);
void sroce_debugfs_add(struct sroce_dev *sdev);
void sroce_debugfs_del(struct sroce_dev *sdev);

#endif /* _SROCE_OBSERVE_H */
