#!/usr/bin/env python3
"""expected-update RESULTS EXPECTED: rewrite EXPECTED ('name STATUS  # why')
from a base run's RESULTS ('name STATUS'), keeping the reasons already there."""
import os
import sys

results, expected = sys.argv[1:3]
why = {}
header = []
if os.path.exists(expected):
    for line in open(expected):
        if line.startswith('#'):
            header.append(line)
            continue
        body, _, reason = line.partition('#')
        if body.split():
            why[body.split()[0]] = reason.strip()
with open(expected, 'w') as out:
    out.writelines(header)
    for line in open(results):
        parts = line.split()
        if len(parts) < 2 or parts[0].startswith(('checkpatch:', 'harness:')):
            continue
        reason = why.get(parts[0], '')
        if parts[1] != 'PASS' and not reason:
            reason = 'TODO: explain'
        out.write('%-60s %s%s\n' % (parts[0], parts[1], '  # ' + reason if reason else ''))
