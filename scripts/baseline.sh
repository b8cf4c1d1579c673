#!/usr/bin/env bash
# baseline: run the check's tests on the *base* kernel (same config, empty
# series) and rewrite expected/base-$KVER.txt from what it does.  Reasons
# already written there (after '#') are kept.
. "$(dirname "$0")/lib.sh"

"$TOP/scripts/deps.sh"
"$TOP/scripts/fetch.sh"
"$TOP/scripts/tree.sh" --base
base=$CACHE/tree-base
obj=$CACHE/obj/bench-base
run=$CACHE/runs/baseline-$(date +%Y%m%d-%H%M%S)
mkdir -p "$run"
mapfile -t frag < <(fragments "$base")
"$TOP/scripts/build.sh" "$base" "$obj" "${frag[@]}"
"$TOP/scripts/selftests-build.sh" "$base" "$obj/selftests-cgroup"
TIMEOUT=${TIMEOUT:-2400} "$TOP/scripts/boot.sh" "$obj/arch/x86/boot/bzImage" "$run" \
	"$TOP/guest/check.sh $obj/selftests-cgroup" || die "guest run failed (see $run)"
python3 "$TOP/scripts/results.py" "$run" "$base" /dev/null > "$run/summary.txt" || true
"$TOP/scripts/expected-update.py" "$run/results.txt" "$TOP/expected/base-$KVER.txt"
log baseline "expected/base-$KVER.txt rewritten from $run"
