"""hw: the bench on real hardware (bench/hw/run) and the merge of results.

collect(OUTDIR, WORKLOADS) reads what bench/hw/run leaves in OUTDIR, one
directory per repetition, LABEL-N (LABEL base, patched or nokmem): meta.txt
(the runner's 'key value' lines: kernel release, uname, CPU model, ...),
manifest and churn.out (guest/bench.sh's, as in a guest), and returns a
results.json in the schema of scripts/collect.py (objstock/bench.py), with
meta.source = 'hardware' and, per sample, ns_per_op (wall time between the
markers) and, where churn -e had perf counters, kernel_insns_per_op and
cycles_per_op (kernel mode, churn's tasks only); else those are null.

render(PATHS, OUTDIR) is `make report RESULTS="a.json b.json ..."`: one
report.md (and plots) from one or more results.json, nothing run.  The
QEMU runs (no meta.source) are merged into one A/B report (objstock/report.py,
as bench.sh writes it); the hardware runs get a section of their own per
machine, base vs patched, mean ± stddev and Welch's test as the report does,
on their own metrics: wall time and the perf counts.
"""
import json
import os
import re
import shutil
import subprocess

from . import Error, bench, report, write_atomic
from .stats import mean, natural, sd

SOURCE = 'hardware'
# per-op metrics of a hardware sample: wall time, and churn -e's counts
METRICS = (('ns_per_op', 'Wall time per op (ns)'),
           ('kernel_insns_per_op', 'Kernel instructions per op (perf, churn\'s tasks)'),
           ('cycles_per_op', 'Kernel cycles per op (perf, churn\'s tasks)'))
# what identifies a machine: its runs are compared with each other only
MACHINE = ('hostname', 'cpu_model', 'nproc')


def is_hw(res):
    return res.get('meta', {}).get('source') == SOURCE


def _kv(path):
    meta = {}
    with open(path) as f:
        for line in f:
            k, _, v = line.rstrip('\n').partition(' ')
            if k:
                meta[k] = v
    return meta


def read_workloads(wlfile):
    workloads = {}
    with open(wlfile) as f:
        for line in f:
            if line.startswith('#') or len(line.split()) < 4:
                continue
            name, quick, ops, *args = line.split()
            workloads[name] = {'ops': int(ops), 'quick': quick == '1', 'args': ' '.join(args)}
    return workloads


def collect(outdir, wlfile):
    """OUTDIR's repetitions (LABEL-N/) -> results.json (a dict)"""
    workloads = read_workloads(wlfile)
    samples, metas = [], {}
    for d in sorted(os.listdir(outdir), key=natural):
        m = re.match(r'^(base|patched|nokmem)-(\d+)$', d)
        rd = os.path.join(outdir, d)
        if not m or not os.path.isdir(rd):
            continue
        kernel, rep = m.group(1), int(m.group(2))
        if not os.path.exists(os.path.join(rd, 'churn.out')):
            continue        # a repetition that did not finish: its runner said so
        meta = _kv(os.path.join(rd, 'meta.txt'))
        metas.setdefault(kernel, []).append(meta)
        manifest = {}
        with open(os.path.join(rd, 'manifest')) as f:
            for line in f:
                w, name, cg, pas = line.split()
                manifest[int(w)] = (name, cg, pas)
        churn = {}
        with open(os.path.join(rd, 'churn.out')) as f:
            for line in f:
                w, rest = line.split(None, 1)
                churn[int(w)] = dict(kv.split('=', 1) for kv in rest.split()[1:] if '=' in kv)
        for w, (name, cg, pas) in sorted(manifest.items()):
            if pas != 'count':
                continue
            if w not in churn:
                raise Error('%s: window %d (%s %s) has no result in churn.out' % (rd, w, name, cg))
            if name not in workloads:
                raise Error('%s: workload %s is not in %s' % (rd, name, wlfile))
            ops, c = workloads[name]['ops'], churn[w]
            s = {'kernel': kernel, 'rep': rep, 'workload': name, 'cgroup': cg,
                 'ns': int(c['ns']), 'ns_per_op': int(c['ns']) / ops}
            for key in ('kernel_insns', 'cycles'):
                s[key] = int(c[key]) if key in c else None
                s[key + '_per_op'] = int(c[key]) / ops if key in c else None
            samples.append(s)
    if not samples:
        raise Error('no finished repetition (LABEL-N/ with churn.out) in %s' % outdir)
    first = next(iter(metas.values()))[0]
    for kernel, ms in metas.items():
        for m in ms:
            for k in MACHINE:
                if m.get(k) != first.get(k):
                    raise Error('%s: repetitions from different machines (%s: %s vs %s): use one OUTDIR per machine'
                                % (outdir, k, first.get(k), m.get(k)))
    # the workloads this OUTDIR ran (WORKLOADS= may have chosen a few)
    workloads = {w: v for w, v in workloads.items() if any(s['workload'] == w for s in samples)}
    meta = {'source': SOURCE}
    for k in MACHINE:
        meta[k] = first.get(k, '?')
    for kernel, ms in sorted(metas.items()):
        meta['kernel_release_' + kernel] = ' '.join(sorted({m.get('kernel_release', '?') for m in ms}))
        meta['uname_' + kernel] = ms[-1].get('uname', '?')
        meta['cmdline_' + kernel] = ms[-1].get('cmdline', '?')
        meta['repetitions_' + kernel] = str(len(ms))
    meta['kernels'] = ' '.join(k for k in bench.KERNELS if k in metas)
    meta['repetitions'] = str(max(len(ms) for ms in metas.values()))
    meta['perf'] = 'yes' if any(s['kernel_insns'] is not None for s in samples) else 'no'
    meta['hypervisor'] = first.get('hypervisor', '?')
    meta['phases'] = first.get('phases', '?')
    meta['started'] = min(m.get('started', '?') for ms in metas.values() for m in ms)
    meta['finished'] = max(m.get('finished', '?') for ms in metas.values() for m in ms)
    return {'meta': meta, 'workloads': workloads, 'samples': samples, 'events': []}


def machine(res):
    return tuple(res['meta'].get(k, '?') for k in MACHINE)


def _renumber(runs):
    """samples of several results, reps renumbered so that no two files share
    one (a rep of one file is one boot, or one repetition on one boot)"""
    out, off = [], 0
    for _, res in runs:
        top = 0
        for s in res['samples']:
            t = dict(s)
            t['rep'] = s['rep'] + off
            top = max(top, t['rep'])
            out.append(t)
        off = top
    return out


def merge_qemu(runs):
    """one QEMU results.json from several of the same kernels and config"""
    if len(runs) == 1:
        return runs[0][1]
    p0, r0 = runs[0]
    for p, r in runs[1:]:
        for k in ('kernel_version', 'series_sha256', 'config_sha256', 'base_rev'):
            if r['meta'].get(k) != r0['meta'].get(k):
                raise Error('%s and %s measured different kernels (meta.%s: %s vs %s): merge runs of one series and config'
                            % (p0, p, k, r0['meta'].get(k), r['meta'].get(k)))
    res = {'meta': dict(r0['meta']), 'workloads': {}, 'samples': _renumber(runs), 'events': []}
    for _, r in runs:
        res['workloads'].update(r['workloads'])
        res['events'] += r.get('events') or []
        if r.get('traffic'):
            res.setdefault('traffic', []).extend(r['traffic'])
    res['meta']['repetitions'] = str(len({s['rep'] for s in res['samples']}))
    res['meta']['started'] = ', '.join(r['meta'].get('started', '?') for _, r in runs)
    return res


def fmt(v):
    return '%.4g' % v if v < 1e6 else '%.4gM' % (v / 1e6)


def _cells(samples, kernel, wl, cg, key):
    return [s[key] for s in samples if s['kernel'] == kernel and s['workload'] == wl
            and s['cgroup'] == cg and s.get(key) is not None]


def _taxes(samples, kernel, wl, key):
    """memcg minus root per repetition (both ran in the same repetition)"""
    by = {}
    for s in samples:
        if s['kernel'] == kernel and s['workload'] == wl and s.get(key) is not None:
            by.setdefault(s['rep'], {})[s['cgroup']] = s[key]
    return [v['memcg'] - v['root'] for _, v in sorted(by.items()) if 'memcg' in v and 'root' in v]


def section(runs, outdir=None, index=0):
    """the markdown of one machine's hardware runs [(path, res)]; with
    OUTDIR, its tax plot hw-N.png too"""
    # one OUTDIR per kernel, or one for all: each kernel's release from the
    # runs that have it
    meta = {}
    for _, r in runs:
        meta.update({k: v for k, v in r['meta'].items() if v not in ('', '?')})
    samples = _renumber(runs)
    workloads = {}
    for _, r in runs:
        workloads.update(r['workloads'])
    wls = sorted({s['workload'] for s in samples}, key=natural)
    kernels = [k for k in bench.KERNELS if any(s['kernel'] == k for s in samples)]
    nrep = {k: len({s['rep'] for s in samples if s['kernel'] == k}) for k in kernels}
    L = ['## Real hardware: %s (%s, %s CPUs)' % (meta.get('hostname'), meta.get('cpu_model'), meta.get('nproc')), '']
    L.append('Measured by bench/hw/run on the machine itself, not by the QEMU plugin: each kernel booted on '
             'the machine and guest/bench.sh run there (the same workloads, root cgroup and a child memcg). '
             'Repetitions: %s. Kernels: %s. Sources: %s.' % (
                 ', '.join('%s %d' % (k, nrep[k]) for k in kernels),
                 '; '.join('%s `%s`' % (k, meta.get('uname_' + k, meta.get('kernel_release_' + k, '?')))
                           for k in kernels),
                 ', '.join('`%s`' % p for p, _ in runs)))
    if meta.get('hypervisor') == 'yes':
        L.append('')
        L.append('**This machine is a virtual machine** (its CPUs carry the hypervisor flag): these are '
                 'not numbers of real hardware.')
    L.append('')
    L.append('Cells are mean ± stddev [min..max] over the repetitions. Marks: `*` Welch p < 0.05, '
             '`**` p < 0.01, `!` the LKP rule (ranges do not overlap and the change is above 1%). The wall time is the machine\'s time between the markers; the counts, where '
             'the machine had perf counters (churn -e), are kernel-mode instructions and cycles of churn '
             'and the processes it starts, not of every CPU as the QEMU plugin counts: the two kinds of '
             'numbers are not comparable, only base vs patched within a section is.')
    L.append('')
    dat = []
    for key, title in METRICS:
        rows = []
        for w in wls:
            for cg in bench.CGROUPS:
                a, b = _cells(samples, 'base', w, cg, key), _cells(samples, 'patched', w, cg, key)
                if not a or not b:
                    continue
                m, p = report.marks(a, b)
                rows.append('| %s | %s | %s ± %s [%s..%s] | %s ± %s [%s..%s] | %+.2f%% %s | %s |' % (
                    w, cg, fmt(mean(a)), fmt(sd(a)), fmt(min(a)), fmt(max(a)),
                    fmt(mean(b)), fmt(sd(b)), fmt(min(b)), fmt(max(b)),
                    (mean(b) / mean(a) - 1) * 100 if mean(a) else 0, m,
                    '%.3g' % p if p is not None else 'n/a'))
        if not rows:
            if key != 'ns_per_op':
                L.append('%s: none (no perf counters on this machine, or no base and patched pair).' % title)
                L.append('')
            continue
        L.append('### %s' % title)
        L.append('')
        L.append('| workload | cgroup | base | patched | delta | p |')
        L.append('|---|---|---|---|---|---|')
        L += rows
        L.append('')
    # the memcg tax on the best metric there is: instructions, else wall time
    key = next((k for k, _ in METRICS[1:2] if any(s.get(k) is not None for s in samples)), 'ns_per_op')
    trows = []
    for i, w in enumerate(wls):
        tb, tp = _taxes(samples, 'base', w, key), _taxes(samples, 'patched', w, key)
        if not tb or not tp:
            continue
        m, p = report.marks(tb, tp)
        trows.append('| %s | %s ± %s | %s ± %s | %s | %s |' % (
            w, fmt(mean(tb)), fmt(sd(tb)), fmt(mean(tp)), fmt(sd(tp)),
            '%+.1f%% %s' % ((mean(tp) / mean(tb) - 1) * 100, m) if mean(tb) > 0 else 'n/a',
            '%.3g' % p if p is not None else 'n/a'))
        dat.append((i, w, mean(tb), mean(tp)))
    if trows:
        L.append('### memcg tax: memcg minus root, %s' % dict(METRICS)[key].lower())
        L.append('')
        L.append('| workload | base tax | patched tax | tax change | p |')
        L.append('|---|---|---|---|---|')
        L += trows
        L.append('')
        if outdir and dat and shutil.which('gnuplot'):
            png = 'hw-%d.png' % index
            _plot(dat, os.path.join(outdir, png), '%s: memcg tax (memcg minus root), %s'
                  % (meta.get('hostname'), dict(METRICS)[key].lower()))
            L.append('![memcg tax on %s](%s)' % (meta.get('hostname'), png))
            L.append('')
    return L


def _plot(dat, png, title):
    datf = png[:-4] + '.dat'
    with open(datf, 'w') as f:
        f.write('# index workload base_tax patched_tax\n')
        for i, w, b, p in dat:
            f.write('%d %s %.3f %.3f\n' % (i, w, b, p))
    gp = """set terminal pngcairo size %d,480 noenhanced
set output '%s'
set title '%s'
set style data histograms
set style histogram clustered gap 1
set style fill solid 0.8 border -1
set xtics rotate by -35 font ',9'
set grid ytics
set key top left
set yrange [%s:*]
plot '%s' using 3:xtic(2) title 'base', '' using 4 title 'patched'
""" % (max(900, 40 * len(dat)), png, title.replace("'", ''),
       '0' if min(min(b, p) for _, _, b, p in dat) >= 0 else '*', datf)
    r = subprocess.run(['gnuplot'], input=gp, text=True, capture_output=True)
    if r.returncode:
        raise Error('gnuplot failed: ' + (r.stderr.strip().splitlines() or ['?'])[-1])


def render(paths, outdir):
    """report.md (and plots) in OUTDIR from the results.json at PATHS"""
    if not paths:
        raise Error('no results.json to render (RESULTS="a.json b.json ...")')
    runs = [(p, bench.load(p)) for p in paths]
    qemu = [(p, r) for p, r in runs if not is_hw(r)]
    hw = [(p, r) for p, r in runs if is_hw(r)]
    os.makedirs(outdir, exist_ok=True)
    if qemu:
        L = report.write(merge_qemu(qemu), outdir)
    else:
        L = ['# objstock A/B report: base vs patched on real hardware', '']
    if len(runs) > 1:
        L += ['', '## Merged from', '']
        L += ['- `%s`: %s, %s samples' % (p, 'real hardware (%s)' % r['meta'].get('hostname')
                                          if is_hw(r) else 'QEMU/TCG, kinsn plugin', len(r['samples']))
              for p, r in runs]
    machines = []
    for p, r in hw:
        for m in machines:
            if m[0] == machine(r):
                m[1].append((p, r))
                break
        else:
            machines.append((machine(r), [(p, r)]))
    for i, (_, mruns) in enumerate(machines):
        L += [''] + section(mruns, outdir, i + 1)
    write_atomic(os.path.join(outdir, 'report.md'), '\n'.join(L) + '\n')
    return L


def main(argv):
    """report.py RESULTS.json... OUTDIR: render (merge) them into OUTDIR"""
    if len(argv) < 2:
        raise Error('usage: report.py RESULTS.json... OUTDIR')
    render(argv[:-1], argv[-1])
    print('%s/report.md from %d results' % (argv[-1], len(argv) - 1))
    return 0


def main_collect(argv):
    """hw-collect.py OUTDIR WORKLOADS: OUTDIR/results.json from its repetitions"""
    if len(argv) != 2:
        raise Error('usage: hw-collect.py OUTDIR WORKLOADS')
    res = collect(argv[0], argv[1])
    bench.validate(res, os.path.join(argv[0], 'results.json'))
    write_atomic(os.path.join(argv[0], 'results.json'), json.dumps(res, indent=1, sort_keys=True) + '\n')
    n = {k: v for k, v in res['meta'].items() if k.startswith('repetitions_')}
    print('%s/results.json: %d samples (%s), perf %s' % (
        argv[0], len(res['samples']), ', '.join('%s %s' % (k[12:], v) for k, v in sorted(n.items())),
        res['meta']['perf']))
    return 0
