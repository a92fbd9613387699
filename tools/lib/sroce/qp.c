// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * Queue pairs.  sroce.ko owns the QP, its state machine and its engine;
 * we map the SQ and RQ rings its create response names and produce WQEs
 * into them (posting sends is in send.c).  modify, query and destroy are
 * plain uverbs commands: the kernel validates every transition.
 *
 * XRC: an INI QP (IBV_QPT_XRC_SEND) is an RC QP with an SQ only.  A TGT
 * QP (IBV_QPT_XRC_RECV) belongs to an XRC domain and has no rings at
 * all: it receives into the XRC SRQs its requests name, and any process
 * with the domain may open it by number (ibv_open_qp()).
 *
 * RSS: a raw packet QP created with an indirection table and a hash
 * configuration (SROCE_CAP_RSS) has no rings either: the frames its
 * flows take go to the table's WQs (wq.c) by the hash, which the kernel
 * computes from what the create request carries.  It takes the extended
 * command, the only one that names a table.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "sroce.h"

struct sroce_create_qp_cmd {
	struct ibv_create_qp ibv;
	struct sroce_create_qp_req drv;
};
_Static_assert(offsetof(struct sroce_create_qp_cmd, drv) ==
	       sizeof(struct ibv_create_qp),
	       "driver request must follow the core one without padding");

struct sroce_create_qp_resp_buf {
	struct ib_uverbs_create_qp_resp ibv;
	struct sroce_create_qp_resp drv;
};
_Static_assert(offsetof(struct sroce_create_qp_resp_buf, drv) ==
	       sizeof(struct ib_uverbs_create_qp_resp),
	       "driver response must follow the core one without padding");
_Static_assert(sizeof(struct sroce_recv_wqe) == SROCE_RECV_WQE_HDR_SIZE,
	       "receive WQE header size");

struct sroce_create_qp_ex_cmd {
	struct ibv_create_qp_ex ibv;
	struct sroce_create_qp_req drv;
};
_Static_assert(offsetof(struct sroce_create_qp_ex_cmd, drv) ==
	       sizeof(struct ibv_create_qp_ex),
	       "driver request must follow the core one without padding");

struct sroce_create_qp_ex_resp_buf {
	struct ib_uverbs_ex_create_qp_resp ibv;
	struct sroce_create_qp_resp drv;
};
_Static_assert(offsetof(struct sroce_create_qp_ex_resp_buf, drv) ==
	       sizeof(struct ib_uverbs_ex_create_qp_resp),
	       "driver response must follow the core one without padding");

/* The hash configuration goes to the kernel as rdma-core numbers it. */
_Static_assert(SROCE_SAME(IBV_RX_HASH_FUNC_TOEPLITZ,
			  SROCE_RX_HASH_FUNC_TOEPLITZ) &&
	       SROCE_SAME(IBV_RX_HASH_SRC_IPV4, SROCE_RX_HASH_SRC_IPV4) &&
	       SROCE_SAME(IBV_RX_HASH_DST_IPV4, SROCE_RX_HASH_DST_IPV4) &&
	       SROCE_SAME(IBV_RX_HASH_SRC_IPV6, SROCE_RX_HASH_SRC_IPV6) &&
	       SROCE_SAME(IBV_RX_HASH_DST_IPV6, SROCE_RX_HASH_DST_IPV6) &&
	       SROCE_SAME(IBV_RX_HASH_SRC_PORT_TCP,
			  SROCE_RX_HASH_SRC_PORT_TCP) &&
	       SROCE_SAME(IBV_RX_HASH_DST_PORT_TCP,
			  SROCE_RX_HASH_DST_PORT_TCP) &&
	       SROCE_SAME(IBV_RX_HASH_SRC_PORT_UDP,
			  SROCE_RX_HASH_SRC_PORT_UDP) &&
	       SROCE_SAME(IBV_RX_HASH_DST_PORT_UDP,
			  SROCE_RX_HASH_DST_PORT_UDP),
	       "RX hash numbers are rdma-core's");

/* What ibv_create_qp_ex() may ask of us; PD (or XRCD) is required. */
#define SROCE_QP_INIT_ATTR_MASK	(IBV_QP_INIT_ATTR_PD | \
				 IBV_QP_INIT_ATTR_XRCD | \
				 IBV_QP_INIT_ATTR_CREATE_FLAGS | \
				 IBV_QP_INIT_ATTR_SEND_OPS_FLAGS | \
				 IBV_QP_INIT_ATTR_IND_TABLE | \
				 IBV_QP_INIT_ATTR_RX_HASH)
#define SROCE_QP_INIT_ATTR_RSS	(IBV_QP_INIT_ATTR_IND_TABLE | \
				 IBV_QP_INIT_ATTR_RX_HASH)

static uint32_t sroce_min_u32(uint32_t a, uint32_t b)
{
	return a < b ? a : b;
}

/* ------------------------------------------------------------------ */
/* Limits                                                              */
/* ------------------------------------------------------------------ */

/*
 * Report the limits we enforce.  They are the kernel's caps, cut to what
 * one ring slot holds should the two ever disagree: an application must
 * never pass our checks with a WQE that overflows its slot.
 */
static void sroce_qp_clamp_caps(const struct sroce_qp *qp,
				struct ibv_qp_cap *cap)
{
	cap->max_send_wr = sroce_min_u32(cap->max_send_wr,
					 qp->sq.ring.entries);
	cap->max_send_sge = qp->sq.max_sge;
	cap->max_inline_data = qp->sq.max_inline;
	if (!qp->rq.ring.hdr)
		return;
	cap->max_recv_wr = sroce_min_u32(cap->max_recv_wr,
					 qp->rq.ring.entries);
	cap->max_recv_sge = qp->rq.max_sge;
}

void sroce_qp_caps(struct sroce_qp *qp, uint32_t max_inline,
		   struct ibv_qp_cap *cap)
{
	uint32_t room = qp->sq.ring.stride - SROCE_SEND_WQE_HDR_SIZE;

	qp->sq.max_sge = sroce_min_u32(cap->max_send_sge,
				       room / sizeof(struct sroce_sge));
	qp->sq.max_inline = sroce_min_u32(max_inline, room);
	if (qp->rq.ring.hdr) {
		room = qp->rq.ring.stride - SROCE_RECV_WQE_HDR_SIZE;
		qp->rq.max_sge = sroce_min_u32(cap->max_recv_sge,
					       room / sizeof(struct sroce_sge));
	}
	sroce_qp_clamp_caps(qp, cap);
}

/* ------------------------------------------------------------------ */
/* Lifetime                                                            */
/* ------------------------------------------------------------------ */

static struct sroce_qp *sroce_qp_alloc(void)
{
	struct sroce_qp *qp = calloc(1, sizeof(*qp));

	if (!qp)
		return NULL;
	if (pthread_spin_init(&qp->sq.lock, PTHREAD_PROCESS_PRIVATE))
		goto err_free;
	if (pthread_spin_init(&qp->rq.lock, PTHREAD_PROCESS_PRIVATE))
		goto err_sq;
	return qp;

err_sq:
	pthread_spin_destroy(&qp->sq.lock);
err_free:
	free(qp);
	errno = ENOMEM;
	return NULL;
}

static void sroce_qp_free(struct sroce_qp *qp)
{
	sroce_pd_put(qp->parent);
	sroce_ring_unmap(&qp->rq.ring);
	sroce_ring_unmap(&qp->sq.ring);
	pthread_spin_destroy(&qp->rq.lock);
	pthread_spin_destroy(&qp->sq.lock);
	free(qp);
}

static int sroce_wq_map(struct sroce_wq *wq, int cmd_fd,
			const struct sroce_ring_info *info, uint32_t min_stride)
{
	void *base;
	int ret;

	ret = sroce_ring_map(cmd_fd, info, min_stride, &base);
	if (!ret)
		sroce_ring_attach(&wq->ring, base, info, true);
	return ret;
}

/* Map the rings; a QP on an SRQ has no RQ (rq.entries == 0). */
static int sroce_qp_map(struct sroce_qp *qp, int cmd_fd,
			const struct sroce_create_qp_resp *drv)
{
	int ret;

	ret = sroce_wq_map(&qp->sq, cmd_fd, &drv->sq, SROCE_SEND_WQE_HDR_SIZE);
	if (ret || !drv->rq.entries)
		return ret;
	ret = sroce_wq_map(&qp->rq, cmd_fd, &drv->rq, SROCE_RECV_WQE_HDR_SIZE);
	if (ret)
		sroce_ring_unmap(&qp->sq.ring);
	return ret;
}

/* An XRC TGT QP: a domain of this context, and nothing to send with. */
static int sroce_qp_check_tgt(struct ibv_context *ctx,
			      const struct ibv_qp_init_attr_ex *attr)
{
	if (!sroce_ctx_has_xrc(ctx))
		return EOPNOTSUPP;
	if (!(attr->comp_mask & IBV_QP_INIT_ATTR_XRCD) || !attr->xrcd ||
	    attr->xrcd->context != ctx)
		return EINVAL;
	if (attr->comp_mask & IBV_QP_INIT_ATTR_SEND_OPS_FLAGS &&
	    attr->send_ops_flags)
		return EOPNOTSUPP;
	return 0;
}

static bool sroce_qp_is_rss(const struct ibv_qp_init_attr_ex *attr)
{
	return attr->comp_mask & SROCE_QP_INIT_ATTR_RSS;
}

/*
 * An RSS QP: a raw packet QP with both a table of this context and a
 * hash configuration, receiving only.  The kernel checks the hash.
 */
static int sroce_qp_check_rss(struct ibv_context *ctx,
			      const struct ibv_qp_init_attr_ex *attr)
{
	const struct ibv_rx_hash_conf *h = &attr->rx_hash_conf;
	const struct ibv_qp_cap *cap = &attr->cap;

	if (!sroce_ctx_has_rss(ctx))
		return EOPNOTSUPP;
	if ((attr->comp_mask & SROCE_QP_INIT_ATTR_RSS) !=
	    SROCE_QP_INIT_ATTR_RSS || attr->qp_type != IBV_QPT_RAW_PACKET ||
	    !attr->rwq_ind_tbl || attr->rwq_ind_tbl->context != ctx)
		return EINVAL;
	if (attr->send_cq || attr->recv_cq || attr->srq || cap->max_send_wr ||
	    cap->max_recv_wr || cap->max_send_sge || cap->max_recv_sge ||
	    cap->max_inline_data)
		return EINVAL;
	if (attr->comp_mask & IBV_QP_INIT_ATTR_SEND_OPS_FLAGS &&
	    attr->send_ops_flags)
		return EINVAL;
	/* The key travels in a field of this size. */
	if (h->rx_hash_key_len > SROCE_RX_HASH_KEY_LEN ||
	    (h->rx_hash_key_len && !h->rx_hash_key))
		return EINVAL;
	return 0;
}

static int sroce_qp_check_init(struct ibv_context *ctx,
			       const struct ibv_qp_init_attr_ex *attr)
{
	uint32_t caps = to_sctx(ctx)->caps;
	uint64_t ops = sroce_send_ops_flags_of(attr->qp_type, caps);

	if (attr->comp_mask & ~(uint32_t)SROCE_QP_INIT_ATTR_MASK)
		return EOPNOTSUPP;
	if (attr->comp_mask & IBV_QP_INIT_ATTR_CREATE_FLAGS &&
	    attr->create_flags)
		return EOPNOTSUPP;
	if (sroce_qp_is_rss(attr)) {
		int ret = sroce_qp_check_rss(ctx, attr);

		if (ret)
			return ret;
	}
	if (attr->qp_type == IBV_QPT_XRC_RECV)
		return sroce_qp_check_tgt(ctx, attr);
	if (!sroce_send_ops_of(attr->qp_type, caps) ||
	    (attr->qp_type == IBV_QPT_XRC_SEND && !sroce_ctx_has_xrc(ctx)))
		return EOPNOTSUPP;
	if (!(attr->comp_mask & IBV_QP_INIT_ATTR_PD) || !attr->pd ||
	    attr->pd->context != ctx)
		return EINVAL;
	if (attr->comp_mask & IBV_QP_INIT_ATTR_SEND_OPS_FLAGS &&
	    attr->send_ops_flags & ~ops)
		return EOPNOTSUPP;
	return 0;
}

/*
 * SROCE_CC=aimd|wan|dcqcn: the congestion control of the process's RC
 * and XRC QPs, so that an unchanged program (perftest, rdma_cm tools)
 * can have its own; unset, empty or "device": the device's
 * (/sys/class/infiniband/DEV/cc).  Anything else fails the create, with
 * a message: a typo must not pass for the default.
 */
static int sroce_qp_cc_env(uint32_t *cc)
{
	static const char *const names[] = {
		[SROCE_QP_CC_DEVICE] = "device",
		[SROCE_QP_CC_AIMD] = "aimd",
		[SROCE_QP_CC_WAN] = "wan",
		[SROCE_QP_CC_DCQCN] = "dcqcn",
	};
	const char *env = getenv("SROCE_CC");
	uint32_t i;

	*cc = SROCE_QP_CC_DEVICE;
	if (!env || !*env)
		return 0;
	for (i = 0; i < sizeof(names) / sizeof(names[0]); i++) {
		if (!strcmp(env, names[i])) {
			*cc = i;
			return 0;
		}
	}
	sroce_log("SROCE_CC=%s: not one of device, aimd, wan, dcqcn", env);
	return EINVAL;
}

/*
 * Both create verbs end here.  The driver request carries SROCE_CC's
 * choice; the kernel sizes the rings from attr->cap and answers with
 * the caps it really gave (written back into attr->cap) and the rings'
 * whereabouts.
 */
static struct ibv_qp *sroce_qp_create(struct ibv_context *ctx,
				      struct ibv_qp_init_attr_ex *attr)
{
	struct sroce_create_qp_resp_buf resp = {};
	struct sroce_create_qp_cmd cmd = {};
	bool tgt = attr->qp_type == IBV_QPT_XRC_RECV;
	struct ibv_qp_init_attr_ex a;
	struct sroce_qp *qp;
	int ret;

	ret = sroce_qp_check_init(ctx, attr);
	if (!ret)
		ret = sroce_qp_cc_env(&cmd.drv.cc);
	if (ret)
		goto err;
	qp = sroce_qp_alloc();
	if (!qp)
		return NULL;
	/* ibv_cmd_create_qp_ex() refuses CREATE_FLAGS, even when 0. */
	a = *attr;
	a.comp_mask &= ~IBV_QP_INIT_ATTR_CREATE_FLAGS;
	/* A parent domain: the kernel gets its PD, the QP keeps it. */
	if (!tgt) {
		qp->parent = sroce_pd_get(attr->pd);
		a.pd = sroce_pd_real(attr->pd);
	}
	ret = ibv_cmd_create_qp_ex(ctx, &qp->vqp, &a, &cmd.ibv, sizeof(cmd),
				   &resp.ibv, sizeof(resp));
	if (ret)
		goto err_free;
	/* A TGT QP has no rings: the kernel made it for the domain. */
	if (!tgt) {
		qp->vqp.qp.pd = attr->pd;
		ret = sroce_qp_map(qp, ctx->cmd_fd, &resp.drv);
		if (ret) {
			ibv_cmd_destroy_qp(&qp->vqp.qp);
			goto err_free;
		}
		sroce_qp_caps(qp, resp.drv.max_inline, &a.cap);
	}
	attr->cap = a.cap;
	qp->send_ops = sroce_send_ops_of(attr->qp_type, to_sctx(ctx)->caps);
	if (attr->comp_mask & IBV_QP_INIT_ATTR_SEND_OPS_FLAGS) {
		/* After the command: it resets comp_mask. */
		qp->vqp.comp_mask |= VERBS_QP_EX;
		sroce_qp_ex_init(qp);
	}
	return &qp->vqp.qp;

err_free:
	sroce_qp_free(qp);
err:
	errno = ret;
	return NULL;
}

/* The hash configuration, as the kernel reads it. */
static void sroce_qp_rss_req(struct sroce_create_qp_req *req,
			     const struct ibv_rx_hash_conf *h)
{
	req->rx_hash_fields_mask = h->rx_hash_fields_mask;
	req->rx_hash_function = h->rx_hash_function;
	req->rx_hash_key_len = h->rx_hash_key_len;
	if (h->rx_hash_key_len)
		memcpy(req->rx_hash_key, h->rx_hash_key, h->rx_hash_key_len);
}

/* An RSS QP (checked): the extended command, no rings, no send ops. */
static struct ibv_qp *sroce_qp_create_rss(struct ibv_context *ctx,
					  struct ibv_qp_init_attr_ex *attr)
{
	struct sroce_create_qp_ex_resp_buf resp = {};
	struct sroce_create_qp_ex_cmd cmd = {};
	struct ibv_qp_init_attr_ex a;
	struct sroce_qp *qp;
	int ret;

	qp = sroce_qp_alloc();
	if (!qp)
		return NULL;
	sroce_qp_rss_req(&cmd.drv, &attr->rx_hash_conf);
	a = *attr;
	/* No create flags (checked): none to send. */
	a.comp_mask &= ~(IBV_QP_INIT_ATTR_CREATE_FLAGS |
			 IBV_QP_INIT_ATTR_SEND_OPS_FLAGS);
	qp->parent = sroce_pd_get(attr->pd);
	a.pd = sroce_pd_real(attr->pd);
	ret = ibv_cmd_create_qp_ex2(ctx, &qp->vqp, &a, &cmd.ibv, sizeof(cmd),
				    &resp.ibv, sizeof(resp));
	if (ret) {
		sroce_qp_free(qp);
		errno = ret;
		return NULL;
	}
	qp->vqp.qp.pd = attr->pd;
	attr->cap = a.cap;
	return &qp->vqp.qp;
}

static struct ibv_qp *sroce_create_qp_ex(struct ibv_context *ctx,
					 struct ibv_qp_init_attr_ex *attr)
{
	if (sroce_qp_is_rss(attr)) {
		int ret = sroce_qp_check_init(ctx, attr);

		if (ret) {
			errno = ret;
			return NULL;
		}
		return sroce_qp_create_rss(ctx, attr);
	}
	return sroce_qp_create(ctx, attr);
}

/*
 * ibv_create_qp(), and ibv_create_qp_ex() when comp_mask is only PD
 * (libibverbs then passes the _ex struct here, cast).
 */
static struct ibv_qp *sroce_create_qp(struct ibv_pd *pd,
				      struct ibv_qp_init_attr *attr)
{
	struct ibv_qp_init_attr_ex ex = {
		.qp_context = attr->qp_context,
		.send_cq = attr->send_cq,
		.recv_cq = attr->recv_cq,
		.srq = attr->srq,
		.cap = attr->cap,
		.qp_type = attr->qp_type,
		.sq_sig_all = attr->sq_sig_all,
		.comp_mask = IBV_QP_INIT_ATTR_PD,
		.pd = pd,
	};
	struct ibv_qp *qp;

	qp = sroce_qp_create(pd->context, &ex);
	if (qp)
		attr->cap = ex.cap;
	return qp;
}

/*
 * Another process's XRC TGT QP, by number, through a domain both opened:
 * a handle for modify, query and destroy (which closes it; the QP lives
 * on while its creator or another opener holds it).
 */
static struct ibv_qp *sroce_open_qp(struct ibv_context *ctx,
				    struct ibv_qp_open_attr *attr)
{
	struct ib_uverbs_create_qp_resp resp = {};
	struct ibv_open_qp cmd = {};
	struct sroce_qp *qp;
	int ret;

	if (!sroce_ctx_has_xrc(ctx)) {
		errno = EOPNOTSUPP;
		return NULL;
	}
	qp = sroce_qp_alloc();
	if (!qp)
		return NULL;
	ret = ibv_cmd_open_qp(ctx, &qp->vqp, sizeof(qp->vqp), attr, &cmd,
			      sizeof(cmd), &resp, sizeof(resp));
	if (ret) {
		sroce_qp_free(qp);
		errno = ret;
		return NULL;
	}
	return &qp->vqp.qp;
}

/*
 * The QP's completions still in its CQs are void once it is in RESET or
 * gone: a consumer reusing the CQ must not reap them (hardware providers
 * clean their CQs the same way).
 */
static void sroce_qp_clean_cqs(struct ibv_qp *ibqp)
{
	if (ibqp->send_cq)
		sroce_cq_clean(to_scq(ibqp->send_cq), ibqp->qp_num);
	if (ibqp->recv_cq && ibqp->recv_cq != ibqp->send_cq)
		sroce_cq_clean(to_scq(ibqp->recv_cq), ibqp->qp_num);
}

static int sroce_destroy_qp(struct ibv_qp *ibqp)
{
	int ret;

	ret = ibv_cmd_destroy_qp(ibqp);
	if (ret)
		return ret;
	sroce_qp_clean_cqs(ibqp);
	sroce_qp_free(to_sqp(ibqp));
	return 0;
}

/* ------------------------------------------------------------------ */
/* Attributes                                                          */
/* ------------------------------------------------------------------ */

/*
 * Entering RESET discards every posted WQE.  Whether the kernel does that
 * by catching its consumer up with our prod or by zeroing both indices,
 * re-reading prod leaves us where the kernel expects the next WQE.
 */
static void sroce_wq_resync(struct sroce_wq *wq)
{
	if (!wq->ring.hdr)
		return;
	pthread_spin_lock(&wq->lock);
	wq->ring.head = __atomic_load_n(&wq->ring.hdr->prod, __ATOMIC_ACQUIRE);
	pthread_spin_unlock(&wq->lock);
}

static int sroce_modify_qp(struct ibv_qp *ibqp, struct ibv_qp_attr *attr,
			   int attr_mask)
{
	struct sroce_qp *qp = to_sqp(ibqp);
	struct ibv_modify_qp cmd = {};
	int ret;

	ret = ibv_cmd_modify_qp(ibqp, attr, attr_mask, &cmd, sizeof(cmd));
	if (ret)
		return ret;
	if (attr_mask & IBV_QP_STATE && attr->qp_state == IBV_QPS_RESET) {
		sroce_wq_resync(&qp->sq);
		sroce_wq_resync(&qp->rq);
		sroce_qp_clean_cqs(ibqp);
	}
	return 0;
}

static int sroce_query_qp(struct ibv_qp *ibqp, struct ibv_qp_attr *attr,
			  int attr_mask, struct ibv_qp_init_attr *init_attr)
{
	struct sroce_qp *qp = to_sqp(ibqp);
	struct ibv_query_qp cmd = {};
	int ret;

	ret = ibv_cmd_query_qp(ibqp, attr, attr_mask, init_attr, &cmd,
			       sizeof(cmd));
	if (ret)
		return ret;
	/* The same limits create_qp reported. */
	sroce_qp_clamp_caps(qp, &attr->cap);
	sroce_qp_clamp_caps(qp, &init_attr->cap);
	return 0;
}

/* ------------------------------------------------------------------ */
/* ibv_post_recv()                                                     */
/* ------------------------------------------------------------------ */

int sroce_rq_post_one(struct sroce_wq *rq, const struct ibv_recv_wr *wr,
		      uint32_t *room)
{
	struct sroce_recv_wqe *wqe;
	struct sroce_sge *sge;
	int i;

	if (wr->num_sge < 0 || (uint32_t)wr->num_sge > rq->max_sge)
		return EINVAL;
	if (!sroce_ring_has_room(&rq->ring, room))
		return ENOMEM;
	wqe = sroce_ring_slot(&rq->ring, rq->ring.head);
	wqe->wr_id = wr->wr_id;
	wqe->num_sge = wr->num_sge;
	wqe->reserved = 0;
	sge = (struct sroce_sge *)(wqe + 1);
	for (i = 0; i < wr->num_sge; i++)
		sroce_sge_set(&sge[i], &wr->sg_list[i]);
	rq->ring.head++;
	(*room)--;
	return 0;
}

/*
 * The receive engine runs on incoming packets, so posting needs no
 * doorbell.  The kernel may still ask for one with SROCE_RING_F_KICK on
 * the RQ (a QP in ERROR must flush new receives): it is then
 * POST_RECV with no work requests, as POST_SEND is for the SQ (and needs
 * IB_USER_VERBS_CMD_POST_RECV in the driver's uverbs_cmd_mask likewise).
 */
static int sroce_rq_kick(struct ibv_qp *ibqp, struct sroce_wq *rq)
{
	struct ibv_recv_wr *bad = NULL;

	if (!sroce_ring_kick_needed(&rq->ring))
		return 0;
	return ibv_cmd_post_recv(ibqp, NULL, &bad);
}

int sroce_post_recv(struct ibv_qp *ibqp, struct ibv_recv_wr *wr,
		    struct ibv_recv_wr **bad_wr)
{
	struct sroce_wq *rq = &to_sqp(ibqp)->rq;
	uint32_t room = 0, start;
	int ret = 0, kick;

	/* A QP on an SRQ takes receives there; none are taken in RESET. */
	if (!rq->ring.hdr || ibqp->state == IBV_QPS_RESET) {
		*bad_wr = wr;
		return EINVAL;
	}
	if (sroce_ring_dead(&rq->ring)) {
		*bad_wr = wr;
		return EIO;
	}
	pthread_spin_lock(&rq->lock);
	start = rq->ring.head;
	for (; wr; wr = wr->next) {
		ret = sroce_rq_post_one(rq, wr, &room);
		if (ret) {
			*bad_wr = wr;
			break;
		}
	}
	if (rq->ring.head == start) {
		pthread_spin_unlock(&rq->lock);
		return ret;
	}
	sroce_ring_publish(&rq->ring);
	pthread_spin_unlock(&rq->lock);

	kick = sroce_rq_kick(ibqp, rq);
	if (kick && !ret) {
		*bad_wr = NULL;
		ret = kick;
	}
	return ret;
}

/*
 * UD multicast: the kernel keeps the group's members and joins the IP
 * group on the netdev; nothing of it lives in userspace.
 */
static int sroce_attach_mcast(struct ibv_qp *ibqp, const union ibv_gid *gid,
			      uint16_t lid)
{
	return ibv_cmd_attach_mcast(ibqp, gid, lid);
}

static int sroce_detach_mcast(struct ibv_qp *ibqp, const union ibv_gid *gid,
			      uint16_t lid)
{
	return ibv_cmd_detach_mcast(ibqp, gid, lid);
}

const struct verbs_context_ops sroce_qp_ops = {
	.attach_mcast = sroce_attach_mcast,
	.create_qp = sroce_create_qp,
	.create_qp_ex = sroce_create_qp_ex,
	.destroy_qp = sroce_destroy_qp,
	.detach_mcast = sroce_detach_mcast,
	.modify_qp = sroce_modify_qp,
	.open_qp = sroce_open_qp,
	.post_recv = sroce_post_recv,
	.post_send = sroce_post_send,
	.query_qp = sroce_query_qp,
};
