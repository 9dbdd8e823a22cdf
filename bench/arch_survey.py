#!/usr/bin/env python3
"""Surveys `sm120check verify`'s architecture relevance over real commits of a git repository.

Takes the last --count non-merge commits (first parent history of --rev) that touch files matching
--paths and whose diff matches --grep (git log -G, extended regular expression), with
--max-files only those touching at most that many files, writes each as
`git format-patch -1 --stdout C`, and runs one

  sm120check verify --format json --cc CC --only-relevant PATCH... EMPTY_DIR

over all of them (an empty target: only `patches[].arch` is read, the file verdicts are not).
A patch "would be skipped" for CC when `arch.relevant` is false.

Prints the counts (relevant true / false / null; confidence when the binary reports it) and, with
--compare FILE (the --json-out of an earlier run, e.g. of an older binary), every commit whose
`relevant` changed, with both sides' targets and evidence. --show-skipped lists the commits that
would be skipped. Python 3.11 standard library only.

  python3 bench/arch_survey.py --bin build/sm120check --repo PATH_TO_REPO --count 300 \\
      --json-out after.json --compare before.json
"""
from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
import tempfile

DEFAULT_GREP = r"sm_?1[02]|SM_?1[02]|CAPABILITY|capability"
DEFAULT_PATHS = ["*.cu", "*.cuh", "*.py"]


def git(git_dir: str, args: list[str]) -> bytes:
    env = dict(os.environ, GIT_CONFIG_NOSYSTEM="1", GIT_CONFIG_GLOBAL=os.devnull, LC_ALL="C")
    cfg = ["-c", "diff.noprefix=false", "-c", "diff.mnemonicPrefix=false", "-c",
           "format.signature=", "-c", "color.ui=false", "-c", "diff.renames=false"]
    r = subprocess.run(["git", "--git-dir", git_dir, *cfg, *args], capture_output=True, env=env)
    if r.returncode != 0:
        sys.exit(f"arch_survey: git {' '.join(args[:2])}: "
                 f"{r.stderr.decode(errors='replace').strip()}")
    return r.stdout


def git_dir_of(path: str) -> str:
    gd = os.path.join(path, ".git")
    return os.path.abspath(gd if os.path.exists(gd) else path)


def select_commits(git_dir: str, rev: str, count: int, grep: str, paths: list[str],
                   max_files: int) -> list[str]:
    """The newest `count` matching commits; with max_files, only those touching at most that
    many files (read from one `git log --name-only` walk)."""
    if not max_files:
        out = git(git_dir, ["log", "--first-parent", "--no-merges", "--format=%H", f"-n{count}",
                            "-E", f"-G{grep}", rev, "--", *paths])
        return out.decode().split()
    out = git(git_dir, ["log", "--first-parent", "--no-merges", "--format=@%H", "--name-only",
                        "-E", f"-G{grep}", rev, "--", *paths]).decode()
    picked = []
    for entry in out.split("@")[1:]:
        lines = [x for x in entry.splitlines() if x]
        commit, files = lines[0], lines[1:]
        # --name-only with a pathspec lists only matching files: count all of them instead.
        touched = git(git_dir, ["diff-tree", "--no-commit-id", "--name-only", "-r", "--root",
                                commit]).decode().split()
        if len(touched) <= max_files:
            picked.append(commit)
            if len(picked) == count:
                break
    return picked


def survey(args: argparse.Namespace) -> list[dict]:
    git_dir = git_dir_of(args.repo)
    if args.commits:
        spec = args.commits
        if spec.startswith("@"):
            with open(spec[1:], encoding="utf-8") as f:
                spec = f.read()
        commits = [c for c in spec.replace(",", " ").split() if c]
    else:
        commits = select_commits(git_dir, args.rev, args.count, args.grep, args.paths,
                                 args.max_files)
    if not commits:
        sys.exit("arch_survey: no commit selected")
    with tempfile.TemporaryDirectory(prefix="arch_survey.") as tmp:
        target = os.path.join(tmp, "empty")
        os.mkdir(target)
        files = []
        for i, c in enumerate(commits):
            path = os.path.join(tmp, f"{i:04d}-{c[:12]}.patch")
            with open(path, "wb") as f:
                f.write(git(git_dir, ["format-patch", "-1", "--stdout", c]))
            files.append(path)
        cmd = [args.bin, "verify", "--format", "json", "--cc", args.cc, "--only-relevant",
               *files, target]
        r = subprocess.run(cmd, capture_output=True)
        if r.returncode not in (0, 1, 2):
            sys.exit(f"arch_survey: {args.bin} exited {r.returncode}: "
                     f"{r.stderr.decode(errors='replace')[:2000]}")
        doc = json.loads(r.stdout)
    records = []
    for c, p in zip(commits, doc["patches"]):
        arch = p.get("arch") or {}
        records.append({
            "commit": c,
            "subject": p.get("subject"),
            "status": p.get("status"),
            "targets": arch.get("targets", []),
            "source": arch.get("source"),
            "relevant": arch.get("relevant"),
            "confidence": arch.get("confidence"),
            "evidence": arch.get("evidence"),
            "doubt": arch.get("doubt"),
        })
    return records


def summarize(records: list[dict], cc: str) -> None:
    def count(key, value):
        return sum(1 for r in records if r.get(key) == value)
    print(f"commits: {len(records)}")
    print(f"relevant to {cc}: true {count('relevant', True)}, false {count('relevant', False)}, "
          f"null {count('relevant', None)}")
    print(f"would be skipped with --cc {cc} --only-relevant: {count('relevant', False)}")
    if any(r.get("confidence") is not None for r in records):
        print(f"confidence: confident {count('confidence', 'confident')}, "
              f"unsure {count('confidence', 'unsure')}, none {count('confidence', None)}")


def describe(r: dict) -> str:
    text = f"relevant={json.dumps(r['relevant'])} targets={','.join(r['targets']) or '-'}"
    if r.get("confidence"):
        text += f" ({r['confidence']})"
    return text


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--bin", default="./build/sm120check")
    ap.add_argument("--repo", required=True, help="git repository (a bare mirror is fine)")
    ap.add_argument("--rev", default="HEAD")
    ap.add_argument("--count", type=int, default=300)
    ap.add_argument("--grep", default=DEFAULT_GREP, help="git log -G expression (extended)")
    ap.add_argument("--paths", nargs="+", default=DEFAULT_PATHS, help="pathspecs")
    ap.add_argument("--max-files", type=int, default=0,
                    help="only commits touching at most this many files (focused fixes)")
    ap.add_argument("--commits", help="comma-separated commits, or @FILE, instead of a selection")
    ap.add_argument("--cc", default="12.0")
    ap.add_argument("--json-out", help="write every record to this file")
    ap.add_argument("--compare", help="an earlier --json-out: list the commits whose verdict changed")
    ap.add_argument("--show-skipped", action="store_true")
    args = ap.parse_args()

    records = survey(args)
    summarize(records, args.cc)
    if args.show_skipped:
        for r in records:
            if r["relevant"] is False:
                print(f"  skipped {r['commit'][:12]} {describe(r)}  {r['subject']}\n"
                      f"      from {r['evidence']}")
    if args.json_out:
        with open(args.json_out, "w", encoding="utf-8") as f:
            json.dump(records, f, indent=1)
    if args.compare:
        with open(args.compare, encoding="utf-8") as f:
            before = {r["commit"]: r for r in json.load(f)}
        changed = [r for r in records if r["commit"] in before
                   and before[r["commit"]]["relevant"] != r["relevant"]]
        print(f"verdicts changed against {args.compare}: {len(changed)} "
              f"(of {sum(1 for r in records if r['commit'] in before)} commits in both)")
        for r in changed:
            b = before[r["commit"]]
            print(f"  {r['commit'][:12]} {r['subject']}\n"
                  f"      before: {describe(b)}  from {b['evidence']}\n"
                  f"      after:  {describe(r)}  from {r['evidence']}"
                  + (f"\n      doubt:  {r['doubt']}" if r.get("doubt") else ""))
    return 0


if __name__ == "__main__":
    sys.exit(main())
