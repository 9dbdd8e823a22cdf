#!/bin/sh
# Runs docs/examples/ansible/verify.yml with Debian's ansible against local "hosts" and checks
# what it collects:
#   ansible_test.sh SM120CHECK_BINARY SOURCE_DIR
# Run 1: localhost (local connection) and two inventory hosts that are local connections into
# their own target trees (target-a: both patches applied; target-b: one file rewritten), each
# with a different verdict: every report (exit code, counts, target) and the summary's rows are
# asserted, and the play succeeds. Run 2: target-a keeps its report of run 1, but now gets a
# binary that cannot run there, target-c one the loader refuses (exit 1, no output), and an
# unreachable host is added: all three must be FAILED rows and the play must fail, while
# localhost's verdict is still reported.
# Exit 77 (a skip for ctest) without ansible-playbook, unless SM120CHECK_REQUIRE_TOOLS is set.
set -eu
bin=$1
src=$2
if ! command -v ansible-playbook >/dev/null 2>&1 || ! [ -x /usr/bin/python3 ]; then
    [ -n "${SM120CHECK_REQUIRE_TOOLS:-}" ] && { echo "ansible_test: ansible-playbook or /usr/bin/python3 missing" >&2; exit 1; }
    echo "ansible_test: SKIP: ansible-playbook (Debian package ansible) is not installed"
    exit 77
fi
fail() { echo "ansible_test: FAIL: $*" >&2; exit 1; }

tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
# Ansible's own state and temporary files stay in $tmp; no ~/.ansible, no colour, no cows.
export ANSIBLE_HOME="$tmp/ansible-home" ANSIBLE_LOCAL_TEMP="$tmp/ansible-local" \
    ANSIBLE_REMOTE_TEMP="$tmp/ansible-remote" ANSIBLE_NOCOLOR=1 ANSIBLE_NOCOWS=1 \
    ANSIBLE_RETRY_FILES_ENABLED=0 ANSIBLE_HOST_KEY_CHECKING=0 ANSIBLE_PIPELINING=1 \
    ANSIBLE_PYTHON_INTERPRETER=/usr/bin/python3 TMPDIR="$tmp"
# No ansible.cfg of the caller's: an empty one of ours.
: >"$tmp/ansible.cfg"
export ANSIBLE_CONFIG="$tmp/ansible.cfg"

# The patches: the demo's first two (one applicable with an offset, one applied by drift).
mkdir -p "$tmp/patches" "$tmp/hosts"
cp "$src"/patches/0001-*.patch "$src"/patches/0002-*.patch "$tmp/patches/"
cp -R "$src/examples/tree" "$tmp/hosts/localhost"
cp -R "$src/examples/tree" "$tmp/hosts/a"
cp -R "$src/examples/tree" "$tmp/hosts/b"
"$bin" apply "$tmp/patches" "$tmp/hosts/a" >/dev/null || fail "could not apply the patches to target-a"
echo "# rewritten" >"$tmp/hosts/b/python/sglang/srt/layers/attention/triton_ops/extend_attention.py"

# The binary is a group variable: a host's own (run 2) must win, which an -e would not allow.
cat >"$tmp/inventory.ini" <<INI
[gpu_hosts]
localhost ansible_connection=local sm120check_target=$tmp/hosts/localhost
target-a ansible_connection=local sm120check_target=$tmp/hosts/a
target-b ansible_connection=local sm120check_target=$tmp/hosts/b
[gpu_hosts:vars]
sm120check_binary=$bin
INI

playbook="$src/docs/examples/ansible/verify.yml"
reports="$tmp/reports"
run_playbook() {  # inventory, extra arguments...
    inventory=$1
    shift
    ansible-playbook -i "$inventory" "$playbook" -e "sm120check_patches=$tmp/patches" -e "sm120check_reports=$reports" \
        -e '{"sm120check_verify_args": ["--no-gpu"]}' "$@" >"$tmp/play.log" 2>&1
}

# A report's facts, one line: exit code, the counts, the target.
facts() {
    /usr/bin/python3 - "$1" <<'PY'
import json, sys
d = json.load(open(sys.argv[1]))
s = d["summary"]
print(d["schema"].split("/")[0], d["exit_code"], s["applied"], s["applicable"], s["conflict"],
      s["error"], d["target"]["path"])
PY
}

expect_report() {  # host, expected facts
    [ -f "$reports/$1.json" ] || fail "no report for $1"
    got=$(facts "$reports/$1.json")
    [ "$got" = "$2" ] || fail "report of $1: got '$got', expected '$2'"
}

expect_row() {  # host, pattern the summary row must match
    row=$(grep "^$1 " "$reports/summary.txt") || fail "no summary row for $1"
    echo "$row" | grep -Eq "$2" || fail "summary row of $1: '$row' does not match '$2'"
}

# Run 1: three hosts, three verdicts, the run passes.
start=$(date +%s)
run_playbook "$tmp/inventory.ini" || { cat "$tmp/play.log" >&2; fail "run 1 failed"; }
echo "ansible_test: run 1 took $(($(date +%s) - start)) s"
expect_report localhost "sm120check.verify 1 1 1 0 0 $tmp/hosts/localhost"
expect_report target-a "sm120check.verify 0 2 0 0 0 $tmp/hosts/a"
expect_report target-b "sm120check.verify 2 1 0 1 0 $tmp/hosts/b"
[ "$(ls "$reports" | sort | tr '\n' ' ')" = "localhost.json summary.json summary.txt target-a.json target-b.json " ] ||
    fail "unexpected files in the reports folder: $(ls "$reports")"
expect_row localhost '^localhost +ok +1 +1 +1 +0 +0 +0 +0'
expect_row target-a '^target-a +ok +0 +2 +0 +0 +0 +0 +0'
expect_row target-b '^target-b +ok +2 +1 +0 +0 +1 +0 +0'
[ "$(grep -c . "$reports/summary.txt")" -eq 4 ] || fail "summary.txt: $(cat "$reports/summary.txt")"
/usr/bin/python3 -c '
import json, sys
rows = json.load(open(sys.argv[1]))["hosts"]
assert [(r["host"], r["result"], r["exit"]) for r in rows] == \
    [("localhost", "ok", 1), ("target-a", "ok", 0), ("target-b", "ok", 2)], rows
' "$reports/summary.json" || fail "summary.json"
# Nothing is left on the "hosts" but their trees.
leftover=$(find "$tmp" -maxdepth 2 -name 'sm120check.*' | head -n 1)
[ -z "$leftover" ] || fail "working folder left behind: $leftover"
# The play's own gate: any verdict above 0 fails the run when asked.
run_playbook "$tmp/inventory.ini" -e sm120check_max_exit=0 && fail "sm120check_max_exit=0 passed with exit codes 1 and 2"
grep -q 'exit code above 0 on: localhost, target-b' "$tmp/play.log" || { cat "$tmp/play.log" >&2; fail "max_exit message"; }

# Run 2: target-a's binary cannot run there (not an executable for this machine); target-c's
# is refused by the loader as a binary built for a newer glibc is (exit 1, the same code as a
# verdict, and nothing on standard output); a host is unreachable. All three are FAILED;
# target-a's old report is not reused; the play fails.
printf '\177ELF\002\001\001 not a program for this machine\n' >"$tmp/broken"
printf '#!/bin/sh\necho "sm120check: /lib/x86_64-linux-gnu/libc.so.6: version \\`GLIBC_2.99'"'"' not found" >&2\nexit 1\n' >"$tmp/old-glibc"
chmod +x "$tmp/old-glibc"
cat >"$tmp/inventory2.ini" <<INI
[gpu_hosts]
localhost ansible_connection=local sm120check_target=$tmp/hosts/localhost
target-a ansible_connection=local sm120check_target=$tmp/hosts/a sm120check_binary=$tmp/broken
target-c ansible_connection=local sm120check_target=$tmp/hosts/b sm120check_binary=$tmp/old-glibc
unreachable ansible_connection=ssh ansible_host=127.0.0.1 ansible_port=1 ansible_ssh_common_args='-o ConnectTimeout=5' sm120check_target=/srv
[gpu_hosts:vars]
sm120check_binary=$bin
INI
if run_playbook "$tmp/inventory2.ini"; then
    cat "$tmp/play.log" >&2
    fail "run 2 passed with a host that cannot run sm120check and an unreachable one"
fi
grep -q '3 of 4 hosts have no verdict: target-a, target-c, unreachable' "$tmp/play.log" ||
    { cat "$tmp/play.log" >&2; fail "run 2's failure message"; }
[ ! -e "$reports/target-a.json" ] || fail "target-a's report of run 1 was kept"
expect_report localhost "sm120check.verify 1 1 1 0 0 $tmp/hosts/localhost"
expect_row localhost '^localhost +ok +1 '
expect_row target-a '^target-a +FAILED .*Run sm120check verify'
expect_row target-c '^target-c +FAILED .*no JSON report on standard output \(exit 1\): sm120check: .*GLIBC_2.99'
# (unreachable, or "Unable to execute ssh" on a controller without an ssh client)
expect_row unreachable '^unreachable +FAILED +- '
# Run 3: paths given relative to the folder ansible-playbook runs in, a reports folder that
# does not exist yet, and no host with a verdict: the summary is still written, the play fails.
cat >"$tmp/inventory3.ini" <<INI
[gpu_hosts]
target-x ansible_connection=local sm120check_target=$tmp/hosts/missing
INI
if (cd "$tmp" && ansible-playbook -i inventory3.ini "$playbook" -e sm120check_binary=broken \
        -e sm120check_patches=patches -e sm120check_reports=reports3 \
        -e '{"sm120check_verify_args": ["--no-gpu"]}' >"$tmp/play.log" 2>&1); then
    cat "$tmp/play.log" >&2
    fail "run 3 passed with no verdict"
fi
grep -Eq '^target-x +FAILED ' "$tmp/reports3/summary.txt" 2>/dev/null ||
    { cat "$tmp/play.log" >&2; fail "run 3: no summary row for target-x in reports3/summary.txt"; }
# Run 4: the same relative paths with a host that has a verdict.
cat >"$tmp/inventory4.ini" <<INI
[gpu_hosts]
target-a ansible_connection=local sm120check_target=$tmp/hosts/a
INI
cp "$bin" "$tmp/sm120check-copy"
(cd "$tmp" && ansible-playbook -i inventory4.ini "$playbook" -e sm120check_binary=sm120check-copy \
    -e sm120check_patches=patches -e sm120check_reports=reports4 \
    -e '{"sm120check_verify_args": ["--no-gpu"]}' >"$tmp/play.log" 2>&1) ||
    { cat "$tmp/play.log" >&2; fail "run 4 (relative paths) failed"; }
reports="$tmp/reports4"
expect_report target-a "sm120check.verify 0 2 0 0 0 $tmp/hosts/a"
echo "ansible_test: OK ($(($(date +%s) - start)) s)"
