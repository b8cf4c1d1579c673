#!/bin/sh
# kprof guest: for each workload 4 windows: warm-up root, warm-up memcg, root, memcg
C=/work/cache/tools/churn
mount | grep -q ' /sys/kernel/debug ' || mount -t debugfs none /sys/kernel/debug
echo +memory > /sys/fs/cgroup/cgroup.subtree_control
mkdir -p /sys/fs/cgroup/kp /run/kp-tmp
mount -t tmpfs -o size=64m kp-tmp /run/kp-tmp
for w in "run -- taskset -c 0 hackbench -P -g 4 -f 10 -l 200 -s 100" \
	 "run -- taskset -c 0 hackbench -T -g 4 -f 10 -l 200 -s 100" \
	 "-p 16 pipe 1 32000" \
	 "-s xattr 256 8000 /run/kp-tmp" \
	 "slab 32 64 1024 single" \
	 "slab 32 64 1024"; do
	for pass in warm meas; do
		for cg in "" /sys/fs/cgroup/kp; do
			echo "$pass cg=${cg:-root} $w" >> windows.txt
			$C -c "$cg" $w >> churn.out 2>&1
		done
	done
done
echo 0 > guest-rc
