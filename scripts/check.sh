#!/usr/bin/env bash
# check: the whole test pipeline behind `make check`.
#   knobs -> deps -> the harness's own tests (make test) -> fetch -> apply ->
#   checkpatch -> build -> selftests -> boot+test -> verdict
# Knobs: CACHE, DEB_VERSION, KVM, TIMEOUT, SELFTESTS, SELFTESTS_SKIP, ...
# (README), HARNESS_TESTS=0 to skip the harness's own tests.
. "$(dirname "$0")/lib.sh"

check_knobs
PATCHES=${PATCHES:-$TOP/patches}
DEBUG=${DEBUG:-0}
obj=$CACHE/obj/patched
run=$CACHE/runs/check-$(date +%Y%m%d-%H%M%S)
[ "$DEBUG" = 1 ] && obj=$CACHE/obj/debug run=$CACHE/runs/check-debug-$(date +%Y%m%d-%H%M%S)

"$TOP/scripts/deps.sh"
mkdir -p -- "$run"
FAIL_RMDIR+=("$run")

# the harness's own tests first (a minute, no kernel): their failures count
# in the verdict, and the check goes on
extra=()
if [ "${HARNESS_TESTS:-1}" = 1 ] && [ "$DEBUG" != 1 ]; then
	log test "harness's own tests (make test)"
	hs=$("$TOP/tests/run" "$run/harness.results" 2> "$run/harness.log" | tail -1) || true
	log test "harness: ${hs:-no summary (see $run/harness.log)}"
	[ -n "$hs" ] || echo "harness:run FAIL tests/run printed no summary (see $run/harness.log)" >> "$run/harness.results"
	extra+=("$run/harness.results")
fi

"$TOP/scripts/fetch.sh"
"$TOP/scripts/tree.sh"
tree_register
# the selftest names against the tree just made, before the build
mapfile -t names < <(selftest_names "$TREE")
check_selftests ${names[@]+"${names[@]}"}
"$TOP/scripts/checkpatch.sh" "$TREE" "$run/checkpatch.results"
extra+=("$run/checkpatch.results")

mapfile -t frags < <(fragments "$TREE" series)
[ "$DEBUG" = 1 ] && frags+=("$TOP/config/debug.config")
"$TOP/scripts/build.sh" "$TREE" "$obj" "${frags[@]}"
"$TOP/scripts/selftests-build.sh" "$TREE" "$obj/selftests-cgroup"

# our KUnit suites: every suite of the series' kunit files, re-run from a memcg
suites=$(list_file "$TOP/config/kunit-memcg-suites" 2> /dev/null | tr '\n' ' ' || true)
log test "guest: KUnit${suites:+ (+ $suites from a memcg)}, $(wc -l < "$obj/selftests-cgroup/objstock-tests") cgroup selftests"
# the guest's command line: paths quoted for its shell
gcmd="OBJSTOCK_KUNIT_SUITES='$suites' $(printf '%q ' "$TOP/guest/check.sh" "$obj/selftests-cgroup")"
TIMEOUT=${TIMEOUT:-2400} OBJSTOCK_KUNIT_SUITES="$suites" \
	run_or_die "the guest's tests failed to run (see $run)" \
	"$TOP/scripts/boot.sh" "$obj/arch/x86/boot/bzImage" "$run" "$gcmd"

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
log report "results in $run"
# results.py's status is the verdict (failed tests), not a fault: no error
# line, unless it stopped before its summary
rc=0
OBJSTOCK_DEBUG=$DEBUG OBJSTOCK_SELFTESTS="$(tr '\n' ' ' < "$obj/selftests-cgroup/objstock-tests")" \
	OBJSTOCK_KUNIT_SUITES="$suites" python3 "$TOP/scripts/results.py" "$run" "$TREE" "$TOP/expected/base-$KVER.txt" "${extra[@]}" |
	tee "$run/summary.txt" || rc=$?
[ "$rc" != "$DIE_STATUS" ] || exit "$rc"	# results.py said why
tail -1 "$run/summary.txt" | grep -qE '^[0-9]+ passed, [0-9]+ failed' ||
	die "results.py stopped before its summary (exit $rc; see $run)"
quiet_exit "$rc"
