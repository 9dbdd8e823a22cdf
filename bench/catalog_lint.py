#!/usr/bin/env python3
"""Lint the fix-signature catalog (patches/catalog) without any upstream repository.

Checks, for every ``<project>/<id>.json`` under the catalog folder:
  - it validates against ``schema.json`` (JSON Schema draft 2020-12) with the ``jsonschema``
    module when importable, otherwise against a hand check of the required fields and types;
  - its ``id`` equals the file name stem, and its ``project`` equals the folder name;
  - ids are unique across the catalog;
  - every pcre2 marker compiles with Python's ``re`` (the subset the catalog allows);
  - ``commit`` and ``parent`` are both set or both null.

Prints one line per problem (``PATH: message``) and a summary. Exit status: 0 when clean,
1 when a problem was found. Python 3.11 standard library (plus ``jsonschema`` if present).

Usage: bench/catalog_lint.py [--catalog patches/catalog]
"""
from __future__ import annotations

import argparse
import json
import re
import sys
from pathlib import Path

HERE = Path(__file__).resolve().parent
DEFAULT_CATALOG = HERE.parent / "patches" / "catalog"

REQUIRED = {
    "schema": int, "id": str, "project": str, "distributions": list, "title": str,
    "upstream": dict, "compute_capabilities": list, "symptom": str, "files": list,
    "fixed": list, "unfixed": list, "confirmed": str,
}
UPSTREAM_REQUIRED = ("repository", "pr", "commit", "parent", "merged", "state")


def hand_check(entry: dict) -> list[str]:
    """Fallback when jsonschema is missing: required fields, types and marker shape."""
    errs = []
    for key, typ in REQUIRED.items():
        if key not in entry:
            errs.append(f"missing field {key!r}")
        elif not isinstance(entry[key], typ):
            errs.append(f"field {key!r} is not {typ.__name__}")
    extra = set(entry) - set(REQUIRED)
    if extra:
        errs.append(f"unknown fields {sorted(extra)}")
    if errs:
        return errs
    if entry["schema"] != 1:
        errs.append("schema is not 1")
    if not re.fullmatch(r"[a-z0-9]+(-[a-z0-9]+)*", entry["id"]):
        errs.append("id is not [a-z0-9-]+")
    for key in UPSTREAM_REQUIRED:
        if key not in entry["upstream"]:
            errs.append(f"upstream lacks {key!r}")
    if entry["upstream"].get("state") not in ("merged", "reverted", "open"):
        errs.append("upstream.state is not merged|reverted|open")
    for sha in ("commit", "parent"):
        v = entry["upstream"].get(sha)
        if v is not None and not re.fullmatch(r"[0-9a-f]{40}", v):
            errs.append(f"upstream.{sha} is not 40 hex digits")
    if not entry["files"] or not entry["fixed"]:
        errs.append("files and fixed must not be empty")
    for f in entry["files"]:
        if "upstream" not in f or "installed" not in f:
            errs.append("a files[] item lacks upstream or installed")
    for m in entry["fixed"] + entry["unfixed"]:
        kinds = set(m) & {"literal", "pcre2"} if isinstance(m, dict) else set()
        if (len(kinds) != 1 or not set(m) <= {"literal", "pcre2", "comment"}
                or not isinstance(m.get("comment", False), bool)):
            errs.append(f"bad marker {m!r}")
    return errs


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--catalog", type=Path, default=DEFAULT_CATALOG)
    args = ap.parse_args()

    schema = json.loads((args.catalog / "schema.json").read_text(encoding="utf-8"))
    try:
        import jsonschema
        validator = jsonschema.Draft202012Validator(schema)
        jsonschema.Draft202012Validator.check_schema(schema)
        how = "jsonschema Draft202012Validator"
    except ImportError:
        validator = None
        how = "hand check (jsonschema not importable)"

    problems = 0
    seen: dict[str, Path] = {}
    files = sorted(args.catalog.glob("*/*.json"))
    for path in files:
        rel = path.relative_to(args.catalog)

        def bad(msg: str) -> None:
            nonlocal problems
            problems += 1
            print(f"{rel}: {msg}")

        try:
            entry = json.loads(path.read_text(encoding="utf-8"))
        except (OSError, ValueError) as e:
            bad(f"not JSON: {e}")
            continue
        if validator is not None:
            for err in sorted(validator.iter_errors(entry), key=lambda e: list(e.path)):
                bad(f"schema: /{'/'.join(map(str, err.path))}: {err.message}")
        else:
            for msg in hand_check(entry):
                bad(f"schema: {msg}")
        if not isinstance(entry, dict) or not isinstance(entry.get("id"), str):
            continue
        if entry["id"] != path.stem:
            bad(f"id {entry['id']!r} differs from the file name")
        if entry.get("project") != path.parent.name:
            bad(f"project {entry.get('project')!r} differs from the folder {path.parent.name!r}")
        if entry["id"] in seen:
            bad(f"duplicate id, also in {seen[entry['id']].relative_to(args.catalog)}")
        seen[entry["id"]] = path
        for m in entry.get("fixed", []) + entry.get("unfixed", []):
            if isinstance(m, dict) and "pcre2" in m:
                try:
                    re.compile(m["pcre2"])
                except re.error as e:
                    bad(f"pcre2 marker {m['pcre2']!r} does not compile: {e}")
        up = entry.get("upstream", {})
        if isinstance(up, dict) and (up.get("commit") is None) != (up.get("parent") is None):
            bad("upstream.commit and upstream.parent must be both set or both null")

    print(f"{len(files)} entries, {len(seen)} unique ids, {problems} problems ({how})")
    return 1 if problems else 0


if __name__ == "__main__":
    sys.exit(main())
