#!/usr/bin/env bash
# baseline: run the check's tests on the *base* kernel (same config, empty
# series) and update expected/base-$KVER.txt from what it does: the lines of
# what ran (SELFTESTS may pick a subset), keeping the others, the comments,
# the reasons (after '#') and the FLAKY marks.
. "$(dirname "$0")/lib.sh"
check_knobs

"$TOP/scripts/deps.sh"
"$TOP/scripts/fetch.sh"
"$TOP/scripts/tree.sh" --base
base=$CACHE/tree-base
mapfile -t names < <(selftest_names "$base")
check_selftests ${names[@]+"${names[@]}"}
obj=$CACHE/obj/bench-base
run=$CACHE/runs/baseline-$(date +%Y%m%d-%H%M%S)
mkdir -p "$run"
FAIL_RMDIR+=("$run")
mapfile -t frag < <(fragments "$base")
"$TOP/scripts/build.sh" "$base" "$obj" "${frag[@]}"
"$TOP/scripts/selftests-build.sh" "$base" "$obj/selftests-cgroup"
TIMEOUT=${TIMEOUT:-2400} run_or_die "the guest's tests failed to run (see $run)" \
	"$TOP/scripts/boot.sh" "$obj/arch/x86/boot/bzImage" "$run" \
	"$(printf '%q ' "$TOP/guest/check.sh" "$obj/selftests-cgroup")"
# the selftests this run ran (SELFTESTS, SELFTESTS_SKIP): expected-update
# changes their lines and KUnit's, and keeps every other line as it is
ran=$(tr '\n' ' ' < "$obj/selftests-cgroup/objstock-tests")
OBJSTOCK_SELFTESTS=$ran python3 "$TOP/scripts/results.py" "$run" "$base" /dev/null \
	> "$run/summary.txt" || true
[ -s "$run/results.txt" ] || die "no results from the base run (see $run/summary.txt)"
OBJSTOCK_SELFTESTS=$ran "$TOP/scripts/expected-update.py" "$run/results.txt" "$TOP/expected/base-$KVER.txt"
log baseline "expected/base-$KVER.txt updated from $run"
