"""bench/workloads and bench/scale: every row parses, names a churn mode,
and a single-process loop's ITERS is a multiple of the default PHASES (16),
which churn -p needs (a row that is not fails its guest after the kernels
are built: uring-256 did, with 40 rings)."""
import os
import re
import unittest

TOP = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
MODES = {'pipe', 'xattr', 'mmap', 'mmap2', 'run', 'slab', 'uring', 'dying'}
PHASES = 16


def rows(path, ncols):
    out = []
    for line in open(path):
        f = line.split()
        if line.startswith('#') or not f:
            continue
        out.append((f[0], f[1:ncols], f[ncols:]))
    return out


def after_options(args):
    """churn's arguments after its options (-c, -p, -g and -w take a value)"""
    while args and args[0].startswith('-'):
        args = args[2:] if args[0] in ('-c', '-p', '-g', '-w') else args[1:]
    return args


def loop_iters(args):
    """ITERS of a loop mode's arguments (after churn options), else None"""
    args = after_options(args)
    mode, a = args[0], args[1:]
    return {'pipe': lambda: a[1], 'xattr': lambda: a[1], 'mmap': lambda: a[0],
            'mmap2': lambda: a[0], 'slab': lambda: a[2], 'uring': lambda: a[1]}.get(mode, lambda: None)()


def xattr_burst(args):
    """BURST of an xattr row (churn xattr BYTES ITERS DIR BURST), else None"""
    args = after_options(args)
    return args[4] if args[0] == 'xattr' and len(args) > 4 else None


class Workloads(unittest.TestCase):
    def check(self, path, ncols, phases_apply):
        names = set()
        for name, cols, args in rows(path, ncols):
            self.assertNotIn(name, names, '%s: %s twice' % (path, name))
            names.add(name)
            self.assertTrue(args, '%s: %s has no churn arguments' % (path, name))
            # QUICK (bench/workloads' first column) may be x: only when named
            self.assertTrue(all(c.isdigit() or (i == 0 and ncols == 3 and c == 'x')
                                for i, c in enumerate(cols)), '%s: %s: %s' % (path, name, cols))
            mode = after_options(args)[0]
            self.assertIn(mode, MODES, '%s: %s: unknown churn mode %s' % (path, name, mode))
            it = loop_iters(args)
            if phases_apply and it is not None:
                self.assertEqual(int(it) % PHASES, 0, '%s: %s: ITERS %s is not a multiple of %d'
                                 % (path, name, it, PHASES))
            burst = xattr_burst(args)
            if burst is not None:
                parts = PHASES if phases_apply else 1
                self.assertEqual(int(it) // parts % int(burst), 0, '%s: %s: BURST %s does not divide '
                                 'ITERS / PHASES = %d' % (path, name, burst, int(it) // parts))
        return names

    def test_bench_workloads(self):
        names = self.check(os.path.join(TOP, 'bench', 'workloads'), 3, True)
        self.assertIn('uring-256', names)
        self.assertIn('tcp-4k', names)
        # the traffic pass's default rows (scripts/bench.sh) exist; the
        # unpinned hackbench among them runs only when named
        bench = open(os.path.join(TOP, 'scripts', 'bench.sh')).read()
        traffic = re.search(r'TRAFFIC_WORKLOADS:-([^}]*)}', bench).group(1).split()
        self.assertTrue(set(traffic) <= names, traffic)
        quick = {n: c[0] for n, c, _ in rows(os.path.join(TOP, 'bench', 'workloads'), 3)}
        self.assertEqual(quick['hackbench-proc-s100'], 'x')
        self.assertEqual(quick['hackbench-pin-proc-s100'], '1')
        self.assertEqual(quick['hackbench-thread-s100'], 'x')
        self.assertEqual(quick['hackbench-pin-thread-s100'], '0')
        # the TCP control runs when named (its cut was never measured)
        self.assertEqual(quick['tcp-4k'], 'x')

    def test_scale_workloads(self):
        names = self.check(os.path.join(TOP, 'bench', 'scale'), 2, False)
        self.assertEqual(names, {'hackbench-s100', 'pipe-64', 'slab-single-64', 'stress-switch-mq', 'mmap2',
                                 'slab-dying-64'})

    def test_catches_a_bad_row(self):
        self.assertEqual(loop_iters(['uring', '256', '40']), '40')
        self.assertEqual(loop_iters(['-y', 'slab', '1', '64', '4096', 'single']), '4096')
        self.assertIsNone(loop_iters(['run', '--', 'hackbench']))
        self.assertEqual(xattr_burst(['xattr', '8000', '10000', '/run/t', '625']), '625')
        self.assertIsNone(xattr_burst(['xattr', '64', '10000', '/run/t']))


class Executables(unittest.TestCase):
    """the scripts the Makefile, the harness and the guests run directly are
    executable (guest/scale.sh was not: its first guest exited 126)"""
    def test_scripts_executable(self):
        import glob
        paths = (glob.glob(os.path.join(TOP, 'guest', '*.sh')) + glob.glob(os.path.join(TOP, 'scripts', '*.sh')) +
                 glob.glob(os.path.join(TOP, 'scripts', '*.py')) + glob.glob(os.path.join(TOP, 'bench', 'bin', '*')) +
                 [os.path.join(TOP, 'bench', 'hw', 'run'), os.path.join(TOP, 'tests', 'run'), os.path.join(TOP, '.ci', 'run')])
        bad = [os.path.relpath(p, TOP) for p in paths
               if open(p, 'rb').read(2) == b'#!' and not os.access(p, os.X_OK)]
        self.assertEqual(bad, [])
