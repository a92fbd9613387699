/* SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause */
/*
 * Lookup tables for objects that packets name by number (QPN, lkey, rkey).
 *
 * The receive path runs in softirq context on any CPU while verbs destroy
 * objects from process context.  rxe's history shows what goes wrong when
 * a lookup can race with the final free, so the rules here are few:
 *
 *  - A lookup returns an object only with a reference taken *inside* the
 *    table lock, so no reader can hold a pointer whose count is already 0.
 *  - Removal unpublishes the object first, drops the table's reference and
 *    then waits until every packet-path reference is gone.  Only after
 *    that may the memory go back to ib_core (which frees it with kfree).
 *
 * References held by the packet path are short (one packet or one work
 * item), so the wait in removal is bounded.
 */
#ifndef _SROCE_TABLE_H
#define _SROCE_TABLE_H

#include <linux/xarray.h>
#include <linux/refcount.h>
#include <linux/completion.h>
#include <linux/atomic.h>

struct sroce_obj {
	refcount_t ref;
	struct completion released;
	u32 index;
};

struct sroce_table {
	struct xarray xa;
	struct xa_limit limit;
	u32 next;
	atomic_t count;
	unsigned int max;
};

void sroce_table_init(struct sroce_table *t, u32 min, u32 max);
void sroce_table_destroy(struct sroce_table *t);
int sroce_table_add(struct sroce_table *t, struct sroce_obj *obj);
int sroce_table_add_at(struct sroce_table *t, struct sroce_obj *obj,
		       u32 index);
struct sroce_obj *sroce_table_get(struct sroce_table *t, u32 index);
void sroce_table_remove(struct sroce_table *t, struct sroce_obj *obj);
struct sroce_obj *sroce_table_next(struct sroce_table *t,
				   unsigned long *index);

static inline void sroce_obj_get(struct sroce_obj *obj)
{
	refcount_inc(&obj->ref);
}

static inline void sroce_obj_put(struct sroce_obj *obj)
{
	if (refcount_dec_and_test(&obj->ref))
		complete(&obj->released);
}

#endif /* _SROCE_TABLE_H */
