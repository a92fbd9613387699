// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * Receive side scaling (proto/rss.h): any bytes as a configuration (the
 * first 45: function, key length, fields, table size, key) and the rest
 * as a frame.  The check only accepts what the hash can do, the input
 * never outgrows its buffer, a frame without the fields hashes to 0, and
 * the sliding-window hash equals the bit-by-bit definition.
 */
#include <assert.h>
#include "rss.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

#define CONF_BYTES	(5 + SROCE_RSS_KEY_LEN)

static uint32_t toeplitz_ref(const uint8_t *key, const uint8_t *in, size_t n)
{
	uint32_t hash = 0;
	size_t bit, j;

	for (bit = 0; bit < n * 8; bit++) {
		uint32_t w = 0;

		if (!(in[bit / 8] & 0x80 >> bit % 8))
			continue;
		for (j = 0; j < 32; j++)
			w = w << 1 |
			    (key[(bit + j) / 8] >> (7 - (bit + j) % 8) & 1);
		hash ^= w;
	}
	return hash;
}

static void check_conf(const uint8_t *d, struct sroce_rss_conf *c)
{
	uint32_t fields = (uint32_t)d[2] | (uint32_t)(d[3] & 0x81) << 8;
	int err = sroce_rss_conf_check(d[0] & 3, d[1], fields, d[4] & 15);

	assert(err == 0 || err == -EINVAL || err == -EOPNOTSUPP);
	if (!err) {
		assert((d[0] & 3) == SROCE_RSS_FUNC_TOEPLITZ);
		assert(d[1] == SROCE_RSS_KEY_LEN);
		assert(!(fields & ~SROCE_RSS_FIELDS));
		assert(!((fields & SROCE_RSS_IPV4) && (fields & SROCE_RSS_IPV6)));
		assert(!((fields & SROCE_RSS_TCP) && (fields & SROCE_RSS_UDP)));
	}
	c->fields = fields & SROCE_RSS_FIELDS;
	memcpy(c->key, d + 5, SROCE_RSS_KEY_LEN);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	uint8_t in[SROCE_RSS_INPUT_MAX + 8];
	struct sroce_rss_conf c;
	struct sroce_flow_key k;
	uint8_t *frame;
	size_t n;
	int len;

	if (size < CONF_BYTES)
		return 0;
	check_conf(data, &c);
	n = size - CONF_BYTES;
	/* A copy of exactly @n bytes: ASan sees any read beyond. */
	frame = n ? __builtin_malloc(n) : NULL;
	if (n)
		memcpy(frame, data + CONF_BYTES, n);
	if (sroce_flow_parse(frame, n, &k)) {
		__builtin_free(frame);
		return 0;
	}
	memset(in, 0xee, sizeof(in));
	len = sroce_rss_input(c.fields, &k, in);
	assert(len == -ENOENT || (len >= 0 && len <= SROCE_RSS_INPUT_MAX));
	assert(in[SROCE_RSS_INPUT_MAX] == 0xee);
	if (len < 0)
		assert(sroce_rss_hash(&c, &k) == 0);
	else
		assert(sroce_rss_hash(&c, &k) ==
		       toeplitz_ref(c.key, in, (size_t)len));
	__builtin_free(frame);
	return 0;
}
