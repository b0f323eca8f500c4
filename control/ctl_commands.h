/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * The control commands, once: the daemon's dispatch (commands.c), its
 * "unknown command" error and aifabricctl's words and usage are generated
 * from this list, so they cannot disagree.  Plain C, no dependencies: the
 * client includes it too.
 *
 * _(name, words, args, flags, what)
 *   name   the request's "cmd"; the daemon's handler is ctl_<name>
 *   words  what aifabricctl takes for it ("show pfc")
 *   args   what follows the words, for the usage
 *   flags  AIF_CTL_F_SWITCH: about switches: "switch" names one, all when
 *          omitted (one result per switch, see commands.h);
 *          AIF_CTL_F_ONE: about one switch: "switch" may be omitted only
 *          when the daemon runs one;
 *          AIF_CTL_F_CONFIG: needs a config loaded;
 *          AIF_CTL_F_WORDS: the client builds it from the words alone
 *          (plus --switch)
 *   what   a line for the usage
 */
#ifndef AIF_CTL_COMMANDS_H
#define AIF_CTL_COMMANDS_H

#define AIF_CTL_F_SWITCH 1u
#define AIF_CTL_F_ONE 2u
#define AIF_CTL_F_CONFIG 4u
#define AIF_CTL_F_WORDS 8u

#define AIF_CTL_VIEW (AIF_CTL_F_SWITCH | AIF_CTL_F_CONFIG | AIF_CTL_F_WORDS)

#define AIF_FOREACH_CTL_CMD(_)                                                          \
	_(status, "status", "", AIF_CTL_F_WORDS,                                         \
	  "version, uptime, switches, config generation")                                \
	_(load, "load", "FILE", 0,                                                       \
	  "replace the running config with FILE's (sent by the client)")                 \
	_(show_ports, "show ports", "", AIF_CTL_VIEW, "ports: device, MAC, speed, link")  \
	_(show_routes, "show routes", "", AIF_CTL_VIEW, "connected, local and configured routes") \
	_(show_neighbors, "show neighbors", "", AIF_CTL_VIEW,                            \
	  "neighbours and neighbour learning")                                           \
	_(show_groups, "show groups", "", AIF_CTL_VIEW,                                  \
	  "next-hop groups: members, counts, flowlet collisions")                        \
	_(show_topology, "show topology", "", AIF_CTL_VIEW,                            \
	  "each port: what it is (dpdk, link, pcap) and what is at its other end")     \
	_(show_links, "show links", "", AIF_CTL_F_WORDS,                                 \
	  "emulated links: packets, bytes, utilization, pauses (--switch: its links)")   \
	_(link_set, "link", "NAME [up|down] [loss=RATE] [corrupt=RATE]", 0,             \
	  "take an emulated link (or a port's BFD session) down or up, set its loss and " \
	  "corruption rates")                                                           \
	_(show_counters, "show counters", "", AIF_CTL_VIEW, "port counters and drops by reason") \
	_(clear_counters, "clear counters", "", AIF_CTL_VIEW, "counters start from zero") \
	_(show_pfc, "show pfc", "", AIF_CTL_VIEW, "PFC and PAUSE frames, time paused")   \
	_(show_queues, "show queues", "", AIF_CTL_VIEW, "egress queues: depth, ECN, drops") \
	_(show_buffer, "show buffer", "", AIF_CTL_VIEW, "shared buffer and headroom")    \
	_(show_pfcwd, "show pfcwd", "", AIF_CTL_VIEW, "PFC watchdog")                    \
	_(show_bfd, "show bfd", "", AIF_CTL_VIEW,                                        \
	  "BFD sessions on links to elsewhere: state, peer, packets, refusals")         \
	_(clear_watermarks, "clear watermarks", "", AIF_CTL_VIEW, "buffer watermarks start over") \
	_(capture_start, "capture start",                                                \
	  "PORT NAME [--drops] [--snaplen N] [--max-bytes N] [--max-packets N]",         \
	  AIF_CTL_F_ONE | AIF_CTL_F_CONFIG,                                              \
	  "pcapng capture of PORT into NAME in the daemon's --capture-dir")              \
	_(capture_stop, "capture stop", "PORT", AIF_CTL_F_ONE | AIF_CTL_F_CONFIG,        \
	  "stop PORT's capture")                                                         \
	_(show_captures, "show captures", "", AIF_CTL_VIEW, "captures running")          \
	_(trace_start, "trace start", "DST [src=IP] [sport=N] [dport=N]",                \
	  AIF_CTL_F_ONE | AIF_CTL_F_CONFIG, "record the path of matching packets")       \
	_(trace_stop, "trace stop", "", AIF_CTL_F_ONE | AIF_CTL_F_CONFIG, "stop tracing") \
	_(show_trace, "show trace", "", AIF_CTL_F_ONE | AIF_CTL_F_CONFIG | AIF_CTL_F_WORDS, \
	  "the packets traced")                                                          \
	_(lb_load, "lb load",                                                            \
	  "FILE.o [--name NAME] [--program P] [--tc N | --group G] [--table-size N]",    \
	  0, "load a load-balancing program (eBPF) into the switch(es) under traffic")   \
	_(lb_unload, "lb unload", "NAME", 0,                                             \
	  "stop a program lb load loaded; the policy's schemes take over")              \
	_(show_lb, "show lb", "", AIF_CTL_VIEW,                                          \
	  "load-balancing programs: where they run, engine, runs, fallbacks, counters")

#endif /* AIF_CTL_COMMANDS_H */
