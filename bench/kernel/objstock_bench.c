// SPDX-License-Identifier: GPL-2.0
/*
 * objstock bench: an in-kernel slab bulk microbenchmark, built into BOTH the
 * base and the patched bench kernels by scripts/bench.sh (it is not part of
 * the series).  In the memcg of the task that writes it:
 *
 *   echo "N SIZE ITERS [SINGLE [PHASES]]" > /sys/kernel/debug/objstock_slab_bench
 *
 * runs ITERS times kmem_cache_alloc_bulk() and kmem_cache_free_bulk() of N
 * objects of a SLAB_ACCOUNT cache of SIZE bytes (SINGLE=1: N
 * kmem_cache_alloc() then N kmem_cache_free() calls instead) and logs
 * "objstock_slab_bench n=N size=SIZE iters=ITERS single=S phases=P ns=NS".
 * The host counts guest instructions around the write (tools/kinsn).  One
 * cache per size is created at the first write of that size and kept.
 *
 * PHASES (default 1): the ITERS are run in P equal parts, part k with
 * k * PAGE_SIZE / P bytes held charged to the task's objcg (see the phase
 * file below), so that the count is an average over P evenly spaced phases
 * of the obj stock's sub-page byte count instead of whatever phase the
 * boot's history left.
 *
 *   echo BYTES > /sys/kernel/debug/objstock_phase
 *
 * charges BYTES to the writing task's objcg with obj_cgroup_charge() and
 * holds them (0: uncharges what is held).  Why: a CPU's obj stock slot keeps
 * the objcg's charged-but-unused bytes; charges and frees that add up to
 * zero leave that count's value modulo PAGE_SIZE unchanged (pages come and
 * go whole), and whether a charge/free cycle crosses a page boundary, and so
 * charges and uncharges a page every op, depends on it.  Holding k bytes
 * moves it by -k.  Userspace workloads pinned to one CPU write k before each
 * part of their loop, as the slab loop above does inside the kernel.  In the
 * root cgroup and with cgroup.memory=nokmem there is no objcg: a no-op.
 *
 *   echo 1 > /sys/kernel/debug/objstock_rcu_barrier
 *
 * waits for every call_rcu() callback queued so far to have run
 * (rcu_barrier()); 2: first for every kfree_rcu()/kvfree_rcu() batch and RCU
 * sheaf as well (kvfree_rcu_barrier(), which flushes the RCU sheaves of
 * every cache on every CPU: about 3.4 million guest instructions on the
 * bench kernels, against under 0.05 million for rcu_barrier() alone).  churn -s
 * writes 1 before opening and before closing its window, so that the window
 * counts the call_rcu() frees of its own objects (tmpfs xattrs are freed
 * that way), not of the warm-up's or the previous workload's.
 *
 *   echo 1 > /sys/kernel/debug/objstock_drain
 *
 * drains every CPU's memcg and obj stocks, synchronously: each online CPU
 * runs drain_all_stock(root_mem_cgroup) itself (smp_call_on_cpu()), which
 * drains the local stocks in place.  memory.current read before and after
 * is the charge the stocks held: the accuracy check of the scale runs.
 *
 *   echo "hold ID N SIZE" > /sys/kernel/debug/objstock_hold
 *   echo "wait" > /sys/kernel/debug/objstock_hold
 *   echo "free ID" > /sys/kernel/debug/objstock_hold
 *
 * objects freed after their memcg is gone (churn's dying mode): hold
 * allocates N objects of the SIZE cache with kmem_cache_alloc(), charged to
 * the writing task's objcg, and keeps them as hold ID (0..4095); the task
 * then leaves the memcg and rmdirs it.  wait returns once the memcg of every
 * hold is offline (mem_cgroup_css_offline() is done: memcg_reparent_objcgs()
 * killed the objcg's percpu_ref, so that every get and put of it is an
 * atomic operation on one shared counter from then on), after an RCU
 * barrier, every CPU's stocks drained in place and 20 ms for the kworkers
 * the offline queued; -ETIMEDOUT after 500 rounds of rcu_barrier() and 20 ms.
 * A hold charged to no objcg or to root's has no memcg to wait for.  free
 * frees hold ID's objects with kmem_cache_free(), one by one, and nothing
 * else (the pointer array and the references go at the ID's next hold).  A hold whose task
 * died before its free stays for the boot (its ID answers -EBUSY).
 *
 * Several tasks may write objstock_slab_bench at once (the scale runs:
 * one worker per CPU) when PHASES is 1; the phase file has one holder.
 */
#include <linux/debugfs.h>
#include <linux/delay.h>
#include <linux/init.h>
#include <linux/ktime.h>
#include <linux/memcontrol.h>
#include <linux/mm.h>
#include <linux/mutex.h>
#include <linux/rcupdate.h>
#include <linux/smp.h>
#include <linux/slab.h>
#include <linux/uaccess.h>

#include "memcontrol-v1.h"	/* drain_all_stock() */

#define OB_MAX_N	1024
#define OB_NR_CACHES	8
#define OB_MAX_PHASES	64
#define OB_MAX_HOLDS	4096	/* churn's largest gang */
#define OB_MAX_HOLD_N	(1U << 20)

static DEFINE_MUTEX(ob_lock);	/* the cache list */
static struct kmem_cache *ob_caches[OB_NR_CACHES];
static unsigned int ob_sizes[OB_NR_CACHES];

/* the bytes held by the phase file: one holder at a time */
static DEFINE_MUTEX(ob_phase_lock);
static struct obj_cgroup *ob_phase_objcg;
static size_t ob_phase_bytes;

static void ob_release(void)
{
	if (ob_phase_objcg) {
		obj_cgroup_uncharge(ob_phase_objcg, ob_phase_bytes);
		obj_cgroup_put(ob_phase_objcg);
	}
	ob_phase_objcg = NULL;
	ob_phase_bytes = 0;
}

/* release what is held, then hold @bytes for the current task's objcg */
static int ob_hold(size_t bytes)
{
	struct obj_cgroup *objcg;
	int ret;

	ob_release();
	if (!bytes)
		return 0;
	objcg = get_obj_cgroup_from_current();
	if (!objcg)
		return 0;
	if (obj_cgroup_is_root(objcg)) {
		obj_cgroup_put(objcg);
		return 0;
	}
	ret = obj_cgroup_charge(objcg, GFP_KERNEL, bytes);
	if (ret) {
		obj_cgroup_put(objcg);
		return ret;
	}
	ob_phase_objcg = objcg;
	ob_phase_bytes = bytes;
	return 0;
}

static ssize_t ob_phase_write(struct file *file, const char __user *ubuf,
			      size_t count, loff_t *ppos)
{
	unsigned int bytes;
	int ret;

	ret = kstrtouint_from_user(ubuf, count, 10, &bytes);
	if (ret)
		return ret;
	if (bytes >= PAGE_SIZE)
		return -EINVAL;
	mutex_lock(&ob_phase_lock);
	ret = ob_hold(bytes);
	mutex_unlock(&ob_phase_lock);
	return ret ? ret : count;
}

static struct kmem_cache *ob_cache(unsigned int size)
{
	char name[32];
	int i;

	for (i = 0; i < OB_NR_CACHES && ob_caches[i]; i++)
		if (ob_sizes[i] == size)
			return ob_caches[i];
	if (i == OB_NR_CACHES)
		return NULL;
	snprintf(name, sizeof(name), "objstock_bench_%u", size);
	ob_caches[i] = kmem_cache_create(name, size, 0, SLAB_ACCOUNT, NULL);
	ob_sizes[i] = size;
	return ob_caches[i];
}

static ssize_t ob_write(struct file *file, const char __user *ubuf,
			size_t count, loff_t *ppos)
{
	unsigned int n, size, iters, single = 0, phases = 1, i, j, k;
	struct kmem_cache *cache;
	ssize_t ret = count;
	void **objs;
	char buf[64];
	u64 t0, t1;

	if (count >= sizeof(buf))
		return -EINVAL;
	if (copy_from_user(buf, ubuf, count))
		return -EFAULT;
	buf[count] = '\0';
	if (sscanf(buf, "%u %u %u %u %u", &n, &size, &iters, &single, &phases) < 3 ||
	    !n || n > OB_MAX_N || !size || size > KMALLOC_MAX_CACHE_SIZE ||
	    !phases || phases > OB_MAX_PHASES || iters % phases)
		return -EINVAL;

	mutex_lock(&ob_lock);
	cache = ob_cache(size);
	mutex_unlock(&ob_lock);
	if (!cache)
		return -ENOMEM;
	objs = kmalloc_array(n, sizeof(*objs), GFP_KERNEL);
	if (!objs)
		return -ENOMEM;
	if (phases > 1)
		mutex_lock(&ob_phase_lock);
	t0 = ktime_get_ns();
	for (k = 0; k < phases; k++) {
		if (phases > 1 && ob_hold(k * PAGE_SIZE / phases)) {
			ret = -ENOMEM;
			goto out;
		}
		for (i = 0; i < iters / phases && single; i++) {
			for (j = 0; j < n; j++) {
				objs[j] = kmem_cache_alloc(cache, GFP_KERNEL);
				if (!objs[j])
					break;
			}
			while (j)
				kmem_cache_free(cache, objs[--j]);
		}
		for (i = 0; i < iters / phases && !single; i++) {
			if (!kmem_cache_alloc_bulk(cache, GFP_KERNEL, n, objs)) {
				ret = -ENOMEM;
				goto out;
			}
			kmem_cache_free_bulk(cache, n, objs);
		}
	}
	t1 = ktime_get_ns();
	pr_info("objstock_slab_bench n=%u size=%u iters=%u single=%u phases=%u ns=%llu\n",
		n, size, iters, !!single, phases, t1 - t0);
out:
	if (phases > 1) {
		ob_release();
		mutex_unlock(&ob_phase_lock);
	}
	kfree(objs);
	return ret;
}

/* the holds of the dying mode, by ID */
struct ob_held {
	void **objs;		/* kept after the free, until the next hold */
	unsigned int n, size;	/* n = 0: freed */
	struct kmem_cache *cache;
	/* references, kept after the free too; NULL: root or none */
	struct obj_cgroup *objcg;
	struct mem_cgroup *memcg;
};
static DEFINE_MUTEX(ob_hold_lock);
static struct ob_held ob_holds[OB_MAX_HOLDS];

static int ob_drain_cpu(void *unused);

static int ob_hold_alloc(unsigned int id, unsigned int n, unsigned int size)
{
	struct ob_held h = { .n = n, .size = size }, old = {};
	unsigned int i;
	int ret = 0;

	mutex_lock(&ob_lock);
	h.cache = ob_cache(size);
	mutex_unlock(&ob_lock);
	if (!h.cache)
		return -ENOMEM;
	h.objs = kvmalloc_array(n, sizeof(*h.objs), GFP_KERNEL);
	if (!h.objs)
		return -ENOMEM;
	for (i = 0; i < n; i++) {
		h.objs[i] = kmem_cache_alloc(h.cache, GFP_KERNEL);
		if (!h.objs[i]) {
			ret = -ENOMEM;
			goto undo;
		}
		cond_resched();
	}
	h.objcg = get_obj_cgroup_from_current();
	if (h.objcg && obj_cgroup_is_root(h.objcg)) {
		obj_cgroup_put(h.objcg);
		h.objcg = NULL;
	}
	if (h.objcg)
		h.memcg = get_mem_cgroup_from_current();
	mutex_lock(&ob_hold_lock);
	if (!ob_holds[id].n) {
		old = ob_holds[id];
		ob_holds[id] = h;
	} else {
		ret = -EBUSY;
	}
	mutex_unlock(&ob_hold_lock);
	if (!ret) {
		/* what the ID's last free left, out of its window */
		kvfree(old.objs);
		if (old.objcg) {
			obj_cgroup_put(old.objcg);
			mem_cgroup_put(old.memcg);
		}
		return 0;
	}
	if (h.objcg) {
		obj_cgroup_put(h.objcg);
		mem_cgroup_put(h.memcg);
	}
undo:
	while (i)
		kmem_cache_free(h.cache, h.objs[--i]);
	kvfree(h.objs);
	return ret;
}

/* every held memcg offline, its kworkers done, the stocks empty */
static int ob_hold_wait(void)
{
	unsigned int id, tries, cpu;
	bool online;

	for (tries = 0; tries < 500; tries++) {
		online = false;
		mutex_lock(&ob_hold_lock);
		for (id = 0; id < OB_MAX_HOLDS; id++)
			if (ob_holds[id].n && ob_holds[id].memcg &&
			    css_is_online(&ob_holds[id].memcg->css))
				online = true;
		mutex_unlock(&ob_hold_lock);
		rcu_barrier();		/* the css kill's confirmation, the ref's switch */
		if (!online)
			break;
		msleep(20);		/* the offline work */
	}
	if (online)
		return -ETIMEDOUT;
	cpus_read_lock();
	for_each_online_cpu(cpu)
		smp_call_on_cpu(cpu, ob_drain_cpu, NULL, false);
	cpus_read_unlock();
	msleep(20);			/* drain_all_stock()'s queued work */
	return 0;
}

static int ob_hold_free(unsigned int id)
{
	struct kmem_cache *cache;
	unsigned int i, n;
	void **objs;

	mutex_lock(&ob_hold_lock);
	objs = ob_holds[id].objs;
	n = ob_holds[id].n;
	cache = ob_holds[id].cache;
	ob_holds[id].n = 0;
	mutex_unlock(&ob_hold_lock);
	if (!n)
		return -ENOENT;
	for (i = 0; i < n; i++)
		kmem_cache_free(cache, objs[i]);
	return 0;
}

static ssize_t ob_hold_write(struct file *file, const char __user *ubuf,
			     size_t count, loff_t *ppos)
{
	unsigned int id, n, size;
	char buf[64];
	int ret;

	if (count >= sizeof(buf))
		return -EINVAL;
	if (copy_from_user(buf, ubuf, count))
		return -EFAULT;
	buf[count] = '\0';
	if (sscanf(buf, "hold %u %u %u", &id, &n, &size) == 3) {
		if (id >= OB_MAX_HOLDS || !n || n > OB_MAX_HOLD_N || !size ||
		    size > KMALLOC_MAX_CACHE_SIZE)
			return -EINVAL;
		ret = ob_hold_alloc(id, n, size);
	} else if (sscanf(buf, "free %u", &id) == 1) {
		if (id >= OB_MAX_HOLDS)
			return -EINVAL;
		ret = ob_hold_free(id);
	} else if (!strncmp(buf, "wait", 4)) {
		ret = ob_hold_wait();
	} else {
		return -EINVAL;
	}
	return ret ? ret : count;
}

static ssize_t ob_barrier_write(struct file *file, const char __user *ubuf,
				size_t count, loff_t *ppos)
{
	unsigned int what;
	int ret;

	ret = kstrtouint_from_user(ubuf, count, 10, &what);
	if (ret)
		return ret;
	if (what != 1 && what != 2)
		return -EINVAL;
	if (what == 2)
		kvfree_rcu_barrier();
	rcu_barrier();
	return count;
}

static int ob_drain_cpu(void *unused)
{
	drain_all_stock(root_mem_cgroup);
	return 0;
}

static ssize_t ob_drain_write(struct file *file, const char __user *ubuf,
			      size_t count, loff_t *ppos)
{
	unsigned int cpu;

	cpus_read_lock();
	for_each_online_cpu(cpu)
		smp_call_on_cpu(cpu, ob_drain_cpu, NULL, false);
	cpus_read_unlock();
	return count;
}

static const struct file_operations ob_fops = {
	.write = ob_write,
	.llseek = noop_llseek,
};

static const struct file_operations ob_phase_fops = {
	.write = ob_phase_write,
	.llseek = noop_llseek,
};

static const struct file_operations ob_barrier_fops = {
	.write = ob_barrier_write,
	.llseek = noop_llseek,
};

static const struct file_operations ob_hold_fops = {
	.write = ob_hold_write,
	.llseek = noop_llseek,
};

static const struct file_operations ob_drain_fops = {
	.write = ob_drain_write,
	.llseek = noop_llseek,
};

static int __init ob_init(void)
{
	debugfs_create_file("objstock_slab_bench", 0200, NULL, NULL, &ob_fops);
	debugfs_create_file("objstock_phase", 0200, NULL, NULL, &ob_phase_fops);
	debugfs_create_file("objstock_rcu_barrier", 0200, NULL, NULL, &ob_barrier_fops);
	debugfs_create_file("objstock_drain", 0200, NULL, NULL, &ob_drain_fops);
	debugfs_create_file("objstock_hold", 0200, NULL, NULL, &ob_hold_fops);
	return 0;
}
late_initcall(ob_init);
