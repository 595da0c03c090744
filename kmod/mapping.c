// SPDX-License-Identifier: GPL-2.0
/*
 * /dev/kbloom: a filter's tables mapped read-only into a process, for
 * lookups without a system call (the protocol is uapi/kbloom.h).
 *
 * What is mapped are the tables' own pages (vmalloc memory, engine/compat.h)
 * and a header allocated at the first MAP, each page inserted with a
 * reference of its own: when the filter is destroyed and frees them, a
 * mapping goes on reading them, frozen, until it is unmapped. The header is
 * written under the ring's lock (rotation, CLEAR) or, before anyone can
 * map it, under the namespace's.
 *
 * Those pages stay charged as long as they live: a pin, made with the
 * header, holds the filter's charge once the filter is gone, and each
 * mapping (VMA) holds the pin. The last one to let go uncharges it.
 */
#include <linux/capability.h>
#include <linux/fs.h>
#include <linux/miscdevice.h>
#include <linux/mm.h>
#include <linux/module.h>
#include <linux/nsproxy.h>
#include <linux/refcount.h>
#include <linux/sched.h>
#include <linux/slab.h>
#include <linux/uaccess.h>
#include <linux/vmalloc.h>
#include <net/net_namespace.h>

#include "kcompat.h"
#include "mapping.h"
#include "netlink.h"
#include "registry.h"

/*
 * The charge of a mapped filter: one reference the filter's, one each
 * mapping's. Its namespace outlives it: a mapping holds its file, and the
 * file the netns.
 */
struct kb_map_pin {
	refcount_t ref;
	struct kb_net *kn;
	u64 bytes;			/* set when the filter goes */
};

static void kb_map_pin_put(struct kb_map_pin *pin)
{
	if (!refcount_dec_and_test(&pin->ref))
		return;
	if (pin->bytes) {
		atomic64_sub(pin->bytes, &pin->kn->mem_mapped_gone);
		kb_mem_uncharge(pin->kn, pin->bytes);
	}
	kfree(pin);
}

u64 kb_map_outlive(struct kb_ring *r, u64 bytes)
{
	struct kb_map_pin *pin = r->pin;

	if (!pin)
		return bytes;
	r->pin = NULL;
	pin->bytes = bytes + kb_map_hdr_bytes(r);
	atomic64_add(pin->bytes, &pin->kn->mem_mapped_gone);
	kb_map_pin_put(pin);
	return 0;
}

static void kb_map_vm_open(struct vm_area_struct *vma)
{
	struct kb_map_pin *pin = vma->vm_private_data;

	refcount_inc(&pin->ref);
}

static void kb_map_vm_close(struct vm_area_struct *vma)
{
	kb_map_pin_put(vma->vm_private_data);
}

/* A fork or a split adds a mapping; munmap and exit take one away. */
static const struct vm_operations_struct kb_map_vm_ops = {
	.open = kb_map_vm_open,
	.close = kb_map_vm_close,
};

/* A file's binding: set once by MAP, then only read. */
struct kb_mapfile {
	struct mutex lock;		/* MAP against MAP */
	struct net *net;		/* NULL until bound; a reference */
	u64 serial;			/* the filter's: not a later namesake */
	char name[KBLOOM_NAME_MAX];
};

u64 kb_map_hdr_bytes(const struct kb_ring *r)
{
	return PAGE_ALIGN(struct_size(r->map, window, r->nwindows));
}

static u64 kb_map_stride(const struct kb_ring *r)
{
	return PAGE_ALIGN(kb_filter_mem_for(&kb_ring_shape(r)->s));
}

static u64 kb_map_size(const struct kb_ring *r)
{
	return r->map->cells_off + (u64)r->map->ntables * kb_map_stride(r);
}

void kb_map_write_begin(struct kb_ring *r)
{
	struct kbloom_map_header *h = r->map;

	if (!h)
		return;
	WRITE_ONCE(h->seq, h->seq + 1);
	/* Odd before any change is seen; pairs with the reader's barrier. */
	smp_wmb();
}

void kb_map_write_end(struct kb_ring *r)
{
	const struct kb_winset *set;
	struct kbloom_map_header *h = r->map;
	u32 i;

	if (!h)
		return;
	set = kb_window_set(r);
	for (i = 0; i < set->n; i++) {
		const struct kb_window *w = set->w[i];
		struct kbloom_map_window *e = &h->window[i];

		e->table = w - r->tables;
		e->id = w->id;
		e->start_ns = w->start_ns;
		e->end_ns = READ_ONCE(w->end_ns);
	}
	h->nwindows = set->n;
	/* Every change seen before seq is even again. */
	smp_wmb();
	WRITE_ONCE(h->seq, h->seq + 1);
}

void kb_map_release(struct kb_ring *r)
{
	struct kbloom_map_header *h = r->map;

	if (!h)
		return;
	WRITE_ONCE(h->seq, h->seq + 1);
	/* As in write_begin and write_end. */
	smp_wmb();
	h->flags |= KBLOOM_MAP_F_DESTROYED;
	/* As in write_end. */
	smp_wmb();
	WRITE_ONCE(h->seq, h->seq + 1);
	r->map = NULL;
	/* Pages still mapped are freed when their last mapping goes. */
	vfree(h);
}

/* The header of @obj's first MAP: allocated, charged and filled. */
static int kb_map_header(struct kb_net *kn, struct kb_obj *obj)
{
	struct kb_ring *r = &obj->ring;
	const struct kb_filter *f = kb_ring_shape(r);
	u64 bytes = kb_map_hdr_bytes(r);
	struct kbloom_map_header *h;
	struct kb_map_pin *pin;

	if (r->map)
		return 0;
	/* Charged to the namespace, not to the filter's MEMORY (uapi). */
	if (kb_mem_charge(kn, bytes) != KB_LIMIT_NONE)
		return -ENOMEM;
	pin = kzalloc(sizeof(*pin), GFP_KERNEL_ACCOUNT);
	h = __vmalloc(bytes, GFP_KERNEL_ACCOUNT | __GFP_ZERO | __GFP_NOWARN);
	if (!h || !pin) {
		vfree(h);
		kfree(pin);
		kb_mem_uncharge(kn, bytes);
		return -ENOMEM;
	}
	refcount_set(&pin->ref, 1);
	pin->kn = kn;
	h->magic = KBLOOM_MAP_MAGIC;
	h->version = KBLOOM_MAP_VERSION;
	h->type = f->s.type;
	h->hashes = f->s.k;
	h->hash_fn = f->s.hash_fn;
	h->bits = f->s.m;
	h->counter_bits = f->s.cell_bits ? f->s.cell_bits : 1;
	h->update = f->s.update;
	h->decrement = f->s.decrement;
	h->subtables = f->s.subtables;
	h->bucket_cells = f->s.bucket_cells;
	h->fp_bits = f->s.fp_bits;
	h->dims = f->s.dims;
	h->ntables = kb_ring_ntables(r);
	kb_filter_hash_key(f, h->hash_key);
	h->cell_bytes = kb_filter_mem_for(&f->s);
	h->cells_off = bytes;
	h->table_stride = kb_map_stride(r);
	h->interval_ms = r->interval_ms;
	h->windows_max = r->nwindows;
	/* From now on rotations and CLEAR keep it current. */
	kb_ring_lock(r);
	r->pin = pin;
	r->map = h;
	kb_map_write_begin(r);
	kb_map_write_end(r);
	kb_ring_unlock(r);
	return 0;
}

/* Only the caller's family rights open a filter (netlink.c's rule). */
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
		err = kb_map_header(kn, obj);
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
	if (!err) {
		refcount_inc(&r->pin->ref);
		vma->vm_private_data = r->pin;
		vma->vm_ops = &kb_map_vm_ops;
	}
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
