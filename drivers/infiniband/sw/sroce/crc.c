// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * The CRC32 behind the ICRC, the hottest loop after the copies: every
 * payload byte goes through it once on transmit and once on receive.
 *
 * lib's crc32_le() is table-driven on 6.1; the crypto API's "crc32"
 * shash resolves to crc32-pclmul on CPUs with PCLMULQDQ, several times
 * faster per byte.  Both keep the running CRC uninverted in a u32, the
 * semantics proto/icrc.c wants, so the shash is used when present and
 * agrees with crc32_le() on a test vector at load; otherwise crc32_le().
 */
#include <linux/crc32.h>
#include <crypto/hash.h>

#include "sroce.h"
#include "rc.h"

/* Below this the shash's call overhead is not worth it. */
#define SROCE_CRC_SHASH_MIN	64

static struct crypto_shash *sroce_crc_tfm;

static u32 sroce_crc32_shash(u32 crc, const void *p, size_t n)
{
	SHASH_DESC_ON_STACK(desc, sroce_crc_tfm);
	u32 *state = shash_desc_ctx(desc);

	desc->tfm = sroce_crc_tfm;
	*state = crc;
	if (crypto_shash_update(desc, p, n))
		return crc32_le(crc, p, n);	/* cannot fail for crc32 */
	return *state;
}

u32 sroce_crc32(u32 crc, const void *p, size_t n)
{
	if (n >= SROCE_CRC_SHASH_MIN && sroce_crc_tfm)
		return sroce_crc32_shash(crc, p, n);
	return crc32_le(crc, p, n);
}

/* The shash must compute exactly what crc32_le() does, seed included. */
static bool sroce_crc_agrees(void)
{
	u8 buf[256];
	int i;

	for (i = 0; i < sizeof(buf); i++)
		buf[i] = i * 7 + 3;
	return sroce_crc32_shash(0xdebb20e3, buf + 1, 201) ==
	       crc32_le(0xdebb20e3, buf + 1, 201);
}

void sroce_crc_init(void)
{
	struct crypto_shash *tfm = crypto_alloc_shash("crc32", 0, 0);

	if (IS_ERR(tfm)) {
		pr_info("sroce: no crc32 shash (%ld), using crc32_le\n",
			PTR_ERR(tfm));
		return;
	}
	sroce_crc_tfm = tfm;
	if (!sroce_crc_agrees()) {
		pr_warn("sroce: %s disagrees with crc32_le, not using it\n",
			crypto_shash_driver_name(tfm));
		sroce_crc_tfm = NULL;
		crypto_free_shash(tfm);
		return;
	}
	pr_debug("sroce: ICRC through %s\n", crypto_shash_driver_name(tfm));
}

void sroce_crc_exit(void)
{
	if (sroce_crc_tfm)
		crypto_free_shash(sroce_crc_tfm);
	sroce_crc_tfm = NULL;
}
