#!/usr/bin/env python3
"""cover-numbers RESULTS.json COVER: regenerate the numbers section of a
cover letter from the A/B results of `make`.

The section is everything between a line starting with '[numbers:' and a
line '[end of numbers]'; both lines are kept (the first is rewritten to name
the results), everything between them is replaced.  A results.json that is
not valid JSON, lacks a field the table needs, or has a workload without
base and patched samples in root and memcg, and a COVER without the section,
are one 'objstock: error:' line; COVER is then left as it was (it is only
replaced, by a rename, once the new one is complete).
The logic: objstock/cover.py."""
import os
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from objstock import cover, run  # noqa: E402

run(cover.main)
