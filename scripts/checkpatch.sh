#!/usr/bin/env bash
# checkpatch: scripts/checkpatch.pl --strict on every patch of the series.
# Writes 'checkpatch:NAME PASS|FAIL detail' lines to OUT; any ERROR or WARNING
# fails that patch, and so does a checkpatch.pl that did not check it: an
# exit status other than 0 (clean) or 1 (something reported), or no summary
# line ('total: N errors, N warnings, N checks, N lines checked').  A series
# file that is missing or names no patch is an error.
#   checkpatch.sh KTREE OUT
. "$(dirname "$0")/lib.sh"

[ $# = 2 ] || die "usage: checkpatch.sh KTREE OUT"
ktree=$1 out=$2
: > "$out"
PATCHES=$(realpath -m -- "${PATCHES:-$TOP/patches}")     # checkpatch.pl runs in KTREE
series=$PATCHES/series
nope() {
	echo "checkpatch:series FAIL $*" >> "$out"
	die "$*"
}
[ -f "$series" ] || nope "no series file at $series"
mapfile -t names < <(awk '{ sub(/\r$/, "") } !/^[[:space:]]*(#|$)/ {print $1}' "$series")
[ ${#names[@]} -gt 0 ] || nope "$series names no patch"

for p in "${names[@]}"; do
	if [ ! -s "$PATCHES/$p" ]; then
		echo "checkpatch:$p FAIL no such patch (or empty): $PATCHES/$p" >> "$out"
		continue
	fi
	# not --terse: it drops the summary line of a clean patch, the proof
	# that checkpatch.pl read it through
	# --ignore UNKNOWN_COMMIT_ID: the base is Debian's source package, a
	# tree without upstream history, so checkpatch cannot look up the
	# commit a Fixes: tag names (every other check stays on)
	rc=0
	res=$(cd "$ktree" && PATH=/usr/bin:$PATH ./scripts/checkpatch.pl --strict --show-types \
		--ignore UNKNOWN_COMMIT_ID "$PATCHES/$p" 2>&1) || rc=$?
	total=$(printf '%s\n' "$res" | grep -E '^total: [0-9]+ errors, [0-9]+ warnings, [0-9]+ checks' | tail -1 || true)
	# an ERROR or WARNING report, with the line that says where
	bad=$(printf '%s\n' "$res" | grep -E -A1 '^(ERROR|WARNING):' | grep -v '^--$' || true)
	if [ "$rc" != 0 ] && [ "$rc" != 1 ]; then
		# the first line says why (perl: "Can't locate Foo.pm in @INC ...")
		why=$(printf '%s\n' "$res" | grep . | head -1 | sed 's/^.*checkpatch\.sh: line [0-9]*: //' | cut -c1-200 || true)
		echo "checkpatch:$p FAIL checkpatch.pl exited $rc: ${why:-no output}" >> "$out"
		printf '%s\n' "$res" | tail -5 | sed 's/^/  /' >&2
	elif [ -z "$total" ]; then
		why=$(printf '%s\n' "$res" | grep . | tail -1 || true)
		echo "checkpatch:$p FAIL checkpatch.pl printed no summary (exit $rc): ${why:-no output}" >> "$out"
	elif [ -n "$bad" ] || ! [[ $total =~ ^total:\ 0\ errors,\ 0\ warnings, ]]; then
		echo "checkpatch:$p FAIL $(sed -E 's/, [0-9]+ lines checked.*//' <<< "$total"): $(printf '%s\n' "$bad" | head -1)" >> "$out"
		printf '%s\n' "$bad" | sed 's/^/  /' >&2
	else
		checks=$(sed -E 's/.* ([0-9]+) checks.*/\1/' <<< "$total")
		echo "checkpatch:$p PASS ${checks} CHECKs" >> "$out"
	fi
done
log checkpatch "${#names[@]} patches: $(grep -c ' PASS' "$out" || true) clean, $(grep -c ' FAIL' "$out" || true) failed"
