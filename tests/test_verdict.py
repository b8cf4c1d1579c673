"""One `make check` run -> the verdict (scripts/objstock/verdict.py, ktap.py):
expected/KNOWN/FLAKY, skip where base passed, did not run, left-out
selftests, crashed programs, KTAP through kunit.py parse.

KUnit: tests/fixtures/verdict/kunit/NAME.ktap are logs (a boot with a
failure, crashes mid-suite and before the first suite ends, no KTAP at all, a
debugfs results file); NAME.json and NAME.out are what the kernel's kunit.py
parse (Linux 7.3.4) wrote and printed for them, and
tests/fixtures/verdict/ktree/ holds a stand-in kunit.py that replays them, so
that these tests need no kernel source.  test_recorded_kunit_output checks
the recordings against the real kunit.py when the source is there."""
import contextlib
import importlib.util
import io
import json
import os
import shutil
import subprocess
import sys
import tempfile
import unittest

from objstock import ktap, verdict
from objstock.verdict import Results, judge

HERE = os.path.dirname(os.path.abspath(__file__))
FIX = os.path.join(HERE, 'fixtures', 'verdict')
KFIX = os.path.join(FIX, 'kunit')
STANDIN = os.path.join(FIX, 'ktree')
# the cache as lib.sh has it: $CACHE (relative: to the repository), else build/
CACHE = os.path.join(HERE, '..', os.environ.get('CACHE') or 'build')
REAL_TREES = [os.environ.get('OBJSTOCK_KTREE', ''),
              os.path.join(CACHE, 'src', 'linux-7.3.4-1~bpo13+1'),
              os.path.join(CACHE, 'tree')]


def real_tree():
    return next((t for t in REAL_TREES if t and os.path.isfile(ktap.kunit_py(t))), None)


def res(*items):
    r = Results()
    for name, st, *detail in items:
        r.add(name, st, *detail)
    return r


def verdicts(v):
    return {name: (vd, detail) for items in v.rows.values() for name, vd, detail, _ in items}


class Judge(unittest.TestCase):
    def test_known_failure(self):
        v = judge(res(('selftest:t:a', 'FAIL')), {'selftest:t:a': ('FAIL', 'timing under TCG')})
        self.assertEqual(verdicts(v)['selftest:t:a'], ('KNOWN', 'fail on base: timing under TCG'))
        self.assertEqual((v.passed, v.failed, v.skipped, v.known), (0, 0, 1, 1))

    def test_flaky_failure_is_known_with_its_reason(self):
        v = judge(res(('selftest:t:a', 'FAIL')), {'selftest:t:a': ('FLAKY', 'upstream race')})
        self.assertEqual(verdicts(v)['selftest:t:a'][0], 'KNOWN')
        self.assertIn('upstream race', verdicts(v)['selftest:t:a'][1])
        self.assertEqual(v.failed, 0)

    def test_flaky_pass_is_a_pass(self):
        v = judge(res(('selftest:t:a', 'PASS')), {'selftest:t:a': ('FLAKY', 'race')})
        self.assertEqual((v.passed, v.failed), (1, 0))

    def test_new_failure(self):
        v = judge(res(('selftest:t:a', 'FAIL')), {'selftest:t:a': ('PASS', '')})
        self.assertEqual((v.passed, v.failed), (0, 1))

    def test_skip_where_base_passed_fails(self):
        for base in ('PASS', 'FLAKY'):
            v = judge(res(('selftest:t:a', 'SKIP', 'no swap')), {'selftest:t:a': (base, '')})
            self.assertEqual(verdicts(v)['selftest:t:a'],
                             ('FAIL', 'passes on base, skipped here: no swap'))
            self.assertEqual(v.failed, 1)

    def test_skip_where_base_skips(self):
        v = judge(res(('selftest:t:a', 'SKIP')), {'selftest:t:a': ('SKIP', 'needs 4 CPUs')})
        self.assertEqual((v.failed, v.skipped), (0, 1))

    def test_passes_on_base_did_not_run(self):
        exp = {'selftest:t:a': ('PASS', ''), 'selftest:t:b': ('PASS', ''),
               'selftest:t:c': ('FLAKY', 'race'), 'selftest:t:d': ('FAIL', 'env'),
               'kunit:s:x': ('PASS', '')}
        v = judge(res(('selftest:t:a', 'PASS')), exp)
        self.assertEqual(v.missing, ['selftest:t:b', 'selftest:t:c', 'kunit:s:x'])
        self.assertEqual(v.failed, 3)
        self.assertIn('  fail   selftest:t:b  (passes on base, did not run)', verdict.render(v, 'x'))

    def test_left_out_selftests(self):
        exp = {'selftest:t:a': ('PASS', ''), 'selftest:u:b': ('PASS', ''),
               'selftest:u.sh': ('SKIP', '')}
        v = judge(res(('selftest:t:a', 'PASS')), exp, ran={'t'})
        self.assertEqual((v.failed, v.left_out), (0, 1))
        # but a program that was to run and did not is missing
        v = judge(res(('selftest:t:a', 'PASS')), exp, ran={'t', 'u'})
        self.assertEqual(v.missing, ['selftest:u:b'])

    def test_debug_kernel_upstream_kunit_cases(self):
        exp = {'kunit:slub_test:x': ('PASS', ''), 'kunit-memcg:memcg_obj_stock:y': ('PASS', '')}
        v = judge(res(), exp, debug=True)
        self.assertEqual((v.left_out, v.missing), (1, ['kunit-memcg:memcg_obj_stock:y']))

    def test_worst_status_wins(self):
        r = res(('selftest:p:a', 'PASS'), ('selftest:p:a', 'FAIL'), ('selftest:p:a', 'PASS'))
        self.assertEqual(r['selftest:p:a'].status, 'FAIL')

    def test_unknown_status_fails(self):
        r = res(('harness:x', 'CRASHED', 'oops'))
        self.assertEqual((r['harness:x'].status, r['harness:x'].detail),
                         ('FAIL', "unknown status 'CRASHED': oops"))

    def test_final_line(self):
        v = judge(res(('a:x', 'PASS'), ('a:y', 'SKIP'), ('a:z', 'FAIL')), {})
        self.assertEqual(verdict.render(v, 'x')[-1], '1 passed, 1 failed, 1 skipped')


class KunitJson(unittest.TestCase):
    def load(self, name):
        with open(os.path.join(KFIX, name + '.json')) as f:
            data = json.load(f)
        with open(os.path.join(KFIX, name + '.out')) as f:
            out = f.read()
        return [(n, st) for n, st, _, _ in ktap.results(data, out, 'kunit', 'dmesg.txt')]

    def test_boot_ok(self):
        self.assertEqual(self.load('boot-ok'), [
            ('kunit:slub_test:test_clobber_zone', 'PASS'), ('kunit:slub_test:test_kfree_rcu', 'SKIP'),
            ('kunit:slub_test:test_leak_destroy', 'PASS'),
            ('kunit:memcg_obj_stock:test_drain_threshold', 'PASS'),
            ('kunit:memcg_obj_stock:test_charge_bound', 'PASS')])

    def test_failed_case(self):
        self.assertIn(('kunit:memcg_obj_stock:test_charge_bound', 'FAIL'), self.load('boot-fail'))

    def test_crash_mid_suite(self):
        r = self.load('crash-mid')
        self.assertIn(('kunit:memcg_obj_stock:missing-1', 'FAIL'), r)
        self.assertIn(('kunit:memcg_obj_stock', 'FAIL'), r)

    def test_crash_in_first_suite(self):
        r = self.load('crash-early')
        for name in ('kunit:slub_test:missing-1', 'kunit:slub_test:missing-2', 'kunit:missing-1',
                     'kunit:slub_test', 'kunit:dmesg.txt'):
            self.assertIn((name, 'FAIL'), r)

    def test_no_ktap(self):
        self.assertEqual(self.load('none'), [('kunit:dmesg.txt', 'FAIL')])

    def test_empty_group_fails(self):
        data = {'name': 'KUnit Test Group', 'sub_groups': [], 'test_cases': [],
                'misc': {'errors': 0}}
        self.assertEqual(ktap.results(data, '', 'kunit', 'dmesg.txt'),
                         [('kunit:dmesg.txt', 'FAIL', 'no KUnit test in the log', 'kunit:dmesg.txt')])

    def test_recorded_kunit_output(self):
        """the recordings the stand-in replays are what the real kunit.py says
        (run in this process, as `kunit.py parse --json=OUT FILE`: seven
        interpreter starts would take seconds)"""
        tree = real_tree()
        if not tree:
            self.skipTest('no kernel source with tools/testing/kunit/kunit.py '
                          '(make fetch, or OBJSTOCK_KTREE=...)')
        kdir = os.path.dirname(ktap.kunit_py(tree))
        cwd, path, nobc = os.getcwd(), list(sys.path), sys.dont_write_bytecode
        sys.dont_write_bytecode = True          # no __pycache__ in the tree
        sys.path.insert(0, kdir)
        try:
            spec = importlib.util.spec_from_file_location('objstock_real_kunit', ktap.kunit_py(tree))
            kunit = importlib.util.module_from_spec(spec)
            spec.loader.exec_module(kunit)
            printer = sys.modules['kunit_printer'].stdout
            with tempfile.TemporaryDirectory() as d:
                for f in sorted(os.listdir(KFIX)):
                    if not f.endswith('.ktap'):
                        continue
                    out = io.StringIO()
                    printer._output = out
                    try:
                        kunit.main(['parse', '--json=' + os.path.join(d, 'j'), os.path.join(KFIX, f)])
                    except SystemExit:
                        pass                    # exit 1: some test did not pass
                    finally:
                        os.chdir(cwd)
                        printer._output = sys.stdout
                    with open(os.path.join(d, 'j')) as j, open(os.path.join(KFIX, f[:-5] + '.json')) as r:
                        self.assertEqual(json.load(j), json.load(r), f)
                    with open(os.path.join(KFIX, f[:-5] + '.out')) as o:
                        self.assertEqual(ktap.error_messages(out.getvalue()),
                                         ktap.error_messages(o.read()), f)
        finally:
            os.chdir(cwd)
            sys.path[:] = path
            sys.dont_write_bytecode = nobc


class Run(unittest.TestCase):
    """a whole run directory through results.py's main()"""

    def setUp(self):
        self.d = tempfile.mkdtemp(prefix='objstock-verdict.')
        self.addCleanup(shutil.rmtree, self.d)
        os.makedirs(os.path.join(self.d, 'selftests'))
        os.makedirs(os.path.join(self.d, 'kunit'))
        self.dmesg('boot-ok')
        self.exp = os.path.join(self.d, 'expected.txt')
        self.expected('')

    def dmesg(self, name):
        shutil.copyfile(os.path.join(KFIX, name + '.ktap'), os.path.join(self.d, 'dmesg.txt'))

    def expected(self, text):
        with open(self.exp, 'w') as f:
            f.write('# header\n' + text)

    def selftest(self, name, tap, rc):
        with open(os.path.join(self.d, 'selftests', name + '.tap'), 'w') as f:
            f.write(tap)
        if rc is not None:
            with open(os.path.join(self.d, 'selftests', name + '.rc'), 'w') as f:
                f.write('%s\n' % rc)

    def run_main(self, *extra, **env):
        out = io.StringIO()
        with contextlib.redirect_stdout(out):
            rc = verdict.main([self.d, STANDIN, self.exp] + list(extra), env)
        return rc, out.getvalue().splitlines()

    def test_clean_run(self):
        self.selftest('test_a', 'TAP version 13\n1..2\nok 1 x\nok 2 # SKIP y\n', 0)
        rc, out = self.run_main()
        self.assertEqual((rc, out[-1]), (0, '5 passed, 0 failed, 2 skipped'))
        with open(os.path.join(self.d, 'results.txt')) as f:
            self.assertIn('selftest:test_a:y SKIP\n', f.read())

    def test_crashed_selftest(self):
        self.selftest('test_kmem', 'TAP version 13\n1..5\nok 1 a\nok 2 b\n', 139)
        rc, out = self.run_main()
        self.assertEqual(rc, 1)
        self.assertIn('  fail   selftest:test_kmem  (plan 1..5 but 2 results, exit 139 (SIGSEGV))', out)
        self.assertEqual(out[-1], '6 passed, 1 failed, 1 skipped')

    def test_missing_rc(self):
        self.selftest('test_a', '1..1\nok 1 x\n', None)
        rc, out = self.run_main()
        self.assertIn('  fail   selftest:test_a  (no exit status (test_a.rc missing))', out)

    def test_selftest_that_did_not_run(self):
        self.selftest('test_a', '1..1\nok 1 x\n', 0)
        rc, out = self.run_main(OBJSTOCK_SELFTESTS='test_a test_b')
        self.assertIn('  fail   selftest:test_b  (did not run (no selftests/test_b.tap))', out)

    def test_left_out_selftest(self):
        self.selftest('test_a', '1..1\nok 1 x\n', 0)
        self.expected('selftest:test_a:x PASS\nselftest:test_b:y PASS\n')
        rc, out = self.run_main(OBJSTOCK_SELFTESTS='test_a')
        self.assertEqual(rc, 0)
        self.assertIn('1 expected results not checked', out[-2])

    def test_no_ktap_in_dmesg(self):
        self.dmesg('none')
        rc, out = self.run_main()
        self.assertEqual(rc, 1)
        self.assertIn('  fail   kunit:dmesg.txt  (kunit.py: Could not find any KTAP output. '
                      'Did any KUnit tests run?)', out)

    def test_no_dmesg(self):
        os.unlink(os.path.join(self.d, 'dmesg.txt'))
        rc, out = self.run_main()
        self.assertIn('  fail   kunit:dmesg.txt  (no dmesg.txt: the guest did not write it)', out)

    def test_kunit_crash(self):
        self.dmesg('crash-mid')
        rc, out = self.run_main()
        self.assertEqual(out[-1], '3 passed, 2 failed, 1 skipped')

    def test_memcg_suite_missing_or_crashed(self):
        shutil.copyfile(os.path.join(KFIX, 'memcg-crash.ktap'),
                        os.path.join(self.d, 'kunit', 'memcg_obj_stock.ktap'))
        rc, out = self.run_main(OBJSTOCK_KUNIT_SUITES='memcg_obj_stock other_suite')
        self.assertIn('  fail   kunit-memcg:other_suite  (no kunit/other_suite.ktap: the suite did '
                      'not run from the memcg)', out)
        self.assertIn('  fail   kunit-memcg:memcg_obj_stock:missing-1  (a case with no result line: '
                      'the log ends or breaks before it (kernel crash?))', out)

    def test_no_kunit_py(self):
        out = io.StringIO()
        with contextlib.redirect_stdout(out):
            verdict.main([self.d, self.d, self.exp], {})
        self.assertIn('  fail   kunit:dmesg.txt  (no kunit.py at %s/tools/testing/kunit/kunit.py)'
                      % self.d, out.getvalue().splitlines())

    def test_extra_results(self):
        extra = os.path.join(self.d, 'checkpatch.results')
        with open(extra, 'w') as f:
            f.write('checkpatch:0001.patch PASS 0 CHECKs\nharness:x FAIL broke\n')
        empty = os.path.join(self.d, 'harness.results')
        open(empty, 'w').close()
        rc, out = self.run_main(extra, empty, os.path.join(self.d, 'nope.results'))
        self.assertIn('  fail   harness:x  (broke)', out)
        self.assertIn('  fail   results:harness.results  (%s holds no results)' % empty, out)
        self.assertTrue(any(ln.startswith('  fail   results:nope.results  (cannot read') for ln in out))

    def test_cli(self):
        """results.py as check.sh runs it: the last line is the summary"""
        self.selftest('test_a', '1..1\nok 1 x\n', 0)
        p = subprocess.run([sys.executable, os.path.join(HERE, '..', 'scripts', 'results.py'),
                            self.d, STANDIN, self.exp], capture_output=True, text=True)
        self.assertEqual((p.returncode, p.stdout.splitlines()[-1], p.stderr),
                         (0, '5 passed, 0 failed, 1 skipped', ''))
        p = subprocess.run([sys.executable, os.path.join(HERE, '..', 'scripts', 'results.py'),
                            self.d, STANDIN, os.path.join(self.d, 'nope')], capture_output=True, text=True)
        self.assertEqual((p.returncode, p.stderr.count('\n')), (86, 1))     # lib.sh's DIE_STATUS
        self.assertTrue(p.stderr.startswith('objstock: error: cannot read the expected results'))


if __name__ == '__main__':
    unittest.main()
