#!/usr/bin/env python3
"""parse2.py RUNDIR... : bulk per-object kernel instructions: within a boot,
(min over reps of window b - min over reps of window a) / objects; then the
median over boots.  Label = RUNDIR basename up to the last '-'."""
import sys, os, re, statistics, collections
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
        if not name.startswith('bulk-'):
            continue
        _, n, sz, ab = name.split('-')
        k = (int(n), int(sz), ab[0], cg)
        mins[k] = min(mins.get(k, 1 << 62), int(m.group(2)))
    for (n, sz, ab, cg), v in mins.items():
        if ab == 'b' and (n, sz, 'a', cg) in mins:
            objs = 32768 if sz != 4096 else 8192
            res[label][(n, sz, cg)].append((v - mins[(n, sz, 'a', cg)]) / objs)
labels = list(res)
keys = sorted({(n, sz) for l in labels for (n, sz, cg) in res[l]})
hdr = ['N', 'size'] + ['%s root' % l for l in labels] + ['%s memcg-root' % l for l in labels]
if len(labels) == 2:
    hdr.append('memcg-root change')
print('| ' + ' | '.join(hdr) + ' |')
print('|---' * len(hdr) + '|')
for n, sz in keys:
    roots, deltas = [], []
    for l in labels:
        r = statistics.median(res[l][(n, sz, 'root')])
        m = statistics.median(res[l][(n, sz, 'memcg')])
        roots.append('%.1f' % r)
        deltas.append(m - r)
    row = [str(n), str(sz)] + roots + ['%.1f' % d for d in deltas]
    if len(labels) == 2:
        row.append('%+.1f%%' % (100 * (deltas[1] - deltas[0]) / deltas[0]))
    print('| ' + ' | '.join(row) + ' |')
print()
print('boots per kernel:', {l: len(res[l][keys[0] + ('root',)]) for l in labels})
