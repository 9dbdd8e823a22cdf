#!/usr/bin/env python3
"""Differential test of `sm120check grep` against ripgrep on random small trees.

Each round writes a few files of random lines (LF and CRLF line ends, a lone "\\r", no final
newline, long lines) from a small alphabet, picks patterns (fixed strings cut from the files,
or regular expressions from a list that touches line ends: `\\s$`, `\\r`, `.$`, `^`), and
compares the sorted output of

    sm120check grep -j2 [-E] DIR P...
    rg -n --no-heading -uu -g '!.git' (-F | -P) -e P... DIR

byte for byte. ASCII only (rg -P turns on PCRE2's UTF mode). Exit 0 when every round agrees,
1 on the first difference (printed with its inputs kept under --workdir), 2 on bad input.

Usage: bench/grep_differential.py --bin build/sm120check [--rounds 200] [--seed 1]
"""
from __future__ import annotations

import argparse
import random
import shutil
import subprocess
import sys
import tempfile
from pathlib import Path

REGEXES = [" \\s", "\\r", "x .", "b\\r$", "b$", "^b.$", "a\\s*$", "\\s$", "[^a]$", ".$",
           "ab+", "(?:.)+ ", "^$", "a.b", "x\\b", "\\bab", "b\\s+a", "^\\s*x"]
ALPHABET = ["a", "b", "x", " ", "\t", "ab", "ba", "\r"]


def random_line(rng: random.Random) -> str:
    n = rng.choice([0, 1, 2, 5, 20, 200])
    return "".join(rng.choice(ALPHABET) for _ in range(n))


def random_file(rng: random.Random) -> bytes:
    end = rng.choice(["\n", "\r\n", "\n"])
    lines = [random_line(rng) for _ in range(rng.randint(0, 30))]
    text = end.join(lines)
    if lines and rng.random() < 0.8:
        text += end
    return text.encode()


def run(cmd: list[str]) -> bytes:
    out = subprocess.run(cmd, stdout=subprocess.PIPE, stderr=subprocess.DEVNULL).stdout
    return b"\n".join(sorted(out.split(b"\n")))  # "\n" only: a line may hold a "\r"


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--bin", required=True)
    ap.add_argument("--rounds", type=int, default=200)
    ap.add_argument("--seed", type=int, default=1)
    ap.add_argument("--workdir", default=None)
    args = ap.parse_args()
    if shutil.which("rg") is None:
        print("grep_differential: rg not found", file=sys.stderr)
        return 2
    rng = random.Random(args.seed)
    work = Path(args.workdir or tempfile.mkdtemp(prefix="grep-diff-"))
    checked = {"fixed": 0, "regex": 0}
    for k in range(args.rounds):
        d = work / f"r{k}"
        shutil.rmtree(d, ignore_errors=True)
        d.mkdir(parents=True)
        files = [random_file(rng) for _ in range(rng.randint(1, 4))]
        for i, data in enumerate(files):
            (d / f"f{i}.txt").write_bytes(data)
        regex = rng.random() < 0.5
        if regex:
            pats = rng.sample(REGEXES, rng.randint(1, 3))
        else:
            pats = []
            for _ in range(rng.randint(1, 3)):
                data = rng.choice(files).decode()
                if len(data) < 2:
                    continue
                i = rng.randrange(len(data) - 1)
                p = data[i:i + rng.randint(1, 4)].split("\n")[0]
                if p:
                    pats.append(p)
            if not pats:
                continue
        ours = run([args.bin, "grep", "-j2"] + (["-E"] if regex else []) + ["--", str(d)] + pats)
        rg = ["rg", "-n", "--no-heading", "-uu", "-g", "!.git", "-P" if regex else "-F"]
        for p in pats:
            rg += ["-e", p]
        theirs = run(rg + ["--", str(d)])
        if ours != theirs:
            print(f"round {k}: patterns {pats!r} ({'regex' if regex else 'fixed'}) in {d}")
            print("ours:\n" + ours.decode(errors="replace").replace("\r", "\\r"))
            print("rg:\n" + theirs.decode(errors="replace").replace("\r", "\\r"))
            return 1
        checked["regex" if regex else "fixed"] += 1
        shutil.rmtree(d)
    print(f"grep_differential: {checked['fixed']} fixed-string and {checked['regex']} regex rounds agree with rg")
    if args.workdir is None:
        shutil.rmtree(work, ignore_errors=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
