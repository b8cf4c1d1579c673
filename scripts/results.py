#!/usr/bin/env python3
"""results: turn one guest run of `make check` into a verdict.

    results.py RUNDIR KTREE EXPECTED [EXTRA_RESULTS...]

Reads RUNDIR/dmesg.txt (boot-time KUnit KTAP) and RUNDIR/kunit/*.ktap (suites
re-run from a child memcg), both parsed by the kernel's own
tools/testing/kunit/kunit.py parse; RUNDIR/selftests/NAME.tap and NAME.rc
(kselftest TAP and exit status); and EXTRA_RESULTS files of 'name
PASS|FAIL|SKIP [detail]' lines (checkpatch, harness tests).  EXPECTED lists
what the *base* kernel does: 'name PASS|FAIL|SKIP|FLAKY  # why'.  A test fails
the check when it fails (or, having passed on base, skips or does not run)
here, unless EXPECTED says it fails on base too; a selftest program fails
when its plan is not met, it bails out, dies of a signal, times out, or exits
with a status its TAP does not explain.
Environment: OBJSTOCK_SELFTESTS (the programs run: others are left out, each
must have its .tap), OBJSTOCK_KUNIT_SUITES (suites re-run from a memcg: each
must have its .ktap), OBJSTOCK_DEBUG=1 (the debug kernel).
Writes RUNDIR/results.txt ('name STATUS') and prints a table per suite and the
final line 'N passed, N failed, N skipped'.  The logic: objstock/verdict.py.
"""
import os
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from objstock import run, verdict  # noqa: E402

run(verdict.main)
