#!/usr/bin/env python3
"""Where one `verify` run's wall time goes: a per-phase timeline, medians over many runs.

Runs `sm120check verify --no-gpu --format json PATCH TREE` N times with SM120CHECK_TRACE set
(include/sm120check/trace.hpp: spans per thread on CLOCK_MONOTONIC, the clock of
time.monotonic_ns()), each started directly with posix_spawn and reaped with wait4, so that the
span times line up with the process's own start and end. Prints, per span name, the median
start (ms after spawn), median duration and thread, then the gaps the spans do not cover:
spawn -> main() (exec, dynamic loading, static constructors) and main()'s end -> reaped (exit).
Alternating with the run, it times the baselines a reader needs to judge the figures:
/bin/true (the host's process floor), `sm120check --version`, `git --version` and each half of
the git pair (`git apply --check`, `git apply --check -R`).

    python3 bench/trace_timeline.py --binary BIN --patch PATCH --tree TREE [--runs 41]

Python 3.11 standard library only. A wrong exit code (verify: 0) stops it with exit 1.
"""
from __future__ import annotations

import argparse
import json
import os
import statistics
import sys
import tempfile
import time


def spawn(argv: list[str], cwd: str, env: dict[str, str]) -> tuple[int, int, float, int, int, int]:
    """(exit code, wall ns, CPU s, spawn ns, reaped ns, minor page faults) of argv run in cwd,
    output to /dev/null."""
    devnull = os.open(os.devnull, os.O_WRONLY)
    old = os.getcwd()
    os.chdir(cwd)
    try:
        t0 = time.monotonic_ns()
        pid = os.posix_spawn(argv[0], argv, env,
                             file_actions=[(os.POSIX_SPAWN_DUP2, devnull, 1),
                                           (os.POSIX_SPAWN_DUP2, devnull, 2)])
        _, status, ru = os.wait4(pid, 0)
        t1 = time.monotonic_ns()
    finally:
        os.chdir(old)
        os.close(devnull)
    return (os.waitstatus_to_exitcode(status), t1 - t0, ru.ru_utime + ru.ru_stime, t0, t1,
            ru.ru_minflt)


def which(name: str) -> str:
    for d in os.environ.get("PATH", "/usr/bin:/bin").split(":"):
        p = os.path.join(d, name)
        if os.access(p, os.X_OK):
            return p
    sys.exit(f"trace_timeline: {name} not found")


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--binary", required=True)
    ap.add_argument("--patch", required=True)
    ap.add_argument("--tree", required=True)
    ap.add_argument("--runs", type=int, default=41)
    ap.add_argument("--extra", action="append", default=[],
                    help="more verify options to time as a variant (e.g. --extra=--no-repo); repeat")
    ap.add_argument("--tunables", action="append", default=[],
                    help="time verify with GLIBC_TUNABLES set to this as a variant; repeat")
    args = ap.parse_args()
    binary, patch, tree = (os.path.abspath(p) for p in (args.binary, args.patch, args.tree))
    git = which("git")
    true = which("true")
    env = dict(os.environ)
    trace_file = os.path.join(tempfile.mkdtemp(prefix="sm120check-trace-"), "trace.json")
    traced_env = dict(env, SM120CHECK_TRACE=trace_file)
    verify = [binary, "verify", "--no-gpu", "--format", "json", patch, tree]
    base = {
        "true": ([true], env, None),
        "sm120check --version": ([binary, "--version"], env, 0),
        "git --version": ([git, "--version"], env, 0),
        "git apply --check": ([git, "apply", "--check", patch], env, None),
        "git apply --check -R": ([git, "apply", "--check", "-R", patch], env, None),
        "verify (untraced)": (verify, env, 0),
    }
    for extra in args.extra:
        base[f"verify {extra}"] = (verify[:2] + extra.split() + verify[2:], env, 0)
    for tunables in args.tunables:
        base[f"verify, GLIBC_TUNABLES={tunables}"] = (verify, dict(env, GLIBC_TUNABLES=tunables), 0)
    walls: dict[str, list[int]] = {k: [] for k in base}
    cpus: dict[str, list[float]] = {k: [] for k in base}
    faults: dict[str, list[int]] = {k: [] for k in base}
    spans: dict[tuple[str, int], list[tuple[float, float, int]]] = {}
    gaps: dict[str, list[float]] = {"spawn -> main()": [], "main() end -> reaped": []}
    traced_walls: list[int] = []
    for r in range(args.runs + 1):
        rc, wall, cpu, t0, t1, _ = spawn(verify, tree, traced_env)
        if rc != 0:
            print(f"trace_timeline: verify exit {rc}", file=sys.stderr)
            return 1
        events = json.load(open(trace_file))["traceEvents"]
        if r > 0:  # the first round warms the caches
            traced_walls.append(wall)
            seen: dict[tuple[str, int], tuple[float, float, int]] = {}
            for e in events:
                key = (e["name"], 0 if e["tid"] == 0 else 1)  # main thread (first to record) or not
                start = e["ts"] * 1e3 - t0
                flt = e.get("args", {}).get("faults", 0)
                if key not in seen:  # the first of repeated spans (verify-file ...) and their sum
                    seen[key] = (start, e["dur"] * 1e3, flt)
                else:
                    seen[key] = (seen[key][0], seen[key][1] + e["dur"] * 1e3, seen[key][2] + flt)
            for key, v in seen.items():
                spans.setdefault(key, []).append(v)
            main = next(e for e in events if e["name"] == "main")
            gaps["spawn -> main()"].append(main["ts"] * 1e3 - t0)
            gaps["main() end -> reaped"].append(t1 - (main["ts"] + main["dur"]) * 1e3)
        for name, (argv, e, ok) in base.items():
            rc, wall, cpu, _, _, flt = spawn(argv, tree, e)
            if ok is not None and rc != ok:
                print(f"trace_timeline: {name} exit {rc}", file=sys.stderr)
                return 1
            if r > 0:
                walls[name].append(wall)
                cpus[name].append(cpu)
                faults[name].append(flt)
    ms = lambda ns: ns / 1e6  # noqa: E731
    print(f"{args.runs} rounds, alternating, after a warm-up; cores: {os.cpu_count()}; "
          f"tree {tree}")
    print("\n| command | median wall ms | median CPU ms | median minor faults |\n|---|---|---|---|")
    for name in base:
        print(f"| {name} | {ms(statistics.median(walls[name])):.3f} | "
              f"{statistics.median(cpus[name]) * 1e3:.2f} | {statistics.median(faults[name]):.0f} |")
    print(f"| verify (traced) | {ms(statistics.median(traced_walls)):.3f} | |")
    print("\n| span | thread (0: main) | median start ms | median duration ms (summed when repeated) "
          "| median minor faults (summed) | runs |\n|---|---|---|---|---|---|")
    rows = [(statistics.median(s for s, _, _ in v), name, tid,
             statistics.median(d for _, d, _ in v), statistics.median(f for _, _, f in v), len(v))
            for (name, tid), v in spans.items()]
    for start, name, tid, dur, flt, n in sorted(rows):
        print(f"| {name} | {tid} | {ms(start):.3f} | {ms(dur):.3f} | {flt:.0f} | {n} |")
    for name, v in gaps.items():
        print(f"| ({name}) | 0 | | {ms(statistics.median(v)):.3f} | | {len(v)} |")
    return 0


if __name__ == "__main__":
    sys.exit(main())
