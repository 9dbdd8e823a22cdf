#!/usr/bin/env python3
"""Checks `sm120check verify` on real commits of a git repository (a bare mirror is fine).

For each commit C (default: the last --count non-merge commits of first-parent history that
modify 1..8 text files, no binary, no added/deleted/renamed files, at most --max-lines changed
lines):
  patch  = git format-patch -1 --stdout C
  parent = the touched files at C^ (only those files and their folders, read with
           `git cat-file`, so the repository is never written and no attributes apply)
  commit = the touched files at C
and expects
  1. parent tree  -> patch `applicable`, exit code 1
  2. commit tree  -> patch `applied`,    exit code 0
  3. both trees again after 7 unrelated lines are inserted at the top of every touched file
     (at its end instead where a hunk without leading context starts at line 1, which git
     apply and sm120check pin to the file's start; not at all where a hunk is pinned to both
     ends or has no context)
                  -> the same statuses, every hunk offset 7 more than in 1./2.
  4. (commits touching 2+ files) the commit tree with one file put back to its parent version
                  -> `partial` (a `conflict` is reported separately, not as OK)
Every tree is also checked with `git apply --check` and `git apply --check -R` (run in the
temporary tree, outside any repository); where git's answer does not fit sm120check's, the
disagreement is listed with both tools' reason text.

Prints one line per commit and a summary. --json-out writes every record.
Exit status: 0 when every expectation held, 1 otherwise. Python 3.11 standard library only.
"""
from __future__ import annotations

import argparse
import json
import os
import re
import shutil
import subprocess
import sys
import tempfile

sys.dont_write_bytecode = True  # no bench/__pycache__ from importing gitrepo
sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from gitrepo import ENV, Repo, describe, write_tree  # noqa: E402  (bench/gitrepo.py)

SHIFT = 7


# ---------------------------------------------------------------------------------------------
# Picking commits


def pick_commits(repo: Repo, args) -> list[dict]:
    picked = []
    if args.commits:
        names = args.commits
        if names.startswith("@"):
            names = open(names[1:], encoding="utf-8").read().replace("\n", ",")
        for name in filter(None, (n.strip() for n in names.split(","))):
            c = repo.out(["rev-parse", "--verify", name + "^{commit}"]).strip()
            info, why = describe(repo, c, args.max_files, args.max_lines)
            if info:
                picked.append(info)
            else:
                print(f"skip {c[:10]}: {why}")
        return picked
    hashes = repo.out(["log", "--first-parent", "--no-merges", "--format=%H",
                       f"-n{args.scan}", args.rev]).split()
    for c in hashes:
        info, _ = describe(repo, c, args.max_files, args.max_lines)
        if info:
            picked.append(info)
            if len(picked) == args.count:
                break
    return picked


# ---------------------------------------------------------------------------------------------
# Trees and tools


HUNK_HEADER = re.compile(rb"^@@ -(\d+)(?:,\d+)? \+\d+(?:,\d+)? @@")


def hunk_edges(diff: bytes) -> dict[str, list[tuple[int, int, int]]]:
    """Per path (new side of `git diff-tree -p`), each hunk's (old start, leading context,
    trailing context), in order."""
    out: dict[str, list[tuple[int, int, int]]] = {}
    path, body = None, None

    def close():
        if path is None or body is None:
            return
        kinds = [k for k in body if k in b" +-"]
        changed = [i for i, k in enumerate(kinds) if k != ord(" ")]
        lead = changed[0] if changed else len(kinds)
        trail = len(kinds) - 1 - changed[-1] if changed else 0
        out[path][-1] = (out[path][-1][0], lead, trail)

    for line in diff.split(b"\n"):
        if line.startswith(b"diff --git "):
            close()
            body = None
            path = None
        elif line.startswith(b"+++ "):
            name = line[4:].decode("utf-8", "surrogateescape")
            path = name[2:] if name.startswith("b/") else name
            out.setdefault(path, [])
        elif path is not None and (m := HUNK_HEADER.match(line)):
            close()
            out[path].append((int(m.group(1)), 0, 0))
            body = []
        elif body is not None and line[:1] in (b" ", b"+", b"-"):
            body.append(line[0])
    close()
    return out


def shift_plan(edges: dict[str, list[tuple[int, int, int]]]) -> dict[str, str]:
    """Where the unrelated lines go per file: "top" (every hunk's offset grows by SHIFT), "end"
    for a file with a hunk anchored at its start (no leading context, line 1: git apply and
    sm120check pin it there), "none" when a hunk is anchored at both ends or has no context."""
    plan = {}
    for path, hunks in edges.items():
        start = any(lead == 0 and old <= 1 for old, lead, _ in hunks)
        end = any(trail == 0 for _, _, trail in hunks)
        zero = any(lead == 0 and trail == 0 for _, lead, trail in hunks)
        plan[path] = "none" if zero or (start and end) else "end" if start else "top"
    return plan


def shift_tree(src: str, dst: str, paths: list[str], plan: dict[str, str]) -> None:
    shutil.copytree(src, dst, symlinks=True)
    for p in paths:
        full = os.path.join(dst, p)
        where = plan.get(p, "top")
        if not os.path.isfile(full) or where == "none":
            continue
        with open(full, "rb") as f:
            data = f.read()
        eol = b"\r\n" if data.split(b"\n", 1)[0].endswith(b"\r") else b"\n"
        extra = b"".join(b"unrelated line %d inserted by real_commits.py" % k + eol
                         for k in range(1, SHIFT + 1))
        if where == "end" and data and not data.endswith(b"\n"):
            continue  # appending would change the last line: leave the file as it is
        with open(full, "wb") as f:
            f.write(extra + data if where == "top" else data + extra)


def hunk_field(h: dict, name: str):
    if name in h:
        return h[name]
    m = h.get("match")
    return m.get(name) if isinstance(m, dict) else None


def run_sm(binary: str, patch: str, tree: str, timeout: float) -> dict:
    try:
        r = subprocess.run([binary, "verify", patch, tree, "--format", "json"],
                           capture_output=True, timeout=timeout, stdin=subprocess.DEVNULL)
    except subprocess.TimeoutExpired:
        return {"rc": None, "status": "timeout", "offsets": [], "reason": f">{timeout}s",
                "files": {}}
    res = {"rc": r.returncode, "status": None, "offsets": [], "reason": "", "files": {}}
    try:
        doc = json.loads(r.stdout)
        p = doc["patches"][0]
        res["status"] = p.get("status")
        reasons = []
        if p.get("error"):
            reasons.append(p["error"])
        for f in p.get("files", []):
            key = f.get("target_path") or f.get("new_path") or f.get("old_path")
            res["files"][key] = f.get("status")
            if f.get("reason"):
                reasons.append(f"{key}: {f['reason']}")
            for h in f.get("hunks", []):
                res["offsets"].append(hunk_field(h, "offset"))
                d = hunk_field(h, "diagnostic")
                if d:
                    reasons.append(f"{key} hunk {h.get('index')}: {hunk_field(h, 'status')} "
                                   f"({d})")
        res["reason"] = "; ".join(reasons)
    except (ValueError, KeyError, IndexError, TypeError) as e:
        res["status"] = "no-json"
        res["reason"] = (f"{type(e).__name__}: {e}; stderr: "
                         f"{r.stderr.decode(errors='replace').strip()[:300]}")
    return res


def run_git(patch: str, tree: str) -> dict:
    env = dict(ENV, GIT_CEILING_DIRECTORIES=os.path.dirname(os.path.abspath(tree)))
    fwd = subprocess.run(["git", "apply", "--check", patch], cwd=tree, env=env,
                         capture_output=True)
    rev = subprocess.run(["git", "apply", "--check", "-R", patch], cwd=tree, env=env,
                         capture_output=True)
    f, b = fwd.returncode == 0, rev.returncode == 0
    verdict = ("ambiguous" if f and b else "applied" if b else "applicable" if f
               else "neither")
    def first_errors(r) -> str:
        errs = [ln[7:] for ln in r.stderr.decode(errors="replace").splitlines()
                if ln.startswith("error: ")]
        return "; ".join(errs[:2])

    reason = []
    if not f:
        reason.append("--check: " + first_errors(fwd))
    if not b:
        reason.append("--check -R: " + first_errors(rev))
    return {"verdict": verdict, "reason": " | ".join(reason)}


# git's answer -> sm120check statuses that fit it.
FITS = {"applicable": {"applicable"}, "applied": {"applied"},
        "neither": {"partial", "conflict"}, "ambiguous": {"applied", "applicable"}}

EXPECT_RC = {"applied": 0, "applicable": 1, "partial": 2, "conflict": 2}


# ---------------------------------------------------------------------------------------------


def check_commit(repo: Repo, info: dict, binary: str, work: str, timeout: float) -> dict:
    c, files = info["commit"], info["files"]
    rec = dict(info, checks={}, disagreements=[], ok=True)
    patch = os.path.join(work, "c.patch")
    data = repo.run(["format-patch", "-1", "--stdout", "--no-signature", c]).stdout
    with open(patch, "wb") as f:
        f.write(data)
    rec["patch_bytes"] = len(data)
    trees = {"parent": os.path.join(work, "parent"), "commit": os.path.join(work, "commit")}
    pblobs = repo.blobs(info["parent"], files)
    write_tree(trees["parent"], pblobs)
    write_tree(trees["commit"], repo.blobs(c, files))
    edges = hunk_edges(repo.run(["diff-tree", "-p", "--no-commit-id", c]).stdout)
    plan = shift_plan(edges)
    deltas = [SHIFT if plan.get(path) == "top" else 0
              for path in edges for _ in edges[path]]
    rec["shift_plan"] = {p: w for p, w in plan.items() if w != "top"}
    shift_tree(trees["parent"], os.path.join(work, "parent+7"), files, plan)
    shift_tree(trees["commit"], os.path.join(work, "commit+7"), files, plan)
    trees["parent+7"] = os.path.join(work, "parent+7")
    trees["commit+7"] = os.path.join(work, "commit+7")
    if len(files) > 1:
        reverted = files[len(files) // 2]
        shutil.copytree(trees["commit"], os.path.join(work, "partial"), symlinks=True)
        write_tree(os.path.join(work, "partial"), {reverted: pblobs[reverted]})
        trees["partial"] = os.path.join(work, "partial")
        rec["reverted"] = reverted
    want = {"parent": "applicable", "commit": "applied", "parent+7": "applicable",
            "commit+7": "applied", "partial": "partial"}
    for name, tree in trees.items():
        sm = run_sm(binary, patch, tree, timeout)
        g = run_git(patch, tree)
        ok = sm["status"] == want[name] and sm["rc"] == EXPECT_RC[want[name]]
        chk = {"sm120check": sm, "git": g, "expected": want[name], "ok": ok}
        if name.endswith("+7") and ok:
            base = rec["checks"][name[:-2]]["sm120check"]["offsets"]
            if None in base or None in sm["offsets"]:
                chk["offsets_note"] = "offsets missing in JSON"
            elif len(deltas) != len(base) or sm["offsets"] != [o + d for o, d in
                                                                 zip(base, deltas)]:
                chk["ok"] = False
                chk["offsets_note"] = f"offsets {sm['offsets']}, expected " \
                                      f"{[o + d for o, d in zip(base, deltas)]}"
        if sm["status"] not in FITS[g["verdict"]]:
            note = ""
            if name.endswith("+7") and ":1;" in g["reason"]:
                # git apply (and GNU patch without fuzz) pins a hunk that starts at line 1
                # with less leading than trailing context to the top of the file.
                note = " [known: git pins a hunk starting at line 1 to the file's top]"
                rec["known_disagreements"] = rec.get("known_disagreements", 0) + 1
            rec["disagreements"].append(
                f"{name}: sm120check {sm['status']} (exit {sm['rc']}; {sm['reason'] or '-'}) "
                f"vs git {g['verdict']} ({g['reason'] or '-'}){note}")
        rec["checks"][name] = chk
    rec["ok"] = all(ch["ok"] for ch in rec["checks"].values())
    return rec


def mark(rec: dict, name: str) -> str:
    ch = rec["checks"].get(name)
    if ch is None:
        return "-"
    sm = ch["sm120check"]
    return "ok" if ch["ok"] else f"{sm['status']}/{sm['rc']}!"


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--bin", default="./build/sm120check", help="sm120check binary")
    ap.add_argument("--repo", required=True, help="git repository (work tree or bare mirror)")
    ap.add_argument("--count", type=int, default=30, help="commits to check (default 30)")
    ap.add_argument("--commits", help="comma-separated commits, or @FILE with one per line "
                                      "(instead of --count)")
    ap.add_argument("--rev", default="HEAD", help="where first-parent history starts")
    ap.add_argument("--scan", type=int, default=3000, help="commits scanned to find --count")
    ap.add_argument("--max-files", type=int, default=8)
    ap.add_argument("--max-lines", type=int, default=2000, help="most changed lines per commit")
    ap.add_argument("--timeout", type=float, default=120, help="seconds per sm120check run")
    ap.add_argument("--json-out", help="write every record and the summary here")
    ap.add_argument("--keep", action="store_true", help="keep the temporary trees")
    args = ap.parse_args()
    binary = os.path.abspath(args.bin)
    if not (os.path.isfile(binary) and os.access(binary, os.X_OK)):
        ap.error(f"{args.bin}: no executable there (build it, or pass --bin PATH)")
    repo = Repo(args.repo, "real_commits")
    commits = pick_commits(repo, args)
    if not commits:
        print("no usable commits found")
        return 1
    root = tempfile.mkdtemp(prefix="sm120check-real-")
    records = []
    try:
        for i, info in enumerate(commits, 1):
            work = os.path.join(root, f"{i:03d}-{info['commit'][:10]}")
            os.makedirs(work)
            try:
                rec = check_commit(repo, info, binary, work, args.timeout)
            except RuntimeError as e:
                print(f"[{i:3d}/{len(commits)}] {info['commit'][:10]} SKIPPED: {e}")
                continue
            records.append(rec)
            print(f"[{i:3d}/{len(commits)}] {info['commit'][:10]} {len(info['files'])}f "
                  f"{info['changed']:4d}l  parent:{mark(rec, 'parent')} "
                  f"commit:{mark(rec, 'commit')} shift:{mark(rec, 'parent+7')}/"
                  f"{mark(rec, 'commit+7')} partial:{mark(rec, 'partial')} "
                  f"git:{'agree' if not rec['disagreements'] else 'DISAGREE'}  "
                  f"{info['subject'][:60]}", flush=True)
            for name, ch in rec["checks"].items():
                if not ch["ok"]:
                    sm = ch["sm120check"]
                    print(f"      {name}: expected {ch['expected']}, got {sm['status']} exit "
                          f"{sm['rc']} {ch.get('offsets_note', '')} {sm['reason'][:300]}")
            for d in rec["disagreements"]:
                print(f"      git disagrees: {d[:400]}")
            if not args.keep:
                shutil.rmtree(work, ignore_errors=True)
    finally:
        if args.keep:
            print(f"kept {root}")
        else:
            shutil.rmtree(root, ignore_errors=True)

    def count(name: str) -> tuple[int, int]:
        have = [r for r in records if name in r["checks"]]
        return sum(r["checks"][name]["ok"] for r in have), len(have)

    multi = [r for r in records if "partial" in r["checks"]]
    partial_conflict = sum(1 for r in multi
                           if r["checks"]["partial"]["sm120check"]["status"] == "conflict")
    shift_ok = sum(1 for r in records if r["checks"]["parent+7"]["ok"]
                   and r["checks"]["commit+7"]["ok"])
    summary = {
        "commits_tried": len(records),
        "applicable_ok_on_parent": count("parent")[0],
        "applied_ok_on_commit": count("commit")[0],
        "after_shift_ok": shift_ok,
        "partial_ok": count("partial")[0],
        "multi_file_commits": len(multi),
        "partial_reported_as_conflict": partial_conflict,
        "commits_with_git_disagreement": sum(1 for r in records if r["disagreements"]),
        "disagreements_known_line1_anchor": sum(r.get("known_disagreements", 0)
                                                for r in records),
        "disagreements_total": sum(len(r["disagreements"]) for r in records),
        "all_ok": sum(1 for r in records if r["ok"]),
    }
    n = len(records)
    print()
    print(f"commits tried:                {n}")
    print(f"applicable OK on parent:      {summary['applicable_ok_on_parent']}/{n}")
    print(f"applied OK on commit:         {summary['applied_ok_on_commit']}/{n}")
    print(f"after +{SHIFT}-line shift OK:      {shift_ok}/{n} (both trees, offsets +{SHIFT})")
    print(f"partial OK:                   {summary['partial_ok']}/{len(multi)} multi-file "
          f"commits ({partial_conflict} reported conflict)")
    print(f"disagreements with git:       {summary['disagreements_total']} in "
          f"{summary['commits_with_git_disagreement']} commit(s), "
          f"{summary['disagreements_known_line1_anchor']} of them the known line-1 anchor case")
    for r in records:
        for d in r["disagreements"]:
            print(f"  {r['commit'][:10]} {d[:400]}")
    if args.json_out:
        with open(args.json_out, "w", encoding="utf-8") as f:
            json.dump({"repo": args.repo, "summary": summary, "commits": records}, f, indent=1)
        print(f"wrote {args.json_out}")
    return 0 if records and summary["all_ok"] == n else 1


if __name__ == "__main__":
    sys.exit(main())
