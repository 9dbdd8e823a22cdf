#!/usr/bin/env python3
"""Random patch series with renames, deletions, additions and reverts, judged against git.

Per seed, a git repository of three small Python files gets 2-6 random commits (edit, rename,
edit + rename, delete, add, revert of the commit before), exported with `git format-patch`
(`-M`, or `--no-renames`: a rename is then a deletion and an addition). State k is the tree of
commit k (state 0 the base). On a copy of every state:

  verify   one `verify --no-gpu --no-repo --format json DIR TREE` call; each patch's verdict
           is compared with git's (below)
  apply    `apply DIR TREE`: exit 0 and the tree equal to the last state, byte for byte and
           the executable bit (empty folders aside), or exit 2 with the tree unchanged (a
           refusal: counted, and a disagreement, since git applies the rest); a second run
           changes nothing
  reverse  from the last state only: `apply --reverse` gives state 0 (the same rules)

Git's verdict on a tree T for patch j: every subset of the series that `git apply --cached`
takes, patch by patch in series order, from state 0 to a tree equal to T (the linear prefix
1..k is one of them; a patch that does not apply ends that subset). When all of them hold patch j
it is `applied`, when none does `applicable`; when some do and some do not, git's own content
cannot decide (the tree is reachable both with and without it: a file added and later deleted,
a patch and its revert, an edit whose file a later patch deletes while another patch stands
between them) and `unknown` is the honest answer; `applied` or `applicable` there are counted
apart (`ambiguous-*`), not as disagreements.

Disagreements, worst first: `false-applied` (git says applicable), `false-conflict` (conflict
or partial where git decides), `false-unknown` (unknown where git decides), `wrong` (applicable
where git says applied), `apply-wrong-tree` (exit 0 or a partial write with a tree other than
git's), `apply-refused` (nothing written where git applies the rest), `no-json`.

Usage:
  python3 bench/random_series.py --seeds 1-300 [--no-renames] [--bin build/sm120check]
  python3 bench/random_series.py --seeds 7 --keep --verbose     # one seed, its files kept

Prints one line per disagreement (seed, state, ops, git's verdicts, ours) and a summary; exits
1 when there is any disagreement, 0 otherwise. The generator draws from Python's `random` with
the seed (the same sequence as the review's rseries.py, whose "revert" restored the state it was
already in; here it reverts the commit before). Python 3.11 standard library only.
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
from gitrepo import ENV, GIT_CFG  # noqa: E402

HERE = os.path.dirname(os.path.abspath(__file__))
USER = ["-c", "user.name=bench", "-c", "user.email=bench@example.com",
        "-c", "commit.gpgsign=false", "-c", "init.defaultBranch=main"]
GIT_ENV = dict(ENV, GIT_AUTHOR_DATE="2026-01-01T00:00:00Z",
               GIT_COMMITTER_DATE="2026-01-01T00:00:00Z")


def git(cwd: str, *args: str, check: bool = True, env: dict | None = None,
        input: bytes | None = None) -> subprocess.CompletedProcess:
    r = subprocess.run(["git", *GIT_CFG, *USER, *args], cwd=cwd, capture_output=True,
                       env=env or GIT_ENV, input=input)
    if check and r.returncode != 0:
        raise RuntimeError(f"git {' '.join(args[:2])}: {r.stderr.decode(errors='replace')}")
    return r


def make_series(seed: int, repo: str) -> list[str]:
    """Builds the seed's repository at `repo` (one commit per state); returns the ops."""
    rng = random.Random(seed)
    os.makedirs(repo)
    git(repo, "init", "-q")

    def content(n: int) -> list[str]:
        return [f"line {n}-{i} = value_{rng.randint(0, 9999)}" for i in range(rng.randint(8, 25))]

    files = {f"d{i % 2}/f{i}.py": content(i) for i in range(3)}

    def write() -> None:
        for root, dirs, names in os.walk(repo):
            if ".git" in dirs:
                dirs.remove(".git")
            for f in names:
                os.remove(os.path.join(root, f))
        for p, lines in files.items():
            os.makedirs(os.path.dirname(os.path.join(repo, p)), exist_ok=True)
            with open(os.path.join(repo, p), "w") as f:
                f.write("\n".join(lines) + "\n")
        git(repo, "add", "-A")
        if git(repo, "diff", "--cached", "--quiet", check=False).returncode:
            git(repo, "commit", "-qm", f"c{rng.randint(0, 1 << 30)}")
        elif git(repo, "rev-parse", "-q", "--verify", "HEAD", check=False).returncode:
            git(repo, "commit", "-qm", "base", "--allow-empty")

    write()
    ops, hist = [], [dict(files)]
    for _ in range(rng.randint(2, 6)):
        op = rng.choice(["edit", "edit", "edit", "rename", "delete", "add", "revert",
                         "editrename"])
        if not files:
            op = "add"
        if op == "revert":
            if len(hist) >= 2:
                files = dict(hist[-2])
        elif op in ("edit", "editrename"):
            p = rng.choice(list(files))
            lines = list(files[p])
            for _ in range(rng.randint(1, 3)):
                lines[rng.randrange(len(lines))] = f"changed {rng.randint(0, 99999)}"
            if op == "editrename":
                del files[p]
                p = f"d{rng.randint(0, 2)}/r{rng.randint(0, 999)}.py"
            files[p] = lines
        elif op == "rename":
            p = rng.choice(list(files))
            files[f"d{rng.randint(0, 2)}/m{rng.randint(0, 999)}.py"] = files.pop(p)
        elif op == "delete":
            files.pop(rng.choice(list(files)))
        elif op == "add":
            files[f"d{rng.randint(0, 2)}/n{rng.randint(0, 999)}.py"] = content(rng.randint(0, 99))
        hist.append(dict(files))
        ops.append(op)
        write()
    return ops


def read_tree(root: str) -> dict[str, tuple[bytes, bool]]:
    """Every file under root (no .git): path -> (bytes, executable)."""
    out = {}
    for d, dirs, names in os.walk(root):
        if ".git" in dirs:
            dirs.remove(".git")
        for f in names:
            p = os.path.join(d, f)
            with open(p, "rb") as fh:
                out[os.path.relpath(p, root)] = (fh.read(), os.access(p, os.X_OK))
    return out


def extract(repo: str, rev: str, dest: str) -> None:
    os.makedirs(dest)
    data = git(repo, "archive", "--format=tar", rev).stdout
    subprocess.run(["tar", "-x", "-C", dest], input=data, check=True)


def git_truth(repo: str, base: str, patches: list[str], work: str) -> dict[str, list[int]]:
    """Tree id -> the subsets (bit masks over the patches) that `git apply --cached` takes from
    `base` to that tree, each patch applied in series order."""
    out: dict[str, list[int]] = collections.defaultdict(list)
    first = os.path.join(work, "index0")
    git(repo, "read-tree", base, env=dict(GIT_ENV, GIT_INDEX_FILE=first))

    def walk(j: int, mask: int, index: str, depth: int) -> None:
        if j == len(patches):
            tree = git(repo, "write-tree", env=dict(GIT_ENV, GIT_INDEX_FILE=index)).stdout
            out[tree.decode().strip()].append(mask)
            return
        walk(j + 1, mask, index, depth)
        mine = os.path.join(work, f"index{depth + 1}")
        shutil.copyfile(index, mine)
        r = git(repo, "apply", "--cached", patches[j], check=False,
                env=dict(GIT_ENV, GIT_INDEX_FILE=mine))
        if r.returncode == 0:
            walk(j + 1, mask | (1 << j), mine, depth + 1)

    walk(0, 0, first, 0)
    return out


def run_bin(binary: str, *args: str) -> subprocess.CompletedProcess:
    return subprocess.run([binary, *args], capture_output=True, text=True, timeout=120)


def check_apply(binary: str, src: str, dest: str, want: dict, reverse: bool, patch_dir: str,
                ) -> str | None:
    """`apply` (or --reverse) on a copy of `src` at `dest`; None when right, else what."""
    shutil.copytree(src, dest)
    before = read_tree(dest)
    args = ["apply", "--no-gpu"] + (["--reverse"] if reverse else []) + [patch_dir, dest]
    r = run_bin(binary, *args)
    after = read_tree(dest)
    name = "reverse" if reverse else "apply"
    if r.returncode == 0 and after == want:
        again = run_bin(binary, *args)
        if again.returncode != 0 or read_tree(dest) != want:
            return f"{name}-not-idempotent: second run exit {again.returncode}"
        return None
    if r.returncode == 2 and after == before:
        why = (r.stdout + r.stderr).strip().splitlines()
        return f"{name}-refused: " + " | ".join(why[-3:])[:400]
    diff = sorted(p for p in set(after) | set(want) if after.get(p) != want.get(p))
    return f"{name}-wrong-tree: exit {r.returncode}, differs at {diff}"


def classify(want: str, got: str) -> str:
    """Kind of the verdict `got` where git says `want` (applied, applicable, ambiguous)."""
    if want == "ambiguous":
        return "ok" if got == "unknown" else f"ambiguous-{got}" if got in (
            "applied", "applicable") else "false-conflict"
    if got == want:
        return "ok"
    if got == "applied":
        return "false-applied"
    if got in ("conflict", "partial"):
        return "false-conflict"
    if got == "unknown":
        return "false-unknown"
    return "wrong"


SEVERE = ("false-applied", "false-conflict", "false-unknown", "wrong", "no-json")


def run_seed(seed: int, args) -> dict:
    work = os.path.join(args.workdir, f"{seed}{'-nr' if args.no_renames else ''}")
    shutil.rmtree(work, ignore_errors=True)
    os.makedirs(work)
    repo = os.path.join(work, "repo")
    ops = make_series(seed, repo)
    revs = git(repo, "rev-list", "--reverse", "HEAD").stdout.decode().split()
    pdir = os.path.join(work, "patches")
    git(repo, "format-patch", "-q", "-o", pdir,
        "--no-renames" if args.no_renames else "-M", f"{revs[0]}..HEAD")
    patches = sorted(os.path.join(pdir, f) for f in os.listdir(pdir))
    n = len(patches)
    assert n == len(revs) - 1, (seed, n, len(revs))
    trees = [git(repo, "rev-parse", f"{r}^{{tree}}").stdout.decode().strip() for r in revs]
    truth = git_truth(repo, revs[0], patches, work)
    result = {"seed": seed, "ops": ops, "patches": n, "counts": collections.Counter(),
              "lines": []}
    states = []
    for k, rev in enumerate(revs):
        d = os.path.join(work, f"state{k}")
        extract(repo, rev, d)
        states.append(d)
    final = read_tree(states[-1])
    for k in range(len(revs)):
        masks = truth.get(trees[k], [])
        if ((1 << k) - 1) not in masks:
            result["lines"].append(f"{seed} state {k}: git apply does not rebuild the state "
                                   f"(subsets {masks}): generator error")
            result["counts"]["generator-error"] += 1
            continue
        want = []
        for j in range(n):
            has = {bool(m >> j & 1) for m in masks}
            want.append("ambiguous" if len(has) == 2 else "applied" if True in has
                        else "applicable")
        r = run_bin(args.bin, "verify", "--no-gpu", "--no-repo", "--format", "json", pdir,
                    states[k])
        try:
            got = [p["status"] for p in json.loads(r.stdout)["patches"]]
        except (ValueError, KeyError):
            got = None
        if got is None or len(got) != n:
            result["counts"]["no-json"] += 1
            result["lines"].append(f"{seed} state {k}: no JSON (exit {r.returncode}) "
                                   f"{r.stderr[:200]}")
        else:
            kinds = [classify(w, g) for w, g in zip(want, got)]
            for kind in kinds:
                result["counts"][kind] += 1
            bad = [kind for kind in kinds if kind in SEVERE]
            if bad or args.verbose:
                result["lines"].append(f"{seed} state {k} ops {ops} git {want} ours {got}"
                                       f"{' -> ' + ','.join(sorted(set(bad))) if bad else ''}")
        if not args.skip_apply:
            for reverse in ([False, True] if k == n else [False]):
                # Reverse is checked from the last state only (to state 0).
                dest = os.path.join(work, f"apply{k}{'r' if reverse else ''}")
                wrong = check_apply(args.bin, states[k], dest,
                                    read_tree(states[0]) if reverse else final, reverse, pdir)
                name = "reverse" if reverse else "apply"
                if wrong:
                    kind = wrong.split(":")[0]
                    result["counts"][kind] += 1
                    result["lines"].append(f"{seed} state {k} ops {ops}: {wrong}")
                else:
                    result["counts"][f"{name}-ok"] += 1
    if not args.keep:
        shutil.rmtree(work, ignore_errors=True)
    return result


def parse_seeds(text: str) -> list[int]:
    out = []
    for part in text.split(","):
        a, _, b = part.partition("-")
        out.extend(range(int(a), int(b or a) + 1))
    return out


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--seeds", default="1-100", help="A-B[,C-D...] (default 1-100)")
    ap.add_argument("--no-renames", action="store_true",
                    help="format-patch --no-renames: renames as deletion + addition")
    ap.add_argument("--bin", default=os.path.join(HERE, "..", "build", "sm120check"))
    ap.add_argument("--workdir", default=None, help="default: a temporary folder")
    ap.add_argument("--keep", action="store_true", help="keep each seed's repository and trees")
    ap.add_argument("--skip-apply", action="store_true", help="verify only")
    ap.add_argument("-j", "--jobs", type=int, default=1, help="seeds run at once (default 1)")
    ap.add_argument("--verbose", action="store_true", help="a line for every state")
    args = ap.parse_args()
    args.bin = os.path.abspath(args.bin)
    tmp = None
    if args.workdir is None:
        tmp = tempfile.mkdtemp(prefix="random-series-")
        args.workdir = tmp
    seeds = parse_seeds(args.seeds)
    total = collections.Counter()
    bad_seeds = []
    with concurrent.futures.ThreadPoolExecutor(max_workers=max(1, args.jobs)) as pool:
        for res in pool.map(lambda s: run_seed(s, args), seeds):
            for line in res["lines"]:
                print(line, flush=True)
            total.update(res["counts"])
            if any(k not in ("ok", "apply-ok", "reverse-ok") and not k.startswith("ambiguous-")
                   for k in res["counts"]):
                bad_seeds.append(res["seed"])
    if tmp and not args.keep:
        shutil.rmtree(tmp, ignore_errors=True)
    mode = "--no-renames" if args.no_renames else "-M"
    print(f"summary ({mode}, {len(seeds)} seeds): " +
          ", ".join(f"{k} {v}" for k, v in sorted(total.items())))
    print(f"seeds with a disagreement: {len(bad_seeds)}"
          + (f": {' '.join(map(str, bad_seeds))}" if bad_seeds else ""))
    return 1 if bad_seeds else 0


if __name__ == "__main__":
    sys.exit(main())
