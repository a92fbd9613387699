// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * Receive side scaling (rss.h): the configuration check, the Toeplitz
 * hash and the bytes of a frame it covers.
 */
#include "rss.h"

int sroce_rss_conf_check(uint32_t func, uint32_t key_len, uint64_t fields,
			 uint32_t log_size)
{
	if (func != SROCE_RSS_FUNC_TOEPLITZ)
		return -EOPNOTSUPP;
	if (fields & ~(uint64_t)SROCE_RSS_FIELDS)
		return -EOPNOTSUPP;
	if (key_len != SROCE_RSS_KEY_LEN)
		return -EINVAL;
	/* A frame has one IP version and one transport. */
	if ((fields & SROCE_RSS_IPV4) && (fields & SROCE_RSS_IPV6))
		return -EINVAL;
	if ((fields & SROCE_RSS_TCP) && (fields & SROCE_RSS_UDP))
		return -EINVAL;
	/* Nothing to hash spreads nothing: only a table of one may. */
	if (!fields && log_size)
		return -EINVAL;
	return 0;
}

/*
 * For each bit of the input, from the first byte's most significant on:
 * if it is set, XOR in the 32 bits of the key that start at that bit.
 * @win holds them, and takes the key's next bit in from the right as it
 * slides.
 */
uint32_t sroce_rss_toeplitz(const uint8_t *key, const uint8_t *in,
			    size_t len)
{
	uint32_t win = sroce_be_load32(key), hash = 0;
	size_t i;
	int b;

	for (i = 0; i < len; i++) {
		for (b = 7; b >= 0; b--) {
			if (in[i] >> b & 1)
				hash ^= win;
			win = win << 1 | (key[i + 4] >> b & 1);
		}
	}
	return hash;
}

/* Does the frame have the layers the fields need? */
static bool sroce_rss_has(uint32_t fields, const struct sroce_flow_key *key)
{
	uint32_t need = 0;

	if (fields & SROCE_RSS_IPV4)
		need |= SROCE_FLOW_L_IPV4;
	if (fields & SROCE_RSS_IPV6)
		need |= SROCE_FLOW_L_IPV6;
	if (fields & SROCE_RSS_TCP)
		need |= SROCE_FLOW_L_TCP;
	if (fields & SROCE_RSS_UDP)
		need |= SROCE_FLOW_L_UDP;
	if ((key->layers & need) != need)
		return false;
	/*
	 * The first fragment of a datagram has its ports, the others not:
	 * all of them go the same way, unhashed.
	 */
	if (fields & (SROCE_RSS_TCP | SROCE_RSS_UDP) &&
	    key->layers & SROCE_FLOW_L_IPV4 &&
	    key->ip4[11] & SROCE_FLOW_IP4_MF)
		return false;
	return true;
}

/* Append @n bytes at @src to the input if @field is selected. */
static size_t sroce_rss_put(uint8_t *in, size_t at, uint32_t fields,
			    uint32_t field, const uint8_t *src, size_t n)
{
	if (!(fields & field))
		return at;
	memcpy(in + at, src, n);
	return at + n;
}

int sroce_rss_input(uint32_t fields, const struct sroce_flow_key *key,
		    uint8_t *in)
{
	size_t n = 0;

	if (!sroce_rss_has(fields, key))
		return -ENOENT;
	/* The key holds source, then destination, as the headers do. */
	n = sroce_rss_put(in, n, fields, SROCE_RSS_SRC_IPV4, key->ip4, 4);
	n = sroce_rss_put(in, n, fields, SROCE_RSS_DST_IPV4, key->ip4 + 4, 4);
	n = sroce_rss_put(in, n, fields, SROCE_RSS_SRC_IPV6, key->ip6, 16);
	n = sroce_rss_put(in, n, fields, SROCE_RSS_DST_IPV6, key->ip6 + 16,
			  16);
	/* ... and the ports the other way round, as ib_core's filter. */
	n = sroce_rss_put(in, n, fields,
			  SROCE_RSS_SRC_PORT_TCP | SROCE_RSS_SRC_PORT_UDP,
			  key->l4 + 2, 2);
	n = sroce_rss_put(in, n, fields,
			  SROCE_RSS_DST_PORT_TCP | SROCE_RSS_DST_PORT_UDP,
			  key->l4, 2);
	return (int)n;
}

uint32_t sroce_rss_hash(const struct sroce_rss_conf *c,
			const struct sroce_flow_key *key)
{
	uint8_t in[SROCE_RSS_INPUT_MAX];
	int n = sroce_rss_input(c->fields, key, in);

	return n < 0 ? 0 : sroce_rss_toeplitz(c->key, in, (size_t)n);
}
