#!/usr/bin/env python3
"""report RESULTS.json OUTDIR: the A/B report in the style of mmtests'
compare-kernels: OUTDIR/report.md, OUTDIR/tax.png (gnuplot), OUTDIR/tax*.dat.
The logic: objstock/report.py."""
import os
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from objstock import report, run  # noqa: E402

run(report.main)
