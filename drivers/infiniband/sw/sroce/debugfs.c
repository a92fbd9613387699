// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * debugfs, for a look at a device without rdma(8):
 *
 *   /sys/kernel/debug/sroce/<dev>/qps       one line per QP, the fields
 *                                           of the resource detail
 *   /sys/kernel/debug/sroce/<dev>/counters  "name value", one a line
 *
 * A device's directory comes with its registration (enable_driver) and
 * goes with its release (dealloc_driver); debugfs_remove() waits for
 * readers, so the files may use the device freely.  Renaming a device
 * does not rename its directory.  Like every debugfs file these are
 * for root and are no ABI: the stable interfaces are rdma(8)'s.
 */
#include <linux/debugfs.h>
#include <linux/seq_file.h>

#include "sroce.h"
#include "observe.h"

static struct dentry *sroce_debugfs_root;

static void sroce_debugfs_qp_line(struct seq_file *m, struct sroce_qp *qp)
{
	struct sroce_qp_snap s;
	unsigned int i;

	sroce_qp_snap(qp, &s);
	seq_printf(m, "qpn=%u type=%s state=%s", s.qpn,
		   sroce_qp_type_name(s.type), sroce_qp_state_name(s.state));
	for (i = 0; i < s.n; i++)
		seq_printf(m, " %s=%u", s.f[i].name, s.f[i].val);
	if (s.cc)
		seq_printf(m, " cc=%s", s.cc);
	if (s.sr)
		seq_printf(m, " sr=%s", s.sr);
	seq_putc(m, '\n');
}

/* Each QP is held by a reference, not the table lock, while printed. */
static int sroce_debugfs_qps_show(struct seq_file *m, void *v)
{
	struct sroce_dev *sdev = m->private;
	struct sroce_obj *obj;
	unsigned long i;

	for (i = 0; (obj = sroce_table_next(&sdev->qp_table, &i)); i++) {
		struct sroce_qp *qp = container_of(obj, struct sroce_qp, obj);

		sroce_debugfs_qp_line(m, qp);
		sroce_qp_put(qp);
	}
	return 0;
}
DEFINE_SHOW_ATTRIBUTE(sroce_debugfs_qps);

static int sroce_debugfs_counters_show(struct seq_file *m, void *v)
{
	struct sroce_dev *sdev = m->private;
	int i;

	for (i = 0; i < SROCE_CNT_MAX; i++)
		seq_printf(m, "%s %llu\n", sroce_counter_descs[i].name,
			   (u64)atomic64_read(&sdev->cnt.c[i]));
	return 0;
}
DEFINE_SHOW_ATTRIBUTE(sroce_debugfs_counters);

/* debugfs failures are not ours to fail on: the module works without. */
void sroce_debugfs_init(void)
{
	sroce_debugfs_root = debugfs_create_dir("sroce", NULL);
}

void sroce_debugfs_exit(void)
{
	debugfs_remove_recursive(sroce_debugfs_root);
}

void sroce_debugfs_add(struct sroce_dev *sdev)
{
	struct dentry *dir;

	dir = debugfs_create_dir(dev_name(&sdev->ibdev.dev),
				 sroce_debugfs_root);
	debugfs_create_file("qps", 0400, dir, sdev, &sroce_debugfs_qps_fops);
	debugfs_create_file("counters", 0400, dir, sdev,
			    &sroce_debugfs_counters_fops);
	sdev->debugfs = dir;
}

void sroce_debugfs_del(struct sroce_dev *sdev)
{
	debugfs_remove_recursive(sdev->debugfs);
	sdev->debugfs = NULL;
}
