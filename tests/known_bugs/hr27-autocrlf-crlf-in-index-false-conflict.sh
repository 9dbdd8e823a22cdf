#!/bin/bash
# False conflict / not-present: repository whose committed blob already has CRLF, core.autocrlf=true,
# LF patch. git apply converts the work-tree file (apply.c reads it with convert_to_git(NULL,...),
# no has_crlf_in_index check) and applies/reverse-applies cleanly; sm120check reports
# "differs only in line endings" conflict both before and after the fix is applied.
B=${1:?binary}; d=$(mktemp -d); trap 'rm -rf "$d"' EXIT
cd $d && git init -q r && cd r
printf 'def launch(q, k_buffer):\n    block_size = choose_block(q)\n    num_stages = compute_stages(k_buffer)\n    num_warps = pick_warps(block_size)\n    return run_kernel(q, k_buffer, num_stages, num_warps)\n' > f.py
git add . && git -c user.name=x -c user.email=x@x commit -qm a
sed -i 's/compute_stages(k_buffer)/compute_stages(k_buffer, max_stages=1)/' f.py
git diff > ../p.patch && git checkout -q f.py
sed -i 's/$/\r/' f.py && git add f.py && git -c user.name=x -c user.email=x@x commit -qm crlf
git config core.autocrlf true
bug=0
echo "== before applying"
git apply --check ../p.patch && echo "git: forward applies"
out=$("$B" verify --no-gpu ../p.patch . 2>&1); echo "$out" | grep -E "fix:|hunk"
echo "$out" | grep -q "applicable" || bug=1
git apply ../p.patch || exit 2
echo "== after git apply (file is CRLF, fix in)"
git apply --check -R ../p.patch && echo "git: reverse applies (fix in)"
out=$("$B" verify --no-gpu ../p.patch . 2>&1); echo "$out" | grep -E "fix:|hunk"
echo "$out" | grep -q "fix: present" || bug=1
[ $bug = 1 ] && { echo "BUG: sm120check disagrees with git apply"; exit 1; }
exit 0
