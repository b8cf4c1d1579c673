#!/bin/sh
# scale (guest side): the scaling matrix of `make scale` for this boot's vCPU
# count: for each memcg count M and each workload of bench/scale, one window
# with every worker in the root cgroup and one with the workers spread over
# M memcgs.  W = max(vCPUs, M) workers (churn -g); loop workers are pinned
# to CPU i % vCPUs and join memcg i % M, so that with M >= 8 memcgs per CPU
# the stock's 5 obj_stock and 7 memcg_stock slots are shared and evicted.
# cwd = the run dir shared with the host.
#   scale.sh CHURN SCALE_FILE EVENTS "M..." NAMES...
# Writes manifest ("window name cgroup pass cpus memcgs workers"), churn.out,
# drift.txt (after each memcg window: "window name cpus memcgs before after
# leaf_max_before leaf_max_after" in bytes, memory.current of the memcgs'
# parent and of the largest leaf before and after every CPU drained its
# stocks) and, with EVENTS=1, a kprobe-event pass (events.txt).
set -u
out=$(pwd)
churn=$1 wl=$2 events=$3 memcgs=$4; shift 4
note() { echo "objstock-scale: $*" > /dev/kmsg; }
finish() { dmesg > "$out/dmesg.txt" 2>/dev/null; echo "$1" > "$out/guest-rc"; exit "$1"; }

[ "$(stat -f -c %T /sys/fs/cgroup 2>/dev/null)" = cgroup2fs ] ||
	mount -t cgroup2 none /sys/fs/cgroup || finish 2
echo +memory > /sys/fs/cgroup/cgroup.subtree_control || finish 2
mountpoint -q /sys/kernel/debug || mount -t debugfs none /sys/kernel/debug || finish 2
mkdir -p /run/objstock-tmp
mount -t tmpfs -o size=512m objstock-tmp /run/objstock-tmp || finish 2
export PATH=/usr/sbin:/usr/bin:/sbin:/bin
cpus=$(nproc)
top=/sys/fs/cgroup/objstock-scale
mkdir -p $top || finish 2
echo +memory > $top/cgroup.subtree_control || finish 2

# the M memcgs of one column, comma-separated (the order churn -c spreads
# workers over)
dirs() {
	d= j=0
	while [ $j -lt "$1" ]; do
		mkdir -p "$top/m$1-$j" || finish 2
		d=$d${d:+,}$top/m$1-$j
		j=$((j + 1))
	done
	echo "$d"
}
current() { cat "$1/memory.current"; }
leaf_max() {
	m=0
	for l in $(echo "$1" | tr , ' '); do
		c=$(cat "$l/memory.current")
		[ "$c" -gt "$m" ] && m=$c
	done
	echo $m
}

: > manifest; : > churn.out; : > drift.txt
win=0
run_pass() {
	pass=$1
	shift
	for m in $memcgs; do
		md=$(dirs "$m")
		w=$cpus; [ "$m" -gt "$w" ] && w=$m
		for name in "$@"; do
			args=$(awk -v n="$name" '$1 == n { $1 = $2 = ""; sub(/^ +/, ""); print }' "$wl")
			for cg in memcg root; do	# memcg first: see guest/bench.sh
				dir=; [ $cg = memcg ] && dir=$md
				win=$((win + 1))
				echo "$win $name $cg $pass $cpus $m $w" >> manifest
				note "$pass $name $cg cpus=$cpus memcgs=$m workers=$w"
				if [ "$pass" = events ]; then
					before=$(awk '{print $1, $2}' $T/kprobe_profile | tr '\n' ' ')
				fi
				# shellcheck disable=SC2086
				if ! res=$("$churn" -c "$dir" -g "$w" -s $args 2> "churn.err.$win"); then
					note "workload $name failed: $(tail -1 "churn.err.$win")"
					finish 3
				fi
				if [ "$pass" = events ]; then
					after=$(awk '{print $1, $2}' $T/kprobe_profile | tr '\n' ' ')
					echo "$win $name $cg BEFORE $before AFTER $after" >> events.txt
					continue
				fi
				echo "$win $res" >> churn.out
				[ $cg = memcg ] || continue
				b=$(current $top) lb=$(leaf_max "$md")
				echo 1 > /sys/kernel/debug/objstock_drain || finish 2
				echo "$win $name $cpus $m $b $(current $top) $lb $(leaf_max "$md")" >> drift.txt
			done
		done
	done
}
run_pass count "$@"

if [ "$events" = 1 ]; then
	T=/sys/kernel/tracing
	mountpoint -q $T || mount -t tracefs none $T
	# what each sentinel is there for: per-object slab charge and uncharge
	# hooks, the bulk refill of io_uring, POSIX mq's message allocation,
	# page charges (try_charge_memcg) and obj_stock slot drains (eviction)
	for p in __memcg_slab_post_alloc_hook __memcg_slab_free_hook try_charge_memcg \
			drain_obj_stock_slot load_msg vm_area_alloc; do
		echo "p:objstock/$p $p" >> $T/kprobe_events 2>/dev/null || note "no kprobe on $p"
	done
	echo 1 > $T/events/objstock/enable 2>/dev/null
	: > events.txt
	run_pass events "$@"
	echo 0 > $T/events/objstock/enable
fi
finish 0
