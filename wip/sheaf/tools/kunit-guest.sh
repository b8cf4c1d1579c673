#!/bin/sh
# run memcg_obj_stock from a child memcg (as guest/check.sh does)
out=$(pwd)
[ "$(stat -f -c %T /sys/fs/cgroup 2>/dev/null)" = cgroup2fs ] || mount -t cgroup2 none /sys/fs/cgroup
echo +memory > /sys/fs/cgroup/cgroup.subtree_control
mountpoint -q /sys/kernel/debug || mount -t debugfs none /sys/kernel/debug
mkdir -p /sys/fs/cgroup/objstock-kunit
for suite in memcg_obj_stock; do
	sh -c "echo \$\$ > /sys/fs/cgroup/objstock-kunit/cgroup.procs &&
		echo 1 > /sys/kernel/debug/kunit/$suite/run"
	cat /sys/kernel/debug/kunit/$suite/results > "$out/$suite.ktap"
done
dmesg > "$out/dmesg.txt"
echo 0 > "$out/guest-rc"
