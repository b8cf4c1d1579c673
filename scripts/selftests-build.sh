#!/usr/bin/env bash
# selftests-build: build tools/testing/selftests/cgroup of a tree on the host
# into OUTDIR, with the list of tests to run in OUTDIR/objstock-tests.
#   selftests-build.sh SRCTREE OUTDIR
# Knobs: SELFTESTS (names, space separated: only these), SELFTESTS_SKIP
# (names to leave out), JOBS.
. "$(dirname "$0")/lib.sh"

[ $# = 2 ] || die "usage: selftests-build.sh SRCTREE OUTDIR"
src=$(realpath -m -- "$1") out=$(realpath -m -- "$2")
dir=$src/tools/testing/selftests/cgroup
[ -f "$dir/Makefile" ] || die "no cgroup selftests in $src (no $dir/Makefile)"
# the programs the kselftest Makefile declares, in its order; the names are
# checked before the build, which takes a while
mapfile -t all < <(selftest_names "$src")
[ ${#all[@]} -gt 0 ] || die "no cgroup selftests found in $dir/Makefile"
check_selftests "${all[@]}"
mkdir -p -- "$out"
printf '%s\n' "${all[@]}" > "$out/objstock-tests.all"
log selftest "build tools/testing/selftests/cgroup -> $out"
if ! make -C "$dir" OUTPUT="$out" -j"${JOBS:-$(nproc)}" > "$out/build.log" 2>&1; then
	grep -m5 -E 'error|Error' "$out/build.log" >&2 || tail -5 "$out/build.log" >&2 || true
	die "cgroup selftests failed to build (see $out/build.log)"
fi
# shell tests and their helpers run from the same directory
for f in "$dir"/*.sh; do
	[ ! -f "$f" ] || cp -- "$f" "$out"/
done
# SELFTESTS limits the run; SELFTESTS_SKIP drops some
set -f
for t in ${SELFTESTS:-${all[*]}}; do
	case " ${SELFTESTS_SKIP:-} " in *" $t "*) continue ;; esac
	echo "$t"
done > "$out/objstock-tests"
set +f
log selftest "$(wc -l < "$out/objstock-tests") tests: $(tr '\n' ' ' < "$out/objstock-tests")"
