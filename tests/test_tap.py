"""kselftest TAP and exit status -> the verdict on a selftest program
(scripts/objstock/tap.py).  The TAP below is what kselftest.h prints."""
import os
import tempfile
import unittest

from objstock import tap


def prog(text, rc=0, rc_problem=None):
    cases, program = tap.verdict(text, rc, rc_problem)
    return [(c.name, c.status) for c in cases], program


GOOD = """TAP version 13
1..4
# a diagnostic
ok 1 test_a
not ok 2 test_b
ok 3 # SKIP test_c
ok 4 test_d #  with a message
# Totals: pass:2 fail:1 xfail:0 xpass:0 skip:1 error:0
"""


class TapCases(unittest.TestCase):
    def test_good_tap_with_skip_names(self):
        # kselftest's SKIP puts the name after the directive
        cases, program = prog(GOOD, 1)
        self.assertEqual(cases, [('test_a', 'PASS'), ('test_b', 'FAIL'), ('test_c', 'SKIP'),
                                 ('test_d', 'PASS')])
        self.assertIsNone(program)          # exit 1 is explained by 'not ok 2'

    def test_all_pass_exit_0(self):
        cases, program = prog('TAP version 13\n1..2\nok 1 a\nok 2 - b\n', 0)
        self.assertEqual(cases, [('a', 'PASS'), ('b', 'PASS')])
        self.assertIsNone(program)

    def test_skip_with_reason_and_xfail(self):
        cases, _ = prog('1..3\nok 1 # SKIP test_x\nok 2 t2 # XFAIL known\nnot ok 3 # SKIP test_z\n')
        self.assertEqual(cases, [('test_x', 'SKIP'), ('t2', 'PASS'), ('test_z', 'SKIP')])

    def test_error_directive_is_a_failure(self):
        cases, program = prog('1..1\nnot ok 1 # error test_e\n', 1)
        self.assertEqual(cases, [('test_e', 'FAIL')])
        self.assertIsNone(program)

    def test_names_lose_whitespace_and_hash(self):
        cases, _ = prog('1..1\nok 1 # SKIP memory hugetlb accounting is disabled\n', 4)
        self.assertEqual(cases, [('memory_hugetlb_accounting_is_disabled', 'SKIP')])

    def test_diagnostics_go_with_the_next_case(self):
        c = tap.parse('1..1\n# expected 5\n# got 6\nnot ok 1 t\n# Totals: x\n')[0].cases[0]
        self.assertEqual(c.diag, ['# expected 5', '# got 6'])

    def test_indented_lines_are_not_results(self):
        cases, program = prog('1..1\n    ok 7 nested\nok 1 top\n', 0)
        self.assertEqual(cases, [('top', 'PASS')])
        self.assertIsNone(program)


class TapProgram(unittest.TestCase):
    def test_plan_not_met_and_signal(self):
        # the case: plan 1..5, two ok lines, exit 139
        cases, program = prog('TAP version 13\n1..5\nok 1 a\nok 2 b\n', 139)
        self.assertEqual(cases, [('a', 'PASS'), ('b', 'PASS')])
        self.assertEqual(program, ('FAIL', 'plan 1..5 but 2 results, exit 139 (SIGSEGV)'))

    def test_plan_not_met_exit_0(self):
        self.assertEqual(prog('1..3\nok 1 a\n', 0)[1], ('FAIL', 'plan 1..3 but 1 result'))

    def test_plan_not_met_exit_1(self):
        # ksft_finished() exits 1 on an unmet plan: the plan is the reason
        self.assertEqual(prog('1..3\nok 1 a\nok 2 b\n', 1)[1], ('FAIL', 'plan 1..3 but 2 results'))

    def test_more_results_than_planned(self):
        self.assertEqual(prog('1..1\nok 1 a\nok 2 b\n', 0)[1], ('FAIL', 'plan 1..1 but 2 results'))

    def test_results_without_plan(self):
        self.assertEqual(prog('ok 1 a\n', 0)[1], ('FAIL', '1 result without a plan'))

    def test_signals(self):
        self.assertEqual(prog('1..1\nok 1 a\n', 134)[1], ('FAIL', 'exit 134 (SIGABRT)'))
        self.assertEqual(prog('1..1\nok 1 a\n', 143)[1], ('FAIL', 'exit 143 (SIGTERM)'))

    def test_timeouts(self):
        self.assertEqual(prog('1..2\nok 1 a\nok 2 b\n', 124)[1], ('FAIL', 'timed out (exit 124)'))
        self.assertEqual(prog('1..2\nok 1 a\n', 137)[1],
                         ('FAIL', 'plan 1..2 but 1 result, timed out or killed (exit 137, SIGKILL)'))

    def test_bad_rc(self):
        # kselftest exits 0, 1 or 4; with every case ok, 1 and others are unexplained
        self.assertEqual(prog('1..1\nok 1 a\n', 1)[1], ('FAIL', 'exit 1 but no case failed'))
        self.assertEqual(prog('1..1\nok 1 a\n', 2)[1], ('FAIL', 'exit 2'))
        self.assertEqual(prog('1..1\nok 1 a\n', 255)[1], ('FAIL', 'exit 255'))
        self.assertEqual(prog('1..2\nok 1 a\nok 2 b\n', 4)[1],
                         ('FAIL', 'exit 4 (skip) but the last case did not skip'))

    def test_exit_4_explained_by_skips(self):
        self.assertIsNone(prog('1..2\nok 1 # SKIP a\nok 2 # SKIP b\n', 4)[1])
        # ksft_exit_skip() after the plan: 'ok N # SKIP why', exit 4
        self.assertIsNone(prog('1..1\nok 0 # SKIP memory controller isn\'t available\n', 4)[1])
        self.assertEqual(prog('1..0 # SKIP cgroup v2 isn\'t mounted\n', 4),
                         ([], ('SKIP', "cgroup v2 isn't mounted")))

    def test_missing_rc(self):
        rc, problem = tap.read_rc(os.path.join(tempfile.gettempdir(), 'objstock-none', 'test_x.rc'))
        self.assertIsNone(rc)
        self.assertEqual(problem, 'no exit status (test_x.rc missing)')
        self.assertEqual(prog('1..1\nok 1 a\n', rc, problem)[1],
                         ('FAIL', 'no exit status (test_x.rc missing)'))

    def test_unreadable_rc(self):
        with tempfile.NamedTemporaryFile('w', suffix='.rc') as f:
            f.write('\n')
            f.flush()
            self.assertIsNone(tap.read_rc(f.name)[0])
            self.assertIn('is not a number', tap.read_rc(f.name)[1])

    def test_bail_out(self):
        self.assertEqual(prog('1..3\nok 1 a\nBail out! cannot create cgroup\n', 1)[1],
                         ('FAIL', 'Bail out! cannot create cgroup, plan 1..3 but 1 result'))

    def test_shell_tests(self):
        # no TAP: the exit status says it all
        self.assertEqual(prog('some output\n', 0), ([], ('PASS', 'exit 0')))
        self.assertEqual(prog('needs 8 CPUs\n', 4), ([], ('SKIP', 'exit 4')))
        self.assertEqual(prog('boom\n', 1), ([], ('FAIL', 'exit 1')))
        self.assertEqual(prog('', 139), ([], ('FAIL', 'exit 139 (SIGSEGV)')))

    def test_several_streams(self):
        # with_stress.sh runs test_core in a loop: one TAP document per run
        one = 'TAP version 13\n1..2\nok 1 a\nok 2 b\n# Totals: pass:2\n'
        self.assertEqual(prog(one + one + one, 0)[1], None)
        cases, program = prog(one + 'TAP version 13\n1..2\nok 1 a\n', 139)
        self.assertEqual(program, ('FAIL', 'plan 1..2 but 1 result, exit 139 (SIGSEGV)'))
        self.assertEqual(len(cases), 3)

    def test_tail(self):
        self.assertEqual(tap.tail('TAP version 13\n1..2\n# x\nok 1 a\nSegmentation fault\n'),
                         ['# x', 'Segmentation fault'])


if __name__ == '__main__':
    unittest.main()
