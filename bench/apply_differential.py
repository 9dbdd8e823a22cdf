#!/usr/bin/env python3
"""`sm120check apply` against git's own history, `git apply` and GNU patch, on real commits.

For each commit C of each --repo (bare mirrors are fine and are only read): the newest --count
usable non-merge first-parent commits, plus, for each of added / deleted / renamed files and
mode changes that fewer than --per-kind of them show, the newest further usable commits that
have it (usable: one parent, 1..--max-files files, at most --max-lines changed lines, no
binary, no submodule or symlink, no type change, no diff quoted in the message).
  patch  = git format-patch -1 --stdout -M C   (no user configuration, a/ b/ prefixes)
  parent = the files C changes as they are at C^ (old paths), written from `git cat-file`
           with their modes; commit = the same at C (new paths)
Checks of sm120check (all must hold for exit status 0):
  fwd    apply --no-gpu PATCH parent-copy  -> exit 0, the tree equals commit (every byte,
         every mode; deleted and renamed-away paths absent; nothing else written)
  idem   apply again on that result        -> exit 0, nothing changed
  shift  apply on parent+7 (7 unrelated lines at the top of every modified or renamed file,
         at its end where a hunk is pinned to line 1, not at all when pinned at both ends)
         -> exit 0, equal to commit with the same 7 lines; GNU patch on another copy must give
         the same bytes (where GNU patch fails or differs from the expected tree it is counted)
  rev    apply --reverse on commit-copy     -> exit 0, equal to parent; again -> exit 0, no change
  dry    apply --dry-run on parent-copy     -> exit 1, nothing written; on commit-copy -> exit 0
`git apply` (--check, then for real, in the tree outside any repository) gives a third opinion
on fwd, shift and rev; GNU patch on fwd, shift and rev too. Every case where a tool's outcome
(ok / refused / wrong result) differs from sm120check's is listed as a disagreement.

--ground-truth-only runs git and GNU patch alone (for a binary without `apply`): then git must
give commit on fwd and parent on rev. Prints one line per commit, totals, every failure with
its reason and every disagreement; --json-out writes all records. Python 3.11 stdlib only.
"""
from __future__ import annotations

import argparse
import collections
import json
import os
import shutil
import sys
import tempfile

sys.dont_write_bytecode = True  # no bench/__pycache__ from importing the helpers
sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from gitrepo import Repo  # noqa: E402
from real_commits import HUNK_HEADER, SHIFT, shift_plan  # noqa: E402
import applytools as at  # noqa: E402

KINDS = ("add", "delete", "rename", "mode")
MIRRORS = "/work/.mirror"
DEFAULT_REPOS = ["flashinfer-ai+flashinfer", "fla-org+flash-linear-attention",
                 "linkedin+Liger-Kernel", "InternLM+lmdeploy", "ModelTC+lightllm",
                 "ninja-build+ninja"]


# ---------------------------------------------------------------------------------------------
# Commits


def describe_any(repo: Repo, c: str, max_files: int, max_lines: int) -> tuple[dict | None, str]:
    """(info, "") for a usable commit (see the module text), or (None, why not).

    info: commit, parent, changes [{st, old, new, m1, m2}] in diff order, kinds, changed,
    subject."""
    parents = repo.out(["rev-list", "--parents", "-n", "1", c]).split()[1:]
    if len(parents) != 1:
        return None, f"{len(parents)} parents"
    raw = repo.run(["diff-tree", "-r", "--no-commit-id", "-M", "-z", "--raw", c]).stdout
    parts = raw.split(b"\0")
    changes, kinds, i = [], set(), 0
    while i < len(parts) - 1:
        m1, m2, _, _, st = parts[i].decode().lstrip(":").split()
        if st[0] in "RC":
            old, new = (parts[i + 1].decode("utf-8", "surrogateescape"),
                        parts[i + 2].decode("utf-8", "surrogateescape"))
            i += 3
        else:
            old = new = parts[i + 1].decode("utf-8", "surrogateescape")
            i += 2
        st = st[0]
        if st not in "MADR":
            return None, f"status {st}"
        for m in (m1, m2):
            if m == "160000":
                return None, "submodule"
            if m == "120000":
                return None, "symlink"
            if m not in ("100644", "100755", "000000"):
                return None, f"mode {m}"
        if "\n" in old or "\n" in new:
            return None, "newline in a path"
        if st == "A":
            kinds.add("add")
        elif st == "D":
            kinds.add("delete")
        elif st == "R":
            kinds.add("rename")
        if st in "MR" and m1 != m2:
            kinds.add("mode")
        changes.append({"st": st, "old": None if st == "A" else old,
                        "new": None if st == "D" else new, "m1": m1, "m2": m2})
    if not 1 <= len(changes) <= max_files:
        return None, f"{len(changes)} files"
    num = repo.run(["diff-tree", "-r", "--no-commit-id", "-M", "-z", "--numstat", c]).stdout
    changed, recs, j = 0, num.split(b"\0"), 0
    while j < len(recs):
        rec = recs[j]
        if not rec:
            j += 1
            continue
        a, d, path = rec.split(b"\t", 2)
        j += 3 if path == b"" else 1  # a rename: the two paths follow
        if a == b"-" or d == b"-":
            return None, "binary"
        changed += int(a) + int(d)
    if changed > max_lines:
        return None, f"{changed} changed lines"
    if any(ch["st"] == "M" for ch in changes):
        kinds.add("modify")
    subject = repo.out(["log", "-1", "--format=%s", c]).strip()
    return {"commit": c, "parent": parents[0], "changes": changes, "kinds": sorted(kinds),
            "changed": changed, "subject": subject}, ""


def pick_commits(repo: Repo, args) -> tuple[list[dict], collections.Counter]:
    picked, skipped, have = [], collections.Counter(), collections.Counter()
    if args.commits:  # named commits of the one --repo, usable or said why not
        for name in filter(None, (n.strip() for n in args.commits.split(","))):
            c = repo.out(["rev-parse", "--verify", name + "^{commit}"]).strip()
            info, why = describe_any(repo, c, args.max_files, args.max_lines)
            if info:
                picked.append(info)
            else:
                print(f"skip {c[:10]}: {why}")
                skipped[why] += 1
        return picked, skipped
    hashes = repo.out(["log", "--first-parent", "--no-merges", "--format=%H",
                       f"-n{args.scan}", args.rev]).split()
    for c in hashes:
        need = [k for k in KINDS if have[k] < args.per_kind]
        if len(picked) >= args.count and not need:
            break
        try:
            info, why = describe_any(repo, c, args.max_files, args.max_lines)
        except RuntimeError:  # a mirror lacking some objects
            info, why = None, "objects missing in the mirror"
        if info is None:
            skipped[why.split(" for ")[0] if not why[0].isdigit() else
                    why.split(" ", 1)[1]] += 1  # "3 parents" -> "parents"
            continue
        if len(picked) < args.count or any(k in info["kinds"] for k in need):
            if len(picked) >= args.count:
                info["extra_for"] = [k for k in need if k in info["kinds"]]
            picked.append(info)
            for k in info["kinds"]:
                have[k] += 1
    return picked, skipped


# ---------------------------------------------------------------------------------------------
# One commit


def hunks_per_section(diff: bytes) -> list[list[tuple[int, int, int]]]:
    """Per `diff --git` section in order: each hunk's (old start, leading, trailing context)."""
    sections: list[list] = []
    body = None

    def close():
        if body is None or not sections or not sections[-1]:
            return
        changed = [i for i, k in enumerate(body) if k != " "]
        lead = changed[0] if changed else len(body)
        trail = len(body) - 1 - changed[-1] if changed else 0
        sections[-1][-1] = (sections[-1][-1][0], lead, trail)

    for line in diff.split(b"\n"):
        if line.startswith(b"diff --git "):
            close()
            body = None
            sections.append([])
        elif sections and (m := HUNK_HEADER.match(line)):
            close()
            sections[-1].append((int(m.group(1)), 0, 0))
            body = []
        elif body is not None and line[:1] in (b" ", b"+", b"-"):
            body.append(chr(line[0]))
        elif body is not None and not line.startswith(b"\\"):
            close()
            body = None
    close()
    return sections


def shifted(data: bytes, where: str, eol: bytes) -> bytes:
    extra = b"".join(b"unrelated line %d inserted by apply_differential.py" % k + eol
                     for k in range(1, SHIFT + 1))
    if where == "top":
        return extra + data
    if where == "end" and (not data or data.endswith(b"\n")):
        return data + extra
    return data


def outcome(res_rc, got: at.Snapshot | None, want: at.Snapshot, before: at.Snapshot) -> str:
    """ok (exit 0, result as expected), refused (an error exit and nothing changed), wrong
    (anything else)."""
    if got == want and res_rc == 0:
        return "ok"
    if got == before and res_rc != 0:
        return "refused"
    return "wrong"


def check_commit(repo: Repo, info: dict, args, work: str) -> dict:
    c, changes = info["commit"], info["changes"]
    rec = dict(info, checks={}, tools={}, disagreements=[], failures=[], notes=[])
    data = repo.run(["format-patch", "-1", "--stdout", "--no-signature", "-M", c]).stdout
    n_headers = sum(1 for ln in data.split(b"\n") if ln.startswith(b"diff --git "))
    if n_headers != len(changes):
        raise RuntimeError(f"{n_headers} 'diff --git' lines for {len(changes)} files "
                           "(a diff quoted in the message?)")
    patch = os.path.join(work, "c.patch")
    with open(patch, "wb") as f:
        f.write(data)
    olds = [ch for ch in changes if ch["old"]]
    news = [ch for ch in changes if ch["new"]]
    ob = repo.blobs(info["parent"], [ch["old"] for ch in olds])
    nb = repo.blobs(c, [ch["new"] for ch in news])
    old_files = {ch["old"]: (ch["m1"], ob[ch["old"]]) for ch in olds}
    new_files = {ch["new"]: (ch["m2"], nb[ch["new"]]) for ch in news}
    want_new, want_old = at.expected_snapshot(new_files), at.expected_snapshot(old_files)

    # parent+7 and what it must become
    sections = hunks_per_section(repo.run(["diff-tree", "-p", "-M", "--no-commit-id",
                                           c]).stdout)
    if len(sections) != len(changes):
        raise RuntimeError(f"diff-tree gave {len(sections)} sections for {len(changes)} files")
    plan = shift_plan({str(i): s for i, s in enumerate(sections)})
    shift_old, shift_new = dict(old_files), dict(new_files)
    rec["shift_plan"] = {}
    for i, ch in enumerate(changes):
        if ch["st"] not in "MR":
            continue
        where = plan[str(i)]
        m1, od = old_files[ch["old"]]
        eol = b"\r\n" if od.split(b"\n", 1)[0].endswith(b"\r") else b"\n"
        so = shifted(od, where, eol)
        if so == od:
            where = "none"
        else:
            shift_old[ch["old"]] = (m1, so)
            m2, nd = new_files[ch["new"]]
            shift_new[ch["new"]] = (m2, shifted(nd, where, eol))
        if where != "top":
            rec["shift_plan"][ch["old"]] = where
    want_shift_new = at.expected_snapshot(shift_new)
    want_shift_old = at.expected_snapshot(shift_old)

    trees = {}

    def fresh(name: str, files: dict) -> str:
        path = os.path.join(work, name)
        at.write_files(path, files)
        trees[name] = path
        return path

    def fail(check: str, why: str):
        rec["failures"].append(f"{check}: {why}")

    def judge(check: str, res: dict, want_rc: int, got: at.Snapshot, want: at.Snapshot) -> bool:
        diffs = at.compare(got, want)
        ok = res["rc"] == want_rc and not diffs
        rec["checks"][check] = {"ok": ok, "rc": res["rc"], "diffs": diffs[:5],
                                "stderr": res.get("err", "")}
        if not ok:
            fail(check, f"exit {res['rc']} (want {want_rc})"
                        + (f"; {'; '.join(diffs[:3])}" if diffs else "; tree as expected")
                        + (f"; stderr: {res['err']}" if res.get("err") else ""))
        return ok

    sm = not args.ground_truth_only
    t = args.timeout
    # --- sm120check
    if sm:
        # fwd + idem
        d = fresh("fwd", old_files)
        r = at.sm_apply(args.binary, [patch], d, [], t)
        got = at.snapshot(d)
        rec["sm_fwd"] = outcome(r["rc"], got, want_new, want_old)
        if judge("fwd", r, 0, got, want_new):
            before_m = at.mtimes(d)
            r2 = at.sm_apply(args.binary, [patch], d, [], t)
            judge("idem", r2, 0, at.snapshot(d), want_new)
            if at.mtimes(d) != before_m:
                rec["notes"].append("idem: a file was rewritten (same bytes)")
        # shift
        d = fresh("shift", shift_old)
        r = at.sm_apply(args.binary, [patch], d, [], t)
        got_shift = at.snapshot(d)
        rec["sm_shift"] = outcome(r["rc"], got_shift, want_shift_new, want_shift_old)
        judge("shift", r, 0, got_shift, want_shift_new)
        # rev + idem
        d = fresh("rev", new_files)
        r = at.sm_apply(args.binary, [patch], d, ["--reverse"], t)
        got = at.snapshot(d)
        rec["sm_rev"] = outcome(r["rc"], got, want_old, want_new)
        if judge("rev", r, 0, got, want_old):
            r2 = at.sm_apply(args.binary, [patch], d, ["--reverse"], t)
            judge("rev-idem", r2, 0, at.snapshot(d), want_old)
        # dry-run
        d = fresh("dry", old_files)
        r = at.sm_apply(args.binary, [patch], d, ["--dry-run"], t)
        judge("dry", r, 1, at.snapshot(d), want_old)
        if r["rc"] == 1 and r["out"]:
            # informational: does the printed diff give the commit's files?
            dp = os.path.join(work, "dry.diff")
            with open(dp, "wb") as f:
                f.write(r["out"])
            d2 = fresh("dry-diff", old_files)
            g = at.git_apply([dp], d2, timeout=t)
            rec["dry_diff_reproduces"] = bool(g["ok"]) and at.snapshot(d2) == want_new
        d = fresh("dry-commit", new_files)
        r = at.sm_apply(args.binary, [patch], d, ["--dry-run"], t)
        judge("dry-commit", r, 0, at.snapshot(d), want_new)

    # --- git apply and GNU patch
    for name, files, want, before, reverse in (
            ("fwd", old_files, want_new, want_old, False),
            ("shift", shift_old, want_shift_new, want_shift_old, False),
            ("rev", new_files, want_old, want_new, True)):
        for tool, fn in (("git", at.git_apply), ("gnu", at.gnu_patch)):
            d = fresh(f"{tool}-{name}", files)
            g = fn([patch], d, reverse=reverse, timeout=t)
            if g["ok"] is None:
                continue
            got = at.snapshot(d)
            oc = outcome(0 if g["ok"] else 1, got, want, before)
            rec["tools"][f"{tool}-{name}"] = {"outcome": oc, "err": g.get("err", ""),
                                             "diffs": at.compare(got, want)[:3]}
            smo = rec.get(f"sm_{name}")
            known = ""
            if name == "shift" and tool == "git" and oc == "refused" and ":1 |" in \
                    g.get("err", "") + " |":
                # git apply pins a hunk that starts at line 1 with less leading than trailing
                # context to the top of the file (see real_commits.py)
                known = " [known: git pins a hunk starting at line 1 to the file's top]"
                rec["tools"][f"{tool}-{name}"]["known"] = True
            if smo is not None and oc != smo:
                why = ("its result is the expected tree" if oc == "ok" else
                       g.get("err") or "; ".join(at.compare(got, want)[:2]))
                rec["disagreements"].append(
                    f"{name}: sm120check {smo} vs {'git apply' if tool == 'git' else 'GNU patch'}"
                    f" {oc} ({why[:300]}){known}")
            elif smo is None and tool == "git" and name in ("fwd", "rev") and oc != "ok":
                fail(f"git-{name}", f"git apply {oc}: {g.get('err', '')[:300]}")
    if sm:
        gs = rec["tools"].get("gnu-shift")
        if gs and gs["outcome"] == "ok" and rec["sm_shift"] == "ok":
            rec["sm_equals_gnu_shift"] = True
        elif gs:
            rec["sm_equals_gnu_shift"] = False
    rec["ok"] = not rec["failures"]
    if not args.keep:
        for p in trees.values():
            shutil.rmtree(p, ignore_errors=True)
    return rec


def mark(rec: dict, name: str) -> str:
    ch = rec["checks"].get(name)
    if ch is None:
        return "-"
    return "ok" if ch["ok"] else f"{ch['rc']}!"


def tool_mark(rec: dict, name: str) -> str:
    return "/".join({"ok": "ok", "refused": "no", "wrong": "WR"}.get(
        rec["tools"].get(f"{tool}-{name}", {}).get("outcome"), "-") for tool in ("git", "gnu"))


def kind_letters(info: dict) -> str:
    cnt = collections.Counter(ch["st"] for ch in info["changes"])
    modes = sum(1 for ch in info["changes"] if ch["st"] in "MR" and ch["m1"] != ch["m2"])
    s = " ".join(f"{k}{cnt[k]}" for k in "MADR" if cnt[k])
    return s + (f" m{modes}" if modes else "")


# ---------------------------------------------------------------------------------------------


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--bin", default="./build/sm120check", help="sm120check binary")
    ap.add_argument("--repo", action="append",
                    help="git repository (repeatable; default: the six mirrors under "
                         f"{MIRRORS})")
    ap.add_argument("--count", type=int, default=20, help="newest usable commits per repository")
    ap.add_argument("--per-kind", type=int, default=2,
                    help="at least this many commits per repository with added / deleted / "
                         "renamed files / mode changes, where the scanned history has them")
    ap.add_argument("--commits", help="comma-separated commits of the one --repo (instead of "
                                      "--count and --per-kind)")
    ap.add_argument("--rev", default="HEAD")
    ap.add_argument("--scan", type=int, default=3000, help="commits scanned per repository")
    ap.add_argument("--max-files", type=int, default=12)
    ap.add_argument("--max-lines", type=int, default=2000)
    ap.add_argument("--timeout", type=float, default=60, help="seconds per process")
    ap.add_argument("--ground-truth-only", action="store_true",
                    help="run git apply and GNU patch only (no sm120check apply)")
    ap.add_argument("--json-out")
    ap.add_argument("--keep", action="store_true", help="keep the temporary trees")
    args = ap.parse_args()
    args.binary = os.path.abspath(args.bin)
    if not args.ground_truth_only:
        if not (os.path.isfile(args.binary) and os.access(args.binary, os.X_OK)):
            ap.error(f"{args.bin}: no executable there (build it, or pass --bin PATH)")
        if not at.has_apply(args.binary):
            ap.error(f"{args.bin} has no 'apply' sub-command (pass --ground-truth-only to "
                     "check the expectations with git apply and GNU patch alone)")
        if not at.APPLY_NO_GPU:
            print("note: this binary's apply does not take --no-gpu (the contract lists it): "
                  "run without it")
    repos = args.repo or [os.path.join(MIRRORS, r, "repo") for r in DEFAULT_REPOS]
    if args.commits and len(repos) != 1:
        ap.error("--commits needs exactly one --repo")
    root = tempfile.mkdtemp(prefix="sm120check-applydiff-")
    records, per_repo = [], {}
    try:
        for rp in repos:
            repo = Repo(rp, "apply_differential")
            name = os.path.basename(os.path.dirname(rp.rstrip("/"))) \
                if os.path.basename(rp.rstrip("/")) in ("repo", ".git") \
                else os.path.basename(rp.rstrip("/"))
            head = repo.out(["rev-parse", args.rev]).strip()
            commits, skipped = pick_commits(repo, args)
            kinds = collections.Counter(k for info in commits for k in info["kinds"])
            print(f"== {name} {head[:10]}: {len(commits)} commits ("
                  + ", ".join(f"{k} {kinds[k]}" for k in KINDS + ("modify",))
                  + "); passed over: "
                  + (", ".join(f"{w} {n}" for w, n in skipped.most_common()) or "none"),
                  flush=True)
            per_repo[name] = {"head": head, "commits": 0, "skipped": dict(skipped),
                              "kinds": dict(kinds)}
            for i, info in enumerate(commits, 1):
                work = os.path.join(root, f"{name}-{i:03d}-{info['commit'][:10]}")
                os.makedirs(work)
                try:
                    rec = check_commit(repo, info, args, work)
                except RuntimeError as e:
                    print(f"[{i:3d}/{len(commits)}] {info['commit'][:10]} SKIPPED: {e}")
                    per_repo[name]["skipped"][str(e).split(" (")[0]] = \
                        per_repo[name]["skipped"].get(str(e).split(" (")[0], 0) + 1
                    continue
                rec["repo"] = name
                records.append(rec)
                per_repo[name]["commits"] += 1
                print(f"[{i:3d}/{len(commits)}] {info['commit'][:10]} {kind_letters(info):12s}"
                      f"{info['changed']:5d}l  fwd:{mark(rec, 'fwd')} idem:{mark(rec, 'idem')}"
                      f" shift:{mark(rec, 'shift')} rev:{mark(rec, 'rev')}/"
                      f"{mark(rec, 'rev-idem')} dry:{mark(rec, 'dry')}/{mark(rec, 'dry-commit')}"
                      f"  git/gnu fwd:{tool_mark(rec, 'fwd')} shift:{tool_mark(rec, 'shift')}"
                      f" rev:{tool_mark(rec, 'rev')}"
                      f"{'  DISAGREE' if rec['disagreements'] else ''}  {info['subject'][:50]}",
                      flush=True)
                for f in rec["failures"]:
                    print(f"      FAIL {f[:400]}")
                for d in rec["disagreements"]:
                    print(f"      disagree {d[:400]}")
                if not args.keep:
                    shutil.rmtree(work, ignore_errors=True)
    finally:
        if args.keep:
            print(f"kept {root}")
        else:
            shutil.rmtree(root, ignore_errors=True)

    n = len(records)
    sm = not args.ground_truth_only

    def ok(check: str) -> str:
        have = [r for r in records if check in r["checks"]]
        return f"{sum(r['checks'][check]['ok'] for r in have)}/{len(have)}"

    def tool(key: str) -> collections.Counter:
        return collections.Counter(r["tools"][key]["outcome"] for r in records
                                   if key in r["tools"])

    kinds = collections.Counter(k for r in records for k in r["kinds"])
    summary = {
        "commits": n, "kinds": dict(kinds), "all_ok": sum(r["ok"] for r in records),
        "checks": {c: ok(c) for c in ("fwd", "idem", "shift", "rev", "rev-idem", "dry",
                                      "dry-commit")} if sm else {},
        "tools": {k: dict(tool(k)) for k in ("git-fwd", "git-shift", "git-rev", "gnu-fwd",
                                             "gnu-shift", "gnu-rev")},
        "sm_equals_gnu_shift": sum(1 for r in records if r.get("sm_equals_gnu_shift")),
        "dry_diff_reproduces": sum(1 for r in records if r.get("dry_diff_reproduces")),
        "disagreements": sum(len(r["disagreements"]) for r in records),
        "failures": sum(len(r["failures"]) for r in records),
    }
    print()
    print(f"commits: {n} (" + ", ".join(f"{k} {kinds[k]}" for k in KINDS + ("modify",))
          + ") over " + ", ".join(f"{k} {v['commits']}" for k, v in per_repo.items()))
    if sm:
        c = summary["checks"]
        print(f"sm120check apply: fwd {c['fwd']}  idempotent {c['idem']}  shifted {c['shift']}"
              f"  reverse {c['rev']} (again {c['rev-idem']})  dry-run {c['dry']}"
              f" (on commit {c['dry-commit']})")
        gs = tool("gnu-shift")
        print(f"shifted, sm120check == GNU patch byte for byte: {summary['sm_equals_gnu_shift']}"
              f"/{sum(gs.values())}; GNU patch itself failed {gs['refused']}, wrong result "
              f"{gs['wrong']}")
        print(f"dry-run diff, applied by git apply, gives the commit: "
              f"{summary['dry_diff_reproduces']}/{n}")
    for k in ("git-fwd", "git-shift", "git-rev", "gnu-fwd", "gnu-shift", "gnu-rev"):
        t = tool(k)
        known = sum(1 for r in records if r["tools"].get(k, {}).get("known"))
        print(f"{k:10s} ok {t['ok']}, refused {t['refused']}"
              + (f" ({known} the known line-1 anchor)" if known else "")
              + f", wrong {t['wrong']}")
    print(f"all checks held: {summary['all_ok']}/{n}")
    if summary["failures"]:
        print("failures:")
        for r in records:
            for f in r["failures"]:
                print(f"  {r['repo']} {r['commit'][:10]} {f[:500]}")
    if summary["disagreements"]:
        print("disagreements:")
        for r in records:
            for d in r["disagreements"]:
                print(f"  {r['repo']} {r['commit'][:10]} {d[:500]}")
    if args.json_out:
        with open(args.json_out, "w", encoding="utf-8") as f:
            json.dump({"repos": per_repo, "summary": summary,
                       "apply_took_no_gpu": bool(at.APPLY_NO_GPU), "ground_truth_only":
                       args.ground_truth_only, "commits": records}, f, indent=1)
        print(f"wrote {args.json_out}")
    return 0 if records and summary["all_ok"] == n else 1


if __name__ == "__main__":
    sys.exit(main())
