/*
 * kinsn: QEMU TCG plugin counting guest kernel instructions inside
 * measurement windows (QEMU 7.2 plugin API, QEMU_PLUGIN_VERSION 1).
 *
 * Usage (system emulation, TCG only; build with scripts/tools-build.sh):
 *
 *   qemu-system-x86_64 ... -plugin libkinsn.so,start=0x401234,stop=0x401250,out=/tmp/kinsn.out
 *
 *   start=ADDR  guest virtual address whose execution opens a window
 *   stop=ADDR   guest virtual address whose execution closes it
 *   out=PATH    file (on the host) to append results to; default: QEMU's log
 *   percpu=on   also report each vCPU's kernel count (diagnosis)
 *   cache=on    also model the guest's data caches (below)
 *
 * START and STOP are the marker functions bench_start/bench_stop of a static
 * non-PIE workload (tools/workloads/churn.c), so their addresses are fixed:
 * see $CACHE/tools/markers.  Each closed window appends one line
 *
 *   window <n> kernel_insns <count> user_insns <count> host_ns <ns>
 *
 * host_ns is the host's monotonic time between the markers: what the window
 * cost to emulate, the wall time that stays meaningful when the guest clock
 * is driven by -icount.
 * (with percpu=on followed by " vcpu_kernel <c0>,<c1>,...") and flushes it,
 * so the result survives the guest being killed.
 *
 * Cache mode (cache=on): every guest data access (loads and stores of kernel
 * and user code alike, I/O excluded) also drives a model of the data side:
 * a private L1D per vCPU, one last-level cache shared by all vCPUs, and a
 * coherence directory per line of guest *physical* memory
 * (qemu_plugin_get_hwaddr).  The window line then goes on, after the fields
 * above, with
 *
 *   loads <n> stores <n> l1d_miss <n> llc_miss <n> xfer <n> cost <n>
 *
 * counting the accesses of kernel code only (count=user: user code only,
 * count=all: both; the known-answer tests use user code), and
 *   cost = insns + lat_l1d * l1d_miss + lat_llc * llc_miss + lat_xfer * xfer
 * where insns are the instructions of the same class (kernel_insns by
 * default).  The first line a plugin writes states the model:
 *
 *   kinsn-cache line 64 l1d_size 32768 l1d_assoc 8 llc_size 2097152
 *     llc_assoc 16 lat_l1d 14 lat_llc 200 lat_xfer 100 count kernel   (one line)
 *
 * and when QEMU exits it writes the totals of the whole run, all accesses
 * (kernel and user, whatever count= says), for cross-checks with other cache
 * models:  kinsn-total loads .. stores .. l1d_miss .. llc_miss .. xfer ..
 * io .. nophys ..  (io: accesses to MMIO, not modelled; nophys: accesses
 * whose physical address QEMU could not give, not modelled; expect 0).
 *
 *   line=64        line size (bytes, power of two, 8..4096)
 *   l1d_size=32K   per-vCPU L1D size (bytes; K and M suffixes), l1d_assoc=8
 *   llc_size=2M    shared LLC size, llc_assoc=16
 *   lat_l1d=14 lat_llc=200 lat_xfer=100   cycles charged per event in cost
 *   count=kernel|user|all
 *
 * Both caches are set-associative with true LRU replacement and are filled on
 * every miss, loads and stores alike (write-allocate).  The LLC is looked up
 * on each L1D miss only, and is not inclusive (as QEMU's contrib cache plugin).
 * An access is counted once at the line of its first byte (an access that
 * straddles two lines touches only the first).  Events:
 *   l1d_miss  the line is not in the accessing vCPU's L1D (never held, evicted,
 *             or invalidated by another vCPU's write)
 *   xfer      a cross-vCPU transfer: an access that misses the L1D on a line
 *             whose last write was by another vCPU and that this vCPU has not
 *             read since, or a store that invalidates copies of the line in
 *             other vCPUs' L1Ds (at most one per access)
 *   llc_miss  an L1D miss that the LLC cannot serve and that is not an xfer
 *             (a line moved from another vCPU's cache does not come from memory)
 * The directory keeps per line the last writer and the set of vCPUs that read
 * the line since that write; the L1D lines carry MESI-like states so that a
 * load hit, or a store hit on a line only this vCPU holds, does not consult it.
 * The model is one data structure updated on every access, so it needs the
 * accesses serialized: single-threaded TCG (-accel tcg,thread=single, which
 * -icount implies).  Under MTTCG the vCPUs run on parallel host threads; the
 * plugin then stops QEMU with an error at the first block a second thread
 * translates (at boot, before any measurement).  Up to 32 vCPUs.
 * It costs emulation speed: every memory access becomes a call into the plugin.
 *
 * How it counts: every translation block (TB) gets an execution callback that
 * adds the block's instruction count to a per-vCPU counter, kernel or user
 * depending on the TB's start address (x86_64 kernel text is at or above
 * 0xffff800000000000).  Counters are only ever written by the thread running
 * that vCPU, so no atomic read-modify-write is needed.  A window is the
 * difference of the sums over all vCPUs between the stop and start marker.
 * The 7.2 API offers no per-vCPU inline counters (its inline add targets one
 * address shared by all vCPUs, non-atomically, which loses updates under
 * MTTCG), hence the cheap C callback instead.
 *
 * Limits: a TB is counted whole when it starts executing, so a block left
 * early (fault, interrupt) counts a few extra instructions; a window counts
 * all kernel work on all vCPUs (interrupts, kthreads, other tasks), not just
 * the marked process.  The markers match by virtual address alone: another
 * non-PIE process running code at the same address would also trigger them.
 */
#include <glib.h>
#include <inttypes.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <qemu-plugin.h>

QEMU_PLUGIN_EXPORT int qemu_plugin_version = QEMU_PLUGIN_VERSION;

#define KERNEL_BASE 0xffff800000000000ULL

/* one cache line per vCPU, written only by that vCPU's thread */
struct vcpu_count {
	uint64_t kernel, user;
} __attribute__((aligned(64)));

static struct vcpu_count *counts;
static unsigned int n_counts;
static uint64_t start_pc, stop_pc;
static FILE *out;
static bool percpu;

static GMutex lock;		/* protects the window state below */
static int open_window, n_window;
static uint64_t k0, u0;		/* totals when the window opened */
static gint64 t0;		/* host monotonic time then (us) */
static uint64_t *vk0;		/* per-vCPU kernel counts then (percpu=on) */

/* --- the cache model (cache=on) ---------------------------------------- */

enum { EV_LOAD, EV_STORE, EV_L1D_MISS, EV_LLC_MISS, EV_XFER, N_EV };
static const char *const ev_name[N_EV] = { "loads", "stores", "l1d_miss", "llc_miss", "xfer" };
enum { CL_USER, CL_KERNEL };

static bool cache_on;
static unsigned int count_mask = 1 << CL_KERNEL;	/* classes the window counts */
static uint64_t line_size = 64, l1d_size = 32768, l1d_assoc = 8;
static uint64_t llc_size = 2 << 20, llc_assoc = 16;
static uint64_t lat_l1d = 14, lat_llc = 200, lat_xfer = 100;

/*
 * A set is an array of ways in LRU order, most recent first; a way holds
 * (line number + 1) << 2 | state, 0 when invalid (invalid ways are kept at
 * the end).  LLC ways use state S only.
 */
enum { ST_S = 1, ST_E = 2, ST_M = 3 };
struct cache {
	uint64_t *way;		/* n_sets * assoc */
	uint64_t set_mask;
	unsigned int assoc;
};

struct dir_entry {
	uint32_t seen;		/* vCPUs that read the line since its last write */
	uint32_t writer;	/* last writer + 1, 0: none */
};
#define DIR_CHUNK_SHIFT 21	/* 2 MiB of physical memory per chunk */
#define DIR_MAX_PHYS (1ULL << 40)

static struct cache *l1d;	/* one per vCPU */
static struct cache llc;
static unsigned int line_shift;
static struct dir_entry **dir;	/* chunks, allocated on first touch */
/* per vCPU, per class (CL_*): only the one TCG thread writes them */
struct vcpu_ev {
	uint64_t e[2][N_EV];
} __attribute__((aligned(64)));
static struct vcpu_ev *ev;
static uint64_t ev0[N_EV];	/* window totals when it opened */
static uint64_t n_io, n_nophys;
static int tcg_threads;		/* host threads seen translating (MTTCG check) */

static bool cache_init(struct cache *c, uint64_t size, uint64_t assoc)
{
	uint64_t sets = size / line_size / assoc;

	c->assoc = assoc;
	c->set_mask = sets - 1;
	c->way = calloc(sets * assoc, sizeof(*c->way));
	return c->way != NULL;
}

static inline uint64_t *cache_set(struct cache *c, uint64_t line)
{
	return &c->way[(line & c->set_mask) * c->assoc];
}

/* the way holding LINE in set S, or -1 */
static inline int set_find(const uint64_t *s, unsigned int assoc, uint64_t line)
{
	uint64_t t = line + 1;

	for (unsigned int i = 0; i < assoc; i++)
		if (s[i] >> 2 == t)
			return i;
	return -1;
}

/* move way I to the front (most recently used) with its new value V */
static inline void set_touch(uint64_t *s, int i, uint64_t v)
{
	memmove(s + 1, s, i * sizeof(*s));
	s[0] = v;
}

/* insert LINE with STATE at the front, evicting the least recently used */
static inline void set_fill(uint64_t *s, unsigned int assoc, uint64_t line, unsigned int state)
{
	set_touch(s, assoc - 1, (line + 1) << 2 | state);
}

/* drop way I, keeping the invalid ways at the end */
static inline void set_drop(uint64_t *s, unsigned int assoc, int i)
{
	memmove(s + i, s + i + 1, (assoc - 1 - i) * sizeof(*s));
	s[assoc - 1] = 0;
}

/* the LLC access of an L1D miss: true on a hit; fills on a miss */
static inline bool llc_access(uint64_t line)
{
	uint64_t *s = cache_set(&llc, line);
	int i = set_find(s, llc.assoc, line);

	if (i >= 0) {
		set_touch(s, i, s[i]);
		return true;
	}
	set_fill(s, llc.assoc, line, ST_S);
	return false;
}

static inline struct dir_entry *dir_get(uint64_t pa)
{
	struct dir_entry **c = &dir[pa >> DIR_CHUNK_SHIFT];

	if (!*c)
		*c = g_new0(struct dir_entry, 1 << (DIR_CHUNK_SHIFT - line_shift));
	return &(*c)[(pa & ((1 << DIR_CHUNK_SHIFT) - 1)) >> line_shift];
}

/*
 * One access of vCPU V to physical address PA; E: the events of its class.
 * See the top of the file for the events' definitions.
 */
static void model_access(unsigned int v, uint64_t pa, bool store, uint64_t *e)
{
	uint64_t line = pa >> line_shift;
	uint64_t *s = cache_set(&l1d[v], line);
	unsigned int a = l1d[v].assoc;
	int i = set_find(s, a, line);
	uint32_t me = 1u << v, others;
	struct dir_entry *d;
	bool xfer = false;

	e[store ? EV_STORE : EV_LOAD]++;
	if (i >= 0) {
		unsigned int st = s[i] & 3;

		if (!store || st == ST_M) {	/* a load hit, a store to a modified line */
			set_touch(s, i, s[i]);
			return;
		}
		d = dir_get(pa);
		if (st == ST_E) {		/* only this vCPU has it: now modified */
			d->writer = v + 1;
			set_touch(s, i, s[i] | ST_M);
			return;
		}
	} else {
		e[EV_L1D_MISS]++;
		d = dir_get(pa);
		xfer = d->writer && d->writer != v + 1 && !(d->seen & me);
	}
	/* a load miss, or a store to a line other vCPUs may hold */
	others = d->seen & ~me;
	while (others) {
		unsigned int u = __builtin_ctz(others);
		uint64_t *su = cache_set(&l1d[u], line);
		int j = set_find(su, a, line);

		others &= others - 1;
		if (j < 0)
			continue;
		if (store) {			/* invalidate its copy */
			set_drop(su, a, j);
			xfer = true;
		} else if ((su[j] & 3) != ST_S) {	/* no longer its alone */
			su[j] = (su[j] & ~3ULL) | ST_S;
		}
	}
	if (i < 0 && !llc_access(line) && !xfer)
		e[EV_LLC_MISS]++;
	if (xfer)
		e[EV_XFER]++;
	if (store) {
		d->seen = me;
		d->writer = v + 1;
	} else {
		d->seen |= me;
	}
	{
		unsigned int st = store ? ST_M : d->seen != me ? ST_S : d->writer == v + 1 ? ST_M : ST_E;

		if (i >= 0)
			set_touch(s, i, (line + 1) << 2 | st);
		else
			set_fill(s, a, line, st);
	}
}

static void mem_access(unsigned int vcpu, qemu_plugin_meminfo_t info, uint64_t vaddr, void *udata)
{
	struct qemu_plugin_hwaddr *hw = qemu_plugin_get_hwaddr(info, vaddr);
	enum qemu_plugin_mem_rw rw;
	uint64_t pa, *e;

	if (vcpu >= n_counts)
		vcpu = n_counts - 1;
	if (hw && qemu_plugin_hwaddr_is_io(hw)) {
		n_io++;
		return;
	}
	pa = hw ? qemu_plugin_hwaddr_phys_addr(hw) : DIR_MAX_PHYS;
	if (pa >= DIR_MAX_PHYS) {
		n_nophys++;
		return;
	}
	e = ev[vcpu].e[(uintptr_t)udata];
	/* an atomic read-modify-write (MTTCG only) comes as one RW access */
	rw = qemu_plugin_mem_is_store(info) ? QEMU_PLUGIN_MEM_W : QEMU_PLUGIN_MEM_R;
	model_access(vcpu, pa, rw == QEMU_PLUGIN_MEM_W, e);
}

/* window totals of the counted classes */
static void ev_totals(uint64_t *t)
{
	memset(t, 0, N_EV * sizeof(*t));
	for (unsigned int i = 0; i < n_counts; i++)
		for (int c = 0; c < 2; c++)
			for (int k = 0; cache_on && (count_mask & 1 << c) && k < N_EV; k++)
				t[k] += ev[i].e[c][k];
}

static void emit(const char *s)
{
	if (out) {
		fputs(s, out);
		fflush(out);
	} else {
		qemu_plugin_outs(s);
	}
}

/* --- instruction counting and windows ------------------------------------ */

static void tb_exec(unsigned int vcpu, void *udata)
{
	uintptr_t v = (uintptr_t)udata;	/* insns << 1 | is_kernel */
	struct vcpu_count *c = &counts[vcpu < n_counts ? vcpu : n_counts - 1];
	uint64_t *p = (v & 1) ? &c->kernel : &c->user;

	/* one writer per slot (its vCPU thread); relaxed store for the readers */
	__atomic_store_n(p, *p + (v >> 1), __ATOMIC_RELAXED);
}

static void totals(uint64_t *k, uint64_t *u)
{
	*k = *u = 0;
	for (unsigned int i = 0; i < n_counts; i++) {
		*k += __atomic_load_n(&counts[i].kernel, __ATOMIC_RELAXED);
		*u += __atomic_load_n(&counts[i].user, __ATOMIC_RELAXED);
	}
}

static void mark_start(unsigned int vcpu, void *udata)
{
	g_mutex_lock(&lock);
	totals(&k0, &u0);	/* a second start while open restarts the window */
	for (unsigned int i = 0; percpu && i < n_counts; i++)
		vk0[i] = __atomic_load_n(&counts[i].kernel, __ATOMIC_RELAXED);
	ev_totals(ev0);
	open_window = 1;
	t0 = g_get_monotonic_time();
	g_mutex_unlock(&lock);
}

static void mark_stop(unsigned int vcpu, void *udata)
{
	uint64_t k, u;
	GString *line;

	g_mutex_lock(&lock);
	if (open_window) {
		totals(&k, &u);
		open_window = 0;
		line = g_string_new(NULL);
		g_string_printf(line, "window %d kernel_insns %" PRIu64 " user_insns %" PRIu64
				" host_ns %" PRId64, ++n_window, k - k0, u - u0,
				(int64_t)(g_get_monotonic_time() - t0) * 1000);
		for (unsigned int i = 0; percpu && i < n_counts; i++)
			g_string_append_printf(line, "%s%" PRIu64, i ? "," : " vcpu_kernel ",
					       __atomic_load_n(&counts[i].kernel, __ATOMIC_RELAXED) - vk0[i]);
		if (cache_on) {
			uint64_t t[N_EV], cost = 0;

			ev_totals(t);
			for (int i = 0; i < N_EV; i++) {
				t[i] -= ev0[i];
				g_string_append_printf(line, " %s %" PRIu64, ev_name[i], t[i]);
			}
			if (count_mask & 1 << CL_KERNEL)
				cost += k - k0;
			if (count_mask & 1 << CL_USER)
				cost += u - u0;
			cost += lat_l1d * t[EV_L1D_MISS] + lat_llc * t[EV_LLC_MISS] + lat_xfer * t[EV_XFER];
			g_string_append_printf(line, " cost %" PRIu64, cost);
		}
		g_string_append_c(line, '\n');
		emit(line->str);
		g_string_free(line, TRUE);
	}
	g_mutex_unlock(&lock);
}

static void tb_trans(qemu_plugin_id_t id, struct qemu_plugin_tb *tb)
{
	static __thread bool counted;
	uint64_t pc = qemu_plugin_tb_vaddr(tb);
	size_t n = qemu_plugin_tb_n_insns(tb);
	int kernel = pc >= KERNEL_BASE;

	if (cache_on && !counted) {
		counted = true;
		if (__atomic_add_fetch(&tcg_threads, 1, __ATOMIC_SEQ_CST) > 1) {
			fprintf(stderr, "kinsn: cache=on needs single-threaded TCG (-accel tcg,thread=single, "
				"or -icount), but a second host thread runs guest code (MTTCG): stopping\n");
			exit(1);
		}
	}
	qemu_plugin_register_vcpu_tb_exec_cb(tb, tb_exec, QEMU_PLUGIN_CB_NO_REGS,
					     (void *)(uintptr_t)(n << 1 | kernel));
	for (size_t i = 0; cache_on && i < n; i++) {
		struct qemu_plugin_insn *insn = qemu_plugin_tb_get_insn(tb, i);

		qemu_plugin_register_vcpu_mem_cb(insn, mem_access, QEMU_PLUGIN_CB_NO_REGS, QEMU_PLUGIN_MEM_RW,
			(void *)(uintptr_t)(qemu_plugin_insn_vaddr(insn) >= KERNEL_BASE ? CL_KERNEL : CL_USER));
	}
	if (kernel)
		return;
	/* markers: any instruction of a user block, not only its first */
	for (size_t i = 0; i < n; i++) {
		struct qemu_plugin_insn *insn = qemu_plugin_tb_get_insn(tb, i);
		uint64_t a = qemu_plugin_insn_vaddr(insn);

		if (a == start_pc)
			qemu_plugin_register_vcpu_insn_exec_cb(insn, mark_start,
							       QEMU_PLUGIN_CB_NO_REGS, NULL);
		if (a == stop_pc)
			qemu_plugin_register_vcpu_insn_exec_cb(insn, mark_stop,
							       QEMU_PLUGIN_CB_NO_REGS, NULL);
	}
}

static void at_exit(qemu_plugin_id_t id, void *udata)
{
	g_mutex_lock(&lock);
	if (cache_on) {
		GString *line = g_string_new("kinsn-total");
		uint64_t t[N_EV] = { 0 };

		for (unsigned int i = 0; i < n_counts; i++)
			for (int c = 0; c < 2; c++)
				for (int k = 0; k < N_EV; k++)
					t[k] += ev[i].e[c][k];
		for (int k = 0; k < N_EV; k++)
			g_string_append_printf(line, " %s %" PRIu64, ev_name[k], t[k]);
		g_string_append_printf(line, " io %" PRIu64 " nophys %" PRIu64 "\n", n_io, n_nophys);
		emit(line->str);
		g_string_free(line, TRUE);
	}
	if (out)
		fclose(out);
	out = NULL;
	g_mutex_unlock(&lock);
}

/* --- options ------------------------------------------------------------- */

static int parse_addr(const char *s, uint64_t *a)
{
	char *end;

	*a = strtoull(s, &end, 0);
	return *s && !*end && *a;
}

/* a positive decimal number, with an optional K or M suffix (x1024) */
static int parse_num(const char *s, uint64_t *n)
{
	char *end;

	if (*s < '0' || *s > '9')
		return 0;
	*n = strtoull(s, &end, 10);
	if (*end == 'K' || *end == 'k')
		*n <<= 10, end++;
	else if (*end == 'M' || *end == 'm')
		*n <<= 20, end++;
	return !*end && *n && *n < (1ULL << 40);
}

static bool pow2(uint64_t n)
{
	return n && !(n & (n - 1));
}

/* why SIZE/ASSOC with LINE-byte lines is not a cache this model can build */
static const char *geometry_error(uint64_t size, uint64_t assoc)
{
	if (assoc > 64)
		return "associativity above 64";
	if (size % (line_size * assoc))
		return "size not a multiple of line x associativity";
	if (!pow2(size / (line_size * assoc)))
		return "number of sets (size / line / associativity) not a power of two";
	return NULL;
}

#define USAGE "start=ADDR,stop=ADDR[,out=PATH][,percpu=on][,cache=on[,count=kernel|user|all]" \
	"[,line=N][,l1d_size=N][,l1d_assoc=N][,llc_size=N][,llc_assoc=N][,lat_l1d=N][,lat_llc=N][,lat_xfer=N]]"

QEMU_PLUGIN_EXPORT int qemu_plugin_install(qemu_plugin_id_t id, const qemu_info_t *info,
					   int argc, char **argv)
{
	static const struct { const char *name; uint64_t *val; } nums[] = {
		{ "line", &line_size }, { "l1d_size", &l1d_size }, { "l1d_assoc", &l1d_assoc },
		{ "llc_size", &llc_size }, { "llc_assoc", &llc_assoc },
		{ "lat_l1d", &lat_l1d }, { "lat_llc", &lat_llc }, { "lat_xfer", &lat_xfer },
	};
	const char *path = NULL, *model_opt = NULL, *err;
	const char *count_name = "kernel";

	for (int i = 0; i < argc; i++) {
		const char *a = argv[i], *eq = strchr(a, '=');
		size_t k;

		if (!strncmp(a, "start=", 6) && parse_addr(a + 6, &start_pc))
			continue;
		if (!strncmp(a, "stop=", 5) && parse_addr(a + 5, &stop_pc))
			continue;
		if (!strncmp(a, "out=", 4) && a[4]) {
			path = a + 4;
			continue;
		}
		if (!strncmp(a, "percpu=", 7) && qemu_plugin_bool_parse("percpu", a + 7, &percpu))
			continue;
		if (!strncmp(a, "cache=", 6) && qemu_plugin_bool_parse("cache", a + 6, &cache_on))
			continue;
		if (!strncmp(a, "count=", 6)) {
			count_name = a + 6;
			model_opt = a;
			if (!strcmp(count_name, "kernel"))
				count_mask = 1 << CL_KERNEL;
			else if (!strcmp(count_name, "user"))
				count_mask = 1 << CL_USER;
			else if (!strcmp(count_name, "all"))
				count_mask = 1 << CL_KERNEL | 1 << CL_USER;
			else
				goto bad;
			continue;
		}
		for (k = 0; eq && k < G_N_ELEMENTS(nums); k++)
			if (strlen(nums[k].name) == (size_t)(eq - a) && !strncmp(a, nums[k].name, eq - a))
				break;
		if (eq && k < G_N_ELEMENTS(nums)) {
			if (!parse_num(eq + 1, nums[k].val)) {
				fprintf(stderr, "kinsn: bad value in '%s' (want a positive number, K/M suffix allowed)\n", a);
				return -1;
			}
			model_opt = a;
			continue;
		}
bad:
		fprintf(stderr, "kinsn: bad argument '%s' (want " USAGE ")\n", a);
		return -1;
	}
	if (!start_pc || !stop_pc || start_pc == stop_pc || start_pc >= KERNEL_BASE ||
	    stop_pc >= KERNEL_BASE) {
		fprintf(stderr, "kinsn: need distinct user-space start=ADDR and stop=ADDR\n");
		return -1;
	}
	if (!info->system_emulation) {
		fprintf(stderr, "kinsn: needs full system emulation\n");
		return -1;
	}
	if (model_opt && !cache_on) {
		fprintf(stderr, "kinsn: '%s' is an option of the cache model: add cache=on\n", model_opt);
		return -1;
	}
	if (cache_on) {
		if (!pow2(line_size) || line_size < 8 || line_size > 4096) {
			fprintf(stderr, "kinsn: line=%" PRIu64 ": want a power of two from 8 to 4096\n", line_size);
			return -1;
		}
		if ((err = geometry_error(l1d_size, l1d_assoc))) {
			fprintf(stderr, "kinsn: L1D l1d_size=%" PRIu64 " l1d_assoc=%" PRIu64 " line=%" PRIu64 ": %s\n",
				l1d_size, l1d_assoc, line_size, err);
			return -1;
		}
		if ((err = geometry_error(llc_size, llc_assoc))) {
			fprintf(stderr, "kinsn: LLC llc_size=%" PRIu64 " llc_assoc=%" PRIu64 " line=%" PRIu64 ": %s\n",
				llc_size, llc_assoc, line_size, err);
			return -1;
		}
		if (info->system.max_vcpus > 32) {
			fprintf(stderr, "kinsn: cache=on models up to 32 vCPUs, not %d\n", info->system.max_vcpus);
			return -1;
		}
	}
	if (path && !(out = fopen(path, "a"))) {
		fprintf(stderr, "kinsn: cannot open %s for appending\n", path);
		return -1;
	}
	/* vcpu indexes are 0..max_vcpus-1 (tb_exec clamps, just in case) */
	n_counts = info->system.max_vcpus > 0 ? info->system.max_vcpus : 1;
	counts = aligned_alloc(64, n_counts * sizeof(*counts));
	vk0 = g_new0(uint64_t, n_counts);
	if (!counts)
		return -1;
	memset(counts, 0, n_counts * sizeof(*counts));
	if (cache_on) {
		line_shift = __builtin_ctzll(line_size);
		l1d = g_new0(struct cache, n_counts);
		ev = aligned_alloc(64, n_counts * sizeof(*ev));
		dir = calloc(DIR_MAX_PHYS >> DIR_CHUNK_SHIFT, sizeof(*dir));
		if (ev)
			memset(ev, 0, n_counts * sizeof(*ev));
		else
			dir = NULL;
		for (unsigned int i = 0; i < n_counts; i++)
			if (!cache_init(&l1d[i], l1d_size, l1d_assoc))
				dir = NULL;
		if (!dir || !cache_init(&llc, llc_size, llc_assoc)) {
			fprintf(stderr, "kinsn: out of memory for the cache model\n");
			return -1;
		}
		GString *h = g_string_new(NULL);
		g_string_printf(h, "kinsn-cache line %" PRIu64 " l1d_size %" PRIu64 " l1d_assoc %" PRIu64
				" llc_size %" PRIu64 " llc_assoc %" PRIu64 " lat_l1d %" PRIu64 " lat_llc %" PRIu64
				" lat_xfer %" PRIu64 " count %s\n", line_size, l1d_size, l1d_assoc, llc_size,
				llc_assoc, lat_l1d, lat_llc, lat_xfer, count_name);
		emit(h->str);
		g_string_free(h, TRUE);
	}
	qemu_plugin_register_vcpu_tb_trans_cb(id, tb_trans);
	qemu_plugin_register_atexit_cb(id, at_exit, NULL);
	return 0;
}
