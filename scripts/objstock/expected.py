"""expected: expected/base-*.txt, what the base kernel does in the check guest.

    # comments (the header: what the guest is, what FLAKY means)
    name                                                         STATUS  # why

STATUS is PASS, FAIL, SKIP or FLAKY (passes and fails on the same kernel: a
person's judgement from repeated runs, which one more run cannot overturn).

update() rewrites it from a base run's results.txt ('name STATUS'), changing
only what that run ran: the lines of the selftest programs it ran (SELFTESTS
may name a subset) and of the KUnit logs it has results from.  Every other
line, comment and blank line stays as it is, in its place; a line whose
status did not change stays byte for byte; a FLAKY line stays FLAKY with its
reason; a new result goes after the last line of its suite.
"""
from . import Error

STATUSES = ('PASS', 'FAIL', 'SKIP', 'FLAKY')
# results of the check that are not the base kernel's
NOT_BASE = ('checkpatch:', 'harness:', 'debug:', 'results:')


def parse_line(line):
    """'name STATUS  # why' -> (name, STATUS, why); None for a comment or blank"""
    if line.lstrip().startswith('#'):
        return None
    body, _, why = line.partition('#')
    f = body.split()
    if len(f) < 2:
        return None
    return f[0], f[1], why.strip()


def fmt(name, status, why):
    return '%-60s %s%s' % (name, status, '  # ' + why if why else '')


def scope(name):
    """what must have run for a base run to speak for NAME: its selftest
    program, or its kind of KUnit log"""
    parts = name.split(':')
    if parts[0] == 'selftest' and len(parts) > 1:
        return 'selftest:' + parts[1]
    return parts[0]


def row(name):
    parts = name.split(':')
    if parts[0] == 'selftest':
        return ':'.join(parts[:2])
    return ':'.join(parts[:-1]) or name


def read_results(lines):
    """results.txt lines -> OrderedDict name -> STATUS (the base kernel's only)"""
    res = {}
    for line in lines:
        f = line.split()
        if len(f) < 2 or f[0].startswith(NOT_BASE):
            continue
        if f[1] not in ('PASS', 'FAIL', 'SKIP'):
            raise Error('results line with status %r: %s' % (f[1], line.strip()[:100]))
        res[f[0]] = f[1]
    return res


def update(old_lines, results, ran=None):
    """OLD_LINES (the expected file, without newlines) and RESULTS (name ->
    STATUS, in run order) -> (new lines, notes).  RAN: the selftest programs
    the run ran; None: those it has results for."""
    if not results:
        raise Error('the base run has no results')
    scopes = {scope(n) for n in results}
    if ran is not None:
        scopes |= {'selftest:' + p for p in ran}
    out = []        # [name or None, text]
    notes = []
    seen = set()
    for line in old_lines:
        p = parse_line(line)
        if p is None:
            out.append([None, line])
            continue
        name, old, why = p
        seen.add(name)
        if scope(name) not in scopes:
            out.append([name, line])            # not run this time: as it was
            continue
        new = results.get(name)
        if new is None:
            notes.append('%s: %s in %s, not in this run: kept' % (name, old, 'expected'))
            out.append([name, line])
        elif old == 'FLAKY':
            if new == 'SKIP':
                notes.append('%s: FLAKY, skipped in this run: kept FLAKY' % name)
            out.append([name, line])
        elif new == old:
            out.append([name, line])
        else:
            if new != 'PASS' and not why:
                why = 'TODO: explain'
            notes.append('%s: %s -> %s' % (name, old, new))
            out.append([name, fmt(name, new, why)])
    for name, st in results.items():
        if name in seen:
            continue
        # after the last line of its suite, else of its program or log, else at the end
        at = len(out)
        for key in (row, scope):
            idx = [i for i, (n, _) in enumerate(out) if n is not None and key(n) == key(name)]
            if idx:
                at = idx[-1] + 1
                break
        out.insert(at, [name, fmt(name, st, 'TODO: explain' if st != 'PASS' else '')])
        notes.append('%s: new, %s' % (name, st))
    return [t for _, t in out], notes
