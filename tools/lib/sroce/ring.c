// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * Mapping the rings sroce.ko allocates for a CQ or a QP (see ring.h for
 * how they are used once mapped).
 */
#include <sys/mman.h>

#include "sroce.h"

/*
 * Map the ring @info describes, whose entries must hold at least
 * @min_stride bytes.  The kernel insists on the exact size it published
 * (one mmap entry per ring), so we map mmap_size, not what we need.
 */
int sroce_ring_map(int cmd_fd, const struct sroce_ring_info *info,
		   uint32_t min_stride, void **base)
{
	void *p;
	int ret;

	ret = sroce_ring_info_check(info, min_stride);
	if (ret) {
		sroce_log("unusable ring from the kernel: %u entries of %u bytes (need >= %u), %llu bytes",
			  info->entries, info->stride, min_stride,
			  (unsigned long long)info->mmap_size);
		return ret;
	}
	p = mmap(NULL, info->mmap_size, PROT_READ | PROT_WRITE, MAP_SHARED,
		 cmd_fd, info->mmap_offset);
	if (p == MAP_FAILED)
		return errno;
	*base = p;
	return 0;
}

void sroce_ring_unmap(struct sroce_ring *r)
{
	if (r->hdr)
		munmap(r->hdr, r->map_size);
	r->hdr = NULL;
}
