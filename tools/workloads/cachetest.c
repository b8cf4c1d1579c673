/*
 * cachetest: guest workloads with known cache behaviour, for the known-answer
 * tests of the kinsn plugin's cache model (scripts/kinsn-selftest.sh).
 *
 *   cachetest walk SIZE PASSES STRIDE   read a private array of SIZE bytes
 *                                       (K/M suffix) PASSES times, one 8-byte
 *                                       load every STRIDE bytes
 *   cachetest pingpong ROUNDS           two processes, pinned to CPU 0 and CPU 1,
 *                                       take turns to load and store one shared line
 *
 * walk: the process first pins itself to the CPU it runs on (a migration in
 * the window would refill another CPU's L1D, and the model would count the
 * lines the first CPU wrote as transfers, not LLC misses); the array is
 * written once and read once (warm-up) before the window; in the window every
 * load is a plain 8-byte load (a volatile pointer: no vector loads, no
 * elimination).  A 16 KiB array (smaller than the L1D) then
 * misses ~never; a 64 MiB array (larger than the LLC) read with STRIDE 64
 * misses the L1D and the LLC once per line.
 *
 * pingpong: one 64-byte line in a MAP_SHARED page, written by both processes
 * in turn (parent: even values, child: odd).  The turns are handed over
 * through pipes, so the shared line is only ever touched by user code: one
 * load and one store per turn.  The load is a cross-CPU transfer (it fetches
 * the line the other CPU wrote last); the store is one too when it
 * invalidates the other CPU's copy, which the kernel code of the pipe
 * hand-over on that CPU may have evicted meanwhile.
 * 5% of ROUNDS (at least 10) warm up before the window.
 *
 * The window is the code between bench_start() and bench_stop(), the marker
 * functions the plugin triggers on (as in churn.c); build static and non-PIE
 *   gcc -O2 -static -no-pie -fno-pie -o cachetest cachetest.c
 * so that their addresses are fixed (nm cachetest | grep bench_).  One result
 * line on stdout, key=value:
 *   cachetest mode=walk size=<bytes> passes=<n> stride=<bytes> loads=<n> lines=<n>
 *   cachetest mode=pingpong rounds=<n> loads=<n> stores=<n>
 * where loads/stores are this workload's own accesses in the window (walk: to
 * the array; pingpong: to the shared line, both processes) and lines the
 * distinct lines a walk's loads touch per pass times PASSES.
 * Errors: one line on stderr, non-zero exit.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <sched.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/wait.h>
#include <unistd.h>

volatile int cachetest_marker;

/* Marker functions: not inlined, not merged (distinct bodies), visible in nm. */
__attribute__((noinline, noclone, used)) void bench_start(void)
{
	__asm__ volatile("" ::: "memory");
	cachetest_marker = 1;
}

__attribute__((noinline, noclone, used)) void bench_stop(void)
{
	__asm__ volatile("" ::: "memory");
	cachetest_marker = 2;
}

static __attribute__((noreturn, format(printf, 1, 2))) void die(const char *fmt, ...)
{
	va_list ap;

	fputs("cachetest: ", stderr);
	va_start(ap, fmt);
	vfprintf(stderr, fmt, ap);
	va_end(ap);
	fputc('\n', stderr);
	exit(1);
}

static uint64_t num(const char *s, const char *what)
{
	char *end;
	unsigned long long n;

	errno = 0;
	n = strtoull(s, &end, 10);
	if (*end == 'K' || *end == 'k')
		n <<= 10, end++;
	else if (*end == 'M' || *end == 'm')
		n <<= 20, end++;
	if (errno || end == s || *end || !n || n > (1ULL << 34))
		die("bad %s '%s' (want a positive number, K/M suffix allowed)", what, s);
	return n;
}

static void pin(const char *mode, int cpu)
{
	cpu_set_t set;

	if (cpu < 0)
		die("%s: sched_getcpu: %s", mode, strerror(errno));
	CPU_ZERO(&set);
	CPU_SET(cpu, &set);
	if (sched_setaffinity(0, sizeof(set), &set))
		die("%s: cannot pin to CPU %d: %s%s", mode, cpu, strerror(errno),
		    strcmp(mode, "pingpong") ? "" : " (needs CPUs 0 and 1)");
}

static void walk(uint64_t size, uint64_t passes, uint64_t stride)
{
	volatile uint64_t *a;
	uint64_t sum = 0, n = size / stride, lines;

	if (stride % 8 || stride > size || size % stride)
		die("walk: STRIDE must be a multiple of 8 dividing SIZE");
	pin("walk", sched_getcpu());
	a = mmap(NULL, size, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS | MAP_POPULATE, -1, 0);
	if (a == MAP_FAILED)
		die("walk: mmap %llu bytes: %s", (unsigned long long)size, strerror(errno));
	for (uint64_t i = 0; i < size / 8; i++)	/* write once: no zero page, no COW */
		a[i] = i;
	for (uint64_t i = 0; i < n; i++)		/* warm-up read */
		sum += a[i * (stride / 8)];
	bench_start();
	for (uint64_t p = 0; p < passes; p++)
		for (uint64_t i = 0; i < n; i++)
			sum += a[i * (stride / 8)];
	bench_stop();
	lines = (stride >= 64 ? n : size / 64) * passes;
	printf("cachetest mode=walk size=%llu passes=%llu stride=%llu loads=%llu lines=%llu sum=%llu\n",
	       (unsigned long long)size, (unsigned long long)passes, (unsigned long long)stride,
	       (unsigned long long)(n * passes), (unsigned long long)lines, (unsigned long long)sum);
}

/* the shared page: the line, and the child's own counts (another line) */
struct shared {
	volatile uint64_t line __attribute__((aligned(64)));
	uint64_t child_loads __attribute__((aligned(64)));
	uint64_t child_stores;
};

static void xread(int fd)
{
	char c;

	if (read(fd, &c, 1) != 1)
		die("pingpong: pipe read: %s", strerror(errno));
}

static void xwrite(int fd)
{
	char c = 0;

	if (write(fd, &c, 1) != 1)
		die("pingpong: pipe write: %s", strerror(errno));
}

/*
 * One process's ROUNDS turns: wait for the turn (IN), load the line, store
 * the next value, hand the turn over (OUT).  The first mover skips the wait
 * of its first turn.  Counts its own loads and stores of the line.
 */
static void turns(struct shared *s, uint64_t rounds, int parity, int in, int out,
		  uint64_t *loads, uint64_t *stores)
{
	for (uint64_t r = 0; r < rounds; r++) {
		uint64_t v;

		if (r || parity)
			xread(in);
		v = s->line;
		++*loads;
		if ((v & 1) != (uint64_t)parity)
			die("pingpong: value %llu on the turn of parity %d", (unsigned long long)v, parity);
		s->line = v + 1;
		++*stores;
		xwrite(out);
	}
}

static void pingpong(uint64_t rounds)
{
	struct shared *s;
	int p2c[2], c2p[2], st;
	uint64_t warm = rounds / 20 < 10 ? 10 : rounds / 20;
	uint64_t loads = 0, stores = 0, wl = 0, ws = 0;
	pid_t pid;

	s = mmap(NULL, 4096, PROT_READ | PROT_WRITE, MAP_SHARED | MAP_ANONYMOUS, -1, 0);
	if (s == MAP_FAILED)
		die("pingpong: mmap: %s", strerror(errno));
	if (pipe(p2c) || pipe(c2p))
		die("pingpong: pipe: %s", strerror(errno));
	s->line = 0;
	fflush(stdout);
	pid = fork();
	if (pid < 0)
		die("pingpong: fork: %s", strerror(errno));
	if (!pid) {
		uint64_t l = 0, t = 0;

		pin("pingpong", 1);
		turns(s, warm, 1, p2c[0], c2p[1], &l, &t);
		l = t = 0;
		turns(s, rounds, 1, p2c[0], c2p[1], &l, &t);
		s->child_loads = l;
		s->child_stores = t;
		_exit(0);
	}
	pin("pingpong", 0);
	turns(s, warm, 0, c2p[0], p2c[1], &wl, &ws);
	xread(c2p[0]);		/* the child's last warm-up turn */
	bench_start();
	/* the parent's first measured turn is its own: hand it over at once */
	for (uint64_t r = 0; r < rounds; r++) {
		uint64_t v;

		if (r)
			xread(c2p[0]);
		v = s->line;
		loads++;
		if (v & 1)
			die("pingpong: value %llu on the parent's turn", (unsigned long long)v);
		s->line = v + 1;
		stores++;
		xwrite(p2c[1]);
	}
	if (waitpid(pid, &st, 0) != pid || !WIFEXITED(st) || WEXITSTATUS(st))
		die("pingpong: the child failed");
	bench_stop();
	if (s->line != 2 * (warm + rounds))
		die("pingpong: final value %llu, want %llu", (unsigned long long)s->line,
		    (unsigned long long)(2 * (warm + rounds)));
	printf("cachetest mode=pingpong rounds=%llu loads=%llu stores=%llu\n", (unsigned long long)rounds,
	       (unsigned long long)(loads + s->child_loads), (unsigned long long)(stores + s->child_stores));
}

int main(int argc, char **argv)
{
	setvbuf(stdout, NULL, _IOLBF, 0);
	if (argc == 5 && !strcmp(argv[1], "walk"))
		walk(num(argv[2], "SIZE"), num(argv[3], "PASSES"), num(argv[4], "STRIDE"));
	else if (argc == 3 && !strcmp(argv[1], "pingpong"))
		pingpong(num(argv[2], "ROUNDS"));
	else
		die("usage: cachetest walk SIZE PASSES STRIDE | cachetest pingpong ROUNDS");
	return 0;
}
