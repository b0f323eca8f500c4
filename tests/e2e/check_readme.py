#!/usr/bin/python3
# SPDX-License-Identifier: BSD-3-Clause
"""
The README's examples, as a newcomer on a fresh clone would type them.

  tests/e2e/check_readme.py [BUILD_DIR]        (default build)

Checks that README.md holds no merge conflict markers, then reads every
fenced `sh` block of README.md (lines joined at a trailing
backslash, comments dropped) and:

  - files: every path an example names in the tree (config/, examples/,
    scripts/, tests/, include/, and the binaries build/aifabric and
    build/aifabricctl) exists; paths without a directory (lab.json,
    in.pcap, my_scheme.c) are the reader's own;
  - runs: every virtual-time example (`build/aifabric -- ...`: no EAL
    arguments, no device, no root; not the synopsis) runs as written, each bounded by a
    timeout, in a scratch tree that looks like a fresh clone with the
    build done (config/, examples/, scripts/, tests/, include/ and the
    binaries; no output directory made in advance; /tmp/ paths moved into
    the scratch tree), and exits 0 having written every output it names
    (--results DIR, --samples PREFIX, --pcap-out DIR, --stats FILE); the
    multi-plane example gives the README's figures and counts 8 hosts on
    2 planes;
  - scripts/run: one of its runs failing (a load-balancing program that is
    not there) is reported and the other runs are still compared, with
    exit status 1, in a scratch output directory (AIF_RUN_OUT); and
    scripts/compare names a run without a `label` file by its directory.

Prints PASS/FAIL lines and "N passed, M failed"; exit 0 only when all pass.
README_KEEP=1 keeps the scratch tree.  About 30 s.
"""

import os
import re
import shlex
import shutil
import subprocess
import sys
import tempfile

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.normpath(os.path.join(HERE, "..", ".."))
TREE = ("config", "examples", "scripts", "tests", "include")
BINARIES = ("build/aifabric", "build/aifabricctl")
RUN_TIMEOUT_S = 180

passed = failed = 0


def check(ok, what, why=""):
    global passed, failed
    if ok:
        passed += 1
        print("PASS " + what)
    else:
        failed += 1
        print("FAIL " + what + (": " + why if why else ""))


def examples(readme):
    """(line number, command) for every command of every ```sh block."""
    out, block, start, cont = [], False, 0, ""
    for n, line in enumerate(open(readme), 1):
        s = line.strip()
        if s.startswith("```"):
            block = s == "```sh" and not block
            cont = ""
            continue
        if not block:
            continue
        if cont:
            cont += " " + s
        else:
            start, cont = n, s
        if cont.endswith("\\"):
            cont = cont[:-1].rstrip()
            continue
        cmd = re.sub(r"(^|\s)#.*$", "", cont).strip()  # a comment, to the end
        if cmd:
            out.append((start, cmd))
        cont = ""
    return out


def named_paths(cmd):
    """Paths in the tree a command names, wherever they stand in an
    argument (--pcap-in leaf0:h0=config/x.pcap, --vdev ...,rx_pcap=...)."""
    pat = r"(?:^|[\s=,:])((?:%s)/[A-Za-z0-9_./-]+|%s)(?=$|[\s,])" % (
        "|".join(TREE), "|".join(re.escape(b) for b in BINARIES))
    return [m.group(1).rstrip(".") for m in re.finditer(pat, cmd)]


def outputs(args):
    """What a daemon command says it writes: (option, path) pairs."""
    out = []
    for i, a in enumerate(args[:-1]):
        if a in ("--results", "--pcap-out", "--stats", "--samples"):
            out.append((a, args[i + 1]))
    return out


def scratch_tree(build):
    """A directory that looks like a fresh clone, built: the tree linked in,
    build/ holding only the binaries and the example programs."""
    t = tempfile.mkdtemp(prefix="aif-readme.")
    for d in TREE:
        os.symlink(os.path.join(ROOT, d), os.path.join(t, d))
    os.makedirs(os.path.join(t, "build", "examples"))
    for b in BINARIES:
        os.symlink(os.path.join(build, os.path.basename(b)), os.path.join(t, b))
    os.symlink(os.path.join(build, "examples", "lb"), os.path.join(t, "build", "examples", "lb"))
    return t


def run_example(t, line, cmd):
    args = [a.replace("/tmp/", t + "/tmp/") for a in shlex.split(cmd)]
    env = dict(os.environ)
    try:
        p = subprocess.run(args, cwd=t, stdout=subprocess.PIPE, stderr=subprocess.STDOUT,
                           stdin=subprocess.DEVNULL, timeout=RUN_TIMEOUT_S, env=env)
    except subprocess.TimeoutExpired:
        check(False, "README line %d runs" % line, "over %d s: %s" % (RUN_TIMEOUT_S, cmd))
        return
    text = p.stdout.decode(errors="replace")
    with open(os.path.join(t, "line%d.log" % line), "w") as f:
        f.write(text)
    if p.returncode != 0:
        check(False, "README line %d runs as written" % line,
              "exit %d: %s" % (p.returncode, " | ".join(text.strip().split("\n")[-3:])))
        return
    missing = []
    for opt, path in outputs(args):
        path = os.path.join(t, path)
        want = {"--samples": [path + "-links.csv", path + "-queues.csv"],
                "--results": [os.path.join(path, "summary.json")],
                "--pcap-out": [path], "--stats": [path]}[opt]
        missing += [w for w in want if not os.path.exists(w)]
    # the multi-plane example's figures, and how it counts its hosts
    for conf, jct, ideal, hosts in (
            ("fabric-4x2-2planes.json", 388, 366,
             "8 virtual hosts, each with a port on 2 planes (16 host ports)"),
            ("fabric-4x2-1plane.json", 730, 688, "8 virtual hosts, 1 job")):
        if conf not in cmd:
            continue
        row = re.search(r"^  allreduce\s+allreduce_ring\s+1/1\s+([\d.]+)\s+([\d.]+)", text, re.M)
        check(row is not None and round(float(row.group(1))) == jct and
              round(float(row.group(2))) == ideal and hosts in text,
              "README line %d: all-reduce %d us, ideal %d us, \"%s\"" % (line, jct, ideal, hosts),
              row.group(0) if row else "no all-reduce row")
    summary = next((l for l in text.split("\n") if l.startswith("summary:")), "no summary")
    check(not missing, "README line %d runs as written: %s" % (line, summary[:70]),
          "not written: " + ", ".join(os.path.relpath(m, t) for m in missing))


def check_scripts_run(t):
    """scripts/run with a run that cannot start: the others still compared."""
    out = os.path.join(t, "run")
    env = dict(os.environ, AIF_RUN_OUT=out, AIF_RUN_JOBS="2")
    try:
        p = subprocess.run([os.path.join(ROOT, "scripts", "run"), "ecmp", "bpf:no_such_program"],
                           cwd=ROOT, stdout=subprocess.PIPE, stderr=subprocess.STDOUT,
                           stdin=subprocess.DEVNULL, timeout=300, env=env)
    except subprocess.TimeoutExpired:
        check(False, "scripts/run: a failed run reported, the others compared", "over 300 s")
        return
    text = p.stdout.decode(errors="replace")
    with open(os.path.join(t, "scripts-run.log"), "w") as f:
        f.write(text)
    table = [l for l in text.split("\n") if l.startswith("ECMP ")]
    check(p.returncode == 1 and len(table) == 1 and
          "failed: 1 of 2 runs:" in text and "no_such_program (eBPF program)" in text,
          "scripts/run: a failed run reported, the others compared, exit 1",
          "exit %d, %s" % (p.returncode, " | ".join(text.strip().split("\n")[-6:])))
    # scripts/compare: no label file, the directory's name
    ecmp = os.path.join(out, "ecmp")
    if os.path.exists(os.path.join(ecmp, "summary.json")):
        os.unlink(os.path.join(ecmp, "label"))
        p = subprocess.run(["/usr/bin/python3", os.path.join(ROOT, "scripts", "compare"),
                            os.path.join(t, "cmp"), ecmp, os.path.join(out, "no_such_program")],
                           stdout=subprocess.PIPE, stderr=subprocess.STDOUT, timeout=120)
        text = p.stdout.decode(errors="replace")
        check(p.returncode == 0 and re.search(r"^ecmp\s+\d", text, re.M) is not None and
              "no_such_program has no summary.json" in text,
              "scripts/compare: a run without label by its directory, a failed one left out",
              "exit %d: %s" % (p.returncode, text[-300:]))


def main():
    build = os.path.abspath(sys.argv[1] if len(sys.argv) > 1 else os.path.join(ROOT, "build"))
    for b in BINARIES:
        if not os.access(os.path.join(build, os.path.basename(b)), os.X_OK):
            sys.exit("check_readme: %s has no %s (build first)" % (build, os.path.basename(b)))
    with open(os.path.join(ROOT, "README.md")) as f:
        markers = [i + 1 for i, l in enumerate(f) if re.match(r"(<{7}|={7}|>{7})( |$)", l)]
    check(not markers, "README: no merge conflict markers",
          "at lines " + ", ".join(map(str, markers)))
    cmds = examples(os.path.join(ROOT, "README.md"))
    check(len(cmds) >= 10, "README: %d example commands in sh blocks" % len(cmds))
    for line, cmd in cmds:
        for path in named_paths(cmd):
            where = os.path.join(build, os.path.basename(path)) if path in BINARIES \
                else os.path.join(ROOT, path)
            check(os.path.exists(where), "README line %d names %s" % (line, path),
                  "no such file in the tree")
    t = scratch_tree(build)
    # a synopsis ("--config FILE [--pcap-in ...]") is not an example
    quick = [(l, c) for l, c in cmds if c.startswith("build/aifabric -- ") and
             not re.search(r"\[|(^|\s)[A-Z]{3,}($|\s)", c)]
    check(len(quick) >= 5, "README: %d virtual-time examples to run" % len(quick))
    for line, cmd in quick:
        run_example(t, line, cmd)
    check_scripts_run(t)
    if os.environ.get("README_KEEP") == "1":
        print("check_readme: files kept in " + t)
    else:
        shutil.rmtree(t, ignore_errors=True)
    print("%d passed, %d failed" % (passed, failed))
    sys.exit(1 if failed else 0)


if __name__ == "__main__":
    main()
