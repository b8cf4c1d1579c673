"""make compare (scripts/objstock/compare.py): two committed runs of the same
kernels, and what the notes said of them; bad input is one error."""
import copy
import os
import unittest

from objstock import Error, bench, compare

TOP = os.path.abspath(os.path.join(os.path.dirname(os.path.abspath(__file__)), '..'))


def load(run):
    return bench.load(os.path.join(TOP, 'results', run, 'results.json'))


class Compare(unittest.TestCase):
    def test_cold_pair(self):
        # results/2026-12-03-cold-A, -B: 38 of 40 cuts within 3 points, 36
        # within 1; mmap 4.2 and hackbench -s 100000 3.4 apart; the controls
        # have no cut
        rows, s = compare.compare(load('2026-12-03-cold-A'), load('2026-12-03-cold-B'))
        self.assertEqual((s['rows'], s['within'], s['within1']), (40, 38, 36))
        self.assertEqual(s['outside'], ['hackbench-proc-s100000', 'mmap'])
        self.assertEqual(s['no_cut'], ['hackbench-pipe-s100', 'tcp-4k'])
        apart = {r[0]: r[5] for r in rows}
        self.assertAlmostEqual(apart['mmap'], 4.2, places=1)
        self.assertAlmostEqual(apart['pipe-128'], 0.0, places=1)
        # each run's interval holds the other's mmap cut (+-6.0, +-6.2)
        self.assertEqual({r[0]: r[6] for r in rows}['mmap'], 'both')

    def test_same_run_agrees(self):
        a = load('2026-12-03-cold-A')
        rows, s = compare.compare(a, a)
        self.assertEqual(s['within'], s['rows'])
        self.assertEqual(s['outside'], [])
        self.assertTrue(all(r[5] == 0 for r in rows))

    def test_a_moved_cut_is_outside(self):
        a = load('2026-12-03-cold-A')
        b = copy.deepcopy(a)
        # the patched memcg cells of pipe-64 up by a tenth of base's tax: the
        # cut falls by 10 points
        tb = bench.taxes(a, 'base', 'pipe-64')
        for x in b['samples']:
            if x['kernel'] == 'patched' and x['workload'] == 'pipe-64' and x['cgroup'] == 'memcg':
                x['kernel_insns_per_op'] += sum(tb) / len(tb) / 10
        rows, s = compare.compare(a, b)
        self.assertIn('pipe-64', s['outside'])
        self.assertAlmostEqual({r[0]: r[5] for r in rows}['pipe-64'], 10.0, places=1)
        text = '\n'.join(compare.lines(rows, s))
        self.assertIn('| **10.0** |', text)
        self.assertRegex(text.splitlines()[-1], r'^39 of 40 cuts within 3 points .*outside: pipe-64$')

    def test_rows_of_one_run(self):
        # a run of three rows against a full one: the others are "in one run
        # only", not "no cut"
        rows, s = compare.compare(load('2026-12-03-full16'), load('2026-12-03-hour'))
        self.assertEqual([r[0] for r in rows], ['hackbench-pin-proc-s100', 'hackbench-proc-s100000'])
        self.assertIn('tcp-4k', s['only_one'])
        self.assertNotIn('tcp-4k', s['no_cut'])
        self.assertEqual(s['no_cut'], [])

    def test_bad_input(self):
        with self.assertRaises(Error):
            compare.main([])
        with self.assertRaises(Error):
            compare.main([os.path.join(TOP, 'results', 'nonexistent', 'results.json')] * 2)


if __name__ == '__main__':
    unittest.main()
