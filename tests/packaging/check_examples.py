#!/usr/bin/python3
"""Parses the CI and fleet examples of docs/examples with PyYAML and checks their shape.

    check_examples.py SOURCE_DIR

They are not run here (the Ansible playbook is, by ansible_test.sh), but a YAML error, a
workflow without jobs, a step that no longer calls `sm120check verify`, or a role task with no
module or two would fail. Exit 77 (a skip for ctest) without python3-yaml, unless
SM120CHECK_REQUIRE_TOOLS is set.
"""
import os
import pathlib
import sys

try:
    import yaml
except ImportError:
    if os.environ.get("SM120CHECK_REQUIRE_TOOLS"):
        sys.exit("check_examples: python3-yaml is missing")
    print("check_examples: SKIP: python3-yaml (Debian package) is not installed")
    sys.exit(77)

root = pathlib.Path(sys.argv[1]) / "docs" / "examples"
failures = []


def check(condition, what):
    if not condition:
        failures.append(what)


parsed = {}


def load(rel):
    """The parsed file (None when it did not parse: that failure is already recorded)."""
    return parsed.get(root / rel)


def commands(steps):
    """The shell text of a list of GitHub steps or GitLab script lines."""
    out = []
    for step in steps:
        out.append(step.get("run", "") if isinstance(step, dict) else str(step))
    return "\n".join(out)


# Every YAML file parses.
files = sorted(p for p in root.rglob("*") if p.suffix in (".yml", ".yaml"))
check(len(files) >= 5, f"expected the workflow, the GitLab job and the Ansible files, found {files}")
for path in files:
    try:
        with open(path, encoding="utf-8") as f:
            parsed[path] = yaml.safe_load(f)
    except yaml.YAMLError as e:
        failures.append(f"{path}: {e}")

# GitHub Actions: triggers ("on", which YAML 1.1 reads as True), jobs with steps.
wf = load("github-actions.yml") or {}
check("on" in wf or True in wf, "github-actions.yml: no 'on'")
jobs = wf.get("jobs", {})
check(len(jobs) == 1, "github-actions.yml: expected one job")
for name, job in jobs.items():
    check("runs-on" in job, f"github-actions.yml: job {name} has no runs-on")
    steps = job.get("steps", [])
    check(all(isinstance(s, dict) and ("run" in s or "uses" in s) for s in steps),
          f"github-actions.yml: job {name}: a step with neither run nor uses")
    text = commands(steps)
    check("sm120check verify" in text and "--format json" in text,
          f"github-actions.yml: job {name} does not run sm120check verify --format json")

# GitLab CI: one job with an image, a script calling verify, the report as an artifact.
gl = load("gitlab-ci.yml") or {}
check(len(gl) == 1, "gitlab-ci.yml: expected one job")
for name, job in gl.items():
    check(isinstance(job.get("script"), list), f"gitlab-ci.yml: {name} has no script list")
    check("sm120check verify" in commands(job.get("script", [])),
          f"gitlab-ci.yml: {name} does not run sm120check verify")
    check("image" in job and "stage" in job, f"gitlab-ci.yml: {name} lacks image or stage")
    check(job.get("artifacts", {}).get("when") == "always",
          f"gitlab-ci.yml: {name} does not keep the report when it fails")

# Ansible: the playbook's plays, the role's tasks (each named, one module) and defaults.
TASK_KEYWORDS = {"name", "register", "when", "vars", "loop", "loop_control", "changed_when",
                       "failed_when", "delegate_to", "delegate_facts", "run_once", "args",
                       "block", "rescue", "always", "become", "no_log", "tags"}


def check_tasks(tasks, where):
    check(isinstance(tasks, list) and tasks, f"{where}: no tasks")
    for task in tasks or []:
        check("name" in task, f"{where}: a task without a name: {task}")
        if "block" in task:
            for part in ("block", "rescue", "always"):
                if part in task:
                    check_tasks(task[part], f"{where}: {task.get('name')}: {part}")
            continue
        modules = [k for k in task if k not in TASK_KEYWORDS]
        check(len(modules) == 1 and modules[0].startswith("ansible.builtin."),
              f"{where}: task {task.get('name')!r} calls {modules}, expected one ansible.builtin module")


plays = load("ansible/verify.yml") or []
check(len(plays) == 2, "ansible/verify.yml: expected two plays")
for play in plays:
    check("hosts" in play and "name" in play, f"ansible/verify.yml: play without hosts/name: {play.get('name')}")
    for part in ("pre_tasks", "tasks"):
        if part in play:
            check_tasks(play[part], f"ansible/verify.yml: {play.get('name')}: {part}")
check(plays and plays[0].get("roles") == ["sm120check_verify"], "ansible/verify.yml: the first play runs the role")
check_tasks(load("ansible/roles/sm120check_verify/tasks/main.yml"), "ansible role tasks")
defaults = load("ansible/roles/sm120check_verify/defaults/main.yml") or {}
for var in ("sm120check_binary", "sm120check_patches", "sm120check_target", "sm120check_reports"):
    check(var in defaults, f"ansible role defaults: {var} missing")

if failures:
    for f in failures:
        print("check_examples: FAIL:", f, file=sys.stderr)
    sys.exit(1)
print(f"check_examples: OK ({len(files)} YAML files)")
