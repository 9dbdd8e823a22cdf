#!/usr/bin/env python3
"""Times `sm120check verify` against what a user runs instead, on the same inputs, in one run.

Builds (in a temporary folder, from a fixed seed) a git checkout of N text files (Python- and
C++-like, 50-400 lines, nested folders) and P patches made with `git format-patch` (odd
numbers) and `git diff` (even numbers) from real edits of those files. Each patch is made
against the same base commit, touches files no other patch touches (1-3 files, 1-3 hunks per
file), and so applies on its own. The checkout holds patches 1..P/2 (they are `applied`) and not
P/2+1..P (they are `applicable`).

Then it times, on that checkout (median of --repeat runs, after one warm-up run):
  one patch   sm120check verify P TREE --format json
              git apply --check P  +  git apply --check -R P   (a user needs both answers)
              patch --dry-run -p1 -N -f  +  the same with -R
  series      sm120check verify DIR TREE --format json        (one process, all P patches)
              a loop of P x (git apply --check + git apply --check -R)
              a loop of P x (patch --dry-run -N + patch --dry-run -R)
and checks in the same run that every tool gives the expected verdict for every patch, that the
JSON summary counts P/2 applied and P/2 applicable, and that the exit code is 1.

Peak RSS of sm120check is measured in one extra run under GNU time (see peak_rss_kib()).
Exit status: 0 when every correctness check passed, 1 otherwise (timings are never judged).
Python 3.11 standard library only.
"""
from __future__ import annotations

import argparse
import json
import os
import random
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from dataclasses import dataclass

# ---------------------------------------------------------------------------------------------
# Running and timing children


@dataclass
class Run:
    rc: int
    seconds: float
    max_rss_kib: int
    stderr: str
    cpu_seconds: float = 0.0  # user + system time of the child


def git_env() -> dict:
    """An environment that keeps the user's git configuration out (deterministic output)."""
    env = dict(os.environ)
    env.update(
        GIT_CONFIG_NOSYSTEM="1",
        GIT_CONFIG_GLOBAL=os.devnull,
        GIT_AUTHOR_NAME="Bench",
        GIT_AUTHOR_EMAIL="bench@example.invalid",
        GIT_COMMITTER_NAME="Bench",
        GIT_COMMITTER_EMAIL="bench@example.invalid",
        GIT_AUTHOR_DATE="2024-01-01T00:00:00Z",
        GIT_COMMITTER_DATE="2024-01-01T00:00:00Z",
        LC_ALL="C",
    )
    return env


ENV = git_env()


def run_timed(cmd: list[str], cwd: str, stdout_path: str | None = None) -> Run:
    """Runs cmd, returns exit code, wall seconds and ru_maxrss (KiB; see peak_rss_kib())."""
    out = open(stdout_path, "wb") if stdout_path else subprocess.DEVNULL
    with tempfile.TemporaryFile() as err:
        t0 = time.perf_counter()
        p = subprocess.Popen(cmd, cwd=cwd, stdin=subprocess.DEVNULL, stdout=out, stderr=err,
                             env=ENV)
        _, status, usage = os.wait4(p.pid, 0)
        t1 = time.perf_counter()
        p.returncode = os.waitstatus_to_exitcode(status)
        err.seek(0)
        stderr = err.read().decode("utf-8", "replace")
    if stdout_path:
        out.close()
    return Run(p.returncode, t1 - t0, usage.ru_maxrss, stderr,
               usage.ru_utime + usage.ru_stime)


def peak_rss_kib(cmd: list[str], cwd: str) -> tuple[int, str]:
    """Peak RSS of cmd alone, in KiB, and how it was measured.

    A child's ru_maxrss keeps the high-water mark of the process it was forked from (Linux
    carries it across exec), and this script holds the fixture in memory, so the child is
    started from a small launcher: GNU time when present, else a bare Python interpreter (then
    the figure is an upper bound that includes that interpreter's ~10 MiB).
    """
    if os.path.exists("/usr/bin/time"):
        with tempfile.NamedTemporaryFile("r", suffix=".rss") as f:
            r = subprocess.run(["/usr/bin/time", "-f", "%M", "-o", f.name, *cmd], cwd=cwd,
                               env=ENV, stdin=subprocess.DEVNULL, stdout=subprocess.DEVNULL,
                               stderr=subprocess.DEVNULL)
            text = f.read().strip().splitlines()
            if text and text[-1].isdigit():
                return int(text[-1]), "GNU time"
    code = ("import resource,subprocess,sys;"
            "subprocess.run(sys.argv[1:],stdout=subprocess.DEVNULL,stderr=subprocess.DEVNULL);"
            "print(resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss)")
    r = subprocess.run([sys.executable, "-S", "-c", code, *cmd], cwd=cwd, env=ENV,
                       capture_output=True, text=True)
    return int(r.stdout.strip() or 0), "getrusage (upper bound)"


def git(args: list[str], cwd: str, stdout=None) -> str:
    r = subprocess.run(["git", *args], cwd=cwd, env=ENV, stdin=subprocess.DEVNULL,
                       stdout=stdout if stdout is not None else subprocess.PIPE,
                       stderr=subprocess.PIPE)
    if r.returncode != 0:
        sys.exit(f"bench_verify: git {' '.join(args[:3])} failed: "
                 f"{r.stderr.decode(errors='replace').strip()}")
    return r.stdout.decode(errors="replace") if r.stdout is not None else ""


# ---------------------------------------------------------------------------------------------
# The generated tree

PY_WORDS = ["load", "parse", "merge", "reduce", "split", "scale", "route", "cache", "fetch",
            "store", "pack", "unpack", "index", "sort", "filter", "apply", "emit", "build"]
CC_TYPES = ["int", "float", "double", "size_t", "int64_t", "uint32_t", "auto", "bool"]


def py_file(rng: random.Random, tag: str, n_lines: int) -> list[str]:
    lines = [f'"""Module {tag}: generated for the sm120check benchmark."""',
             "import os", "import sys", ""]
    f = 0
    while len(lines) < n_lines:
        f += 1
        w = rng.choice(PY_WORDS)
        lines.append(f"def {w}_{tag}_{f}(arg_{f}, count=0):")
        for s in range(rng.randint(3, 12)):
            w2 = rng.choice(PY_WORDS)
            kind = rng.random()
            if kind < 0.15:
                lines.append(f"    if count > {s}:  # {tag}.{f}.{s}")
                lines.append(f"        count -= {rng.randint(1, 9)}")
            elif kind < 0.25:
                lines.append(f"    for i_{s} in range(arg_{f}):  # {tag}.{f}.{s}")
                lines.append(f"        {w2}_buf_{f}_{s}.append(i_{s} * {rng.randint(2, 99)})")
            else:
                lines.append(f"    v_{f}_{s} = {w2}(arg_{f}, {rng.randint(0, 999)})  # {tag}")
        lines.append(f"    return count + {f}")
        lines.append("")
    return lines[:n_lines]


def cc_file(rng: random.Random, tag: str, n_lines: int, header: bool) -> list[str]:
    lines = [f"// {tag}: generated for the sm120check benchmark.",
             "#pragma once" if header else f'#include "{tag}.h"', "", "namespace bench {", ""]
    f = 0
    while len(lines) < n_lines - 1:
        f += 1
        t = rng.choice(CC_TYPES)
        lines.append(f"{t} fn_{tag}_{f}({t} a_{f}, int n_{f}) {{")
        for s in range(rng.randint(3, 12)):
            kind = rng.random()
            if kind < 0.2:
                lines.append(f"  if (n_{f} > {s}) {{  // {tag}.{f}.{s}")
                lines.append(f"    a_{f} += static_cast<{t}>({rng.randint(1, 999)});")
                lines.append("  }")
            else:
                lines.append(f"  {t} v_{f}_{s} = a_{f} * {rng.randint(2, 999)} + n_{f};  "
                             f"// {tag}")
        lines.append(f"  return a_{f};")
        lines.append("}")
        lines.append("")
    lines = lines[:n_lines - 1]
    lines.append("}  // namespace bench")
    return lines


def unique_line(line: str) -> bool:
    """A statement line inside a function; every such line is unique in its file."""
    return line.startswith("  ") and len(line.strip()) > 12


@dataclass
class FileEdit:
    path: str
    before: str
    after: str
    hunks: int


def make_edit(rng: random.Random, path: str, lines: list[str], patch_no: int) -> FileEdit:
    """1-3 separated edits (replace, insert, delete) at lines that occur once in the file."""
    n = len(lines)
    want = rng.randint(1, 3)
    candidates = [i for i in range(4, n - 5) if unique_line(lines[i])]
    rng.shuffle(candidates)
    chosen: list[int] = []
    for c in candidates:
        if all(abs(c - o) >= 14 for o in chosen):
            chosen.append(c)
        if len(chosen) == want:
            break
    chosen.sort()
    py = path.endswith(".py")
    new = list(lines)
    for h, pos in reversed(list(enumerate(chosen, 1))):
        indent = lines[pos][: len(lines[pos]) - len(lines[pos].lstrip())]

        def added(k: int) -> list[str]:
            if py:
                return [f"{indent}fix_{patch_no}_{h}_{j} = guard({j})  # bench patch {patch_no}"
                        for j in range(k)]
            return [f"{indent}check_{patch_no}_{h}_{j}();  // bench patch {patch_no}"
                    for j in range(k)]

        op = rng.choice(["replace", "insert", "delete"])
        if op == "replace":
            k = 1
            new[pos:pos + k] = added(rng.randint(1, 3))
        elif op == "insert":
            new[pos + 1:pos + 1] = added(rng.randint(1, 4))
        else:
            new[pos:pos + 1] = []
    return FileEdit(path, "\n".join(lines) + "\n", "\n".join(new) + "\n", len(chosen))


def build_fixture(root: str, n_files: int, n_patches: int, seed: int) -> dict:
    rng = random.Random(seed)
    tree = os.path.join(root, "tree")
    pdir = os.path.join(root, "patches")
    os.makedirs(tree)
    os.makedirs(pdir)
    t0 = time.perf_counter()

    # Nested folders: top/sub/leaf with 8-40 files per leaf folder.
    paths: list[str] = []
    d = 0
    while len(paths) < n_files:
        d += 1
        top = f"{rng.choice(['core', 'ops', 'kernels', 'runtime', 'serving', 'utils'])}{d % 17}"
        folder = os.path.join(top, f"mod{d % 13}", f"part{d}")
        if rng.random() < 0.3:
            folder = os.path.join(folder, "detail")
        for k in range(rng.randint(8, 40)):
            if len(paths) == n_files:
                break
            ext = rng.choice([".py", ".py", ".cc", ".h"])
            paths.append(os.path.join(folder, f"f{d}_{k}{ext}"))
    contents: dict[str, list[str]] = {}
    total_bytes = 0
    for i, p in enumerate(paths):
        tag = f"m{i}"
        n_lines = rng.randint(50, 400)
        if p.endswith(".py"):
            lines = py_file(rng, tag, n_lines)
        else:
            lines = cc_file(rng, tag, n_lines, p.endswith(".h"))
        contents[p] = lines
        full = os.path.join(tree, p)
        os.makedirs(os.path.dirname(full), exist_ok=True)
        data = "\n".join(lines) + "\n"
        total_bytes += len(data)
        with open(full, "w", encoding="utf-8", newline="\n") as fh:
            fh.write(data)
    git(["init", "-q", "-b", "base"], tree)
    git(["add", "-A"], tree)
    git(["commit", "-q", "-m", "base"], tree)
    t_tree = time.perf_counter() - t0

    # Patches: each against the base commit, on files no other patch touches.
    pool = list(paths)
    rng.shuffle(pool)
    edits: list[list[FileEdit]] = []
    patch_files: list[str] = []
    hunks_total = 0
    # format-patch commits are made with a scratch index (no work-tree scan, no checkout).
    scratch_index = os.path.join(root, "scratch-index")
    base_index = os.path.join(tree, ".git", "index")
    for no in range(1, n_patches + 1):
        nfiles = rng.randint(1, 3)
        chosen, pool = pool[:nfiles], pool[nfiles:]
        es = [make_edit(rng, p, contents[p], no) for p in chosen]
        edits.append(es)
        hunks_total += sum(e.hunks for e in es)
        for e in es:
            with open(os.path.join(tree, e.path), "w", encoding="utf-8", newline="\n") as fh:
                fh.write(e.after)
        out = os.path.join(pdir, f"{no:04d}.patch")
        rel = [e.path for e in es]
        with open(out, "wb") as fh:
            if no % 2:
                shutil.copyfile(base_index, scratch_index)
                ENV["GIT_INDEX_FILE"] = scratch_index
                try:
                    git(["update-index", "--", *rel], tree)
                    tree_id = git(["write-tree"], tree).strip()
                finally:
                    del ENV["GIT_INDEX_FILE"]
                commit = git(["commit-tree", tree_id, "-p", "base", "-m",
                              f"bench patch {no}: edit {len(rel)} file(s)"], tree).strip()
                git(["format-patch", "-1", "--stdout", commit], tree, stdout=fh)
            else:
                git(["diff", "--", *rel], tree, stdout=fh)
        for e in es:
            with open(os.path.join(tree, e.path), "w", encoding="utf-8", newline="\n") as fh:
                fh.write(e.before)
        patch_files.append(out)

    # The checkout: patches 1..half are in it, the rest are not.
    half = n_patches // 2
    git(["checkout", "-q", "-b", "main"], tree)
    for es in edits[:half]:
        for e in es:
            with open(os.path.join(tree, e.path), "w", encoding="utf-8", newline="\n") as fh:
                fh.write(e.after)
    git(["add", "-A"], tree)
    git(["commit", "-q", "-m", f"apply bench patches 1..{half}"], tree)
    expected = {os.path.basename(p): ("applied" if i < half else "applicable")
                for i, p in enumerate(patch_files)}
    return {"tree": tree, "patch_dir": pdir, "patches": patch_files, "expected": expected,
            "bytes": total_bytes, "hunks": hunks_total, "seconds_tree": t_tree,
            "seconds_all": time.perf_counter() - t0}


# ---------------------------------------------------------------------------------------------
# Reading sm120check's JSON (tolerant: only the fields named in docs/json.md that we need)


def patch_statuses(doc: dict, names: list[str] | None = None) -> dict[str, str]:
    """basename of each patch's source -> status. When the sources do not name the files (a
    folder given as one source), and the count matches, `names` (sorted file names) are paired
    with the patches in order."""
    out = {}
    entries = doc.get("patches", [])
    for i, p in enumerate(entries):
        src = p.get("source") or f"#{i + 1}"
        out[os.path.basename(str(src))] = p.get("status")
    if names and not set(names) <= set(out) and len(entries) == len(names):
        out = {n: p.get("status") for n, p in zip(sorted(names), entries)}
    return out


def summary_counts(doc: dict) -> dict[str, int]:
    s = doc.get("summary")
    if isinstance(s, dict):
        counts = s.get("counts", s) if isinstance(s.get("counts", s), dict) else s
        return {k: v for k, v in counts.items() if isinstance(v, int)}
    counts: dict[str, int] = {}
    for p in doc.get("patches", []):
        counts[p.get("status")] = counts.get(p.get("status"), 0) + 1
    return counts


def verdict(fwd_ok: bool, rev_ok: bool) -> str:
    """What a user concludes from a forward and a reverse check."""
    if fwd_ok and rev_ok:
        return "ambiguous"
    if rev_ok:
        return "applied"
    if fwd_ok:
        return "applicable"
    return "conflict"


# ---------------------------------------------------------------------------------------------


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--bin", default="./build/sm120check", help="sm120check binary")
    ap.add_argument("--files", type=int, default=20000, help="files in the tree")
    ap.add_argument("--patches", type=int, default=200, help="patches (even number)")
    ap.add_argument("--repeat", type=int, default=20, help="runs per one-patch measurement")
    ap.add_argument("--series-repeat", type=int, default=3, help="runs per series measurement")
    ap.add_argument("--seed", type=int, default=120)
    ap.add_argument("--keep", action="store_true", help="keep the temporary folder")
    ap.add_argument("--workdir", help="build the fixture here instead of a temporary folder")
    args = ap.parse_args()
    if args.patches < 2 or args.patches % 2:
        ap.error("--patches must be an even number >= 2")
    if args.files < 3 * args.patches:
        ap.error("--files must be at least 3 x --patches (patches touch distinct files)")
    binary = os.path.abspath(args.bin)
    if not (os.path.isfile(binary) and os.access(binary, os.X_OK)):
        ap.error(f"{args.bin}: no executable there (build it, or pass --bin PATH)")
    has_patch = shutil.which("patch") is not None

    root = args.workdir or tempfile.mkdtemp(prefix="sm120check-bench-")
    if args.workdir:
        os.makedirs(root, exist_ok=False)
    failures: list[str] = []
    try:
        print(f"building fixture in {root} (seed {args.seed}) ...", flush=True)
        fx = build_fixture(root, args.files, args.patches, args.seed)
        tree, pdir, patches, expected = fx["tree"], fx["patch_dir"], fx["patches"], fx["expected"]
        print(f"  {args.files} files, {fx['bytes'] / 1e6:.1f} MB, {len(patches)} patches, "
              f"{fx['hunks']} hunks; tree {fx['seconds_tree']:.1f} s, "
              f"all {fx['seconds_all']:.1f} s", flush=True)
        print(f"  git: {subprocess.run(['git', '--version'], capture_output=True, text=True).stdout.strip()}"
              + (f"; {subprocess.run(['patch', '--version'], capture_output=True, text=True).stdout.splitlines()[0]}"
                 if has_patch else "; GNU patch: absent"), flush=True)
        half = len(patches) // 2
        one_applied = patches[half // 2]               # in the tree
        one_applicable = patches[half + half // 2]     # not in the tree
        json_out = os.path.join(root, "out.json")

        def sm_verify(srcs: list[str]) -> Run:
            return run_timed([binary, "verify", *srcs, tree, "--format", "json"], tree, json_out)

        def git_pair(p: str) -> tuple[Run, Run]:
            return (run_timed(["git", "apply", "--check", p], tree),
                    run_timed(["git", "apply", "--check", "-R", p], tree))

        def patch_pair(p: str) -> tuple[Run, Run]:
            base = ["patch", "--dry-run", "-s", "-f", "-p1"]
            return (run_timed(base + ["-N", "-i", p], tree),
                    run_timed(base + ["-R", "-N", "-i", p], tree))

        rows = []  # (case, tool, median s, ratio vs sm120check, aim)

        # ---- one patch ---------------------------------------------------------------------
        for label, p in (("one patch, applicable", one_applicable),
                         ("one patch, applied", one_applied)):
            want = expected[os.path.basename(p)]
            want_rc = 0 if want == "applied" else 1
            sm_times, git_times, gp_times, norepo_times = [], [], [], []
            for i in range(args.repeat + 1):
                r = sm_verify([p])
                nr = run_timed([binary, "verify", "--no-repo", p, tree, "--format", "json"], tree)
                if i > 0:
                    norepo_times.append(nr.seconds)
                if i == 0:  # warm-up; also the correctness check
                    try:
                        doc = json.load(open(json_out, encoding="utf-8"))
                        got = patch_statuses(doc).get(os.path.basename(p))
                    except (OSError, ValueError) as e:
                        got = f"unreadable JSON ({e})"
                    if r.rc != want_rc or got != want:
                        failures.append(f"{label}: sm120check said {got!r} exit {r.rc}, "
                                        f"expected {want!r} exit {want_rc}; "
                                        f"stderr: {r.stderr.strip()[:300]}")
                else:
                    sm_times.append(r.seconds)
                f, b = git_pair(p)
                if i == 0:
                    g = verdict(f.rc == 0, b.rc == 0)
                    if g != want:
                        failures.append(f"{label}: git apply --check (+ -R) says {g}, "
                                        f"expected {want}")
                else:
                    git_times.append(f.seconds + b.seconds)
                if has_patch:
                    f, b = patch_pair(p)
                    if i == 0:
                        g = verdict(f.rc == 0, b.rc == 0)
                        if g != want:
                            failures.append(f"{label}: patch --dry-run (-N, -R) says {g}, "
                                            f"expected {want}")
                    else:
                        gp_times.append(f.seconds + b.seconds)
            sm = statistics.median(sm_times)
            kib, how = peak_rss_kib([binary, "verify", p, tree, "--format", "json"], tree)
            rows.append((label, "sm120check verify --format json", sm, None,
                         f"peak RSS {kib / 1024:.1f} MiB ({how})"))
            g = statistics.median(git_times)
            rows.append((label, "git apply --check, --check -R", g, g / sm, "aim: ratio > 1"))
            nr = statistics.median(norepo_times)
            rows.append((label, "sm120check verify --no-repo", nr, g / nr,
                         "no repository section: libgit2 not loaded; ratio = git / this"))
            if has_patch:
                gp = statistics.median(gp_times)
                rows.append((label, "patch --dry-run -N, -R -N", gp, gp / sm, ""))

        # ---- series ------------------------------------------------------------------------
        sm_times, git_times, gp_times = [], [], []
        series_src = [pdir]
        for i in range(args.series_repeat + 1):
            r = sm_verify(series_src)
            if i == 0 and r.rc == 3 and series_src == [pdir]:
                # The binary may not accept a folder; fall back to naming every patch.
                print(f"  note: 'verify DIR TREE' failed ({r.stderr.strip()[:200]}); "
                      "passing the patch files instead", flush=True)
                series_src = list(patches)
                r = sm_verify(series_src)
            if i == 0:
                try:
                    doc = json.load(open(json_out, encoding="utf-8"))
                except (OSError, ValueError) as e:
                    doc = {}
                    failures.append(f"series: sm120check JSON unreadable ({e}); exit {r.rc}; "
                                    f"stderr: {r.stderr.strip()[:300]}")
                counts = summary_counts(doc)
                want_counts = {"applied": half, "applicable": half}
                got_counts = {k: v for k, v in counts.items() if v}
                if got_counts != want_counts:
                    failures.append(f"series: summary {got_counts}, expected {want_counts}")
                if r.rc != 1:
                    failures.append(f"series: exit code {r.rc}, expected 1")
                got = patch_statuses(doc, list(expected))
                for name, want in expected.items():
                    if got.get(name) != want:
                        failures.append(f"series: {name}: sm120check says {got.get(name)!r}, "
                                        f"expected {want!r}")
                sm_series_statuses = got
            else:
                sm_times.append(r.seconds)
            t0 = time.perf_counter()
            verdicts = {}
            for p in patches:
                f, b = git_pair(p)
                verdicts[os.path.basename(p)] = verdict(f.rc == 0, b.rc == 0)
            if i == 0:
                for name, want in expected.items():
                    if verdicts[name] != want:
                        failures.append(f"series: {name}: git says {verdicts[name]}, "
                                        f"expected {want}")
                    if sm_series_statuses.get(name) != verdicts[name]:
                        print(f"  disagreement: {name}: sm120check "
                              f"{sm_series_statuses.get(name)!r} vs git {verdicts[name]!r}")
            else:
                git_times.append(time.perf_counter() - t0)
            if has_patch:
                t0 = time.perf_counter()
                verdicts = {}
                for p in patches:
                    f, b = patch_pair(p)
                    verdicts[os.path.basename(p)] = verdict(f.rc == 0, b.rc == 0)
                if i == 0:
                    for name, want in expected.items():
                        if verdicts[name] != want:
                            failures.append(f"series: {name}: GNU patch says {verdicts[name]}, "
                                            f"expected {want}")
                else:
                    gp_times.append(time.perf_counter() - t0)
        label = f"series of {len(patches)}"
        sm = statistics.median(sm_times)
        kib, how = peak_rss_kib([binary, "verify", *series_src, tree, "--format", "json"], tree)
        rows.append((label, "sm120check verify DIR (1 process)", sm, None,
                     f"peak RSS {kib / 1024:.1f} MiB ({how})"))
        g = statistics.median(git_times)
        rows.append((label, f"{len(patches)} x git apply --check, -R", g, g / sm,
                     "aim: ratio >= 10"))
        if has_patch:
            gp = statistics.median(gp_times)
            rows.append((label, f"{len(patches)} x patch --dry-run", gp, gp / sm, ""))

        # ---- report ------------------------------------------------------------------------
        print()
        print(f"medians: one patch over {args.repeat} runs, series over {args.series_repeat} "
              "runs; ratio = that tool's time / sm120check's time (higher = sm120check faster)")
        w = max(len(r[1]) for r in rows)
        print(f"{'case':<24} {'tool':<{w}} {'median s':>10} {'ratio':>8}  note")
        for case, tool, sec, ratio, note in rows:
            rs = "" if ratio is None else f"{ratio:.2f}x"
            print(f"{case:<24} {tool:<{w}} {sec:>10.4f} {rs:>8}  {note}")
        print()
        one = [r for r in rows if r[0].startswith("one patch") and r[1].startswith("git")]
        ser = [r for r in rows if r[0].startswith("series") and r[1].startswith(f"{len(patches)} x git")]
        for r in one:
            print(f"aim {r[0]}: faster than git apply -> {'met' if r[3] > 1 else 'NOT met'} "
                  f"({r[3]:.2f}x)")
        for r in ser:
            print(f"aim {r[0]}: 10x faster than the git loop -> "
                  f"{'met' if r[3] >= 10 else 'NOT met'} ({r[3]:.2f}x)")
        print()
        if failures:
            print(f"correctness: {len(failures)} FAILED check(s)")
            for f in failures[:50]:
                print("  " + f)
            if len(failures) > 50:
                print(f"  ... and {len(failures) - 50} more")
        else:
            print("correctness: all checks passed (sm120check, git and GNU patch agree with "
                  "the expected verdicts; summary and exit code as expected)")
        return 1 if failures else 0
    finally:
        if args.keep:
            print(f"kept {root}")
        else:
            shutil.rmtree(root, ignore_errors=True)


if __name__ == "__main__":
    sys.exit(main())
