// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * modify_qp and query_qp: the QP state machine and attribute checks.
 * ib_core's ib_modify_qp_is_ok() knows which attributes each transition
 * requires and allows; here we check their values and apply them.
 */
#include <net/addrconf.h>
#include <rdma/ib_addr.h>
#include <rdma/ib_cache.h>

#include "sroce.h"
#include "trace.h"

/* ah.c resolves it, as for an AH. */
static int sroce_qp_av_from_attr(struct sroce_qp *qp,
				 const struct rdma_ah_attr *ah)
{
	return sroce_av_from_attr(&qp->av, ah);
}

static int sroce_qp_check_attr(struct sroce_qp *qp,
			       const struct ib_qp_attr *attr, int mask)
{
	const struct ib_device_attr *a = &qp->sdev->attr;

	if (mask & IB_QP_PORT && attr->port_num != SROCE_PORT)
		return -EINVAL;
	if (mask & IB_QP_PKEY_INDEX && attr->pkey_index != 0)
		return -EINVAL;
	/*
	 * Like rxe and hardware, accept any path MTU up to the port's
	 * maximum and segment at most at the link's (sroce_qp_set_mtu()):
	 * a packet larger than the link cannot cross it from either end,
	 * so two ends on one link still agree on the segmentation.
	 */
	if (mask & IB_QP_PATH_MTU &&
	    (attr->path_mtu < IB_MTU_256 || attr->path_mtu > IB_MTU_4096))
		return -EINVAL;
	if (mask & IB_QP_MAX_QP_RD_ATOMIC &&
	    attr->max_rd_atomic > a->max_qp_init_rd_atom)
		return -EINVAL;
	if (mask & IB_QP_MAX_DEST_RD_ATOMIC &&
	    attr->max_dest_rd_atomic > a->max_qp_rd_atom)
		return -EINVAL;
	if (mask & IB_QP_RETRY_CNT && attr->retry_cnt > 7)
		return -EINVAL;
	if (mask & IB_QP_RNR_RETRY && attr->rnr_retry > 7)
		return -EINVAL;
	if (mask & IB_QP_MIN_RNR_TIMER && attr->min_rnr_timer > 31)
		return -EINVAL;
	if (mask & IB_QP_TIMEOUT && attr->timeout > 31)
		return -EINVAL;
	if (mask & (IB_QP_ALT_PATH | IB_QP_PATH_MIG_STATE))
		return -EOPNOTSUPP;	/* no automatic path migration */
	if (mask & IB_QP_CAP)
		return -EINVAL;
	return 0;
}

/*
 * Segment at the path MTU, but never above what the link carries now: a
 * peer may offer 4096 while our netdev has a 1500-byte MTU.
 */
static void sroce_qp_set_mtu(struct sroce_qp *qp, enum ib_mtu path_mtu)
{
	enum ib_mtu active = sroce_port_active_mtu(qp->sdev);

	qp->path_mtu = path_mtu;
	qp->mtu = ib_mtu_enum_to_int(min(path_mtu, active));
}

static int sroce_qp_apply(struct sroce_qp *qp, const struct ib_qp_attr *attr,
			  int mask)
{
	int err;

	if (mask & IB_QP_AV) {
		err = sroce_qp_av_from_attr(qp, &attr->ah_attr);
		if (err)
			return err;
	}
	if (mask & IB_QP_ACCESS_FLAGS)
		qp->access_flags = attr->qp_access_flags;
	if (mask & IB_QP_QKEY)
		qp->qkey = attr->qkey;
	if (mask & IB_QP_PATH_MTU)
		sroce_qp_set_mtu(qp, attr->path_mtu);
	if (mask & IB_QP_DEST_QPN)
		qp->dest_qpn = attr->dest_qp_num & 0xffffff;
	if (mask & IB_QP_RQ_PSN)
		qp->rq_psn = attr->rq_psn & 0xffffff;
	if (mask & IB_QP_SQ_PSN)
		qp->sq_psn = attr->sq_psn & 0xffffff;
	if (mask & IB_QP_MAX_DEST_RD_ATOMIC)
		qp->max_dest_rd_atomic = attr->max_dest_rd_atomic;
	if (mask & IB_QP_MAX_QP_RD_ATOMIC)
		qp->max_rd_atomic = attr->max_rd_atomic;
	if (mask & IB_QP_MIN_RNR_TIMER)
		qp->min_rnr_timer = attr->min_rnr_timer;
	if (mask & IB_QP_TIMEOUT)
		qp->timeout = attr->timeout;
	if (mask & IB_QP_RETRY_CNT)
		qp->retry_cnt = attr->retry_cnt;
	if (mask & IB_QP_RNR_RETRY)
		qp->rnr_retry = attr->rnr_retry;
	if (mask & (IB_QP_AV | IB_QP_DEST_QPN))
		qp->src_port = rdma_get_udp_sport(qp->av.flow_label,
						  qp->ibqp.qp_num,
						  qp->dest_qpn);
	return 0;
}

/* Tell the engine about the state it now runs in. */
static void sroce_qp_enter(struct sroce_qp *qp, enum ib_qp_state old,
			   enum ib_qp_state new)
{
	switch (new) {
	case IB_QPS_RESET:
		sroce_engine_qp_reset(qp);
		qp->srq_last_wqe = false;
		break;
	case IB_QPS_RTR:
		if (old == IB_QPS_INIT)
			sroce_engine_qp_rtr(qp);
		break;
	case IB_QPS_RTS:
		if (old == IB_QPS_RTR)
			sroce_engine_qp_rts(qp);
		else
			sroce_engine_kick(qp);	/* back from SQD */
		break;
	case IB_QPS_ERR:
		sroce_engine_qp_error(qp);
		break;
	default:
		break;
	}
}

int sroce_qp_modify(struct ib_qp *ibqp, struct ib_qp_attr *attr, int mask,
		    struct ib_udata *udata)
{
	struct sroce_qp *qp = to_sqp(ibqp);
	enum ib_qp_state cur, new;
	int err;

	if (mask & ~IB_QP_ATTR_STANDARD_BITS)
		return -EOPNOTSUPP;
	if (udata && udata->inlen)
		return -EINVAL;
	/* Its WQs have the states that matter (rss.c); it has none. */
	if (sroce_qp_is_rss(qp))
		return -EOPNOTSUPP;

	spin_lock_bh(&qp->state_lock);
	cur = mask & IB_QP_CUR_STATE ? attr->cur_qp_state : qp->state;
	new = mask & IB_QP_STATE ? attr->qp_state : cur;
	err = -EINVAL;
	if (cur != qp->state ||
	    !ib_modify_qp_is_ok(cur, new, ibqp->qp_type, mask))
		goto out;
	err = sroce_qp_check_attr(qp, attr, mask);
	if (!err)
		err = sroce_qp_apply(qp, attr, mask);
	if (err)
		goto out;
	qp->sq_draining = new == IB_QPS_SQD;
	if (new != cur)
		trace_sroce_qp_state(ibqp->qp_num, cur, new);
	qp->state = new;
out:
	spin_unlock_bh(&qp->state_lock);
	if (!err && new != cur)
		sroce_qp_enter(qp, cur, new);
	return err;
}

/*
 * The engine gave up on the QP (retries exhausted, a fatal ring error, a
 * class C error): move to ERROR, tell the consumer if @raise, flush.
 * Only from the states the engine runs in: a modify_qp to RESET or INIT
 * that raced with the engine's last run wins.
 */
void sroce_qp_set_error(struct sroce_qp *qp, bool raise,
			enum ib_event_type event)
{
	struct ib_event ev = {
		.device = qp->ibqp.device,
		.element.qp = &qp->ibqp,
		.event = event,
	};
	bool moved = false;

	spin_lock_bh(&qp->state_lock);
	switch (qp->state) {
	case IB_QPS_RTR:
	case IB_QPS_RTS:
	case IB_QPS_SQD:
	case IB_QPS_SQE:
		trace_sroce_qp_state(qp->ibqp.qp_num, qp->state, IB_QPS_ERR);
		qp->state = IB_QPS_ERR;
		moved = true;
		break;
	default:
		break;
	}
	spin_unlock_bh(&qp->state_lock);
	if (!moved)
		return;
	sroce_engine_qp_error(qp);
	if (raise && qp->ibqp.event_handler)
		qp->ibqp.event_handler(&ev, qp->ibqp.qp_context);
}

int sroce_qp_query(struct ib_qp *ibqp, struct ib_qp_attr *attr, int mask,
		   struct ib_qp_init_attr *init)
{
	struct sroce_qp *qp = to_sqp(ibqp);
	bool own_rq, no_sq;

	memset(attr, 0, sizeof(*attr));
	memset(init, 0, sizeof(*init));
	spin_lock_bh(&qp->state_lock);
	attr->qp_state = qp->state;
	attr->cur_qp_state = qp->state;
	attr->path_mtu = qp->path_mtu;
	attr->qp_access_flags = qp->access_flags;
	attr->qkey = qp->qkey;
	attr->rq_psn = qp->rq_psn;
	attr->sq_psn = qp->sq_psn;
	attr->dest_qp_num = qp->dest_qpn;
	attr->pkey_index = 0;
	attr->port_num = SROCE_PORT;
	attr->sq_draining = qp->sq_draining;
	attr->max_rd_atomic = qp->max_rd_atomic;
	attr->max_dest_rd_atomic = qp->max_dest_rd_atomic;
	attr->min_rnr_timer = qp->min_rnr_timer;
	attr->timeout = qp->timeout;
	attr->retry_cnt = qp->retry_cnt;
	attr->rnr_retry = qp->rnr_retry;
	sroce_av_to_attr(&qp->av, &attr->ah_attr);
	spin_unlock_bh(&qp->state_lock);

	/* Neither an XRC TGT nor an RSS QP has an SQ to speak of. */
	no_sq = sroce_qp_is_xrc_tgt(qp) || sroce_qp_is_rss(qp);
	attr->cap.max_send_wr = no_sq ? 0 : qp->sq.nentries;
	/* An XRC TGT QP's srq changes under us: test its type first. */
	own_rq = !sroce_qp_is_xrc(qp) && !qp->srq && !sroce_qp_is_rss(qp);
	attr->cap.max_recv_wr = own_rq ? qp->rq.nentries : 0;
	attr->cap.max_send_sge = no_sq ? 0 : qp->max_send_sge;
	attr->cap.max_recv_sge = own_rq ? qp->max_recv_sge : 0;
	attr->cap.max_inline_data = qp->max_inline;
	init->cap = attr->cap;
	init->qp_type = ibqp->qp_type;
	init->send_cq = ibqp->send_cq;
	init->recv_cq = ibqp->recv_cq;
	init->srq = ibqp->srq;
	init->sq_sig_type = qp->sq_sig_all ? IB_SIGNAL_ALL_WR :
					     IB_SIGNAL_REQ_WR;
	return 0;
}
