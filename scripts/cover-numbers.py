#!/usr/bin/env python3
"""cover-numbers RESULTS.json COVER: regenerate the numbers section of a
cover letter from the A/B results of `make`.

The section is everything between a line starting with '[numbers:' and a
line '[end of numbers]'; both lines are kept (the first is rewritten to name
the results), everything between them is replaced.  Fails when COVER has no
such section, or RESULTS has no samples."""
import json
import os
import re
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from stats import mean, natural, sd, welch  # noqa: E402

results_path, cover_path = sys.argv[1:3]
res = json.load(open(results_path))
samples = res.get('samples', [])
if not samples:
    sys.exit('cover-numbers: no samples in %s' % results_path)


def vals(kernel, wl, cg, key='kernel_insns_per_op'):
    return {s['rep']: s[key] for s in samples
            if s['kernel'] == kernel and s['workload'] == wl and s['cgroup'] == cg}


meta = res.get('meta', {})
wls = sorted((w for w in res['workloads'] if any(s['workload'] == w for s in samples)), key=natural)
reps = meta.get('repetitions', '?')
L = []
L.append('Guest kernel instructions per operation, QEMU/TCG, %s vCPUs,' % meta.get('cpus', '2'))
L.append('-icount %s, counted by a TCG plugin between the workload\'s' % meta.get('icount', 'off'))
L.append('markers; mean of %s boots of each kernel, alternated.  tax = memcg -' % reps)
L.append('root in the same boot, mean±stddev; cut = tax reduction, * Welch')
L.append('p < 0.05, ** p < 0.01.')
L.append('hackbench is scaled down for emulation (parameters in the report):')
L.append('')
L.append('%-22s %11s %11s %19s' % ('', '--- root --', '-- memcg --', '------- tax -------'))
L.append('%-22s %5s %5s %5s %5s %9s %9s %6s' % ('workload', 'base', 'patch', 'base', 'patch',
                                                'base', 'patched', 'cut'))


def short(v):
    return '%5.0f' % v if v < 99999.5 else '%4.0fk' % (v / 1000)


for w in wls:
    rb, mb = vals('base', w, 'root'), vals('base', w, 'memcg')
    rp, mp = vals('patched', w, 'root'), vals('patched', w, 'memcg')
    tb = [mb[k] - rb[k] for k in sorted(rb) if k in mb]
    tp = [mp[k] - rp[k] for k in sorted(rp) if k in mp]
    if not tb or not tp:
        continue
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
rel = os.path.relpath(os.path.dirname(os.path.abspath(results_path)),
                      os.path.dirname(os.path.dirname(os.path.abspath(cover_path))))
L.append('%s/report.md in the objstock repository.' % rel)

text = open(cover_path).read()
m = re.search(r'^\[numbers:[^\n]*\]\n.*?^\[end of numbers\]$', text, re.S | re.M)
if not m:
    sys.exit('cover-numbers: %s has no "[numbers: ...]" ... "[end of numbers]" section' % cover_path)
block = '[numbers: make cover, from %s/results.json]\n%s\n[end of numbers]' % (rel, '\n'.join(L))
text = text[:m.start()] + block + text[m.end():]
open(cover_path, 'w').write(text)
print('cover-numbers: %d workloads from %s -> %s' % (len(wls), results_path, cover_path))
