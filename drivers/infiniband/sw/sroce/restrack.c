// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * Driver detail of `rdma resource show qp`: ib_core's nldev asks us for
 * each QP, holding its restrack reference, in process context; iproute2
 * prints the RDMA_NLDEV_ATTR_DRIVER nest with -dd.  The values are a
 * snapshot (qp_snap.c).
 *
 * Any user may dump every QP of the host, so the live PSNs and MSN go
 * only to CAP_NET_ADMIN, as ib_core does with its own sensitive
 * attributes: with a QPN and the responder's expected PSN, a local
 * socket could inject into the connection (G1, G2 in security.rst).
 * The dump runs in the reader's recvmsg(), so current is the reader.
 */
#include <linux/capability.h>
#include <rdma/rdma_netlink.h>

#include "sroce.h"
#include "observe.h"

int sroce_restrack_fill_qp(struct sk_buff *msg, struct ib_qp *ibqp)
{
	bool seq = ns_capable_noaudit(&init_user_ns, CAP_NET_ADMIN);
	struct sroce_qp_snap s;
	struct nlattr *nest;
	unsigned int i;

	sroce_qp_snap(to_sqp(ibqp), &s);
	nest = nla_nest_start_noflag(msg, RDMA_NLDEV_ATTR_DRIVER);
	if (!nest)
		return -EMSGSIZE;
	for (i = 0; i < s.n; i++) {
		if (s.f[i].seq && !seq)
			continue;
		if (rdma_nl_put_driver_u32(msg, s.f[i].name, s.f[i].val))
			goto err_cancel;
	}
	if (s.cc && rdma_nl_put_driver_string(msg, "cc", s.cc))
		goto err_cancel;
	if (s.sr && rdma_nl_put_driver_string(msg, "sr", s.sr))
		goto err_cancel;
	nla_nest_end(msg, nest);
	return 0;

err_cancel:
	nla_nest_cancel(msg, nest);
	return -EMSGSIZE;
}
