#!/bin/bash
# False absent where an edited fix stands (hostile review hr28, F2 and F3; session 27).
# F2: a pure insertion whose one informative line was edited since (`major == 12` ->
#     `major >= 12`, a guard given `and x`, `synchronize()` -> `synchronize(device)`) reads
#     absent/not-found ("its added lines are nowhere"); the replacement form of the same edit
#     reads unknown/edited-since. Insertions never reach the edited-since rule.
# F3: two classes with an identical method; the fix's method became `async def` since: the
#     hunk reads applicable at the other class's method (apply would add the fix there).
# git: neither direction applies for F2; for F3 git applies forward at the other class too.
# Exit 1 while any case reads absent or applicable, 0 when all read unknown or present.
B=${1:?binary}; B=$(readlink -f "$B")
W=$(mktemp -d); trap 'rm -rf "$W"' EXIT
bad=0
mk(){ name=$1 f=$2; d=$W/$name; mkdir -p $d/gen $d/tree; python3 - > $d/parts
  python3 -c "import sys;p=open('$d/parts').read().split('\0');open('$d/old','w').write(p[0]);open('$d/new','w').write(p[1]);open('$d/tree/$f','w').write(p[2])"
  (cd $d/gen && git init -q && git config user.email a@b && git config user.name a && cp ../old $f && git add -A && git commit -qm o && cp ../new $f && git commit -qam fix && git format-patch -q -1 -o .. HEAD)
  out=$(cd $d/tree && "$B" verify --no-gpu --no-repo ../0001-*.patch . 2>&1)
  echo "== $name: $(echo "$out" | grep 'fix:')"
  echo "$out" | grep -qE "fix: (absent|partial)|applicable at" && bad=1
}
mk f2_cuda smem.cu <<'PY'
b="int pick_smem(int major, int minor) {\n  int a = query_a(major);\n  int b = query_b(minor);\n  int c = query_c(a, b);\n  int smem = 232448;\n  int d = query_d(c);\n  int e = query_e(d);\n  return smem;\n}\n"
n=b.replace("  int smem = 232448;\n","  int smem = 232448;\n  if (major == 12) return 101376;\n")
print(b+"\0"+n+"\0"+n.replace("major == 12","major >= 12"),end="")
PY
mk f2_py_guard mod.py <<'PY'
b="def configure(self, major, x):\n    a = compute_a(x)\n    b = compute_b(x)\n    c = compute_c(x)\n    if self.enabled:\n        num_stages = 4\n    d = compute_d(x)\n    return num_stages\n"
n=b.replace("    if self.enabled:\n","    if major == 12:\n        return None\n    if self.enabled:\n")
print(b+"\0"+n+"\0"+n.replace("if major == 12:","if major == 12 and x:"),end="")
PY
mk f2_py_call mod.py <<'PY'
b="def configure(self, major, x):\n    a = compute_a(x)\n    b = compute_b(x)\n    c = compute_c(x)\n    if self.enabled:\n        num_stages = 4\n    d = compute_d(x)\n    return num_stages\n"
n=b.replace("    if self.enabled:\n","    torch.cuda.synchronize()\n    if self.enabled:\n")
print(b+"\0"+n+"\0"+n.replace("synchronize()","synchronize(device)"),end="")
PY
# F3: method made `async def` since the fix; an identical method in another class -> applicable at the other class
mk f3_async attn.py <<'PY'
c="class {n}(AttentionBackend):\n    supported_dtypes = [\n        torch.float16,\n        torch.bfloat16,\n    ]\n\n    def init_forward_metadata(self, forward_batch):\n        bs = forward_batch.batch_size\n        kv_indptr = self.kv_indptr\n        kv_indices = self.kv_indices\n\n\n"
b="import torch\n\n\n"+c.format(n="TritonAttnBackend")+c.format(n="TritonDraftBackend")
d="    def init_forward_metadata(self, forward_batch):\n"; fx="        if torch.cuda.get_device_capability()[0] == 12:\n            self.num_kv_splits = 4\n"
n=b.replace(d,d+fx,1)
print(b+"\0"+n+"\0"+n.replace(d+fx,"    async def init_forward_metadata(self, forward_batch):\n"+fx,1),end="")
PY
[ $bad = 1 ] && { echo "BUG: an edited fix reads absent or applicable"; exit 1; }
exit 0
