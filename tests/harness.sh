#!/usr/bin/env bash
# harness: tests of the pipeline itself.  Each case provokes one kind of bad
# input and asserts a one-line error naming the cause and a non-zero exit.
#   harness.sh OUT     writes 'harness:NAME PASS|FAIL detail' lines to OUT
. "$(dirname "$0")/../scripts/lib.sh"

out=$1
: > "$out"
tmp=$(mktemp -d "${TMPDIR:-/tmp}/objstock-harness.XXXXXX")
trap 'umount "$tmp/small" 2>/dev/null; rm -rf "$tmp"' EXIT

# expect NAME REGEX CMD...: CMD must exit non-zero and its stderr must end
# with exactly one 'objstock: error:' line matching REGEX
expect() {
	local name=$1 re=$2; shift 2
	local rc=0
	"$@" > "$tmp/$name.out" 2> "$tmp/$name.err" || rc=$?
	local err n
	err=$(grep '^objstock: error:' "$tmp/$name.err" || true)
	n=$(printf '%s' "$err" | grep -c . || true)
	if [ "$rc" = 0 ]; then
		echo "harness:$name FAIL exited 0" >> "$out"
	elif [ "$n" != 1 ]; then
		echo "harness:$name FAIL $n error lines (rc $rc): $(tail -1 "$tmp/$name.err")" >> "$out"
	elif ! printf '%s\n' "$err" | grep -Eq -- "$re"; then
		echo "harness:$name FAIL wrong error: $err" >> "$out"
	else
		echo "harness:$name PASS $err" >> "$out"
	fi
	log harness "$name: $(tail -1 "$out" | cut -d' ' -f2)"
}

# 1. a base version the archive does not have
expect missing-base 'linux-source-7.3 0\.0-0 is not in .*available: .*7\.3' \
	env CACHE="$tmp/cache" DEB_VERSION=0.0-0 "$TOP/scripts/fetch.sh"

# 2. a full disk: a 1 MiB cache cannot take the base source
mkdir -p "$tmp/small"
if mount -t tmpfs -o size=1m objstock-small "$tmp/small" 2> /dev/null; then
	expect disk-full 'only [0-9]+ MiB free under .*need' \
		env CACHE="$tmp/small" "$TOP/scripts/fetch.sh"
else
	echo "harness:disk-full SKIP cannot mount a tmpfs (not root?)" >> "$out"
fi

# 3. a patch that does not apply: named, with the file it failed at
mkdir -p "$tmp/patches"
cat > "$tmp/patches/0001-broken.patch" <<'EOP'
From 0000000000000000000000000000000000000000 Mon Sep 17 00:00:00 2001
From: Objstock Harness <harness@localhost>
Date: Thu, 1 Jan 2026 00:00:00 +0000
Subject: [PATCH] memcg: a patch whose context is not in 7.3

---
 mm/memcontrol.c | 2 +-
 1 file changed, 1 insertion(+), 1 deletion(-)

diff --git a/mm/memcontrol.c b/mm/memcontrol.c
--- a/mm/memcontrol.c
+++ b/mm/memcontrol.c
@@ -1,3 +1,3 @@
-/* this line is not in mm/memcontrol.c */
+/* neither is this one */
 #include <linux/objstock-harness.h>
 #include <linux/nothing-here.h>
EOP
echo 0001-broken.patch > "$tmp/patches/series"
# a small stand-in for the kernel tree: tree.sh and export.sh only need a git
# repository whose base is tagged objstock-base (the real one takes minutes)
if [ -f "$SRC_DIR/mm/memcontrol.c" ]; then
	mkdir -p "$tmp/tree/mm"
	cp "$SRC_DIR/mm/memcontrol.c" "$tmp/tree/mm/"
	git -C "$tmp/tree" init -q -b objstock
	git -C "$tmp/tree" add -A
	git -C "$tmp/tree" -c user.name=Harness -c user.email=h@localhost commit -q -m base
	git -C "$tmp/tree" tag objstock-base
	expect broken-patch 'patch 0001-broken\.patch does not apply \(failed at mm/memcontrol\.c\)' \
		env TREE="$tmp/tree" PATCHES="$tmp/patches" "$TOP/scripts/tree.sh"

	# 4. make tree + a commit + export round-trips into patches/
	: > "$tmp/patches/series"
	rm "$tmp/patches/0001-broken.patch"
	TREE="$tmp/tree" PATCHES="$tmp/patches" "$TOP/scripts/tree.sh" 2> /dev/null || true
	echo "/* objstock harness round trip */" >> "$tmp/tree/mm/memcontrol.c"
	git -C "$tmp/tree" -c user.name=Harness -c user.email=h@localhost \
		commit -q -a -m "memcg: harness round trip" || true
	if TREE="$tmp/tree" PATCHES="$tmp/patches" "$TOP/scripts/export.sh" 2> /dev/null &&
		[ "$(cat "$tmp/patches/series")" = 0001-memcg-harness-round-trip.patch ] &&
		grep -q 'objstock harness round trip' "$tmp/patches/0001-memcg-harness-round-trip.patch" &&
		[ -f "$tmp/patches/0000-cover-letter.patch" ]; then
		echo "harness:round-trip PASS tree commit exported to patches/" >> "$out"
	else
		echo "harness:round-trip FAIL export did not produce the patch and series" >> "$out"
	fi
	# and re-applying the exported series reproduces the same tree
	FORCE=1 TREE="$tmp/tree" PATCHES="$tmp/patches" "$TOP/scripts/tree.sh" 2> /dev/null || true
	if grep -q 'objstock harness round trip' "$tmp/tree/mm/memcontrol.c"; then
		echo "harness:reapply PASS exported series applies again" >> "$out"
	else
		echo "harness:reapply FAIL exported series did not re-apply" >> "$out"
	fi
	log harness "round-trip: $(grep -c 'round-trip PASS\|reapply PASS' "$out")/2"
else
	echo "harness:broken-patch SKIP no base source yet" >> "$out"
fi

# 5. KVM asked for where there is none
expect no-kvm 'KVM=1 but .* is missing' \
	env KVM=1 KVM_DEV="$tmp/no-kvm" "$TOP/scripts/boot.sh" /dev/null "$tmp/run-kvm" true

# 6. a guest that never finishes is stopped and reported
kernel=${HARNESS_KERNEL:-$CACHE/obj/patched/arch/x86/boot/bzImage}
if [ -f "$kernel" ]; then
	expect guest-hang 'guest did not finish within 40s' \
		env TIMEOUT=40 "$TOP/scripts/boot.sh" "$kernel" "$tmp/run-hang" "sleep 3600"
else
	echo "harness:guest-hang SKIP no kernel built yet" >> "$out"
fi

# 7-8. the bench's knobs: no repetitions, a workload it does not have
expect bench-r0 'R must be at least 1' env R=0 "$TOP/scripts/bench.sh"
expect bench-unknown-workload "unknown workload 'nope' \\(have: hackbench" \
	env WORKLOADS="slab-bulk32-256 nope" "$TOP/scripts/bench.sh"

# 9. an unknown selftest name
expect unknown-selftest "unknown selftest 'test_nonexistent'" \
	env SELFTESTS=test_nonexistent "$TOP/scripts/selftests-build.sh" "$TREE" "$tmp/st"
