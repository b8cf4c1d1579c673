#!/bin/bash
# run.sh NAME SED-EXPR : build the harness tree with one mutation of mm/memcontrol.c, boot, keep the suite's KTAP
set -e
name=$1 expr=$2
cd /work/cache/tree
cp mm/memcontrol.c /tmp/mut/memcontrol.c.orig
sed -i "$expr" mm/memcontrol.c
if cmp -s mm/memcontrol.c /tmp/mut/memcontrol.c.orig; then echo "$name: mutation did not apply"; exit 1; fi
diff -u /tmp/mut/memcontrol.c.orig mm/memcontrol.c > /tmp/mut/$name.diff || true
export CCACHE_DIR=/work/cache/ccache CCACHE_BASEDIR=/work/cache CCACHE_NOHASHDIR=1 CCACHE_SLOPPINESS=time_macros,include_file_mtime,include_file_ctime
make -s O=/work/cache/obj/patched -j3 CC="ccache gcc" KBUILD_BUILD_TIMESTAMP=objstock KBUILD_BUILD_USER=objstock KBUILD_BUILD_HOST=objstock bzImage 2>&1 | grep -E "error" || true
cp /tmp/mut/memcontrol.c.orig mm/memcontrol.c
mkdir -p /tmp/mut/$name
cd /work/main && CACHE=/work/cache NUMA=2 TIMEOUT=900 scripts/boot.sh /work/cache/obj/patched/arch/x86/boot/bzImage /tmp/mut/$name "dmesg > /tmp/mut/$name/dmesg.txt" > /tmp/mut/$name/boot.out 2>&1 || true
awk '/Subtest: memcg_obj_stock/,/ok 1 memcg_obj_stock/' /tmp/mut/$name/dmesg.txt | sed 's/^\[ *[0-9.]*\] //' > /tmp/mut/$name/memcg_obj_stock.ktap
echo "$name: $(grep -c '^    ok' /tmp/mut/$name/memcg_obj_stock.ktap) ok, $(grep '^    not ok' /tmp/mut/$name/memcg_obj_stock.ktap | tr '\n' ';')"
