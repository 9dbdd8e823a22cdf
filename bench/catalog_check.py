#!/usr/bin/env python3
"""Check the fix-signature catalog (patches/catalog) against real upstream history.

For every catalog entry whose upstream repository is given with --repo, the files the entry
names are exported (``git archive``, read-only: the repository's refs and objects are never
written) at the fix's parent and at the fix commit into a temporary folder, and the entry's
markers are evaluated there with the verdict rules of patches/catalog/README.md:

  present  every fixed marker is found and no unfixed marker is
  missing  some fixed marker is absent and (there are no unfixed markers or one is found)
  unknown  anything else (mixed signals), or none of the entry's files exists, or a fixed
           marker is not found while one of the entry's files (none of its paths) is absent
           and no unfixed marker is found

A literal marker matches when it is a substring of one line; a pcre2 marker when Python's
``re.search`` finds it in one line (markers keep to the PCRE2 subset ``re`` shares). Lines are
the file's code: comments (and Python docstrings) blanked by bench/code_text.py, the twin of
the C++ lexer `scan` uses; a marker with ``"comment": true`` is matched on whole lines. Each
marker may be found in any of the entry's files; the files searched are every ``upstream``
path and every ``moved[].upstream`` path that exists at the revision.

An entry passes when it is ``missing`` at the parent and ``present`` at the commit. With
``--head REV`` the entry is also evaluated at REV (following moves); a merged fix should be
``present`` there, a reverted one ``missing``; the head column is reported, and counts as a
failure only with --strict-head.

Usage:
  bench/catalog_check.py --repo flashinfer-ai/flashinfer=/work/.mirror/flashinfer-ai+flashinfer/repo \
      [--repo OWNER/NAME=GITDIR ...] [--head HEAD] [--catalog patches/catalog] [--only ID ...] [-v]

NAME may be the repository's owner/name (as in upstream.repository) or the entry's project.
Exit status: 0 when every checked entry passes, 1 when one does not, 2 on bad input.
Python 3.11 standard library and git only.
"""
from __future__ import annotations

import argparse
import io
import json
import re
import subprocess
import sys
import tarfile
import tempfile
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
from code_text import blank_comments, comment_syntax_for  # noqa: E402

HERE = Path(__file__).resolve().parent
DEFAULT_CATALOG = HERE.parent / "patches" / "catalog"


def load_entries(catalog: Path) -> list[tuple[Path, dict]]:
    """Every ``<project>/<id>.json`` under ``catalog``, parsed, in path order."""
    out = []
    for p in sorted(catalog.glob("*/*.json")):
        with p.open(encoding="utf-8") as f:
            out.append((p, json.load(f)))
    return out


def git(gitdir: str, *args: str, check: bool = True) -> subprocess.CompletedProcess:
    """Run git read-only against ``gitdir`` with a neutral configuration."""
    cmd = ["git", "-c", "core.quotePath=false", "--git-dir", gitdir, *args]
    return subprocess.run(cmd, capture_output=True, check=check,
                          env={"GIT_CONFIG_NOSYSTEM": "1", "HOME": "/nonexistent",
                               "PATH": "/usr/bin:/bin:/usr/local/bin"})


def candidate_paths(entry: dict) -> list[str]:
    """Upstream paths the markers are looked for in: each file and each of its moves."""
    paths = []
    for f in entry["files"]:
        paths.append(f["upstream"])
        for m in f.get("moved", []):
            paths.append(m["upstream"])
    return list(dict.fromkeys(paths))


def export_files(gitdir: str, rev: str, paths: list[str], dest: Path) -> list[Path]:
    """Write the ``paths`` that exist at ``rev`` under ``dest`` with git archive; return them."""
    present = []
    for p in paths:
        r = git(gitdir, "cat-file", "-e", f"{rev}:{p}", check=False)
        if r.returncode == 0:
            present.append(p)
    if not present:
        return []
    tar = git(gitdir, "archive", "--format=tar", rev, "--", *present).stdout
    with tarfile.open(fileobj=io.BytesIO(tar)) as t:
        t.extractall(dest, filter="data")
    return [dest / p for p in present]


def marker_found(marker: dict, lines: list[str]) -> str | None:
    """The first line that matches ``marker``, or None."""
    if "literal" in marker:
        lit = marker["literal"]
        return next((ln for ln in lines if lit in ln), None)
    rx = re.compile(marker["pcre2"])
    return next((ln for ln in lines if rx.search(ln)), None)


def absent_files(entry: dict, present: set[str]) -> list[str]:
    """The entry's files (by upstream path) none of whose upstream paths is in ``present``."""
    out = []
    for f in entry["files"]:
        paths = [f["upstream"]] + [m["upstream"] for m in f.get("moved", [])]
        if not any(p in present for p in paths) and f["upstream"] not in out:
            out.append(f["upstream"])
    return out


def verdict(entry: dict, files: list[Path], present: set[str] | None = None) -> tuple[str, list[str]]:
    """Apply the catalog's verdict rules to the exported ``files`` (``present``: their upstream
    paths; None: every file of the entry counts as present); return (verdict, notes)."""
    if not files:
        return "unknown", ["none of the entry's files exists"]
    absent = absent_files(entry, present) if present is not None else []
    code: list[str] = []   # the files' lines with comments and docstrings blanked
    whole: list[str] = []  # the files' lines as they are
    for f in files:
        data = f.read_bytes()
        blanked, _ = blank_comments(data, comment_syntax_for(f.name))
        code.extend(blanked.decode("utf-8", errors="surrogateescape").splitlines())
        whole.extend(data.decode("utf-8", errors="surrogateescape").splitlines())

    def found(m: dict) -> str | None:
        return marker_found(m, whole if m.get("comment") else code)

    notes = []
    fixed_hits = []
    for m in entry["fixed"]:
        hit = found(m)
        fixed_hits.append(hit is not None)
        if hit is None:
            notes.append(f"fixed marker absent: {m}"
                         + (" (only in comments)" if marker_found(m, whole) else ""))
    unfixed_hits = []
    for m in entry["unfixed"]:
        hit = found(m)
        unfixed_hits.append(hit is not None)
        if hit is not None:
            notes.append(f"unfixed marker found: {m} in {hit.strip()[:100]!r}")
    if all(fixed_hits) and not any(unfixed_hits):
        return "present", notes
    if not all(fixed_hits) and absent and not any(unfixed_hits):
        return "unknown", notes + [f"files absent, may hold the fixed markers: {absent}"]
    if not all(fixed_hits) and (not entry["unfixed"] or any(unfixed_hits)):
        return "missing", notes
    return "unknown", notes


def evaluate(gitdir: str, rev: str, entry: dict) -> tuple[str, list[str]]:
    with tempfile.TemporaryDirectory(prefix="catalog-check-") as tmp:
        files = export_files(gitdir, rev, candidate_paths(entry), Path(tmp))
        present = {f.relative_to(tmp).as_posix() for f in files}
        return verdict(entry, files, present)


def repo_key(entry: dict) -> str:
    return entry["upstream"]["repository"].removeprefix("https://github.com/")


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--catalog", type=Path, default=DEFAULT_CATALOG)
    ap.add_argument("--repo", action="append", default=[], metavar="NAME=GITDIR",
                    help="upstream owner/name (or project) and its git directory")
    ap.add_argument("--head", metavar="REV", help="also evaluate every checked entry at REV")
    ap.add_argument("--strict-head", action="store_true",
                    help="fail when a merged fix is not present (a reverted one not missing) at --head")
    ap.add_argument("--only", action="append", default=[], metavar="ID")
    ap.add_argument("-v", "--verbose", action="store_true", help="print why each verdict was reached")
    args = ap.parse_args()

    repos: dict[str, str] = {}
    for spec in args.repo:
        name, sep, path = spec.partition("=")
        if not sep or not Path(path).exists():
            print(f"catalog_check: error: bad --repo {spec!r} (want NAME=GITDIR, existing)", file=sys.stderr)
            return 2
        repos[name] = path

    entries = load_entries(args.catalog)
    if args.only:
        entries = [(p, e) for p, e in entries if e["id"] in args.only]
    rows = []
    failures = 0
    skipped: dict[str, int] = {}
    for path, e in entries:
        gitdir = repos.get(repo_key(e)) or repos.get(e["project"])
        up = e["upstream"]
        if gitdir is None:
            skipped[e["project"]] = skipped.get(e["project"], 0) + 1
            continue
        notes = []
        if up["commit"] and up["parent"]:
            actual_parent = git(gitdir, "rev-parse", f"{up['commit']}^", check=False).stdout.decode().strip()
            if actual_parent != up["parent"]:
                notes.append(f"recorded parent {up['parent'][:10]} is not {up['commit'][:10]}^ ({actual_parent[:10]})")
            pv, pn = evaluate(gitdir, up["parent"], e)
            cv, cn = evaluate(gitdir, up["commit"], e)
            ok = pv == "missing" and cv == "present" and not notes
            notes += [f"parent: {n}" for n in pn] + [f"commit: {n}" for n in cn]
        else:
            pv = cv = "-"
            ok = True
            notes.append("no commit recorded (open PR): only --head is evaluated")
        hv = "-"
        if args.head:
            hv, hn = evaluate(gitdir, args.head, e)
            notes += [f"head: {n}" for n in hn]
            want = "missing" if up["state"] in ("reverted", "open") else "present"
            if hv != want:
                notes.append(f"head: expected {want}")
                if args.strict_head:
                    ok = False
        failures += not ok
        rows.append((e["id"], pv, cv, hv, "ok" if ok else "FAIL", notes))

    w = max([len(r[0]) for r in rows] + [5])
    head_col = f"  {'head':8}" if args.head else ""
    print(f"{'entry':{w}}  {'parent':8}  {'commit':8}{head_col}  result")
    for id_, pv, cv, hv, res, notes in rows:
        hc = f"  {hv:8}" if args.head else ""
        print(f"{id_:{w}}  {pv:8}  {cv:8}{hc}  {res}")
        if args.verbose or res != "ok":
            for n in notes:
                print(f"{'':{w}}    {n}")
    print(f"\n{len(rows)} entries checked, {len(rows) - failures} pass, {failures} fail;"
          f" not checked (no --repo): " + (", ".join(f"{k} {v}" for k, v in sorted(skipped.items())) or "none"))
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
