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
		g_string_append_c(line, '\n');
		if (out) {
			fputs(line->str, out);
			fflush(out);
		} else {
			qemu_plugin_outs(line->str);
		}
		g_string_free(line, TRUE);
	}
	g_mutex_unlock(&lock);
}

static void tb_trans(qemu_plugin_id_t id, struct qemu_plugin_tb *tb)
{
	uint64_t pc = qemu_plugin_tb_vaddr(tb);
	size_t n = qemu_plugin_tb_n_insns(tb);
	int kernel = pc >= KERNEL_BASE;

	qemu_plugin_register_vcpu_tb_exec_cb(tb, tb_exec, QEMU_PLUGIN_CB_NO_REGS,
					     (void *)(uintptr_t)(n << 1 | kernel));
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
	if (out)
		fclose(out);
	out = NULL;
	g_mutex_unlock(&lock);
}

static int parse_addr(const char *s, uint64_t *a)
{
	char *end;

	*a = strtoull(s, &end, 0);
	return *s && !*end && *a;
}

QEMU_PLUGIN_EXPORT int qemu_plugin_install(qemu_plugin_id_t id, const qemu_info_t *info,
					   int argc, char **argv)
{
	const char *path = NULL;

	for (int i = 0; i < argc; i++) {
		const char *a = argv[i];

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
		fprintf(stderr, "kinsn: bad argument '%s' (want start=ADDR,stop=ADDR[,out=PATH][,percpu=on])\n", a);
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
	qemu_plugin_register_vcpu_tb_trans_cb(id, tb_trans);
	qemu_plugin_register_atexit_cb(id, at_exit, NULL);
	return 0;
}
