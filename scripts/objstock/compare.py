"""compare: do two runs of `make` agree?  For every workload with a cut in
both results.json, the two cuts (1 - patched tax / base tax, with the
half-width of the 95% interval, as report.md gives them), how far apart
they are, and whether each run's interval holds the other's cut.

    compare.py A/results.json B/results.json

The question it answers is the repeatability criterion of the bench: two
runs of the same kernels should land every cut within AGREE points of each
other, and each cut's interval should hold the other run's cut.  Rows that
one run reports as "n/a" (no tax, or an interval wider than the report's
limit) are listed, not counted.  Output: a markdown table and one summary
line; exit 0 whatever they say (bad input: Error).
"""
from . import Error, bench
from .stats import cut_interval, no_cut, natural

# points: how close two runs' cuts must be
AGREE = 3.0


def cuts(res):
    """{workload: (cut, half-width)} for the rows with a cut; {workload: why}
    for those without"""
    have, why = {}, {}
    for w in bench.workloads(res):
        tb, tp = bench.taxes(res, 'base', w), bench.taxes(res, 'patched', w)
        if not tb or not tp:
            continue
        n = no_cut(tb, tp)
        if n:
            why[w] = n
        else:
            have[w] = cut_interval(tb, tp)
    return have, why


def compare(a, b, agree=AGREE):
    """-> (rows, summary): rows of (workload, cut A, hw A, cut B, hw B,
    apart, holds) for the workloads with a cut in both, holds being 'both',
    'one' or 'neither' (whose interval holds the other's cut); summary a
    dict of counts and the lists of rows outside"""
    ca, wa = cuts(a)
    cb, wb = cuts(b)
    rows = []
    for w in sorted(set(ca) & set(cb), key=natural):
        (xa, ha), (xb, hb) = ca[w], cb[w]
        apart = abs(xa - xb)
        n = (ha is not None and apart <= ha) + (hb is not None and apart <= hb)
        rows.append((w, xa, ha, xb, hb, apart, ('neither', 'one', 'both')[n]))
    outside = [r[0] for r in rows if r[5] > agree]
    summary = {
        'rows': len(rows),
        'within': len(rows) - len(outside),
        'within1': sum(r[5] <= 1.0 for r in rows),
        'outside': outside,
        'holds_both': sum(r[6] == 'both' for r in rows),
        'only_one': sorted((set(ca) | set(wa)) ^ (set(cb) | set(wb)), key=natural),
        'no_cut': sorted(((set(ca) | set(wa)) & (set(cb) | set(wb))) - (set(ca) & set(cb)), key=natural),
    }
    return rows, summary


def lines(rows, s, names=('A', 'B'), agree=AGREE):
    def hw(h):
        return '?' if h is None else '%.1f' % h
    L = ['| row | %s | %s | apart | intervals hold the other cut |' % names, '|---|---|---|---|---|']
    for w, xa, ha, xb, hb, apart, holds in rows:
        mark = '**%.1f**' % apart if apart > agree else '%.1f' % apart
        L.append('| %s | %.1f ± %s | %.1f ± %s | %s | %s |' % (w, xa, hw(ha), xb, hw(hb), mark, holds))
    L.append('')
    if s['no_cut']:
        L.append('No cut in one run or both (not counted): %s.' % ', '.join(s['no_cut']))
    if s['only_one']:
        L.append('In one run only (not counted): %s.' % ', '.join(s['only_one']))
    L.append('%d of %d cuts within %g points (%d within 1), both intervals hold the other cut in %d; '
             'outside: %s' % (s['within'], s['rows'], agree, s['within1'], s['holds_both'],
                              ', '.join(s['outside']) or 'none'))
    return L


def main(argv):
    if len(argv) != 2:
        raise Error('compare needs two runs: RESULTS="A/results.json B/results.json"')
    a, b = bench.load(argv[0]), bench.load(argv[1])
    from . import hw
    for path, res in zip(argv, (a, b)):
        if hw.is_hw(res):
            raise Error('%s: a real-hardware run; compare takes two runs of make' % path)
    rows, s = compare(a, b)
    if not rows:
        raise Error('no workload has a cut in both runs')
    print('\n'.join(lines(rows, s)))
    return 0
