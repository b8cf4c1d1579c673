#!/bin/sh
# kprof guest: pipe-64 churn with M memcgs (M workers) on this guest's CPUs; window 1 memcg, window 2 root
churn=$1 m=$2 out=$3
mount -t cgroup2 none /sys/fs/cgroup 2>/dev/null
echo +memory > /sys/fs/cgroup/cgroup.subtree_control
mountpoint -q /sys/kernel/debug || mount -t debugfs none /sys/kernel/debug
top=/sys/fs/cgroup/kp; mkdir -p $top; echo +memory > $top/cgroup.subtree_control
d= j=0; while [ $j -lt $m ]; do mkdir -p $top/m$j; d=$d${d:+,}$top/m$j; j=$((j+1)); done
w=$m; [ $(nproc) -gt $w ] && w=$(nproc)
$churn -c "$d" -g $w -s -y pipe 64 1000 > $out/churn.memcg 2>&1
$churn -c "" -g $w -s -y pipe 64 1000 > $out/churn.root 2>&1
echo 0 > $out/guest-rc
