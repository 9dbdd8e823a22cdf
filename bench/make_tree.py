#!/usr/bin/env python3
"""Make a benchmark tree: a git repository of N text files of 50-400 lines in nested folders,
and one patch touching one file, for timing `verify`'s repository section and relocation.

    bench/make_tree.py OUT_DIR N [--seed S] [--move | --move-name-only] [--no-git]

OUT_DIR/tree holds the files (a git work tree with one commit unless --no-git), and
OUT_DIR/one.patch a git-style patch adding a line to one file (`git apply --check` passes on
it). With --move the patched file is moved (git mv, committed) after the patch is made to another
folder that keeps its parent folder's name (pkg4/mod8/sub3/f.py -> vendor/lib/sub3/f.py, as an
installed package differs from its repository), so that the patch's path is missing and
`verify` relocates it; with --move-name-only the new folder shares nothing but the file name
(moved/elsewhere/f.py), which makes `verify` search the files' contents too.
Deterministic for a given N and seed.
"""
import argparse
import os
import random
import subprocess
import sys

WORDS = ("alpha beta gamma delta kernel block warp tile shared smem thread lane reduce "
         "scale bias norm attn query key value cache page index offset stride dim head").split()


def line(rng, i):
    w = " ".join(rng.choice(WORDS) for _ in range(rng.randint(2, 7)))
    return f"    x_{i} = compute({w!r}, {rng.randint(0, 9999)})\n"


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("out")
    ap.add_argument("n", type=int)
    ap.add_argument("--seed", type=int, default=1)
    ap.add_argument("--move", action="store_true")
    ap.add_argument("--move-name-only", action="store_true")
    ap.add_argument("--no-git", action="store_true")
    a = ap.parse_args()
    rng = random.Random(a.seed)
    root = os.path.join(a.out, "tree")
    os.makedirs(root)
    paths = []
    for k in range(a.n):
        # Folders about 3 deep, about 30 files a folder.
        d = k // 30
        parts = [f"pkg{d % 7}", f"mod{(d // 7) % 13}", f"sub{d // 91}"]
        p = os.path.join(*parts, f"file_{k}.py")
        paths.append(p)
        os.makedirs(os.path.join(root, *parts), exist_ok=True)
        with open(os.path.join(root, p), "w") as f:
            f.write(f"# file {k}\n")
            f.write("def run():\n")
            for i in range(rng.randint(50, 400)):
                f.write(line(rng, i))
    target = paths[len(paths) // 2]

    def git(*args):
        subprocess.run(["git", "-C", root, *args], check=True, stdout=subprocess.DEVNULL)

    if not a.no_git:
        git("init", "-q", "-b", "main")
        git("add", "-A")
        git("-c", "user.name=b", "-c", "user.email=b@b", "commit", "-qm", "tree")
    with open(os.path.join(root, target)) as f:
        lines = f.readlines()
    at = len(lines) // 2
    ctx_before, ctx_after = lines[at - 3:at], lines[at:at + 3]
    body = [f"@@ -{at - 2},6 +{at - 2},7 @@\n"]
    body += [" " + l for l in ctx_before]
    body.append("+    fixed_for_sm120 = True  # the patch's added line\n")
    body += [" " + l for l in ctx_after]
    patch = f"diff --git a/{target} b/{target}\n--- a/{target}\n+++ b/{target}\n" + "".join(body)
    with open(os.path.join(a.out, "one.patch"), "w") as f:
        f.write(patch)
    moved = None
    if a.move or a.move_name_only:
        parent = os.path.basename(os.path.dirname(target))
        folder = os.path.join("moved", "elsewhere") if a.move_name_only else os.path.join(
            "vendor", "lib", parent)
        moved = os.path.join(folder, os.path.basename(target))
        os.makedirs(os.path.join(root, folder))
        if a.no_git:
            os.rename(os.path.join(root, target), os.path.join(root, moved))
        else:
            git("mv", target, moved)
            git("-c", "user.name=b", "-c", "user.email=b@b", "commit", "-qm", "move")
    print(f"{root}: {a.n} files; patch {os.path.join(a.out, 'one.patch')} touches {target}"
          + (f" (moved to {moved})" if moved else ""))


if __name__ == "__main__":
    sys.exit(main())
