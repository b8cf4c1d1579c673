#!/usr/bin/env bash
# t-kinsn: the kinsn plugin (tools/kinsn/kinsn.c) without a guest: it builds
# against the plugin API header of the host's qemu, QEMU loads it and it
# refuses bad options with its message, and its cache model gives the known
# answers on synthetic access traces (a C driver that includes kinsn.c and
# calls the model directly: LRU sets, L1D/LLC misses, the coherence
# directory's transfers).  The same answers on a real guest:
# scripts/kinsn-selftest.sh, whose pieces that need no guest are checked
# here too: its workload (tools/workloads/cachetest.c) run natively, QEMU's
# cache plugin ($CACHE/tools/libcache.so) and kinsn loaded with its options
# and cache.c's report in the format it parses, and its result parser on
# made-up run directories.  Needs $CACHE/tools/include/qemu-plugin.h
# (scripts/tools-build.sh fetches it): SKIPs without it.
. "$(dirname "$0")/lib.sh"

hdr=$CACHE/tools/include/qemu-plugin.h
src=$TOP/tools/kinsn/kinsn.c
if [ ! -s "$hdr" ] || ! pkg-config --exists glib-2.0 2> /dev/null; then
	for n in kinsn-build kinsn-options kinsn-model kinsn-cachetest kinsn-cachec kinsn-selftest-parse; do
		skip "$n" "no $hdr or no glib-2.0 (run scripts/tools-build.sh)"
	done
	exit 0
fi
# shellcheck disable=SC2046
cflags=(-O2 -Wall -Werror -I"$(dirname "$hdr")" $(pkg-config --cflags glib-2.0))
# shellcheck disable=SC2046
check kinsn-build "builds with -Wall -Werror" \
	gcc -shared -fPIC "${cflags[@]}" -o "$tmp/libkinsn.so" "$src" $(pkg-config --libs glib-2.0)

# load OPTS: QEMU loads the plugin into a machine that never runs
load() {
	echo quit | timeout 60 qemu-system-x86_64 -M none -display none -nodefaults -S \
		-monitor stdio -plugin "$tmp/libkinsn.so,$1" > /dev/null 2> "$tmp/load.err"
}
if [ ! -f "$tmp/libkinsn.so" ] || ! command -v qemu-system-x86_64 > /dev/null; then
	skip kinsn-options "no plugin or no qemu-system-x86_64"
else
	m=start=0x1000,stop=0x2000
	bad=
	for c in "$m,cache=on,count=all,l1d_size=64K,llc_size=4M,llc_assoc=8,line=128,lat_l1d=10|" \
		"$m,l1d_size=64K|is an option of the cache model: add cache=on" \
		"$m,cache=on,l1d_size=48K|number of sets .* not a power of two" \
		"$m,cache=on,llc_size=1000|size not a multiple of line x associativity" \
		"$m,cache=on,line=100|line=100: want a power of two" \
		"$m,cache=on,count=users|bad argument 'count=users'" \
		"$m,cache=on,lat_llc=x|bad value in 'lat_llc=x'" \
		"$m,cache=maybe|bad argument 'cache=maybe'" \
		"start=0x1000|need distinct user-space start=ADDR and stop=ADDR"; do
		o=${c%%|*} want=${c#*|} rc=0
		load "$o" || rc=$?
		if [ -z "$want" ]; then
			[ "$rc" = 0 ] || bad+=" [$o: exit $rc: $(head -1 "$tmp/load.err")]"
		elif [ "$rc" = 0 ] || ! grep -Eq "^kinsn: .*$want" "$tmp/load.err"; then
			bad+=" [$o: exit $rc: $(head -1 "$tmp/load.err")]"
		fi
	done
	if [ -z "$bad" ]; then
		pass kinsn-options "good options load; 8 bad ones are refused with their message"
	else
		fail kinsn-options "$bad"
	fi
fi

# the model on synthetic traces: the driver includes kinsn.c and stubs the
# few QEMU functions it calls
cat > "$tmp/model.c" << 'EOF'
#include "kinsn.c"

struct qemu_plugin_hwaddr *qemu_plugin_get_hwaddr(qemu_plugin_meminfo_t i, uint64_t v) { return NULL; }
bool qemu_plugin_hwaddr_is_io(const struct qemu_plugin_hwaddr *h) { return false; }
uint64_t qemu_plugin_hwaddr_phys_addr(const struct qemu_plugin_hwaddr *h) { return 0; }
bool qemu_plugin_mem_is_store(qemu_plugin_meminfo_t i) { return false; }
void qemu_plugin_outs(const char *s) { fputs(s, stdout); }
bool qemu_plugin_bool_parse(const char *n, const char *v, bool *r) { return false; }
void qemu_plugin_register_vcpu_tb_exec_cb(struct qemu_plugin_tb *t, qemu_plugin_vcpu_udata_cb_t c,
	enum qemu_plugin_cb_flags f, void *u) {}
void qemu_plugin_register_vcpu_mem_cb(struct qemu_plugin_insn *i, qemu_plugin_vcpu_mem_cb_t c,
	enum qemu_plugin_cb_flags f, enum qemu_plugin_mem_rw rw, void *u) {}
void qemu_plugin_register_vcpu_insn_exec_cb(struct qemu_plugin_insn *i, qemu_plugin_vcpu_udata_cb_t c,
	enum qemu_plugin_cb_flags f, void *u) {}
uint64_t qemu_plugin_tb_vaddr(const struct qemu_plugin_tb *t) { return 0; }
size_t qemu_plugin_tb_n_insns(const struct qemu_plugin_tb *t) { return 0; }
struct qemu_plugin_insn *qemu_plugin_tb_get_insn(const struct qemu_plugin_tb *t, size_t i) { return NULL; }
uint64_t qemu_plugin_insn_vaddr(const struct qemu_plugin_insn *i) { return 0; }
void qemu_plugin_register_vcpu_tb_trans_cb(qemu_plugin_id_t id, qemu_plugin_vcpu_tb_trans_cb_t cb) {}
void qemu_plugin_register_atexit_cb(qemu_plugin_id_t id, qemu_plugin_udata_cb_t cb, void *u) {}

static int bad;
static uint64_t c[N_EV];

static void reset(void)
{
	memset(c, 0, sizeof(c));
}

static void acc(unsigned int v, uint64_t pa, int store)
{
	model_access(v, pa, store, c);
}

static void want(const char *what, int ev, uint64_t n)
{
	if (c[ev] != n) {
		printf("%s: %s %llu, want %llu\n", what, ev_name[ev], (unsigned long long)c[ev],
		       (unsigned long long)n);
		bad = 1;
	}
}

int main(void)
{
	char *argv[] = { "start=0x1000", "stop=0x2000", "cache=on" };
	qemu_info_t info = { .system_emulation = true };
	const uint64_t l1_way = 32768 / 8, llc_way = (2 << 20) / 16;	/* same set, next way */

	info.system.max_vcpus = 3;
	cache_on = false;	/* set by the options: bool_parse is a stub */
	if (qemu_plugin_install(0, &info, 2, argv))
		return 1;
	cache_on = true;
	line_shift = 6;
	l1d = g_new0(struct cache, 3);
	dir = calloc(DIR_MAX_PHYS >> DIR_CHUNK_SHIFT, sizeof(*dir));
	for (int i = 0; i < 3; i++)
		cache_init(&l1d[i], l1d_size, l1d_assoc);
	cache_init(&llc, llc_size, llc_assoc);

	/* a 16 KiB array read 100 times: 256 cold misses, then none */
	reset();
	for (int p = 0; p < 100; p++)
		for (uint64_t a = 0; a < 16384; a += 8)
			acc(0, 0x100000 + a, 0);
	want("walk16k", EV_LOAD, 100 * 2048);
	want("walk16k", EV_L1D_MISS, 256);
	want("walk16k", EV_LLC_MISS, 256);
	want("walk16k", EV_XFER, 0);
	/* 64 MiB, one load per line, twice: every load misses both caches */
	reset();
	for (int p = 0; p < 2; p++)
		for (uint64_t a = 0; a < (64 << 20); a += 64)
			acc(0, 0x10000000 + a, 0);
	want("walk64m", EV_L1D_MISS, 2 << 20);
	want("walk64m", EV_LLC_MISS, 2 << 20);
	/* LRU: 8 lines of one L1D set stay; a 9th in turn evicts each (then LLC hits) */
	reset();
	for (int p = 0; p < 10; p++)
		for (uint64_t k = 0; k < 8; k++)
			acc(1, 0x40000000 + k * l1_way, 0);
	want("l1d 8-way, 8 lines", EV_L1D_MISS, 8);
	reset();
	for (int p = 0; p < 10; p++)
		for (uint64_t k = 0; k < 9; k++)
			acc(1, 0x50000000 + k * l1_way, 0);
	want("l1d 8-way, 9 lines", EV_L1D_MISS, 90);
	want("l1d 8-way, 9 lines", EV_LLC_MISS, 9);
	/* LLC: 17 lines of one LLC set, cyclic: each access misses it */
	reset();
	for (int p = 0; p < 10; p++)
		for (uint64_t k = 0; k < 17; k++)
			acc(1, 0x60000000 + k * llc_way, 0);
	want("llc 16-way, 17 lines", EV_LLC_MISS, 170);
	/* recency, not insertion order: re-touching line 0 keeps it; line 1 goes */
	reset();
	for (uint64_t k = 0; k < 8; k++)
		acc(2, 0x70000000 + k * l1_way, 0);
	acc(2, 0x70000000, 1);
	acc(2, 0x70000000 + 8 * l1_way, 0);	/* evicts line 1 */
	acc(2, 0x70000000, 0);
	want("lru recency", EV_L1D_MISS, 9);
	acc(2, 0x70000000 + 1 * l1_way, 0);
	want("lru recency", EV_L1D_MISS, 10);
	/* the same in the LLC: 16 lines fill one set; line 0 is re-read from
	 * it (out of the L1D by then), so the 17th line evicts line 1 */
	reset();
	for (uint64_t k = 0; k < 16; k++)
		acc(2, 0xc0000000 + k * llc_way, 0);
	acc(2, 0xc0000000, 0);
	want("llc recency", EV_LLC_MISS, 16);
	acc(2, 0xc0000000 + 16 * llc_way, 0);
	for (uint64_t k = 1; k <= 8; k++)	/* same L1D set, other LLC sets */
		acc(2, 0xc0000000 + k * l1_way, 0);
	acc(2, 0xc0000000, 0);
	want("llc recency", EV_LLC_MISS, 16 + 1 + 8);
	acc(2, 0xc0000000 + 1 * llc_way, 0);
	want("llc recency", EV_LLC_MISS, 16 + 1 + 8 + 1);

	/* ping-pong: each load and each store of the line is one transfer */
	reset();
	acc(0, 0x8000000, 1);		/* cold: no transfer */
	acc(0, 0x8000000, 0);
	want("pingpong start", EV_XFER, 0);
	for (int r = 0; r < 1000; r++) {
		acc(1, 0x8000000, 0);
		acc(1, 0x8000000, 1);
		acc(0, 0x8000000, 0);
		acc(0, 0x8000000, 1);
	}
	want("pingpong", EV_XFER, 4000);
	want("pingpong", EV_L1D_MISS, 1 + 2000);
	want("pingpong", EV_LLC_MISS, 1);
	/* read sharing of a line nobody wrote: no transfers; a write then
	 * invalidates both other copies (one transfer), and each re-read of
	 * the new value is one */
	reset();
	acc(0, 0x9000000, 0);
	acc(1, 0x9000000, 0);
	acc(2, 0x9000000, 0);
	want("shared clean", EV_XFER, 0);
	acc(2, 0x9000000, 1);
	want("write to shared", EV_XFER, 1);
	acc(0, 0x9000000, 0);
	acc(1, 0x9000000, 0);
	acc(0, 0x9000000, 0);
	want("re-read", EV_XFER, 3);
	want("re-read", EV_L1D_MISS, 3 + 2);
	/* exclusive: read then write by one vCPU, no transfer; another vCPU's
	 * read of it is one, its own re-read after an eviction is none */
	reset();
	acc(1, 0xa000000, 0);
	acc(1, 0xa000000, 1);
	want("exclusive", EV_XFER, 0);
	acc(0, 0xa000000, 0);
	want("read of a modified line", EV_XFER, 1);
	for (uint64_t k = 1; k <= 8; k++)	/* evict it from vCPU 0's L1D */
		acc(0, 0xa000000 + k * l1_way, 0);
	reset();
	acc(0, 0xa000000, 0);
	want("re-read after eviction", EV_L1D_MISS, 1);
	want("re-read after eviction", EV_XFER, 0);
	/* a store to a line another vCPU read (S): invalidation, one transfer;
	 * a store by its only holder after that: none */
	reset();
	acc(1, 0xa000000, 1);
	acc(1, 0xa000000, 1);
	want("store to shared, then own", EV_XFER, 1);
	want("store to shared, then own", EV_STORE, 2);
	if (!bad)
		printf("ok\n");
	return bad;
}
EOF
# shellcheck disable=SC2046
if ! gcc "${cflags[@]}" -Wno-unused-parameter -I"$TOP/tools/kinsn" -o "$tmp/model" "$tmp/model.c" \
	$(pkg-config --libs glib-2.0) > "$tmp/model.log" 2>&1; then
	fail kinsn-model "the driver does not build: $(grep -m1 error "$tmp/model.log")"
elif "$tmp/model" > "$tmp/model.out" 2>&1; then
	pass kinsn-model "synthetic traces: walks, LRU, L1D/LLC misses, ping-pong and sharing transfers"
else
	fail kinsn-model "$(head -3 "$tmp/model.out" | paste -sd';')"
fi

# cachetest, as tools-build.sh builds it: markers, and its walks natively
ct=$tmp/cachetest
if ! gcc -O2 -Wall -Werror -static -no-pie -fno-pie -o "$ct" "$TOP/tools/workloads/cachetest.c" > "$tmp/ct.log" 2>&1; then
	fail kinsn-cachetest "does not build static: $(grep -m1 -E 'error|cannot find' "$tmp/ct.log")"
else
	bad=
	nm "$ct" > "$tmp/ct.nm" 2>&1
	grep -q ' T bench_start$' "$tmp/ct.nm" && grep -q ' T bench_stop$' "$tmp/ct.nm" || bad+=" [no bench_start/bench_stop in nm]"
	for c in "walk 16K 2 8|mode=walk size=16384 passes=2 stride=8 loads=4096 lines=512 " \
		"walk 64K 1 128|mode=walk size=65536 passes=1 stride=128 loads=512 lines=512 " \
		"walk 16K 1 12|" "walk 16K 0 8|" "pingpong|" "nope 1|"; do
		read -ra a <<< "${c%%|*}"
		want=${c#*|} rc=0
		"$ct" "${a[@]}" > "$tmp/ct.out" 2> "$tmp/ct.err" || rc=$?
		if [ -z "$want" ]; then
			[ "$rc" != 0 ] && [ "$(wc -l < "$tmp/ct.err")" = 1 ] || bad+=" [${c%%|*}: exit $rc, not one error line]"
		elif [ "$rc" != 0 ] || ! grep -q "^cachetest $want" "$tmp/ct.out"; then
			bad+=" [${c%%|*}: exit $rc: $(head -c 200 "$tmp/ct.out" "$tmp/ct.err" | tr '\n' ' ')]"
		fi
	done
	# pingpong pins to CPUs 0 and 1: only where both are ours
	if python3 -c 'import os, sys; sys.exit(not {0, 1} <= os.sched_getaffinity(0))' 2> /dev/null; then
		rc=0
		timeout 60 "$ct" pingpong 50 > "$tmp/ct.out" 2> "$tmp/ct.err" || rc=$?
		grep -q '^cachetest mode=pingpong rounds=50 loads=100 stores=100$' "$tmp/ct.out" ||
			bad+=" [pingpong 50: exit $rc: $(head -c 200 "$tmp/ct.out" "$tmp/ct.err" | tr '\n' ' ')]"
	fi
	if [ -z "$bad" ]; then
		pass kinsn-cachetest "static, with its markers; walk's loads and lines, pingpong's accesses; bad arguments refused"
	else
		fail kinsn-cachetest "$bad"
	fi
fi

# QEMU's cache.c and kinsn, loaded together with the cross-check's options
# (kinsn-selftest.sh's cache_opts and kinsn_geom), report into one machine
# that never runs: cache.c's per-core line with its L2 columns, as parsed
st=$TOP/scripts/kinsn-selftest.sh
copts=$(sed -n 's/^cache_opts+\{0,1\}="\(.*\)"$/\1/p' "$st" | tr -d '\n')
kgeom=$(sed -n 's/^kinsn_geom="\(.*\)"$/\1/p' "$st")
if [ ! -f "$CACHE/tools/libcache.so" ] || [ ! -f "$tmp/libkinsn.so" ] || ! command -v qemu-system-x86_64 > /dev/null; then
	skip kinsn-cachec "no $CACHE/tools/libcache.so (scripts/tools-build.sh), no plugin or no qemu-system-x86_64"
elif [ -z "$copts" ] || [ -z "$kgeom" ]; then
	fail kinsn-cachec "no cache_opts=/kinsn_geom= lines in $st"
elif ! echo quit | timeout 60 qemu-system-x86_64 -M none -display none -nodefaults -S -monitor stdio \
	-plugin "$tmp/libkinsn.so,start=0x1000,stop=0x2000,out=$tmp/kinsn.out,cache=on,count=all,$kgeom" \
	-plugin "$CACHE/tools/libcache.so,$copts" -d plugin -D "$tmp/cache.log" > /dev/null 2> "$tmp/cachec.err"; then
	fail kinsn-cachec "QEMU refuses the options: $(head -1 "$tmp/cachec.err")"
elif ! head -1 "$tmp/cache.log" | grep -q '^core #, data accesses, data misses, dmiss rate, insn accesses, insn misses, imiss rate, l2 accesses, l2 misses, l2 miss rate$' ||
	! awk 'NF == 10 && $1 == "0" && $9 ~ /^[0-9]+$/ && $10 ~ /%$/ { ok = 1 } END { exit !ok }' "$tmp/cache.log"; then
	fail kinsn-cachec "cache.c's report is not the one kinsn-selftest.sh parses: $(head -2 "$tmp/cache.log" | paste -sd'|')"
elif ! grep -q '^kinsn-cache line 64 l1d_size 32768 l1d_assoc 8 llc_size 2097152 llc_assoc 16 ' "$tmp/kinsn.out" ||
	! grep -q '^kinsn-total loads 0 ' "$tmp/kinsn.out"; then
	fail kinsn-cachec "kinsn's header or totals: $(paste -sd'|' "$tmp/kinsn.out")"
else
	pass kinsn-cachec "cache.c and kinsn take the cross-check's options; cache.c reports core 0 with L2 columns"
fi

# kinsn-selftest.sh's result parser (its python) on made-up run directories
sed -n '/^python3 - /,/^EOF$/p' "$st" | sed '1d;$d' > "$tmp/parse.py"
r=$tmp/ks
mkdir -p "$r/known" "$r/cross" "$r/mttcg"
cat > "$r/known/kinsn.out" << 'EOF'
kinsn-cache line 64 l1d_size 32768 l1d_assoc 8 llc_size 2097152 llc_assoc 16 lat_l1d 14 lat_llc 200 lat_xfer 100 count user
window 1 kernel_insns 9 user_insns 12000000 host_ns 5 loads 4096100 stores 20 l1d_miss 300 llc_miss 10 xfer 0 cost 12006200
window 2 kernel_insns 9 user_insns 6000000 host_ns 5 loads 2097200 stores 20 l1d_miss 2097152 llc_miss 2090000 xfer 10 cost 453361128
window 3 kernel_insns 9 user_insns 60000 host_ns 5 loads 2000 stores 2000 l1d_miss 2000 llc_miss 0 xfer 4000 cost 488000
kinsn-total loads 1 stores 1 l1d_miss 1 llc_miss 1 xfer 1 io 0 nophys 0
EOF
printf '%s\n' 'cachetest mode=walk size=16384 passes=2000 stride=8 loads=4096000 lines=512000 sum=1' \
	'cachetest mode=walk size=67108864 passes=2 stride=64 loads=2097152 lines=2097152 sum=1' \
	'cachetest mode=pingpong rounds=1000 loads=2000 stores=2000' > "$r/known/ct.out"
echo 'kinsn-total loads 900000000 stores 100000000 l1d_miss 5000000 llc_miss 4000000 xfer 0 io 5 nophys 0' > "$r/cross/kinsn.out"
# cache.c's log_stats format (QEMU 7.2), with L2
{
	echo 'core #, data accesses, data misses, dmiss rate, insn accesses, insn misses, imiss rate, l2 accesses, l2 misses, l2 miss rate'
	printf '%-8d%-14lu %-12lu %9.4f%%  %-14lu %-12lu %9.4f%%  %-12lu %-11lu %10.4f%%\n' 0 1000000000 5000000 0.5 \
		3000000000 60000 0.002 5060000 4060000 80.2
	printf '\naddress, data misses, instruction\n0x401234 (walk), 5, movq (%%rdx), %%rdi\n'
} > "$r/cross/cache.log"
echo 'kinsn: cache=on needs single-threaded TCG (-accel tcg,thread=single, or -icount), but a second host thread runs guest code (MTTCG): stopping' > "$r/mttcg/console.log"
rc=0
python3 "$tmp/parse.py" "$r" 86 > "$tmp/parse.out" 2>&1 || rc=$?
n_pass=$(grep -c '^harness:kinsn-model-[a-z0-9-]* PASS ' "$tmp/parse.out")
# broken: a window missing, no cache.c report, a boot that "succeeded"
sed -i '/^window 3 /d' "$r/known/kinsn.out"
rm "$r/cross/cache.log"
rc2=0
python3 "$tmp/parse.py" "$r" 0 > "$tmp/parse2.out" 2>&1 || rc2=$?
if [ "$rc" != 0 ] || [ "$n_pass" != 10 ] || [ "$(wc -l < "$tmp/parse.out")" != 10 ]; then
	fail kinsn-selftest-parse "good run: exit $rc, $n_pass of 10 PASS: $(grep -v ' PASS ' "$tmp/parse.out" | head -2 | paste -sd'|')"
elif [ "$rc2" != 1 ] || [ "$(grep -c ' FAIL ' "$tmp/parse2.out")" != 3 ] || grep -q Traceback "$tmp/parse2.out"; then
	fail kinsn-selftest-parse "broken run: exit $rc2: $(head -3 "$tmp/parse2.out" | paste -sd'|')"
else
	pass kinsn-selftest-parse "10 PASS on a good run; known, vs-cache and mttcg-refused FAIL on a broken one"
fi
