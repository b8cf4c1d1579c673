"""ktap: KUnit results through the kernel's own parser.

`kunit.py parse --json=OUT FILE` (tools/testing/kunit of the tree under test)
reads the KTAP in FILE (a console log or a debugfs results file) and writes
KernelCI JSON: nested groups (suites, parameterised cases) with test_cases
{name, status: PASS | SKIP | FAIL | ERROR} and misc counts, 'errors' being
what the parser found wrong (a missing plan, a missing or misnumbered result
line, no KTAP at all).  What it cannot see is lost from the JSON in three
ways, and each must fail the check here, not pass it:

- a case whose result line never came (the kernel crashed, the log ends):
  the parser adds a case with no name and status ERROR, one per missing case
  (or suite, at the top level); here 'SUITE:missing-N', FAIL;
- parser errors of a group (its result line missing, '0 tests run!',
  'Could not find any KTAP output'): only the count is in the JSON; here the
  group itself FAILs, with the messages kunit.py printed ('[ERROR] Test:
  NAME: message');
- a log with no test at all: FAIL.
"""
import json
import os
import re
import subprocess
import sys
import tempfile

ERROR_LINE = re.compile(r'\[ERROR\] Test: (.*?): (.*)$')


def kunit_py(ktree):
    return os.path.join(ktree, 'tools/testing/kunit/kunit.py')


def parse(ktree, path):
    """run kunit.py parse on PATH -> (JSON data or None, its output, problem or None)"""
    tool = kunit_py(ktree)
    if not os.path.isfile(tool):
        return None, '', 'no kunit.py at %s' % tool
    with tempfile.TemporaryDirectory() as d:
        out = os.path.join(d, 'kunit.json')
        # -B: write no __pycache__ into the tree under test
        p = subprocess.run([sys.executable, '-B', tool, 'parse', '--json=' + out,
                            os.path.abspath(path)], capture_output=True, text=True,
                           errors='replace')
        output = p.stdout + p.stderr
        try:
            with open(out) as f:
                return json.load(f), output, None
        except (OSError, ValueError):
            last = [ln for ln in output.splitlines() if ln.strip()][-1:] or ['no output']
            return None, output, 'kunit.py parse exited %d without JSON: %s' % (
                p.returncode, last[0].strip()[:160])


def error_messages(output):
    """kunit.py's '[ERROR] Test: NAME: message' lines -> {NAME: [message]}"""
    errs = {}
    for line in output.splitlines():
        m = ERROR_LINE.search(line)
        if m:
            errs.setdefault(m.group(1), []).append(m.group(2).strip())
    return errs


def _errors(group):
    return int(group.get('misc', {}).get('errors', 0) or 0)


def results(data, output, tag, source):
    """kunit.py's JSON (and its output, for the error messages) -> a list of
    (name, status, detail, group) where names are TAG:suite[:sub]:case and
    group is the table row a result belongs to.  SOURCE names the log in the
    results of the log as a whole ('TAG:SOURCE')."""
    errs = error_messages(output)
    out = []

    def walk(group, path, top):
        prefix = tag + ':' + ''.join(p + ':' for p in path)
        row = prefix[:-1]
        subs = group.get('sub_groups', []) or []
        missing = 0
        for case in group.get('test_cases', []) or []:
            name = (case.get('name') or '').strip()
            st = case.get('status')
            if not name:
                missing += 1
                what = 'suite' if top else 'case'
                out.append((prefix + 'missing-%d' % missing, 'FAIL',
                            'a %s with no result line: the log ends or breaks before it '
                            '(kernel crash?)' % what, row))
            elif st in ('PASS', 'SKIP'):
                out.append((prefix + name, st, '', row))
            elif st == 'ERROR':
                out.append((prefix + name, 'FAIL', 'crashed', row))
            else:
                out.append((prefix + name, 'FAIL', '' if st == 'FAIL' else 'status %s' % st, row))
        for sub in subs:
            walk(sub, path + [sub.get('name') or '?'], False)
        own = _errors(group) - sum(_errors(s) for s in subs)
        if own > 0:
            # kunit.py names the top level 'main' (or '<missing>': no KTAP)
            keys = ['main', '<missing>'] if top else [group.get('name', '')]
            keys += [c.get('name') for c in group.get('test_cases', []) or [] if c.get('name')]
            msgs = list(dict.fromkeys(m for k in keys for m in errs.get(k, [])))
            name = '%s:%s' % (tag, source) if top else row
            out.append((name, 'FAIL', 'kunit.py: ' + ('; '.join(msgs)[:300] if msgs else
                                                      '%d KTAP error%s' % (own, 's'[:own != 1])),
                        name))

    walk(data, [], True)
    if not out:
        whole = '%s:%s' % (tag, source)
        out.append((whole, 'FAIL', 'no KUnit test in the log', whole))
    return out
