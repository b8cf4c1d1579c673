#!/usr/bin/env python3
"""hw-collect OUTDIR WORKLOADS: bench/hw/run's repetitions in OUTDIR
(LABEL-N/) -> OUTDIR/results.json, in the schema of collect.py with
meta.source "hardware".  The logic: objstock/hw.py."""
import os
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from objstock import hw, run  # noqa: E402

run(hw.main_collect)
