// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * provider_of - print "<ibdev> <provider>" for every device libibverbs
 * placed, to show which rdma-core provider claimed which device.
 *
 * libibverbs has no public call for that, but every ibv_device it returns
 * is the head of a struct verbs_device whose ops name the provider
 * (layout: tools/lib/sroce/verbs-private.h).
 */
#include <errno.h>
#include <stdio.h>
#include <string.h>

#include <infiniband/verbs.h>

#include "verbs-private.h"

int main(void)
{
	struct ibv_device **list;
	int i, n;

	list = ibv_get_device_list(&n);
	if (!list) {
		fprintf(stderr, "ibv_get_device_list: %s\n", strerror(errno));
		return 1;
	}
	for (i = 0; i < n; i++)
		printf("%s %s\n", ibv_get_device_name(list[i]),
		       ((struct verbs_device *)list[i])->ops->name);
	ibv_free_device_list(list);
	return 0;
}
