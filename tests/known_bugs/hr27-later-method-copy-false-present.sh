#!/bin/bash
# False fix: present. Python class: trailing context ends with '    def second(self, x):' (rule 1 rejects
# copies inside second), but a copy of the added line in the NEXT-but-one method third() is taken as the
# drifted change (1 of 6 context lines), while the hunk's own method first() has its line edited since
# (saturate(0, 255), 5 of 6 context lines around it). git: forward and reverse both fail.
B=${1:?binary}; d=$(mktemp -d); trap 'rm -rf "$d"' EXIT
mkdir -p $d/a $d/t
cat > $d/a/f.py <<'X'
class Runner:
    def first(self, x):
        base = x.load_tensor()
        self.counter += 1
        self.log("first")
        shifted = base + self.scale
        result = shifted.clamp_values(0, 255)
        return result

    def second(self, x):
        return x

    def third(self, x, scale):
        base = x.load_tensor()
        shifted = base + scale
        result = shifted.clamp_values(0, 127)
        return result
X
cat > $d/p.patch <<'X'
diff --git a/f.py b/f.py
index 5a8b027..8a872c2 100644
--- a/f.py
+++ b/f.py
@@ -4,7 +4,7 @@ class Runner:
         self.counter += 1
         self.log("first")
         shifted = base + self.scale
-        result = shifted.clamp_values(0, 255)
+        result = shifted.clamp_values(0, 127)
         return result
 
     def second(self, x):
X
cat > $d/t/f.py <<'X'
class Runner:
    def first(self, x):
        base = x.load_tensor_v2()
        self.counter += 1
        self.log("first")
        shifted = base + self.scale * 2
        result = shifted.saturate(0, 255)
        return result

    def second(self, x):
        return x

    def third(self, x, scale):
        base = x.load_tensor()
        shifted = base + scale
        result = shifted.clamp_values(0, 127)
        return result
X
(cd $d/a && git apply --check ../p.patch) || { echo "patch does not apply to its own base"; exit 2; }
(cd $d/t && git apply --check ../p.patch 2>/dev/null) && echo "git: forward applies" || echo "git: forward fails"
(cd $d/t && git apply --check -R ../p.patch 2>/dev/null) && echo "git: reverse applies (fix in)" || echo "git: reverse fails"
out=$("$B" verify --no-gpu "$d/p.patch" "$d/t" 2>&1); echo "$out"
echo "$out" | grep -q "fix: present" && { echo "BUG: fix reported present"; exit 1; }
exit 0
