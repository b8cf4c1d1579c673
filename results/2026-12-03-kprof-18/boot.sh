#!/bin/bash
# kprof boots of the final bench-patched kernel (diagnosis only)
cd /work/main
K=/work/cache/obj/bench-patched/arch/x86/boot/bzImage
cp /work/cache/obj/bench-patched/System.map /work/exp-out/kprof18/System.map
S=0x$(nm /work/scratch/kprof/mark | awk '/ bench_start$/{print $1}'); E=0x$(nm /work/scratch/kprof/mark | awk '/ bench_stop$/{print $1}')
. <(sed 's/ /\n/' /work/cache/tools/markers)
QEMU_OPTS="-icount shift=3,sleep=off -plugin /work/scratch/kprof/libkprof.so,start=$start,stop=$stop,dir=/work/exp-out/kprof18/a" \
	CACHE=/work/cache TIMEOUT=3600 NUMA=1 scripts/boot.sh $K /work/exp-out/kprof18/a "sh /work/exp-out/kprof18/a/guest.sh" > /work/exp-out/kprof18/a.log 2>&1
QEMU_OPTS="-icount shift=3,sleep=off -plugin /work/scratch/kprof/libkprof.so,start=$S,stop=$E,dir=/work/exp-out/kprof18/b" \
	CACHE=/work/cache TIMEOUT=3600 NUMA=1 scripts/boot.sh $K /work/exp-out/kprof18/b "sh /work/exp-out/kprof18/b/guest.sh" > /work/exp-out/kprof18/b.log 2>&1
echo done
