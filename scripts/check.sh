#!/usr/bin/env bash
# check: the whole test pipeline behind `make check`.
#   fetch -> apply -> checkpatch -> build -> selftests -> boot+test -> verdict
# Knobs: CACHE, DEB_VERSION, KVM, TIMEOUT, SELFTESTS, SELFTESTS_SKIP,
# HARNESS_TESTS=0 to skip the harness's own tests.
. "$(dirname "$0")/lib.sh"

PATCHES=${PATCHES:-$TOP/patches}
DEBUG=${DEBUG:-0}
obj=$CACHE/obj/patched
run=$CACHE/runs/check-$(date +%Y%m%d-%H%M%S)
[ "$DEBUG" = 1 ] && obj=$CACHE/obj/debug run=$CACHE/runs/check-debug-$(date +%Y%m%d-%H%M%S)
mkdir -p "$run"

"$TOP/scripts/deps.sh"
"$TOP/scripts/fetch.sh"
"$TOP/scripts/tree.sh"
"$TOP/scripts/checkpatch.sh" "$TREE" "$run/checkpatch.results"

mapfile -t frags < <(fragments "$TREE" series)
[ "$DEBUG" = 1 ] && frags+=("$TOP/config/debug.config")
"$TOP/scripts/build.sh" "$TREE" "$obj" "${frags[@]}"
"$TOP/scripts/selftests-build.sh" "$TREE" "$obj/selftests-cgroup"

# our KUnit suites: every suite of the series' kunit files, re-run from a memcg
suites=$(sed -e '/^#/d' -e '/^$/d' "$TOP/config/kunit-memcg-suites" 2>/dev/null | tr '\n' ' ' || true)
log test "guest: KUnit${suites:+ (+ $suites from a memcg)}, $(wc -l < "$obj/selftests-cgroup/objstock-tests") cgroup selftests"
TIMEOUT=${TIMEOUT:-2400} OBJSTOCK_KUNIT_SUITES="$suites" \
	"$TOP/scripts/boot.sh" "$obj/arch/x86/boot/bzImage" "$run" \
	"OBJSTOCK_KUNIT_SUITES='$suites' $TOP/guest/check.sh $obj/selftests-cgroup" ||
	die "guest run failed (see $run)"

extra=("$run/checkpatch.results")
if [ "$DEBUG" = 1 ]; then
	# the debug kernel's verdict: no splat of any kind in the console
	# (not every 'Call Trace:': the memory.max tests' expected OOM kills
	# print one each)
	splats=$(grep -E 'WARNING:|BUG:|BUG kmalloc|KASAN|Oops|general protection fault|possible (circular|recursive) locking|inconsistent lock state|suspicious RCU usage|sleeping function called from invalid context|INFO: task .* blocked|soft lockup|hard LOCKUP|kernel BUG' \
		"$run/console.log" "$run/dmesg.txt" 2>/dev/null | grep -v 'objstock-guest' | sort -u || true)
	if [ -n "$splats" ]; then
		printf '%s\n' "$splats" | head -20 | sed 's/^/  splat| /' >&2
		echo "debug:splats FAIL $(printf '%s\n' "$splats" | wc -l) splat lines in the console" > "$run/debug.results"
	else
		echo "debug:splats PASS no lockdep, KASAN, WARN or BUG in the console" > "$run/debug.results"
	fi
	extra+=("$run/debug.results")
fi
if [ "${HARNESS_TESTS:-1}" = 1 ] && [ "$DEBUG" != 1 ]; then
	"$TOP/tests/harness.sh" "$run/harness.results" || true
	extra+=("$run/harness.results")
fi
log report "results in $run"
OBJSTOCK_DEBUG=$DEBUG OBJSTOCK_SELFTESTS="$(tr '\n' ' ' < "$obj/selftests-cgroup/objstock-tests")" \
	python3 "$TOP/scripts/results.py" "$run" "$TREE" "$TOP/expected/base-$KVER.txt" "${extra[@]}"
