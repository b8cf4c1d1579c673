#!/bin/sh
# hackbench -s 100 pinned to CPU 0 (the bench's hackbench-pin rows), between mark's markers:
# warm-up root, warm-up memcg, root, memcg (windows 1-4), processes then threads (5-8)
M=/work/scratch/kprof/mark
echo +memory > /sys/fs/cgroup/cgroup.subtree_control
mkdir -p /sys/fs/cgroup/kp
for mode in -P -T; do
	for pass in warm meas; do
		for cg in root kp; do
			echo "$pass cg=$cg hackbench $mode" >> windows.txt
			if [ $cg = root ]; then
				sh -c "echo \$\$ > /sys/fs/cgroup/cgroup.procs; exec $M taskset -c 0 hackbench $mode -g 4 -f 10 -l 200 -s 100" >> hb.out 2>&1
			else
				sh -c "echo \$\$ > /sys/fs/cgroup/kp/cgroup.procs; exec $M taskset -c 0 hackbench $mode -g 4 -f 10 -l 200 -s 100" >> hb.out 2>&1
			fi
		done
	done
done
echo 0 > guest-rc
