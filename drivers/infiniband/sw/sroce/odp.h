/* SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause */
/*
 * On-demand paging MRs (odp.c): user memory registered without pinning.
 */
#ifndef _SROCE_ODP_H
#define _SROCE_ODP_H

#include <linux/types.h>
#include <linux/workqueue.h>
#include <rdma/ib_verbs.h>

struct sroce_dev;
struct sroce_mr;
struct sroce_qp;
struct sroce_odp_region;

/*
 * A QP's one page fault in progress.  The engine runs with bottom halves
 * off and cannot sleep; a page it finds missing is faulted in by this
 * work, which kicks the QP when it is done.  Only the engine (under its
 * RUNNING bit) asks, only while @busy is clear; the work clears it.
 */
struct sroce_odp_fault {
	struct work_struct work;
	bool busy;
	u32 key;			/* the MR's */
	u64 uva;
	u64 len;
	/* The last range that could not be faulted in, once: -EFAULT. */
	bool bad;
	u32 bad_key;
	u64 bad_uva;
	u64 bad_len;
};

int sroce_odp_mr_init(struct sroce_dev *sdev, struct sroce_mr *mr,
		      u64 start, u64 length, int access);
void sroce_odp_mr_release(struct sroce_mr *mr);

/*
 * Run @fn on the page that holds @iova of an ODP MR (with the offset of
 * @iova in it), the page locked against invalidation meanwhile; or
 * -EAGAIN once a fault of the @len bytes from there is on its way (the
 * QP is kicked when it is done), or -EFAULT if they cannot be faulted in.
 */
typedef int (*sroce_odp_fn)(struct page *page, unsigned int pgoff,
			    void *arg);
int sroce_odp_with_page(struct sroce_qp *qp, struct sroce_mr *mr, u64 iova,
			u64 len, bool write, sroce_odp_fn fn, void *arg);
/*
 * 0 if every page of @len bytes at @iova is in (as far as a hint looks);
 * else -EAGAIN or -EFAULT as above.
 */
int sroce_odp_ready(struct sroce_qp *qp, struct sroce_mr *mr, u64 iova,
		    u64 len, bool write);
/* Start faulting in what of @len bytes at @iova is missing; no wait. */
void sroce_odp_hint(struct sroce_qp *qp, struct sroce_mr *mr, u64 iova,
		    u64 len, bool write);
/* A fault of this QP is on its way: its end kicks the engine. */
bool sroce_odp_waiting(const struct sroce_qp *qp);

void sroce_odp_qp_init(struct sroce_qp *qp);
void sroce_odp_qp_stop(struct sroce_qp *qp);

int sroce_odp_advise(struct ib_pd *ibpd,
		     enum ib_uverbs_advise_mr_advice advice, u32 flags,
		     struct ib_sge *sg_list, u32 num_sge,
		     struct uverbs_attr_bundle *attrs);
void sroce_odp_caps(struct ib_device_attr *a);

#endif /* _SROCE_ODP_H */
