// SPDX-License-Identifier: GPL-2.0
/*
 * objstock bench: an in-kernel slab bulk microbenchmark, built into BOTH the
 * base and the patched bench kernels by scripts/bench.sh (it is not part of
 * the series).  In the memcg of the task that writes it:
 *
 *   echo "N SIZE ITERS [SINGLE]" > /sys/kernel/debug/objstock_slab_bench
 *
 * runs ITERS times kmem_cache_alloc_bulk() and kmem_cache_free_bulk() of N
 * objects of a SLAB_ACCOUNT cache of SIZE bytes (SINGLE=1: N
 * kmem_cache_alloc() then N kmem_cache_free() calls instead) and logs
 * "objstock_slab_bench n=N size=SIZE iters=ITERS single=S ns=NS".  The host
 * counts guest instructions around the write (tools/kinsn).  One cache per
 * size is created at the first write of that size and kept.
 */
#include <linux/debugfs.h>
#include <linux/init.h>
#include <linux/ktime.h>
#include <linux/mutex.h>
#include <linux/slab.h>
#include <linux/uaccess.h>

#define OB_MAX_N	1024
#define OB_NR_CACHES	8

static DEFINE_MUTEX(ob_lock);
static struct kmem_cache *ob_caches[OB_NR_CACHES];
static unsigned int ob_sizes[OB_NR_CACHES];
static void *ob_objs[OB_MAX_N];

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
	unsigned int n, size, iters, single = 0, i, j;
	struct kmem_cache *cache;
	ssize_t ret = count;
	char buf[64];
	u64 t0, t1;

	if (count >= sizeof(buf))
		return -EINVAL;
	if (copy_from_user(buf, ubuf, count))
		return -EFAULT;
	buf[count] = '\0';
	if (sscanf(buf, "%u %u %u %u", &n, &size, &iters, &single) < 3 ||
	    !n || n > OB_MAX_N || !size || size > KMALLOC_MAX_CACHE_SIZE)
		return -EINVAL;

	mutex_lock(&ob_lock);
	cache = ob_cache(size);
	if (!cache) {
		ret = -ENOMEM;
		goto out;
	}
	t0 = ktime_get_ns();
	for (i = 0; i < iters && single; i++) {
		for (j = 0; j < n; j++) {
			ob_objs[j] = kmem_cache_alloc(cache, GFP_KERNEL);
			if (!ob_objs[j])
				break;
		}
		while (j)
			kmem_cache_free(cache, ob_objs[--j]);
	}
	for (i = 0; i < iters && !single; i++) {
		if (!kmem_cache_alloc_bulk(cache, GFP_KERNEL, n, ob_objs)) {
			ret = -ENOMEM;
			goto out;
		}
		kmem_cache_free_bulk(cache, n, ob_objs);
	}
	t1 = ktime_get_ns();
	pr_info("objstock_slab_bench n=%u size=%u iters=%u single=%u ns=%llu\n",
		n, size, iters, !!single, t1 - t0);
out:
	mutex_unlock(&ob_lock);
	return ret;
}

static const struct file_operations ob_fops = {
	.write = ob_write,
	.llseek = noop_llseek,
};

static int __init ob_init(void)
{
	debugfs_create_file("objstock_slab_bench", 0200, NULL, NULL, &ob_fops);
	return 0;
}
late_initcall(ob_init);
