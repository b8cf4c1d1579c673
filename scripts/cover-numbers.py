#!/usr/bin/env python3
"""cover-numbers RESULTS.json COVER: regenerate the numbers section of a
cover letter from the A/B results of `make`.

The section is everything between a line starting with '[numbers:' and a
line '[end of numbers]'; both lines are kept (the first is rewritten to name
the results), everything between them is replaced.  Fails when COVER has no
such section, or RESULTS has no samples."""
import json
import math
import os
import re
import sys

results_path, cover_path = sys.argv[1:3]
res = json.load(open(results_path))
samples = res.get('samples', [])
if not samples:
    sys.exit('cover-numbers: no samples in %s' % results_path)


def vals(kernel, wl, cg, key='kernel_insns_per_op'):
    return {s['rep']: s[key] for s in samples
            if s['kernel'] == kernel and s['workload'] == wl and s['cgroup'] == cg}


def mean(x):
    return sum(x) / len(x)


def sd(x):
    if len(x) < 2:
        return 0.0
    m = mean(x)
    return math.sqrt(sum((v - m) ** 2 for v in x) / (len(x) - 1))


meta = res.get('meta', {})
wls = [w for w in res['workloads'] if any(s['workload'] == w for s in samples)]
reps = meta.get('repetitions', '?')
L = []
L.append('Guest kernel instructions per operation, QEMU/TCG, %s vCPUs, counted by' % meta.get('cpus', '2'))
L.append('a TCG plugin between the workload\'s markers; mean of %s boots of each' % reps)
L.append('kernel, alternated (base, patched, base, ...).  tax = memcg - root in')
L.append('the same boot, mean ± stddev; cut = tax reduction.  hackbench is')
L.append('scaled down for emulation (bench/workloads has the parameters):')
L.append('')
L.append('%-22s %6s %6s %6s  %13s %13s %5s' % ('', 'root', 'memcg', 'memcg', 'tax', 'tax', ''))
L.append('%-22s %6s %6s %6s  %13s %13s %5s' % ('workload', 'base', 'base', 'patch', 'base', 'patched', 'cut'))
for w in wls:
    rb, mb = vals('base', w, 'root'), vals('base', w, 'memcg')
    rp, mp = vals('patched', w, 'root'), vals('patched', w, 'memcg')
    tb = [mb[k] - rb[k] for k in sorted(rb) if k in mb]
    tp = [mp[k] - rp[k] for k in sorted(rp) if k in mp]
    if not tb or not tp:
        continue
    cut = (1 - mean(tp) / mean(tb)) * 100 if mean(tb) else 0
    L.append('%-22s %6.0f %6.0f %6.0f  %6.0f ± %4.0f %6.0f ± %4.0f %4.0f%%' % (
        w[:22], mean(list(rb.values())), mean(list(mb.values())), mean(list(mp.values())),
        mean(tb), sd(tb), mean(tp), sd(tp), cut))
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
