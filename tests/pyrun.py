#!/usr/bin/env python3
"""pyrun DIR: run DIR/test_*.py with unittest; print one
'harness:py.<module>.<test> PASS|FAIL|SKIP detail' line per test case."""
import os
import sys
import unittest


class Lines(unittest.TextTestResult):
    def _line(self, test, status, detail=''):
        detail = detail.strip().splitlines()[-1] if detail.strip() else ''
        name = 'py.%s.%s' % (test.__class__.__module__, test._testMethodName)
        print('harness:%s %s %s' % (name, status, detail[:200]), flush=True)

    def addSuccess(self, test):
        super().addSuccess(test)
        self._line(test, 'PASS')

    def addFailure(self, test, err):
        super().addFailure(test, err)
        self._line(test, 'FAIL', self._exc_info_to_string(err, test))

    def addError(self, test, err):
        super().addError(test, err)
        self._line(test, 'FAIL', self._exc_info_to_string(err, test))

    def addSkip(self, test, reason):
        super().addSkip(test, reason)
        self._line(test, 'SKIP', reason)


def main():
    d = os.path.abspath(sys.argv[1] if len(sys.argv) > 1 else os.path.dirname(__file__))
    sys.path.insert(0, os.path.join(d, '..', 'scripts'))
    suite = unittest.defaultTestLoader.discover(d, pattern='test_*.py', top_level_dir=d)
    r = unittest.TextTestRunner(stream=open(os.devnull, 'w'), resultclass=Lines).run(suite)
    sys.exit(0 if r.wasSuccessful() else 1)


main()
