#!/bin/bash
# core.autocrlf=true work tree. p1.diff is an ordinary LF patch, applied (git apply -R --check ok).
# p2.diff (a later patch of the same file, its lines CRLF as a Windows mail client leaves them)
# applies on top (git apply --check ok). `verify p1.diff .` says applied, but
# `verify p1.diff p2.diff .` and even `verify --independent p1.diff p2.diff .` say p1 is a
# conflict ("line-ending-mismatch"): the CRLF patch changes how the file is read for the other.
# apply of the series from the base refuses (exit 2) though git applies both.
B=${1:?binary}; B=$(readlink -f "$B")
W=$(mktemp -d); trap 'rm -rf "$W"' EXIT; cd "$W"
git init -q r; cd r; git config user.email a@b; git config user.name a; git config core.autocrlf true
for i in $(seq 1 30); do echo "line $i = $((i*7))"; done > f.py
git add .; git commit -qm base 2>/dev/null; rm f.py; git checkout -- .
sed -i 's/^line 10 = 70\r$/line 10 = SEVENTY\r/' f.py; git diff > ../p1.diff; git commit -qam p1 2>/dev/null
sed -i 's/^line 12 = 84\r$/line 12 = EIGHTYFOUR\r/' f.py; git diff > ../p2.diff; git reset -q --hard HEAD
cd ..; python3 -c '
d=open("p2.diff","rb").read().replace(b"\r\n",b"\n").replace(b"\n",b"\r\n"); open("p2.diff","wb").write(d)'
git -C r apply -R --check ../p1.diff && git -C r apply --check ../p2.diff || { echo setup; exit 2; }
alone=$("$B" verify --no-gpu p1.diff r | grep '^patch' | awk '{print $NF}')
ser=$("$B" verify --no-gpu p1.diff p2.diff r | grep '^patch' | awk '{print $NF}' | tr '\n' ' ')
ind=$("$B" verify --no-gpu --independent p1.diff p2.diff r | grep '^patch' | awk '{print $NF}' | tr '\n' ' ')
echo "git: p1 applied, p2 applicable"
echo "verify p1 alone: $alone; series p1 p2: $ser; --independent p1 p2: $ind"
case "$ser$ind" in *conflict*) exit 1;; esac; exit 0
