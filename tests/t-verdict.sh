#!/usr/bin/env bash
# t-verdict: the verdict scripts through their command lines, on stand-in
# run directories, trees and results: results.py (a crashed selftest, a
# missing exit status, KUnit logs without KTAP), checkpatch.sh (a
# checkpatch.pl that cannot run), expected-update.py (`make baseline`: FLAKY
# marks, a SELFTESTS subset), cover.sh / cover-numbers.py (bad results.json).
# Needs no kernel: KUnit logs go through tests/fixtures/verdict/ktree's
# stand-in kunit.py (recorded from the real one).
. "$(dirname "$0")/lib.sh"

fix=$TOP/tests/fixtures/verdict
ktree=$fix/ktree

# --- results.py ------------------------------------------------------------

# mkrun NAME [DMESG]: a run directory with a boot log of fixtures/verdict/kunit
mkrun() {
	local d=$tmp/run-$1
	mkdir -p "$d/selftests" "$d/kunit"
	[ "${2:-boot-ok}" = none-file ] || cp "$fix/kunit/${2:-boot-ok}.ktap" "$d/dmesg.txt"
	printf '# expected\n' > "$d.expected"
	echo "$d"
}
# selftest RUN NAME RC|- TAP: NAME.tap and, unless RC is -, NAME.rc
selftest() {
	printf '%b' "$4" > "$1/selftests/$2.tap"
	[ "$3" = - ] || echo "$3" > "$1/selftests/$2.rc"
}
# verdict NAME RUN REGEX [ENV=VALUE...]: results.py must fail the run and
# print a line matching REGEX
verdict() {
	local name=$1 run=$2 re=$3 rc=0
	shift 3
	env "$@" python3 "$TOP/scripts/results.py" "$run" "$ktree" "$run.expected" \
		> "$tmp/$name.out" 2>&1 || rc=$?
	if [ "$rc" = 0 ]; then
		fail "$name" "exit 0: $(tail -1 "$tmp/$name.out")"
	elif ! grep -Eq -- "$re" "$tmp/$name.out"; then
		fail "$name" "no line /$re/: $(grep -E '^  (fail|known) ' "$tmp/$name.out" | head -1) $(tail -1 "$tmp/$name.out")"
	elif ! tail -1 "$tmp/$name.out" | grep -Eq '^[0-9]+ passed, [1-9][0-9]* failed, [0-9]+ skipped$'; then
		fail "$name" "last line: $(tail -1 "$tmp/$name.out")"
	else
		pass "$name" "$(grep -Em1 -- "$re" "$tmp/$name.out" | sed 's/^ *//')"
	fi
}
# verdict_ok NAME RUN LAST-LINE: results.py passes the run with that summary
verdict_ok() {
	local rc=0
	python3 "$TOP/scripts/results.py" "$2" "$ktree" "$2.expected" > "$tmp/$1.out" 2>&1 || rc=$?
	if [ "$rc" = 0 ] && [ "$(tail -1 "$tmp/$1.out")" = "$3" ]; then
		pass "$1" "$3"
	else
		fail "$1" "exit $rc: $(tail -1 "$tmp/$1.out")"
	fi
}

# the issue's case: plan 1..5, two ok lines, killed by SIGSEGV
r=$(mkrun crash)
selftest "$r" test_kmem 139 'TAP version 13\n1..5\nok 1 test_kmem_basic\nok 2 test_kmem_memcg_deletion\n'
verdict verdict-crashed-selftest "$r" \
	'^  fail   selftest:test_kmem  \(plan 1\.\.5 but 2 results, exit 139 \(SIGSEGV\)\)$'

r=$(mkrun no-rc)
selftest "$r" test_core - 'TAP version 13\n1..1\nok 1 test_cgcore_destroy\n'
verdict verdict-missing-rc "$r" '^  fail   selftest:test_core  \(no exit status \(test_core\.rc missing\)\)$'

r=$(mkrun bad-rc)
selftest "$r" test_core 2 'TAP version 13\n1..1\nok 1 test_cgcore_destroy\n'
verdict verdict-bad-rc "$r" '^  fail   selftest:test_core  \(exit 2\)$'

r=$(mkrun exit1)
selftest "$r" test_core 1 'TAP version 13\n1..1\nok 1 test_cgcore_destroy\n'
verdict verdict-exit1-all-ok "$r" '^  fail   selftest:test_core  \(exit 1 but no case failed\)$'

r=$(mkrun bail)
selftest "$r" test_pids 1 'TAP version 13\n1..3\nok 1 test_pids_max\nBail out! cannot create cgroup\n'
verdict verdict-bail-out "$r" '^  fail   selftest:test_pids  \(Bail out! cannot create cgroup, plan 1\.\.3 but 1 result\)$'

r=$(mkrun timeout)
selftest "$r" test_freezer 124 'TAP version 13\n1..2\nok 1 a\nok 2 b\n'
verdict verdict-timeout "$r" '^  fail   selftest:test_freezer  \(timed out'

r=$(mkrun no-ktap none)
verdict verdict-no-ktap "$r" '^  fail   kunit:dmesg\.txt  \(kunit\.py: Could not find any KTAP output'

r=$(mkrun no-dmesg none-file)
verdict verdict-no-dmesg "$r" '^  fail   kunit:dmesg\.txt  \(no dmesg\.txt'

r=$(mkrun kunit-crash crash-early)
verdict verdict-kunit-crash "$r" '^  fail   kunit:slub_test:missing-2  '

r=$(mkrun memcg-missing)
verdict verdict-memcg-suite-missing "$r" '^  fail   kunit-memcg:memcg_obj_stock  \(no kunit/memcg_obj_stock\.ktap' \
	OBJSTOCK_KUNIT_SUITES=memcg_obj_stock

r=$(mkrun not-run)
selftest "$r" test_core 0 'TAP version 13\n1..1\nok 1 test_cgcore_destroy\n'
verdict verdict-selftest-not-run "$r" '^  fail   selftest:test_kill  \(did not run' \
	OBJSTOCK_SELFTESTS='test_core test_kill'

# good TAP with kselftest's SKIP lines, a known failure, a FLAKY one
r=$(mkrun good)
selftest "$r" test_memcontrol 1 'TAP version 13\n1..4\nok 1 test_memcg_subtree_control\nok 2 # SKIP test_memcg_sock\nnot ok 3 test_memcg_reclaim\nnot ok 4 test_memcg_min\n# Totals: pass:1 fail:2 xfail:0 xpass:0 skip:1 error:0\n'
printf '%s\n' 'selftest:test_memcontrol:test_memcg_sock SKIP  # no reason' \
	'selftest:test_memcontrol:test_memcg_reclaim FLAKY # reclaim-driven' \
	'selftest:test_memcontrol:test_memcg_min FAIL  # env' >> "$r.expected"
verdict_ok verdict-good-tap "$r" '5 passed, 0 failed, 4 skipped'
check verdict-skip-name 'kselftest puts the name after SKIP' \
	grep -qx 'selftest:test_memcontrol:test_memcg_sock SKIP' "$r/results.txt"

r=$(mkrun skip-base-pass)
selftest "$r" test_zswap 0 'TAP version 13\n1..1\nok 1 # SKIP test_zswap_usage\n'
echo 'selftest:test_zswap:test_zswap_usage PASS' >> "$r.expected"
verdict verdict-skip-where-base-passed "$r" '^  fail   selftest:test_zswap:test_zswap_usage  \(passes on base, skipped here'

r=$(mkrun base-pass-not-run)
echo 'selftest:test_zswap:test_zswap_usage PASS' >> "$r.expected"
verdict verdict-did-not-run "$r" '^  fail   selftest:test_zswap:test_zswap_usage  \(passes on base, did not run\)$'

# --- checkpatch.sh ---------------------------------------------------------

mkdir -p "$tmp/cp"
printf 'From: a\nSubject: [PATCH] x\n' > "$tmp/cp/0001-x.patch"
echo 0001-x.patch > "$tmp/cp/series"
# cptree NAME SCRIPT: a stand-in tree whose scripts/checkpatch.pl is SCRIPT
cptree() {
	mkdir -p "$tmp/ct-$1/scripts"
	if [ -n "$2" ]; then
		printf '%b' "$2" > "$tmp/ct-$1/scripts/checkpatch.pl"
		chmod +x "$tmp/ct-$1/scripts/checkpatch.pl"
	fi
	echo "$tmp/ct-$1"
}
# cp_line NAME TREE REGEX: checkpatch.sh's line for the patch must match
cp_line() {
	PATCHES=$tmp/cp "$TOP/scripts/checkpatch.sh" "$2" "$tmp/$1.results" > /dev/null 2>&1
	local line
	line=$(grep '^checkpatch:0001-x.patch ' "$tmp/$1.results" 2> /dev/null)
	if grep -Eq -- "$3" <<< "$line"; then
		pass "$1" "$line"
	else
		fail "$1" "${line:-no line}"
	fi
}
cp_line checkpatch-missing-script "$(cptree none '')" \
	'^checkpatch:0001-x\.patch FAIL checkpatch\.pl exited 127'
cp_line checkpatch-missing-perl-module "$(cptree perl '#!/usr/bin/perl\nuse Objstock::Not::Installed;\n')" \
	'^checkpatch:0001-x\.patch FAIL checkpatch\.pl exited 2: .*Objstock/Not/Installed\.pm'
# a checkpatch.pl that dies of a signal half-way (its report so far is clean)
cp_line checkpatch-crash "$(cptree crash '#!/bin/sh\necho "CHECK:X: y"\nkill -SEGV $$\n')" \
	'^checkpatch:0001-x\.patch FAIL checkpatch\.pl exited 139: CHECK:X: y'
cp_line checkpatch-no-summary "$(cptree silent '#!/bin/sh\nexit 0\n')" \
	'^checkpatch:0001-x\.patch FAIL checkpatch\.pl printed no summary'
cp_line checkpatch-errors "$(cptree err '#!/bin/sh\nprintf "ERROR:MISSING_SIGN_OFF: Missing Signed-off-by: line(s)\\n\\ntotal: 1 errors, 0 warnings, 0 checks, 2 lines checked\\n"\nexit 1\n')" \
	'^checkpatch:0001-x\.patch FAIL total: 1 errors, 0 warnings, 0 checks: ERROR:MISSING_SIGN_OFF'
cp_line checkpatch-clean "$(cptree clean '#!/bin/sh\nprintf "CHECK:X: y\\n\\ntotal: 0 errors, 0 warnings, 2 checks, 9 lines checked\\n"\nexit 1\n')" \
	'^checkpatch:0001-x\.patch PASS 2 CHECKs$'
# the real checkpatch.pl, where the kernel source is unpacked: a clean patch
# of the series passes (its summary line is there without --terse)
src=$SRC_DIR	# $CACHE/src/linux-$DEB_VERSION (lib.sh)
if [ -x "$src/scripts/checkpatch.pl" ]; then
	cp "$TOP/patches/0006-"*.patch "$tmp/cp/0001-x.patch"
	cp_line checkpatch-real "$src" '^checkpatch:0001-x\.patch PASS 0 CHECKs$'
else
	skip checkpatch-real "no kernel source at $src"
fi
mkdir -p "$tmp/cp-none" "$tmp/cp-empty"
printf '# nothing\n\n' > "$tmp/cp-empty/series"
expect checkpatch-no-series 'no series file at .*/cp-none/series' \
	env PATCHES="$tmp/cp-none" "$TOP/scripts/checkpatch.sh" "$tmp/ct-clean" "$tmp/cpn.results"
expect checkpatch-empty-series 'cp-empty/series names no patch' \
	env PATCHES="$tmp/cp-empty" "$TOP/scripts/checkpatch.sh" "$tmp/ct-clean" "$tmp/cpe.results"

# --- expected-update.py (make baseline) ------------------------------------

cat > "$tmp/base.txt" <<'EOF'
# What base 7.3 does in the check guest.
# FLAKY: passes and fails on the same kernel.
selftest:test_core:test_cgcore_destroy                       PASS
selftest:test_cpu:test_cpucg_stats                           FAIL  # timing under TCG
selftest:test_freezer:test_cgfreezer_ptrace                  FLAKY # upstream race
selftest:test_freezer:test_cgfreezer_simple                  PASS
EOF
printf '%s\n' 'selftest:test_core:test_cgcore_destroy PASS' 'selftest:test_cpu:test_cpucg_stats FAIL' \
	'selftest:test_freezer:test_cgfreezer_ptrace PASS' 'selftest:test_freezer:test_cgfreezer_simple PASS' \
	'checkpatch:0001-x.patch PASS' > "$tmp/all.results"
cp "$tmp/base.txt" "$tmp/e1.txt"
"$TOP/scripts/expected-update.py" "$tmp/all.results" "$tmp/e1.txt" 2> /dev/null
check baseline-keeps-flaky 'a FLAKY test that passed stays FLAKY, with its reason' \
	grep -qx 'selftest:test_freezer:test_cgfreezer_ptrace  *FLAKY # upstream race' "$tmp/e1.txt"
check baseline-same-run-same-file 'a run that does what the file says changes no byte' \
	cmp "$tmp/base.txt" "$tmp/e1.txt"
# SELFTESTS=test_freezer: test_core's and test_cpu's lines stay, in order
printf '%s\n' 'selftest:test_freezer:test_cgfreezer_ptrace FAIL' \
	'selftest:test_freezer:test_cgfreezer_simple FAIL' > "$tmp/sub.results"
cp "$tmp/base.txt" "$tmp/e2.txt"
OBJSTOCK_SELFTESTS=test_freezer "$TOP/scripts/expected-update.py" "$tmp/sub.results" "$tmp/e2.txt" 2> /dev/null
sed 's/^\(selftest:test_freezer:test_cgfreezer_simple *\)PASS$/\1FAIL  # TODO: explain/' \
	"$tmp/base.txt" > "$tmp/e2.want"
check baseline-subset 'a SELFTESTS subset updates only its own lines' cmp "$tmp/e2.want" "$tmp/e2.txt"

# --- cover.sh / cover-numbers.py (make cover) ------------------------------

mkdir -p "$tmp/repo/patches" "$tmp/repo/results/2026-11-30-full-r3-final"
cp "$TOP/patches/0000-cover-letter.patch" "$tmp/repo/patches/"
cp "$TOP/results/2026-11-30-full-r3-final/results.json" "$tmp/repo/results/2026-11-30-full-r3-final/"
cover=$tmp/repo/patches/0000-cover-letter.patch
# covenv RESULTS CMD...: cover.sh on the stand-in repository, no tree
covenv() {
	local res=$1
	shift
	env CACHE="$tmp/cache" TREE="$tmp/no-tree" PATCHES="$tmp/repo/patches" RESULTS="$res" "$@"
}
printf '{"meta": {"cpus": "2"' > "$tmp/corrupt.json"
expect cover-corrupt-json 'corrupt\.json is not valid JSON \(line 1 column 22' \
	covenv "$tmp/corrupt.json" "$TOP/scripts/cover.sh"
check cover-corrupt-json-untouched 'the cover letter stays byte-identical' \
	cmp "$TOP/patches/0000-cover-letter.patch" "$cover"
python3 -c 'import json, sys; r = json.load(open(sys.argv[1])); del r["workloads"]; json.dump(r, open(sys.argv[2], "w"))' \
	"$TOP/results/2026-11-30-full-r3-final/results.json" "$tmp/nowl.json"
expect cover-no-workloads 'nowl\.json: no "workloads"' covenv "$tmp/nowl.json" "$TOP/scripts/cover.sh"
python3 -c 'import json, sys; r = json.load(open(sys.argv[1])); [s.update(kernel="b") for s in r["samples"]]; json.dump(r, open(sys.argv[2], "w"))' \
	"$TOP/results/2026-11-30-full-r3-final/results.json" "$tmp/nokernel.json"
expect cover-bad-samples 'nokernel\.json: sample 0: "kernel" is "b", not "base", "patched" or "nokmem"' \
	covenv "$tmp/nokernel.json" "$TOP/scripts/cover.sh"
check cover-bad-samples-untouched 'the cover letter stays byte-identical' \
	cmp "$TOP/patches/0000-cover-letter.patch" "$cover"
# the run the committed cover letter names ('[numbers: make cover, from results/RUN/results.json]')
named=$(sed -n 's|^\[numbers: make cover, from \(results/[^ ]*\)/results\.json\]$|\1|p' "$TOP/patches/0000-cover-letter.patch")
mkdir -p "$tmp/repo/$named"
cp "$TOP/$named/results.json" "$tmp/repo/$named/" 2> /dev/null
python3 "$TOP/scripts/cover-numbers.py" "$tmp/repo/$named/results.json" "$cover" > /dev/null 2>&1
check cover-committed 'cover-numbers of the run the cover letter names reproduces it' \
	cmp "$TOP/patches/0000-cover-letter.patch" "$cover"
