#!/usr/bin/env python3
"""expected-update RESULTS EXPECTED: update EXPECTED ('name STATUS  # why')
from a base run's RESULTS ('name STATUS'): only the lines of what that run
ran (OBJSTOCK_SELFTESTS: the selftest programs it ran; default: those with
results), keeping every other line, the comments, the order, the reasons,
and FLAKY marks.  The logic: objstock/expected.py."""
import os
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from objstock import Error, expected, run, write_atomic  # noqa: E402


def main(argv):
    if len(argv) != 2:
        raise Error('usage: expected-update.py RESULTS EXPECTED')
    results_path, expected_path = argv
    try:
        res = expected.read_results(open(results_path).read().splitlines())
    except OSError as e:
        raise Error('cannot read %s: %s' % (results_path, e.strerror))
    try:
        old = open(expected_path).read().splitlines()
    except FileNotFoundError:
        old = []
    except OSError as e:
        raise Error('cannot read %s: %s' % (expected_path, e.strerror))
    ran = os.environ.get('OBJSTOCK_SELFTESTS')
    lines, notes = expected.update(old, res, ran.split() if ran is not None else None)
    write_atomic(expected_path, ''.join(line + '\n' for line in lines))
    for n in notes:
        print('expected-update: ' + n, file=sys.stderr)
    print('expected-update: %s: %d changes' % (expected_path, len(notes)), file=sys.stderr)
    return 0


run(main)
