#!/usr/bin/env python3
"""One file, many commits with frequent reverts: every state judged as a series (hostile F4).

Per seed, a git repository holds one Python file (a function of 200 indented lines) and gets
--commits random commits: change a line, insert one, delete one, or `git revert HEAD` (a third
of them; a revert of a revert too). The commits are exported with `git format-patch`
(--no-index: the `index` lines taken out, as in plain diffs, so that no blob id places the
file). On a copy of every state k (the tree of commit k):

  verify   one `verify --no-gpu --no-repo --format json DIR TREE` call; patch j should read
           applied for j <= k and applicable for j > k, except where git's own content cannot
           tell (below): there applied, applicable and unknown are counted apart (ambiguous)
  apply    `apply DIR TREE` must exit 0 and give the last state byte for byte
  reverse  from the last state only: `apply --reverse` gives state 0

Git's truth is approximated (every subset `git apply` takes, as bench/random_series.py does,
is 2^80 here): a patch and a later one that undoes it exactly (a revert; an insertion and the
deletion of that line), both on one side of k, can both be in the tree or both out, so neither
is decided. Anything else (conflict, partial, unknown, or the other one of applied and
applicable) is a disagreement, as is an apply that fails or writes another tree. Longer chains
that undo themselves (insert a line, change it, delete it) are not recognised: their patches
show as false-applied or false-applicable where git cannot tell either (seed 33: patches 31, 42
and 74); check such lines by hand (--verbose --keep).

--flat writes the lines unindented (`v = 1`): every line is then a section header by git's
default rule, and an exact image at a small offset under another "section" is dropped by the
matcher (see outside_section() in src/match/match.cpp), which this generator makes common.

Usage:
  python3 bench/revert_chain.py --seeds 7-16 [--no-index] [--commits 80] [--bin build/sm120check]

Prints one line per seed (counts) and one per disagreement with --verbose; exits 1 when any
seed disagrees. Python 3.11 standard library only.
"""
from __future__ import annotations

import argparse
import collections
import concurrent.futures
import json
import os
import random
import shutil
import subprocess
import sys
import tempfile

sys.dont_write_bytecode = True
sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from random_series import git, parse_seeds  # noqa: E402

HERE = os.path.dirname(os.path.abspath(__file__))


def make_chain(seed: int, repo: str, commits: int, indent: str) -> None:
    """The seed's repository at `repo`: a base commit and `commits` random ones."""
    rng = random.Random(seed)
    os.makedirs(repo)
    git(repo, "init", "-q")
    lines = ["def f():"] + [f"{indent}v = {i}" for i in range(1, 201)]

    def commit(message: str) -> None:
        with open(os.path.join(repo, "f.py"), "w") as f:
            f.write("\n".join(lines) + "\n")
        git(repo, "add", "-A")
        git(repo, "commit", "-qm", message)

    commit("base")
    for c in range(commits):
        op = rng.choice(["mod", "mod", "ins", "del", "revert", "revert"])
        if op == "revert" and c > 0:
            git(repo, "revert", "--no-edit", "HEAD")
            with open(os.path.join(repo, "f.py")) as f:
                lines = f.read().splitlines()
            continue
        op = "mod" if op == "revert" else op
        i = rng.randrange(len(lines))
        if op == "mod":
            lines[i] += f" # c{c}"
        elif op == "ins":
            lines.insert(i, f"{indent}w = {rng.randint(0, 99)} # c{c}")
        else:
            del lines[i]
        commit(f"c{c} {op}")


def undo_pairs(patches: list[str]) -> list[tuple[int, int]]:
    """(a, b), 1-based, a < b: patch b removes exactly what a adds and adds what a removes."""
    def change(path: str) -> tuple[tuple[str, ...], tuple[str, ...]]:
        with open(path) as f:
            body = f.read().split("\n@@", 1)[1].split("\n-- \n", 1)[0].splitlines()
        return (tuple(l[1:] for l in body if l.startswith("-")),
                tuple(l[1:] for l in body if l.startswith("+")))
    changes = [change(p) for p in patches]
    return [(a + 1, b + 1) for a in range(len(changes)) for b in range(a + 1, len(changes))
            if changes[b] == (changes[a][1], changes[a][0])]


def read(path: str) -> bytes:
    with open(path, "rb") as f:
        return f.read()


def run_seed(seed: int, args) -> dict:
    work = os.path.join(args.workdir, str(seed))
    shutil.rmtree(work, ignore_errors=True)
    repo = os.path.join(work, "repo")
    make_chain(seed, repo, args.commits, "" if args.flat else "    ")
    revs = git(repo, "rev-list", "--reverse", "HEAD").stdout.decode().split()
    pdir = os.path.join(work, "patches")
    git(repo, "format-patch", "-q", "-o", pdir, f"{revs[0]}..HEAD")
    patches = sorted(os.path.join(pdir, f) for f in os.listdir(pdir))
    if args.no_index:
        for p in patches:
            with open(p) as f:
                kept = [l for l in f.read().splitlines(True) if not l.startswith("index ")]
            with open(p, "w") as f:
                f.writelines(kept)
    n = len(patches)
    pairs = undo_pairs(patches)
    states = []
    for k, rev in enumerate(revs):
        d = os.path.join(work, f"state{k}")
        os.makedirs(d)
        subprocess.run(["tar", "-x", "-C", d], input=git(repo, "archive", rev).stdout,
                       check=True)
        states.append(d)
    counts, lines = collections.Counter(), []
    last = read(os.path.join(states[-1], "f.py"))
    for k in range(n + 1):
        r = subprocess.run([args.bin, "verify", "--no-gpu", "--no-repo", "--format", "json",
                            pdir, states[k]], capture_output=True, text=True, timeout=300)
        got = [p["status"] for p in json.loads(r.stdout)["patches"]]
        for j, status in enumerate(got, 1):
            want = "applied" if j <= k else "applicable"
            open_pair = any(j in (a, b) and (b <= k or a > k) for a, b in pairs)
            kind = ("ok" if status == want else f"ambiguous-{status}"
                    if open_pair and status in ("applied", "applicable", "unknown")
                    else f"false-{status}")
            counts[kind] += 1
            if kind.startswith("false") and args.verbose:
                lines.append(f"{seed} state {k} patch {j}: {status}, git: {want}")
        for name, extra in [("apply", [])] + ([("reverse", ["--reverse"])] if k == n else []):
            copy = os.path.join(work, f"{name}{k}")
            shutil.copytree(states[k], copy)
            r = subprocess.run([args.bin, "apply", "--no-gpu", *extra, pdir, copy],
                               capture_output=True, text=True, timeout=300)
            want = last if name == "apply" else read(os.path.join(states[0], "f.py"))
            ok = r.returncode == 0 and read(os.path.join(copy, "f.py")) == want
            counts[f"{name}-{'ok' if ok else 'wrong'}"] += 1
            if not ok and args.verbose:
                lines.append(f"{seed} {name} from state {k}: exit {r.returncode} "
                             f"{(r.stdout + r.stderr).strip().splitlines()[-1:]}")
            shutil.rmtree(copy)
    if not args.keep:
        shutil.rmtree(work, ignore_errors=True)
    return {"seed": seed, "counts": counts, "lines": lines}


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--seeds", default="7-16", help="A-B[,C-D...] (default 7-16)")
    ap.add_argument("--commits", type=int, default=80, help="commits per seed (default 80)")
    ap.add_argument("--no-index", action="store_true", help="take the index lines out")
    ap.add_argument("--flat", action="store_true", help="unindented lines (see above)")
    ap.add_argument("--bin", default=os.path.join(HERE, "..", "build", "sm120check"))
    ap.add_argument("--workdir", default=None, help="default: a temporary folder")
    ap.add_argument("--keep", action="store_true", help="keep each seed's repository and trees")
    ap.add_argument("-j", "--jobs", type=int, default=1, help="seeds run at once (default 1)")
    ap.add_argument("--verbose", action="store_true", help="a line for every disagreement")
    args = ap.parse_args()
    args.bin = os.path.abspath(args.bin)
    tmp = None
    if args.workdir is None:
        tmp = args.workdir = tempfile.mkdtemp(prefix="revert-chain-")
    total, bad = collections.Counter(), []
    with concurrent.futures.ThreadPoolExecutor(max_workers=max(1, args.jobs)) as pool:
        for res in pool.map(lambda s: run_seed(s, args), parse_seeds(args.seeds)):
            for line in res["lines"]:
                print(line, flush=True)
            c = res["counts"]
            print(f"seed {res['seed']}: " + ", ".join(f"{k} {v}" for k, v in sorted(c.items())),
                  flush=True)
            total.update(c)
            if any(k.startswith("false") or k.endswith("wrong") for k in c):
                bad.append(res["seed"])
    if tmp and not args.keep:
        shutil.rmtree(tmp, ignore_errors=True)
    print("summary: " + ", ".join(f"{k} {v}" for k, v in sorted(total.items())))
    print(f"seeds with a disagreement: {len(bad)}" + (f": {' '.join(map(str, bad))}" if bad else ""))
    return 1 if bad else 0


if __name__ == "__main__":
    sys.exit(main())
