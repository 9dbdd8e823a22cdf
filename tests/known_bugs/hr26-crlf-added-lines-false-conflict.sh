#!/bin/bash
# False conflict: patch whose added lines end in CRLF (context LF), in a work tree with
# core.autocrlf=true. After `git apply`, `git apply -R --check` accepts the patch (it is
# applied), but sm120check verify says conflict ("differs only in line endings").
B=${1:?binary}; B=$(readlink -f "$B")
W=$(mktemp -d); trap 'rm -rf "$W"' EXIT; cd "$W"
git init -q r; cd r; git config user.email a@b; git config user.name a
git config core.autocrlf ${AUTOCRLF:-true}
for i in $(seq 1 30); do echo "line $i of the file = $((i*7))"; done > f.py
git add f.py; git commit -qm base
rm f.py; git checkout -- f.py
printf 'diff --git a/f.py b/f.py\n--- a/f.py\n+++ b/f.py\n@@ -13,7 +13,8 @@\n line 13 of the file = 91\n line 14 of the file = 98\n line 15 of the file = 105\n-line 16 of the file = 112\n+if CUDA_CAPABILITY[0] == 12: BLOCK = 64\r\n+line 16 CHANGED for sm120\r\n line 17 of the file = 119\n line 18 of the file = 126\n line 19 of the file = 133\n' > ../p.diff
git apply ../p.diff || { echo "setup: git apply failed"; exit 2; }
git apply -R --check ../p.diff || { echo "setup: git says not applied"; exit 2; }
out=$("$B" verify --no-gpu ../p.diff . 2>&1); rc=$?
echo "$out" | grep -E '^\s+(M|hunk|fix)|fix:' ; echo "verify rc=$rc (git apply -R --check: applied)"
bad=0; [ $rc -eq 0 ] || bad=1
# variant: a new file from a CRLF patch; sm120check's own apply writes it, then a second apply
# run (and verify) call it a conflict ("file already exists with different content")
cd "$W"; git init -q n; git -C n config core.autocrlf ${AUTOCRLF:-true}
printf 'diff --git a/new.py b/new.py\nnew file mode 100644\n--- /dev/null\n+++ b/new.py\n@@ -0,0 +1,3 @@\n+a = 1\r\n+b = 2\r\n+c = 3\r\n' > crlf.diff
"$B" apply --no-gpu crlf.diff n >/dev/null 2>&1; r1=$?
"$B" apply --no-gpu crlf.diff n >/dev/null 2>&1; r2=$?
git -C n apply -R --check ../crlf.diff 2>/dev/null && g=applied || g=not-applied
echo "new file: first apply rc=$r1, second apply rc=$r2 (expected 0), git apply -R --check: $g"
[ $r2 -eq 0 ] || bad=1
exit $bad
