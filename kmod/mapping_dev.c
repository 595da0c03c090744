// SPDX-License-Identifier: GPL-2.0
/*
 * /dev/kbloom: a process binds a file to a filter by name (MAP) and maps
 * its tables read-only (mapping.c makes the header and holds the charge).
 * Above the registry and the family's rights (nl_base.h): nothing below
 * calls into it.
 */
#include <linux/capability.h>
#include <linux/fs.h>
#include <linux/miscdevice.h>
#include <linux/mm.h>
#include <linux/module.h>
#include <linux/nsproxy.h>
#include <linux/sched.h>
#include <linux/slab.h>
#include <linux/uaccess.h>
#include <linux/vmalloc.h>
#include <net/net_namespace.h>

#include "kcompat.h"
#include "mapping.h"
#include "mapping_dev.h"
#include "nl_base.h"
#include "registry.h"

/* A file's binding: set once by MAP, then only read. */
struct kb_mapfile {
	struct mutex lock;		/* MAP against MAP */
	struct net *net;		/* NULL until bound; a reference */
	u64 serial;			/* the filter's: not a later namesake */
	char name[KBLOOM_NAME_MAX];
};

/* Only the caller's family rights open a filter (nl_base.c's rule). */
static bool kb_map_allowed(struct file *file, struct net *net)
{
	struct user_namespace *ns = kb_admin_ns(net);

	return file_ns_capable(file, ns, CAP_NET_ADMIN) &&
	       ns_capable(ns, CAP_NET_ADMIN);
}

/* Every table's cells are whole pages of their own (engine/compat.h). */
static bool kb_map_pages_own(const struct kb_ring *r)
{
	return is_vmalloc_addr(kb_ring_shape(r)->mem);
}

static long kb_map_bind(struct file *file, void __user *arg)
{
	struct net *net = current->nsproxy->net_ns;
	struct kb_mapfile *mf = file->private_data;
	struct kbloom_map_req req;
	struct kb_net *kn;
	struct kb_obj *obj;
	long err;

	if (!kb_map_allowed(file, net))
		return -EPERM;
	if (copy_from_user(&req, arg, sizeof(req)))
		return -EFAULT;
	if (!req.name[0] || !memchr(req.name, 0, sizeof(req.name)))
		return -EINVAL;
	mutex_lock(&mf->lock);
	if (mf->net) {
		err = -EBUSY;
		goto out;
	}
	kn = kb_net(net);
	mutex_lock(&kn->lock);
	obj = kb_lookup(kn, req.name);
	if (!obj || kb_loading(obj))
		err = -ENOENT;
	else if (!kb_filter_viewable(kb_ring_shape(&obj->ring)) ||
		 !kb_map_pages_own(&obj->ring))
		err = -EOPNOTSUPP;
	else
		err = kb_map_header(kn, &obj->ring);
	if (!err) {
		/* The mapping holds what passed the hook before MAP. */
		kb_ring_settle(&obj->ring);
		req.size = kb_map_size(&obj->ring);
		mf->serial = obj->serial;
		strscpy(mf->name, req.name, sizeof(mf->name));
		/* Published last: mmap reads the rest after it. */
		smp_store_release(&mf->net, get_net(net));
	}
	mutex_unlock(&kn->lock);
out:
	mutex_unlock(&mf->lock);
	/* Outside the locks: a fault here takes the mmap_lock. */
	if (!err && copy_to_user(arg, &req, sizeof(req)))
		err = -EFAULT;
	return err;
}

/*
 * The filter @mf is bound to, under its namespace's lock (taken here and
 * held on success): NULL when it was destroyed since, or not yet bound.
 */
static struct kb_obj *kb_map_obj(struct kb_mapfile *mf, struct kb_net **knp)
{
	/* Pairs with kb_map_bind(): name and serial are set before net. */
	struct net *net = smp_load_acquire(&mf->net);
	struct kb_net *kn;
	struct kb_obj *obj;

	if (!net)
		return NULL;
	kn = kb_net(net);
	mutex_lock(&kn->lock);
	obj = kb_lookup(kn, mf->name);
	if (obj && obj->serial == mf->serial) {
		*knp = kn;
		return obj;
	}
	mutex_unlock(&kn->lock);
	return NULL;
}

static long kb_map_settle(struct kb_mapfile *mf)
{
	struct kb_net *kn;
	struct kb_obj *obj = kb_map_obj(mf, &kn);

	if (!obj)
		return -ENOENT;
	kb_ring_settle(&obj->ring);
	mutex_unlock(&kn->lock);
	return 0;
}

static long kb_map_count(struct kb_mapfile *mf, void __user *arg)
{
	struct kbloom_map_count c;
	struct kb_stats delta = {};
	struct kb_net *kn;
	struct kb_obj *obj;

	if (copy_from_user(&c, arg, sizeof(c)))
		return -EFAULT;
	if (c.positives > c.queries)
		return -EINVAL;
	obj = kb_map_obj(mf, &kn);
	if (!obj)
		return -ENOENT;
	delta.queries = c.queries;
	delta.positives = c.positives;
	kb_stats_add(obj, &delta);
	mutex_unlock(&kn->lock);
	return 0;
}

static long kb_map_ioctl(struct file *file, unsigned int cmd,
			 unsigned long arg)
{
	struct kb_mapfile *mf = file->private_data;

	switch (cmd) {
	case KBLOOM_IOC_MAP:
		return kb_map_bind(file, (void __user *)arg);
	case KBLOOM_IOC_SETTLE:
		return kb_map_settle(mf);
	case KBLOOM_IOC_COUNT:
		return kb_map_count(mf, (void __user *)arg);
	}
	return -ENOTTY;
}

/* @len bytes of vmalloc memory at @mem into @vma at @addr, page by page. */
static int kb_map_insert(struct vm_area_struct *vma, unsigned long addr,
			 const void *mem, u64 len)
{
	u64 off;
	int err;

	for (off = 0; off < len; off += PAGE_SIZE) {
		err = vm_insert_page(vma, addr + off,
				     vmalloc_to_page(mem + off));
		if (err)
			return err;
		if (!(off & (SZ_4M - 1)))
			cond_resched();
	}
	return 0;
}

static int kb_map_mmap(struct file *file, struct vm_area_struct *vma)
{
	struct kb_mapfile *mf = file->private_data;
	unsigned long addr = vma->vm_start;
	struct kb_ring *r;
	struct kb_net *kn;
	struct kb_obj *obj;
	u64 stride;
	u32 t;
	int err;

	/* Filter cells are data: never written, never run as code. */
	if (vma->vm_flags & (VM_WRITE | VM_EXEC))
		return -EPERM;
	/* Not bound yet: nothing to map (kb_map_obj() says gone). */
	if (!smp_load_acquire(&mf->net))
		return -EINVAL;
	obj = kb_map_obj(mf, &kn);
	if (!obj)
		return -ENOENT;
	r = &obj->ring;
	err = -EINVAL;
	if (vma->vm_pgoff || vma->vm_end - vma->vm_start != kb_map_size(r))
		goto out;
	/* Never writable nor executable, never grown, not in core dumps. */
	vm_flags_clear(vma, VM_MAYWRITE | VM_MAYEXEC);
	vm_flags_set(vma, VM_DONTEXPAND | VM_DONTDUMP);
	err = kb_map_insert(vma, addr, r->map, r->map->cells_off);
	addr += r->map->cells_off;
	stride = kb_map_stride(r);
	for (t = 0; !err && t < r->map->ntables; t++, addr += stride)
		err = kb_map_insert(vma, addr, r->tables[t].filter.mem, stride);
	/* On an error mmap unmaps what was inserted, without close. */
	if (!err)
		kb_map_vma_hold(r, vma);
out:
	mutex_unlock(&kn->lock);
	return err;
}

static int kb_map_open(struct inode *inode, struct file *file)
{
	struct kb_mapfile *mf = kzalloc(sizeof(*mf), GFP_KERNEL_ACCOUNT);

	if (!mf)
		return -ENOMEM;
	mutex_init(&mf->lock);
	file->private_data = mf;
	return 0;
}

static int kb_map_release_file(struct inode *inode, struct file *file)
{
	struct kb_mapfile *mf = file->private_data;

	if (mf->net)
		put_net(mf->net);
	mutex_destroy(&mf->lock);
	kfree(mf);
	return 0;
}

static const struct file_operations kb_map_fops = {
	.owner = THIS_MODULE,
	.open = kb_map_open,
	.release = kb_map_release_file,
	.unlocked_ioctl = kb_map_ioctl,
	.compat_ioctl = compat_ptr_ioctl,
	.mmap = kb_map_mmap,
	.llseek = noop_llseek,
};

/* Anyone may open it: MAP checks the caller's rights in its netns. */
static struct miscdevice kb_map_dev = {
	.minor = MISC_DYNAMIC_MINOR,
	.name = KBLOOM_DEV_NAME,
	.fops = &kb_map_fops,
	.mode = 0666,
};

int kb_map_init(void)
{
	return misc_register(&kb_map_dev);
}

void kb_map_exit(void)
{
	misc_deregister(&kb_map_dev);
}
