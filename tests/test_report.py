"""The A/B report and the cover letter's numbers from the committed runs
(scripts/objstock/report.py, cover.py, bench.py): they reproduce what is
committed, and a results.json that lacks fields or is not JSON is one error
that leaves the cover letter as it was."""
import contextlib
import io
import json
import os
import re
import shutil
import subprocess
import sys
import tempfile
import unittest

from objstock import Error, bench, cover, report

TOP = os.path.abspath(os.path.join(os.path.dirname(os.path.abspath(__file__)), '..'))
FINAL = os.path.join(TOP, 'results', '2026-11-30-full-r3-final')
COVER = os.path.join(TOP, 'patches', '0000-cover-letter.patch')


def named_run():
    """the run the committed cover letter's numbers name: results/RUN"""
    with open(COVER) as f:
        m = re.search(r'^\[numbers: make cover, from (results/[^ ]+)/results\.json\]$', f.read(), re.M)
    return m.group(1) if m else None
# the committed runs whose report.md the current report.py wrote (older ones
# predate later changes of the report's text)
REPORTED = ['2026-11-30-full-r3-final', '2026-12-01-hackbench-hostwall-r8', '2026-12-01-v2-cold-r3',
            '2026-12-01-fastpath-quick-r2', '2026-12-02-v2-floor-r3']


def load(path):
    with open(path) as f:
        return json.load(f)


class Committed(unittest.TestCase):
    def test_report_md_reproduced(self):
        for run in REPORTED:
            res = bench.load(os.path.join(TOP, 'results', run, 'results.json'))
            lines, dat = report.markdown(res)
            with open(os.path.join(TOP, 'results', run, 'report.md')) as f:
                self.assertEqual('\n'.join(lines) + '\n', f.read(), run)
            with open(os.path.join(TOP, 'results', run, 'tax.dat')) as f:
                self.assertEqual(len(dat), len(f.read().splitlines()) - 1, run)

    def test_cover_numbers_reproduced(self):
        """the committed cover letter's numbers are cover-numbers of the run it names"""
        with open(COVER) as f:
            text = f.read()
        run = named_run()
        self.assertIsNotNone(run, 'the cover letter names no results/RUN')
        res = bench.load(os.path.join(TOP, run, 'results.json'))
        lines = cover.numbers(res, run)
        self.assertEqual(cover.replace(text, lines, run), text)

    def test_cover_names_whole(self):
        """every workload's row starts with its whole name (a 22-wide column
        once printed hackbench-pin-proc-s100 as hackbench-pin-proc-s10)"""
        res = bench.load(os.path.join(TOP, named_run(), 'results.json'))
        lines = cover.numbers(res, 'x')
        for w in bench.workloads(res):
            self.assertTrue(any(ln.startswith(w + ' ') for ln in lines), w)
        with open(os.path.join(TOP, 'bench', 'workloads')) as f:
            names = [ln.split()[0] for ln in f if ln.strip() and not ln.startswith('#')]
        self.assertLessEqual(max(map(len, names)), 25, 'a name wider than the column: widen it')

    def test_cover_numbers_checked_subset(self):
        res = bench.load(os.path.join(FINAL, 'results.json'))
        rows = {r[0]: r for r in cover.rows(res)}
        self.assertEqual(len(rows), 40)
        line = next(ln for ln in cover.numbers(res, 'x') if ln.startswith('pipe-64 '))
        self.assertEqual(line.split(), ['pipe-64', '2201', '2186', '3393', '2573', '1192±3', '387±1', '68%±0**'])

    def test_virtme_ng_version_in_report(self):
        """the virtme-ng version bench.sh records (meta.virtme_ng) is in report.md"""
        res = bench.load(os.path.join(FINAL, 'results.json'))
        self.assertNotIn('virtme-ng', report.markdown(res)[0][2])
        res['meta']['virtme_ng'] = '1.42-1'
        self.assertIn('(Debian 1:7.2+dfsg-7+deb12u18+b3), virtme-ng 1.42-1; 3 repetitions',
                      report.markdown(res)[0][2])

    def test_every_committed_results_json_is_valid(self):
        for run in sorted(os.listdir(os.path.join(TOP, 'results'))):
            path = os.path.join(TOP, 'results', run, 'results.json')
            if os.path.exists(path):
                bench.load(path)


class Bad(unittest.TestCase):
    def setUp(self):
        self.d = tempfile.mkdtemp(prefix='objstock-cover.')
        self.addCleanup(shutil.rmtree, self.d)
        os.makedirs(os.path.join(self.d, 'patches'))
        self.cover = os.path.join(self.d, 'patches', '0000-cover-letter.patch')
        shutil.copyfile(COVER, self.cover)
        self.good = load(os.path.join(FINAL, 'results.json'))

    def write(self, res):
        path = os.path.join(self.d, 'results.json')
        with open(path, 'w') as f:
            f.write(res if isinstance(res, str) else json.dumps(res))
        return path

    def error(self, res, regex):
        path = self.write(res)
        with self.assertRaisesRegex(Error, regex):
            cover.main([path, self.cover])
        with open(self.cover) as a, open(COVER) as b:
            self.assertEqual(a.read(), b.read())

    def test_corrupt_json(self):
        self.error('{"meta": {', r'results\.json is not valid JSON \(line 1 column 11')

    def test_missing_top_level_fields(self):
        for key in ('meta', 'workloads', 'samples'):
            res = dict(self.good)
            del res[key]
            self.error(res, 'no "%s"' % key)

    def test_no_samples(self):
        self.error(dict(self.good, samples=[]), 'no samples')

    def test_sample_fields(self):
        for key in ('kernel', 'rep', 'workload', 'cgroup', 'kernel_insns_per_op'):
            res = json.loads(json.dumps(self.good))
            del res['samples'][3][key]
            self.error(res, 'sample 3 has no "%s"' % key)
        res = json.loads(json.dumps(self.good))
        res['samples'][0]['kernel'] = 'other'
        self.error(res, 'sample 0: "kernel" is "other", not "base", "patched" or "nokmem"')
        res = json.loads(json.dumps(self.good))
        res['samples'][0]['kernel_insns_per_op'] = '12'
        self.error(res, 'sample 0: "kernel_insns_per_op" is "12", not a number')

    def test_meta_fields(self):
        res = json.loads(json.dumps(self.good))
        del res['meta']['repetitions']
        self.error(res, 'no "meta.repetitions"')

    def test_workload_without_all_cells(self):
        res = json.loads(json.dumps(self.good))
        res['samples'] = [s for s in res['samples']
                          if not (s['workload'] == 'pipe-64' and s['kernel'] == 'patched'
                                  and s['cgroup'] == 'memcg')]
        self.error(res, 'workload pipe-64 has no patched samples in memcg')

    def test_no_section(self):
        with open(self.cover, 'w') as f:
            f.write('Subject: [PATCH 0/1] x\n\nno numbers here\n')
        with self.assertRaisesRegex(Error, 'has no "\\[numbers: ...\\]"'):
            cover.main([self.write(self.good), self.cover])

    def test_cli_one_error_line(self):
        path = self.write('not json')
        p = subprocess.run([sys.executable, os.path.join(TOP, 'scripts', 'cover-numbers.py'), path,
                            self.cover], capture_output=True, text=True)
        self.assertEqual(p.returncode, 86)      # lib.sh's DIE_STATUS
        self.assertEqual(p.stderr.splitlines(), ['objstock: error: %s is not valid JSON '
                                                 '(line 1 column 1: Expecting value)' % path])

    def test_good_run_rewrites_only_the_section(self):
        os.makedirs(os.path.join(self.d, 'results', 'r'))
        path = os.path.join(self.d, 'results', 'r', 'results.json')
        shutil.copyfile(os.path.join(TOP, named_run(), 'results.json'), path)
        with contextlib.redirect_stdout(io.StringIO()) as out:
            cover.main([path, self.cover])
        with open(path) as f:
            n = len(bench.workloads(json.load(f)))   # those with samples
        self.assertEqual(out.getvalue(), 'cover-numbers: %d workloads from %s -> %s\n' % (n, path, self.cover))
        with open(self.cover) as a, open(COVER) as b:
            new, old = a.read(), b.read()
        self.assertEqual(new, old.replace(named_run(), 'results/r'))


if __name__ == '__main__':
    unittest.main()


class Floor(unittest.TestCase):
    """FLOOR=1 runs: a third kernel, the patched one with cgroup.memory=nokmem;
    report.md gets a section of every row over it"""
    def res(self, nokmem=True):
        res = load(os.path.join(FINAL, 'results.json'))
        samples = []
        for s in res['samples']:
            if s['workload'] != 'pipe-64':
                continue
            s = dict(s)
            if s['cgroup'] == 'memcg':
                s['kernel_insns_per_op'] = 2000.0 if s['kernel'] == 'base' else 1500.0
            else:
                s['kernel_insns_per_op'] = 1100.0
            samples.append(s)
            if nokmem and s['kernel'] == 'patched':
                samples.append(dict(s, kernel='nokmem', kernel_insns_per_op=1000.0))
        res['samples'] = samples
        return bench.validate(res)

    def test_rows_over_the_floor(self):
        L, _ = report.markdown(self.res())
        self.assertIn('## Over the floor: the kernel without kmem accounting', L)
        self.assertIn('| pipe-64 | root | 1000 | +10.0% ± 0.0 | +10.0% ± 0.0 |  |', L)
        self.assertIn('| pipe-64 | memcg | 1000 | +100.0% ± 0.0 | +50.0% ± 0.0 | +50% |', L)

    def test_no_floor_no_section(self):
        L, _ = report.markdown(self.res(nokmem=False))
        self.assertFalse([x for x in L if 'floor' in x.lower()])

    def test_cover_ignores_the_floor(self):
        self.assertEqual([r[0] for r in cover.rows(self.res())], ['pipe-64'])

    def test_cover_floor_table(self):
        L = cover.floor_lines(self.res())
        self.assertIn('pipe-64                      10%    10%   100%    50%       50%', L)
        self.assertEqual(cover.floor_lines(self.res(nokmem=False)), [])


class Traffic(unittest.TestCase):
    """TRAFFIC=1 runs: collect.py reads the cache-model boots
    ({base,patched}-traffic/) into "traffic", and report.md gets its table"""
    MODEL = 'line 64 l1d_size 32768 l1d_assoc 8 llc_size 2097152 llc_assoc 16 lat_l1d 14 lat_llc 200 lat_xfer 100 count kernel'

    def rundir(self, d, model2=None):
        ops = 20000     # pipe-64's ops in bench/workloads
        with open(os.path.join(d, 'meta.txt'), 'w') as f:
            f.write('repetitions 1\ncpus 2\n')
        for k, base in (('base', 3000), ('patched', 2000)):
            for sub, cache in ((k + '-1', False), (k + '-traffic', True)):
                os.makedirs(os.path.join(d, sub))
                with open(os.path.join(d, sub, 'manifest'), 'w') as f:
                    f.write('1 pipe-64 root count\n2 pipe-64 memcg count\n')
                with open(os.path.join(d, sub, 'churn.out'), 'w') as f:
                    f.write('1 churn ns=1\n2 churn ns=1\n')
                with open(os.path.join(d, sub, 'kinsn.out'), 'w') as f:
                    if cache:
                        f.write('kinsn-cache %s\n' % (model2 if model2 and k == 'patched' else self.MODEL))
                    for w, cg in ((1, 0), (2, 1)):
                        insns = (1000 + cg * base) * ops
                        line = 'window %d kernel_insns %d user_insns 0 host_ns 5' % (w, insns)
                        if cache:
                            line += ' loads %d stores %d l1d_miss %d llc_miss %d xfer %d cost %d' % (
                                400 * ops, 200 * ops, (10 + cg * base // 100) * ops, ops,
                                (1 + cg * base // 1000) * ops, (2000 + cg * base) * ops)
                        f.write(line + '\n')
        return d

    def collect(self, d):
        r = subprocess.run([sys.executable, os.path.join(TOP, 'scripts', 'collect.py'), d,
                            os.path.join(TOP, 'bench', 'workloads')], capture_output=True, text=True)
        return r

    def test_collected_and_reported(self):
        with tempfile.TemporaryDirectory() as d:
            r = self.collect(self.rundir(d))
            self.assertEqual(r.returncode, 0, r.stderr)
            res = bench.validate(json.loads(r.stdout))
        self.assertEqual(res['meta']['traffic_model'], self.MODEL)
        self.assertEqual(len(res['traffic']), 4)
        L, _ = report.markdown(res)
        self.assertIn('## Memory traffic per op (modeled)', L)
        self.assertIn('| pipe-64 | memcg | 40.00 | 30.00 | 1.000 | 1.000 | 4.000 | 3.000 | 5000 | 4000 | -20.0% |', L)
        self.assertIn('| pipe-64 | 3000 | 2000 | +33% | 3.000 | 2.000 |', L)

    def test_cover_traffic_table(self):
        with tempfile.TemporaryDirectory() as d:
            r = self.collect(self.rundir(d))
        res = bench.validate(json.loads(r.stdout))
        L = cover.traffic_lines(res)
        self.assertIn('plugin\'s cache model: per-vCPU 32 KiB L1D, shared 2048 KiB LLC, a', L)
        # xfer tax 3 / 2, LLC tax 0 / 0, cost tax 3000 / 2000: cut 33%
        self.assertIn('pipe-64                     3.00   2.00   0.00   0.00   3000   2000  33%', L)
        res['meta']['traffic_model'] = 'line 64'
        with self.assertRaisesRegex(Error, 'does not give the cache model'):
            cover.traffic_lines(res)

    def test_repeated_windows_averaged(self):
        """REPEAT: several windows of one workload and cgroup in a
        boot are one sample, their mean"""
        with tempfile.TemporaryDirectory() as d:
            with open(os.path.join(d, 'meta.txt'), 'w') as f:
                f.write('repetitions 1\ncpus 2\n')
            for k in ('base', 'patched'):
                rd = os.path.join(d, k + '-1')
                os.makedirs(rd)
                cgs = ['memcg', 'root', 'memcg', 'root']
                with open(os.path.join(rd, 'manifest'), 'w') as f:
                    f.write(''.join('%d pipe-64 %s count\n' % (i + 1, cg) for i, cg in enumerate(cgs)))
                with open(os.path.join(rd, 'churn.out'), 'w') as f:
                    f.write(''.join('%d churn ns=1\n' % (i + 1) for i in range(4)))
                with open(os.path.join(rd, 'kinsn.out'), 'w') as f:
                    for i, n in enumerate((3000, 1000, 5000, 1200)):
                        f.write('window %d kernel_insns %d user_insns 0 host_ns 5\n' % (i + 1, n * 20000))
            r = self.collect(d)
        self.assertEqual(r.returncode, 0, r.stderr)
        res = bench.validate(json.loads(r.stdout))
        got = {(s['kernel'], s['cgroup']): (s['windows'], s['kernel_insns_per_op']) for s in res['samples']}
        self.assertEqual(got[('base', 'memcg')], (2, 4000.0))
        self.assertEqual(got[('base', 'root')], (2, 1100.0))

    def test_two_models_refused(self):
        with tempfile.TemporaryDirectory() as d:
            r = self.collect(self.rundir(d, model2=self.MODEL.replace('lat_xfer 100', 'lat_xfer 50')))
        self.assertNotEqual(r.returncode, 0)
        self.assertIn('different cache models', r.stderr)

    def test_window_without_model_counts(self):
        with tempfile.TemporaryDirectory() as d:
            self.rundir(d)
            p = os.path.join(d, 'base-traffic', 'kinsn.out')
            lines = open(p).read().splitlines()
            with open(p, 'w') as f:
                f.write('\n'.join(lines[:2] + [' '.join(lines[2].split()[:8])]) + '\n')
            r = self.collect(d)
        self.assertNotEqual(r.returncode, 0)
        self.assertIn('has no cache-model counts', r.stderr)

    def test_bad_traffic_entry(self):
        res = load(os.path.join(FINAL, 'results.json'))
        res['traffic'] = [{'kernel': 'base', 'workload': 'pipe-64', 'cgroup': 'root'}]
        with self.assertRaisesRegex(Error, 'traffic 0 lacks'):
            bench.validate(res)


class CutCell(unittest.TestCase):
    """report.fmt_cut: the cut with its interval, n/a when there is no tax"""
    def test_cut(self):
        self.assertEqual(report.fmt_cut([1000.0, 1000.0, 1000.0], [400.0, 400.0, 400.0]), '+60.0% ± 0.0')

    def test_no_tax(self):
        # base's tax 100 +- 150: its 95% interval reaches zero, nothing to cut
        self.assertTrue(report.fmt_cut([-50.0, 100.0, 250.0], [90.0, 100.0, 110.0]).startswith('n/a (no tax'))
        self.assertEqual(report.fmt_cut([0.0, 0.0], [1.0, 1.0]), 'n/a')
        # a tax above its interval but a cut interval wider than +-50 points:
        # D's hackbench --pipe (the control), 69.9 +- 58.1, is no cut
        self.assertTrue(report.fmt_cut([300.0, 180.0, 250.0], [10.0, 150.0, 60.0]).startswith(
            'n/a (not measured: '), report.fmt_cut([300.0, 180.0, 250.0], [10.0, 150.0, 60.0]))
