#!/bin/bash
# usage: run.sh NAME KUNIT_FILE  (puts KUNIT_FILE in $CACHE/tree, builds obj/patched, boots, restores)
set -u
cd /work/main
export CACHE=/work/cache
name=$1 file=$2
tree=$CACHE/tree out=/work/scratch/mut/$name
rm -rf $out; mkdir -p $out
cp "$file" $tree/mm/tests/memcontrol_kunit.c || exit 1
. scripts/lib.sh
mapfile -t frags < <(fragments "$tree" series)
scripts/build.sh "$tree" "$CACHE/obj/patched" "${frags[@]}"; brc=$?
git -C $tree checkout -- .
[ $brc = 0 ] || exit 1
TIMEOUT=3000 scripts/boot.sh "$CACHE/obj/patched/arch/x86/boot/bzImage" "$out" /work/scratch/mut/guest.sh
echo "boot rc $?"
grep -E '^\s*(not ok|ok) [0-9]+ memcg_obj_stock|not ok' $out/console.log | head -20
for f in $out/memcg-run*.ktap; do echo "$f: $(grep -cE '^\s+ok ' $f) ok, $(grep -cE '^\s+not ok ' $f) not ok: $(grep -E '^\s+not ok ' $f | awk '{print $4}' | tr '\n' ' ')"; done
