#!/bin/bash
# False `conflict` where the fix is in, a line appended after it (hostile recheck hr31, session 29):
# a hunk with context only between its changes (git diff -U1/-U3 of a small file), anchored at
# the end of the file since 7508f98 as git anchors it; git apply -R refuses too, but the fix
# stands verbatim at line 1 and the drift search should read it present (it read applied before).
# Exit 1 while any case reads other than applied; 0 once both do.
B=${1:?binary}; B=$(readlink -f "$B")
W=$(mktemp -d); trap 'rm -rf "$W"' EXIT
bad=0
base64 -d <<'B64' | tar -xz -C "$W"
H4sIAMAPEmsC/+2XvW6DMBSFPfMUHoko4F8IQyTGjn0D5MYmQS0/oq5E+/R1QquoaUmXlKjN/Rbb17YY4NzDieIozu/UcGuUNj36
FcjI1EgIF4f5rk4JowzhAc3A85NVvXs8uk7YEte2qs2KplnCBU8TGUnBM0q4h4B/j2rW27YvVNeZRhdlNRRVE3fKrrfn1X8ixKT+
WcoRlZwIQXjKEqd/SQhFmMyp/75t7alzP+3/UXRVljgMN5XFKi6j7gXf7wevarQZcGaILrWOIsU4UZphun+VXhiG7+e9IAg+7uQ5
DukNwwG94TjPvRA7hsJYhVe4aq3yhVh4wVjdrV35wX16ys/4wsNjfV9wG6/umi+Xx+c3qq6VnyQLaE/nIAL/B///4v9L6pYgsGv1
f9sbE59X/6mU0/p388/+L1IqEJbg/9D/of9D/wcu0P93f/Tz5D/q9H+U/ySF/DcLJ7LYN1FsIomNZW0eD0FPMghoAAAAAAAAAAAA
AAAAAHBp3gCnj3tYACgAAA==
B64
s=$(cd "$W/anchor_append_fix_in" && "$B" verify --no-gpu --format json patch tree | python3 -c 'import json,sys; print(json.load(sys.stdin)["patches"][0]["status"])')
echo "== anchor_append_fix_in: $s"; [ "$s" = applied ] || bad=1
base64 -d <<'B64' | tar -xz -C "$W"
H4sIAMAPEmsC/+2XTU+DQBCGOfMr5tiG8rFfbHtowtGT8QeYkG1ZLLEFgmtEf71LsTG2opeK0c4Twm5eZjMHeGeYIAzC5Ea1V1pl
unF+hKhnaI0ixt/3nU4iSqgDrTMCjw9GNTa9c5nQOexMsdNLIhcx40zGIhBivphz5jrIv0eV603VpKqudZmledGmRZnSsFZmvTmn
/2POB/3PhHCIYBHnEZM0tv4XlDIHojH931SV+Sruu+d/lKzIc/D9u8KACvOgfobVfnGLMtMtZLlaS8mCIFusMz5fAdm/Stf3/bd4
1/O8w5kkAZ/MKHhkxiFJXA8sbaqNgiXY+0TKqQu9eG8/uU5edTqjU9fv9VUfbTadvrDxt3BdQamftkWpQRmw3ylUOeTFVh8SnJz5
kDjTWysTmwLtfkKA/R/7/3H/jxmzF9rlcvu/abQOz+l/aXv8oP/t/qj/EyYcENj/sf5j/cf6j/xK/e/+6ceY/4iIj+u/ZDHOf2Mw
NKF9MqANzFqfj1q9+tLLaltv1AQHMARBEARBEARBEARBEAQZmVe+pRxpACgAAA==
B64
s=$(cd "$W/anchor_append_fix_in_2" && "$B" verify --no-gpu --format json patch tree | python3 -c 'import json,sys; print(json.load(sys.stdin)["patches"][0]["status"])')
echo "== anchor_append_fix_in_2: $s"; [ "$s" = applied ] || bad=1
[ $bad = 1 ] && { echo "BUG: a fix with a line appended reads other than applied"; exit 1; }
exit 0
