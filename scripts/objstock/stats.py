"""stats: the statistics of the A/B report (mean, sample stddev, Welch's
two-sided t-test), shared by the report and the cover letter; no numpy/scipy.

welch() is Welch's unequal-variances t-test with the Welch-Satterthwaite
degrees of freedom, its two-sided p-value the regularized incomplete beta
function I_{df/(df+t^2)}(df/2, 1/2) (Numerical Recipes, 6.4), as R's
t.test(x, y) computes it (tests/test_stats.py checks both against published
values and closed forms)."""
import math
import re


def betacf(a, b, x):
    # continued fraction for the incomplete beta function (Numerical Recipes)
    qab, qap, qam = a + b, a + 1, a - 1
    c, d = 1.0, 1 - qab * x / qap
    d = 1 / (d if abs(d) > 1e-30 else 1e-30)
    h = d
    for m in range(1, 300):
        m2 = 2 * m
        aa = m * (b - m) * x / ((qam + m2) * (a + m2))
        d = 1 + aa * d
        d = 1 / (d if abs(d) > 1e-30 else 1e-30)
        c = 1 + aa / c if abs(1 + aa / c) > 1e-30 else 1e-30
        h *= d * c
        aa = -(a + m) * (qab + m) * x / ((a + m2) * (qap + m2))
        d = 1 + aa * d
        d = 1 / (d if abs(d) > 1e-30 else 1e-30)
        c = 1 + aa / c if abs(1 + aa / c) > 1e-30 else 1e-30
        de = d * c
        h *= de
        if abs(de - 1) < 1e-12:
            break
    return h


def betai(a, b, x):
    if x <= 0:
        return 0.0
    if x >= 1:
        return 1.0
    lbt = math.lgamma(a + b) - math.lgamma(a) - math.lgamma(b) + a * math.log(x) + b * math.log(1 - x)
    if x < (a + 1) / (a + b + 2):
        return math.exp(lbt) * betacf(a, b, x) / a
    return 1 - math.exp(lbt) * betacf(b, a, 1 - x) / b


def welch(x, y):
    """two-sided p-value of Welch's t-test; None when it cannot be computed"""
    if len(x) < 2 or len(y) < 2:
        return None
    mx, my = mean(x), mean(y)
    vx, vy = var(x) / len(x), var(y) / len(y)
    if vx + vy == 0:
        return 0.0 if mx != my else 1.0
    t = (mx - my) / math.sqrt(vx + vy)
    df = (vx + vy) ** 2 / ((vx ** 2) / (len(x) - 1) + (vy ** 2) / (len(y) - 1))
    return betai(df / 2, 0.5, df / (df + t * t))


def tq(df, p=0.05):
    """the two-sided (1 - P) quantile of Student's t with DF degrees of
    freedom (t such that welch's p-value formula gives P), by bisection"""
    if df <= 0:
        return float('inf')
    lo, hi = 0.0, 1e3
    for _ in range(200):
        t = (lo + hi) / 2
        if betai(df / 2, 0.5, df / (df + t * t)) > p:
            lo = t
        else:
            hi = t
    return (lo + hi) / 2


def halfwidth(x, p=0.05):
    """half-width of the (1 - P) confidence interval of mean(x); None for
    fewer than two values"""
    if len(x) < 2:
        return None
    return tq(len(x) - 1, p) * sd(x) / math.sqrt(len(x))


def cut_interval(base, patched, p=0.05):
    """the cut 1 - mean(patched) / mean(base), in %, and the half-width of its
    (1 - P) confidence interval (delta method for the ratio of two means,
    Welch-Satterthwaite degrees of freedom); the half-width is None when it
    cannot be computed (fewer than two values, or a base mean of zero)"""
    mb, mp = mean(base), mean(patched)
    if not mb:
        return None, None
    r = mp / mb
    cut = (1 - r) * 100
    if len(base) < 2 or len(patched) < 2:
        return cut, None
    a = var(patched) / len(patched) / mp ** 2 if mp else 0.0
    b = var(base) / len(base) / mb ** 2
    if a + b == 0:
        return cut, 0.0
    df = (a + b) ** 2 / (a * a / (len(patched) - 1) + b * b / (len(base) - 1))
    return cut, tq(df, p) * abs(r) * math.sqrt(a + b) * 100


# a cut whose 95% interval is wider than this (half-width, points) says
# nothing: the controls (hackbench --pipe, TCP), whose tax is a few hundred
# instructions of noise on thousands, gave 69.9 +- 58.1 in one run and "no
# tax" in the next (results/2026-12-02-cold-D)
CUT_HW_MAX = 50.0


def no_cut(base, patched):
    """why a row has no cut to report, or None: no base tax, base's tax
    within its own 95% interval of zero, or a cut interval wider than
    +-CUT_HW_MAX points"""
    cut, hw = cut_interval(base, patched)
    if cut is None or mean(base) <= 0:
        return 'n/a'
    if (halfwidth(base) or 0) >= mean(base):
        return 'n/a (no tax: %.0f ± %.0f)' % (mean(base), halfwidth(base))
    if hw is not None and hw > CUT_HW_MAX:
        return 'n/a (not measured: %+.0f%% ± %.0f)' % (cut, hw)
    return None


def mean(x):
    return sum(x) / len(x)


def var(x):
    m = mean(x)
    return sum((v - m) ** 2 for v in x) / (len(x) - 1) if len(x) > 1 else 0.0


def sd(x):
    return math.sqrt(var(x))


def natural(w):
    """Workload order for tables and plots: hackbench, pipe, xattr, mmap, tcp,
    uring, stress(-ng), then the slab-* microbenchmark rows; numbers within a
    name in numeric order."""
    fam = ['hackbench', 'pipe', 'xattr', 'mmap', 'tcp', 'uring', 'stress', 'slab-bulk', 'slab-single']
    f = next((i for i, x in enumerate(fam) if w.startswith(x)), len(fam))
    return (f, [int(t) if t.isdigit() else t for t in re.split(r'(\d+)', w)])
