#!/usr/bin/env python3
"""Acceptance on real data: is a fix still reported present in a later, drifted tree?

For each repository (--repo, repeatable; bare mirrors are fine and are only read):
  * commits: the newest --count non-merge first-parent commits older than --min-age-days
    (counted back from HEAD's commit date) whose subject matches --fix-regex, that modify
    1..--max-files text files in place (no binary, no added/deleted/renamed file, no mode
    change), change at most --max-lines lines, and where at least one later first-parent
    commit (C..HEAD) changed at least one of their files;
  * target: HEAD's whole tree, written once per repository into a temporary folder from
    `git ls-tree` + `git cat-file` (no attributes, filters or submodules apply);
  * patch: `git format-patch -1 --stdout C`; the hunks judged come from `git diff-tree -p C`
    (a diff quoted in the message is never one of them);
  * ground truth per hunk: `git blame --reverse --first-parent C..HEAD -- PATH` gives, for
    every line of PATH at C, the last first-parent commit in which the line still existed and,
    when that is HEAD, the line's number (and path) in HEAD's file. A line survives iff that
    commit is HEAD. A hunk survives iff all its added lines survive. Two cross-checks: a
    surviving line's text must equal HEAD's line there, and the forward
    `git blame --first-parent C^..HEAD -- HEAD_PATH` must attribute to C exactly the HEAD lines
    that the reverse blame gives for the hunk's added lines. A hunk failing a check is
    "doubtful": listed and left out of the shares;
  * sm120check: `verify --format json --no-gpu --no-repo PATCH TARGET`, one process per
    commit; a hunk counts as present when its "presence" is "present" or, for binaries that
    predate that key, when its status is "applied";
  * negative control: for every surviving hunk whose added lines (per change group) are
    contiguous at HEAD, HEAD's file with each group's added lines replaced by its removed
    lines (pure additions: deleted; pure removals inside the hunk: re-inserted after the
    surviving line before them), the same patch verified again; the hunk must not be present.

Aims (exit status 0 only when both hold): at least --aim-present (0.95) of the surviving
hunks reported present, and no negative-control case reported present.
Python 3.11 standard library only.
"""
from __future__ import annotations

import argparse
import collections
import json
import os
import re
import shutil
import statistics
import subprocess
import sys
import tempfile
import threading
import time

sys.dont_write_bytecode = True  # no bench/__pycache__ from importing gitrepo
sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from gitrepo import ENV, Repo, describe  # noqa: E402  (bench/gitrepo.py)

FIX_REGEX = (r"\b(fix|bug|crash|sm_?1[02]\d|blackwell|hopper|oom|shared.?mem|illegal|wrong|"
             r"incorrect|correct)")
SAFE_PATH = re.compile(r"^[A-Za-z0-9_.,+@%=/ -]+$")  # paths git writes without quoting
HUNK_RE = re.compile(r"^@@ -(\d+)(?:,(\d+))? \+(\d+)(?:,(\d+))? @@")
BLAME_HDR = re.compile(rb"^([0-9a-f]{40}) (\d+) (\d+)(?: (\d+))?$")


# ---------------------------------------------------------------------------------------------
# Commits


def pick_commits(repo: Repo, head: str, head_time: int, args, fix_re) -> tuple[list, dict]:
    """The newest args.count usable fix commits, and counts of why others were passed over."""
    log = repo.out(["log", "--first-parent", "--no-merges", "--format=%H %ct %s",
                    f"-n{args.scan}", head]).splitlines()
    skipped = collections.Counter()
    picked = []
    newest = head_time - args.min_age_days * 86400
    for line in log:
        c, ct, subject = (line.split(" ", 2) + [""])[:3]
        if not fix_re.search(subject):
            skipped["subject"] += 1
            continue
        if int(ct) > newest:
            skipped["younger than --min-age-days"] += 1
            continue
        info, why = describe(repo, c, args.max_files, args.max_lines)
        if info is None:
            skipped[" ".join(why.split(" ")[:2]) if why.startswith("status")
                    else re.sub(r"\d+", "N", why.split(" for ")[0])] += 1
            continue
        if not all(SAFE_PATH.match(p) for p in info["files"]):
            skipped["path needs quoting"] += 1
            continue
        later = repo.out(["log", "--first-parent", "--format=%H", f"{c}..{head}", "--",
                          *info["files"]]).split()
        if not later:
            skipped["no later commit changed its files"] += 1
            continue
        info["later_commits"] = len(later)
        info["commit_time"] = int(ct)
        info["age_days"] = round((head_time - int(ct)) / 86400, 1)
        picked.append(info)
        if len(picked) == args.count:
            break
    return picked, dict(skipped)


# ---------------------------------------------------------------------------------------------
# Patch parsing


def parse_patch(text: str) -> dict[str, list[dict]]:
    """Hunks per file (post-image path without `b/`) of a git patch.

    Each hunk: index (1-based in its file), old/new start and lines, and groups: maximal runs
    of removed/added lines between context lines, each with `removed` (texts), `removed_eol`
    (False for a removed last line without newline), `added` (texts), `added_new` (their line
    numbers in the file after the commit) and `new_pos` (the post-image line number where the
    group starts; for a pure removal, the line that follows it). `context_new` lists the
    post-image line numbers of the context lines.
    """
    files: dict[str, list[dict]] = {}
    lines = text.split("\n")
    i, cur = 0, None
    while i < len(lines):
        ln = lines[i]
        if ln.startswith("diff --git "):
            cur = None
        elif ln.startswith("+++ ") and cur is None:
            p = ln[4:]
            cur = files.setdefault(p[2:] if p.startswith("b/") else p, [])
        elif ln.startswith("@@ ") and cur is not None:
            m = HUNK_RE.match(ln)
            if not m:
                raise ValueError(f"bad hunk header: {ln[:80]}")
            os_, ol = int(m.group(1)), int(m.group(2) or 1)
            ns, nl = int(m.group(3)), int(m.group(4) or 1)
            h = {"index": len(cur) + 1, "old_start": os_, "old_lines": ol, "new_start": ns,
                 "new_lines": nl, "groups": [], "context_new": []}
            n = ns if nl > 0 else ns + 1
            o_left, n_left = ol, nl
            group = None
            i += 1
            while i < len(lines) and (o_left > 0 or n_left > 0 or lines[i].startswith("\\")):
                t = lines[i]
                tag, body = t[:1], t[1:]
                if tag == "\\":
                    if group is not None and group["_last"] == "-":
                        group["removed_eol"] = False
                    i += 1
                    continue
                if tag == " " or t == "":
                    group = None
                    h["context_new"].append(n)
                    n += 1
                    o_left -= 1
                    n_left -= 1
                elif tag in "-+":
                    if group is None:
                        group = {"removed": [], "removed_eol": True, "added": [],
                                 "added_new": [], "new_pos": n, "_last": ""}
                        h["groups"].append(group)
                    if tag == "-":
                        group["removed"].append(body)
                        o_left -= 1
                    else:
                        group["added"].append(body)
                        group["added_new"].append(n)
                        n += 1
                        n_left -= 1
                    group["_last"] = tag
                else:
                    raise ValueError(f"unexpected line in hunk: {t[:80]}")
                i += 1
            for g in h["groups"]:
                del g["_last"]
            cur.append(h)
            continue
        i += 1
    return files


# ---------------------------------------------------------------------------------------------
# Ground truth


def parse_porcelain(data: bytes) -> list[tuple[str, int, int, str, bytes]]:
    """(commit, source line, result line, source path, text) per line of blame --porcelain."""
    out = []
    names: dict[str, str] = {}
    cur = None
    for ln in data.split(b"\n"):
        if ln.startswith(b"\t"):
            if cur is not None:
                sha, src, res = cur
                out.append((sha, src, res, names.get(sha, ""), ln[1:]))
                cur = None
            continue
        m = BLAME_HDR.match(ln)
        if m:
            cur = (m.group(1).decode(), int(m.group(2)), int(m.group(3)))
        elif ln.startswith(b"filename ") and cur is not None:
            names[cur[0]] = ln[9:].decode("utf-8", "surrogateescape")
    return out


class FileTruth:
    """Where the lines of PATH at C are at HEAD (per `git blame --reverse --first-parent`)."""

    def __init__(self, repo: Repo, c: str, head: str, path: str, tree: str):
        self.path = path
        self.c_lines: list[bytes] = []
        self.head_line: dict[int, int] = {}  # C line -> HEAD line, for surviving lines
        self.head_path: str | None = None
        self.problems: list[str] = []
        rev = parse_porcelain(repo.run(["blame", "--reverse", "--first-parent", "--porcelain",
                                        f"{c}..{head}", "--", path]).stdout)
        self.c_lines = [t for _, _, _, _, t in sorted(rev, key=lambda r: r[2])]
        paths = {name for sha, _, _, name, _ in rev if sha == head}
        if len(paths) > 1:
            self.problems.append(f"HEAD lines in several paths: {sorted(paths)}")
            return
        if not paths:
            return  # no line of the file survives (or the file is gone)
        self.head_path = paths.pop()
        full = os.path.join(tree, self.head_path)
        try:
            with open(full, "rb") as f:
                self.head_text = f.read()
        except OSError as e:
            self.problems.append(f"{self.head_path}: {e}")
            self.head_path = None
            return
        self.head_lines = self.head_text.split(b"\n")
        if self.head_lines and self.head_lines[-1] == b"":
            self.head_lines.pop()
        for sha, src, res, _, text in rev:
            if sha != head:
                continue
            if not 1 <= src <= len(self.head_lines) or self.head_lines[src - 1] != text:
                self.problems.append(f"C line {res} -> HEAD line {src}: text differs")
                continue
            self.head_line[res] = src
        # Forward check: HEAD lines that blame (C^..HEAD, first parent) attributes to C.
        self.forward: dict[int, int] = {}
        fwd = parse_porcelain(repo.run(["blame", "--first-parent", "--porcelain",
                                        f"{c}^..{head}", "--", self.head_path]).stdout)
        for sha, src, res, name, _ in fwd:
            if sha == c and name == path:
                self.forward[src] = res

    def survives(self, c_line: int) -> bool:
        return c_line in self.head_line


def truth_for_hunk(ft: FileTruth, h: dict) -> dict:
    """Ground truth of one hunk: class, HEAD lines of its added lines, doubts."""
    added = [n for g in h["groups"] for n in g["added_new"]]
    gt: dict = {"added": len(added), "removed": sum(len(g["removed"]) for g in h["groups"])}
    if not added:
        gt["class"] = "pure-deletion"
        gt["deletion"] = deletion_truth(ft, h)
        return gt
    if ft.head_path is None:
        gt["class"] = "not-surviving"
        gt["surviving_added"] = 0
        gt["why"] = "; ".join(ft.problems) or "no line of the file at C survives at HEAD"
        return gt
    surv = [n for n in added if ft.survives(n)]
    gt["surviving_added"] = len(surv)
    doubts = []
    for n in added:
        r, f = ft.head_line.get(n), ft.forward.get(n)
        if r != f:
            doubts.append(f"C line {n}: blame --reverse says HEAD line {r}, forward blame "
                          f"{f}")
    if doubts:
        gt["class"] = "doubtful"
        gt["doubts"] = doubts[:5]
        return gt
    if len(surv) < len(added):
        gt["class"] = "not-surviving"
        return gt
    gt["class"] = "surviving"
    gt["head_path"] = ft.head_path
    gt["head_lines"] = [ft.head_line[n] for n in added]
    gt["offset"] = gt["head_lines"][0] - added[0]
    # Later commits inserted lines between added lines of one change group.
    gt["added_split"] = any(
        ft.head_line[b] != ft.head_line[a] + 1
        for g in h["groups"] for a, b in zip(g["added_new"], g["added_new"][1:]))
    # Context intact: the hunk's whole post-image (as at C) stands verbatim in HEAD's file,
    # placed so that its first added line is where blame puts it. Judged by text, since blame
    # may map a repeated line (a blank, a bracket) of the context elsewhere.
    post = ft.c_lines[h["new_start"] - 1:h["new_start"] - 1 + h["new_lines"]]
    start = gt["head_lines"][0] - (added[0] - h["new_start"])
    gt["context_intact"] = start >= 1 and \
        ft.head_lines[start - 1:start - 1 + len(post)] == post
    gt["context_survives"] = sum(1 for n in h["context_new"] if ft.survives(n))
    gt["context_lines"] = len(h["context_new"])
    return gt


def deletion_truth(ft: FileTruth, h: dict) -> str:
    """For a hunk that only removes lines. holds: around every removal, the lines just before
    and after it survive and the removed lines are not back between them at HEAD (usually the
    two are adjacent there); re-added: the removed block stands between them again;
    undetermined: one of them did not survive (or the file is gone)."""
    if ft.head_path is None:
        return "undetermined"
    n_c = len(ft.c_lines)
    verdict = "holds"
    for g in h["groups"]:
        before, after = g["new_pos"] - 1, g["new_pos"]
        hb = 0 if before == 0 else ft.head_line.get(before)
        ha = len(ft.head_lines) + 1 if after > n_c else ft.head_line.get(after)
        if hb is None or ha is None:
            return "undetermined"
        between = ft.head_lines[hb:ha - 1]
        block = [t.encode("utf-8", "surrogateescape") for t in g["removed"]]
        if any(between[i:i + len(block)] == block for i in range(len(between) - len(block) + 1)):
            verdict = "re-added"
    return verdict


def control_edits(ft: FileTruth, h: dict) -> tuple[list | None, str]:
    """Edits (HEAD start line, lines to delete, lines to insert) that put the hunk's removed
    lines back in place of its added lines in HEAD's file; None and why when not possible."""
    edits = []
    for g in h["groups"]:
        rem = [t.encode("utf-8", "surrogateescape") + b"\n" for t in g["removed"]]
        if rem and not g["removed_eol"]:
            rem[-1] = rem[-1][:-1]
        if g["added_new"]:
            hl = [ft.head_line[n] for n in g["added_new"]]
            if any(b != a + 1 for a, b in zip(hl, hl[1:])):
                return None, "added lines not contiguous at HEAD"
            edits.append((hl[0], len(hl), rem))
        else:
            before, after = g["new_pos"] - 1, g["new_pos"]
            if before == 0:
                edits.append((1, 0, rem))
            elif before in ft.head_line:
                edits.append((ft.head_line[before] + 1, 0, rem))
            elif after in ft.head_line:
                edits.append((ft.head_line[after], 0, rem))
            else:
                return None, "no surviving line next to a pure removal"
    edits.sort(key=lambda e: e[0])
    for (s1, d1, _), (s2, _, _) in zip(edits, edits[1:]):
        if s1 + d1 > s2:
            return None, "edits overlap at HEAD"
    return edits, ""


def apply_edits(text: bytes, edits: list) -> bytes:
    lines = text.splitlines(keepends=True)
    if lines and not lines[-1].endswith(b"\n"):
        lines[-1] += b"\n"  # a later insertion after it needs the newline
        strip_last = True
    else:
        strip_last = False
    for start, delete, insert in sorted(edits, key=lambda e: -e[0]):
        lines[start - 1:start - 1 + delete] = insert
    out = b"".join(lines)
    if strip_last and out.endswith(b"\n"):
        out = out[:-1]
    return out


# ---------------------------------------------------------------------------------------------
# HEAD tree and sm120check


def export_tree(repo: Repo, rev: str, dest: str) -> tuple[int, list[str]]:
    """Writes every file of rev's tree under dest (regular files and symlinks; submodules are
    left out; so are blobs the mirror lacks, such as its largest files). Returns (files written,
    paths missing)."""
    raw = repo.run(["ls-tree", "-r", "-z", "--full-tree", rev]).stdout
    entries = []
    for rec in raw.split(b"\0"):
        if not rec:
            continue
        meta, path = rec.split(b"\t", 1)
        mode, typ, sha = meta.split()
        if typ == b"blob":
            entries.append((mode, sha, path))
    proc = subprocess.Popen(["git", f"--git-dir={repo.git_dir}", "cat-file", "--batch"],
                            stdin=subprocess.PIPE, stdout=subprocess.PIPE, env=ENV)

    def feed():
        for _, sha, _ in entries:
            proc.stdin.write(sha + b"\n")
        proc.stdin.close()

    t = threading.Thread(target=feed, daemon=True)
    t.start()
    root = os.fsencode(dest)
    made = set()
    missing = []
    for mode, sha, path in entries:
        header = proc.stdout.readline().split()
        if len(header) == 2 and header[1] == b"missing":
            missing.append(os.fsdecode(path))
            continue
        size = int(header[2])
        data = proc.stdout.read(size)
        proc.stdout.read(1)
        full = os.path.join(root, path)
        d = os.path.dirname(full)
        if d not in made:
            os.makedirs(d, exist_ok=True)
            made.add(d)
        if mode == b"120000":
            os.symlink(data, full)
        else:
            with open(full, "wb") as f:
                f.write(data)
            if mode == b"100755":
                os.chmod(full, 0o755)
    t.join()
    proc.wait()
    return len(entries) - len(missing), missing


def run_verify(binary: str, patch: str, tree: str, timeout: float) -> dict:
    """{"rc", "status", "presence", "files": {new_path: {...}}, "error"} from one verify run."""
    cmd = [binary, "verify", "--format", "json", "--no-gpu", "--no-repo", patch, tree]
    t0 = time.perf_counter()
    try:
        r = subprocess.run(cmd, capture_output=True, timeout=timeout, stdin=subprocess.DEVNULL)
    except subprocess.TimeoutExpired:
        return {"rc": None, "status": "timeout", "files": {}, "error": f">{timeout}s"}
    res = {"rc": r.returncode, "status": None, "presence": None, "files": {}, "error": None,
           "seconds": round(time.perf_counter() - t0, 3)}
    try:
        p = json.loads(r.stdout)["patches"][0]
        res["status"] = p.get("status")
        res["presence"] = p.get("presence")
        res["error"] = p.get("error")
        for f in p.get("files", []):
            np = f.get("new_path") or ""
            np = np[2:] if np.startswith("b/") else np
            res["files"][np] = {
                "status": f.get("status"), "presence": f.get("presence"),
                "target_path": f.get("target_path"), "relocated": f.get("relocated"),
                "reason": f.get("reason"),
                "hunks": {h.get("index"): {k: h.get(k) for k in (
                    "status", "kind", "presence", "line", "offset", "fuzz", "diagnostic",
                    "closest", "drift", "places") if k in h} for h in f.get("hunks", [])}}
    except (ValueError, KeyError, IndexError, TypeError) as e:
        res["status"] = "no-json"
        res["error"] = (f"{type(e).__name__}: {e}; stderr: "
                        f"{r.stderr.decode(errors='replace').strip()[:300]}")
    return res


def reported(res: dict, path: str, index: int) -> dict:
    f = res["files"].get(path)
    if f is None:
        return {"status": f"file-missing({res['status']})", "present": False,
                "key": f"file-missing/{res['status']}"}
    h = f["hunks"].get(index)
    if h is None:
        return {"status": f"hunk-missing({f['status']})", "present": False,
                "key": f"hunk-missing/{f['status']}"}
    out = dict(h)
    if "presence" in h:
        out["present"] = h["presence"] == "present"
    else:
        out["present"] = h.get("status") == "applied"
    out["key"] = "/".join(str(h.get(k) or "-") for k in ("status", "kind", "presence",
                                                             "diagnostic"))
    out["target_path"] = f["target_path"]
    if f.get("relocated"):
        out["relocated"] = True
    if f.get("reason"):
        out["file_reason"] = f["reason"]
    return out


# ---------------------------------------------------------------------------------------------


def check_commit(repo: Repo, info: dict, head: str, tree: str, binary: str, work: str,
                 args) -> dict:
    c = info["commit"]
    rec = dict(info, hunks=[], controls=[])
    data = repo.run(["format-patch", "-1", "--stdout", "--no-signature", c]).stdout
    patch = os.path.join(work, f"{c[:12]}.patch")
    with open(patch, "wb") as f:
        f.write(data)
    # The hunks from the diff alone (the same diff format-patch writes), so that a diff quoted
    # in the commit message cannot be taken for one.
    diff = repo.run(["diff-tree", "-p", "--no-commit-id", "--no-renames", c]).stdout
    files = parse_patch(diff.decode("utf-8", "surrogateescape"))
    if sorted(files) != sorted(info["files"]):
        rec["skipped"] = (f"diff gives files {sorted(files)[:4]}, commit has "
                          f"{sorted(info['files'])[:4]}")
        return rec
    res = run_verify(binary, patch, tree, args.timeout)
    rec["verify"] = {k: res.get(k) for k in ("rc", "status", "presence", "error", "seconds")}
    seen = {p: len(f["hunks"]) for p, f in res["files"].items()}
    want = {p: len(h) for p, h in files.items()}
    if seen != want:
        rec["skipped"] = (f"sm120check ({res['status']}: {res.get('error') or ''}) reads other "
                          f"files or hunk counts than the commit's diff ({seen} vs {want}; a "
                          f"diff in the message?)")
        return rec
    truths = {p: FileTruth(repo, c, head, p, tree) for p in info["files"]}
    for path, hunks in files.items():
        ft = truths[path]
        for h in hunks:
            gt = truth_for_hunk(ft, h)
            rp = reported(res, path, h["index"])
            hr = {"commit": c[:12], "file": path, "hunk": h["index"],
                  "header": f"-{h['old_start']},{h['old_lines']} +{h['new_start']},"
                            f"{h['new_lines']}", "truth": gt, "reported": rp}
            if ft.problems:
                hr["file_problems"] = ft.problems[:3]
            if gt["class"] == "pure-deletion":
                g0 = h["groups"][0]
                hr["c_line"] = g0["new_pos"]
            else:
                hr["c_line"] = next(n for g in h["groups"] for n in g["added_new"])
            rec["hunks"].append(hr)
            if gt["class"] == "surviving":
                edits, why = control_edits(ft, h)
                ctl = {"commit": c[:12], "file": path, "hunk": h["index"],
                       "head_path": ft.head_path}
                if edits is None:
                    ctl["excluded"] = why
                else:
                    ctl.update(run_control(ft, edits, patch, tree, binary, path, h["index"],
                                           args))
                rec["controls"].append(ctl)
    return rec


def run_control(ft: FileTruth, edits: list, patch: str, tree: str, binary: str, path: str,
                index: int, args) -> dict:
    full = os.path.join(tree, ft.head_path)
    changed = apply_edits(ft.head_text, edits)
    try:
        with open(full, "wb") as f:
            f.write(changed)
        res = run_verify(binary, patch, tree, args.timeout)
    finally:
        with open(full, "wb") as f:
            f.write(ft.head_text)
    rp = reported(res, path, index)
    return {"edits": [(s, d, len(i)) for s, d, i in edits], "reported": rp,
            "violation": rp["present"]}


# ---------------------------------------------------------------------------------------------
# Summary


def share(a: int, b: int) -> str:
    return f"{a}/{b} ({100.0 * a / b:.1f}%)" if b else f"{a}/0"


def summarise(records: list[dict]) -> dict:
    skipped = [r for r in records if r.get("skipped")]
    records = [r for r in records if not r.get("skipped")]
    hunks = [h for r in records for h in r["hunks"]]
    ctls = [c for r in records for c in r["controls"]]
    by = collections.defaultdict(list)
    for h in hunks:
        by[h["truth"]["class"]].append(h)
    surv = by["surviving"]
    miss = [h for h in surv if not h["reported"]["present"]]
    intact = [h for h in surv if h["truth"]["context_intact"]]
    drifted = [h for h in surv if not h["truth"]["context_intact"]]
    notsurv = by["not-surviving"]
    dels = by["pure-deletion"]
    full_commits = [r for r in records if r["hunks"] and all(
        h["truth"]["class"] == "surviving" for h in r["hunks"]
        if h["truth"]["class"] != "pure-deletion")
        and any(h["truth"]["class"] == "surviving" for h in r["hunks"])]
    ran = [c for c in ctls if "reported" in c]
    s = {
        "commits": len(records),
        "commits_skipped": len(skipped),
        "age_days_median": statistics.median(r["age_days"] for r in records) if records else 0,
        "later_commits_median": (statistics.median(r["later_commits"] for r in records)
                                 if records else 0),
        "hunks": len(hunks),
        "hunks_by_truth": {k: len(v) for k, v in sorted(by.items())},
        "surviving": len(surv),
        "surviving_present": len(surv) - len(miss),
        "surviving_moved": sum(1 for h in surv if h["truth"]["offset"] != 0),
        "surviving_renamed": sum(1 for h in surv if h["truth"]["head_path"] != h["file"]),
        "surviving_renamed_present": sum(1 for h in surv if h["truth"]["head_path"] != h["file"]
                                         and h["reported"]["present"]),
        "surviving_context_intact": len(intact),
        "surviving_context_intact_present": sum(1 for h in intact if h["reported"]["present"]),
        "surviving_context_drifted": len(drifted),
        "surviving_context_drifted_present": sum(1 for h in drifted
                                                 if h["reported"]["present"]),
        "surviving_added_split": sum(1 for h in surv if h["truth"]["added_split"]),
        "surviving_added_split_present": sum(1 for h in surv if h["truth"]["added_split"]
                                             and h["reported"]["present"]),
        "surviving_misses_by_report": dict(collections.Counter(
            h["reported"]["key"] for h in miss).most_common()),
        "not_surviving": len(notsurv),
        "not_surviving_some_added_left": sum(1 for h in notsurv
                                             if h["truth"].get("surviving_added")),
        "not_surviving_reported": dict(collections.Counter(
            h["reported"]["key"] for h in notsurv).most_common()),
        "not_surviving_present": sum(1 for h in notsurv if h["reported"]["present"]),
        "doubtful": len(by["doubtful"]),
        "pure_deletion": {v: {"hunks": sum(1 for h in dels if h["truth"]["deletion"] == v),
                              "present": sum(1 for h in dels if h["truth"]["deletion"] == v
                                             and h["reported"]["present"])}
                          for v in ("holds", "re-added", "undetermined")},
        "fully_surviving_commits": len(full_commits),
        "fully_surviving_commit_status": dict(collections.Counter(
            f"{r['verify']['status']}/{r['verify'].get('presence') or '-'}"
            for r in full_commits).most_common()),
        "control_cases": len(ctls),
        "control_excluded": dict(collections.Counter(
            c["excluded"] for c in ctls if "excluded" in c)),
        "control_ran": len(ran),
        "control_not_present": sum(1 for c in ran if not c["violation"]),
        "control_reported": dict(collections.Counter(
            c["reported"]["key"] for c in ran).most_common()),
    }
    return s


def print_summary(name: str, s: dict) -> None:
    print(f"== {name}")
    print(f"  commits {s['commits']} ({s['commits_skipped']} skipped; median age "
          f"{s['age_days_median']} days before HEAD, median {s['later_commits_median']} later "
          f"commits on their files), hunks {s['hunks']}: "
          + ", ".join(f"{k} {v}" for k, v in s["hunks_by_truth"].items()))
    print(f"  surviving hunks reported present:  "
          f"{share(s['surviving_present'], s['surviving'])}  (aim >= 95%; "
          f"{s['surviving_moved']} moved at HEAD)")
    print(f"    in files renamed after C:        "
          f"{share(s['surviving_renamed_present'], s['surviving_renamed'])}")
    print(f"    context intact at HEAD:          "
          f"{share(s['surviving_context_intact_present'], s['surviving_context_intact'])}")
    print(f"    context drifted at HEAD:         "
          f"{share(s['surviving_context_drifted_present'], s['surviving_context_drifted'])}")
    print(f"      of them added lines split at HEAD: "
          f"{share(s['surviving_added_split_present'], s['surviving_added_split'])}")
    for k, v in s["surviving_misses_by_report"].items():
        print(f"      missed as {k}: {v}")
    print(f"  fully surviving commits: {s['fully_surviving_commits']}, patch status: "
          + ", ".join(f"{k} {v}" for k, v in s["fully_surviving_commit_status"].items()))
    print(f"  not-surviving hunks reported present (suspicious): "
          f"{s['not_surviving_present']}/{s['not_surviving']} "
          f"({s['not_surviving_some_added_left']} keep some added lines); reported: "
          + ", ".join(f"{k} {v}" for k, v in s["not_surviving_reported"].items()))
    pd = s["pure_deletion"]
    print("  pure-deletion hunks: " + ", ".join(
        f"{k} {v['hunks']} ({v['present']} present)" for k, v in pd.items()))
    print(f"  doubtful ground truth (left out): {s['doubtful']}")
    print(f"  negative control not present:      "
          f"{share(s['control_not_present'], s['control_ran'])}  (aim 100%; "
          f"{s['control_cases'] - s['control_ran']} excluded: "
          + ", ".join(f"{k} {v}" for k, v in s["control_excluded"].items()) + ")")
    print("    reported: " + ", ".join(f"{k} {v}" for k, v in s["control_reported"].items()))


def fmt_report(rp: dict) -> str:
    bits = [rp["key"]]
    for k in ("line", "offset", "fuzz"):
        if rp.get(k) is not None:
            bits.append(f"{k}={rp[k]}")
    if rp.get("closest"):
        cl = rp["closest"]
        bits.append(f"closest={cl.get('image')}@{cl.get('line')} {cl.get('agree')}/"
                    f"{cl.get('of')} first_diff={cl.get('first_difference')}")
    if rp.get("drift"):
        bits.append(f"drift={rp['drift']}")
    if rp.get("places"):
        bits.append(f"places={rp['places']}")
    if rp.get("relocated"):
        bits.append(f"relocated->{rp.get('target_path')}")
    if rp.get("file_reason"):
        bits.append(f"file: {rp['file_reason'][:120]}")
    return " ".join(bits)


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--repo", action="append", required=True,
                    help="git repository (work tree or bare mirror); repeatable")
    ap.add_argument("--bin", default="./build/sm120check", help="sm120check binary")
    ap.add_argument("--count", type=int, default=20, help="commits per repository (default 20)")
    ap.add_argument("--fix-regex", default=FIX_REGEX,
                    help="subjects to take, case-insensitive (default: %(default)s)")
    ap.add_argument("--min-age-days", type=float, default=30,
                    help="skip commits younger than this many days before HEAD's commit "
                         "date, so that later history has had time to drift (default 30)")
    ap.add_argument("--scan", type=int, default=4000,
                    help="first-parent commits scanned per repository")
    ap.add_argument("--max-files", type=int, default=8)
    ap.add_argument("--max-lines", type=int, default=300, help="most changed lines per commit")
    ap.add_argument("--timeout", type=float, default=120, help="seconds per sm120check run")
    ap.add_argument("--aim-present", type=float, default=0.95)
    ap.add_argument("--json-out", help="write every record and the summaries here")
    ap.add_argument("--keep", action="store_true", help="keep the temporary trees")
    ap.add_argument("-v", "--verbose", action="store_true", help="one line per hunk")
    args = ap.parse_args()
    binary = os.path.abspath(args.bin)
    if not (os.path.isfile(binary) and os.access(binary, os.X_OK)):
        ap.error(f"{args.bin}: no executable there (build it, or pass --bin PATH)")
    fix_re = re.compile(args.fix_regex, re.I)
    root = tempfile.mkdtemp(prefix="sm120check-drift-")
    per_repo, all_records, heads = {}, [], {}
    try:
        for rpath in args.repo:
            repo = Repo(rpath, "drift_acceptance")
            name = os.path.basename(os.path.dirname(repo.git_dir.rstrip("/"))) \
                if os.path.basename(repo.git_dir.rstrip("/")) in ("repo", ".git") \
                else os.path.basename(repo.git_dir.rstrip("/"))
            head = repo.out(["rev-parse", "HEAD^{commit}"]).strip()
            head_time = int(repo.out(["log", "-1", "--format=%ct", head]).strip())
            heads[name] = head
            commits, skipped = pick_commits(repo, head, head_time, args, fix_re)
            print(f"{name}: HEAD {head[:12]}, {len(commits)} commits picked "
                  f"(passed over: {', '.join(f'{k} {v}' for k, v in skipped.items())})",
                  flush=True)
            tree = os.path.join(root, name, "tree")
            work = os.path.join(root, name, "patches")
            os.makedirs(work)
            t0 = time.perf_counter()
            nfiles, missing = export_tree(repo, head, tree)
            print(f"  HEAD tree: {nfiles} files in {time.perf_counter() - t0:.1f} s"
                  + (f" ({len(missing)} blobs absent from the mirror, left out: "
                     f"{', '.join(missing[:3])})" if missing else ""), flush=True)
            records = []
            for i, info in enumerate(commits, 1):
                try:
                    rec = check_commit(repo, info, head, tree, binary, work, args)
                except (RuntimeError, ValueError) as e:
                    print(f"  [{i:3d}/{len(commits)}] {info['commit'][:10]} SKIPPED: {e}")
                    continue
                rec["repo"] = name
                records.append(rec)
                if rec.get("skipped"):
                    print(f"  [{i:3d}/{len(commits)}] {info['commit'][:10]} SKIPPED: "
                          f"{rec['skipped']}")
                    continue
                sv = [h for h in rec["hunks"] if h["truth"]["class"] == "surviving"]
                ran = [c for c in rec["controls"] if "reported" in c]
                print(f"  [{i:3d}/{len(commits)}] {info['commit'][:10]} "
                      f"{len(info['files'])}f {info['changed']:3d}l "
                      f"{info['later_commits']:3d}later {info['age_days']:6.1f}d  "
                      f"{rec['verify']['status']:<10} hunks {len(rec['hunks']):2d} "
                      f"surviving {len(sv):2d} present "
                      f"{sum(h['reported']['present'] for h in sv):2d}  control "
                      f"{sum(not c['violation'] for c in ran)}/{len(ran)}  "
                      f"{info['subject'][:50]}", flush=True)
                if args.verbose:
                    for h in rec["hunks"]:
                        gt = h["truth"]
                        extra = (f" -> {gt.get('head_path')}:{gt['head_lines'][0]} "
                                 f"intact={gt['context_intact']}"
                                 if gt["class"] == "surviving" else
                                 f" {gt.get('deletion', '')}{gt.get('why', '')}")
                        print(f"      {h['file']} #{h['hunk']} {gt['class']}{extra}: "
                              f"{fmt_report(h['reported'])}")
                    for c in rec["controls"]:
                        if "reported" in c:
                            print(f"      control {c['file']} #{c['hunk']}: "
                                  f"{fmt_report(c['reported'])}")
            per_repo[name] = records
            all_records.extend(records)
            if not args.keep:
                shutil.rmtree(os.path.join(root, name), ignore_errors=True)
    finally:
        if args.keep:
            print(f"kept {root}")
        else:
            shutil.rmtree(root, ignore_errors=True)

    print()
    summaries = {name: summarise(recs) for name, recs in per_repo.items()}
    for name, s in summaries.items():
        print_summary(name, s)
    total = summarise(all_records)
    print_summary("total", total)

    hunks = [h for r in all_records for h in r["hunks"]]
    misses = [h for h in hunks if h["truth"]["class"] == "surviving"
              and not h["reported"]["present"]]
    suspicious = [h for h in hunks if h["truth"]["class"] == "not-surviving"
                  and h["reported"]["present"]]
    doubtful = [h for h in hunks if h["truth"]["class"] == "doubtful"]
    del_misses = [h for h in hunks if h["truth"]["class"] == "pure-deletion"
                  and h["truth"]["deletion"] == "holds" and not h["reported"]["present"]]
    violations = [c for r in all_records for c in r["controls"] if c.get("violation")]

    def where(h: dict) -> str:
        gt = h["truth"]
        at = (f" HEAD {gt['head_path']}:{gt['head_lines'][0]} (C:{h['c_line']}, "
              f"intact={gt['context_intact']}, context {gt['context_survives']}/"
              f"{gt['context_lines']} survive)" if "head_lines" in gt else "")
        return f"{h['commit']} {h['file']} #{h['hunk']} {h['header']}{at}"

    if misses:
        print(f"\nsurviving hunks not reported present ({len(misses)}):")
        for h in misses:
            print(f"  {where(h)}: {fmt_report(h['reported'])}")
    if suspicious:
        print(f"\nnot-surviving hunks reported present ({len(suspicious)}, suspicious):")
        for h in suspicious:
            print(f"  {where(h)} ({h['truth'].get('surviving_added')}/"
                  f"{h['truth']['added']} added lines survive): {fmt_report(h['reported'])}")
    if del_misses:
        print(f"\npure deletions that hold at HEAD, not reported present ({len(del_misses)}):")
        for h in del_misses:
            print(f"  {where(h)}: {fmt_report(h['reported'])}")
    if doubtful:
        print(f"\ndoubtful ground truth ({len(doubtful)}, left out):")
        for h in doubtful:
            print(f"  {where(h)}: {'; '.join(h['truth'].get('doubts', []))[:300]}")
    if violations:
        print(f"\nnegative-control violations ({len(violations)}):")
        for c in violations:
            print(f"  {c['commit']} {c['file']} #{c['hunk']} (HEAD {c['head_path']}, edits "
                  f"{c['edits']}): {fmt_report(c['reported'])}")

    ok_present = total["surviving"] > 0 and \
        total["surviving_present"] >= args.aim_present * total["surviving"]
    ok_control = total["control_ran"] > 0 and total["control_not_present"] == total["control_ran"]
    print(f"\naim present >= {args.aim_present:.0%}: {'met' if ok_present else 'NOT met'}; "
          f"aim negative control 100%: {'met' if ok_control else 'NOT met'}")
    if args.json_out:
        with open(args.json_out, "w", encoding="utf-8") as f:
            json.dump({"binary": binary, "args": {k: v for k, v in vars(args).items()},
                       "heads": heads,
                       "summary": {"total": total, "repos": summaries},
                       "misses": misses, "suspicious": suspicious, "doubtful": doubtful,
                       "deletion_misses": del_misses,
                       "violations": violations, "commits": all_records}, f, indent=1,
                      default=str)
        print(f"wrote {args.json_out}")
    return 0 if ok_present and ok_control else 1


if __name__ == "__main__":
    sys.exit(main())
