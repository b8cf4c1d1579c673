#!/usr/bin/env bash
# boot: run one command in a guest under QEMU (TCG unless KVM=1) via virtme-ng.
#   boot.sh KERNEL RUNDIR CMD...
# RUNDIR is shared read-write with the guest; the guest's console goes to
# RUNDIR/console.log.  The command must write RUNDIR/guest-rc when it
# finishes: we never trust vng's exit status (it is 255 whenever virtme-init
# cannot name its virtio ports, e.g. on a host without udev).
# Exit status: the command's (RUNDIR/guest-rc), with no error line; a crash
# (Kernel panic, Oops:, BUG: in the console once the command started), a
# timeout or a guest that never wrote guest-rc is one 'objstock: error:' line.
# Knobs: TIMEOUT (s, default 900), CPUS (2), MEM (2G), NUMA (2: nodes),
# KVM (0), KVM_DEV (/dev/kvm), TCG_THREAD (single), QEMU_OPTS, APPEND,
# BOOT_RETRIES (1), VNG (a vng to use instead of scripts/vng-setup.sh's).
. "$(dirname "$0")/lib.sh"

[ $# -ge 3 ] || die "usage: boot.sh KERNEL RUNDIR CMD..."
kernel=$1 rundir=$2; shift 2
check_boot_knobs
KVM=${KVM:-0}
[ -f "$kernel" ] || die "no kernel image at $kernel (build it first)"
rundir=$(realpath -m -- "$rundir")
mkdir -p -- "$rundir"
rm -f -- "$rundir/guest-rc" "$rundir/console.log"
if [ -n "${VNG:-}" ]; then
	vng=$VNG
else
	vng=$("$TOP/scripts/vng-setup.sh")
	command -v qemu-system-x86_64 > /dev/null || die "qemu-system-x86_64 not found (run scripts/deps.sh)"
fi

TIMEOUT=$((10#${TIMEOUT:-900})) CPUS=$((10#${CPUS:-2})) MEM=${MEM:-2G} NUMA=$((10#${NUMA:-2}))
args=(--run "$kernel" --force-9p --user root --verbose --cpus "$CPUS" --memory "$MEM"
	--rwdir "$rundir" --cwd "$rundir"
	--append "panic=-1 oops=panic panic_on_warn=0 no_timer_check brd.rd_size=786432 kunit.stats_enabled=0")
[ "$KVM" = 1 ] || args+=(--disable-kvm)
# TCG runs the vCPUs on one host thread by default (TCG_THREAD=multi: one
# per vCPU, MTTCG). Under MTTCG a vCPU sometimes executes the int3 of a
# text_poke_bp() another vCPU already finished ("Oops: int3" inside a
# 5-byte NOP when a static key flips, e.g. cpusets_enabled_key after
# test_cpuset); with some kernel layouts on every run. The cgroup tests
# take no longer on one thread (make check: 3 min either way).
TCG_THREAD=${TCG_THREAD:-single}
[ "$KVM" = 1 ] || QEMU_OPTS="-accel tcg,thread=$TCG_THREAD ${QEMU_OPTS:-}"
if [ "$NUMA" -gt 1 ]; then
	# one socket per node: with both vCPUs in one socket (QEMU's default)
	# the LLC spans two nodes and smpboot WARNs ("llc-sibling ... is not
	# on the same node"), which a debug run counts as a splat
	[ $((CPUS % NUMA)) = 0 ] && QEMU_OPTS="-smp $CPUS,sockets=$NUMA,cores=$((CPUS / NUMA)),threads=1 ${QEMU_OPTS:-}"
	mem_mb=$(( $(numfmt --from=iec "$MEM") / 1048576 / NUMA ))
	for ((n = 0; n < NUMA; n++)); do
		cpu=$(( n % CPUS ))
		args+=(--numa "${mem_mb}M,cpus=$cpu")
	done
fi
[ -n "${APPEND:-}" ] && args+=(--append "$APPEND")
[ -n "${QEMU_OPTS:-}" ] && args+=("--qemu-opts=$QEMU_OPTS")
args+=(--exec "$*")

log boot "$(basename "$kernel") $(cat "$(dirname "$kernel")/../../../include/config/kernel.release" 2>/dev/null) (${CPUS} vCPU, $MEM, $([ "$KVM" = 1 ] && echo KVM || echo TCG), timeout ${TIMEOUT}s)"
# A kernel that crashes before the command starts is booted again, up to
# BOOT_RETRIES times: a sporadic early-boot Oops of the *base* kernel under
# TCG was seen once (int3, 4 s in).  Each such console is kept, and the
# retry is logged; a crash once the command runs is always a failure.
tail_console() { tail -n "${1:-15}" "$rundir/console.log" | sed 's/^/  console| /' >&2; }
crash_re='Kernel panic|BUG: |Oops: '
BOOT_RETRIES=${BOOT_RETRIES:-1}
for ((attempt = 0; ; attempt++)); do
	start=$(date +%s)
	set +e
	# qemu must not read our stdin (CI has none); the console is the log.
	timeout -k 10 "$TIMEOUT" "$vng" "${args[@]}" < /dev/null > "$rundir/console.log" 2>&1
	vrc=$?
	set -e
	took=$(( $(date +%s) - start ))
	grep -qE "$crash_re" "$rundir/console.log" || break
	oops=$(grep -m1 -oE 'Kernel panic.*|BUG: .*|Oops: .*' "$rundir/console.log" | cut -c1-100)
	if [ "$attempt" -lt "$BOOT_RETRIES" ] && ! grep -q 'virtme-init: starting script' "$rundir/console.log"; then
		mv "$rundir/console.log" "$rundir/console.early-crash-$attempt.log"
		log boot "warning: kernel crashed during boot after ${took}s ($oops), before the command started; console kept in $rundir/console.early-crash-$attempt.log; booting again"
		continue
	fi
	tail_console 25
	die "guest kernel crashed after ${took}s ($oops); console: $rundir/console.log"
done
if [ "$vrc" = 124 ] || [ "$vrc" = 137 ]; then
	tail_console
	die "guest did not finish within ${TIMEOUT}s (TIMEOUT=...); console: $rundir/console.log"
fi
if [ ! -f "$rundir/guest-rc" ]; then
	tail_console
	die "guest exited (vng status $vrc) without finishing its command; console: $rundir/console.log"
fi
grc=$(head -c 16 "$rundir/guest-rc" | tr -d '[:space:]')
case $grc in '' | *[!0-9]*) die "guest wrote '$grc' to $rundir/guest-rc, not a status" ;; esac
[ "$grc" -le 255 ] || die "guest wrote '$grc' to $rundir/guest-rc, not a status"
log boot "guest finished in ${took}s, command status $grc"
quiet_exit "$grc"
