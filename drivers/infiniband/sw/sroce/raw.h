/* SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause */
/*
 * Raw packet QPs (raw.c) and the flow steering rules that feed them
 * (flow.c).
 *
 * A raw packet QP sends whole Ethernet frames, built by its consumer,
 * out of the device's netdev, and receives the frames its flows match,
 * from the destination MAC on.  Creating one takes CAP_NET_RAW, as for a
 * packet socket (ib_core checks).  The netdev's stack keeps its frames:
 * a flow gets a copy of what it matches and takes nothing away from IP,
 * which a software device could not do without starving the host.
 */
#ifndef _SROCE_RAW_H
#define _SROCE_RAW_H

#include <linux/list.h>
#include <linux/mutex.h>
#include <linux/netdevice.h>

/* A device's flows: written under @lock, read under RCU by @tap. */
struct sroce_flows {
	struct mutex lock;
	struct list_head list;
	u32 n;
	struct packet_type tap;		/* on the netdev while @n > 0 */
};

struct sroce_dev;
struct sroce_qp;

#define SROCE_MAX_FLOWS		1024	/* per device */

struct sroce_swqe;

bool sroce_raw_enabled(void);

/* raw.c: UD's send and receive loops (ud.c) call these for raw QPs. */
enum ib_wc_status sroce_raw_validate(struct sroce_qp *qp,
				     struct sroce_swqe *w, u8 *raw,
				     const u8 *slot);
int sroce_raw_xmit(struct sroce_qp *qp, struct sroce_swqe *w);
void sroce_raw_recv(struct sroce_qp *qp, struct sk_buff *skb);
void sroce_raw_deliver(struct sroce_qp *qp, struct sk_buff *skb, bool local);
int sroce_raw_wqe_from_wr(const struct ib_send_wr *wr);

/*
 * rss.c: RSS QPs, raw packet QPs created with an indirection table (its
 * WQs and the tables themselves are in wq.h).
 */
struct ib_qp_init_attr;
struct sroce_create_qp_req;
struct sroce_flow_key;
int sroce_rss_qp_check(const struct ib_qp_init_attr *init,
		       struct ib_udata *udata);
int sroce_rss_qp_init(struct sroce_qp *qp,
		      const struct sroce_create_qp_req *req);
int sroce_rss_qp_rings(struct sroce_qp *qp, struct ib_qp_init_attr *init);
void sroce_rss_qp_free(struct sroce_qp *qp);
void sroce_rss_deliver(struct sroce_qp *qp, struct sk_buff *skb,
		       const struct sroce_flow_key *key, bool local);
bool sroce_rss_run(struct sroce_qp *qp, int budget);

/* flow.c */
void sroce_flows_init(struct sroce_dev *sdev);
void sroce_flows_destroy(struct sroce_dev *sdev);
struct ib_flow *sroce_flow_create(struct ib_qp *ibqp,
				  struct ib_flow_attr *attr,
				  struct ib_udata *udata);
int sroce_flow_destroy(struct ib_flow *ibflow);
void sroce_flows_recv(struct sroce_dev *sdev, struct sk_buff *skb,
		      bool local);

#endif /* _SROCE_RAW_H */
