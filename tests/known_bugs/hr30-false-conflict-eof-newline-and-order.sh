#!/bin/bash
# False `conflict` where git says applied or applicable (hostile review hr30, session 29).
# Exit 1 while any case reads conflict; 0 once none does.
# false-conflict-context-no-newline-eof: Patch's last CONTEXT line is marked '\ No newline at end of file'; the target is the unfixed file with a trailing newline added (editors do this). git apply --check succeeds (applicable) and git apply -R --check fails. Expected: applicable (presence absent), exit 1. Actual: conflict ('differs only in the newline at end of file'), exit 2; 'sm120check apply' refuses too.
# false-conflict-functions-reordered-fixed: Fix adds an SM120 branch to fwd() and decode() (2 hunks). Target: both fixes are in, exactly as the patch has them, but the file's functions are in another order (decode before fwd). git apply -R --check succeeds (applied), git apply --check fails. Expected: applied/present, exit 0. Actual: conflict (hunk 2 'out-of-hunk-order', presence unknown), exit 2.
# false-conflict-functions-reordered-unfixed: Same patch; target is the unfixed file with its functions reordered. git apply --check succeeds (applicable), -R fails. Expected: applicable, exit 1. Actual: conflict (hunk 2 removed-lines-present), exit 2.
B=${1:?binary}; B=$(readlink -f "$B")
W=$(mktemp -d); trap 'rm -rf "$W"' EXIT
bad=0
cat > "$W/check.py" <<'PY'
import json, sys
j = json.load(open(sys.argv[1]))
bad = any(p["status"] == "conflict" for p in j["patches"])
print("==", sys.argv[2] + ":", [p["status"] for p in j["patches"]], [p["presence"] for p in j["patches"]], "exit", j["exit_code"])
sys.exit(1 if bad else 0)
PY
check(){ c=$1; (cd "$W/$c" && "$B" verify --no-gpu --format json p.patch tree > out.json 2>/dev/null)
  python3 "$W/check.py" "$W/$c/out.json" "$c" || bad=1; }
base64 -d <<'B64' | tar -xz -C "$W"
H4sIAKEAEmsC/+2Xz27UMBDGc/ZTzBGU2vG/2JtKK+2RE+IBkFBIHGqUxCuvK5a3J7vZAt2y5VA1KnR+FzvjiXOIZz5/rGDF5kO9
f+fq1sXsWeAzl0bOlfo1P8QFl0JksM8W4HaX6jh9PnudSAtD8oNbC1sZpVarqmJaC6MlyZD/n67ud442Yex636TDJLl9omOgo/vW
+9FRF7piy7Z1am6eUP9G64v1r4XNRKm4VlYqOfUCyaVVGfAl6z+GkB7L+9v6P0rruw4o/eIT1MXAtt/h83EgfmzdHkojGsMlY65t
Za00iOOvJJTSUz7J8/zunc0GaHmlIS+vDEwPretgN7jhU+8Hn94M9dcQ314TOHAMwRqEMZWQc8x3cMyB9RqqU97vudPp0HpF8vNc
Ia/n4L2NuVDWzJtEl27jOC+Rj/A+wOl0Q53AjS2EDjrfu9fX89iL0H/9UP8l6v8i+r8613/FSs6FFXgBQP2/0/8UnSueVP+2LC/X
/zT/qf/CTPVvbTnVf4n6j/0f+z/2f+Ql9P/DFf9Z/J8w+n7/l3zyHej/lsAP2xATpBCbG0LII47tD4btgl87s2sPDBhWHYIgCIIg
CIIgCIIgCIIsww/2WUnIACgAAA==
B64
check false-conflict-context-no-newline-eof
base64 -d <<'B64' | tar -xz -C "$W"
H4sIAKEAEmsC/+2YS4/aMBDHc86nGHHaFSTESZzASkgce+y9qlZ52OCSBzJBTb99nQcLCwmP1RZtxfwuCTOxPX+IhxmbY3M8/x6U
31gQM6n9E6yGvqtlOfb+vrITyyaWBqV2B7abIpBqee0xsT1IC5GyGfGnnuNMie2aPqHWVNeQB4AHyYYZUZ7xRESFwbdZVIg82xiS
5VJlBBYbXJQsHq/NdVBEy4/uf891+/a/2u2+RqhjuY5vex7Vqt1PXQ2se+5/mefFuecu+f9TYsE5GMZCFBCMU3P9B8L6oossZiVM
OOWT0DbNCQ3tYEqA1D+lbhhG+7w+HA53Y+ZzMOjIgyEdTUB9iBkH/jt+SoNfuRxB+fyiQ8VgMFBmWDGZsQSSQL10SyZNZW78Cyli
mEEarNhrdf9aTVI+N86IL5SvemPFYucYVg7BoV4IZjMg9ktj3I/YLKXIVvUIZWgna9aujD+qhX4+lSPYeyUrtjKDUodamk0qbbaz
FxezKI9Zl77Gc4PEdqpOlXvfDULbQSdaG/sFuZgYHwTzS9R/zmn9R7D+u0v95x/Vf2Rqqj/hCbExB2D9d1D/FZKx8cf3v09p//5X
92/1H/VV/WdRR9V/FOs/zP+Y/zH/I18k/1dd3uf3/45LjvJ/bcL+/w6IdJ3LAopcRktd1/ub2ss97YWWtqej7Wpor+pnL7Wzb91s
oyo8PYdQgYdnjiFO9IT7U4h3Yg7sbVBh53nCUUS8MyJ+S0S8J6ID+1Xf7btDkbNnIkca1pJxkSQdOlrP9Vp2U3XpOfK1EbbW81Fi
ikcQBEEQBEEQBEEQ7S/MV3oFACgAAA==
B64
check false-conflict-functions-reordered-fixed
base64 -d <<'B64' | tar -xz -C "$W"
H4sIAKEAEmsC/+2YS4+bMBDHOfMpRjntKoGAwUBWipRjj71X1YqHnbjhETlEpd++JpAlTSCPVRu13fldcGaw/R8Fj2ZsTs3p4nNY
fWJhwqT2R7Aahp6W5bjduLbbFrGJBpX2AHbbMpRqe+1jQgLISpGxue3PPMeZ2YSa/oxQmzq6hvz38DDdMiMucp6KuDT4Lo9LUeRb
Q7JCqozAEmOXc1GxZLoxN2EZr953/j3XHTr/6rT7mvreLNfxied5mjr9LrE0sB55/mVRlJfeu+b/R0kE52AYS1FCOM3MzQ+I9g9d
5AmrIOCUBxExzYBGJJzZYO//St0wjPZ9fTweH+YsFmDQiQdjOglA/UgYB/49ecrCb4WcQPX8okPNaDRSZlgzmbMU0lB9dCsmTWVu
/EspEphDFq7Zaz1+rRepnhtnzJfKV3+xYnlwjGuH4LDfCOZzsMlLY+xmbFdS5Ov9DGVoF2v2ro1f6o2+PlUT6LySlTuZQ6XDPjRi
17ERpwsuYXGRsL74Gs8dIbZL9UbZ+e4ItJ10FmtjvxIuJsYPgon1H9Z/x/WfPTMdSqhvBZgEsP47rv9Kydj0veffp3T4/KvxW/1H
/br+s3xfA4r1H+Z/zP+Y/5G/Jv/Xfd7v7v9tn5zmf9/ysP9/BCLbFLKEspDxStf14ab2ek97paUd6Ghv6UzfGtNGYHR+paA0RBdu
FM6kRd2Fwi+6juytqKj3auBEEe9VxO9RxAcU8TNF/BZFG8m4SNMeVa3ndmWHpfrUnfhaha31skrMvQiCIAiCIAiCIAjyKH4Coc6X
iAAoAAA=
B64
check false-conflict-functions-reordered-unfixed
[ $bad = 1 ] && { echo "BUG: a case still reads wrong"; exit 1; }
exit 0
