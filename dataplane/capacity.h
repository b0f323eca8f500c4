/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Sizes the dataplane is built for.  Control's config reader checks a file
 * against them; nothing here depends on anything but the compiler.
 */
#ifndef AIF_CAPACITY_H
#define AIF_CAPACITY_H

#define AIF_MAX_SWITCHES 4096      /* in one process (a k=56 fat-tree has 3,920) */
#define AIF_MAX_PORTS 64          /* per switch */
#define AIF_MAX_PORT_ADDRS 8      /* per port, v4 and v6 together */
#define AIF_MAX_GROUPS 1024       /* next-hop groups per switch */
#define AIF_MAX_MEMBERS 64        /* members per next-hop group */
#define AIF_MAX_ROUTES 65536      /* per switch */
#define AIF_MAX_NEIGHBORS 4096    /* configured neighbour slots per switch */
#define AIF_MAX_POLICIES 64
#define AIF_FLOWLET_TABLE_MAX 65536 /* flowlet table entries per worker */
#define AIF_MAX_SHARDS 16         /* shards of one switch (one per runner that drives it) */
#define AIF_MAX_RUNNERS 64        /* virtual-time runners (and their threads) in one
				   * process; real time's workers: AIF_MAX_SHARDS */
#define AIF_MAX_MEMBER_SLOTS 8192 /* distinct group members configured at once
				   * (a reload needs the old and the new ones) */
#define AIF_BURST 32              /* packets per receive burst and TX buffer */
#define AIF_DEV_NAME_MAX 64
#define AIF_ERR_MAX 256

#endif /* AIF_CAPACITY_H */
