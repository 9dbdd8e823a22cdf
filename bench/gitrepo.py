"""Read-only access to a git repository (a bare mirror is fine) for the bench scripts.

Shared by real_commits.py and drift_acceptance.py. Every git command runs as
`git --git-dir=DIR -c ... ARGS` with the user's and the system's configuration ignored and a
fixed configuration for the diff output (`a/`/`b/` prefixes, quoted paths, no renames, no
signature), so patches and diffs do not depend on who runs the script. Nothing here writes to
the repository. Python 3.11 standard library only.
"""
from __future__ import annotations

import atexit
import os
import subprocess
import sys
import tempfile

GIT_CFG = ["-c", "diff.noprefix=false", "-c", "diff.mnemonicPrefix=false",
           "-c", "core.quotePath=true", "-c", "format.signature=", "-c", "diff.renames=false",
           "-c", "format.coverLetter=false", "-c", "color.ui=false"]


def _empty_config() -> str:
    """An empty file of this process's own for GIT_CONFIG_GLOBAL, removed at exit. Not
    os.devnull: on some shared machines /dev/null is a regular file that other programs' output
    lands in, and git then fails on it ("bad config line 1 in file /dev/null")."""
    fd, path = tempfile.mkstemp(prefix="bench-git.", suffix=".gitconfig")
    os.close(fd)
    atexit.register(lambda: os.path.exists(path) and os.unlink(path))
    return path


def clean_env() -> dict:
    env = dict(os.environ)
    env.update(GIT_CONFIG_NOSYSTEM="1", GIT_CONFIG_GLOBAL=_empty_config(), LC_ALL="C",
               GIT_LITERAL_PATHSPECS="1")
    return env


ENV = clean_env()


class Repo:
    def __init__(self, path: str, prog: str = "bench"):
        gd = os.path.join(path, ".git")
        self.path = path
        self.git_dir = os.path.abspath(gd if os.path.exists(gd) else path)
        r = self.run(["rev-parse", "--git-dir"], check=False)
        if r.returncode != 0:
            sys.exit(f"{prog}: {path}: not a git repository "
                     f"({r.stderr.decode(errors='replace').strip()})")

    def run(self, args: list[str], check: bool = True, input: bytes | None = None):
        r = subprocess.run(["git", f"--git-dir={self.git_dir}", *GIT_CFG, *args], env=ENV,
                           input=input, capture_output=True)
        if check and r.returncode != 0:
            raise RuntimeError(f"git {' '.join(args[:3])}: "
                               f"{r.stderr.decode(errors='replace').strip()}")
        return r

    def out(self, args: list[str]) -> str:
        return self.run(args).stdout.decode("utf-8", "surrogateescape")

    def blobs(self, rev: str, paths: list[str]) -> dict[str, bytes]:
        """Contents of rev:path for each path, via one `git cat-file --batch`."""
        req = "".join(f"{rev}:{p}\n" for p in paths).encode("utf-8", "surrogateescape")
        data = self.run(["cat-file", "--batch"], input=req).stdout
        out, pos = {}, 0
        for p in paths:
            nl = data.index(b"\n", pos)
            header = data[pos:nl].split()
            if len(header) < 3 or header[1] != b"blob":
                raise RuntimeError(f"{rev}:{p}: not a blob ({data[pos:nl]!r})")
            size = int(header[2])
            out[p] = data[nl + 1:nl + 1 + size]
            pos = nl + 1 + size + 1
        return out


def describe(repo: Repo, c: str, max_files: int, max_lines: int) -> tuple[dict | None, str]:
    """(info, "") for a usable commit, or (None, why not).

    Usable: one parent; 1..max_files files, each modified in place (status M, regular file,
    same mode), no binary file, at most max_lines changed lines (added + deleted).
    info: commit, parent, files (paths), changed (lines), subject.
    """
    parents = repo.out(["rev-list", "--parents", "-n", "1", c]).split()[1:]
    if len(parents) != 1:
        return None, f"{len(parents)} parents"
    raw = repo.run(["diff-tree", "-r", "--no-commit-id", "--no-renames", "-z", "--raw", c]).stdout
    parts = raw.split(b"\0")
    files = []
    for i in range(0, len(parts) - 1, 2):
        meta, path = parts[i].decode(), parts[i + 1].decode("utf-8", "surrogateescape")
        m1, m2, _, _, st = meta.lstrip(":").split()
        if st != "M":
            return None, f"status {st} for {path}"
        if m1 not in ("100644", "100755") or m1 != m2:
            return None, f"mode {m1}->{m2} for {path}"
        if "\n" in path:
            return None, "newline in a path"
        files.append(path)
    if not 1 <= len(files) <= max_files:
        return None, f"{len(files)} files"
    num = repo.run(["diff-tree", "-r", "--no-commit-id", "--no-renames", "-z", "--numstat",
                    c]).stdout
    changed = 0
    for rec in num.split(b"\0"):
        if not rec:
            continue
        a, d = rec.split(b"\t")[:2]
        if a == b"-" or d == b"-":
            return None, "binary"
        changed += int(a) + int(d)
    if changed > max_lines:
        return None, f"{changed} changed lines"
    subject = repo.out(["log", "-1", "--format=%s", c]).strip()
    return {"commit": c, "parent": parents[0], "files": files, "changed": changed,
            "subject": subject}, ""


def write_tree(root: str, blobs: dict[str, bytes]) -> None:
    """Writes each path's bytes under root, creating folders as needed."""
    for p, data in blobs.items():
        full = os.path.join(root, p)
        os.makedirs(os.path.dirname(full), exist_ok=True)
        with open(full, "wb") as f:
            f.write(data)
