// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * ICRC on arbitrary L3 bytes: byte 0 of the input picks IPv4/IPv6 and a
 * split point; the rest is the packet.  Properties: no out-of-bounds read
 * (hostile IHL), streaming == one-shot, storing the ICRC makes verify
 * pass and the CRC residue appear, masked bytes do not matter.
 */
#include <assert.h>
#include <stdlib.h>
#include "icrc.h"
#include "wire.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct sroce_icrc_ctx c;
	uint32_t icrc, icrc2;
	bool ipv6;
	size_t len, split, ip_len;
	uint8_t *p;
	int err;

	if (size < 1)
		return 0;
	ipv6 = data[0] & 1;
	len = size - 1;
	p = malloc(len + SROCE_ICRC_BYTES);
	memcpy(p, data + 1, len);

	err = sroce_icrc_compute(sroce_crc32_le, p, len, ipv6, &icrc);
	ip_len = ipv6 ? 40 : (len ? (size_t)(p[0] & 0xf) * 4 : 0);
	if (err) {
		assert(err == -EINVAL);
		assert(ip_len < 20 || len < ip_len + 20);
		free(p);
		return 0;
	}
	assert(ipv6 || ip_len >= 20);
	/* Stream: head up to a split point inside the data, then the rest. */
	split = ip_len + 20 + (len > ip_len + 20 ?
			       (data[0] >> 1) % (len - ip_len - 20 + 1) : 0);
	assert(!sroce_icrc_begin(&c, sroce_crc32_le, p, split, ipv6));
	sroce_icrc_update(&c, p + split, len - split);
	assert(sroce_icrc_final(&c) == icrc);

	sroce_icrc_store(p + len, icrc);
	assert(!sroce_icrc_verify(sroce_crc32_le, p, len + 4, ipv6));
	assert(!sroce_icrc_begin(&c, sroce_crc32_le, p, len + 4, ipv6));
	assert(c.crc == SROCE_CRC32_RESIDUE);

	/* Scribble over the masked fields: the ICRC must not change. */
	p[ip_len + 6] ^= 0xa5;
	p[ip_len + 8 + 4] ^= 0x3c;
	p[ipv6 ? 7 : 8] ^= 0x5a;
	assert(!sroce_icrc_compute(sroce_crc32_le, p, len, ipv6, &icrc2));
	assert(icrc2 == icrc);
	free(p);
	return 0;
}
