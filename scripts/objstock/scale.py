"""scale: the scaling matrix of `make scale` (scripts/scale.sh): collect a
run directory into results.json, and write its report (report.md, scale.png).

A run directory holds meta.txt and one guest run dir per boot,
KERNEL-cN-R (kernel base|patched, N vCPUs, repetition R) and
KERNEL-cN-traffic (the cache-model boot), each with guest/scale.sh's
manifest ('window name cgroup pass cpus memcgs workers'), churn.out,
drift.txt, kinsn.out and, once, events.txt.

    {"meta": {...}, "workloads": {NAME: {"ops": OPS_PER_WORKER, "args": "..."}},
     "samples": [{"kernel", "rep", "workload", "cgroup", "cpus", "memcgs",
                  "workers", "kernel_insns", "kernel_insns_per_op", "ns_per_op"}],
     "drift": [{"kernel", "rep", "workload", "cpus", "memcgs",
                "parent_bytes", "leaf_bytes"}],
     "events": [{"kernel", "workload", "cgroup", "cpus", "memcgs", "per_1000_ops"}],
     "traffic": [{"kernel", "workload", "cgroup", "cpus", "memcgs",
                  "kernel_insns_per_op", "xfer_per_op", ...}]}

Per op is per worker op: the window's guest kernel instructions (every vCPU)
over workers * OPS.  drift is memory.current before minus after every CPU
drained its stocks: of the memcgs' parent, and of the leaf that dropped most.
"""
import json
import os
import re
import shutil
import subprocess

from . import Error
from .stats import cut_interval, mean, natural, sd, welch

KERNELS = ('base', 'patched')
CGROUPS = ('root', 'memcg')
TRAFFIC = ('loads', 'stores', 'l1d_miss', 'llc_miss', 'xfer', 'cost')
# the documented bounds (Documentation/admin-guide/cgroup-v2.rst of the
# series, memory.current): per CPU, a cgroup without children holds up to
# 256 KiB (the memcg stock's MEMCG_CHARGE_BATCH pages) plus 16 KiB per NUMA
# node, at most 5 (obj stock slots, race-free, charges up to 16 KiB); all
# cgroups together up to 7 * 256 KiB + 5 * 16 KiB = 1872 KiB.  The scale
# guests have one node.
LEAF_BOUND_PER_CPU = (256 + 16) * 1024
TREE_BOUND_PER_CPU = (7 * 256 + 5 * 16) * 1024


def read_workloads(path):
    out = {}
    for line in open(path):
        f = line.split()
        if line.startswith('#') or len(f) < 3:
            continue
        out[f[0]] = {'ops': int(f[1]), 'args': ' '.join(f[2:])}
    return out


def _manifest(rd):
    m = {}
    for line in open(os.path.join(rd, 'manifest')):
        w, name, cg, pas, cpus, memcgs, workers = line.split()
        m[int(w)] = (name, cg, pas, int(cpus), int(memcgs), int(workers))
    return m


def _windows(rd):
    out, model = {}, None
    p = os.path.join(rd, 'kinsn.out')
    if not os.path.exists(p):
        raise Error('%s has no kinsn.out (did the guest boot?)' % rd)
    for line in open(p):
        f = line.split()
        if f and f[0] == 'kinsn-cache':
            model = ' '.join(f[1:])
        if len(f) >= 4 and f[0] == 'window':
            out[int(f[1])] = {f[i]: int(f[i + 1]) for i in range(2, len(f) - 1, 2)}
    return out, model


def collect(rundir, wlfile):
    """the run directory -> the results dict"""
    workloads = read_workloads(wlfile)
    meta = {}
    for line in open(os.path.join(rundir, 'meta.txt')):
        k, _, v = line.rstrip('\n').partition(' ')
        meta[k] = v
    res = {'meta': meta, 'workloads': workloads, 'samples': [], 'drift': [], 'events': [],
           'traffic': []}
    models = set()
    for d in sorted(os.listdir(rundir)):
        m = re.match(r'^(base|patched)-c(\d+)-(\d+|traffic)$', d)
        if not m:
            continue
        kernel, traffic = m.group(1), m.group(3) == 'traffic'
        rep = 0 if traffic else int(m.group(3))
        rd = os.path.join(rundir, d)
        man = _manifest(rd)
        win, model = _windows(rd)
        if model:
            models.add(model)
        for w, (name, cg, pas, cpus, memcgs, workers) in sorted(man.items()):
            if pas != 'count':
                continue
            if w not in win:
                raise Error('%s: window %d (%s %s, %d vCPUs, %d memcgs) has no count'
                            % (rd, w, name, cg, cpus, memcgs))
            ops = workloads[name]['ops'] * workers
            v = win[w]
            if traffic:
                if any(k not in v for k in TRAFFIC):
                    raise Error('%s: window %d has no cache-model counts (cache=on?)' % (rd, w))
                t = {'kernel': kernel, 'workload': name, 'cgroup': cg, 'cpus': cpus,
                     'memcgs': memcgs, 'kernel_insns_per_op': v['kernel_insns'] / ops}
                t.update({k + '_per_op': v[k] / ops for k in TRAFFIC})
                res['traffic'].append(t)
                continue
            res['samples'].append({
                'kernel': kernel, 'rep': rep, 'workload': name, 'cgroup': cg, 'cpus': cpus,
                'memcgs': memcgs, 'workers': workers, 'kernel_insns': v['kernel_insns'],
                'kernel_insns_per_op': v['kernel_insns'] / ops,
                'ns_per_op': v.get('host_ns', 0) / ops})
        dp = os.path.join(rd, 'drift.txt')
        if not traffic and os.path.exists(dp):
            for line in open(dp):
                f = line.split()
                if len(f) != 8:
                    continue
                _, name, cpus, memcgs, b, a, lb, la = f
                res['drift'].append({'kernel': kernel, 'rep': rep, 'workload': name,
                                     'cpus': int(cpus), 'memcgs': int(memcgs),
                                     'parent_bytes': int(b) - int(a),
                                     'leaf_bytes': int(lb) - int(la)})
        ep = os.path.join(rd, 'events.txt')
        if os.path.exists(ep):
            for line in open(ep):
                f = line.split()
                w = int(f[0])
                name, cg, _, cpus, memcgs, workers = man[w]
                b, a = f.index('BEFORE'), f.index('AFTER')
                before = dict(zip(f[b + 1:a:2], map(int, f[b + 2:a:2])))
                after = dict(zip(f[a + 1::2], map(int, f[a + 2::2])))
                ops = workloads[name]['ops'] * workers
                res['events'].append({
                    'kernel': kernel, 'workload': name, 'cgroup': cg, 'cpus': cpus,
                    'memcgs': memcgs,
                    'per_1000_ops': {k.split('/')[-1]: round((after[k] - before.get(k, 0)) * 1000.0 / ops, 2)
                                     for k in after}})
    if not res['samples']:
        raise Error('no samples in %s' % rundir)
    if len(models) > 1:
        raise Error('the traffic boots ran different cache models')
    if models:
        meta['traffic_model'] = models.pop()
    return res


def validate(res, source='results.json'):
    def bad(what):
        raise Error('%s: %s' % (source, what))
    if not isinstance(res, dict) or not isinstance(res.get('samples'), list) or not res['samples']:
        bad('no samples')
    for key in ('meta', 'workloads'):
        if not isinstance(res.get(key), dict):
            bad('no "%s" object' % key)
    for i, s in enumerate(res['samples']):
        if not isinstance(s, dict) or s.get('kernel') not in KERNELS or s.get('cgroup') not in CGROUPS \
                or s.get('workload') not in res['workloads'] \
                or not all(isinstance(s.get(k), int) and s[k] > 0 for k in ('cpus', 'memcgs', 'workers')) \
                or not isinstance(s.get('kernel_insns_per_op'), (int, float)):
            bad('sample %d lacks kernel, cgroup, workload, cpus, memcgs, workers or kernel_insns_per_op' % i)
    return res


def load(path):
    try:
        with open(path) as f:
            res = json.load(f)
    except OSError as e:
        raise Error('cannot read %s: %s' % (path, e.strerror))
    except ValueError as e:
        raise Error('%s is not valid JSON (%s)' % (path, e))
    return validate(res, path)


def _cells(res):
    """{(kernel, workload, cgroup, cpus, memcgs): {rep: per op}}"""
    out = {}
    for s in res['samples']:
        out.setdefault((s['kernel'], s['workload'], s['cgroup'], s['cpus'], s['memcgs']), {})[s['rep']] = \
            s['kernel_insns_per_op']
    return out


def taxes(cells, kernel, w, cpus, memcgs):
    """memcg minus root of the same boot, per repetition"""
    r, m = cells.get((kernel, w, 'root', cpus, memcgs), {}), cells.get((kernel, w, 'memcg', cpus, memcgs), {})
    return [m[k] - r[k] for k in sorted(set(r) & set(m))]


def axes(res):
    wls = sorted({s['workload'] for s in res['samples']}, key=natural)
    cpus = sorted({s['cpus'] for s in res['samples']})
    memcgs = sorted({s['memcgs'] for s in res['samples']})
    return wls, cpus, memcgs


def markdown(res):
    """-> (report lines, curve rows [(workload, kernel, memcgs, cpus, tax)])"""
    meta = res['meta']
    wls, cpus, memcgs = axes(res)
    cells = _cells(res)
    L = ['# objstock scaling matrix: Linux %s base vs patched' % meta.get('kernel_version', '?'), '']
    L.append('Debian linux-source %s; series %s (%s patches); config %s; %s, virtme-ng %s; '
             '%s repetitions, base and patched booted alternately at each vCPU count; -icount %s; '
             'started %s.' % (meta.get('deb_version'), meta.get('series_sha256'), meta.get('series'),
                              meta.get('config_sha256'), meta.get('qemu'), meta.get('virtme_ng'),
                              meta.get('repetitions'), meta.get('icount'), meta.get('started')))
    L.append('')
    L.append('Each window runs W = max(vCPUs, memcgs) workers at once; loop workers (pipe, slab, '
             'mmap2) are pinned to CPU i % vCPUs and yield after every op, so the workers that share '
             'a CPU, each in its own memcg when memcgs > vCPUs, take turns op by op; hackbench and '
             'stress-ng instances run unpinned. root: every worker in the root cgroup; memcg: worker '
             'i in memcg i % memcgs. Per op = guest kernel instructions of the window (all vCPUs, '
             'kinsn plugin) / (W x the worker\'s ops). tax = memcg - root of the same boot. All '
             'vCPUs run on one host thread (TCG), so the counts are the kernel\'s work, not its '
             'parallelism: contention shows as extra instructions (spinning, retries), not as time.')
    L.append('')
    L.append('| workload | ops per worker | command (under churn -g W) |')
    L.append('|---|---|---|')
    for w in wls:
        L.append('| %s | %d | `%s` |' % (w, res['workloads'][w]['ops'], res['workloads'][w]['args']))
    L.append('')
    L.append('## memcg tax per op')
    L.append('')
    L.append('mean ± stddev over the repetitions; cut = 1 - patched tax / base tax [95% interval].')
    L.append('')
    curve = []
    for w in wls:
        L.append('### %s' % w)
        L.append('')
        L.append('| vCPUs | memcgs | workers | base root | base memcg | base tax | patched root | '
                 'patched memcg | patched tax | cut [95% CI] |')
        L.append('|---|---|---|---|---|---|---|---|---|---|')
        for m in memcgs:
            for c in cpus:
                row = []
                for k in KERNELS:
                    r = list(cells.get((k, w, 'root', c, m), {}).values())
                    mm = list(cells.get((k, w, 'memcg', c, m), {}).values())
                    t = taxes(cells, k, w, c, m)
                    row.append((r, mm, t))
                    if t:
                        curve.append((w, k, m, c, mean(t)))
                (rb, mb, tb), (rp, mp, tp) = row
                if not tb or not tp:
                    continue
                cut, hw = cut_interval(tb, tp)
                L.append('| %d | %d | %d | %.0f | %.0f | %.0f ± %.0f | %.0f | %.0f | %.0f ± %.0f | %s |' % (
                    c, m, max(c, m), mean(rb), mean(mb), mean(tb), sd(tb), mean(rp), mean(mp),
                    mean(tp), sd(tp), 'n/a' if cut is None or mean(tb) <= 0 else
                    '%+.0f%% ± %s' % (cut, '%.0f' % hw if hw is not None else '?')))
        L.append('')
    L += worse_section(cells, wls, cpus, memcgs)
    L += curve_section(curve, cpus, memcgs)
    L += traffic_section(res)
    L += drift_section(res)
    L += events_section(res)
    return L, curve


def worse_cells(cells, wls, cpus, memcgs):
    """[(workload, cpus, memcgs, what, base mean, patched mean, p)]: every cell
    where patched is worse than base by more than 1% per op, in the tax, the
    root window or the memcg window; p is Welch's (None with one boot)"""
    out = []
    for w in wls:
        for m in memcgs:
            for c in cpus:
                def get(k, what):
                    if what == 'tax':
                        return taxes(cells, k, w, c, m)
                    return list(cells.get((k, w, what, c, m), {}).values())
                for what in ('tax', 'root', 'memcg'):
                    b, p = get('base', what), get('patched', what)
                    if not b or not p:
                        continue
                    mb, mp = mean(b), mean(p)
                    if mb > 0 and mp > mb * 1.01:
                        out.append((w, c, m, what, mb, mp, welch(p, b)))
    return out


def worse_section(cells, wls, cpus, memcgs):
    worse = worse_cells(cells, wls, cpus, memcgs)
    L = ['## Cells worse patched', '']
    L.append('Every cell where the patched kernel reads more than 1% more instructions per op than base, '
             'in the tax, the root window or the memcg window; p: Welch\'s t-test over the repetitions '
             '(none with one boot). **worse**: p < 0.05.')
    L.append('')
    if not worse:
        L += ['None.', '']
        return L
    L.append('| workload | vCPUs | memcgs | per op | base | patched | change | p |')
    L.append('|---|---|---|---|---|---|---|---|')
    for w, c, m, what, mb, mp, pv in worse:
        L.append('| %s | %d | %d | %s | %.0f | %.0f | %+.1f%% | %s |' % (
            w, c, m, what, mb, mp, (mp / mb - 1) * 100,
            'none' if pv is None else ('**%.3g worse**' % pv if pv < 0.05 else '%.3g' % pv)))
    L.append('')
    return L


def curve_section(curve, cpus, memcgs):
    if not curve or len(cpus) < 2:
        return []
    tax = {(w, k, m, c): t for w, k, m, c, t in curve}
    c0 = cpus[0]
    L = ['## The tax curve: tax per op at N vCPUs over tax at %d vCPU%s' % (c0, '' if c0 == 1 else 's'), '']
    L.append('![tax per op by vCPUs](scale.png)')
    L.append('')
    L.append('| workload | memcgs | kernel | ' + ' | '.join('%d vCPUs' % c for c in cpus) + ' |')
    L.append('|---|---|---|' + '---|' * len(cpus))
    for w in sorted({x[0] for x in curve}, key=natural):
        for m in memcgs:
            for k in KERNELS:
                base = tax.get((w, k, m, c0))
                if not base or base <= 0:
                    continue
                L.append('| %s | %d | %s | ' % (w, m, k) + ' | '.join(
                    '%.2f' % (tax[(w, k, m, c)] / base) if (w, k, m, c) in tax else '' for c in cpus) + ' |')
    L.append('')
    return L


def traffic_section(res):
    rows = {(t['kernel'], t['workload'], t['cgroup'], t['memcgs']): t for t in res.get('traffic') or []}
    if not rows:
        return []
    cpus = sorted({t['cpus'] for t in res['traffic']})
    L = ['## Cross-vCPU transfers per op at %s vCPUs (modeled)' % '/'.join(map(str, cpus)), '']
    L.append('One boot of each kernel with the kinsn plugin\'s data-cache model (`cache=on`; model: `%s`): '
             'a transfer is a miss on a line another vCPU wrote last, or a store that invalidates '
             'other vCPUs\' copies; kernel accesses only. One boot, no spread.'
             % res['meta'].get('traffic_model', '?'))
    L.append('')
    L.append('| workload | memcgs | xfer root base | patched | xfer memcg base | patched | xfer tax base | '
             'patched | LLC miss memcg base | patched |')
    L.append('|---|---|---|---|---|---|---|---|---|---|')
    for w in sorted({k[1] for k in rows}, key=natural):
        for m in sorted({k[3] for k in rows}):
            c = [rows.get((k, w, cg, m)) for k in KERNELS for cg in CGROUPS]
            if not all(c):
                continue
            br, bm, pr, pm = c
            L.append('| %s | %d | %.3f | %.3f | %.3f | %.3f | %+.3f | %+.3f | %.3f | %.3f |' % (
                w, m, br['xfer_per_op'], pr['xfer_per_op'], bm['xfer_per_op'], pm['xfer_per_op'],
                bm['xfer_per_op'] - br['xfer_per_op'], pm['xfer_per_op'] - pr['xfer_per_op'],
                bm['llc_miss_per_op'], pm['llc_miss_per_op']))
    L.append('')
    return L


def drift_section(res):
    if not res.get('drift'):
        return []
    L = ['## Accuracy: memory.current above the exact charge', '']
    L.append('After each memcg window every CPU drains its memcg and obj stocks '
             '(bench/kernel/objstock_bench.c, objstock_drain); drift = memory.current before minus '
             'after, worst over workloads and repetitions: of the memcg that dropped most (a leaf) '
             'and of their parent (the whole tree). Bounds as documented for the patched kernel '
             '(cgroup-v2.rst): a leaf %d KiB per CPU its tasks run on, all cgroups together %d KiB '
             'per CPU (race-free).' % (LEAF_BOUND_PER_CPU // 1024, TREE_BOUND_PER_CPU // 1024))
    L.append('')
    L.append('| vCPUs | memcgs | leaf base KiB | leaf patched KiB | leaf bound KiB | parent base KiB | '
             'parent patched KiB | parent bound KiB | worst / bound |')
    L.append('|---|---|---|---|---|---|---|---|---|')
    keys = sorted({(d['cpus'], d['memcgs']) for d in res['drift']})
    for c, m in keys:
        worst = {}
        for k in KERNELS:
            ds = [d for d in res['drift'] if d['kernel'] == k and d['cpus'] == c and d['memcgs'] == m]
            worst[k] = (max((d['leaf_bytes'] for d in ds), default=0),
                        max((d['parent_bytes'] for d in ds), default=0))
        lb, tb = LEAF_BOUND_PER_CPU * c, TREE_BOUND_PER_CPU * c
        ratio = max(worst['patched'][0] / lb, worst['patched'][1] / tb)
        L.append('| %d | %d | %.0f | %.0f | %.0f | %.0f | %.0f | %.0f | %.2f%s |' % (
            c, m, worst['base'][0] / 1024, worst['patched'][0] / 1024, lb / 1024,
            worst['base'][1] / 1024, worst['patched'][1] / 1024, tb / 1024, ratio,
            ' **over**' if ratio > 1 else ''))
    L.append('')
    return L


def events_section(res):
    ev = res.get('events') or []
    if not ev:
        return []
    probes = sorted({p for e in ev for p in e['per_1000_ops']})
    L = ['## Events per 1000 ops (kprobe hits, first repetition, %s vCPUs)'
         % '/'.join(str(c) for c in sorted({e['cpus'] for e in ev})), '']
    L.append('| workload | memcgs | cgroup | kernel | ' + ' | '.join(probes) + ' |')
    L.append('|---|---|---|---|' + '---|' * len(probes))
    for e in sorted(ev, key=lambda e: (natural(e['workload']), e['memcgs'], e['cgroup'], e['kernel'])):
        L.append('| %s | %d | %s | %s | ' % (e['workload'], e['memcgs'], e['cgroup'], e['kernel']) +
                 ' | '.join('%.1f' % e['per_1000_ops'].get(p, 0) for p in probes) + ' |')
    L.append('')
    return L


def cover_lines(res):
    """the cover letter's scale table: at the most vCPUs and memcgs of the
    run, each workload's memcg tax per op, base vs patched, the cut, and the
    transfer tax per op of the traffic boot"""
    wls, cpus, memcgs = axes(res)
    c, m = cpus[-1], memcgs[-1]
    cells = _cells(res)
    tr = {(t['kernel'], t['workload'], t['cgroup']): t for t in res.get('traffic') or []
          if t['cpus'] == c and t['memcgs'] == m}
    # the boots behind this cell (a resumed run may have more at other vCPU counts)
    boots = max([len(taxes(cells, 'base', w, c, m)) for w in wls] or [0])
    L = ['%d vCPUs, %d memcgs (%d workers taking turns op by op, %d boot%s of' % (
        c, m, max(c, m), boots, '' if boots == 1 else 's'),
         'each kernel): memcg tax per op (memcg - root, guest kernel',
         'instructions, mean), and cross-vCPU transfers per op in the tax',
         '(cache model, one boot):', '',
         '%-18s %9s %9s %9s %7s %7s' % ('workload', 'base', 'patched', 'cut', 'xfer b', 'xfer p')]
    for w in wls:
        tb, tp = taxes(cells, 'base', w, c, m), taxes(cells, 'patched', w, c, m)
        if not tb or not tp:
            continue
        cut, hw = cut_interval(tb, tp)
        x = ['', '']
        if all((k, w, cg) in tr for k in KERNELS for cg in CGROUPS):
            x = ['%+.2f' % (tr[(k, w, 'memcg')]['xfer_per_op'] - tr[(k, w, 'root')]['xfer_per_op'])
                 for k in KERNELS]
        L.append('%-18s %9.0f %9.0f %9s %7s %7s' % (
            w[:18], mean(tb), mean(tp), 'n/a' if cut is None or mean(tb) <= 0 else
            '%.0f%%' % cut + ('±%.0f' % hw if hw is not None else ''), x[0], x[1]))
    return L


def plot(curve, outdir):
    """scale.png: one panel per workload, tax per op against vCPUs, a line per
    kernel and memcg count"""
    if not shutil.which('gnuplot') or not curve:
        return
    wls = sorted({x[0] for x in curve}, key=natural)
    memcgs = sorted({x[2] for x in curve})
    plots = []
    for i, w in enumerate(wls):
        lines = []
        for k in KERNELS:
            for m in memcgs:
                pts = sorted((c, t) for ww, kk, mm, c, t in curve if ww == w and kk == k and mm == m)
                if not pts:
                    continue
                name = os.path.join(outdir, 'scale-%d-%s-%d.dat' % (i, k, m))
                with open(name, 'w') as f:
                    f.write(''.join('%d %.1f\n' % p for p in pts))
                lines.append("'%s' using 1:2 with linespoints dt %d lc %d title '%s, %d memcg%s'" % (
                    name, 1 if k == 'base' else 2, 1 + memcgs.index(m), k, m, '' if m == 1 else 's'))
        if lines:
            plots.append("set title '%s'\nplot %s" % (w, ', '.join(lines)))
    cols = 2
    rows = (len(plots) + cols - 1) // cols
    gp = """set terminal pngcairo size %d,%d noenhanced
set output '%s'
set multiplot layout %d,%d title 'memcg tax per op (memcg minus root, guest kernel instructions) by vCPUs'
set logscale x 2
set xlabel 'vCPUs'
set ylabel 'instructions per op'
set grid
set key top left font ',8'
%s
unset multiplot
""" % (1200, 420 * rows, os.path.join(outdir, 'scale.png'), rows, cols, '\n'.join(plots))
    r = subprocess.run(['gnuplot'], input=gp, text=True, capture_output=True)
    if r.returncode:
        raise Error('gnuplot failed: ' + (r.stderr.strip().splitlines() or ['?'])[-1])


def curve_json(res):
    """{workload: {kernel: {memcgs: {cpus: tax(N) / tax(first)}}}}"""
    _, cpus, _ = axes(res)
    out = {}
    L, curve = markdown(res)
    tax = {(w, k, m, c): t for w, k, m, c, t in curve}
    for (w, k, m, c), t in tax.items():
        b = tax.get((w, k, m, cpus[0]))
        if b and b > 0:
            out.setdefault(w, {}).setdefault(k, {}).setdefault(str(m), {})[str(c)] = round(t / b, 4)
    return out


def write(res, outdir):
    L, curve = markdown(res)
    os.makedirs(outdir, exist_ok=True)
    with open(os.path.join(outdir, 'report.md'), 'w') as f:
        f.write('\n'.join(L) + '\n')
    plot(curve, outdir)
    return L


def main_collect(argv):
    """collect-scale.py RUNDIR SCALE_FILE > results.json"""
    if len(argv) != 2:
        raise Error('usage: collect-scale.py RUNDIR SCALE_FILE')
    res = collect(*argv)
    res['curve'] = curve_json(res)
    print(json.dumps(res, indent=1, sort_keys=True))
    return 0


def main_report(argv):
    """report-scale.py RESULTS.json OUTDIR"""
    if len(argv) != 2:
        raise Error('usage: report-scale.py RESULTS.json OUTDIR')
    write(load(argv[0]), argv[1])
    return 0
