#!/bin/bash
# host side: R repetitions of before/after, alternating
set -u
cd /work/main
RS=/work/main/build/runs-sheaf
m=$(cat /work/main/build/tools/markers)
start=${m#start=}; start=${start%% *}; stop=${m##*stop=}
for r in ${REPS:-1 2}; do
	for k in ${KS:-before after}; do
		rd=$RS/${OUT:-bench}/$k-$r
		rm -rf "$rd"; mkdir -p "$rd"
		s=$(date +%s)
		QEMU_OPTS="-plugin /work/main/build/tools/libkinsn.so,start=$start,stop=$stop,out=$rd/kinsn.out" \
			CPUS=2 TIMEOUT=1500 NUMA=1 APPEND="kunit.enable=0" \
			scripts/boot.sh $RS/kernels/bzImage-$k "$rd" \
			"$RS/bench-guest.sh /work/main/build/tools/churn $RS/${WL:-workloads}" > "$rd/boot.log" 2>&1
		echo "$k-$r rc=$? $(( $(date +%s) - s ))s" >> $RS/${OUT:-bench}/progress
	done
done
echo done >> $RS/${OUT:-bench}/progress
