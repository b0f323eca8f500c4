/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * aifabricctl lb test FILE.o [options]: run a load-balancing program
 * against a recorded (pcap) or generated packet trace, offline, and print
 * its member distribution, counters and cost per packet, beside a built-in
 * scheme's on the same trace (lb_test.c says how).  argv[0] is "test".
 */
#ifndef AIF_LB_TEST_H
#define AIF_LB_TEST_H

int aif_lb_test_main(int argc, char **argv);

#endif /* AIF_LB_TEST_H */
