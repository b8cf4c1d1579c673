"""cover: the numbers section of the cover letter, from a results.json of `make`.

The section is everything between a line starting with '[numbers:' and a
line '[end of numbers]'; both lines are kept (the first is rewritten to name
the results), everything between them is replaced.
"""
import os
import re

from . import Error, bench, write_atomic
from .stats import mean, sd, welch

SECTION = re.compile(r'^\[numbers:[^\n]*\]\n.*?^\[end of numbers\]$', re.S | re.M)
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
    L.append('root in the same boot, mean±stddev; cut = tax reduction, * Welch')
    L.append('p < 0.05, ** p < 0.01.')
    L.append('hackbench is scaled down for emulation (parameters in the report):')
    L.append('')
    L.append('%-22s %11s %11s %19s' % ('', '--- root --', '-- memcg --', '------- tax -------'))
    L.append('%-22s %5s %5s %5s %5s %9s %9s %6s' % ('workload', 'base', 'patch', 'base', 'patch',
                                                    'base', 'patched', 'cut'))
    for w, rb, rp, mb, mp, tb, tp in rows(res):
        cut = (1 - mean(tp) / mean(tb)) * 100 if mean(tb) else 0
        p = welch(tb, tp)
        mark = '**' if p is not None and p < 0.01 else '*' if p is not None and p < 0.05 else ''
        L.append('%-22s %s %s %s %s %9s %9s %5.0f%%%s' % (
            w[:22], short(mean(list(rb.values()))), short(mean(list(rp.values()))),
            short(mean(list(mb.values()))), short(mean(list(mp.values()))),
            '%.0f±%.0f' % (mean(tb), sd(tb)), '%.0f±%.0f' % (mean(tp), sd(tp)), cut, mark))
    L.append('')
    L.append('A cut without a mark is within the noise of %s boots.' % reps)
    L.append('')
    L.append('Full report with wall time, Welch p-values and kprobe event counts:')
    L.append('%s/report.md in the objstock repository.' % rel)
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


def main(argv):
    """cover-numbers.py RESULTS.json COVER"""
    if len(argv) != 2:
        raise Error('usage: cover-numbers.py RESULTS.json COVER')
    results_path, cover_path = argv
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
    write_atomic(cover_path, new)
    print('cover-numbers: %d workloads from %s -> %s' % (len(rs), results_path, cover_path))
    return 0
