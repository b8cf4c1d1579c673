#!/bin/sh
# re-run memcg_obj_stock N times; record per-run failing cases
out=$(dirname "$0")
n=${N:-20}
mount -t debugfs none /sys/kernel/debug 2>/dev/null
: > "$out/runs.txt"
i=1
while [ $i -le $n ]; do
	echo 1 > /sys/kernel/debug/kunit/memcg_obj_stock/run
	r=/sys/kernel/debug/kunit/memcg_obj_stock/results
	ok=$(grep -cE "^[[:space:]]*ok [0-9]+ test_" $r)
	bad=$(grep -E "^[[:space:]]*not ok [0-9]+ test_" $r | sed 's/.*not ok [0-9]* //' | tr '\n' ' ')
	echo "run $i: ok $ok; not ok: $bad" >> "$out/runs.txt"
	grep -B3 "not ok" $r | grep -i "expected\|==\|FAILED" >> "$out/fails.txt"
	i=$((i+1))
done
# the boot-time run too
dmesg | grep -E "ok [0-9]+ test_slab_refs$" >> "$out/runs.txt"
echo 0 > "$out/guest-rc"
