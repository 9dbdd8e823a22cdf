#!/bin/bash
# core.autocrlf=true given through the environment (GIT_CONFIG_COUNT/KEY/VALUE, git >= 2.31;
# what `git -c` passes to child processes) is honoured by git apply but not by sm120check:
# false conflict on both the unpatched and the patched work tree.
B=${1:?binary}; B=$(readlink -f "$B")
W=$(mktemp -d); trap 'rm -rf "$W"' EXIT; cd "$W"
export GIT_CONFIG_COUNT=1 GIT_CONFIG_KEY_0=core.autocrlf GIT_CONFIG_VALUE_0=true
git init -q r; cd r; git config user.email a@b; git config user.name a
for i in $(seq 1 30); do echo "line $i = $((i*7))"; done > f.py
git add .; git commit -qm base 2>/dev/null; rm f.py; git checkout -- .
grep -q $'\r$' f.py || { echo "setup: git ignored env config"; exit 2; }
sed -i 's/^line 16 = 112\r$/line 16 = SM120\r/' f.py; git diff > ../p.diff; git checkout -q -- .
git apply --check ../p.diff || { echo setup; exit 2; }
s=$("$B" verify --no-gpu ../p.diff . | grep '^patch' | awk '{print $NF}')
echo "git apply --check: applicable; sm120check: $s"
[ "$s" = "[applicable]" ]
