#!/usr/bin/env python3
"""A stand-in for `sm120check verify`, for testing the bench scripts only.

It answers `verify PATCH_OR_DIR... TARGET [--format json|text]` by running
`git apply --check` (and `-R`) per file patch, and writes a document shaped like
"sm120check.verify/1" as far as the bench scripts read it (patches[].source, .status,
.files[].status, .hunks[].status/.offset, summary). It is slow (several processes per
patch) and knows nothing of fuzz, strip detection or diagnostics. Never use it to judge
sm120check; the bench scripts only need something that speaks the same JSON.
"""
import json
import os
import re
import subprocess
import sys

HUNK_RE = re.compile(r"^@@ -(\d+)(?:,(\d+))? \+(\d+)(?:,(\d+))? @@")
OFFSET_RE = re.compile(r"Hunk #(\d+) succeeded at (\d+) \(offset (-?\d+) lines?\)")


def split_files(text):
    """[(old_path, new_path, [hunk headers])] from a git-style patch."""
    files = []
    for line in text.splitlines():
        if line.startswith("diff --git "):
            files.append({"old": None, "new": None, "hunks": []})
        elif line.startswith("--- ") and files:
            files[-1]["old"] = line[4:].split("\t")[0]
        elif line.startswith("+++ ") and files:
            files[-1]["new"] = line[4:].split("\t")[0]
        elif files and (m := HUNK_RE.match(line)):
            files[-1]["hunks"].append([int(g) if g else 1 for g in m.groups()])
    return files


def check(patch, target, include, reverse):
    cmd = ["git", "apply", "--check", "-v", "--include=" + include]
    if reverse:
        cmd.append("-R")
    cmd.append(patch)
    env = dict(os.environ, GIT_CEILING_DIRECTORIES=os.path.dirname(os.path.abspath(target)))
    r = subprocess.run(cmd, cwd=target, capture_output=True, text=True, env=env)
    sign = -1 if reverse else 1  # git -v reports reverse offsets negated
    offsets = {int(m.group(1)): sign * int(m.group(3)) for m in OFFSET_RE.finditer(r.stderr)}
    return r.returncode == 0, offsets


def combine(parts):
    if not parts:
        return "applied"
    for s in ("error", "conflict", "unknown"):
        if s in parts:
            return s
    if all(p == "applied" for p in parts):
        return "applied"
    if all(p == "applicable" for p in parts):
        return "applicable"
    return "partial"


def verify_one(patch, target):
    with open(patch, encoding="utf-8", errors="surrogateescape") as f:
        text = f.read()
    subject = None
    for line in text.splitlines():
        if line.startswith("Subject: "):
            subject = line[9:]
            break
    files = []
    for fp in split_files(text):
        path = fp["new"] if fp["new"] != "/dev/null" else fp["old"]
        rel = path.split("/", 1)[1] if "/" in path else path
        fwd, fwd_off = check(patch, target, rel, False)
        rev, rev_off = check(patch, target, rel, True)
        if rev:
            status, offs = "applied", rev_off
        elif fwd:
            status, offs = "applicable", fwd_off
        else:
            status, offs = "conflict", {}
        hunks = []
        for i, (os_, ol, ns, nl) in enumerate(fp["hunks"], 1):
            hunks.append({"index": i, "old_start": os_, "old_lines": ol, "new_start": ns,
                          "new_lines": nl, "status": status if status != "conflict" else "conflict",
                          "offset": offs.get(i, 0), "fuzz": 0})
        files.append({"old_path": fp["old"], "new_path": fp["new"], "target_path": rel,
                      "change": "modify", "status": status, "reason": "", "hunks": hunks})
    return {"source": patch, "subject": subject, "status": combine([f["status"] for f in files]),
            "strip": 1, "files": files}


def main(argv):
    if len(argv) < 2 or argv[0] != "verify":
        print("fake_sm120check: error: only 'verify PATCH... TARGET' is supported", file=sys.stderr)
        return 3
    fmt = "text"
    args = []
    it = iter(argv[1:])
    for a in it:
        if a == "--format":
            fmt = next(it)
        elif a.startswith("--format="):
            fmt = a.split("=", 1)[1]
        else:
            args.append(a)
    *sources, target = args
    patches = []
    for s in sources:
        if os.path.isdir(s):
            patches += [os.path.join(s, n) for n in sorted(os.listdir(s))
                        if os.path.isfile(os.path.join(s, n))]
        else:
            patches.append(s)
    reports = [verify_one(p, target) for p in patches]
    names = ["applied", "applicable", "partial", "conflict", "unknown", "error"]
    summary = {n: sum(1 for r in reports if r["status"] == n) for n in names}
    if summary["error"]:
        code = 3
    elif summary["partial"] or summary["conflict"] or summary["unknown"]:
        code = 2
    elif summary["applicable"]:
        code = 1
    else:
        code = 0
    doc = {"schema": "sm120check.verify/1", "target": target, "patches": reports,
           "summary": summary, "exit_code": code}
    if fmt == "json":
        json.dump(doc, sys.stdout, indent=1)
        sys.stdout.write("\n")
    else:
        for r in reports:
            print(f"{r['source']}: {r['status']}")
        print(" ".join(f"{n}={summary[n]}" for n in names))
    return code


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
