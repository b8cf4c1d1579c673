#!/usr/bin/env python3
"""split.py KERNEL_DIR SYSTEM.MAP: memcg - root guest kernel instructions per
object, by function, for the measured windows of guest.sh (kprof prof.N.gz files,
N in window order; the hackbench windows came out empty and are not kept)."""
import sys, bisect, collections, os, gzip
d, smap = sys.argv[1], sys.argv[2]
syms = sorted((int(l.split()[0], 16), l.split()[2]) for l in open(smap)
              if len(l.split()) == 3 and l.split()[1] in 'tTwW')
addrs = [a for a, _ in syms]
def load(n):
    c = collections.Counter()
    for l in gzip.open(os.path.join(d, f"prof.{n}.gz"), "rt"):
        a, k = l.split()
        i = bisect.bisect_right(addrs, int(a, 16)) - 1
        c[syms[i][1]] += float(k)
    return c
files = sorted(int(f.split('.')[1]) for f in os.listdir(d) if f.startswith('prof.'))
wins = [l.split(None, 2) for l in open(os.path.join(d, 'windows.txt'))]
wins = wins[len(wins) - len(files):]          # the empty windows are the first ones
objs = {'pipe': 64000, 'xattr': 8000, 'slab': 32768}  # ops: pipe = one F_SETPIPE_SZ (one kmalloc + kfree), xattr = set + remove, slab = one object
for i in range(0, len(files), 4):             # warm root, warm memcg, root, memcg
    w = wins[i + 2][2].strip()
    r, m = load(files[i + 2]), load(files[i + 3])
    nobj = next(v for k, v in objs.items() if k in w)
    tot = sum(m.values()) - sum(r.values())
    print(f'== {w}: memcg - root {tot / nobj:.1f} per op ({nobj} ops)')
    diff = {f: m[f] - r[f] for f in set(m) | set(r)}
    for f, v in sorted(diff.items(), key=lambda x: -abs(x[1]))[:6]:
        print(f'   {v / nobj:+8.1f}  {f}')
