#!/bin/bash
# git apply reads work-tree files through all of git's input conversions, not only CRLF:
#  (a) `working-tree-encoding=UTF-16LE`: git apply --check: applicable (and -R: applied after it);
#      sm120check: conflict in both states.
#  (b) `ident`: a context line `$Id$` is `$Id: <sha> $` on disk; git apply --check: applicable;
#      sm120check: conflict ("nearest ... differs").
B=${1:?binary}; B=$(readlink -f "$B")
W=$(mktemp -d); trap 'rm -rf "$W"' EXIT; cd "$W"
bad=0
# (a)
git init -q a; cd a; git config user.email a@b; git config user.name a
printf '*.py text working-tree-encoding=UTF-16LE eol=lf\n' > .gitattributes
python3 -c '
open("f.py","wb").write("".join(f"line {i} of the file = {i*7}\n" for i in range(1,31)).encode("utf-16le"))'
git add -A; git commit -qm base
python3 -c '
d=open("f.py","rb").read().decode("utf-16le").replace("line 16 of the file = 112","line 16 CHANGED for sm120"); open("f.py","wb").write(d.encode("utf-16le"))'
git diff > ../a.diff; git checkout -q -- .
git apply --check ../a.diff || { echo setup-a; exit 2; }
s=$("$B" verify --no-gpu ../a.diff . | grep '^patch' | awk '{print $NF}'); echo "(a) UTF-16 work tree, unpatched: git applicable, sm120check $s"; [ "$s" = "[applicable]" ] || bad=1
git apply ../a.diff
s=$("$B" verify --no-gpu ../a.diff . | grep '^patch' | awk '{print $NF}'); echo "(a) after git apply: git applied, sm120check $s"; [ "$s" = "[applied]" ] || bad=1
cd ..
# (b)
git init -q b; cd b; git config user.email a@b; git config user.name a
printf '*.py ident\n' > .gitattributes
for i in $(seq 1 30); do if [ $i = 14 ]; then echo '# $Id$'; else echo "line $i = $((i*7))"; fi; done > f.py
git add -A; git commit -qm base; rm f.py; git checkout -- f.py
sed -i 's/^line 16 = 112$/line 16 = SM120/' f.py; git diff > ../b.diff; git checkout -q -- .
grep -q '^ # \$Id\$' ../b.diff && git apply --check ../b.diff || { echo setup-b; exit 2; }
s=$("$B" verify --no-gpu ../b.diff . | grep '^patch' | awk '{print $NF}'); echo "(b) ident, unpatched: git applicable, sm120check $s"; [ "$s" = "[applicable]" ] || bad=1
exit $bad
