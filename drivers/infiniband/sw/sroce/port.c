// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * The single Ethernet port: state, MTU and speed all follow the netdev.
 */
#include <rdma/ib_addr.h>
#include <rdma/ib_mad.h>

#include "sroce.h"

static enum ib_port_state sroce_port_state(const struct sroce_dev *sdev)
{
	const struct net_device *ndev = sdev->ndev;

	if (netif_running(ndev) && netif_carrier_ok(ndev))
		return IB_PORT_ACTIVE;
	return IB_PORT_DOWN;
}

/*
 * The largest IB MTU whose packets, with the worst-case headers (IPv6,
 * UDP, BTH, extended headers, ICRC), still fit the netdev MTU.
 */
enum ib_mtu sroce_port_active_mtu(const struct sroce_dev *sdev)
{
	enum ib_mtu mtu = iboe_get_mtu(READ_ONCE(sdev->ndev->mtu));

	return mtu ? mtu : IB_MTU_256;
}

int sroce_port_query(struct ib_device *ibdev, u32 port,
		     struct ib_port_attr *attr)
{
	struct sroce_dev *sdev = to_sdev(ibdev);

	/* ib_core zeroes *attr before calling us. */
	attr->state = sroce_port_state(sdev);
	attr->phys_state = attr->state == IB_PORT_ACTIVE ?
			   IB_PORT_PHYS_STATE_LINK_UP :
			   IB_PORT_PHYS_STATE_DISABLED;
	attr->max_mtu = IB_MTU_4096;
	attr->active_mtu = sroce_port_active_mtu(sdev);
	attr->gid_tbl_len = SROCE_GID_TBL_LEN;
	attr->port_cap_flags = IB_PORT_CM_SUP;
	attr->max_msg_sz = 1U << 31;
	attr->pkey_tbl_len = 1;
	attr->max_vl_num = 1;

	/*
	 * The netdev is already gone while ib_core tears the device down;
	 * report a nominal speed rather than fail the query.
	 */
	if (ib_get_eth_speed(ibdev, port, &attr->active_speed,
			     &attr->active_width)) {
		attr->active_speed = IB_SPEED_SDR;
		attr->active_width = IB_WIDTH_1X;
	}
	return 0;
}

int sroce_port_immutable(struct ib_device *ibdev, u32 port,
			 struct ib_port_immutable *immutable)
{
	immutable->pkey_tbl_len = 1;
	immutable->gid_tbl_len = SROCE_GID_TBL_LEN;
	/* RoCE v2 only: ib_core then makes one UDP-encap GID per address. */
	immutable->core_cap_flags = RDMA_CORE_PORT_IBA_ROCE_UDP_ENCAP;
	immutable->max_mad_size = IB_MGMT_MAD_SIZE;
	return 0;
}

enum rdma_link_layer sroce_port_link_layer(struct ib_device *ibdev, u32 port)
{
	return IB_LINK_LAYER_ETHERNET;
}

int sroce_port_query_pkey(struct ib_device *ibdev, u32 port, u16 index,
			  u16 *pkey)
{
	if (index != 0)
		return -EINVAL;
	*pkey = IB_DEFAULT_PKEY_FULL;
	return 0;
}

/* Called on netdev events: report port state edges as async events. */
void sroce_port_update(struct sroce_dev *sdev)
{
	enum ib_port_state state = sroce_port_state(sdev);
	enum ib_port_state old;
	struct ib_event ev = {
		.device = &sdev->ibdev,
		.element.port_num = SROCE_PORT,
	};

	spin_lock_bh(&sdev->port_lock);
	old = sdev->port_state;
	sdev->port_state = state;
	spin_unlock_bh(&sdev->port_lock);

	if (old == state || old == IB_PORT_NOP)
		return;
	if (old == IB_PORT_ACTIVE)
		sroce_cnt_inc(&sdev->cnt, SROCE_CNT_LINK_DOWNED);
	ev.event = state == IB_PORT_ACTIVE ? IB_EVENT_PORT_ACTIVE :
					     IB_EVENT_PORT_ERR;
	ib_dispatch_event(&ev);
}
