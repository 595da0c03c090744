// SPDX-License-Identifier: GPL-2.0
/*
 * Every filter type through the raw netlink ABI, in the test VM with
 * kbloom.ko loaded (one netns, one test process):
 *
 *   test --CREATE type+params--> kbloom.ko --GET--> params echoed back
 *        --ADD/TEST/DEL/COUNT--> counts and presence
 *        --MERGE/ESTIMATE A,B--> set algebra on same-shape, same-key pairs
 *
 * The engine's numbers are proven by the host unit tests; these tests
 * prove the kernel plumbing: parameters, refusals with reasons, and that a
 * refused request changes nothing.
 */
#include <stdlib.h>

#include "vm_harness.h"
#include "nlraw.h"

static const uint8_t hkey[16] = { 0xa1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12,
				  13, 14, 15, 16 };

FIXTURE(ty) {
	struct nlr s;
	struct nlr_msg m;
};

FIXTURE_SETUP(ty)
{
	ASSERT_EQ(0, nlr_open(&self->s));
	ASSERT_EQ(0, nlr_destroy_all(&self->s, &self->m));
}

FIXTURE_TEARDOWN(ty)
{
	nlr_destroy_all(&self->s, &self->m);
	close(self->s.fd);
}

static int counting(struct nlr *s, struct nlr_msg *m, const char *name,
		    uint32_t bits, uint32_t update)
{
	create_msg(s, m, name, KBLOOM_TYPE_COUNTING, 1 << 16, 4);
	nlr_put_u32(m, KBLOOM_A_COUNTER_BITS, bits);
	nlr_put_u32(m, KBLOOM_A_UPDATE, update);
	return nlr_send(s, m);
}

static int dleft(struct nlr *s, struct nlr_msg *m, const char *name)
{
	create_msg(s, m, name, KBLOOM_TYPE_DLEFT, 4 * 8 * 1024, 1);
	nlr_put_u32(m, KBLOOM_A_SUBTABLES, 4);
	nlr_put_u32(m, KBLOOM_A_BUCKET_CELLS, 8);
	nlr_put_u32(m, KBLOOM_A_FP_BITS, 16);
	return nlr_send(s, m);
}

/* A KEYS request of one key, given as bytes. */
static int one_key(struct nlr *s, struct nlr_msg *m, uint8_t cmd,
		   const char *name, const char *key)
{
	size_t nest;

	nlr_init(s, m, s->family, cmd, 0);
	nlr_put_str(m, KBLOOM_A_NAME, name);
	nest = nlr_nest_start(m, KBLOOM_A_KEYS);
	nlr_put(m, KBLOOM_KEYS_A_KEY, key, strlen(key));
	nlr_nest_end(m, nest);
	return nlr_send(s, m);
}

static uint32_t count_of(struct nlr *s, struct nlr_msg *m, const char *name,
			 const char *key)
{
	struct nlattr *a;
	uint32_t c;

	if (one_key(s, m, KBLOOM_CMD_COUNT, name, key))
		return UINT32_MAX;
	a = nlr_reply_attr(s, KBLOOM_A_COUNTS);
	if (!a || a->nla_len != NLA_HDRLEN + 4)
		return UINT32_MAX - 1;
	memcpy(&c, (char *)a + NLA_HDRLEN, 4);
	return c;
}

TEST_F(ty, every_type_created_with_its_parameters)
{
	struct nlr *s = &self->s;
	struct nlr_msg *m = &self->m;
	size_t nest;

	create_msg(s, m, "bl", KBLOOM_TYPE_BLOOM, 4096, 3);
	ASSERT_EQ(0, nlr_send(s, m));
	create_msg(s, m, "pa", KBLOOM_TYPE_PARTITIONED, 4095, 5);
	ASSERT_EQ(0, nlr_send(s, m));
	create_msg(s, m, "bk", KBLOOM_TYPE_BLOCKED, 8192, 6);
	ASSERT_EQ(0, nlr_send(s, m));
	ASSERT_EQ(0, counting(s, m, "co", 8, KBLOOM_UPDATE_CONSERVATIVE));
	ASSERT_EQ(0, dleft(s, m, "dl"));
	create_msg(s, m, "st", KBLOOM_TYPE_STABLE, 1 << 16, 3);
	nlr_put_u32(m, KBLOOM_A_COUNTER_BITS, 2);
	nlr_put_u32(m, KBLOOM_A_DECREMENT, 10);
	ASSERT_EQ(0, nlr_send(s, m));
	create_msg(s, m, "mu", KBLOOM_TYPE_MULTI, 4096, 3);
	nest = nlr_nest_start(m, KBLOOM_A_DIMS);
	nlr_put_str(m, KBLOOM_DIMS_A_NAME, "src");
	nlr_put_str(m, KBLOOM_DIMS_A_NAME, "dport");
	nlr_nest_end(m, nest);
	ASSERT_EQ(0, nlr_send(s, m));
	EXPECT_EQ(7, dump_count(s, m));

	ASSERT_EQ(0, get(s, m, "co"));
	EXPECT_EQ(KBLOOM_TYPE_COUNTING, reply_u32(s, KBLOOM_A_TYPE));
	EXPECT_EQ(8, reply_u32(s, KBLOOM_A_COUNTER_BITS));
	EXPECT_EQ(KBLOOM_UPDATE_CONSERVATIVE, reply_u32(s, KBLOOM_A_UPDATE));
	ASSERT_EQ(0, get(s, m, "dl"));
	EXPECT_EQ(4, reply_u32(s, KBLOOM_A_SUBTABLES));
	EXPECT_EQ(8, reply_u32(s, KBLOOM_A_BUCKET_CELLS));
	EXPECT_EQ(16, reply_u32(s, KBLOOM_A_FP_BITS));
	ASSERT_EQ(0, get(s, m, "st"));
	EXPECT_EQ(2, reply_u32(s, KBLOOM_A_COUNTER_BITS));
	EXPECT_EQ(10, reply_u32(s, KBLOOM_A_DECREMENT));
	ASSERT_EQ(0, get(s, m, "mu"));
	EXPECT_NE(NULL, nlr_reply_attr(s, KBLOOM_A_DIMS));
	/* Bit types carry no counter parameters. */
	ASSERT_EQ(0, get(s, m, "bl"));
	EXPECT_EQ(NULL, nlr_reply_attr(s, KBLOOM_A_COUNTER_BITS));
}

TEST_F(ty, parameter_of_another_type_refused)
{
	struct nlr *s = &self->s;
	struct nlr_msg *m = &self->m;

	create_msg(s, m, "x", KBLOOM_TYPE_BLOOM, 4096, 3);
	nlr_put_u32(m, KBLOOM_A_COUNTER_BITS, 4);
	EXPECT_EQ(-EINVAL, nlr_send(s, m));
	EXPECT_STREQ("a parameter was given that this filter type does not take",
		     s->extack);
	EXPECT_EQ(0, dump_count(s, m));
}

TEST_F(ty, shape_refusals_name_the_rule)
{
	struct nlr *s = &self->s;
	struct nlr_msg *m = &self->m;

	create_msg(s, m, "p", KBLOOM_TYPE_PARTITIONED, 4096, 5);
	EXPECT_EQ(-EINVAL, nlr_send(s, m));
	EXPECT_NE(NULL, strstr(s->extack, "multiple"));
	create_msg(s, m, "b", KBLOOM_TYPE_BLOCKED, 1000, 5);
	EXPECT_EQ(-EINVAL, nlr_send(s, m));
	EXPECT_EQ(-EINVAL, counting(s, m, "c", 5, 0));
	EXPECT_NE(NULL, strstr(s->extack, "COUNTER_BITS"));
	create_msg(s, m, "d", KBLOOM_TYPE_DLEFT, 4096, 2);
	nlr_put_u32(m, KBLOOM_A_SUBTABLES, 4);
	nlr_put_u32(m, KBLOOM_A_BUCKET_CELLS, 8);
	nlr_put_u32(m, KBLOOM_A_FP_BITS, 16);
	EXPECT_EQ(-EINVAL, nlr_send(s, m));
	EXPECT_NE(NULL, strstr(s->extack, "HASHES"));
	create_msg(s, m, "mu", KBLOOM_TYPE_MULTI, 4096, 3);
	EXPECT_EQ(-EINVAL, nlr_send(s, m));
	EXPECT_NE(NULL, strstr(s->extack, "DIMS"));
	EXPECT_EQ(0, dump_count(s, m));
}

TEST_F(ty, counting_add_count_del)
{
	struct nlr *s = &self->s;
	struct nlr_msg *m = &self->m;
	int i;

	ASSERT_EQ(0, counting(s, m, "c", 4, KBLOOM_UPDATE_PLAIN));
	for (i = 0; i < 3; i++)
		ASSERT_EQ(0, one_key(s, m, KBLOOM_CMD_ADD, "c", "flow"));
	EXPECT_EQ(3, count_of(s, m, "c", "flow"));
	EXPECT_EQ(0, count_of(s, m, "c", "other"));
	ASSERT_EQ(0, one_key(s, m, KBLOOM_CMD_DEL, "c", "flow"));
	EXPECT_EQ(2, count_of(s, m, "c", "flow"));
}

TEST_F(ty, delete_of_absent_key_in_a_batch_changes_nothing)
{
	struct nlr *s = &self->s;
	struct nlr_msg *m = &self->m;
	size_t nest;

	ASSERT_EQ(0, counting(s, m, "c", 8, KBLOOM_UPDATE_PLAIN));
	ASSERT_EQ(0, one_key(s, m, KBLOOM_CMD_ADD, "c", "here"));
	nlr_init(s, m, s->family, KBLOOM_CMD_DEL, 0);
	nlr_put_str(m, KBLOOM_A_NAME, "c");
	nest = nlr_nest_start(m, KBLOOM_A_KEYS);
	nlr_put(m, KBLOOM_KEYS_A_KEY, "here", 4);
	nlr_put(m, KBLOOM_KEYS_A_KEY, "absent", 6);
	nlr_nest_end(m, nest);
	EXPECT_EQ(-ENOENT, nlr_send(s, m));
	EXPECT_STREQ("key is certainly absent; nothing was deleted", s->extack);
	EXPECT_EQ(1, count_of(s, m, "c", "here"));
}

TEST_F(ty, dleft_add_count_del)
{
	struct nlr *s = &self->s;
	struct nlr_msg *m = &self->m;

	ASSERT_EQ(0, dleft(s, m, "d"));
	ASSERT_EQ(0, one_key(s, m, KBLOOM_CMD_ADD, "d", "a"));
	ASSERT_EQ(0, one_key(s, m, KBLOOM_CMD_ADD, "d", "a"));
	ASSERT_EQ(0, one_key(s, m, KBLOOM_CMD_ADD, "d", "b"));
	EXPECT_EQ(2, count_of(s, m, "d", "a"));
	ASSERT_EQ(0, one_key(s, m, KBLOOM_CMD_DEL, "d", "a"));
	ASSERT_EQ(0, one_key(s, m, KBLOOM_CMD_DEL, "d", "a"));
	EXPECT_EQ(0, count_of(s, m, "d", "a"));
	EXPECT_EQ(-ENOENT, one_key(s, m, KBLOOM_CMD_DEL, "d", "a"));
	EXPECT_EQ(1, count_of(s, m, "d", "b"));
}

TEST_F(ty, delete_and_count_refused_where_unsafe_or_meaningless)
{
	struct nlr *s = &self->s;
	struct nlr_msg *m = &self->m;

	ASSERT_EQ(0, counting(s, m, "cu", 4, KBLOOM_UPDATE_CONSERVATIVE));
	ASSERT_EQ(0, one_key(s, m, KBLOOM_CMD_ADD, "cu", "k"));
	EXPECT_EQ(-EOPNOTSUPP, one_key(s, m, KBLOOM_CMD_DEL, "cu", "k"));
	EXPECT_EQ(1, count_of(s, m, "cu", "k"));
	ASSERT_EQ(0, create(s, m, "b", 4096, 3));
	EXPECT_EQ(-EOPNOTSUPP, one_key(s, m, KBLOOM_CMD_DEL, "b", "k"));
	EXPECT_EQ(-EOPNOTSUPP, one_key(s, m, KBLOOM_CMD_COUNT, "b", "k"));
	EXPECT_STREQ("COUNT needs a counting, dleft or dcf filter", s->extack);
}

/* A tuple request: @n values for dimensions @dims (1-based). */
static int tuple_cmd(struct nlr *s, struct nlr_msg *m, uint8_t cmd,
		     const char *name, const int *dims, const char **vals, int n)
{
	size_t keys, tup;
	int i;

	nlr_init(s, m, s->family, cmd, 0);
	nlr_put_str(m, KBLOOM_A_NAME, name);
	keys = nlr_nest_start(m, KBLOOM_A_KEYS);
	tup = nlr_nest_start(m, KBLOOM_KEYS_A_TUPLE);
	for (i = 0; i < n; i++)
		nlr_put(m, dims[i], vals[i], strlen(vals[i]));
	nlr_nest_end(m, tup);
	nlr_nest_end(m, keys);
	return nlr_send(s, m);
}

TEST_F(ty, multi_tuples_and_subsets)
{
	struct nlr *s = &self->s;
	struct nlr_msg *m = &self->m;
	const int d123[] = { 1, 2, 3 }, d13[] = { 1, 3 }, d2[] = { 2 };
	const char *v[] = { "10.0.0.1", "10.0.0.2", "80" };
	const char *w13[] = { "10.0.0.1", "443" };
	const char *w2[] = { "10.0.0.2" };
	size_t nest;

	create_msg(s, m, "mu", KBLOOM_TYPE_MULTI, 1 << 14, 4);
	nest = nlr_nest_start(m, KBLOOM_A_DIMS);
	nlr_put_str(m, KBLOOM_DIMS_A_NAME, "src");
	nlr_put_str(m, KBLOOM_DIMS_A_NAME, "dst");
	nlr_put_str(m, KBLOOM_DIMS_A_NAME, "dport");
	nlr_nest_end(m, nest);
	ASSERT_EQ(0, nlr_send(s, m));

	ASSERT_EQ(0, tuple_cmd(s, m, KBLOOM_CMD_ADD, "mu", d123, v, 3));
	ASSERT_EQ(0, tuple_cmd(s, m, KBLOOM_CMD_TEST, "mu", d123, v, 3));
	EXPECT_EQ(1, reply_u32(s, KBLOOM_A_NPRESENT));
	ASSERT_EQ(0, tuple_cmd(s, m, KBLOOM_CMD_TEST, "mu", d2, w2, 1));
	EXPECT_EQ(1, reply_u32(s, KBLOOM_A_NPRESENT));
	ASSERT_EQ(0, tuple_cmd(s, m, KBLOOM_CMD_TEST, "mu", d13, w13, 2));
	EXPECT_EQ(0, reply_u32(s, KBLOOM_A_NPRESENT));

	/* ADD needs every dimension; a plain key is not a tuple. */
	EXPECT_EQ(-EINVAL, tuple_cmd(s, m, KBLOOM_CMD_ADD, "mu", d13, w13, 2));
	EXPECT_STREQ("ADD needs a value for every dimension", s->extack);
	EXPECT_EQ(-EINVAL, one_key(s, m, KBLOOM_CMD_ADD, "mu", "plain"));
	ASSERT_EQ(0, tuple_cmd(s, m, KBLOOM_CMD_TEST, "mu", d13, w13, 2));
	EXPECT_EQ(0, reply_u32(s, KBLOOM_A_NPRESENT));
}

TEST_F(ty, multi_dimension_out_of_range_refused)
{
	struct nlr *s = &self->s;
	struct nlr_msg *m = &self->m;
	const int d5[] = { 5 };
	const char *v[] = { "x" };
	size_t nest;

	create_msg(s, m, "mu", KBLOOM_TYPE_MULTI, 4096, 2);
	nest = nlr_nest_start(m, KBLOOM_A_DIMS);
	nlr_put_str(m, KBLOOM_DIMS_A_NAME, "a");
	nlr_put_str(m, KBLOOM_DIMS_A_NAME, "b");
	nlr_nest_end(m, nest);
	ASSERT_EQ(0, nlr_send(s, m));
	EXPECT_EQ(-EINVAL, tuple_cmd(s, m, KBLOOM_CMD_TEST, "mu", d5, v, 1));
	EXPECT_STREQ("tuple names a dimension the filter does not have", s->extack);
}

TEST_F(ty, multi_dimension_names_checked)
{
	struct nlr *s = &self->s;
	struct nlr_msg *m = &self->m;
	size_t nest;

	create_msg(s, m, "mu", KBLOOM_TYPE_MULTI, 4096, 2);
	nest = nlr_nest_start(m, KBLOOM_A_DIMS);
	nlr_put_str(m, KBLOOM_DIMS_A_NAME, "src");
	nlr_put_str(m, KBLOOM_DIMS_A_NAME, "src");
	nlr_nest_end(m, nest);
	EXPECT_EQ(-EINVAL, nlr_send(s, m));
	EXPECT_STREQ("dimension named twice", s->extack);
	create_msg(s, m, "mu", KBLOOM_TYPE_MULTI, 4096, 2);
	nest = nlr_nest_start(m, KBLOOM_A_DIMS);
	nlr_put_str(m, KBLOOM_DIMS_A_NAME, "Src");
	nlr_nest_end(m, nest);
	EXPECT_EQ(-EINVAL, nlr_send(s, m));
	EXPECT_EQ(0, dump_count(s, m));
}

/* Two same-shape, same-key filters: a holds key-0..99, b key-50..149. */
static void pair(struct __test_metadata *_metadata, struct nlr *s,
		 struct nlr_msg *m, uint32_t type, uint64_t bits)
{
	const char *names[] = { "a", "b" };
	int i;

	for (i = 0; i < 2; i++) {
		create_msg(s, m, names[i], type, bits, 4);
		nlr_put(m, KBLOOM_A_HASH_KEY, hkey, sizeof(hkey));
		if (type == KBLOOM_TYPE_COUNTING)
			nlr_put_u32(m, KBLOOM_A_COUNTER_BITS, 4);
		ASSERT_EQ(0, nlr_send(s, m));
		ASSERT_EQ(0, keys_cmd(s, m, KBLOOM_CMD_ADD, names[i], 50 * i, 100));
	}
}

static int merge(struct nlr *s, struct nlr_msg *m, const char *dst,
		 const char *src, uint32_t op)
{
	nlr_init(s, m, s->family, KBLOOM_CMD_MERGE, 0);
	nlr_put_str(m, KBLOOM_A_NAME, dst);
	nlr_put_str(m, KBLOOM_A_SRC, src);
	nlr_put_u32(m, KBLOOM_A_MERGE_OP, op);
	return nlr_send(s, m);
}

TEST_F(ty, merge_or_is_the_union)
{
	struct nlr *s = &self->s;
	struct nlr_msg *m = &self->m;

	pair(_metadata, s, m, KBLOOM_TYPE_BLOCKED, 1 << 16);
	ASSERT_EQ(0, merge(s, m, "a", "b", KBLOOM_MERGE_OR));
	ASSERT_EQ(0, keys_cmd(s, m, KBLOOM_CMD_TEST, "a", 0, 150));
	EXPECT_EQ(150, reply_u32(s, KBLOOM_A_NPRESENT));
}

TEST_F(ty, merge_and_keeps_the_intersection)
{
	struct nlr *s = &self->s;
	struct nlr_msg *m = &self->m;

	pair(_metadata, s, m, KBLOOM_TYPE_BLOOM, 1 << 16);
	ASSERT_EQ(0, merge(s, m, "a", "b", KBLOOM_MERGE_AND));
	ASSERT_EQ(0, keys_cmd(s, m, KBLOOM_CMD_TEST, "a", 50, 50));
	EXPECT_EQ(50, reply_u32(s, KBLOOM_A_NPRESENT));
	/* 1 << 16 bits, 150 keys: the others are (almost surely) gone. */
	ASSERT_EQ(0, keys_cmd(s, m, KBLOOM_CMD_TEST, "a", 0, 50));
	EXPECT_GE(1, reply_u32(s, KBLOOM_A_NPRESENT));
}

TEST_F(ty, merge_counting_adds_counts)
{
	struct nlr *s = &self->s;
	struct nlr_msg *m = &self->m;

	pair(_metadata, s, m, KBLOOM_TYPE_COUNTING, 1 << 16);
	ASSERT_EQ(0, merge(s, m, "a", "b", KBLOOM_MERGE_OR));
	EXPECT_EQ(2, count_of(s, m, "a", "key-60"));
	EXPECT_EQ(1, count_of(s, m, "a", "key-10"));
}

TEST_F(ty, merge_mismatch_refused_and_nothing_changes)
{
	struct nlr *s = &self->s;
	struct nlr_msg *m = &self->m;
	uint64_t fill;

	pair(_metadata, s, m, KBLOOM_TYPE_BLOOM, 1 << 16);
	/* Same shape, random hash key: merging would be meaningless. */
	ASSERT_EQ(0, create(s, m, "c", 1 << 16, 4));
	ASSERT_EQ(0, keys_cmd(s, m, KBLOOM_CMD_ADD, "c", 500, 10));
	ASSERT_EQ(0, get(s, m, "a"));
	fill = reply_u64(s, KBLOOM_A_FILL);
	EXPECT_EQ(-EINVAL, merge(s, m, "a", "c", KBLOOM_MERGE_OR));
	EXPECT_STREQ("filters differ in type, shape or hash key", s->extack);
	EXPECT_EQ(-EINVAL, merge(s, m, "a", "a", KBLOOM_MERGE_OR));
	EXPECT_STREQ("SRC is the filter itself", s->extack);
	EXPECT_EQ(-ENOENT, merge(s, m, "a", "zz", KBLOOM_MERGE_OR));
	ASSERT_EQ(0, get(s, m, "a"));
	EXPECT_EQ(fill, reply_u64(s, KBLOOM_A_FILL));
}

TEST_F(ty, merge_refused_for_dleft)
{
	struct nlr *s = &self->s;
	struct nlr_msg *m = &self->m;

	ASSERT_EQ(0, dleft(s, m, "d1"));
	ASSERT_EQ(0, dleft(s, m, "d2"));
	EXPECT_NE(0, merge(s, m, "d1", "d2", KBLOOM_MERGE_OR));
}

TEST_F(ty, estimate_reports_fills_and_union)
{
	struct nlr *s = &self->s;
	struct nlr_msg *m = &self->m;
	uint64_t fa, fb, fu;

	pair(_metadata, s, m, KBLOOM_TYPE_BLOOM, 1 << 16);
	nlr_init(s, m, s->family, KBLOOM_CMD_ESTIMATE, 0);
	nlr_put_str(m, KBLOOM_A_NAME, "a");
	nlr_put_str(m, KBLOOM_A_SRC, "b");
	ASSERT_EQ(0, nlr_send(s, m));
	fa = reply_u64(s, KBLOOM_A_FILL);
	fb = reply_u64(s, KBLOOM_A_SRC_FILL);
	fu = reply_u64(s, KBLOOM_A_UNION_FILL);
	/* 100 keys x 4 probes each, 50 keys shared: union ~ 150 x 4 bits. */
	EXPECT_GE(400, fa);
	EXPECT_LE(390, fa);
	EXPECT_GE(400, fb);
	EXPECT_LT(fa, fu);
	EXPECT_GE(600, fu);
	EXPECT_LE(580, fu);
}

/* A scalable filter: slice 0 of 9600 bits, 7 hashes, 1000 keys. */
static void scalable_msg(struct nlr *s, struct nlr_msg *m, const char *name)
{
	create_msg(s, m, name, KBLOOM_TYPE_SCALABLE, 9600, 7);
	nlr_put_u64(m, KBLOOM_A_CAPACITY, 1000);
	nlr_put_u32(m, KBLOOM_A_GROWTH, 2);
	nlr_put_u32(m, KBLOOM_A_TIGHTEN, 900000);
}

/* Slices in the last reply's SLICE_LIST, and the one marked CURRENT. */
static int slices(struct nlr *s, int *current)
{
	struct nlattr *list = nlr_reply_attr(s, KBLOOM_A_SLICE_LIST);
	size_t off, end;
	int n = 0;

	*current = -1;
	if (!list)
		return -1;
	end = list->nla_len;
	for (off = NLA_HDRLEN; off + NLA_HDRLEN <= end;) {
		struct nlattr *sl = (struct nlattr *)((char *)list + off);
		size_t in;

		for (in = NLA_HDRLEN; in + NLA_HDRLEN <= sl->nla_len;) {
			struct nlattr *a = (struct nlattr *)((char *)sl + in);

			if (a->nla_type == KBLOOM_SLICE_A_CURRENT)
				*current = n;
			in += NLA_ALIGN(a->nla_len);
		}
		n++;
		off += NLA_ALIGN(sl->nla_len);
	}
	return n;
}

TEST_F(ty, scalable_created_with_its_parameters)
{
	struct nlr *s = &self->s;
	struct nlr_msg *m = &self->m;
	int cur;

	scalable_msg(s, m, "sc");
	ASSERT_EQ(0, nlr_send(s, m));
	ASSERT_EQ(0, get(s, m, "sc"));
	EXPECT_EQ(KBLOOM_TYPE_SCALABLE, reply_u32(s, KBLOOM_A_TYPE));
	EXPECT_EQ(9600, reply_u64(s, KBLOOM_A_BITS));
	EXPECT_EQ(1000, reply_u64(s, KBLOOM_A_CAPACITY));
	EXPECT_EQ(2, reply_u32(s, KBLOOM_A_GROWTH));
	EXPECT_EQ(900000, reply_u32(s, KBLOOM_A_TIGHTEN));
	EXPECT_EQ(0, reply_u64(s, KBLOOM_A_OVERFLOW));
	EXPECT_EQ(KBLOOM_GROW_OK, reply_u32(s, KBLOOM_A_GROW_ERROR));
	EXPECT_EQ(1, slices(s, &cur));
	EXPECT_EQ(0, cur);
	/* Other types say nothing of slices. */
	ASSERT_EQ(0, create(s, m, "bl", 4096, 3));
	ASSERT_EQ(0, get(s, m, "bl"));
	EXPECT_EQ(NULL, nlr_reply_attr(s, KBLOOM_A_SLICE_LIST));
	EXPECT_EQ(NULL, nlr_reply_attr(s, KBLOOM_A_GROWTH));
}

TEST_F(ty, scalable_refusals_name_the_attribute)
{
	struct nlr *s = &self->s;
	struct nlr_msg *m = &self->m;
	uint32_t flags = KBLOOM_F_LOAD;

	create_msg(s, m, "a", KBLOOM_TYPE_SCALABLE, 9600, 7);
	nlr_put_u32(m, KBLOOM_A_GROWTH, 2);
	nlr_put_u32(m, KBLOOM_A_TIGHTEN, 900000);
	EXPECT_EQ(-EINVAL, nlr_send(s, m));
	EXPECT_NE(NULL, strstr(s->extack, "CAPACITY"));
	create_msg(s, m, "a", KBLOOM_TYPE_SCALABLE, 9600, 7);
	nlr_put_u64(m, KBLOOM_A_CAPACITY, 1000);
	EXPECT_EQ(-EINVAL, nlr_send(s, m));
	EXPECT_NE(NULL, strstr(s->extack, "GROWTH"));
	/* The policy bounds both: out of range, nothing made. */
	scalable_msg(s, m, "a");
	nlr_put_u32(m, KBLOOM_A_GROWTH, 17);
	EXPECT_EQ(-ERANGE, nlr_send(s, m));
	EXPECT_NE(NULL, strstr(s->extack, "out of range"));
	create_msg(s, m, "a", KBLOOM_TYPE_SCALABLE, 9600, 7);
	nlr_put_u64(m, KBLOOM_A_CAPACITY, 1000);
	nlr_put_u32(m, KBLOOM_A_GROWTH, 2);
	nlr_put_u32(m, KBLOOM_A_TIGHTEN, 995000);
	EXPECT_EQ(-ERANGE, nlr_send(s, m));
	EXPECT_NE(NULL, strstr(s->extack, "out of range"));
	/* Reply-only attributes are refused in requests. */
	scalable_msg(s, m, "a");
	nlr_put_u64(m, KBLOOM_A_OVERFLOW, 1);
	EXPECT_EQ(-EINVAL, nlr_send(s, m));
	/* Not another type's parameter. */
	create_msg(s, m, "a", KBLOOM_TYPE_BLOOM, 4096, 3);
	nlr_put_u32(m, KBLOOM_A_GROWTH, 2);
	EXPECT_EQ(-EINVAL, nlr_send(s, m));
	EXPECT_STREQ("a parameter was given that this filter type does not take",
		     s->extack);
	/* No windows; a load needs the saved slices. */
	scalable_msg(s, m, "a");
	nlr_put_u32(m, KBLOOM_A_WINDOWS, 4);
	nlr_put_u64(m, KBLOOM_A_INTERVAL, 1000);
	EXPECT_EQ(-EINVAL, nlr_send(s, m));
	EXPECT_NE(NULL, strstr(s->extack, "WINDOWS"));
	scalable_msg(s, m, "a");
	nlr_put(m, KBLOOM_A_FLAGS, &flags, sizeof(flags));
	EXPECT_EQ(-EINVAL, nlr_send(s, m));
	EXPECT_NE(NULL, strstr(s->extack, "SLICE_LIST"));
	/* More keys than bits in slice 0. */
	create_msg(s, m, "a", KBLOOM_TYPE_SCALABLE, 640, 7);
	nlr_put_u64(m, KBLOOM_A_CAPACITY, 641);
	nlr_put_u32(m, KBLOOM_A_GROWTH, 2);
	nlr_put_u32(m, KBLOOM_A_TIGHTEN, 900000);
	EXPECT_EQ(-EINVAL, nlr_send(s, m));
	EXPECT_NE(NULL, strstr(s->extack, "CAPACITY"));
	EXPECT_EQ(0, dump_count(s, m));
}

/*
 * 20000 keys through ADD (process context: slices made as needed) into
 * a filter of 1000 keys at first: 1000 + 2000 + 4000 + 8000 < 20000 <=
 * 31000, so 5 slices take keys (a sixth may be made ahead), nothing
 * overflows, every key tests present, memory grew and is accounted.
 */
TEST_F(ty, scalable_grows_through_add)
{
	struct nlr *s = &self->s;
	struct nlr_msg *m = &self->m;
	uint64_t mem0, mem1;
	int i, n, cur;

	scalable_msg(s, m, "sc");
	ASSERT_EQ(0, nlr_send(s, m));
	ASSERT_EQ(0, get(s, m, "sc"));
	mem0 = reply_u64(s, KBLOOM_A_MEMORY);
	for (i = 0; i < 20000; i += 1000)
		ASSERT_EQ(0, keys_cmd(s, m, KBLOOM_CMD_ADD, "sc", i, 1000));
	for (i = 0; i < 20000; i += 1000) {
		ASSERT_EQ(0, keys_cmd(s, m, KBLOOM_CMD_TEST, "sc", i, 1000));
		ASSERT_EQ(1000, reply_u32(s, KBLOOM_A_NPRESENT));
	}
	ASSERT_EQ(0, get(s, m, "sc"));
	n = slices(s, &cur);
	EXPECT_EQ(4, cur);
	EXPECT_LE(5, n);
	EXPECT_GE(6, n);
	EXPECT_EQ(0, reply_u64(s, KBLOOM_A_OVERFLOW));
	EXPECT_EQ(KBLOOM_GROW_OK, reply_u32(s, KBLOOM_A_GROW_ERROR));
	mem1 = reply_u64(s, KBLOOM_A_MEMORY);
	EXPECT_LT(mem0 * 10, mem1);
	nlr_init(s, m, s->family, KBLOOM_CMD_STATUS, 0);
	ASSERT_EQ(0, nlr_send(s, m));
	EXPECT_EQ(mem1, reply_u64(s, KBLOOM_A_MEM_NETNS));

	/* What a scalable filter does not do. */
	ASSERT_EQ(-EOPNOTSUPP, keys_cmd(s, m, KBLOOM_CMD_DEL, "sc", 0, 1));
	ASSERT_EQ(-EOPNOTSUPP, keys_cmd(s, m, KBLOOM_CMD_COUNT, "sc", 0, 1));
	/* It exports (every slice; transfer_test loads it back). */
	nlr_init(s, m, s->family, KBLOOM_CMD_EXPORT, NLM_F_DUMP);
	nlr_put_str(m, KBLOOM_A_NAME, "sc");
	EXPECT_EQ(0, nlr_send(s, m));
	EXPECT_LT(1, s->nreplies);

	/* CLEAR: back to slice 0, the slices kept. */
	nlr_init(s, m, s->family, KBLOOM_CMD_CLEAR, 0);
	nlr_put_str(m, KBLOOM_A_NAME, "sc");
	ASSERT_EQ(0, nlr_send(s, m));
	ASSERT_EQ(0, keys_cmd(s, m, KBLOOM_CMD_TEST, "sc", 0, 1000));
	EXPECT_EQ(0, reply_u32(s, KBLOOM_A_NPRESENT));
	ASSERT_EQ(0, get(s, m, "sc"));
	EXPECT_EQ(n, slices(s, &cur));
	EXPECT_EQ(0, cur);
	EXPECT_EQ(mem1, reply_u64(s, KBLOOM_A_MEMORY));
}

/*
 * A dcf through the raw ABI: parameters and OFV_BITS echoed, 3000 adds
 * of one key (x = 4: the OFV widens 1 -> 2 -> ... -> 16 bits in ADD) counted
 * exactly, DEL exact across borrows, memory accounted; what it refuses.
 */
TEST_F(ty, dcf_counts_exactly_as_its_overflow_vector_widens)
{
	struct nlr *s = &self->s;
	struct nlr_msg *m = &self->m;
	uint64_t mem0, mem1;
	int i;

	create_msg(s, m, "dc", KBLOOM_TYPE_DCF, 1 << 16, 4);
	nlr_put_u32(m, KBLOOM_A_COUNTER_BITS, 4);
	ASSERT_EQ(0, nlr_send(s, m));
	ASSERT_EQ(0, get(s, m, "dc"));
	EXPECT_EQ(KBLOOM_TYPE_DCF, reply_u32(s, KBLOOM_A_TYPE));
	EXPECT_EQ(4, reply_u32(s, KBLOOM_A_COUNTER_BITS));
	EXPECT_EQ(1, reply_u32(s, KBLOOM_A_OFV_BITS));
	EXPECT_EQ(0, reply_u64(s, KBLOOM_A_LOST));
	EXPECT_EQ(KBLOOM_GROW_OK, reply_u32(s, KBLOOM_A_GROW_ERROR));
	mem0 = reply_u64(s, KBLOOM_A_MEMORY);
	/* key-7 3000 times, in messages of 300. */
	for (i = 0; i < 3000; i += 300) {
		char key[] = "key-7";
		size_t nest;
		int j;

		nlr_init(s, m, s->family, KBLOOM_CMD_ADD, 0);
		nlr_put_str(m, KBLOOM_A_NAME, "dc");
		nest = nlr_nest_start(m, KBLOOM_A_KEYS);
		for (j = 0; j < 300; j++)
			nlr_put(m, KBLOOM_KEYS_A_KEY, key, strlen(key));
		nlr_nest_end(m, nest);
		ASSERT_EQ(0, nlr_send(s, m));
	}
	ASSERT_EQ(0, keys_cmd(s, m, KBLOOM_CMD_ADD, "dc", 0, 7));
	EXPECT_EQ(3000, count_of(s, m, "dc", "key-7"));
	EXPECT_EQ(1, count_of(s, m, "dc", "key-3"));
	ASSERT_EQ(0, get(s, m, "dc"));
	/* 3000 >> 4 = 187: OFV counters of 16 bits (widened at half). */
	EXPECT_EQ(16, reply_u32(s, KBLOOM_A_OFV_BITS));
	EXPECT_EQ(0, reply_u64(s, KBLOOM_A_LOST));
	mem1 = reply_u64(s, KBLOOM_A_MEMORY);
	EXPECT_EQ(mem0 + (1 << 16) * 15 / 8, mem1);
	nlr_init(s, m, s->family, KBLOOM_CMD_STATUS, 0);
	ASSERT_EQ(0, nlr_send(s, m));
	EXPECT_EQ(mem1, reply_u64(s, KBLOOM_A_MEM_NETNS));
	for (i = 0; i < 1000; i++)
		ASSERT_EQ(0, one_key(s, m, KBLOOM_CMD_DEL, "dc", "key-7"));
	EXPECT_EQ(2000, count_of(s, m, "dc", "key-7"));

	/* What it does not do. */
	create_msg(s, m, "d2", KBLOOM_TYPE_DCF, 4096, 3);
	nlr_put_u32(m, KBLOOM_A_COUNTER_BITS, 16);
	EXPECT_EQ(-EINVAL, nlr_send(s, m));
	EXPECT_NE(NULL, strstr(s->extack, "dcf"));
	create_msg(s, m, "d2", KBLOOM_TYPE_DCF, 4096, 3);
	nlr_put_u32(m, KBLOOM_A_COUNTER_BITS, 4);
	nlr_put_u32(m, KBLOOM_A_WINDOWS, 4);
	nlr_put_u64(m, KBLOOM_A_INTERVAL, 1000);
	EXPECT_EQ(-EINVAL, nlr_send(s, m));
	/* It exports (CBFV and OFV; transfer_test loads it back). */
	nlr_init(s, m, s->family, KBLOOM_CMD_EXPORT, NLM_F_DUMP);
	nlr_put_str(m, KBLOOM_A_NAME, "dc");
	EXPECT_EQ(0, nlr_send(s, m));
	EXPECT_LT(1, s->nreplies);
	nlr_init(s, m, s->family, KBLOOM_CMD_MERGE, 0);
	nlr_put_str(m, KBLOOM_A_NAME, "dc");
	nlr_put_str(m, KBLOOM_A_SRC, "dc");
	EXPECT_NE(0, nlr_send(s, m));
	/* CLEAR: empty, the vector keeps its width. */
	nlr_init(s, m, s->family, KBLOOM_CMD_CLEAR, 0);
	nlr_put_str(m, KBLOOM_A_NAME, "dc");
	ASSERT_EQ(0, nlr_send(s, m));
	EXPECT_EQ(0, count_of(s, m, "dc", "key-7"));
	EXPECT_EQ(1, dump_count(s, m));
}

TEST_HARNESS_MAIN
