#!/usr/bin/env bash
# cover: regenerate the numbers section of patches/0000-cover-letter.patch
# from the A/B results of `make` (RESULTS, default results/latest/results.json)
# and of `make scale` (SCALE_RESULTS, default results/latest-scale/results.json),
# and keep the tree's branch description (which `make series` exports as the
# cover letter) in step.
. "$(dirname "$0")/lib.sh"

RESULTS=${RESULTS:-$TOP/results/latest/results.json}
cover=${PATCHES:-$TOP/patches}/0000-cover-letter.patch
[ -f "$RESULTS" ] || die "no results at $RESULTS (run 'make' first, or set RESULTS=...)"
[ -f "$cover" ] || die "no cover letter at $cover (run 'make series')"
# on bad input cover-numbers.py says what is wrong itself (one 'objstock:
# error:' line, exit $DIE_STATUS) and leaves the cover letter as it was
# the scale table too, from make scale's results (SCALE_RESULTS, default
# results/latest-scale/results.json, when there is one)
SCALE_RESULTS=${SCALE_RESULTS:-$TOP/results/latest-scale/results.json}
scale=()
[ -f "$SCALE_RESULTS" ] && scale=("$SCALE_RESULTS")
run_or_die "could not update $cover" python3 "$TOP/scripts/cover-numbers.py" "$RESULTS" "$cover" ${scale[@]+"${scale[@]}"}
if git -C "$TREE" rev-parse -q --verify objstock-base > /dev/null 2>&1; then
	git -C "$TREE" config branch.objstock.description \
		"$(python3 "$TOP/scripts/cover-text.py" "$cover")"
	log cover "branch description of $TREE updated too"
fi
