#!/usr/bin/env bash
# bench: the A/B report behind `make`.  Builds base 7.3 and base+series with
# the same config, boots them alternately (A B A B ..., BOOTS at a time) R times under QEMU/TCG
# with our instruction-counting plugin, runs the workloads of bench/workloads
# in the root cgroup and in a child memcg, then writes the JSON and the report.
# Knobs: R (repetitions), QUICK=1 (subset, R=2), WORKLOADS (names or globs),
# EVENTS (1: a kprobe-event pass in the first repetition), FLOOR (1: a third
# kernel, the patched one booted with cgroup.memory=nokmem, the floor that
# root and memcg are measured against), TRAFFIC (1: one more boot of base and
# of patched with kinsn's data-cache model, cache=on, over TRAFFIC_WORKLOADS,
# default four workloads), PHASES (churn -p: each window of a single-process
# workload averages over that many obj stock phases; default 16), OUT (results dir),
# REPEAT (windows per cgroup, in each boot of base and patched, of the
# REPEAT_WORKLOADS, the rows that vary from window to window: default 3,
# averaged; the floor's boots run one), ICOUNT (QEMU -icount option, default "shift=3,sleep=off"; empty: off),
# BOOTS (guests at once, below), BASE_REV (the "base" kernel: default objstock-base, i.e. Debian's 7.3; any
# commit of the tree, e.g. to measure the last patches against the rest).
#
# Both kernels get bench/kernel/objstock_bench.c (the in-kernel slab
# microbenchmark behind the slab-* workloads) built into mm/: it is part of
# the bench, not of the series.
#
# Why -icount: without it the guest clock follows the host's, so a slower
# (busier) host means more timer ticks, and more kernel instructions, per
# operation: two boots of the same kernel differed by 2-5% on a loaded host.
# With a fixed shift the guest clock is a function of the instruction count,
# and sleep=off jumps over idle time, so the counts repeat; the wall time
# reported is then the host's time between the markers (kinsn's host_ns).
# It costs MTTCG: the vCPUs take turns on one host thread.
. "$(dirname "$0")/lib.sh"

# every knob before anything is fetched or built (the bench boots with one
# NUMA node whatever NUMA says)
NUMA=1 check_knobs
QUICK=${QUICK:-0}
R=$((10#${R:-$([ "$QUICK" = 1 ] && echo 2 || echo 3)}))
EVENTS=${EVENTS:-1}
FLOOR=${FLOOR:-1}
TRAFFIC=${TRAFFIC:-1}
PHASES=$((10#${PHASES:-16}))
REPEAT=$((10#${REPEAT:-3}))
# the rows whose windows vary with the scheduling (hackbench), RCU grace
# periods (tmpfs xattrs are freed by call_rcu()), io_uring's ring exit work,
# or whose tax is small next to the op (mmap): two runs of the same kernels
# disagreed on their cuts by 5-22 points with one window per boot
read -ra repeat_globs <<< "${REPEAT_WORKLOADS-hackbench-*-s100 hackbench-*-s100000 xattr-* mmap uring-*}"
# the kernels booted in each repetition, in this order: nokmem is the patched
# kernel without kmem accounting (cgroup.memory=nokmem), the floor
kernels=(base patched)
[ "$FLOOR" = 1 ] && kernels+=(nokmem)
ICOUNT=${ICOUNT-shift=3,sleep=off}
wl=$TOP/bench/workloads

# the workloads: WORKLOADS (space separated names or shell globs) or all/QUICK
all=$(awk '!/^#/ && NF >= 4 {print $1}' "$wl")
# by default every row but those marked QUICK=x (run only when named)
default=$(awk '!/^#/ && NF >= 4 && $2 != "x" {print $1}' "$wl")
quick=$(awk '!/^#/ && NF >= 4 && $2 == 1 {print $1}' "$wl")
# the traffic pass: TRAFFIC_WORKLOADS (names), by default one of each kind
# (hackbench, small and 4-8 KiB pipe churn, the in-kernel bulk loop): a boot
# with the cache model took 78-81 s for these four, against 33 s for ten
# workloads without it
read -ra traffic_names <<< "${TRAFFIC_WORKLOADS:-hackbench-proc-s100 pipe-16 pipe-64 slab-bulk8-256}"
for w in "${traffic_names[@]}"; do
	grep -qx -- "$w" <<< "$(printf '%s\n' $all)" || die "unknown TRAFFIC_WORKLOADS workload '$w' (have: $(echo $all))"
done
names=()
if [ -n "${WORKLOADS:-}" ]; then
	set -f	# globs match workload names, not files
	for w in $WORKLOADS; do
		m=0
		for n in $all; do
			# shellcheck disable=SC2254
			case $n in $w) names+=("$n"); m=1 ;; esac
		done
		[ $m = 1 ] || die "unknown workload '$w' (have: $(echo $all))"
	done
	set +f
elif [ "$QUICK" = 1 ]; then
	read -ra names <<< "$(echo $quick)"
else
	read -ra names <<< "$(echo $default)"
fi
# the selected workloads that REPEAT_WORKLOADS names (globs, not files)
repeat_names=()
set -f
for n in "${names[@]}"; do
	for g in "${repeat_globs[@]}"; do
		# shellcheck disable=SC2254
		case $n in $g) repeat_names+=("$n"); break ;; esac
	done
done
set +f
# churn -p splits a single-process loop in PHASES parts: its ITERS must be a
# multiple (said now, not by the guest after the kernels are built)
for w in "${names[@]}" "${traffic_names[@]}"; do
	it=$(awk -v n="$w" '$1 == n { i = 4; while ($i ~ /^-/) i += $i ~ /^-[cpgw]$/ ? 2 : 1
		m = $i; if (m == "pipe" || m == "xattr" || m == "uring" || m == "mmap2") print $(i + 2)
		else if (m == "mmap") print $(i + 1); else if (m == "slab") print $(i + 3) }' "$wl")
	[ -z "$it" ] || [ $((it % PHASES)) = 0 ] ||
		die "PHASES=$PHASES: workload $w runs $it iterations, not a multiple (try a divisor of it)"
done

# The boots run BOOTS at a time (default: one per host CPU, at most 4; 1
# with KVM=1 or TCG_THREAD=multi, whose guests use a host thread per vCPU).
# Under -icount (a fixed shift, sleep=off) a guest runs on one host thread
# and its clock, and so its counts, follow its own instructions, not the
# host's load (results/2026-12-03-pair: the rows whose windows did not
# change read the same with two boots at once as in full16, one at a
# time), so two at once on 2 cores cut the boots' wall time (each is about
# 1.5x slower) and leave the counts as they are.  A boot's wall time
# (ns_per_op) is then shared-host time, and what shares the host differs
# from boot to boot (meta.txt and the report say BOOTS).  A boot that fails
# stops the run once the boots already running have finished.
# Also 1 without a fixed -icount shift and sleep=off (the counts then
# follow the host's load), and no more guests than MemAvailable holds.
[ "${BASH_VERSINFO[0]}${BASH_VERSINFO[1]}" -ge 51 ] || die "make needs bash 5.1 or later (wait -n -p)"
if [ -n "${BOOTS:-}" ]; then
	BOOTS=$((10#$BOOTS))
elif [ "${KVM:-0}" = 1 ] || [ "${TCG_THREAD:-single}" = multi ] ||
		! [[ ",$ICOUNT," =~ ,shift=[0-9]+, && ",$ICOUNT," == *,sleep=off,* ]]; then
	BOOTS=1
else
	n=$(nproc) m=$(awk '/^MemAvailable:/ { print int($2 / 1024) }' /proc/meminfo)
	g=$(( $(numfmt --from=iec "${MEM:-2G}") / 1048576 + 512 ))
	BOOTS=$((n < 4 ? n : 4))
	[ $((m / g)) -ge "$BOOTS" ] || BOOTS=$((m / g > 1 ? m / g : 1))
fi
# a guest among BOOTS takes longer: the boot timeout grows with them
export TIMEOUT=${TIMEOUT:-$((1800 * BOOTS))}

# deps, base source, tree, tools, both kernels: start, stop, objdir[]
bench_kernels
run=${RUN:-$CACHE/runs/bench-$(date +%Y%m%d-%H%M%S)}
mkdir -p -- "$run"
FAIL_RMDIR+=("$run")
# RUN=a stopped run resumes it (same kernels, ICOUNT, PHASES, REPEAT, CPUS,
# workloads and bench/workloads file): finished boots are kept, an
# unfinished one is run again
{
	bench_meta
	echo "repetitions $R"
	echo "kernels ${kernels[*]}"
	[ "$TRAFFIC" = 1 ] && echo "traffic_workloads ${traffic_names[*]}"
	echo "icount ${ICOUNT:-off}"
	echo "phases $PHASES"
	echo "repeat $REPEAT ${repeat_names[*]}"
	echo "cpus ${CPUS:-2}"
	echo "boots $BOOTS"
	echo "workloads ${names[*]}"
	# what a row runs and what its "per op" divides by (OPS): a resume must
	# not mix windows of another version of the file
	echo "workloads_sha256 $(sha256sum < "$wl" | cut -c1-16)"
} > "$run/meta.new"
meta_write "$run" "$run/meta.new" kernel_version config_sha256 series_sha256 icount phases repeat cpus workloads workloads_sha256

log bench "$R repetitions x ${#kernels[@]} kernels (${kernels[*]}), ${#names[@]} workloads x {root, memcg}: ${names[*]}"

# progress inside a boot: the guest notes each workload in its kernel log,
# which boot.sh streams to RUNDIR/console.log; follow it until PID exits
progress() {
	local con=$1 pid=$2 what=$3 n=$((2 * (${#names[@]} + ($4 - 1) * ${#repeat_names[@]}))) i=0 line
	tail -n +1 -F --pid="$pid" "$con" 2> /dev/null | while read -r line; do
		case $line in
		*"objstock-bench: count "*)
			i=$((i + 1))
			# shellcheck disable=SC2086
			set -- ${line##*objstock-bench: count }
			log bench "  $what: workload $i/$n $1 ($2)" ;;
		esac
	done
}
# one vng for every boot (scripts/vng-setup.sh, run once: the boots start
# at the same time)
VNG=${VNG:-$("$TOP/scripts/vng-setup.sh")}
export VNG
pool_init
# Ctrl-C (make's whole process group), TERM, HUP: stop the running guests
# too (their timeout is a process group of its own), then stop; finished
# boots stay for a resume (RUN=)
trap 'log bench "stopped: ending the $pool_running boots running"; pool_kill; exit 130' INT TERM HUP
# one boot of the A/B pass: kernel K, repetition R
ab_boot() {
	local r=$1 k=$2 rd=$run/$2-$1 ev=0 kdir append rp bpid ppid rc=0
	kdir=${objdir[$k]:-${objdir[patched]}} append="kunit.enable=0"
	[ "$r" = 1 ] && [ "$k" != nokmem ] && ev=$EVENTS
	# the floor runs one window per row: it is in no memcg tax cut, and
	# its three boots took a third of the bench's time; the columns over
	# the floor then carry one window's noise in the repeated rows (the
	# report says which)
	rp=$REPEAT
	[ "$k" = nokmem ] && append+=" cgroup.memory=nokmem" rp=1
	kinsn_boot "$k kernel, repetition $r" "$rd" "$kdir" "" "$append" \
		env OBJSTOCK_REPEAT="$rp" OBJSTOCK_REPEAT_NAMES="${repeat_names[*]}" \
		"$TOP/guest/bench.sh" "$CACHE/tools/churn" "$wl" "$ev" "$PHASES" "${names[@]}" &
	bpid=$!
	progress "$rd/console.log" "$bpid" "$k $r/$R" "$rp" &
	ppid=$!
	wait "$bpid" || rc=$?
	wait "$ppid" 2> /dev/null || true
	return "$rc"
}
# the traffic pass: one boot per kernel with the data-cache model on (slower:
# every guest memory access calls into the plugin), counting per window the
# kernel's loads, stores, L1D and LLC misses and cross-vCPU transfers
traffic_boot() {
	local k=$1 rd=$run/$1-traffic t0
	t0=$(date +%s)
	TIMEOUT=$((TIMEOUT * 2)) kinsn_boot "$k kernel, traffic pass" "$rd" "${objdir[$k]}" "cache=on" \
		"kunit.enable=0" "$TOP/guest/bench.sh" "$CACHE/tools/churn" "$wl" 0 "$PHASES" "${traffic_names[@]}"
	log bench "traffic pass $k: $(( $(date +%s) - t0 ))s (${#traffic_names[@]} workloads)"
}
jobs_list=()
for ((r = 1; r <= R; r++)); do
	for k in "${kernels[@]}"; do
		if kept_boot "$run/$k-$r"; then
			log bench "repetition $r/$R $k: kept from the run resumed"
			continue
		fi
		jobs_list+=("$r $k")
	done
done
if [ "$TRAFFIC" = 1 ]; then
	for k in base patched; do
		if kept_boot "$run/$k-traffic"; then
			log bench "traffic pass $k: kept from the run resumed"
			continue
		fi
		jobs_list+=("traffic $k")
	done
fi
pool_total=${#jobs_list[@]}
log bench "$pool_total boots, $BOOTS at a time"
for j in "${jobs_list[@]}"; do
	read -r r k <<< "$j"
	rm -rf -- "${run:?}/$k-$r"
	if [ "$r" = traffic ]; then
		pool_run "traffic pass $k" traffic_boot "$k"
	else
		pool_run "repetition $r/$R $k" ab_boot "$r" "$k"
	fi
	[ "$pool_failed" = 0 ] || break
done
pool_wait
echo "finished $(date -u +%FT%TZ)" >> "$run/meta.txt"

OUT=${OUT:-$TOP/results/latest}
mkdir -p "$OUT"
python3 "$TOP/scripts/collect.py" "$run" "$wl" > "$OUT/results.json" ||
	die "could not collect the results of $run"
python3 "$TOP/scripts/report.py" "$OUT/results.json" "$OUT"
log report "$OUT/report.md, $OUT/tax.png, $OUT/results.json"
