"""verdict: one guest run of `make check` -> results -> the check's verdict.

A run directory holds dmesg.txt (boot-time KUnit), kunit/SUITE.ktap (suites
re-run from a child memcg), selftests/NAME.tap and NAME.rc (each cgroup
selftest's output and exit status).  Extra results files hold 'name
PASS|FAIL|SKIP [detail]' lines (checkpatch, the harness's own tests).

The expected file (expected/base-*.txt) says what the *base* kernel does:
'name PASS|FAIL|SKIP|FLAKY  # why'.  judge() decides:

- FAIL here, FAIL or FLAKY on base: KNOWN (counted as skipped, printed with
  the reason);
- SKIP here, PASS or FLAKY on base: FAIL ('passes on base, skipped here');
- PASS or FLAKY on base and absent here: FAIL ('passes on base, did not
  run'), unless its selftest was left out on purpose (SELFTESTS,
  SELFTESTS_SKIP: `ran` does not hold it) or, on the debug kernel, it is an
  upstream KUnit case that config does not build;
- anything else: its own status.
"""
import os
from collections import OrderedDict

from . import Error, ktap, tap
from .expected import parse_line

RANK = {'PASS': 0, 'SKIP': 1, 'FAIL': 2}


class Result:
    def __init__(self, status, detail='', diag=None, row=None):
        self.status, self.detail, self.diag, self.row = status, detail, diag or [], row

    def __repr__(self):
        return 'Result(%s, %r)' % (self.status, self.detail)


def default_row(name):
    """the table row of a result: selftest:PROG, kunit[-memcg]:SUITE, checkpatch, ..."""
    parts = name.split(':')
    if parts[0] == 'selftest':
        return ':'.join(parts[:2])
    if parts[0].startswith('kunit'):
        return ':'.join(parts[:-1]) if len(parts) > 2 else name
    return parts[0]


class Results(OrderedDict):
    """name -> Result, in the order found; a name found twice keeps the worse
    status (a test_core case that fails in one of with_stress.sh's loops fails)"""

    def add(self, name, status, detail='', diag=None, row=None):
        name = tap.clean_name(name)
        if status not in RANK:
            detail = 'unknown status %r%s' % (status, ': ' + detail if detail else '')
            status = 'FAIL'
        old = self.get(name)
        if old is not None and RANK[old.status] >= RANK[status]:
            return
        self[name] = Result(status, detail, diag, row or default_row(name))


def add_kunit(results, ktree, path, tag, source):
    """one KTAP log through kunit.py parse; a missing or empty log fails"""
    if not os.path.exists(path):
        results.add('%s:%s' % (tag, source), 'FAIL', 'no %s: the guest did not write it' % source)
        return
    if os.path.getsize(path) == 0:
        results.add('%s:%s' % (tag, source), 'FAIL', '%s is empty' % source)
        return
    data, output, problem = ktap.parse(ktree, path)
    with open(path + '.parsed', 'w') as f:
        f.write(output)
    if problem:
        results.add('%s:%s' % (tag, source), 'FAIL', problem)
        return
    for name, st, detail, row in ktap.results(data, output, tag, source):
        results.add(name, st, detail, row=row)


def add_selftest(results, sdir, tapfile):
    """one selftest program: NAME.tap and NAME.rc"""
    prog = tapfile[:-len('.tap')]
    text = open(os.path.join(sdir, tapfile), errors='replace').read()
    rc, rc_problem = tap.read_rc(os.path.join(sdir, prog + '.rc'))
    cases, program = tap.verdict(text, rc, rc_problem)
    row = 'selftest:' + prog
    for c in cases:
        results.add('%s:%s' % (row, c.name), c.status, c.reason, c.diag, row=row)
    if program:
        st, detail = program
        results.add(row, st, detail, tap.tail(text) if st == 'FAIL' else None, row=row)


def collect(rundir, ktree, kunit_suites=None, selftests=None):
    """a run directory -> Results.  KUNIT_SUITES: the suites the guest re-ran
    from a memcg (each must have its kunit/SUITE.ktap); SELFTESTS: the
    programs it ran (each must have its selftests/NAME.tap)."""
    results = Results()
    add_kunit(results, ktree, os.path.join(rundir, 'dmesg.txt'), 'kunit', 'dmesg.txt')
    kdir = os.path.join(rundir, 'kunit')
    files = sorted(f for f in os.listdir(kdir) if f.endswith('.ktap')) if os.path.isdir(kdir) else []
    for s in kunit_suites or []:
        if s + '.ktap' not in files:
            results.add('kunit-memcg:%s' % s, 'FAIL', 'no kunit/%s.ktap: the suite did not run '
                        'from the memcg' % s)
    for f in files:
        add_kunit(results, ktree, os.path.join(kdir, f), 'kunit-memcg', f)
    sdir = os.path.join(rundir, 'selftests')
    taps = sorted(f for f in os.listdir(sdir) if f.endswith('.tap')) if os.path.isdir(sdir) else []
    for prog in selftests or []:
        # OBJSTOCK_REPEAT=N writes NAME.1.tap ... NAME.N.tap
        if prog + '.tap' not in taps and not any(t.startswith(prog + '.') and
                                                 t[len(prog) + 1:-4].isdigit() for t in taps):
            results.add('selftest:%s' % prog, 'FAIL', 'did not run (no selftests/%s.tap)' % prog)
    for f in taps:
        add_selftest(results, sdir, f)
    return results


def add_extra(results, path):
    """'name PASS|FAIL|SKIP [detail]' lines; a missing or empty file fails"""
    tag = 'results:' + os.path.basename(path)
    try:
        lines = open(path, errors='replace').read().splitlines()
    except OSError as e:
        results.add(tag, 'FAIL', 'cannot read %s: %s' % (path, e.strerror))
        return
    n = 0
    for line in lines:
        parts = line.split(None, 2)
        if not parts:
            continue
        n += 1
        if len(parts) < 2:
            results.add(tag, 'FAIL', 'a line with no status: %r' % line[:80])
            continue
        results.add(parts[0], parts[1], parts[2] if len(parts) > 2 else '')
    if n == 0:
        results.add(tag, 'FAIL', '%s holds no results' % path)


def read_expected(path):
    """expected/base-*.txt -> OrderedDict name -> (STATUS, why)"""
    exp = OrderedDict()
    try:
        lines = open(path).read().splitlines()
    except OSError as e:
        raise Error('cannot read the expected results %s: %s' % (path, e.strerror))
    for line in lines:
        p = parse_line(line)
        if p:
            exp[p[0]] = (p[1], p[2])
    return exp


class Verdict:
    def __init__(self):
        self.rows = OrderedDict()    # table row -> [(name, verdict, detail, diag)]
        self.passed = self.failed = self.skipped = self.known = self.left_out = 0
        self.missing = []            # names that pass on base and did not run


def judge(results, expected, ran=None, debug=False):
    """RESULTS against EXPECTED; RAN: the selftest programs run (None: all)"""
    v = Verdict()
    for name, r in results.items():
        base, why = expected.get(name, (None, ''))
        verdict, detail = r.status, r.detail
        if r.status == 'FAIL' and base in ('FAIL', 'FLAKY'):
            verdict = 'KNOWN'
            v.known += 1
            detail = (base.lower() + ' on base: ' + why) if why else base.lower() + ' on base'
            if r.detail:
                detail += '; here: ' + r.detail
        elif r.status == 'SKIP' and base in ('PASS', 'FLAKY'):
            verdict = 'FAIL'
            detail = 'passes on base, skipped here' + (': ' + r.detail if r.detail else '')
        if verdict == 'PASS':
            v.passed += 1
        elif verdict == 'FAIL':
            v.failed += 1
        else:
            v.skipped += 1
        v.rows.setdefault(r.row, []).append((name, verdict, detail, r.diag))
    for name, (base, _) in expected.items():
        if base not in ('PASS', 'FLAKY') or name in results:
            continue
        parts = name.split(':')
        if ran is not None and parts[0] == 'selftest' and len(parts) > 1 and parts[1] not in ran:
            v.left_out += 1
            continue
        # the debug kernel's config changes which cases upstream suites have
        # (slub_test: SLUB_DEBUG-only cases); ours (kunit-memcg) must still run
        if debug and parts[0] == 'kunit':
            v.left_out += 1
            continue
        v.missing.append(name)
        v.failed += 1
    return v


def render(v, expected_name):
    """the table per suite, the failures with their last diagnostics, the
    final 'N passed, N failed, N skipped' line"""
    L = ['%-44s %5s %5s %5s %6s' % ('suite', 'pass', 'fail', 'skip', 'known')]
    for row, items in v.rows.items():
        c = {k: sum(1 for i in items if i[1] == k) for k in ('PASS', 'FAIL', 'SKIP', 'KNOWN')}
        L.append('%-44s %5d %5d %5d %6d' % (row[:44], c['PASS'], c['FAIL'], c['SKIP'], c['KNOWN']))
    for row, items in v.rows.items():
        for name, verdict, detail, diag in items:
            if verdict in ('FAIL', 'KNOWN'):
                L.append('  %-6s %s%s' % (verdict.lower(), name, '  (' + detail + ')' if detail else ''))
                if verdict == 'FAIL':
                    L.extend('         | %s' % d[:150] for d in diag[-8:])
    for name in v.missing:
        L.append('  fail   %s  (passes on base, did not run)' % name)
    if v.left_out:
        L.append('%d expected results not checked: selftests left out (SELFTESTS/SELFTESTS_SKIP) '
                 'or upstream KUnit cases the debug config does not have' % v.left_out)
    if v.known:
        L.append('%d known failures: they fail (or are flaky) on base 7.3 too (%s); counted as skipped'
                 % (v.known, expected_name))
    L.append('%d passed, %d failed, %d skipped' % (v.passed, v.failed, v.skipped))
    return L


def main(argv, env=None):
    """results.py RUNDIR KTREE EXPECTED [EXTRA_RESULTS...]"""
    env = os.environ if env is None else env
    if len(argv) < 3:
        raise Error('usage: results.py RUNDIR KTREE EXPECTED [EXTRA_RESULTS...]')
    rundir, ktree, expected_path = [os.path.abspath(a) for a in argv[:3]]
    if not os.path.isdir(rundir):
        raise Error('no run directory %s' % rundir)
    expected = read_expected(expected_path)
    ran = env.get('OBJSTOCK_SELFTESTS')
    ran = ran.split() if ran is not None else None
    suites = env.get('OBJSTOCK_KUNIT_SUITES', '').split()
    results = collect(rundir, ktree, suites, ran)
    for path in argv[3:]:
        add_extra(results, path)
    v = judge(results, expected, set(ran) if ran is not None else None,
              env.get('OBJSTOCK_DEBUG') == '1')
    with open(os.path.join(rundir, 'results.txt'), 'w') as out:
        for name, r in results.items():
            out.write('%s %s\n' % (name, r.status))
    print('\n'.join(render(v, os.path.basename(expected_path))))
    return 1 if v.failed else 0
