/* SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause */
/*
 * sroce - software RoCEv2.  Shared declarations of the module.
 */
#ifndef _SROCE_H
#define _SROCE_H

#include <linux/netdevice.h>
#include <linux/refcount.h>
#include <linux/completion.h>
#include <linux/xarray.h>
#include <linux/idr.h>
#include <rdma/ib_verbs.h>
#include <rdma/uverbs_ioctl.h>
#include <rdma/sroce-abi.h>

#include "table.h"
#include "queue.h"
#include "engine.h"
#include "counters.h"
#include "srq.h"
#include "mcast.h"
#include "odp.h"
#include "raw.h"
#include "wq.h"
#include "proto/prio.h"

#ifndef SROCE_VERSION
#define SROCE_VERSION "0.0.0-unknown"
#endif

#define SROCE_PORT		1
#define SROCE_GID_TBL_LEN	128
#define SROCE_MAX_PD		0x10000
#define SROCE_MAX_MR		0x100000
#define SROCE_MAX_QP		0x10000
#define SROCE_MAX_QP_WR		0x4000
#define SROCE_MAX_SGE		32
#define SROCE_MAX_INLINE	512
#define SROCE_MAX_CQ		0x10000
#define SROCE_MAX_CQE_DEV	(1 << 20)
#define SROCE_MAX_RD_ATOMIC	128
#define SROCE_MAX_SRQ		0x10000
#define SROCE_MAX_AH		0x100000
#define SROCE_VENDOR_ID		0xffffff	/* no OUI: a software device */
#define SROCE_UDP_PORT		4791		/* IANA: RoCEv2 */

struct sroce_pernet;
struct sroce_rss_conf;

/* A namespace's RoCEv2 sockets, shared by its devices (net.c). */
struct sroce_net {
	refcount_t ref;
	struct socket __rcu *sock4;
	struct socket __rcu *sock6;
	/* NULL once the namespace has gone away. */
	struct sroce_pernet *pernet;
	atomic64_t rx_dropped;
};

struct sroce_dev {
	struct ib_device ibdev;
	/*
	 * ib_core holds a reference on the netdev from ib_device_set_netdev()
	 * until the device is unregistered, so this pointer is valid for as
	 * long as any verb can run.
	 */
	struct net_device *ndev;
	struct sroce_net *snet;
	struct ib_device_attr attr;

	struct ida pd_ida;
	struct sroce_table mr_table;
	struct sroce_table qp_table;
	struct sroce_table mw_table;	/* memory windows (mw.c) */
	struct sroce_table srq_table;	/* XRC SRQs by number (xrc.c) */

	/* Last port state reported, so events fire on edges only. */
	enum ib_port_state port_state;
	spinlock_t port_lock;

	/* Transport engine (counters.h): drops, retransmits, NAKs... */
	struct sroce_counters cnt;

	/* Address handles by number (ah.c). */
	struct xarray ah_xa;
	u32 ah_next;

	struct dentry *debugfs;		/* its directory (debugfs.c) */

	/* Multicast groups its UD QPs are attached to (mcast.c). */
	struct sroce_mcast mcast;
	/* Flow steering rules of its raw packet QPs (flow.c). */
	struct sroce_flows flows;
	/* Numbers of its receive WQs and indirection tables (wq.c, rss.c). */
	struct ida wq_ida;
	struct ida rwq_ind_tbl_ida;

	/* The ib_device's sysfs parent and its net/ link's name (parent.c). */
	struct device *parent;
	char parent_link[IFNAMSIZ];

	/* Offer and accept selective repeat (sr.c); sysfs, read at RTR/RTS. */
	bool sr;
	/* Offer and accept ICRC elision (elide.c); sysfs, read at RTR/RTS. */
	bool icrc_elide;
	/* Being unregistered: local delivery takes no reference (local.c). */
	bool going;
	/* Congestion control of its QPs (cc.c); sysfs, read at RTS. */
	u8 cc;
	/* Bytes its QPs hold beyond gaps (sr.c), against a device bound. */
	atomic_long_t ofo_bytes;
	/*
	 * Per priority class, the jiffies until which it counts as active
	 * (proto/prio.h): lower classes yield to it meanwhile (net_tx.c).
	 */
	unsigned long prio_until[SROCE_PRIO_CLASSES];
};

static inline struct sroce_dev *to_sdev(struct ib_device *ibdev)
{
	return container_of(ibdev, struct sroce_dev, ibdev);
}

struct sroce_ucontext {
	struct ib_ucontext ibuc;
};

struct sroce_pd {
	struct ib_pd ibpd;
	u32 pdn;
};

static inline struct sroce_pd *to_spd(struct ib_pd *ibpd)
{
	return container_of(ibpd, struct sroce_pd, ibpd);
}

enum sroce_mr_type {
	SROCE_MR_DMA,	/* kernel: iova is a kernel virtual address */
	SROCE_MR_USER,	/* pinned user pages from ib_umem */
	SROCE_MR_FAST,	/* kernel: fast registration (frmr.c) */
	SROCE_MR_ODP,	/* user memory, not pinned: on-demand paging (odp.c) */
	SROCE_MR_DM,	/* device memory: pages of a DM (dm.c), iova 0 */
};

/* A fast registration MR's page list layout (frmr.c). */
struct sroce_fr_layout {
	u32 npages;
	u32 offset;		/* of the first byte in the first page */
	u8 shift;		/* log2 of the page size */
};

struct sroce_frmr {
	/* Registrations and invalidations; BHs off. */
	spinlock_t lock;
	/* Kernel virtual addresses (virt DMA) of the pages; max entries. */
	u64 *pages;
	u32 max;
	struct sroce_fr_layout map;	/* what map_mr_sg wrote */
	struct sroce_fr_layout reg;	/* what the valid registration uses */
};

struct sroce_mr {
	struct ib_mr ibmr;
	struct sroce_obj obj;
	/*
	 * The key lookups match (lkey == rkey).  Not ibmr.lkey: a fast
	 * registration consumer changes that itself (ib_update_fast_reg_key)
	 * before the REG_MR work request that makes the new key valid.
	 */
	u32 key;
	enum sroce_mr_type type;
	int access;
	u64 iova;
	u64 length;
	struct ib_umem *umem;
	struct page **pages;
	unsigned long npages;
	/* Offset of iova within pages[0]. */
	unsigned int page_offset;
	/* Memory windows bound to it; < 0: being deregistered (mw.c). */
	atomic_t mw_binds;
	/* Rereg in progress, or a fast MR not valid: lookups fail. */
	bool hidden;
	struct sroce_frmr fr;		/* SROCE_MR_FAST only */
	struct sroce_odp *odp;		/* SROCE_MR_ODP only */
};

static inline struct sroce_mr *to_smr(struct ib_mr *ibmr)
{
	return container_of(ibmr, struct sroce_mr, ibmr);
}

struct sroce_cq {
	struct ib_cq ibcq;
	/* Producers: the engines of every QP that completes here. */
	spinlock_t lock;
	struct sroce_queue q;
	bool user;
	u8 notify;		/* IB_CQ_SOLICITED / IB_CQ_NEXT_COMP armed */
	bool overflow;		/* CQ error: reported once, then all lost */
};

static inline struct sroce_cq *to_scq(struct ib_cq *ibcq)
{
	return container_of(ibcq, struct sroce_cq, ibcq);
}

/*
 * A resolved address vector: everything the send path needs to build the
 * IP/UDP headers of a packet to the peer.
 */
struct sroce_av {
	int network_type;	/* RDMA_NETWORK_IPV4 or RDMA_NETWORK_IPV6 */
	union ib_gid sgid;
	union ib_gid dgid;
	union {
		struct sockaddr_in in4;
		struct sockaddr_in6 in6;
	} saddr, daddr;
	u32 flow_label;
	u8 hop_limit;
	u8 traffic_class;
	u8 sl;			/* not on the wire: a priority class */
	u8 sgid_index;
	u8 dmac[ETH_ALEN];
};

struct sroce_qp {
	struct ib_qp ibqp;
	struct sroce_obj obj;		/* in sdev->qp_table, index == QPN */
	struct sroce_dev *sdev;
	struct sroce_pd *pd;
	struct sroce_cq *scq;
	struct sroce_cq *rcq;
	bool user;
	bool sq_sig_all;		/* IB_SIGNAL_ALL_WR */
	u8 cc_pref;			/* enum sroce_qp_cc: 0, the device's */

	struct sroce_queue sq;
	/*
	 * With an SRQ: a private slot for the WQE it lends (srq.h).  An XRC
	 * TGT QP has srq set only while its engine executes a packet, to the
	 * SRQ that packet names (xrc.c).
	 */
	struct sroce_queue rq;
	struct sroce_srq *srq;
	bool srq_last_wqe;		/* LAST_WQE_REACHED reported */
	struct ib_xrcd *xrcd;		/* XRC TGT: its domain */
	spinlock_t sq_lock;		/* kernel consumers posting */
	spinlock_t rq_lock;
	u32 max_send_sge;
	u32 max_recv_sge;
	u32 max_inline;

	/*
	 * Attributes, written by modify_qp under state_lock; the engine reads
	 * them only in states where modify_qp cannot change them.
	 */
	spinlock_t state_lock;
	enum ib_qp_state state;
	struct sroce_av av;
	enum ib_mtu path_mtu;
	u32 mtu;			/* bytes */
	u32 dest_qpn;
	u32 sq_psn;
	u32 rq_psn;
	u32 qkey;
	u16 src_port;			/* UDP source port: per-QP entropy */
	u8 timeout;
	u8 retry_cnt;
	u8 rnr_retry;
	u8 min_rnr_timer;
	u8 max_rd_atomic;
	u8 max_dest_rd_atomic;
	int access_flags;
	bool sq_draining;		/* SQD requested */

	/* Engine. */
	struct work_struct work;
	struct work_struct steer_work;	/* receive steering (engine.c) */
	struct sk_buff_head rxq;
	struct sroce_req req;
	struct sroce_resp resp;
	struct sroce_odp_fault odp;	/* odp.c */
	/* An RSS QP's hash configuration (rss.c); NULL for any other QP. */
	struct sroce_rss_conf *rss;
};

/* The priority class its packets go at (proto/prio.h). */
static inline unsigned int sroce_qp_prio(const struct sroce_qp *qp)
{
	return sroce_prio_class(READ_ONCE(qp->av.sl),
				READ_ONCE(qp->av.traffic_class));
}

static inline struct sroce_qp *to_sqp(struct ib_qp *ibqp)
{
	return container_of(ibqp, struct sroce_qp, ibqp);
}

/* device.c */
int sroce_device_add(const char *name, struct net_device *ndev);
extern const struct attribute_group sroce_device_attr_group;

/* sr.c, cc.c: module parameters, the defaults of each new device */
bool sroce_sr_default(void);
bool sroce_elide_default(void);
u8 sroce_cc_default_mode(void);
int sroce_cc_parse(const char *buf);
const char *sroce_cc_mode_name(u8 mode);

/* port.c */
int sroce_port_query(struct ib_device *ibdev, u32 port,
		     struct ib_port_attr *attr);
int sroce_port_immutable(struct ib_device *ibdev, u32 port,
			 struct ib_port_immutable *immutable);
enum rdma_link_layer sroce_port_link_layer(struct ib_device *ibdev, u32 port);
int sroce_port_query_pkey(struct ib_device *ibdev, u32 port, u16 index,
			  u16 *pkey);
void sroce_port_update(struct sroce_dev *sdev);
enum ib_mtu sroce_port_active_mtu(const struct sroce_dev *sdev);

/* net_tx.c (the rest of it is in rc.h) */
void sroce_tx_exit(void);

/* net.c */
int sroce_net_init(void);
void sroce_net_exit_module(void);
struct sroce_net *sroce_net_get(struct net *net);
void sroce_net_put(struct sroce_net *snet);

/* local.c: the per-CPU queues of local delivery. */
int sroce_local_init(void);
void sroce_local_exit(void);

/* net_rx.c: the receive path behind the encap hook (softirq). */
int sroce_net_rx(struct sroce_net *snet, struct sk_buff *skb);
void sroce_net_rx_dev(struct sroce_dev *sdev, struct sk_buff *skb,
		      bool local);

/* parent.c */
int sroce_parent_init(void);
void sroce_parent_exit(void);
int sroce_parent_add(struct sroce_dev *sdev);
void sroce_parent_del(struct sroce_dev *sdev);
void sroce_parent_rename(struct sroce_dev *sdev);

/* netdev.c */
int sroce_netdev_init(void);
void sroce_netdev_exit(void);

/* ucontext.c */
int sroce_ucontext_alloc(struct ib_ucontext *ibuc, struct ib_udata *udata);
void sroce_ucontext_dealloc(struct ib_ucontext *ibuc);
int sroce_ucontext_query(struct ib_ucontext *ibuc,
			 struct uverbs_attr_bundle *attrs);
extern const struct uapi_definition sroce_uapi_defs[];
void sroce_ucontext_disassociate(struct ib_ucontext *ibuc);

/* pd.c */
int sroce_pd_alloc(struct ib_pd *ibpd, struct ib_udata *udata);
int sroce_pd_dealloc(struct ib_pd *ibpd, struct ib_udata *udata);

/* cq.c */
int sroce_cq_create(struct ib_cq *ibcq, const struct ib_cq_init_attr *attr,
		    struct ib_udata *udata);
int sroce_cq_destroy(struct ib_cq *ibcq, struct ib_udata *udata);
int sroce_cq_resize(struct ib_cq *ibcq, int cqe, struct ib_udata *udata);
int sroce_cq_poll(struct ib_cq *ibcq, int n, struct ib_wc *wc);
int sroce_cq_req_notify(struct ib_cq *ibcq, enum ib_cq_notify_flags flags);
int sroce_cq_post(struct sroce_cq *cq, struct sroce_cqe *cqe,
		  struct sroce_qp *qp, bool solicited);

/* qp.c */
int sroce_qp_create(struct ib_qp *ibqp, struct ib_qp_init_attr *init,
		    struct ib_udata *udata);
int sroce_qp_modify(struct ib_qp *ibqp, struct ib_qp_attr *attr, int mask,
		    struct ib_udata *udata);
int sroce_qp_query(struct ib_qp *ibqp, struct ib_qp_attr *attr, int mask,
		   struct ib_qp_init_attr *init);
int sroce_qp_destroy(struct ib_qp *ibqp, struct ib_udata *udata);
int sroce_qp_post_send(struct ib_qp *ibqp, const struct ib_send_wr *wr,
		       const struct ib_send_wr **bad_wr);
int sroce_qp_post_recv(struct ib_qp *ibqp, const struct ib_recv_wr *wr,
		       const struct ib_recv_wr **bad_wr);
struct sroce_qp *sroce_qp_lookup(struct sroce_dev *sdev, u32 qpn);
void sroce_qp_put(struct sroce_qp *qp);
/* Move to ERROR from the engine (e.g. retries exhausted), with an event. */
void sroce_qp_set_error(struct sroce_qp *qp, bool raise,
			enum ib_event_type event);

/* mr.c */
struct ib_mr *sroce_mr_get_dma(struct ib_pd *ibpd, int access);
struct ib_mr *sroce_mr_reg_user(struct ib_pd *ibpd, u64 start, u64 length,
				u64 iova, int access, struct ib_udata *udata);
struct ib_mr *sroce_mr_rereg_user(struct ib_mr *ibmr, int flags, u64 start,
				  u64 length, u64 iova, int access,
				  struct ib_pd *ibpd, struct ib_udata *udata);
int sroce_mr_dereg(struct ib_mr *ibmr, struct ib_udata *udata);
struct sroce_mr *sroce_mr_lookup(struct sroce_dev *sdev, u32 key);
void sroce_mr_put(struct sroce_mr *mr);
int sroce_mr_check(const struct sroce_mr *mr, const struct sroce_pd *pd,
		   u64 iova, u64 len, int access);
int sroce_mr_publish(struct sroce_dev *sdev, struct sroce_mr *mr);
struct sroce_mr *sroce_mr_alloc(int access, enum sroce_mr_type type);

/* dm.c: device memory, in host memory */
struct ib_dm *sroce_dm_alloc(struct ib_device *ibdev, struct ib_ucontext *uctx,
			     struct ib_dm_alloc_attr *attr,
			     struct uverbs_attr_bundle *attrs);
int sroce_dm_dealloc(struct ib_dm *ibdm, struct uverbs_attr_bundle *attrs);
struct ib_mr *sroce_dm_reg_mr(struct ib_pd *ibpd, struct ib_dm *ibdm,
			      struct ib_dm_mr_attr *attr,
			      struct uverbs_attr_bundle *attrs);
extern const struct uapi_definition sroce_dm_uapi_defs[];

/* frmr.c: fast registration MRs for kernel ULPs */
#define SROCE_FR_MAX_PAGES	512
struct ib_mr *sroce_frmr_alloc(struct ib_pd *ibpd, enum ib_mr_type type,
			       u32 max_num_sg);
int sroce_frmr_map_sg(struct ib_mr *ibmr, struct scatterlist *sg,
		      int sg_nents, unsigned int *sg_offset);
int sroce_frmr_wqe(const struct sroce_qp *qp, const struct ib_reg_wr *wr,
		   struct sroce_send_wqe *wqe);
enum ib_wc_status sroce_frmr_exec_reg(struct sroce_qp *qp,
				      const struct sroce_send_wqe *wqe);
enum ib_wc_status sroce_frmr_exec_inv(struct sroce_qp *qp, u32 key);
int sroce_frmr_remote_inv(struct sroce_qp *qp, u32 rkey);
void *sroce_frmr_kaddr(const struct sroce_mr *mr, u64 iova, u32 *room);

#include "ud.h"
/* mw.c: memory windows */
#include "mw.h"
/* xrc.c: XRC domains and XRC QPs */
#include "xrc.h"

#endif /* _SROCE_H */
