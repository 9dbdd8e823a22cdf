#!/bin/bash
# False fix: present. C++ struct methods: the hunk's method first() was edited since (its changed line now reads
# saturate(acc, 255), context 5 of 6 around it), the sibling method second() holds a copy of the added line
# with 3 of 6 context lines. The tool takes the sibling's copy as the drifted change. git: both directions fail.
B=${1:?binary}; d=$(mktemp -d); trap 'rm -rf "$d"' EXIT
mkdir -p $d/a $d/t
cat > $d/a/f.cpp <<'X'
struct Runner {
  float first(const float* x, int n) {
    float acc = load_first(x);
    this->counter += 1;
    this->log_step(n);
    acc += reduce_rest(x, n);
    acc = clamp_range(acc, 255);
    return acc;
  }

  float second(const float* x, int n) {
    float acc = load_first(x);
    acc += reduce_rest(x, n);
    acc = clamp_range(acc, 127);
    return acc;
  }
};
X
cat > $d/p.patch <<'X'
diff --git a/f.cpp b/f.cpp
index c075fde..423a22c 100644
--- a/f.cpp
+++ b/f.cpp
@@ -4,7 +4,7 @@ struct Runner {
     this->counter += 1;
     this->log_step(n);
     acc += reduce_rest(x, n);
-    acc = clamp_range(acc, 255);
+    acc = clamp_range(acc, 127);
     return acc;
   }
 
X
cat > $d/t/f.cpp <<'X'
struct Runner {
  float first(const float* x, int n) {
    float acc = load_first_v2(x);
    this->counter += 1;
    this->log_step(n);
    acc += reduce_rest(x, n, 2);
    acc = saturate(acc, 255);
    return acc;
  }

  float second(const float* x, int n) {
    float acc = load_first(x);
    acc += reduce_rest(x, n);
    acc = clamp_range(acc, 127);
    return acc;
  }
};
X
(cd $d/a && git apply --check ../p.patch) || { echo "patch does not apply to its own base"; exit 2; }
(cd $d/t && git apply --check ../p.patch 2>/dev/null) && echo "git: forward applies" || echo "git: forward fails"
(cd $d/t && git apply --check -R ../p.patch 2>/dev/null) && echo "git: reverse applies (fix in)" || echo "git: reverse fails"
out=$("$B" verify --no-gpu "$d/p.patch" "$d/t" 2>&1); echo "$out"
echo "$out" | grep -q "fix: present" && { echo "BUG: fix reported present"; exit 1; }
exit 0
