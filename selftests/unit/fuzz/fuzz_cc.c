// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * The WAN model fed whatever acknowledgements the network and a clock
 * can produce, 20 bytes a sample: whatever comes, the window stays in
 * its bounds and nothing divides by zero or overflows (UBSan).
 */
#include <assert.h>
#include "cc.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct sroce_rate_sample rs = { 0 };
	struct sroce_wan w;
	uint64_t now = 0;
	size_t i;

	sroce_wan_init(&w, 16, 1024, 8192, 0);
	for (i = 0; i + 20 <= size; i += 20) {
		const uint8_t *p = data + i;
		uint32_t acked = sroce_be_load16(p) & 0x3fff;

		now += sroce_be_load32(p + 2);
		rs.prior_delivered = rs.delivered -
				     (sroce_be_load16(p + 6) % (rs.delivered + 1));
		rs.delivered += acked;
		rs.acked = acked;
		rs.interval_ns = sroce_be_load32(p + 8) * (uint64_t)p[12];
		rs.rtt_ns = sroce_be_load32(p + 13) * (uint64_t)(p[17] & 0xf);
		rs.inflight = sroce_be_load16(p + 18);
		rs.app_limited = p[17] & 0x80;
		rs.late = p[17] & 0x40;
		sroce_wan_ack(&w, &rs, now);
		assert(w.cwnd >= 16 && w.cwnd <= 8192);
		assert(w.state <= SROCE_WAN_PROBE_RTT && w.cycle < SROCE_WAN_CYCLE);
		(void)sroce_wan_pacing_pps(&w);
		(void)sroce_wan_bdp(&w);
	}
	return 0;
}
