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

#include "vm_harness.h"
#include "nlraw.h"

FIXTURE(xfer) {
	struct nlr s;
	struct nlr_msg m;
};

FIXTURE_SETUP(xfer)
{
	ASSERT_EQ(0, nlr_open(&self->s));
	ASSERT_EQ(0, nlr_destroy_all(&self->s, &self->m));
}

FIXTURE_TEARDOWN(xfer)
{
	self->s.each = NULL;
	nlr_destroy_all(&self->s, &self->m);
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
	struct nlattr *slices;	/* scalable: the head's SLICE_LIST (copy) */
	uint32_t ofv_bits;	/* dcf: the head's OFV_BITS */
	uint64_t lost;		/* dcf: LOST */
	uint64_t memory;	/* the head's MEMORY */
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
		c = msg_attr(h, KBLOOM_A_SLICE_LIST);
		if (c) {
			im->slices = malloc(c->nla_len);
			memcpy(im->slices, c, c->nla_len);
		}
		c = msg_attr(h, KBLOOM_A_OFV_BITS);
		if (c)
			memcpy(&im->ofv_bits, (char *)c + NLA_HDRLEN, 4);
		c = msg_attr(h, KBLOOM_A_LOST);
		if (c)
			memcpy(&im->lost, (char *)c + NLA_HDRLEN, 8);
		c = msg_attr(h, KBLOOM_A_MEMORY);
		if (c)
			memcpy(&im->memory, (char *)c + NLA_HDRLEN, 8);
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

/*
 * EXPORT into @im. A scalable filter's growth work may still make a slice
 * after the ADD that asked for it returned: the dump then ends with
 * EAGAIN, and a client exports again (as bloomctl save does).
 */
/* The family version export() says its sender was built with. */
static uint8_t export_version = KBLOOM_GENL_VERSION;
static uint8_t export_client_version;	/* 0: no CLIENT_VERSION */

static int export(struct nlr *s, struct nlr_msg *m, const char *name,
		  uint64_t window, struct image *im)
{
	int err, tries = 0;

	memset(im, 0, sizeof(*im));
	do {
		free(im->cells);	/* of an attempt that met EAGAIN */
		free(im->slices);
		memset(im, 0, sizeof(*im));
		nlr_init(s, m, s->family, KBLOOM_CMD_EXPORT, NLM_F_DUMP);
		((struct genlmsghdr *)(m->buf + NLMSG_HDRLEN))->version =
			export_version;
		nlr_put_str(m, KBLOOM_A_NAME, name);
		if (window)
			nlr_put_u64(m, KBLOOM_A_WINDOW, window);
		if (export_client_version)
			nlr_put(m, KBLOOM_A_CLIENT_VERSION,
				&export_client_version, 1);
		s->each = on_export;
		s->each_arg = im;
		err = nlr_send(s, m);
		s->each = NULL;
	} while (err == -EAGAIN && ++tries < 5);
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

/*
 * A client of family version 1 knows no HASH_FN: it exports a filter of
 * SipHash-2-4 as before, but not one of SipHash-1-3, which it would save
 * as SipHash-2-4. A client of version 2 exports both.
 */
TEST_F(xfer, version_1_client_cannot_export_siphash13)
{
	struct nlr *s = &self->s;
	struct image im;

	create_msg(s, &self->m, "h13", KBLOOM_TYPE_BLOOM, 4096, 3);
	nlr_put_u32(&self->m, KBLOOM_A_HASH_FN, KBLOOM_HASH_FN_SIPHASH13);
	ASSERT_EQ(0, nlr_send(s, &self->m));
	ASSERT_EQ(0, create(s, &self->m, "h24", 4096, 3));

	export_version = 1;
	EXPECT_EQ(-EOPNOTSUPP, export(s, &self->m, "h13", 0, &im));
	EXPECT_STREQ("the filter hashes with HASH_FN (SipHash-1-3), which a client of family version 1 cannot save: use one of version 2, or send CLIENT_VERSION 2",
		     s->extack);
	EXPECT_EQ(0, im.heads);
	ASSERT_EQ(0, export(s, &self->m, "h24", 0, &im));
	EXPECT_EQ(512, im.cell_bytes);
	free(im.cells);

	export_version = KBLOOM_GENL_VERSION;
	ASSERT_EQ(0, export(s, &self->m, "h13", 0, &im));
	EXPECT_EQ(512, im.cell_bytes);
	free(im.cells);
}

/*
 * A client that cannot set the header's version (the kernel's ynl sends
 * 1) says CLIENT_VERSION 2 and exports SipHash-1-3; the attribute holds
 * no version the family does not have.
 */
TEST_F(xfer, client_version_attribute_speaks_for_a_version_1_header)
{
	struct nlr *s = &self->s;
	struct image im;

	create_msg(s, &self->m, "h13", KBLOOM_TYPE_BLOOM, 4096, 3);
	nlr_put_u32(&self->m, KBLOOM_A_HASH_FN, KBLOOM_HASH_FN_SIPHASH13);
	ASSERT_EQ(0, nlr_send(s, &self->m));

	export_version = 1;
	export_client_version = 2;
	EXPECT_EQ(0, export(s, &self->m, "h13", 0, &im));
	EXPECT_EQ(512, im.cell_bytes);
	EXPECT_EQ(1, im.heads);
	free(im.cells);

	export_client_version = KBLOOM_GENL_VERSION + 1;
	EXPECT_EQ(-ERANGE, export(s, &self->m, "h13", 0, &im));
	EXPECT_EQ(0, im.heads);
	export_client_version = 0;
	export_version = KBLOOM_GENL_VERSION;
}

/* ---- Scalable filters and dcfs: their layout travels with them ------- */

static void scalable_msg(struct nlr *s, struct nlr_msg *m, const char *name,
			 const uint8_t *hkey)
{
	create_msg(s, m, name, KBLOOM_TYPE_SCALABLE, 1024, 4);
	nlr_put_u64(m, KBLOOM_A_CAPACITY, 100);
	nlr_put_u32(m, KBLOOM_A_GROWTH, 2);
	nlr_put_u32(m, KBLOOM_A_TIGHTEN, 500000);
	if (hkey) {
		nlr_put(m, KBLOOM_A_HASH_KEY, hkey, 16);
		nlr_put_u32(m, KBLOOM_A_FLAGS, KBLOOM_F_LOAD);
	}
}

TEST_F(xfer, scalable_round_trip_keeps_slices_and_answers)
{
	struct slice a[KBLOOM_SLICES_MAX], b[KBLOOM_SLICES_MAX];
	uint8_t ta[256], tb[256];
	struct nlr *s = &self->s;
	uint64_t mem;
	struct image im;
	int na, nb, i;

	scalable_msg(s, &self->m, "sorig", NULL);
	ASSERT_EQ(0, nlr_send(s, &self->m));
	/* 1000 keys: slices of 100, 200, 400, 800 keys */
	ASSERT_EQ(0, keys_cmd(s, &self->m, KBLOOM_CMD_ADD, "sorig", 0, 1000));
	ASSERT_EQ(0, export(s, &self->m, "sorig", 0, &im));
	EXPECT_EQ(1, im.heads);
	EXPECT_FALSE(im.out_of_order);
	EXPECT_EQ(im.cell_bytes, im.got);
	ASSERT_NE(NULL, im.slices);
	na = slices_of(im.slices, a, KBLOOM_SLICES_MAX);
	ASSERT_LE(3, na);
	for (i = 0, mem = 0; i < na; i++)
		mem += a[i].m / 8;
	EXPECT_EQ(mem, im.cell_bytes);	/* every slice, in order */

	scalable_msg(s, &self->m, "scopy", im.hkey);
	put_slices(&self->m, a, na);
	ASSERT_EQ(0, nlr_send(s, &self->m)) {
		TH_LOG("%s", s->extack);
	}
	ASSERT_EQ(0, import_all(s, &self->m, "scopy", &im, 20000));
	ASSERT_EQ(0, test_bitmap(s, &self->m, "scopy", 0, 1000, tb));
	for (i = 0; i < 125; i++)
		EXPECT_EQ(0xff, tb[i]);
	for (i = 0; i < 2; i++) {
		ASSERT_EQ(0, test_bitmap(s, &self->m, "sorig", i * 100000, 2000, ta));
		ASSERT_EQ(0, test_bitmap(s, &self->m, "scopy", i * 100000, 2000, tb));
		EXPECT_EQ(0, memcmp(ta, tb, 250));
	}
	/*
	 * The slices the export saw (the original may have made one more
	 * since, ahead of need), charged as much as the original was then.
	 */
	ASSERT_EQ(0, get(s, &self->m, "scopy"));
	nb = slices_of(nlr_reply_attr(s, KBLOOM_A_SLICE_LIST), b, KBLOOM_SLICES_MAX);
	EXPECT_EQ(im.memory, reply_u64(s, KBLOOM_A_MEMORY));
	ASSERT_EQ(na, nb);
	for (i = 0; i < na; i++) {
		EXPECT_EQ(a[i].m, b[i].m);
		EXPECT_EQ(a[i].k, b[i].k);
		EXPECT_EQ(a[i].cap, b[i].cap);
		EXPECT_EQ(a[i].keys, b[i].keys);
		EXPECT_EQ(a[i].fill, b[i].fill);
		EXPECT_EQ(a[i].cur, b[i].cur);
	}
	free(im.slices);
	free(im.cells);
}

/* COUNT of keys base..base+n-1 into @out. */
static int counts(struct nlr *s, struct nlr_msg *m, const char *name,
		  int base, int n, uint32_t *out)
{
	struct nlattr *a;
	int err = keys_cmd(s, m, KBLOOM_CMD_COUNT, name, base, n);

	if (err)
		return err;
	a = nlr_reply_attr(s, KBLOOM_A_COUNTS);
	if (!a || a->nla_len - NLA_HDRLEN != 4 * n)
		return -ENODATA;
	memcpy(out, (char *)a + NLA_HDRLEN, 4 * n);
	return 0;
}

TEST_F(xfer, dcf_round_trip_keeps_every_count)
{
	static uint32_t ca[1000], cb[1000];
	struct nlr *s = &self->s;
	struct image im;
	int i;

	create_msg(s, &self->m, "dorig", KBLOOM_TYPE_DCF, 8192, 3);
	nlr_put_u32(&self->m, KBLOOM_A_COUNTER_BITS, 4);
	ASSERT_EQ(0, nlr_send(s, &self->m));
	ASSERT_EQ(0, keys_cmd(s, &self->m, KBLOOM_CMD_ADD, "dorig", 0, 500));
	/* key-7 1000 times: its counters overflow 4 bits, the OFV widens */
	for (i = 0; i < 999; i++)
		ASSERT_EQ(0, keys_cmd(s, &self->m, KBLOOM_CMD_ADD, "dorig", 7, 1));
	ASSERT_EQ(0, export(s, &self->m, "dorig", 0, &im));
	EXPECT_EQ(im.cell_bytes, im.got);
	EXPECT_LE(8, im.ofv_bits);	/* 1000 / 16 = 62 carries: 8 bits */
	EXPECT_EQ(0, im.lost);
	/* the CBFV (8192 x 4 bits) then the OFV */
	EXPECT_EQ(4096 + 8192 * im.ofv_bits / 8, im.cell_bytes);

	create_msg(s, &self->m, "dcopy", KBLOOM_TYPE_DCF, 8192, 3);
	nlr_put_u32(&self->m, KBLOOM_A_COUNTER_BITS, 4);
	nlr_put(&self->m, KBLOOM_A_HASH_KEY, im.hkey, 16);
	nlr_put_u32(&self->m, KBLOOM_A_FLAGS, KBLOOM_F_LOAD);
	nlr_put_u32(&self->m, KBLOOM_A_OFV_BITS, im.ofv_bits);
	nlr_put_u64(&self->m, KBLOOM_A_LOST, im.lost);
	ASSERT_EQ(0, nlr_send(s, &self->m)) {
		TH_LOG("%s", s->extack);
	}
	ASSERT_EQ(0, import_all(s, &self->m, "dcopy", &im, 3000));
	/* Others, then the added keys (left in ca, cb) */
	for (i = 1; i >= 0; i--) {
		ASSERT_EQ(0, counts(s, &self->m, "dorig", i * 100000, 1000, ca));
		ASSERT_EQ(0, counts(s, &self->m, "dcopy", i * 100000, 1000, cb));
		EXPECT_EQ(0, memcmp(ca, cb, sizeof(ca)));
	}
	EXPECT_LE(1000, cb[7]);
	EXPECT_GE(1003, cb[7]);
	ASSERT_EQ(0, get(s, &self->m, "dcopy"));
	EXPECT_EQ(im.memory, reply_u64(s, KBLOOM_A_MEMORY));
	EXPECT_EQ(im.ofv_bits, reply_u32(s, KBLOOM_A_OFV_BITS));
	/* It keeps counting exactly, and deletes. */
	ASSERT_EQ(0, keys_cmd(s, &self->m, KBLOOM_CMD_ADD, "dcopy", 7, 1));
	ASSERT_EQ(0, keys_cmd(s, &self->m, KBLOOM_CMD_DEL, "dcopy", 7, 1));
	ASSERT_EQ(0, counts(s, &self->m, "dcopy", 7, 1, cb));
	EXPECT_EQ(ca[7], cb[0]);
	free(im.cells);
}

/* One bad CREATE LOAD: refused with @msg, and no filter left behind. */
static void refused(struct __test_metadata *_metadata, struct nlr *s,
		    struct nlr_msg *m, const char *name, const char *msg)
{
	EXPECT_EQ(-EINVAL, nlr_send(s, m));
	EXPECT_STREQ(msg, s->extack);
	EXPECT_EQ(-ENOENT, get(s, m, name));
}

TEST_F(xfer, load_with_bad_layout_refused_with_extack)
{
	struct slice a[KBLOOM_SLICES_MAX], bad[KBLOOM_SLICES_MAX];
	uint8_t hkey[16] = { 3 };
	struct nlr *s = &self->s;
	struct image im;
	int n;

	/* A real layout to spoil. */
	scalable_msg(s, &self->m, "lorig", NULL);
	ASSERT_EQ(0, nlr_send(s, &self->m));
	ASSERT_EQ(0, keys_cmd(s, &self->m, KBLOOM_CMD_ADD, "lorig", 0, 400));
	ASSERT_EQ(0, export(s, &self->m, "lorig", 0, &im));
	n = slices_of(im.slices, a, KBLOOM_SLICES_MAX);
	ASSERT_LE(2, n);

	scalable_msg(s, &self->m, "l", hkey);
	refused(_metadata, s, &self->m, "l",
		"missing attribute SLICE_LIST (a scalable filter's slices, to load it)");

	memcpy(bad, a, sizeof(a));
	bad[1].m += 64;
	scalable_msg(s, &self->m, "l", hkey);
	put_slices(&self->m, bad, n);
	refused(_metadata, s, &self->m, "l",
		"slice BITS differ from the plan's m_i for its place (uapi/kbloom.h)");

	memcpy(bad, a, sizeof(a));
	bad[1].k++;
	scalable_msg(s, &self->m, "l", hkey);
	put_slices(&self->m, bad, n);
	refused(_metadata, s, &self->m, "l",
		"slice HASHES differ from the plan's k_i for its place");

	memcpy(bad, a, sizeof(a));
	bad[0].cap = 0;
	scalable_msg(s, &self->m, "l", hkey);
	put_slices(&self->m, bad, n);
	refused(_metadata, s, &self->m, "l",
		"a SLICE_LIST slice needs BITS, HASHES and CAPACITY");

	memcpy(bad, a, sizeof(a));
	bad[0].cur = bad[1].cur = true;
	scalable_msg(s, &self->m, "l", hkey);
	put_slices(&self->m, bad, n);
	refused(_metadata, s, &self->m, "l",
		"more than one slice of SLICE_LIST is CURRENT");

	memcpy(bad, a, sizeof(a));
	for (int i = 0; i < n; i++)
		bad[i].cur = false;
	scalable_msg(s, &self->m, "l", hkey);
	put_slices(&self->m, bad, n);
	refused(_metadata, s, &self->m, "l",
		"SLICE_LIST needs its slices, one of them CURRENT");

	/* A layout for the wrong type, or without LOAD. */
	create_msg(s, &self->m, "l", KBLOOM_TYPE_BLOOM, 1024, 3);
	nlr_put_u32(&self->m, KBLOOM_A_FLAGS, KBLOOM_F_LOAD);
	nlr_put_u32(&self->m, KBLOOM_A_OFV_BITS, 2);
	refused(_metadata, s, &self->m, "l",
		"SLICE_LIST and OVERFLOW (scalable), OFV_BITS and LOST (dcf) are only for CREATE with FLAGS LOAD of that type");
	scalable_msg(s, &self->m, "l", NULL);
	put_slices(&self->m, a, n);
	refused(_metadata, s, &self->m, "l",
		"SLICE_LIST and OVERFLOW (scalable), OFV_BITS and LOST (dcf) are only for CREATE with FLAGS LOAD of that type");

	create_msg(s, &self->m, "l", KBLOOM_TYPE_DCF, 1024, 3);
	nlr_put_u32(&self->m, KBLOOM_A_COUNTER_BITS, 4);
	nlr_put_u32(&self->m, KBLOOM_A_FLAGS, KBLOOM_F_LOAD);
	nlr_put_u32(&self->m, KBLOOM_A_OFV_BITS, 3);
	refused(_metadata, s, &self->m, "l", "OFV_BITS must be 1, 2, 4, 8, 16 or 32");
	create_msg(s, &self->m, "l", KBLOOM_TYPE_DCF, 1024, 3);
	nlr_put_u32(&self->m, KBLOOM_A_COUNTER_BITS, 4);
	nlr_put_u32(&self->m, KBLOOM_A_FLAGS, KBLOOM_F_LOAD);
	nlr_put_u32(&self->m, KBLOOM_A_OFV_BITS, 64);
	EXPECT_EQ(-ERANGE, nlr_send(s, &self->m));	/* the policy's range */
	EXPECT_EQ(-ENOENT, get(s, &self->m, "l"));
	free(im.slices);
	free(im.cells);
}

/*
 * An export begun and left after its first read, so the filter can be
 * changed between two calls of the dump: 0, or -EIO when the dump already
 * ended (or failed) there. nlr_recv() then reads to the end: the dump's
 * error (0: it ended whole), with nreplies the messages before it.
 */
static int export_begin(struct nlr *s, struct nlr_msg *m, const char *name)
{
	static uint8_t rx[1 << 16];
	struct nlmsghdr *h;
	ssize_t n;

	nlr_init(s, m, s->family, KBLOOM_CMD_EXPORT, NLM_F_DUMP);
	nlr_put_str(m, KBLOOM_A_NAME, name);
	if (send(s->fd, m->buf, m->len, 0) != (ssize_t)m->len)
		return -errno;
	n = recv(s->fd, rx, sizeof(rx), 0);
	if (n <= 0)
		return -EIO;
	for (h = (struct nlmsghdr *)rx; NLMSG_OK(h, n); h = NLMSG_NEXT(h, n))
		if (h->nlmsg_type == NLMSG_DONE || h->nlmsg_type == NLMSG_ERROR)
			return -EIO;
	return 0;
}

/* Bytes of an image's cells that are not zero. */
static uint64_t nonzero(const struct image *im)
{
	uint64_t i, n = 0;

	for (i = 0; i < im->got; i++)
		n += im->cells[i] != 0;
	return n;
}

/*
 * A dcf whose OFV is widened while its export is under way: the kernel
 * ends the dump with EAGAIN (never a mixed image), and exporting again
 * gives the new layout whole.
 */
TEST_F(xfer, export_of_a_growing_filter_is_refused_not_mixed)
{
	struct nlr *s = &self->s, other;
	struct nlr_msg *m2 = calloc(1, sizeof(*m2));
	struct image im;
	int i;

	ASSERT_NE(NULL, m2);
	/* 2^21 counters of 4 bits: 1 MiB of CBFV, many dump calls */
	create_msg(s, &self->m, "grow", KBLOOM_TYPE_DCF, 1 << 21, 3);
	nlr_put_u32(&self->m, KBLOOM_A_COUNTER_BITS, 4);
	ASSERT_EQ(0, nlr_send(s, &self->m));
	for (i = 0; i < 15; i++)	/* 15: no carry yet */
		ASSERT_EQ(0, keys_cmd(s, &self->m, KBLOOM_CMD_ADD, "grow", 7, 1));
	ASSERT_EQ(0, get(s, &self->m, "grow"));
	ASSERT_EQ(1, reply_u32(s, KBLOOM_A_OFV_BITS));

	/* The first part of the dump, then the filter grows. */
	ASSERT_EQ(0, export_begin(s, &self->m, "grow"));
	ASSERT_EQ(0, nlr_open(&other));
	for (i = 0; i < 2; i++)		/* a carry, then the widening */
		ASSERT_EQ(0, keys_cmd(&other, m2, KBLOOM_CMD_ADD, "grow", 7, 1));
	ASSERT_EQ(0, get(&other, m2, "grow"));
	EXPECT_EQ(2, reply_u32(&other, KBLOOM_A_OFV_BITS));
	close(other.fd);
	EXPECT_EQ(-EAGAIN, nlr_recv(s));
	EXPECT_STREQ("the filter grew during the export (a slice was made or the overflow vector widened): export again",
		     s->extack);
	TH_LOG("%d messages after the growth, then EAGAIN", s->nreplies);

	/* Again: whole, in the new layout. */
	ASSERT_EQ(0, export(s, &self->m, "grow", 0, &im));
	EXPECT_EQ(2, im.ofv_bits);
	EXPECT_EQ(im.cell_bytes, im.got);
	EXPECT_EQ((1 << 21) / 2 + (1 << 21) / 4, im.cell_bytes);
	free(im.cells);
	free(m2);
}

static const uint8_t fixed_hkey[16] = { 1, 2, 3, 4, 5, 6, 7, 8, 9 };

/* A bloom filter of 2^24 bits and k 3 with the hash key fixed_hkey. */
static int create_big(struct nlr *s, struct nlr_msg *m, const char *name)
{
	create_msg(s, m, name, KBLOOM_TYPE_BLOOM, 1 << 24, 3);
	nlr_put(m, KBLOOM_A_HASH_KEY, fixed_hkey, sizeof(fixed_hkey));
	return nlr_send(s, m);
}

/* create_big() (2 MiB: many dump calls), 1000 keys, its export begun. */
static void big_export_begun(struct __test_metadata *_metadata, struct nlr *s,
			     struct nlr_msg *m, const char *name)
{
	ASSERT_EQ(0, create_big(s, m, name));
	ASSERT_EQ(0, keys_cmd(s, m, KBLOOM_CMD_ADD, name, 0, 1000));
	ASSERT_EQ(0, export_begin(s, m, name));
}

/* The rest of that export refused; exported again: whole, and empty. */
static void refused_then_whole_and_empty(struct __test_metadata *_metadata,
					 struct nlr *s, struct nlr_msg *m,
					 const char *name)
{
	struct image im;

	EXPECT_EQ(-EAGAIN, nlr_recv(s));
	EXPECT_STREQ("the filter was cleared, merged into or made anew during the export: export again",
		     s->extack);
	ASSERT_EQ(0, export(s, m, name, 0, &im));
	EXPECT_EQ(1 << 21, im.cell_bytes);
	EXPECT_EQ(im.cell_bytes, im.got);
	EXPECT_EQ(0, nonzero(&im));
	free(im.cells);
}

/*
 * A filter cleared while its export is under way: the cells sent so far
 * are the image before the clear, so the dump ends with EAGAIN.
 */
TEST_F(xfer, export_of_a_cleared_filter_is_refused_not_mixed)
{
	struct nlr_msg *m2 = calloc(1, sizeof(*m2));
	struct nlr other;

	ASSERT_NE(NULL, m2);
	big_export_begun(_metadata, &self->s, &self->m, "clr");
	ASSERT_EQ(0, nlr_open(&other));
	ASSERT_EQ(0, name_cmd(&other, m2, KBLOOM_CMD_CLEAR, "clr"));
	close(other.fd);
	refused_then_whole_and_empty(_metadata, &self->s, &self->m, "clr");
	free(m2);
}

/*
 * An empty filter AND-merged into one whose export is under way (bits
 * taken away: the cells so far hold bits the filter no longer has): the
 * dump ends with EAGAIN.
 */
TEST_F(xfer, export_of_a_filter_merged_into_is_refused_not_mixed)
{
	struct nlr_msg *m2 = calloc(1, sizeof(*m2));
	struct nlr other;

	ASSERT_NE(NULL, m2);
	ASSERT_EQ(0, nlr_open(&other));
	ASSERT_EQ(0, create_big(&other, m2, "empty"));
	big_export_begun(_metadata, &self->s, &self->m, "mrg");
	nlr_init(&other, m2, other.family, KBLOOM_CMD_MERGE, 0);
	nlr_put_str(m2, KBLOOM_A_NAME, "mrg");
	nlr_put_str(m2, KBLOOM_A_SRC, "empty");
	nlr_put_u32(m2, KBLOOM_A_MERGE_OP, KBLOOM_MERGE_AND);
	ASSERT_EQ(0, nlr_send(&other, m2));
	close(other.fd);
	refused_then_whole_and_empty(_metadata, &self->s, &self->m, "mrg");
	free(m2);
}

/*
 * A filter destroyed and created again under its name, same shape and
 * hash key, while its export is under way: the rest of the cells would be
 * another filter's, so the dump ends with EAGAIN.
 */
TEST_F(xfer, export_of_a_filter_made_anew_is_refused_not_mixed)
{
	struct nlr_msg *m2 = calloc(1, sizeof(*m2));
	struct nlr other;

	ASSERT_NE(NULL, m2);
	big_export_begun(_metadata, &self->s, &self->m, "anew");
	ASSERT_EQ(0, nlr_open(&other));
	ASSERT_EQ(0, name_cmd(&other, m2, KBLOOM_CMD_DESTROY, "anew"));
	ASSERT_EQ(0, create_big(&other, m2, "anew"));
	close(other.fd);
	refused_then_whole_and_empty(_metadata, &self->s, &self->m, "anew");
	free(m2);
}

TEST_HARNESS_MAIN
