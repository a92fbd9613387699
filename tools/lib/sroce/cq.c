// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * Completion queues.  sroce.ko writes CQEs into a ring we map, so polling
 * (ibv_poll_cq and the extended ibv_start_poll family) reads memory and
 * makes no system call.  Creation, resizing, arming and destruction are
 * uverbs commands; the kernel owns the CQ, we own the consumer index.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "sroce.h"

/* Response buffers: the core response, then sroce-abi.h's. */
struct sroce_create_cq_resp_buf {
	struct ib_uverbs_create_cq_resp ibv;
	struct sroce_create_cq_resp drv;
};

struct sroce_create_cq_ex_resp_buf {
	struct ib_uverbs_ex_create_cq_resp ibv;
	struct sroce_create_cq_resp drv;
};

struct sroce_resize_cq_resp_buf {
	struct ib_uverbs_resize_cq_resp ibv;
	struct sroce_resize_cq_resp drv;
};

#define SROCE_RESP_ASSERT(t) \
	_Static_assert(offsetof(struct t, drv) == sizeof(((struct t *)0)->ibv), \
		       #t ": driver response must follow the core one")
SROCE_RESP_ASSERT(sroce_create_cq_resp_buf);
SROCE_RESP_ASSERT(sroce_create_cq_ex_resp_buf);
SROCE_RESP_ASSERT(sroce_resize_cq_resp_buf);

/*
 * A CQE's status and opcode are the kernel's enum ib_wc_status and
 * ib_wc_opcode, which libibverbs' enums copy value for value (uverbs'
 * own poll_cq passes them through untranslated too), or sroce-abi.h's
 * SROCE_CQE_OPCODE_ATOMIC_WRITE, libibverbs' value too.  Pin the ones
 * RC produces.
 */
_Static_assert(SROCE_SAME(IBV_WC_SEND, IB_UVERBS_WC_SEND) &&
	       SROCE_SAME(IBV_WC_RDMA_WRITE, IB_UVERBS_WC_RDMA_WRITE) &&
	       SROCE_SAME(IBV_WC_RDMA_READ, IB_UVERBS_WC_RDMA_READ) &&
	       SROCE_SAME(IBV_WC_COMP_SWAP, IB_UVERBS_WC_COMP_SWAP) &&
	       SROCE_SAME(IBV_WC_FETCH_ADD, IB_UVERBS_WC_FETCH_ADD) &&
	       SROCE_SAME(IBV_WC_LOCAL_INV, IB_UVERBS_WC_LOCAL_INV) &&
	       SROCE_SAME(IBV_WC_ATOMIC_WRITE, SROCE_CQE_OPCODE_ATOMIC_WRITE) &&
	       IBV_WC_RECV == 1 << 7 && IBV_WC_RECV_RDMA_WITH_IMM == 129,
	       "ibv_wc_opcode is the kernel's ib_wc_opcode");
_Static_assert(IBV_WC_SUCCESS == 0 && IBV_WC_WR_FLUSH_ERR == 5 &&
	       IBV_WC_RNR_RETRY_EXC_ERR == 13 && IBV_WC_GENERAL_ERR == 21,
	       "ibv_wc_status is the kernel's ib_wc_status");

/* What an extended CQ can report: everything but timestamps & co. */
#define SROCE_CQ_EX_WC_FLAGS	((uint64_t)IBV_WC_STANDARD_FLAGS)

/* ------------------------------------------------------------------ */
/* Reading CQEs                                                        */
/* ------------------------------------------------------------------ */

/* The kernel's IB_WC_* bits (enum sroce_cqe_flags) as IBV_WC_* bits. */
static unsigned int sroce_cqe_wc_flags(const struct sroce_cqe *cqe)
{
	uint32_t f = cqe->wc_flags;
	unsigned int wc = 0;

	if (f & SROCE_CQE_GRH)
		wc |= IBV_WC_GRH;
	if (f & SROCE_CQE_WITH_IMM)
		wc |= IBV_WC_WITH_IMM;
	if (f & SROCE_CQE_WITH_INV)
		wc |= IBV_WC_WITH_INV;
	if (f & SROCE_CQE_IP_CSUM_OK)
		wc |= IBV_WC_IP_CSUM_OK;
	return wc;
}

static void sroce_cqe_to_wc(const struct sroce_cqe *cqe, struct ibv_wc *wc)
{
	wc->wr_id = cqe->wr_id;
	wc->status = cqe->status;
	wc->opcode = cqe->opcode;
	wc->vendor_err = cqe->vendor_err;
	wc->byte_len = cqe->byte_len;
	/* Network order for an immediate, host order for an rkey: as is. */
	wc->imm_data = cqe->imm_data;
	wc->qp_num = cqe->qp_num;
	wc->src_qp = cqe->src_qp;
	wc->wc_flags = sroce_cqe_wc_flags(cqe);
	wc->pkey_index = cqe->pkey_index;
	wc->slid = cqe->slid;
	wc->sl = cqe->sl;
	wc->dlid_path_bits = cqe->dlid_path_bits;
}

static bool sroce_cqe_void(const struct sroce_cqe *cqe)
{
	return cqe->opcode == SROCE_CQE_OPCODE_VOID;
}

/*
 * CQEs ready, or -EIO when the CQ cannot be read: its ring was lost in a
 * failed resize, the kernel's producer index is impossible, or the
 * device was removed and every CQE it left has been read.
 */
static int64_t sroce_cq_avail(struct sroce_cq *cq)
{
	int64_t n;

	if (!cq->ring.hdr)
		return -EIO;
	n = sroce_ring_avail(&cq->ring);
	if (!n && sroce_ring_dead(&cq->ring))
		return -EIO;
	if (n < 0)
		sroce_dbg("CQ %u: producer index %u is more than a ring ahead of %u",
			  cq->vcq.cq.handle, cq->ring.hdr->prod, cq->ring.head);
	return n;
}

/*
 * ibv_poll_cq().  Consumers may race, hence the lock; cons is published
 * once per call, which is when the kernel may reuse the slots.
 */
int sroce_cq_poll(struct ibv_cq *ibcq, int ne, struct ibv_wc *wc)
{
	struct sroce_cq *cq = to_scq(ibcq);
	const struct sroce_cqe *cqe;
	uint32_t head0;
	int64_t avail;
	int n = 0;

	pthread_spin_lock(&cq->lock);
	avail = sroce_cq_avail(cq);
	if (avail < 0) {
		pthread_spin_unlock(&cq->lock);
		return avail;
	}
	head0 = cq->ring.head;
	while (n < ne && avail-- > 0) {
		cqe = sroce_ring_slot(&cq->ring, cq->ring.head++);
		if (!sroce_cqe_void(cqe))
			sroce_cqe_to_wc(cqe, &wc[n++]);
	}
	if (cq->ring.head != head0)
		sroce_ring_release(&cq->ring);
	pthread_spin_unlock(&cq->lock);
	return n;
}

/*
 * Void the CQEs of QP @qpn that are published and not yet consumed: the
 * QP went to RESET or away, and a consumer reusing the CQ (or the QP
 * number) must not see them.  Entries past prod are the kernel's and
 * cannot be the QP's any more.
 */
void sroce_cq_clean(struct sroce_cq *cq, uint32_t qpn)
{
	struct sroce_cqe *cqe;
	int64_t avail, i;

	pthread_spin_lock(&cq->lock);
	avail = cq->ring.hdr ? sroce_ring_avail(&cq->ring) : 0;
	for (i = 0; i < avail; i++) {
		cqe = sroce_ring_slot(&cq->ring, cq->ring.head + i);
		if (cqe->qp_num == qpn)
			cqe->opcode = SROCE_CQE_OPCODE_VOID;
	}
	pthread_spin_unlock(&cq->lock);
}

/* ------------------------------------------------------------------ */
/* Extended polling (ibv_cq_ex)                                        */
/* ------------------------------------------------------------------ */

/*
 * The lock is held from a successful start_poll to end_poll, as
 * libibverbs documents: other pollers wait, and no resize moves the ring
 * under cq->cur.
 */
static void sroce_cq_ex_load(struct sroce_cq *cq)
{
	const struct sroce_cqe *cqe = sroce_ring_slot(&cq->ring, cq->ring.head);

	cq->cur = cqe;
	cq->vcq.cq_ex.wr_id = cqe->wr_id;
	cq->vcq.cq_ex.status = cqe->status;
}

/*
 * Step over voided entries at head (consuming them), with *avail the
 * entries known published: false if none but voided ones were there.
 */
static bool sroce_cq_ex_skip_void(struct sroce_cq *cq, int64_t *avail)
{
	while (*avail > 0 &&
	       sroce_cqe_void(sroce_ring_slot(&cq->ring, cq->ring.head))) {
		cq->ring.head++;
		--*avail;
	}
	return *avail > 0;
}

static int sroce_cq_start_poll(struct ibv_cq_ex *ibcq,
			       struct ibv_poll_cq_attr *attr)
{
	struct sroce_cq *cq = ex_to_scq(ibcq);
	int64_t avail;

	if (attr->comp_mask)
		return EINVAL;
	pthread_spin_lock(&cq->lock);
	avail = sroce_cq_avail(cq);
	if (avail >= 0 && !sroce_cq_ex_skip_void(cq, &avail)) {
		sroce_ring_release(&cq->ring);
		avail = 0;
	}
	if (avail <= 0) {
		/* No end_poll follows a failed start_poll. */
		pthread_spin_unlock(&cq->lock);
		return avail ? EIO : ENOENT;
	}
	cq->ex_avail = avail;
	sroce_cq_ex_load(cq);
	return 0;
}

static int sroce_cq_next_poll(struct ibv_cq_ex *ibcq)
{
	struct sroce_cq *cq = ex_to_scq(ibcq);
	int64_t avail;

	cq->ring.head++;
	cq->cur = NULL;
	avail = --cq->ex_avail;
	for (;;) {
		if (sroce_cq_ex_skip_void(cq, &avail))
			break;
		/* Give the kernel back what we read before looking for more. */
		sroce_ring_release(&cq->ring);
		avail = sroce_ring_avail(&cq->ring);
		if (avail <= 0)
			return avail ? EIO : ENOENT;
	}
	cq->ex_avail = avail;
	sroce_cq_ex_load(cq);
	return 0;
}

static void sroce_cq_end_poll(struct ibv_cq_ex *ibcq)
{
	struct sroce_cq *cq = ex_to_scq(ibcq);

	if (cq->cur) {
		cq->ring.head++;
		cq->cur = NULL;
	}
	sroce_ring_release(&cq->ring);
	pthread_spin_unlock(&cq->lock);
}

static enum ibv_wc_opcode sroce_cq_read_opcode(struct ibv_cq_ex *ibcq)
{
	return ex_to_scq(ibcq)->cur->opcode;
}

static uint32_t sroce_cq_read_vendor_err(struct ibv_cq_ex *ibcq)
{
	return ex_to_scq(ibcq)->cur->vendor_err;
}

static uint32_t sroce_cq_read_byte_len(struct ibv_cq_ex *ibcq)
{
	return ex_to_scq(ibcq)->cur->byte_len;
}

static __be32 sroce_cq_read_imm_data(struct ibv_cq_ex *ibcq)
{
	return ex_to_scq(ibcq)->cur->imm_data;
}

static uint32_t sroce_cq_read_qp_num(struct ibv_cq_ex *ibcq)
{
	return ex_to_scq(ibcq)->cur->qp_num;
}

static uint32_t sroce_cq_read_src_qp(struct ibv_cq_ex *ibcq)
{
	return ex_to_scq(ibcq)->cur->src_qp;
}

static unsigned int sroce_cq_read_wc_flags(struct ibv_cq_ex *ibcq)
{
	return sroce_cqe_wc_flags(ex_to_scq(ibcq)->cur);
}

static uint32_t sroce_cq_read_slid(struct ibv_cq_ex *ibcq)
{
	return ex_to_scq(ibcq)->cur->slid;
}

static uint8_t sroce_cq_read_sl(struct ibv_cq_ex *ibcq)
{
	return ex_to_scq(ibcq)->cur->sl;
}

static uint8_t sroce_cq_read_dlid_path_bits(struct ibv_cq_ex *ibcq)
{
	return ex_to_scq(ibcq)->cur->dlid_path_bits;
}

/*
 * Every reader of SROCE_CQ_EX_WC_FLAGS, whatever the user asked for: a
 * reader of a field not requested may return anything, so returning the
 * real value is fine.  Timestamp readers stay NULL: create refuses them.
 */
void sroce_cq_ex_init(struct sroce_cq *cq)
{
	struct ibv_cq_ex *x = &cq->vcq.cq_ex;

	x->start_poll = sroce_cq_start_poll;
	x->next_poll = sroce_cq_next_poll;
	x->end_poll = sroce_cq_end_poll;
	x->read_opcode = sroce_cq_read_opcode;
	x->read_vendor_err = sroce_cq_read_vendor_err;
	x->read_byte_len = sroce_cq_read_byte_len;
	x->read_imm_data = sroce_cq_read_imm_data;
	x->read_qp_num = sroce_cq_read_qp_num;
	x->read_src_qp = sroce_cq_read_src_qp;
	x->read_wc_flags = sroce_cq_read_wc_flags;
	x->read_slid = sroce_cq_read_slid;
	x->read_sl = sroce_cq_read_sl;
	x->read_dlid_path_bits = sroce_cq_read_dlid_path_bits;
}

/* ------------------------------------------------------------------ */
/* Lifetime                                                            */
/* ------------------------------------------------------------------ */

static struct sroce_cq *sroce_cq_alloc(void)
{
	struct sroce_cq *cq = calloc(1, sizeof(*cq));

	if (!cq)
		return NULL;
	if (pthread_spin_init(&cq->lock, PTHREAD_PROCESS_PRIVATE)) {
		free(cq);
		errno = ENOMEM;
		return NULL;
	}
	return cq;
}

static void sroce_cq_free(struct sroce_cq *cq)
{
	sroce_pd_put(cq->parent);
	sroce_ring_unmap(&cq->ring);
	pthread_spin_destroy(&cq->lock);
	free(cq);
}

void sroce_cq_attach(struct sroce_cq *cq, void *base,
		     const struct sroce_ring_info *info)
{
	sroce_ring_attach(&cq->ring, base, info, false);
	cq->cur = NULL;
	cq->ex_avail = 0;
}

/*
 * The create command succeeded: map the ring, or destroy the kernel CQ
 * again (its handle and context are set, its mutex and cond zeroed, which
 * is all ibv_cmd_destroy_cq() needs).
 */
static int sroce_cq_finish_create(struct sroce_cq *cq, struct ibv_context *ctx,
				  const struct sroce_ring_info *info)
{
	void *base;
	int ret;

	ret = sroce_ring_map(ctx->cmd_fd, info, sizeof(struct sroce_cqe),
			     &base);
	if (ret) {
		ibv_cmd_destroy_cq(&cq->vcq.cq);
		return ret;
	}
	sroce_cq_attach(cq, base, info);
	return 0;
}

/* No driver request data; the response names the ring. */
static struct ibv_cq *sroce_create_cq(struct ibv_context *ctx, int cqe,
				      struct ibv_comp_channel *channel,
				      int comp_vector)
{
	struct sroce_create_cq_resp_buf resp = {};
	struct ibv_create_cq cmd = {};
	struct sroce_cq *cq;
	int ret;

	cq = sroce_cq_alloc();
	if (!cq)
		return NULL;
	ret = ibv_cmd_create_cq(ctx, cqe, channel, comp_vector, &cq->vcq.cq,
				&cmd, sizeof(cmd), &resp.ibv, sizeof(resp));
	if (!ret)
		ret = sroce_cq_finish_create(cq, ctx, &resp.drv.ring);
	if (ret) {
		sroce_cq_free(cq);
		errno = ret;
		return NULL;
	}
	/*
	 * libibverbs runs verbs_init_cq() after both create ops (for
	 * create_cq_ex, in the wrapper verbs_set_ops() installs): that sets
	 * the channel, cq_context, and takes the channel's reference.
	 */
	return &cq->vcq.cq;
}

#define SROCE_CQ_INIT_ATTR_MASK	(IBV_CQ_INIT_ATTR_MASK_FLAGS | \
				 IBV_CQ_INIT_ATTR_MASK_PD)

static int sroce_cq_ex_check(struct ibv_context *ctx,
			     const struct ibv_cq_init_attr_ex *attr)
{
	if (attr->wc_flags & ~SROCE_CQ_EX_WC_FLAGS)
		return EOPNOTSUPP;	/* timestamps, cvlan, flow tag, TM */
	if (attr->comp_mask & ~(uint32_t)SROCE_CQ_INIT_ATTR_MASK)
		return EOPNOTSUPP;
	/* Single-threaded is a hint we may ignore; overrun we cannot. */
	if (attr->comp_mask & IBV_CQ_INIT_ATTR_MASK_FLAGS &&
	    attr->flags & ~(uint32_t)IBV_CREATE_CQ_ATTR_SINGLE_THREADED)
		return EOPNOTSUPP;
	/* The verbs want a parent domain here, not a protection domain. */
	if (attr->comp_mask & IBV_CQ_INIT_ATTR_MASK_PD &&
	    (!attr->parent_domain || attr->parent_domain->context != ctx ||
	     !sroce_pd_is_parent(to_spd(attr->parent_domain))))
		return EINVAL;
	return 0;
}

static struct ibv_cq_ex *sroce_create_cq_ex(struct ibv_context *ctx,
					    struct ibv_cq_init_attr_ex *attr)
{
	struct sroce_create_cq_ex_resp_buf resp = {};
	struct ibv_create_cq_ex cmd = {};
	struct ibv_cq_init_attr_ex a;
	struct sroce_cq *cq;
	int ret;

	ret = sroce_cq_ex_check(ctx, attr);
	if (ret) {
		errno = ret;
		return NULL;
	}
	cq = sroce_cq_alloc();
	if (!cq)
		return NULL;
	/*
	 * A kernel CQ belongs to no PD: the parent domain only matters to
	 * us (the CQ holds it), so the command does not see it.
	 */
	a = *attr;
	if (a.comp_mask & IBV_CQ_INIT_ATTR_MASK_PD) {
		cq->parent = sroce_pd_get(a.parent_domain);
		a.comp_mask &= ~IBV_CQ_INIT_ATTR_MASK_PD;
		a.parent_domain = NULL;
	}
	ret = ibv_cmd_create_cq_ex(ctx, &a, &cq->vcq, &cmd, sizeof(cmd),
				   &resp.ibv, sizeof(resp), 0);
	if (!ret)
		ret = sroce_cq_finish_create(cq, ctx, &resp.drv.ring);
	if (ret) {
		sroce_cq_free(cq);
		errno = ret;
		return NULL;
	}
	sroce_cq_ex_init(cq);
	return &cq->vcq.cq_ex;
}

/*
 * The kernel answers with a new ring holding the CQEs we had not consumed
 * (it read our published cons: every poll publishes before it unlocks),
 * and frees the old one once we unmap it.  If the new ring cannot be
 * mapped the CQ is lost: the old ring no longer receives completions.
 */
static int sroce_resize_cq(struct ibv_cq *ibcq, int cqe)
{
	struct sroce_resize_cq_resp_buf resp = {};
	struct sroce_cq *cq = to_scq(ibcq);
	struct ibv_resize_cq cmd = {};
	void *base;
	int ret;

	pthread_spin_lock(&cq->lock);
	if (!cq->ring.hdr) {
		ret = EIO;
		goto out;
	}
	ret = ibv_cmd_resize_cq(ibcq, cqe, &cmd, sizeof(cmd), &resp.ibv,
				sizeof(resp));
	if (ret)
		goto out;
	ret = sroce_ring_map(ibcq->context->cmd_fd, &resp.drv.ring,
			     sizeof(struct sroce_cqe), &base);
	sroce_ring_unmap(&cq->ring);
	if (ret) {
		sroce_log("CQ %u: cannot map its resized ring (%s); the CQ is unusable",
			  ibcq->handle, strerror(ret));
		goto out;
	}
	sroce_cq_attach(cq, base, &resp.drv.ring);
out:
	pthread_spin_unlock(&cq->lock);
	return ret;
}

static int sroce_req_notify_cq(struct ibv_cq *ibcq, int solicited_only)
{
	return ibv_cmd_req_notify_cq(ibcq, solicited_only);
}

static int sroce_destroy_cq(struct ibv_cq *ibcq)
{
	int ret;

	ret = ibv_cmd_destroy_cq(ibcq);
	if (ret)
		return ret;
	sroce_cq_free(to_scq(ibcq));
	return 0;
}

const struct verbs_context_ops sroce_cq_ops = {
	.create_cq = sroce_create_cq,
	.create_cq_ex = sroce_create_cq_ex,
	.destroy_cq = sroce_destroy_cq,
	.poll_cq = sroce_cq_poll,
	.req_notify_cq = sroce_req_notify_cq,
	.resize_cq = sroce_resize_cq,
};
