/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Per-port packet capture to pcapng: what a switch port received, what it
 * sent (the PFC frames and ARP/ND answers the switch builds itself
 * included: dpdk-dumpcap never sees MAC control frames), and optionally
 * why a received frame was dropped.
 *
 * Why our own pcapng writer, not rte_pcapng: rte_pcapng (22.11) has no
 * per-packet comment, names interfaces after DPDK ports, and converts TSC
 * timestamps itself.  Ours writes one interface per file named after the
 * switch port (if_name "p0"), nanosecond timestamps from the switch clock
 * (virtual in tests), epb_flags with the direction (inbound/outbound) and
 * an opt_comment "drop: <reason>" (names as in `show counters`) on dropped
 * frames; tshark shows them as frame.packet_flags_direction and
 * frame.comment.  At stop an interface statistics block carries the count
 * of copies the capture lost (isb_ifdrop).
 *
 * Files: a capture is written to a file NAMED in a directory the caller
 * gives (the daemon's --capture-dir), never to a path: the name is one
 * path component; the file is opened relative to the directory with
 * O_NOFOLLOW (a symbolic link is refused), O_NONBLOCK (a FIFO or device
 * cannot hold the control thread, which does the I/O) and O_CLOEXEC, and
 * kept only if fstat() says it is a regular file with no other hard link;
 * then it is truncated and made mode 0640 whatever it was.  It never grows
 * past max_bytes (default 1 GiB; the closing statistics block included),
 * and at most max_packets packets are written when that is set: at the
 * limit the port stops being copied, the rest is counted as past_limit,
 * and the file stays open (and valid) until aif_capture_stop.
 *
 * A capture wraps the port (port.h): while it runs, the port's ops are
 * the capture's, which call the port's own implementation (port->base)
 * and copy what passes.
 *
 * Protocol (who does what):
 *   control  aif_capture_start opens the file, writes the section header
 *            and interface blocks, fills the port's snaplen and drops flag,
 *            sets the port's bit in on_mask (and drops_mask), then puts the
 *            capture's ops in front of the port, with release stores.
 *            aif_capture_poll (every control-loop round, 10 ms) drains the
 *            per-shard rings into the files.  aif_capture_stop clears the
 *            bits, gives the port its own ops back, waits one runner step
 *            (rte_rcu_qsbr_synchronize: a step is a read-side critical
 *            section and the runner loads the ops inside it), drains,
 *            writes the statistics block and closes.  Only control does
 *            file I/O.
 *   runner   calls the port's ops once per burst.  A port without a
 *            capture pays nothing; with one whose bit is set, the wrapper
 *            copies every packet (rte_pktmbuf_copy, at most snaplen bytes)
 *            into the capture pool and enqueues {copy, now_ns, length,
 *            port, direction, drop reason} on the ring of the shard's
 *            queue.  It never blocks: a full ring or an empty pool skips
 *            the copy and counts it (skipped[port], runner-written,
 *            control-summed).
 *
 * What is captured on a port:
 *   rx  every frame as received, before the stages touch it.  The copies
 *       of a burst are enqueued when the burst is done (rx_done), so with
 *       drops on, the copy of a frame the switch dropped on receipt
 *       carries the reason.  Drops that happen later (in the egress
 *       queues, at dequeue, by the PFC watchdog) are not annotated: the
 *       frame was captured as received, without a comment.
 *   tx  what the port accepted (after tx_burst), in burst order.  Frames
 *       the NIC refused are not "sent": with drops on they are written as
 *       outbound with "drop: tx_full", else not at all.
 * Timestamps: the switch's clock (one for the process, virtual in tests);
 * at start control records wall clock (CLOCK_REALTIME) minus the clock's
 * now_ns, and adds it when writing.  A received frame has its burst's time,
 * a sent one its flush's.
 */
#ifndef AIF_CAPTURE_H
#define AIF_CAPTURE_H

#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>

#include <rte_branch_prediction.h>

#include "capacity.h"
#include "switch.h"
#include "types.h"

struct rte_mbuf;
struct rte_mempool;
struct rte_ring;

#define AIF_CAPTURE_SNAPLEN_MIN 64
#define AIF_CAPTURE_SNAPLEN_MAX 65535
#define AIF_CAPTURE_SNAPLEN_DEFAULT 65535
#define AIF_CAPTURE_RING_SIZE 4096  /* records per shard ring */
#define AIF_CAPTURE_POOL_SIZE 8191  /* copies in flight, all workers */
#define AIF_CAPTURE_NO_DROP 0xff    /* reason of a frame that was not dropped */
#define AIF_CAPTURE_PATH_MAX 512
#define AIF_CAPTURE_MAX_BYTES_DEFAULT (1ull << 30)
#define AIF_CAPTURE_FILE_MODE 0640
#define AIF_PCAPNG_ISB_BYTES 76     /* the statistics block written at stop */

/* epb_flags direction bits (pcapng). */
enum aif_capture_dir {
	AIF_CAPTURE_IN = 1,
	AIF_CAPTURE_OUT = 2,
};

/* One copy on its way from a runner to the file (24 bytes). */
struct aif_capture_rec {
	struct rte_mbuf *m;   /* the copy, from the capture pool */
	aif_time_ns ts_ns;    /* the burst's now_ns */
	uint32_t orig_len;    /* frame length on the wire (no FCS) */
	uint16_t port;        /* switch port */
	uint8_t dir;          /* enum aif_capture_dir */
	uint8_t reason;       /* enum aif_drop_reason, or AIF_CAPTURE_NO_DROP */
};

/* One shard's side (its queue on the ports): written by that shard's runner
 * only (skipped: read by control). */
struct aif_capture_wk {
	struct rte_ring *ring;              /* SP: the runner, SC: control */
	uint64_t skipped[AIF_MAX_PORTS];    /* copies lost: pool empty or ring full */
	/* the RX burst the switch is running on (rx_burst to rx_done) */
	uint16_t rx_port, rx_n;
	bool rx_active;
	struct rte_mbuf *rx_orig[AIF_BURST];
	struct aif_capture_rec rx_rec[AIF_BURST];
} __rte_cache_aligned;

/* What to capture and how much (aif_capture_start). */
struct aif_capture_params {
	uint32_t snaplen;         /* AIF_CAPTURE_SNAPLEN_MIN..MAX bytes per frame */
	bool drops;               /* annotate dropped frames */
	uint64_t max_bytes;       /* file size cap; 0: AIF_CAPTURE_MAX_BYTES_DEFAULT */
	uint64_t max_packets;     /* packets written at most; 0: no cap */
};

/* A port's capture: control only. */
struct aif_capture_port {
	FILE *f;                  /* NULL: not capturing */
	char path[AIF_CAPTURE_PATH_MAX]; /* dir/name, for show */
	uint32_t snaplen;
	bool drops;
	int write_errno;          /* first write error, 0 if none */
	uint64_t max_bytes, max_packets;
	uint64_t header_bytes;    /* section header and interface blocks */
	const char *limit;        /* NULL, "max_bytes" or "max_packets": reached */
	uint64_t past_limit;      /* copies not written: the limit was reached */
	uint64_t written, bytes;  /* packets written, their blocks' bytes */
	uint64_t drop_comments;   /* of those, frames written with a drop reason */
	uint64_t skipped_base;    /* sum of skipped[port] at start */
	uint64_t start_wall_ns;
	int64_t wall_off_ns;      /* wall clock - the switch's clock, at start */
};

struct aif_capture {
	uint64_t on_mask;       /* ports capturing (control stores, workers load) */
	uint64_t drops_mask;    /* of those, ports that annotate drops */
	uint32_t snaplen[AIF_MAX_PORTS]; /* set before the port's bit goes on */
	struct rte_mempool *pool;
	uint64_t orphans;       /* records for a port with no file (control) */
	struct aif_capture_wk wk[AIF_MAX_SHARDS];
	struct aif_capture_port port[AIF_MAX_PORTS];
};

/* What a capture did: for capture_stop and show_captures. */
struct aif_capture_info {
	char path[AIF_CAPTURE_PATH_MAX];
	uint32_t snaplen;
	bool drops;
	uint64_t max_bytes, max_packets; /* max_packets 0: none */
	const char *limit;        /* NULL, or the limit reached: "max_bytes", "max_packets" */
	uint64_t past_limit;      /* copies dropped because of it */
	uint64_t written, bytes, drop_comments, skipped;
	double seconds;
	int write_errno;
};

/* ---- control side ---- */

/*
 * Start capturing port of sw into the file name in directory dir (opened
 * and checked as above: name is one path component, not "." or ".."), at
 * now_ns of the clock the runners stamp bursts with.
 * Creates the capture pool and rings on first use.  Returns 0, or -1 with
 * a reason in err (port capturing already, bad snaplen or limit, file).
 *
 *	struct aif_capture_params cp = { .snaplen = 256, .drops = true };
 *	if (aif_capture_start(sw, 0, "/run/aifabric/captures", "p0.pcapng", &cp,
 *			      err, sizeof(err)))
 *		puts(err);
 */
int aif_capture_start(struct aif_switch *sw, uint16_t port, const char *dir,
		      const char *name, const struct aif_capture_params *params,
		      aif_time_ns now_ns, char *err, size_t err_len);

/* Stop port's capture: drain, write statistics, close; info may be NULL. */
int aif_capture_stop(struct aif_switch *sw, uint16_t port,
		     struct aif_capture_info *info, char *err, size_t err_len);

/* Is port capturing?  If so, fill info (may be NULL). */
bool aif_capture_get(const struct aif_switch *sw, uint16_t port,
		     struct aif_capture_info *info);

/* Control loop: write what the workers copied; returns records drained. */
unsigned aif_capture_poll(struct aif_switch *sw);

/* Stop every capture and free the capture state (switch teardown). */
void aif_capture_free(struct aif_switch *sw);

/* ---- pcapng writer (no EAL needed) ---- */

#define AIF_PCAPNG_LINKTYPE_ETHERNET 1

/* Section header block. */
int aif_pcapng_write_shb(FILE *f, const char *hardware, const char *os,
			 const char *app);
/* Interface description block (if_tsresol 9: timestamps in ns). */
int aif_pcapng_write_idb(FILE *f, uint16_t linktype, uint32_t snaplen,
			 const char *if_name, const char *if_description);
/* Bytes an enhanced packet block of cap_len bytes with dir and comment takes. */
uint32_t aif_pcapng_epb_bytes(uint32_t cap_len, uint32_t dir, const char *comment);
/*
 * Enhanced packet block on interface if_id: cap_len bytes of a frame of
 * orig_len, epb_flags = dir (enum aif_capture_dir, 0: unknown), comment
 * (may be NULL).  Returns the bytes written, or -1 (errno set).
 */
long aif_pcapng_write_epb(FILE *f, uint32_t if_id, uint64_t ts_ns,
			  const void *data, uint32_t cap_len, uint32_t orig_len,
			  uint32_t dir, const char *comment);
/* Interface statistics block: isb_starttime/endtime, ifrecv, ifdrop. */
int aif_pcapng_write_isb(FILE *f, uint32_t if_id, uint64_t ts_ns,
			 uint64_t start_ns, uint64_t end_ns, uint64_t ifrecv,
			 uint64_t ifdrop);

#endif /* AIF_CAPTURE_H */
