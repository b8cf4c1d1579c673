#!/bin/sh
C=/work/cache/tools/churn
mount | grep -q ' /sys/kernel/debug ' || mount -t debugfs none /sys/kernel/debug
echo +memory > /sys/fs/cgroup/cgroup.subtree_control
mkdir -p /sys/fs/cgroup/kp
for i in 1 2 3 4 5 6 7 8 9 10; do
  for cg in /sys/fs/cgroup/kp ""; do
    echo "$i cg=${cg:-root}" >> windows.txt
    $C -c "$cg" -w /sys/fs/cgroup/kp -p 16 -s -d mmap 10000 >> churn.out 2>&1
  done
done
echo 0 > guest-rc
