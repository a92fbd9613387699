/* SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause */
/*
 * UD multicast (mcast.c): groups a device's QPs are attached to.
 */
#ifndef _SROCE_MCAST_H
#define _SROCE_MCAST_H

#include <linux/list.h>
#include <linux/mutex.h>
#include <rdma/ib_verbs.h>

#define SROCE_MCAST_QPN			0xffffff	/* BTH DestQP of a group */
#define SROCE_MAX_MCAST_GRP		256	/* groups per device */
#define SROCE_MAX_MCAST_QP_ATTACH	64	/* QPs per group */

/* A device's groups: written under @lock, read under RCU. */
struct sroce_mcast {
	struct mutex lock;
	struct list_head groups;
	u32 ngroups;
};

struct sroce_dev;

void sroce_mcast_init(struct sroce_dev *sdev);
void sroce_mcast_destroy(struct sroce_dev *sdev);
int sroce_mcast_attach(struct ib_qp *ibqp, union ib_gid *mgid, u16 mlid);
int sroce_mcast_detach(struct ib_qp *ibqp, union ib_gid *mgid, u16 mlid);
void sroce_mcast_recv(struct sroce_dev *sdev, struct sk_buff *skb);

#endif /* _SROCE_MCAST_H */
