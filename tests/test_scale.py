"""make scale's collect and report (scripts/objstock/scale.py) on a synthetic
run directory: per-op normalisation by workers, the tax and its curve, the
drift against the documented bound, the traffic table, and bad input."""
import json
import os
import subprocess
import sys
import tempfile
import unittest

from objstock import Error, scale

TOP = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
SCALE = os.path.join(TOP, 'bench', 'scale')
OPS = scale.read_workloads(SCALE)['pipe-64']['ops']     # pipe-64's ops per worker


def insns(kernel, cg, cpus, memcgs):
    """kernel instructions per op this fixture writes: root 1000, a memcg tax
    of 500 (base) or 200 (patched) at 1 vCPU, growing with vCPUs and memcgs"""
    if cg == 'root':
        return 1000
    return 1000 + (500 if kernel == 'base' else 200) * cpus * (2 if memcgs > 1 else 1)


def make_run(d, cpus=(1, 2), memcgs=(1, 8), reps=2, drift=None, traffic=True, drop=None):
    with open(os.path.join(d, 'meta.txt'), 'w') as f:
        f.write('kernel_version 7.3.4\nrepetitions %d\nicount shift=3,sleep=off\n' % reps)
    boots = [(k, c, str(r)) for r in range(1, reps + 1) for c in cpus for k in ('base', 'patched')]
    if traffic:
        boots += [(k, max(cpus), 'traffic') for k in ('base', 'patched')]
    for k, c, r in boots:
        rd = os.path.join(d, '%s-c%d-%s' % (k, c, r))
        os.makedirs(rd)
        man, kin, dr = [], [], []
        if r == 'traffic':
            kin.append('kinsn-cache line 64 lat_xfer 100')
        w = 0
        for m in memcgs:
            workers = max(c, m)
            for cg in ('root', 'memcg'):
                w += 1
                if drop == (k, c, r, w):
                    continue
                man.append('%d pipe-64 %s count %d %d %d' % (w, cg, c, m, workers))
                n = insns(k, cg, c, m) * OPS * workers
                line = 'window %d kernel_insns %d user_insns 0 host_ns %d' % (w, n, 10 * OPS * workers)
                if r == 'traffic':
                    x = (1 if cg == 'root' else (3 if k == 'base' else 2)) * OPS * workers
                    line += ' loads 1 stores 1 l1d_miss 1 llc_miss %d xfer %d cost 1' % (x, x)
                kin.append(line)
                if cg == 'memcg' and r != 'traffic':
                    leaf = (drift or {}).get(k, 100 * 1024) * c
                    dr.append('%d pipe-64 %d %d %d %d %d %d' % (w, c, m, 10 ** 7 + leaf * 2, 10 ** 7,
                                                             10 ** 6 + leaf, 10 ** 6))
        for name, lines in (('manifest', man), ('kinsn.out', kin), ('drift.txt', dr),
                            ('churn.out', ['%d churn mode=gang-pipe ns=1' % i for i in range(1, w + 1)])):
            with open(os.path.join(rd, name), 'w') as f:
                f.write(''.join(x + '\n' for x in lines))
    return d


class Collect(unittest.TestCase):
    def test_per_op_by_workers(self):
        with tempfile.TemporaryDirectory() as d:
            res = scale.collect(make_run(d), SCALE)
        s = [x for x in res['samples'] if x['kernel'] == 'base' and x['cpus'] == 2 and x['memcgs'] == 8
             and x['cgroup'] == 'memcg']
        self.assertEqual(len(s), 2)                     # two repetitions
        self.assertEqual(s[0]['workers'], 8)
        self.assertAlmostEqual(s[0]['kernel_insns_per_op'], 3000.0)     # 1000 + 500 * 2 vCPUs * 2
        self.assertEqual(len(res['traffic']), 8)       # 2 kernels x 2 cgroups x 2 memcg counts
        d0 = [x for x in res['drift'] if x['kernel'] == 'patched' and x['cpus'] == 2][0]
        self.assertEqual(d0['leaf_bytes'], 200 * 1024)
        self.assertEqual(d0['parent_bytes'], 400 * 1024)

    def test_missing_window(self):
        with tempfile.TemporaryDirectory() as d:
            make_run(d, drop=None)
            # a manifest window the plugin never closed
            with open(os.path.join(d, 'base-c1-1', 'manifest'), 'a') as f:
                f.write('9 pipe-64 memcg count 1 1 1\n')
            with self.assertRaisesRegex(Error, 'window 9 .* has no count'):
                scale.collect(d, SCALE)

    def test_no_samples(self):
        with tempfile.TemporaryDirectory() as d:
            with open(os.path.join(d, 'meta.txt'), 'w') as f:
                f.write('repetitions 1\n')
            with self.assertRaisesRegex(Error, 'no samples'):
                scale.collect(d, SCALE)


class Report(unittest.TestCase):
    def res(self, **kw):
        with tempfile.TemporaryDirectory() as d:
            return scale.collect(make_run(d, **kw), SCALE)

    def test_tax_and_cut(self):
        L, curve = scale.markdown(self.res())
        # 1 vCPU, 1 memcg: base tax 500, patched 200, no spread: cut 60%
        self.assertIn('| 1 | 1 | 1 | 1000 | 1500 | 500 ± 0 | 1000 | 1200 | 200 ± 0 | +60% ± 0 |', L)
        self.assertIn(('pipe-64', 'base', 8, 2, 2000.0), curve)

    def test_worse_cells(self):
        # the fixture: patched better everywhere, root equal
        L, _ = scale.markdown(self.res())
        i = L.index('## Cells worse patched')
        self.assertEqual(L[i + 4], 'None.')
        # a patched root 2% higher in one cell: named, with its p-value
        # (none with one boot, "worse" with two boots of no spread)
        res = self.res(reps=1)
        for s in res['samples']:
            if s['kernel'] == 'patched' and s['cgroup'] == 'root' and s['cpus'] == 2 and s['memcgs'] == 8:
                s['kernel_insns_per_op'] = 1020
        L, _ = scale.markdown(res)
        self.assertIn('| pipe-64 | 2 | 8 | root | 1000 | 1020 | +2.0% | none |', L)
        res = self.res()
        for s in res['samples']:
            if s['kernel'] == 'patched' and s['cgroup'] == 'root' and s['cpus'] == 2 and s['memcgs'] == 8:
                s['kernel_insns_per_op'] = 1020 + s['rep']
        L, _ = scale.markdown(res)
        self.assertTrue([x for x in L if x.startswith('| pipe-64 | 2 | 8 | root | 1000 | 1022 | +2.2% | **')
                         and x.endswith(' worse** |')], L)
        # 1% or less is not named
        res = self.res()
        for s in res['samples']:
            if s['kernel'] == 'patched' and s['cgroup'] == 'root':
                s['kernel_insns_per_op'] = 1010
        L, _ = scale.markdown(res)
        self.assertEqual(L[L.index('## Cells worse patched') + 4], 'None.')

    def test_curve(self):
        L, _ = scale.markdown(self.res())
        self.assertIn('| pipe-64 | 1 | base | 1.00 | 2.00 |', L)
        self.assertEqual(scale.curve_json(self.res())['pipe-64']['patched']['8'], {'1': 1.0, '2': 2.0})

    def test_drift_within_and_over_bound(self):
        L, _ = scale.markdown(self.res())
        row = [x for x in L if x.startswith('| 2 | 8 |') and 'KiB' not in x and x.count('|') == 10]
        self.assertTrue(row and 'over' not in row[0], L)
        # a leaf 300 KiB high per vCPU is over the 272 KiB bound
        L, _ = scale.markdown(self.res(drift={'patched': 300 * 1024}))
        self.assertTrue(any(x.startswith('| 2 | 8 |') and '**over**' in x for x in L))

    def test_traffic(self):
        L, _ = scale.markdown(self.res())
        self.assertIn('| pipe-64 | 1 | 1.000 | 1.000 | 3.000 | 2.000 | +2.000 | +1.000 | 3.000 | 2.000 |', L)

    def test_scripts_end_to_end(self):
        with tempfile.TemporaryDirectory() as d:
            run = os.path.join(d, 'run')
            os.makedirs(run)
            make_run(run)
            r = subprocess.run([sys.executable, os.path.join(TOP, 'scripts', 'collect-scale.py'), run, SCALE],
                               capture_output=True, text=True)
            self.assertEqual(r.returncode, 0, r.stderr)
            res = json.loads(r.stdout)
            self.assertIn('curve', res)
            with open(os.path.join(d, 'results.json'), 'w') as f:
                f.write(r.stdout)
            out = os.path.join(d, 'out')
            r = subprocess.run([sys.executable, os.path.join(TOP, 'scripts', 'report-scale.py'),
                                os.path.join(d, 'results.json'), out], capture_output=True, text=True)
            self.assertEqual(r.returncode, 0, r.stderr)
            self.assertTrue(os.path.exists(os.path.join(out, 'report.md')))
            # bad input: one error line, status 86
            r = subprocess.run([sys.executable, os.path.join(TOP, 'scripts', 'report-scale.py'),
                                os.path.join(d, 'nope.json'), out], capture_output=True, text=True)
            self.assertEqual(r.returncode, 86)
            self.assertRegex(r.stderr, r'^objstock: error: cannot read .*nope\.json')


class Cover(unittest.TestCase):
    """the cover letter's scale table (cover-numbers.py with a scale results.json)"""
    def test_cover_lines(self):
        with tempfile.TemporaryDirectory() as d:
            res = scale.collect(make_run(d), SCALE)
        L = scale.cover_lines(res)
        self.assertTrue(L[0].startswith('2 vCPUs, 8 memcgs (8 workers'))
        # 2 vCPUs, 8 memcgs: base tax 500 * 2 * 2, patched 200 * 2 * 2; xfer tax +2 / +1
        self.assertIn('pipe-64                 2000       800     60%±0   +2.00   +1.00', L)

    def test_replace_scale_section(self):
        from objstock import cover
        text = 'a\n[scale numbers: old]\nold\n[end of scale numbers]\nb\n'
        self.assertEqual(cover.replace_scale(text, ['x', 'y'], 'results/s'),
                         'a\n[scale numbers: make cover, from results/s/results.json]\nx\ny\n'
                         '[end of scale numbers]\nb\n')
        with self.assertRaisesRegex(Error, 'no "\\[scale numbers'):
            cover.replace_scale('a\n', ['x'], 'r')
