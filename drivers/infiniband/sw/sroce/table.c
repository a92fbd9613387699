// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * Object tables: see table.h for the locking rules.
 */
#include "table.h"

void sroce_table_init(struct sroce_table *t, u32 min, u32 max)
{
	/* BH-safe: lookups come from the softirq receive path. */
	xa_init_flags(&t->xa, XA_FLAGS_ALLOC | XA_FLAGS_LOCK_BH);
	t->limit = XA_LIMIT(min, max);
	t->next = min;
	atomic_set(&t->count, 0);
	t->max = max - min + 1;
}

void sroce_table_destroy(struct sroce_table *t)
{
	WARN_ON(!xa_empty(&t->xa));
	xa_destroy(&t->xa);
}

/*
 * Publish @obj with a fresh index.  Indices are handed out cyclically, so
 * a stale key of a destroyed object is unlikely to name its successor.
 */
int sroce_table_add(struct sroce_table *t, struct sroce_obj *obj)
{
	int err;

	if (atomic_inc_return(&t->count) > t->max) {
		atomic_dec(&t->count);
		return -ENOMEM;
	}
	refcount_set(&obj->ref, 1);
	init_completion(&obj->released);
	err = xa_alloc_cyclic_bh(&t->xa, &obj->index, obj, t->limit, &t->next,
				 GFP_KERNEL);
	if (err < 0) {
		atomic_dec(&t->count);
		return err;
	}
	return 0;
}

/*
 * Publish @obj at a fixed @index, outside the range add() hands out (the
 * GSI QP is QP1); -EBUSY if it is taken.
 */
int sroce_table_add_at(struct sroce_table *t, struct sroce_obj *obj,
		       u32 index)
{
	int err;

	if (atomic_inc_return(&t->count) > t->max) {
		atomic_dec(&t->count);
		return -ENOMEM;
	}
	refcount_set(&obj->ref, 1);
	init_completion(&obj->released);
	obj->index = index;
	err = xa_insert_bh(&t->xa, index, obj, GFP_KERNEL);
	if (err)
		atomic_dec(&t->count);
	return err;
}

struct sroce_obj *sroce_table_get(struct sroce_table *t, u32 index)
{
	struct sroce_obj *obj;
	unsigned long flags;

	xa_lock_irqsave(&t->xa, flags);
	obj = xa_load(&t->xa, index);
	if (obj && !refcount_inc_not_zero(&obj->ref))
		obj = NULL;
	xa_unlock_irqrestore(&t->xa, flags);
	return obj;
}

/* Unpublish @obj and wait until the packet path has let go of it. */
void sroce_table_remove(struct sroce_table *t, struct sroce_obj *obj)
{
	xa_erase_bh(&t->xa, obj->index);
	sroce_obj_put(obj);
	wait_for_completion(&obj->released);
	atomic_dec(&t->count);
}

/*
 * A walk that works on each object without the lock held: the first
 * object at or after *@index, with a reference taken as in
 * sroce_table_get(), and *@index set to its index; NULL past the last.
 * Objects added or removed meanwhile may or may not be seen.
 */
struct sroce_obj *sroce_table_next(struct sroce_table *t,
				   unsigned long *index)
{
	struct sroce_obj *obj;
	unsigned long flags;

	xa_lock_irqsave(&t->xa, flags);
	for (;;) {
		obj = xa_find(&t->xa, index, ULONG_MAX, XA_PRESENT);
		/* Not a dying one: its remover may be waiting for refs. */
		if (!obj || refcount_inc_not_zero(&obj->ref))
			break;
		(*index)++;
	}
	xa_unlock_irqrestore(&t->xa, flags);
	return obj;
}
