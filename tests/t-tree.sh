#!/usr/bin/env bash
# t-tree: scripts/tree.sh and scripts/export.sh on a stand-in kernel (the
# mini_tree memcontrol.c, unpacked as a fake linux-source in a scratch
# cache) with a small series made here: no real kernel source, no network.
. "$(dirname "$0")/lib.sh"

export CACHE=$tmp/cache TREE=$tmp/cache/tree
export GIT_CONFIG_NOSYSTEM=1 GIT_CONFIG_GLOBAL=$tmp/gitconfig
git config --file "$tmp/gitconfig" user.name 'Ada Lovelace'
git config --file "$tmp/gitconfig" user.email ada@example.org
V1=7.3.4-1~bpo13+1 V2=7.3.5-1~bpo13+1
export DEB_VERSION=$V1
placeholder='Objstock Developers <objstock@localhost>'

# the base: mini_tree's files, and a fake unpacked linux-source per version
mini_tree "$tmp/m"
fake_src() {
	local d=$CACHE/src/linux-$1
	mkdir -p "$d"
	cp -a "$tmp/m/mm" "$d/"
	echo "$1" > "$d/objstock-debian-version"
	printf 'kernelversion:\n\t@echo %s\n' "${1%%-*}" > "$d/Makefile"
	touch "$d/.objstock-unpacked"
	find "$d" -exec touch -d 2001-01-01 {} +   # a tarball's times
}
fake_src "$V1"
fake_src "$V2"

# a good two-patch series (placeholder author, other trailers); the round
# trip adds a cover letter (python's start-up is most of an apply's time)
g() { git -C "$tmp/m" -c user.name='Objstock Developers' -c user.email=objstock@localhost "$@"; }
sed -i 's/^int objstock_a;/int objstock_a = 1;/' "$tmp/m/mm/memcontrol.c"
printf '%s\n' 'memcg: set objstock_a' '' 'Give objstock_a a value.' '' \
	'Suggested-by: Some One <some@example.org>' 'Fixes: 123456789abc ("memcg: something")' \
	'Cc: Other One <other@example.org>' "Signed-off-by: $placeholder" > "$tmp/msg1"
g commit -q -a -F "$tmp/msg1"
sed -i 's/^int objstock_c;/int objstock_c = 3;/' "$tmp/m/mm/memcontrol.c"
printf '%s\n' 'memcg: set objstock_c' '' 'Give objstock_c a value.' '' \
	'Signed-off-by: Carol Kernel <carol@example.org>' "Signed-off-by: $placeholder" > "$tmp/msg2"
g -c user.name='Carol Kernel' -c user.email=carol@example.org commit -q -a -F "$tmp/msg2"
mkdir -p "$tmp/good"
g format-patch -q -o "$tmp/good" objstock-base..HEAD
(cd "$tmp/good" && ls 000[1-9]-*.patch) > "$tmp/good/series"

# a patch whose context is not in memcontrol.c
mkdir -p "$tmp/broken"
cat > "$tmp/broken/0001-broken.patch" <<'EOP'
From 0000000000000000000000000000000000000000 Mon Sep 17 00:00:00 2001
From: Objstock Harness <harness@localhost>
Date: Thu, 1 Jan 2026 00:00:00 +0000
Subject: [PATCH] memcg: a patch whose context is not in 7.3

---
 mm/memcontrol.c | 2 +-
 1 file changed, 1 insertion(+), 1 deletion(-)

diff --git a/mm/memcontrol.c b/mm/memcontrol.c
--- a/mm/memcontrol.c
+++ b/mm/memcontrol.c
@@ -1,3 +1,3 @@
-/* this line is not in mm/memcontrol.c */
+/* neither is this one */
 #include <linux/objstock-harness.h>
 #include <linux/nothing-here.h>
EOP
echo 0001-broken.patch > "$tmp/broken/series"

tree() { "$TOP/scripts/tree.sh" "$@"; }
export_() { "$TOP/scripts/export.sh"; }
fresh() { rm -rf "$TREE" "$CACHE/tree-base"; }
# copy a series directory to a scratch patches/ of its own
patches() { rm -rf "${tmp:?}/$2"; cp -a "$tmp/$1" "$tmp/$2"; }
commits() { git -C "$TREE" rev-list --count objstock-base..HEAD; }
commit_in_tree() {
	echo "$1" >> "$TREE/mm/memcontrol.c"
	git -C "$TREE" -c user.name=Harness -c user.email=h@localhost commit -q -a -m "$2"
}

# --- ported from tests/harness.sh --------------------------------------------
fresh
expect broken-patch 'patch 0001-broken\.patch does not apply \(failed at mm/memcontrol\.c\)' \
	env PATCHES="$tmp/broken" "$TOP/scripts/tree.sh"

# a commit in the tree exported into patches/, which applies again on a new tree
fresh
patches good rt
g format-patch -q --cover-letter -o "$tmp/rt.cover" objstock-base..HEAD
cp "$tmp/rt.cover/0000-cover-letter.patch" "$tmp/rt/"
PATCHES=$tmp/rt tree 2> /dev/null
commit_in_tree '/* objstock harness round trip */' 'memcg: harness round trip'
PATCHES=$tmp/rt export_ 2> "$tmp/rt.err"
check round-trip 'tree commit exported to patches/' \
	bash -c '[ "$(sed -n 3p "$1/series")" = 0003-memcg-harness-round-trip.patch ] &&
		grep -q "objstock harness round trip" "$1/0003-memcg-harness-round-trip.patch" &&
		[ -f "$1/0000-cover-letter.patch" ] && [ "$(grep -c . "$1/series")" = 3 ]' _ "$tmp/rt"
fresh
PATCHES=$tmp/rt tree 2> "$tmp/reapply.err"
check reapply 'the exported series applies to a new tree' \
	bash -c 'grep -q "objstock harness round trip" "$1/mm/memcontrol.c" &&
		[ "$(git -C "$1" rev-list --count objstock-base..HEAD)" = 3 ]' _ "$TREE"

# --- a failed apply: re-applying the good series just works ------------------
fresh
patches good p
PATCHES=$tmp/p tree 2> /dev/null
rm "$tmp/p/series" && cp "$tmp/broken/series" "$tmp/broken/0001-broken.patch" "$tmp/p/"
PATCHES=$tmp/p tree 2> /dev/null
patches good p
check reapply-after-failed-apply 'good, broken, good: the third run applies' \
	bash -c 'PATCHES="$1" "$2/scripts/tree.sh" && [ "$(git -C "$TREE" rev-list --count objstock-base..HEAD)" = 2 ]' \
	_ "$tmp/p" "$TOP"

# export after a failed apply must not empty patches/ (it used to write 0 patches)
fresh
patches good p
PATCHES=$tmp/p tree 2> /dev/null
PATCHES=$tmp/broken tree 2> /dev/null
expect export-after-failed-apply "last 'make tree' failed|not dropping" env PATCHES="$tmp/p" "$TOP/scripts/export.sh"
check export-after-failed-apply-kept 'patches/ untouched' \
	bash -c 'diff -r "$1" "$2"' _ "$tmp/good" "$tmp/p"

# --- export never shrinks patches/ unless forced -----------------------------
fresh
patches good p
PATCHES=$tmp/p tree 2> /dev/null
git -C "$TREE" reset -q --hard HEAD~1
expect export-shrink 'has 1 commits over objstock-base but patches/series lists 2 patches' \
	env PATCHES="$tmp/p" "$TOP/scripts/export.sh"
check export-shrink-kept 'patches/ untouched' bash -c 'diff -r "$1" "$2"' _ "$tmp/good" "$tmp/p"
check export-shrink-force 'FORCE=1 exports the 1' bash -c \
	'FORCE=1 PATCHES="$1" "$2/scripts/export.sh" && [ "$(grep -c . "$1/series")" = 1 ] &&
	 [ ! -e "$1/0002-memcg-set-objstock_c.patch" ]' _ "$tmp/p" "$TOP"

# files that format-patch did not write stay; a failing format-patch leaves all as it was
fresh
patches good p
PATCHES=$tmp/p tree 2> /dev/null
echo 'notes' > "$tmp/p/README"
cp "$tmp/broken/0001-broken.patch" "$tmp/p/0099-mine.patch"
commit_in_tree '/* more */' 'memcg: more'
check export-keeps-other-files 'README and 0099-mine.patch (not in series) kept' bash -c \
	'PATCHES="$1" "$2/scripts/export.sh" && [ -f "$1/README" ] && [ -f "$1/0099-mine.patch" ] &&
	 [ "$(grep -c . "$1/series")" = 3 ]' _ "$tmp/p" "$TOP"

commit_in_tree '/* even more */' 'memcg: even more'
cp -a "$tmp/p" "$tmp/p.before"
mkdir -p "$tmp/bin"
cat > "$tmp/bin/git" <<EOF
#!/bin/sh
for a; do [ "\$a" = format-patch ] && { echo 'fatal: injected failure' >&2; exit 128; }; done
exec $(command -v git) "\$@"
EOF
chmod +x "$tmp/bin/git"
expect export-format-patch-fails 'git format-patch failed' env PATH="$tmp/bin:$PATH" PATCHES="$tmp/p" "$TOP/scripts/export.sh"
check export-format-patch-fails-kept 'patches/ untouched, no scratch left' \
	bash -c 'diff -r "$1" "$2" && ! ls -a "$1" | grep -q "^\.export"' _ "$tmp/p.before" "$tmp/p"

# --- patches/series: missing, a directory, empty, CRLF, no final newline -----
fresh
mkdir -p "$tmp/s"
expect series-missing 'series is missing' env PATCHES="$tmp/s" "$TOP/scripts/tree.sh"
mkdir -p "$tmp/s/series"
expect series-directory 'series is a directory' env PATCHES="$tmp/s" "$TOP/scripts/tree.sh"
rmdir "$tmp/s/series"
printf '# nothing yet\n\n' > "$tmp/s/series"
expect series-empty 'series lists no patches' env PATCHES="$tmp/s" "$TOP/scripts/tree.sh"
check series-empty-ok 'SERIES_EMPTY_OK=1: the bare base' bash -c \
	'SERIES_EMPTY_OK=1 PATCHES="$1" "$2/scripts/tree.sh" && [ "$(git -C "$TREE" rev-parse HEAD)" = "$(git -C "$TREE" rev-parse objstock-base)" ]' \
	_ "$tmp/s" "$TOP"

fresh
patches good p
sed -i 's/$/\r/' "$tmp/p/series"
check series-crlf 'a CRLF series applies' bash -c \
	'PATCHES="$1" "$2/scripts/tree.sh" && [ "$(git -C "$TREE" rev-list --count objstock-base..HEAD)" = 2 ]' _ "$tmp/p" "$TOP"
fresh
patches good p
printf '%s' "$(cat "$tmp/p/series")" > "$tmp/p/series"
check series-last-line 'a series without a final newline applies whole' bash -c \
	'PATCHES="$1" "$2/scripts/tree.sh" && [ "$(git -C "$TREE" rev-list --count objstock-base..HEAD)" = 2 ]' _ "$tmp/p" "$TOP"

# --- untracked files in the tree are work too --------------------------------
fresh
patches good p
PATCHES=$tmp/p tree 2> /dev/null
echo 'new' > "$TREE/mm/new.c"
expect tree-untracked 'has untracked files' env PATCHES="$tmp/broken" "$TOP/scripts/tree.sh"
check tree-untracked-kept 'mm/new.c still there' test -f "$TREE/mm/new.c"

# --- unexported commits and changes: refused and kept; FORCE=1 drops them ------
fresh
patches good p
PATCHES=$tmp/p tree 2> /dev/null
commit_in_tree '/* mine */' 'memcg: mine'
expect tree-unexported "has commits not in patches/ \\(run 'make series' to export them, or FORCE=1" \
	env PATCHES="$tmp/broken" "$TOP/scripts/tree.sh"
expect tree-unexported-same-series 'has commits not in patches/' env PATCHES="$tmp/p" "$TOP/scripts/tree.sh"
check tree-unexported-kept 'the commit is still there' bash -c \
	'[ "$(git -C "$TREE" log -1 --format=%s)" = "memcg: mine" ] && [ "$(git -C "$TREE" rev-list --count objstock-base..HEAD)" = 3 ]'
check tree-unexported-force 'FORCE=1: the series applied again, the commit dropped' bash -c \
	'FORCE=1 PATCHES="$1" "$2/scripts/tree.sh" 2> /dev/null && [ "$(git -C "$TREE" rev-list --count objstock-base..HEAD)" = 2 ] &&
	 ! git -C "$TREE" log --format=%s | grep -qx "memcg: mine"' _ "$tmp/p" "$TOP"
echo '/* not committed */' >> "$TREE/mm/memcontrol.c"
expect tree-uncommitted 'has uncommitted changes' env PATCHES="$tmp/broken" "$TOP/scripts/tree.sh"
check tree-uncommitted-kept 'the change is still there' grep -qF '/* not committed */' "$TREE/mm/memcontrol.c"
# (FORCE=1 with the same series leaves the tree as it is: it is up to date)
patches good p1
sed -i 2d "$tmp/p1/series"
check tree-uncommitted-force 'FORCE=1 and another series: the change dropped' bash -c \
	'FORCE=1 PATCHES="$1" "$2/scripts/tree.sh" 2> /dev/null && git -C "$TREE" diff --quiet HEAD &&
	 [ "$(git -C "$TREE" rev-list --count objstock-base..HEAD)" = 1 ]' _ "$tmp/p1" "$TOP"

# --- a changed DEB_VERSION -----------------------------------------------------
fresh
patches good p
PATCHES=$tmp/p tree 2> /dev/null
tree --base 2> /dev/null
touch -d "@$(($(date +%s) - 1))" "$tmp/built-before"   # an object of the old tree
check deb-version-rebuild "DEB_VERSION=$V2: the tree is made again on $V2, series applied, newer than old objects" bash -c \
	'DEB_VERSION="$3" PATCHES="$1" "$2/scripts/tree.sh" && [ "$TREE/objstock-debian-version" -nt "$4" ] &&
	 git -C "$TREE" log -1 --format=%s objstock-base | grep -qF "(Debian linux-source-7.3 $3)" &&
	 grep -qxF "$3" "$TREE/objstock-debian-version" && [ "$(git -C "$TREE" rev-list --count objstock-base..HEAD)" = 2 ]' \
	_ "$tmp/p" "$TOP" "$V2" "$tmp/built-before"
check deb-version-base-worktree "tree.sh --base: the base worktree follows to $V2" bash -c \
	'DEB_VERSION="$2" "$1/scripts/tree.sh" --base && grep -qxF "$2" "$CACHE/tree-base/objstock-debian-version"' \
	_ "$TOP" "$V2"

fresh
PATCHES=$tmp/p tree 2> /dev/null
commit_in_tree '/* unexported */' 'memcg: unexported'
expect deb-version-refuse "based on 7\\.3\\.4-1~bpo13\\+1, not DEB_VERSION=7\\.3\\.5-1~bpo13\\+1, and has commits not in patches/" \
	env DEB_VERSION="$V2" PATCHES="$tmp/p" "$TOP/scripts/tree.sh"
check deb-version-refuse-kept 'the commit is still there' bash -c \
	'[ "$(git -C "$TREE" log -1 --format=%s)" = "memcg: unexported" ]'

# --- the exporting user's identity replaces the placeholder ------------------
fresh
patches good p
PATCHES=$tmp/p tree 2> /dev/null
PATCHES=$tmp/p export_ 2> "$tmp/id.err"
p1=$tmp/p/0001-memcg-set-objstock_a.patch p2=$tmp/p/0002-memcg-set-objstock_c.patch
check export-identity 'placeholder author and Signed-off-by -> Ada Lovelace, other trailers kept' bash -c '
	grep -qx "From: Ada Lovelace <ada@example.org>" "$1" &&
	grep -qx "Signed-off-by: Ada Lovelace <ada@example.org>" "$1" &&
	grep -qx "Suggested-by: Some One <some@example.org>" "$1" &&
	grep -qxF "Fixes: 123456789abc (\"memcg: something\")" "$1" &&
	grep -qx "Cc: Other One <other@example.org>" "$1" &&
	grep -qx "From: Carol Kernel <carol@example.org>" "$2" &&
	grep -qx "Signed-off-by: Carol Kernel <carol@example.org>" "$2" &&
	grep -qx "Signed-off-by: Ada Lovelace <ada@example.org>" "$2" &&
	! grep -q "objstock@localhost" "$1" "$2" "$3/0000-cover-letter.patch"' _ "$p1" "$p2" "$tmp/p"
check export-identity-tree 'the tree agrees with patches/ (no unexported work after export)' bash -c \
	'[ "$(git -C "$TREE" log -1 --format="%an" HEAD~1)" = "Ada Lovelace" ] &&
	 PATCHES="$1" "$2/scripts/tree.sh" 2>&1 | grep -q "tree up to date"' _ "$tmp/p" "$TOP"

fresh
patches good p
PATCHES=$tmp/p tree 2> /dev/null
: > "$tmp/gitconfig.none"
GIT_CONFIG_GLOBAL=$tmp/gitconfig.none PATCHES=$tmp/p export_ 2> "$tmp/noid.err"
check export-no-identity 'no identity: placeholder kept, one warning line' bash -c '
	grep -qx "From: Objstock Developers <objstock@localhost>" "$1" &&
	[ "$(grep -c "export: *warning: no git user.name/user.email" "$2")" = 1 ] &&
	! grep -q "^objstock: error" "$2"' _ "$p1" "$tmp/noid.err"

# --- no other series under a live run of the tree (tree_register) --------------
# A run (check, bench, ...) records itself in .git/objstock-users after
# tree.sh; a tree.sh of another patches/ or DEB_VERSION (another checkout,
# the same CACHE) must not change the tree under it.  A stand-in run:
# lib.sh's tree_register, then sleep, with the first series.
standin() {
	# not on the harness's stdout/stderr: a test that stops early must not
	# leave it holding them open
	bash -c '. "$1/scripts/lib.sh" && tree_register && exec sleep 300' _ "$TOP" > /dev/null 2>&1 &
	runpid=$!
	for _ in $(seq 50); do [ -f "$TREE/.git/objstock-users/$runpid" ] && break; sleep 0.1; done
}
fresh
patches good p
PATCHES=$tmp/p tree 2> /dev/null
mkdir -p "$tmp/p2" && cp "$tmp/good/0001-"*.patch "$tmp/p2/" && (cd "$tmp/p2" && ls 0001-*.patch) > "$tmp/p2/series"
standin
expect tree-in-use "is in use by a run of another series \(pid $runpid: sleep 300, from $TOP, DEB_VERSION=7\.3\.4-1~bpo13\+1\)" \
	env PATCHES="$tmp/p2" "$TOP/scripts/tree.sh"
check tree-in-use-kept 'the live run keeps its 2 commits' bash -c '[ "$(git -C "$TREE" rev-list --count objstock-base..HEAD)" = 2 ]'
# another base would make the tree again (rm -rf): refused too
expect tree-in-use-version "is in use by a run of another series \(pid $runpid: .*DEB_VERSION=7\.3\.4-1~bpo13\+1\)" \
	env DEB_VERSION="$V2" PATCHES="$tmp/p" "$TOP/scripts/tree.sh"
check tree-in-use-version-kept 'the live run keeps its base' bash -c \
	'git -C "$TREE" log -1 --format=%s objstock-base | grep -qF "$1"' _ "$V1"
# the same series, and the base tree of the same DEB_VERSION, under it: fine
check tree-in-use-same 'the same patches/ is up to date under the run' \
	bash -c 'PATCHES="$1" "$2/scripts/tree.sh" 2>&1 | grep -q "tree up to date"' _ "$tmp/p" "$TOP"
check tree-in-use-base 'tree.sh --base of the same DEB_VERSION under the run' \
	bash -c 'PATCHES="$1" "$2/scripts/tree.sh" --base 2> /dev/null' _ "$tmp/p" "$TOP"
check tree-in-use-force 'FORCE=1 applies anyway, saying under which run' bash -c \
	'FORCE=1 PATCHES="$1" "$2/scripts/tree.sh" > "$4" 2>&1 && grep -q "FORCE=1: changing the tree under pid $3" "$4" &&
	 [ "$(git -C "$TREE" rev-list --count objstock-base..HEAD)" = 1 ]' _ "$tmp/p2" "$TOP" "$runpid" "$tmp/force.out"
PATCHES=$tmp/p tree 2> /dev/null
# a record whose pid now names another process (another start time) is stale
s0= v0= t0=
read -r s0 _ v0 t0 < "$TREE/.git/objstock-users/$runpid" 2> /dev/null || true
echo "$s0 1 $v0 $t0" > "$TREE/.git/objstock-users/$runpid"
check tree-in-use-reused-pid 'a reused pid does not block, and its record goes' bash -c \
	'PATCHES="$1" "$2/scripts/tree.sh" 2> /dev/null && [ "$(git -C "$TREE" rev-list --count objstock-base..HEAD)" = 1 ] &&
	 [ ! -e "$3/.git/objstock-users/$4" ]' _ "$tmp/p2" "$TOP" "$TREE" "$runpid"
# a commit in the tree exported while the run goes on: the tree is up to
# date with the new patches/, so tree.sh has nothing to change and says so
PATCHES=$tmp/p tree 2> /dev/null
standin2=$runpid
standin
commit_in_tree '/* objstock harness export under a run */' 'memcg: harness export under a run'
PATCHES=$tmp/p export_ 2> /dev/null
check tree-in-use-exported 'after make series under a run, its own tree is up to date' \
	bash -c 'PATCHES="$1" "$2/scripts/tree.sh" 2>&1 | grep -q "tree up to date"' _ "$tmp/p" "$TOP"
kill "$runpid" "$standin2" && wait "$runpid" "$standin2" 2> /dev/null
# and once the run is gone, its record is dropped and the series applies
PATCHES=$tmp/p tree 2> /dev/null
standin
kill "$runpid" && wait "$runpid" 2> /dev/null
check tree-in-use-gone 'a finished run does not block' bash -c \
	'PATCHES="$1" "$2/scripts/tree.sh" 2> /dev/null && [ "$(git -C "$TREE" rev-list --count objstock-base..HEAD)" = 1 ] &&
	 [ -z "$(ls "$3/.git/objstock-users")" ]' _ "$tmp/p2" "$TOP" "$TREE"
