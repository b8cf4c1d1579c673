# shellcheck shell=bash
# Helpers for the harness's own tests (tests/t-*.sh).  Sourced, never run.
# Each test file prints one line per case on stdout:
#   harness:NAME PASS|FAIL|SKIP detail
# and needs no kernel build and no boot: it works on small stand-ins (a tiny
# git tree, a stub vng, TAP fixtures) in a scratch directory $tmp.
. "$(dirname "${BASH_SOURCE[0]}")/../scripts/lib.sh"
set +e

tmp=$(mktemp -d "${TMPDIR:-/tmp}/objstock-test.XXXXXX")
trap 'umount "$tmp"/mnt-* 2>/dev/null; rm -rf "$tmp"' EXIT

pass() { echo "harness:$1 PASS ${*:2}"; }
fail() { echo "harness:$1 FAIL ${*:2}"; }
skip() { echo "harness:$1 SKIP ${*:2}"; }

# check NAME 'what it shows' CONDITION-CMD...: PASS if CMD exits 0
check() {
	local name=$1 what=$2; shift 2
	if "$@" > "$tmp/$name.check" 2>&1; then
		pass "$name" "$what"
	else
		fail "$name" "$what: $(tail -1 "$tmp/$name.check")"
	fi
}

# expect NAME REGEX CMD...: CMD must exit non-zero and its stderr must hold
# exactly one 'objstock: error:' line, matching REGEX
expect() {
	local name=$1 re=$2; shift 2
	local rc=0 err n
	"$@" > "$tmp/$name.out" 2> "$tmp/$name.err" < /dev/null || rc=$?
	err=$(grep '^objstock: error:' "$tmp/$name.err")
	n=$(printf '%s' "$err" | grep -c .)
	if [ "$rc" = 0 ]; then
		fail "$name" "exited 0"
	elif [ "$n" != 1 ]; then
		fail "$name" "$n error lines (rc $rc): $(tail -1 "$tmp/$name.err")"
	elif ! grep -Eq -- "$re" <<< "$err"; then
		fail "$name" "wrong error: $err"
	else
		pass "$name" "$err"
	fi
}

# mini_tree DIR: a tiny stand-in for the kernel tree (git, tag objstock-base)
# with an mm/memcontrol.c of a few lines, enough for tree.sh and export.sh
mini_tree() {
	local d=$1
	mkdir -p "$d/mm" "$d/scripts"
	printf '%s\n' '// SPDX-License-Identifier: GPL-2.0' '/* memcontrol.c stand-in */' \
		'#include <linux/memcontrol.h>' 'int objstock_a;' 'int objstock_b;' 'int objstock_c;' \
		> "$d/mm/memcontrol.c"
	git -C "$d" init -q -b objstock
	git -C "$d" add -A
	git -C "$d" -c user.name=Harness -c user.email=h@localhost commit -q -m base
	git -C "$d" tag objstock-base
}
