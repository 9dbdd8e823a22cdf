#!/usr/bin/env python3
"""Validates sm120check's --format sarif reports against the official SARIF 2.1.0 JSON schema.

Usage: validate_sarif.py SM120CHECK_BINARY SOURCE_DIR

Runs the binary on scenarios that reach every kind of result (the bundled demo: applicable,
applied, conflict; a patch that cannot be parsed: error; a hostile file name; an --only-relevant
run; scan: a missing fix, an unknown fix, an incomplete walk) from a scratch working directory
(relative TARGETs, "%SRCROOT%" URIs) and with absolute TARGETs (file: URIs), and validates each
log with Debian's python3-jsonschema (Draft 4, as the schema declares). Debian 12 packages no
JSON-schema validator for C++, hence Python here. Also checks that the vendored schema is
byte-identical to its source (tests/data/sarif/README.md). Prints "N passed, M failed".
"""
import hashlib
import json
import os
import shutil
import subprocess
import sys
import tempfile

import jsonschema

SCHEMA_SHA256 = "c3b4bb2d6093897483348925aaa73af03b3e3f4bd4ca38cef26dcb4212a2682e"


def write(path, text):
    os.makedirs(os.path.dirname(path), exist_ok=True)
    with open(path, "w", encoding="utf-8", newline="") as f:
        f.write(text)


def hostile_case(root):
    """A tree holding a file named with a comma, colon, percent sign and line break, and a
    patch in conflict with it whose subject and lines carry markup and control characters."""
    name = "we,ird:na%me\nx.py"
    write(os.path.join(root, "tree", name), "one\ntwo\nthree\n")
    write(os.path.join(root, "hostile.patch"),
          "From 1 Mon Sep 17 00:00:00 2001\n"
          "Subject: [PATCH] <b>&</b> \"q\" 50%0A::warning::x, a:b\n\n---\n"
          "diff --git \"a/we,ird:na%me\\nx.py\" \"b/we,ird:na%me\\nx.py\"\n"
          "--- \"a/we,ird:na%me\\nx.py\"\n+++ \"b/we,ird:na%me\\nx.py\"\n"
          "@@ -1,3 +1,3 @@\n one\n-tw\x1bo\x01\n+TWO\ttab\n three\n")


def flashinfer_venv(root, utils, gemm):
    site = os.path.join(root, "venv/lib/python3.11/site-packages")
    write(os.path.join(site, "flashinfer_python-0.2.0.dist-info/METADATA"),
          "Metadata-Version: 2.1\nName: flashinfer-python\nVersion: 0.2.0\n")
    write(os.path.join(site, "flashinfer/__init__.py"), "")
    write(os.path.join(site, "flashinfer/utils.py"), "# synthetic\n" + utils + "\n")
    write(os.path.join(site, "flashinfer/gemm/gemm_base.py"), "# synthetic\n\n" + gemm + "\n")


def main():
    binary, source = os.path.abspath(sys.argv[1]), os.path.abspath(sys.argv[2])
    schema_path = os.path.join(source, "tests/data/sarif/sarif-schema-2.1.0.json")
    with open(schema_path, "rb") as f:
        raw = f.read()
    passed, failed = 0, 0

    def check(name, ok, why=""):
        nonlocal passed, failed
        if ok:
            passed += 1
        else:
            failed += 1
            print(f"FAIL {name}: {why}")

    check("schema is byte-identical to its source",
          hashlib.sha256(raw).hexdigest() == SCHEMA_SHA256, hashlib.sha256(raw).hexdigest())
    schema = json.loads(raw)
    jsonschema.Draft4Validator.check_schema(schema)
    validator = jsonschema.Draft4Validator(schema)

    work = tempfile.mkdtemp(prefix="sarif-")
    try:
        shutil.copytree(os.path.join(source, "examples/tree"), os.path.join(work, "tree"))
        demo = os.path.join(source, "patches")
        write(os.path.join(work, "bad.patch"), "--- a/x\n+++ b/x\n@@ -1,2 +1,2 @@\n-a\n")
        hostile_case(os.path.join(work, "h"))
        flashinfer_venv(os.path.join(work, "missing"), "def is_sm120a_supported(device):",
                        "    if is_sm120a_supported(a.device) or is_sm121a_supported(a.device):")
        flashinfer_venv(os.path.join(work, "mixed"), "def is_sm12x_supported(device):",
                        "if is_sm12x_supported(a.device):\n"
                        "is_sm120a_supported(a.device) or is_sm121a_supported(a.device)")
        only = ["--only", "flashinfer-2574-is-sm12x-supported"]
        scenarios = [
            # (name, arguments, expected exit code, expected rule ids of the results)
            ("verify demo, relative TARGET", ["verify", "--no-gpu", demo, "tree"], 2,
             ["verify/applicable", "verify/conflict"]),
            ("verify demo, absolute TARGET",
             ["verify", "--no-gpu", demo, os.path.join(source, "examples/tree")], 2,
             ["verify/applicable", "verify/conflict"]),
            ("verify, unparsable patch", ["verify", "--no-gpu", "bad.patch", demo, "tree"], 3,
             ["verify/error", "verify/applicable", "verify/conflict"]),
            ("verify, patch on stdin that fails", ["verify", "--no-gpu", "-", "tree"], 3,
             ["verify/error"]),
            ("verify, hostile names", ["verify", "--no-gpu", "h/hostile.patch", "h/tree"], 2,
             ["verify/conflict"]),
            ("verify --only-relevant", ["verify", "--cc", "9.0", "--only-relevant", demo, "tree"],
             0, []),
            ("scan, missing fix", ["scan", "--cc", "12.0", "--no-kernels"] + only +
             ["missing/venv"], 1, ["scan/missing"]),
            ("scan, unknown fix", ["scan", "--no-gpu", "--no-kernels"] + only + ["mixed/venv"],
             2, ["scan/unknown"]),
            ("scan, incomplete walk", ["scan", "--no-gpu", "--no-kernels", "--max-depth", "1"]
             + only + ["missing/venv"], 2, ["scan/incomplete-walk"]),
        ]
        for name, args, code, rules in scenarios:
            stdin = b"not a patch\n" if "-" in args else None
            run = subprocess.run([binary] + args[:1] + ["--format", "sarif"] + args[1:],
                                 cwd=work, input=stdin, capture_output=True, timeout=60)
            check(name + ": exit code", run.returncode == code,
                  f"{run.returncode} != {code}: {run.stderr.decode(errors='replace')}")
            try:
                log = json.loads(run.stdout)
            except ValueError as e:
                check(name + ": JSON", False, str(e))
                continue
            errors = sorted(validator.iter_errors(log), key=lambda e: list(e.path))
            check(name + ": valid against the SARIF 2.1.0 schema", not errors,
                  "; ".join(f"{list(e.path)}: {e.message}" for e in errors[:5]))
            results = log["runs"][0]["results"]
            got = [r["ruleId"] for r in results]
            check(name + ": results", got == rules, f"{got} != {rules}")
            check(name + ": every result located",
                  all(r.get("locations") for r in results), json.dumps(results)[:400])
            check(name + ": exitCode", log["runs"][0]["invocations"][0]["exitCode"] == code)
    finally:
        shutil.rmtree(work)
    print(f"{passed} passed, {failed} failed")
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
