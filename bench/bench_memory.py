#!/usr/bin/env python3
"""Peak memory and CPU time of `sm120check verify` against input size (issue 11).

Three input dimensions, each at 1x, 2x, 4x and 8x (generated, deterministic):
  files   a plain tree of N files of 400 lines and one patch modifying each of them with two
          hunks (N = 500 .. 4000; patch 0.6 .. 4.6 MB): the usual shape of a big patch
  line    one hunk adding a single line of L bytes (L = 7.5 .. 60 MiB: 8x is the largest line
          that fits the 64 MiB patch limit)
  hunks   one file of 2H lines and a patch of H one-line hunks (H = 62.5k .. 500k; patch 2.3 ..
          19.8 MB)

Each input is run --runs times (default 3) after one warm-up; the child's peak RSS
(ru_maxrss from wait4) and CPU time (user + system) are taken, and the median of each printed
with the ratio to 1x. Growth is linear when the ratios follow the input factor (2, 4, 8) after
the fixed start-up cost; the script also prints the slope (RSS bytes per input byte between 1x
and 8x) and flags a CPU or RSS ratio at 8x above 1.5 times the input factor (12x) as
superlinear. Exit codes are checked (every run must exit 1: applicable).

    python3 bench/bench_memory.py --binary build/sm120check --workdir /tmp/bench-memory
    python3 bench/bench_memory.py --binary build/sm120check --dims hunks --runs 5

Python 3.11 standard library only.
"""
from __future__ import annotations

import argparse
import os
import statistics
import subprocess
import sys
import time
from pathlib import Path

FACTORS = (1, 2, 4, 8)


def write_if_missing(path: Path, make) -> None:
    """Writes make()'s text to `path` unless a complete copy is there (a stamp beside it)."""
    stamp = path.with_name(path.name + ".done")
    if stamp.exists():
        return
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(make(), encoding="ascii")
    stamp.write_text("")


def make_files(root: Path, factor: int) -> tuple[Path, Path]:
    """N = 500 * factor files of 400 lines, and a patch with two hunks per file."""
    n = 500 * factor
    tree = root / f"files-{factor}x" / "tree"
    patch = root / f"files-{factor}x" / "p.patch"
    if not (root / f"files-{factor}x" / "tree.done").exists():
        for i in range(n):
            f = tree / f"pkg{i % 50}" / f"mod{i}.py"
            f.parent.mkdir(parents=True, exist_ok=True)
            f.write_text("".join(f"value_{i}_{k} = compute({k}, {i})\n" for k in range(400)))
        (root / f"files-{factor}x" / "tree.done").write_text("")

    def text() -> str:
        out = []
        for i in range(n):
            name = f"pkg{i % 50}/mod{i}.py"
            out.append(f"diff --git a/{name} b/{name}\n--- a/{name}\n+++ b/{name}\n")
            for at in (100, 300):  # 1-based first context line
                ctx = [f"value_{i}_{k} = compute({k}, {i})" for k in range(at - 1, at + 6)]
                out.append(f"@@ -{at},7 +{at},7 @@\n")
                out += [f" {c}\n" for c in ctx[:3]]
                out.append(f"-{ctx[3]}\n+{ctx[3]}  # SM120: smaller tiles\n")
                out += [f" {c}\n" for c in ctx[4:]]
        return "".join(out)

    write_if_missing(patch, text)
    return patch, tree


def make_line(root: Path, factor: int) -> tuple[Path, Path]:
    """One hunk adding a line of 7.5 MiB * factor."""
    tree = root / "line-tree"
    write_if_missing(tree / "g.txt", lambda: "a\nb\n")
    patch = root / f"line-{factor}x.patch"
    length = (15 << 19) * factor  # 7.5 MiB
    write_if_missing(patch, lambda: "--- a/g.txt\n+++ b/g.txt\n@@ -1,2 +1,3 @@\n a\n+"
                     + "x" * length + "\n b\n")
    return patch, tree


def make_hunks(root: Path, factor: int) -> tuple[Path, Path]:
    """H = 62500 * factor one-line hunks on a file of 2H lines."""
    h = 62500 * factor
    tree = root / f"hunks-{factor}x" / "tree"
    write_if_missing(tree / "f.txt", lambda: "".join(f"l{i}\n" for i in range(2 * h)))
    patch = root / f"hunks-{factor}x" / "p.patch"
    write_if_missing(patch, lambda: "--- a/f.txt\n+++ b/f.txt\n" + "".join(
        f"@@ -{2 * k + 1} +{2 * k + 1} @@\n-l{2 * k}\n+L{2 * k}\n" for k in range(h)))
    return patch, tree


DIMENSIONS = {"files": make_files, "line": make_line, "hunks": make_hunks}


def run_once(binary: str, patch: Path, tree: Path) -> tuple[float, float, float]:
    """One verify run: (peak RSS in MiB, CPU seconds, wall seconds). Fails on a wrong exit code."""
    start = time.perf_counter()
    proc = subprocess.Popen([binary, "verify", "--no-gpu", "--no-repo", "--format", "json",
                             str(patch), str(tree)], stdout=subprocess.DEVNULL,
                            stderr=subprocess.PIPE)
    _, status, usage = os.wait4(proc.pid, 0)
    wall = time.perf_counter() - start
    err = proc.stderr.read().decode(errors="replace") if proc.stderr else ""
    code = os.waitstatus_to_exitcode(status)
    if code != 1:
        sys.exit(f"{patch}: exit {code}, expected 1 (applicable): {err.strip()}")
    return usage.ru_maxrss / 1024, usage.ru_utime + usage.ru_stime, wall


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--binary", default="build/sm120check")
    parser.add_argument("--workdir", default="/tmp/bench-memory")
    parser.add_argument("--dims", default=",".join(DIMENSIONS), help="comma separated")
    parser.add_argument("--runs", type=int, default=3)
    args = parser.parse_args()
    root = Path(args.workdir)
    superlinear = False
    print("| input | factor | patch MB | peak RSS MiB | RSS / 1x | CPU s | CPU / 1x |")
    print("|---|---|---|---|---|---|---|")
    for dim in args.dims.split(","):
        rows = []
        for factor in FACTORS:
            patch, tree = DIMENSIONS[dim](root, factor)
            run_once(args.binary, patch, tree)  # warm-up (page cache)
            samples = [run_once(args.binary, patch, tree) for _ in range(args.runs)]
            rss = statistics.median(s[0] for s in samples)
            cpu = statistics.median(s[1] for s in samples)
            rows.append((factor, patch.stat().st_size, rss, cpu))
        base = rows[0]
        for factor, size, rss, cpu in rows:
            print(f"| {dim} | {factor}x | {size / 1e6:.1f} | {rss:.1f} | {rss / base[2]:.2f} | "
                  f"{cpu:.3f} | {cpu / base[3]:.2f} |", flush=True)
        last = rows[-1]
        slope = (last[2] - base[2]) * (1 << 20) / (last[1] - base[1])
        flags = []
        if last[3] / base[3] > 12:
            flags.append("CPU superlinear")
        if last[2] / base[2] > 12:
            flags.append("RSS superlinear")
        superlinear = superlinear or bool(flags)
        print(f"|  {dim}: {slope:.1f} bytes of RSS per patch byte (1x to 8x)"
              f"{'; ' + ', '.join(flags) if flags else ''} | | | | | | |", flush=True)
    return 1 if superlinear else 0


if __name__ == "__main__":
    sys.exit(main())
