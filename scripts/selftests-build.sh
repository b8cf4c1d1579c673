#!/usr/bin/env bash
# selftests-build: build tools/testing/selftests/cgroup of a tree on the host
# into OUTDIR, with the list of tests to run in OUTDIR/objstock-tests.
#   selftests-build.sh SRCTREE OUTDIR
. "$(dirname "$0")/lib.sh"

src=$(realpath -m "$1") out=$(realpath -m "$2")
mkdir -p "$out"
log selftest "build tools/testing/selftests/cgroup -> $out"
make -C "$src/tools/testing/selftests/cgroup" OUTPUT="$out" -j"${JOBS:-$(nproc)}" \
	> "$out/build.log" 2>&1 || {
	grep -m5 'error' "$out/build.log" >&2
	die "cgroup selftests failed to build (see $out/build.log)"
}
# shell tests and their helpers run from the same directory
cp "$src"/tools/testing/selftests/cgroup/*.sh "$out"/
# the programs the kselftest Makefile declares, in its order
make -s -C "$src/tools/testing/selftests/cgroup" OUTPUT="$out" \
	-f Makefile -f - objstock-list <<'EOM' > "$out/objstock-tests.all"
objstock-list:
	@for t in $(TEST_GEN_PROGS) $(TEST_PROGS); do echo $$(basename $$t); done
EOM
[ -s "$out/objstock-tests.all" ] || die "no cgroup selftests found in $src"
# SELFTESTS limits the run (names, space separated); SELFTESTS_SKIP drops some
sel=${SELFTESTS:-$(cat "$out/objstock-tests.all")}
for t in $sel; do
	grep -qx "$t" "$out/objstock-tests.all" || die "unknown selftest '$t' (have: $(tr '\n' ' ' < "$out/objstock-tests.all"))"
	case " ${SELFTESTS_SKIP:-} " in *" $t "*) continue ;; esac
	echo "$t"
done > "$out/objstock-tests"
log selftest "$(wc -l < "$out/objstock-tests") tests: $(tr '\n' ' ' < "$out/objstock-tests")"
