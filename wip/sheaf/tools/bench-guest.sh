#!/bin/sh
# guest side of the sheaf A/B: each workload in the root cgroup and in a
# child memcg, under churn (its markers open/close the kinsn windows).
#   bench-guest.sh CHURN WORKLOADS_FILE
set -u
out=$(pwd)
churn=$1 wl=$2
finish() { dmesg > "$out/dmesg.txt" 2>/dev/null; echo "$1" > "$out/guest-rc"; exit "$1"; }
[ "$(stat -f -c %T /sys/fs/cgroup 2>/dev/null)" = cgroup2fs ] ||
	mount -t cgroup2 none /sys/fs/cgroup || finish 2
echo +memory > /sys/fs/cgroup/cgroup.subtree_control || finish 2
mountpoint -q /sys/kernel/debug || mount -t debugfs none /sys/kernel/debug
mkdir -p /sys/fs/cgroup/objstock-bench
export PATH=/usr/sbin:/usr/bin:/sbin:/bin
: > manifest; : > churn.out
win=0
while read -r name args; do
	case $name in ''|'#'*) continue ;; esac
	for cg in root memcg; do
		dir=; [ $cg = memcg ] && dir=/sys/fs/cgroup/objstock-bench
		win=$((win + 1))
		echo "$win $name $cg" >> manifest
		# shellcheck disable=SC2086
		if ! res=$(eval "\"$churn\" -c \"$dir\" $args" 2> "churn.err.$win"); then
			echo "workload $name failed" > /dev/kmsg
			finish 3
		fi
		echo "$win $res" >> churn.out
	done
done < "$wl"
finish 0
