#!/bin/sh
# bench (guest side): run the selected workloads in the root cgroup and in a
# child memcg, under churn, whose markers open and close the host plugin's
# counting windows.  cwd = the run dir shared with the host.
#   bench.sh CHURN WORKLOADS_FILE EVENTS PHASES NAMES...
# PHASES: churn's -p (each window averages over that many obj stock phases);
# every window starts after an RCU barrier (-s) and with every CPU's stocks
# drained (-d: their cached stat bytes and page stock set per-op costs too).
# Writes manifest (one line per window, in order: "window name cgroup pass"),
# churn.out (churn's result lines, same order) and, if EVENTS=1, a second
# pass with kprobe events whose hit counts go to events.txt.
set -u
out=$(pwd)
churn=$1 wl=$2 events=$3 phases=$4; shift 4
note() { echo "objstock-bench: $*" > /dev/kmsg; }
finish() { dmesg > "$out/dmesg.txt" 2>/dev/null; echo "$1" > "$out/guest-rc"; exit "$1"; }

[ "$(stat -f -c %T /sys/fs/cgroup 2>/dev/null)" = cgroup2fs ] ||
	mount -t cgroup2 none /sys/fs/cgroup || finish 2
echo +memory > /sys/fs/cgroup/cgroup.subtree_control || finish 2
mkdir -p /sys/fs/cgroup/objstock-bench /run/objstock-tmp
# the slab-* workloads write to /sys/kernel/debug/objstock_slab_bench
mountpoint -q /sys/kernel/debug || mount -t debugfs none /sys/kernel/debug || finish 2
mount -t tmpfs -o size=64m objstock-tmp /run/objstock-tmp || finish 2
# bench/bin (next to the workloads file): the helper scripts of "run" workloads
PATH=$(cd "$(dirname "$wl")" && pwd)/bin:/usr/sbin:/usr/bin:/sbin:/bin
export PATH

: > manifest; : > churn.out
win=0
# memcg before root: a memcg window gives the slabs it uses obj_exts (the
# objcg vector), and from then on every free from them, root's too, goes
# through the memcg free hook, as on any host where memcgs allocate from
# the same caches; root first measured root before that (pipe-16 in root:
# 140 instructions per op fewer in the first root window of a boot than in
# the next ones)
# Some workloads vary from window to window (hackbench with the scheduling,
# xattrs with RCU grace periods); OBJSTOCK_REPEAT (default 1) runs those
# named in OBJSTOCK_REPEAT_NAMES that many times per cgroup, memcg and root
# interleaved, and collect.py averages the windows of a boot.
# A "run" workload (hackbench, a command run whole) warms up with one run
# of the command as long as its window; only its first window in a boot
# does: the windows after it (root's, the repeated ones) follow a run of
# the same command and open at once (churn -n), as do the kprobe pass's
# (the counting pass ran every workload in this boot).  Root's window then
# allocates what the memcg's freed: pinned hackbench -s 100 reads about 30
# instructions per message more in root, both kernels alike
# (results/2026-12-03-hour).
warm=" "
run_pass() {
	pass=$1
	shift
	for name in "$@"; do
		args=$(awk -v n="$name" '$1 == n { $1 = $2 = $3 = ""; sub(/^ +/, ""); print }' "$wl")
		n=1
		case " ${OBJSTOCK_REPEAT_NAMES:-} " in *" $name "*) [ "$pass" = count ] && n=${OBJSTOCK_REPEAT:-1} ;; esac
		for cg in $(i=0; while [ $i -lt "$n" ]; do echo memcg root; i=$((i + 1)); done); do
			dir=; [ $cg = memcg ] && dir=/sys/fs/cgroup/objstock-bench
			win=$((win + 1))
			nw=
			case " $args" in *" run -- "*) case $warm in *" $name "*) nw=-n ;; *) warm="$warm$name " ;; esac ;; esac
			echo "$win $name $cg $pass" >> manifest
			note "$pass $name $cg"
			# shellcheck disable=SC2086
			if ! res=$("$churn" -c "$dir" -p "$phases" -s -d $nw $args 2> "churn.err.$win"); then
				note "workload $name failed: $(tail -1 "churn.err.$win")"
				finish 3
			fi
			echo "$win $res" >> churn.out
		done
	done
}
run_pass count "$@"

if [ "$events" = 1 ]; then
	T=/sys/kernel/tracing
	mountpoint -q $T || mount -t tracefs none $T
	# memcg page charges (try_charge_memcg: every charge of whole pages,
	# page_counter_try_charge: those the memcg_stock cannot serve), page
	# counter uncharges, obj_stock slot drains (eviction, CPU drain) and
	# memcg_stock refills (whole pages an obj_stock slot hands back, or
	# uncharged folios); and what the sentinels are there for: the per-object
	# slab hooks, io_uring's bulk request refill, socket memory charges
	for p in try_charge_memcg page_counter_try_charge page_counter_uncharge drain_obj_stock_slot refill_stock \
			__memcg_slab_post_alloc_hook __memcg_slab_free_hook __io_alloc_req_refill \
			kmem_cache_alloc_bulk_noprof mem_cgroup_sk_charge; do
		echo "p:objstock/$p $p" >> $T/kprobe_events 2>/dev/null || note "no kprobe on $p"
	done
	echo 1 > $T/events/objstock/enable 2>/dev/null
	for name in "$@"; do
		for cg in memcg root; do
			dir=; [ $cg = memcg ] && dir=/sys/fs/cgroup/objstock-bench
			args=$(awk -v n="$name" '$1 == n { $1 = $2 = $3 = ""; sub(/^ +/, ""); print }' "$wl")
			win=$((win + 1))
			echo "$win $name $cg events" >> manifest
			nw=
			case " $args" in *" run -- "*) nw=-n ;; esac
			before=$(awk '{print $1, $2}' $T/kprobe_profile | tr '\n' ' ')
			# shellcheck disable=SC2086
			"$churn" -c "$dir" -p "$phases" -s -d $nw $args > /dev/null 2>&1 || { note "workload $name failed (events)"; finish 3; }
			after=$(awk '{print $1, $2}' $T/kprobe_profile | tr '\n' ' ')
			echo "$win $name $cg BEFORE $before AFTER $after" >> events.txt
		done
	done
	echo 0 > $T/events/objstock/enable
fi
finish 0
