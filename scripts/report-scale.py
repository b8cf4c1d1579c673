#!/usr/bin/env python3
"""report-scale: the scaling matrix of `make scale` (RESULTS.json OUTDIR -> OUTDIR/report.md, scale.png).
The logic: objstock/scale.py."""
import os
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from objstock import run, scale  # noqa: E402

run(scale.main_report)
