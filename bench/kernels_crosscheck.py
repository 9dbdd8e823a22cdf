#!/usr/bin/env python3
"""Cross-checks `sm120check kernels` against NVIDIA's `cuobjdump --list-elf --list-ptx`.

For every file given (directories are walked, symlinks not followed) that sm120check lists with
CUDA code, compares the multiset of (kind, architecture) of its cubin and PTX entries with the
files cuobjdump names ("ELF file 1: x.1.sm_120a.cubin", "PTX file 1: x.1.sm_90.ptx"), and files
sm120check skips are checked too when cuobjdump finds code in them. LTO IR entries are left out
(cuobjdump lists them only with other options).

    bench/kernels_crosscheck.py [--sm120check BIN] [--cuobjdump BIN] [-v] PATH...

Needs a CUDA toolkit's cuobjdump (e.g. /usr/local/cuda/bin/cuobjdump on the GPU host). Prints
one line per file that differs and a summary; exit 0 when every file agrees, 1 otherwise, 2 when
cuobjdump is missing. Example:

    bench/kernels_crosscheck.py tests/data/kernels /usr/local/cuda/lib64 \\
        /opt/venv/lib/python3.12/site-packages/torch/lib
"""

import argparse
import collections
import json
import os
import re
import shutil
import subprocess
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
DEFAULT_BIN = os.path.join(HERE, "..", "build", "sm120check")
# cuobjdump names each entry FILE.N.ARCH.{cubin,ptx}; ARCH is sm_XY with an a/f suffix where the
# entry has one (PTX too is named sm_XY).
CUOBJDUMP_LINE = re.compile(r"^(ELF|PTX) file\s+\d+: .*\.(?:sm|compute)_(\d+[af]?)\.(cubin|ptx)\s*$")


def walk(paths):
    for path in paths:
        if os.path.isdir(path):
            for root, dirs, files in os.walk(path):
                dirs.sort()
                for name in sorted(files):
                    full = os.path.join(root, name)
                    if os.path.isfile(full) and not os.path.islink(full):
                        yield full
        else:
            yield path


def is_elf_or_fatbin(path):
    try:
        with open(path, "rb") as f:
            head = f.read(4)
    except OSError:
        return False
    return head in (b"\x7fELF", b"\x50\xed\x55\xba", b"!<ar")


def ours(binary, path):
    """(Counter of (kind, arch), error, Counter of the relocatable entries cuobjdump skips) from
    sm120check. cuobjdump 13.0 --list-elf lists a file's __nv_relfatbin (nvcc -rdc device code
    kept for a later device link) only where the file has no .nv_fatbin: on the H200 host,
    libtorch_nvshmem.so lists the 6 cubins of its .nv_fatbin and none of the 26 entries of its
    4 __nv_relfatbin fat binaries, while rdc_sm120.o (only __nv_relfatbin) lists its cubin."""
    run = subprocess.run([binary, "kernels", "--no-gpu", "--format", "json", path],
                         capture_output=True, text=True)
    if run.returncode == 3 and not run.stdout:
        return None, run.stderr.strip(), None
    doc = json.loads(run.stdout)
    found = collections.Counter()
    unlisted = collections.Counter()
    error = None
    for f in doc["files"]:
        error = f["error"] or error
        # (embedded images are data, not a fat-binary section: they do not hide __nv_relfatbin
        # from cuobjdump)
        has_loaded = any(fb["section"] not in ("__nv_relfatbin", "embedded")
                         for fb in f["fat_binaries"])
        for fb in f["fat_binaries"]:
            # "embedded": fat binaries and cubins found in a file's data sections (bin2c
            # arrays, beside or instead of a fat-binary section); cuobjdump does not look there.
            skipped = (has_loaded and fb["section"] == "__nv_relfatbin") or fb["section"] == "embedded"
            for e in fb["entries"]:
                # cuobjdump --list-elf drops the family suffix: cuobjdump 13.0.85 names
                # sm120f.o's cubin "sm120f.1.sm_120.cubin" while its --dump-elf says
                # "arch = sm_120f" (the entry's flag 0x200000, the cubin's e_flags), as we do.
                arch = e["arch"][:-1] if e["variant"] == "f" else e["arch"]
                key = None
                if e["kind"] == "cubin":
                    key = ("cubin", arch)
                elif e["kind"] == "ptx":
                    # cuobjdump names PTX after sm_XY: compute_120a -> sm_120a.
                    key = ("ptx", "sm_" + arch[len("compute_"):])
                if key:
                    found[key] += 1
                    if skipped:
                        unlisted[key] += 1
    return found, error, unlisted


def theirs(cuobjdump, path):
    """(Counter of (kind, arch), error) from cuobjdump."""
    run = subprocess.run([cuobjdump, "--list-elf", "--list-ptx", path],
                         capture_output=True, text=True)
    found = collections.Counter()
    for line in run.stdout.splitlines():
        m = CUOBJDUMP_LINE.match(line)
        if m:
            found[("cubin" if m.group(3) == "cubin" else "ptx", "sm_" + m.group(2))] += 1
    error = None
    if run.returncode != 0 and not found:
        error = (run.stderr or run.stdout).strip().splitlines()[-1:] or ["exit %d" % run.returncode]
        error = error[0]
    return found, error


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("paths", nargs="+", metavar="PATH")
    parser.add_argument("--sm120check", default=DEFAULT_BIN)
    parser.add_argument("--cuobjdump", default=shutil.which("cuobjdump") or "/usr/local/cuda/bin/cuobjdump")
    parser.add_argument("-v", "--verbose", action="store_true", help="a line for every file")
    args = parser.parse_args()
    if not os.access(args.cuobjdump, os.X_OK):
        print("kernels_crosscheck: no cuobjdump at %s (--cuobjdump)" % args.cuobjdump, file=sys.stderr)
        return 2
    files = agree = differ = entries = relocatable = 0
    for path in walk(args.paths):
        if not is_elf_or_fatbin(path):
            continue
        mine, my_error, unlisted = ours(args.sm120check, path)
        if mine is None:
            print("ERROR %s: sm120check: %s" % (path, my_error))
            differ += 1
            continue
        if not mine and not my_error:
            # sm120check found no CUDA code: cuobjdump must agree (checked only for ELF files
            # that have no fat-binary section name, quickly).
            theirs_found, _ = theirs(args.cuobjdump, path)
            if theirs_found:
                print("DIFF %s: sm120check lists nothing, cuobjdump %s" % (path, dict(theirs_found)))
                differ += 1
            continue
        files += 1
        theirs_found, their_error = theirs(args.cuobjdump, path)
        if mine != theirs_found and unlisted and mine - unlisted == theirs_found and not my_error:
            agree += 1
            entries += sum(theirs_found.values())
            relocatable += sum(unlisted.values())
            print("OK   %s: %d entries agree; %d relocatable (__nv_relfatbin) entries beside a "
                  ".nv_fatbin, which cuobjdump does not list" % (
                      path, sum(theirs_found.values()), sum(unlisted.values())))
            continue
        if mine == theirs_found and not my_error:
            agree += 1
            entries += sum(mine.values())
            if args.verbose:
                print("OK   %s: %d entries (%s)" % (path, sum(mine.values()),
                                                   ", ".join("%s %s x%d" % (k, a, n) for (k, a), n in sorted(mine.items()))))
            continue
        differ += 1
        only_mine = mine - theirs_found
        only_theirs = theirs_found - mine
        print("DIFF %s: only sm120check %s; only cuobjdump %s%s%s" % (
            path, dict(only_mine), dict(only_theirs),
            "; sm120check error: %s" % my_error if my_error else "",
            "; cuobjdump: %s" % their_error if their_error else ""))
    print("summary: %d files with CUDA code, %d agree (%d entries; %d relocatable entries cuobjdump does not list), %d differ" % (files, agree, entries, relocatable, differ))
    return 0 if differ == 0 else 1


if __name__ == "__main__":
    sys.exit(main())
