#!/usr/bin/env bash
# export: write the commits of $TREE (objstock-base..HEAD) back to patches/
# with git format-patch, cover letter included, and rewrite patches/series.
# The cover letter's text is the branch description (git branch
# --edit-description in the tree); tree.sh sets it from the cover letter.
#
# Commits by the placeholder author "Objstock Developers <objstock@localhost>"
# take the exporting user's git identity (user.name and user.email as git
# resolves them in this checkout, not in the tree), as author and in their
# Signed-off-by line (other trailers untouched); the tree's commits are
# rewritten so that tree and patches/ agree.  Without an identity they keep
# the placeholder, with a warning.
#
# patches/ never shrinks by accident: a tree with fewer commits than
# patches/series lists patches is refused (FORCE=1 exports it anyway), and so
# is a tree left by a failed 'make tree'.  The patches are written to a
# scratch directory and moved in only once format-patch succeeded; only the
# files of the old series (and the cover letter) are replaced or removed.
. "$(dirname "$0")/lib.sh"

PATCHES=${PATCHES:-$TOP/patches}
placeholder='Objstock Developers <objstock@localhost>'
stamp=$TREE/.git/objstock-applied
gt() { git -C "$TREE" "$@"; }

gt rev-parse -q --verify objstock-base > /dev/null 2>&1 ||
	die "no tree at $TREE (run 'make tree' first)"
gt diff --quiet HEAD || die "$TREE has uncommitted changes; commit them first"
[ ! -d "$PATCHES/series" ] || die "$PATCHES/series is a directory, not the list of patches"

# the patches there are now: the series, or without one the numbered files
old=()
if [ -f "$PATCHES/series" ]; then
	while IFS= read -r line || [ -n "$line" ]; do
		line=${line%$'\r'}
		read -r p _ <<< "$line" || true
		case $p in '' | \#*) continue ;; esac
		old+=("$p")
	done < "$PATCHES/series"
elif [ -d "$PATCHES" ]; then
	mapfile -t old < <(ls "$PATCHES" | grep -E '^[0-9]{4}-.*\.patch$' | grep -v '^0000-cover-letter' || true)
fi

head=$(gt rev-parse HEAD)
n=$(gt rev-list --count objstock-base..HEAD)
m=${#old[@]}
if [ "${FORCE:-0}" != 1 ]; then
	if [ -f "$stamp" ] && [ "$(cut -d' ' -f1 "$stamp")" = failed ] &&
		[ "$(cut -d' ' -f2 "$stamp")" = "$head" ]; then
		die "the last 'make tree' failed: $TREE holds only part of patches/series (fix patches/ and run 'make tree' again)"
	fi
	[ "$n" -ge "$m" ] ||
		die "$TREE has $n commits over objstock-base but patches/series lists $m patches: not dropping $((m - n)) (run 'make tree' first, or FORCE=1 to export the $n)"
fi
[ "$n" -gt 0 ] || [ "$m" -gt 0 ] || die "$TREE has no commits over objstock-base: nothing to export"
[ -z "$(gt rev-list --merges objstock-base..HEAD)" ] ||
	die "$TREE has merge commits over objstock-base, which git format-patch cannot export"

# the exporting user's identity, as git resolves it here (outside the tree)
uname=$(git -C "$TOP" config user.name || true)
uemail=$(git -C "$TOP" config user.email || true)
me=$placeholder
[ -z "$uname" ] || [ -z "$uemail" ] || me="$uname <$uemail>"

# rewrite the placeholder author and Signed-off-by of the tree's commits as
# $me: same trees, dates and committers, other trailers as they were
if [ "$me" != "$placeholder" ]; then
	parent=$(gt rev-parse objstock-base)
	changed=0
	while read -r c; do
		mapfile -t f < <(gt log -1 --date=raw --format='%an%n%ae%n%ad%n%cn%n%ce%n%cd%n%P' "$c")
		an=${f[0]} ae=${f[1]}
		[ "$an <$ae>" != "$placeholder" ] || an=$uname ae=$uemail
		msg=$(gt cat-file commit "$c" | sed '1,/^$/d' |
			PH="Signed-off-by: $placeholder" ME="Signed-off-by: $me" awk '
			{ line[NR] = $0; if ($0 == ENVIRON["ME"]) have = 1 }
			END {
				for (i = 1; i <= NR; i++)
					if (line[i] != ENVIRON["PH"]) print line[i]
					else if (!have) print ENVIRON["ME"]
			}')
		if [ "$an" = "${f[0]}" ] && [ "$ae" = "${f[1]}" ] && [ "$parent" = "${f[6]}" ] &&
			[ "$msg" = "$(gt cat-file commit "$c" | sed '1,/^$/d')" ]; then
			parent=$c
			continue
		fi
		parent=$(printf '%s\n' "$msg" |
			GIT_AUTHOR_NAME=$an GIT_AUTHOR_EMAIL=$ae GIT_AUTHOR_DATE="@${f[2]}" \
			GIT_COMMITTER_NAME=${f[3]} GIT_COMMITTER_EMAIL=${f[4]} GIT_COMMITTER_DATE="@${f[5]}" \
			gt commit-tree --no-gpg-sign "$c^{tree}" -p "$parent") || die "cannot rewrite commit $c"
		changed=$((changed + 1))
	done < <(gt rev-list --reverse objstock-base..HEAD)
	if [ "$changed" -gt 0 ]; then
		gt update-ref -m "objstock export: $placeholder -> $me" HEAD "$parent" "$head"
		log export "$changed commits: placeholder author -> $me"
		head=$parent
	fi
elif gt log --format='%an <%ae>' objstock-base..HEAD | grep -qxF "$placeholder"; then
	log export "warning: no git user.name/user.email configured: patches keep the placeholder author $placeholder"
fi

mkdir -p "$PATCHES"
out=$(mktemp -d "$PATCHES/.export.XXXXXX")
# then lib.sh's EXIT trap (on_exit): a stray failure still gets its one line
declare -F on_exit > /dev/null || on_exit() { :; }
trap 'rc=$?; rm -rf "$out"; (exit "$rc") || on_exit' EXIT
if [ "$n" -gt 0 ]; then
	# the cover letter's From: is the committer
	cname=${me% <*} cemail=${me##*<}
	GIT_COMMITTER_NAME=$cname GIT_COMMITTER_EMAIL=${cemail%>} \
		gt -c core.abbrev=12 format-patch -q --cover-letter --cover-from-description=subject \
		--no-signature --zero-commit -o "$out" objstock-base..HEAD > /dev/null 2> "$out/.log" ||
		die "git format-patch failed: $(grep -m1 . "$out/.log")"
fi
mapfile -t new < <(ls "$out" | grep -E '^[0-9]{4}-.*\.patch$' | grep -v '^0000-cover-letter' || true)
[ "${#new[@]}" = "$n" ] || die "git format-patch wrote ${#new[@]} patches for $n commits"

# into place: the new files, then away with the old series' files that are
# not in the new one (format-patch names only), then the series
for f in "$out"/*.patch; do
	[ -e "$f" ] || continue
	mv -f "$f" "$PATCHES/"
done
declare -A written=()
for p in "${new[@]}"; do written[$p]=1; done
for p in "${old[@]}"; do
	[[ $p =~ ^[0-9]{4}-[^/]*\.patch$ ]] || continue
	[ -n "${written[$p]:-}" ] || rm -f "$PATCHES/$p"
done
if [ "$n" -gt 0 ]; then printf '%s\n' "${new[@]}"; fi > "$out/series"
mv -f "$out/series" "$PATCHES/series"

# the tree is now in sync with patches/: record it so tree.sh sees no unexported work
sum=$(cd "$PATCHES" && cat /dev/null "${new[@]}" | sha256sum | cut -c1-16)
echo "$sum $head" > "$stamp"
log export "$n patches -> $PATCHES (series rewritten)"
