"""cover: the numbers section of the cover letter, from a results.json of `make`.

The section is everything between a line starting with '[numbers:' and a
line '[end of numbers]'; both lines are kept (the first is rewritten to name
the results), everything between them is replaced.
"""
import os
import re
import textwrap

from . import Error, bench, write_atomic
from .stats import cut_interval, mean, natural, no_cut, sd, welch

SECTION = re.compile(r'^\[numbers:[^\n]*\]\n.*?^\[end of numbers\]$', re.S | re.M)
SCALE_SECTION = re.compile(r'^\[scale numbers:[^\n]*\]\n.*?^\[end of scale numbers\]$', re.S | re.M)
META = ('repetitions', 'cpus')


def short(v):
    return '%5.0f' % v if v < 99999.5 else '%4.0fk' % (v / 1000)


def rows(res):
    """[(workload, root base, root patched, memcg base, memcg patched, base
    taxes, patched taxes)]; a workload without all four cells is an Error"""
    out = []
    for w in bench.workloads(res):
        cells = {}
        for k in bench.AB:
            for cg in bench.CGROUPS:
                cells[k, cg] = bench.by_rep(res, k, w, cg)
                if not cells[k, cg]:
                    raise Error('workload %s has no %s samples in %s' % (w, k, cg))
        tb, tp = bench.taxes(res, 'base', w), bench.taxes(res, 'patched', w)
        if not tb or not tp:
            raise Error('workload %s: no repetition with both root and memcg samples of %s'
                        % (w, 'base' if not tb else 'patched'))
        out.append((w, cells['base', 'root'], cells['patched', 'root'],
                    cells['base', 'memcg'], cells['patched', 'memcg'], tb, tp))
    if not out:
        raise Error('no workload has samples')
    return out


def numbers(res, rel):
    """the lines of the section; REL: the results' directory, as the repository names it"""
    meta = res['meta']
    reps = meta['repetitions']
    L = []
    L.append('Guest kernel instructions per operation, QEMU/TCG, %s vCPUs,' % meta['cpus'])
    L.append('-icount %s, counted by a TCG plugin between the workload\'s' % meta.get('icount', 'off'))
    L.append('markers; mean of %s boots of each kernel, alternated.  tax = memcg -' % reps)
    L.append('root in the same boot, mean±stddev; cut = tax reduction ± the')
    L.append('half-width of its 95% interval, * Welch p < 0.05, ** p < 0.01.')
    L.append('hackbench is scaled down for emulation (parameters in the report):')
    L.append('')
    L.append('%-25s %11s %11s %19s' % ('', '--- root --', '-- memcg --', '------- tax -------'))
    L.append('%-25s %5s %5s %5s %5s %9s %9s %9s' % ('workload', 'base', 'patch', 'base', 'patch',
                                                    'base', 'patched', 'cut'))
    for w, rb, rp, mb, mp, tb, tp in rows(res):
        cut, hw = cut_interval(tb, tp)
        p = welch(tb, tp)
        mark = '**' if p is not None and p < 0.01 else '*' if p is not None and p < 0.05 else ''
        # no tax to cut, or a cut interval that says nothing (stats.no_cut)
        cell = 'n/a' if no_cut(tb, tp) else \
            '%.0f%%' % cut + ('±%.0f' % hw if hw is not None else '') + mark
        L.append('%-25s %s %s %s %s %9s %9s %9s' % (
            w, short(mean(list(rb.values()))), short(mean(list(rp.values()))),
            short(mean(list(mb.values()))), short(mean(list(mp.values()))),
            '%.0f±%.0f' % (mean(tb), sd(tb)), '%.0f±%.0f' % (mean(tp), sd(tp)), cell))
    L.append('')
    L.append('A cut without a mark is within the noise of %s boots; one whose' % reps)
    L.append('interval is wider than ±10 points is no evidence either way.')
    L += floor_lines(res)
    L += traffic_lines(res)
    L.append('')
    L.append('Full report with wall time, Welch p-values and kprobe event counts:')
    L.append('%s/report.md in the objstock repository.' % rel)
    return L


def floor_lines(res):
    """memcg and root over the floor (the patched kernel booted with
    cgroup.memory=nokmem), when the run has it"""
    if not any(s['kernel'] == 'nokmem' for s in res['samples']):
        return []
    key = 'kernel_insns_per_op'
    L = [''] + textwrap.wrap(
        'Over the floor, the patched kernel booted with cgroup.memory=nokmem (alternated with '
        'both in every repetition): kernel / floor - 1, and how much of 7.3\'s memcg cost over '
        'the floor the series removes:', 72) + ['',
         '%-25s %13s %13s %9s' % ('', '---- root ---', '--- memcg ---', 'memcg'),
         '%-25s %6s %6s %6s %6s %9s' % ('workload', 'base', 'patch', 'base', 'patch', 'cost cut')]
    for w in bench.workloads(res):
        f = {cg: bench.cell(res, 'nokmem', w, cg, key) for cg in bench.CGROUPS}
        if not all(f.values()):
            continue
        over = {}
        for k in bench.AB:
            for cg in bench.CGROUPS:
                c = bench.cell(res, k, w, cg, key)
                over[k, cg] = (mean(c) / mean(f[cg]) - 1) * 100 if c and mean(f[cg]) else None
        if any(v is None for v in over.values()):
            continue
        cost = mean(bench.cell(res, 'base', w, 'memcg', key)) - mean(f['memcg'])
        cut = (1 - (mean(bench.cell(res, 'patched', w, 'memcg', key)) - mean(f['memcg'])) / cost) * 100 \
            if cost > 0 else None
        L.append('%-25s %5.0f%% %5.0f%% %5.0f%% %5.0f%% %9s' % (
            w, over['base', 'root'], over['patched', 'root'], over['base', 'memcg'],
            over['patched', 'memcg'], '%.0f%%' % cut if cut is not None else 'n/a'))
    return L


def traffic_lines(res):
    """the modeled memory traffic of the traffic pass, when the run has it"""
    rows = {(t['kernel'], t['workload'], t['cgroup']): t for t in res.get('traffic') or []}
    if not rows:
        return []
    f = res['meta'].get('traffic_model', '').split()
    m = dict(zip(f[::2], f[1::2]))
    try:
        model = ('per-vCPU %d KiB L1D, shared %d KiB LLC, a coherence directory per'
                 % (int(m['l1d_size']) // 1024, int(m['llc_size']) // 1024),
                 'cost of instructions + %s per L1D miss + %s per LLC miss + %s per'
                 % (m['lat_l1d'], m['lat_llc'], m['lat_xfer']))
    except (KeyError, ValueError):
        raise Error('meta.traffic_model does not give the cache model: %r' % res['meta'].get('traffic_model'))
    L = [''] + textwrap.wrap(
        'Memory traffic per op, modeled (one boot of each kernel with the plugin\'s cache model: '
        + model[0] + ' guest physical line): the memcg tax (memcg - root) in cross-vCPU transfers '
        'and LLC misses per op, and in a modeled ' + model[1] + ' transfer:', 72) + ['',
         '%-25s %13s %13s %17s' % ('', '-- xfer tax -', '-- LLC tax --', '--- cost tax ---'),
         '%-25s %6s %6s %6s %6s %6s %6s %4s' % ('workload', 'base', 'patch', 'base', 'patch',
                                                 'base', 'patch', 'cut')]
    for w in sorted({k[1] for k in rows}, key=natural):
        c = {(k, cg): rows.get((k, w, cg)) for k in bench.AB for cg in bench.CGROUPS}
        if not all(c.values()):
            continue
        tax = {(k, key): c[k, 'memcg'][key + '_per_op'] - c[k, 'root'][key + '_per_op']
               for k in bench.AB for key in ('xfer', 'llc_miss', 'cost')}
        cut = (1 - tax['patched', 'cost'] / tax['base', 'cost']) * 100 if tax['base', 'cost'] > 0 else None
        L.append('%-25s %6.2f %6.2f %6.2f %6.2f %6.0f %6.0f %4s' % (
            w, tax['base', 'xfer'], tax['patched', 'xfer'], tax['base', 'llc_miss'],
            tax['patched', 'llc_miss'], tax['base', 'cost'], tax['patched', 'cost'],
            '%.0f%%' % cut if cut is not None else 'n/a'))
    return L


def relpath(results_path, cover_path):
    """the results' directory relative to the repository the cover letter is in"""
    return os.path.relpath(os.path.dirname(os.path.abspath(results_path)),
                           os.path.dirname(os.path.dirname(os.path.abspath(cover_path))))


def replace(text, lines, rel, cover_name='the cover letter'):
    """TEXT with its numbers section replaced"""
    m = SECTION.search(text)
    if not m:
        raise Error('%s has no "[numbers: ...]" ... "[end of numbers]" section' % cover_name)
    block = '[numbers: make cover, from %s/results.json]\n%s\n[end of numbers]' % (rel, '\n'.join(lines))
    return text[:m.start()] + block + text[m.end():]


def replace_scale(text, lines, rel, cover_name='the cover letter'):
    """TEXT with its scale numbers section replaced"""
    m = SCALE_SECTION.search(text)
    if not m:
        raise Error('%s has no "[scale numbers: ...]" ... "[end of scale numbers]" section' % cover_name)
    block = '[scale numbers: make cover, from %s/results.json]\n%s\n[end of scale numbers]' % (
        rel, '\n'.join(lines))
    return text[:m.start()] + block + text[m.end():]


def main(argv):
    """cover-numbers.py RESULTS.json COVER [SCALE_RESULTS.json]"""
    if len(argv) not in (2, 3):
        raise Error('usage: cover-numbers.py RESULTS.json COVER [SCALE_RESULTS.json]')
    results_path, cover_path = argv[:2]
    res = bench.load(results_path)
    bench.validate(res, results_path, META)
    try:
        text = open(cover_path).read()
    except OSError as e:
        raise Error('cannot read %s: %s' % (cover_path, e.strerror))
    try:
        rs = rows(res)
    except Error as e:
        raise Error('%s: %s' % (results_path, e))
    rel = relpath(results_path, cover_path)
    new = replace(text, numbers(res, rel), rel, cover_path)
    if len(argv) == 3:
        from . import scale
        sres = scale.load(argv[2])
        new = replace_scale(new, scale.cover_lines(sres), relpath(argv[2], cover_path), cover_path)
    write_atomic(cover_path, new)
    print('cover-numbers: %d workloads from %s%s -> %s' % (
        len(rs), results_path, ' and %s' % argv[2] if len(argv) == 3 else '', cover_path))
    return 0
