"""report: the A/B report in the style of mmtests' compare-kernels:
OUTDIR/report.md, OUTDIR/tax.png (gnuplot), OUTDIR/tax*.dat.

Two metrics per (workload, cgroup, kernel): guest kernel instructions per
operation (counted by the kinsn TCG plugin; nearly deterministic) and wall
time per operation (noisy under emulation).  Differences are marked by
Welch's t-test (p < 0.05: '*', p < 0.01: '**') and by the LKP robot's rule
(min/max ranges do not overlap and the change is above 1%: '!')."""
import os
import shutil
import subprocess

from . import Error, bench
from .stats import cut_interval, halfwidth, mean, natural, no_cut, sd, welch


def marks(a, b):
    p = welch(a, b)
    m = ''
    if p is not None and p < 0.01:
        m = '**'
    elif p is not None and p < 0.05:
        m = '*'
    if len(a) > 1 and len(b) > 1 and (max(a) < min(b) or max(b) < min(a)) \
            and abs(mean(b) / mean(a) - 1) > 0.01:
        m += '!'
    return m, p


def fmt(v, key):
    if key == 'kernel_insns_per_op':
        return '%.0f' % v if v < 1e5 else '%.3gM' % (v / 1e6)
    return '%.1f' % (v / 1e3)       # wall time: microseconds


def markdown(res):
    """-> (the lines of report.md, [(index, workload, base tax, patched tax)])"""
    wls = bench.workloads(res)
    meta = res['meta']

    def cell(kernel, wl, cg, key):
        return bench.cell(res, kernel, wl, cg, key)

    L = []
    L.append('# objstock A/B report: Linux %s base vs patched' % meta.get('kernel_version', '?'))
    L.append('')
    # the virtme-ng that booted the guests (runs before bench.sh recorded it have none)
    qemu = meta.get('qemu')
    if meta.get('virtme_ng'):
        qemu = '%s, virtme-ng %s' % (qemu, meta['virtme_ng'])
    L.append('Debian linux-source %s; series %s (%s patches); config %s; %s; %s repetitions, '
             'base and patched kernels booted alternately%s; %s vCPUs under TCG; started %s.'
             % (meta.get('deb_version'), meta.get('series_sha256'), meta.get('series'),
                meta.get('config_sha256'), qemu, meta.get('repetitions'),
                ', %s at a time' % meta['boots'] if meta.get('boots', '1') != '1' else '',
                meta.get('cpus'), meta.get('started')))
    br = meta.get('base_rev', 'objstock-base').split()
    if br and br[0] != 'objstock-base':
        L.append('')
        L.append('**base is not Debian\'s 7.3 here** but the series tree at %s (BASE_REV): the deltas '
                 'are what the later patches add on top of it.' % ' '.join(br))
    if any(w.startswith('slab-') for w in wls):
        L.append('')
        L.append('Both kernels carry the bench\'s in-kernel slab microbenchmark (bench/kernel/objstock_bench.c, '
                 'not part of the series) for the slab-* rows: per op = one object allocated and freed '
                 '(kmem_cache_alloc_bulk()/kmem_cache_free_bulk() of N objects, or N single calls).')
    L.append('')
    icount = meta.get('icount', 'off')
    L.append('Cells are mean ± stddev [min..max] over the repetitions. Marks: `*` Welch p < 0.05, '
             '`**` p < 0.01, `!` the LKP rule (ranges do not overlap and the change is above 1%). '
             'Instructions are guest kernel instructions per operation (all vCPUs), counted by the '
             'kinsn TCG plugin between the workload\'s markers. ' +
             ('The guest clock is driven by QEMU\'s `-icount %s`, so timer ticks follow the '
              'instruction count and the counts repeat from boot to boot; the wall time is the '
              'host\'s time between the same markers, i.e. what emulating the workload took: '
              'noisy, only large changes show.' % icount if icount != 'off' else
              'Without icount the guest clock follows the host\'s, so a busier host adds timer '
              'ticks and kernel instructions: expect a few percent of noise; the wall time is '
              'the guest clock.'))
    L.append('')
    L.append('Workloads (scaled for emulation; `ops` is what "per op" means):')
    L.append('')
    L.append('| workload | ops | command (under churn) |')
    L.append('|---|---|---|')
    for w in wls:
        L.append('| %s | %d | `%s` |' % (w, res['workloads'][w]['ops'], res['workloads'][w]['args']))
    L.append('')

    for key, title in (('kernel_insns_per_op', 'Guest kernel instructions per op'),
                       ('ns_per_op', 'Wall time per op (µs of host time emulating it under TCG)'
                        if icount != 'off' else 'Wall time per op (µs, guest clock under TCG)')):
        L.append('## %s' % title)
        L.append('')
        L.append('| workload | cgroup | base | patched | delta | p |')
        L.append('|---|---|---|---|---|---|')
        for w in wls:
            for cg in ('root', 'memcg'):
                a, b = cell('base', w, cg, key), cell('patched', w, cg, key)
                if not a or not b:
                    continue
                m, p = marks(a, b)
                L.append('| %s | %s | %s ± %s [%s..%s] | %s ± %s [%s..%s] | %+.2f%% %s | %s |' % (
                    w, cg, fmt(mean(a), key), fmt(sd(a), key), fmt(min(a), key), fmt(max(a), key),
                    fmt(mean(b), key), fmt(sd(b), key), fmt(min(b), key), fmt(max(b), key),
                    (mean(b) / mean(a) - 1) * 100 if mean(a) else 0, m,
                    '%.3g' % p if p is not None else 'n/a'))
        L.append('')

    # memcg tax = memcg minus root, per kernel (per repetition, then mean)
    L.append('## memcg tax: memcg minus root, guest kernel instructions per op')
    L.append('')
    L.append('Per repetition, memcg minus root of the same boot; mean ± stddev, marks as above. '
             'cut = 1 - patched tax / base tax, with the half-width of its 95% confidence '
             'interval over the repetitions (delta method, Welch-Satterthwaite degrees of '
             'freedom): a second run of the same kernels should land inside it. A cut whose '
             'interval is wider than ±10 points is not evidence either way; one wider than ±50 '
             'is reported as "not measured".')
    L.append('')
    L.append('| workload | base tax | patched tax | cut [95% CI] | p | base memcg/root | patched memcg/root |')
    L.append('|---|---|---|---|---|---|---|')
    dat = []
    for i, w in enumerate(wls):
        tb, tp = bench.taxes(res, 'base', w), bench.taxes(res, 'patched', w)
        if not tb or not tp:
            continue
        ratio = {}
        for k in ('base', 'patched'):
            r, m = cell(k, w, 'root', 'kernel_insns_per_op'), cell(k, w, 'memcg', 'kernel_insns_per_op')
            ratio[k] = mean(m) / mean(r) if r and m and mean(r) else 0
        mk, p = marks(tb, tp)
        L.append('| %s | %.0f ± %.0f | %.0f ± %.0f | %s %s | %s | %.3f | %.3f |' % (
            w, mean(tb), sd(tb), mean(tp), sd(tp), fmt_cut(tb, tp), mk,
            '%.3g' % p if p is not None else 'n/a', ratio['base'], ratio['patched']))
        dat.append((i, w, mean(tb), mean(tp), halfwidth(tb) or 0.0, halfwidth(tp) or 0.0))
    L.append('')
    L.append('![memcg tax per workload](tax.png)')
    L.append('')

    L += floor_section(res, wls)
    L += traffic_section(res, wls)

    if res.get('events'):
        L.append('## Events per 1000 ops (kprobe hits, first repetition)')
        L.append('')
        probes = sorted({p for e in res['events'] for p in e['per_1000_ops']})
        L.append('| workload | cgroup | kernel | ' + ' | '.join(probes) + ' |')
        L.append('|---|---|---|' + '---|' * len(probes))
        for e in sorted(res['events'], key=lambda e: (wls.index(e['workload']) if e['workload'] in wls else 0,
                                                     e['cgroup'], e['kernel'])):
            L.append('| %s | %s | %s | ' % (e['workload'], e['cgroup'], e['kernel']) +
                     ' | '.join('%.1f' % e['per_1000_ops'].get(p, 0) for p in probes) + ' |')
        L.append('')

    L.append('## Reading it')
    L.append('')
    L.append('A row is a real difference when it carries a mark; the instruction rows are the ones to '
             'trust (their stddev shows how well boots agree). Wall-time rows without a mark are noise '
             'at this number of repetitions: under emulation the wall time measures QEMU as much as the '
             'kernel. The memcg tax (memcg minus root of the same boot) is what the series targets; '
             'a root row tells whether the root cgroup, which does no accounting, pays for it. '
             'Raw samples: results.json (every repetition, both metrics).')
    return L, dat


def fmt_cut(tb, tp):
    """'+38.5% ± 1.4' (the cut and its 95% half-width); 'n/a ...' when
    stats.no_cut() says there is no cut to report"""
    why = no_cut(tb, tp)
    if why:
        return why
    cut, hw = cut_interval(tb, tp)
    return '%+.1f%% ± %s' % (cut, '%.1f' % hw if hw is not None else '?')


def over(x, f):
    """(mean(x) / mean(f) - 1) in % and its stddev, propagated from both"""
    mx, mf = mean(x), mean(f)
    if not mf:
        return 0.0, 0.0
    rel = ((sd(x) / mx) ** 2 + (sd(f) / mf) ** 2) ** 0.5 if mx else 0.0
    return (mx / mf - 1) * 100, mx / mf * rel * 100


def floor_section(res, wls):
    """the rows over the floor, the patched kernel with cgroup.memory=nokmem
    (runs with FLOOR=1); none without nokmem samples"""
    if not any(s['kernel'] == 'nokmem' for s in res['samples']):
        return []
    key = 'kernel_insns_per_op'
    L = ['## Over the floor: the kernel without kmem accounting', '']
    L.append('The floor is the patched kernel booted with `cgroup.memory=nokmem` (no kmem accounting), '
             'in the same cgroup, alternated with base and patched in each repetition. "over" is '
             '(kernel / floor - 1), mean ± stddev propagated from both cells; "memcg cost cut" is how '
             'much of base\'s memcg cost over the floor the patched kernel removes, '
             '1 - (patched - floor) / (base - floor).')
    # since 9bf2e71 the floor's boots run one window per row, base and
    # patched REPEAT of the REPEAT_WORKLOADS: say which rows that is
    one = sorted({s['workload'] for s in res['samples'] if s['kernel'] == 'nokmem' and s.get('windows') == 1} &
                 {s['workload'] for s in res['samples'] if s['kernel'] == 'patched' and (s.get('windows') or 1) > 1},
                 key=natural)
    if one:
        L.append('')
        L.append('The floor ran one window per cgroup and boot, base and patched %d, in the rows that vary '
                 'from window to window (%s): their floor cells, and the columns over it, carry one '
                 'window\'s noise.' % (max(s.get('windows') or 1 for s in res['samples']), ', '.join(one)))
    L.append('')
    L.append('| workload | cgroup | floor | base over floor | patched over floor | memcg cost cut |')
    L.append('|---|---|---|---|---|---|')
    for w in wls:
        for cg in bench.CGROUPS:
            f = bench.cell(res, 'nokmem', w, cg, key)
            a, b = bench.cell(res, 'base', w, cg, key), bench.cell(res, 'patched', w, cg, key)
            if not f or not a or not b:
                continue
            oa, sa = over(a, f)
            ob, sb = over(b, f)
            cost = mean(a) - mean(f)
            cut = '%+.0f%%' % ((1 - (mean(b) - mean(f)) / cost) * 100) if cost > 0 else 'n/a'
            L.append('| %s | %s | %s | %+.1f%% ± %.1f | %+.1f%% ± %.1f | %s |' % (
                w, cg, fmt(mean(f), key), oa, sa, ob, sb, cut if cg == 'memcg' else ''))
    L.append('')
    return L


def traffic_section(res, wls):
    """the traffic pass (TRAFFIC=1): the cache model's events per op, one
    boot of each kernel; none without it"""
    rows = {(t['kernel'], t['workload'], t['cgroup']): t for t in res.get('traffic') or []}
    if not rows:
        return []
    # the pass has workloads of its own (TRAFFIC_WORKLOADS)
    wls = sorted({w for _, w, _ in rows}, key=natural)
    L = ['## Memory traffic per op (modeled)', '']
    L.append('One boot of each kernel with the kinsn plugin\'s data-cache model (`cache=on`): every guest '
             'memory access drives a per-vCPU L1D, a shared LLC and a coherence directory per 64-byte '
             'line of guest physical memory; counted are the kernel\'s accesses between the markers. '
             'xfer: cross-vCPU transfers (a miss on a line another vCPU wrote last, or a store that '
             'invalidates other vCPUs\' copies). cost = instructions + the latencies below x the events. '
             'Model: `%s`. The instruction rows above stay the exact measure; these are a model, one '
             'boot, no spread.' % res['meta'].get('traffic_model', '?'))
    L.append('')
    L.append('| workload | cgroup | L1D miss base | patched | LLC miss base | patched | xfer base | patched '
             '| cost base | patched | cost delta |')
    L.append('|---|---|---|---|---|---|---|---|---|---|---|')
    taxes = []
    for w in wls:
        for cg in bench.CGROUPS:
            a, b = rows.get(('base', w, cg)), rows.get(('patched', w, cg))
            if not a or not b:
                continue
            L.append('| %s | %s | %.2f | %.2f | %.3f | %.3f | %.3f | %.3f | %.0f | %.0f | %+.1f%% |' % (
                w, cg, a['l1d_miss_per_op'], b['l1d_miss_per_op'], a['llc_miss_per_op'],
                b['llc_miss_per_op'], a['xfer_per_op'], b['xfer_per_op'], a['cost_per_op'],
                b['cost_per_op'], (b['cost_per_op'] / a['cost_per_op'] - 1) * 100
                if a['cost_per_op'] else 0))
        k = [rows.get((kk, w, cg)) for kk in ('base', 'patched') for cg in bench.CGROUPS]
        if all(k):
            taxes.append((w, k[1]['cost_per_op'] - k[0]['cost_per_op'],
                          k[3]['cost_per_op'] - k[2]['cost_per_op'],
                          k[1]['xfer_per_op'] - k[0]['xfer_per_op'],
                          k[3]['xfer_per_op'] - k[2]['xfer_per_op']))
    L.append('')
    if taxes:
        L.append('Modeled memcg tax (memcg minus root of the same boot), cost and transfers per op:')
        L.append('')
        L.append('| workload | cost tax base | patched | cut | xfer tax base | patched |')
        L.append('|---|---|---|---|---|---|')
        for w, cb, cp, xb, xp in taxes:
            L.append('| %s | %.0f | %.0f | %s | %.3f | %.3f |' % (
                w, cb, cp, '%+.0f%%' % ((1 - cp / cb) * 100) if cb > 0 else 'n/a', xb, xp))
        L.append('')
    return L


def panels(dat):
    """two panels: the userspace workloads and the in-kernel slab
    microbenchmark; a row whose tax dwarfs the others (hackbench -s 100000)
    stays in the table -> (top rows, slab rows, the rows not drawn)"""
    big = [(w, b, p) for i, w, b, p, _, _ in dat if b > 3000 or p > 3000]
    top = [d for d in dat if not d[1].startswith('slab-') and d[1] not in [x[0] for x in big]]
    bot = [d for d in dat if d[1].startswith('slab-')]
    return top, bot, big


def write(res, outdir):
    """report.md, tax.dat, tax-top.dat, tax-slab.dat, and tax.png with gnuplot"""
    L, dat = markdown(res)
    os.makedirs(outdir, exist_ok=True)
    with open(os.path.join(outdir, 'report.md'), 'w') as f:
        f.write('\n'.join(L) + '\n')
    top, bot, big = panels(dat)
    with open(os.path.join(outdir, 'tax.dat'), 'w') as f:
        f.write('# index workload base_tax patched_tax base_ci95 patched_ci95 '
                '(kernel insns/op, memcg minus root; ci95: half-width of the mean\'s 95% interval)\n')
        for row in dat:
            f.write('%d %s %.1f %.1f %.1f %.1f\n' % row)
    for name, rows in (('tax-top.dat', top), ('tax-slab.dat', bot)):
        with open(os.path.join(outdir, name), 'w') as f:
            for row in rows:
                f.write('%d %s %.1f %.1f %.1f %.1f\n' % row)
    if shutil.which('gnuplot') and dat:
        note = ''.join('; not drawn: %s %.0f -> %.0f' % x for x in big)
        plots = []
        for name, rows, title in (('tax-top.dat', top, 'userspace workloads, per op' + note),
                                  ('tax-slab.dat', bot, 'in-kernel slab bulk/single microbenchmark, per object')):
            if rows:
                plots.append("set title '%s'\nset yrange [%s:*]\nplot '%s' using 3:5:xtic(2) title 'base', '' using 4:6 title 'patched'"
                             % (title, '0' if min(min(r[2], r[3]) for r in rows) >= 0 else '*',
                                os.path.join(outdir, name)))
        gp = """set terminal pngcairo size %d,%d noenhanced
set output '%s'
set multiplot layout %d,1 title 'memcg tax (memcg minus root): guest kernel instructions; error bars: 95%% interval of the mean'
set style data histograms
set style histogram errorbars gap 1 lw 1
set style fill solid 0.8 border -1
set xtics rotate by -35 font ',9'
set ylabel 'instructions'
set grid ytics
set key top left
set rmargin 10
%s
unset multiplot
""" % (max(1100, 40 * max(len(top), len(bot))), 480 * len(plots), os.path.join(outdir, 'tax.png'),
           len(plots), '\n'.join(plots))
        r = subprocess.run(['gnuplot'], input=gp, text=True, capture_output=True)
        if r.returncode:
            raise Error('gnuplot failed: ' + (r.stderr.strip().splitlines() or ['?'])[-1])
    return L


def main(argv):
    """report.py RESULTS.json OUTDIR; several RESULTS.json, or real hardware's:
    objstock/hw.py merges them (make report RESULTS=...)"""
    from . import hw
    if len(argv) != 2 or hw.is_hw(bench.load(argv[0])):
        return hw.main(argv)
    res = bench.load(argv[0])
    L = write(res, argv[1])
    print('\n'.join(L) + '\n')
    return 0
