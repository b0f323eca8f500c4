/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Flow files as the ns-3 simulators of HPCC and ConWeave read them, so that
 * a run here replays exactly the flows a run there did.
 *
 *   ConWeave (traffic_gen.py, network-load-balance.cc ReadFlowInput):
 *	N
 *	src dst priority size_bytes start_seconds      (N lines)
 *   HPCC (third.cc):
 *	N
 *	src dst priority dport size_bytes start_seconds
 *
 * The first line's first number is the count (the generator overwrites an
 * estimate in place: whatever follows it on that line is ignored); exactly
 * N flow lines are read (later lines are ignored, as ns-3 does), one flow
 * per line.  src and dst are host ids (0 .. hosts - 1), priority 0..7,
 * dport 0..65535, size a whole number of bytes (0 is sent as 1, as ns-3
 * does), start a non-negative decimal number of seconds.
 *
 * Start times: ns-3 makes a flow's QP at Seconds(start), i.e. at
 * floor(d x 1e9) ns where d is the double nearest the decimal string and
 * the product is exact (not rounded to a double first: that differs for
 * about a quarter of ConWeave's flows; nor the decimal's own exact value:
 * that differs for half).  aif_flowfile_time_ns computes exactly that.
 *
 * Refused, with "FILE:LINE: why": a path that is no regular file (a FIFO
 * or device is never opened for reading), an empty or malformed count, a
 * line with too few or too many fields, a field that is not a number of
 * its kind (nan, inf, negative, fractional ids or sizes), a flow from a
 * host to itself, fewer flow lines than the count says.
 */
#ifndef AIF_FLOWFILE_H
#define AIF_FLOWFILE_H

#include <stddef.h>
#include <stdint.h>

#include "../dataplane/types.h"

#define AIF_FLOWFILE_MAX_FLOWS 10000000u
#define AIF_FLOWFILE_MAX_BYTES 1000000000000ull /* per flow */
#define AIF_FLOWFILE_MAX_START_S 1000000.0

enum aif_flowfile_format {
	AIF_FLOWFILE_CONWEAVE,  /* src dst pg size start */
	AIF_FLOWFILE_HPCC,      /* src dst pg dport size start */
};

struct aif_flowfile_flow {
	uint32_t src, dst;      /* host ids */
	uint32_t line;          /* in the file, from 1 */
	uint16_t dport;         /* HPCC: the file's; ConWeave: 0 */
	uint8_t pg;             /* priority */
	uint64_t bytes;         /* >= 1 */
	aif_time_ns start_ns;   /* as the file says (absolute) */
};

struct aif_flowfile {
	enum aif_flowfile_format format;
	uint32_t n;
	struct aif_flowfile_flow *f;    /* in file order */
	uint32_t max_host;              /* the largest src or dst */
	aif_time_ns first_ns;           /* the earliest start */
};

/* "conweave" or "hpcc"; -1 if neither. */
int aif_flowfile_format_parse(const char *name);
const char *aif_flowfile_format_name(enum aif_flowfile_format f);

/* Read path; 0, or -1 with err ("PATH:LINE: why" or "PATH: why") and ff
 * empty. */
int aif_flowfile_load(const char *path, enum aif_flowfile_format fmt, struct aif_flowfile *ff,
		      char *err, size_t err_len);
void aif_flowfile_free(struct aif_flowfile *ff);

/* A start time in seconds (a decimal string) to ns as ns-3 makes it:
 * floor(double(s) x 1e9), exact; 0, or -1 if s is not a non-negative
 * finite number of at most AIF_FLOWFILE_MAX_START_S. */
int aif_flowfile_time_ns(const char *s, aif_time_ns *ns);

#endif /* AIF_FLOWFILE_H */
