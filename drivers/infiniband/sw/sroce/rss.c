// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * Indirection tables and RSS QPs (see wq.h).
 *
 * An RSS QP is a raw packet QP created with an indirection table: it has
 * no rings and no state machine of its own (mlx5 refuses modify_qp on
 * one; so do we), and receives from the moment flows point at it.  A
 * frame one of its flows takes is hashed in the softirq, from the key
 * the flows parsed it into (proto/rss.c), and queued on the QP like any
 * raw QP's frame; the QP's engine then picks the table entry, hash &
 * (size - 1), and the WQ there places the frame (wq.c).  Its state and
 * WQEs are the WQ's, under the WQ's lock: two RSS QPs may share a WQ.
 */
#include "sroce.h"
#include "rc.h"
#include "proto/rss.h"

/* The numbers sroce-abi.h gives libsroce, one by one. */
#define SROCE_RSS_SAME(a, b)	static_assert((int)(a) == (int)(b))
SROCE_RSS_SAME(SROCE_RX_HASH_FUNC_TOEPLITZ, SROCE_RSS_FUNC_TOEPLITZ);
SROCE_RSS_SAME(SROCE_RX_HASH_SRC_IPV4, SROCE_RSS_SRC_IPV4);
SROCE_RSS_SAME(SROCE_RX_HASH_DST_IPV4, SROCE_RSS_DST_IPV4);
SROCE_RSS_SAME(SROCE_RX_HASH_SRC_IPV6, SROCE_RSS_SRC_IPV6);
SROCE_RSS_SAME(SROCE_RX_HASH_DST_IPV6, SROCE_RSS_DST_IPV6);
SROCE_RSS_SAME(SROCE_RX_HASH_SRC_PORT_TCP, SROCE_RSS_SRC_PORT_TCP);
SROCE_RSS_SAME(SROCE_RX_HASH_DST_PORT_TCP, SROCE_RSS_DST_PORT_TCP);
SROCE_RSS_SAME(SROCE_RX_HASH_SRC_PORT_UDP, SROCE_RSS_SRC_PORT_UDP);
SROCE_RSS_SAME(SROCE_RX_HASH_DST_PORT_UDP, SROCE_RSS_DST_PORT_UDP);
SROCE_RSS_SAME(SROCE_RX_HASH_KEY_LEN, SROCE_RSS_KEY_LEN);

/* What the softirq tells the engine of a queued frame. */
struct sroce_rss_cb {
	u32 hash;
};

static struct sroce_rss_cb *sroce_rss_cb(struct sk_buff *skb)
{
	BUILD_BUG_ON(sizeof(struct sroce_rss_cb) > sizeof(skb->cb));
	return (struct sroce_rss_cb *)skb->cb;
}

/* ------------------------------------------------------------------ */
/* Indirection tables                                                  */
/* ------------------------------------------------------------------ */

/*
 * ib_core allocated the table, holds every WQ in it (usecnt) and frees
 * the array; ours is its number and the limits.
 */
int sroce_rss_table_create(struct ib_rwq_ind_table *ibtbl,
			   struct ib_rwq_ind_table_init_attr *init,
			   struct ib_udata *udata)
{
	struct sroce_dev *sdev = to_sdev(ibtbl->device);
	u32 i, n;
	int num;

	if (!sroce_raw_enabled())
		return -EOPNOTSUPP;
	if (udata && udata->inlen &&
	    !ib_is_udata_cleared(udata, 0, udata->inlen))
		return -EOPNOTSUPP;
	if (init->log_ind_tbl_size > SROCE_RWQ_IND_TBL_LOG_MAX)
		return -EINVAL;
	n = 1U << init->log_ind_tbl_size;
	for (i = 0; i < n; i++)
		if (init->ind_tbl[i]->wq_type != IB_WQT_RQ)
			return -EINVAL;
	num = ida_alloc_range(&sdev->rwq_ind_tbl_ida, 1,
			      SROCE_MAX_RWQ_IND_TBL, GFP_KERNEL);
	if (num < 0)
		return num == -ENOSPC ? -ENOMEM : num;
	ibtbl->ind_tbl_num = num;
	return 0;
}

/* ib_core refuses while an RSS QP uses the table (usecnt). */
int sroce_rss_table_destroy(struct ib_rwq_ind_table *ibtbl)
{
	ida_free(&to_sdev(ibtbl->device)->rwq_ind_tbl_ida, ibtbl->ind_tbl_num);
	return 0;
}

/* ------------------------------------------------------------------ */
/* RSS QPs                                                             */
/* ------------------------------------------------------------------ */

/*
 * An RSS QP receives only, into its table's WQs, and is a user QP
 * (uverbs is what creates tables): no CQs, SRQ or queue sizes of its own.
 */
int sroce_rss_qp_check(const struct ib_qp_init_attr *init,
		       struct ib_udata *udata)
{
	const struct ib_qp_cap *cap = &init->cap;

	if (!init->rwq_ind_tbl)
		return 0;
	if (init->qp_type != IB_QPT_RAW_PACKET)
		return -EINVAL;
	if (!udata)
		return -EOPNOTSUPP;
	if (init->send_cq || init->recv_cq || init->srq || cap->max_send_wr ||
	    cap->max_recv_wr || cap->max_send_sge || cap->max_recv_sge ||
	    cap->max_inline_data)
		return -EINVAL;
	return 0;
}

/* The hash configuration of the create request, checked. */
int sroce_rss_qp_init(struct sroce_qp *qp,
		      const struct sroce_create_qp_req *req)
{
	struct sroce_rss_conf *c;
	int err;

	err = sroce_rss_conf_check(req->rx_hash_function,
				   req->rx_hash_key_len,
				   req->rx_hash_fields_mask,
				   qp->ibqp.rwq_ind_tbl->log_ind_tbl_size);
	if (err)
		return err;
	c = kzalloc(sizeof(*c), GFP_KERNEL_ACCOUNT);
	if (!c)
		return -ENOMEM;
	c->fields = req->rx_hash_fields_mask;
	memcpy(c->key, req->rx_hash_key, sizeof(c->key));
	qp->rss = c;
	return 0;
}

void sroce_rss_qp_free(struct sroce_qp *qp)
{
	kfree(qp->rss);
	qp->rss = NULL;
}

/*
 * The engine wants an SQ and an RQ to exist; an RSS QP's are one kernel
 * slot each, never mapped, never used (create_qp reports none).
 */
int sroce_rss_qp_rings(struct sroce_qp *qp, struct ib_qp_init_attr *init)
{
	gfp_t gfp = sroce_queue_gfp(qp->user);
	int err;

	err = sroce_queue_alloc(&qp->sq, 1,
				roundup_pow_of_two(SROCE_SEND_WQE_HDR_SIZE +
						   sizeof(struct sroce_sge)),
				gfp);
	if (err)
		return err;
	err = sroce_queue_alloc(&qp->rq, 1,
				roundup_pow_of_two(SROCE_RECV_WQE_HDR_SIZE +
						   sizeof(struct sroce_sge)),
				gfp);
	if (err) {
		sroce_queue_free(&qp->sq);
		return err;
	}
	qp->max_send_sge = 1;
	qp->max_recv_sge = 1;
	memset(&init->cap, 0, sizeof(init->cap));
	return 0;
}

/*
 * A frame a flow of RSS QP @qp took (softirq, or a raw send of this
 * device when @local), @key its parse: hashed here, placed by the
 * engine.  Consumes @skb.
 */
void sroce_rss_deliver(struct sroce_qp *qp, struct sk_buff *skb,
		       const struct sroce_flow_key *key, bool local)
{
	if (skb_queue_len(&qp->rxq) >= SROCE_RXQ_MAX) {
		sroce_cnt_inc(&qp->sdev->cnt, SROCE_CNT_RAW_RX_DROPPED);
		kfree_skb(skb);
		return;
	}
	sroce_rss_cb(skb)->hash = sroce_rss_hash(qp->rss, key);
	skb_dst_drop(skb);
	skb_queue_tail(&qp->rxq, skb);
	if (local)
		sroce_engine_kick(qp);
	else
		sroce_engine_poke(qp);
}

static void sroce_rss_recv(struct sroce_qp *qp, struct sk_buff *skb)
{
	struct ib_rwq_ind_table *t = qp->ibqp.rwq_ind_tbl;
	u32 i = sroce_rss_cb(skb)->hash & ((1U << t->log_ind_tbl_size) - 1);

	sroce_wq_recv(to_swq(t->ind_tbl[i]), qp, skb);
}

/* One engine run of an RSS QP: true if there is more to do now. */
bool sroce_rss_run(struct sroce_qp *qp, int budget)
{
	struct sk_buff *skb;

	for (; budget > 0; budget--) {
		skb = skb_dequeue(&qp->rxq);
		if (!skb)
			return false;
		sroce_rss_recv(qp, skb);
	}
	return !skb_queue_empty(&qp->rxq);
}
