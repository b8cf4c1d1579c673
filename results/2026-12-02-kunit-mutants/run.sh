#!/usr/bin/env bash
# run.sh NAME...: for each mutant NAME.diff (next to this script, a patch to
# mm/memcontrol.c of the harness tree), build the make check kernel with it
# (ccache: only the file changes), boot it, restore the file, and keep the
# memcg_obj_stock suite's KTAP as NAME.ktap; prints a summary line per mutant.
# Knobs: CACHE (the harness cache whose tree and obj/patched to use),
# CCACHE_DIR, MUTANTS (the directory of the NAME.diff files and where the
# .ktap files go; default: this script's).  The unmutated kernel is what make check built.
set -eu
here=$(cd "$(dirname "$0")" && pwd)
top=$(cd "$here/../.." && pwd)
here=$(cd "${MUTANTS:-$here}" && pwd)
: "${CACHE:?set CACHE to the harness cache}"
tree=$CACHE/tree obj=$CACHE/obj/patched
for name in "$@"; do
	git -C "$tree" diff --quiet HEAD -- mm/memcontrol.c || { echo "$tree has changes"; exit 1; }
	patch -s -d "$tree" -p1 < "$here/$name.diff"
	rc=0
	( . "$top/scripts/lib.sh"; "$top/scripts/build.sh" "$tree" "$obj" \
		$(fragments "$tree" series) ) > "$here/$name.build.log" 2>&1 || rc=$?
	git -C "$tree" checkout -q -- mm/memcontrol.c
	[ "$rc" = 0 ] || { echo "$name: build failed (see $name.build.log)"; continue; }
	rd=$(mktemp -d)
	NUMA=2 TIMEOUT=1200 "$top/scripts/boot.sh" "$obj/arch/x86/boot/bzImage" "$rd" \
		"dmesg > $rd/dmesg.txt; echo 0 > $rd/guest-rc" > "$rd/boot.out" 2>&1 || true
	awk '/Subtest: memcg_obj_stock/,/ok [0-9]+ memcg_obj_stock/' "$rd/dmesg.txt" |
		sed 's/^\[ *[0-9.]*\] //' > "$here/$name.ktap"
	rm -rf "$rd" "$here/$name.build.log"
	echo "$name: $(grep -c '^    ok' "$here/$name.ktap") ok; not ok: $(grep '^    not ok' "$here/$name.ktap" | awk '{print $4}' | tr '\n' ' ')"
done
