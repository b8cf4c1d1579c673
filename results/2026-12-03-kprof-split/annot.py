#!/usr/bin/env python3
# annot.py PROF VMLINUX SYSTEM.MAP FUNC NOBJ: per-TB instruction counts of FUNC per object
import sys, subprocess
prof_f, vml, smap, func, nobj = sys.argv[1], sys.argv[2], sys.argv[3], sys.argv[4], int(sys.argv[5])
syms = sorted((int(l.split()[0], 16), l.split()[2]) for l in open(smap) if len(l.split()) == 3 and l.split()[1] in 'tTwW')
lo = next(a for a, n in syms if n == func)
hi = next(a for a, n in syms if a > lo)
prof = {}
for l in open(prof_f):
    a, n = l.split(); prof[int(a, 16)] = int(float(n))
dis = subprocess.run(['objdump', '-d', '--no-show-raw-insn', f'--start-address={lo:#x}', f'--stop-address={hi:#x}', vml], capture_output=True, text=True).stdout
tot = sum(n for a, n in prof.items() if lo <= a < hi)
print(f"# {func}: {tot} instructions, {tot / nobj:.1f} per object ({nobj} objects)")
for l in dis.splitlines():
    try: a = int(l.split(':')[0].strip(), 16)
    except ValueError: continue
    n = prof.get(a)
    print((f"{n / nobj:7.1f} " if n else " " * 8) + l.split(':', 1)[1].strip()[:100])
