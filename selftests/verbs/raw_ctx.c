// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * raw_ctx DEV: open a uverbs context on DEV with raw write() commands, once
 * without and once with sroce's alloc_ucontext handshake.  sroce.ko must
 * refuse the first (EPROTONOSUPPORT) and accept the second.  TAP output.
 */
#include <errno.h>
#include <fcntl.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>
#include <rdma/ib_user_verbs.h>
#include "rdma/sroce-abi.h"

struct get_ctx_cmd {
	struct ib_uverbs_cmd_hdr hdr;
	struct ib_uverbs_get_context core;
	struct sroce_alloc_ucontext_req drv;
};

struct get_ctx_resp {
	struct ib_uverbs_get_context_resp core;
	struct sroce_alloc_ucontext_resp drv;
};

/* /dev/infiniband/uverbsN of the ib device DEV. */
static int open_uverbs(const char *dev)
{
	char path[128], name[64];
	FILE *f;
	int i;

	for (i = 0; i < 64; i++) {
		snprintf(path, sizeof(path),
			 "/sys/class/infiniband_verbs/uverbs%d/ibdev", i);
		f = fopen(path, "r");
		if (!f)
			continue;
		if (fscanf(f, "%63s", name) == 1 && !strcmp(name, dev)) {
			fclose(f);
			snprintf(path, sizeof(path), "/dev/infiniband/uverbs%d", i);
			return open(path, O_RDWR | O_CLOEXEC);
		}
		fclose(f);
	}
	errno = ENODEV;
	return -1;
}

/* One GET_CONTEXT on a fresh fd; returns 0 or the errno. */
static int get_context(const char *dev, int with_handshake,
		       struct get_ctx_resp *resp)
{
	struct get_ctx_cmd cmd;
	size_t len = with_handshake ? sizeof(cmd) :
		     offsetof(struct get_ctx_cmd, drv);
	int fd, err = 0;

	fd = open_uverbs(dev);
	if (fd < 0)
		return errno;
	memset(&cmd, 0, sizeof(cmd));
	memset(resp, 0, sizeof(*resp));
	cmd.hdr.command = IB_USER_VERBS_CMD_GET_CONTEXT;
	cmd.hdr.in_words = len / 4;
	cmd.hdr.out_words = sizeof(*resp) / 4;
	cmd.core.response = (uintptr_t)resp;
	cmd.drv.abi_version = SROCE_UVERBS_ABI_VERSION;
	if (write(fd, &cmd, len) != (ssize_t)len)
		err = errno;
	close(fd);
	return err;
}

int main(int argc, char **argv)
{
	struct get_ctx_resp resp;
	int err, fails = 0;

	if (argc != 2) {
		fprintf(stderr, "usage: raw_ctx DEV\n");
		return 2;
	}
	printf("1..2\n");
	err = get_context(argv[1], 0, &resp);
	fails += err != EPROTONOSUPPORT;
	printf("%s 1 - context without handshake refused (%s)\n",
	       err == EPROTONOSUPPORT ? "ok" : "not ok", strerror(err));
	err = get_context(argv[1], 1, &resp);
	fails += err || resp.drv.abi_version != SROCE_UVERBS_ABI_VERSION;
	printf("%s 2 - context with handshake accepted (%s, ABI %u)\n",
	       !err && resp.drv.abi_version == SROCE_UVERBS_ABI_VERSION ?
	       "ok" : "not ok", strerror(err), resp.drv.abi_version);
	return fails ? 1 : 0;
}
