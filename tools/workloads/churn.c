/*
 * churn: small guest workloads for the objstock benchmark, one static binary.
 *
 *   churn [-c CGROUP_DIR] [-p PHASES] pipe NPAGES ITERS     F_SETPIPE_SZ NPAGES pages <-> 1 page
 *   churn [-c CGROUP_DIR] xattr BYTES ITERS [DIR [BURST]]  setxattr+removexattr on a
 *                                 file in DIR (default /tmp; warns if DIR is not a tmpfs:
 *                                 under virtme-ng /tmp is an overlay, use a tmpfs mount).
 *                                 BURST > 1: BURST files, set on each, remove on each,
 *                                 then wait for RCU (the barrier file of -s), so that
 *                                 every burst's values are freed together (see below)
 *   churn [-c CGROUP_DIR] [-w WARM_DIR] mmap ITERS  mmap+munmap 128 MiB anonymous
 *                                 (will-it-scale's mmap1)
 *   churn [-c CGROUP_DIR] mmap2 ITERS DIR       mmap+munmap 128 MiB of an unlinked file in
 *                                 DIR, MAP_PRIVATE, nothing touched (will-it-scale's mmap2)
 *   churn [-c CGROUP_DIR] [-n] run -- CMD [ARGS...]  fork+exec CMD and wait for it
 *   churn [-c CGROUP_DIR] uring DEPTH ITERS  io_uring_queue_init(DEPTH), DEPTH NOPs in
 *                                 one submit, reap, io_uring_queue_exit; iters= reports
 *                                 DEPTH * ITERS.  The requests (io_kiocb, a SLAB_ACCOUNT
 *                                 cache) come from kmem_cache_alloc_bulk(), 8 at a time,
 *                                 whenever the ring's free list is empty: a new ring's
 *                                 always is, so every 8 NOPs take one bulk refill; a
 *                                 ring kept across iterations would recycle them
 *   churn [-c CGROUP_DIR] slab N SIZE ITERS [single]  in-kernel slab microbenchmark:
 *                                 one write to /sys/kernel/debug/objstock_slab_bench
 *                                 (bench/kernel/objstock_bench.c, in both bench kernels)
 *                                 runs ITERS bulk alloc+free of N objects of SIZE bytes
 *                                 from a SLAB_ACCOUNT cache (single: N kmem_cache_alloc()
 *                                 then N kmem_cache_free()); iters= reports N * ITERS
 *
 * -c CGROUP_DIR: first move this process into CGROUP_DIR (writes its pid to
 * CGROUP_DIR/cgroup.procs); absent or empty: stay in the current cgroup.
 *
 * -w WARM_DIR: warm up in cgroup WARM_DIR, then move to -c's cgroup (without
 * -c: the one churn started in, /sys/fs/cgroup and /proc/self/cgroup's
 * "0::" path) before the window opens.  What it is for: the root cgroup's
 * windows of the mmap row were bimodal (kprof, patched kernel: 13520-13550
 * or 13600-13620 kernel instructions per op).  Root's loop recycles one
 * vm_area_struct from the top of CPU 0's sheaf, and whether that object's
 * slab had an obj_exts vector (which only a memcg allocation creates)
 * decided whether each munmap ran the memcg free hook, 53 instructions per
 * op; most windows of a boot kept one state, so root's cost, and with it
 * the memcg tax, took a level per boot.  Warmed up in a memcg, the object
 * root recycles was charged once and its slab has the vector: every root
 * window runs the free hook, as root does on a host where memcgs allocate
 * from the same caches (guest/bench.sh runs memcg before root for the same
 * reason).  Only for modes whose warm-up frees what it allocated: a pipe
 * keeps its last buffer array, which the window would then free, uncharging
 * WARM_DIR's memcg inside root's window.
 *
 * -n: run mode only: no warm-up run, the window opens at once.  For a
 * window that follows a run of the same command in the same boot (the
 * bench's repeated windows, root's after the memcg's; the kprobe pass,
 * after the counting pass ran every workload): page cache and dentries are
 * warm, and hackbench's warm-up run was as long as its window (the -s
 * 100000 row: a third of a bench boot).  Not quite the same state: root's
 * window then allocates what the memcg's window freed, and reads about 30
 * instructions per message more (pinned hackbench -s 100, both kernels;
 * results/2026-12-03-hour).
 *
 * -p PHASES (default 1; ITERS must be a multiple): run the measured loop in
 * PHASES equal parts, part k with k * PAGE_SIZE / PHASES bytes held charged
 * to the memcg by the bench kernel's /sys/kernel/debug/objstock_phase
 * (bench/kernel/objstock_bench.c; the slab mode passes PHASES to the kernel
 * loop instead).  A CPU's obj stock keeps the memcg's charged-but-unused
 * bytes, and whether a charge/free cycle charges and uncharges a page every
 * op depends on that count modulo PAGE_SIZE, which charge/free cycles that
 * add up to zero never change: one window measured one phase, set by
 * whatever the boot allocated before, and 7.3's memcg cells jumped between
 * levels from boot to boot (pipe-16: 2306, 2693 or 3067 instructions per
 * op).  The parts average over evenly spaced phases.  The 2 * PHASES writes
 * fall inside the window (a few thousand instructions each, in both cgroups).
 *
 * -s: settle RCU at both ends of the window: write the bench kernel's
 * /sys/kernel/debug/objstock_rcu_barrier (kvfree_rcu_barrier() and
 * rcu_barrier()) right before opening the window and right before closing
 * it, so that the frees RCU defers (tmpfs xattrs, maple nodes, a task's
 * exit) fall in the window of the objects they free, not in the next one.
 *
 * Why xattr bursts: tmpfs frees a removed xattr's value with call_rcu(), so
 * a set/remove loop allocates one value per op and frees them in whatever
 * batches the grace periods return.  When a value is as large as a good part
 * of the obj stock (6000 and 8000 bytes: kmalloc-8k against a 16 KiB stock),
 * the charge cost depends on those batch sizes, which vary from boot to boot:
 * two runs of the same kernels put xattr-8000's cut 4.8 points apart, and one
 * long window was no steadier (results/2026-12-02-xattr-long).  With BURST,
 * the loop allocates BURST values, queues their BURST frees and waits for
 * them: the same runs of charges and uncharges in every window and boot.
 * ITERS / PHASES must be a multiple of BURST (a phase part is whole bursts).
 *
 * -d: drain every CPU's memcg and obj stocks (the bench kernel's
 * /sys/kernel/debug/objstock_drain) right before opening the window, after
 * -s's barrier.  Besides the bytes (which -p's phases then set), a stock
 * caches slab stat bytes, flushed when they pass a threshold, and a page
 * stock: a charge/free cycle that adds up to zero keeps whatever state the
 * boot left, and a state can make every op flush (7.3's pipe-128 in a
 * memcg: 4107 or 4361 instructions per op, by boot; kprof: the extra is
 * __mod_memcg_lruvec_state and the rstat update of the stat flush).  With
 * -d every window starts from empty stocks.
 *
 * -e: count on the CPU as well, for real hardware, where there is no plugin:
 * perf_event_open() counters of kernel-mode instructions and cycles
 * (exclude_user, exclude_hv) of churn and every process it starts (inherit:
 * hackbench's processes and threads count once they have exited), enabled
 * right after bench_start() and disabled right after bench_stop(), so they
 * span the plugin's window.  The result line then ends in
 * "kernel_insns=N cycles=N" (scaled by time enabled / time running if the
 * PMU was shared).  Unlike the plugin, which counts every vCPU, they count
 * only churn's tasks (with the interrupts taken while they run).  Where
 * perf has no hardware counters (a guest without a virtual PMU, QEMU/TCG)
 * or forbids them, churn says so once on stderr and reports wall time only.
 *
 * -g W: a gang of W workers, each a copy of this churn running the mode
 * with the same arguments, in one window: worker i joins the i % N-th of
 * the N comma-separated directories of -c (none: the current cgroup) and,
 * in the loop modes (all but run), is pinned to CPU i % (online CPUs).
 * Each worker warms up, then all start their measured loop together once
 * the window is open, and exit only after it closed (their exit is not in
 * the window); the window's instructions are every worker's.  Only the
 * gang prints a result line.  Not with -p > 1 (the phase file has one
 * holder), -d, -e or -w.  The scale bench (bench/scale) runs every window
 * this way.
 *
 * -y: yield the CPU (sched_yield()) after every op, so that workers sharing
 * a CPU take turns op by op (the slab mode: after every write of 16
 * iterations of the kernel loop).
 *
 * dying N SIZE: objects freed after their memcg is gone.  Outside the
 * window, in a sibling memcg "<churn's cgroup>-dying" (a child could have
 * no memory controller of its own: cgroup v2 enables none below a cgroup
 * with processes in it), kmem_cache_alloc() N objects of SIZE bytes of a
 * SLAB_ACCOUNT cache (bench/kernel/objstock_bench.c's objstock_hold file)
 * and keep them; back in churn's cgroup, rmdir the sibling and wait until
 * its memcg is offline (its objcg reparented to the parent, the objcg's
 * percpu_ref killed) and every CPU's stocks are drained.  The window frees
 * the N objects with kmem_cache_free().  In the root cgroup there is no
 * sibling: the objects are root's, and the window is the baseline.  A
 * gang's workers of one cgroup share its sibling (the gang rmdirs it once
 * every worker has left it), so that with one memcg and a worker per CPU
 * every CPU frees objects of one dying objcg at once.
 *
 * The pipe, xattr, mmap, mmap2, slab, dying and uring modes pin themselves to CPU 0 (the phase is
 * per CPU, and a migration would change which CPU's stock serves the loop);
 * run does not pin (hackbench spreads over the CPUs).
 *
 * churn re-executes itself once with ASLR off (personality ADDR_NO_RANDOMIZE,
 * inherited by "run"'s CMD): a random address-space layout changes the maple
 * tree shape and with it the kernel's per-op instruction count (mmap was
 * bimodal, ~11k vs ~14k instructions per op, from one process to the next).
 *
 * Each mode warms up outside the measured window (5% of ITERS, at least 1;
 * "run" runs CMD once, unless -n; CMD's stdout goes to churn's stderr), then runs the
 * measured loop between the calls to bench_start() and bench_stop().  Those
 * marker functions are what the kinsn QEMU plugin (tools/kinsn) triggers on;
 * build with
 *   gcc -O2 -static -no-pie -fno-pie -o churn churn.c
 * so their addresses are fixed (nm churn | grep bench_).  One result line
 * goes to stdout:
 *   churn mode=pipe size=<bytes> iters=<n> ns=<window wall ns> ns_per_op=<x>
 * where size is the accounted object per operation: the pipe_buffer array
 * (slots * 40 bytes) for pipe, the xattr value for xattr, the mapping for
 * mmap, the object for slab, 0 for run.  Errors: one line on stderr, non-zero exit.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <liburing.h>
#include <linux/perf_event.h>
#include <sys/ioctl.h>
#include <sys/mman.h>
#include <sys/syscall.h>
#include <sched.h>
#include <sys/personality.h>
#include <sys/vfs.h>
#include <sys/wait.h>
#include <sys/xattr.h>
#include <time.h>
#include <unistd.h>

#define PIPE_BUFFER_SIZE 40	/* sizeof(struct pipe_buffer) on 64-bit */
#define MMAP_SIZE (128UL << 20)
#define XATTR_NAME "user.objstock"
#define TMPFS_MAGIC 0x01021994
#define PHASE_FILE "/sys/kernel/debug/objstock_phase"
#define BARRIER_FILE "/sys/kernel/debug/objstock_rcu_barrier"
#define DRAIN_FILE "/sys/kernel/debug/objstock_drain"
#define HOLD_FILE "/sys/kernel/debug/objstock_hold"
#define MAX_PHASES 64

/* Marker functions: not inlined, not merged (distinct bodies), visible in nm. */
volatile int churn_marker;

__attribute__((noinline, noclone, used)) void bench_start(void)
{
	__asm__ volatile("" ::: "memory");
	churn_marker = 1;
}

__attribute__((noinline, noclone, used)) void bench_stop(void)
{
	__asm__ volatile("" ::: "memory");
	churn_marker = 2;
}

static __attribute__((noreturn, format(printf, 1, 2))) void die(const char *fmt, ...)
{
	va_list ap;

	fputs("churn: error: ", stderr);
	va_start(ap, fmt);
	vfprintf(stderr, fmt, ap);
	va_end(ap);
	fputc('\n', stderr);
	exit(1);
}

static unsigned long number(const char *what, const char *s)
{
	char *end;
	unsigned long v;

	errno = 0;
	v = strtoul(s, &end, 10);
	if (errno || !*s || *end || !v || *s == '-')
		die("%s must be a positive integer, not '%s'", what, s);
	return v;
}

static long long now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec * 1000000000LL + ts.tv_nsec;
}

static unsigned long phases = 1;
static int phase_fd = -1;

/* hold BYTES charged to our memcg (0: none); see -p above */
static void phase_hold(unsigned long bytes)
{
	char buf[32];
	int len = snprintf(buf, sizeof(buf), "%lu", bytes);

	if (phase_fd < 0)
		return;
	if (write(phase_fd, buf, len) != len)
		die("write %s to %s: %s", buf, PHASE_FILE, strerror(errno));
}

/* part k of the measured loop starts: hold its phase's bytes */
static void phase_part(unsigned long k)
{
	if (phases > 1)
		phase_hold(k * (unsigned long)sysconf(_SC_PAGESIZE) / phases);
}

/* one CPU for the single-process modes: the phase is per CPU */
static void pin_cpu0(void)
{
	cpu_set_t set;

	CPU_ZERO(&set);
	CPU_SET(0, &set);
	if (sched_setaffinity(0, sizeof(set), &set))
		die("sched_setaffinity(CPU 0): %s", strerror(errno));
}

static void phase_open(unsigned long iters, int kernel_loop)
{
	if (iters % phases)
		die("ITERS %lu is not a multiple of -p %lu", iters, phases);
	if (phases == 1 || kernel_loop)
		return;
	phase_fd = open(PHASE_FILE, O_WRONLY);
	if (phase_fd < 0)
		die("-p %lu needs %s: %s (a kernel without bench/kernel/objstock_bench.c, or no debugfs)",
		    phases, PHASE_FILE, strerror(errno));
}

static int settle_rcu;

/* wait for RCU's deferred frees (the bench kernel's barrier file) */
static void rcu_barrier_now(void)
{
	int fd;

	fd = open(BARRIER_FILE, O_WRONLY);
	if (fd < 0 || write(fd, "1", 1) != 1)
		die("-s and xattr bursts need %s: %s (a kernel without bench/kernel/objstock_bench.c, or no debugfs)",
		    BARRIER_FILE, strerror(errno));
	close(fd);
}

/* -s: settle RCU at the window's ends */
static void settle(void)
{
	if (settle_rcu)
		rcu_barrier_now();
}

static int drain_first;

/* -d: every CPU's memcg and obj stocks drained (the bench kernel's file) */
static void drain_stocks(void)
{
	int fd;

	if (!drain_first)
		return;
	fd = open(DRAIN_FILE, O_WRONLY);
	if (fd < 0 || write(fd, "1", 1) != 1)
		die("-d needs %s: %s (a kernel without bench/kernel/objstock_bench.c, or no debugfs)",
		    DRAIN_FILE, strerror(errno));
	close(fd);
}

/* -e: the perf counters, kernel mode only; fd -1 when not counting */
static int perf_on;
static struct {
	const char *name;
	unsigned long long config;
	int fd;
	unsigned long long value;
} perf_ctr[] = {
	{ "kernel_insns", PERF_COUNT_HW_INSTRUCTIONS, -1, 0 },
	{ "cycles", PERF_COUNT_HW_CPU_CYCLES, -1, 0 },
};
#define NR_PERF (sizeof(perf_ctr) / sizeof(perf_ctr[0]))

static void perf_open(void)
{
	struct perf_event_attr attr;
	unsigned int i, j;

	for (i = 0; i < NR_PERF; i++) {
		memset(&attr, 0, sizeof(attr));
		attr.size = sizeof(attr);
		attr.type = PERF_TYPE_HARDWARE;
		attr.config = perf_ctr[i].config;
		attr.disabled = 1;
		attr.inherit = 1;
		attr.exclude_user = 1;
		attr.exclude_hv = 1;
		attr.read_format = PERF_FORMAT_TOTAL_TIME_ENABLED | PERF_FORMAT_TOTAL_TIME_RUNNING;
		perf_ctr[i].fd = syscall(SYS_perf_event_open, &attr, 0, -1, -1, PERF_FLAG_FD_CLOEXEC);
		if (perf_ctr[i].fd < 0) {
			fprintf(stderr, "churn: warning: -e: perf events not available (perf_event_open %s: %s); "
				"reporting wall time only\n", perf_ctr[i].name, strerror(errno));
			for (j = 0; j < i; j++) {
				close(perf_ctr[j].fd);
				perf_ctr[j].fd = -1;
			}
			perf_ctr[i].fd = -1;
			perf_on = 0;
			return;
		}
	}
}

static void perf_ioctl(unsigned long req)
{
	unsigned int i;

	for (i = 0; i < NR_PERF && perf_on; i++)
		if (ioctl(perf_ctr[i].fd, req, 0))
			die("-e: perf ioctl on %s: %s", perf_ctr[i].name, strerror(errno));
}

/* after the window: the counts, scaled if the PMU was shared */
static void perf_read(void)
{
	unsigned long long v[3];	/* value, time enabled, time running */
	unsigned int i;

	for (i = 0; i < NR_PERF && perf_on; i++) {
		if (read(perf_ctr[i].fd, v, sizeof(v)) != sizeof(v))
			die("-e: read %s counter: %s", perf_ctr[i].name, strerror(errno));
		if (!v[2] && v[1])
			die("-e: the %s counter never ran (PMU taken by another user?)", perf_ctr[i].name);
		perf_ctr[i].value = v[2] < v[1] ? (unsigned long long)((double)v[0] * v[1] / v[2]) : v[0];
	}
}

/* -g: the gang; in a worker, gang_worker is set and the window is the
 * parent's, so window_open/close only meet the other workers at the start
 * and end barriers (each a pipe: a byte per worker, then EOF) */
static unsigned long gang;
static int gang_worker, yield_each;
static int gang_ready[2], gang_go[2], gang_done[2], gang_exit[2];

/* a worker's half of a barrier: say it is there, wait for the release */
static void gang_meet(int *there, int *release)
{
	char c;

	if (write(there[1], "1", 1) != 1)
		die("gang: signal the parent: %s", strerror(errno));
	close(there[1]);
	while (read(release[0], &c, 1) < 0 && errno == EINTR)
		;
}

/* the parent's half: one byte from each of the W workers */
static void gang_gather(int fd, const char *when)
{
	unsigned long got = 0;
	ssize_t r;
	char c;

	while (got < gang) {
		r = read(fd, &c, 1);
		if (r < 0 && errno == EINTR)
			continue;
		if (r <= 0)
			die("gang: %lu of %lu workers reached %s (the others failed: see above)",
			    got, gang, when);
		got++;
	}
}

/* -y: let the next worker on this CPU run */
static void op_done(void)
{
	if (yield_each)
		sched_yield();
}

static void join_cgroup(const char *dir);
static const char *warm_cgroup;		/* -w */
static int no_warmup;			/* -n */
static char window_cgroup[4200];	/* -c's, or the one churn started in */

/*
 * -w: the warm-up is over; move to the window's cgroup now, before the
 * mode reads its start time (moving a task can wait for an RCU grace
 * period: not churn's ns, which bench/hw reports)
 */
static void warm_done(void)
{
	if (warm_cgroup && strcmp(warm_cgroup, window_cgroup))
		join_cgroup(window_cgroup);
}

static void window_open(void)
{
	if (gang_worker) {
		gang_meet(gang_ready, gang_go);
		return;
	}
	settle();
	drain_stocks();
	bench_start();
	perf_ioctl(PERF_EVENT_IOC_ENABLE);
}

static void window_close(void)
{
	if (gang_worker) {
		gang_meet(gang_done, gang_exit);
		return;
	}
	settle();
	bench_stop();
	perf_ioctl(PERF_EVENT_IOC_DISABLE);
	perf_read();
}

static unsigned long warmup(unsigned long iters)
{
	return iters / 20 ? iters / 20 : 1;
}

static void report(const char *mode, unsigned long size, unsigned long iters, long long ns)
{
	unsigned int i;

	if (gang_worker)
		return;		/* the gang reports */
	printf("churn mode=%s size=%lu iters=%lu ns=%lld ns_per_op=%.1f",
	       mode, size, iters, ns, (double)ns / iters);
	for (i = 0; i < NR_PERF && perf_on; i++)
		printf(" %s=%llu", perf_ctr[i].name, perf_ctr[i].value);
	putchar('\n');
	fflush(stdout);
}

static void join_cgroup(const char *dir)
{
	char path[4096];
	FILE *f;

	if (!dir || !*dir)
		return;
	snprintf(path, sizeof(path), "%s/cgroup.procs", dir);
	f = fopen(path, "w");
	if (!f || fprintf(f, "%d\n", getpid()) < 0 || fclose(f))
		die("cannot join cgroup %s: %s", dir, strerror(errno));
}

/*
 * -w: the window's cgroup is -c's or, without -c, the one churn started in
 * (cgroup v2's "0::PATH" line of /proc/self/cgroup, under /sys/fs/cgroup)
 */
static void start_cgroup(const char *dir)
{
	char line[4096] = "";
	FILE *f;

	if (dir && *dir) {
		snprintf(window_cgroup, sizeof(window_cgroup), "%s", dir);
		return;
	}
	f = fopen("/proc/self/cgroup", "r");
	if (!f)
		die("cannot read /proc/self/cgroup: %s", strerror(errno));
	while (fgets(line, sizeof(line), f))
		if (!strncmp(line, "0::", 3))
			break;
	fclose(f);
	if (strncmp(line, "0::", 3))
		die("-w: no cgroup v2 line in /proc/self/cgroup");
	line[strcspn(line, "\n")] = 0;
	snprintf(window_cgroup, sizeof(window_cgroup), "/sys/fs/cgroup%s", line + 3);
}

/* pipe: resize one pipe between npages and 1 page; returns the big size */
static int pipe_cycle(int fd, int big)
{
	int got = fcntl(fd, F_SETPIPE_SZ, big);

	if (got < 0)
		die("F_SETPIPE_SZ %d: %s", big, strerror(errno));
	if (fcntl(fd, F_SETPIPE_SZ, 4096) < 0)
		die("F_SETPIPE_SZ 4096: %s", strerror(errno));
	return got;
}

static void mode_pipe(int argc, char **argv)
{
	unsigned long npages, iters, i;
	long long t0, t1;
	int fds[2], big, got = 0;

	if (argc != 2)
		die("usage: churn pipe NPAGES ITERS");
	npages = number("NPAGES", argv[0]);
	iters = number("ITERS", argv[1]);
	if (npages > (1UL << 18))
		die("NPAGES %lu is too large", npages);
	big = (int)(npages * 4096);
	phase_open(iters, 0);
	if (pipe(fds))
		die("pipe: %s", strerror(errno));
	for (i = 0; i < warmup(iters); i++)
		got = pipe_cycle(fds[1], big);
	warm_done();
	t0 = now_ns();
	window_open();
	for (i = 0; i < iters; i++) {
		if (i % (iters / phases) == 0)
			phase_part(i / (iters / phases));
		pipe_cycle(fds[1], big);
		op_done();
	}
	phase_part(0);
	window_close();
	t1 = now_ns();
	report("pipe", (unsigned long)got / 4096 * PIPE_BUFFER_SIZE, iters, t1 - t0);
}

static void xattr_cycle(int fd, const char *buf, size_t bytes)
{
	if (fsetxattr(fd, XATTR_NAME, buf, bytes, 0))
		die("setxattr %s (%zu bytes): %s", XATTR_NAME, bytes, strerror(errno));
	if (fremovexattr(fd, XATTR_NAME))
		die("removexattr %s: %s", XATTR_NAME, strerror(errno));
}

/* BURST sets, BURST removes, then wait for the frees RCU deferred */
static void xattr_burst(const int *fds, unsigned long burst, const char *buf, size_t bytes)
{
	unsigned long j;

	for (j = 0; j < burst; j++)
		if (fsetxattr(fds[j], XATTR_NAME, buf, bytes, 0))
			die("setxattr %s (%zu bytes): %s", XATTR_NAME, bytes, strerror(errno));
	for (j = 0; j < burst; j++) {
		if (fremovexattr(fds[j], XATTR_NAME))
			die("removexattr %s: %s", XATTR_NAME, strerror(errno));
		op_done();
	}
	rcu_barrier_now();
}

static int xattr_file(const char *dir)
{
	char path[4096];
	int fd;

	snprintf(path, sizeof(path), "%s/churn-xattr.XXXXXX", dir);
	fd = mkstemp(path);
	if (fd < 0)
		die("cannot create a file in %s: %s", dir, strerror(errno));
	unlink(path);		/* the open fd keeps the inode */
	return fd;
}

static void mode_xattr(int argc, char **argv)
{
	unsigned long bytes, iters, burst = 1, i;
	const char *dir;
	char *buf;
	struct statfs sfs;
	long long t0, t1;
	int *fds;

	if (argc < 2 || argc > 4)
		die("usage: churn xattr BYTES ITERS [DIR [BURST]]");
	bytes = number("BYTES", argv[0]);
	iters = number("ITERS", argv[1]);
	dir = argc >= 3 ? argv[2] : "/tmp";
	if (argc == 4)
		burst = number("BURST", argv[3]);
	if (bytes > 65536)
		die("BYTES %lu exceeds the 64 KiB xattr limit", bytes);
	phase_open(iters, 0);
	if (burst > 1 && (iters / phases) % burst)
		die("BURST %lu does not divide ITERS / PHASES = %lu", burst, iters / phases);
	buf = malloc(bytes);
	fds = calloc(burst, sizeof(*fds));
	if (!buf || !fds)
		die("out of memory");
	memset(buf, 'x', bytes);
	for (i = 0; i < burst; i++)
		fds[i] = xattr_file(dir);
	if (fstatfs(fds[0], &sfs) == 0 && sfs.f_type != TMPFS_MAGIC)
		fprintf(stderr, "churn: warning: %s is not a tmpfs (f_type 0x%lx)\n", dir,
			(unsigned long)sfs.f_type);
	if (fsetxattr(fds[0], XATTR_NAME, buf, bytes, 0)) {
		if (errno == EOPNOTSUPP)
			die("%s does not support user.* xattrs (use a tmpfs)", dir);
		die("setxattr in %s: %s", dir, strerror(errno));
	}
	if (fremovexattr(fds[0], XATTR_NAME))
		die("removexattr in %s: %s", dir, strerror(errno));
	if (burst > 1) {
		rcu_barrier_now();	/* says now if the kernel has no barrier file */
		xattr_burst(fds, burst, buf, bytes);
	} else {
		for (i = 0; i < warmup(iters); i++)
			xattr_cycle(fds[0], buf, bytes);
	}
	warm_done();
	t0 = now_ns();
	window_open();
	if (burst > 1) {
		for (i = 0; i < iters; i += burst) {
			if (i % (iters / phases) == 0)
				phase_part(i / (iters / phases));
			xattr_burst(fds, burst, buf, bytes);
		}
	} else {
		for (i = 0; i < iters; i++) {
			if (i % (iters / phases) == 0)
				phase_part(i / (iters / phases));
			xattr_cycle(fds[0], buf, bytes);
			op_done();
		}
	}
	phase_part(0);
	window_close();
	t1 = now_ns();
	for (i = 0; i < burst; i++)
		close(fds[i]);
	report("xattr", bytes, iters, t1 - t0);
}

static void mmap_cycle(void)
{
	void *p = mmap(NULL, MMAP_SIZE, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);

	if (p == MAP_FAILED)
		die("mmap %lu bytes: %s", MMAP_SIZE, strerror(errno));
	if (munmap(p, MMAP_SIZE))
		die("munmap: %s", strerror(errno));
}

static void mode_mmap(int argc, char **argv)
{
	unsigned long iters, i;
	long long t0, t1;

	if (argc != 1)
		die("usage: churn mmap ITERS");
	iters = number("ITERS", argv[0]);
	phase_open(iters, 0);
	for (i = 0; i < warmup(iters); i++)
		mmap_cycle();
	warm_done();
	t0 = now_ns();
	window_open();
	for (i = 0; i < iters; i++) {
		if (i % (iters / phases) == 0)
			phase_part(i / (iters / phases));
		mmap_cycle();
		op_done();
	}
	phase_part(0);
	window_close();
	t1 = now_ns();
	report("mmap", MMAP_SIZE, iters, t1 - t0);
}

static void mmap2_cycle(int fd)
{
	void *p = mmap(NULL, MMAP_SIZE, PROT_READ | PROT_WRITE, MAP_PRIVATE, fd, 0);

	if (p == MAP_FAILED)
		die("mmap %lu bytes of a file: %s", MMAP_SIZE, strerror(errno));
	if (munmap(p, MMAP_SIZE))
		die("munmap: %s", strerror(errno));
}

static void mode_mmap2(int argc, char **argv)
{
	unsigned long iters, i;
	char path[4096];
	long long t0, t1;
	int fd;

	if (argc != 2)
		die("usage: churn mmap2 ITERS DIR");
	iters = number("ITERS", argv[0]);
	phase_open(iters, 0);
	snprintf(path, sizeof(path), "%s/churn-mmap2.XXXXXX", argv[1]);
	fd = mkstemp(path);
	if (fd < 0)
		die("cannot create a file in %s: %s", argv[1], strerror(errno));
	unlink(path);
	if (ftruncate(fd, MMAP_SIZE))
		die("ftruncate %s to %lu bytes: %s", path, MMAP_SIZE, strerror(errno));
	for (i = 0; i < warmup(iters); i++)
		mmap2_cycle(fd);
	warm_done();
	t0 = now_ns();
	window_open();
	for (i = 0; i < iters; i++) {
		if (i % (iters / phases) == 0)
			phase_part(i / (iters / phases));
		mmap2_cycle(fd);
		op_done();
	}
	phase_part(0);
	window_close();
	t1 = now_ns();
	close(fd);
	report("mmap2", MMAP_SIZE, iters, t1 - t0);
}

/* uring: one ring's life, DEPTH NOPs live together in one submit */
static void uring_cycle(unsigned int depth)
{
	struct io_uring_cqe *cqe;
	struct io_uring ring;
	unsigned int i, head, seen = 0;
	int ret;

	ret = io_uring_queue_init(depth, &ring, 0);
	if (ret < 0)
		die("io_uring_queue_init(%u): %s", depth, strerror(-ret));
	for (i = 0; i < depth; i++) {
		struct io_uring_sqe *sqe = io_uring_get_sqe(&ring);

		if (!sqe)
			die("io_uring_get_sqe: ring full at %u of %u", i, depth);
		io_uring_prep_nop(sqe);
	}
	ret = io_uring_submit_and_wait(&ring, depth);
	if (ret != (int)depth)
		die("io_uring_submit_and_wait: %s", ret < 0 ? strerror(-ret) : "short submit");
	io_uring_for_each_cqe(&ring, head, cqe) {
		if (cqe->res < 0)
			die("io_uring NOP: %s", strerror(-cqe->res));
		seen++;
	}
	io_uring_cq_advance(&ring, seen);
	if (seen != depth)
		die("io_uring: %u of %u completions", seen, depth);
	io_uring_queue_exit(&ring);
}

static void mode_uring(int argc, char **argv)
{
	unsigned long depth, iters, i;
	long long t0, t1;

	if (argc != 2)
		die("usage: churn uring DEPTH ITERS");
	depth = number("DEPTH", argv[0]);
	iters = number("ITERS", argv[1]);
	if (depth > 4096)
		die("DEPTH %lu: at most 4096 (IORING_MAX_ENTRIES is 32768; keep rings small)", depth);
	phase_open(iters, 0);
	for (i = 0; i < warmup(iters); i++)
		uring_cycle(depth);
	warm_done();
	t0 = now_ns();
	window_open();
	for (i = 0; i < iters; i++) {
		if (i % (iters / phases) == 0)
			phase_part(i / (iters / phases));
		uring_cycle(depth);
		op_done();
	}
	phase_part(0);
	window_close();
	t1 = now_ns();
	report("uring", depth, depth * iters, t1 - t0);
}

#define SLAB_BENCH "/sys/kernel/debug/objstock_slab_bench"

static void slab_write(int fd, const char *cmd)
{
	if (write(fd, cmd, strlen(cmd)) != (ssize_t)strlen(cmd))
		die("write '%s' to %s: %s", cmd, SLAB_BENCH, strerror(errno));
}

#define SLAB_CHUNK 16	/* -y: kernel loop iterations per write */

static void mode_slab(int argc, char **argv)
{
	unsigned long n, size, iters, i;
	char cmd[96], warm[96];
	long long t0, t1;
	int single, fd;

	if (argc != 3 && argc != 4)
		die("usage: churn slab N SIZE ITERS [single]");
	n = number("N", argv[0]);
	size = number("SIZE", argv[1]);
	iters = number("ITERS", argv[2]);
	single = argc == 4;
	if (single && strcmp(argv[3], "single"))
		die("churn slab: 4th argument must be 'single', not '%s'", argv[3]);
	phase_open(iters, 1);
	fd = open(SLAB_BENCH, O_WRONLY);
	if (fd < 0)
		die("%s: %s (a kernel without bench/kernel/objstock_bench.c, or no debugfs)",
		    SLAB_BENCH, strerror(errno));
	snprintf(warm, sizeof(warm), "%lu %lu %lu %d", n, size, warmup(iters), single);
	if (yield_each && (iters % SLAB_CHUNK || phases > 1))
		die("churn slab -y: ITERS must be a multiple of %d, without -p", SLAB_CHUNK);
	snprintf(cmd, sizeof(cmd), "%lu %lu %lu %d %lu", n, size,
		 yield_each ? SLAB_CHUNK : iters, single, phases);
	slab_write(fd, warm);	/* creates the cache, fills the sheaves */
	warm_done();
	t0 = now_ns();
	window_open();
	for (i = 0; i < (yield_each ? iters / SLAB_CHUNK : 1); i++) {
		slab_write(fd, cmd);
		op_done();
	}
	window_close();
	t1 = now_ns();
	close(fd);
	report("slab", size, n * iters, t1 - t0);
}

static unsigned long gang_index;	/* a gang worker's i */

/* this task's cgroup v2 directory, under /sys/fs/cgroup */
static void own_cgroup(char *buf, size_t len)
{
	char line[4096] = "";
	FILE *f = fopen("/proc/self/cgroup", "r");

	if (!f)
		die("cannot read /proc/self/cgroup: %s", strerror(errno));
	while (fgets(line, sizeof(line), f))
		if (!strncmp(line, "0::", 3))
			break;
	fclose(f);
	if (strncmp(line, "0::", 3))
		die("no cgroup v2 line in /proc/self/cgroup");
	line[strcspn(line, "\n")] = 0;
	snprintf(buf, len, "/sys/fs/cgroup%s", strcmp(line + 3, "/") ? line + 3 : "");
}

static void hold_write(const char *cmd)
{
	int fd = open(HOLD_FILE, O_WRONLY);

	if (fd < 0)
		die("%s: %s (a kernel without bench/kernel/objstock_bench.c, or no debugfs)",
		    HOLD_FILE, strerror(errno));
	if (write(fd, cmd, strlen(cmd)) != (ssize_t)strlen(cmd))
		die("write '%s' to %s: %s", cmd, HOLD_FILE, strerror(errno));
	close(fd);
}

/* the dying sibling of cgroup DIR; 0 for the root cgroup (no memory.current) */
static int dying_dir(const char *dir, char *buf, size_t len)
{
	char f[4300];

	snprintf(f, sizeof(f), "%s/memory.current", dir);
	if (access(f, F_OK))
		return 0;
	snprintf(buf, len, "%s-dying", dir);
	return 1;
}

/* rmdir cgroup DIR's dying sibling (none: root's windows) */
static void dying_rmdir(const char *dir)
{
	char sib[4300];

	if (dying_dir(dir, sib, sizeof(sib)) && rmdir(sib) && errno != ENOENT)
		die("rmdir %s: %s", sib, strerror(errno));
}

static void mode_dying(int argc, char **argv)
{
	char cg[4200], sib[4300], f[4400], cmd[96];
	unsigned long n, size;
	long long t0, t1;
	int fd, memcg;

	if (argc != 2)
		die("usage: churn dying N SIZE");
	n = number("N", argv[0]);
	size = number("SIZE", argv[1]);
	if (warm_cgroup)
		die("churn dying: no -w (it has no warm-up)");
	if (access(HOLD_FILE, W_OK))	/* before any mkdir */
		die("%s: %s (a kernel without bench/kernel/objstock_bench.c, or no debugfs)",
		    HOLD_FILE, strerror(errno));
	own_cgroup(cg, sizeof(cg));
	memcg = dying_dir(cg, sib, sizeof(sib));
	if (memcg) {
		if (mkdir(sib, 0755) && errno != EEXIST)
			die("mkdir %s: %s", sib, strerror(errno));
		snprintf(f, sizeof(f), "%s/memory.current", sib);
		if (access(f, F_OK))
			die("%s has no memory controller (its parent's cgroup.subtree_control "
			    "lacks +memory)", sib);
		join_cgroup(sib);
	}
	snprintf(cmd, sizeof(cmd), "hold %lu %lu %lu", gang_index, n, size);
	hold_write(cmd);
	if (memcg)
		join_cgroup(cg);
	if (!gang_worker) {	/* a gang's rmdir and wait are the gang's */
		dying_rmdir(cg);
		hold_write("wait");
	}
	snprintf(cmd, sizeof(cmd), "free %lu", gang_index);
	fd = open(HOLD_FILE, O_WRONLY);	/* not in the window: a struct file */
	if (fd < 0)
		die("%s: %s", HOLD_FILE, strerror(errno));
	t0 = now_ns();
	window_open();
	if (write(fd, cmd, strlen(cmd)) != (ssize_t)strlen(cmd))
		die("write '%s' to %s: %s", cmd, HOLD_FILE, strerror(errno));
	window_close();
	t1 = now_ns();
	close(fd);
	report("dying", size, n, t1 - t0);
}

/* run CMD once; returns its wait status (the caller decides) */
static int run_once(char **cmd, int measured)
{
	int status;
	pid_t pid;

	if (measured)
		window_open();
	pid = fork();
	if (pid < 0)
		die("fork: %s", strerror(errno));
	if (!pid) {
		dup2(2, 1);	/* keep our stdout to the one result line */
		execvp(cmd[0], cmd);
		fprintf(stderr, "churn: error: cannot run %s: %s\n", cmd[0], strerror(errno));
		_exit(127);
	}
	while (waitpid(pid, &status, 0) < 0)
		if (errno != EINTR)
			die("waitpid: %s", strerror(errno));
	if (measured)
		window_close();
	if (WIFEXITED(status) && WEXITSTATUS(status) == 127)
		exit(1);	/* the child said why */
	if (!WIFEXITED(status) || WEXITSTATUS(status))
		die("%s failed (%s %d)", cmd[0], WIFEXITED(status) ? "exit status" : "signal",
		    WIFEXITED(status) ? WEXITSTATUS(status) : WTERMSIG(status));
	return status;
}

static void mode_run(int argc, char **argv)
{
	long long t0, t1;

	if (argc >= 1 && !strcmp(argv[0], "--")) {
		argc--;
		argv++;
	}
	if (argc < 1)
		die("usage: churn run -- CMD [ARGS...]");
	if (!no_warmup)
		run_once(argv, 0);	/* warm-up: page cache, dentries, slabs */
	warm_done();
	t0 = now_ns();
	run_once(argv, 1);
	t1 = now_ns();
	report("run", 0, 1, t1 - t0);
}

/* same address-space layout in every run: re-exec once without ASLR */
static void no_aslr(char **argv)
{
	int pers = personality(0xffffffff);

	if (pers < 0 || (pers & ADDR_NO_RANDOMIZE))
		return;
	if (personality(pers | ADDR_NO_RANDOMIZE) < 0)
		return;
	execv("/proc/self/exe", argv);
	fprintf(stderr, "churn: warning: cannot re-exec without ASLR: %s\n", strerror(errno));
}

static void dispatch(int argc, char **argv)
{
	if (!strcmp(argv[0], "pipe"))
		mode_pipe(argc - 1, argv + 1);
	else if (!strcmp(argv[0], "xattr"))
		mode_xattr(argc - 1, argv + 1);
	else if (!strcmp(argv[0], "mmap"))
		mode_mmap(argc - 1, argv + 1);
	else if (!strcmp(argv[0], "mmap2"))
		mode_mmap2(argc - 1, argv + 1);
	else if (!strcmp(argv[0], "run"))
		mode_run(argc - 1, argv + 1);
	else if (!strcmp(argv[0], "slab"))
		mode_slab(argc - 1, argv + 1);
	else if (!strcmp(argv[0], "uring"))
		mode_uring(argc - 1, argv + 1);
	else if (!strcmp(argv[0], "dying"))
		mode_dying(argc - 1, argv + 1);
	else
		die("unknown mode '%s' (pipe, xattr, mmap, mmap2, run, slab, uring, dying)", argv[0]);
}

static void pin_cpu(long cpu)
{
	cpu_set_t set;

	CPU_ZERO(&set);
	CPU_SET(cpu, &set);
	if (sched_setaffinity(0, sizeof(set), &set))
		die("sched_setaffinity(CPU %ld): %s", cpu, strerror(errno));
}

/* -g: fork the workers, hold the window around their measured loops */
static void run_gang(const char *cgroups, int argc, char **argv)
{
	long ncpu = sysconf(_SC_NPROCESSORS_ONLN);
	char *list = strdup(cgroups ? cgroups : ""), *dirs[4096], *tok, *save;
	int pin = strcmp(argv[0], "run") != 0, status;
	unsigned long i, ndirs = 0;
	long long t0, t1;
	pid_t pids[4096];

	if (gang > 4096)
		die("-g %lu: at most 4096 workers", gang);
	for (tok = strtok_r(list, ",", &save); tok; tok = strtok_r(NULL, ",", &save))
		if (ndirs < 4096)
			dirs[ndirs++] = tok;
	if (pipe2(gang_ready, O_CLOEXEC) || pipe2(gang_go, O_CLOEXEC) ||
	    pipe2(gang_done, O_CLOEXEC) || pipe2(gang_exit, O_CLOEXEC))
		die("gang: pipe: %s", strerror(errno));
	fflush(NULL);
	for (i = 0; i < gang; i++) {
		pids[i] = fork();
		if (pids[i] < 0)
			die("gang: fork: %s", strerror(errno));
		if (!pids[i]) {
			gang_worker = 1;
			gang_index = i;
			close(gang_ready[0]);
			close(gang_go[1]);
			close(gang_done[0]);
			close(gang_exit[1]);
			if (ndirs)
				join_cgroup(dirs[i % ndirs]);
			if (pin)
				pin_cpu((long)(i % ncpu));
			dispatch(argc, argv);
			exit(0);
		}
	}
	close(gang_ready[1]);
	close(gang_go[0]);
	close(gang_done[1]);
	close(gang_exit[0]);
	gang_gather(gang_ready[0], "their window");
	if (!strcmp(argv[0], "dying")) {	/* every worker has left its sibling */
		char cg[4200];

		for (i = 0; i < ndirs; i++)
			dying_rmdir(dirs[i]);
		if (!ndirs) {
			own_cgroup(cg, sizeof(cg));
			dying_rmdir(cg);
		}
		hold_write("wait");
	}
	t0 = now_ns();
	window_open();
	close(gang_go[1]);		/* go */
	gang_gather(gang_done[0], "the end of their loop");
	window_close();
	t1 = now_ns();
	close(gang_exit[1]);		/* exit */
	for (i = 0; i < gang; i++) {
		while (waitpid(pids[i], &status, 0) < 0)
			if (errno != EINTR)
				die("gang: waitpid: %s", strerror(errno));
		if (!WIFEXITED(status) || WEXITSTATUS(status))
			die("gang: worker %lu failed (%s %d)", i, WIFEXITED(status) ? "exit status" : "signal",
			    WIFEXITED(status) ? WEXITSTATUS(status) : WTERMSIG(status));
	}
	free(list);
	printf("churn mode=gang-%s workers=%lu ns=%lld\n", argv[0], gang, t1 - t0);
	fflush(stdout);
}

int main(int argc, char **argv)
{
	const char *cgroup = NULL;
	int opt;

	no_aslr(argv);

	opterr = 0;
	while ((opt = getopt(argc, argv, "+c:p:sdeg:yw:n")) != -1) {
		if (opt == 'c')
			cgroup = optarg;
		else if (opt == 'g')
			gang = number("WORKERS", optarg);
		else if (opt == 'y')
			yield_each = 1;
		else if (opt == 's')
			settle_rcu = 1;
		else if (opt == 'd')
			drain_first = 1;
		else if (opt == 'e')
			perf_on = 1;
		else if (opt == 'p')
			phases = number("PHASES", optarg);
		else if (opt == 'w')
			warm_cgroup = optarg;
		else if (opt == 'n')
			no_warmup = 1;
		else
			die("usage: churn [-c CGROUP_DIR] [-w WARM_DIR] [-n] [-p PHASES] [-s] [-d] [-e] [-g WORKERS] [-y] pipe|xattr|mmap|mmap2|run|slab|uring|dying ...");
	}
	if (phases > MAX_PHASES)
		die("-p %lu: at most %d phases", phases, MAX_PHASES);
	argc -= optind;
	argv += optind;
	if (argc < 1)
		die("usage: churn [-c CGROUP_DIR] [-w WARM_DIR] [-n] [-p PHASES] [-s] [-d] [-e] [-g WORKERS] [-y] pipe|xattr|mmap|mmap2|run|slab|uring|dying ...");
	if (no_warmup && strcmp(argv[0], "run"))
		die("-n (no warm-up run) is for the run mode only");
	if (gang) {
		if (phases > 1 || perf_on || drain_first || warm_cgroup)
			die("-g does not go with -p > 1, -d, -e or -w");
		run_gang(cgroup, argc, argv);
		return 0;
	}
	if (perf_on)
		perf_open();
	if (warm_cgroup) {
		start_cgroup(cgroup);
		join_cgroup(warm_cgroup);
	} else {
		join_cgroup(cgroup);
	}
	if (strcmp(argv[0], "run"))
		pin_cpu0();
	dispatch(argc, argv);
	return 0;
}
