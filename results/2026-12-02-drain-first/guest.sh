#!/bin/sh
# base kernel: pipe-128 and slab-bulk1-64 windows, memcg then root, as bench.sh runs them
churn=$1 out=$2
mount -t cgroup2 none /sys/fs/cgroup 2>/dev/null
echo +memory > /sys/fs/cgroup/cgroup.subtree_control
mountpoint -q /sys/kernel/debug || mount -t debugfs none /sys/kernel/debug
mkdir -p /sys/fs/cgroup/objstock-bench
for i in 1 2; do
$churn -c /sys/fs/cgroup/objstock-bench -p 16 -s -d pipe 128 20000 >> $out/churn.log 2>&1
$churn -c "" -p 16 -s -d pipe 128 20000 >> $out/churn.log 2>&1
$churn -c /sys/fs/cgroup/objstock-bench -p 16 -s -d slab 1 64 32768 >> $out/churn.log 2>&1
$churn -c "" -p 16 -s -d slab 1 64 32768 >> $out/churn.log 2>&1
done
echo 0 > $out/guest-rc
