#!/usr/bin/env python3
# win.py RUNDIR WORKLOADS: per workload, per kernel and boot, the memcg tax per op of each window
# pair (memcg window - following root window), the boot means, and the cut of the means
import os, re, sys, statistics as st, math
rundir, wl = sys.argv[1:3]
ops = {}
for l in open(wl):
    if l.startswith('#') or len(l.split()) < 4: continue
    f = l.split(); ops[f[0]] = int(f[2])
data = {}  # (wl, kernel) -> list of boots -> list of (memcg, root)
for d in sorted(os.listdir(rundir)):
    m = re.match(r'^(base|patched|nokmem)-(\d+)$', d)
    if not m: continue
    rd = os.path.join(rundir, d)
    if not os.path.exists(os.path.join(rd, 'kinsn.out')): continue
    man = {}
    for l in open(os.path.join(rd, 'manifest')):
        w, n, cg, p = l.split()
        if p == 'count': man[int(w)] = (n, cg)
    ins = {}
    for l in open(os.path.join(rd, 'kinsn.out')):
        f = l.split()
        if len(f) >= 4 and f[0] == 'window': ins[int(f[1])] = int(f[3])
    per = {}
    for w in sorted(man):
        if w not in ins: continue
        n, cg = man[w]
        per.setdefault(n, {'memcg': [], 'root': []})[cg].append(ins[w] / ops[n])
    for n, v in per.items():
        k = min(len(v['memcg']), len(v['root']))
        if k == 0: continue
        data.setdefault((n, m.group(1)), []).append([(v['memcg'][i], v['root'][i]) for i in range(k)])
names = sorted({n for n, _ in data}, key=lambda x: list(ops).index(x))
for n in names:
    line = [n]
    res = {}
    for k in ('base', 'patched'):
        boots = data.get((n, k), [])
        bm = [st.mean(m - r for m, r in b) for b in boots]
        wsd = [st.stdev([m - r for m, r in b]) for b in boots if len(b) > 1]
        roots = [st.mean(r for m, r in b) for b in boots]
        res[k] = bm
        print('%-26s %-7s taxes/boot %s  within-boot sd %s  root/boot %s' % (n, k,
              ' '.join('%.0f' % x for x in bm), ' '.join('%.0f' % x for x in wsd),
              ' '.join('%.0f' % x for x in roots)))
    b, p = res.get('base', []), res.get('patched', [])
    if b and p:
        cut = 100 * (1 - st.mean(p) / st.mean(b))
        # per-boot cuts pairing boot i with boot i
        pc = [100 * (1 - pp / bb) for bb, pp in zip(b, p)]
        sd = st.stdev(pc) if len(pc) > 1 else float('nan')
        print('%-26s cut %.1f  per-boot-pair cuts %s  sd %.1f  se %.1f' % (n, cut, ' '.join('%.1f' % x for x in pc), sd, sd / math.sqrt(len(pc))))
