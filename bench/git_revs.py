#!/usr/bin/env python3
"""Git-native verification on a real repository: `log` and `verify --rev` against checkouts.

For N real fix commits (first-parent, non-merge, subject starting with "fix", 1-3 text files)
of a repository, this script:
  1. makes the commit's patch (`git format-patch -1`),
  2. runs `sm120check log PATCH REPO` and checks that it names the commit itself (when later
     commits changed the same lines, so that the fix is no longer applied at HEAD, it walks
     from the commit before the next first-parent commit touching those files),
  3. runs `sm120check verify --rev C~1 --rev C PATCH REPO` and checks applicable / applied,
  4. does the same two answers the checkout way: `git worktree add --detach` at C~1, verify,
     `git checkout C`, verify; and times both ways.
The repository is cloned with --no-checkout into a temporary folder (the source is never
modified). Standard library only.

  python3 bench/git_revs.py --bin build/sm120check --repo /path/to/repo.git -n 10
"""
import argparse
import json
import os
import shutil
import subprocess
import sys
import tempfile
import time


def run(cmd, cwd=None, check=True):
    r = subprocess.run(cmd, cwd=cwd, capture_output=True, text=True)
    if check and r.returncode != 0:
        sys.exit(f"failed: {' '.join(cmd)}\n{r.stderr}")
    return r


def timed(cmd, cwd=None):
    t = time.perf_counter()
    r = subprocess.run(cmd, cwd=cwd, capture_output=True, text=True)
    return r, time.perf_counter() - t


def candidates(repo, n, skip):
    out = run(["git", "log", "--first-parent", "--no-merges", "-i", "--grep=^fix",
               "--format=%H %s"], cwd=repo).stdout.splitlines()
    picked = []
    for line in out[skip:]:
        sha, subject = line.split(" ", 1)
        stat = run(["git", "show", "--numstat", "--format=", sha], cwd=repo).stdout.split("\n")
        files = [s for s in stat if s.strip()]
        if not 1 <= len(files) <= 3 or any(f.startswith("-\t-") for f in files):
            continue
        if run(["git", "rev-parse", "-q", "--verify", sha + "~1"], cwd=repo,
               check=False).returncode != 0:
            continue
        picked.append((sha, subject))
        if len(picked) == n:
            break
    return picked


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--bin", default="./build/sm120check")
    ap.add_argument("--repo", required=True, help="repository (bare or not) to clone from")
    ap.add_argument("-n", type=int, default=10)
    ap.add_argument("--skip", type=int, default=0, help="skip the newest K fix commits")
    args = ap.parse_args()
    sm = os.path.abspath(args.bin)
    tmp = tempfile.mkdtemp(prefix="git_revs-")
    try:
        repo = os.path.join(tmp, "repo")
        run(["git", "clone", "-q", "--no-checkout", args.repo, repo])
        commits = run(["git", "rev-list", "--first-parent", "--count", "HEAD"], cwd=repo).stdout
        print(f"repository: {args.repo} ({commits.strip()} first-parent commits at HEAD)")
        rows = []
        for sha, subject in candidates(repo, args.n, args.skip):
            patch = os.path.join(tmp, sha + ".patch")
            with open(patch, "w") as f:
                f.write(run(["git", "format-patch", "-1", "--stdout", sha], cwd=repo).stdout)
            r, t_log = timed([sm, "log", "--format", "json", patch, repo])
            log = json.loads(r.stdout) if r.stdout else {}
            found = (log.get("first_applied") or {}).get("commit", "")
            tag = ""
            if found != sha and log.get("tip", {}).get("status") != "applied":
                # Changed again later, so not applied at HEAD: walk to the commit before the
                # next first-parent commit that touches the same files instead.
                files = run(["git", "show", "--format=", "--name-only", sha],
                            cwd=repo).stdout.split()
                later = run(["git", "rev-list", "--first-parent", "--reverse", sha + "..HEAD",
                             "--"] + files, cwd=repo).stdout.split()
                if later:
                    tag = later[0][:12] + "~1"
                    r, t2 = timed([sm, "log", "--format", "json", "--rev", later[0] + "~1",
                                   patch, repo])
                    t_log += t2
                    log = json.loads(r.stdout) if r.stdout else {}
                    found = (log.get("first_applied") or {}).get("commit", "")
            r, t_rev = timed([sm, "verify", "--format", "json", "--rev", sha + "~1", "--rev", sha,
                              patch, repo])
            revs = json.loads(r.stdout)["revisions"] if r.stdout else []
            st = [x["patches"][0]["status"] for x in revs]
            # The checkout way: a worktree at the parent, verify, check out the commit, verify.
            wt = os.path.join(tmp, "wt")
            t = time.perf_counter()
            run(["git", "worktree", "add", "-q", "--detach", wt, sha + "~1"], cwd=repo)
            a = run([sm, "verify", "--format", "json", patch, wt], check=False)
            run(["git", "checkout", "-q", sha], cwd=wt)
            b = run([sm, "verify", "--format", "json", patch, wt], check=False)
            t_co = time.perf_counter() - t
            run(["git", "worktree", "remove", "--force", wt], cwd=repo)
            co = [json.loads(x.stdout)["patches"][0]["status"] for x in (a, b)]
            rows.append(dict(sha=sha, subject=subject, found=found, log=log, st=st, co=co,
                             t_log=t_log, t_rev=t_rev, t_co=t_co))
            ok = "yes" if found == sha else f"no ({found[:12] or log.get('tip', {}).get('status')})"
            ok += f" (tip {tag})" if tag else ""
            print(f"{sha[:12]} log names it: {ok:<22} --rev parent/commit: {'/'.join(st):<19} "
                  f"checkout: {'/'.join(co):<19} log {t_log*1000:6.0f} ms "
                  f"({log.get('evaluated', 0)} commits looked at)  --rev x2 {t_rev*1000:5.0f} ms  "
                  f"checkout x2 {t_co*1000:6.0f} ms  {subject[:40]}")
        named = sum(r["found"] == r["sha"] for r in rows)
        revs_ok = sum(r["st"] == ["applicable", "applied"] for r in rows)
        agree = sum(r["st"] == r["co"] for r in rows)
        med = lambda k: sorted(r[k] for r in rows)[len(rows) // 2] * 1000 if rows else 0
        print(f"\n{len(rows)} fix commits: log named the commit itself for {named}; --rev gave "
              f"applicable/applied for {revs_ok}; --rev agreed with the checkouts for {agree}.")
        print(f"median: log {med('t_log'):.0f} ms, --rev parent+commit {med('t_rev'):.0f} ms, "
              f"worktree add + checkout + 2 verify {med('t_co'):.0f} ms")
        per_checkout = med("t_co") / 2
        looked = sorted(r["log"].get("evaluated", 0) for r in rows)[len(rows) // 2] if rows else 0
        print(f"log by checkouts would check out ~{looked} revisions: ~{looked * per_checkout:.0f} "
              f"ms at {per_checkout:.0f} ms per checkout + verify")
    finally:
        shutil.rmtree(tmp, ignore_errors=True)


if __name__ == "__main__":
    main()
