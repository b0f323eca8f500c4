/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * A port whose far side is a pair of pcap files, or a traffic generator and
 * a pcap file: the edge port of a fabric run in virtual time.  A port implementation (port.h) beside the DPDK
 * port and the emulated link end.
 *
 * Receive: the frames of the input file (classic pcap, microsecond or
 * nanosecond timestamps, Ethernet link type), in file order, as a host NIC
 * would send them: frame i starts at
 *	start_ns + (its timestamp - the first frame's timestamp)
 * or when the wire is free of the frame before, or when its priority's
 * pause ends, whichever is last, and arrives when its last bit does (the
 * port's rate, link.h's overhead).  The host honours the PFC and PAUSE
 * frames the switch sends it: a frame's priority is the switch's PG for
 * it (prio_of_dscp[] by DSCP, or prio_of_pcp[] by the 802.1Q PCP with
 * trust_pcp, as a RoCE NIC's DSCP-to-priority map); the file is one queue,
 * so a paused frame holds the frames behind it.  The file is read one
 * frame ahead, so rx_next_ns says when the next one arrives and a loop in
 * virtual time jumps to it.  Frames captured shorter than they were
 * (snaplen) are skipped and counted; a frame with no mbuf free when it
 * arrives is dropped and counted, as a NIC does.
 *
 * Send: the port serializes at its rate as an emulated link does
 * (link.h: 24 bytes of overhead per frame, 60-byte minimum), one frame at
 * a time: it takes a frame only when its wire is free (else backpressure),
 * and writes it to the output file (nanosecond pcap) stamped with the time
 * its last bit left.  MAC control frames (PFC) go at the next frame
 * boundary and are written too, so the output shows the pauses the switch
 * sent to the host.
 *
 *	struct aif_pcap_port *pp = aif_pcap_port_open(&(struct aif_pcap_port_params){
 *		.in_path = "in.pcap", .out_path = "out.pcap", .rate_bps = 100e9 },
 *		pool, err, sizeof(err));
 *	aif_pcap_port_attach(pp, &sw->ports[0]);
 *	... run ...
 *	aif_pcap_port_close(pp);   // flushes the output, frees the frame read ahead
 *
 * Single runner: the port is driven by the runner of its switch only.
 */
#ifndef AIF_PCAP_PORT_H
#define AIF_PCAP_PORT_H

#include <stddef.h>
#include <stdbool.h>
#include <stdint.h>

#include "port.h"
#include "types.h"

struct rte_mempool;

/*
 * A traffic generator instead of an input file: the host sends frames of
 * frame_len bytes (Ethernet/IPv4/UDP 4791/BTH RC SEND_ONLY, DSCP dscp with
 * ECT(0), valid ICRC: roce.h) with exponential gaps at load x the port rate
 * (Poisson), each on one of n_flows flows picked at random per frame, a flow
 * being a destination from dst_ip[] and a UDP source port, all drawn from
 * seed at the start.  No frame starts at or after stop_ns.  Frames go from
 * src_mac/src_ip to dst_mac (the switch port's).
 */
struct aif_pcap_gen {
	double load;            /* (0, 1] */
	uint16_t frame_len;     /* 64 .. 9000 */
	uint8_t dscp;
	uint16_t n_flows;       /* 1 .. 4096 */
	uint64_t seed;
	aif_time_ns stop_ns;
	struct aif_mac src_mac, dst_mac;
	uint32_t src_ip;        /* host order */
	const uint32_t *dst_ip; /* host order, n_dst of them (copied) */
	uint32_t n_dst;
	bool light;             /* frames as headers, ICRC and a length (frame.h) */
};

struct aif_pcap_port_params {
	const char *in_path;   /* NULL: receives nothing (or gen) */
	const struct aif_pcap_gen *gen; /* a generator instead of in_path */
	const char *out_path;  /* NULL: what it sends is counted and freed */
	uint64_t rate_bps;     /* 1 .. AIF_LINK_RATE_MAX_BPS */
	aif_time_ns start_ns;  /* when the input's first frame starts */
	uint8_t trust_pcp;     /* priority from the PCP of tagged frames */
	uint8_t prio_of_dscp[64]; /* the priority (PG) of a frame by DSCP */
	uint8_t prio_of_pcp[8];
};

#define AIF_FOREACH_PCAP_PORT_CTR(_)                                          \
	_(rx_packets, "frames read from the input and received")              \
	_(rx_bytes, "their bytes")                                            \
	_(rx_truncated, "input frames captured shorter than they were: skipped") \
	_(rx_nombuf, "input frames dropped: no mbuf")                         \
	_(rx_reordered, "input timestamps earlier than the one before")        \
	_(rx_paused_ns, "time input frames waited for a pause to end")         \
	_(rx_pfc, "PFC/PAUSE frames from the switch that paused (XOFF)")      \
	_(rx_xon, "PFC frames from the switch that resumed (XON)")            \
	_(tx_packets, "frames sent (written to the output)")                  \
	_(tx_bytes, "their bytes")                                            \
	_(tx_ctrl, "of those, MAC control frames (PFC)")                      \
	_(busy_ps, "wire time used, picoseconds")                             \
	_(refused, "frames refused: wire busy (backpressure)")                \
	_(write_errors, "frames that could not be written")

struct aif_pcap_port_ctr {
#define AIF_PCAP_PORT_CTR_FIELD(name, text) uint64_t name;
	AIF_FOREACH_PCAP_PORT_CTR(AIF_PCAP_PORT_CTR_FIELD)
#undef AIF_PCAP_PORT_CTR_FIELD
};

struct aif_pcap_port;

extern const struct aif_port_ops aif_port_pcap_ops;

/* Open the files (the input's header checked, its first frame read);
 * NULL with err naming the file and the reason. */
struct aif_pcap_port *aif_pcap_port_open(const struct aif_pcap_port_params *p,
					 struct rte_mempool *pool, char *err, size_t err_len);
/* Make port this pcap port: its ops become aif_port_pcap_ops. */
void aif_pcap_port_attach(struct aif_pcap_port *pp, struct aif_port *port);
/* Its counters. */
const struct aif_pcap_port_ctr *aif_pcap_port_ctr(const struct aif_pcap_port *pp);
/* Input exhausted and nothing read ahead. */
int aif_pcap_port_rx_done(const struct aif_pcap_port *pp);
/* Flush and close; 0, or -1 if the output could not be written in full. */
int aif_pcap_port_close(struct aif_pcap_port *pp);

#endif /* AIF_PCAP_PORT_H */
