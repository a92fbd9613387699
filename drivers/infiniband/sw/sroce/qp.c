// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * Queue pairs, verbs side: creation with the SQ and RQ rings, the state
 * machine and attribute checks of modify_qp, query_qp, destruction, and
 * posting for kernel consumers.  The transport itself is the engine's.
 */
#include <linux/log2.h>
#include <net/addrconf.h>
#include <rdma/ib_addr.h>
#include <rdma/ib_cache.h>
#include <rdma/uverbs_ioctl.h>

#include "sroce.h"

/* Userspace rings hold at most this many bytes of inline data per WQE. */
#define SROCE_SWQE_MAX_STRIDE	4096

static u32 sroce_qp_sq_stride(u32 max_sge, u32 max_inline)
{
	u32 body = max(max_sge * (u32)sizeof(struct sroce_sge), max_inline);

	return roundup_pow_of_two(SROCE_SEND_WQE_HDR_SIZE + body);
}

static u32 sroce_qp_rq_stride(u32 max_sge)
{
	return roundup_pow_of_two(SROCE_RECV_WQE_HDR_SIZE +
				  max_sge * (u32)sizeof(struct sroce_sge));
}

static int sroce_qp_check_init(struct sroce_dev *sdev,
			       const struct ib_qp_init_attr *init,
			       struct ib_udata *udata)
{
	const struct ib_device_attr *a = &sdev->attr;
	const struct ib_qp_cap *cap = &init->cap;

	switch (init->qp_type) {
	case IB_QPT_RC:
	case IB_QPT_UC:
	case IB_QPT_UD:
	case IB_QPT_GSI:
	case IB_QPT_XRC_INI:
	case IB_QPT_XRC_TGT:
		break;
	/* ib_core let only CAP_NET_RAW create one. */
	case IB_QPT_RAW_PACKET:
		if (!sroce_raw_enabled())
			return -EOPNOTSUPP;
		break;
	default:
		return -EOPNOTSUPP;
	}
	if (init->create_flags)
		return -EOPNOTSUPP;
	if (init->rwq_ind_tbl)
		return sroce_rss_qp_check(init, udata);
	if (cap->max_send_wr > a->max_qp_wr || cap->max_recv_wr > a->max_qp_wr ||
	    cap->max_send_sge > a->max_send_sge ||
	    cap->max_recv_sge > a->max_recv_sge ||
	    cap->max_inline_data > SROCE_MAX_INLINE)
		return -EINVAL;
	return 0;
}

static int sroce_qp_alloc_rings(struct sroce_qp *qp,
				struct ib_qp_init_attr *init,
				struct ib_udata *udata,
				struct sroce_create_qp_resp *resp)
{
	bool own_rq = !init->srq && !sroce_qp_is_xrc(qp);
	struct ib_qp_cap *cap = &init->cap;
	struct ib_ucontext *uctx = NULL;
	int err;

	/* Its table's WQs are its RQs; it has nothing to map. */
	if (sroce_qp_is_rss(qp))
		return sroce_rss_qp_rings(qp, init);
	qp->max_send_sge = max_t(u32, cap->max_send_sge, 1);
	qp->max_recv_sge = max_t(u32, cap->max_recv_sge, 1);
	qp->max_inline = cap->max_inline_data;
	err = sroce_queue_alloc(&qp->sq, max_t(u32, cap->max_send_wr, 1),
				sroce_qp_sq_stride(qp->max_send_sge,
						   qp->max_inline),
				sroce_queue_gfp(udata));
	if (err)
		return err;
	if (init->srq)
		err = sroce_srq_qp_init(qp, init);
	else if (sroce_qp_is_xrc(qp))
		err = sroce_xrc_qp_init(qp, init);
	else
		err = sroce_queue_alloc(&qp->rq,
					max_t(u32, cap->max_recv_wr, 1),
					sroce_qp_rq_stride(qp->max_recv_sge),
					sroce_queue_gfp(udata));
	if (err)
		goto err_sq;
	if (udata) {
		uctx = &rdma_udata_to_drv_context(udata, struct sroce_ucontext,
						  ibuc)->ibuc;
		err = sroce_queue_mmap_publish(&qp->sq, uctx, &resp->sq);
		if (err)
			goto err_rq;
		/* An SRQ's or XRC QP has no RQ of its own to map (entries 0). */
		err = !own_rq ? 0 : sroce_queue_mmap_publish(&qp->rq, uctx,
							     &resp->rq);
		if (err)
			goto err_rq;
	}
	/* Report what the rings really hold (rounded up). */
	cap->max_send_wr = qp->sq.nentries;
	cap->max_send_sge = qp->max_send_sge;
	/* An XRC TGT QP's one-slot SQ is only for the engine's sake. */
	if (sroce_qp_is_xrc_tgt(qp))
		memset(cap, 0, sizeof(*cap));
	if (own_rq) {
		cap->max_recv_wr = qp->rq.nentries;
		cap->max_recv_sge = qp->max_recv_sge;
	}
	resp->max_inline = qp->max_inline;
	return 0;

err_rq:
	sroce_queue_free(&qp->rq);
err_sq:
	sroce_queue_free(&qp->sq);
	return err;
}

/* Only an RSS QP has a hash configuration. */
static bool sroce_qp_req_has_rss(const struct sroce_create_qp_req *req)
{
	return req->rx_hash_fields_mask || req->rx_hash_function ||
	       req->rx_hash_key_len ||
	       memchr_inv(req->rx_hash_key, 0, sizeof(req->rx_hash_key));
}

/*
 * The provider's request into @req, if it sent one: zeroes are the
 * defaults (an older provider sends only cc).
 */
static int sroce_qp_read_req(struct sroce_qp *qp, struct ib_udata *udata,
			     struct sroce_create_qp_req *req)
{
	int err;

	memset(req, 0, sizeof(*req));
	if (!udata || !udata->inlen)
		return 0;
	if (udata->inlen > sizeof(*req) &&
	    !ib_is_udata_cleared(udata, sizeof(*req),
				 udata->inlen - sizeof(*req)))
		return -EOPNOTSUPP;
	err = ib_copy_from_udata(req, udata, min(udata->inlen, sizeof(*req)));
	if (err)
		return err;
	if (req->reserved || req->cc > SROCE_QP_CC_DCQCN ||
	    memchr_inv(req->reserved1, 0, sizeof(req->reserved1)))
		return -EINVAL;
	if (!sroce_qp_is_rss(qp) && sroce_qp_req_has_rss(req))
		return -EINVAL;
	qp->cc_pref = req->cc;
	return 0;
}

int sroce_qp_create(struct ib_qp *ibqp, struct ib_qp_init_attr *init,
		    struct ib_udata *udata)
{
	struct sroce_dev *sdev = to_sdev(ibqp->device);
	struct sroce_qp *qp = to_sqp(ibqp);
	struct sroce_create_qp_resp resp = {};
	struct sroce_create_qp_req req;
	int err;

	err = sroce_qp_check_init(sdev, init, udata);
	if (!err)
		err = sroce_xrc_qp_check(init, udata);
	if (!err)
		err = sroce_qp_read_req(qp, udata, &req);
	if (!err && sroce_qp_is_rss(qp))
		err = sroce_rss_qp_init(qp, &req);
	if (err)
		return err;
	qp->sdev = sdev;
	qp->user = !!udata;
	qp->pd = to_spd(ibqp->pd);
	qp->scq = to_scq(init->send_cq);
	qp->rcq = to_scq(init->recv_cq);
	qp->sq_sig_all = init->sq_sig_type == IB_SIGNAL_ALL_WR;
	qp->state = IB_QPS_RESET;
	qp->path_mtu = IB_MTU_1024;
	qp->mtu = 1024;
	spin_lock_init(&qp->state_lock);
	spin_lock_init(&qp->sq_lock);
	spin_lock_init(&qp->rq_lock);

	err = sroce_qp_alloc_rings(qp, init, udata, &resp);
	if (err)
		goto err_rss;
	err = sroce_engine_qp_init(qp);
	if (err)
		goto err_rings;
	/* The GSI QP (ib_mad's, for the CM) is QP1 by definition. */
	if (init->qp_type == IB_QPT_GSI)
		err = udata ? -EINVAL :
		      sroce_table_add_at(&sdev->qp_table, &qp->obj, 1);
	else
		err = sroce_table_add(&sdev->qp_table, &qp->obj);
	if (err)
		goto err_engine;
	ibqp->qp_num = qp->obj.index;
	/* Entropy for ECMP and RSS: spread QPs over the UDP source ports. */
	qp->src_port = rdma_get_udp_sport(0, ibqp->qp_num, 0);

	if (udata) {
		err = ib_copy_to_udata(udata, &resp,
				       min(udata->outlen, sizeof(resp)));
		if (err)
			goto err_table;
	}
	return 0;

err_table:
	sroce_table_remove(&sdev->qp_table, &qp->obj);
err_engine:
	sroce_engine_qp_destroy(qp);
err_rings:
	sroce_queue_free(&qp->rq);
	sroce_queue_free(&qp->sq);
err_rss:
	sroce_rss_qp_free(qp);
	return err;
}

int sroce_qp_destroy(struct ib_qp *ibqp, struct ib_udata *udata)
{
	struct sroce_qp *qp = to_sqp(ibqp);

	/* No packet finds the QP after this, and none still holds it. */
	sroce_table_remove(&qp->sdev->qp_table, &qp->obj);
	sroce_engine_qp_destroy(qp);
	sroce_queue_free(&qp->rq);
	sroce_queue_free(&qp->sq);
	sroce_rss_qp_free(qp);
	return 0;
}

struct sroce_qp *sroce_qp_lookup(struct sroce_dev *sdev, u32 qpn)
{
	struct sroce_obj *obj = sroce_table_get(&sdev->qp_table, qpn);

	return obj ? container_of(obj, struct sroce_qp, obj) : NULL;
}

void sroce_qp_put(struct sroce_qp *qp)
{
	sroce_obj_put(&qp->obj);
}
