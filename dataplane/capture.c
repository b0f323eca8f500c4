/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Per-port packet capture (protocol and what is captured: capture.h).
 *
 * Three parts: the worker side (copy and enqueue, never blocks, never does
 * I/O), the control side (start, drain to files, stop), and a small pcapng
 * writer that needs no EAL (tests/unit/test_capture.c reads its output
 * back).  pcapng: https://datatracker.ietf.org/doc/draft-ietf-opsawg-pcapng/
 */
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include <rte_errno.h>
#include <rte_malloc.h>
#include <rte_mbuf.h>
#include <rte_mempool.h>
#include <rte_rcu_qsbr.h>
#include <rte_ring.h>
#include <rte_ring_elem.h>

#include "capture.h"
#include "drop.h"
#include "frame.h"

#define DRAIN_BURST 64

/* ------------------------------------------------------------------ */
/* Worker side                                                         */

/* Enqueue n records; what the ring does not take is freed and counted. */
static inline void
enqueue(struct aif_capture_wk *k, struct aif_capture_rec *r, unsigned n)
{
	unsigned done = n ? rte_ring_enqueue_burst_elem(k->ring, r, sizeof(*r), n, NULL) : 0;

	for (unsigned i = done; i < n; i++) {
		k->skipped[r[i].port]++;
		rte_pktmbuf_free(r[i].m);
	}
}

/* A copy of m for the file, or NULL (counted) when the pool is empty. */
static inline struct rte_mbuf *
copy(const struct aif_capture *c, struct aif_capture_wk *k,
     const struct rte_mbuf *m, uint16_t port)
{
	struct rte_mbuf *cp = aif_frame_copy(m, c->pool, c->snaplen[port]);

	if (unlikely(cp == NULL))
		k->skipped[port]++;
	return cp;
}

/* The capture of port p, if p's bit is on (one load per burst). */
static inline struct aif_capture *
capturing(const struct aif_port *p)
{
	struct aif_capture *c = p->wrap;
	return c != NULL && ((__atomic_load_n(&c->on_mask, __ATOMIC_ACQUIRE) >> p->index) & 1)
		? c : NULL;
}

/* rx_burst: the wrapped port's, then a copy of each frame, kept until the
 * burst is done (cap_rx_done) so that a drop can be written with it. */
static uint16_t
cap_rx(struct aif_port *port, uint16_t queue, struct rte_mbuf **pkts, uint16_t n,
       aif_time_ns now_ns)
{
	n = port->base->rx_burst(port, queue, pkts, n, now_ns);
	struct aif_capture *c = n ? capturing(port) : NULL;
	if (c == NULL)
		return n;
	struct aif_capture_wk *k = &c->wk[queue];
	uint16_t m = 0;

	for (uint16_t i = 0; i < n; i++) {
		struct rte_mbuf *cp = copy(c, k, pkts[i], port->index);
		if (cp == NULL)
			continue;
		k->rx_orig[m] = pkts[i];
		k->rx_rec[m++] = (struct aif_capture_rec){
			.m = cp, .ts_ns = now_ns, .orig_len = rte_pktmbuf_pkt_len(pkts[i]),
			.port = port->index, .dir = AIF_CAPTURE_IN,
			.reason = AIF_CAPTURE_NO_DROP,
		};
	}
	k->rx_port = port->index;
	k->rx_n = m;
	k->rx_active = true;
	return n;
}

/* rx_done: annotate the copies of the frames the switch dropped (drops
 * on), stamp them with the burst's time, enqueue them; free the drops. */
static void
cap_rx_done(struct aif_port *port, uint16_t queue, struct rte_mbuf **dropped,
	    const uint8_t *reasons, uint16_t n, aif_time_ns now_ns)
{
	struct aif_capture *c = port->wrap;
	struct aif_capture_wk *k = c != NULL ? &c->wk[queue] : NULL;

	if (k != NULL && k->rx_active && k->rx_port == port->index) {
		bool drops = (__atomic_load_n(&c->drops_mask, __ATOMIC_ACQUIRE) >>
			      port->index) & 1;
		/* at most 32 x 32 compares */
		for (uint16_t i = 0; drops && i < n; i++)
			for (uint16_t j = 0; j < k->rx_n; j++)
				if (k->rx_orig[j] == dropped[i]) {
					k->rx_rec[j].reason = reasons[i];
					break;
				}
		for (uint16_t j = 0; j < k->rx_n; j++)
			k->rx_rec[j].ts_ns = now_ns;
		k->rx_active = false;
		enqueue(k, k->rx_rec, k->rx_n);
	}
	if (n)
		rte_pktmbuf_free_bulk(dropped, n);
}

/* tx_burst: copy, send through the wrapped port, enqueue the copies of what
 * it took (and with drops on, those it refused, as "tx_full"). */
static uint16_t
cap_tx(struct aif_port *port, uint16_t queue, struct rte_mbuf **pkts, uint16_t n,
       aif_time_ns now_ns)
{
	struct aif_capture *c = capturing(port);
	if (c == NULL)
		return port->base->tx_burst(port, queue, pkts, n, now_ns);
	struct aif_capture_wk *k = &c->wk[queue];
	struct aif_capture_rec rec[AIF_BURST];
	uint16_t p = port->index;
	bool drops = (__atomic_load_n(&c->drops_mask, __ATOMIC_ACQUIRE) >> p) & 1;
	uint16_t sent, m = 0;

	n = RTE_MIN(n, (uint16_t)AIF_BURST);
	/* copy first: once sent, a frame belongs to the driver */
	for (uint16_t i = 0; i < n; i++)
		rec[i] = (struct aif_capture_rec){
			.m = copy(c, k, pkts[i], p), .ts_ns = now_ns,
			.orig_len = rte_pktmbuf_pkt_len(pkts[i]), .port = p,
			.dir = AIF_CAPTURE_OUT, .reason = AIF_CAPTURE_NO_DROP,
		};
	sent = port->base->tx_burst(port, queue, pkts, n, now_ns);
	for (uint16_t i = 0; i < n; i++) {
		if (rec[i].m == NULL)
			continue;
		if (unlikely(i >= sent)) {
			if (!drops) {
				rte_pktmbuf_free(rec[i].m);
				continue;
			}
			rec[i].reason = AIF_DROP_TX_FULL;
		}
		rec[m++] = rec[i];
	}
	enqueue(k, rec, m);
	return sent;
}

/* tx_ctrl: a MAC control frame the port took is written as sent. */
static uint16_t
cap_tx_ctrl(struct aif_port *port, uint16_t queue, struct rte_mbuf *m, aif_time_ns now_ns)
{
	struct aif_capture *c = capturing(port);
	if (c == NULL)
		return port->base->tx_ctrl(port, queue, m, now_ns);
	struct aif_capture_wk *k = &c->wk[queue];
	struct aif_capture_rec rec = {
		.m = copy(c, k, m, port->index), .ts_ns = now_ns,
		.orig_len = rte_pktmbuf_pkt_len(m), .port = port->index,
		.dir = AIF_CAPTURE_OUT, .reason = AIF_CAPTURE_NO_DROP,
	};
	uint16_t sent = port->base->tx_ctrl(port, queue, m, now_ns);
	if (rec.m == NULL)
		return sent;
	if (sent == 0 && !((__atomic_load_n(&c->drops_mask, __ATOMIC_ACQUIRE) >>
			    port->index) & 1)) {
		rte_pktmbuf_free(rec.m);
		return sent;
	}
	if (sent == 0)
		rec.reason = AIF_DROP_TX_FULL;
	enqueue(k, &rec, 1);
	return sent;
}

static aif_time_ns
cap_rx_next_ns(struct aif_port *port, uint16_t queue)
{
	return port->base->rx_next_ns ? port->base->rx_next_ns(port, queue) : AIF_TIME_NS_NEVER;
}

static aif_time_ns
cap_tx_ready_ns(struct aif_port *port, uint16_t queue, aif_time_ns now_ns)
{
	return aif_port_tx_ready_ns(port, port->base, queue, now_ns);
}

/* In front of a port that paces its transmit (an emulated link) and of one
 * that does not: a capture must not change how the port is served. */
static const struct aif_port_ops capture_paced_ops = {
	.kind = "capture", .rx_burst = cap_rx, .tx_burst = cap_tx, .tx_ctrl = cap_tx_ctrl,
	.rx_next_ns = cap_rx_next_ns, .tx_ready_ns = cap_tx_ready_ns, .rx_done = cap_rx_done,
};
static const struct aif_port_ops capture_ops = {
	.kind = "capture", .rx_burst = cap_rx, .tx_burst = cap_tx, .tx_ctrl = cap_tx_ctrl,
	.rx_done = cap_rx_done,
};

/* ------------------------------------------------------------------ */
/* Control side                                                        */

static uint64_t
wall_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_REALTIME, &ts);
	return (uint64_t)ts.tv_sec * AIF_NS_PER_S + (uint64_t)ts.tv_nsec;
}

static uint64_t
skipped_sum(const struct aif_capture *c, uint16_t port)
{
	uint64_t s = 0;

	for (unsigned w = 0; w < AIF_MAX_SHARDS; w++)
		s += __atomic_load_n(&c->wk[w].skipped[port], __ATOMIC_RELAXED);
	return s;
}

static struct aif_capture *
capture_create(struct aif_switch *sw, char *err, size_t err_len)
{
	char name[RTE_RING_NAMESIZE];
	struct aif_capture *c;

	c = rte_zmalloc("aif_capture", sizeof(*c), RTE_CACHE_LINE_SIZE);
	if (c == NULL) {
		snprintf(err, err_len, "cannot allocate the capture state");
		return NULL;
	}
	snprintf(name, sizeof(name), "aif_cap_%u", sw->index);
	c->pool = rte_pktmbuf_pool_create(name, AIF_CAPTURE_POOL_SIZE, 64, 0,
					  RTE_MBUF_DEFAULT_BUF_SIZE, SOCKET_ID_ANY);
	if (c->pool == NULL) {
		snprintf(err, err_len, "cannot create the capture pool: %s",
			 rte_strerror(rte_errno));
		goto err;
	}
	for (uint16_t w = 0; w < sw->n_shards; w++) {
		snprintf(name, sizeof(name), "aif_cap_%u_%u", sw->index, w);
		c->wk[w].ring = rte_ring_create_elem(name, sizeof(struct aif_capture_rec),
						     AIF_CAPTURE_RING_SIZE, SOCKET_ID_ANY,
						     RING_F_SP_ENQ | RING_F_SC_DEQ);
		if (c->wk[w].ring == NULL) {
			snprintf(err, err_len, "cannot create capture ring %s: %s", name,
				 rte_strerror(rte_errno));
			goto err;
		}
	}
	return c;
err:
	for (uint16_t w = 0; w < AIF_MAX_SHARDS; w++)
		rte_ring_free(c->wk[w].ring);
	rte_mempool_free(c->pool);
	rte_free(c);
	return NULL;
}

/* The port's limit is reached: write nothing more, and stop the copies
 * (workers see the bits clear at their next step; what they still copy is
 * counted as past the limit). */
static void
limit_reached(struct aif_capture *c, uint16_t port, const char *which)
{
	c->port[port].limit = which;
	__atomic_fetch_and(&c->on_mask, ~(1ull << port), __ATOMIC_RELEASE);
	__atomic_fetch_and(&c->drops_mask, ~(1ull << port), __ATOMIC_RELEASE);
}

/* Write one record to its port's file and free the copy. */
static void
write_rec(struct aif_capture *c, const struct aif_capture_rec *r)
{
	static uint8_t lin[AIF_CAPTURE_SNAPLEN_MAX]; /* control thread only */
	struct aif_capture_port *cp = r->port < AIF_MAX_PORTS ? &c->port[r->port] : NULL;
	char comment[64];

	if (cp == NULL || cp->f == NULL) {
		c->orphans++;
		rte_pktmbuf_free(r->m);
		return;
	}
	uint32_t len = rte_pktmbuf_pkt_len(r->m);
	if (r->reason != AIF_CAPTURE_NO_DROP)
		snprintf(comment, sizeof(comment), "drop: %s",
			 aif_drop_name((enum aif_drop_reason)r->reason));
	const char *cmt = r->reason != AIF_CAPTURE_NO_DROP ? comment : NULL;
	/* room for this block and the statistics block written at stop */
	if (cp->limit == NULL &&
	    cp->header_bytes + cp->bytes + aif_pcapng_epb_bytes(len, r->dir, cmt) +
	    AIF_PCAPNG_ISB_BYTES > cp->max_bytes)
		limit_reached(c, r->port, "max_bytes");
	if (cp->limit != NULL) {
		cp->past_limit++;
		rte_pktmbuf_free(r->m);
		return;
	}
	const void *data = aif_frame_read(r->m, 0, len, lin); /* whole */
	long n = aif_pcapng_write_epb(cp->f, 0, r->ts_ns + (uint64_t)cp->wall_off_ns,
				      data, len, r->orig_len, r->dir, cmt);
	if (n < 0) {
		if (cp->write_errno == 0)
			cp->write_errno = errno ? errno : EIO;
	} else {
		cp->written++;
		cp->bytes += (uint64_t)n;
		cp->drop_comments += r->reason != AIF_CAPTURE_NO_DROP;
		if (cp->max_packets != 0 && cp->written >= cp->max_packets)
			limit_reached(c, r->port, "max_packets");
	}
	rte_pktmbuf_free(r->m);
}

unsigned
aif_capture_poll(struct aif_switch *sw)
{
	struct aif_capture *c = sw->capture;
	struct aif_capture_rec rec[DRAIN_BURST];
	unsigned total = 0;

	if (c == NULL)
		return 0;
	for (unsigned w = 0; w < AIF_MAX_SHARDS; w++) {
		unsigned n, left = 2 * AIF_CAPTURE_RING_SIZE; /* bounded: workers keep adding */
		if (c->wk[w].ring == NULL)
			continue;
		while (left > 0 &&
		       (n = rte_ring_dequeue_burst_elem(c->wk[w].ring, rec, sizeof(rec[0]),
							RTE_MIN(left, (unsigned)DRAIN_BURST),
							NULL)) > 0) {
			for (unsigned i = 0; i < n; i++)
				write_rec(c, &rec[i]);
			left -= n;
			total += n;
		}
	}
	if (total)
		for (unsigned p = 0; p < AIF_MAX_PORTS; p++)
			if (c->port[p].f != NULL && fflush(c->port[p].f) != 0 &&
			    c->port[p].write_errno == 0)
				c->port[p].write_errno = errno;
	return total;
}

/* What a file's type is, for an error. */
static const char *
file_type(mode_t mode)
{
	if (S_ISFIFO(mode))
		return "a FIFO";
	if (S_ISDIR(mode))
		return "a directory";
	if (S_ISSOCK(mode))
		return "a socket";
	if (S_ISCHR(mode) || S_ISBLK(mode))
		return "a device";
	if (S_ISLNK(mode))
		return "a symbolic link";
	return "not a regular file";
}

/*
 * Open name in dir for writing as capture.h says (never following a link,
 * never waiting on a FIFO); the fd, or -1 with err.
 */
static int
open_capture_file(const char *dir, const char *name, char *err, size_t err_len)
{
	int dfd, fd, e;
	struct stat st;

	if (name[0] == '\0' || strchr(name, '/') != NULL || strcmp(name, ".") == 0 ||
	    strcmp(name, "..") == 0) {
		snprintf(err, err_len, "'%s' is not a file name (one path component)", name);
		return -1;
	}
	dfd = open(dir, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	if (dfd < 0) {
		snprintf(err, err_len, "capture directory %s: %s", dir, strerror(errno));
		return -1;
	}
	fd = openat(dfd, name, O_WRONLY | O_CREAT | O_NOFOLLOW | O_NONBLOCK | O_NOCTTY |
		    O_CLOEXEC, AIF_CAPTURE_FILE_MODE);
	e = errno;
	close(dfd);
	if (fd < 0) {
		/* ELOOP: a symbolic link (O_NOFOLLOW); ENXIO: a FIFO with no
		 * reader or a socket (O_NONBLOCK); EISDIR: a directory */
		snprintf(err, err_len, "cannot capture to %s in %s: %s", name, dir,
			 e == ELOOP ? "it is a symbolic link" :
			 e == ENXIO ? "not a regular file (a FIFO or a socket)" :
			 e == EISDIR ? "not a regular file (a directory)" : strerror(e));
		return -1;
	}
	if (fstat(fd, &st) != 0) {
		snprintf(err, err_len, "cannot capture to %s in %s: %s", name, dir,
			 strerror(errno));
		goto err;
	}
	if (!S_ISREG(st.st_mode)) {
		snprintf(err, err_len, "cannot capture to %s in %s: not a regular file (%s)",
			 name, dir, file_type(st.st_mode));
		goto err;
	}
	if (st.st_nlink > 1) {
		snprintf(err, err_len, "cannot capture to %s in %s: the file has other hard "
			 "links", name, dir);
		goto err;
	}
	if (ftruncate(fd, 0) != 0 || fchmod(fd, AIF_CAPTURE_FILE_MODE) != 0) {
		snprintf(err, err_len, "cannot capture to %s in %s: %s", name, dir,
			 strerror(errno));
		goto err;
	}
	return fd;
err:
	close(fd);
	return -1;
}

int
aif_capture_start(struct aif_switch *sw, uint16_t port, const char *dir,
		  const char *name, const struct aif_capture_params *params,
		  aif_time_ns now_ns, char *err, size_t err_len)
{
	struct aif_capture *c = sw->capture;
	struct aif_capture_port *cp;
	uint32_t snaplen = params->snaplen;
	uint64_t max_bytes = params->max_bytes ? params->max_bytes
					       : AIF_CAPTURE_MAX_BYTES_DEFAULT;
	char descr[128], path[AIF_CAPTURE_PATH_MAX];
	long header;
	FILE *f;
	int fd;

	if (port >= sw->n_ports) {
		snprintf(err, err_len, "no port %u (the switch has %u)", port, sw->n_ports);
		return -1;
	}
	if (snaplen < AIF_CAPTURE_SNAPLEN_MIN || snaplen > AIF_CAPTURE_SNAPLEN_MAX) {
		snprintf(err, err_len, "snaplen %u out of range %u..%u", snaplen,
			 AIF_CAPTURE_SNAPLEN_MIN, AIF_CAPTURE_SNAPLEN_MAX);
		return -1;
	}
	if ((size_t)snprintf(path, sizeof(path), "%s/%s", dir, name) >= sizeof(path)) {
		snprintf(err, err_len, "capture directory and file name longer than %u bytes",
			 AIF_CAPTURE_PATH_MAX - 1);
		return -1;
	}
	if (c != NULL && c->port[port].f != NULL) {
		snprintf(err, err_len, "port %s is capturing already (to %s)",
			 sw->ports[port].name, c->port[port].path);
		return -1;
	}
	fd = open_capture_file(dir, name, err, err_len);
	if (fd < 0)
		return -1;
	f = fdopen(fd, "wb");
	if (f == NULL) {
		snprintf(err, err_len, "cannot open %s: %s", path, strerror(errno));
		close(fd);
		return -1;
	}
	snprintf(descr, sizeof(descr), "switch %s port %s (DPDK port %u)", sw->name,
		 sw->ports[port].name, sw->ports[port].dpdk_port);
	if (aif_pcapng_write_shb(f, NULL, NULL, "aifabric") != 0 ||
	    aif_pcapng_write_idb(f, AIF_PCAPNG_LINKTYPE_ETHERNET, snaplen,
				 sw->ports[port].name, descr) != 0 ||
	    fflush(f) != 0 || (header = ftell(f)) < 0) {
		snprintf(err, err_len, "cannot write %s: %s", path, strerror(errno));
		fclose(f);
		return -1;
	}
	if ((uint64_t)header + AIF_PCAPNG_ISB_BYTES > max_bytes) {
		snprintf(err, err_len, "max_bytes %" PRIu64 " cannot hold the file's own "
			 "%ld bytes of header and statistics blocks", max_bytes,
			 header + AIF_PCAPNG_ISB_BYTES);
		fclose(f);
		return -1;
	}
	if (c == NULL) {
		c = capture_create(sw, err, err_len);
		if (c == NULL) {
			fclose(f);
			return -1;
		}
		__atomic_store_n(&sw->capture, c, __ATOMIC_RELEASE);
	}
	cp = &c->port[port];
	memset(cp, 0, sizeof(*cp));
	cp->f = f;
	memcpy(cp->path, path, sizeof(cp->path));
	cp->snaplen = snaplen;
	cp->drops = params->drops;
	cp->max_bytes = max_bytes;
	cp->max_packets = params->max_packets;
	cp->header_bytes = (uint64_t)header;
	cp->skipped_base = skipped_sum(c, port);
	cp->start_wall_ns = wall_ns();
	cp->wall_off_ns = (int64_t)(cp->start_wall_ns - now_ns);
	c->snaplen[port] = snaplen;
	/* the snaplen and drops bit before the on bit: a runner that sees the
	 * port on sees them too; then the wrapper in front of the port */
	if (params->drops)
		__atomic_fetch_or(&c->drops_mask, 1ull << port, __ATOMIC_RELEASE);
	__atomic_fetch_or(&c->on_mask, 1ull << port, __ATOMIC_RELEASE);
	struct aif_port *pt = &sw->ports[port];
	pt->wrap = c;
	__atomic_store_n(&pt->ops, pt->base->tx_ready_ns ? &capture_paced_ops : &capture_ops,
			 __ATOMIC_RELEASE);
	return 0;
}

static void
fill_info(const struct aif_capture *c, uint16_t port, struct aif_capture_info *info,
	  uint64_t now_wall_ns)
{
	const struct aif_capture_port *cp = &c->port[port];

	snprintf(info->path, sizeof(info->path), "%s", cp->path);
	info->snaplen = cp->snaplen;
	info->drops = cp->drops;
	info->max_bytes = cp->max_bytes;
	info->max_packets = cp->max_packets;
	info->limit = cp->limit;
	info->past_limit = cp->past_limit;
	info->written = cp->written;
	info->bytes = cp->bytes;
	info->drop_comments = cp->drop_comments;
	info->skipped = skipped_sum(c, port) - cp->skipped_base;
	info->seconds = (double)(now_wall_ns - cp->start_wall_ns) / 1e9;
	info->write_errno = cp->write_errno;
}

bool
aif_capture_get(const struct aif_switch *sw, uint16_t port, struct aif_capture_info *info)
{
	const struct aif_capture *c = sw->capture;

	if (c == NULL || port >= AIF_MAX_PORTS || c->port[port].f == NULL)
		return false;
	if (info != NULL)
		fill_info(c, port, info, wall_ns());
	return true;
}

int
aif_capture_stop(struct aif_switch *sw, uint16_t port, struct aif_capture_info *info,
		 char *err, size_t err_len)
{
	struct aif_capture *c = sw->capture;
	struct aif_capture_port *cp;
	struct aif_capture_info tmp;

	if (port >= sw->n_ports || c == NULL || c->port[port].f == NULL) {
		snprintf(err, err_len, "port %s is not capturing",
			 port < sw->n_ports ? sw->ports[port].name : "?");
		return -1;
	}
	cp = &c->port[port];
	__atomic_fetch_and(&c->on_mask, ~(1ull << port), __ATOMIC_RELEASE);
	__atomic_fetch_and(&c->drops_mask, ~(1ull << port), __ATOMIC_RELEASE);
	__atomic_store_n(&sw->ports[port].ops, sw->ports[port].base, __ATOMIC_RELEASE);
	/* Every runner step that may still copy for this port ends... */
	rte_rcu_qsbr_synchronize(sw->qsv, RTE_QSBR_THRID_INVALID);
	/* ...so after this drain nothing more comes for it. */
	aif_capture_poll(sw);

	uint64_t end = wall_ns();
	if (info == NULL)
		info = &tmp;
	fill_info(c, port, info, end);
	if (aif_pcapng_write_isb(cp->f, 0, end, cp->start_wall_ns, end,
				 info->written + info->skipped, info->skipped) != 0 &&
	    cp->write_errno == 0)
		cp->write_errno = errno;
	if (fclose(cp->f) != 0 && cp->write_errno == 0)
		cp->write_errno = errno;
	info->write_errno = cp->write_errno;
	cp->f = NULL;
	return 0;
}

void
aif_capture_free(struct aif_switch *sw)
{
	struct aif_capture *c = sw->capture;
	struct aif_capture_rec rec[DRAIN_BURST];
	char err[128];
	unsigned n;

	if (c == NULL)
		return;
	for (uint16_t p = 0; p < AIF_MAX_PORTS; p++)
		if (c->port[p].f != NULL)
			aif_capture_stop(sw, p, NULL, err, sizeof(err));
	for (uint16_t p = 0; p < AIF_MAX_PORTS; p++)
		if (sw->ports[p].wrap == c)
			sw->ports[p].wrap = NULL;
	for (unsigned w = 0; w < AIF_MAX_SHARDS; w++) {
		if (c->wk[w].ring == NULL)
			continue;
		while ((n = rte_ring_dequeue_burst_elem(c->wk[w].ring, rec, sizeof(rec[0]),
							DRAIN_BURST, NULL)) > 0)
			for (unsigned i = 0; i < n; i++)
				rte_pktmbuf_free(rec[i].m);
		rte_ring_free(c->wk[w].ring);
	}
	rte_mempool_free(c->pool);
	sw->capture = NULL;
	rte_free(c);
}

/* ------------------------------------------------------------------ */
/* pcapng writer                                                       */

enum {
	BT_SHB = 0x0A0D0D0A,
	BT_IDB = 0x00000001,
	BT_ISB = 0x00000005,
	BT_EPB = 0x00000006,
	BYTE_ORDER_MAGIC = 0x1A2B3C4D,
	OPT_END = 0,
	OPT_COMMENT = 1,
	SHB_HARDWARE = 2, SHB_OS = 3, SHB_USERAPPL = 4,
	IF_NAME = 2, IF_DESCRIPTION = 3, IF_TSRESOL = 9,
	EPB_FLAGS = 2,
	ISB_STARTTIME = 2, ISB_ENDTIME = 3, ISB_IFRECV = 4, ISB_IFDROP = 5,
};

#define OPT_STR_MAX 256 /* longer strings are cut */

/* A block's fixed part and options, built in memory. */
struct blk {
	uint8_t b[1024];
	size_t n;
};

static void
put(struct blk *k, const void *p, size_t len)
{
	if (len == 0) /* p may be NULL then, and memcpy must not see it */
		return;
	memcpy(k->b + k->n, p, len);
	k->n += len;
}

static void
put32(struct blk *k, uint32_t v)
{
	put(k, &v, 4);
}

static void
pad4(struct blk *k)
{
	while (k->n & 3)
		k->b[k->n++] = 0;
}

static void
put_opt(struct blk *k, uint16_t code, const void *v, size_t len)
{
	uint16_t h[2] = { code, (uint16_t)len };

	put(k, h, sizeof(h));
	put(k, v, len);
	pad4(k);
}

/* An option string's length, cut at OPT_STR_MAX.  (A loop: strnlen with
 * that bound on a shorter buffer is a warning once the daemon is
 * optimised across files and sees the buffer.) */
static size_t
opt_strlen(const char *s)
{
	size_t n = 0;

	while (n < OPT_STR_MAX && s[n] != '\0')
		n++;
	return n;
}

static void
put_opt_str(struct blk *k, uint16_t code, const char *s)
{
	if (s != NULL && *s != '\0')
		put_opt(k, code, s, opt_strlen(s));
}

static void
put_ts(struct blk *k, uint64_t ts)
{
	put32(k, (uint32_t)(ts >> 32));
	put32(k, (uint32_t)ts);
}

/* Finish and write a block whose total length field is at offset 4. */
static int
write_blk(FILE *f, struct blk *k)
{
	uint32_t total;

	put_opt(k, OPT_END, NULL, 0);
	total = (uint32_t)k->n + 4;
	memcpy(k->b + 4, &total, 4);
	put32(k, total);
	return fwrite(k->b, 1, k->n, f) == k->n ? 0 : -1;
}

int
aif_pcapng_write_shb(FILE *f, const char *hardware, const char *os, const char *app)
{
	struct blk k = { .n = 0 };
	uint16_t ver[2] = { 1, 0 };
	int64_t section_len = -1;

	put32(&k, BT_SHB);
	put32(&k, 0);
	put32(&k, BYTE_ORDER_MAGIC);
	put(&k, ver, sizeof(ver));
	put(&k, &section_len, 8);
	put_opt_str(&k, SHB_HARDWARE, hardware);
	put_opt_str(&k, SHB_OS, os);
	put_opt_str(&k, SHB_USERAPPL, app);
	return write_blk(f, &k);
}

int
aif_pcapng_write_idb(FILE *f, uint16_t linktype, uint32_t snaplen, const char *if_name,
		     const char *if_description)
{
	struct blk k = { .n = 0 };
	uint16_t lt[2] = { linktype, 0 };
	uint8_t tsresol = 9; /* 10^-9 s */

	put32(&k, BT_IDB);
	put32(&k, 0);
	put(&k, lt, sizeof(lt));
	put32(&k, snaplen);
	put_opt_str(&k, IF_NAME, if_name);
	put_opt_str(&k, IF_DESCRIPTION, if_description);
	put_opt(&k, IF_TSRESOL, &tsresol, 1);
	return write_blk(f, &k);
}

uint32_t
aif_pcapng_epb_bytes(uint32_t cap_len, uint32_t dir, const char *comment)
{
	size_t clen = comment != NULL ? opt_strlen(comment) : 0;
	uint32_t opts = (dir != 0 ? 4 + 4 : 0) +               /* epb_flags */
			(clen ? 4 + (uint32_t)((clen + 3) & ~3u) : 0) + /* opt_comment */
			4;                                        /* opt_endofopt */

	return 28 + ((cap_len + 3) & ~3u) + opts + 4;
}

long
aif_pcapng_write_epb(FILE *f, uint32_t if_id, uint64_t ts_ns, const void *data,
		     uint32_t cap_len, uint32_t orig_len, uint32_t dir,
		     const char *comment)
{
	static const uint8_t zero[4];
	struct blk h = { .n = 0 }, o = { .n = 0 };
	size_t pad = (4 - (cap_len & 3)) & 3;
	uint32_t total = aif_pcapng_epb_bytes(cap_len, dir, comment);

	if (dir != 0)
		put_opt(&o, EPB_FLAGS, &dir, 4);
	put_opt_str(&o, OPT_COMMENT, comment);
	put_opt(&o, OPT_END, NULL, 0);
	put32(&o, total);

	put32(&h, BT_EPB);
	put32(&h, total);
	put32(&h, if_id);
	put_ts(&h, ts_ns);
	put32(&h, cap_len);
	put32(&h, orig_len);
	if (fwrite(h.b, 1, h.n, f) != h.n ||
	    (cap_len && fwrite(data, 1, cap_len, f) != cap_len) ||
	    (pad && fwrite(zero, 1, pad, f) != pad) ||
	    fwrite(o.b, 1, o.n, f) != o.n)
		return -1;
	return (long)total;
}

int
aif_pcapng_write_isb(FILE *f, uint32_t if_id, uint64_t ts_ns, uint64_t start_ns,
		     uint64_t end_ns, uint64_t ifrecv, uint64_t ifdrop)
{
	struct blk k = { .n = 0 };
	uint32_t t[2];

	put32(&k, BT_ISB);
	put32(&k, 0);
	put32(&k, if_id);
	put_ts(&k, ts_ns);
	t[0] = (uint32_t)(start_ns >> 32);
	t[1] = (uint32_t)start_ns;
	put_opt(&k, ISB_STARTTIME, t, 8);
	t[0] = (uint32_t)(end_ns >> 32);
	t[1] = (uint32_t)end_ns;
	put_opt(&k, ISB_ENDTIME, t, 8);
	put_opt(&k, ISB_IFRECV, &ifrecv, 8);
	put_opt(&k, ISB_IFDROP, &ifdrop, 8);
	return write_blk(f, &k);
}
