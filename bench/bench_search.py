#!/usr/bin/env python3
"""Marker search speed: `sm120check grep` against `rg -F -n` and `git grep -F -n`.

Builds a large tree (COPIES copies of a Python standard library, /usr/lib/python3.X by
default, or any folder given with --source: e.g. a fetched repository; never committed), then
searches it for the same fixed strings with each tool, in one run: one warm-up run each (page
cache), then RUNS timed runs; prints the median wall time, peak RSS (ru_maxrss of the child) and
the number of output lines (which should agree), and the ratios to `rg`.

Every tool writes to a regular file (ripgrep stops at the first match when stdout is /dev/null),
searches hidden files, ignores no .gitignore, follows no symlink, and skips binary files.

    python3 bench/bench_search.py --bin build/sm120check [--copies 8] [--runs 5] [--threads N]

Python 3.11 standard library only.
"""
import argparse
import os
import shutil
import statistics
import subprocess
import sys
import tempfile
import time

STRINGS = [
    "CUDA_CAPABILITY[0] == 12",          # the SM120 fix: absent
    "_get_block_sizes_for_extend_attention",  # absent
    "def __init__(self",                 # very common
    "raise ValueError(",                 # common
    "sm120",                             # absent
    "Copyright",                         # common, in headers
]


def build_tree(source, copies, dest):
    stamp = os.path.join(dest, ".bench-stamp")
    want = f"{os.path.realpath(source)} x{copies}\n"
    if os.path.exists(stamp) and open(stamp).read() == want:
        return
    shutil.rmtree(dest, ignore_errors=True)
    os.makedirs(dest)
    for i in range(copies):
        shutil.copytree(source, os.path.join(dest, f"copy{i}"), symlinks=True,
                        ignore=shutil.ignore_patterns(".git"), dirs_exist_ok=True)
    with open(stamp, "w") as f:
        f.write(want)


def run_once(cmd, cwd):
    with tempfile.TemporaryFile() as out:
        start = time.perf_counter()
        proc = subprocess.Popen(cmd, cwd=cwd, stdout=out, stderr=subprocess.DEVNULL)
        _, status, usage = os.wait4(proc.pid, 0)
        wall = time.perf_counter() - start
        proc.returncode = os.waitstatus_to_exitcode(status)
        out.seek(0)
        lines = sum(1 for _ in out)
    if proc.returncode not in (0, 1):
        sys.exit(f"bench: {cmd[0]} failed with {proc.returncode}")
    return wall, usage.ru_maxrss, lines


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--bin", default="./build/sm120check")
    ap.add_argument("--source", default=f"/usr/lib/python3.{sys.version_info.minor}")
    ap.add_argument("--copies", type=int, default=8)
    ap.add_argument("--runs", type=int, default=5)
    ap.add_argument("--threads", type=int, default=0, help="for every tool; 0 = its default")
    ap.add_argument("--tree", default=os.path.join(tempfile.gettempdir(), "sm120check-bench-tree"))
    args = ap.parse_args()
    binary = os.path.abspath(args.bin)
    build_tree(args.source, args.copies, args.tree)
    nfiles = sum(len(f) for _, _, f in os.walk(args.tree))
    nbytes = sum(os.path.getsize(os.path.join(d, n)) for d, _, fs in os.walk(args.tree)
                 for n in fs if not os.path.islink(os.path.join(d, n)))
    print(f"tree: {args.tree}: {args.copies} x {args.source}, {nfiles} files, "
          f"{nbytes / 2**20:.0f} MiB; {len(STRINGS)} fixed strings; "
          f"{os.cpu_count()} CPUs; median of {args.runs}")

    e = [x for s in STRINGS for x in ("-e", s)]
    threads = args.threads
    tools = {
        "sm120check grep": [binary, "grep", "--color", "never"]
        + (["-j", str(threads)] if threads else []) + [args.tree] + STRINGS,
        "rg -F -n": ["rg", "-F", "-n", "--no-ignore", "--hidden", "--color", "never"]
        + (["-j", str(threads)] if threads else []) + e + [args.tree],
        "git grep -F -n": ["git", "-c", f"grep.threads={threads}", "grep", "--no-index", "-I",
                           "-F", "-n"] + e + ["."],
    }
    results = {}
    for name, cmd in tools.items():
        if shutil.which(cmd[0]) is None and not os.path.exists(cmd[0]):
            print(f"{name}: not installed, skipped")
            continue
        run_once(cmd, args.tree)  # warm-up
        walls, rss, lines = [], 0, 0
        for _ in range(args.runs):
            w, r, n = run_once(cmd, args.tree)
            walls.append(w)
            rss, lines = max(rss, r), n
        results[name] = (statistics.median(walls), rss, lines)
    base = results.get("rg -F -n", (None,))[0]
    print(f"{'tool':<18}{'median s':>10}{'x rg':>8}{'peak RSS MiB':>14}{'lines':>10}")
    for name, (wall, rss, lines) in results.items():
        ratio = f"{wall / base:.2f}" if base else "-"
        print(f"{name:<18}{wall:>10.3f}{ratio:>8}{rss / 1024:>14.1f}{lines:>10}")


if __name__ == "__main__":
    main()
