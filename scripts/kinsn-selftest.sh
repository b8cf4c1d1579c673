#!/usr/bin/env bash
# kinsn-selftest: the known-answer tests of the kinsn plugin's cache model
# (cache=on).  Boots guests under QEMU/TCG on an already built kernel and runs
# the workloads of tools/workloads/cachetest.c, whose cache behaviour is known,
# with the plugin counting their user-mode accesses (count=user):
#
#   walk16k    a private 16 KiB array read 2000 times, 8 bytes at a time:
#              the plugin's loads are the workload's loads (+0.1%), and
#              L1D misses per load are about zero (< 0.002)
#   walk64m    a 64 MiB array read twice, one load per 64-byte line: one L1D
#              miss and one LLC miss per line (0.98 .. 1.02 per line)
#   pingpong   two processes on CPU 0 and CPU 1 take turns to load and store
#              one shared line: every load fetches the line the other CPU
#              wrote last, a transfer (at least 0.95 per load); a store is
#              one more only while the other CPU still holds its copy, which
#              the pipe hand-over between turns (kernel code on that CPU)
#              often evicts: at most one per access (1.05)
#   cost       each window's cost = user_insns + lat_l1d x l1d_miss +
#              lat_llc x llc_miss + lat_xfer x xfer, with the latencies of
#              the plugin's header line
#
# then cross-checks the model against QEMU's own cache plugin
# (contrib/plugins/cache.c of Debian's qemu source, $CACHE/tools/libcache.so):
# both plugins loaded into one single-vCPU guest (no coherence traffic; the
# LLC is then that vCPU's L2) with the same geometry (L1D 32 KiB 8-way, LLC
# 2 MiB 16-way, 64-byte lines, LRU), which runs the walks; the totals of the
# whole run, all accesses from boot to power-off, must agree:
#   vs-cache-accesses  data accesses (loads + stores) within 0.01%
#   vs-cache-l1d       L1D misses within 0.5%
#   vs-cache-llc       LLC (cache.c: L2) misses within 2%
# cache.c also feeds its L2 with instruction fetches, by host address (its
# L1I is made 64 MiB, so each code line misses it once, and that one L2
# access misses too: no data line has its tag); those, cache.c's "insn
# misses", are taken off its L2 misses, and the LLC tolerance is for the data
# lines they evict from its L2.
# Last, cache=on under MTTCG (TCG_THREAD=multi, no -icount) must be refused
# with the plugin's message (mttcg-refused).
#
#   scripts/kinsn-selftest.sh [KERNEL]
#
# KERNEL: a bzImage (default: the patched kernel of make build and make check,
# $CACHE/obj/patched/arch/x86/boot/bzImage; make kinsn-selftest runs this).
# Prints 'harness:kinsn-model-NAME PASS|FAIL detail' lines and exits 1, with
# no error line, if any FAILs; a guest that does not finish its command is an
# 'objstock: error:' line.  The guests' run directories stay in $CACHE/runs/kinsn-selftest-*.
# Knobs: ICOUNT (as the bench: default shift=3,sleep=off), TIMEOUT (per boot).
# Takes ~5-10 minutes on 2 cores (three boots, one partial).
. "$(dirname "$0")/lib.sh"

kernel=${1:-$CACHE/obj/patched/arch/x86/boot/bzImage}
[ $# -le 1 ] || die "usage: kinsn-selftest.sh [KERNEL]"
[ -f "$kernel" ] || die "no kernel image at $kernel (run 'make build' first, or pass one)"
ICOUNT=${ICOUNT-shift=3,sleep=off}

"$TOP/scripts/tools-build.sh" > /dev/null
t=$CACHE/tools
for f in libkinsn.so cachetest libcache.so; do
	[ -f "$t/$f" ] || die "tools-build.sh did not build $t/$f"
done
start=$(nm "$t/cachetest" | awk '$3 == "bench_start" && $2 ~ /^[Tt]$/ {print $1}')
stop=$(nm "$t/cachetest" | awk '$3 == "bench_stop" && $2 ~ /^[Tt]$/ {print $1}')
if [ -z "$start" ] || [ -z "$stop" ]; then die "$t/cachetest lacks bench_start/bench_stop symbols"; fi
markers="start=0x$start,stop=0x$stop"

run=$CACHE/runs/kinsn-selftest-$(date +%Y%m%d-%H%M%S)
mkdir -p "$run"
FAIL_RMDIR+=("$run")
# the guests' command: cachetest's runs, one result line each, in ct.out
ct=$(printf '%q' "$t/cachetest")
guest() {	# guest ARGS...: a guest command running cachetest with each ARGS in turn
	local cmd="{ :" a
	for a in "$@"; do cmd+=" && $ct $a"; done
	echo "$cmd; } > ct.out 2> ct.err; echo \$? > guest-rc"
}
boot() {	# boot RUNDIR PLUGIN-OPTS QEMU-EXTRA GUEST-CMD (CPUS, NUMA, TCG_THREAD from the env)
	QEMU_OPTS="${ICOUNT:+-icount $ICOUNT }-plugin $(printf '%q' "$t/libkinsn.so,$markers,out=$1/kinsn.out,$2") $3" \
		TIMEOUT=${TIMEOUT:-900} APPEND="kunit.enable=0" \
		"$TOP/scripts/boot.sh" "$kernel" "$1" "$4"
}
# boot_or_die ARGS...: boot, and stop if the guest's command failed (boot.sh
# then exits with its status, quietly): the first line of cachetest's error
boot_or_die() {
	local rc=0
	boot "$@" || rc=$?
	[ "$rc" = 0 ] && return 0
	[ "$rc" = "$DIE_STATUS" ] && exit "$rc"
	die "cachetest failed in the guest (exit $rc): $(head -n1 "$1/ct.err" 2> /dev/null || echo "no $1/ct.err")"
}

# 1. known answers: 2 vCPUs, user accesses counted
log selftest "known answers (2 vCPUs, count=user): walk 16K, walk 64M, pingpong"
CPUS=2 NUMA=1 boot_or_die "$run/known" "cache=on,count=user" "" \
	"$(guest "walk 16K 2000 8" "walk 64M 2 64" "pingpong 1000")"

# 2. the cross-check with QEMU's cache plugin: 1 vCPU, all accesses
log selftest "cross-check with contrib/plugins/cache.c (1 vCPU)"
# the same geometry on both sides (kinsn's defaults, spelled out); cores=1: one
# L1D and one L2 (cache.c's default is the vCPU count, also 1 here)
kinsn_geom="line=64,l1d_size=32K,l1d_assoc=8,llc_size=2M,llc_assoc=16"
cache_opts="dcachesize=32768,dassoc=8,dblksize=64,l2cachesize=2097152,l2assoc=16,l2blksize=64"
cache_opts+=",icachesize=67108864,iassoc=16,iblksize=64,evict=lru,cores=1,limit=1"
CPUS=1 NUMA=1 boot_or_die "$run/cross" "cache=on,count=all,$kinsn_geom" \
	"-plugin $(printf '%q' "$t/libcache.so,$cache_opts") -d plugin -D $(printf '%q' "$run/cross/cache.log")" \
	"$(guest "walk 16K 2000 8" "walk 64M 2 64")"

# 3. MTTCG: refused with the plugin's message, before the guest runs anything
log selftest "cache=on under MTTCG (must be refused)"
rc=0
ICOUNT="" TCG_THREAD=multi CPUS=2 NUMA=1 TIMEOUT=300 boot "$run/mttcg" "cache=on" "" \
	"$(guest "walk 16K 1 8")" 2> "$run/mttcg.err" || rc=$?

rc_py=0
python3 - "$run" "$rc" <<'EOF' || rc_py=$?
import re, sys

run, mttcg_rc = sys.argv[1], int(sys.argv[2])
bad = 0


def out(name, ok, detail):
    global bad
    bad += not ok
    print('harness:kinsn-model-%s %s %s' % (name, 'PASS' if ok else 'FAIL', detail))


def kv(line, first=1):
    f = line.split()
    return {f[i]: int(f[i + 1]) for i in range(first, len(f) - 1, 2) if re.fullmatch(r'\d+', f[i + 1])}


def plugin(d):
    head, wins, total = None, [], None
    for line in open(d + '/kinsn.out'):
        if line.startswith('kinsn-cache '):
            head = kv(line)
        elif line.startswith('window '):
            wins.append(kv(line, 2))
        elif line.startswith('kinsn-total '):
            total = kv(line)
    return head, wins, total


def workloads(d):
    return [dict(w.split('=', 1) for w in line.split()[1:])
            for line in open(d + '/ct.out') if line.startswith('cachetest ')]


def within(x, lo, hi):
    return lo <= x <= hi


def section(name, fn):
    # a section whose files are missing or malformed is one FAIL, not a traceback
    try:
        fn()
    except Exception as e:
        out(name, False, 'cannot read its results (%s: %s): see %s' % (type(e).__name__, e, run))


# 1. known answers
def known():
    head, wins, total = plugin(run + '/known')
    ct = workloads(run + '/known')
    if len(wins) != 3 or len(ct) != 3 or not head:
        out('known', False, '%d windows, %d workload lines, header %s (want 3, 3, yes): see %s/known'
            % (len(wins), len(ct), bool(head), run))
        return
    w, c = wins[0], ct[0]
    loads = int(c['loads'])
    r = w['loads'] / loads
    out('walk16k-loads', within(r, 1.0, 1.001),
        'plugin %d user loads for the workload\'s %d (x%.5f, want 1 .. 1.001)' % (w['loads'], loads, r))
    r = w['l1d_miss'] / loads
    out('walk16k-l1d', r < 0.002, '%d L1D misses in %d loads of a 16 KiB array: %.5f per load (want < 0.002)'
        % (w['l1d_miss'], loads, r))
    w, c = wins[1], ct[1]
    lines = int(c['lines'])
    for ev, name in (('l1d_miss', 'l1d'), ('llc_miss', 'llc')):
        r = w[ev] / lines
        out('walk64m-' + name, within(r, 0.98, 1.02),
            '%d %s misses for %d lines of a 64 MiB array: %.4f per line (want 0.98 .. 1.02)'
            % (w[ev], name.upper(), lines, r))
    w, c = wins[2], ct[2]
    loads, acc = int(c['loads']), int(c['loads']) + int(c['stores'])
    out('pingpong-xfer', 0.95 * loads <= w['xfer'] <= 1.05 * acc,
        '%d transfers for %d loads and %d stores of the shared line: %.4f per load (want >= 0.95),'
        ' %.4f per access (want <= 1.05)' % (w['xfer'], loads, acc - loads, w['xfer'] / loads, w['xfer'] / acc))
    ok = all(x['cost'] == x['user_insns'] + head['lat_l1d'] * x['l1d_miss'] + head['lat_llc'] * x['llc_miss']
             + head['lat_xfer'] * x['xfer'] for x in wins)
    out('cost', ok, 'cost = user_insns + %d x l1d_miss + %d x llc_miss + %d x xfer in every window'
        % (head['lat_l1d'], head['lat_llc'], head['lat_xfer']))


# 2. cross-check: kinsn-total vs cache.c's core 0 line (QEMU 7.2's log_stats:
# "core #, data accesses, data misses, dmiss rate, insn accesses, insn misses,
# imiss rate, l2 accesses, l2 misses, l2 miss rate", the rates as "0.1234%")
def cross():
    _, _, total = plugin(run + '/cross')
    core = None
    try:
        for line in open(run + '/cross/cache.log'):
            f = line.split()
            if len(f) == 10 and f[0] == '0' and all(re.fullmatch(r'\d+', f[i]) for i in (1, 2, 4, 5, 7, 8)):
                core = f
                break
    except OSError:
        pass
    if not total or not core:
        out('vs-cache', False, 'no totals (kinsn-total %s, cache.c core line with L2 %s): see %s/cross'
            % (bool(total), bool(core), run))
        return
    ca, cm, ci, c2 = int(core[1]), int(core[2]), int(core[5]), int(core[8])
    ka, km, k2 = total['loads'] + total['stores'], total['l1d_miss'], total['llc_miss']
    # cache.c's L2 misses of instruction fetches: one per L1I miss
    for name, k, c, tol, what in (('accesses', ka, ca, 0.0001, 'data accesses'),
                                  ('l1d', km, cm, 0.005, 'L1D misses'),
                                  ('llc', k2, c2 - ci, 0.02, 'LLC misses (cache.c: %d L2 - %d insn misses)' % (c2, ci))):
        d = (k - c) / c if c else float('inf')
        out('vs-cache-' + name, abs(d) <= tol, '%s: kinsn %d, cache.c %d: %+.4f%% (want within %g%%; io %d, nophys %d)'
            % (what, k, c, 100 * d, 100 * tol, total['io'], total['nophys']))


# 3. MTTCG refused
def mttcg():
    msg = ''
    try:
        msg = [l.strip() for l in open(run + '/mttcg/console.log')
               if 'kinsn: cache=on needs single-threaded TCG' in l][0]
    except (OSError, IndexError):
        pass
    out('mttcg-refused', mttcg_rc != 0 and bool(msg),
        'boot exit %d, %s' % (mttcg_rc, msg or 'no refusal message in the console'))


section('known', known)
section('vs-cache', cross)
section('mttcg-refused', mttcg)
sys.exit(1 if bad else 0)
EOF
[ "$rc_py" = 0 ] || quiet_exit 1
