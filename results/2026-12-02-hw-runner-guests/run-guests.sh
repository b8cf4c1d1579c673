#!/usr/bin/env bash
# The end-to-end check of bench/hw/run (RUN.md): the kernels of `make pkg`
# (PKG_KCONFIG=bench: the config of make's kernels) booted under QEMU/TCG
# through scripts/boot.sh, as bench.sh boots its guests, with the runner as
# the guest's command, as if the guest were the real machine; then one
# `make report` of the two results.json.  Boots, in order:
#   base     bench/hw/run base    OUT/guest-base/out    R
#   patched  bench/hw/run patched OUT/guest-patched/out R
#   base     bench/hw/run base    OUT/guest-base/out    1   (appends base-R+1: the reboot cycle)
#   patched, booted with cgroup.memory=nokmem:
#            bench/hw/run nokmem  OUT/guest-patched/out 1
#   run-guests.sh CACHE OUT [R]    (WORKLOADS: the subset; CPUS, MEM, TIMEOUT as for boot.sh)
set -euo pipefail
top=$(cd "$(dirname "$0")/../.." && pwd)
cache=$(realpath -m "$1") out=$(realpath -m "$2") R=${3:-2}
wls=${WORKLOADS:-hackbench-proc-s100 pipe-16 xattr-2000 mmap slab-bulk8-256}
mkdir -p "$out"
n=0
# guest KERNEL LABEL OUTDIR R [APPEND]
guest() {
	local kern=$cache/obj/pkg-$1/arch/x86/boot/bzImage label=$2 od=$3 r=$4 log t0 rc=0
	n=$((n + 1))
	log=$out/boot-$n-$label
	t0=$(date +%s)
	# OUT is the guest's one writable directory (boot.sh's RUNDIR): the
	# OUTDIRs live in it, and each boot's console and runner log
	CACHE=$cache TIMEOUT=${TIMEOUT:-1800} NUMA=1 APPEND="kunit.enable=0 ${5:-}" "$top/scripts/boot.sh" "$kern" "$out" \
		"WORKLOADS='$wls' $top/bench/hw/run $label $od $r > $log.run.log 2>&1; echo \$? > $out/guest-rc" || rc=$?
	mv "$out/console.log" "$log.console.log"
	[ "$rc" = 0 ] || { echo "run-guests: boot $n ($label) failed (see $log.run.log, $log.console.log)" >&2; exit 1; }
	echo "run-guests: boot $n: $label, $(( $(date +%s) - t0 ))s" >&2
}
guest base base "$out/guest-base/out" "$R"
guest patched patched "$out/guest-patched/out" "$R"
guest base base "$out/guest-base/out" 1
guest patched nokmem "$out/guest-patched/out" 1 cgroup.memory=nokmem
make -s -C "$top" report RESULTS="$out/guest-base/out/results.json $out/guest-patched/out/results.json" OUT="$out/report"
