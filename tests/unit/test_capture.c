/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Unit tests for dataplane/capture.c.
 *
 * Writer (no EAL): a file with a section header, an interface, frames in
 * and out (one of odd length, so padded), one with a drop comment, and a
 * statistics block; read back block by block: types, both length fields,
 * 32-bit alignment, every field and option.
 *
 * Capture path (EAL, --no-huge): a switch with two ports on a fake
 * transmit function that takes only part of each burst; a capture on port
 * 0 with drops and snaplen 64; frames sent, refused, received and dropped;
 * then the file must hold exactly the frames port 0 sent (outbound), the
 * refused ones as "drop: tx_full", the received ones (inbound) and the
 * dropped one with its reason, cut to the snaplen; nothing from port 1.
 * And the start/stop errors.  tshark reads such files in
 * tests/e2e/check_capture.sh.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <dirent.h>
#include <fcntl.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include <cmocka.h>

#include <rte_eal.h>
#include <rte_mbuf.h>

#include "capture.h"
#include "drop.h"
#include "switch.h"
#include "runner.h"

#include "test_eal.h"

/* ---- a pcapng reader, just enough for the checks ---- */

#define MAX_BLOCKS 64

struct opt {
	uint16_t code, len;
	const uint8_t *v;
};

struct block {
	uint32_t type, len;
	const uint8_t *body; /* after type and length */
	uint32_t body_len;   /* up to the trailing length */
	struct opt opts[8];
	unsigned n_opts;
	/* EPB */
	uint32_t if_id, cap_len, orig_len;
	uint64_t ts;
	const uint8_t *data;
};

struct file {
	uint8_t *buf;
	size_t size;
	struct block b[MAX_BLOCKS];
	unsigned n;
};

static uint32_t
rd32(const uint8_t *p)
{
	uint32_t v;
	memcpy(&v, p, 4);
	return v;
}

static void
parse_opts(struct block *b, const uint8_t *p, const uint8_t *end)
{
	while (p + 4 <= end) {
		uint16_t h[2];
		memcpy(h, p, 4);
		if (h[0] == 0) {
			assert_int_equal(h[1], 0);
			assert_ptr_equal(p + 4, end); /* opt_endofopt is last */
			return;
		}
		assert_true(b->n_opts < 8);
		b->opts[b->n_opts++] = (struct opt){ h[0], h[1], p + 4 };
		p += 4 + ((h[1] + 3u) & ~3u);
	}
	fail_msg("options not ended by opt_endofopt");
}

static const struct opt *
find_opt(const struct block *b, uint16_t code)
{
	for (unsigned i = 0; i < b->n_opts; i++)
		if (b->opts[i].code == code)
			return &b->opts[i];
	return NULL;
}

static void
assert_opt_str(const struct block *b, uint16_t code, const char *want)
{
	const struct opt *o = find_opt(b, code);
	if (want == NULL) {
		assert_null(o);
		return;
	}
	assert_non_null(o);
	assert_int_equal(o->len, strlen(want));
	assert_memory_equal(o->v, want, o->len);
}

static void
read_file(const char *path, struct file *f)
{
	FILE *fp = fopen(path, "rb");
	assert_non_null(fp);
	fseek(fp, 0, SEEK_END);
	f->size = (size_t)ftell(fp);
	rewind(fp);
	f->buf = malloc(f->size + 1);
	assert_int_equal(fread(f->buf, 1, f->size, fp), f->size);
	fclose(fp);
	f->n = 0;

	size_t off = 0;
	while (off < f->size) {
		assert_true(f->n < MAX_BLOCKS);
		assert_true(off + 12 <= f->size);
		struct block *b = &f->b[f->n++];
		memset(b, 0, sizeof(*b));
		b->type = rd32(f->buf + off);
		b->len = rd32(f->buf + off + 4);
		assert_true(b->len >= 12);
		assert_int_equal(b->len % 4, 0);
		assert_true(off + b->len <= f->size);
		assert_int_equal(rd32(f->buf + off + b->len - 4), b->len);
		b->body = f->buf + off + 8;
		b->body_len = b->len - 12;
		const uint8_t *end = b->body + b->body_len, *o;
		switch (b->type) {
		case 0x0A0D0D0A: /* SHB */
			assert_int_equal(rd32(b->body), 0x1A2B3C4D);
			assert_int_equal(rd32(b->body + 4), 1); /* 1.0 */
			o = b->body + 16;
			break;
		case 1: /* IDB */
			o = b->body + 8;
			break;
		case 5: /* ISB */
			b->if_id = rd32(b->body);
			b->ts = (uint64_t)rd32(b->body + 4) << 32 | rd32(b->body + 8);
			o = b->body + 12;
			break;
		case 6: /* EPB */
			b->if_id = rd32(b->body);
			b->ts = (uint64_t)rd32(b->body + 4) << 32 | rd32(b->body + 8);
			b->cap_len = rd32(b->body + 12);
			b->orig_len = rd32(b->body + 16);
			b->data = b->body + 20;
			o = b->data + ((b->cap_len + 3u) & ~3u);
			break;
		default:
			fail_msg("unexpected block type %#x", b->type);
			return;
		}
		assert_true(o <= end);
		parse_opts(b, o, end);
		off += b->len;
	}
}

static uint32_t
epb_dir(const struct block *b)
{
	const struct opt *o = find_opt(b, 2);
	if (o == NULL)
		return 0;
	assert_int_equal(o->len, 4);
	return rd32(o->v);
}

static void
tmp_path(char *buf, size_t len, const char *tag)
{
	snprintf(buf, len, "/tmp/aif-ut-capture-%d-%s.pcapng", (int)getpid(), tag);
}

/* ---- writer ---- */

static void
test_writer_blocks(void **state)
{
	char path[128];
	uint8_t f60[60], f61[61], f100[100];
	struct file f;

	(void)state;
	for (unsigned i = 0; i < sizeof(f100); i++)
		f100[i] = (uint8_t)i;
	memcpy(f60, f100, sizeof(f60));
	memcpy(f61, f100 + 1, sizeof(f61));
	tmp_path(path, sizeof(path), "writer");
	FILE *fp = fopen(path, "wb");
	assert_non_null(fp);
	assert_int_equal(aif_pcapng_write_shb(fp, NULL, "Linux", "aifabric"), 0);
	assert_int_equal(aif_pcapng_write_idb(fp, AIF_PCAPNG_LINKTYPE_ETHERNET, 256, "p0",
					      "switch leaf0 port p0"), 0);
	uint64_t t0 = 1700000000123456789ull;
	assert_int_equal(aif_pcapng_write_epb(fp, 0, t0, f60, 60, 60, AIF_CAPTURE_IN, NULL),
			 28 + 60 + 8 + 4 + 4); /* header, data, epb_flags, end, length */
	assert_true(aif_pcapng_write_epb(fp, 0, t0 + 1, f61, 61, 61, AIF_CAPTURE_OUT, NULL) > 0);
	assert_true(aif_pcapng_write_epb(fp, 0, t0 + 2, f100, 64, 100, AIF_CAPTURE_IN,
					 "drop: no_route") > 0);
	assert_int_equal(aif_pcapng_write_isb(fp, 0, t0 + 3, t0 - 5, t0 + 3, 10, 7), 0);
	assert_int_equal(fclose(fp), 0);

	read_file(path, &f);
	assert_int_equal(f.n, 6);
	assert_int_equal(f.b[0].type, 0x0A0D0D0A);
	assert_opt_str(&f.b[0], 2, NULL);         /* shb_hardware not given */
	assert_opt_str(&f.b[0], 3, "Linux");
	assert_opt_str(&f.b[0], 4, "aifabric");

	assert_int_equal(f.b[1].type, 1);
	assert_int_equal(f.b[1].body[0] | f.b[1].body[1] << 8, 1); /* Ethernet */
	assert_int_equal(rd32(f.b[1].body + 4), 256);
	assert_opt_str(&f.b[1], 2, "p0");
	assert_opt_str(&f.b[1], 3, "switch leaf0 port p0");
	const struct opt *res = find_opt(&f.b[1], 9);
	assert_non_null(res);
	assert_int_equal(res->len, 1);
	assert_int_equal(res->v[0], 9);

	const struct { uint32_t cap, orig, dir; const uint8_t *data; const char *comment; }
	want[] = {
		{ 60, 60, AIF_CAPTURE_IN, f60, NULL },
		{ 61, 61, AIF_CAPTURE_OUT, f61, NULL },
		{ 64, 100, AIF_CAPTURE_IN, f100, "drop: no_route" },
	};
	for (unsigned i = 0; i < 3; i++) {
		const struct block *b = &f.b[2 + i];
		assert_int_equal(b->type, 6);
		/* the size the max_bytes check counts is the size written */
		assert_int_equal(b->len, aif_pcapng_epb_bytes(want[i].cap, want[i].dir,
							      want[i].comment));
		assert_int_equal(b->if_id, 0);
		assert_true(b->ts == t0 + i);
		assert_int_equal(b->cap_len, want[i].cap);
		assert_int_equal(b->orig_len, want[i].orig);
		assert_memory_equal(b->data, want[i].data, want[i].cap);
		assert_int_equal(epb_dir(b), want[i].dir);
		assert_opt_str(b, 1, want[i].comment);
	}
	const struct block *isb = &f.b[5];
	assert_int_equal(isb->type, 5);
	assert_int_equal(isb->len, AIF_PCAPNG_ISB_BYTES);
	assert_true(isb->ts == t0 + 3);
	const struct opt *o = find_opt(isb, 2);
	assert_non_null(o);
	assert_true(((uint64_t)rd32(o->v) << 32 | rd32(o->v + 4)) == t0 - 5);
	uint64_t v;
	o = find_opt(isb, 4);
	assert_non_null(o);
	memcpy(&v, o->v, 8);
	assert_true(v == 10);
	o = find_opt(isb, 5);
	assert_non_null(o);
	memcpy(&v, o->v, 8);
	assert_true(v == 7);
	free(f.buf);
	unlink(path);
}

/* ---- capture path (EAL) ---- */

static struct rte_mempool *pool;

/* A port of the test's own (port.h): frames to receive are put in rx[];
 * transmit takes accept frames per burst. */
struct fake_port {
	uint16_t accept; /* per burst */
	unsigned bursts;
	uint16_t n_rx;
	struct rte_mbuf *rx[AIF_BURST];
};

static uint16_t
fake_rx(struct aif_port *p, uint16_t queue, struct rte_mbuf **pkts, uint16_t n,
	aif_time_ns now_ns)
{
	struct fake_port *fp = p->ctx;
	uint16_t k = RTE_MIN(n, fp->n_rx);

	(void)queue;
	(void)now_ns;
	memcpy(pkts, fp->rx, k * sizeof(*pkts));
	memmove(fp->rx, fp->rx + k, (fp->n_rx - k) * sizeof(*pkts));
	fp->n_rx -= k;
	return k;
}

static uint16_t
fake_tx(struct aif_port *p, uint16_t queue, struct rte_mbuf **pkts, uint16_t n,
	aif_time_ns now_ns)
{
	struct fake_port *fp = p->ctx;
	uint16_t k = RTE_MIN(n, fp->accept);

	(void)queue;
	(void)now_ns;
	fp->bursts++;
	rte_pktmbuf_free_bulk(pkts, k); /* the driver owns what it took */
	return k;
}

static const struct aif_port_ops fake_ops = {
	.kind = "fake", .rx_burst = fake_rx, .tx_burst = fake_tx,
};

static void
fake_port_init(struct aif_switch *sw, uint16_t p, struct fake_port *fp)
{
	struct aif_port *port = &sw->ports[p];

	snprintf(port->name, sizeof(port->name), "p%u", p);
	port->index = p;
	port->ctx = fp;
	port->base = port->ops = &fake_ops;
	aif_port_set_link_up(port, true);
}

static struct rte_mbuf *
frame(uint16_t len, uint8_t tag)
{
	struct rte_mbuf *m = rte_pktmbuf_alloc(pool);
	assert_non_null(m);
	uint8_t *d = (uint8_t *)rte_pktmbuf_append(m, len);
	assert_non_null(d);
	for (uint16_t i = 0; i < len; i++)
		d[i] = (uint8_t)(tag + i);
	return m;
}

static int
eal_setup(void **state)
{
	(void)state;
	if (test_eal_init("test_capture", "aif-ut-capture", 512) != 0)
		return -1;
	pool = rte_pktmbuf_pool_create("ut_capture", 1023, 0, 0,
				       RTE_MBUF_DEFAULT_BUF_SIZE, SOCKET_ID_ANY);
	return pool == NULL ? -1 : 0;
}

static int
eal_teardown(void **state)
{
	(void)state;
	rte_mempool_free(pool);
	test_eal_cleanup();
	return 0;
}

/* A fresh directory of this test's own. */
static void
make_dir(char *dir)
{
	snprintf(dir, 64, "/tmp/aif-ut-capture-%d.XXXXXX", (int)getpid());
	assert_non_null(mkdtemp(dir));
}

static struct aif_capture_info
ci_of(const struct aif_switch *sw, uint16_t port)
{
	struct aif_capture_info ci;

	assert_true(aif_capture_get(sw, port, &ci));
	return ci;
}

static void
test_capture_path(void **state)
{
	struct fake_port ft[2] = { { .accept = 3 }, { .accept = 32 } };
	struct aif_capture_info ci;
	char dir[64], path[128], err[256];
	struct file f;

	(void)state;
	struct aif_switch *sw = aif_switch_create("leaf0", 0, 1, pool);
	assert_non_null(sw);
	sw->n_ports = 2;
	for (uint16_t p = 0; p < 2; p++)
		fake_port_init(sw, p, &ft[p]);
	struct aif_runner *w = aif_runner_create(sw, 0, 1);
	assert_non_null(w);
	assert_int_equal(aif_runner_add_rxq(w, 0, 0), 0);
	unsigned in_use = rte_mempool_in_use_count(pool);

	aif_runner_step(w, 5 * AIF_NS_PER_S); /* the clock is not 0 */
	make_dir(dir);
	snprintf(path, sizeof(path), "%s/path.pcapng", dir);
	struct timespec t_start;
	clock_gettime(CLOCK_REALTIME, &t_start);
	const struct aif_capture_params p64 = { .snaplen = 64, .drops = true };
	assert_int_equal(aif_capture_start(sw, 0, dir, "path.pcapng", &p64, 5 * AIF_NS_PER_S, err, sizeof(err)), 0);
	assert_int_equal(ci_of(sw, 0).max_bytes, AIF_CAPTURE_MAX_BYTES_DEFAULT);
	assert_string_equal(ci_of(sw, 0).path, path);

	/* errors */
	assert_int_equal(aif_capture_start(sw, 0, dir, "path.pcapng", &p64, 0, err, sizeof(err)), -1);
	assert_non_null(strstr(err, "port p0 is capturing already"));
	const struct aif_capture_params p10 = { .snaplen = 10 };
	assert_int_equal(aif_capture_start(sw, 1, dir, "other.pcapng", &p10, 0, err, sizeof(err)), -1);
	assert_non_null(strstr(err, "snaplen 10 out of range 64..65535"));
	assert_int_equal(aif_capture_start(sw, 1, "/nonexistent-dir", "x.pcapng", &p64, 0, err, sizeof(err)), -1);
	assert_string_equal(err, "capture directory /nonexistent-dir: No such file or directory");
	assert_int_equal(aif_capture_stop(sw, 1, NULL, err, sizeof(err)), -1);
	assert_string_equal(err, "port p1 is not capturing");
	assert_true(aif_capture_get(sw, 0, NULL));
	assert_false(aif_capture_get(sw, 1, NULL));

	/* 5 frames out of p0 (the port takes 3), 2 out of p1 (not captured) */
	for (uint8_t i = 0; i < 5; i++)
		aif_shard_send(w->sh, sw->ports, 0, frame(100, (uint8_t)(0x10 * i)),
			       5 * AIF_NS_PER_S);
	aif_shard_send(w->sh, sw->ports, 1, frame(80, 0xAA), 5 * AIF_NS_PER_S);
	aif_shard_send(w->sh, sw->ports, 1, frame(80, 0xBB), 5 * AIF_NS_PER_S);
	aif_runner_step(w, 5 * AIF_NS_PER_S + 1000); /* flushes */
	assert_int_equal(ft[0].bursts, 1);
	assert_int_equal(w->sh->port_ctr[0].tx_packets, 3);
	assert_int_equal(w->sh->port_ctr[0].drops[AIF_DROP_TX_FULL], 2);

	/* two received frames: no tables, so the switch drops them (no_route),
	 * and the capture says so */
	ft[0].rx[ft[0].n_rx++] = frame(70, 0x40);
	ft[0].rx[ft[0].n_rx++] = frame(30, 0x50);
	assert_int_equal(aif_runner_step(w, 5 * AIF_NS_PER_S + 2000), 2);
	assert_int_equal(w->sh->port_ctr[0].drops[AIF_DROP_NO_ROUTE], 2);

	assert_true(aif_capture_poll(sw) > 0);
	assert_int_equal(aif_capture_stop(sw, 0, &ci, err, sizeof(err)), 0);
	assert_int_equal(ci.written, 7);
	assert_int_equal(ci.skipped, 0);
	assert_int_equal(ci.drop_comments, 4);
	assert_int_equal(ci.snaplen, 64);
	assert_true(ci.drops);
	assert_int_equal(ci.write_errno, 0);
	assert_false(aif_capture_get(sw, 0, NULL));
	/* every copy went back to the capture pool, every frame to ours */
	assert_int_equal(rte_mempool_in_use_count(sw->capture->pool), 0);
	assert_int_equal(rte_mempool_in_use_count(pool), in_use);

	read_file(path, &f);
	assert_int_equal(f.n, 1 + 1 + 7 + 1);
	assert_opt_str(&f.b[1], 2, "p0");
	const struct { uint32_t cap, orig, dir; uint8_t tag; const char *comment; } want[] = {
		{ 64, 100, AIF_CAPTURE_OUT, 0x00, NULL },
		{ 64, 100, AIF_CAPTURE_OUT, 0x10, NULL },
		{ 64, 100, AIF_CAPTURE_OUT, 0x20, NULL },
		{ 64, 100, AIF_CAPTURE_OUT, 0x30, "drop: tx_full" },
		{ 64, 100, AIF_CAPTURE_OUT, 0x40, "drop: tx_full" },
		{ 64, 70, AIF_CAPTURE_IN, 0x40, "drop: no_route" },
		{ 30, 30, AIF_CAPTURE_IN, 0x50, "drop: no_route" },
	};
	uint64_t start_ns = (uint64_t)t_start.tv_sec * AIF_NS_PER_S + (uint64_t)t_start.tv_nsec;
	for (unsigned i = 0; i < 7; i++) {
		const struct block *b = &f.b[2 + i];
		assert_int_equal(b->type, 6);
		assert_int_equal(b->cap_len, want[i].cap);
		assert_int_equal(b->orig_len, want[i].orig);
		assert_int_equal(b->data[0], want[i].tag);
		assert_int_equal(b->data[b->cap_len - 1], (uint8_t)(want[i].tag + b->cap_len - 1));
		assert_int_equal(epb_dir(b), want[i].dir);
		assert_opt_str(b, 1, want[i].comment);
		/* wall clock: start + the 2000 ns the clock moved, or so */
		assert_true(b->ts >= start_ns && b->ts < start_ns + 5 * AIF_NS_PER_S);
	}
	assert_int_equal(f.b[9].type, 5);
	free(f.buf);
	unlink(path);

	/* a capture can start again; aif_capture_free stops it */
	const struct aif_capture_params pdef = { .snaplen = 65535 };
	assert_int_equal(aif_capture_start(sw, 0, dir, "path.pcapng", &pdef,
					   5 * AIF_NS_PER_S + 2000, err, sizeof(err)), 0);
	assert_string_equal(sw->ports[0].ops->kind, "capture");
	aif_capture_free(sw);
	assert_ptr_equal(sw->ports[0].ops, &fake_ops); /* the port's own again */
	aif_runner_free(w);
	aif_switch_free(sw);
	read_file(path, &f);
	assert_int_equal(f.n, 3); /* SHB, IDB, ISB */
	free(f.buf);
	unlink(path);
	rmdir(dir);
	assert_int_equal(rte_mempool_in_use_count(pool), in_use);
}

/* A switch of one port of the test's own (feed() gives it frames to
 * receive) and its runner. */
static struct fake_port one_port;

static struct aif_switch *
one_port_switch(struct aif_runner **w)
{
	struct aif_switch *sw = aif_switch_create("leaf0", 0, 1, pool);

	assert_non_null(sw);
	sw->n_ports = 1;
	one_port = (struct fake_port){ .accept = AIF_BURST };
	fake_port_init(sw, 0, &one_port);
	*w = aif_runner_create(sw, 0, 1);
	assert_non_null(*w);
	assert_int_equal(aif_runner_add_rxq(*w, 0, 0), 0);
	return sw;
}

static void
free_switch(struct aif_switch *sw, struct aif_runner *w)
{
	aif_capture_free(sw);
	aif_runner_free(w);
	aif_switch_free(sw);
}

/* Remove a test directory and the files in it. */
static void
remove_dir(const char *dir)
{
	DIR *d = opendir(dir);
	struct dirent *e;

	assert_non_null(d);
	while ((e = readdir(d)) != NULL)
		if (strcmp(e->d_name, ".") != 0 && strcmp(e->d_name, "..") != 0)
			assert_int_equal(unlinkat(dirfd(d), e->d_name, 0), 0);
	closedir(d);
	assert_int_equal(rmdir(dir), 0);
}

static off_t
file_size(const char *path)
{
	struct stat st;

	assert_int_equal(stat(path, &st), 0);
	return st.st_size;
}

/*
 * What a client may name as a capture file is opened only if it is a
 * regular file of its own: a FIFO (with or without a reader), a symbolic
 * link, a directory, a hard link to another file and anything that is not
 * one path component are refused, at once (before, a FIFO with no reader
 * held the control thread in open() for good: the alarm turns such a hang
 * into a failure), and nothing they point to is touched.
 */
static void
test_capture_file_refusals(void **state)
{
	const struct aif_capture_params prm = { .snaplen = 128 };
	char dir[64], p[160], target[160], err[256];
	struct aif_runner *w;
	struct aif_switch *sw = one_port_switch(&w);
	int fd, rd;

	(void)state;
	make_dir(dir);
	/* a file outside that links must never reach */
	snprintf(target, sizeof(target), "%s.target", dir);
	fd = open(target, O_WRONLY | O_CREAT | O_TRUNC, 0644);
	assert_true(fd >= 0);
	assert_int_equal(write(fd, "keep", 4), 4);
	close(fd);

	snprintf(p, sizeof(p), "%s/fifo", dir);
	assert_int_equal(mkfifo(p, 0600), 0);
	snprintf(p, sizeof(p), "%s/link", dir);
	assert_int_equal(symlink(target, p), 0);
	snprintf(p, sizeof(p), "%s/sub", dir);
	assert_int_equal(mkdir(p, 0700), 0);
	snprintf(p, sizeof(p), "%s/hard", dir);
	assert_int_equal(link(target, p), 0);

	static const struct { const char *name, *why; } cases[] = {
		{ "fifo", "not a regular file (a FIFO or a socket)" }, /* no reader */
		{ "link", "it is a symbolic link" },
		{ "sub", "not a regular file (a directory)" },
		{ "hard", "the file has other hard links" },
	};
	alarm(60); /* a hang is a failure (SIGALRM ends the test), not a wait */
	for (unsigned i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		char want[256];

		print_message("# %s\n", cases[i].name);
		assert_int_equal(aif_capture_start(sw, 0, dir, cases[i].name, &prm, 0, err,
						   sizeof(err)), -1);
		snprintf(want, sizeof(want), "cannot capture to %s in %s: %s", cases[i].name,
			 dir, cases[i].why);
		assert_string_equal(err, want);
	}
	/* a FIFO with a reader opens, and is refused after fstat */
	snprintf(p, sizeof(p), "%s/fifo", dir);
	rd = open(p, O_RDONLY | O_NONBLOCK);
	assert_true(rd >= 0);
	assert_int_equal(aif_capture_start(sw, 0, dir, "fifo", &prm, 0, err, sizeof(err)), -1);
	assert_non_null(strstr(err, "not a regular file (a FIFO)"));
	close(rd);
	alarm(0);

	static const char *const not_names[] = { "", ".", "..", "a/b", "../x", "/etc/x" };
	for (unsigned i = 0; i < sizeof(not_names) / sizeof(not_names[0]); i++) {
		assert_int_equal(aif_capture_start(sw, 0, dir, not_names[i], &prm, 0, err,
						   sizeof(err)), -1);
		assert_non_null(strstr(err, "is not a file name (one path component)"));
	}
	assert_false(aif_capture_get(sw, 0, NULL));
	/* the target is as it was */
	assert_int_equal(file_size(target), 4);

	free_switch(sw, w);
	snprintf(p, sizeof(p), "%s/sub", dir);
	assert_int_equal(rmdir(p), 0);
	remove_dir(dir);
	assert_int_equal(unlink(target), 0);
}

/* A capture file is mode 0640 whatever the umask or the file was, and an
 * old file is truncated. */
static void
test_capture_file_mode(void **state)
{
	const struct aif_capture_params prm = { .snaplen = 128 };
	char dir[64], p[160], err[256];
	struct aif_runner *w;
	struct aif_switch *sw = one_port_switch(&w);
	struct stat st;
	mode_t old_mask;
	int fd;

	(void)state;
	make_dir(dir);
	old_mask = umask(077);
	assert_int_equal(aif_capture_start(sw, 0, dir, "new.pcapng", &prm, 0, err, sizeof(err)), 0);
	snprintf(p, sizeof(p), "%s/new.pcapng", dir);
	assert_int_equal(stat(p, &st), 0);
	assert_true(S_ISREG(st.st_mode));
	assert_int_equal(st.st_mode & 07777, 0640);
	assert_int_equal(aif_capture_stop(sw, 0, NULL, err, sizeof(err)), 0);

	umask(0);
	snprintf(p, sizeof(p), "%s/old.pcapng", dir);
	fd = open(p, O_WRONLY | O_CREAT | O_TRUNC, 0666);
	assert_true(fd >= 0);
	assert_int_equal(write(fd, "0123456789abcdef0123456789abcdef", 32), 32);
	close(fd);
	assert_int_equal(aif_capture_start(sw, 0, dir, "old.pcapng", &prm, 0, err, sizeof(err)), 0);
	assert_int_equal(stat(p, &st), 0);
	assert_int_equal(st.st_mode & 07777, 0640);
	/* only our header blocks: the old bytes are gone */
	assert_int_equal(st.st_size, (off_t)sw->capture->port[0].header_bytes);
	assert_int_equal(aif_capture_stop(sw, 0, NULL, err, sizeof(err)), 0);
	umask(old_mask);

	free_switch(sw, w);
	remove_dir(dir);
}

/* Port 0 receives n 100-byte frames, which the switch (no tables) drops
 * as no_route; its capture writes them out. */
static void
feed(struct aif_switch *sw, struct aif_runner *w, unsigned n)
{
	static aif_time_ns now = AIF_NS_PER_S;

	for (unsigned i = 0; i < n; i++) {
		one_port.rx[one_port.n_rx++] = frame(100, (uint8_t)i);
		if (one_port.n_rx == AIF_BURST || i + 1 == n)
			aif_runner_step(w, now += 1000);
	}
	aif_capture_poll(sw);
}

/*
 * max_packets and max_bytes: at the limit the file gets nothing more, the
 * port is no longer copied, and capture_get says which limit and how many
 * copies came past it; the file, statistics block included, never exceeds
 * max_bytes and stays readable.
 */
static void
test_capture_limits(void **state)
{
	char dir[64], p[160], err[256];
	struct aif_runner *w;
	struct aif_switch *sw = one_port_switch(&w);
	struct aif_capture_info ci;
	struct file f;

	(void)state;
	make_dir(dir);
	snprintf(p, sizeof(p), "%s/cap.pcapng", dir);

	const struct aif_capture_params by_pkts = { .snaplen = 65535, .drops = true,
						    .max_packets = 3 };
	assert_int_equal(aif_capture_start(sw, 0, dir, "cap.pcapng", &by_pkts, 0, err,
					   sizeof(err)), 0);
	feed(sw, w, 5);
	ci = ci_of(sw, 0);
	assert_int_equal(ci.written, 3);
	assert_string_equal(ci.limit, "max_packets");
	assert_int_equal(ci.past_limit, 2);
	assert_int_equal(sw->capture->on_mask & 1, 0);   /* no more copies */
	assert_int_equal(sw->capture->drops_mask & 1, 0);
	assert_int_equal(aif_capture_stop(sw, 0, &ci, err, sizeof(err)), 0);
	assert_string_equal(ci.limit, "max_packets");
	read_file(p, &f);
	assert_int_equal(f.n, 2 + 3 + 1);
	free(f.buf);

	/* room for the header, the statistics block and 4 packets and a half */
	uint32_t epb = aif_pcapng_epb_bytes(100, AIF_CAPTURE_IN, "drop: no_route");
	const struct aif_capture_params probe = { .snaplen = 65535 };
	assert_int_equal(aif_capture_start(sw, 0, dir, "cap.pcapng", &probe, 0, err,
					   sizeof(err)), 0);
	uint64_t header = sw->capture->port[0].header_bytes;
	assert_int_equal(aif_capture_stop(sw, 0, NULL, err, sizeof(err)), 0);
	const struct aif_capture_params by_bytes = {
		.snaplen = 65535, .drops = true,
		.max_bytes = header + AIF_PCAPNG_ISB_BYTES + 4 * epb + epb / 2,
	};
	assert_int_equal(aif_capture_start(sw, 0, dir, "cap.pcapng", &by_bytes, 0, err,
					   sizeof(err)), 0);
	feed(sw, w, 3);
	ci = ci_of(sw, 0);
	assert_int_equal(ci.written, 3);
	assert_null(ci.limit);
	feed(sw, w, 3);
	ci = ci_of(sw, 0);
	assert_int_equal(ci.written, 4);
	assert_string_equal(ci.limit, "max_bytes");
	assert_int_equal(ci.past_limit, 2);
	assert_int_equal(ci.max_bytes, by_bytes.max_bytes);
	assert_int_equal(aif_capture_stop(sw, 0, &ci, err, sizeof(err)), 0);
	assert_true((uint64_t)file_size(p) <= by_bytes.max_bytes);
	assert_int_equal(file_size(p), header + 4 * epb + AIF_PCAPNG_ISB_BYTES);
	read_file(p, &f);
	assert_int_equal(f.n, 2 + 4 + 1);
	free(f.buf);

	/* a cap that cannot even hold the file's own blocks is refused */
	const struct aif_capture_params tiny = { .snaplen = 65535, .max_bytes = 100 };
	assert_int_equal(aif_capture_start(sw, 0, dir, "cap.pcapng", &tiny, 0, err,
					   sizeof(err)), -1);
	assert_non_null(strstr(err, "max_bytes 100 cannot hold the file's own"));
	assert_false(aif_capture_get(sw, 0, NULL));

	free_switch(sw, w);
	remove_dir(dir);
}

int
main(void)
{
	const struct CMUnitTest writer[] = {
		cmocka_unit_test(test_writer_blocks),
	};
	const struct CMUnitTest path[] = {
		cmocka_unit_test(test_capture_path),
		cmocka_unit_test(test_capture_file_refusals),
		cmocka_unit_test(test_capture_file_mode),
		cmocka_unit_test(test_capture_limits),
	};
	int rc = cmocka_run_group_tests_name("writer", writer, NULL, NULL);
	return rc | cmocka_run_group_tests_name("capture path", path, eal_setup, eal_teardown);
}
