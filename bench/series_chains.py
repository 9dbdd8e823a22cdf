#!/usr/bin/env python3
"""Patch series on real file histories: `sm120check verify` and `apply` on every state.

For each chosen file F of a repository (bare mirrors are fine and are only read), the last N
(--length) first-parent commits that changed F, C1 (oldest) .. CN, all non-merge and modifying
F in place (no merge of the first-parent line touched F in between, so the chain is
contiguous: F at Ck equals F at C(k+1)^), give
  Pk      = git format-patch -1 --stdout Ck -- F   (only F; -p1; no user configuration)
  state k = F at Ck (state 0 = F at C1^), written alone at its path from `git cat-file`.
Checks on every state k = 0..N (sm120check, exit status 0 only when all hold):
  verify  ONE `verify --format json --no-gpu --no-repo P1 .. PN TREE`: patches 1..k `applied`,
          k+1..N `applicable`, exit 0 when k = N, else 1
  apply   `apply --no-gpu P1 .. PN` on a copy of state k: exit 0, F equal to state N
  reverse `apply --no-gpu --reverse P1 .. PN` on a copy of state k: exit 0, F equal to state 0
  ground truth, reported when it fails: `git apply` of P(k+1) .. PN in turn on state k gives
  state N and `git apply -R` of Pk .. P1 gives state 0; GNU patch the same.
Out of order, for j = 2..N: X = state 0 with Pj alone applied (by git apply). When Pj applies
there and the others, applied in order by git apply, still take X to state N (independent), the
series must be judged Pj `applied`, the others `applicable`; apply must give state N and
--reverse state 0. Gap, for g = 1..N: the series without Pg, when git apply takes state 0
through it (result Y): verify on state 0 all `applicable`, on Y all `applied`; apply on state 0
gives Y; --reverse on Y gives state 0.

Files: --files REPO:PATH (repeatable), or per --repo the --per-repo most changed text files of
the last --scan first-parent commits (ties by path) whose last N changes form such a chain with
N+1 distinct states and patches no longer than --max-lines. --skip-apply runs only verify and
the ground truth (for a binary without `apply`). Prints a table per chain, totals and every
failure; --json-out writes everything. Python 3.11 standard library only.
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
import applytools as at  # noqa: E402

MIRRORS = "/work/.mirror"
DEFAULT_REPOS = ["flashinfer-ai+flashinfer", "fla-org+flash-linear-attention",
                 "linkedin+Liger-Kernel", "InternLM+lmdeploy", "ModelTC+lightllm",
                 "ninja-build+ninja"]
LETTER = {"applied": "A", "applicable": "a", "partial": "P", "conflict": "C", "unknown": "U",
          "error": "E", "skipped": "S"}


def repo_name(path: str) -> str:
    p = path.rstrip("/")
    base = os.path.basename(p)
    return os.path.basename(os.path.dirname(p)) if base in ("repo", ".git") else base


def resolve_repo(spec: str) -> str:
    if os.path.isdir(spec):
        return spec
    cand = os.path.join(MIRRORS, spec, "repo")
    return cand if os.path.isdir(cand) else spec


# ---------------------------------------------------------------------------------------------
# Chains


def file_history(repo: Repo, rev: str, scan: int) -> dict[str, list[tuple]]:
    """Per path, newest first: (commit, parents, status, mode before, mode after) for every
    first-parent commit of the last `scan` that changed it against its first parent."""
    out = repo.out(["log", "--first-parent", "--diff-merges=first-parent", "--format=@%H %P",
                    "--raw", "--no-renames", "--no-abbrev", f"-n{scan}", rev])
    hist: dict[str, list[tuple]] = collections.defaultdict(list)
    cur = None
    for line in out.splitlines():
        if line.startswith("@"):
            f = line[1:].split()
            cur = (f[0], f[1:])
        elif line.startswith(":") and cur:
            meta, path = line.split("\t", 1)
            m1, m2, _, _, st = meta[1:].split()
            hist[path].append((cur[0], cur[1], st[0], m1, m2))
    return hist


def build_chain(repo: Repo, path: str, entries: list[tuple], n: int,
                max_lines: int) -> tuple[dict | None, str]:
    """(chain, "") or (None, why not) for the newest n changes of path (entries newest first)."""
    if path.startswith('"'):
        return None, "quoted path"
    if len(entries) < n:
        return None, f"{len(entries)} changes"
    last = list(reversed(entries[:n]))  # oldest first
    for c, parents, st, m1, m2 in last:
        if len(parents) != 1:
            return None, f"merge {c[:10]} changed it"
        if st != "M":
            return None, f"status {st} in {c[:10]}"
        if m1 != m2 or m1 not in ("100644", "100755"):
            return None, f"mode {m1}->{m2} in {c[:10]}"
    commits = [e[0] for e in last]
    revs = [last[0][1][0]] + commits
    states = []
    for r in revs:
        states.append(repo.blobs(r, [path])[path])
    for k in range(1, n):  # contiguity: F at Ck == F at C(k+1)^
        if repo.blobs(last[k][1][0], [path])[path] != states[k]:
            return None, f"not contiguous at {commits[k][:10]}"
    if any(b"\0" in s for s in states):
        return None, "binary"
    if len(set(states)) != len(states):
        return None, "a state repeats an earlier one (a revert)"
    patches = []
    for c in commits:
        data = repo.run(["format-patch", "-1", "--stdout", "--no-signature", c, "--",
                         path]).stdout
        heads = sum(1 for ln in data.split(b"\n") if ln.startswith(b"diff --git "))
        if heads != 1:
            return None, f"{heads} 'diff --git' lines in {c[:10]}'s patch"
        changed = sum(1 for ln in data.split(b"\n")
                      if ln[:1] in (b"+", b"-") and not ln.startswith((b"+++ ", b"--- ")))
        if changed > max_lines:
            return None, f"{changed} changed lines in {c[:10]}"
        patches.append(data)
    subjects = [repo.out(["log", "-1", "--format=%s", c]).strip() for c in commits]
    return {"path": path, "mode": last[0][3], "commits": commits, "subjects": subjects,
            "parent": revs[0], "states": states, "patches": patches,
            "history_changes": len(entries)}, ""


def auto_chains(repo: Repo, args) -> tuple[list[dict], list[str]]:
    hist = file_history(repo, args.rev, args.scan)
    cands = sorted((p for p, e in hist.items() if len(e) >= max(args.min_history, args.length)),
                   key=lambda p: (-len(hist[p]), p))
    chains, passed = [], []
    for p in cands:
        if len(chains) == args.per_repo:
            break
        ch, why = build_chain(repo, p, hist[p], args.length, args.max_lines)
        if ch:
            chains.append(ch)
        else:
            passed.append(f"{p} ({len(hist[p])} changes): {why}")
    return chains, passed


# ---------------------------------------------------------------------------------------------
# Tools on one chain


def verify_series(binary: str, patches: list[str], tree: str, timeout: float) -> dict:
    r = at.run([binary, "verify", "--format", "json", "--no-gpu", "--no-repo", *patches, tree],
               timeout=timeout)
    res = {"rc": r["rc"], "statuses": [], "presence": [], "depends_on": [], "reason": ""}
    try:
        doc = json.loads(r["out"])
        for p in doc["patches"]:
            res["statuses"].append(p.get("status"))
            res["presence"].append(p.get("presence"))
            res["depends_on"].append(p.get("depends_on"))
    except (ValueError, KeyError, TypeError) as e:
        res["reason"] = f"no JSON ({type(e).__name__}: {e}); stderr: {at.tail(r['err'])}"
    return res


def letters(statuses: list) -> str:
    return "".join(LETTER.get(s, "?") for s in statuses)


class Chain:
    def __init__(self, ch: dict, repo: str, args, work: str):
        self.ch, self.args, self.work = ch, args, work
        self.path, self.n = ch["path"], len(ch["commits"])
        self.rec = {"repo": repo, "path": self.path, "commits": ch["commits"],
                    "subjects": ch["subjects"], "history_changes": ch["history_changes"],
                    "lines": [s.count(b"\n") for s in ch["states"]], "states": [],
                    "out_of_order": [], "gaps": [], "failures": [], "disagreements": []}
        self.pfiles = []
        pdir = os.path.join(work, "patches")
        os.makedirs(pdir)
        for i, data in enumerate(ch["patches"], 1):
            p = os.path.join(pdir, f"{i:02d}-{ch['commits'][i - 1][:10]}.patch")
            with open(p, "wb") as f:
                f.write(data)
            self.pfiles.append(p)
        self.seq = 0

    def tree(self, content: bytes) -> str:
        self.seq += 1
        d = os.path.join(self.work, f"t{self.seq:03d}")
        at.write_files(d, {self.path: (self.ch["mode"], content)})
        return d

    def content(self, d: str) -> bytes | None:
        snap = at.snapshot(d)
        if set(snap) != {self.path}:
            return None
        return snap[self.path][1]

    def done(self, d: str):
        if not self.args.keep:
            shutil.rmtree(d, ignore_errors=True)

    def fail(self, where: str, why: str):
        self.rec["failures"].append(f"{where}: {why}")

    def describe(self, got: bytes | None, want: bytes, before: bytes | None = None) -> str:
        if got is None:
            return "the tree holds other files than F (or none)"
        if before is not None and got == before:
            return "F unchanged"
        for k, s in enumerate(self.ch["states"]):
            if got == s:
                return f"F equals state {k}"
        return "F differs (" + at.first_diff_line(got, want) + ")"

    # --- sm120check
    def sm_verify(self, where: str, patches: list[str], content: bytes,
                  want: list[str], base: bytes | None = None) -> dict:
        """One verify of the series; for each patch judged wrongly, the same patch verified
        alone on the tree the series means for it (base, by default state 0, with the
        series' patches before it applied by git apply, and the patch itself when it should
        be applied): tells the matcher's misses from the series logic's."""
        d = self.tree(content)
        r = verify_series(self.args.binary, patches, d, self.args.timeout)
        self.done(d)
        want_rc = 0 if all(w == "applied" for w in want) else 1
        r["ok"] = r["statuses"] == want and r["rc"] == want_rc
        r["got"], r["want"] = letters(r["statuses"]), letters(want)
        if not r["ok"]:
            alone = []
            if len(r["statuses"]) == len(want):
                base = self.ch["states"][0] if base is None else base
                for i, (g, w) in enumerate(zip(r["statuses"], want)):
                    if g != w:
                        upto = patches[:i + 1] if w == "applied" else patches[:i]
                        t, tree = self.tool(at.git_apply, upto, base)
                        if not t["ok"]:
                            alone.append(f"P{i + 1}: git apply cannot build its tree")
                            continue
                        d = self.tree(tree)
                        a = verify_series(self.args.binary, [patches[i]], d, self.args.timeout)
                        self.done(d)
                        alone.append(f"{os.path.basename(patches[i])[:2]} alone "
                                     f"{letters(a['statuses']) or '-'}")
            r["alone"] = alone
            self.fail(where, f"verify {r['got'] or '-'} exit {r['rc']}, expected {r['want']} "
                             f"exit {want_rc}{'; ' + r['reason'] if r['reason'] else ''}"
                             + (f" [{', '.join(alone)}]" if alone else ""))
        return r

    def sm_apply(self, where: str, patches: list[str], content: bytes, want: bytes,
                 reverse: bool, may_refuse: bool = False) -> dict:
        """apply (or --reverse) on a copy of content: exit 0 and F == want; where may_refuse
        (the ground truth itself is ambiguous), exit 2 with F unchanged is right too."""
        d = self.tree(content)
        r = at.sm_apply(self.args.binary, patches, d, ["--reverse"] if reverse else [],
                        self.args.timeout)
        got = self.content(d)
        self.done(d)
        ok = r["rc"] == 0 and got == want
        if not ok and may_refuse and r["rc"] == 2 and got == content:
            self.rec["refused_ambiguous"] = self.rec.get("refused_ambiguous", 0) + 1
            return {"ok": True, "rc": r["rc"], "refused_ambiguous": True}
        if not ok:
            what = "F as expected" if got == want else self.describe(got, want, content)
            self.fail(where, f"{'apply --reverse' if reverse else 'apply'} exit {r['rc']}; "
                             f"{what}{'; stderr: ' + r['err'] if r['err'] else ''}")
        return {"ok": ok, "rc": r["rc"]}

    # --- ground truth
    def tool(self, fn, patches: list[str], content: bytes, reverse: bool = False):
        """(tool result, F after) for git_apply / gnu_patch of patches in turn."""
        d = self.tree(content)
        g = fn(patches, d, reverse=reverse, timeout=self.args.timeout)
        got = self.content(d)
        self.done(d)
        return g, got

    def ground(self, where: str, patches: list[str], content: bytes, want: bytes,
               reverse: bool) -> dict:
        out = {}
        for name, fn in (("git", at.git_apply), ("gnu", at.gnu_patch)):
            g, got = self.tool(fn, patches, content, reverse)
            if g["ok"] is None:
                continue
            ok = bool(g["ok"]) and got == want
            out[name] = ok
            if not ok and name == "git" and where.startswith("state"):
                self.fail(where, "ground truth broken: git apply does not take this state "
                                 "where the chain says (see the disagreements)")
            if not ok:
                self.rec["disagreements"].append(
                    f"{where}: {'git apply' if name == 'git' else 'GNU patch'}"
                    f"{' -R' if reverse else ''} "
                    + (f"failed at patch {g.get('patch')} ({g.get('err', '')[:200]})"
                       if not g["ok"] else self.describe(got, want)))
        return out

    # --- the cases
    def run(self) -> dict:
        S, P, n, sm = self.ch["states"], self.pfiles, self.n, not self.args.skip_apply
        for k in range(n + 1):
            st = {"k": k}
            want = ["applied"] * k + ["applicable"] * (n - k)
            st["verify"] = self.sm_verify(f"state {k}", P, S[k], want)
            if sm:
                st["apply"] = self.sm_apply(f"state {k}", P, S[k], S[n], False)
                st["reverse"] = self.sm_apply(f"state {k}", P, S[k], S[0], True)
            st["fwd_tools"] = self.ground(f"state {k}", P[k:], S[k], S[n], False)
            st["rev_tools"] = self.ground(f"state {k}", list(reversed(P[:k])), S[k], S[0],
                                          True)
            self.rec["states"].append(st)
        for j in range(2, n + 1):
            case = {"j": j}
            g, x = self.tool(at.git_apply, [P[j - 1]], S[0])
            if not g["ok"]:
                case["skipped"] = f"P{j} does not apply to state 0"
                self.rec["out_of_order"].append(case)
                continue
            rest = [p for i, p in enumerate(P, 1) if i != j]
            g2, y = self.tool(at.git_apply, rest, x)
            want = ["applicable"] * n
            want[j - 1] = "applied"
            if not g2["ok"] or y != S[n]:
                case["skipped"] = ("dependent: git apply of the others fails at patch "
                                   f"{g2.get('patch')}" if not g2["ok"] else
                                   "dependent: the others do not lead to state N")
                # informational: what sm120check says
                d = self.tree(x)
                case["info_verify"] = letters(verify_series(self.args.binary, P, d,
                                                            self.args.timeout)["statuses"])
                self.done(d)
                self.rec["out_of_order"].append(case)
                continue
            case["verify"] = self.sm_verify(f"out of order j={j}", P, x, want)
            # does git apply -R take Pj out of X again at the place it put it? Where Pj's
            # post-image also stands elsewhere, nearer the header, it does not: then taking
            # it out is ambiguous and a refusal (exit 2, nothing written) is right too.
            gr, back = self.tool(at.git_apply, [P[j - 1]], x, reverse=True)
            case["reverse_ambiguous"] = not gr["ok"] or back != S[0]
            if sm:
                case["apply"] = self.sm_apply(f"out of order j={j}", P, x, S[n], False)
                case["reverse"] = self.sm_apply(f"out of order j={j}", P, x, S[0], True,
                                                may_refuse=case["reverse_ambiguous"])
            case["gnu"] = self.ground(f"out of order j={j}", rest, x, S[n], False).get("gnu")
            self.rec["out_of_order"].append(case)
        for g in range(1, n + 1):
            case = {"g": g}
            series = [p for i, p in enumerate(P, 1) if i != g]
            r, y = self.tool(at.git_apply, series, S[0])
            if not r["ok"]:
                case["skipped"] = f"git apply stops at patch {r.get('patch')} of the series"
                self.rec["gaps"].append(case)
                continue
            rr, back = self.tool(at.git_apply, list(reversed(series)), y, reverse=True)
            if not rr["ok"] or back != S[0]:
                case["skipped"] = "git apply -R does not take Y back to state 0"
                self.rec["gaps"].append(case)
                continue
            m = n - 1
            case["verify0"] = self.sm_verify(f"gap g={g} on state 0", series, S[0],
                                             ["applicable"] * m)
            case["verifyY"] = self.sm_verify(f"gap g={g} on Y", series, y, ["applied"] * m)
            if sm:
                case["apply"] = self.sm_apply(f"gap g={g}", series, S[0], y, False)
                case["reverse"] = self.sm_apply(f"gap g={g}", series, y, S[0], True)
            case["gnu"] = self.ground(f"gap g={g}", series, S[0], y, False).get("gnu")
            self.rec["gaps"].append(case)
        self.rec["ok"] = not self.rec["failures"]
        return self.rec


# ---------------------------------------------------------------------------------------------


def frac(items: list, key: str) -> tuple[int, int]:
    have = [x[key]["ok"] for x in items if key in x]
    return sum(have), len(have)


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--bin", default="./build/sm120check", help="sm120check binary")
    ap.add_argument("--repo", action="append",
                    help="repository path or mirror name (repeatable; default: the six "
                         f"mirrors under {MIRRORS})")
    ap.add_argument("--files", action="append", metavar="REPO:PATH",
                    help="a file to take (repeatable; instead of the automatic choice)")
    ap.add_argument("--per-repo", type=int, default=2, help="files chosen per repository")
    ap.add_argument("--length", type=int, default=8, help="commits per chain (N)")
    ap.add_argument("--min-history", type=int, default=10,
                    help="least changes of a chosen file within --scan")
    ap.add_argument("--scan", type=int, default=2000, help="first-parent commits scanned")
    ap.add_argument("--rev", default="HEAD")
    ap.add_argument("--max-lines", type=int, default=400, help="most changed lines per patch")
    ap.add_argument("--timeout", type=float, default=60, help="seconds per process")
    ap.add_argument("--skip-apply", action="store_true",
                    help="no sm120check apply (verify and the ground truth only)")
    ap.add_argument("--json-out")
    ap.add_argument("--keep", action="store_true", help="keep the temporary trees")
    args = ap.parse_args()
    args.binary = os.path.abspath(args.bin)
    if not (os.path.isfile(args.binary) and os.access(args.binary, os.X_OK)):
        ap.error(f"{args.bin}: no executable there (build it, or pass --bin PATH)")
    if not args.skip_apply and not at.has_apply(args.binary):
        ap.error(f"{args.bin} has no 'apply' sub-command (pass --skip-apply to run verify and "
                 "the ground truth only)")
    if not args.skip_apply and not at.APPLY_NO_GPU:
        print("note: this binary's apply does not take --no-gpu (the contract lists it): "
              "run without it")

    todo: list[tuple[str, Repo, dict]] = []
    if args.files:
        for spec in args.files:
            rspec, _, path = spec.partition(":")
            rp = resolve_repo(rspec)
            repo = Repo(rp, "series_chains")
            hist = file_history(repo, args.rev, args.scan)
            ch, why = build_chain(repo, path, hist.get(path, []), args.length, args.max_lines)
            if not ch:
                print(f"{spec}: not usable: {why}")
                return 2
            todo.append((repo_name(rp), repo, ch))
    else:
        for rspec in args.repo or DEFAULT_REPOS:
            rp = resolve_repo(rspec)
            repo = Repo(rp, "series_chains")
            chains, passed = auto_chains(repo, args)
            print(f"== {repo_name(rp)}: {', '.join(c['path'] for c in chains) or 'no file'}"
                  + (f"; passed over {len(passed)}: " + "; ".join(passed[:6]) if passed
                     else ""))
            todo += [(repo_name(rp), repo, c) for c in chains]
    if not todo:
        print("no chain")
        return 1

    root = tempfile.mkdtemp(prefix="sm120check-series-")
    records = []
    try:
        for i, (name, repo, ch) in enumerate(todo, 1):
            work = os.path.join(root, f"{i:02d}")
            os.makedirs(work)
            rec = Chain(ch, name, args, work).run()
            records.append(rec)
            sts = rec["states"]
            vs = " ".join(s["verify"]["got"] or "-" for s in sts)
            print(f"[{i}/{len(todo)}] {name} {rec['path']} ({rec['history_changes']} changes, "
                  f"{rec['lines'][-1]} lines) {ch['commits'][0][:10]}..{ch['commits'][-1][:10]}")
            print(f"      verify per state k=0..{len(sts) - 1}: {vs}")
            for f in rec["failures"]:
                print(f"      FAIL {f[:400]}")
            for d in rec["disagreements"]:
                print(f"      ground truth: {d[:400]}")
            if not args.keep:
                shutil.rmtree(work, ignore_errors=True)
    finally:
        if args.keep:
            print(f"kept {root}")
        else:
            shutil.rmtree(root, ignore_errors=True)

    sm = not args.skip_apply
    rows, tot = [], collections.Counter()
    for r in records:
        sts, ooo, gaps = r["states"], r["out_of_order"], r["gaps"]
        n = len(r["commits"])
        v_ok = sum(s["verify"]["ok"] for s in sts)
        p_ok = sum(a == b for s in sts for a, b in zip(s["verify"]["got"], s["verify"]["want"]))
        tools_ok = {t: sum(s["fwd_tools"].get(t, False) and s["rev_tools"].get(t, False)
                           for s in sts) for t in ("git", "gnu")}
        o_run = [c for c in ooo if "verify" in c]
        g_run = [c for c in gaps if "verify0" in c]
        o_ok = sum(c["verify"]["ok"] and all(c.get(k, {"ok": True})["ok"]
                                             for k in ("apply", "reverse")) for c in o_run)
        g_ok = sum(c["verify0"]["ok"] and c["verifyY"]["ok"]
                   and all(c.get(k, {"ok": True})["ok"] for k in ("apply", "reverse"))
                   for c in g_run)
        row = {"repo": r["repo"], "path": r["path"], "n": n, "states": len(sts),
               "verify_states_ok": v_ok, "verify_patches_ok": p_ok,
               "verify_patches": len(sts) * n,
               "apply_ok": frac(sts, "apply")[0] if sm else None,
               "reverse_ok": frac(sts, "reverse")[0] if sm else None,
               "git_ok": tools_ok["git"], "gnu_ok": tools_ok["gnu"],
               "out_of_order_ok": o_ok, "out_of_order_run": len(o_run),
               "out_of_order_dependent": len(ooo) - len(o_run), "gaps_ok": g_ok,
               "gaps_run": len(g_run), "gaps_skipped": len(gaps) - len(g_run),
               "ok": r["ok"]}
        r["row"] = row
        rows.append(row)
        for k, v in row.items():
            if isinstance(v, int) and not isinstance(v, bool):
                tot[k] += v
    print()
    hdr = ("| repo | file | N | verify states | verify patches | apply | reverse | git/GNU "
           "ground truth | out of order (dependent) | gap (skipped) |")
    print(hdr)
    print("|" + "---|" * 10)
    for w in rows + [dict(tot, repo="**total**", path=f"{len(rows)} chains", n="")]:
        ap_ = (f"{w['apply_ok']}/{w['states']}" if sm else "n/a")
        rv_ = (f"{w['reverse_ok']}/{w['states']}" if sm else "n/a")
        print(f"| {w['repo']} | {w['path']} | {w['n']} | {w['verify_states_ok']}/{w['states']} |"
              f" {w['verify_patches_ok']}/{w['verify_patches']} | {ap_} | {rv_} |"
              f" {w['git_ok']}/{w['states']} {w['gnu_ok']}/{w['states']} |"
              f" {w['out_of_order_ok']}/{w['out_of_order_run']} ({w['out_of_order_dependent']})"
              f" | {w['gaps_ok']}/{w['gaps_run']} ({w['gaps_skipped']}) |")
    nfail = sum(len(r["failures"]) for r in records)
    ndis = sum(len(r["disagreements"]) for r in records)
    amb = [(r["path"], c["j"]) for r in records for c in r["out_of_order"]
           if c.get("reverse_ambiguous") and "verify" in c]
    refused = sum(r.get("refused_ambiguous", 0) for r in records)
    print(f"\nchains all right: {sum(r['ok'] for r in records)}/{len(records)}; "
          f"failures {nfail}; ground-truth disagreements {ndis}")
    if amb:
        print(f"out of order with an ambiguous reverse (git apply -R of Pj on X does not give "
              f"state 0): {len(amb)} ({', '.join(f'{p} j={j}' for p, j in amb)}); "
              f"sm120check apply --reverse refused {refused} of them (exit 2, nothing "
              "written: counted right)")
    if nfail:
        print("failures:")
        for r in records:
            for f in r["failures"]:
                print(f"  {r['repo']} {r['path']}: {f[:500]}")
    if ndis:
        print("ground truth (git apply / GNU patch) not as expected:")
        for r in records:
            for d in r["disagreements"]:
                print(f"  {r['repo']} {r['path']}: {d[:500]}")
    if args.json_out:
        with open(args.json_out, "w", encoding="utf-8") as f:
            json.dump({"apply_took_no_gpu": bool(at.APPLY_NO_GPU), "skip_apply": args.skip_apply,
                       "totals": dict(tot), "chains": records},
                      f, indent=1)
        print(f"wrote {args.json_out}")
    return 0 if records and all(r["ok"] for r in records) else 1


if __name__ == "__main__":
    sys.exit(main())
