// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * Seed corpora for the fuzzers: one valid packet per opcode (with a few
 * payload sizes) for fuzz_wire, IPv4/IPv6 frames around them for
 * fuzz_icrc.  Usage: gen_seeds DIR
 */
#include <stdio.h>
#include <stdlib.h>
#include <sys/stat.h>
#include "wire.h"
#include "icrc.h"

static void put(const char *dir, const char *sub, const char *name,
		const uint8_t *p, size_t n)
{
	char path[512];
	FILE *f;

	snprintf(path, sizeof(path), "%s/%s", dir, sub);
	mkdir(path, 0755);
	snprintf(path, sizeof(path), "%s/%s/%s", dir, sub, name);
	f = fopen(path, "wb");
	if (!f || fwrite(p, 1, n, f) != n) {
		perror(path);
		exit(1);
	}
	fclose(f);
}

static size_t mk_l3(uint8_t *f, bool v6, const uint8_t *l4, size_t n)
{
	size_t ip = v6 ? 40 : 20;

	memset(f, 0, ip + 8);
	f[0] = v6 ? 0x60 : 0x45;
	if (!v6)
		f[9] = 17;
	else
		f[6] = 17;
	f[ip + 2] = SROCE_WIRE_UDP_PORT >> 8;
	f[ip + 3] = SROCE_WIRE_UDP_PORT & 0xff;
	memcpy(f + ip + 8, l4, n);
	return ip + 8 + n;
}

int main(int argc, char **argv)
{
	static const size_t plens[] = { 0, 1, 4, 7 };
	unsigned int op, i;
	uint8_t pkt[256], fr[1 + 512];
	char name[64];

	if (argc != 2)
		return 2;
	mkdir(argv[1], 0755);
	for (op = 0; op < 256; op++) {
		const struct sroce_opcode_info *oi = sroce_wire_opcode_info(op);

		if (!oi)
			continue;
		for (i = 0; i < 4; i++) {
			struct sroce_pkt_hdr h = {
				.opcode = op, .pkey = 0xffff, .dest_qpn = 0x11,
				.psn = 0xfffff0 + i, .qkey = 0x80010000,
			};
			size_t pl = oi->flags & SROCE_OPF_PAYLOAD ? plens[i] : 0;
			size_t hl, n;

			h.pad = sroce_wire_pad(pl);
			hl = sroce_wire_build(pkt, sizeof(pkt), &h);
			memset(pkt + hl, 0x61, pl + h.pad + 4);
			n = hl + pl + h.pad + 4;
			snprintf(name, sizeof(name), "op%02x_%zu", op, pl);
			put(argv[1], "fuzz_wire", name, pkt, n);
			if (i > 1)
				continue;
			fr[0] = (uint8_t)i;
			n = mk_l3(fr + 1, i, pkt, n - 4);
			put(argv[1], "fuzz_icrc", name, fr, n + 1);
		}
	}
	put(argv[1], "fuzz_aeth", "all", (const uint8_t *)"\x00\x1f\x20\x3f"
	    "\x40\x60\x64\x65\xff\x00\x00\x80\x00", 13);
	put(argv[1], "fuzz_psn", "wrap", (const uint8_t *)"\x00\xff\xff\xff"
	    "\x00\x00\x00\x01\x00\x00\x00\x10", 12);
	put(argv[1], "fuzz_req", "basic", (const uint8_t *)"\x00\x00\x00\x00"
	    "\x00\x01\x00\x01\x02\x00\x00\x00\x04\xff\xff\xf0\x04\x00"
	    "\x00\x44\x00\x10\x80\x00\x00", 25);
	put(argv[1], "fuzz_sack", "two", (const uint8_t *)"\x00\x00\x64"
	    "\x01\x02\x00\x00\x00\x00\x00\x6e\x00\x00\x00\x02"
	    "\x00\x00\x00\x78\x00\x00\x00\x02", 23);
	/* Near the wrap: hold three ranges, pick, move on, pick. */
	put(argv[1], "fuzz_sackmap", "three", (const uint8_t *)"\xff\xff\xf0"
	    "\x00\x00\x05\x02\x00\x00\x09\x01\x00\x00\x20\x04"
	    "\x02\x00\x00\x00\x01\x00\x00\x07\x02\x00\x00\x00", 31);
	/* Two ACKs 10 ms apart, 100 packets each, 10 ms RTT. */
	put(argv[1], "fuzz_cc", "two", (const uint8_t *)
	    "\x00\x64\x00\x98\x96\x80\x00\x00\x00\x98\x96\x80\x01"
	    "\x00\x98\x96\x80\x01\x00\x64"
	    "\x00\x64\x00\x98\x96\x80\x00\x64\x00\x98\x96\x80\x01"
	    "\x00\x98\x96\x80\x01\x00\x64", 40);
	/* A CNP at 10000 pps, a tick and 10 MiB sent, 1 ms apart. */
	put(argv[1], "fuzz_dcqcn", "cut", (const uint8_t *)
	    "\x00\x0f\x42\x40\x00\x00\x27\x10"
	    "\x10\x0f\x42\x40\x00\x00\x00\x00"
	    "\x08\x0f\x42\x40\x00\xa0\x00\x00", 24);
	/* pyverbs' flow frame: Eth | IPv4 1.1.1.1 -> 2.2.2.2 | UDP 1234 -> 5678. */
	put(argv[1], "fuzz_flow", "udp4", (const uint8_t *)
	    "\x01\x50\x56\x19\x20\xa7\x24\x8a\x07\xa5\x28\xc8\x08\x00"
	    "\x45\x00\x00\x20\x00\x00\x40\x00\x40\x11\x00\x00"
	    "\x01\x01\x01\x01\x02\x02\x02\x02"
	    "\x04\xd2\x16\x2e\x00\x0c\x00\x00\x61\x62\x63\x64", 46);
	/*
	 * RSS: Toeplitz, a 40-byte key, IPv4 addresses and UDP ports, 8
	 * entries, rdma-core's test key; then the same frame.
	 */
	put(argv[1], "fuzz_rss", "udp4", (const uint8_t *)
	    "\x01\x28\xc3\x00\x03"
	    "\x2c\xc6\x81\xd1\x5b\xdb\xf4\xf7\xfc\xa2\x83\x19\xdb\x1a"
	    "\x3e\x94\x6b\x9e\x38\xd9\x2c\x9c\x03\xd1\xad\x99\x44\xa7"
	    "\xd9\x56\x3d\x59\x06\x3c\x25\xf3\xfc\x1f\xdc\x2a"
	    "\x01\x50\x56\x19\x20\xa7\x24\x8a\x07\xa5\x28\xc8\x08\x00"
	    "\x45\x00\x00\x20\x00\x00\x40\x00\x40\x11\x00\x00"
	    "\x01\x01\x01\x01\x02\x02\x02\x02"
	    "\x04\xd2\x16\x2e\x00\x0c\x00\x00\x61\x62\x63\x64", 91);
	return 0;
}
