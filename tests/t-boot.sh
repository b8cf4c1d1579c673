#!/usr/bin/env bash
# t-boot: scripts/boot.sh's verdict on a guest, with a stub vng
# (tests/fixtures/boot/vng, VNG=...) that prints a fixture console and runs
# the command on the host: crash, missing guest-rc, timeout, the command's
# status.  No QEMU, no kernel.
. "$(dirname "$0")/lib.sh"

fx=$TOP/tests/fixtures/boot
export CACHE=$tmp/cache VNG=$fx/vng
# nothing here may download: a mirror that is not there
export DEB_MIRROR=file://$tmp/no-mirror
kernel=$tmp/bzImage
echo 'not a kernel' > "$kernel"
boot() { "$TOP/scripts/boot.sh" "$kernel" "$@"; }

# status RUNDIR-NAME WANT CMD: boot.sh exits WANT, with no error line
status() {
	local name=$1 want=$2 rc=0; shift 2
	boot "$tmp/$name" "$@" > /dev/null 2> "$tmp/$name.err" || rc=$?
	if [ "$rc" != "$want" ]; then
		fail "$name" "exit $rc, want $want: $(grep -m1 'objstock: error' "$tmp/$name.err")"
	elif grep -q '^objstock: error' "$tmp/$name.err"; then
		fail "$name" "exit $rc but an error line: $(grep -m1 'objstock: error' "$tmp/$name.err")"
	else
		pass "$name" "exit $rc, no error line"
	fi
}

# the command's status is boot.sh's, with no error line
status boot-rc0 0 'echo 0 > guest-rc'
status boot-rc5 5 'echo 5 > guest-rc'

# a command that never wrote guest-rc (vng's own status, 255, is not trusted)
expect boot-no-guest-rc 'guest exited \(vng status 255\) without finishing its command' \
	boot "$tmp/run-norc" 'true'
# guest-rc must hold a status
expect boot-bad-guest-rc "guest wrote 'ok' to .*guest-rc, not a status" \
	boot "$tmp/run-badrc" 'echo ok > guest-rc'

# a guest that never finishes is stopped and reported (was: guest-hang, a real kernel)
expect guest-hang 'guest did not finish within 2s' \
	env TIMEOUT=2 "$TOP/scripts/boot.sh" "$kernel" "$tmp/run-hang" 'sleep 60'

# a crash once the command runs is a failure, even if the command wrote 0
expect boot-panic 'guest kernel crashed after [0-9]+s \((BUG|Kernel panic).*console: .*run-panic/console.log' \
	env STUB_AFTER="$fx/console-panic.txt" "$TOP/scripts/boot.sh" "$kernel" "$tmp/run-panic" 'echo 0 > guest-rc'
expect boot-oops 'guest kernel crashed after [0-9]+s \(Oops: general protection fault' \
	env STUB_AFTER="$fx/console-oops.txt" "$TOP/scripts/boot.sh" "$kernel" "$tmp/run-oops" 'echo 0 > guest-rc'

# a crash before the command started is booted again once (BOOT_RETRIES=1),
# its console kept; twice is a failure
STUB_CRASH_BOOTS=1 boot "$tmp/run-early" 'echo 0 > guest-rc' > /dev/null 2> "$tmp/early.err"
rc=$?
check boot-early-crash-retried 'a crash before the command: booted again, console kept, status 0' \
	test "$rc" = 0 -a -f "$tmp/run-early/console.early-crash-0.log"
expect boot-early-crash-twice 'guest kernel crashed after [0-9]+s \(Oops: int3' \
	env STUB_CRASH_BOOTS=2 "$TOP/scripts/boot.sh" "$kernel" "$tmp/run-early2" 'echo 0 > guest-rc'

# what boot.sh asks vng for: the command, its run dir, TCG (no KVM)
STUB_ARGS=$tmp/args boot "$tmp/run-args" 'echo 0 > guest-rc' > /dev/null 2>&1
check boot-vng-args 'vng gets --exec CMD, --rwdir/--cwd RUNDIR, --disable-kvm' \
	bash -c "grep -qx -- '--disable-kvm' '$tmp/args' && grep -A1 -x -- '--exec' '$tmp/args' | grep -qx 'echo 0 > guest-rc' &&
		grep -A1 -x -- '--cwd' '$tmp/args' | grep -qx '$tmp/run-args'"

# KVM asked for where there is none (was harness.sh's no-kvm)
expect no-kvm 'KVM=1 but .*no-kvm is missing or not writable' \
	env KVM=1 KVM_DEV="$tmp/no-kvm" "$TOP/scripts/boot.sh" "$kernel" "$tmp/run-kvm" true
# a VNG that is not there
expect boot-vng-missing 'VNG=.*not an executable' \
	env VNG="$tmp/no-vng" "$TOP/scripts/boot.sh" "$kernel" "$tmp/run-novng" true
# boot knobs checked before the boot
expect boot-numa-cpus 'NUMA=2 nodes need at least as many CPUS' \
	env CPUS=1 "$TOP/scripts/boot.sh" "$kernel" "$tmp/run-numa" 'echo 0 > guest-rc'
