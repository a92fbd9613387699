// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * abi_ops - call every verb reachable through the public libibverbs API on
 * one device and check that each lands where it should.
 *
 *   abi_ops -d DEV [-p PROVIDER]
 *
 * libsroce hands libibverbs a 76-slot table of function pointers whose
 * layout we declared ourselves (tools/lib/sroce/verbs-private.h).  One slot
 * off and ibv_alloc_pd() would run, say, alloc_parent_domain.  So:
 *
 *  - implemented verbs (query device/port, PD, parent and thread
 *    domains, MR, CQ, RC, UD and raw QPs, SRQ, AH, XRC, receive WQs,
 *    indirection tables, RSS QPs, posting) must really work,
 *    and must not have reached any stub;
 *  - every other verb must fail with its documented error AND must have
 *    reached the provider stub of the same name: libsroce records the last
 *    stub it ran in the exported variable sroce_stub_last, found here with
 *    dlsym().  A wrong name means a mis-laid table.
 *
 * Stubbed verbs on objects we cannot create yet (an SRQ, an AH...), or
 * that must not reach a real object, are called on a zeroed stand-in
 * whose ->context is the real context: libibverbs only follows ->context
 * to find the op, and our stubs touch nothing else.
 *
 * Output is TAP; exit status is 0 only if every check passed.
 */
#include <dlfcn.h>
#include <endian.h>
#include <errno.h>
#include <fcntl.h>
#include <getopt.h>
#include <link.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <infiniband/verbs.h>

#include "verbs-private.h"

#define PROVIDER_SO	"libsroce-rdmav34.so"

static int tap_count, tap_failed;

static bool tap(bool ok, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));

static bool tap(bool ok, const char *fmt, ...)
{
	va_list ap;

	printf("%s %d - ", ok ? "ok" : "not ok", ++tap_count);
	va_start(ap, fmt);
	vprintf(fmt, ap);
	va_end(ap);
	putchar('\n');
	if (!ok)
		tap_failed++;
	fflush(stdout);
	return ok;
}

static void tap_skip(const char *what, const char *why)
{
	printf("ok %d - %s # SKIP %s\n", ++tap_count, what, why);
}

static void diag(const char *fmt, ...) __attribute__((format(printf, 1, 2)));

static void diag(const char *fmt, ...)
{
	va_list ap;

	fputs("# ", stdout);
	va_start(ap, fmt);
	vprintf(fmt, ap);
	va_end(ap);
	putchar('\n');
}

/* ------------------------------------------------------------------ */
/* Provider introspection                                              */
/* ------------------------------------------------------------------ */

static const char **stub_last;

static int find_provider(struct dl_phdr_info *info, size_t size, void *data)
{
	const char *name = info->dlpi_name, *slash = strrchr(name, '/');

	(void)size;
	if (strcmp(slash ? slash + 1 : name, PROVIDER_SO))
		return 0;
	*(const char **)data = name;
	return 1;
}

/* libibverbs dlopen()ed the provider privately; reopen it by path. */
static bool stub_last_find(void)
{
	const char *path = NULL;
	void *handle;

	dl_iterate_phdr(find_provider, &path);
	if (!path)
		return false;
	handle = dlopen(path, RTLD_NOW | RTLD_NOLOAD);
	if (!handle)
		return false;
	stub_last = dlsym(handle, "sroce_stub_last");
	return stub_last;
}

static void stub_reset(void)
{
	*stub_last = NULL;
	errno = 0;
}

static const char *stub_name(void)
{
	return *stub_last ? *stub_last : "(none)";
}

static bool stub_is(const char *op)
{
	return *stub_last && !strcmp(*stub_last, op);
}

/* A verb returning an object: NULL, errno EOPNOTSUPP, the right stub. */
static void check_null(const char *op, void *obj)
{
	int err = errno;

	tap(!obj && err == EOPNOTSUPP && stub_is(op),
	    "%s: NULL/EOPNOTSUPP via stub %s (got %p, errno %d, stub %s)", op,
	    op, obj, err, stub_name());
}

/* A verb returning an errno value. */
static void check_ret(const char *op, int ret, int want)
{
	tap(ret == want && stub_is(op),
	    "%s: returns %d via stub %s (got %d, stub %s)", op, want, op, ret,
	    stub_name());
}

#define NULL_STUB(op, call)	do { stub_reset(); check_null(op, call); } while (0)
#define RET_STUB(op, call)	do { stub_reset(); check_ret(op, call, EOPNOTSUPP); } while (0)

/* ------------------------------------------------------------------ */
/* Implemented verbs                                                   */
/* ------------------------------------------------------------------ */

static bool fw_ver_ok(const char *s)
{
	unsigned int a, b, c;
	char end;

	return sscanf(s, "%u.%u.%u%c", &a, &b, &c, &end) == 3;
}

static void test_query_device(struct ibv_context *ctx)
{
	struct ibv_device_attr attr = {};
	struct ibv_device_attr_ex ex = {};
	int ret;

	ret = ibv_query_device(ctx, &attr);
	if (tap(!ret, "ibv_query_device (ret %d)", ret)) {
		tap(attr.phys_port_cnt == 1, "one port (phys_port_cnt %u)",
		    attr.phys_port_cnt);
		tap(fw_ver_ok(attr.fw_ver), "fw_ver formatted by the provider: '%s'",
		    attr.fw_ver);
		diag("max_pd %d max_mr %d max_qp %d max_cq %d max_mr_size %#llx",
		     attr.max_pd, attr.max_mr, attr.max_qp, attr.max_cq,
		     (unsigned long long)attr.max_mr_size);
	}

	ret = ibv_query_device_ex(ctx, NULL, &ex);
	if (tap(!ret, "ibv_query_device_ex (ret %d)", ret))
		tap(ex.orig_attr.node_guid == attr.node_guid &&
		    ex.orig_attr.phys_port_cnt == attr.phys_port_cnt &&
		    !strcmp(ex.orig_attr.fw_ver, attr.fw_ver),
		    "ibv_query_device_ex agrees with ibv_query_device");

	/* libibverbs rejects unknown input bits before reaching the op. */
	{
		struct ibv_query_device_ex_input in = { .comp_mask = 1 };

		ret = ibv_query_device_ex(ctx, &in, &ex);
		tap(ret == EINVAL, "ibv_query_device_ex with unknown comp_mask: EINVAL (ret %d)",
		    ret);
	}
}

static void test_query_port(struct ibv_context *ctx)
{
	struct ibv_port_attr pa = {};
	union ibv_gid gid;
	uint16_t pkey;
	int ret;

	ret = ibv_query_port(ctx, 1, &pa);
	if (tap(!ret, "ibv_query_port 1 (ret %d)", ret)) {
		tap(pa.link_layer == IBV_LINK_LAYER_ETHERNET,
		    "port 1 link_layer Ethernet (%u)", pa.link_layer);
		tap(pa.gid_tbl_len > 0, "port 1 gid_tbl_len %d", pa.gid_tbl_len);
		diag("state %s active_mtu %d max_msg_sz %u",
		     ibv_port_state_str(pa.state), pa.active_mtu, pa.max_msg_sz);
	}
	ret = ibv_query_port(ctx, 2, &pa);
	tap(ret != 0, "ibv_query_port 2 fails cleanly (ret %d)", ret);

	ret = ibv_query_gid(ctx, 1, 0, &gid);
	tap(!ret, "ibv_query_gid 1/0 (ret %d)", ret);
	{
		struct ibv_gid_entry e = {};

		ret = ibv_query_gid_ex(ctx, 1, 0, &e, 0);
		tap(!ret && e.gid_type == IBV_GID_TYPE_ROCE_V2,
		    "ibv_query_gid_ex 1/0: RoCE v2 (ret %d, type %u)", ret,
		    e.gid_type);
	}
	ret = ibv_query_pkey(ctx, 1, 0, &pkey);
	tap(!ret && pkey == htobe16(0xffff), "ibv_query_pkey 1/0 = 0xffff (ret %d, %#x)",
	    ret, be16toh(pkey));
}

/* An implemented verb ran no stub: it found its own slot. */
static bool no_stub(void)
{
	return !*stub_last;
}

static void test_mr_pair(struct ibv_pd *pd)
{
	size_t len = 1 << 16;
	char *buf = malloc(2 * len);
	struct ibv_mr *a, *b;
	int ret, err;
	int access = IBV_ACCESS_LOCAL_WRITE | IBV_ACCESS_REMOTE_WRITE |
		     IBV_ACCESS_REMOTE_READ;

	a = ibv_reg_mr(pd, buf, len, access);
	b = ibv_reg_mr(pd, buf + len, len, IBV_ACCESS_LOCAL_WRITE);
	tap(a && b, "ibv_reg_mr x2 (%p %p, errno %d)", (void *)a, (void *)b,
	    errno);
	if (a && b) {
		tap(a->addr == buf && a->length == len && a->pd == pd &&
		    a->context == pd->context,
		    "mr fields filled (addr, length, pd, context)");
		tap(a->lkey && b->lkey, "lkeys nonzero (%#x %#x)", a->lkey,
		    b->lkey);
		tap(a->lkey != b->lkey && a->rkey != b->rkey,
		    "keys distinct across MRs (lkey %#x/%#x rkey %#x/%#x)",
		    a->lkey, b->lkey, a->rkey, b->rkey);
		/*
		 * Re-registration is in place: the same keys (a peer may
		 * hold the rkey), the same range; no stub involved.
		 */
		uint32_t old_lkey = a->lkey;

		stub_reset();
		ret = ibv_rereg_mr(a, IBV_REREG_MR_CHANGE_ACCESS, NULL, NULL, 0,
				   IBV_ACCESS_LOCAL_WRITE |
				   IBV_ACCESS_REMOTE_READ);
		err = errno;
		tap(ret == 0 && no_stub() && a->lkey == old_lkey &&
		    a->addr == buf && a->length == len,
		    "rereg_mr (access): same keys, same range (got %d, errno %d, lkey %#x -> %#x)",
		    ret, err, old_lkey, a->lkey);
	}
	if (a)
		tap(!ibv_dereg_mr(a), "ibv_dereg_mr");
	if (b)
		tap(!ibv_dereg_mr(b), "ibv_dereg_mr (second)");
	free(buf);
}

/*
 * ibv_advise_mr() reaches the kernel (no stub): it prefetches into an
 * on-demand paging MR, refuses a pinned MR (EINVAL) and an lkey that
 * names nothing (ENOENT).
 */
static void test_advise(struct ibv_pd *pd)
{
	size_t len = 1 << 16;
	char *buf = malloc(2 * len);
	struct ibv_mr *odp, *pin;
	struct ibv_sge sge;
	int ret;

	odp = ibv_reg_mr(pd, buf, len,
			 IBV_ACCESS_LOCAL_WRITE | IBV_ACCESS_ON_DEMAND);
	pin = ibv_reg_mr(pd, buf + len, len, IBV_ACCESS_LOCAL_WRITE);
	tap(odp && pin, "ibv_reg_mr: ODP and pinned (errno %d)", errno);
	if (odp && pin) {
		sge = (struct ibv_sge){ (uintptr_t)buf, len, odp->lkey };
		stub_reset();
		ret = ibv_advise_mr(pd, IBV_ADVISE_MR_ADVICE_PREFETCH_WRITE,
				    IBV_ADVISE_MR_FLAG_FLUSH, &sge, 1);
		tap(ret == 0 && no_stub(), "advise_mr: prefetch ODP (got %d)",
		    ret);
		sge = (struct ibv_sge){ (uintptr_t)buf + len, len, pin->lkey };
		ret = ibv_advise_mr(pd, IBV_ADVISE_MR_ADVICE_PREFETCH, 0, &sge, 1);
		tap(ret == EINVAL && no_stub(),
		    "advise_mr: pinned MR refused (got %d, want %d)", ret,
		    EINVAL);
		sge.lkey = pin->lkey ^ 0xffff00;
		ret = ibv_advise_mr(pd, IBV_ADVISE_MR_ADVICE_PREFETCH, 0, &sge, 1);
		tap(ret == ENOENT && no_stub(),
		    "advise_mr: unknown lkey refused (got %d, want %d)", ret,
		    ENOENT);
	}
	if (odp)
		ibv_dereg_mr(odp);
	if (pin)
		ibv_dereg_mr(pin);
	free(buf);
}

/* The imported PD and MR name the originals: handle, keys, length. */
static void test_import_objects(struct ibv_context *ictx, struct ibv_pd *pd,
				struct ibv_mr *mr)
{
	struct ibv_mr *imr, *bad;
	struct ibv_pd *ipd;

	stub_reset();
	ipd = ibv_import_pd(ictx, pd->handle);
	if (!tap(ipd && ipd->handle == pd->handle && ipd->context == ictx &&
		 no_stub(), "ibv_import_pd: the same handle (errno %d)", errno))
		return;
	imr = ibv_import_mr(ipd, mr->handle);
	tap(imr && imr->lkey == mr->lkey && imr->rkey == mr->rkey &&
	    imr->length == mr->length && imr->pd == ipd && no_stub(),
	    "ibv_import_mr: the same keys and length (errno %d)", errno);
	errno = 0;
	bad = ibv_import_mr(ipd, mr->handle + 1000);
	tap(!bad && errno, "ibv_import_mr of an unknown handle fails (errno %d)",
	    errno);
	if (imr)
		ibv_unimport_mr(imr);
	ibv_unimport_pd(ipd);
}

/*
 * ibv_import_device() on a dup of the command fd: a second context on
 * the same kernel objects, which works (a CQ of its own) and imports
 * the first one's PD and MR.  Unimporting leaves the originals alive.
 */
static void test_import(struct ibv_pd *pd)
{
	size_t len = 1 << 12;
	char *buf = malloc(len);
	struct ibv_context *ictx = NULL;
	struct ibv_mr *mr;
	struct ibv_cq *cq;
	int fd;

	mr = ibv_reg_mr(pd, buf, len, IBV_ACCESS_LOCAL_WRITE);
	fd = dup(pd->context->cmd_fd);
	stub_reset();
	if (mr && fd >= 0)
		ictx = ibv_import_device(fd);
	if (!tap(ictx && no_stub(), "ibv_import_device on a dup of cmd_fd (errno %d)",
		 errno)) {
		if (fd >= 0)
			close(fd);
		goto out;
	}
	cq = ibv_create_cq(ictx, 16, NULL, NULL, 0);
	tap(cq && !ibv_destroy_cq(cq), "the imported context makes a CQ (errno %d)",
	    errno);
	test_import_objects(ictx, pd, mr);
	tap(!ibv_close_device(ictx), "ibv_close_device (imported)");
out:
	if (mr)
		tap(!ibv_dereg_mr(mr), "the MR deregisters after its import");
	free(buf);
}

/*
 * Memory windows: alloc_mw and dealloc_mw reach their own slots (binding
 * needs a connected QP: selftests/verbs/mw_verify).  Type 3 does not
 * exist: EINVAL, as from the kernel.
 */
static void test_mw(struct ibv_pd *pd)
{
	struct ibv_mw *mw1, *mw2, *bad;

	stub_reset();
	mw1 = ibv_alloc_mw(pd, IBV_MW_TYPE_1);
	mw2 = ibv_alloc_mw(pd, IBV_MW_TYPE_2);
	tap(mw1 && mw2 && no_stub(), "ibv_alloc_mw types 1 and 2 (errno %d)",
	    errno);
	if (mw1 && mw2)
		tap(mw1->type == IBV_MW_TYPE_1 && mw2->type == IBV_MW_TYPE_2 &&
		    mw1->pd == pd && mw1->rkey != mw2->rkey &&
		    mw1->rkey >> 31 && mw2->rkey >> 31,
		    "... type, pd, distinct rkeys in the MW key range");
	errno = 0;
	bad = ibv_alloc_mw(pd, (enum ibv_mw_type)3);
	tap(!bad && errno == EINVAL, "ibv_alloc_mw type 3: EINVAL (errno %d)",
	    errno);
	stub_reset();
	tap((!mw1 || !ibv_dealloc_mw(mw1)) && (!mw2 || !ibv_dealloc_mw(mw2)) &&
	    no_stub(), "ibv_dealloc_mw");
}

/* ------------------------------------------------------------------ */
/* Completion queues                                                   */
/* ------------------------------------------------------------------ */

static void test_cq_ex(struct ibv_context *ctx, struct ibv_comp_channel *ch)
{
	struct ibv_cq_init_attr_ex attr = {
		.cqe = 31, .cq_context = &attr, .channel = ch,
		.wc_flags = IBV_WC_STANDARD_FLAGS,
	};
	struct ibv_poll_cq_attr pattr = {};
	struct ibv_cq_ex *cq;
	struct ibv_wc wc;
	int ret;

	stub_reset();
	cq = ibv_create_cq_ex(ctx, &attr);
	if (!tap(cq && no_stub(), "ibv_create_cq_ex, standard wc_flags (errno %d, stub %s)",
		 errno, stub_name()))
		return;
	/* ibv_create_cq_ex() leaves verbs_init_cq() to the provider. */
	tap(cq->context == ctx && cq->channel == ch &&
	    cq->cq_context == &attr && cq->cqe >= 31,
	    "cq_ex fields: context, channel, cq_context, cqe %d >= 31", cq->cqe);
	ret = ibv_destroy_comp_channel(ch);
	tap(ret == EBUSY, "the ex CQ holds its channel (destroy_comp_channel %d)", ret);
	ret = ibv_start_poll(cq, &pattr);
	tap(ret == ENOENT, "ibv_start_poll on an empty CQ: ENOENT (got %d)", ret);
	ret = ibv_poll_cq(ibv_cq_ex_to_cq(cq), 1, &wc);
	tap(ret == 0, "ibv_poll_cq on the ex CQ: 0 (got %d)", ret);
	stub_reset();
	ret = ibv_destroy_cq(ibv_cq_ex_to_cq(cq));
	tap(!ret && no_stub(), "ibv_destroy_cq of the ex CQ (ret %d)", ret);

	attr.wc_flags |= IBV_WC_EX_WITH_COMPLETION_TIMESTAMP;
	stub_reset();
	cq = ibv_create_cq_ex(ctx, &attr);
	tap(!cq && errno == EOPNOTSUPP && no_stub(),
	    "ibv_create_cq_ex with completion timestamps: EOPNOTSUPP (errno %d)", errno);
	if (cq)
		ibv_destroy_cq(ibv_cq_ex_to_cq(cq));
	attr.wc_flags = IBV_WC_STANDARD_FLAGS;
	attr.comp_mask = IBV_CQ_INIT_ATTR_MASK_FLAGS;
	attr.flags = IBV_CREATE_CQ_ATTR_IGNORE_OVERRUN;
	stub_reset();
	cq = ibv_create_cq_ex(ctx, &attr);
	tap(!cq && errno == EOPNOTSUPP,
	    "ibv_create_cq_ex ignoring overrun: EOPNOTSUPP (errno %d)", errno);
	if (cq)
		ibv_destroy_cq(ibv_cq_ex_to_cq(cq));
}

static void test_cq(struct ibv_context *ctx)
{
	struct ibv_comp_channel *ch;
	struct ibv_wc wc[4];
	struct ibv_cq *cq;
	int marker, ret;

	ch = ibv_create_comp_channel(ctx);
	if (!tap(ch != NULL, "ibv_create_comp_channel (errno %d)", errno))
		return;
	stub_reset();
	cq = ibv_create_cq(ctx, 15, &marker, ch, 0);
	if (!tap(cq && no_stub(), "ibv_create_cq 15 (errno %d, stub %s)", errno,
		 stub_name()))
		goto out;
	tap(cq->context == ctx && cq->channel == ch &&
	    cq->cq_context == &marker && cq->cqe >= 15,
	    "cq fields: context, channel, cq_context, cqe %d >= 15", cq->cqe);
	stub_reset();
	ret = ibv_poll_cq(cq, 4, wc);
	tap(ret == 0 && no_stub(), "ibv_poll_cq on an empty CQ: 0 (got %d)", ret);
	ret = ibv_req_notify_cq(cq, 0);
	tap(!ret && no_stub(), "ibv_req_notify_cq (ret %d)", ret);
	ret = ibv_req_notify_cq(cq, 1);
	tap(!ret, "ibv_req_notify_cq, solicited only (ret %d)", ret);
	ret = ibv_resize_cq(cq, 100);
	tap(!ret && cq->cqe >= 100 && no_stub(),
	    "ibv_resize_cq to 100: new ring mapped (ret %d, cqe %d)", ret, cq->cqe);
	ret = ibv_poll_cq(cq, 4, wc);
	tap(ret == 0, "ibv_poll_cq on the resized CQ: 0 (got %d)", ret);
	ret = ibv_resize_cq(cq, 8);
	tap(!ret && cq->cqe >= 8, "ibv_resize_cq down to 8 (ret %d, cqe %d)", ret,
	    cq->cqe);
	ret = ibv_destroy_comp_channel(ch);
	tap(ret == EBUSY, "the CQ holds its channel (destroy_comp_channel %d)", ret);
	stub_reset();
	ret = ibv_destroy_cq(cq);
	tap(!ret && no_stub(), "ibv_destroy_cq (ret %d)", ret);
	test_cq_ex(ctx, ch);
out:
	tap(!ibv_destroy_comp_channel(ch), "ibv_destroy_comp_channel once its CQs are gone");
}

/* ------------------------------------------------------------------ */
/* Queue pairs                                                         */
/* ------------------------------------------------------------------ */

#define QP_SGES	64

static int qp_to_init(struct ibv_qp *qp)
{
	struct ibv_qp_attr attr = {
		.qp_state = IBV_QPS_INIT, .port_num = 1,
		.qp_access_flags = IBV_ACCESS_REMOTE_WRITE |
				   IBV_ACCESS_REMOTE_READ,
	};

	return ibv_modify_qp(qp, &attr, IBV_QP_STATE | IBV_QP_PKEY_INDEX |
				 IBV_QP_PORT | IBV_QP_ACCESS_FLAGS);
}

/*
 * Refusals libsroce decides alone (nothing here may reach a wire; the
 * rest of the local validation is tested on the host, prov_rings).
 */
static void test_qp_post_errors(struct ibv_qp *qp,
				const struct ibv_qp_cap *cap,
				struct ibv_sge *sge)
{
	struct ibv_send_wr swr = { .wr_id = 2, .sg_list = sge, .num_sge = 1,
				   .opcode = IBV_WR_SEND }, *bad_s = NULL;
	struct ibv_recv_wr rwr = { .wr_id = 1, .sg_list = sge }, *bad_r = NULL;
	int ret;

	rwr.num_sge = cap->max_recv_sge + 1;
	ret = ibv_post_recv(qp, &rwr, &bad_r);
	tap(ret == EINVAL && bad_r == &rwr,
	    "ibv_post_recv with max_recv_sge + 1 SGEs: EINVAL, bad_wr set (ret %d)", ret);
	ret = ibv_post_send(qp, &swr, &bad_s);
	tap(ret == EINVAL && bad_s == &swr,
	    "ibv_post_send before RTS: EINVAL, bad_wr set (ret %d)", ret);
}

static void test_qp_rc(struct ibv_pd *pd, struct ibv_cq *scq,
		       struct ibv_cq *rcq, struct ibv_mr *mr)
{
	struct ibv_qp_init_attr init = {
		.qp_context = pd, .send_cq = scq, .recv_cq = rcq,
		.qp_type = IBV_QPT_RC,
		.cap = { .max_send_wr = 10, .max_recv_wr = 10, .max_send_sge = 2,
			 .max_recv_sge = 2, .max_inline_data = 64 },
	};
	struct ibv_recv_wr rwr = { .wr_id = 1, .num_sge = 1 }, *bad_r = NULL;
	struct ibv_qp_init_attr qinit = {};
	struct ibv_qp_attr attr = {};
	struct ibv_sge sge[QP_SGES];
	struct ibv_qp *qp;
	int i, ret;

	for (i = 0; i < QP_SGES; i++)
		sge[i] = (struct ibv_sge){ (uintptr_t)mr->addr, 64, mr->lkey };
	rwr.sg_list = sge;
	stub_reset();
	qp = ibv_create_qp(pd, &init);
	if (!tap(qp && no_stub(), "ibv_create_qp RC (errno %d, stub %s)", errno,
		 stub_name()))
		return;
	tap(qp->qp_num && qp->state == IBV_QPS_RESET &&
	    qp->qp_type == IBV_QPT_RC && qp->pd == pd && qp->send_cq == scq &&
	    qp->recv_cq == rcq && qp->qp_context == pd,
	    "qp fields: qp_num %#x, state RESET, type, pd, CQs, qp_context",
	    qp->qp_num);
	tap(init.cap.max_send_wr >= 10 && init.cap.max_recv_wr >= 10 &&
	    init.cap.max_send_sge >= 2 && init.cap.max_recv_sge >= 2 &&
	    init.cap.max_inline_data >= 64 &&
	    init.cap.max_send_sge < QP_SGES && init.cap.max_recv_sge < QP_SGES,
	    "actual caps reported: wr %u/%u sge %u/%u inline %u",
	    init.cap.max_send_wr, init.cap.max_recv_wr, init.cap.max_send_sge,
	    init.cap.max_recv_sge, init.cap.max_inline_data);
	tap(!ibv_qp_to_qp_ex(qp), "no ibv_qp_ex without SEND_OPS_FLAGS");
	stub_reset();
	ret = qp_to_init(qp);
	tap(!ret && qp->state == IBV_QPS_INIT && no_stub(),
	    "ibv_modify_qp RESET -> INIT (ret %d)", ret);
	stub_reset();
	ret = ibv_query_qp(qp, &attr, IBV_QP_STATE | IBV_QP_CAP, &qinit);
	tap(!ret && no_stub() && attr.qp_state == IBV_QPS_INIT &&
	    qinit.cap.max_send_sge == init.cap.max_send_sge &&
	    qinit.cap.max_recv_sge == init.cap.max_recv_sge &&
	    qinit.cap.max_inline_data == init.cap.max_inline_data,
	    "ibv_query_qp: INIT, the caps create reported (ret %d)", ret);
	stub_reset();
	ret = ibv_post_recv(qp, &rwr, &bad_r);
	tap(!ret && no_stub(), "ibv_post_recv in INIT (ret %d)", ret);
	if (init.cap.max_send_sge < QP_SGES && init.cap.max_recv_sge < QP_SGES)
		test_qp_post_errors(qp, &init.cap, sge);

	attr.qp_state = IBV_QPS_RESET;
	ret = ibv_modify_qp(qp, &attr, IBV_QP_STATE);
	tap(!ret && qp->state == IBV_QPS_RESET, "ibv_modify_qp -> RESET (ret %d)", ret);
	bad_r = NULL;
	ret = ibv_post_recv(qp, &rwr, &bad_r);
	tap(ret == EINVAL && bad_r == &rwr, "ibv_post_recv in RESET: EINVAL (ret %d)",
	    ret);
	ret = qp_to_init(qp);
	sge[0].length = 64;
	ret = ret ?: ibv_post_recv(qp, &rwr, &bad_r);
	tap(!ret, "INIT again, and a receive posted after the reset (ret %d)", ret);
	stub_reset();
	ret = ibv_destroy_qp(qp);
	tap(!ret && no_stub(), "ibv_destroy_qp (ret %d)", ret);
}

/* A flow on a raw packet QP: an Ethernet rule on an unused ethertype. */
static void test_flow(struct ibv_qp *qp)
{
	/* The spec follows the attr with no padding (both 4-byte aligned). */
	struct {
		struct ibv_flow_attr attr;
		struct ibv_flow_spec_eth eth;
	} rule = {
		.attr = { .type = IBV_FLOW_ATTR_NORMAL, .size = sizeof(rule),
			  .num_of_specs = 1, .port = 1 },
		.eth = { .type = IBV_FLOW_SPEC_ETH,
			 .size = sizeof(struct ibv_flow_spec_eth),
			 .val.ether_type = htobe16(0x88b5),
			 .mask.ether_type = 0xffff },
	};
	struct ibv_flow *flow;
	int ret;

	_Static_assert(offsetof(typeof(rule), eth) ==
		       sizeof(struct ibv_flow_attr), "spec right after the attr");
	stub_reset();
	flow = ibv_create_flow(qp, &rule.attr);
	if (!tap(flow && no_stub(), "ibv_create_flow (errno %d, stub %s)",
		 errno, stub_name()))
		return;
	stub_reset();
	ret = ibv_destroy_flow(flow);
	tap(!ret && no_stub(), "ibv_destroy_flow (ret %d, stub %s)", ret,
	    stub_name());
}

static void test_qp_ex(struct ibv_pd *pd, struct ibv_cq *scq,
		       struct ibv_cq *rcq)
{
	struct ibv_qp_init_attr_ex ex = {
		.send_cq = scq, .recv_cq = rcq, .qp_type = IBV_QPT_RC, .pd = pd,
		.cap = { .max_send_wr = 4, .max_recv_wr = 4, .max_send_sge = 1,
			 .max_recv_sge = 1 },
		.comp_mask = IBV_QP_INIT_ATTR_PD | IBV_QP_INIT_ATTR_SEND_OPS_FLAGS,
		.send_ops_flags = IBV_QP_EX_WITH_SEND | IBV_QP_EX_WITH_RDMA_WRITE |
				  IBV_QP_EX_WITH_ATOMIC_FETCH_AND_ADD,
	};
	struct ibv_context *ctx = pd->context;
	struct ibv_qp_ex *qpx;
	struct ibv_qp *qp;
	int ret;

	stub_reset();
	qp = ibv_create_qp_ex(ctx, &ex);
	if (!tap(qp && no_stub(), "ibv_create_qp_ex with send_ops_flags (errno %d, stub %s)",
		 errno, stub_name()))
		return;
	qpx = ibv_qp_to_qp_ex(qp);
	tap(qpx && (void *)qpx == (void *)qp, "ibv_qp_to_qp_ex gives the ibv_qp_ex");
	if (qpx) {
		/*
		 * In RESET every batch fails and posts nothing.  Each batch
		 * holds the SQ lock: a second one only starts if wr_complete
		 * and wr_abort released it.
		 */
		ibv_wr_start(qpx);
		qpx->wr_id = 1;
		ibv_wr_send(qpx);
		ret = ibv_wr_complete(qpx);
		tap(ret == EINVAL, "ibv_wr_complete before RTS: EINVAL (ret %d)", ret);
		ibv_wr_start(qpx);
		ibv_wr_rdma_write(qpx, 1, 0);
		ibv_wr_abort(qpx);
		ibv_wr_start(qpx);
		ret = ibv_wr_complete(qpx);
		tap(ret == EINVAL, "ibv_wr_abort released the SQ for the next batch (ret %d)",
		    ret);
	}
	ret = ibv_destroy_qp(qp);
	tap(!ret, "ibv_destroy_qp of the ex QP (ret %d)", ret);

	ex.send_ops_flags |= IBV_QP_EX_WITH_TSO;
	qp = ibv_create_qp_ex(ctx, &ex);
	tap(!qp && errno == EOPNOTSUPP,
	    "ibv_create_qp_ex asking for TSO: EOPNOTSUPP (errno %d)", errno);
	if (qp)
		ibv_destroy_qp(qp);
	ex.send_ops_flags = IBV_QP_EX_WITH_SEND;
	ex.comp_mask |= IBV_QP_INIT_ATTR_CREATE_FLAGS;
	ex.create_flags = IBV_QP_CREATE_SCATTER_FCS;
	qp = ibv_create_qp_ex(ctx, &ex);
	tap(!qp && errno == EOPNOTSUPP,
	    "ibv_create_qp_ex with create flags: EOPNOTSUPP (errno %d)", errno);
	if (qp)
		ibv_destroy_qp(qp);
	ex.comp_mask = IBV_QP_INIT_ATTR_PD;
	ex.qp_type = IBV_QPT_UD;
	stub_reset();
	qp = ibv_create_qp_ex(ctx, &ex);
	tap(qp && no_stub(), "UD QP (errno %d, stub %s)", errno, stub_name());
	if (qp)
		ibv_destroy_qp(qp);
	/* raw_packet is on by default; abi_ops runs as root (CAP_NET_RAW). */
	ex.qp_type = IBV_QPT_RAW_PACKET;
	stub_reset();
	qp = ibv_create_qp_ex(ctx, &ex);
	tap(qp && no_stub(), "raw packet QP (errno %d, stub %s)", errno,
	    stub_name());
	if (qp) {
		test_flow(qp);
		ibv_destroy_qp(qp);
	}
}

static void test_qp(struct ibv_pd *pd)
{
	struct ibv_context *ctx = pd->context;
	struct ibv_cq *scq, *rcq;
	struct ibv_mr *mr = NULL;
	char *buf;

	scq = ibv_create_cq(ctx, 16, NULL, NULL, 0);
	rcq = ibv_create_cq(ctx, 16, NULL, NULL, 0);
	buf = calloc(1, 4096);
	if (buf)
		mr = ibv_reg_mr(pd, buf, 4096, IBV_ACCESS_LOCAL_WRITE);
	if (tap(scq && rcq && mr, "two CQs and an MR for the QPs (errno %d)", errno)) {
		test_qp_rc(pd, scq, rcq, mr);
		test_qp_ex(pd, scq, rcq);
	}
	if (mr)
		ibv_dereg_mr(mr);
	free(buf);
	if (rcq)
		tap(!ibv_destroy_cq(rcq), "ibv_destroy_cq (recv CQ)");
	if (scq)
		tap(!ibv_destroy_cq(scq), "ibv_destroy_cq (send CQ)");
}

/* ------------------------------------------------------------------ */
/* Parent and thread domains                                           */
/* ------------------------------------------------------------------ */

static int pd_alloc_calls;

/*
 * libsroce allocates no memory the device uses (sroce.ko allocates the
 * rings), so it has nothing to ask a parent domain's allocator for.
 */
static void *pd_alloc(struct ibv_pd *pd, void *pd_context, size_t size,
		      size_t alignment, uint64_t resource_type)
{
	(void)pd; (void)pd_context; (void)size; (void)alignment;
	(void)resource_type;
	pd_alloc_calls++;
	return IBV_ALLOCATOR_USE_DEFAULT;
}

static void pd_free(struct ibv_pd *pd, void *pd_context, void *ptr,
		    uint64_t resource_type)
{
	(void)pd; (void)pd_context; (void)ptr; (void)resource_type;
	pd_alloc_calls++;
}

/* Objects on a parent domain: created, and holding it while they live. */
static void test_parent_objects(struct ibv_pd *pd, struct ibv_pd *par)
{
	struct ibv_context *ctx = pd->context;
	struct ibv_cq_init_attr_ex cattr = {
		.cqe = 8, .wc_flags = IBV_WC_STANDARD_FLAGS,
		.comp_mask = IBV_CQ_INIT_ATTR_MASK_PD, .parent_domain = pd,
	};
	struct ibv_qp_init_attr init = {
		.qp_type = IBV_QPT_RC,
		.cap = { .max_send_wr = 4, .max_recv_wr = 4, .max_send_sge = 1,
			 .max_recv_sge = 1 },
	};
	char *buf = calloc(1, 4096);
	struct ibv_cq_ex *cq;
	struct ibv_mr *mr;
	struct ibv_qp *qp;
	int ret;

	cq = ibv_create_cq_ex(ctx, &cattr);
	tap(!cq && errno == EINVAL,
	    "ibv_create_cq_ex with a protection domain as parent_domain: EINVAL (errno %d)",
	    errno);
	if (cq)
		ibv_destroy_cq(ibv_cq_ex_to_cq(cq));
	cattr.parent_domain = par;
	stub_reset();
	cq = ibv_create_cq_ex(ctx, &cattr);
	if (!tap(cq && no_stub(), "ibv_create_cq_ex on the parent domain (errno %d, stub %s)",
		 errno, stub_name()))
		goto out;
	stub_reset();
	mr = ibv_reg_mr(par, buf, 4096, IBV_ACCESS_LOCAL_WRITE);
	tap(mr && no_stub() && mr->pd == par,
	    "ibv_reg_mr on the parent domain; mr->pd is the parent (errno %d)",
	    errno);
	init.send_cq = init.recv_cq = ibv_cq_ex_to_cq(cq);
	stub_reset();
	qp = ibv_create_qp(par, &init);
	tap(qp && no_stub() && qp->pd == par,
	    "ibv_create_qp on the parent domain; qp->pd is the parent (errno %d)",
	    errno);
	ret = ibv_dealloc_pd(par);
	tap(ret == EBUSY, "ibv_dealloc_pd of a parent domain with objects: EBUSY (ret %d)",
	    ret);
	if (qp)
		tap(!ibv_destroy_qp(qp), "ibv_destroy_qp (parent domain)");
	if (mr)
		tap(!ibv_dereg_mr(mr), "ibv_dereg_mr (parent domain)");
	ret = ibv_dealloc_pd(par);
	tap(ret == EBUSY, "... still EBUSY while its CQ lives (ret %d)", ret);
	tap(!ibv_destroy_cq(ibv_cq_ex_to_cq(cq)), "ibv_destroy_cq (parent domain)");
out:
	free(buf);
}

static void test_parent_domain(struct ibv_pd *pd)
{
	struct ibv_context *ctx = pd->context;
	struct ibv_td_init_attr tattr = {};
	struct ibv_parent_domain_init_attr pattr = {
		.comp_mask = IBV_PARENT_DOMAIN_INIT_ATTR_ALLOCATORS |
			     IBV_PARENT_DOMAIN_INIT_ATTR_PD_CONTEXT,
		.alloc = pd_alloc, .free = pd_free, .pd_context = &pattr,
	};
	struct ibv_pd *par, *bad;
	struct ibv_td *td;
	int ret;

	tattr.comp_mask = 1;
	td = ibv_alloc_td(ctx, &tattr);
	tap(!td && errno == EOPNOTSUPP, "ibv_alloc_td with unknown comp_mask: EOPNOTSUPP (errno %d)",
	    errno);
	tattr.comp_mask = 0;
	stub_reset();
	td = ibv_alloc_td(ctx, &tattr);
	if (!tap(td && no_stub() && td->context == ctx,
		 "ibv_alloc_td (errno %d, stub %s)", errno, stub_name()))
		return;

	bad = ibv_alloc_parent_domain(ctx, &pattr);
	tap(!bad && errno == EINVAL, "ibv_alloc_parent_domain without a PD: EINVAL (errno %d)",
	    errno);
	pattr.pd = pd;
	pattr.td = td;
	stub_reset();
	par = ibv_alloc_parent_domain(ctx, &pattr);
	if (!tap(par && no_stub(), "ibv_alloc_parent_domain with a TD and allocators (errno %d, stub %s)",
		 errno, stub_name()))
		goto out_td;
	tap(par != pd && par->context == ctx && par->handle == pd->handle,
	    "the parent domain carries its PD's context and handle");
	pattr.pd = par;
	bad = ibv_alloc_parent_domain(ctx, &pattr);
	tap(!bad && errno == EINVAL,
	    "a parent domain on a parent domain: EINVAL (errno %d)", errno);
	pattr.pd = pd;

	test_parent_objects(pd, par);

	ret = ibv_dealloc_pd(pd);
	tap(ret == EBUSY, "ibv_dealloc_pd of a PD with a parent domain: EBUSY (ret %d)",
	    ret);
	ret = ibv_dealloc_td(td);
	tap(ret == EBUSY, "ibv_dealloc_td of a TD with a parent domain: EBUSY (ret %d)",
	    ret);
	stub_reset();
	ret = ibv_dealloc_pd(par);
	tap(!ret && no_stub(), "ibv_dealloc_pd of the parent domain (ret %d)", ret);
	tap(pd_alloc_calls == 0, "the custom allocators were not called (%d calls)",
	    pd_alloc_calls);
out_td:
	stub_reset();
	ret = ibv_dealloc_td(td);
	tap(!ret && no_stub(), "ibv_dealloc_td (ret %d, stub %s)", ret, stub_name());
}

/* ------------------------------------------------------------------ */
/* Shared receive queues and address handles                           */
/* ------------------------------------------------------------------ */

static void test_srq(struct ibv_pd *pd)
{
	struct ibv_srq_init_attr init = { .attr = { .max_wr = 16, .max_sge = 2 } };
	struct ibv_sge sge = { .length = 8 };
	struct ibv_recv_wr wr = { .sg_list = &sge, .num_sge = 1 }, *bad = NULL;
	struct ibv_srq_attr attr = {};
	struct ibv_srq *srq;
	int ret;

	stub_reset();
	srq = ibv_create_srq(pd, &init);
	if (!tap(srq && no_stub() && init.attr.max_wr >= 16,
		 "ibv_create_srq (errno %d, stub %s)", errno, stub_name()))
		return;
	stub_reset();
	ret = ibv_query_srq(srq, &attr);
	tap(!ret && no_stub() && attr.max_wr >= 16 && attr.max_sge >= 2,
	    "ibv_query_srq (ret %d, max_wr %u, max_sge %u)", ret, attr.max_wr,
	    attr.max_sge);
	attr.srq_limit = 4;
	stub_reset();
	ret = ibv_modify_srq(srq, &attr, IBV_SRQ_LIMIT);
	tap(!ret && no_stub(), "ibv_modify_srq IBV_SRQ_LIMIT (ret %d)", ret);
	stub_reset();
	ret = ibv_post_srq_recv(srq, &wr, &bad);
	tap(!ret && no_stub(), "ibv_post_srq_recv (ret %d)", ret);
	wr.num_sge = 3;
	ret = ibv_post_srq_recv(srq, &wr, &bad);
	tap(ret == EINVAL && bad == &wr,
	    "ibv_post_srq_recv with too many SGEs: EINVAL (ret %d)", ret);
	stub_reset();
	ret = ibv_destroy_srq(srq);
	tap(!ret && no_stub(), "ibv_destroy_srq (ret %d)", ret);
}

static void test_ah(struct ibv_pd *pd)
{
	struct ibv_ah_attr attr = { .port_num = 1, .is_global = 1 };
	struct ibv_ah *ah;
	int ret;

	if (ibv_query_gid(pd->context, 1, 0, &attr.grh.dgid)) {
		tap_skip("ibv_create_ah", "no GID 0");
		return;
	}
	stub_reset();
	ah = ibv_create_ah(pd, &attr);
	if (!tap(ah && no_stub(), "ibv_create_ah to GID 0 (errno %d, stub %s)",
		 errno, stub_name()))
		return;
	stub_reset();
	ret = ibv_destroy_ah(ah);
	tap(!ret && no_stub(), "ibv_destroy_ah (ret %d)", ret);
	attr.is_global = 0;
	ah = ibv_create_ah(pd, &attr);
	tap(!ah && errno && errno != EOPNOTSUPP,
	    "ibv_create_ah without a GRH on RoCE: refused (errno %d)", errno);
	if (ah)
		ibv_destroy_ah(ah);
}

/* ------------------------------------------------------------------ */
/* XRC                                                                 */
/* ------------------------------------------------------------------ */

/* An XRC SRQ on @xrcd completing on @cq; NULL on failure. */
static struct ibv_srq *xrc_srq(struct ibv_context *ctx, struct ibv_pd *pd,
			       struct ibv_xrcd *xrcd, struct ibv_cq *cq)
{
	struct ibv_srq_init_attr_ex a = {
		.attr = { .max_wr = 16, .max_sge = 1 },
		.comp_mask = IBV_SRQ_INIT_ATTR_TYPE | IBV_SRQ_INIT_ATTR_PD |
			     IBV_SRQ_INIT_ATTR_XRCD | IBV_SRQ_INIT_ATTR_CQ,
		.srq_type = IBV_SRQT_XRC, .pd = pd, .xrcd = xrcd, .cq = cq,
	};

	return ibv_create_srq_ex(ctx, &a);
}

/* A TGT QP on @xrcd, then a second handle on it through ibv_open_qp(). */
static void test_xrc_tgt(struct ibv_context *ctx, struct ibv_xrcd *xrcd)
{
	struct ibv_qp_init_attr_ex a = {
		.qp_type = IBV_QPT_XRC_RECV,
		.comp_mask = IBV_QP_INIT_ATTR_XRCD, .xrcd = xrcd,
	};
	struct ibv_qp_open_attr o = {
		.comp_mask = IBV_QP_OPEN_ATTR_XRCD | IBV_QP_OPEN_ATTR_NUM |
			     IBV_QP_OPEN_ATTR_TYPE,
		.xrcd = xrcd, .qp_type = IBV_QPT_XRC_RECV,
	};
	struct ibv_qp *tgt, *opened;

	stub_reset();
	tgt = ibv_create_qp_ex(ctx, &a);
	if (!tap(tgt && no_stub(), "XRC TGT QP (errno %d, stub %s)", errno,
		 stub_name()))
		return;
	o.qp_num = tgt->qp_num;
	opened = ibv_open_qp(ctx, &o);
	tap(opened && opened->qp_num == tgt->qp_num && no_stub(),
	    "ibv_open_qp of TGT QP %u (errno %d)", tgt->qp_num, errno);
	if (opened)
		tap(!ibv_destroy_qp(opened), "ibv_destroy_qp (opened handle)");
	tap(!ibv_destroy_qp(tgt), "ibv_destroy_qp (TGT)");
}

static void test_xrc(struct ibv_context *ctx, struct ibv_pd *pd)
{
	struct ibv_xrcd_init_attr xa = {
		.comp_mask = IBV_XRCD_INIT_ATTR_FD | IBV_XRCD_INIT_ATTR_OFLAGS,
		.fd = -1, .oflags = O_CREAT,
	};
	struct ibv_srq_init_attr_ex tm = {
		.pd = pd, .srq_type = IBV_SRQT_TM,
		.attr = { .max_wr = 16, .max_sge = 1 },
		.comp_mask = IBV_SRQ_INIT_ATTR_PD | IBV_SRQ_INIT_ATTR_TYPE,
	};
	struct ibv_xrcd *xrcd;
	struct ibv_srq *srq, *bad;
	struct ibv_cq *cq;
	uint32_t num = 0;

	stub_reset();
	xrcd = ibv_open_xrcd(ctx, &xa);
	if (!tap(xrcd && no_stub(), "ibv_open_xrcd (errno %d, stub %s)",
		 errno, stub_name()))
		return;
	cq = ibv_create_cq(ctx, 16, NULL, NULL, 0);
	srq = cq ? xrc_srq(ctx, pd, xrcd, cq) : NULL;
	tap(srq && no_stub(), "XRC SRQ via create_srq_ex (errno %d)", errno);
	if (srq) {
		tap(!ibv_get_srq_num(srq, &num) && num && num <= 0xffffff,
		    "ibv_get_srq_num: %u", num);
		tap(!ibv_destroy_srq(srq), "ibv_destroy_srq (XRC)");
	}
	test_xrc_tgt(ctx, xrcd);
	stub_reset();
	bad = ibv_create_srq_ex(ctx, &tm);
	tap(!bad && errno == EOPNOTSUPP && no_stub(),
	    "tag matching SRQ: EOPNOTSUPP from create_srq_ex (errno %d)", errno);
	if (cq)
		ibv_destroy_cq(cq);
	tap(!ibv_close_xrcd(xrcd) && no_stub(), "ibv_close_xrcd");
}

/*
 * Receive WQs, an indirection table and an RSS QP on it: every verb in
 * its own slot, none reaching a stub (55-raw checks what they do).
 */
static struct ibv_qp *rss_qp(struct ibv_pd *pd, struct ibv_rwq_ind_table *t)
{
	static uint8_t key[40] = { 0x6d, 0x5a, 0x56, 0xda };
	struct ibv_qp_init_attr_ex ex = {
		.qp_type = IBV_QPT_RAW_PACKET, .pd = pd, .rwq_ind_tbl = t,
		.comp_mask = IBV_QP_INIT_ATTR_PD | IBV_QP_INIT_ATTR_IND_TABLE |
			     IBV_QP_INIT_ATTR_RX_HASH,
		.rx_hash_conf = {
			.rx_hash_function = IBV_RX_HASH_FUNC_TOEPLITZ,
			.rx_hash_key_len = sizeof(key), .rx_hash_key = key,
			.rx_hash_fields_mask = IBV_RX_HASH_SRC_IPV4 |
					       IBV_RX_HASH_DST_IPV4,
		},
	};

	return ibv_create_qp_ex(pd->context, &ex);
}

static void test_wq_post(struct ibv_wq *wq, struct ibv_mr *mr)
{
	struct ibv_sge sge = { (uintptr_t)mr->addr, 64, mr->lkey };
	struct ibv_recv_wr wr = { .wr_id = 7, .sg_list = &sge, .num_sge = 1 };
	struct ibv_recv_wr *bad = NULL;
	struct ibv_wq_attr attr = {
		.attr_mask = IBV_WQ_ATTR_STATE, .wq_state = IBV_WQS_RDY,
	};
	int ret;

	stub_reset();
	ret = ibv_modify_wq(wq, &attr);
	tap(!ret && no_stub() && wq->state == IBV_WQS_RDY,
	    "ibv_modify_wq to RDY (ret %d, stub %s)", ret, stub_name());
	stub_reset();
	ret = ibv_post_wq_recv(wq, &wr, &bad);
	tap(!ret && no_stub(), "ibv_post_wq_recv (ret %d, stub %s)", ret,
	    stub_name());
}

static void test_wq(struct ibv_pd *pd)
{
	struct ibv_context *ctx = pd->context;
	struct ibv_cq *cq = ibv_create_cq(ctx, 16, NULL, NULL, 0);
	struct ibv_wq_init_attr wa = {
		.wq_type = IBV_WQT_RQ, .max_wr = 4, .max_sge = 1, .pd = pd,
		.cq = cq,
	};
	struct ibv_rwq_ind_table_init_attr ta = { .log_ind_tbl_size = 0 };
	struct ibv_mr *mr = ibv_reg_mr(pd, calloc(1, 4096), 4096,
				       IBV_ACCESS_LOCAL_WRITE);
	struct ibv_rwq_ind_table *tbl = NULL;
	struct ibv_qp *qp = NULL;
	struct ibv_wq *wq;

	stub_reset();
	wq = cq && mr ? ibv_create_wq(ctx, &wa) : NULL;
	if (!tap(wq && no_stub() && wa.max_wr >= 4,
		 "ibv_create_wq (errno %d, stub %s)", errno, stub_name()))
		goto out;
	test_wq_post(wq, mr);
	ta.ind_tbl = &wq;
	stub_reset();
	tbl = ibv_create_rwq_ind_table(ctx, &ta);
	if (tap(tbl && no_stub(), "ibv_create_rwq_ind_table (errno %d, stub %s)",
		errno, stub_name())) {
		stub_reset();
		qp = rss_qp(pd, tbl);
		tap(qp && no_stub(), "RSS QP via create_qp_ex (errno %d, stub %s)",
		    errno, stub_name());
		/* ib_core's usecnts, which the receive path relies on. */
		if (qp)
			tap(ibv_destroy_rwq_ind_table(tbl) == EBUSY,
			    "a table an RSS QP uses stays: EBUSY");
		tap(ibv_destroy_wq(wq) == EBUSY, "a WQ in a table stays: EBUSY");
		if (qp)
			tap(!ibv_destroy_qp(qp), "ibv_destroy_qp (RSS)");
		stub_reset();
		tap(!ibv_destroy_rwq_ind_table(tbl) && no_stub(),
		    "ibv_destroy_rwq_ind_table (stub %s)", stub_name());
	}
	stub_reset();
	tap(!ibv_destroy_wq(wq) && no_stub(), "ibv_destroy_wq (stub %s)",
	    stub_name());
out:
	if (mr) {
		void *buf = mr->addr;

		ibv_dereg_mr(mr);
		free(buf);
	}
	if (cq)
		ibv_destroy_cq(cq);
}

/* ------------------------------------------------------------------ */
/* Not implemented yet: every remaining verb                           */
/* ------------------------------------------------------------------ */

static void test_stub_creators(struct ibv_context *ctx, struct ibv_pd *pd)
{
	struct ibv_counters_init_attr cnt = {};
	struct ibv_flow_action_esp_attr esp = {};
	struct ibv_values_ex rt = { .comp_mask = IBV_VALUES_MASK_RAW_CLOCK };

	NULL_STUB("create_counters", ibv_create_counters(ctx, &cnt));
	NULL_STUB("create_flow_action_esp", ibv_create_flow_action_esp(ctx, &esp));
	NULL_STUB("alloc_null_mr", ibv_alloc_null_mr(pd));
	NULL_STUB("reg_dmabuf_mr", ibv_reg_dmabuf_mr(pd, 0, 4096, 0, -1,
						     IBV_ACCESS_LOCAL_WRITE));
	RET_STUB("query_rt_values", ibv_query_rt_values_ex(ctx, &rt));
}

/* Stubbed verbs of objects we can create, called on zeroed stand-ins. */
static void test_stub_cq(struct ibv_context *ctx)
{
	struct ibv_cq cq = { .context = ctx };
	struct ibv_modify_cq_attr mod = {};

	RET_STUB("modify_cq", ibv_modify_cq(&cq, &mod));
}

static void test_stub_qp(struct ibv_context *ctx, struct ibv_pd *pd)
{
	struct ibv_qp qp = { .context = ctx, .pd = pd };
	struct ibv_qp_rate_limit_attr rl = {};
	struct ibv_ece ece = { .vendor_id = 0x5352 };
	int ret;

	RET_STUB("modify_qp_rate_limit", ibv_modify_qp_rate_limit(&qp, &rl));
	RET_STUB("query_ece", ibv_query_ece(&qp, &ece));
	RET_STUB("set_ece", ibv_set_ece(&qp, &ece));

	stub_reset();
	ret = ibv_query_qp_data_in_order(&qp, IBV_WR_SEND, 0);
	tap(ret == 0 && stub_is("query_qp_data_in_order"),
	    "query_qp_data_in_order: 0 (no guarantee) via its stub (got %d, stub %s)",
	    ret, stub_name());
}

static void test_stub_srq(struct ibv_context *ctx, struct ibv_pd *pd)
{
	struct ibv_srq srq = { .context = ctx, .pd = pd };
	struct ibv_ops_wr op = {}, *bad_op = NULL;

	RET_STUB("post_srq_ops", ibv_post_srq_ops(&srq, &op, &bad_op));
}

static void test_stub_misc(struct ibv_context *ctx)
{
	struct ibv_counters cnt = { .context = ctx };
	struct ibv_flow flow = { .context = ctx };
	struct ibv_flow_action act = { .context = ctx };
	struct ibv_flow_action_esp_attr esp = {};
	struct ibv_counter_attach_attr cattr = {};
	uint64_t val;

	RET_STUB("read_counters", ibv_read_counters(&cnt, &val, 1, 0));
	RET_STUB("attach_counters_point_flow",
		 ibv_attach_counters_point_flow(&cnt, &cattr, &flow));
	RET_STUB("destroy_counters", ibv_destroy_counters(&cnt));
	RET_STUB("modify_flow_action_esp",
		 ibv_modify_flow_action_esp(&act, &esp));
	RET_STUB("destroy_flow_action", ibv_destroy_flow_action(&act));

	/* Only reachable from kernel events, which nothing here raises. */
	tap_skip("async_event stub", "needs an async event");
	tap_skip("cq_event stub", "needs a completion event");
}

/* ------------------------------------------------------------------ */

static struct ibv_device *find_device(struct ibv_device **list,
				      const char *name)
{
	for (; *list; list++)
		if (!strcmp(ibv_get_device_name(*list), name))
			return *list;
	return NULL;
}

static const char *provider_name(struct ibv_device *dev)
{
	/* struct verbs_device embeds ibv_device first. */
	return ((struct verbs_device *)dev)->ops->name;
}

static void test_pd(struct ibv_context *ctx)
{
	struct ibv_pd *pd, *pd2;

	pd = ibv_alloc_pd(ctx);
	if (!tap(pd != NULL, "ibv_alloc_pd (errno %d)", errno))
		return;
	tap(pd->context == ctx, "pd->context is the context");
	pd2 = ibv_alloc_pd(ctx);
	tap(pd2 && pd2->handle != pd->handle, "second PD has its own handle");
	if (pd2)
		tap(!ibv_dealloc_pd(pd2), "ibv_dealloc_pd (second)");

	test_mr_pair(pd);
	test_advise(pd);
	test_import(pd);
	test_mw(pd);
	test_cq(ctx);
	test_qp(pd);
	test_parent_domain(pd);
	test_srq(pd);
	test_ah(pd);
	test_xrc(ctx, pd);
	test_wq(pd);
	test_stub_creators(ctx, pd);
	test_stub_cq(ctx);
	test_stub_qp(ctx, pd);
	test_stub_srq(ctx, pd);
	test_stub_misc(ctx);

	tap(!ibv_dealloc_pd(pd), "ibv_dealloc_pd");
}

static int run(const char *devname, const char *want_provider)
{
	struct ibv_device **list, *dev;
	struct ibv_context *ctx;
	int n;

	list = ibv_get_device_list(&n);
	if (!tap(list != NULL, "ibv_get_device_list (errno %d)", errno))
		return 1;
	dev = find_device(list, devname);
	if (!tap(dev != NULL, "device %s listed", devname))
		goto out;
	tap(!strcmp(provider_name(dev), want_provider),
	    "%s claimed by provider %s (is %s)", devname, want_provider,
	    provider_name(dev));

	ctx = ibv_open_device(dev);
	if (!tap(ctx != NULL, "ibv_open_device %s (errno %d)", devname, errno))
		goto out;
	if (!tap(stub_last_find(), "found sroce_stub_last in the loaded %s",
		 PROVIDER_SO))
		goto close;

	test_query_device(ctx);
	test_query_port(ctx);
	test_pd(ctx);

close:
	stub_reset();
	tap(!ibv_close_device(ctx), "ibv_close_device");
	if (stub_last)
		tap(!*stub_last, "close ran the real free_context, not a stub (stub %s)",
		    stub_name());
out:
	ibv_free_device_list(list);
	return 0;
}

int main(int argc, char **argv)
{
	const char *dev = NULL, *provider = "sroce";
	int c;

	while ((c = getopt(argc, argv, "d:p:")) != -1) {
		switch (c) {
		case 'd':
			dev = optarg;
			break;
		case 'p':
			provider = optarg;
			break;
		default:
			goto usage;
		}
	}
	if (!dev)
		goto usage;

	setvbuf(stdout, NULL, _IOLBF, 0);
	run(dev, provider);
	printf("1..%d\n", tap_count);
	return tap_failed ? 1 : 0;

usage:
	fprintf(stderr, "usage: %s -d DEV [-p PROVIDER]\n", argv[0]);
	return 2;
}
