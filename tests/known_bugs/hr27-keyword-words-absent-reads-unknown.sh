#!/bin/bash
# Absent fix read unknown (edited-since). The fix turns 'return normalized' into
# 'return normalized if normalized is not None else default' (a None guard). The tree's line reads
# 'return normalized.copy() if copy_needed(key) else normalized': no None guard, no default, so the fix
# is absent. Only the keywords 'if'/'else' are shared with the added line, yet they count as the
# added-only words that make rule 2 say 'edited since from its new code'. git: both directions fail.
B=${1:?binary}; d=$(mktemp -d); trap 'rm -rf "$d"' EXIT
mkdir -p $d/a $d/t
cat > $d/a/f.py <<'X'
def pick_config(configs, key, default):
    entry = configs.lookup(key)
    log_lookup(key, entry)
    normalized = normalize_entry(entry)
    return normalized


def other():
    pass
X
cat > $d/p.patch <<'X'
diff --git a/f.py b/f.py
index 8d4f10c..5637574 100644
--- a/f.py
+++ b/f.py
@@ -2,7 +2,7 @@ def pick_config(configs, key, default):
     entry = configs.lookup(key)
     log_lookup(key, entry)
     normalized = normalize_entry(entry)
-    return normalized
+    return normalized if normalized is not None else default
 
 
 def other():
X
cat > $d/t/f.py <<'X'
def pick_config(configs, key, default):
    entry = configs.lookup(key)
    log_lookup(key, entry)
    normalized = normalize_entry(entry)
    return normalized.copy() if copy_needed(key) else normalized


def other():
    pass
X
(cd $d/a && git apply --check ../p.patch) || { echo "patch does not apply to its own base"; exit 2; }
(cd $d/t && git apply --check ../p.patch 2>/dev/null) && echo "git: forward applies" || echo "git: forward fails"
(cd $d/t && git apply --check -R ../p.patch 2>/dev/null) && echo "git: reverse applies (fix in)" || echo "git: reverse fails"
out=$("$B" verify --no-gpu "$d/p.patch" "$d/t" 2>&1); echo "$out"
echo "$out" | grep -q "fix: absent" || { echo "BUG: fix not reported absent"; exit 1; }
exit 0
