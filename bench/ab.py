#!/usr/bin/env python3
"""Alternating timing of two or more whole commands, for machines without farm-bench.

Each command is a shell string (run with sh -c, so loops and pipes work). They run in turn,
A B C A B C ..., after one warm-up round that is not counted; each run's wall time is a monotonic
clock around the child, its CPU time (user + system) the kernel's accounting of the child and
everything it waited for (os.wait4 on sh). Prints per command the median wall and CPU seconds and
the ratios of medians to the LAST command (the yardstick), and fails when a run exits with a code
not in --ok.

    python3 bench/ab.py -n 7 --ok 0,2 'sm120check verify P T' 'sm120check verify -j 1 P T' \\
        'for p in P/*; do git -C T apply --check $p; git -C T apply --check -R $p; done'

Exit status: 0, or 1 when some run exited with a code outside --ok.
Python 3 standard library only.
"""
from __future__ import annotations

import argparse
import os
import statistics
import subprocess
import sys
import time


def run(cmd: str) -> tuple[float, float, int]:
    start = time.monotonic()
    proc = subprocess.Popen(["sh", "-c", cmd], stdout=subprocess.DEVNULL,
                            stderr=subprocess.DEVNULL)
    _, status, usage = os.wait4(proc.pid, 0)
    wall = time.monotonic() - start
    proc.returncode = os.waitstatus_to_exitcode(status)
    return wall, usage.ru_utime + usage.ru_stime, proc.returncode


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("-n", type=int, default=7, help="counted runs of each command (default 7)")
    ap.add_argument("--ok", default="0", help="exit codes that pass, comma separated (default 0)")
    ap.add_argument("commands", nargs="+", help="shell commands; the last is the yardstick")
    args = ap.parse_args()
    ok = {int(c) for c in args.ok.split(",")}
    walls: list[list[float]] = [[] for _ in args.commands]
    cpus: list[list[float]] = [[] for _ in args.commands]
    bad = 0
    for r in range(args.n + 1):
        for i, cmd in enumerate(args.commands):
            wall, cpu, code = run(cmd)
            if code not in ok:
                bad += 1
                print(f"command {i + 1} exited {code}: {cmd}", file=sys.stderr)
            if r > 0:
                walls[i].append(wall)
                cpus[i].append(cpu)
    base_wall = statistics.median(walls[-1])
    base_cpu = statistics.median(cpus[-1])
    print(f"{args.n} runs each, alternating; ratios are medians over the last command's")
    for i, cmd in enumerate(args.commands):
        w, c = statistics.median(walls[i]), statistics.median(cpus[i])
        print(f"[{i + 1}] wall {w:8.4f} s ({w / base_wall:5.2f}x)  cpu {c:8.4f} s "
              f"({c / base_cpu:5.2f}x)  wall min..max {min(walls[i]):.4f}..{max(walls[i]):.4f}  "
              f"{cmd[:90]}")
    return 1 if bad else 0


if __name__ == "__main__":
    sys.exit(main())
