#!/usr/bin/env python3
"""parse3.py RUNDIR... : mmap/hackbench per-op kernel instructions (min of
3 windows per boot, then median over boots) and single-object alloc+free
per object ((min b - min a) / objects per boot, median over boots)."""
import sys, os, re, statistics, collections
OPS = {'mmap': 2000, 'hackbench': 80000}
res = collections.defaultdict(lambda: collections.defaultdict(list))
for rd in sys.argv[1:]:
    label = os.path.basename(rd.rstrip('/')).rsplit('-', 1)[0]
    man = {}
    for l in open(os.path.join(rd, 'manifest')):
        w, name, cg = l.split()[:3]
        man[int(w)] = (name, cg)
    mins = {}
    for l in open(os.path.join(rd, 'kinsn.out')):
        m = re.match(r'window (\d+) kernel_insns (\d+)', l)
        if not m:
            continue
        name, cg = man[int(m.group(1))]
        v = int(m.group(2))
        if name.startswith('bulk-'):
            continue
        if name.startswith('single'):
            _, n, sz, ab = name.split('-')
            k = ('single n=%s size=%s' % (n, sz), ab[0], cg)
        else:
            k = (name.rstrip('123'), 'x', cg)
        mins[k] = min(mins.get(k, 1 << 62), v)
    for (w, ab, cg), v in mins.items():
        if ab == 'x':
            res[label][(w, cg)].append(v / OPS[w])
        elif ab == 'b':
            sz = int(w.split('size=')[1])
            objs = 32768 if sz != 4096 else 8192
            res[label][(w, cg)].append((v - mins[(w, 'a', cg)]) / objs)
labels = list(res)
keys = sorted({w for l in labels for (w, cg) in res[l]}, key=lambda s: (s.startswith('single'), [int(x) if x.isdigit() else x for x in re.split(r'[ =]', s)]))
hdr = ['workload'] + ['%s root' % l for l in labels] + ['%s memcg-root' % l for l in labels]
if len(labels) == 2:
    hdr.append('memcg-root change')
print('| ' + ' | '.join(hdr) + ' |')
print('|---' * len(hdr) + '|')
for w in keys:
    roots, deltas = [], []
    for l in labels:
        r = statistics.median(res[l][(w, 'root')])
        m = statistics.median(res[l][(w, 'memcg')])
        roots.append('%.1f' % r)
        deltas.append(m - r)
    row = [w] + roots + ['%.1f' % d for d in deltas]
    if len(labels) == 2:
        row.append('%+.1f%%' % (100 * (deltas[1] - deltas[0]) / deltas[0]))
    print('| ' + ' | '.join(row) + ' |')
