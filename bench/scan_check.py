#!/usr/bin/env python3
"""Compare `sm120check scan` with bench/catalog_check.py on real trees at given revisions.

For each --repo NAME=GITDIR and each --rev of it, the revision is exported with ``git archive``
(read-only: the mirror's refs and objects are never written) into WORKDIR/<name>-<rev>/src with
a ``.git/HEAD`` naming the commit (a detached checkout), and, with --site, also as an installed
wheel would lay it out (WORKDIR/<name>-<rev>/venv/lib/python3.12/site-packages: the package
folder, FlashInfer's csrc/ and include/ under flashinfer/data/, a dist-info with the version).
`sm120check scan --format json --no-gpu` runs on both; bench/catalog_check.py --head REV gives
the truth (the catalog's verdict rules on the entry's upstream files at REV). Every entry of the
project must agree (a distribution's installed paths are the same files as the upstream ones);
entries whose files do not ship in a wheel (installed: null) read `unknown` in the site, by
design, and are listed apart.

Usage:
  bench/scan_check.py --bin build/sm120check --workdir /tmp/scan-real \
      --repo flashinfer-ai/flashinfer=/work/.mirror/flashinfer-ai+flashinfer/repo \
      --rev flashinfer-ai/flashinfer=v0.4.0 --rev flashinfer-ai/flashinfer=HEAD [--site] [--table]

Exit status: 0 when every entry agrees, 1 when one does not, 2 on bad input.
"""
from __future__ import annotations

import argparse
import io
import json
import re
import shutil
import subprocess
import sys
import tarfile
from pathlib import Path

HERE = Path(__file__).resolve().parent

# Where a wheel puts a project's upstream folders, relative to site-packages (the catalog
# README's mapping): package folders as they are, FlashInfer's csrc/ and include/ as data.
SITE_LAYOUT = {
    "flashinfer": {"flashinfer": "flashinfer", "csrc": "flashinfer/data/csrc",
                   "include": "flashinfer/data/include"},
    "bitsandbytes": {"bitsandbytes": "bitsandbytes"},
    "xformers": {"xformers": "xformers"},
}
DISTRIBUTION = {"flashinfer": "flashinfer_python", "bitsandbytes": "bitsandbytes",
                "xformers": "xformers"}


def git(gitdir: str, *args: str) -> bytes:
    return subprocess.run(["git", "--git-dir", gitdir, *args], check=True,
                          capture_output=True).stdout


def export(gitdir: str, rev: str, dest: Path) -> str:
    """git archive of `rev` into `dest`, with a detached .git/HEAD; returns the commit id."""
    commit = git(gitdir, "rev-parse", f"{rev}^{{commit}}").decode().strip()
    if dest.exists():
        shutil.rmtree(dest)
    dest.mkdir(parents=True)
    with tarfile.open(fileobj=io.BytesIO(git(gitdir, "archive", "--format=tar", commit))) as t:
        t.extractall(dest, filter="data")
    (dest / ".git").mkdir()
    (dest / ".git/HEAD").write_text(commit + "\n")
    return commit


def make_site(src: Path, project: str, version: str, site: Path) -> None:
    """Lay `src` out as an installed wheel of `project` would be, under `site`."""
    if site.exists():
        shutil.rmtree(site)
    site.mkdir(parents=True)
    for upstream, installed in SITE_LAYOUT[project].items():
        if (src / upstream).is_dir():
            shutil.copytree(src / upstream, site / installed, symlinks=True, dirs_exist_ok=True)
    dist = DISTRIBUTION[project]
    info = site / f"{dist}-{version}.dist-info"
    info.mkdir()
    (info / "METADATA").write_text(f"Metadata-Version: 2.1\nName: {dist}\nVersion: {version}\n\n")


def scan(binary: str, target: Path) -> dict:
    r = subprocess.run([binary, "scan", "--format", "json", "--no-gpu", str(target)],
                       capture_output=True, text=True)
    if r.returncode == 3:
        raise SystemExit(f"scan failed on {target}: {r.stderr}")
    return json.loads(r.stdout)


def truth(repo: str, gitdir: str, rev: str) -> dict[str, str]:
    """catalog_check.py's head column at `rev` for the entries of `repo`."""
    r = subprocess.run([sys.executable, str(HERE / "catalog_check.py"), "--repo",
                        f"{repo}={gitdir}", "--head", rev], capture_output=True, text=True)
    out = {}
    for line in r.stdout.splitlines():
        m = re.match(r"^(\S+)\s+(\S+)\s+(\S+)\s+(present|missing|unknown)\s+(ok|FAIL)$", line)
        if m:
            out[m.group(1)] = m.group(4)
    if not out:
        raise SystemExit(f"catalog_check.py gave no rows for {repo} at {rev}:\n{r.stdout}{r.stderr}")
    return out


def verdicts(doc: dict, kind: str) -> dict[str, tuple[str, str]]:
    out = {}
    for inst in doc["installs"]:
        if inst["kind"] != kind:
            continue
        for f in inst["fixes"]:
            out[f["id"]] = (f["verdict"], f["why"])
    return out


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--bin", default=str(HERE.parent / "build" / "sm120check"))
    ap.add_argument("--workdir", type=Path, required=True)
    ap.add_argument("--repo", action="append", default=[], metavar="OWNER/NAME=GITDIR")
    ap.add_argument("--rev", action="append", default=[], metavar="OWNER/NAME=REV")
    ap.add_argument("--site", action="store_true", help="also scan an installed-wheel layout")
    ap.add_argument("--table", action="store_true", help="print a Markdown table per revision")
    args = ap.parse_args()
    repos = dict(s.split("=", 1) for s in args.repo)
    failures = 0
    for spec in args.rev:
        repo, rev = spec.split("=", 1)
        if repo not in repos:
            print(f"scan_check: error: no --repo for {repo}", file=sys.stderr)
            return 2
        gitdir = repos[repo]
        project = repo.split("/")[1]
        base = args.workdir / f"{project}-{rev.replace('/', '_')}"
        commit = export(gitdir, rev, base / "src")
        want = truth(repo, gitdir, rev)
        got_checkout = verdicts(scan(args.bin, base / "src"), "checkout")
        got_site = {}
        if args.site and project in SITE_LAYOUT:
            make_site(base / "src", project, rev.lstrip("v"), base / "venv/lib/python3.12/site-packages")
            got_site = verdicts(scan(args.bin, base / "venv"), "distribution")
        rows = []
        for entry, truth_verdict in sorted(want.items()):
            c = got_checkout.get(entry, ("-", "not judged"))
            s = got_site.get(entry, ("-", "")) if args.site else None
            ok = c[0] == truth_verdict
            note = ""
            if s is not None and s[0] != truth_verdict:
                if s[1].startswith("compiled into the binary"):
                    note = "site: compiled (installed: null)"
                elif s[1].startswith("none of the entry's files") and truth_verdict == "unknown":
                    note = ""
                else:
                    ok = False
                    note = f"site: {s[1]}"
            failures += not ok
            rows.append((entry, truth_verdict, c[0], s[0] if s else "", "ok" if ok else "DIFFERS", note))
        print(f"\n{repo} {rev} ({commit[:10]}): {len(rows)} entries, "
              f"{sum(r[4] == 'ok' for r in rows)} agree")
        if args.table:
            print("| entry | catalog_check | scan (checkout) |" + (" scan (site) |" if args.site else "") + " |")
            print("| --- | --- | --- |" + (" --- |" if args.site else "") + " --- |")
            for e, t, c, s, res, note in rows:
                site_col = f" {s} |" if args.site else ""
                print(f"| {e} | {t} | {c} |{site_col} {res}{'; ' + note if note else ''} |")
        else:
            for e, t, c, s, res, note in rows:
                print(f"  {e:48} truth {t:8} checkout {c:8} site {s:8} {res} {note}")
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
