"""tap: the TAP of a kselftest program -> its cases, and the verdict on the
program itself from its TAP and its exit status.

What kselftest prints (tools/testing/selftests/kselftest.h):

    TAP version 13                  ksft_print_header()
    1..N                            ksft_set_plan(N)
    ok N name                       a pass ('ok N name #  msg': a pass with a message)
    not ok N name                   a failure
    ok N # SKIP name                ksft_test_result_skip("%s\\n", name): the name after SKIP
    ok N # XFAIL name, # XPASS      expected failure, unexpected pass: both count as success
    not ok N # error msg            ksft_test_result_error()
    1..0 # SKIP reason              ksft_exit_skip() before any plan or case
    ok N # SKIP reason              ksft_exit_skip() after the plan: it skips the rest
    Bail out! msg                   ksft_exit_fail_msg()
    # ...                           diagnostics ('# Totals: ...' last)

and it exits 0 (every case passed or skipped, plan met), 1 (a failure, a
Bail out!, or the plan not met: ksft_finished()) or 4 (ksft_exit_skip(),
which prints a SKIP line last).  A shell test prints no TAP of its own and
tells by its exit status (0 pass, 4 skip, else fail).  A program whose
output holds several TAP streams (with_stress.sh runs test_core in a loop)
gets each stream checked against its own plan.

A program fails, whatever its cases say, when a plan is not met, it bailed
out, it died of a signal or was timed out, its exit status is missing, or
the exit status is one its TAP does not explain.
"""
import re
import signal

VERSION = re.compile(r'^K?TAP version \d+')
PLAN = re.compile(r'^1\.\.(\d+)\s*(?:#\s*(.*))?$')
RESULT = re.compile(r'^(ok|not ok)(?:\s+(\d+))?(?:\s+-)?(?:\s+([^#]*?))?\s*(?:#\s*(.*))?$')
BAIL = re.compile(r'^Bail out!\s*(.*)$')
DIRECTIVES = ('SKIP', 'TODO', 'XFAIL', 'XPASS', 'ERROR')
TIMEOUT_RC = 124        # timeout(1): the test ran out of time, SIGTERM
KILLED_RC = 137         # 128 + SIGKILL: timeout's -k, or the OOM killer
SIGMAX = 64             # a shell reports death by signal N as 128 + N


class Case:
    """one result line"""

    def __init__(self, ok, number, name, directive, reason, diag):
        self.ok, self.number, self.name = ok, number, name
        self.directive, self.reason, self.diag = directive, reason, diag

    @property
    def status(self):
        if self.directive == 'SKIP':
            return 'SKIP'
        return 'PASS' if self.ok else 'FAIL'

    def __repr__(self):
        return 'Case(%s %s %r %s)' % (self.status, self.number, self.name, self.directive)


class Stream:
    """one TAP document: a plan, its cases, a Bail out!"""

    def __init__(self):
        self.plan = None            # N of '1..N', None without a plan
        self.plan_skip = None       # the reason of '1..0 # SKIP reason'
        self.cases = []
        self.bail = None            # the text after 'Bail out!'

    def empty(self):
        return self.plan is None and not self.cases and self.bail is None


def clean_name(s):
    """a result name: no whitespace or '#', which results.txt and expected/ split on"""
    return re.sub(r'[\s#]+', '_', s.strip()).strip('_')


def parse_directive(text):
    """'SKIP name' -> ('SKIP', 'name'); 'msg' (no directive) -> ('', 'msg')"""
    text = (text or '').strip()
    word = text.split(None, 1)[0] if text else ''
    for d in DIRECTIVES:
        # TAP: directives are case-insensitive, 'skipped' is a SKIP
        if word.upper().startswith(d) and (d == 'SKIP' or word.upper() == d):
            return d, text[len(word):].strip()
    return '', text


def parse(text):
    """kselftest output -> [Stream]; lines indented or not TAP are output"""
    streams = [Stream()]
    diag = []
    for raw in text.splitlines():
        line = raw.rstrip()
        cur = streams[-1]
        if not line or line[0].isspace():
            continue
        if VERSION.match(line):
            if not cur.empty():
                streams.append(Stream())
            continue
        m = PLAN.match(line)
        if m:
            if cur.plan is not None:
                cur = Stream()
                streams.append(cur)
            cur.plan = int(m.group(1))
            d, reason = parse_directive(m.group(2))
            if d == 'SKIP':
                cur.plan_skip = reason or 'skipped'
            continue
        m = BAIL.match(line)
        if m:
            cur.bail = m.group(1).strip()
            continue
        m = RESULT.match(line)
        if m:
            d, reason = parse_directive(m.group(4))
            number = int(m.group(2)) if m.group(2) else None
            desc = (m.group(3) or '').strip()
            # the name: the description, else (kselftest's SKIP) the text
            # after the directive, else the number
            name = clean_name(desc) or (clean_name(reason) if d else '') or \
                str(number if number is not None else len(cur.cases) + 1)
            cur.cases.append(Case(m.group(1) == 'ok', number, name, d,
                                  reason if d else '', diag[-8:]))
            diag = []
            continue
        if line.startswith('#'):
            if not line.startswith('# Totals'):
                diag.append(line)
    return [s for s in streams if not s.empty()] or [Stream()]


def signal_name(n):
    try:
        return signal.Signals(n).name
    except ValueError:
        return 'signal %d' % n


def read_rc(path):
    """NAME.rc -> (exit status or None, the problem or None)"""
    try:
        text = open(path).read().strip()
    except FileNotFoundError:
        return None, 'no exit status (%s missing)' % path.rsplit('/', 1)[-1]
    except OSError as e:
        return None, 'exit status unreadable (%s)' % e.strerror
    if not re.fullmatch(r'\d+', text):
        return None, 'exit status %r in %s is not a number' % (text[:20], path.rsplit('/', 1)[-1])
    return int(text), None


def exit_problem(rc, streams):
    """why exit status RC is a failure its TAP does not already explain, or None"""
    cases = [c for s in streams for c in s.cases]
    failed = any(c.status == 'FAIL' for c in cases)
    bailed = any(s.bail is not None for s in streams)
    unmet = any(s.plan is not None and s.plan != len(s.cases) for s in streams)
    if rc == TIMEOUT_RC:
        return 'timed out (exit %d)' % rc
    if rc == KILLED_RC:
        return 'timed out or killed (exit %d, SIGKILL)' % rc
    if 128 < rc <= 128 + SIGMAX:
        return 'exit %d (%s)' % (rc, signal_name(rc - 128))
    if rc == 0:
        return None
    if rc == 1:
        # ksft_finished() and ksft_exit_fail_msg() exit 1 on a failure, a
        # plan not met, a Bail out!; a shell test says no more than that
        if failed or bailed or unmet or not cases:
            return None
        return 'exit 1 but no case failed'
    if rc == 4:
        # ksft_exit_skip() prints a SKIP line last ('1..0 # SKIP' or 'ok N # SKIP')
        if not cases or cases[-1].status == 'SKIP':
            return None
        return 'exit 4 (skip) but the last case did not skip'
    return 'exit %d' % rc


def verdict(text, rc, rc_problem=None):
    """a program's output and exit status -> (cases, program) where cases is
    [Case] and program is None (its cases say it all) or (STATUS, detail)
    for the program itself: FAIL with the reasons, or, for a program with
    no cases (a shell test, '1..0 # SKIP'), its PASS/SKIP/FAIL"""
    streams = parse(text)
    cases = [c for s in streams for c in s.cases]
    problems = []
    for s in streams:
        if s.bail is not None:
            problems.append(('Bail out! ' + s.bail).strip())
        if s.cases and s.plan is None:
            problems.append('%d result%s without a plan' % (len(s.cases), 's'[:len(s.cases) != 1]))
        elif s.plan is not None and s.plan != len(s.cases):
            problems.append('plan 1..%d but %d result%s' % (s.plan, len(s.cases),
                                                          's'[:len(s.cases) != 1]))
    if rc_problem:
        problems.append(rc_problem)
    elif rc is not None:
        p = exit_problem(rc, streams)
        if p:
            problems.append(p)
    problems = list(dict.fromkeys(problems))        # one of each, in order
    if problems:
        return cases, ('FAIL', ', '.join(problems))
    if cases:
        return cases, None
    if rc == 0:
        return cases, ('PASS', 'exit 0')
    if rc == 4:
        skip = next((s.plan_skip for s in streams if s.plan_skip), None)
        return cases, ('SKIP', skip or 'exit 4')
    return cases, ('FAIL', 'exit %d' % rc)


def tail(text, n=8):
    """the last N lines of output that are not results: what it said last"""
    lines = [ln.rstrip() for ln in text.splitlines() if ln.strip()]
    lines = [ln for ln in lines if not (RESULT.match(ln) or VERSION.match(ln) or PLAN.match(ln) or
                                        ln.startswith('# Totals'))]
    return lines[-n:]
