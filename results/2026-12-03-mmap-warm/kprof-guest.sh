#!/bin/sh
# kprof guest: 10 pairs of windows of the bench's mmap row, memcg then root;
# "kprof-guest.sh -w": every window warms up in the memcg (churn -w)
C=/work/cache/tools/churn
W=; [ "${1:-}" = -w ] && W="-w /sys/fs/cgroup/kp"
mount | grep -q ' /sys/kernel/debug ' || mount -t debugfs none /sys/kernel/debug
echo +memory > /sys/fs/cgroup/cgroup.subtree_control
mkdir -p /sys/fs/cgroup/kp
for i in 1 2 3 4 5 6 7 8 9 10; do
  for cg in /sys/fs/cgroup/kp ""; do
    echo "$i cg=${cg:-root}" >> windows.txt
    # shellcheck disable=SC2086
    $C -c "$cg" $W -p 16 -s -d mmap 10000 >> churn.out 2>&1
  done
done
echo 0 > guest-rc
