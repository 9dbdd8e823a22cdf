#!/usr/bin/env python3
"""Writes the seed corpus of the fuzz targets (tests/fuzz/corpus/<target>/) from our own tests:
the patches and trees of tests/cases, and the string literals of tests/*.cpp that hold a patch
(or, for the arch target, any literal of test_arch.cpp). Seeds are named by the SHA-1 of their
bytes, as libFuzzer names corpus files, so running this again gives the same files.

Tree inputs (apply, render) are laid out as tests/fuzz/fuzz_targets.hpp says: an options byte,
the file, the line "=== patch ===", the patch.

usage: tests/fuzz/make_seeds.py [--max-bytes N]
"""
import argparse
import hashlib
import pathlib
import re
import shutil

HERE = pathlib.Path(__file__).resolve().parent
TESTS = HERE.parent
SEPARATOR = b"=== patch ===\n"
# Options bytes (the byte XOR 0x40, fuzz_targets.hpp): '@' none, 'B' fuzz 2, 'D' ignore white
# space, 'H' strict, 'P' reverse, '`' independent.
OPTIONS = {"plain": b"@", "reverse": b"P", "fuzz": b"B", "ws": b"D"}


def literals(source: str):
    """Yields the C++ string literals of `source`, adjacent ones joined, escapes decoded."""
    i, n = 0, len(source)
    parts = []
    while i < n:
        c = source[i]
        if source.startswith("//", i):
            i = source.find("\n", i)
            i = n if i < 0 else i
        elif source.startswith("/*", i):
            i = source.find("*/", i + 2) + 2
        elif source.startswith('R"', i) and (i == 0 or not source[i - 1].isalnum()):
            open_at = source.index("(", i)
            delim = source[i + 2:open_at]
            close = source.index(")" + delim + '"', open_at)
            parts.append(source[open_at + 1:close].encode())
            i = close + len(delim) + 2
        elif c == '"':
            j = i + 1
            while source[j] != '"':
                j += 2 if source[j] == "\\" else 1
            parts.append(unescape(source[i + 1:j]))
            i = j + 1
        elif c == "'":
            j = i + 1
            while source[j] != "'":
                j += 2 if source[j] == "\\" else 1
            i = j + 1
        elif c.isspace():
            i += 1
        else:
            if parts:
                yield b"".join(parts)
                parts = []
            i += 1
    if parts:
        yield b"".join(parts)


def unescape(text: str) -> bytes:
    out = bytearray()
    i = 0
    simple = {"n": 10, "t": 9, "r": 13, "\\": 92, '"': 34, "'": 39, "a": 7, "b": 8, "f": 12,
              "v": 11, "?": 63}
    while i < len(text):
        if text[i] != "\\":
            out += text[i].encode()
            i += 1
            continue
        e = text[i + 1]
        if e in simple:
            out.append(simple[e])
            i += 2
        elif e == "x":
            m = re.match(r"[0-9a-fA-F]+", text[i + 2:])
            out.append(int(m.group(0), 16) & 0xFF)
            i += 2 + len(m.group(0))
        elif e in "01234567":
            m = re.match(r"[0-7]{1,3}", text[i + 1:])
            out.append(int(m.group(0), 8) & 0xFF)
            i += 1 + len(m.group(0))
        elif e in "uU":
            width = 4 if e == "u" else 8
            out += chr(int(text[i + 2:i + 2 + width], 16)).encode()
            i += 2 + width
        else:
            out += e.encode()
            i += 2
    return bytes(out)


def looks_like_patch(text: bytes) -> bool:
    return b"@@ -" in text or b"diff --git" in text or b"\n+++ " in text


def images(patch: bytes):
    """The pre-image and post-image of every hunk body of `patch`, concatenated (a file the
    patch applies to, and one it is applied in), or None when it has no hunk."""
    pre, post, in_hunk = [], [], False
    for line in patch.split(b"\n"):
        if line.startswith(b"@@ "):
            in_hunk = True
            continue
        if not in_hunk:
            continue
        if line.startswith((b" ", b"-")) or line == b"":
            pre.append(line[1:])
        if line.startswith((b" ", b"+")) or line == b"":
            post.append(line[1:])
        if line.startswith((b"diff ", b"--- ", b"Index: ")):
            in_hunk = False
    if not pre and not post:
        return None
    return b"\n".join(pre) + b"\n", b"\n".join(post) + b"\n"


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--max-bytes", type=int, default=16384, help="largest seed kept")
    args = parser.parse_args()
    seeds = {t: set() for t in ("parse", "apply", "render", "arch")}

    def tree_seeds(file: bytes, patch: bytes, kinds):
        for kind in kinds:
            seed = OPTIONS[kind] + file + SEPARATOR + patch
            seeds["apply"].add(seed)
            seeds["render"].add(seed)

    for case in sorted((TESTS / "cases").iterdir()):
        patch_file = case / "patch.diff"
        if not patch_file.is_file():
            continue
        patch = patch_file.read_bytes()
        seeds["parse"].add(patch)
        seeds["arch"].add(patch)
        for tree, kinds in (("original", ("plain", "fuzz")), ("applied", ("reverse",))):
            root = case / tree
            files = sorted(p for p in root.rglob("*") if p.is_file()) if root.is_dir() else []
            named = [p for p in files if p.name.encode() in patch][:2]
            for p in named or [None]:
                tree_seeds(p.read_bytes() if p else b"", patch, kinds)

    for source in sorted(TESTS.glob("test_*.cpp")):
        for text in literals(source.read_text()):
            if looks_like_patch(text):
                seeds["parse"].add(text)
                seeds["arch"].add(text)
                both = images(text)
                if both:
                    tree_seeds(both[0], text, ("plain", "ws"))
                    tree_seeds(both[1], text, ("reverse",))
            elif source.name == "test_arch.cpp" and len(text) > 3:
                seeds["arch"].add(text)

    for target, texts in seeds.items():
        out = HERE / "corpus" / target
        shutil.rmtree(out, ignore_errors=True)
        out.mkdir(parents=True)
        kept = [t for t in texts if 0 < len(t) <= args.max_bytes]
        for t in kept:
            (out / hashlib.sha1(t).hexdigest()).write_bytes(t)
        total = sum(len(t) for t in kept)
        print(f"{target}: {len(kept)} seeds, {total} bytes")


if __name__ == "__main__":
    main()
