#!/usr/bin/env python3
"""collect RUNDIR WORKLOADS: one bench run (RUNDIR/{base,patched,nokmem}-R/ and
RUNDIR/{base,patched}-traffic/, the cache-model pass) -> JSON.

Each guest run dir holds: manifest ('window name cgroup pass'), churn.out
('window churn mode=.. iters=.. ns=.. ns_per_op=..'), kinsn.out (the plugin:
'window N kernel_insns K user_insns U [host_ns T]') and, in the first repetition,
events.txt (kprobe hit counts before/after each workload)."""
import json
import os
import re
import sys

rundir, wlfile = sys.argv[1:3]

workloads = {}
for line in open(wlfile):
    if line.startswith('#') or len(line.split()) < 4:
        continue
    name, quick, ops, *args = line.split()
    workloads[name] = {'ops': int(ops), 'quick': quick == '1', 'args': ' '.join(args)}

meta = {}
for line in open(os.path.join(rundir, 'meta.txt')):
    k, _, v = line.rstrip('\n').partition(' ')
    meta[k] = v

TRAFFIC_KEYS = ('loads', 'stores', 'l1d_miss', 'llc_miss', 'xfer', 'cost')


def traffic(rd, kernel):
    """a traffic-pass boot (cache=on): per window, the model's counts per op;
    and the model line the plugin wrote first"""
    manifest = {}
    for line in open(os.path.join(rd, 'manifest')):
        w, name, cg, pas = line.split()
        manifest[int(w)] = (name, cg, pas)
    out, model = [], None
    for line in open(os.path.join(rd, 'kinsn.out')):
        f = line.split()
        if f and f[0] == 'kinsn-cache':
            model = ' '.join(f[1:])
        if len(f) < 4 or f[0] != 'window' or int(f[1]) not in manifest:
            continue
        v = {f[i]: int(f[i + 1]) for i in range(2, len(f) - 1, 2)}
        name, cg, pas = manifest[int(f[1])]
        if pas != 'count':
            continue
        if any(k not in v for k in TRAFFIC_KEYS):
            sys.exit('collect: %s: window %s has no cache-model counts (cache=on?)' % (rd, f[1]))
        ops = workloads[name]['ops']
        t = {'kernel': kernel, 'workload': name, 'cgroup': cg,
             'kernel_insns_per_op': v['kernel_insns'] / ops}
        t.update({k + '_per_op': v[k] / ops for k in TRAFFIC_KEYS})
        out.append(t)
    if len(out) != sum(1 for n, c, p in manifest.values() if p == 'count'):
        sys.exit('collect: %s: a window of the traffic pass has no count' % rd)
    return out, model


samples, events, traffic_rows, models = [], [], [], set()
for d in sorted(os.listdir(rundir)):
    m = re.match(r'^(base|patched)-traffic$', d)
    if m:
        rows, model = traffic(os.path.join(rundir, d), m.group(1))
        traffic_rows += rows
        if model:
            models.add(model)
        continue
    m = re.match(r'^(base|patched|nokmem)-(\d+)$', d)
    if not m:
        continue
    kernel, rep = m.group(1), int(m.group(2))
    rd = os.path.join(rundir, d)
    manifest = {}
    for line in open(os.path.join(rd, 'manifest')):
        w, name, cg, pas = line.split()
        manifest[int(w)] = (name, cg, pas)
    insns = {}
    if os.path.exists(os.path.join(rd, 'kinsn.out')):
        for line in open(os.path.join(rd, 'kinsn.out')):
            f = line.split()
            if len(f) >= 4 and f[0] == 'window':
                insns[int(f[1])] = {f[i]: int(f[i + 1]) for i in range(2, len(f) - 1, 2)}
    churn = {}
    for line in open(os.path.join(rd, 'churn.out')):
        w, rest = line.split(None, 1)
        churn[int(w)] = dict(kv.split('=', 1) for kv in rest.split()[1:] if '=' in kv)
    # the windows of one workload and cgroup in this boot (several with
    # REPEAT): one sample, their mean
    wins = {}
    for w, (name, cg, pas) in sorted(manifest.items()):
        if pas != 'count':
            continue
        if w not in insns:
            sys.exit('collect: %s: window %d (%s %s) has no instruction count' % (rd, w, name, cg))
        c = churn.get(w, {})
        wins.setdefault((name, cg), []).append((
            insns[w]['kernel_insns'], insns[w].get('user_insns', 0),
            # host time between the markers (kinsn), else the guest clock (churn)
            insns[w].get('host_ns', int(c.get('ns', 0))), int(c.get('ns', 0))))
    for (name, cg), ws in wins.items():
        ops = workloads[name]['ops']
        k, u, ns, gns = (sum(x[i] for x in ws) / len(ws) for i in range(4))
        samples.append({
            'kernel': kernel, 'rep': rep, 'workload': name, 'cgroup': cg,
            'windows': len(ws),
            'kernel_insns': k, 'user_insns': u, 'kernel_insns_per_op': k / ops,
            'ns': ns, 'ns_per_op': ns / ops, 'guest_ns': gns,
        })
    ev = os.path.join(rd, 'events.txt')
    if os.path.exists(ev):
        for line in open(ev):
            f = line.split()
            w, name, cg = int(f[0]), f[1], f[2]
            b = f.index('BEFORE')
            a = f.index('AFTER')
            before = dict(zip(f[b + 1:a:2], map(int, f[b + 2:a:2])))
            after = dict(zip(f[a + 1::2], map(int, f[a + 2::2])))
            ops = workloads[name]['ops']
            events.append({
                'kernel': kernel, 'workload': name, 'cgroup': cg,
                'per_1000_ops': {k.split('/')[-1]: round((after[k] - before.get(k, 0)) * 1000.0 / ops, 2)
                                 for k in after}})

if not samples:
    sys.exit('collect: no samples in %s' % rundir)
if len(models) > 1:
    sys.exit('collect: the traffic boots ran different cache models: %s' % ' | '.join(sorted(models)))
if models:
    meta['traffic_model'] = models.pop()
res = {'meta': meta, 'workloads': workloads, 'samples': samples, 'events': events}
if traffic_rows:
    res['traffic'] = traffic_rows
json.dump(res, sys.stdout, indent=1, sort_keys=True)
