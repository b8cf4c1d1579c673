#!/usr/bin/env python3
"""split.py DIR SYSTEM.MAP: memcg - root guest kernel instructions per message, by
function, for the hackbench windows of guest.sh (prof.3/4 processes, prof.7/8 threads;
80000 messages per window: -g 4 -f 10 -l 200)."""
import sys, bisect, collections, gzip, os
d, smap = sys.argv[1], sys.argv[2]
syms = sorted((int(l.split()[0], 16), l.split()[2]) for l in open(smap)
              if len(l.split()) == 3 and l.split()[1] in 'tTwW')
addrs = [a for a, _ in syms]
def load(n):
    c = collections.Counter()
    for l in gzip.open(os.path.join(d, f'prof.{n}.gz'), 'rt'):
        a, k = l.split()
        c[syms[bisect.bisect_right(addrs, int(a, 16)) - 1][1]] += float(k)
    return c
N = 80000
for name, (r, m) in {'processes': (3, 4), 'threads': (7, 8)}.items():
    R, M = load(r), load(m)
    tot = sum(M.values()) - sum(R.values())
    print(f'== hackbench -s 100 pinned {name}: root {sum(R.values()) / N:.0f}, '
          f'memcg {sum(M.values()) / N:.0f}, memcg - root {tot / N:.1f} per message')
    diff = {f: M[f] - R[f] for f in set(M) | set(R)}
    for f, v in sorted(diff.items(), key=lambda x: -abs(x[1]))[:14]:
        print(f'   {v / N:+8.1f}  {f}')
