"""The bench on real hardware (objstock/hw.py): bench/hw/run's repetitions
collected into a results.json of collect.py's schema (meta.source
"hardware"), `make report RESULTS=...` merging one with a QEMU run
(fixtures in tests/fixtures/hw: qemu.json, a subset of a committed run;
bigbox/, a machine with perf counters, whose results.json is hw.json;
noperf/, one without), and the lkp-tests job files of bench/lkp."""
import contextlib
import glob
import io
import json
import os
import re
import shutil
import tempfile
import unittest

from objstock import Error, bench, hw, report
from objstock.stats import welch

TOP = os.path.abspath(os.path.join(os.path.dirname(os.path.abspath(__file__)), '..'))
FIX = os.path.join(TOP, 'tests', 'fixtures', 'hw')
WL = os.path.join(TOP, 'bench', 'workloads')


def load(path):
    with open(path) as f:
        return json.load(f)


class Collect(unittest.TestCase):
    def setUp(self):
        self.tmp = tempfile.mkdtemp()
        self.addCleanup(shutil.rmtree, self.tmp)

    def copy(self, name):
        d = os.path.join(self.tmp, name)
        shutil.copytree(os.path.join(FIX, name), d)
        return d

    def test_collect_reproduces_fixture(self):
        """bigbox/'s repetitions -> hw.json, field for field"""
        self.assertEqual(hw.collect(self.copy('bigbox'), WL), load(os.path.join(FIX, 'hw.json')))

    def test_collect_is_the_schema(self):
        res = bench.validate(hw.collect(self.copy('bigbox'), WL))
        m = res['meta']
        self.assertEqual((m['source'], m['hostname'], m['nproc'], m['perf']), ('hardware', 'bigbox', '224', 'yes'))
        self.assertEqual(m['cpu_model'], 'Intel(R) Xeon(R) Platinum 8480+')
        self.assertEqual(m['kernel_release_patched'], '7.3.4-objstock-patched')
        self.assertIn('7.3.4-objstock-base', m['uname_base'])
        s = next(s for s in res['samples'] if s['kernel'] == 'base' and s['rep'] == 1
                 and s['workload'] == 'pipe-16' and s['cgroup'] == 'memcg')
        # churn.out's window 2 of base-1, over bench/workloads' 20000 ops
        self.assertEqual(s['ns'], 25777666)
        self.assertAlmostEqual(s['ns_per_op'], 25777666 / 20000)
        self.assertAlmostEqual(s['kernel_insns_per_op'], 66047364 / 20000)
        self.assertAlmostEqual(s['cycles_per_op'], 77790474 / 20000)

    def test_collect_without_perf(self):
        """no perf counters: the counts are null, which validates for hardware only"""
        res = bench.validate(hw.collect(self.copy('noperf'), WL))
        self.assertEqual(res['meta']['perf'], 'no')
        self.assertTrue(all(s['kernel_insns_per_op'] is None and s['cycles_per_op'] is None
                            for s in res['samples']))
        res['meta'].pop('source')
        with self.assertRaisesRegex(Error, '"kernel_insns_per_op" is null, not a number'):
            bench.validate(res)

    def test_collect_appends_repetitions(self):
        """a repetition added later (after a reboot) is in the next results.json"""
        d = self.copy('bigbox')
        shutil.copytree(os.path.join(d, 'base-2'), os.path.join(d, 'base-3'))
        res = hw.collect(d, WL)
        self.assertEqual(res['meta']['repetitions_base'], '3')
        self.assertEqual(sorted({s['rep'] for s in res['samples'] if s['kernel'] == 'base'}), [1, 2, 3])

    def test_collect_skips_unfinished_and_refuses_mixed_machines(self):
        d = self.copy('bigbox')
        os.makedirs(os.path.join(d, 'patched-3'))          # no churn.out: not finished
        self.assertEqual(len(hw.collect(d, WL)['samples']), 16)
        shutil.copytree(os.path.join(FIX, 'noperf', 'base-1'), os.path.join(d, 'base-9'))
        with self.assertRaisesRegex(Error, 'repetitions from different machines \\(hostname: bigbox vs guestvm\\)'):
            hw.collect(d, WL)

    def test_collect_empty(self):
        with self.assertRaisesRegex(Error, 'no finished repetition'):
            hw.collect(self.tmp, WL)


class Merge(unittest.TestCase):
    def setUp(self):
        self.tmp = tempfile.mkdtemp()
        self.addCleanup(shutil.rmtree, self.tmp)
        self.qemu = os.path.join(FIX, 'qemu.json')
        self.hw = os.path.join(FIX, 'hw.json')

    def render(self, *paths):
        hw.render(list(paths), self.tmp)
        with open(os.path.join(self.tmp, 'report.md')) as f:
            return f.read()

    def test_merge_hw_with_qemu(self):
        """the QEMU report as bench.sh writes it, then a section of its own for the machine"""
        md = self.render(self.qemu, self.hw)
        qemu_lines, _ = report.markdown(bench.load(self.qemu))
        self.assertTrue(md.startswith('\n'.join(qemu_lines) + '\n'), 'the QEMU report comes first, unchanged')
        self.assertIn('## Real hardware: bigbox (Intel(R) Xeon(R) Platinum 8480+, 224 CPUs)', md)
        hwpart = md[md.index('## Real hardware'):]
        self.assertNotIn('kinsn', hwpart)
        for title in ('### Wall time per op (ns)', '### Kernel instructions per op (perf, churn\'s tasks)',
                      '### Kernel cycles per op (perf, churn\'s tasks)', '### memcg tax: memcg minus root'):
            self.assertIn(title, hwpart)
        self.assertIn('- `%s`: QEMU/TCG, kinsn plugin, 16 samples' % self.qemu, md)
        self.assertIn('- `%s`: real hardware (bigbox), 16 samples' % self.hw, md)
        self.assertTrue(os.path.exists(os.path.join(self.tmp, 'tax.png')) or not shutil.which('gnuplot'))
        self.assertTrue(os.path.exists(os.path.join(self.tmp, 'hw-1.png')) or not shutil.which('gnuplot'))

    def test_merge_hw_row_is_welch_of_the_samples(self):
        """a hardware row: mean ± stddev of each kernel, the delta, Welch's p and its marks"""
        res = bench.load(self.hw)
        a = bench.cell(res, 'base', 'pipe-16', 'memcg', 'kernel_insns_per_op')
        b = bench.cell(res, 'patched', 'pipe-16', 'memcg', 'kernel_insns_per_op')
        md = self.render(self.qemu, self.hw)
        sect = md[md.index('### Kernel instructions per op'):]
        row = next(ln for ln in sect.splitlines() if ln.startswith('| pipe-16 | memcg |'))
        p = welch(a, b)
        self.assertLess(p, 0.01)
        self.assertIn('| %+.2f%% **! | %.3g |' % ((sum(b) / len(b)) / (sum(a) / len(a)) * 100 - 100, p), row)

    def test_render_hw_only_and_noperf(self):
        d = os.path.join(self.tmp, 'noperf')
        shutil.copytree(os.path.join(FIX, 'noperf'), d)
        with contextlib.redirect_stdout(io.StringIO()):
            hw.main_collect([d, WL])
        md = self.render(self.hw, os.path.join(d, 'results.json'))
        self.assertTrue(md.startswith('# objstock A/B report: base vs patched on real hardware'))
        self.assertEqual(md.count('## Real hardware: '), 2)
        self.assertIn('Kernel instructions per op (perf, churn\'s tasks): none (no perf counters', md)
        self.assertIn('### memcg tax: memcg minus root, wall time per op (ns)', md)
        # the machine without perf is a VM (hypervisor flag): the section says so, bigbox's does not
        self.assertEqual(md.count('**This machine is a virtual machine**'), 1)
        self.assertLess(md.index('## Real hardware: guestvm'), md.index('**This machine is a virtual machine**'))

    def test_merge_same_machine_adds_repetitions(self):
        md = self.render(self.hw, self.hw)
        self.assertEqual(md.count('## Real hardware: '), 1)
        self.assertIn('Repetitions: base 4, patched 4.', md)

    def test_merge_one_outdir_per_kernel(self):
        """base and patched run into OUTDIRs of their own: one section, each kernel's uname"""
        paths = []
        for k in ('base', 'patched'):
            d = os.path.join(self.tmp, 'out-' + k)
            os.makedirs(d)
            for rep in ('1', '2'):
                shutil.copytree(os.path.join(FIX, 'bigbox', k + '-' + rep), os.path.join(d, k + '-' + rep))
            with contextlib.redirect_stdout(io.StringIO()):
                hw.main_collect([d, WL])
            paths.append(os.path.join(d, 'results.json'))
        md = self.render(*paths)
        self.assertEqual(md.count('## Real hardware: '), 1)
        self.assertIn('Kernels: base `Linux bigbox 7.3.4-objstock-base #1', md)
        self.assertIn('; patched `Linux bigbox 7.3.4-objstock-patched #1', md)
        self.assertIn('| pipe-16 | memcg | 3291 ± 16.57', md)

    def test_committed_guest_run_reproduced(self):
        """results/2026-12-02-hw-runner-guests: the runner's results.json of each kernel (guests
        standing in for a machine) are valid, and make report renders the committed report.md"""
        run = os.path.join('results', '2026-12-02-hw-runner-guests')
        paths = [os.path.join(run, 'guest-%s' % k, 'results.json') for k in ('base', 'patched')]
        cwd = os.getcwd()
        os.chdir(TOP)
        self.addCleanup(os.chdir, cwd)
        base, patched = (bench.load(p) for p in paths)
        self.assertEqual((base['meta']['kernels'], patched['meta']['kernels']), ('base', 'patched nokmem'))
        self.assertEqual(base['meta']['kernel_release_base'], '7.3.4-objstock-base')
        self.assertEqual(patched['meta']['kernel_release_patched'], '7.3.4-objstock-patched')
        self.assertIn('cgroup.memory=nokmem', patched['meta']['cmdline_nokmem'])
        self.assertEqual(base['meta']['hypervisor'], 'yes')
        with open(os.path.join(run, 'report.md')) as f:
            self.assertEqual(self.render(*paths), f.read())

    def test_merge_qemu_runs_of_different_kernels_refused(self):
        other = load(self.qemu)
        other['meta']['series_sha256'] = 'ffffffffffffffff'
        path = os.path.join(self.tmp, 'other.json')
        with open(path, 'w') as f:
            json.dump(other, f)
        with self.assertRaisesRegex(Error, 'measured different kernels \\(meta.series_sha256'):
            hw.render([self.qemu, path], os.path.join(self.tmp, 'out'))

    def test_merge_two_qemu_runs(self):
        md = self.render(self.qemu, self.qemu)
        self.assertIn('4 repetitions', md.splitlines()[2])

    def test_report_py_hook(self):
        """report.py RESULTS OUTDIR: a QEMU file as bench.sh calls it (the report on stdout);
        a hardware file or several go to hw.py"""
        out = io.StringIO()
        with contextlib.redirect_stdout(out):
            self.assertEqual(report.main([self.qemu, self.tmp]), 0)
        self.assertTrue(out.getvalue().startswith('# objstock A/B report: Linux 7.3.4'))
        self.assertNotIn('Real hardware', out.getvalue())
        with contextlib.redirect_stdout(io.StringIO()):
            self.assertEqual(report.main([self.hw, self.tmp]), 0)
        with open(os.path.join(self.tmp, 'report.md')) as f:
            self.assertIn('## Real hardware: bigbox', f.read())
        with self.assertRaisesRegex(Error, 'usage: report.py RESULTS.json... OUTDIR'):
            report.main([self.tmp])


class Lkp(unittest.TestCase):
    def setUp(self):
        try:
            import yaml
        except ImportError:
            self.skipTest('no python3 yaml module (apt install python3-yaml)')
        self.yaml = yaml
        self.files = sorted(glob.glob(os.path.join(TOP, 'bench', 'lkp', '*.yaml')))

    def docs(self, path):
        with open(path) as f:
            return list(self.yaml.safe_load_all(f))

    def test_every_job_file_parses(self):
        self.assertEqual([os.path.basename(f) for f in self.files],
                         ['hackbench-objstock.yaml', 'stress-ng-switch-mq.yaml', 'will-it-scale-mmap2.yaml'])
        for path in self.files:
            docs = self.docs(path)
            self.assertTrue(docs and all(isinstance(d, dict) for d in docs), path)
            head = docs[0]
            self.assertEqual(head.get('category'), 'benchmark', path)
            self.assertEqual(head.get('suite'), head.get('testcase'), path)
            # the program's parameters, under its own name, in some document
            self.assertTrue(any(isinstance(d.get(head['suite']), dict) for d in docs), path)
            with open(path) as f:
                text = f.read()
            self.assertIn('through the lkp tools', text.replace('\n#', ''), path)
            self.assertNotIn('<<:', text, path)

    def test_hackbench_jobs_are_the_workloads(self):
        """each hackbench row of bench/workloads is a document, in root and in a memcg"""
        docs = self.docs(os.path.join(TOP, 'bench', 'lkp', 'hackbench-objstock.yaml'))
        jobs = [(d.get('nr_threads'), 'cgroup2' in d, d['hackbench']) for d in docs[1:]]
        rows = set()
        with open(WL) as f:
            for line in f:
                if not line.startswith('hackbench-'):
                    continue
                # a pinned row (taskset -c 0 hackbench ...) is its unpinned
                # row's job: lkp's hackbench has no CPU list
                args = line.split('hackbench ', 1)[1].split()
                opt = {a: args[i + 1] if i + 1 < len(args) and not args[i + 1].startswith('-') else True
                       for i, a in enumerate(args) if a.startswith('-')}
                want = {'mode': 'threads' if '-T' in opt else 'process', 'ipc': 'pipe' if '-p' in opt else 'socket',
                        'fds': int(opt['-f']), 'loops': int(opt['-l']), 'datasize': int(opt['-s'])}
                for memcg in (False, True):
                    self.assertIn((int(opt['-g']), memcg, want), jobs, line)
                rows.add(repr((opt['-g'], want)))
        self.assertEqual(len(rows), 5)

    def test_will_it_scale_and_stress_ng(self):
        w = self.docs(os.path.join(TOP, 'bench', 'lkp', 'will-it-scale-mmap2.yaml'))[0]
        self.assertEqual(w['will-it-scale'], {'mode': 'process', 'test': 'mmap2'})
        self.assertEqual(w['nr_task'][-1], '100%')
        s = self.docs(os.path.join(TOP, 'bench', 'lkp', 'stress-ng-switch-mq.yaml'))[0]
        self.assertEqual(s['stress-ng'], {'test': 'switch', 'method': 'mq'})
        self.assertTrue(re.search(r'-67\.7%', open(os.path.join(TOP, 'bench', 'lkp', 'stress-ng-switch-mq.yaml')).read()))
