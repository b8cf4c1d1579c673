#!/usr/bin/env bash
# export: write the commits of $TREE (objstock-base..HEAD) back to patches/
# with git format-patch, cover letter included, and rewrite patches/series.
# The cover letter's text is the branch description (git branch
# --edit-description in the tree); tree.sh sets it from the cover letter.
. "$(dirname "$0")/lib.sh"

PATCHES=${PATCHES:-$TOP/patches}
git -C "$TREE" rev-parse -q --verify objstock-base > /dev/null 2>&1 ||
	die "no tree at $TREE (run 'make tree' first)"
git -C "$TREE" diff --quiet HEAD || die "$TREE has uncommitted changes; commit them first"
n=$(git -C "$TREE" rev-list --count objstock-base..HEAD)
mkdir -p "$PATCHES"
rm -f "$PATCHES"/[0-9][0-9][0-9][0-9]-*.patch
if [ "$n" -gt 0 ]; then
	git -C "$TREE" -c core.abbrev=12 format-patch -q --cover-letter --cover-from-description=subject \
		--no-signature --zero-commit -o "$PATCHES" objstock-base..HEAD > /dev/null
fi
ls "$PATCHES" | grep -E '^[0-9]{4}-.*\.patch$' | grep -v '^0000-cover-letter' > "$PATCHES/series" || true
git -C "$TREE" rev-parse HEAD > /dev/null
# the tree is now in sync with patches/: record it so tree.sh sees no unexported work
sum=$(cd "$PATCHES" && cat /dev/null $(cat series) | sha256sum | cut -c1-16)
echo "$sum $(git -C "$TREE" rev-parse HEAD)" > "$TREE/.git/objstock-applied"
log export "$n patches -> $PATCHES (series rewritten)"
