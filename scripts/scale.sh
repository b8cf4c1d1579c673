#!/usr/bin/env bash
# scale: the scaling matrix behind `make scale`.  Boots base 7.3 and the
# patched kernel (the bench kernels of `make`) with 1, 2, 4 and 8 vCPUs,
# alternately, R times, and runs bench/scale's workloads (guest/scale.sh) in
# the root cgroup and spread over 1, 8 and 32 memcgs, W = max(vCPUs, memcgs)
# workers per window; after each memcg window every CPU drains its stocks
# (the drift of memory.current against the documented bound).  Then one boot
# of each kernel at the largest vCPU and memcg counts with the kinsn plugin's
# cache model (cross-vCPU transfers per op), and a kprobe-event pass in the first
# repetition (each workload runs the path it is there for).
# Knobs: SCALE_CPUS ("1 2 4 8"), SCALE_MEMCGS ("1 8 32"), SCALE_WORKLOADS
# (names or globs of bench/scale), R (2), EVENTS (1), TRAFFIC (1), ICOUNT,
# BASE_REV, OUT (default results/latest-scale), TIMEOUT, RUN (a stopped run to resume).
# Under TCG all vCPUs take turns on one host thread: a boot with 8 vCPUs is
# 8 times the instructions of one with 1; bench/scale's counts are per worker.
. "$(dirname "$0")/lib.sh"

NUMA=1 check_knobs
R=$((10#${R:-2}))
EVENTS=${EVENTS:-1}
TRAFFIC=${TRAFFIC:-1}
ICOUNT=${ICOUNT-shift=3,sleep=off}
wl=$TOP/bench/scale
read -ra cpus_list <<< "${SCALE_CPUS:-1 2 4 8}"
read -ra memcg_list <<< "${SCALE_MEMCGS:-1 8 32}"
for c in "${cpus_list[@]}"; do
	is_uint "$c" && [ "$((10#$c))" -ge 1 ] && [ "$((10#$c))" -le 8 ] ||
		die "SCALE_CPUS: '$c' is not a vCPU count from 1 to 8 (the kernels have NR_CPUS=8)"
done
for m in "${memcg_list[@]}"; do
	is_uint "$m" && [ "$((10#$m))" -ge 1 ] && [ "$((10#$m))" -le 256 ] ||
		die "SCALE_MEMCGS: '$m' is not a memcg count from 1 to 256"
done
[ ${#cpus_list[@]} -gt 0 ] && [ ${#memcg_list[@]} -gt 0 ] || die "SCALE_CPUS and SCALE_MEMCGS need a value each"
all=$(awk '!/^#/ && NF >= 3 {print $1}' "$wl")
names=()
set -f
for w in ${SCALE_WORKLOADS:-$all}; do
	m=0
	for n in $all; do
		# shellcheck disable=SC2254
		case $n in $w) names+=("$n"); m=1 ;; esac
	done
	[ $m = 1 ] || die "unknown SCALE_WORKLOADS workload '$w' (have: $(echo $all))"
done
set +f

bench_kernels
run=${RUN:-$CACHE/runs/scale-$(date +%Y%m%d-%H%M%S)}
mkdir -p -- "$run"
FAIL_RMDIR+=("$run")
maxc=${cpus_list[0]}
for c in "${cpus_list[@]}"; do [ "$c" -gt "$maxc" ] && maxc=$c; done
# RUN=a stopped scale run resumes it (same kernels, ICOUNT and workloads):
# finished boots are kept, an unfinished one is run again
{
	bench_meta
	echo "repetitions $R"
	echo "icount ${ICOUNT:-off}"
	echo "scale_cpus ${cpus_list[*]}"
	echo "scale_memcgs ${memcg_list[*]}"
	[ "$TRAFFIC" = 1 ] && echo "traffic_cpus $maxc"
	echo "workloads ${names[*]}"
} > "$run/meta.new"
meta_write "$run" "$run/meta.new" kernel_version config_sha256 series_sha256 icount workloads

guest() { printf '%s\n' "$TOP/guest/scale.sh" "$CACHE/tools/churn" "$wl" "$1" "$2" "${names[@]}"; }
total=$((R * ${#cpus_list[@]} * 2 + (TRAFFIC == 1 ? 2 : 0))) n=0 t0=$(date +%s)
log scale "$R repetitions x vCPUs {${cpus_list[*]}} x memcgs {${memcg_list[*]}} x {base, patched}: ${names[*]}"
for ((r = 1; r <= R; r++)); do
	for c in "${cpus_list[@]}"; do
		for k in base patched; do
			if kept_boot "$run/$k-c$c-$r"; then
				log scale "$k, $c vCPUs, repetition $r/$R: kept from the run resumed"
				total=$((total - 1))
				continue
			fi
			rm -rf -- "${run:?}/$k-c$c-$r"
			ev=0
			[ "$r" = 1 ] && [ "$c" = "$maxc" ] && ev=$EVENTS
			mapfile -t cmd < <(guest "$ev" "${memcg_list[*]}")
			CPUS=$c MEM=${MEM:-3G} TIMEOUT=${TIMEOUT:-3600} \
				kinsn_boot "$k kernel, $c vCPUs, repetition $r" "$run/$k-c$c-$r" "${objdir[$k]}" "" \
				"kunit.enable=0" "${cmd[@]}"
			n=$((n + 1))
			log scale "$k, $c vCPUs, repetition $r/$R done; ~$(( ($(date +%s) - t0) * (total - n) / n / 60 )) min left"
		done
	done
done
# cross-vCPU transfers per op at the largest vCPU and memcg counts (the
# cover letter's table; the cache model makes a boot about 2.5 times slower)
if [ "$TRAFFIC" = 1 ]; then
	tm=${memcg_list[0]}
	for m in "${memcg_list[@]}"; do [ "$m" -gt "$tm" ] && tm=$m; done
	for k in base patched; do
		if kept_boot "$run/$k-c$maxc-traffic"; then
			total=$((total - 1))
			log scale "$k traffic pass: kept from the run resumed"
			continue
		fi
		rm -rf -- "${run:?}/$k-c$maxc-traffic"
		mapfile -t cmd < <(guest 0 "$tm")
		CPUS=$maxc MEM=${MEM:-3G} TIMEOUT=${TIMEOUT:-5400} \
			kinsn_boot "$k kernel, traffic pass" "$run/$k-c$maxc-traffic" "${objdir[$k]}" "cache=on" \
			"kunit.enable=0" "${cmd[@]}"
		n=$((n + 1))
		log scale "$k traffic pass ($maxc vCPUs, $tm memcgs) done"
	done
fi
echo "finished $(date -u +%FT%TZ)" >> "$run/meta.txt"

OUT=${OUT:-$TOP/results/latest-scale}
mkdir -p "$OUT"
python3 "$TOP/scripts/collect-scale.py" "$run" "$wl" > "$OUT/results.json" ||
	die "could not collect the results of $run"
python3 "$TOP/scripts/report-scale.py" "$OUT/results.json" "$OUT"
log scale "$OUT/report.md, $OUT/scale.png, $OUT/results.json"
