// SPDX-License-Identifier: GPL-2.0
/*
 * The kbloom netlink ABI, spoken raw (not through bloomctl), in the test VM
 * with kbloom.ko loaded:
 *
 *   test process --[genetlink "kbloom"]--> kbloom.ko (this netns)
 *        |  fork + unshare(CLONE_NEWNET)
 *        +--> child in a fresh netns --> kbloom.ko (its own registry)
 *
 * One behaviour per test; every refusal is checked for its errno, its
 * extack text where the module writes one, and for having changed nothing.
 */

#include <sched.h>
#include <stdlib.h>
#include <sys/wait.h>

#include "vm_harness.h"
#include "nlraw.h"

FIXTURE(kb) {
	struct nlr s;
	struct nlr_msg m;
};

FIXTURE_SETUP(kb)
{
	ASSERT_EQ(0, nlr_open(&self->s)) TH_LOG("kbloom family not found: is kbloom.ko loaded?");
	ASSERT_EQ(0, nlr_destroy_all(&self->s, &self->m));
}

FIXTURE_TEARDOWN(kb)
{
	nlr_destroy_all(&self->s, &self->m);
	close(self->s.fd);
}

TEST_F(kb, create_add_test_destroy)
{
	struct nlr *s = &self->s;
	struct nlattr *res;
	uint8_t *bits;
	int i;

	ASSERT_EQ(0, create(s, &self->m, "f1", 1 << 20, 7));
	ASSERT_EQ(0, keys_cmd(s, &self->m, KBLOOM_CMD_ADD, "f1", 0, 100));
	ASSERT_EQ(0, keys_cmd(s, &self->m, KBLOOM_CMD_TEST, "f1", 0, 100));
	EXPECT_EQ(100, reply_u32(s, KBLOOM_A_NKEYS));
	EXPECT_EQ(100, reply_u32(s, KBLOOM_A_NPRESENT));
	res = nlr_reply_attr(s, KBLOOM_A_RESULT);
	ASSERT_NE(NULL, res);
	ASSERT_EQ(NLA_HDRLEN + 13, res->nla_len);
	bits = (uint8_t *)res + NLA_HDRLEN;
	for (i = 0; i < 100; i++)
		EXPECT_TRUE(bits[i / 8] & (1 << (i % 8)));

	/* 1000 keys never added to a 1 Mbit filter holding 100: ~0 positives. */
	ASSERT_EQ(0, keys_cmd(s, &self->m, KBLOOM_CMD_TEST, "f1", 100000, 1000));
	EXPECT_GE(2, reply_u32(s, KBLOOM_A_NPRESENT));

	ASSERT_EQ(0, get(s, &self->m, "f1"));
	EXPECT_EQ(1 << 20, reply_u64(s, KBLOOM_A_BITS));
	EXPECT_EQ(7, reply_u32(s, KBLOOM_A_HASHES));
	/* 100 keys x 7 probes set at most 700 bits, and nearly all of them. */
	EXPECT_GE(700, reply_u64(s, KBLOOM_A_FILL));
	EXPECT_LE(690, reply_u64(s, KBLOOM_A_FILL));
	EXPECT_LE((1 << 20) / 8, reply_u64(s, KBLOOM_A_MEMORY));

	nlr_init(s, &self->m, s->family, KBLOOM_CMD_DESTROY, 0);
	nlr_put_str(&self->m, KBLOOM_A_NAME, "f1");
	ASSERT_EQ(0, nlr_send(s, &self->m));
	EXPECT_EQ(-ENOENT, get(s, &self->m, "f1"));
}

TEST_F(kb, clear_empties_and_bumps_generation)
{
	struct nlr *s = &self->s;
	uint64_t gen;

	ASSERT_EQ(0, create(s, &self->m, "c", 4096, 3));
	ASSERT_EQ(0, keys_cmd(s, &self->m, KBLOOM_CMD_ADD, "c", 0, 50));
	ASSERT_EQ(0, get(s, &self->m, "c"));
	gen = reply_u64(s, KBLOOM_A_GENERATION);
	nlr_init(s, &self->m, s->family, KBLOOM_CMD_CLEAR, 0);
	nlr_put_str(&self->m, KBLOOM_A_NAME, "c");
	ASSERT_EQ(0, nlr_send(s, &self->m));
	ASSERT_EQ(0, get(s, &self->m, "c"));
	EXPECT_EQ(0, reply_u64(s, KBLOOM_A_FILL));
	EXPECT_EQ(gen + 1, reply_u64(s, KBLOOM_A_GENERATION));
	ASSERT_EQ(0, keys_cmd(s, &self->m, KBLOOM_CMD_TEST, "c", 0, 50));
	EXPECT_EQ(0, reply_u32(s, KBLOOM_A_NPRESENT));
}

TEST_F(kb, duplicate_name_refused)
{
	struct nlr *s = &self->s;

	ASSERT_EQ(0, create(s, &self->m, "dup", 4096, 3));
	ASSERT_EQ(0, keys_cmd(s, &self->m, KBLOOM_CMD_ADD, "dup", 0, 10));
	EXPECT_EQ(-EEXIST, create(s, &self->m, "dup", 8192, 4));
	EXPECT_STREQ("a filter of that name exists in this namespace", s->extack);
	/* The first filter is untouched. */
	ASSERT_EQ(0, get(s, &self->m, "dup"));
	EXPECT_EQ(4096, reply_u64(s, KBLOOM_A_BITS));
	ASSERT_EQ(0, keys_cmd(s, &self->m, KBLOOM_CMD_TEST, "dup", 0, 10));
	EXPECT_EQ(10, reply_u32(s, KBLOOM_A_NPRESENT));
}

/* ATTACH at a netdev hook, with IFNAME when @dev is not NULL. */
static int attach_netdev(struct nlr *s, struct nlr_msg *m, const char *name,
			 uint32_t hook, const char *dev)
{
	nlr_init(s, m, s->family, KBLOOM_CMD_ATTACH, 0);
	nlr_put_str(m, KBLOOM_A_NAME, name);
	nlr_put_u32(m, KBLOOM_A_HOOK, hook);
	nlr_put_u32(m, KBLOOM_A_DIGEST, KBLOOM_DIGEST_SPIE);
	if (dev)
		nlr_put_str(m, KBLOOM_A_IFNAME, dev);
	return nlr_send(s, m);
}

/* HOOK ingress and egress are a device's hooks: no IFNAME, EINVAL. */
TEST_F(kb, netdev_hook_needs_ifname)
{
	struct nlr *s = &self->s;

	ASSERT_EQ(0, create(s, &self->m, "nd", 4096, 3));
	EXPECT_EQ(-EINVAL, attach_netdev(s, &self->m, "nd",
					 KBLOOM_HOOK_INGRESS, NULL));
	EXPECT_STREQ("HOOK ingress and egress need IFNAME: the device whose hook it is",
		     s->extack);
	EXPECT_EQ(-EINVAL, attach_netdev(s, &self->m, "nd",
					 KBLOOM_HOOK_EGRESS, NULL));
	EXPECT_STREQ("HOOK ingress and egress need IFNAME: the device whose hook it is",
		     s->extack);
	/* Nothing was attached. */
	ASSERT_EQ(0, get(s, &self->m, "nd"));
	EXPECT_EQ(NULL, nlr_reply_attr(s, KBLOOM_A_ATTACH));
}

/*
 * HOOK ingress dev lo: attached where the kernel has the netdev ingress
 * hook (Debian's 6.1 and 6.12), refused naming the option where it has
 * not (the debug kernel); the same for egress.
 */
TEST_F(kb, netdev_hook_attaches_or_names_the_missing_option)
{
	static const struct {
		uint32_t hook;
		const char *msg;
	} h[] = {
		{ KBLOOM_HOOK_INGRESS,
		  "this kernel has no netfilter ingress hook (CONFIG_NETFILTER_INGRESS)" },
		{ KBLOOM_HOOK_EGRESS,
		  "this kernel has no netfilter egress hook (CONFIG_NETFILTER_EGRESS)" },
	};
	struct nlr *s = &self->s;
	unsigned int i;
	int err;

	ASSERT_EQ(0, create(s, &self->m, "nd", 4096, 3));
	for (i = 0; i < 2; i++) {
		err = attach_netdev(s, &self->m, "nd", h[i].hook, "lo");
		if (err == -EOPNOTSUPP) {
			EXPECT_STREQ(h[i].msg, s->extack);
			continue;
		}
		ASSERT_EQ(0, err) TH_LOG("hook %u: %s", h[i].hook, s->extack);
		nlr_init(s, &self->m, s->family, KBLOOM_CMD_DETACH, 0);
		nlr_put_str(&self->m, KBLOOM_A_NAME, "nd");
		EXPECT_EQ(0, nlr_send(s, &self->m));
	}
}

/* CREATE FLAGS EXIST of the very filter: success, the filter untouched. */
TEST_F(kb, exist_same_filter_is_success)
{
	static const uint8_t key[16] = { 1, 2, 3 };
	struct nlr *s = &self->s;
	int i;

	for (i = 0; i < 2; i++) {
		create_msg(s, &self->m, "ex", KBLOOM_TYPE_BLOOM, 4096, 3);
		nlr_put(&self->m, KBLOOM_A_HASH_KEY, key, sizeof(key));
		nlr_put_u32(&self->m, KBLOOM_A_FLAGS, KBLOOM_F_EXIST);
		ASSERT_EQ(0, nlr_send(s, &self->m));
		if (!i)
			ASSERT_EQ(0, keys_cmd(s, &self->m, KBLOOM_CMD_ADD,
					      "ex", 0, 10));
	}
	/* without HASH_KEY: any key matches */
	create_msg(s, &self->m, "ex", KBLOOM_TYPE_BLOOM, 4096, 3);
	nlr_put_u32(&self->m, KBLOOM_A_FLAGS, KBLOOM_F_EXIST);
	ASSERT_EQ(0, nlr_send(s, &self->m));
	ASSERT_EQ(0, get(s, &self->m, "ex"));
	EXPECT_EQ(1, reply_u64(s, KBLOOM_A_GENERATION));
	ASSERT_EQ(0, keys_cmd(s, &self->m, KBLOOM_CMD_TEST, "ex", 0, 10));
	EXPECT_EQ(10, reply_u32(s, KBLOOM_A_NPRESENT));
}

/* CREATE FLAGS EXIST of another filter of the name: EEXIST, named. */
TEST_F(kb, exist_differing_filter_named)
{
	static const uint8_t key[16] = { 1, 2, 3 }, other[16] = { 4 };
	struct nlr *s = &self->s;

	create_msg(s, &self->m, "ex", KBLOOM_TYPE_BLOOM, 4096, 3);
	nlr_put(&self->m, KBLOOM_A_HASH_KEY, key, sizeof(key));
	ASSERT_EQ(0, nlr_send(s, &self->m));
	create_msg(s, &self->m, "ex", KBLOOM_TYPE_BLOOM, 8192, 3);
	nlr_put_u32(&self->m, KBLOOM_A_FLAGS, KBLOOM_F_EXIST);
	EXPECT_EQ(-EEXIST, nlr_send(s, &self->m));
	EXPECT_STREQ("a filter of that name exists with other bits (BITS)",
		     s->extack);
	create_msg(s, &self->m, "ex", KBLOOM_TYPE_BLOOM, 4096, 4);
	nlr_put_u32(&self->m, KBLOOM_A_FLAGS, KBLOOM_F_EXIST);
	EXPECT_EQ(-EEXIST, nlr_send(s, &self->m));
	EXPECT_STREQ("a filter of that name exists with other hashes (HASHES)",
		     s->extack);
	create_msg(s, &self->m, "ex", KBLOOM_TYPE_BLOOM, 4096, 3);
	nlr_put(&self->m, KBLOOM_A_HASH_KEY, other, sizeof(other));
	nlr_put_u32(&self->m, KBLOOM_A_FLAGS, KBLOOM_F_EXIST);
	EXPECT_EQ(-EEXIST, nlr_send(s, &self->m));
	EXPECT_STREQ("a filter of that name exists with another hash key (HASH_KEY)",
		     s->extack);
	ASSERT_EQ(0, get(s, &self->m, "ex"));
	EXPECT_EQ(4096, reply_u64(s, KBLOOM_A_BITS));
}

/*
 * HASH_FN: a known function only (the policy), reported by GET for every
 * filter of keys, 0 (SipHash-2-4) when CREATE did not give it; a filter
 * of another function with the same name is a different filter.
 */
TEST_F(kb, hash_fn_bounded_and_reported)
{
	struct nlr *s = &self->s;

	create_msg(s, &self->m, "h2", KBLOOM_TYPE_BLOOM, 4096, 3);
	nlr_put_u32(&self->m, KBLOOM_A_HASH_FN, KBLOOM_HASH_FN_MAX + 1);
	EXPECT_EQ(-ERANGE, nlr_send(s, &self->m));
	EXPECT_STREQ("integer out of range", s->extack);
	EXPECT_EQ(-ENOENT, get(s, &self->m, "h2"));

	create_msg(s, &self->m, "h13", KBLOOM_TYPE_BLOCKED, 4096, 3);
	nlr_put_u32(&self->m, KBLOOM_A_HASH_FN, KBLOOM_HASH_FN_SIPHASH13);
	ASSERT_EQ(0, nlr_send(s, &self->m));
	ASSERT_EQ(0, get(s, &self->m, "h13"));
	ASSERT_NE(NULL, nlr_reply_attr(s, KBLOOM_A_HASH_FN));
	EXPECT_EQ(KBLOOM_HASH_FN_SIPHASH13, reply_u32(s, KBLOOM_A_HASH_FN));

	create_msg(s, &self->m, "h24", KBLOOM_TYPE_BLOCKED, 4096, 3);
	ASSERT_EQ(0, nlr_send(s, &self->m));
	ASSERT_EQ(0, get(s, &self->m, "h24"));
	ASSERT_NE(NULL, nlr_reply_attr(s, KBLOOM_A_HASH_FN));
	EXPECT_EQ(KBLOOM_HASH_FN_SIPHASH24, reply_u32(s, KBLOOM_A_HASH_FN));

	create_msg(s, &self->m, "h24", KBLOOM_TYPE_BLOCKED, 4096, 3);
	nlr_put_u32(&self->m, KBLOOM_A_HASH_FN, KBLOOM_HASH_FN_SIPHASH13);
	nlr_put_u32(&self->m, KBLOOM_A_FLAGS, KBLOOM_F_EXIST);
	EXPECT_EQ(-EEXIST, nlr_send(s, &self->m));
	EXPECT_STREQ("a filter of that name exists with another hash function (HASH_FN)",
		     s->extack);
}

/* EXIST and LOAD together make no sense: refused, nothing made. */
TEST_F(kb, exist_with_load_refused)
{
	struct nlr *s = &self->s;

	create_msg(s, &self->m, "exl", KBLOOM_TYPE_BLOOM, 4096, 3);
	nlr_put_u32(&self->m, KBLOOM_A_FLAGS, KBLOOM_F_EXIST | KBLOOM_F_LOAD);
	EXPECT_EQ(-EINVAL, nlr_send(s, &self->m));
	EXPECT_STREQ("CREATE takes only the flag LOAD or the flag EXIST",
		     s->extack);
	EXPECT_EQ(-ENOENT, get(s, &self->m, "exl"));
}

TEST_F(kb, unknown_name_refused)
{
	struct nlr *s = &self->s;

	EXPECT_EQ(-ENOENT, get(s, &self->m, "nope"));
	EXPECT_STREQ("no filter of that name in this namespace", s->extack);
	EXPECT_EQ(-ENOENT, keys_cmd(s, &self->m, KBLOOM_CMD_ADD, "nope", 0, 1));
	EXPECT_EQ(-ENOENT, keys_cmd(s, &self->m, KBLOOM_CMD_TEST, "nope", 0, 1));
	nlr_init(s, &self->m, s->family, KBLOOM_CMD_DESTROY, 0);
	nlr_put_str(&self->m, KBLOOM_A_NAME, "nope");
	EXPECT_EQ(-ENOENT, nlr_send(s, &self->m));
	nlr_init(s, &self->m, s->family, KBLOOM_CMD_CLEAR, 0);
	nlr_put_str(&self->m, KBLOOM_A_NAME, "nope");
	EXPECT_EQ(-ENOENT, nlr_send(s, &self->m));
}

TEST_F(kb, oversized_key_refused_and_nothing_added)
{
	struct nlr *s = &self->s;
	static char big[KBLOOM_KEY_MAX + 1];
	struct nlr_msg *m = &self->m;
	size_t nest;

	memset(big, 'x', sizeof(big));
	ASSERT_EQ(0, create(s, m, "big", 1 << 16, 4));
	nlr_init(s, m, s->family, KBLOOM_CMD_ADD, 0);
	nlr_put_str(m, KBLOOM_A_NAME, "big");
	nest = nlr_nest_start(m, KBLOOM_A_KEYS);
	nlr_put(m, KBLOOM_KEYS_A_KEY, "ok-key", 6);
	nlr_put(m, KBLOOM_KEYS_A_KEY, big, sizeof(big));
	nlr_nest_end(m, nest);
	EXPECT_EQ(-ERANGE, nlr_send(s, m));
	EXPECT_NE(0, s->extack[0]);
	/* Validation precedes any add: the good key went in neither. */
	ASSERT_EQ(0, get(s, m, "big"));
	EXPECT_EQ(0, reply_u64(s, KBLOOM_A_FILL));
	/* Exactly the maximum is fine. */
	nlr_init(s, m, s->family, KBLOOM_CMD_ADD, 0);
	nlr_put_str(m, KBLOOM_A_NAME, "big");
	nest = nlr_nest_start(m, KBLOOM_A_KEYS);
	nlr_put(m, KBLOOM_KEYS_A_KEY, big, KBLOOM_KEY_MAX);
	nlr_nest_end(m, nest);
	EXPECT_EQ(0, nlr_send(s, m));
}

TEST_F(kb, empty_key_and_empty_keys_refused)
{
	struct nlr *s = &self->s;
	struct nlr_msg *m = &self->m;
	size_t nest;

	ASSERT_EQ(0, create(s, m, "e", 4096, 2));
	nlr_init(s, m, s->family, KBLOOM_CMD_ADD, 0);
	nlr_put_str(m, KBLOOM_A_NAME, "e");
	nest = nlr_nest_start(m, KBLOOM_A_KEYS);
	nlr_put(m, KBLOOM_KEYS_A_KEY, NULL, 0);
	nlr_nest_end(m, nest);
	EXPECT_EQ(-ERANGE, nlr_send(s, m));

	nlr_init(s, m, s->family, KBLOOM_CMD_TEST, 0);
	nlr_put_str(m, KBLOOM_A_NAME, "e");
	nest = nlr_nest_start(m, KBLOOM_A_KEYS);
	nlr_nest_end(m, nest);
	EXPECT_EQ(-EINVAL, nlr_send(s, m));
	EXPECT_STREQ("KEYS holds no key", s->extack);
}

TEST_F(kb, missing_attributes_named)
{
	struct nlr *s = &self->s;
	struct nlr_msg *m = &self->m;

	nlr_init(s, m, s->family, KBLOOM_CMD_CREATE, 0);
	nlr_put_str(m, KBLOOM_A_NAME, "m");
	nlr_put_u32(m, KBLOOM_A_TYPE, KBLOOM_TYPE_BLOOM);
	nlr_put_u32(m, KBLOOM_A_HASHES, 3);
	EXPECT_EQ(-EINVAL, nlr_send(s, m));
	EXPECT_STREQ("missing attribute BITS (the filter size m)", s->extack);
	EXPECT_EQ(KBLOOM_A_BITS, s->miss_type);
	EXPECT_EQ(0, dump_count(s, m));
}

/* Each variant is one malformed CREATE; none may create anything. */
FIXTURE(bad_create) {
	struct nlr s;
	struct nlr_msg m;
};

FIXTURE_VARIANT(bad_create) {
	int what;
	int err;
};

enum {
	BAD_BITS_U32, BAD_BITS_SMALL, BAD_BITS_BIG, BAD_HASHES_0, BAD_HASHES_33,
	BAD_TYPE_0, BAD_TYPE_99, BAD_NAME_LONG, BAD_NAME_NO_NUL, BAD_NAME_EMPTY,
	BAD_NAME_SPACE, BAD_NAME_LATIN1, BAD_HASH_KEY_15, BAD_UNKNOWN_ATTR, BAD_REPLY_ATTR,
	BAD_FLAGS, BAD_KEYS_NOT_NESTED, BAD_TRUNCATED_ATTR,
};

#define BAD(name, w, e) \
	FIXTURE_VARIANT_ADD(bad_create, name) { .what = w, .err = -e }
BAD(bits_as_u32, BAD_BITS_U32, EINVAL);
BAD(bits_below_min, BAD_BITS_SMALL, ERANGE);
BAD(bits_above_max, BAD_BITS_BIG, ERANGE);
BAD(hashes_zero, BAD_HASHES_0, ERANGE);
BAD(hashes_33, BAD_HASHES_33, ERANGE);
BAD(type_zero, BAD_TYPE_0, ERANGE);
BAD(type_unknown, BAD_TYPE_99, ERANGE);
BAD(name_too_long, BAD_NAME_LONG, EINVAL);
BAD(name_without_nul, BAD_NAME_NO_NUL, EINVAL);
BAD(name_empty, BAD_NAME_EMPTY, EINVAL);
BAD(name_with_space, BAD_NAME_SPACE, EINVAL);
/* the kernel's isgraph() takes 0xA1-0xFF as Latin-1 letters: not names */
BAD(name_with_byte_0xff, BAD_NAME_LATIN1, EINVAL);
BAD(hash_key_15_bytes, BAD_HASH_KEY_15, ERANGE);
BAD(unknown_attribute, BAD_UNKNOWN_ATTR, EINVAL);
BAD(reply_only_attribute, BAD_REPLY_ATTR, EINVAL);
BAD(unknown_flag, BAD_FLAGS, EINVAL);
BAD(keys_without_nested_flag, BAD_KEYS_NOT_NESTED, EINVAL);
BAD(truncated_attribute, BAD_TRUNCATED_ATTR, EINVAL);

FIXTURE_SETUP(bad_create)
{
	ASSERT_EQ(0, nlr_open(&self->s));
	ASSERT_EQ(0, nlr_destroy_all(&self->s, &self->m));
}

FIXTURE_TEARDOWN(bad_create)
{
	nlr_destroy_all(&self->s, &self->m);
	close(self->s.fd);
}

TEST_F(bad_create, refused_and_nothing_created)
{
	struct nlr *s = &self->s;
	struct nlr_msg *m = &self->m;
	const char *name = "bad";
	uint64_t bits = 4096;
	uint32_t k = 3, type = KBLOOM_TYPE_BLOOM;
	char longname[KBLOOM_NAME_MAX + 1];
	uint8_t key15[15] = { 0 };
	int w = variant->what;

	memset(longname, 'n', sizeof(longname) - 1);
	longname[sizeof(longname) - 1] = 0;
	if (w == BAD_BITS_SMALL)
		bits = KBLOOM_BITS_MIN - 1;
	if (w == BAD_BITS_BIG)
		bits = KBLOOM_BITS_MAX + 1;
	if (w == BAD_HASHES_0)
		k = 0;
	if (w == BAD_HASHES_33)
		k = KBLOOM_HASHES_MAX + 1;
	if (w == BAD_TYPE_0)
		type = 0;
	if (w == BAD_TYPE_99)
		type = 99;
	if (w == BAD_NAME_LONG)
		name = longname;
	if (w == BAD_NAME_EMPTY)
		name = "";
	if (w == BAD_NAME_SPACE)
		name = "a b";
	if (w == BAD_NAME_LATIN1)
		name = "caf\xe9-\xff";

	nlr_init(s, m, s->family, KBLOOM_CMD_CREATE, 0);
	if (w == BAD_NAME_NO_NUL)
		nlr_put(m, KBLOOM_A_NAME, "bad", 3);
	else
		nlr_put_str(m, KBLOOM_A_NAME, name);
	nlr_put_u32(m, KBLOOM_A_TYPE, type);
	if (w == BAD_BITS_U32)
		nlr_put_u32(m, KBLOOM_A_BITS, 4096);
	else
		nlr_put_u64(m, KBLOOM_A_BITS, bits);
	nlr_put_u32(m, KBLOOM_A_HASHES, k);
	if (w == BAD_HASH_KEY_15)
		nlr_put(m, KBLOOM_A_HASH_KEY, key15, sizeof(key15));
	if (w == BAD_UNKNOWN_ATTR)
		nlr_put_u32(m, KBLOOM_A_MAX + 1, 1);
	if (w == BAD_REPLY_ATTR)
		nlr_put_u64(m, KBLOOM_A_FILL, 1);
	if (w == BAD_FLAGS)
		nlr_put_u32(m, KBLOOM_A_FLAGS, 1U << 31);
	if (w == BAD_KEYS_NOT_NESTED)
		nlr_put(m, KBLOOM_A_KEYS, NULL, 0);
	if (w == BAD_TRUNCATED_ATTR) {
		/* An attribute header claiming more bytes than the message has. */
		nlr_put_u32(m, KBLOOM_A_CAPACITY, 0);
		((struct nlattr *)(m->buf + m->len - 8))->nla_len = 64;
	}

	/* The policy answers ERANGE for values and lengths out of range. */
	EXPECT_EQ(variant->err, nlr_send(s, m));
	EXPECT_NE(0, s->extack[0]) TH_LOG("no extack message for variant %d", w);
	EXPECT_EQ(0, dump_count(s, m));
}

TEST_F(kb, nonzero_genl_reserved_refused)
{
	struct nlr *s = &self->s;
	struct nlr_msg *m = &self->m;

	nlr_init(s, m, s->family, KBLOOM_CMD_GET, NLM_F_DUMP);
	((struct genlmsghdr *)(m->buf + NLMSG_HDRLEN))->reserved = 1;
	EXPECT_EQ(-EINVAL, nlr_send(s, m));
}

TEST_F(kb, destroy_needs_name_or_all)
{
	struct nlr *s = &self->s;
	struct nlr_msg *m = &self->m;
	uint32_t all = KBLOOM_F_ALL;

	ASSERT_EQ(0, create(s, m, "keep", 4096, 3));
	nlr_init(s, m, s->family, KBLOOM_CMD_DESTROY, 0);
	EXPECT_EQ(-EINVAL, nlr_send(s, m));
	nlr_init(s, m, s->family, KBLOOM_CMD_DESTROY, 0);
	nlr_put_str(m, KBLOOM_A_NAME, "keep");
	nlr_put(m, KBLOOM_A_FLAGS, &all, sizeof(all));
	EXPECT_EQ(-EINVAL, nlr_send(s, m));
	EXPECT_EQ(1, dump_count(s, m));
}

TEST_F(kb, dump_spans_messages)
{
	struct nlr *s = &self->s;
	char name[32];
	int i;

	/* Enough filters that one dump needs several skbs. */
	for (i = 0; i < 300; i++) {
		snprintf(name, sizeof(name), "d%03d", i);
		ASSERT_EQ(0, create(s, &self->m, name, 64, 1));
	}
	EXPECT_EQ(300, dump_count(s, &self->m));
	EXPECT_FALSE(s->dump_intr);
}

TEST_F(kb, destroy_all)
{
	struct nlr *s = &self->s;
	uint32_t all = KBLOOM_F_ALL;

	ASSERT_EQ(0, create(s, &self->m, "a1", 4096, 3));
	ASSERT_EQ(0, create(s, &self->m, "a2", 4096, 3));
	nlr_init(s, &self->m, s->family, KBLOOM_CMD_DESTROY, 0);
	nlr_put(&self->m, KBLOOM_A_FLAGS, &all, sizeof(all));
	ASSERT_EQ(0, nlr_send(s, &self->m));
	EXPECT_EQ(0, dump_count(s, &self->m));
}

TEST_F(kb, same_hash_key_same_answers)
{
	static const uint8_t hk[16] = { 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12,
					13, 14, 15, 16 };
	struct nlr *s = &self->s;
	struct nlr_msg *m = &self->m;
	uint32_t p1, p2;
	int i;

	for (i = 0; i < 2; i++) {
		nlr_init(s, m, s->family, KBLOOM_CMD_CREATE, 0);
		nlr_put_str(m, KBLOOM_A_NAME, i ? "k2" : "k1");
		nlr_put_u32(m, KBLOOM_A_TYPE, KBLOOM_TYPE_BLOOM);
		nlr_put_u64(m, KBLOOM_A_BITS, 256);
		nlr_put_u32(m, KBLOOM_A_HASHES, 2);
		nlr_put(m, KBLOOM_A_HASH_KEY, hk, sizeof(hk));
		ASSERT_EQ(0, nlr_send(s, m));
		ASSERT_EQ(0, keys_cmd(s, m, KBLOOM_CMD_ADD, i ? "k2" : "k1", 0, 60));
	}
	/* A small, full filter has many false positives: they must coincide. */
	ASSERT_EQ(0, keys_cmd(s, m, KBLOOM_CMD_TEST, "k1", 5000, 500));
	p1 = reply_u32(s, KBLOOM_A_NPRESENT);
	ASSERT_EQ(0, keys_cmd(s, m, KBLOOM_CMD_TEST, "k2", 5000, 500));
	p2 = reply_u32(s, KBLOOM_A_NPRESENT);
	EXPECT_EQ(p1, p2);
	EXPECT_LT(0, p1);
}

TEST_F(kb, stats_count_operations)
{
	struct nlr *s = &self->s;
	struct nlattr *st;
	uint64_t v[KBLOOM_STATS_A_MAX + 1] = { 0 };
	size_t off;

	ASSERT_EQ(0, create(s, &self->m, "st", 1 << 16, 4));
	ASSERT_EQ(0, keys_cmd(s, &self->m, KBLOOM_CMD_ADD, "st", 0, 30));
	ASSERT_EQ(0, keys_cmd(s, &self->m, KBLOOM_CMD_TEST, "st", 0, 20));
	ASSERT_EQ(0, get(s, &self->m, "st"));
	st = nlr_reply_attr(s, KBLOOM_A_STATS);
	ASSERT_NE(NULL, st);
	for (off = NLA_HDRLEN; off < st->nla_len;) {
		struct nlattr *a = (struct nlattr *)((char *)st + off);

		if (a->nla_type <= KBLOOM_STATS_A_MAX && a->nla_len == 12)
			memcpy(&v[a->nla_type], (char *)a + NLA_HDRLEN, 8);
		off += NLA_ALIGN(a->nla_len);
	}
	EXPECT_EQ(30, v[KBLOOM_STATS_A_INSERTS]);
	EXPECT_EQ(20, v[KBLOOM_STATS_A_QUERIES]);
	EXPECT_EQ(20, v[KBLOOM_STATS_A_POSITIVES]);
}

/* Runs @fn in a child; returns its exit status. */
static int in_child(int (*fn)(void))
{
	int status;
	pid_t pid = fork();

	if (pid == 0)
		_exit(fn());
	if (pid < 0 || waitpid(pid, &status, 0) != pid)
		return -1;
	return WIFEXITED(status) ? WEXITSTATUS(status) : 128;
}

/* 0 when every command is refused with EPERM. */
static int unprivileged_tries(void)
{
	struct nlr s;
	static struct nlr_msg m;

	if (setgid(65534) || setuid(65534))
		return 10;
	if (nlr_open(&s))
		return 11;
	if (create(&s, &m, "evil", 4096, 3) != -EPERM)
		return 12;
	if (keys_cmd(&s, &m, KBLOOM_CMD_TEST, "priv", 0, 1) != -EPERM)
		return 13;
	if (keys_cmd(&s, &m, KBLOOM_CMD_ADD, "priv", 0, 1) != -EPERM)
		return 14;
	if (get(&s, &m, "priv") != -EPERM)
		return 15;
	nlr_init(&s, &m, s.family, KBLOOM_CMD_GET, NLM_F_DUMP);
	if (nlr_send(&s, &m) != -EPERM)
		return 16;
	nlr_init(&s, &m, s.family, KBLOOM_CMD_DESTROY, 0);
	nlr_put_str(&m, KBLOOM_A_NAME, "priv");
	if (nlr_send(&s, &m) != -EPERM)
		return 17;
	return 0;
}

TEST_F(kb, unprivileged_caller_refused)
{
	struct nlr *s = &self->s;

	ASSERT_EQ(0, create(s, &self->m, "priv", 4096, 3));
	ASSERT_EQ(0, keys_cmd(s, &self->m, KBLOOM_CMD_ADD, "priv", 0, 5));
	EXPECT_EQ(0, in_child(unprivileged_tries));
	EXPECT_EQ(1, dump_count(s, &self->m));
	ASSERT_EQ(0, keys_cmd(s, &self->m, KBLOOM_CMD_TEST, "priv", 0, 5));
	EXPECT_EQ(5, reply_u32(s, KBLOOM_A_NPRESENT));
}

/* In a fresh netns: sees nothing of ours, and may reuse our names. */
static int other_netns(void)
{
	struct nlr s;
	static struct nlr_msg m;

	if (unshare(CLONE_NEWNET))
		return 10;
	if (nlr_open(&s))
		return 11;
	if (dump_count(&s, &m) != 0)
		return 12;
	if (get(&s, &m, "iso") != -ENOENT)
		return 13;
	if (keys_cmd(&s, &m, KBLOOM_CMD_TEST, "iso", 0, 1) != -ENOENT)
		return 14;
	if (create(&s, &m, "iso", 8192, 2))
		return 15;
	if (keys_cmd(&s, &m, KBLOOM_CMD_ADD, "iso", 1000, 3))
		return 16;
	/* Leaving the netns with a filter in it frees the filter. */
	return 0;
}

TEST_F(kb, namespaces_isolated)
{
	struct nlr *s = &self->s;

	ASSERT_EQ(0, create(s, &self->m, "iso", 4096, 3));
	ASSERT_EQ(0, keys_cmd(s, &self->m, KBLOOM_CMD_ADD, "iso", 0, 5));
	EXPECT_EQ(0, in_child(other_netns));
	/* Ours is unchanged by the child's create and adds. */
	ASSERT_EQ(0, get(s, &self->m, "iso"));
	EXPECT_EQ(4096, reply_u64(s, KBLOOM_A_BITS));
	ASSERT_EQ(0, keys_cmd(s, &self->m, KBLOOM_CMD_TEST, "iso", 1000, 3));
	EXPECT_GE(1, reply_u32(s, KBLOOM_A_NPRESENT));
	EXPECT_EQ(1, dump_count(s, &self->m));
}

TEST_HARNESS_MAIN
