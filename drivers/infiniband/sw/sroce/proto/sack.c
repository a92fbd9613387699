// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * Selective acknowledgement blocks: built by the responder from its
 * out-of-order queue, checked and read by the requester (sack.h).
 */
#include "sack.h"
#include "psn.h"

void sroce_sack_init(struct sroce_sack *s)
{
	memset(s, 0, sizeof(*s));
}

/*
 * Add PSNs [@psn, @psn + @npsn), which must lie after every PSN added
 * before: they extend the last block when they follow it directly.
 * False (nothing added) when that would need a block beyond the last,
 * or the range is empty or out of order.
 */
bool sroce_sack_add(struct sroce_sack *s, uint32_t psn, uint32_t npsn)
{
	struct sroce_sack_block *b;
	uint32_t end;

	if (!npsn || npsn >= SROCE_PSN_HALF || psn > SROCE_PSN_MASK)
		return false;
	if (s->n) {
		b = &s->blk[s->n - 1];
		end = sroce_psn_add(b->start, b->len);
		if (sroce_psn_before(psn, end))
			return false;
		if (psn == end) {
			if (b->len + npsn >= SROCE_PSN_HALF)
				return false;
			b->len += npsn;
			return true;
		}
	}
	if (s->n == SROCE_SACK_BLOCKS_MAX)
		return false;
	s->blk[s->n].start = psn;
	s->blk[s->n].len = npsn;
	s->n++;
	return true;
}

size_t sroce_sack_bytes(const struct sroce_sack *s)
{
	return s->n ? SROCE_SACK_HDR_BYTES +
		      (size_t)s->n * SROCE_SACK_BLOCK_BYTES : 0;
}

/* Write @s at @buf; the bytes written, or 0 if empty or @cap is short. */
size_t sroce_sack_put(uint8_t *buf, size_t cap, const struct sroce_sack *s)
{
	size_t n = sroce_sack_bytes(s);
	uint8_t *p = buf + SROCE_SACK_HDR_BYTES;
	unsigned int i;

	if (!n || n > cap || s->n > SROCE_SACK_BLOCKS_MAX)
		return 0;
	buf[0] = SROCE_EXT_SACK;
	buf[1] = s->n;
	buf[2] = 0;
	buf[3] = 0;
	for (i = 0; i < s->n; i++, p += SROCE_SACK_BLOCK_BYTES) {
		sroce_be_store32(p, s->blk[i].start & SROCE_PSN_MASK);
		sroce_be_store32(p + 4, s->blk[i].len);
	}
	return n;
}

/*
 * Read the block of @len bytes after an ACK for @ack_psn.  It is from
 * the network: every block must lie after the ACK's PSN, ascend, not
 * touch the one before, and stay inside half the PSN space from the
 * ACK.  0, or -EINVAL with @s empty.
 */
int sroce_sack_get(const uint8_t *buf, size_t len, uint32_t ack_psn,
		   struct sroce_sack *s)
{
	uint32_t floor = sroce_psn_add(ack_psn, 1), start, n;
	const uint8_t *p = buf + SROCE_SACK_HDR_BYTES;
	unsigned int i;

	sroce_sack_init(s);
	if (len < SROCE_SACK_HDR_BYTES || buf[0] != SROCE_EXT_SACK)
		return -EINVAL;
	n = buf[1];
	if (!n || n > SROCE_SACK_BLOCKS_MAX ||
	    len != SROCE_SACK_HDR_BYTES + n * SROCE_SACK_BLOCK_BYTES)
		return -EINVAL;
	for (i = 0; i < n; i++, p += SROCE_SACK_BLOCK_BYTES) {
		start = sroce_be_load32(p);
		s->blk[i].start = start;
		s->blk[i].len = sroce_be_load32(p + 4);
		/* After the gap that made it: strictly beyond floor. */
		if (start > SROCE_PSN_MASK || !s->blk[i].len ||
		    !sroce_psn_after(start, floor) ||
		    sroce_psn_sub(start, ack_psn) >= SROCE_PSN_HALF ||
		    s->blk[i].len >= SROCE_PSN_HALF -
				     sroce_psn_sub(start, ack_psn))
			goto bad;
		floor = sroce_psn_add(start, s->blk[i].len);
	}
	s->n = n;
	return 0;
bad:
	sroce_sack_init(s);
	return -EINVAL;
}

/* Is every PSN of [@psn, @psn + @npsn) inside one block? */
bool sroce_sack_covers(const struct sroce_sack *s, uint32_t psn,
		       uint32_t npsn)
{
	unsigned int i;

	for (i = 0; i < s->n; i++) {
		uint32_t off = sroce_psn_sub(psn, s->blk[i].start);

		if (off < s->blk[i].len && npsn <= s->blk[i].len - off)
			return true;
	}
	return false;
}

/* One past the highest PSN held; meaningless when @s is empty. */
uint32_t sroce_sack_end(const struct sroce_sack *s)
{
	const struct sroce_sack_block *b = &s->blk[s->n ? s->n - 1 : 0];

	return sroce_psn_add(b->start, b->len);
}

void sroce_sack_map_init(struct sroce_sack_map *m)
{
	memset(m, 0, sizeof(*m));
}

/* PSNs up to and including @epsn are no longer beyond a gap: forget. */
static void sroce_sack_map_trim(struct sroce_sack_map *m, uint32_t epsn)
{
	uint32_t floor = sroce_psn_add(epsn, 1), i = 0, end;

	while (i < m->n) {
		struct sroce_sack_range *r = &m->r[i];

		end = sroce_psn_add(r->start, r->len);
		if (!sroce_psn_before(r->start, floor))
			break;
		if (sroce_psn_after(end, floor)) {
			r->len = sroce_psn_sub(end, floor);
			r->start = floor;
			break;
		}
		i++;
	}
	if (!i)
		return;
	m->n -= i;
	memmove(m->r, m->r + i, m->n * sizeof(m->r[0]));
}

/*
 * PSNs [@psn, @psn + @npsn) are held, all after @epsn and within half the
 * PSN space of it.  They join every range they overlap or touch.  False,
 * the map unchanged, if the range is bad or would need a 65th range.
 */
bool sroce_sack_map_add(struct sroce_sack_map *m, uint32_t epsn,
			uint32_t psn, uint32_t npsn)
{
	uint32_t a = sroce_psn_sub(psn, epsn), b, i, j, s, e;

	if (psn > SROCE_PSN_MASK || !npsn || !a || a >= SROCE_PSN_HALF ||
	    npsn >= SROCE_PSN_HALF - a)
		return false;
	sroce_sack_map_trim(m, epsn);
	b = a + npsn;
	/* The first range that ends at or after the new one begins. */
	for (i = 0; i < m->n; i++)
		if (sroce_psn_sub(m->r[i].start, epsn) + m->r[i].len >= a)
			break;
	/* Those it overlaps or touches: [i, j). */
	for (j = i; j < m->n; j++)
		if (sroce_psn_sub(m->r[j].start, epsn) > b)
			break;
	if (i == j) {
		if (m->n == SROCE_SACK_MAP_MAX)
			return false;
		memmove(m->r + i + 1, m->r + i, (m->n - i) * sizeof(m->r[0]));
		m->n++;
		m->r[i].start = psn;
		m->r[i].len = npsn;
		m->r[i].dirty = true;
		return true;
	}
	s = sroce_psn_sub(m->r[i].start, epsn);
	e = sroce_psn_sub(m->r[j - 1].start, epsn) + m->r[j - 1].len;
	s = s < a ? s : a;
	e = e > b ? e : b;
	m->r[i].start = sroce_psn_add(epsn, s);
	m->r[i].len = e - s;
	m->r[i].dirty = true;
	memmove(m->r + i + 1, m->r + j, (m->n - j) * sizeof(m->r[0]));
	m->n -= j - i - 1;
	return true;
}

/* The rotation's first candidate: the lowest range at or after turn. */
static uint32_t sroce_sack_map_from(const struct sroce_sack_map *m,
				    uint32_t epsn)
{
	uint32_t t = sroce_psn_sub(m->turn, epsn), i;

	if (t >= SROCE_PSN_HALF)
		return 0;
	for (i = 0; i < m->n; i++)
		if (sroce_psn_sub(m->r[i].start, epsn) >= t)
			return i;
	return 0;
}

/* Choose the blocks of the next SACK (see struct sroce_sack_map). */
void sroce_sack_map_pick(struct sroce_sack_map *m, uint32_t epsn,
			 struct sroce_sack *s)
{
	bool take[SROCE_SACK_MAP_MAX] = { false };
	uint32_t k = 1, i, at, step, rest;

	sroce_sack_init(s);
	sroce_sack_map_trim(m, epsn);
	if (!m->n)
		return;
	rest = m->n - 1;
	take[rest] = true;
	for (i = 0; i < rest && k < SROCE_SACK_BLOCKS_MAX; i++)
		if (m->r[i].dirty) {
			take[i] = true;
			k++;
		}
	at = sroce_sack_map_from(m, epsn);
	if (at >= rest)
		at = 0;
	for (step = 0; step < rest && k < SROCE_SACK_BLOCKS_MAX; step++) {
		if (!take[at]) {
			take[at] = true;
			k++;
		}
		at = at + 1 < rest ? at + 1 : 0;
	}
	if (rest)
		m->turn = m->r[at].start;
	for (i = 0; i < m->n; i++) {
		if (!take[i])
			continue;
		m->r[i].dirty = false;
		sroce_sack_add(s, m->r[i].start, m->r[i].len);
	}
}

bool sroce_rack_lost(uint64_t now, uint64_t xmit, uint64_t rack_xmit,
		     uint64_t rack_rtt, uint64_t reo_wnd)
{
	if (xmit >= rack_xmit || now < xmit)
		return false;
	return now - xmit >= rack_rtt + reo_wnd;
}

uint64_t sroce_rack_rtt(uint64_t now, uint64_t xmit, bool resent,
			uint64_t min_rtt)
{
	uint64_t rtt;

	if (now <= xmit)
		return 0;
	rtt = now - xmit;
	if (resent && (!min_rtt || rtt < min_rtt))
		return 0;
	return rtt;
}

uint64_t sroce_tlp_pto_us(uint32_t srtt_us, bool valid, bool single,
			  uint64_t floor_us)
{
	uint64_t pto;

	if (!valid)
		return 0;
	pto = 2 * (uint64_t)srtt_us;
	if (single)
		pto += srtt_us;
	return pto < floor_us ? floor_us : pto;
}
