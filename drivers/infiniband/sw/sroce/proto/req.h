/* SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause */
/*
 * Requester-side arithmetic (IBTA vol 1 ch. 9.7): cutting a message into
 * packets at the path MTU (the responder counts READ response PSNs the
 * same way), checking where a READ response lands, the Local ACK Timeout,
 * and the congestion window over outstanding PSNs.
 */
#ifndef _SROCE_PROTO_REQ_H
#define _SROCE_PROTO_REQ_H

#include "compat.h"

/* One packet of a message. */
struct sroce_seg {
	uint32_t index;		/* packet number within the message */
	uint32_t len;		/* payload bytes */
	uint8_t pos;		/* enum sroce_pos */
};

/*
 * Large segments, a sroce extension (Documentation/wire.rst): between
 * sroce peers that agreed, SEND and WRITE packets carry as much as the
 * link's MTU holds, not the largest IB MTU below it.  A 1500-byte link
 * takes 1024 bytes of RoCE payload, 94.6 % of the frame; 1432 bytes
 * take 96.1 %, and each packet costs the same to send.  Set beside the
 * extension bit on responses: "I take such requests".
 */
#define SROCE_BTH_SEG_OK_BIT	0x08
#define SROCE_SEG_MAX		8192

/* Most a data request adds: BTH, XRCETH, RETH, ImmDt, ICRC. */
#define SROCE_SEG_HDR_MAX	40

bool sroce_seg_pmtu_ok(uint32_t pmtu);
bool sroce_seg_size_ok(uint32_t seg);
uint32_t sroce_seg_large(uint32_t link_mtu, bool ipv6);
uint32_t sroce_seg_npsn(uint64_t len, uint32_t seg);
int sroce_seg_at(uint64_t len, uint64_t off, uint32_t seg,
		 struct sroce_seg *s);
bool sroce_seg_read_resp_ok(uint64_t len, uint64_t off, uint32_t pmtu,
			    uint8_t pos, uint64_t payload_len);

uint64_t sroce_ack_timeout_ns(uint8_t code);

/*
 * Congestion window in PSNs outstanding, starting at init.  Halved (not
 * below min) once per loss episode: an episode lasts until every PSN
 * sent before it is acknowledged.  Grows by one PSN per grow_every PSNs
 * acknowledged, up to max, which also bounds the span from the oldest
 * unacknowledged PSN when the peer holds PSNs beyond a gap.
 */
struct sroce_cwnd {
	uint32_t cwnd;
	uint32_t min;
	uint32_t max;
	uint32_t grow_every;
	uint32_t acc;
	uint32_t recover;	/* PSN that ends the episode */
	bool recovering;
};

void sroce_cwnd_init(struct sroce_cwnd *c, uint32_t min, uint32_t init,
		     uint32_t max, uint32_t grow_every);
bool sroce_cwnd_allows(const struct sroce_cwnd *c, uint32_t una,
		       uint32_t psn_max, uint32_t psn, uint32_t npsn,
		       uint32_t sacked);
bool sroce_cwnd_loss(struct sroce_cwnd *c, uint32_t una, uint32_t psn_max);
void sroce_cwnd_acked(struct sroce_cwnd *c, uint32_t una, uint32_t n);

/*
 * Round-trip time estimate (RFC 6298's smoothed RTT and mean deviation),
 * in microseconds.  The caller feeds one sample per round trip and never
 * one from a packet that was sent twice (Karn), since its ACK could
 * answer either copy.  Each timeout doubles the RTO until the next
 * sample (RFC 6298 5.5): that is how an RTO shorter than the path's RTT
 * grows past it, so that a packet sent once can be timed at all.
 */
struct sroce_rtt {
	uint32_t srtt_us;
	uint32_t rttvar_us;
	uint8_t backoff;	/* timeouts since the last sample */
	bool valid;
};

/* At most 2^6 times the base RTO, and no more than 4 s in all. */
#define SROCE_RTO_BACKOFF_MAX		6
#define SROCE_RTO_BACKOFF_CAP_NS	4000000000ULL
/* The most the measured RTT may stretch the base RTO to. */
#define SROCE_RTO_RTT_MAX_NS		4000000000ULL

void sroce_rtt_sample(struct sroce_rtt *r, uint64_t sample_us);
void sroce_rtt_timeout(struct sroce_rtt *r);
uint64_t sroce_rtt_rto_us(const struct sroce_rtt *r);
uint64_t sroce_rto_ns(const struct sroce_rtt *r, uint64_t floor_ns);

#endif /* _SROCE_PROTO_REQ_H */
