// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * Requester arithmetic: segmentation, READ response placement, the Local
 * ACK Timeout and the congestion window.  Pure, so the edges (empty
 * messages, the last packet, 2 GiB, PSN wrap) are unit-tested.
 */
#include "req.h"
#include "wire.h"
#include "psn.h"

/* The IB MTUs: 256, 512, 1024, 2048, 4096. */
bool sroce_seg_pmtu_ok(uint32_t pmtu)
{
	return pmtu >= 256 && pmtu <= 4096 && !(pmtu & (pmtu - 1));
}

/*
 * A segment size: an IB MTU, or a large segment (req.h), which need not
 * be a power of two but keeps every packet but the last free of pad.
 */
bool sroce_seg_size_ok(uint32_t seg)
{
	return seg >= 256 && seg <= SROCE_SEG_MAX && !(seg & 3);
}

/*
 * The large segment a link of @link_mtu bytes (IP MTU) carries whole
 * with the most headers a data request has, or 0 if that is less than
 * the smallest IB MTU.
 */
uint32_t sroce_seg_large(uint32_t link_mtu, bool ipv6)
{
	uint32_t hdrs = (ipv6 ? 40 : 20) + 8 + SROCE_SEG_HDR_MAX;
	uint32_t seg;

	if (link_mtu < hdrs + 256)
		return 0;
	seg = (link_mtu - hdrs) & ~3u;
	return seg < SROCE_SEG_MAX ? seg : SROCE_SEG_MAX;
}

/*
 * PSNs a message of @len bytes takes at segment size @seg: its packets,
 * or its READ responses.  An empty message is still one packet.  0 for
 * a bad size.
 */
uint32_t sroce_seg_npsn(uint64_t len, uint32_t seg)
{
	uint64_t n;

	if (!sroce_seg_size_ok(seg))
		return 0;
	n = (len + seg - 1) / seg;
	if (n > 0xffffffffu)
		return 0;
	return n ? (uint32_t)n : 1;
}

/*
 * The packet that starts @off bytes into a @len-byte message: FIRST and
 * MIDDLE packets carry exactly @seg bytes, the LAST the rest, an ONLY
 * all of it.  -EINVAL if @off is not where a packet starts.
 */
int sroce_seg_at(uint64_t len, uint64_t off, uint32_t seg,
		 struct sroce_seg *s)
{
	uint64_t rest;
	bool first, last;

	if (!sroce_seg_size_ok(seg) || off % seg ||
	    (off && off >= len) || off / seg > 0xffffffffu)
		return -EINVAL;
	rest = len - off;
	first = !off;
	last = rest <= seg;
	s->index = (uint32_t)(off / seg);
	s->len = (uint32_t)(last ? rest : seg);
	if (first)
		s->pos = last ? SROCE_POS_ONLY : SROCE_POS_FIRST;
	else
		s->pos = last ? SROCE_POS_LAST : SROCE_POS_MIDDLE;
	return 0;
}

/*
 * May a READ response at position @pos carrying @payload_len bytes be
 * placed @off bytes into a @len-byte READ?  Only its length and whether
 * it ends the READ are checked: a READ resumed after a loss is answered
 * by a fresh FIRST in the middle of the original.
 */
bool sroce_seg_read_resp_ok(uint64_t len, uint64_t off, uint32_t pmtu,
			    uint8_t pos, uint64_t payload_len)
{
	bool last = pos == SROCE_POS_LAST || pos == SROCE_POS_ONLY;

	if (!sroce_seg_pmtu_ok(pmtu) || off > len || off % pmtu ||
	    payload_len > pmtu || payload_len > len - off)
		return false;
	if (last)
		return off + payload_len == len;
	return pos != SROCE_POS_NONE && payload_len == pmtu &&
	       off + payload_len < len;
}

/* 4.096 us * 2^code; 0 means "infinite" and is the caller's to handle. */
uint64_t sroce_ack_timeout_ns(uint8_t code)
{
	return (uint64_t)4096 << (code & 0x1f);
}

void sroce_cwnd_init(struct sroce_cwnd *c, uint32_t min, uint32_t init,
		     uint32_t max, uint32_t grow_every)
{
	c->min = min ? min : 1;
	c->max = max < c->min ? c->min : max;
	c->grow_every = grow_every ? grow_every : 1;
	c->cwnd = init < c->min ? c->min : init > c->max ? c->max : init;
	c->acc = 0;
	c->recover = 0;
	c->recovering = false;
}

/*
 * May PSNs [@psn, @psn + @npsn) go, with [@una, @psn_max) outstanding,
 * @sacked of them held by the peer beyond a gap (selective repeat)?
 * Those have left the path and do not count against the window; the
 * whole span from una still stays within max.  PSNs below psn_max were
 * counted when first sent (a resend); when nothing is outstanding
 * anything goes, so that a READ larger than the window is not stuck
 * forever.
 */
bool sroce_cwnd_allows(const struct sroce_cwnd *c, uint32_t una,
		       uint32_t psn_max, uint32_t psn, uint32_t npsn,
		       uint32_t sacked)
{
	uint32_t end = sroce_psn_add(psn, npsn), span;

	if (!sroce_psn_after(end, psn_max) || una == psn_max)
		return true;
	span = sroce_psn_sub(end, una);
	if (span > c->max)
		return false;
	return span - (sacked < span ? sacked : span) <= c->cwnd;
}

/* A loss: halve the window unless this episode was already counted. */
bool sroce_cwnd_loss(struct sroce_cwnd *c, uint32_t una, uint32_t psn_max)
{
	uint32_t half;

	if (c->recovering && sroce_psn_before(una, c->recover))
		return false;
	half = c->cwnd / 2;
	c->cwnd = half < c->min ? c->min : half;
	c->acc = 0;
	c->recovering = true;
	c->recover = psn_max;
	return true;
}

/* @n PSNs newly acknowledged, @una the new oldest unacknowledged PSN. */
void sroce_cwnd_acked(struct sroce_cwnd *c, uint32_t una, uint32_t n)
{
	uint64_t grown;

	if (c->recovering && !sroce_psn_before(una, c->recover))
		c->recovering = false;
	if (c->cwnd >= c->max) {
		c->acc = 0;
		return;
	}
	c->acc += n;
	grown = (uint64_t)c->cwnd + c->acc / c->grow_every;
	c->acc %= c->grow_every;
	c->cwnd = grown > c->max ? c->max : (uint32_t)grown;
}

/* Longer samples are clamped: a stall that long says nothing of the path. */
#define SROCE_RTT_SAMPLE_MAX_US	60000000U
/* The RTO's least margin over the smoothed RTT. */
#define SROCE_RTT_MARGIN_US	1000U

static uint32_t sroce_rtt_absdiff(uint32_t a, uint32_t b)
{
	return a > b ? a - b : b - a;
}

void sroce_rtt_sample(struct sroce_rtt *r, uint64_t sample_us)
{
	uint32_t s = sample_us > SROCE_RTT_SAMPLE_MAX_US ?
		     SROCE_RTT_SAMPLE_MAX_US : (uint32_t)sample_us;

	r->backoff = 0;
	if (!r->valid) {
		r->srtt_us = s;
		r->rttvar_us = s / 2;
		r->valid = true;
		return;
	}
	/* rttvar = 3/4 rttvar + 1/4 |srtt - s|; srtt = 7/8 srtt + 1/8 s. */
	r->rttvar_us = r->rttvar_us - r->rttvar_us / 4 +
		       sroce_rtt_absdiff(r->srtt_us, s) / 4;
	r->srtt_us = r->srtt_us - r->srtt_us / 8 + s / 8;
}

/*
 * srtt + max(4 rttvar, srtt / 2, 1 ms); 0 before the first sample.  The
 * half RTT is for a path whose samples agree closely: a scheduling stall
 * (a busy host, a VM whose CPU is taken away) is not in them, and would
 * otherwise fire the timer on a packet that is merely late.  TCP has its
 * 200 ms floor for the same reason.
 */
uint64_t sroce_rtt_rto_us(const struct sroce_rtt *r)
{
	uint64_t margin = (uint64_t)r->rttvar_us * 4;

	if (!r->valid)
		return 0;
	if (margin < r->srtt_us / 2)
		margin = r->srtt_us / 2;
	if (margin < SROCE_RTT_MARGIN_US)
		margin = SROCE_RTT_MARGIN_US;
	return r->srtt_us + margin;
}

/* A retransmit timeout fired: the next RTO is twice as long. */
void sroce_rtt_timeout(struct sroce_rtt *r)
{
	if (r->backoff < SROCE_RTO_BACKOFF_MAX)
		r->backoff++;
}

/*
 * The retransmit timeout: the estimate's RTO (at most 4 s of it), never
 * below @floor_ns (the QP's Local ACK Timeout), then backed off, up to
 * 4 s: a real loss after a stall must not wait for minutes.  A longer
 * Local ACK Timeout is the application's and stays as it is.
 */
uint64_t sroce_rto_ns(const struct sroce_rtt *r, uint64_t floor_ns)
{
	uint64_t rtt_ns = sroce_rtt_rto_us(r) * 1000;
	uint64_t base, backed;

	if (rtt_ns > SROCE_RTO_RTT_MAX_NS)
		rtt_ns = SROCE_RTO_RTT_MAX_NS;
	base = rtt_ns > floor_ns ? rtt_ns : floor_ns;
	if (base >= SROCE_RTO_BACKOFF_CAP_NS)
		return base;
	backed = base << r->backoff;
	return backed > SROCE_RTO_BACKOFF_CAP_NS ? SROCE_RTO_BACKOFF_CAP_NS :
						   backed;
}
