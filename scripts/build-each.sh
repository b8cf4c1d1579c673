#!/usr/bin/env bash
# build-each: build the kernel after each patch of the series, so that every
# patch builds on its own (bisectability).  One checkout ($CACHE/each-src) and
# one object dir ($CACHE/obj/each), the check config (series.config
# included): each step recompiles what its patch touched (ccache).  Writes
# 'build-each:NNNN PASS|FAIL subject' lines to OUT (default stdout).
#   build-each.sh [OUT]
. "$(dirname "$0")/lib.sh"

check_knobs
out=${1:-/dev/stdout}
"$TOP/scripts/tree.sh"
tree_register
src=$CACHE/each-src obj=$CACHE/obj/each
if ! git -C "$src" rev-parse -q --verify HEAD > /dev/null 2>&1; then
	rm -rf -- "$src"
	git -C "$TREE" worktree prune
	git -C "$TREE" worktree add -q --detach "$src" objstock-base ||
		die "cannot check out objstock-base into $src"
fi
mapfile -t base_frags < <(fragments "$TREE")
# config/series.config only once the checkout has the options it sets
series_frag() {
	local opt
	[ -s "$TOP/config/series.config" ] || return 0
	for opt in $(sed -n 's/^CONFIG_\([A-Z0-9_]*\)=.*/\1/p' "$TOP/config/series.config"); do
		grep -rqx --include='Kconfig*' "config $opt" "$src" || return 0
	done
	echo "$TOP/config/series.config"
}
mapfile -t commits < <(git -C "$TREE" rev-list --reverse objstock-base..HEAD)
[ "${#commits[@]}" -gt 0 ] || die "the series is empty: nothing to build"
fails=0 i=0
for c in "${commits[@]}"; do
	i=$((i + 1))
	subj=$(git -C "$TREE" log -1 --format=%s "$c")
	git -C "$src" checkout -q --detach "$c" || die "cannot check out $c in $src"
	n=$(printf '%04d' "$i")
	mapfile -t frags < <(printf '%s\n' "${base_frags[@]}"; series_frag)
	if "$TOP/scripts/build.sh" "$src" "$obj" "${frags[@]}" > "$obj.$n.log" 2>&1; then
		line="build-each:$n PASS $subj"
	else
		why=$(grep -hm1 'error' "$obj.$n.log" "$obj/build.log" 2> /dev/null | head -1 | cut -c1-120 || true)
		line="build-each:$n FAIL $subj (${why:-see $obj.$n.log})"
		fails=$((fails + 1))
	fi
	echo "$line" >> "$out"
	log build-each "$n/${#commits[@]} $(echo "$line" | cut -d' ' -f2): $subj"
done
[ "$fails" = 0 ] || die "$fails of ${#commits[@]} patches do not build on their own (see $obj.NNNN.log)"
