"""Trees, snapshots and patch tools for apply_differential.py and series_chains.py.

Trees are small folders written from `git cat-file` blobs with their modes (100644 or 100755);
a snapshot is {relative path: (executable?, bytes)} of every file under a folder (symlinks
recorded as such, empty folders ignored), so two trees compare byte for byte and mode for
mode. Every tool runs with a timeout; `git apply` runs in the tree, outside any repository
(GIT_CEILING_DIRECTORIES is the tree's parent folder) and with no user configuration; GNU
`patch` runs on a copy with `-p1 --no-backup-if-mismatch -f -s --batch`. Python 3.11 standard
library only.
"""
from __future__ import annotations

import os
import re
import shutil
import stat
import subprocess

from gitrepo import ENV

Snapshot = dict  # path -> (exec: bool, data: bytes), or ("symlink", target)


def write_files(root: str, files: dict[str, tuple[str, bytes]]) -> None:
    """Writes {path: (git mode, bytes)} under root with the modes (100755 executable)."""
    os.makedirs(root, exist_ok=True)
    for p, (mode, data) in files.items():
        full = os.path.join(root, p)
        os.makedirs(os.path.dirname(full), exist_ok=True)
        with open(full, "wb") as f:
            f.write(data)
        os.chmod(full, 0o755 if mode == "100755" else 0o644)


def snapshot(root: str) -> Snapshot:
    out = {}
    for dirpath, dirnames, filenames in os.walk(root):
        dirnames.sort()
        for name in sorted(filenames) + [d for d in dirnames
                                         if os.path.islink(os.path.join(dirpath, d))]:
            full = os.path.join(dirpath, name)
            rel = os.path.relpath(full, root)
            st = os.lstat(full)
            if stat.S_ISLNK(st.st_mode):
                out[rel] = ("symlink", os.readlink(full))
            else:
                with open(full, "rb") as f:
                    out[rel] = (bool(st.st_mode & 0o100), f.read())
    return out


def mtimes(root: str) -> dict[str, int]:
    return {os.path.relpath(os.path.join(d, n), root): os.lstat(os.path.join(d, n)).st_mtime_ns
            for d, _, names in os.walk(root) for n in names}


def expected_snapshot(files: dict[str, tuple[str, bytes]]) -> Snapshot:
    return {p: (mode == "100755", data) for p, (mode, data) in files.items()}


def first_diff_line(a: bytes, b: bytes) -> str:
    la, lb = a.split(b"\n"), b.split(b"\n")
    for i, (x, y) in enumerate(zip(la, lb)):
        if x != y:
            return f"line {i + 1}: {x[:60]!r} vs {y[:60]!r}"
    return f"{len(la)} vs {len(lb)} lines" if len(la) != len(lb) else "same lines"


def compare(got: Snapshot, want: Snapshot) -> list[str]:
    """What differs, one short phrase per path ([] when identical)."""
    out = []
    for p in sorted(set(got) | set(want)):
        if p not in got:
            out.append(f"{p}: missing")
        elif p not in want:
            out.append(f"{p}: should not exist")
        elif got[p] != want[p]:
            g, w = got[p], want[p]
            if g[1] == w[1]:
                out.append(f"{p}: mode {'755' if g[0] else '644'}, expected "
                           f"{'755' if w[0] else '644'}")
            elif isinstance(g[1], bytes) and isinstance(w[1], bytes):
                out.append(f"{p}: content differs ({first_diff_line(g[1], w[1])})")
            else:
                out.append(f"{p}: differs")
    return out


def copy_tree(src: str, dst: str) -> str:
    shutil.copytree(src, dst, symlinks=True)
    return dst


def run(cmd: list[str], cwd: str | None = None, timeout: float = 60,
        env: dict | None = None) -> dict:
    """{rc, out, err}; rc None on a timeout (err says so)."""
    try:
        r = subprocess.run(cmd, cwd=cwd, capture_output=True, timeout=timeout,
                           stdin=subprocess.DEVNULL, env=env)
    except subprocess.TimeoutExpired:
        return {"rc": None, "out": b"", "err": f"timeout after {timeout}s".encode()}
    return {"rc": r.returncode, "out": r.stdout, "err": r.stderr}


def tail(b: bytes, n: int = 300) -> str:
    s = b.decode("utf-8", "replace").strip().replace("\n", " | ")
    return s if len(s) <= n else "..." + s[-n:]


def git_apply(patches: list[str], tree: str, reverse: bool = False, timeout: float = 60) -> dict:
    """`git apply --check` then `git apply` of each patch in turn, in tree (outside any
    repository). {ok, step, err}: ok False names the patch (1-based) and the step that failed;
    the tree may then hold the patches before it."""
    env = dict(ENV, GIT_CEILING_DIRECTORIES=os.path.dirname(os.path.abspath(tree)))
    extra = ["-R"] if reverse else []
    for i, p in enumerate(patches, 1):
        for check in (["--check"], []):
            r = run(["git", "apply", *check, *extra, os.path.abspath(p)], cwd=tree,
                    timeout=timeout, env=env)
            if r["rc"] != 0:
                return {"ok": False, "patch": i, "step": "check" if check else "apply",
                        "err": tail(r["err"])}
    return {"ok": True}


def gnu_patch(patches: list[str], tree: str, reverse: bool = False, timeout: float = 60) -> dict:
    """GNU patch of each patch in turn: {ok, patch, err} as git_apply (None when absent)."""
    if shutil.which("patch") is None:
        return {"ok": None, "err": "no GNU patch"}
    extra = ["-R"] if reverse else []
    for i, p in enumerate(patches, 1):
        r = run(["patch", "-p1", "--no-backup-if-mismatch", "-f", "-s", "--batch", *extra,
                 "-i", os.path.abspath(p)], cwd=tree, timeout=timeout, env=ENV)
        if r["rc"] != 0:
            return {"ok": False, "patch": i, "rc": r["rc"], "err": tail(r["out"] + r["err"])}
    return {"ok": True}


APPLY_NO_GPU = ["--no-gpu"]  # emptied by has_apply when `apply --help` does not list it


def has_apply(binary: str) -> bool:
    """True when `binary apply --help` describes an apply sub-command (an unknown sub-command
    may print the top-level help with exit 0). Also decides whether apply gets --no-gpu: the
    contract lists it, a binary whose apply does not know it would refuse every run (exit 3),
    so it is left out then and the scripts say so."""
    r = run([binary, "apply", "--help"], timeout=30)
    ok = r["rc"] == 0 and re.search(rb"Usage: \S+ apply\b", r["out"]) is not None
    if ok and b"--no-gpu" not in r["out"]:
        APPLY_NO_GPU.clear()
    return ok


def sm_apply(binary: str, patches: list[str], tree: str, opts: list[str],
             timeout: float = 120) -> dict:
    r = run([binary, "apply", *APPLY_NO_GPU, *opts, *patches, tree], timeout=timeout)
    return {"rc": r["rc"], "out": r["out"], "err": tail(r["err"] or r["out"])}
