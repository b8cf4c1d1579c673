"""The report's statistics (scripts/objstock/stats.py) against published
values and closed forms.

- R's t.test(x, y), Welch by default, on ts1 = c(11,9,10,11,10,12,9,11,12,9)
  and ts2 = c(11,13,10,13,12,9,11,12,12,11) prints 't = -1.8325, df = 17.9,
  p-value = 0.08356' (an R session quoted in a Q&A answer on Welch's
  confidence interval; the same numbers follow by hand: means 10.4 and 11.4,
  variances 1.1556 and 1.8222).
- Rosetta Code's task "Welch's t-test" (a translation of R's t.test(x, y,
  var.equal=FALSE)): x = {3.0, 4.0, 1.0, 2.1}, y = {490.2, 340.0, 433.9},
  p = 0.010751 (its solutions print 0.0107516).
- Closed forms of Student's t distribution: with df = 1 (Cauchy) the
  two-sided p of t is 1 - 2 atan(|t|)/pi; with df = 2 it is
  1 - |t| / sqrt(2 + t^2).  Welch's df is exactly n - 1 when the other sample
  has no variance, so x of 2 (3) values against a constant y has df 1 (2).
"""
import math
import unittest

import stats                    # scripts/stats.py, what report.py and cover-numbers.py import
from objstock.stats import betai, cut_interval, halfwidth, mean, natural, sd, tq, var, welch


def t_df(x, y):
    vx, vy = var(x) / len(x), var(y) / len(y)
    t = (mean(x) - mean(y)) / math.sqrt(vx + vy)
    df = (vx + vy) ** 2 / (vx ** 2 / (len(x) - 1) + vy ** 2 / (len(y) - 1))
    return t, df


class Welch(unittest.TestCase):
    def test_r_t_test(self):
        x, y = [11, 9, 10, 11, 10, 12, 9, 11, 12, 9], [11, 13, 10, 13, 12, 9, 11, 12, 12, 11]
        t, df = t_df(x, y)
        self.assertAlmostEqual(t, -1.8325, places=4)
        self.assertAlmostEqual(df, 17.9, places=1)
        self.assertAlmostEqual(welch(x, y), 0.08356, places=5)

    def test_rosetta_code(self):
        self.assertAlmostEqual(welch([3.0, 4.0, 1.0, 2.1], [490.2, 340.0, 433.9]), 0.0107516, places=7)

    def test_closed_form_df1(self):
        x, y = [0.0, 2.0], [5.0, 5.0]           # t = (1 - 5) / sqrt(2/2) = -4, df = 1
        self.assertAlmostEqual(t_df(x, y)[1], 1.0)
        self.assertAlmostEqual(welch(x, y), 1 - 2 * math.atan(4) / math.pi, places=10)

    def test_closed_form_df2(self):
        x, y = [1.0, 2.0, 6.0], [0.0, 0.0, 0.0]  # mean 3, var 7, t = 3 / sqrt(7/3), df = 2
        t = 3 / math.sqrt(7 / 3)
        self.assertAlmostEqual(t_df(x, y)[1], 2.0)
        self.assertAlmostEqual(welch(x, y), 1 - t / math.sqrt(2 + t * t), places=10)

    def test_symmetric_and_equal(self):
        x, y = [1.0, 2.0, 3.0], [2.0, 3.0, 4.5]
        self.assertAlmostEqual(welch(x, y), welch(y, x), places=12)
        self.assertAlmostEqual(welch(x, list(x)), 1.0, places=12)

    def test_degenerate(self):
        self.assertIsNone(welch([1.0], [2.0, 3.0]))           # one sample: no variance
        self.assertEqual(welch([2.0, 2.0], [2.0, 2.0]), 1.0)   # identical, no spread
        self.assertEqual(welch([2.0, 2.0], [3.0, 3.0]), 0.0)   # different, no spread (exact counts)

    def test_betai_bounds_and_symmetry(self):
        self.assertEqual(betai(2.0, 0.5, 0.0), 0.0)
        self.assertEqual(betai(2.0, 0.5, 1.0), 1.0)
        # I_x(a, b) = 1 - I_{1-x}(b, a); I_x(1, 1) = x
        self.assertAlmostEqual(betai(3.0, 0.5, 0.3), 1 - betai(0.5, 3.0, 0.7), places=12)
        self.assertAlmostEqual(betai(1.0, 1.0, 0.37), 0.37, places=12)


class Describe(unittest.TestCase):
    def test_mean_var_sd(self):
        x = [2, 4, 4, 4, 5, 5, 7, 9]            # the textbook sample: mean 5, sample var 32/7
        self.assertEqual(mean(x), 5)
        self.assertAlmostEqual(var(x), 32 / 7)
        self.assertAlmostEqual(sd(x), math.sqrt(32 / 7))
        self.assertEqual(var([3.0]), 0.0)

    def test_natural_order(self):
        names = ['slab-bulk8-64', 'pipe-16', 'xattr-256', 'hackbench-proc-s100000', 'pipe-2',
                 'mmap', 'hackbench-proc-s100', 'slab-bulk1-64', 'other']
        self.assertEqual(sorted(names, key=natural),
                         ['hackbench-proc-s100', 'hackbench-proc-s100000', 'pipe-2', 'pipe-16',
                          'xattr-256', 'mmap', 'slab-bulk1-64', 'slab-bulk8-64', 'other'])

    def test_scripts_stats_is_the_same(self):
        self.assertIs(stats.welch, welch)


if __name__ == '__main__':
    unittest.main()


class Intervals(unittest.TestCase):
    """tq (Student's t quantiles), halfwidth and cut_interval"""
    def test_t_table(self):
        # two-sided 95% quantiles of Student's t (any t table): df 1, 2, 4, 10, 30
        for df, t in ((1, 12.706), (2, 4.303), (4, 2.776), (10, 2.228), (30, 2.042)):
            self.assertAlmostEqual(tq(df), t, places=3)
        # closed form for df = 2: t = sqrt(2 / (p (2 - p)) - 2)... p = 0.01 -> 9.925
        self.assertAlmostEqual(tq(2, 0.01), 9.925, places=3)

    def test_halfwidth(self):
        x = [10.0, 12.0, 14.0]          # sd 2, n 3: 4.303 * 2 / sqrt(3)
        self.assertAlmostEqual(halfwidth(x), 4.303 * 2 / math.sqrt(3), places=2)
        self.assertIsNone(halfwidth([5.0]))

    def test_cut_interval(self):
        # no spread: the cut exactly, a zero interval
        self.assertEqual(cut_interval([100.0, 100.0], [60.0, 60.0]), (40.0, 0.0))
        # only base spreads: df = n - 1 = 2, r = 0.6, relative se of base = sd / sqrt(n) / mean
        cut, hw = cut_interval([90.0, 100.0, 110.0], [60.0, 60.0, 60.0])
        self.assertAlmostEqual(cut, 40.0)
        self.assertAlmostEqual(hw, 4.303 * 0.6 * (10 / math.sqrt(3) / 100) * 100, places=1)
        # a wider spread gives a wider interval
        self.assertGreater(cut_interval([80.0, 100.0, 120.0], [60.0, 60.0, 60.0])[1], hw)
        self.assertEqual(cut_interval([0.0, 0.0], [1.0, 2.0]), (None, None))
        self.assertEqual(cut_interval([100.0], [50.0]), (50.0, None))
