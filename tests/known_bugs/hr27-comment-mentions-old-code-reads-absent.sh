#!/bin/bash
# False fix: absent. The fix replaces torch.empty with torch.zeros; the tree holds exactly the fixed line plus a
# trailing comment that names the old call ('# torch.empty left garbage on SM120'). Rule 2 sees the
# removed-only word 'empty' on that line and reports 'change absent: the code it replaces stands where it
# belongs (line 4)'. git: forward and reverse both fail (line differs); the fix is plainly there.
B=${1:?binary}; d=$(mktemp -d); trap 'rm -rf "$d"' EXIT
mkdir -p $d/a $d/t
cat > $d/a/f.py <<'X'
def alloc_workspace(n, device):
    header = make_header(n)
    register_buffer(header)
    workspace = torch.empty(n, dtype=torch.int32, device=device)
    register_buffer(workspace)
    return header, workspace
X
cat > $d/p.patch <<'X'
diff --git a/f.py b/f.py
index 87c5197..4f46fec 100644
--- a/f.py
+++ b/f.py
@@ -1,6 +1,6 @@
 def alloc_workspace(n, device):
     header = make_header(n)
     register_buffer(header)
-    workspace = torch.empty(n, dtype=torch.int32, device=device)
+    workspace = torch.zeros(n, dtype=torch.int32, device=device)
     register_buffer(workspace)
     return header, workspace
X
cat > $d/t/f.py <<'X'
def alloc_workspace(n, device):
    header = make_header(n)
    register_buffer(header)
    workspace = torch.zeros(n, dtype=torch.int32, device=device)  # torch.empty left garbage on SM120
    register_buffer(workspace)
    return header, workspace
X
(cd $d/a && git apply --check ../p.patch) || { echo "patch does not apply to its own base"; exit 2; }
(cd $d/t && git apply --check ../p.patch 2>/dev/null) && echo "git: forward applies" || echo "git: forward fails"
(cd $d/t && git apply --check -R ../p.patch 2>/dev/null) && echo "git: reverse applies (fix in)" || echo "git: reverse fails"
out=$("$B" verify --no-gpu "$d/p.patch" "$d/t" 2>&1); echo "$out"
echo "$out" | grep -q "fix: absent" && { echo "BUG: fix reported absent though the fixed line (plus a comment) stands"; exit 1; }
exit 0
