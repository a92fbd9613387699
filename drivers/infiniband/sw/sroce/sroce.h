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
#include <rdma/sroce-abi.h>

#include "table.h"

#ifndef SROCE_VERSION
#define SROCE_VERSION "0.0.0-unknown"
#endif

#define SROCE_PORT		1
#define SROCE_GID_TBL_LEN	128
#define SROCE_MAX_PD		0x10000
#define SROCE_MAX_MR		0x100000
#define SROCE_VENDOR_ID		0xffffff	/* no OUI: a software device */
#define SROCE_UDP_PORT		4791		/* IANA: RoCEv2 */

struct sroce_pernet;

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

	/* Last port state reported, so events fire on edges only. */
	enum ib_port_state port_state;
	spinlock_t port_lock;
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
};

struct sroce_mr {
	struct ib_mr ibmr;
	struct sroce_obj obj;
	enum sroce_mr_type type;
	int access;
	u64 iova;
	u64 length;
	struct ib_umem *umem;
	struct page **pages;
	unsigned long npages;
	/* Offset of iova within pages[0]. */
	unsigned int page_offset;
};

static inline struct sroce_mr *to_smr(struct ib_mr *ibmr)
{
	return container_of(ibmr, struct sroce_mr, ibmr);
}

/* device.c */
int sroce_device_add(const char *name, struct net_device *ndev);
extern const struct attribute_group sroce_device_attr_group;

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

/* net.c */
int sroce_net_init(void);
void sroce_net_exit_module(void);
struct sroce_net *sroce_net_get(struct net *net);
void sroce_net_put(struct sroce_net *snet);

/* netdev.c */
int sroce_netdev_init(void);
void sroce_netdev_exit(void);

/* ucontext.c */
int sroce_ucontext_alloc(struct ib_ucontext *ibuc, struct ib_udata *udata);
void sroce_ucontext_dealloc(struct ib_ucontext *ibuc);

/* pd.c */
int sroce_pd_alloc(struct ib_pd *ibpd, struct ib_udata *udata);
int sroce_pd_dealloc(struct ib_pd *ibpd, struct ib_udata *udata);

/* mr.c */
struct ib_mr *sroce_mr_get_dma(struct ib_pd *ibpd, int access);
struct ib_mr *sroce_mr_reg_user(struct ib_pd *ibpd, u64 start, u64 length,
				u64 iova, int access, struct ib_udata *udata);
int sroce_mr_dereg(struct ib_mr *ibmr, struct ib_udata *udata);
struct sroce_mr *sroce_mr_lookup(struct sroce_dev *sdev, u32 key);
void sroce_mr_put(struct sroce_mr *mr);
int sroce_mr_check(const struct sroce_mr *mr, const struct sroce_pd *pd,
		   u64 iova, u64 len, int access);

#endif /* _SROCE_H */
