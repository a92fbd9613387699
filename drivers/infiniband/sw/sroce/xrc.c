// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * XRC: domains, the SRQ numbers XRCETH headers name, the queues of XRC
 * QPs, and how a TGT QP borrows the SRQ a request names (see xrc.h).
 */
#include <linux/log2.h>

#include "sroce.h"
#include "rc.h"

/*
 * ib_core keeps the domain's users counted and shares it between the
 * processes that open the same file; there is nothing for us to keep.
 */
int sroce_xrcd_alloc(struct ib_xrcd *ibxrcd, struct ib_udata *udata)
{
	return 0;
}

int sroce_xrcd_dealloc(struct ib_xrcd *ibxrcd, struct ib_udata *udata)
{
	return 0;
}

/* ib_core checks the handles; a kernel consumer could pass NULLs. */
int sroce_xrc_srq_check(const struct ib_srq_init_attr *init)
{
	return init->ext.cq && init->ext.xrc.xrcd ? 0 : -EINVAL;
}

/* Last step of create: from here on packets can find the SRQ. */
int sroce_xrc_srq_add(struct sroce_srq *srq)
{
	struct sroce_dev *sdev = to_sdev(srq->ibsrq.device);
	int err;

	err = sroce_table_add(&sdev->srq_table, &srq->obj);
	if (err)
		return err;
	srq->ibsrq.ext.xrc.srq_num = srq->obj.index;
	return 0;
}

/* First step of destroy: waits until no packet uses the SRQ any more. */
void sroce_xrc_srq_remove(struct sroce_srq *srq)
{
	sroce_table_remove(&to_sdev(srq->ibsrq.device)->srq_table, &srq->obj);
}

/*
 * An INI QP sends with a work request that names the SRQ: a kernel WR
 * cannot (struct ib_send_wr has no field for it), so only userspace gets
 * INI QPs.  ib_core creates TGT QPs itself, with a domain and no udata.
 */
int sroce_xrc_qp_check(const struct ib_qp_init_attr *init,
		       struct ib_udata *udata)
{
	if (init->qp_type == IB_QPT_XRC_INI)
		return udata && init->send_cq ? 0 : -EOPNOTSUPP;
	if (init->qp_type == IB_QPT_XRC_TGT)
		return init->xrcd ? 0 : -EINVAL;
	return 0;
}

/*
 * Neither XRC QP has an RQ: an INI QP receives only responses, a TGT QP
 * receives into SRQs.  The engine still wants the RQ it knows, so both
 * get one kernel slot that is never mapped; a TGT QP's is as wide as the
 * widest SRQ, since any SRQ of its domain may lend a WQE there.
 */
int sroce_xrc_qp_init(struct sroce_qp *qp, struct ib_qp_init_attr *init)
{
	u32 sges = sroce_qp_is_xrc_tgt(qp) ? SROCE_MAX_SGE : 1;
	int err;

	err = sroce_queue_alloc(&qp->rq, 1,
				roundup_pow_of_two(SROCE_RECV_WQE_HDR_SIZE +
						   sges * sizeof(struct sroce_sge)),
				sroce_queue_gfp(qp->user));
	if (err)
		return err;
	qp->xrcd = init->xrcd;
	qp->max_recv_sge = 0;
	init->cap.max_recv_wr = 0;
	init->cap.max_recv_sge = 0;
	return 0;
}

/* The SRQ numbered @srqn if it may serve @qp, with a reference. */
static struct sroce_srq *sroce_xrc_srq_get(struct sroce_qp *qp, u32 srqn)
{
	struct sroce_obj *obj = sroce_table_get(&qp->sdev->srq_table, srqn);
	struct sroce_srq *srq;

	if (!obj)
		return NULL;
	srq = container_of(obj, struct sroce_srq, obj);
	if (srq->ibsrq.ext.xrc.xrcd != qp->xrcd) {
		sroce_obj_put(obj);
		return NULL;
	}
	return srq;
}

/* Use @srq's WQEs, CQ and PD for the packet at hand. */
static void sroce_xrc_use(struct sroce_qp *qp, struct sroce_srq *srq)
{
	qp->srq = srq;
	qp->rcq = to_scq(srq->ibsrq.ext.cq);
	qp->pd = to_spd(srq->ibsrq.pd);
	qp->max_recv_sge = srq->max_sge;
}

/* Between packets: a READ response stream, for its SRQ's PD. */
int sroce_xrc_resp_bind_srqn(struct sroce_qp *qp, u32 srqn)
{
	struct sroce_srq *srq;

	if (!sroce_qp_is_xrc_tgt(qp))
		return 0;
	srq = sroce_xrc_srq_get(qp, srqn);
	if (!srq)
		return -EINVAL;
	sroce_xrc_use(qp, srq);
	return 0;
}

int sroce_xrc_resp_bind(struct sroce_qp *qp, const struct sroce_pkt_hdr *h,
			bool dup)
{
	struct sroce_resp *resp = &qp->resp;
	struct sroce_srq *srq;

	if (!sroce_qp_is_xrc_tgt(qp))
		return 0;
	/*
	 * Every packet of a message names the SRQ its first one did.  A
	 * duplicate may be of an older message, and starts nothing.
	 */
	if (!dup && resp->msg != SROCE_OPK_NONE &&
	    h->xrc_srqn != resp->xrc_srqn) {
		net_info_ratelimited("sroce: XRC TGT QP %u: packet for SRQ %u in a message to SRQ %u\n",
				     qp->ibqp.qp_num, h->xrc_srqn,
				     resp->xrc_srqn);
		goto err;
	}
	srq = sroce_xrc_srq_get(qp, h->xrc_srqn);
	if (!srq) {
		net_info_ratelimited("sroce: XRC TGT QP %u: request for SRQ %u, not one of its domain\n",
				     qp->ibqp.qp_num, h->xrc_srqn);
		goto err;
	}
	if (!dup)
		resp->xrc_srqn = h->xrc_srqn;
	sroce_xrc_use(qp, srq);
	return 0;

err:
	sroce_cnt_inc(sroce_qp_cnt(qp), SROCE_CNT_RX_XRC_BAD_SRQ);
	return -EINVAL;
}

void sroce_xrc_resp_unbind(struct sroce_qp *qp)
{
	if (!sroce_qp_is_xrc_tgt(qp) || !qp->srq)
		return;
	sroce_obj_put(&qp->srq->obj);
	qp->srq = NULL;
	qp->rcq = NULL;
	qp->pd = NULL;
	qp->max_recv_sge = 0;
}

void sroce_xrc_resp_drop(struct sroce_qp *qp)
{
	if (!sroce_qp_is_xrc_tgt(qp))
		return;
	if (sroce_queue_avail(&qp->rq) > 0)
		sroce_queue_consume(&qp->rq, 1);
	qp->resp.have_rwqe = false;
}

/*
 * ERROR: a WQE lent for the message in progress completes with FLUSH_ERR
 * on its SRQ's CQ, unless that SRQ has gone (and its CQ may have too).
 * WQEs still on the SRQs are not the QP's to flush.
 */
bool sroce_xrc_resp_flush(struct sroce_qp *qp, int budget)
{
	struct sroce_srq *srq = NULL;
	bool more;

	if (sroce_queue_avail(&qp->rq) > 0) {
		srq = sroce_xrc_srq_get(qp, qp->resp.xrc_srqn);
		if (srq)
			sroce_xrc_use(qp, srq);
		else
			sroce_xrc_resp_drop(qp);
	}
	more = sroce_resp_flush(qp, budget);
	sroce_xrc_resp_unbind(qp);
	return more;
}
