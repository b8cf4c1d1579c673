#!/usr/bin/env bash
# checkpatch: scripts/checkpatch.pl --strict on every patch of the series.
# Writes 'checkpatch:NAME PASS|FAIL detail' lines to OUT; any ERROR or WARNING
# fails that patch.
#   checkpatch.sh KTREE OUT
. "$(dirname "$0")/lib.sh"

ktree=$1 out=$2
: > "$out"
PATCHES=${PATCHES:-$TOP/patches}
n=0
while read -r p _; do
	case $p in '' | \#*) continue ;; esac
	n=$((n + 1))
	res=$(cd "$ktree" && PATH=/usr/bin:$PATH ./scripts/checkpatch.pl --strict --terse --show-types \
		"$PATCHES/$p" 2>&1 || true)
	bad=$(printf '%s\n' "$res" | grep -E ': (ERROR|WARNING):' || true)
	checks=$(printf '%s\n' "$res" | grep -c ': CHECK:' || true)
	if [ -n "$bad" ]; then
		echo "checkpatch:$p FAIL $(printf '%s\n' "$bad" | head -1)" >> "$out"
		printf '%s\n' "$bad" | sed 's/^/  /' >&2
	else
		echo "checkpatch:$p PASS ${checks} CHECKs" >> "$out"
	fi
done < <(cat "$PATCHES/series" 2>/dev/null)
log checkpatch "$n patches: $(grep -c ' PASS' "$out" || true) clean, $(grep -c ' FAIL' "$out" || true) with errors/warnings"
