#!/bin/sh
# experiment: the cost of -s (settle) and -p (phases) in root, windows in order
out=$(pwd); churn=$1
mount -t cgroup2 none /sys/fs/cgroup 2>/dev/null
echo +memory > /sys/fs/cgroup/cgroup.subtree_control
mkdir -p /sys/fs/cgroup/x
mountpoint -q /sys/kernel/debug || mount -t debugfs none /sys/kernel/debug
: > labels
for rep in 1 2 3; do
  for cg in "" /sys/fs/cgroup/x; do
    for opts in "" "-s" "-p 16" "-s -p 16"; do
      for w in "pipe 16 20000" "slab 8 256 4096"; do
        echo "$rep cg=${cg:-root} opts=[$opts] $w" >> labels
        $churn -c "$cg" $opts $w >> churn.out 2>&1
      done
    done
  done
done
echo 0 > guest-rc
