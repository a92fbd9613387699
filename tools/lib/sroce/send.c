// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * Posting sends: ibv_post_send() and the ibv_qp_ex work request builders
 * (ibv_wr_start ... ibv_wr_complete).  Both write struct sroce_send_wqe
 * into the SQ ring and publish prod; the kernel's send engine picks them
 * up.  Only when the engine went idle (SROCE_RING_F_KICK) do we make a
 * system call, the doorbell.
 *
 * Validation here is what the ring's geometry and the QP's type decide;
 * the kernel validates every WQE again (keys, lengths, state), reporting
 * through completions.
 */
#include <errno.h>
#include <string.h>

#include "sroce.h"

/* The WQE's opcode and send_flags are the kernel's IB_WR_*, IB_SEND_*. */
_Static_assert(SROCE_SAME(IBV_WR_RDMA_WRITE, IB_UVERBS_WR_RDMA_WRITE) &&
	       SROCE_SAME(IBV_WR_RDMA_WRITE_WITH_IMM,
			  IB_UVERBS_WR_RDMA_WRITE_WITH_IMM) &&
	       SROCE_SAME(IBV_WR_SEND, IB_UVERBS_WR_SEND) &&
	       SROCE_SAME(IBV_WR_SEND_WITH_IMM, IB_UVERBS_WR_SEND_WITH_IMM) &&
	       SROCE_SAME(IBV_WR_RDMA_READ, IB_UVERBS_WR_RDMA_READ) &&
	       SROCE_SAME(IBV_WR_ATOMIC_CMP_AND_SWP,
			  IB_UVERBS_WR_ATOMIC_CMP_AND_SWP) &&
	       SROCE_SAME(IBV_WR_ATOMIC_FETCH_AND_ADD,
			  IB_UVERBS_WR_ATOMIC_FETCH_AND_ADD) &&
	       SROCE_SAME(IBV_WR_ATOMIC_WRITE, SROCE_WR_ATOMIC_WRITE),
	       "ibv_wr_opcode is uverbs' ib_uverbs_wr_opcode");
_Static_assert(IBV_SEND_FENCE == 1 && IBV_SEND_SIGNALED == 2 &&
	       IBV_SEND_SOLICITED == 4 && IBV_SEND_INLINE == 8,
	       "ibv_send_flags is the kernel's ib_send_flags");
_Static_assert(sizeof(struct sroce_send_wqe) == SROCE_SEND_WQE_HDR_SIZE,
	       "send WQE header size");

#define SROCE_WR(op)	(1U << (op))

/* Send flags a WQE may carry; IBV_SEND_IP_CSUM is for raw packet QPs. */
#define SROCE_SEND_FLAGS	(IBV_SEND_FENCE | IBV_SEND_SIGNALED | \
				 IBV_SEND_SOLICITED | IBV_SEND_INLINE)

/* Operations whose payload may travel inline: the ones that send data. */
#define SROCE_WR_INLINE		(SROCE_WR(IBV_WR_SEND) | \
				 SROCE_WR(IBV_WR_SEND_WITH_IMM) | \
				 SROCE_WR(IBV_WR_RDMA_WRITE) | \
				 SROCE_WR(IBV_WR_RDMA_WRITE_WITH_IMM))

/* Memory windows and invalidation (mw.c); binds carry no data. */
#define SROCE_WR_MW		(SROCE_WR(IBV_WR_BIND_MW) | \
				 SROCE_WR(IBV_WR_LOCAL_INV) | \
				 SROCE_WR(IBV_WR_SEND_WITH_INV))
#define SROCE_WR_LOCAL		(SROCE_WR(IBV_WR_BIND_MW) | \
				 SROCE_WR(IBV_WR_LOCAL_INV))

#define SROCE_WR_ATOMIC		(SROCE_WR(IBV_WR_ATOMIC_CMP_AND_SWP) | \
				 SROCE_WR(IBV_WR_ATOMIC_FETCH_AND_ADD))

/* An atomic's local buffer: one SGE, the 8 bytes of the old value. */
#define SROCE_ATOMIC_LEN	8

/*
 * ATOMIC WRITE (SROCE_CAP_ATOMIC_WRITE): its 8 bytes travel in the WQE.
 * ibv_post_send() takes them from sg_list[0], which must be 8 bytes
 * long, as inline data is taken: read at its address, lkey unused.
 */
#define SROCE_WR_AWRITE		SROCE_WR(IBV_WR_ATOMIC_WRITE)

/*
 * The operations each transport offers, as 1 << IBV_WR_*, with a kernel
 * whose context has @caps (enum sroce_ucontext_caps); 0 means we cannot
 * drive the QP type at all.
 */
uint32_t sroce_send_ops_of(enum ibv_qp_type type, uint32_t caps)
{
	uint32_t awrite = caps & SROCE_CAP_ATOMIC_WRITE ? SROCE_WR_AWRITE : 0;

	switch (type) {
	case IBV_QPT_RC:
		return SROCE_WR_INLINE | SROCE_WR(IBV_WR_RDMA_READ) |
		       SROCE_WR_ATOMIC | awrite | SROCE_WR_MW;
	case IBV_QPT_UC:
		return SROCE_WR_INLINE;
	case IBV_QPT_UD:
		return SROCE_WR(IBV_WR_SEND) | SROCE_WR(IBV_WR_SEND_WITH_IMM);
	/* XRC INI: RC's data operations; no memory windows. */
	case IBV_QPT_XRC_SEND:
		return SROCE_WR_INLINE | SROCE_WR(IBV_WR_RDMA_READ) |
		       SROCE_WR_ATOMIC | awrite;
	/* Whole Ethernet frames; a kernel without them refuses the QP. */
	case IBV_QPT_RAW_PACKET:
		return caps & SROCE_CAP_RAW_PACKET ? SROCE_WR(IBV_WR_SEND) : 0;
	default:
		return 0;
	}
}

/* The same set as IBV_QP_EX_WITH_* bits, for ibv_create_qp_ex(). */
uint64_t sroce_send_ops_flags_of(enum ibv_qp_type type, uint32_t caps)
{
	static const struct {
		enum ibv_wr_opcode op;
		uint64_t flag;
	} map[] = {
		{ IBV_WR_RDMA_WRITE, IBV_QP_EX_WITH_RDMA_WRITE },
		{ IBV_WR_RDMA_WRITE_WITH_IMM, IBV_QP_EX_WITH_RDMA_WRITE_WITH_IMM },
		{ IBV_WR_SEND, IBV_QP_EX_WITH_SEND },
		{ IBV_WR_SEND_WITH_IMM, IBV_QP_EX_WITH_SEND_WITH_IMM },
		{ IBV_WR_RDMA_READ, IBV_QP_EX_WITH_RDMA_READ },
		{ IBV_WR_ATOMIC_CMP_AND_SWP, IBV_QP_EX_WITH_ATOMIC_CMP_AND_SWP },
		{ IBV_WR_ATOMIC_FETCH_AND_ADD, IBV_QP_EX_WITH_ATOMIC_FETCH_AND_ADD },
		{ IBV_WR_BIND_MW, IBV_QP_EX_WITH_BIND_MW },
		{ IBV_WR_LOCAL_INV, IBV_QP_EX_WITH_LOCAL_INV },
		{ IBV_WR_SEND_WITH_INV, IBV_QP_EX_WITH_SEND_WITH_INV },
		{ IBV_WR_ATOMIC_WRITE, IBV_QP_EX_WITH_ATOMIC_WRITE },
	};
	uint32_t ops = sroce_send_ops_of(type, caps);
	uint64_t flags = 0;
	size_t i;

	for (i = 0; i < SROCE_ARRAY_SIZE(map); i++)
		if (ops & SROCE_WR(map[i].op))
			flags |= map[i].flag;
	return flags;
}

static bool sroce_op_in(uint32_t op, uint32_t set)
{
	return op < 32 && set & SROCE_WR(op);
}

/*
 * The spec refuses sends before RTS; from RTS on they are executed, or
 * flushed in the error states.  Only the application's own modify_qp
 * moves a QP into RESET, INIT or RTR, so libibverbs' copy of the state
 * (set by ibv_modify_qp()) is exact for this test.
 */
static bool sroce_sq_ready(const struct ibv_qp *qp)
{
	switch (qp->state) {
	case IBV_QPS_RESET:
	case IBV_QPS_INIT:
	case IBV_QPS_RTR:
		return false;
	default:
		return true;
	}
}

/* ------------------------------------------------------------------ */
/* Writing WQEs                                                        */
/* ------------------------------------------------------------------ */

static struct sroce_sge *sroce_wqe_sge(struct sroce_send_wqe *wqe)
{
	return (struct sroce_sge *)(wqe + 1);
}

/*
 * Start the WQE in the SQ's next slot.  The whole header is cleared: the
 * kernel reads fields this operation does not set, and the slot still
 * holds an older WQE.
 */
static struct sroce_send_wqe *sroce_wqe_start(struct sroce_qp *qp,
					      uint64_t wr_id, uint32_t opcode,
					      uint32_t flags)
{
	struct sroce_send_wqe *wqe = sroce_ring_slot(&qp->sq.ring,
						     qp->sq.ring.head);

	memset(wqe, 0, SROCE_SEND_WQE_HDR_SIZE);
	wqe->wr_id = wr_id;
	wqe->opcode = opcode;
	wqe->send_flags = flags;
	qp->sq.ring.head++;
	return wqe;
}

static void sroce_wqe_rdma(struct sroce_send_wqe *wqe, uint32_t rkey,
			   uint64_t remote_addr)
{
	wqe->wr.rdma.remote_addr = remote_addr;
	wqe->wr.rdma.rkey = rkey;
}

static void sroce_wqe_atomic(struct sroce_send_wqe *wqe, uint32_t rkey,
			     uint64_t remote_addr, uint64_t compare_add,
			     uint64_t swap)
{
	wqe->wr.atomic.remote_addr = remote_addr;
	wqe->wr.atomic.compare_add = compare_add;
	wqe->wr.atomic.swap = swap;
	wqe->wr.atomic.rkey = rkey;
}

static void sroce_wqe_atomic_write(struct sroce_send_wqe *wqe, uint32_t rkey,
				   uint64_t remote_addr, const void *data)
{
	wqe->wr.atomic_write.remote_addr = remote_addr;
	wqe->wr.atomic_write.rkey = rkey;
	memcpy(wqe->wr.atomic_write.data, data,
	       sizeof(wqe->wr.atomic_write.data));
}

static void sroce_wqe_sges(struct sroce_send_wqe *wqe,
			   const struct ibv_sge *sg, size_t n)
{
	struct sroce_sge *sge = sroce_wqe_sge(wqe);
	size_t i;

	for (i = 0; i < n; i++)
		sroce_sge_set(&sge[i], &sg[i]);
	wqe->num_sge = n;
	wqe->inline_len = 0;
	wqe->send_flags &= ~IBV_SEND_INLINE;
}

/* Append @len bytes at @addr to the WQE's inline data. */
static void sroce_wqe_inline_add(struct sroce_send_wqe *wqe, const void *addr,
				 size_t len)
{
	memcpy((uint8_t *)(wqe + 1) + wqe->inline_len, addr, len);
	wqe->inline_len += len;
}

static void sroce_wqe_inline_start(struct sroce_send_wqe *wqe)
{
	wqe->num_sge = 0;
	wqe->inline_len = 0;
	wqe->send_flags |= IBV_SEND_INLINE;
}

/* ------------------------------------------------------------------ */
/* Checks                                                              */
/* ------------------------------------------------------------------ */

/* Inline data: only for data-sending operations, and it must fit. */
static int sroce_sq_check_inline(const struct sroce_qp *qp, uint32_t op,
				 uint64_t len)
{
	if (!sroce_op_in(op, SROCE_WR_INLINE |
			 SROCE_WR(IBV_WR_SEND_WITH_INV)) ||
	    len > qp->sq.max_inline)
		return EINVAL;
	return 0;
}

static int sroce_sq_check_atomic(size_t num_sge, const struct ibv_sge *sg)
{
	if (num_sge != 1 || sg[0].length != SROCE_ATOMIC_LEN)
		return EINVAL;
	return 0;
}

static uint64_t sroce_sge_total(const struct ibv_sge *sg, int n)
{
	uint64_t len = 0;
	int i;

	for (i = 0; i < n; i++)
		len += sg[i].length;
	return len;
}

static int sroce_sq_check(const struct sroce_qp *qp,
			  const struct ibv_send_wr *wr)
{
	if (!sroce_op_in(wr->opcode, qp->send_ops) ||
	    wr->send_flags & ~SROCE_SEND_FLAGS)
		return EINVAL;
	if (wr->num_sge < 0 || (uint32_t)wr->num_sge > qp->sq.max_sge)
		return EINVAL;
	if (qp->vqp.qp.qp_type == IBV_QPT_UD && !wr->wr.ud.ah)
		return EINVAL;
	if (qp->vqp.qp.qp_type == IBV_QPT_XRC_SEND &&
	    wr->qp_type.xrc.remote_srqn > SROCE_XRC_SRQN_MAX)
		return EINVAL;
	if (wr->send_flags & IBV_SEND_INLINE)
		return sroce_sq_check_inline(qp, wr->opcode,
					     sroce_sge_total(wr->sg_list,
							     wr->num_sge));
	if (sroce_op_in(wr->opcode, SROCE_WR_ATOMIC | SROCE_WR_AWRITE))
		return sroce_sq_check_atomic(wr->num_sge, wr->sg_list);
	if (wr->opcode == IBV_WR_BIND_MW)
		return sroce_mw_bind_check(wr->bind_mw.mw,
					   &wr->bind_mw.bind_info);
	return 0;
}

/* ------------------------------------------------------------------ */
/* The doorbell                                                        */
/* ------------------------------------------------------------------ */

/*
 * Tell the kernel about WQEs just published, if its send engine sleeps.
 * The doorbell is uverbs' own POST_SEND write() command with no work
 * requests (ibv_cmd_post_send() with an empty list sends qp_handle,
 * wr_count = 0, sge_count = 0, wqe_size = sizeof(ib_uverbs_send_wr));
 * sroce.ko's post_send sees wr == NULL and runs the engine.  ib_core
 * only routes the command to a driver that sets
 * IB_USER_VERBS_CMD_POST_SEND in its uverbs_cmd_mask (EOPNOTSUPP else).
 */
static int sroce_sq_kick(struct sroce_qp *qp)
{
	struct ibv_send_wr *bad = NULL;
	int ret;

	if (!sroce_ring_kick_needed(&qp->sq.ring))
		return 0;
	ret = ibv_cmd_post_send(&qp->vqp.qp, NULL, &bad);
	if (ret)
		sroce_dbg("QP %u: send doorbell failed: %s", qp->vqp.qp.qp_num,
			  strerror(ret));
	return ret;
}

/* ------------------------------------------------------------------ */
/* ibv_post_send()                                                     */
/* ------------------------------------------------------------------ */

static void sroce_wqe_from_wr(struct sroce_send_wqe *wqe,
			      const struct ibv_send_wr *wr)
{
	switch (wr->opcode) {
	case IBV_WR_SEND_WITH_IMM:
		wqe->imm_data = wr->imm_data;
		break;
	case IBV_WR_RDMA_WRITE_WITH_IMM:
		wqe->imm_data = wr->imm_data;
		sroce_wqe_rdma(wqe, wr->wr.rdma.rkey, wr->wr.rdma.remote_addr);
		break;
	case IBV_WR_RDMA_WRITE:
	case IBV_WR_RDMA_READ:
		sroce_wqe_rdma(wqe, wr->wr.rdma.rkey, wr->wr.rdma.remote_addr);
		break;
	case IBV_WR_ATOMIC_CMP_AND_SWP:
	case IBV_WR_ATOMIC_FETCH_AND_ADD:
		sroce_wqe_atomic(wqe, wr->wr.atomic.rkey,
				 wr->wr.atomic.remote_addr,
				 wr->wr.atomic.compare_add, wr->wr.atomic.swap);
		break;
	/* The target as for an RDMA WRITE; the bytes as inline data. */
	case IBV_WR_ATOMIC_WRITE:
		sroce_wqe_atomic_write(wqe, wr->wr.rdma.rkey,
				       wr->wr.rdma.remote_addr,
				       (const void *)(uintptr_t)
				       wr->sg_list[0].addr);
		break;
	/* Memory windows (mw.c): the rkey to invalidate, or the bind. */
	case IBV_WR_SEND_WITH_INV:
	case IBV_WR_LOCAL_INV:
		wqe->imm_data = wr->invalidate_rkey;
		break;
	case IBV_WR_BIND_MW:
		sroce_wqe_bind(wqe, wr->bind_mw.mw, wr->bind_mw.rkey,
			       &wr->bind_mw.bind_info);
		break;
	default:
		break;
	}
}

/* Inline data is gathered from the SGEs' addresses; lkeys are unused. */
static void sroce_wqe_gather(struct sroce_send_wqe *wqe,
			     const struct ibv_send_wr *wr)
{
	int i;

	/*
	 * A bind or local invalidation has no data: SGEs are ignored.  An
	 * ATOMIC WRITE's data is in the WQE already.
	 */
	if (sroce_op_in(wr->opcode, SROCE_WR_LOCAL | SROCE_WR_AWRITE))
		return;
	if (!(wr->send_flags & IBV_SEND_INLINE)) {
		sroce_wqe_sges(wqe, wr->sg_list, wr->num_sge);
		return;
	}
	sroce_wqe_inline_start(wqe);
	for (i = 0; i < wr->num_sge; i++)
		sroce_wqe_inline_add(wqe, (void *)(uintptr_t)wr->sg_list[i].addr,
				     wr->sg_list[i].length);
}

static int sroce_sq_post_one(struct sroce_qp *qp, const struct ibv_send_wr *wr,
			     uint32_t *room)
{
	struct sroce_send_wqe *wqe;
	int ret;

	ret = sroce_sq_check(qp, wr);
	if (ret)
		return ret;
	if (!sroce_ring_has_room(&qp->sq.ring, room))
		return ENOMEM;
	wqe = sroce_wqe_start(qp, wr->wr_id, wr->opcode, wr->send_flags);
	sroce_wqe_from_wr(wqe, wr);
	if (qp->vqp.qp.qp_type == IBV_QPT_UD)
		sroce_wqe_ud(wqe, wr->wr.ud.ah, wr->wr.ud.remote_qpn,
			     wr->wr.ud.remote_qkey);
	if (qp->vqp.qp.qp_type == IBV_QPT_XRC_SEND)
		wqe->xrc_srqn = wr->qp_type.xrc.remote_srqn;
	sroce_wqe_gather(wqe, wr);
	(*room)--;
	return 0;
}

/*
 * WRs before *bad_wr are posted, as verbs require.  If every WR made it
 * into the ring but the doorbell failed, the error is returned with
 * *bad_wr NULL: nothing was refused, the kernel was just not told.
 */
int sroce_post_send(struct ibv_qp *ibqp, struct ibv_send_wr *wr,
		    struct ibv_send_wr **bad_wr)
{
	struct sroce_qp *qp = to_sqp(ibqp);
	uint32_t room = 0, start;
	int ret = 0, kick;

	if (wr && !sroce_sq_ready(ibqp)) {
		*bad_wr = wr;
		return EINVAL;
	}
	if (wr && sroce_ring_dead(&qp->sq.ring)) {
		*bad_wr = wr;
		return EIO;
	}
	pthread_spin_lock(&qp->sq.lock);
	start = qp->sq.ring.head;
	for (; wr; wr = wr->next) {
		ret = sroce_sq_post_one(qp, wr, &room);
		if (ret) {
			*bad_wr = wr;
			break;
		}
	}
	if (qp->sq.ring.head == start) {
		pthread_spin_unlock(&qp->sq.lock);
		return ret;
	}
	sroce_ring_publish(&qp->sq.ring);
	pthread_spin_unlock(&qp->sq.lock);

	kick = sroce_sq_kick(qp);
	if (kick && !ret) {
		*bad_wr = NULL;
		ret = kick;
	}
	return ret;
}

/* ------------------------------------------------------------------ */
/* ibv_qp_ex work request builders                                     */
/* ------------------------------------------------------------------ */

/*
 * Between wr_start and wr_complete/wr_abort the SQ lock is held and the
 * WQEs are written but not published.  A builder that fails records the
 * first error; wr_complete then returns it and drops the whole batch, as
 * libibverbs specifies.
 */
void sroce_wr_fail(struct sroce_qp *qp, int err)
{
	if (!qp->wr_err)
		qp->wr_err = err;
}

/*
 * The WQE being built is done: check what only its end can tell.  An
 * atomic needs its one 8-byte SGE; an ATOMIC WRITE carries its data and
 * must have been given none.
 */
static void sroce_wr_close(struct sroce_qp *qp)
{
	struct sroce_send_wqe *wqe = qp->wr_cur;

	qp->wr_cur = NULL;
	if (!wqe || qp->wr_err)
		return;
	if (sroce_op_in(wqe->opcode, SROCE_WR_ATOMIC) &&
	    (wqe->num_sge != 1 ||
	     sroce_wqe_sge(wqe)->length != SROCE_ATOMIC_LEN))
		sroce_wr_fail(qp, EINVAL);
	if (sroce_op_in(wqe->opcode, SROCE_WR_AWRITE) && wqe->num_sge)
		sroce_wr_fail(qp, EINVAL);
}

/* Begin a WQE from qp_ex->wr_id and wr_flags, or NULL after an error. */
struct sroce_send_wqe *sroce_wr_new(struct ibv_qp_ex *x, uint32_t op)
{
	struct sroce_qp *qp = ex_to_sqp(x);

	sroce_wr_close(qp);
	if (qp->wr_err)
		return NULL;
	if (!sroce_op_in(op, qp->send_ops) ||
	    x->wr_flags & ~SROCE_SEND_FLAGS) {
		sroce_wr_fail(qp, EINVAL);
		return NULL;
	}
	if (!sroce_ring_has_room(&qp->sq.ring, &qp->wr_free)) {
		sroce_wr_fail(qp, ENOMEM);
		return NULL;
	}
	qp->wr_free--;
	/* Inline is chosen by wr_set_inline_data*(), not by the flag. */
	qp->wr_cur = sroce_wqe_start(qp, x->wr_id, op,
				     x->wr_flags & ~IBV_SEND_INLINE);
	return qp->wr_cur;
}

/* The WQE a wr_set_*() applies to; none is a usage error. */
static struct sroce_send_wqe *sroce_wr_cur(struct ibv_qp_ex *x)
{
	struct sroce_qp *qp = ex_to_sqp(x);

	if (!qp->wr_cur)
		sroce_wr_fail(qp, EINVAL);
	return qp->wr_err ? NULL : qp->wr_cur;
}

static void sroce_wr_start(struct ibv_qp_ex *x)
{
	struct sroce_qp *qp = ex_to_sqp(x);

	pthread_spin_lock(&qp->sq.lock);
	qp->wr_start = qp->sq.ring.head;
	qp->wr_free = 0;
	qp->wr_cur = NULL;
	qp->wr_err = sroce_sq_ready(&qp->vqp.qp) ? 0 : EINVAL;
}

static int sroce_wr_complete(struct ibv_qp_ex *x)
{
	struct sroce_qp *qp = ex_to_sqp(x);
	int ret;

	sroce_wr_close(qp);
	ret = qp->wr_err;
	if (ret)
		qp->sq.ring.head = qp->wr_start;
	if (qp->sq.ring.head == qp->wr_start) {
		pthread_spin_unlock(&qp->sq.lock);
		return ret;
	}
	sroce_ring_publish(&qp->sq.ring);
	pthread_spin_unlock(&qp->sq.lock);
	return sroce_sq_kick(qp);
}

static void sroce_wr_abort(struct ibv_qp_ex *x)
{
	struct sroce_qp *qp = ex_to_sqp(x);

	qp->sq.ring.head = qp->wr_start;
	qp->wr_cur = NULL;
	pthread_spin_unlock(&qp->sq.lock);
}

static void sroce_wr_send(struct ibv_qp_ex *x)
{
	sroce_wr_new(x, IBV_WR_SEND);
}

static void sroce_wr_send_imm(struct ibv_qp_ex *x, __be32 imm_data)
{
	struct sroce_send_wqe *wqe = sroce_wr_new(x, IBV_WR_SEND_WITH_IMM);

	if (wqe)
		wqe->imm_data = imm_data;
}

static void sroce_wr_rdma_write(struct ibv_qp_ex *x, uint32_t rkey,
				uint64_t remote_addr)
{
	struct sroce_send_wqe *wqe = sroce_wr_new(x, IBV_WR_RDMA_WRITE);

	if (wqe)
		sroce_wqe_rdma(wqe, rkey, remote_addr);
}

static void sroce_wr_rdma_write_imm(struct ibv_qp_ex *x, uint32_t rkey,
				    uint64_t remote_addr, __be32 imm_data)
{
	struct sroce_send_wqe *wqe;

	wqe = sroce_wr_new(x, IBV_WR_RDMA_WRITE_WITH_IMM);
	if (!wqe)
		return;
	sroce_wqe_rdma(wqe, rkey, remote_addr);
	wqe->imm_data = imm_data;
}

static void sroce_wr_rdma_read(struct ibv_qp_ex *x, uint32_t rkey,
			       uint64_t remote_addr)
{
	struct sroce_send_wqe *wqe = sroce_wr_new(x, IBV_WR_RDMA_READ);

	if (wqe)
		sroce_wqe_rdma(wqe, rkey, remote_addr);
}

static void sroce_wr_atomic_cmp_swp(struct ibv_qp_ex *x, uint32_t rkey,
				    uint64_t remote_addr, uint64_t compare,
				    uint64_t swap)
{
	struct sroce_send_wqe *wqe;

	wqe = sroce_wr_new(x, IBV_WR_ATOMIC_CMP_AND_SWP);
	if (wqe)
		sroce_wqe_atomic(wqe, rkey, remote_addr, compare, swap);
}

static void sroce_wr_atomic_fetch_add(struct ibv_qp_ex *x, uint32_t rkey,
				      uint64_t remote_addr, uint64_t add)
{
	struct sroce_send_wqe *wqe;

	wqe = sroce_wr_new(x, IBV_WR_ATOMIC_FETCH_AND_ADD);
	if (wqe)
		sroce_wqe_atomic(wqe, rkey, remote_addr, add, 0);
}

static void sroce_wr_set_sge_list(struct ibv_qp_ex *x, size_t num_sge,
				  const struct ibv_sge *sg_list)
{
	struct sroce_send_wqe *wqe = sroce_wr_cur(x);
	struct sroce_qp *qp = ex_to_sqp(x);

	if (!wqe)
		return;
	if (num_sge > qp->sq.max_sge) {
		sroce_wr_fail(qp, EINVAL);
		return;
	}
	sroce_wqe_sges(wqe, sg_list, num_sge);
}

static void sroce_wr_set_sge(struct ibv_qp_ex *x, uint32_t lkey,
			     uint64_t addr, uint32_t length)
{
	struct ibv_sge sge = { .addr = addr, .length = length, .lkey = lkey };

	sroce_wr_set_sge_list(x, 1, &sge);
}

static void sroce_wr_set_inline_data_list(struct ibv_qp_ex *x, size_t num_buf,
					  const struct ibv_data_buf *buf)
{
	struct sroce_send_wqe *wqe = sroce_wr_cur(x);
	struct sroce_qp *qp = ex_to_sqp(x);
	uint64_t len = 0;
	size_t i;

	if (!wqe)
		return;
	for (i = 0; i < num_buf; i++)
		len += buf[i].length;
	if (sroce_sq_check_inline(qp, wqe->opcode, len)) {
		sroce_wr_fail(qp, EINVAL);
		return;
	}
	sroce_wqe_inline_start(wqe);
	for (i = 0; i < num_buf; i++)
		sroce_wqe_inline_add(wqe, buf[i].addr, buf[i].length);
}

static void sroce_wr_set_inline_data(struct ibv_qp_ex *x, void *addr,
				     size_t length)
{
	struct ibv_data_buf buf = { .addr = addr, .length = length };

	sroce_wr_set_inline_data_list(x, 1, &buf);
}

/* Builders for what sroce does not do (TSO): the batch fails. */
static void sroce_wr_unsupported(struct ibv_qp_ex *x)
{
	struct sroce_qp *qp = ex_to_sqp(x);

	sroce_wr_close(qp);
	sroce_wr_fail(qp, EOPNOTSUPP);
}

static void sroce_wr_send_tso(struct ibv_qp_ex *x, void *hdr, uint16_t hdr_sz,
			      uint16_t mss)
{
	sroce_wr_unsupported(x);
}

static void sroce_wr_set_ud_addr(struct ibv_qp_ex *x, struct ibv_ah *ah,
				 uint32_t remote_qpn, uint32_t remote_qkey)
{
	struct sroce_send_wqe *wqe = sroce_wr_cur(x);
	struct sroce_qp *qp = ex_to_sqp(x);

	if (!wqe)
		return;
	if (qp->vqp.qp.qp_type != IBV_QPT_UD || !ah) {
		sroce_wr_fail(qp, EINVAL);
		return;
	}
	sroce_wqe_ud(wqe, ah, remote_qpn, remote_qkey);
}

/* XRC INI: the SRQ at the target the message is for. */
static void sroce_wr_set_xrc_srqn(struct ibv_qp_ex *x, uint32_t srqn)
{
	struct sroce_send_wqe *wqe = sroce_wr_cur(x);
	struct sroce_qp *qp = ex_to_sqp(x);

	if (!wqe)
		return;
	if (qp->vqp.qp.qp_type != IBV_QPT_XRC_SEND ||
	    srqn > SROCE_XRC_SRQN_MAX) {
		sroce_wr_fail(qp, EINVAL);
		return;
	}
	wqe->xrc_srqn = srqn;
}

/* The 8 bytes at @atomic_wr are copied now: the caller may reuse them. */
static void sroce_wr_atomic_write(struct ibv_qp_ex *x, uint32_t rkey,
				  uint64_t remote_addr, const void *atomic_wr)
{
	struct sroce_send_wqe *wqe = sroce_wr_new(x, IBV_WR_ATOMIC_WRITE);

	if (wqe)
		sroce_wqe_atomic_write(wqe, rkey, remote_addr, atomic_wr);
}

void sroce_qp_ex_init(struct sroce_qp *qp)
{
	struct ibv_qp_ex *x = &qp->vqp.qp_ex;

	x->wr_start = sroce_wr_start;
	x->wr_complete = sroce_wr_complete;
	x->wr_abort = sroce_wr_abort;
	x->wr_send = sroce_wr_send;
	x->wr_send_imm = sroce_wr_send_imm;
	x->wr_rdma_write = sroce_wr_rdma_write;
	x->wr_rdma_write_imm = sroce_wr_rdma_write_imm;
	x->wr_rdma_read = sroce_wr_rdma_read;
	x->wr_atomic_cmp_swp = sroce_wr_atomic_cmp_swp;
	x->wr_atomic_fetch_add = sroce_wr_atomic_fetch_add;
	x->wr_set_sge = sroce_wr_set_sge;
	x->wr_set_sge_list = sroce_wr_set_sge_list;
	x->wr_set_inline_data = sroce_wr_set_inline_data;
	x->wr_set_inline_data_list = sroce_wr_set_inline_data_list;
	x->wr_bind_mw = sroce_mw_wr_bind;
	x->wr_local_inv = sroce_mw_wr_local_inv;
	x->wr_send_inv = sroce_mw_wr_send_inv;
	x->wr_send_tso = sroce_wr_send_tso;
	x->wr_set_ud_addr = sroce_wr_set_ud_addr;
	x->wr_set_xrc_srqn = sroce_wr_set_xrc_srqn;
	x->wr_atomic_write = sroce_wr_atomic_write;
}
