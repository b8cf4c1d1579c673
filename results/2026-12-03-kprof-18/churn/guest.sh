#!/bin/sh
C=/work/cache/tools/churn
echo +memory > /sys/fs/cgroup/cgroup.subtree_control
mkdir -p /sys/fs/cgroup/kp /run/kp-tmp
mount -t tmpfs -o size=64m kp-tmp /run/kp-tmp
for w in "-p 16 pipe 1 32000" "-s xattr 256 8000 /run/kp-tmp" "slab 32 64 1024 single" "slab 32 64 1024" "slab 8 256 4096"; do
	for pass in warm meas; do
		for cg in "" /sys/fs/cgroup/kp; do
			echo "$pass cg=${cg:-root} $w" >> windows.txt
			$C -c "$cg" $w >> churn.out 2>&1
		done
	done
done
echo 0 > guest-rc
