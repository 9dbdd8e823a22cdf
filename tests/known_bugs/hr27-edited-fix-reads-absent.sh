#!/bin/bash
# False fix: absent (removed-lines-present). The fix changed 'num_stages = 2' to 'num_stages = 1'; the tree
# holds the fix generalised since: 'num_stages = 1 if is_sm120() else 2' (all context intact). The tool says
# 'change absent: the code it replaces stands where it belongs (line 8)', which is untrue: 'num_stages = 2'
# is nowhere. Cause: the edited line holds the removed-only word '2' (rule 2 reads that as absent).
# git: forward and reverse both fail. Expected: unknown (edited-since) or present, never absent.
B=${1:?binary}; d=$(mktemp -d); trap 'rm -rf "$d"' EXIT
mkdir -p $d/a $d/t
cat > $d/a/f.py <<'X'
import triton


def _decode_grouped_att_m_fwd(q, k_buffer, v_buffer, att_out, kv_indptr):
    BLOCK = 32
    Lk = k_buffer.shape[-1]
    num_warps = 4
    num_stages = 2
    extra_kargs = {}
    grid = (q.shape[0], 16)
    _fwd_kernel[grid](
        q,
        k_buffer,
        num_warps=num_warps,
        num_stages=num_stages,
    )
X
cat > $d/p.patch <<'X'
diff --git a/f.py b/f.py
index 47af177..0162e97 100644
--- a/f.py
+++ b/f.py
@@ -5,7 +5,7 @@ def _decode_grouped_att_m_fwd(q, k_buffer, v_buffer, att_out, kv_indptr):
     BLOCK = 32
     Lk = k_buffer.shape[-1]
     num_warps = 4
-    num_stages = 2
+    num_stages = 1
     extra_kargs = {}
     grid = (q.shape[0], 16)
     _fwd_kernel[grid](
X
cat > $d/t/f.py <<'X'
import triton


def _decode_grouped_att_m_fwd(q, k_buffer, v_buffer, att_out, kv_indptr):
    BLOCK = 32
    Lk = k_buffer.shape[-1]
    num_warps = 4
    num_stages = 1 if is_sm120() else 2
    extra_kargs = {}
    grid = (q.shape[0], 16)
    _fwd_kernel[grid](
        q,
        k_buffer,
        num_warps=num_warps,
        num_stages=num_stages,
    )
X
(cd $d/a && git apply --check ../p.patch) || { echo "patch does not apply to its own base"; exit 2; }
(cd $d/t && git apply --check ../p.patch 2>/dev/null) && echo "git: forward applies" || echo "git: forward fails"
(cd $d/t && git apply --check -R ../p.patch 2>/dev/null) && echo "git: reverse applies (fix in)" || echo "git: reverse fails"
out=$("$B" verify --no-gpu "$d/p.patch" "$d/t" 2>&1); echo "$out"
echo "$out" | grep -q "fix: absent" && { echo "BUG: fix reported absent though num_stages = 1 (made conditional) stands and num_stages = 2 is nowhere"; exit 1; }
exit 0
