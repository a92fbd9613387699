// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * Address handles and address vectors.
 *
 * An address vector (struct sroce_av) is what the transmit path needs to
 * build a packet's IP and UDP headers; it is resolved from ib_core's
 * rdma_ah_attr, whose GRH holds the source GID attribute ib_core already
 * looked up (RoCE v2 only: the GID type gives IPv4 or IPv6).  RC QPs keep
 * theirs in the QP (modify_qp); UD WQEs name an AH by number.
 *
 * AH numbers live in an xarray per device.  create_ah and destroy_ah may
 * be called in atomic context (no RDMA_CREATE_AH_SLEEPABLE), so nothing
 * here sleeps; the engine copies an AH's vector under the xarray lock,
 * and destroy erases the AH under the same lock, so after destroy_ah
 * returns (and ib_core frees the AH) nobody reads it.
 */
#include <net/addrconf.h>
#include <rdma/ib_addr.h>
#include <rdma/uverbs_ioctl.h>

#include "sroce.h"

/* AH numbers: 0 is never handed out, so a zeroed WQE names no AH. */
#define SROCE_AHN_MIN	1
#define SROCE_AHN_MAX	(SROCE_MAX_AH)

int sroce_av_from_attr(struct sroce_av *av, const struct rdma_ah_attr *ah)
{
	const struct ib_global_route *grh = rdma_ah_read_grh(ah);
	const struct ib_gid_attr *sgid_attr = grh->sgid_attr;

	if (!(rdma_ah_get_ah_flags(ah) & IB_AH_GRH) || !sgid_attr)
		return -EINVAL;
	memset(av, 0, sizeof(*av));
	av->network_type = rdma_gid_attr_network_type(sgid_attr);
	if (av->network_type != RDMA_NETWORK_IPV4 &&
	    av->network_type != RDMA_NETWORK_IPV6)
		return -EINVAL;	/* RoCE v1 GIDs are not ours */
	av->sgid = sgid_attr->gid;
	av->dgid = grh->dgid;
	av->sgid_index = grh->sgid_index;
	av->flow_label = grh->flow_label;
	av->hop_limit = grh->hop_limit;
	av->traffic_class = grh->traffic_class;
	av->sl = rdma_ah_get_sl(ah);
	memcpy(av->dmac, ah->roce.dmac, ETH_ALEN);
	rdma_gid2ip((struct sockaddr *)&av->saddr, &av->sgid);
	rdma_gid2ip((struct sockaddr *)&av->daddr, &av->dgid);
	/* A v4-mapped GID must go with an IPv4 peer and vice versa. */
	if ((av->network_type == RDMA_NETWORK_IPV4) !=
	    (av->daddr.in4.sin_family == AF_INET))
		return -EINVAL;
	return 0;
}

void sroce_av_to_attr(const struct sroce_av *av, struct rdma_ah_attr *ah)
{
	union ib_gid dgid = av->dgid;

	memset(ah, 0, sizeof(*ah));
	ah->type = RDMA_AH_ATTR_TYPE_ROCE;
	rdma_ah_set_port_num(ah, SROCE_PORT);
	rdma_ah_set_grh(ah, &dgid, av->flow_label, av->sgid_index,
			av->hop_limit, av->traffic_class);
	rdma_ah_set_sl(ah, av->sl);
	memcpy(ah->roce.dmac, av->dmac, ETH_ALEN);
}

void sroce_ah_table_init(struct sroce_dev *sdev)
{
	/* IRQ-safe: create and destroy may come with interrupts off. */
	xa_init_flags(&sdev->ah_xa, XA_FLAGS_ALLOC | XA_FLAGS_LOCK_IRQ);
	sdev->ah_next = SROCE_AHN_MIN;
}

void sroce_ah_table_destroy(struct sroce_dev *sdev)
{
	WARN_ON(!xa_empty(&sdev->ah_xa));
	xa_destroy(&sdev->ah_xa);
}

static int sroce_ah_publish(struct sroce_ah *ah, struct ib_udata *udata)
{
	struct sroce_create_ah_resp resp = { .ahn = ah->ahn };

	return ib_copy_to_udata(udata, &resp, min(udata->outlen, sizeof(resp)));
}

/* Kernel and user AHs alike (create_ah and create_user_ah). */
int sroce_ah_create(struct ib_ah *ibah, struct rdma_ah_init_attr *init,
		    struct ib_udata *udata)
{
	struct sroce_dev *sdev = to_sdev(ibah->device);
	struct sroce_ah *ah = to_sah(ibah);
	gfp_t gfp = init->flags & RDMA_CREATE_AH_SLEEPABLE ? GFP_KERNEL :
							     GFP_ATOMIC;
	unsigned long flags;
	int err;

	if (rdma_ah_get_port_num(init->ah_attr) != SROCE_PORT)
		return -EINVAL;
	err = sroce_av_from_attr(&ah->av, init->ah_attr);
	if (err)
		return err;
	/* Cyclic: a stale number in a WQE is unlikely to name a new AH. */
	xa_lock_irqsave(&sdev->ah_xa, flags);
	err = __xa_alloc_cyclic(&sdev->ah_xa, &ah->ahn, ah,
				XA_LIMIT(SROCE_AHN_MIN, SROCE_AHN_MAX),
				&sdev->ah_next, gfp);
	xa_unlock_irqrestore(&sdev->ah_xa, flags);
	if (err < 0)
		return err == -EBUSY ? -ENOMEM : err;
	if (udata) {
		err = sroce_ah_publish(ah, udata);
		if (err)
			goto err_erase;
	}
	return 0;

err_erase:
	xa_lock_irqsave(&sdev->ah_xa, flags);
	__xa_erase(&sdev->ah_xa, ah->ahn);
	xa_unlock_irqrestore(&sdev->ah_xa, flags);
	return err;
}

int sroce_ah_destroy(struct ib_ah *ibah, u32 flags)
{
	struct sroce_dev *sdev = to_sdev(ibah->device);
	unsigned long irqflags;

	xa_lock_irqsave(&sdev->ah_xa, irqflags);
	__xa_erase(&sdev->ah_xa, to_sah(ibah)->ahn);
	xa_unlock_irqrestore(&sdev->ah_xa, irqflags);
	return 0;
}

int sroce_ah_query(struct ib_ah *ibah, struct rdma_ah_attr *attr)
{
	sroce_av_to_attr(&to_sah(ibah)->av, attr);
	return 0;
}

/*
 * The address vector of AH @ahn for a send on @qp: the AH must exist and
 * belong to the QP's PD (a user can only name AHs of its own context).
 */
int sroce_ah_get_av(struct sroce_qp *qp, u32 ahn, struct sroce_av *av)
{
	struct sroce_dev *sdev = qp->sdev;
	unsigned long flags;
	struct sroce_ah *ah;
	int err = -ENOENT;

	xa_lock_irqsave(&sdev->ah_xa, flags);
	ah = xa_load(&sdev->ah_xa, ahn);
	if (ah && ah->ibah.pd == qp->ibqp.pd) {
		*av = ah->av;
		err = 0;
	}
	xa_unlock_irqrestore(&sdev->ah_xa, flags);
	return err;
}
