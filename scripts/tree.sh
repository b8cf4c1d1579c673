#!/usr/bin/env bash
# tree: make $TREE a git repository whose first commit is the untouched base
# (tag objstock-base; its message names the Debian version) and apply
# patches/series on branch "objstock" with git am.
#   tree.sh          patched tree in $TREE (refuses to drop unexported commits)
#   tree.sh --base   base tree (a worktree at objstock-base) in $CACHE/tree-base
# patches/series lists one patch file a line (blank lines, '#' comments and
# CRLF line ends are fine); a missing or empty series is an error
# (SERIES_EMPTY_OK=1 accepts an empty one: the bare base, for tests).
# A tree whose base is not DEB_VERSION is made again on DEB_VERSION, unless
# it holds unexported work (FORCE=1 discards it, here as for a new series).
# $TREE/.git/objstock-applied is "SUM HEAD": the HEAD that tree.sh or
# export.sh left, in sync with the patches/ whose sha256 starts with SUM
# ("failed" after an apply that failed); anything past it is unexported work.
# $TREE/.git/objstock-users/PID: a run using the tree (lib.sh's tree_register);
# another series is not applied under a live one.
. "$(dirname "$0")/lib.sh"

PATCHES=${PATCHES:-$TOP/patches}
mode=${1:-}
case $mode in '' | --base) ;; *) die "usage: tree.sh [--base] (got '$mode')" ;; esac

git_q() { git -C "$TREE" -c user.name=objstock -c user.email=objstock@localhost "$@"; }
stamp=$TREE/.git/objstock-applied

# series -> list of files (the base tree does not read it)
series=()
if [ -z "$mode" ]; then
	sf=$PATCHES/series
	[ ! -d "$sf" ] || die "$sf is a directory, not the list of patches"
	[ -f "$sf" ] || die "$sf is missing (it lists the patches to apply, one a line)"
	while IFS= read -r line || [ -n "$line" ]; do
		line=${line%$'\r'}
		read -r p _ <<< "$line" || true
		case $p in '' | \#*) continue ;; esac
		[ -f "$PATCHES/$p" ] || die "patches/series names $p, which does not exist"
		series+=("$PATCHES/$p")
	done < "$sf"
	[ ${#series[@]} -gt 0 ] || [ "${SERIES_EMPTY_OK:-0}" = 1 ] ||
		die "$sf lists no patches"
fi
sum=$(cat /dev/null "${series[@]}" | sha256sum | cut -c1-16)

[ -d "$SRC_DIR" ] || "$TOP/scripts/fetch.sh"

# unexported: what in $TREE is not in patches/, with the way out (empty: none).
# The reference is the HEAD the stamp records (the base if there is none).
unexported() {
	local applied=
	[ -f "$stamp" ] && applied=$(cut -d' ' -f2 "$stamp")
	[ -n "$applied" ] || applied=$(git_q rev-parse objstock-base)
	if [ "$(git_q rev-parse HEAD)" != "$applied" ]; then
		echo "commits not in patches/ (run 'make series' to export them, or FORCE=1 to discard)"
	elif ! git_q diff --quiet HEAD; then
		echo "uncommitted changes (commit them and run 'make series', or FORCE=1 to discard)"
	elif [ -n "$(git_q ls-files -o --exclude-standard --directory | head -1)" ]; then
		echo "untracked files (add and commit them and run 'make series', or FORCE=1 to discard)"
	fi
}

# the Debian version the tree's base was made from (empty: not a tree of ours)
base_version() {
	git_q log -1 --format=%s objstock-base | sed -n 's/.*(Debian linux-source-[^ ]* \([^ )]*\))$/\1/p'
}

# Never change the tree under a run that is building or testing from it
# (lib.sh's tree_register records it: series sum, start time, DEB_VERSION,
# checkout) a series or base other than this one: a check or bench of
# another checkout with the same CACHE.  Records of runs that are gone are
# dropped; the caller itself (a run applying again) does not count.  The
# base tree (--base) only needs the same DEB_VERSION.
in_use() {
	local u pid usum ustart uver utop
	for u in "$TREE/.git/objstock-users"/*; do
		[ -f "$u" ] || continue
		pid=${u##*/}
		usum= ustart= uver= utop=
		read -r usum ustart uver utop < "$u" || true
		if [ -z "$ustart" ] || [ "$(proc_start "$pid")" != "$ustart" ]; then
			rm -f -- "$u"
			continue
		fi
		[ "$pid" != "$PPID" ] || continue
		[ "$uver" != "$DEB_VERSION" ] || { [ "$mode" != --base ] && [ "$usum" != "$sum" ]; } || continue
		if [ "${FORCE:-0}" = 1 ]; then
			log tree "FORCE=1: changing the tree under pid $pid ($utop)"
			continue
		fi
		die "$TREE is in use by a run of another series (pid $pid: $(tr '\0' ' ' < "/proc/$pid/cmdline" 2> /dev/null | cut -c1-60 | sed 's/ *$//'), from $utop, DEB_VERSION=$uver); wait for it, give this run its own CACHE, or FORCE=1"
	done
}
# whether the tree already holds this series (as tree.sh or export.sh left it)
up_to_date() {
	[ -f "$stamp" ] && [ "$(cut -d' ' -f1 "$stamp")" = "$sum" ] &&
		[ "$(git_q rev-parse HEAD)" = "$(cut -d' ' -f2 "$stamp")" ]
}
# a tree that stays as it is changes nothing under anyone
if [ -d "$TREE/.git" ] && { [ "$mode" = --base ] || [ "$(base_version)" != "$DEB_VERSION" ] || ! up_to_date; }; then
	in_use
fi

if git_q rev-parse -q --verify objstock-base > /dev/null 2>&1; then
	have=$(base_version)
	if [ -n "$have" ] && [ "$have" != "$DEB_VERSION" ]; then
		why=$(unexported)
		[ -z "$why" ] || [ "${FORCE:-0}" = 1 ] ||
			die "$TREE is based on $have, not DEB_VERSION=$DEB_VERSION, and has $why"
		log tree "base $have is not DEB_VERSION=$DEB_VERSION: making the tree again"
		rm -rf "$TREE"
	fi
fi

if ! git_q rev-parse -q --verify objstock-base > /dev/null 2>&1; then
	need_space "$CACHE" 3000
	log tree "new git tree in $TREE"
	rm -rf "$TREE"
	cp -a "$SRC_DIR" "$TREE"
	rm -f "$TREE/.objstock-unpacked"
	# newer than what obj/ holds from an earlier tree (make compares times),
	# and one time for all, so that no file looks newer than what it made
	now=$(date +%s)
	find "$TREE" -exec touch -h -d "@$now" {} +
	git_q init -q -b objstock
	git_q config core.autocrlf false
	git_q config gc.auto 0
	git_q add -A -f .
	# a fixed date: the same base gives the same commit id everywhere
	GIT_COMMITTER_DATE="2026-01-01T00:00:00Z" GIT_AUTHOR_DATE="2026-01-01T00:00:00Z" \
		git_q commit -q -m "Linux $(make -s -C "$TREE" kernelversion) (Debian linux-source-$KVER $DEB_VERSION)"
	git_q tag objstock-base
fi

if [ "$mode" = --base ]; then
	base=$CACHE/tree-base
	# a worktree of an earlier tree (another base) is made again
	if [ "$(git -C "$base" rev-parse -q --verify HEAD 2> /dev/null)" != "$(git_q rev-parse objstock-base)" ]; then
		log tree "base worktree in $base"
		rm -rf "$base"
		git_q worktree prune
		git_q worktree add -q --detach "$base" objstock-base
	fi
	exit 0
fi

if up_to_date; then
	log apply "series unchanged (${#series[@]} patches), tree up to date"
	exit 0
fi

# Never throw away a developer's work: commits made in the tree since the
# last apply or export must be exported (make series) first, or FORCE=1.
why=$(unexported)
[ -z "$why" ] || [ "${FORCE:-0}" = 1 ] || die "$TREE has $why"

# From here on the tree is ours: whatever stops the apply (a patch that does
# not apply, an interrupt) records where it left the tree, so that the next
# run applies again instead of taking that state for unexported work.
# (lib.sh's EXIT trap, on_exit, still runs after: a stray failure gets its line)
applied_failed() {
	git_q am --abort > /dev/null 2>&1 || true
	{ echo "failed $(git_q rev-parse HEAD)" > "$stamp"; } 2> /dev/null || true
}
declare -F on_exit > /dev/null || on_exit() { :; }
lib_exit_trap=$(trap -p EXIT)
trap 'rc=$?; applied_failed; (exit "$rc") || on_exit' EXIT
trap 'exit 130' INT TERM

git_q am --abort > /dev/null 2>&1 || true
git_q checkout -q -f -B objstock objstock-base
git_q clean -q -fdx -e /.git
log apply "${#series[@]} patches from patches/series"
for p in "${series[@]}"; do
	if ! out=$(git_q am -q --keep-cr "$p" 2>&1); then
		file=$(printf '%s\n' "$out" | sed -n 's/^error: patch failed: \([^:]*\):.*/\1/p; s/^error: \(.*\): does not exist in index/\1/p' | head -1)
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
trap - INT TERM
eval "${lib_exit_trap:-trap - EXIT}"
log apply "HEAD $(git_q log -1 --format='%h %s')"
