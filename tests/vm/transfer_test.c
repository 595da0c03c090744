// SPDX-License-Identifier: GPL-2.0
/*
 * EXPORT and IMPORT through the raw netlink ABI, in the test VM:
 *
 *   test --EXPORT f--> head (shape, hash key, CELL_BYTES), OFFSET+CELLS...
 *        --CREATE g FLAGS LOAD, same shape and key--> g reserved for us
 *        --IMPORT g OFFSET+CELLS ... LOADED--> g answers exactly as f
 *   other socket --TEST g while loading--> refused; our socket closes
 *        before LOADED --> g is gone
 */
#include <stdlib.h>

#include "kselftest_harness.h"
#include "nlraw.h"

FIXTURE(xfer) {
	struct nlr s;
	struct nlr_msg m;
};

FIXTURE_SETUP(xfer)
{
	ASSERT_EQ(0, nlr_open(&self->s));
}

FIXTURE_TEARDOWN(xfer)
{
	uint32_t all = KBLOOM_F_ALL;

	self->s.each = NULL;
	nlr_init(&self->s, &self->m, self->s.family, KBLOOM_CMD_DESTROY, 0);
	nlr_put(&self->m, KBLOOM_A_FLAGS, &all, sizeof(all));
	nlr_send(&self->s, &self->m);
	close(self->s.fd);
}

/* What an export returned. */
struct image {
	uint8_t hkey[16];
	uint64_t cell_bytes;
	uint64_t window;
	uint8_t *cells;
	uint64_t got;		/* bytes of cells received, in order */
	int heads, chunks;
	bool out_of_order;
};

static struct nlattr *msg_attr(struct nlmsghdr *h, uint16_t type)
{
	size_t off = NLMSG_HDRLEN + GENL_HDRLEN;

	while (off + NLA_HDRLEN <= h->nlmsg_len) {
		struct nlattr *a = (struct nlattr *)((uint8_t *)h + off);

		if (a->nla_len < NLA_HDRLEN)
			break;
		if ((a->nla_type & NLA_TYPE_MASK) == type)
			return a;
		off += NLA_ALIGN(a->nla_len);
	}
	return NULL;
}

static void on_export(struct nlmsghdr *h, void *arg)
{
	struct image *im = arg;
	struct nlattr *a = msg_attr(h, KBLOOM_A_CELL_BYTES), *c;
	uint64_t off;

	if (a) {
		im->heads++;
		memcpy(&im->cell_bytes, (char *)a + NLA_HDRLEN, 8);
		memcpy(im->hkey, (char *)msg_attr(h, KBLOOM_A_HASH_KEY) + NLA_HDRLEN, 16);
		im->cells = calloc(1, im->cell_bytes);
		a = msg_attr(h, KBLOOM_A_WINDOW_LIST);
		/* list > window nest > ID, the first attribute */
		memcpy(&im->window, (char *)a + 2 * NLA_HDRLEN + NLA_HDRLEN, 8);
		return;
	}
	a = msg_attr(h, KBLOOM_A_OFFSET);
	c = msg_attr(h, KBLOOM_A_CELLS);
	if (!a || !c || !im->cells)
		return;
	memcpy(&off, (char *)a + NLA_HDRLEN, 8);
	if (off != im->got || off + c->nla_len - NLA_HDRLEN > im->cell_bytes) {
		im->out_of_order = true;
		return;
	}
	memcpy(im->cells + off, (char *)c + NLA_HDRLEN, c->nla_len - NLA_HDRLEN);
	im->got += c->nla_len - NLA_HDRLEN;
	im->chunks++;
}

static int export(struct nlr *s, struct nlr_msg *m, const char *name,
		  uint64_t window, struct image *im)
{
	int err;

	memset(im, 0, sizeof(*im));
	nlr_init(s, m, s->family, KBLOOM_CMD_EXPORT, NLM_F_DUMP);
	nlr_put_str(m, KBLOOM_A_NAME, name);
	if (window)
		nlr_put_u64(m, KBLOOM_A_WINDOW, window);
	s->each = on_export;
	s->each_arg = im;
	err = nlr_send(s, m);
	s->each = NULL;
	return err;
}

static int create_load(struct nlr *s, struct nlr_msg *m, const char *name,
		       uint32_t type, uint64_t bits, uint32_t k,
		       const uint8_t *hkey)
{
	create_msg(s, m, name, type, bits, k);
	nlr_put(m, KBLOOM_A_HASH_KEY, hkey, 16);
	nlr_put_u32(m, KBLOOM_A_FLAGS, KBLOOM_F_LOAD);
	if (type == KBLOOM_TYPE_COUNTING)
		nlr_put_u32(m, KBLOOM_A_COUNTER_BITS, 8);
	return nlr_send(s, m);
}

static int import(struct nlr *s, struct nlr_msg *m, const char *name,
		  uint64_t off, const uint8_t *cells, size_t len, uint32_t flags)
{
	nlr_init(s, m, s->family, KBLOOM_CMD_IMPORT, 0);
	nlr_put_str(m, KBLOOM_A_NAME, name);
	if (cells) {
		nlr_put_u64(m, KBLOOM_A_OFFSET, off);
		nlr_put(m, KBLOOM_A_CELLS, cells, len);
	}
	if (flags)
		nlr_put_u32(m, KBLOOM_A_FLAGS, flags);
	return nlr_send(s, m);
}

/* Imports @im into @name in chunks of @chunk bytes, then LOADED. */
static int import_all(struct nlr *s, struct nlr_msg *m, const char *name,
		      const struct image *im, size_t chunk)
{
	uint64_t off;
	int err;

	for (off = 0; off < im->cell_bytes; off += chunk) {
		size_t n = im->cell_bytes - off < chunk ? im->cell_bytes - off : chunk;

		err = import(s, m, name, off, im->cells + off, n, 0);
		if (err)
			return err;
	}
	return import(s, m, name, 0, NULL, 0, KBLOOM_F_LOADED);
}

/* TEST bitmap of keys base..base+n-1 (n <= 2048: one message). */
static int test_bitmap(struct nlr *s, struct nlr_msg *m, const char *name,
		       int base, int n, uint8_t *out)
{
	struct nlattr *a;
	int err = keys_cmd(s, m, KBLOOM_CMD_TEST, name, base, n);

	if (err)
		return err;
	a = nlr_reply_attr(s, KBLOOM_A_RESULT);
	if (!a)
		return -ENODATA;
	memcpy(out, (char *)a + NLA_HDRLEN, (n + 7) / 8);
	return 0;
}

TEST_F(xfer, export_import_round_trip_answers_exactly_as_before)
{
	static const uint32_t types[] = { KBLOOM_TYPE_BLOOM, KBLOOM_TYPE_BLOCKED,
					  KBLOOM_TYPE_COUNTING };
	uint8_t a[256], b[256];
	struct nlr *s = &self->s;
	struct image im;
	unsigned int t;

	for (t = 0; t < 3; t++) {
		create_msg(s, &self->m, "orig", types[t], 1 << 22, 5);
		if (types[t] == KBLOOM_TYPE_COUNTING)
			nlr_put_u32(&self->m, KBLOOM_A_COUNTER_BITS, 8);
		ASSERT_EQ(0, nlr_send(s, &self->m));
		ASSERT_EQ(0, keys_cmd(s, &self->m, KBLOOM_CMD_ADD, "orig", 0, 3000));

		ASSERT_EQ(0, export(s, &self->m, "orig", 0, &im));
		EXPECT_EQ(1, im.heads);
		EXPECT_FALSE(im.out_of_order);
		EXPECT_EQ(im.cell_bytes, im.got);
		EXPECT_LT(1, im.chunks);	/* it spans messages */
		EXPECT_EQ(1, im.window);

		ASSERT_EQ(0, create_load(s, &self->m, "copy", types[t], 1 << 22, 5,
					 im.hkey));
		ASSERT_EQ(0, import_all(s, &self->m, "copy", &im, 30000));
		/* Added keys and 2000 others: identical answers. */
		ASSERT_EQ(0, test_bitmap(s, &self->m, "orig", 0, 2000, a));
		ASSERT_EQ(0, test_bitmap(s, &self->m, "copy", 0, 2000, b));
		EXPECT_EQ(0, memcmp(a, b, 250));
		ASSERT_EQ(0, test_bitmap(s, &self->m, "orig", 100000, 2000, a));
		ASSERT_EQ(0, test_bitmap(s, &self->m, "copy", 100000, 2000, b));
		EXPECT_EQ(0, memcmp(a, b, 250));
		ASSERT_EQ(0, get(s, &self->m, "copy"));
		free(im.cells);
		nlr_init(s, &self->m, s->family, KBLOOM_CMD_DESTROY, 0);
		nlr_put_u32(&self->m, KBLOOM_A_FLAGS, KBLOOM_F_ALL);
		ASSERT_EQ(0, nlr_send(s, &self->m));
	}
}

TEST_F(xfer, loading_filter_is_reserved_for_its_socket)
{
	struct nlr *s = &self->s, other;
	static uint8_t big[4096];
	uint8_t hkey[16] = { 1 };
	uint8_t cells[64] = { 0xff };

	ASSERT_EQ(0, create_load(s, &self->m, "ld", KBLOOM_TYPE_BLOOM, 4096, 3, hkey));
	ASSERT_EQ(0, nlr_open(&other));
	EXPECT_EQ(-ENOENT, keys_cmd(&other, &self->m, KBLOOM_CMD_TEST, "ld", 0, 1));
	EXPECT_STREQ("filter is being restored; it appears when its IMPORT completes",
		     other.extack);
	EXPECT_EQ(-ENOENT, keys_cmd(s, &self->m, KBLOOM_CMD_ADD, "ld", 0, 1));
	EXPECT_EQ(-ENOENT, get(s, &self->m, "ld"));
	EXPECT_EQ(0, dump_count(s, &self->m));
	EXPECT_EQ(-EEXIST, create(s, &self->m, "ld", 4096, 3));
	EXPECT_EQ(-EPERM, import(&other, &self->m, "ld", 0, cells, 64, 0));
	close(other.fd);

	/* Out of order, past the end, and LOADED too early: refused. */
	EXPECT_EQ(-EINVAL, import(s, &self->m, "ld", 8, cells, 8, 0));
	EXPECT_EQ(0, import(s, &self->m, "ld", 0, cells, 64, 0));
	EXPECT_EQ(-EINVAL, import(s, &self->m, "ld", 64, cells, 64, KBLOOM_F_LOADED));
	EXPECT_STREQ("LOADED before every cell byte was imported", s->extack);
	EXPECT_EQ(-EINVAL, import(s, &self->m, "ld", 64, big, sizeof(big), 0));
	EXPECT_STREQ("CELLS run past the filter's cell memory", s->extack);
	EXPECT_EQ(0, import(s, &self->m, "ld", 64, big, 512 - 64, 0));
	EXPECT_EQ(0, import(s, &self->m, "ld", 0, NULL, 0, KBLOOM_F_LOADED));
	EXPECT_EQ(0, get(s, &self->m, "ld"));
	EXPECT_EQ(8, reply_u64(s, KBLOOM_A_FILL));	/* 0xff: 8 bits */
	EXPECT_EQ(-EINVAL, import(s, &self->m, "ld", 0, cells, 8, 0));
	EXPECT_STREQ("filter is not being restored (CREATE it with FLAGS LOAD)", s->extack);
}

TEST_F(xfer, restore_dying_half_way_leaves_nothing)
{
	struct nlr *s = &self->s, loader;
	uint8_t hkey[16] = { 2 }, cells[64] = { 0 };
	int i;

	ASSERT_EQ(0, nlr_open(&loader));
	ASSERT_EQ(0, create_load(&loader, &self->m, "half", KBLOOM_TYPE_BLOOM, 4096, 3, hkey));
	ASSERT_EQ(0, import(&loader, &self->m, "half", 0, cells, 64, 0));
	close(loader.fd);
	/* The release runs when the socket goes; give it a moment. */
	for (i = 0; i < 50 && create(s, &self->m, "half", 4096, 3); i++)
		usleep(20000);
	EXPECT_EQ(0, get(s, &self->m, "half"));
	EXPECT_EQ(0, reply_u64(s, KBLOOM_A_FILL));
}

TEST_F(xfer, export_refusals_named)
{
	struct nlr *s = &self->s;
	struct image im;

	EXPECT_EQ(-ENOENT, export(s, &self->m, "none", 0, &im));
	ASSERT_EQ(0, create(s, &self->m, "e", 4096, 3));
	EXPECT_EQ(-ENOENT, export(s, &self->m, "e", 7, &im));
	EXPECT_STREQ("no retained window has that WINDOW id", s->extack);
	ASSERT_EQ(0, export(s, &self->m, "e", 1, &im));
	EXPECT_EQ(512, im.cell_bytes);
	free(im.cells);

	create_msg(s, &self->m, "w", KBLOOM_TYPE_BLOOM, 4096, 3);
	nlr_put_u32(&self->m, KBLOOM_A_FLAGS, KBLOOM_F_LOAD);
	nlr_put_u32(&self->m, KBLOOM_A_WINDOWS, 2);
	nlr_put_u64(&self->m, KBLOOM_A_INTERVAL, 1000);
	EXPECT_EQ(-EINVAL, nlr_send(s, &self->m));
	EXPECT_STREQ("a filter with WINDOWS cannot be loaded", s->extack);
}

TEST_HARNESS_MAIN
