#!/bin/bash
# False fix: present. Rule 1 (a block inside the definition the trailing context begins is never the change)
# does not hold for C++ methods: the hunk's trailing context ends with '  float second(const float* x, int n) {',
# the hunk's own method first() was edited since (its line reads saturate(acc, 255)), and the copy of the
# added line inside second() is taken as the drifted change. git: forward and reverse both fail.
B=${1:?binary}; d=$(mktemp -d); trap 'rm -rf "$d"' EXIT
mkdir -p $d/a $d/t
cat > $d/a/f.cpp <<'X'
struct Runner {
  float first(const float* x, int n) {
    float acc = load_first(x);
    this->counter += 1;
    this->log_step(n);
    acc += reduce_rest(x, n);
    return clamp_range(acc, 255);
  }

  float second(const float* x, int n) {
    float acc = load_first(x);
    acc += reduce_rest(x, n);
    return clamp_range(acc, 127);
  }
};
X
cat > $d/p.patch <<'X'
diff --git a/f.cpp b/f.cpp
index bfe786b..1ea78e1 100644
--- a/f.cpp
+++ b/f.cpp
@@ -4,7 +4,7 @@ struct Runner {
     this->counter += 1;
     this->log_step(n);
     acc += reduce_rest(x, n);
-    return clamp_range(acc, 255);
+    return clamp_range(acc, 127);
   }
 
   float second(const float* x, int n) {
X
cat > $d/t/f.cpp <<'X'
struct Runner {
  float first(const float* x, int n) {
    float acc = load_first_v2(x);
    this->counter += 1;
    this->log_step(n);
    acc += reduce_rest(x, n, 2);
    return saturate(acc, 255);
  }

  float second(const float* x, int n) {
    float acc = load_first(x);
    acc += reduce_rest(x, n);
    return clamp_range(acc, 127);
  }
};
X
(cd $d/a && git apply --check ../p.patch) || { echo "patch does not apply to its own base"; exit 2; }
(cd $d/t && git apply --check ../p.patch 2>/dev/null) && echo "git: forward applies" || echo "git: forward fails"
(cd $d/t && git apply --check -R ../p.patch 2>/dev/null) && echo "git: reverse applies (fix in)" || echo "git: reverse fails"
out=$("$B" verify --no-gpu "$d/p.patch" "$d/t" 2>&1); echo "$out"
echo "$out" | grep -q "fix: present" && { echo "BUG: fix reported present"; exit 1; }
exit 0
