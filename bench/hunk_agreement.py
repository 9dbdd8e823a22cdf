#!/usr/bin/env python3
"""Per-hunk agreement of `sm120check verify` with git's own checks, on patches against one tree.

For every patch given (files or folders of *.patch) and every text hunk of a file the patch
modifies in place (no add, delete, rename, copy or binary), the hunk alone, with its file's
headers, is checked in TREE with `git apply --check` and `git apply --check -R` (run in the
tree, outside any repository, no user configuration), which gives git's word per hunk:
  applied     the reverse check passes and the forward one fails
  applicable  the forward check passes and the reverse one fails
  both        both pass (the hunk's images are each somewhere)
  neither     both fail
Then `sm120check verify --format json --no-gpu --no-repo [OPTS] PATCH TREE` is run once per
patch (default mode, and again with --strict when --strict-too is given) and each hunk's status
is set against git's word. A hunk git calls `applied` that sm120check does not call applied is
a "missed applied"; one git calls `applicable` that sm120check calls applied is a "false
applied" (git finds the code it changes and not the change); one git calls `neither` that
sm120check calls applied by an exact or fuzz match cannot happen and is listed as well
(`drifted` matches there are the drift search's work, counted apart).

Git judges each hunk on its own here: a hunk out of order with its neighbours still passes,
so this is a check of the matching of single hunks, not of whole files.

Prints a cross table (git's word x sm120check's status) per mode and the disagreements, one
line each. Exit status 0 when no false applied was found. Python 3.11 standard library only.
"""
from __future__ import annotations

import argparse
import collections
import json
import os
import re
import subprocess
import sys
import tempfile

HUNK_RE = re.compile(r"^@@ -(\d+)(?:,(\d+))? \+(\d+)(?:,(\d+))? @@")


def split_hunks(text: str) -> list[dict]:
    """[{path, header, hunks: [hunk text]}] for files modified in place (text hunks only)."""
    lines = text.splitlines(keepends=True)
    out, i = [], 0
    while i < len(lines):
        if not lines[i].startswith("diff --git "):
            i += 1
            continue
        header = [lines[i]]
        i += 1
        while i < len(lines) and not lines[i].startswith(("@@ ", "diff --git ")):
            header.append(lines[i])
            i += 1
        plain = not any(h.startswith(("new file", "deleted file", "rename ", "copy ",
                                      "GIT binary", "Binary files", "similarity"))
                        for h in header)
        path = next((h[6:].rstrip("\n") for h in header if h.startswith("+++ b/")), None)
        hunks = []
        while i < len(lines) and lines[i].startswith("@@ "):
            m = HUNK_RE.match(lines[i])
            if not m:
                break
            old = int(m.group(2)) if m.group(2) is not None else 1
            new = int(m.group(4)) if m.group(4) is not None else 1
            body = [lines[i]]
            i += 1
            while i < len(lines) and (old > 0 or new > 0):
                ln = lines[i]
                body.append(ln)
                i += 1
                if ln.startswith("\\"):
                    continue
                if ln.startswith("-"):
                    old -= 1
                elif ln.startswith("+"):
                    new -= 1
                else:
                    old -= 1
                    new -= 1
            while i < len(lines) and lines[i].startswith("\\"):
                body.append(lines[i])
                i += 1
            hunks.append("".join(body))
        if plain and path:
            out.append({"path": path, "header": "".join(header), "hunks": hunks})
    return out


_EMPTY_CONFIG = tempfile.NamedTemporaryFile(prefix="hunk_agreement.", suffix=".gitconfig")


def git_check(tree: str, patch_text: str, reverse: bool) -> bool:
    # An empty file of our own for the global configuration: not os.devnull, which on some
    # machines is a regular file that other programs write to (git then fails on it).
    env = dict(os.environ, GIT_CEILING_DIRECTORIES=os.path.dirname(os.path.abspath(tree)),
               GIT_CONFIG_NOSYSTEM="1", GIT_CONFIG_GLOBAL=_EMPTY_CONFIG.name, LC_ALL="C")
    r = subprocess.run(["git", "apply", "--check"] + (["-R"] if reverse else []) + ["-"],
                       cwd=tree, input=patch_text.encode(), capture_output=True, env=env,
                       timeout=60)
    return r.returncode == 0


def git_word(tree: str, header: str, hunk: str) -> str:
    text = header + hunk
    fw, rv = git_check(tree, text, False), git_check(tree, text, True)
    return {(True, False): "applicable", (False, True): "applied",
            (True, True): "both", (False, False): "neither"}[(fw, rv)]


def sm_hunks(binary: str, patch: str, tree: str, opts: list[str]) -> dict:
    r = subprocess.run([binary, "verify", "--format", "json", "--no-gpu", "--no-repo"] + opts +
                       [patch, tree], capture_output=True, timeout=600)
    try:
        d = json.loads(r.stdout)
    except json.JSONDecodeError:
        sys.exit(f"hunk_agreement: {patch}: no JSON from sm120check: {r.stderr[-300:]!r}")
    out = {}
    for p in d["patches"]:
        for f in p["files"]:
            if f["change"] != "modify":
                continue
            path = f["new_path"][2:]
            for h in f["hunks"]:
                out[(path, h["index"])] = h
    return out


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("tree")
    ap.add_argument("patches", nargs="+", help="patch files or folders of *.patch")
    ap.add_argument("--bin", default="./build/sm120check", help="sm120check binary")
    ap.add_argument("--strict-too", action="store_true", help="also run with --strict")
    ap.add_argument("--json-out", help="write every hunk's record here")
    args = ap.parse_args()
    patches = []
    for p in args.patches:
        patches += sorted(os.path.join(p, n) for n in os.listdir(p) if n.endswith(".patch")) \
            if os.path.isdir(p) else [p]
    modes = [("default", [])] + ([("strict", ["--strict"])] if args.strict_too else [])
    records = []
    for patch in patches:
        text = open(patch, encoding="utf-8", errors="surrogateescape").read()
        files = split_hunks(text)
        if not files:
            continue
        sm = {name: sm_hunks(args.bin, patch, args.tree, opts) for name, opts in modes}
        for f in files:
            if not os.path.isfile(os.path.join(args.tree, f["path"])):
                continue
            for k, hunk in enumerate(f["hunks"], 1):
                rec = {"patch": os.path.basename(patch), "path": f["path"], "hunk": k,
                       "git": git_word(args.tree, f["header"], hunk)}
                for name, _ in modes:
                    h = sm[name].get((f["path"], k))
                    rec[name] = None if h is None else {
                        "status": h["status"], "kind": h["kind"],
                        "reason": h["presence_reason"], "places": h["places"]}
                records.append(rec)
    false_applied = 0
    for name, _ in modes:
        table = collections.Counter()
        diffs = []
        for r in records:
            h = r[name]
            st = "missing" if h is None else h["status"]
            kind = "" if h is None or h["kind"] is None else h["kind"]
            label = st + ("/drifted" if kind == "drifted" else "")
            table[(r["git"], label)] += 1
            bad = None
            if r["git"] == "applied" and st != "applied":
                bad = "missed applied"
            elif r["git"] == "applicable" and st == "applied":
                bad = "FALSE APPLIED"
            elif r["git"] == "neither" and st == "applied" and kind != "drifted":
                bad = "FALSE APPLIED (git: neither)"
            elif r["git"] == "applicable" and st != "applicable":
                bad = "missed applicable"
            if bad:
                if bad.startswith("FALSE"):
                    false_applied += 1
                diffs.append(f"  {bad}: {r['patch'][:60]} {r['path']} hunk {r['hunk']}: "
                             f"git {r['git']}, sm120check {label}"
                             f"{' (' + h['reason'] + ')' if h and h['reason'] else ''}"
                             f"{' at ' + str(h['places']) if h and h['places'] else ''}")
        print(f"{name}: {len(records)} hunks (git's word, sm120check's status: count)")
        for (g, s), n in sorted(table.items()):
            print(f"  {g:10} {s:18} {n}")
        agree = sum(n for (g, s), n in table.items()
                    if (g, s.split('/')[0]) in {("applied", "applied"),
                                                ("applicable", "applicable")})
        print(f"  agree on applied/applicable: {agree} of "
              f"{sum(n for (g, _), n in table.items() if g in ('applied', 'applicable'))}")
        print("\n".join(diffs))
    if args.json_out:
        with open(args.json_out, "w", encoding="utf-8") as f:
            json.dump(records, f, indent=1)
    return 1 if false_applied else 0


if __name__ == "__main__":
    sys.exit(main())
