#!/bin/sh
# mutant demo (guest): the boot-time run is in the console; rerun the suite 3 times from a memcg
mount | grep -q ' /sys/kernel/debug ' || mount -t debugfs none /sys/kernel/debug
mkdir -p /sys/fs/cgroup/objstock-kunit
for i in 1 2 3; do
	sh -c "echo \$\$ > /sys/fs/cgroup/objstock-kunit/cgroup.procs && echo 1 > /sys/kernel/debug/kunit/memcg_obj_stock/run"
	cat /sys/kernel/debug/kunit/memcg_obj_stock/results > memcg-run$i.ktap
done
echo 0 > guest-rc
