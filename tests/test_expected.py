"""`make baseline`: expected/base-*.txt updated from a base run
(scripts/objstock/expected.py): FLAKY marks and reasons stay, a SELFTESTS
subset changes only its own lines, the header and the order stay."""
import os
import unittest

from objstock import Error, expected

HERE = os.path.dirname(os.path.abspath(__file__))
OLD = """# What base 7.3 does in the check guest.
# FLAKY: passes and fails on the same kernel.
kunit:slub_test:test_a                                       PASS
kunit:slub_test:test_rcu                                     SKIP  # built-in
selftest:test_core:test_x                                    PASS
selftest:test_freezer:test_ptrace                            FLAKY # upstream race: reads cgroup.events too early
selftest:test_freezer:test_simple                            PASS
selftest:test_kmem:test_deletion                             FAIL  # stale MAX_VMSTAT_ERROR
selftest:test_zswap:test_usage                               PASS
""".splitlines()


def results(text):
    return expected.read_results(text.split('\n'))


class Update(unittest.TestCase):
    def test_same_run_changes_nothing(self):
        res = results('kunit:slub_test:test_a PASS\nkunit:slub_test:test_rcu SKIP\n'
                      'selftest:test_core:test_x PASS\nselftest:test_freezer:test_ptrace PASS\n'
                      'selftest:test_freezer:test_simple PASS\nselftest:test_kmem:test_deletion FAIL\n'
                      'selftest:test_zswap:test_usage PASS\n')
        new, notes = expected.update(OLD, res)
        self.assertEqual(new, OLD)
        self.assertEqual(notes, [])

    def test_flaky_stays_flaky(self):
        # a FLAKY test that passed (or failed) in this run stays FLAKY with its reason
        for st in ('PASS', 'FAIL', 'SKIP'):
            new, _ = expected.update(OLD, results('selftest:test_freezer:test_ptrace %s\n'
                                                  'selftest:test_freezer:test_simple PASS' % st))
            self.assertIn('selftest:test_freezer:test_ptrace                            FLAKY '
                          '# upstream race: reads cgroup.events too early', new)

    def test_subset_keeps_the_other_lines_in_order(self):
        # SELFTESTS=test_freezer: only test_freezer's lines may change
        new, notes = expected.update(OLD, results('selftest:test_freezer:test_ptrace PASS\n'
                                                  'selftest:test_freezer:test_simple FAIL\n'),
                                     ran=['test_freezer'])
        self.assertEqual(len(new), len(OLD))
        changed = [(a, b) for a, b in zip(OLD, new) if a != b]
        self.assertEqual(changed, [(OLD[6], expected.fmt('selftest:test_freezer:test_simple', 'FAIL',
                                                         'TODO: explain'))])
        self.assertEqual(notes, ['selftest:test_freezer:test_simple: PASS -> FAIL'])

    def test_header_kept(self):
        new, _ = expected.update(OLD, results('selftest:test_core:test_x PASS'))
        self.assertEqual(new[:2], OLD[:2])

    def test_reason_kept_when_status_changes(self):
        new, _ = expected.update(OLD, results('selftest:test_kmem:test_deletion PASS'))
        self.assertIn(expected.fmt('selftest:test_kmem:test_deletion', 'PASS', 'stale MAX_VMSTAT_ERROR'),
                      new)

    def test_new_result_goes_after_its_suite(self):
        new, notes = expected.update(OLD, results('selftest:test_freezer:test_ptrace PASS\n'
                                                  'selftest:test_freezer:test_new SKIP\n'
                                                  'selftest:test_new_prog:t PASS\n'
                                                  'kunit:other_suite:c PASS\n'))
        i = new.index(expected.fmt('selftest:test_freezer:test_new', 'SKIP', 'TODO: explain'))
        self.assertEqual(new[i - 1], OLD[6])                    # after test_freezer's last line
        self.assertEqual(new[4], expected.fmt('kunit:other_suite:c', 'PASS', ''))   # after kunit's
        self.assertEqual(new[-1], expected.fmt('selftest:test_new_prog:t', 'PASS', ''))  # at the end
        self.assertEqual(len(new), len(OLD) + 3)
        self.assertIn('selftest:test_freezer:test_new: new, SKIP', notes)

    def test_a_case_that_did_not_run_is_kept(self):
        # test_freezer ran but test_simple did not (a crash?): the line stays
        new, notes = expected.update(OLD, results('selftest:test_freezer:test_ptrace PASS'))
        self.assertEqual(new, OLD)
        self.assertEqual(notes, ['selftest:test_freezer:test_simple: PASS in expected, '
                                 'not in this run: kept'])

    def test_program_that_ran_without_results_is_in_scope(self):
        new, notes = expected.update(OLD, results('selftest:test_core:test_x PASS'),
                                     ran=['test_core', 'test_zswap'])
        self.assertEqual(new, OLD)
        self.assertEqual(notes, ['selftest:test_zswap:test_usage: PASS in expected, '
                                 'not in this run: kept'])

    def test_not_base_results_ignored(self):
        res = results('checkpatch:0001.patch PASS\nharness:x FAIL\nselftest:test_core:test_x PASS')
        self.assertEqual(list(res), ['selftest:test_core:test_x'])

    def test_empty_run_is_an_error(self):
        with self.assertRaises(Error):
            expected.update(OLD, {})
        with self.assertRaises(Error):
            results('selftest:test_core:test_x KNOWN')

    def test_committed_expected_file_round_trips(self):
        """expected/base-7.3.txt, updated from a run that does just what it
        says, is byte-identical (every FLAKY test passing in that run)"""
        path = os.path.join(HERE, '..', 'expected', 'base-7.3.txt')
        with open(path) as f:
            old = f.read().splitlines()
        res = {}
        for line in old:
            p = expected.parse_line(line)
            if p:
                res[p[0]] = 'PASS' if p[1] == 'FLAKY' else p[1]
        new, notes = expected.update(old, res)
        self.assertEqual((new, notes), (old, []))


if __name__ == '__main__':
    unittest.main()
