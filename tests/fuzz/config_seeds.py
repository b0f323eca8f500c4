#!/usr/bin/python3
# SPDX-License-Identifier: BSD-3-Clause
"""Seeds and a dictionary for the config and workload loaders' fuzzers
(fuzz_config.c, fuzz_workload.c).

  tests/fuzz/config_seeds.py SEEDS_DIR DICT_FILE            (configs)
  tests/fuzz/config_seeds.py --workload SEEDS_DIR DICT_FILE (jobs files)

SEEDS_DIR gets every config of config/ (a file with "switches" or
"topology"), the README's configuration example, and variants of them: each
load-balancing scheme and its options, the QoS of config/example.json with
the ns-3 buffer and PFC modes, wire models, small generated fabrics (leaf-spine
with planes, links down and a split (with BFD on its cut link), fat-trees with planes) and written-out
leaf-spines (tests/e2e/fabric_traffic.py written).  DICT_FILE gets
every field and value name the README's configuration reference spells in
backquotes, as libFuzzer's dictionary entries.

With --workload: the jobs files of config/ and the README's, a job of every
kind (with the CDF and the flow file fuzz_workload.c puts beside the jobs
file), the hosts' options; the dictionary from the README's virtual hosts
and jobs section.
"""
import copy
import json
import os
import re
import sys

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))


def configs(want):
    out = {}
    for d, _, files in os.walk(os.path.join(ROOT, "config")):
        for f in sorted(files):
            if not f.endswith(".json"):
                continue
            p = os.path.join(d, f)
            try:
                c = json.load(open(p))
            except ValueError:
                continue
            if want(c):
                out[os.path.relpath(p, ROOT).replace("/", "_")] = c
    return out


def readme_blocks(text):
    blocks, cur = [], None
    for line in text.split("\n"):
        if line.startswith("```"):
            if cur is None:
                cur = []
            else:
                blocks.append("\n".join(cur))
                cur = None
        elif cur is not None:
            cur.append(line)
    out = {}
    for i, b in enumerate(blocks):
        try:
            out["readme_%d.json" % i] = json.loads(b)
        except ValueError:
            continue
    return out


def is_config(c):
    return isinstance(c, dict) and ("switches" in c or "topology" in c)


def is_jobs(c):
    return isinstance(c, dict) and "jobs" in c


def with_policy(c, policy):
    c = copy.deepcopy(c)
    pol = c.setdefault("policies", {}).setdefault("default", {})
    pol.update(copy.deepcopy(policy))
    return c


LB = [
    {"scheme": "ecmp", "hash": "toeplitz", "hash_fields": ["src_ip", "dst_ip", "dest_qp"]},
    {"scheme": "ecmp", "hash": "murmur3_ns3", "buckets_per_member": 1},
    {"scheme": "wcmp"},
    {"scheme": "flowlet", "flowlet": {"gap_us": 50, "table_size": 64, "table": "direct",
                                      "mode": "least_loaded", "gap_test": "lt"}},
    {"scheme": "spray", "spray": {"mode": "drill", "samples": 3, "distinct": False,
                                  "memory": "group", "queue_read": "step"}},
    {"scheme": "spray", "spray": {"mode": "round_robin"}},
    {"scheme": "adaptive", "adaptive": {"period_ns": 500, "ewma_shift": 2, "mode": "packet"}},
    {"scheme": "ecmp", "per_tc": {"3": "flowlet"}, "control_tc": []},
]

TOPOLOGIES = [
    {"leaf_spine": {"leaves": 2, "spines": 2, "hosts_per_leaf": 2, "planes": 2}},
    {"leaf_spine": {"leaves": 3, "spines": 2, "hosts_per_leaf": 1,
                    "down_links": ["leaf0:u1-spine1:d0", "leaf2:u0"]}},
    {"leaf_spine": {"leaves": 2, "spines": 1, "emulate": ["leaf0"],
                    "link_devices": {"leaf0:u0": "net_af_packet0"}}},
    {"leaf_spine": {"leaves": 2, "spines": 1, "emulate": ["leaf1", "spine0"],
                    "link_devices": {"spine0:d0": "net_af_packet0"},
                    "bfd": {"interval_ms": 20, "multiplier": 3}}},
    {"fat_tree": {"k": 4}},
    {"fat_tree": {"k": 4, "down_links": ["pod0-agg0:u0"]}},
    {"fat_tree": {"k": 4, "planes": 2}},
]


JOBS = [
    {"name": "r", "kind": "allreduce_ring", "hosts": "all", "bytes": 65536, "chunks": 2,
     "iterations": 2, "straggler": {"host": "leaf1-0", "us": 5}},
    {"name": "h", "kind": "allreduce_hd", "hosts": ["leaf0-0", "leaf1-0"], "bytes": 4096},
    {"name": "g", "kind": "allgather", "hosts": "all", "bytes": 4096, "start_us": 3},
    {"name": "s", "kind": "reduce_scatter", "hosts": "all", "bytes": 4096},
    {"name": "a", "kind": "alltoall", "hosts": "all", "bytes": 4096},
    {"name": "i", "kind": "incast", "hosts": "all", "bytes": 4096, "ideal": "ns3"},
    {"name": "p", "kind": "permutation", "hosts": "all", "bytes": 4096},
    {"name": "b", "kind": "poisson", "hosts": "all", "load": 0.3,
     "cdf": "workloads/AliStorage2019.txt", "stop_us": 20},
    {"name": "f", "kind": "flow_file", "file": "flows.txt", "format": "conweave",
     "absolute": True, "ideal": "base"},
]

HOSTS = {"mtu": 1000, "verb": "send", "receive": "out_of_order", "cnp": "frame",
         "cnp_interval_ns": 50000, "ack_every": 2, "dcqcn": True, "icrc": False,
         "identities": "ns3", "dcqcn_preset": "hpcc_run"}


def workload(seeds, dict_file, readme):
    out = configs(is_jobs)
    out.update({k: v for k, v in readme_blocks(readme).items() if is_jobs(v)})
    for i, j in enumerate(JOBS):
        out["job_%d.json" % i] = {"jobs": [j]}
        out["job_hosts_%d.json" % i] = {"hosts": HOSTS, "jobs": [j],
                                        "qlen_monitor": {"interval_ns": 1000}, "pfc_log": True}
    out["jobs_all.json"] = {"jobs": JOBS}
    write(seeds, out)
    ref = readme.split("\n### Virtual RoCE hosts and jobs", 1)[-1].split("\n### ", 1)[0]
    return out, words(dict_file, ref)


def write(seeds, out):
    for name, c in out.items():
        with open(os.path.join(seeds, name), "w") as f:
            json.dump(c, f, separators=(",", ":"))


def words(dict_file, ref):
    found = sorted(set(re.findall(r"`\"?([a-z][a-z0-9_:.]*)\"?`", ref)))
    with open(dict_file, "w") as f:
        for w in found:
            f.write('"\\"%s\\""\n' % w)
    return found


def main():
    args = sys.argv[1:]
    jobs = args[:1] == ["--workload"]
    seeds, dict_file = args[-2], args[-1]
    os.makedirs(seeds, exist_ok=True)
    readme = open(os.path.join(ROOT, "README.md")).read()
    if jobs:
        out, found = workload(seeds, dict_file, readme)
        print("%d seeds, %d dictionary words" % (len(out), len(found)))
        return
    base = configs(is_config)
    base.update({k: v for k, v in readme_blocks(readme).items() if is_config(v)})
    out = dict(base)
    example = base.get("config_example.json")
    fabric = base.get("config_fabric-4x2.json")
    for i, lb in enumerate(LB):
        for name, c in (("example", example), ("fabric", fabric)):
            if c is not None:
                out["lb_%s_%d.json" % (name, i)] = with_policy(c, {"load_balancing": lb})
    if example is not None:
        qos = example.get("policies", {}).get("default", {}).get("qos")
        if isinstance(qos, dict):
            ns3 = copy.deepcopy(qos)
            ns3.setdefault("buffer", {})["model"] = "conweave"
            ns3.setdefault("pfc", {})["mode"] = "ns3"
            out["qos_ns3.json"] = with_policy(example, {"qos": ns3})
            c = copy.deepcopy(example)
            c["wire_model"] = "ns3"
            out["wire_ns3.json"] = c
    for i, t in enumerate(TOPOLOGIES):
        out["topology_%d.json" % i] = {"topology": t}
    # leaf-spines written out (switches, links, hosts; no generator)
    sys.path.insert(0, os.path.join(ROOT, "tests", "e2e"))
    import fabric_traffic
    for leaves, spines in ((2, 2), (3, 2)):
        out["written_%dx%d.json" % (leaves, spines)] = fabric_traffic.written_config(leaves,
                                                                                     spines)
    write(seeds, out)
    # the dictionary: what the configuration reference names
    ref = readme.split("\n## Configuration", 1)[-1].split("\n## Performance", 1)[0]
    found = words(dict_file, ref)
    print("%d seeds, %d dictionary words" % (len(out), len(found)))


if __name__ == "__main__":
    main()
