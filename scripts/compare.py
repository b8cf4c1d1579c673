#!/usr/bin/env python3
"""compare A/results.json B/results.json: do two runs of `make` agree?
Every cut of both, how far apart, whether the intervals hold the other's
cut (make compare RESULTS="a.json b.json").  The logic: objstock/compare.py."""
import os
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from objstock import compare, run  # noqa: E402

run(compare.main)
