#!/bin/bash
# False `present`, exit 0, where the fix is not in (hostile review hr30, session 29).
# Exit 1 while any case reads present or exits 0; 0 once none does.
# fuzz-false-present-1-of-6-context: Fuzz seed 3 case 20. Fix replaces 'break' (after 'return None') with 'if major == 9: num_warps = 1'. Target: the block stands several lines above its place, before 'num_warps = 4' which overrides it; only 1 of 6 context lines agree. Expected: not present. Actual: applied/present.
# fuzz-false-present-wrong-nesting: Fuzz seed 3 case 148 (fuzz.py 3 2500). Fix replaces 'y = 1' (right after the docstring of kernel_0) with 'if major == 9: grid = 16'. Target: 'y = 1' still stands right after the docstring; the new block stands 3 lines lower, between 'if smem > 128:' and its body (changing what the if guards). Tool: applied/present, drift context 3 of 10. Expected: not present (unknown or absent).
B=${1:?binary}; B=$(readlink -f "$B")
W=$(mktemp -d); trap 'rm -rf "$W"' EXIT
bad=0
cat > "$W/check.py" <<'PY'
import json, sys
j = json.load(open(sys.argv[1]))
bad = j["exit_code"] == 0 or any(p["presence"] == "present" for p in j["patches"])
print("==", sys.argv[2] + ":", [p["status"] for p in j["patches"]], [p["presence"] for p in j["patches"]], "exit", j["exit_code"])
sys.exit(1 if bad else 0)
PY
check(){ c=$1; (cd "$W/$c" && "$B" verify --no-gpu --format json p.patch tree > out.json 2>/dev/null)
  python3 "$W/check.py" "$W/$c/out.json" "$c" || bad=1; }
base64 -d <<'B64' | tar -xz -C "$W"
H4sIAKEAEmsC/+2XW2/aMBTH8+xPYXUvVJAQ27lRiQltL5O2dXufJhQSh7olFxmng3762Uko6YVNXVV2O38hkvhy7PhwzuHnjJ3x
7HO8ecfjlEvrReS2OnR1Xebt7007cSmhFt5YR1C9VrHUy1v/p2iEcyVyPiXhJGAsihh1osgPgzBEFuifV1bf3NhZvFpzu5J8zQtl
E7vM7MBOykLxjRpXThWr5OKZ8R943sH4931iEZ+5HgsppUTHv776FnaPGf+yLNWPxv2s/y9VKrIM2/ZSKByPc6fa4kVzQaJI+QZP
QpawKHScSea5xKeYNK5Etm1349FwONzNmc2wTcNRiIf6O8L6MeUZXnNVV3MyyOPLUo7wUor09Axho6LO5/r8l3yNpzgXxUD/6DKx
/HLy5sOnt+/n5ydfR5j6wWk7+kGnnqRKmVw4PK/UdlDWaoQDrxst9bKywOdlwZFtGhaSx1doaG5Fhpvd4OkUT87att1+vsWyMtsh
v7LonRfqLHAdXGd/ajJ1oP5D/e/Vf/1xPM9jjFCo/1D/df1XkvPxs+M/9P3D8a/vu/pPqEd1/Aehq+u/D/Uf8j/k/9+R/6MgYpD/
If/v8r/5e/9S/EcY8+/l/9AnwH9HkcirUqqWaNDuQQpVFkjL4NsVlwVfzd1H+K2PWB1WaRzCrzHp+E6r4SYNQ6u4LpKLFpcIjVpe
2nUmZV7Vig/WOc9HmNG29xVWdcGx7zZPZl3DXs3mnCQV14Nmes+cmd6zttVdHTt2O73lO/1us87SpVDoMKaihwz4sWHAPN4M9rTX
w9Rth7Kb/eq71zRz2gPoOsxp3R7Ntmdkf5I02p/lHbqM0CMkexhk+y0eejLZ3nd1C9NPNnOXj42LeSoUT9EelHuOXHI1T/m1SPg8
iat4IVZCGzSe6Tn9vmt7RiG9g0AgEAgEAoFAIBAIBAJZ3wFwyQfsACgAAA==
B64
check fuzz-false-present-1-of-6-context
base64 -d <<'B64' | tar -xz -C "$W"
H4sIAKEAEmsC/+1YS4/bNhD2Wb+CcC5e2JLFNxVgi0V7KdA07b0IDK1Ee5muHqDpxM6vLynJlbS2EqTpLpCW32HF1cxwHhRnPBOt
o/Xd7+nxZ5nmUs+eBXGLqWccY9yv3XsYIwhn4Dh7ARz2JtVW/ez/CcRBYVQhbyFPGMZCYBgJimOOg5nHfx/bw6dP4TZ93Muw1nIv
SxN+1FW5C0u5N6rcreuoTk328K33nxEyef8Z5TNovzmCOULI3X9OCJ2B+CXvv64q8zm+L9G/U+RquwVhuFMGpOsiqk/gvnkEqszl
EaQ4l+yeRFGaQCyyLYDNUQZhGHb8wXK5PMvc3YGQriAES/sXAfuvKupKG2C0MlUZgADctcvovTIByOUW/Cl1KR838aJI31d6BfaF
LG5eB8BhPp+/SQ9l9gCUif5+FYRucQK3AAZLt1Rb0AiD21uQvG7fOey0yh0Xa0Wzqtyq3R/zH9/89tMvm1/n7yxtJ80mlx9UJjdZ
Wqf36lGZ0+K0skI3rZTd3JkEfgAQic4uh+bl1AZO8wpg1O3RaLTMne9Zrj4sxta8nb9bOQWdgJbmoMtLi//9nBz5+u/r/6D+Y0Ii
ZJ+c+Prv67+t/0ZLuf72+88pnb7/dt3Vf4hoU/8hZDNAff1/dvj87/O/z/8+/38+/7tf98/W/yHOLvI/x9D3fy+Bc4NW6ewheNKt
Wcij0emGQIaT5EkDg7oOqWVhjCXigiXmQx6OCBXU8jw2Td0CYzokI4xijCZ7KsTgSKHdnMSWu0iPCwFHNBxjjrCjqXKRwHhIg1YJ
59NaOBlxE6tmYHKCx14TwWDSKSIiGdIIp1gIS8uqoj4YuUjEyF2WUMxQvzUlIzJnCWrEr9sp6MgrBq1TcWeIzd7juLKYnSPFnjgA
BW1iPjw22+OP5Lk9WdjtzcZHiimGRAycoHhIFoRyjHsyFyOyjSYl0ydO0YjbhiNhbJIbipHVIsGEss5rK3oTWAymDwC8AjJXRubB
F8YQl1MIN4ToZxD/eLZwZbTwZJQxMcn4uvHD104fJocPo/g1UWuPdQPPUXOKu6i1u1wJztsmOO5bumZEF5rj4N5cGNK79grsH1It
c2CjUekTYG2AykOx+Zjqeu9ihsTkCXVf5eBInKQtCDu5v2rjSPlQS5M/I1nUNvpXRFiXVKqD6dW6I+xJ1+w7R6B51yseBqc3uN3K
4mUHSB4eHh4eHh4eHh4eHh7fBf4CVVhpqgAoAAA=
B64
check fuzz-false-present-wrong-nesting
[ $bad = 1 ] && { echo "BUG: a case still reads wrong"; exit 1; }
exit 0
