#!/usr/bin/env bash
# tree: make $TREE a git repository whose first commit is the untouched base
# (tag objstock-base) and apply patches/series on branch "objstock" with git am.
#   tree.sh          patched tree in $TREE (refuses to drop unexported commits)
#   tree.sh --base   base tree (a worktree at objstock-base) in $CACHE/tree-base
. "$(dirname "$0")/lib.sh"

PATCHES=${PATCHES:-$TOP/patches}
[ -d "$SRC_DIR" ] || "$TOP/scripts/fetch.sh"

git_q() { git -C "$TREE" -c user.name=objstock -c user.email=objstock@localhost "$@"; }

if ! git -C "$TREE" rev-parse -q --verify objstock-base > /dev/null 2>&1; then
	need_space "$CACHE" 3000
	log tree "new git tree in $TREE"
	rm -rf "$TREE"
	cp -a "$SRC_DIR" "$TREE"
	rm -f "$TREE/.objstock-unpacked"
	git_q init -q -b objstock
	git_q config core.autocrlf false
	git_q config gc.auto 0
	git_q add -A -f .
	# a fixed date: the same base gives the same commit id everywhere
	GIT_COMMITTER_DATE="2026-01-01T00:00:00Z" GIT_AUTHOR_DATE="2026-01-01T00:00:00Z" \
		git_q commit -q -m "Linux $(make -s -C "$TREE" kernelversion) (Debian linux-source-$KVER $DEB_VERSION)"
	git_q tag objstock-base
fi

if [ "${1:-}" = --base ]; then
	base=$CACHE/tree-base
	if [ ! -e "$base/.git" ]; then
		log tree "base worktree in $base"
		git_q worktree prune
		git_q worktree add -q --detach "$base" objstock-base
	fi
	exit 0
fi

# series -> list of files
series=()
if [ -f "$PATCHES/series" ]; then
	while read -r p _; do
		case $p in '' | \#*) continue ;; esac
		[ -f "$PATCHES/$p" ] || die "patches/series names $p, which does not exist"
		series+=("$PATCHES/$p")
	done < "$PATCHES/series"
fi
sum=$(cat /dev/null "${series[@]}" | sha256sum | cut -c1-16)

stamp=$TREE/.git/objstock-applied
if [ -f "$stamp" ] && [ "$(cut -d' ' -f1 "$stamp")" = "$sum" ] &&
	[ "$(git_q rev-parse HEAD)" = "$(cut -d' ' -f2 "$stamp")" ]; then
	log apply "series unchanged (${#series[@]} patches), tree up to date"
	exit 0
fi

# Never throw away a developer's work: commits made in the tree since the
# last apply must be exported (make series) first, or FORCE=1.
if [ -f "$stamp" ] && [ "${FORCE:-0}" != 1 ]; then
	applied=$(cut -d' ' -f2 "$stamp")
	if [ "$(git_q rev-parse HEAD)" != "$applied" ] ||
		! git_q diff --quiet HEAD; then
		die "$TREE has commits or changes not in patches/ (run 'make series' to export them, or FORCE=1 to discard)"
	fi
fi

git_q am --abort > /dev/null 2>&1 || true
git_q checkout -q -f -B objstock objstock-base
git_q clean -q -fdx -e /.git
log apply "${#series[@]} patches from patches/series"
for p in "${series[@]}"; do
	if ! out=$(git_q am -q --keep-cr "$p" 2>&1); then
		file=$(printf '%s\n' "$out" | sed -n 's/^error: patch failed: \([^:]*\):.*/\1/p; s/^error: \(.*\): does not exist in index/\1/p' | head -1)
		git_q am --abort > /dev/null 2>&1 || true
		die "patch $(basename "$p") does not apply${file:+ (failed at $file)}"
	fi
done
# the cover letter's subject and blurb become the branch description, which
# export.sh (git format-patch --cover-from-description) writes back
if [ -f "$PATCHES/0000-cover-letter.patch" ]; then
	desc=$(python3 "$TOP/scripts/cover-text.py" "$PATCHES/0000-cover-letter.patch")
	git_q config branch.objstock.description "$desc"
fi
echo "$sum $(git_q rev-parse HEAD)" > "$stamp"
log apply "HEAD $(git_q log -1 --format='%h %s')"
