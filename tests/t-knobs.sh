#!/usr/bin/env bash
# t-knobs: bad knobs stop `make check` (check.sh), `make` (bench.sh) and the
# selftest build with one error line BEFORE anything is downloaded or built
# (the scratch cache stays as it was), and scripts/selftests-build.sh on a
# stand-in selftests Makefile.  No network, no kernel.
. "$(dirname "$0")/lib.sh"

# nothing here may download: a mirror that is not there (if a check is
# missed, the stage after it fails at once instead of fetching)
export DEB_MIRROR=file://$tmp/no-mirror HARNESS_TESTS=0 CACHE=$tmp/cache-default

# early NAME REGEX SCRIPT [VAR=value...]: SCRIPT with the knobs fails with
# one matching error line and leaves its (fresh) cache untouched
early() {
	local name=$1 re=$2 script=$3; shift 3
	local c=$tmp/cache-$name
	mkdir -p "$c"
	expect "$name" "$re" env CACHE="$c" "$@" "$TOP/scripts/$script"
	if [ -n "$(ls -A "$c")" ]; then
		fail "$name-early" "$script wrote to the cache before refusing: $(ls -A "$c" | head -3 | tr '\n' ' ')"
	fi
}

early knob-kvm 'KVM=yes: must be 0 or 1' check.sh KVM=yes
early knob-kvm-dev 'KVM=1 but .*no-kvm is missing' check.sh KVM=1 KVM_DEV="$tmp/no-kvm"
early knob-tcg-thread 'TCG_THREAD=many: must be single or multi' check.sh TCG_THREAD=many
early knob-timeout 'TIMEOUT=10m: must be a positive integer' check.sh TIMEOUT=10m
early knob-cpus 'CPUS=0: must be a positive integer' check.sh CPUS=0
early knob-numa-cpus 'NUMA=2 nodes need at least as many CPUS \(have CPUS=1' check.sh CPUS=1
early knob-numa 'NUMA=two: must be a positive integer' check.sh NUMA=two
early knob-mem 'MEM=2048: must be a size in M or G' check.sh MEM=2048
early knob-jobs 'JOBS=-1: must be a positive integer' check.sh JOBS=-1
early knob-selftests-syntax "SELFTESTS: 'test_\\*' is not a selftest name" check.sh 'SELFTESTS=test_*'
early knob-selftests-skip-syntax "SELFTESTS_SKIP: 'a;b' is not a selftest name" check.sh 'SELFTESTS_SKIP=a;b'
early knob-base-rev 'BASE_REV=-x: not a git revision' bench.sh BASE_REV=-x
early knob-icount 'ICOUNT=shift=fast: shift must be a number or auto' bench.sh ICOUNT=shift=fast
early knob-quick "QUICK=yes: must be 0 or 1" bench.sh QUICK=yes
early knob-debug "DEBUG=yes: must be 0 or 1" check.sh DEBUG=yes
early knob-cache-space "CACHE=.*cannot work under a path with spaces or colons" check.sh CACHE="$tmp/a b"
# was harness.sh's bench-r0 and bench-unknown-workload
early bench-r0 'R.*(must be a positive integer|must be at least 1)' bench.sh R=0
early bench-unknown-workload "unknown workload 'nope' \\(have: hackbench" bench.sh WORKLOADS="slab-bulk32-256 nope"
early knob-phases 'PHASES=65: at most 64' bench.sh PHASES=65
early knob-phases-zero 'PHASES=0: must be a positive integer' bench.sh PHASES=0
early knob-phases-iters 'PHASES=7: workload pipe-16 runs 20000 iterations, not a multiple' bench.sh PHASES=7 WORKLOADS=pipe-16
early knob-repeat 'REPEAT=x: must be a positive integer' bench.sh REPEAT=x
# make scale's own knobs, checked before anything is built
early scale-cpus "SCALE_CPUS: '16' is not a vCPU count from 1 to 8" scale.sh SCALE_CPUS="1 16"
early scale-memcgs "SCALE_MEMCGS: 'x' is not a memcg count from 1 to 256" scale.sh SCALE_MEMCGS="1 x"
early scale-workloads "unknown SCALE_WORKLOADS workload 'nope' \\(have: hackbench-s100" scale.sh SCALE_WORKLOADS=nope
early scale-r0 'R.*must be a positive integer' scale.sh R=0
# a glob matches workload names, not the files of the current directory
(cd "$TOP/bench" && expect bench-workload-glob "unknown workload 'work\\*'" \
	env CACHE="$tmp/cache-glob" WORKLOADS='work*' "$TOP/scripts/bench.sh")

# SELFTESTS against the unpacked source's cgroup Makefile, when there is one
# (a stand-in here), plus what patches/ adds to it
st_makefile() {
	mkdir -p "$1/tools/testing/selftests/cgroup"
	cat > "$1/tools/testing/selftests/cgroup/Makefile" <<'EOM'
TEST_GEN_PROGS = test_a
TEST_GEN_PROGS += test_b
TEST_PROGS := test_c.sh
all:
	@for t in $(TEST_GEN_PROGS); do printf '#!/bin/sh\nexit 0\n' > $(OUTPUT)/$$t; chmod +x $(OUTPUT)/$$t; done
EOM
	printf '#!/bin/sh\nexit 0\n' > "$1/tools/testing/selftests/cgroup/test_c.sh"
}
c=$tmp/cache-st
st_makefile "$c/src/linux-7.3.4-1~bpo13+1"
mkdir -p "$tmp/patches"
printf '%s\n' '--- a/tools/testing/selftests/cgroup/Makefile' '+++ b/tools/testing/selftests/cgroup/Makefile' \
	' TEST_GEN_PROGS += test_b' '+TEST_GEN_PROGS += test_new' > "$tmp/patches/0001-new-test.patch"
echo 0001-new-test.patch > "$tmp/patches/series"
before=$(find "$c" | sort)
expect knob-selftests-unknown "unknown selftest 'test_z' in SELFTESTS \\(have: test_a test_b test_c.sh test_new\\)" \
	env CACHE="$c" PATCHES="$tmp/patches" SELFTESTS='test_a test_z' "$TOP/scripts/check.sh"
check knob-selftests-unknown-early 'nothing written to the cache before the refusal' \
	test "$before" = "$(find "$c" | sort)"
expect knob-selftests-skip-unknown "unknown selftest 'test_y' in SELFTESTS_SKIP" \
	env CACHE="$c" PATCHES="$tmp/patches" SELFTESTS_SKIP='test_y' "$TOP/scripts/check.sh"
check knob-selftests-patch-adds 'a name the series adds (test_new) passes the early check' \
	env CACHE="$c" PATCHES="$tmp/patches" SELFTESTS='test_new test_c.sh' bash "$TOP/scripts/lib.sh" knobs
check knobs-defaults 'the defaults pass' env CACHE="$c" bash "$TOP/scripts/lib.sh" knobs

# scripts/selftests-build.sh on the stand-in
st_makefile "$tmp/st"
# was harness.sh's unknown-selftest: refused before the build
expect unknown-selftest "unknown selftest 'test_nonexistent'" \
	env SELFTESTS=test_nonexistent "$TOP/scripts/selftests-build.sh" "$tmp/st" "$tmp/st-out1"
check unknown-selftest-before-build 'no build for an unknown selftest' test ! -e "$tmp/st-out1/build.log"
env SELFTESTS_SKIP=test_b "$TOP/scripts/selftests-build.sh" "$tmp/st" "$tmp/st-out2" > /dev/null 2>&1
check selftests-build-list 'SELFTESTS_SKIP=test_b: test_a test_c.sh, built and copied' \
	test "$(tr '\n' ' ' < "$tmp/st-out2/objstock-tests" 2>&1)" = "test_a test_c.sh " -a -x "$tmp/st-out2/test_a" -a -f "$tmp/st-out2/test_c.sh"
# a build that fails without an 'error' in its log still says so (was: exit 1, no message)
st_makefile "$tmp/st-bad"
printf 'TEST_GEN_PROGS = test_a\nall:\n\t@echo boom; exit 7\n' > "$tmp/st-bad/tools/testing/selftests/cgroup/Makefile"
expect selftests-build-fails 'cgroup selftests failed to build \(see .*build.log\)' \
	"$TOP/scripts/selftests-build.sh" "$tmp/st-bad" "$tmp/st-out3"
expect selftests-build-no-tree 'no cgroup selftests in .*nowhere' \
	"$TOP/scripts/selftests-build.sh" "$tmp/nowhere" "$tmp/st-out4"
