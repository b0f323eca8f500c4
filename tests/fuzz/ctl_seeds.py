#!/usr/bin/python3
# SPDX-License-Identifier: BSD-3-Clause
"""Seeds and a dictionary for the control commands' fuzzer (fuzz_ctl.c).

  tests/fuzz/ctl_seeds.py SEEDS_DIR DICT_FILE [BUILD_DIR]

One request line a file: every command of control/ctl_commands.h, with and
without a switch, with the arguments each takes (a link down and up, rates,
a capture started and stopped, a trace, loads by name and by object, a
load-balancing program loaded from BUILD_DIR/examples/lb/ecmp.o when it is
there, and unloaded), and requests that are not commands.  The names are
those of fuzz_ctl.c's fabric (a generated 2 x 2 leaf-spine, two hosts a
leaf).  DICT_FILE gets the command names and the requests' keys.
"""
import base64
import json
import os
import re
import sys

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
CONFIG = {"topology": {"leaf_spine": {"leaves": 2, "spines": 2, "hosts_per_leaf": 2}}}


def main():
    seeds, dict_file = sys.argv[1], sys.argv[2]
    build = sys.argv[3] if len(sys.argv) > 3 else None
    os.makedirs(seeds, exist_ok=True)
    header = open(os.path.join(ROOT, "control", "ctl_commands.h")).read()
    cmds = [c for c in re.findall(r"_\((\w+),", header) if c != "name"]
    reqs = []
    for c in cmds:
        reqs.append({"cmd": c})
        reqs.append({"cmd": c, "switch": "leaf0"})
    reqs += [
        {"cmd": "link_set", "link": "leaf0:u0-spine0:d0", "state": "down"},
        {"cmd": "link_set", "link": "leaf0:u0", "state": "up"},
        {"cmd": "link_set", "link": "spine1:d1", "loss_rate": 0.25, "corrupt_rate": 0.01},
        {"cmd": "load", "path": "fabric.json"},
        {"cmd": "load", "path": "bad.json"},
        {"cmd": "load", "config": CONFIG},
        {"cmd": "capture_start", "switch": "leaf0", "port": "h0", "file": "c0.pcapng",
         "drops": True, "snaplen": 128, "max_bytes": 100000, "max_packets": 10},
        {"cmd": "capture_stop", "switch": "leaf0", "port": "h0"},
        {"cmd": "trace_start", "switch": "leaf1", "dst": "10.0.0.2", "src": "10.1.0.2",
         "src_port": 4791, "dst_port": 4791},
        {"cmd": "show_trace", "switch": "leaf1", "clear": True},
        {"cmd": "trace_stop", "switch": "leaf1"},
        {"cmd": "lb_unload", "name": "mine"},
        {"cmd": "show_counters", "switch": "spine0"},
    ]
    obj = os.path.join(build, "examples", "lb", "ecmp.o") if build else None
    if obj and os.path.exists(obj):
        b64 = base64.b64encode(open(obj, "rb").read()).decode()
        reqs.append({"cmd": "lb_load", "object": b64, "name": "mine", "tc": 3})
        reqs.append({"cmd": "lb_load", "object": b64, "name": "mine2", "program": "ecmp",
                     "group": "via-spine0-spine1", "table_size": 64})
    lines = [json.dumps(r, separators=(",", ":")) for r in reqs]
    lines += ["", "{}", "[]", "{\"cmd\": 7}", "{\"cmd\":\"nope\"}", "{\"cmd\":\"status\"} x"]
    for i, line in enumerate(lines):
        with open(os.path.join(seeds, "req_%03d" % i), "w") as f:
            f.write(line)
    keys = set(cmds)
    for r in reqs:
        keys.update(r.keys())
    keys.update(["up", "down", "true", "false", "null"])
    with open(dict_file, "w") as f:
        for k in sorted(keys):
            f.write('"\\"%s\\""\n' % k)
    print("%d seeds, %d dictionary words" % (len(lines), len(keys)))


if __name__ == "__main__":
    main()
