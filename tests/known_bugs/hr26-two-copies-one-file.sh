#!/bin/bash
# A patch changes two copies of the same code (python/pkg/ops/k.py and vendor/pkg/ops/k.py).
# The target (a pip-install layout) has only pkg/ops/k.py. Both file patches are relocated
# (-p1) -- or collapsed by the detected strip level 2 -- onto the SAME file, and each is reported
# applied: "fix: present (2 of 2 hunks present)", exit 0. The vendor copy does not exist; it is
# "found" in the other copy. git apply -p2 -R --check (the level the tool detects) refuses.
B=${1:?binary}; B=$(readlink -f "$B")
W=$(mktemp -d); trap 'rm -rf "$W"' EXIT; cd "$W"
mkdir -p t/pkg/ops
for i in $(seq 1 30); do echo "line $i of the kernel = $((i*7))"; done | sed 's/^line 16 of the kernel = 112$/if CUDA_CAPABILITY[0] == 12: BLOCK = 64/' > t/pkg/ops/k.py
for f in python/pkg/ops/k.py vendor/pkg/ops/k.py; do
printf 'diff --git a/%s b/%s\n--- a/%s\n+++ b/%s\n@@ -13,7 +13,7 @@\n line 13 of the kernel = 91\n line 14 of the kernel = 98\n line 15 of the kernel = 105\n-line 16 of the kernel = 112\n+if CUDA_CAPABILITY[0] == 12: BLOCK = 64\n line 17 of the kernel = 119\n line 18 of the kernel = 126\n line 19 of the kernel = 133\n' $f $f $f $f
done > p.diff
bad=0
for o in "" "-p1"; do
  j=$("$B" verify --no-gpu --format json $o p.diff t 2>/dev/null)
  r=$(echo "$j" | python3 -c '
import json,sys
d=json.load(sys.stdin); p=d["patches"][0]
paths=[f["target_path"] for f in p["files"] if f["status"]=="applied"]
print(p["status"], p["presence"], paths, "dup" if len(paths)!=len(set(paths)) else "ok")')
  echo "verify $o: $r"
  case "$r" in *dup*) bad=1;; esac
done
(cd t && git apply -p2 -R --check ../p.diff >/dev/null 2>&1) && echo "git -p2 -R: applied" || echo "git -p2 -R --check: refuses"
exit $bad
