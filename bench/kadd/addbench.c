// SPDX-License-Identifier: GPL-2.0
/*
 * kb_addbench: the rate at which kbloom's engine adds keys inside the
 * kernel, beside which bench/pktpath.sh puts `bloomctl add -f` (the same
 * keys over netlink).
 *
 *   insmod kb_addbench.ko keys=N bits=M hashes=K
 *   cat /sys/module/kb_addbench/parameters/{ns,present}; rmmod kb_addbench
 *
 * Loading builds a bloom filter of M bits and K probes and adds N distinct
 * 28-byte digests, key i being the one pktpath.sh writes on line i of its
 * keys file, hashed and added 32 at a time as the ADD handler does
 * (kb_add_keys() in kmod/nl_keys.c). @ns is the time the adds took, the
 * keys made beforehand; @present counts the keys then found. The engine's
 * sources are compiled into this module as into kbloom.ko.
 *
 * It replaces function_graph on kb_add_keys: turning that tracer off
 * stalled a vCPU of the emulated test VM for minutes (a soft lockup).
 */
#include <linux/module.h>
#include <linux/moduleparam.h>
#include <linux/ktime.h>
#include <linux/random.h>
#include <linux/vmalloc.h>

#include "engine/filter.h"

#define KB_KEY_LEN	28
/* As kmod/nl_keys.c: keys hashed and applied together. */
#define KB_BATCH	32

static uint keys = 20000;
module_param(keys, uint, 0444);
MODULE_PARM_DESC(keys, "keys to add, at most 16777216 (default 20000)");
static ulong bits = 1UL << 24;
module_param(bits, ulong, 0444);
MODULE_PARM_DESC(bits, "bits of the bloom filter (default 2^24)");
static uint hashes = 7;
module_param(hashes, uint, 0444);
MODULE_PARM_DESC(hashes, "probes per key (default 7)");

static unsigned long long ns;
module_param(ns, ullong, 0444);
MODULE_PARM_DESC(ns, "result: nanoseconds the adds took");
static uint present;
module_param(present, uint, 0444);
MODULE_PARM_DESC(present, "result: keys found after the adds");

/*
 * Key i, as pktpath.sh prints it: an IPv4/UDP header prefix with source
 * 10.i (24 bits) and destination port field i & 0xffff.
 */
static void kb_make_key(u8 *k, u32 i)
{
	static const u8 tmpl[KB_KEY_LEN] = {
		0x45, 0x00, 0x00, 0x32, 0x00, 0x00, 0x00, 0x00,
		0x40, 0x11, 0x00, 0x00, 0x0a, 0x00, 0x00, 0x00,
		0xc6, 0x13, 0x00, 0x01, 0x00, 0x00, 0x00, 0x09,
		0x00, 0x1e, 0x00, 0x00,
	};

	memcpy(k, tmpl, KB_KEY_LEN);
	k[13] = i >> 16;
	k[14] = i >> 8;
	k[15] = i;
	k[20] = i >> 8;
	k[21] = i;
}

static void kb_add_all(struct kb_filter *f, const u8 *key)
{
	struct kb_hash h[KB_BATCH];
	u32 i, n = 0;

	for (i = 0; i < keys; i++) {
		kb_filter_hash(f, key + (size_t)i * KB_KEY_LEN, KB_KEY_LEN,
			       &h[n++]);
		if (n == KB_BATCH) {
			kb_filter_add_many(f, h, n);
			n = 0;
			cond_resched();	/* a million keys take a while */
		}
	}
	kb_filter_add_many(f, h, n);
}

static u32 kb_count_present(const struct kb_filter *f, const u8 *key)
{
	u32 i, found = 0;

	for (i = 0; i < keys; i++)
		found += kb_filter_test(f, key + (size_t)i * KB_KEY_LEN,
					KB_KEY_LEN);
	return found;
}

static int __init kb_addbench_init(void)
{
	struct kb_shape s = {
		.type = KBLOOM_TYPE_BLOOM, .m = bits, .k = hashes,
		.cell_bits = 1,
	};
	struct kb_filter f;
	u8 hkey[16];
	u8 *key;
	u64 t0;
	u32 i;
	int err;

	if (!keys || keys > 1U << 24) {
		pr_err("kb_addbench: keys=%u: give 1 to 16777216\n", keys);
		return -EINVAL;
	}
	if (kb_filter_check_shape(&s)) {
		pr_err("kb_addbench: bits=%lu hashes=%u: not a bloom filter kbloom can make\n",
		       bits, hashes);
		return -EINVAL;
	}
	key = vmalloc(array_size(keys, KB_KEY_LEN));
	if (!key)
		return -ENOMEM;
	for (i = 0; i < keys; i++)
		kb_make_key(key + (size_t)i * KB_KEY_LEN, i);
	get_random_bytes(hkey, sizeof(hkey));
	err = kb_filter_init(&f, &s, hkey);
	if (err) {
		vfree(key);
		return err;
	}

	t0 = ktime_get_ns();
	kb_add_all(&f, key);
	ns = ktime_get_ns() - t0;
	present = kb_count_present(&f, key);

	kb_filter_free(&f);
	vfree(key);
	return 0;
}

static void __exit kb_addbench_exit(void)
{
}

module_init(kb_addbench_init);
module_exit(kb_addbench_exit);
MODULE_LICENSE("GPL");
MODULE_DESCRIPTION("kbloom benchmark: the engine's in-kernel add rate");
