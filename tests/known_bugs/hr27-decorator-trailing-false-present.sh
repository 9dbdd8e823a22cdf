#!/bin/bash
# False "fix: present": hunk's trailing context ends with a decorator (@staticmethod) instead of
# the def line, so the "block inside the next definition is never the change" rule does not
# fire; the change is found inside the decorated sibling method, while the hunk's own method
# was edited (old line replaced by other code). git: neither forward nor reverse applies.
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

    @staticmethod
    def second(x, scale):
        base = x.load_tensor()
        shifted = base + scale
        result = shifted.clamp_values(0, 127)
        return result
X
cat > $d/p.patch <<'X'
diff --git a/f.py b/f.py
--- a/f.py
+++ b/f.py
@@ -4,7 +4,7 @@ class Runner:
         self.counter += 1
         self.log("first")
         shifted = base + self.scale
-        result = shifted.clamp_values(0, 255)
+        result = shifted.clamp_values(0, 127)
         return result
 
     @staticmethod
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

    @staticmethod
    def second(x, scale):
        base = x.load_tensor()
        shifted = base + scale
        result = shifted.clamp_values(0, 127)
        return result
X
(cd $d/a && git apply --check ../p.patch) || { echo "patch does not apply to its own base"; exit 2; }
(cd $d/t && git apply --check ../p.patch 2>/dev/null) && echo "git: forward applies" || echo "git: forward fails"
(cd $d/t && git apply --check -R ../p.patch 2>/dev/null) && echo "git: reverse applies (fix in)" || echo "git: reverse fails (fix not in as written)"
out=$("$B" verify --no-gpu "$d/p.patch" "$d/t" 2>&1); echo "$out"
echo "$out" | grep -q "fix: present" && { echo "BUG: fix reported present; the hunk's method holds saturate(0, 255), not the fix"; exit 1; }
exit 0
