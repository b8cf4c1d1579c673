#!/usr/bin/env bash
# t-hw: the bench on real hardware.  churn -e (perf counters around the
# window; where perf has no hardware counters, as on a VM without a virtual
# PMU or under QEMU/TCG, one line on stderr and wall time only: the case this
# host is in is detected and its output checked), and bench/hw/run's bad
# input: one 'objstock: error:' line and a non-zero exit, before it runs
# anything.  No kernel build, no boot.
. "$(dirname "$0")/lib.sh"

export DEB_MIRROR=file://$tmp/no-mirror CACHE=$tmp/cache
run=$TOP/bench/hw/run

# --- churn -e ------------------------------------------------------------------
churn=$tmp/churn
line_re='churn mode=pipe size=[0-9]+ iters=20 ns=[0-9]+ ns_per_op=[0-9.]+'
if ! gcc -O2 -Wall -Werror -o "$churn" "$TOP/tools/workloads/churn.c" -luring > "$tmp/churn.log" 2>&1; then
	fail churn-builds "gcc: $(grep -m1 error "$tmp/churn.log")"
else
	pass churn-builds 'churn.c builds with -Wall -Werror (perf_event_open included)'
	"$churn" pipe 1 20 > "$tmp/plain.out" 2> "$tmp/plain.err"
	check churn-plain 'without -e: the result line as before, nothing on stderr' \
		bash -c 'grep -Eqx "$1" "$2" && ! [ -s "$3" ]' _ "$line_re" "$tmp/plain.out" "$tmp/plain.err"
	rc=0
	"$churn" -e pipe 1 20 > "$tmp/e.out" 2> "$tmp/e.err" || rc=$?
	if grep -q 'perf events not available' "$tmp/e.err"; then
		# no hardware counters here: said once, wall time only
		check churn-e-fallback-once 'no perf counters: exactly one stderr line saying so, exit 0' \
			bash -c '[ "$1" = 0 ] && [ "$(wc -l < "$2")" = 1 ] &&
				grep -Eqx "churn: warning: -e: perf events not available \(perf_event_open [a-z_]+: .+\); reporting wall time only" "$2"' \
			_ "$rc" "$tmp/e.err"
		check churn-e-fallback-line 'no perf counters: the result line has wall time only' \
			grep -Eqx "$line_re" "$tmp/e.out"
		"$churn" -e run -- true > "$tmp/run.out" 2> "$tmp/run.err"
		check churn-e-fallback-run 'no perf counters, run mode (warm-up and measured child): still one warning' \
			bash -c '[ "$(grep -c "perf events not available" "$1")" = 1 ] &&
				grep -Eqx "churn mode=run size=0 iters=1 ns=[0-9]+ ns_per_op=[0-9.]+" "$2"' _ "$tmp/run.err" "$tmp/run.out"
	else
		check churn-e-counts 'perf counters: the result line ends in kernel_insns=N cycles=N, N > 0, stderr empty' \
			bash -c '[ "$1" = 0 ] && ! [ -s "$3" ] && grep -Eqx "$4 kernel_insns=[1-9][0-9]* cycles=[1-9][0-9]*" "$2"' \
			_ "$rc" "$tmp/e.out" "$tmp/e.err" "$line_re"
		"$churn" -e run -- true > "$tmp/run.out" 2> "$tmp/run.err"
		check churn-e-counts-run 'perf counters, run mode: the child is counted (inherit)' \
			grep -Eqx "churn mode=run size=0 iters=1 ns=[0-9]+ ns_per_op=[0-9.]+ kernel_insns=[1-9][0-9]* cycles=[1-9][0-9]*" "$tmp/run.out"
	fi
	# the options combine in any order; -e is not an option after the mode
	"$churn" -c '' -e -p 1 pipe 1 20 > "$tmp/mix.out" 2> /dev/null
	check churn-e-order '-c "" -e -p 1: parsed like -e alone' grep -Eq "^$line_re" "$tmp/mix.out"
	"$churn" -z pipe 1 20 > /dev/null 2> "$tmp/bad.err"
	check churn-usage-e 'an unknown option: the usage names -e' \
		grep -qE '^churn: error: usage: churn (\[-[a-z][^]]*\] )*\[-e\] ' "$tmp/bad.err"
	"$churn" pipe -e 20 > /dev/null 2> "$tmp/after.err"
	check churn-e-after-mode '-e after the mode is an argument of the mode' \
		grep -qF "NPAGES must be a positive integer, not '-e'" "$tmp/after.err"
fi

# --- bench/hw/run: bad input ------------------------------------------------------
expect hw-run-usage 'usage: bench/hw/run base\|patched\|nokmem OUTDIR \[R\]' "$run"
expect hw-run-usage-extra 'usage: bench/hw/run' "$run" base "$tmp/out" 1 extra
expect hw-run-label "LABEL 'basee' is not base, patched or nokmem" "$run" basee "$tmp/out"
expect hw-run-label-empty "LABEL '' is not base, patched or nokmem" "$run" '' "$tmp/out"
expect hw-run-r-zero "R '0' is not a positive number of repetitions" "$run" base "$tmp/out" 0
expect hw-run-r-word "R 'two' is not a positive number of repetitions" "$run" patched "$tmp/out" two
: > "$tmp/afile"
expect hw-run-outdir-file "cannot create OUTDIR $tmp/afile/sub" "$run" base "$tmp/afile/sub"
mkdir -p "$tmp/mnt-ro"
if mount -t tmpfs -o ro,size=1m objstock-ro "$tmp/mnt-ro" 2> /dev/null; then
	expect hw-run-outdir-ro "cannot write to OUTDIR $tmp/mnt-ro" "$run" base "$tmp/mnt-ro"
	umount "$tmp/mnt-ro"
else
	skip hw-run-outdir-ro "cannot mount a read-only tmpfs (not root?)"
fi
expect hw-run-workload "unknown workload 'pipe-3' \(have: hackbench-pin-proc-s100 " env WORKLOADS=pipe-3 "$run" base "$tmp/out"
expect hw-run-phases "PHASES 'x' is not a positive number" env PHASES=x "$run" base "$tmp/out"
if [ "$(id -u)" = 0 ]; then
	if ! grep -qw 'cgroup.memory=nokmem' /proc/cmdline; then
		expect hw-run-nokmem 'LABEL nokmem: this kernel was not booted with cgroup.memory=nokmem' \
			env WORKLOADS=pipe-1 "$run" nokmem "$tmp/out"
	fi
	# this host's kernel is not a bench kernel: refused before anything runs
	if [ ! -e /sys/kernel/debug/objstock_phase ] && mountpoint -q /sys/kernel/debug; then
		expect hw-run-not-bench-kernel 'this kernel has no /sys/kernel/debug/objstock_phase: boot a kernel of make pkg' \
			env WORKLOADS=pipe-1 "$run" base "$tmp/out"
		check hw-run-nothing-run 'a refused run leaves no repetition directory' \
			bash -c '! ls -d "$1"/base-* 2> /dev/null' _ "$tmp/out"
	fi
else
	skip hw-run-nokmem "not root"
fi

# --- make pkg: PKG_KCONFIG, and config.sh -b (a machine's config + fragments) ----
expect pkg-kconfig-missing "PKG_KCONFIG=.*no-such.config: bench, localmodconfig or a readable kconfig file" \
	env PKG_KCONFIG="$tmp/no-such.config" "$TOP/scripts/pkg.sh"
echo 'not a config' > "$tmp/not.config"
expect pkg-kconfig-not-config "PKG_KCONFIG=.*not.config: not a kconfig file" \
	env PKG_KCONFIG="$tmp/not.config" "$TOP/scripts/pkg.sh"
if [ ! -r "/boot/config-$(uname -r)" ]; then
	expect pkg-kconfig-localmod "PKG_KCONFIG=localmodconfig: no /boot/config-$(uname -r)" \
		env PKG_KCONFIG=localmodconfig "$TOP/scripts/pkg.sh"
fi
mkdir -p "$tmp/ksrc-b"
printf 'olddefconfig:\n\t@true\n' > "$tmp/ksrc-b/Makefile"
printf '%s\n' 'CONFIG_NR_CPUS=8192' 'CONFIG_SYSTEM_TRUSTED_KEYS="debian/certs/debian-uefi-certs.pem"' \
	'CONFIG_MODULE_SIG_KEY="certs/signing_key.pem"' '# CONFIG_MEMCG is not set' > "$tmp/machine.config"
printf 'CONFIG_MEMCG=y\r\n' > "$tmp/frag-b.config"
"$TOP/scripts/config.sh" -b "$tmp/machine.config" "$tmp/ksrc-b" "$tmp/obj-b" "$tmp/frag-b.config" > /dev/null 2>&1
check config-b-start 'config.sh -b: the machine config, its certificate paths dropped, the fragments last' \
	bash -c 'grep -qx CONFIG_NR_CPUS=8192 "$1" && ! grep -q "KEYS=\|SIG_KEY=" "$1" && [ "$(tail -1 "$1")" = CONFIG_MEMCG=y ]' \
	_ "$tmp/obj-b/.config"
printf 'CONFIG_NR_CPUS=64\n' > "$tmp/machine.config"
"$TOP/scripts/config.sh" -b "$tmp/machine.config" "$tmp/ksrc-b" "$tmp/obj-b" "$tmp/frag-b.config" > /dev/null 2>&1
check config-b-changed 'config.sh -b: another machine config is a new config, not "unchanged"' \
	grep -qx CONFIG_NR_CPUS=64 "$tmp/obj-b/.config"
expect config-l-needs-b 'config.sh: -l needs -b' "$TOP/scripts/config.sh" -l "$tmp/lsmod" "$tmp/ksrc-b" "$tmp/obj-b" "$tmp/frag-b.config"

# --- make report: the render/merge step; make (all) is still the bench ----------
check make-all-bench 'make and make all run the bench (scripts/bench.sh)' \
	bash -c 'make -n -s -C "$1" | grep -q "scripts/bench.sh" && make -n -s -C "$1" all | grep -q "scripts/bench.sh"' _ "$TOP"
check make-report-no-bench 'make report runs no bench' bash -c '! make -n -s -C "$1" report | grep -q bench.sh' _ "$TOP"
make -s -C "$TOP" report RESULTS="$TOP/tests/fixtures/hw/qemu.json $TOP/tests/fixtures/hw/hw.json" OUT="$tmp/rep" > /dev/null 2>&1
check make-report-merge 'make report RESULTS="qemu.json hw.json" OUT=...: one report.md with both' \
	bash -c 'head -1 "$1" | grep -q "^# objstock A/B report: Linux 7.3.4" && grep -q "^## Real hardware: bigbox" "$1"' _ "$tmp/rep/report.md"
expect make-report-missing "cannot read $tmp/nope.json" make -s -C "$TOP" report RESULTS="$tmp/nope.json" OUT="$tmp/rep2"
