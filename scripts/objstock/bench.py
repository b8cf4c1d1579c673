"""bench: the results.json of `make` (scripts/collect.py writes it) and the
cells of the tables made from it.

    {"meta": {"repetitions": "3", "cpus": "2", "icount": ..., ...},
     "workloads": {NAME: {"ops": N, "args": "...", "quick": bool}},
     "samples": [{"kernel": "base"|"patched"|"nokmem", "rep": N, "workload": NAME,
                  "cgroup": "root"|"memcg", "kernel_insns_per_op": X,
                  "ns_per_op": X, ...}],
     "events": [{"kernel", "workload", "cgroup", "per_1000_ops": {probe: X}}],
     "traffic": [{"kernel", "workload", "cgroup", "kernel_insns_per_op",
                  "loads_per_op", ..., "cost_per_op"}]}   (TRAFFIC=1 runs)

Real hardware (bench/hw/run, objstock/hw.py): meta.source is "hardware" (and
meta has hostname, cpu_model, nproc, kernel_release_K, uname_K per kernel K);
a sample's ns_per_op is the machine's wall time, its kernel_insns_per_op and
cycles_per_op churn -e's perf counts, null where perf had no counters.
"""
import json
import numbers

from . import Error
from .stats import natural

# the A/B pair, and the floor: the patched kernel booted with
# cgroup.memory=nokmem (no kmem accounting), in runs with FLOOR=1
AB = ('base', 'patched')
KERNELS = AB + ('nokmem',)
# what the traffic pass (kinsn cache=on) counts per op, kernel accesses only
TRAFFIC = ('loads', 'stores', 'l1d_miss', 'llc_miss', 'xfer', 'cost')
CGROUPS = ('root', 'memcg')


def load(path):
    """read and validate a results.json; bad input raises Error (one line)"""
    try:
        with open(path) as f:
            res = json.load(f)
    except OSError as e:
        raise Error('cannot read %s: %s' % (path, e.strerror))
    except json.JSONDecodeError as e:
        raise Error('%s is not valid JSON (line %d column %d: %s)' % (path, e.lineno, e.colno, e.msg))
    except ValueError as e:
        raise Error('%s is not valid JSON (%s)' % (path, e))
    validate(res, path)
    return res


def _number(v):
    return isinstance(v, numbers.Real) and not isinstance(v, bool)


def validate(res, source='results.json', meta=()):
    """the fields the report and the cover letter read, with their types;
    META: keys meta must have"""
    def bad(what):
        raise Error('%s: %s' % (source, what))
    if not isinstance(res, dict):
        bad('not a JSON object')
    for key, typ, tname in (('meta', dict, 'an object'), ('workloads', dict, 'an object'),
                            ('samples', list, 'a list')):
        if key not in res:
            bad('no "%s"' % key)
        if not isinstance(res[key], typ):
            bad('"%s" is not %s' % (key, tname))
    for k in meta:
        if k not in res['meta']:
            bad('no "meta.%s"' % k)
    for name, w in res['workloads'].items():
        if not isinstance(w, dict) or not isinstance(w.get('ops'), int) or \
                isinstance(w.get('ops'), bool) or w['ops'] <= 0:
            bad('workload %s: "ops" is not a positive integer' % name)
        if not isinstance(w.get('args', ''), str):
            bad('workload %s: "args" is not a string' % name)
    if not res['samples']:
        bad('no samples')
    # real hardware (bench/hw/run): the counts are churn -e's perf counters,
    # null on a machine without them
    counted = _number if res['meta'].get('source') != 'hardware' else lambda v: v is None or _number(v)
    for i, s in enumerate(res['samples']):
        where = 'sample %d' % i
        if not isinstance(s, dict):
            bad(where + ' is not an object')
        for key, ok, want in (
                ('kernel', lambda v: v in KERNELS, '"base", "patched" or "nokmem"'),
                ('rep', lambda v: isinstance(v, int) and not isinstance(v, bool), 'an integer'),
                ('workload', lambda v: isinstance(v, str) and v in res['workloads'],
                 'a workload of "workloads"'),
                ('cgroup', lambda v: v in CGROUPS, '"root" or "memcg"'),
                ('kernel_insns_per_op', counted, 'a number'),
                ('ns_per_op', _number, 'a number')):
            if key not in s:
                bad('%s has no "%s"' % (where, key))
            if not ok(s[key]):
                bad('%s: "%s" is %s, not %s' % (where, key, json.dumps(s[key])[:40], want))
    for i, t in enumerate(res.get('traffic') or []):
        if not isinstance(t, dict) or t.get('kernel') not in AB or t.get('cgroup') not in CGROUPS \
                or t.get('workload') not in res['workloads'] \
                or not all(_number(t.get(k + '_per_op')) for k in TRAFFIC):
            bad('traffic %d lacks kernel, workload, cgroup or a number of %s'
                % (i, ', '.join(k + '_per_op' for k in TRAFFIC)))
    for i, e in enumerate(res.get('events') or []):
        if not isinstance(e, dict) or not isinstance(e.get('per_1000_ops'), dict) or \
                any(k not in e for k in ('kernel', 'workload', 'cgroup')):
            bad('event %d lacks kernel, workload, cgroup or per_1000_ops' % i)
    return res


def workloads(res):
    """the workloads with samples, in table order"""
    have = {s['workload'] for s in res['samples']}
    return sorted((w for w in res['workloads'] if w in have), key=natural)


def cell(res, kernel, wl, cg, key):
    return [s[key] for s in res['samples']
            if s['kernel'] == kernel and s['workload'] == wl and s['cgroup'] == cg]


def by_rep(res, kernel, wl, cg, key='kernel_insns_per_op'):
    return {s['rep']: s[key] for s in res['samples']
            if s['kernel'] == kernel and s['workload'] == wl and s['cgroup'] == cg}


def taxes(res, kernel, wl):
    """memcg minus root per repetition: both ran in the same boot"""
    r, m = by_rep(res, kernel, wl, 'root'), by_rep(res, kernel, wl, 'memcg')
    return [m[k] - r[k] for k in sorted(r) if k in m]
