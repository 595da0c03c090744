// SPDX-License-Identifier: GPL-2.0 OR MIT
/*
 * Transform records (kmod/engine/xlate.c, KBLOOM_TYPE_TRANSFORMS) on the
 * host: a window holds one record per distinct record (FIRST aside), a
 * lookup gives exactly the valid records of a key in probe order, and a
 * record only ever takes a cell of its home line h1 * (m / 2) >> 64 or of
 * the KBLOOM_XLATE_PROBES - 1 lines after it (wrapping), as
 * uapi/kbloom.h defines them. Home lines are computed here from the key
 * bytes the uapi documents (FAMILY, PROTO, AFTER_SRC, AFTER_DST,
 * AFTER_SPORT, AFTER_DPORT), built byte by byte from host-order values,
 * not by kb_xlate_key(). Then clear and the shape rules. Concurrent puts
 * of the same flows are in concurrency_contract_test.c.
 */
#include <arpa/inet.h>
#include <errno.h>

#include "kselftest_harness.h"
#include "kb_test.h"
#include "../../kmod/engine/xlate.h"
#include "../../kmod/uapi/kbloom.h"

static const u8 hkey_a[16] = {
	0x0f, 0x0e, 0x0d, 0x0c, 0x0b, 0x0a, 0x09, 0x08,
	0x07, 0x06, 0x05, 0x04, 0x03, 0x02, 0x01, 0x00,
};

#define LINE	KBLOOM_XLATE_LINE
#define PROBES	KBLOOM_XLATE_PROBES

static struct kb_shape xshape(u64 m, u32 k)
{
	struct kb_shape s = { .type = KBLOOM_TYPE_TRANSFORMS, .m = m, .k = k };

	return s;
}

static int xinit(struct kb_filter *f, u64 m)
{
	struct kb_shape s = xshape(m, 1);

	return kb_filter_init(f, &s, hkey_a);
}

static u64 fill_of(const struct kb_filter *f)
{
	struct kb_fill out;

	kb_filter_fill(f, &out);
	return out.nonzero;
}

static const struct kbloom_xlate *cells_of(const struct kb_filter *f)
{
	return (const struct kbloom_xlate *)f->mem;
}

/* The fields of a record in host order, as a test states them. */
struct flow {
	u8 kind, proto, family;
	u32 bsrc, bdst, asrc, adst;
	u16 bsport, bdport, asport, adport;
	u32 first;
};

static struct kbloom_xlate rec_of(const struct flow *fl)
{
	struct kbloom_xlate r = {
		.kind = fl->kind, .proto = fl->proto, .family = fl->family,
		.before_src = htonl(fl->bsrc), .before_dst = htonl(fl->bdst),
		.after_src = htonl(fl->asrc), .after_dst = htonl(fl->adst),
		.before_sport = htons(fl->bsport),
		.before_dport = htons(fl->bdport),
		.after_sport = htons(fl->asport),
		.after_dport = htons(fl->adport),
		.first = fl->first,
	};

	return r;
}

/* A masqueraded UDP flow: 10.0.x.y:sport -> 198.19.0.1:9 leaves as
 * 192.0.2.1:(20000 + i) -> 198.19.0.1:9.
 */
static struct flow flow_nr(u32 i)
{
	struct flow fl = {
		.kind = KBLOOM_XLATE_SNAT, .proto = 17, .family = 4,
		.bsrc = 0x0a000000 | (i & 0xffff), .bdst = 0xc6130001,
		.asrc = 0xc0000201, .adst = 0xc6130001,
		.bsport = (u16)(1024 + i), .bdport = 9,
		.asport = (u16)(20000 + i), .adport = 9,
		.first = 1700000000,
	};

	return fl;
}

static void put_be32(u8 *p, u32 v)
{
	p[0] = v >> 24;
	p[1] = v >> 16;
	p[2] = v >> 8;
	p[3] = v;
}

/* The home line of @fl's records in a table of @m cells, from the ABI text. */
static u64 ref_home(const struct flow *fl, u64 m)
{
	u8 key[KBLOOM_XLATE_KEY_LEN];
	siphash_key_t hk;
	struct kb_hash h;

	key[0] = fl->family;
	key[1] = fl->proto;
	put_be32(key + 2, fl->asrc);
	put_be32(key + 6, fl->adst);
	key[10] = fl->asport >> 8;
	key[11] = fl->asport & 0xff;
	key[12] = fl->adport >> 8;
	key[13] = fl->adport & 0xff;
	siphash_key_from_bytes(&hk, hkey_a);
	kb_hash_key(&hk, key, sizeof(key), &h);
	return (u64)(((unsigned __int128)h.h1 * (m / LINE)) >> 64);
}

static u32 find(const struct kb_filter *f, const struct flow *fl,
		struct kbloom_xlate *out, u32 max)
{
	struct kbloom_xlate want = rec_of(fl);

	return kb_xlate_find(cells_of(f), f->s.m, &f->hkey, &want, out, max);
}

static enum kb_xlate_put put(struct kb_filter *f, const struct flow *fl)
{
	struct kbloom_xlate r = rec_of(fl);

	return kb_xlate_put(f, &r);
}

/* Whether cell @c holds @fl's record (state VALID, every field equal). */
static bool holds(const struct kbloom_xlate *c, const struct flow *fl)
{
	struct kbloom_xlate r = rec_of(fl);

	r.state = KBLOOM_XLATE_VALID;
	return !memcmp(c, &r, sizeof(r));
}

static bool line_valid(const struct kb_filter *f, u64 line)
{
	const struct kbloom_xlate *c = cells_of(f) + line * LINE;
	u32 i;

	for (i = 0; i < LINE; i++)
		if (c[i].state != KBLOOM_XLATE_VALID)
			return false;
	return true;
}

static bool line_free(const struct kb_filter *f, u64 line)
{
	static const struct kbloom_xlate zero;
	const struct kbloom_xlate *c = cells_of(f) + line * LINE;
	u32 i;

	for (i = 0; i < LINE; i++)
		if (memcmp(&c[i], &zero, sizeof(zero)))
			return false;
	return true;
}

TEST(record_layout)
{
	/* 32-byte records, two to a 64-byte line; the key 14 bytes. */
	ASSERT_EQ(32, sizeof(struct kbloom_xlate));
	ASSERT_EQ(2, LINE);
	ASSERT_EQ(8, PROBES);
	ASSERT_EQ(14, KBLOOM_XLATE_KEY_LEN);
}

TEST(kb_xlate_key_is_the_documented_bytes)
{
	struct flow fl = flow_nr(77);
	struct kbloom_xlate r = rec_of(&fl);
	u8 got[KBLOOM_XLATE_KEY_LEN];
	const u8 want[KBLOOM_XLATE_KEY_LEN] = {
		4, 17, 192, 0, 2, 1, 198, 19, 0, 1,
		(20077 >> 8), (20077 & 0xff), 0, 9,
	};

	kb_xlate_key(&r, got);
	ASSERT_EQ(0, memcmp(want, got, sizeof(want)));
}

TEST(put_new_then_known)
{
	struct flow fl = flow_nr(1);
	struct kbloom_xlate r = rec_of(&fl);
	struct kb_filter f;

	ASSERT_EQ(0, xinit(&f, 1024));
	ASSERT_FALSE(kb_filter_keyed(&f));
	ASSERT_EQ(0, fill_of(&f));
	ASSERT_EQ(KB_XLATE_NEW, kb_xlate_put(&f, &r));
	ASSERT_EQ(1, fill_of(&f));
	ASSERT_EQ(KB_XLATE_KNOWN, kb_xlate_put(&f, &r));
	/* FIRST is when it was made: not part of "the same record". */
	r.first = fl.first + 3600;
	ASSERT_EQ(KB_XLATE_KNOWN, kb_xlate_put(&f, &r));
	/* STATE is the put's own: ignored in what it is given. */
	r.state = KBLOOM_XLATE_VALID;
	ASSERT_EQ(KB_XLATE_KNOWN, kb_xlate_put(&f, &r));
	r.state = KBLOOM_XLATE_WRITING;
	ASSERT_EQ(KB_XLATE_KNOWN, kb_xlate_put(&f, &r));
	ASSERT_EQ(1, fill_of(&f));
	/* The cell holds the first put's record, FIRST included. */
	ASSERT_TRUE(holds(&cells_of(&f)[ref_home(&fl, 1024) * LINE], &fl));
	kb_filter_free(&f);
	KB_ASSERT_NO_LEAKS();
}

/*
 * FIRST is part of every other kind's record: a tunnel's first optional
 * word (or VXLAN's ports), an arrival's device or SA, an address
 * record's last bytes. The same packets out of two tun devices in one
 * window are two arrival records, and the trace names both.
 */
TEST(first_tells_apart_records_of_every_kind_but_nat)
{
	static const u8 kinds[] = {
		KBLOOM_XLATE_OPAQUE, KBLOOM_XLATE_GRE | KBLOOM_XLATE_GRE_CSUM,
		KBLOOM_XLATE_VXLAN, KBLOOM_XLATE_IPIP, KBLOOM_XLATE_ADDR6,
		KBLOOM_XLATE_SNAT, KBLOOM_XLATE_DNAT | KBLOOM_XLATE_STATELESS,
	};
	struct kb_filter f;
	u32 i;

	ASSERT_EQ(0, xinit(&f, 4096));
	for (i = 0; i < ARRAY_SIZE(kinds); i++) {
		struct flow fl = flow_nr(40 + i);
		struct kbloom_xlate r;
		bool nat;

		fl.kind = kinds[i];
		r = rec_of(&fl);
		nat = kb_xlate_class(r.kind) == KB_XREC_NAT;
		ASSERT_EQ(KB_XLATE_NEW, kb_xlate_put(&f, &r));
		r.first ^= 7;		/* another ifindex, word, time */
		EXPECT_EQ(nat ? KB_XLATE_KNOWN : KB_XLATE_NEW,
			  kb_xlate_put(&f, &r)) {
			TH_LOG("kind 0x%02x", kinds[i]);
		}
		EXPECT_EQ(KB_XLATE_KNOWN, kb_xlate_put(&f, &r));
	}
	/* Two records each but the two NAT kinds'. */
	ASSERT_EQ(2 * ARRAY_SIZE(kinds) - 2, fill_of(&f));
	kb_filter_free(&f);
}

TEST(a_record_differing_in_any_field_is_new)
{
	static const char *const field[] = {
		"kind", "proto", "family", "before_src", "before_dst",
		"after_src", "after_dst", "before_sport", "before_dport",
		"after_sport", "after_dport",
	};
	const struct flow base = flow_nr(5);
	struct kb_filter f;
	u32 i;

	ASSERT_EQ(0, xinit(&f, 4096));
	ASSERT_EQ(KB_XLATE_NEW, put(&f, &base));
	for (i = 0; i < ARRAY_SIZE(field); i++) {
		struct flow v = base;

		switch (i) {
		case 0: v.kind = KBLOOM_XLATE_SNAT | KBLOOM_XLATE_DNAT; break;
		case 1: v.proto = 6; break;
		case 2: v.family = 6; break;
		case 3: v.bsrc ^= 1; break;
		case 4: v.bdst ^= 1; break;
		case 5: v.asrc ^= 1; break;
		case 6: v.adst ^= 1; break;
		case 7: v.bsport ^= 1; break;
		case 8: v.bdport ^= 1; break;
		case 9: v.asport ^= 1; break;
		case 10: v.adport ^= 1; break;
		}
		EXPECT_EQ(KB_XLATE_NEW, put(&f, &v)) {
			TH_LOG("a record differing in %s was not new", field[i]);
		}
		EXPECT_EQ(KB_XLATE_KNOWN, put(&f, &v)) {
			TH_LOG("the record differing in %s, again", field[i]);
		}
		EXPECT_EQ(i + 2, fill_of(&f));
	}
	ASSERT_EQ(KB_XLATE_KNOWN, put(&f, &base));
	ASSERT_EQ(1 + ARRAY_SIZE(field), fill_of(&f));
	kb_filter_free(&f);
}

TEST(find_gives_the_records_of_a_key_in_probe_order)
{
	struct kbloom_xlate out[4], want;
	struct flow a[3], other = flow_nr(9), q;
	struct kb_filter f;
	u32 i;

	ASSERT_EQ(0, xinit(&f, 1024));
	/* Three records of one key (the same packet after NAT, made from
	 * three flows before it), and one of another key.
	 */
	for (i = 0; i < 3; i++) {
		a[i] = flow_nr(3);
		a[i].bsrc = 0x0a0a0000 + i;
		a[i].first = 100 + i;
		ASSERT_EQ(KB_XLATE_NEW, put(&f, &a[i]));
	}
	ASSERT_EQ(KB_XLATE_NEW, put(&f, &other));
	ASSERT_EQ(4, fill_of(&f));

	/* Asked with only the key fields: the before fields, KIND, FIRST
	 * and STATE of the question do not matter.
	 */
	q = a[0];
	q.kind = 0, q.bsrc = 1, q.bdst = 2, q.bsport = 3, q.bdport = 4;
	q.first = 0;
	memset(out, 0xa5, sizeof(out));
	ASSERT_EQ(3, find(&f, &q, out, 4));
	for (i = 0; i < 3; i++) {
		EXPECT_EQ(KBLOOM_XLATE_VALID, out[i].state);
		EXPECT_TRUE(holds(&out[i], &a[i]));
	}
	/* out[3] untouched */
	for (i = 0; i < sizeof(out[3]); i++)
		ASSERT_EQ(0xa5, ((u8 *)&out[3])[i]);
	/* Their cells: the home line, then the next (probe order). */
	{
		u64 home = ref_home(&a[0], 1024);

		EXPECT_TRUE(holds(&cells_of(&f)[home * LINE], &a[0]));
		EXPECT_TRUE(holds(&cells_of(&f)[home * LINE + 1], &a[1]));
		EXPECT_TRUE(holds(&cells_of(&f)[((home + 1) % 512) * LINE],
				  &a[2]));
	}
	/* At most MAX copied, the count still all of them. */
	memset(out, 0xa5, sizeof(out));
	ASSERT_EQ(3, find(&f, &q, out, 1));
	EXPECT_TRUE(holds(&out[0], &a[0]));
	for (i = 0; i < sizeof(out[1]); i++)
		ASSERT_EQ(0xa5, ((u8 *)&out[1])[i]);
	ASSERT_EQ(3, find(&f, &q, NULL, 0));

	ASSERT_EQ(1, find(&f, &other, out, 4));
	EXPECT_TRUE(holds(&out[0], &other));

	/*
	 * A key differing in any one key field: none of a[]'s records; and
	 * a record of that key written by hand into a[]'s run is not one of
	 * a[0]'s.
	 */
	for (i = 0; i < 6; i++) {
		struct kbloom_xlate *spare = (struct kbloom_xlate *)f.mem +
			((ref_home(&a[0], 1024) + 3) % 512) * LINE + 1;

		q = a[0];
		switch (i) {
		case 0: q.family = 6; break;
		case 1: q.proto = 6; break;
		case 2: q.asrc ^= 1; break;
		case 3: q.adst ^= 1; break;
		case 4: q.asport ^= 1; break;
		case 5: q.adport ^= 1; break;
		}
		EXPECT_EQ(0, find(&f, &q, out, 4)) {
			TH_LOG("key field %u changed", i);
		}
		ASSERT_EQ(0, spare->state);
		*spare = rec_of(&q);
		spare->state = KBLOOM_XLATE_VALID;
		EXPECT_EQ(3, find(&f, &a[0], out, 4)) {
			TH_LOG("a record with key field %u changed in the run", i);
		}
		memset(spare, 0, sizeof(*spare));
	}
	/* Only VALID cells count: one being written is not a record. */
	want = rec_of(&other);
	((struct kbloom_xlate *)f.mem)[ref_home(&other, 1024) * LINE].state =
		KBLOOM_XLATE_WRITING;
	ASSERT_EQ(0, kb_xlate_find(cells_of(&f), f.s.m, &f.hkey, &want,
				   out, 4));
	ASSERT_EQ(3, fill_of(&f));
	kb_filter_free(&f);
}

/*
 * Flows whose records all have home line @home in a table of @m cells:
 * @n of them, found by trying flow numbers in turn.
 */
static u32 flows_homed_at(u64 m, u64 home, struct flow *out, u32 n)
{
	u32 i, got = 0;

	for (i = 0; got < n && i < 10000000; i++) {
		struct flow fl = flow_nr(i);

		fl.asrc = 0xc0000200 | (i >> 16);
		if (ref_home(&fl, m) == home)
			out[got++] = fl;
	}
	return got;
}

/*
 * @m cells, all records homed at @home: 2 * PROBES of them fill lines
 * home .. home + PROBES - 1 (mod lines) and nothing else, the next one is
 * FULL and changes no cell.
 */
static void fill_one_home(struct __test_metadata *_metadata, u64 m, u64 home)
{
	const u32 n = 2 * PROBES;
	const u64 lines = m / LINE;
	struct flow fl[2 * PROBES + 1];
	struct kbloom_xlate out[2];
	struct kb_filter f;
	u8 *before;
	u64 l, p;
	u32 i;

	ASSERT_EQ(n + 1, flows_homed_at(m, home, fl, n + 1));
	ASSERT_EQ(0, xinit(&f, m));
	for (i = 0; i < n; i++)
		ASSERT_EQ(KB_XLATE_NEW, put(&f, &fl[i]));
	ASSERT_EQ(n, fill_of(&f));
	/* In probe order: record i in cell i of the run from the home line. */
	for (i = 0; i < n; i++) {
		l = (home + i / LINE) % lines;
		EXPECT_TRUE(holds(&cells_of(&f)[l * LINE + i % LINE], &fl[i]));
	}
	for (l = 0; l < lines; l++) {
		p = (l + lines - home) % lines;	/* probe number of line l */
		if (p < PROBES) {
			EXPECT_TRUE(line_valid(&f, l));
		} else {
			EXPECT_TRUE(line_free(&f, l));
		}
	}

	before = malloc(m * sizeof(struct kbloom_xlate));
	ASSERT_NE(NULL, before);
	memcpy(before, f.mem, m * sizeof(struct kbloom_xlate));
	ASSERT_EQ(KB_XLATE_FULL, put(&f, &fl[n]));
	ASSERT_EQ(0, memcmp(before, f.mem, m * sizeof(struct kbloom_xlate)));
	ASSERT_EQ(0, find(&f, &fl[n], out, 2));
	/* A record already there is still KNOWN, found where it is. */
	ASSERT_EQ(KB_XLATE_KNOWN, put(&f, &fl[n - 1]));
	ASSERT_EQ(0, memcmp(before, f.mem, m * sizeof(struct kbloom_xlate)));
	for (i = 0; i < n; i++) {
		EXPECT_EQ(1, find(&f, &fl[i], out, 2));
		EXPECT_TRUE(holds(&out[0], &fl[i]));
	}
	ASSERT_EQ(n, fill_of(&f));
	/*
	 * The run is PROBES lines: a record of this key written by hand into
	 * the line after it is not looked at.
	 */
	l = (home + PROBES) % lines;
	ASSERT_TRUE(line_free(&f, l));
	((struct kbloom_xlate *)f.mem)[l * LINE] = cells_of(&f)[home * LINE];
	ASSERT_EQ(1, find(&f, &fl[0], out, 2));
	free(before);
	kb_filter_free(&f);
}

TEST(a_home_line_takes_probes_lines_then_full)
{
	fill_one_home(_metadata, 1024, 100);
}

TEST(the_probe_run_wraps_at_the_last_line)
{
	fill_one_home(_metadata, 1024, 1024 / LINE - 1);
}

TEST(the_probe_run_wraps_from_the_last_probes_lines)
{
	fill_one_home(_metadata, 1024, 1024 / LINE - 3);
}

/*
 * Another home's records take what is free in their run, and a record
 * whose run is full of them is FULL.
 */
TEST(runs_of_neighbouring_homes_share_lines)
{
	struct flow h0[PROBES * LINE], h1[2];
	struct kbloom_xlate out[2];
	struct kb_filter f;
	u32 i;

	ASSERT_EQ(PROBES * LINE, flows_homed_at(1024, 40, h0, PROBES * LINE));
	ASSERT_EQ(2, flows_homed_at(1024, 41, h1, 2));
	ASSERT_EQ(0, xinit(&f, 1024));
	/* Two of home 41 first: they take line 41. */
	ASSERT_EQ(KB_XLATE_NEW, put(&f, &h1[0]));
	ASSERT_EQ(KB_XLATE_NEW, put(&f, &h1[1]));
	EXPECT_TRUE(holds(&cells_of(&f)[41 * LINE], &h1[0]));
	/* Home 40's run is lines 40..47, line 41 taken: room for 14. */
	for (i = 0; i < PROBES * LINE - LINE; i++)
		ASSERT_EQ(KB_XLATE_NEW, put(&f, &h0[i]));
	EXPECT_TRUE(holds(&cells_of(&f)[40 * LINE + 1], &h0[1]));
	EXPECT_TRUE(holds(&cells_of(&f)[42 * LINE], &h0[2]));
	EXPECT_TRUE(holds(&cells_of(&f)[47 * LINE + 1], &h0[13]));
	EXPECT_TRUE(line_free(&f, 48));
	ASSERT_EQ(KB_XLATE_FULL, put(&f, &h0[14]));
	ASSERT_EQ(16, fill_of(&f));
	/* Each key finds its own records only. */
	ASSERT_EQ(1, find(&f, &h1[1], out, 2));
	EXPECT_TRUE(holds(&out[0], &h1[1]));
	ASSERT_EQ(1, find(&f, &h0[13], out, 2));
	kb_filter_free(&f);
}

/*
 * No table has fewer lines than PROBES (m >= KBLOOM_BITS_MIN = 64: 32
 * lines), but kb_xlate_find is handed any m by readers of exported cells,
 * and the walk must not visit a line twice: narrowed to m = 14 (7 lines),
 * a table takes exactly 14 records, then FULL, and finds each once.
 */
TEST(fewer_lines_than_probes)
{
	struct kb_shape s = xshape(14, 1);
	struct flow fl[15];
	struct kbloom_xlate out[4];
	struct kb_filter f;
	u8 *before;
	u32 i;

	ASSERT_EQ(KB_SHAPE_BAD_BITS, kb_filter_check_shape(&s));
	ASSERT_EQ(-EINVAL, kb_filter_init(&f, &s, hkey_a));
	ASSERT_EQ(0, xinit(&f, 64));
	f.s.m = 14;
	for (i = 0; i < 15; i++)
		fl[i] = flow_nr(1000 + i);
	for (i = 0; i < 14; i++)
		ASSERT_EQ(KB_XLATE_NEW, put(&f, &fl[i]));
	for (i = 0; i < 7; i++)
		EXPECT_TRUE(line_valid(&f, i));
	for (i = 7; i < 32; i++)
		EXPECT_TRUE(line_free(&f, i));
	before = malloc(64 * sizeof(struct kbloom_xlate));
	ASSERT_NE(NULL, before);
	memcpy(before, f.mem, 64 * sizeof(struct kbloom_xlate));
	ASSERT_EQ(KB_XLATE_FULL, put(&f, &fl[14]));
	ASSERT_EQ(0, memcmp(before, f.mem, 64 * sizeof(struct kbloom_xlate)));
	for (i = 0; i < 14; i++) {
		EXPECT_EQ(KB_XLATE_KNOWN, put(&f, &fl[i]));
		EXPECT_EQ(1, find(&f, &fl[i], out, 4));
		EXPECT_TRUE(holds(&out[0], &fl[i]));
	}
	ASSERT_EQ(0, find(&f, &fl[14], out, 4));
	ASSERT_EQ(14, fill_of(&f));
	free(before);
	f.s.m = 64;
	kb_filter_free(&f);
}

TEST(clear_empties_the_table)
{
	struct kbloom_xlate out[2];
	struct flow fl;
	struct kb_filter f;
	u32 i;

	ASSERT_EQ(0, xinit(&f, 4096));
	for (i = 0; i < 500; i++) {
		fl = flow_nr(i);
		ASSERT_EQ(KB_XLATE_NEW, put(&f, &fl));
	}
	ASSERT_EQ(500, fill_of(&f));
	kb_filter_clear(&f);
	ASSERT_EQ(0, fill_of(&f));
	for (i = 0; i < 4096 * sizeof(struct kbloom_xlate); i++)
		ASSERT_EQ(0, ((u8 *)f.mem)[i]);
	for (i = 0; i < 500; i++) {
		fl = flow_nr(i);
		ASSERT_EQ(0, find(&f, &fl, out, 2));
	}
	/* Recorded anew after the clear. */
	fl = flow_nr(7);
	ASSERT_EQ(KB_XLATE_NEW, put(&f, &fl));
	ASSERT_EQ(1, fill_of(&f));
	kb_filter_free(&f);
}

/*
 * The kinds of record uapi/kbloom.h ("A transform record") names, each
 * with its class; every other KIND is none the module makes. Written
 * from its text, bit by bit:
 * NAT: SNAT and/or DNAT, conntrack's, or with STATELESS (GRE_KEY's bit: a
 * rewrite no conntrack entry holds, NPTv6 or nftables' "ip6 saddr set").
 * Tunnel: IPIP; GRE with any of GRE_CSUM, GRE_KEY, GRE_SEQ (the optional
 * words it had); over IPv6 (OUTER6, SNAT's bit)
 * IPIP or GRE likewise; VXLAN (IPIP and GRE both) without GRE's words
 * but its checksum (GRE_CSUM's bit), over IPv4 with DF beside it
 * (GRE_SEQ's), over IPv6 never with DF; GENEVE (VXLAN's and GRE_KEY)
 * likewise. More: MORE (OPAQUE and DNAT). Address: ADDR6 (OPAQUE and
 * OUTER6). Arrival: OPAQUE.
 */
static enum kb_xlate_class ref_class(unsigned int kind)
{
	const unsigned int words = KBLOOM_XLATE_GRE_CSUM |
				   KBLOOM_XLATE_GRE_KEY | KBLOOM_XLATE_GRE_SEQ;
	unsigned int tun = kind & ~(unsigned int)KBLOOM_XLATE_OUTER6;

	if (kind == KBLOOM_XLATE_OPAQUE)
		return KB_XREC_ARRIVAL;
	if (kind == (KBLOOM_XLATE_OPAQUE | KBLOOM_XLATE_OUTER6))
		return KB_XREC_ADDRESS;
	if (kind == (KBLOOM_XLATE_OPAQUE | KBLOOM_XLATE_DNAT))
		return KB_XREC_MORE;
	if (kind == KBLOOM_XLATE_SNAT || kind == KBLOOM_XLATE_DNAT ||
	    kind == (KBLOOM_XLATE_SNAT | KBLOOM_XLATE_DNAT) ||
	    kind == (KBLOOM_XLATE_SNAT | KBLOOM_XLATE_STATELESS) ||
	    kind == (KBLOOM_XLATE_DNAT | KBLOOM_XLATE_STATELESS) ||
	    kind == (KBLOOM_XLATE_SNAT | KBLOOM_XLATE_DNAT |
		     KBLOOM_XLATE_STATELESS))
		return KB_XREC_NAT;
	/*
	 * VXLAN, GENEVE (0x1c) and GENEVE with options (0x1e: DNAT's bit),
	 * over IPv4: alone, with its checksum, and with DF beside it; over
	 * IPv6: alone and with its checksum.
	 */
	if (tun == KBLOOM_XLATE_IPIP ||
	    (tun & ~words) == KBLOOM_XLATE_GRE ||
	    kind == (KBLOOM_XLATE_IPIP | KBLOOM_XLATE_GRE) ||
	    kind == (KBLOOM_XLATE_IPIP | KBLOOM_XLATE_GRE |
		     KBLOOM_XLATE_VXLAN_CSUM) ||
	    kind == (KBLOOM_XLATE_IPIP | KBLOOM_XLATE_GRE |
		     KBLOOM_XLATE_VXLAN_CSUM | KBLOOM_XLATE_VXLAN_DF) ||
	    kind == 0x1c || kind == (0x1c | KBLOOM_XLATE_VXLAN_CSUM) ||
	    kind == (0x1c | KBLOOM_XLATE_VXLAN_CSUM | KBLOOM_XLATE_VXLAN_DF) ||
	    kind == (KBLOOM_XLATE_IPIP | KBLOOM_XLATE_GRE |
		     KBLOOM_XLATE_OUTER6) ||
	    kind == (KBLOOM_XLATE_IPIP | KBLOOM_XLATE_GRE |
		     KBLOOM_XLATE_VXLAN_CSUM | KBLOOM_XLATE_OUTER6) ||
	    kind == (0x1c | KBLOOM_XLATE_OUTER6) ||
	    kind == (0x1c | KBLOOM_XLATE_VXLAN_CSUM | KBLOOM_XLATE_OUTER6) ||
	    kind == 0x1e || kind == (0x1e | KBLOOM_XLATE_VXLAN_CSUM) ||
	    kind == (0x1e | KBLOOM_XLATE_VXLAN_CSUM | KBLOOM_XLATE_VXLAN_DF) ||
	    kind == (0x1e | KBLOOM_XLATE_OUTER6) ||
	    kind == (0x1e | KBLOOM_XLATE_VXLAN_CSUM | KBLOOM_XLATE_OUTER6))
		return KB_XREC_TUNNEL;
	return KB_XREC_NONE;
}

static const char *class_str(enum kb_xlate_class c)
{
	static const char *const s[] = {
		"none", "NAT", "tunnel", "address", "arrival", "more",
	};

	return c < ARRAY_SIZE(s) ? s[c] : "?";
}

TEST(kind_bits_are_the_uapi_s)
{
	ASSERT_EQ(0x01, KBLOOM_XLATE_SNAT);
	ASSERT_EQ(0x02, KBLOOM_XLATE_DNAT);
	ASSERT_EQ(0x04, KBLOOM_XLATE_IPIP);
	ASSERT_EQ(0x08, KBLOOM_XLATE_GRE);
	ASSERT_EQ(0x10, KBLOOM_XLATE_GRE_KEY);
	ASSERT_EQ(0x20, KBLOOM_XLATE_GRE_CSUM);
	ASSERT_EQ(0x40, KBLOOM_XLATE_GRE_SEQ);
	ASSERT_EQ(0x80, KBLOOM_XLATE_OPAQUE);
	ASSERT_EQ(0x0c, KBLOOM_XLATE_VXLAN);
	ASSERT_EQ(0x1c, KBLOOM_XLATE_GENEVE);
	/* SNAT's bit in a tunnel record; OPAQUE and OUTER6: an address. */
	ASSERT_EQ(0x01, KBLOOM_XLATE_OUTER6);
	ASSERT_EQ(0x81, KBLOOM_XLATE_ADDR6);
	/* OPAQUE and DNAT: the rest of a tunnel record's outer packet. */
	ASSERT_EQ(0x82, KBLOOM_XLATE_MORE);
	/* GRE_KEY's bit in a NAT record: a stateless rewrite. */
	ASSERT_EQ(0x10, KBLOOM_XLATE_STATELESS);
	/* BEFORE_SPORT:BEFORE_DPORT over IPv6: label 0-19, limit 20-27, 31. */
	ASSERT_EQ(0x000fffff, KBLOOM_XLATE_FLOWLABEL);
	ASSERT_EQ(0x0ff00000, KBLOOM_XLATE_ENCAPLIM);
	ASSERT_EQ(20, KBLOOM_XLATE_ENCAPLIM_SHIFT);
	ASSERT_EQ(0x80000000, KBLOOM_XLATE_HAS_ENCAPLIM);
}

/*
 * Every KIND the module makes is of its class, counted: 6 NAT kinds (SNAT,
 * DNAT, both: each conntrack's or STATELESS, 0x11, 0x12, 0x13),
 * 2 * (1 + 8) + 3 * (3 + 2) tunnel kinds (IPIP, GRE with its 8 sets of
 * optional words, each over IPv4 and IPv6; VXLAN, GENEVE and GENEVE with
 * options, each over IPv4 alone, with a checksum, with DF too, and over
 * IPv6 alone and with a checksum), one more, one address, one arrival.
 */
TEST(class_of_every_kind_the_module_makes)
{
	u32 n[KB_XREC_MORE + 1] = { 0 }, bad = 0, k;
	enum kb_xlate_class want;

	for (k = 0; k < 256; k++) {
		want = ref_class(k);
		if (want == KB_XREC_NONE)
			continue;
		n[want]++;
		if (kb_xlate_class((u8)k) != want) {
			TH_LOG("kind 0x%02x: %s, want %s", k,
			       class_str(kb_xlate_class((u8)k)),
			       class_str(want));
			bad++;
		}
	}
	EXPECT_EQ(0, bad);
	EXPECT_EQ(6, n[KB_XREC_NAT]);
	EXPECT_EQ(33, n[KB_XREC_TUNNEL]);
	EXPECT_EQ(1, n[KB_XREC_ADDRESS]);
	EXPECT_EQ(1, n[KB_XREC_ARRIVAL]);
	EXPECT_EQ(1, n[KB_XREC_MORE]);
	/* A few by name. */
	EXPECT_EQ(KB_XREC_TUNNEL, kb_xlate_class(KBLOOM_XLATE_IPIP |
						 KBLOOM_XLATE_OUTER6));
	EXPECT_EQ(KB_XREC_TUNNEL, kb_xlate_class(KBLOOM_XLATE_GRE |
						 KBLOOM_XLATE_GRE_KEY |
						 KBLOOM_XLATE_OUTER6));
	EXPECT_EQ(KB_XREC_NAT, kb_xlate_class(KBLOOM_XLATE_SNAT));
	/* SNAT with STATELESS is NAT; STATELESS alone rewrote nothing. */
	EXPECT_EQ(KB_XREC_NAT, kb_xlate_class(KBLOOM_XLATE_SNAT |
					      KBLOOM_XLATE_STATELESS));
	EXPECT_EQ(KB_XREC_NONE, kb_xlate_class(KBLOOM_XLATE_STATELESS));
	EXPECT_EQ(KB_XREC_ADDRESS, kb_xlate_class(KBLOOM_XLATE_ADDR6));
	EXPECT_EQ(KB_XREC_ARRIVAL, kb_xlate_class(KBLOOM_XLATE_OPAQUE));
	EXPECT_EQ(KB_XREC_MORE, kb_xlate_class(KBLOOM_XLATE_MORE));
	EXPECT_EQ(KB_XREC_TUNNEL, kb_xlate_class(KBLOOM_XLATE_VXLAN |
						 KBLOOM_XLATE_OUTER6));
	EXPECT_EQ(KB_XREC_TUNNEL, kb_xlate_class(KBLOOM_XLATE_GENEVE |
						 KBLOOM_XLATE_VXLAN_CSUM |
						 KBLOOM_XLATE_OUTER6));
	EXPECT_EQ(KB_XREC_TUNNEL, kb_xlate_class(KBLOOM_XLATE_GENEVE |
						 KBLOOM_XLATE_GENEVE_OPT));
	/* Options are GENEVE's: VXLAN has none. */
	EXPECT_EQ(KB_XREC_NONE, kb_xlate_class(KBLOOM_XLATE_VXLAN |
					       KBLOOM_XLATE_GENEVE_OPT));
}

/*
 * Every other KIND (214 of the 256) is none: 0, OPAQUE with anything but
 * OUTER6 or DNAT alone, DNAT with a tunnel's bits, GRE's optional words
 * without GRE (alone, with NAT bits but GRE_KEY's alone, with IPIP),
 * VXLAN and GENEVE with DF but no checksum, or with DF and OUTER6 (over
 * IPv6 no header flag is kept). 227 before STATELESS: GRE_KEY's bit with
 * SNAT, DNAT or both (0x11, 0x12, 0x13) is a stateless NAT record now,
 * the three fewer; 224 before VXLAN and GENEVE over IPv6 and the more
 * record: their 4 tunnel kinds and MORE, the five fewer; 219 before
 * GENEVE with options (DNAT's bit with GENEVE's): its 5 kinds.
 */
TEST(class_of_every_other_kind_is_none)
{
	u32 n = 0, bad = 0, k;

	for (k = 0; k < 256; k++) {
		if (ref_class(k) != KB_XREC_NONE)
			continue;
		n++;
		if (kb_xlate_class((u8)k) != KB_XREC_NONE) {
			TH_LOG("kind 0x%02x: %s, want none", k,
			       class_str(kb_xlate_class((u8)k)));
			bad++;
		}
	}
	EXPECT_EQ(214, n);
	EXPECT_EQ(0, bad);
}

/*
 * Over IPv6 BEFORE_DPORT holds the flow label, not the outer header's
 * flags: VXLAN_DF with OUTER6, with or without a checksum, is no record
 * (uapi: "VXLAN_DF is never set"), while the same kinds without DF are
 * tunnel records, and with DF over IPv4 with a checksum they are too.
 */
TEST(vxlan_df_over_ipv6_is_no_kind)
{
	static const u8 tuns[] = { KBLOOM_XLATE_VXLAN, KBLOOM_XLATE_GENEVE };
	u32 i;

	for (i = 0; i < ARRAY_SIZE(tuns); i++) {
		u8 t = tuns[i];

		EXPECT_EQ(KB_XREC_NONE,
			  kb_xlate_class(t | KBLOOM_XLATE_VXLAN_DF |
					 KBLOOM_XLATE_OUTER6));
		EXPECT_EQ(KB_XREC_NONE,
			  kb_xlate_class(t | KBLOOM_XLATE_VXLAN_CSUM |
					 KBLOOM_XLATE_VXLAN_DF |
					 KBLOOM_XLATE_OUTER6));
		EXPECT_EQ(KB_XREC_TUNNEL,
			  kb_xlate_class(t | KBLOOM_XLATE_OUTER6));
		EXPECT_EQ(KB_XREC_TUNNEL,
			  kb_xlate_class(t | KBLOOM_XLATE_VXLAN_CSUM |
					 KBLOOM_XLATE_OUTER6));
		EXPECT_EQ(KB_XREC_TUNNEL,
			  kb_xlate_class(t | KBLOOM_XLATE_VXLAN_CSUM |
					 KBLOOM_XLATE_VXLAN_DF));
		/* DF alone: over IPv4 the flags are in BEFORE_DPORT. */
		EXPECT_EQ(KB_XREC_NONE,
			  kb_xlate_class(t | KBLOOM_XLATE_VXLAN_DF));
	}
	/* MORE with any other bit is none. */
	for (i = 0; i < 256; i++)
		if (i != KBLOOM_XLATE_MORE)
			EXPECT_NE(KB_XREC_MORE, kb_xlate_class((u8)i)) {
				TH_LOG("kind 0x%02x", i);
			}
}

/*
 * A more record (uapi "More"): kb_xlate_more() of a tunnel record with
 * its bytes is KIND MORE, STATE 0 (a put makes it VALID), keyed as the
 * tunnel record (FAMILY, PROTO, AFTER_*), with its BEFORE_SRC,
 * BEFORE_DST and FIRST, by which a reader pairs them, and the bytes in
 * BEFORE_SPORT and BEFORE_DPORT as given, in wire order. Put beside its
 * tunnel record, both are new and one find of the key gives both; a
 * second more record with other bytes is a record of its own, the same
 * again is known.
 */
TEST(more_record_is_keyed_and_paired_as_its_tunnel_record)
{
	const struct flow tun = {
		.kind = KBLOOM_XLATE_VXLAN | KBLOOM_XLATE_VXLAN_CSUM |
			KBLOOM_XLATE_OUTER6,
		.proto = 17, .family = 4,
		.bsrc = 0x20010db8, .bdst = 0xfd030002,
		.asrc = 0x0a010105, .adst = 0x0a020207,
		.bsport = 0x0005, .bdport = 0xb1c3,	/* flow label */
		.asport = 0x1a2b, .adport = 0,
		.first = 0,
	};
	u8 key[KBLOOM_XLATE_KEY_LEN], mkey[KBLOOM_XLATE_KEY_LEN];
	struct kbloom_xlate r = rec_of(&tun), m, m2, out[4];
	struct kb_filter f;
	u32 n, i, seen_r = 0, seen_m = 0;

	r.state = KBLOOM_XLATE_VALID;
	/* FIRST: the UDP ports 51234 > 4789 as carried. */
	memcpy(&r.first, (const u8[]){ 0xc8, 0x22, 0x12, 0xb5 }, 4);
	memset(&m, 0xa5, sizeof(m));
	kb_xlate_more(&r, htons(0x1f2e), htons(0x0102), &m);
	EXPECT_EQ(0, m.state);
	EXPECT_EQ(KBLOOM_XLATE_MORE, m.kind);
	EXPECT_EQ(KB_XREC_MORE, kb_xlate_class(m.kind));
	EXPECT_EQ(r.proto, m.proto);
	EXPECT_EQ(r.family, m.family);
	EXPECT_EQ(r.after_src, m.after_src);
	EXPECT_EQ(r.after_dst, m.after_dst);
	EXPECT_EQ(r.after_sport, m.after_sport);
	EXPECT_EQ(r.after_dport, m.after_dport);
	EXPECT_EQ(r.before_src, m.before_src);
	EXPECT_EQ(r.before_dst, m.before_dst);
	EXPECT_EQ(r.first, m.first);
	EXPECT_EQ(0, memcmp(&m.before_sport, (const u8[]){ 0x1f, 0x2e }, 2));
	EXPECT_EQ(0, memcmp(&m.before_dport, (const u8[]){ 0x01, 0x02 }, 2));
	kb_xlate_key(&r, key);
	kb_xlate_key(&m, mkey);
	EXPECT_EQ(0, memcmp(key, mkey, sizeof(key)));
	/* As the module makes it: the checksum, and 0. */
	kb_xlate_more(&r, htons(0xffff), 0, &m2);
	EXPECT_EQ(0xffff, ntohs(m2.before_sport));
	EXPECT_EQ(0, m2.before_dport);
	EXPECT_EQ(KBLOOM_XLATE_MORE, m2.kind);

	ASSERT_EQ(0, xinit(&f, 1024));
	ASSERT_EQ(KB_XLATE_NEW, kb_xlate_put(&f, &m));
	ASSERT_EQ(KB_XLATE_NEW, kb_xlate_put(&f, &r));
	ASSERT_EQ(KB_XLATE_NEW, kb_xlate_put(&f, &m2));
	EXPECT_EQ(KB_XLATE_KNOWN, kb_xlate_put(&f, &m));
	EXPECT_EQ(KB_XLATE_KNOWN, kb_xlate_put(&f, &m2));
	EXPECT_EQ(3, fill_of(&f));
	memset(out, 0, sizeof(out));
	n = kb_xlate_find(cells_of(&f), f.s.m, &f.hkey, &r, out, 4);
	ASSERT_EQ(3, n);
	m.state = KBLOOM_XLATE_VALID;
	for (i = 0; i < n; i++) {
		seen_r += !memcmp(&out[i], &r, sizeof(r));
		seen_m += !memcmp(&out[i], &m, sizeof(m));
	}
	EXPECT_EQ(1, seen_r);
	EXPECT_EQ(1, seen_m);
	kb_filter_free(&f);
	KB_ASSERT_NO_LEAKS();
}

/*
 * Which tunnel records come with a more record (uapi "More": "a tunnel
 * record whose outer packet had more per-packet bytes than the record
 * holds"), written from its text: VXLAN (0x0c) and GENEVE (0x1c) over
 * IPv6 with a UDP checksum (VXLAN_CSUM and OUTER6: 0x2d, 0x3d), whose
 * checksum the record's BEFORE_* cannot hold beside the flow label; and
 * every GENEVE record with options or flags (KIND GENEVE_OPT, DNAT's
 * bit: 0x1e), of each kind the module makes of it: over IPv4 alone, with
 * a checksum, with DF too (0x1e, 0x3e, 0x7e), over IPv6 alone and with a
 * checksum (0x1f, 0x3f). Seven kinds; none else.
 */
static bool ref_has_more(unsigned int kind)
{
	const unsigned int csum6 = KBLOOM_XLATE_VXLAN_CSUM |
				   KBLOOM_XLATE_OUTER6;
	const unsigned int opt = 0x1c | KBLOOM_XLATE_DNAT;

	return kind == (0x0c | csum6) || kind == (0x1c | csum6) ||
	       kind == opt || kind == (opt | KBLOOM_XLATE_VXLAN_CSUM) ||
	       kind == (opt | KBLOOM_XLATE_VXLAN_CSUM |
			KBLOOM_XLATE_VXLAN_DF) ||
	       kind == (opt | KBLOOM_XLATE_OUTER6) || kind == (opt | csum6);
}

TEST(has_more_of_every_kind_is_the_uapi_s)
{
	static const u8 kinds[] = { 0x2d, 0x3d, 0x1e, 0x3e, 0x7e, 0x1f, 0x3f };
	u32 n = 0, bad = 0, k, i;

	ASSERT_EQ(0x02, KBLOOM_XLATE_GENEVE_OPT);
	for (i = 0; i < ARRAY_SIZE(kinds); i++)
		EXPECT_TRUE(ref_has_more(kinds[i])) {
			TH_LOG("kind 0x%02x", kinds[i]);
		}
	for (k = 0; k < 256; k++) {
		n += ref_has_more(k);
		/* Only a tunnel record has one. */
		if (ref_has_more(k))
			EXPECT_EQ(KB_XREC_TUNNEL, ref_class(k));
		if (kb_xlate_has_more((u8)k) != ref_has_more(k)) {
			TH_LOG("kind 0x%02x: has_more %d, want %d", k,
			       kb_xlate_has_more((u8)k), ref_has_more(k));
			bad++;
		}
	}
	EXPECT_EQ(7, n);
	EXPECT_EQ(0, bad);
	/* A few by name: over IPv4 VXLAN's and GENEVE's checksum is in it. */
	EXPECT_FALSE(kb_xlate_has_more(KBLOOM_XLATE_GENEVE |
				       KBLOOM_XLATE_VXLAN_CSUM));
	EXPECT_FALSE(kb_xlate_has_more(KBLOOM_XLATE_GENEVE |
				       KBLOOM_XLATE_OUTER6));
	EXPECT_TRUE(kb_xlate_has_more(KBLOOM_XLATE_GENEVE |
				      KBLOOM_XLATE_GENEVE_OPT));
	/* DNAT's bit means options in GENEVE's record only. */
	EXPECT_FALSE(kb_xlate_has_more(KBLOOM_XLATE_VXLAN |
				       KBLOOM_XLATE_GENEVE_OPT));
	EXPECT_FALSE(kb_xlate_has_more(KBLOOM_XLATE_DNAT));
	EXPECT_FALSE(kb_xlate_has_more(KBLOOM_XLATE_MORE));
}

/*
 * A GENEVE record with options (KIND GENEVE_OPT) over IPv4 and, with a
 * checksum, over IPv6: its more record (kb_xlate_more() with the UDP
 * checksum over IPv6, else 0, and GENEVE's first 16 bits as carried:
 * 0x08, 32 bytes of options, and the O and C flags 0xc0) put beside it
 * is one find of the key away, found with it, and paired with it by
 * kb_xlate_is_more_of(), it alone: not the tunnel record itself, nor
 * the more record of another FIRST (another source port) of the same
 * key, itself a record of its own.
 */
TEST(geneve_options_more_record_is_found_and_paired_by_its_tunnel_record)
{
	static const u8 kinds[] = {
		KBLOOM_XLATE_GENEVE | KBLOOM_XLATE_GENEVE_OPT,
		KBLOOM_XLATE_GENEVE | KBLOOM_XLATE_GENEVE_OPT |
			KBLOOM_XLATE_VXLAN_CSUM | KBLOOM_XLATE_OUTER6,
	};
	const u8 g[2] = { 0x08, 0xc0 }, ports[4] = { 0xc8, 0x22, 0x17, 0xc1 };
	struct kbloom_xlate r, m, o, mo, out[4];
	struct flow tun = {
		.proto = 17, .family = 4,
		.bsrc = 0x0a020001, .bdst = 0x0a030002,
		.asrc = 0x0a010105, .adst = 0x0a020207,
		.bsport = 0x1234, .bdport = 0x4000,
		.asport = 0x1a2b, .adport = 0,
	};
	__be16 gw;
	struct kb_filter f;
	u32 n, i, k, seen_r, seen_m, paired;

	memcpy(&gw, g, 2);
	for (k = 0; k < ARRAY_SIZE(kinds); k++) {
		tun.kind = kinds[k];
		r = rec_of(&tun);
		r.state = KBLOOM_XLATE_VALID;
		memcpy(&r.first, ports, 4);	/* 51234 > 6081 */
		EXPECT_TRUE(kb_xlate_has_more(r.kind));
		kb_xlate_more(&r, k ? htons(0x1f2e) : 0, gw, &m);
		EXPECT_EQ(KBLOOM_XLATE_MORE, m.kind);
		EXPECT_EQ(0, memcmp(&m.before_dport, g, 2));
		/* Of another packet of the key: another source port. */
		o = r;
		((u8 *)&o.first)[1] ^= 1;
		kb_xlate_more(&o, m.before_sport, gw, &mo);

		ASSERT_EQ(0, xinit(&f, 1024));
		ASSERT_EQ(KB_XLATE_NEW, kb_xlate_put(&f, &r));
		ASSERT_EQ(KB_XLATE_NEW, kb_xlate_put(&f, &m));
		EXPECT_EQ(KB_XLATE_KNOWN, kb_xlate_put(&f, &m));
		ASSERT_EQ(KB_XLATE_NEW, kb_xlate_put(&f, &mo));
		EXPECT_EQ(3, fill_of(&f));
		memset(out, 0, sizeof(out));
		n = kb_xlate_find(cells_of(&f), f.s.m, &f.hkey, &r, out, 4);
		ASSERT_EQ(3, n);
		m.state = KBLOOM_XLATE_VALID;
		seen_r = seen_m = paired = 0;
		for (i = 0; i < n; i++) {
			seen_r += !memcmp(&out[i], &r, sizeof(r));
			seen_m += !memcmp(&out[i], &m, sizeof(m));
			if (kb_xlate_is_more_of(&out[i], &r)) {
				paired++;
				EXPECT_EQ(0, memcmp(&out[i], &m, sizeof(m)));
			}
		}
		EXPECT_EQ(1, seen_r);
		EXPECT_EQ(1, seen_m);
		EXPECT_EQ(1, paired) {
			TH_LOG("kind 0x%02x: %u paired", r.kind, paired);
		}
		EXPECT_FALSE(kb_xlate_is_more_of(&r, &r));
		EXPECT_TRUE(kb_xlate_is_more_of(&mo, &o));
		kb_filter_free(&f);
	}
	KB_ASSERT_NO_LEAKS();
}

/* IPv6 addresses for address records, the last of every byte its own. */
static const u8 addrs6[][16] = {
	{ 0 },
	{ [15] = 1 },					/* ::1 */
	{ 0x20, 0x01, 0x0d, 0xb8, [15] = 0x01 },	/* 2001:db8::1 */
	{ 0xfe, 0x80, [8] = 0x02, 0x11, 0x22, 0xff, 0xfe, 0x33, 0x44, 0x55 },
	{ 0xff, 0x02, [15] = 1 },			/* ff02::1 */
	{ 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff,
	  0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff },
	{ 0x01, 0x23, 0x45, 0x67, 0x89, 0xab, 0xcd, 0xef,
	  0xf0, 0xe1, 0xd2, 0xc3, 0xb4, 0xa5, 0x96, 0x87 },
};

/* An address's fold: the XOR of its four 32-bit words, in wire order. */
static void ref_fold(const u8 *a, u8 fold[4])
{
	u32 i;

	for (i = 0; i < 4; i++)
		fold[i] = a[i] ^ a[4 + i] ^ a[8 + i] ^ a[12 + i];
}

/*
 * An address record (uapi "Address"): KIND ADDR6, the 16 bytes in
 * BEFORE_SRC, BEFORE_DST, BEFORE_SPORT, BEFORE_DPORT, FIRST in that
 * order; keyed by FAMILY 6, PROTO 0, AFTER_SRC the fold, the other
 * AFTER_* 0; and kb_xlate_addr6_get() gives the address back.
 */
TEST(address_record_holds_the_address_and_is_keyed_by_its_fold)
{
	u8 key[KBLOOM_XLATE_KEY_LEN], want[KBLOOM_XLATE_KEY_LEN], back[16];
	struct kbloom_xlate r;
	u32 i;

	for (i = 0; i < ARRAY_SIZE(addrs6); i++) {
		const u8 *a = addrs6[i];

		memset(&r, 0xa5, sizeof(r));
		kb_xlate_addr6(a, &r);
		EXPECT_EQ(KBLOOM_XLATE_ADDR6, r.kind);
		EXPECT_EQ(6, r.family);
		EXPECT_EQ(0, r.proto);
		EXPECT_EQ(0, memcmp(&r.before_src, a, 4));
		EXPECT_EQ(0, memcmp(&r.before_dst, a + 4, 4));
		EXPECT_EQ(0, memcmp(&r.before_sport, a + 8, 2));
		EXPECT_EQ(0, memcmp(&r.before_dport, a + 10, 2));
		EXPECT_EQ(0, memcmp(&r.first, a + 12, 4));
		ref_fold(a, want + 2);
		EXPECT_EQ(0, memcmp(&r.after_src, want + 2, 4));
		EXPECT_EQ(0, r.after_dst);
		EXPECT_EQ(0, r.after_sport);
		EXPECT_EQ(0, r.after_dport);
		/* The key as the uapi lays it out. */
		memset(want + 6, 0, sizeof(want) - 6);
		want[0] = 6;
		want[1] = 0;
		kb_xlate_key(&r, key);
		EXPECT_EQ(0, memcmp(want, key, sizeof(key))) {
			TH_LOG("address %u: its key", i);
		}
		/* Round trip. */
		memset(back, 0x5a, sizeof(back));
		kb_xlate_addr6_get(&r, back);
		EXPECT_EQ(0, memcmp(a, back, 16)) {
			TH_LOG("address %u: not given back", i);
		}
		/* As fold6 folds it (the key of 6in4 and 6in6 addresses). */
		EXPECT_EQ(0, memcmp(&r.after_src, (u32[]){ kb_xlate_fold6(a) },
				    4));
	}
}

/*
 * Two addresses of one fold (words 1 and 3 of the second are those of
 * the first XOR one mask) are two records of one key: both NEW, and a
 * find with the key gives both, in probe order; each again is KNOWN.
 * Any address of the fold asks the same key, so a reader compares the
 * addresses; an address of another fold finds neither.
 */
TEST(two_addresses_of_one_fold_are_two_records_found_by_one_key)
{
	const u8 *a = addrs6[6];
	u8 b[16], c[16], fa[4], fb[4], got[16];
	struct kbloom_xlate ra, rb, rc, out[4];
	struct kb_filter f;
	u32 i;

	memcpy(b, a, 16);
	memcpy(c, a, 16);
	for (i = 0; i < 4; i++) {
		b[4 + i] ^= (u8)(0xde >> i);
		b[12 + i] ^= (u8)(0xde >> i);
		c[i] ^= 0x5a;			/* another fold */
	}
	ref_fold(a, fa);
	ref_fold(b, fb);
	ASSERT_EQ(0, memcmp(fa, fb, 4));
	ASSERT_NE(0, memcmp(a, b, 16));
	ref_fold(c, fb);
	ASSERT_NE(0, memcmp(fa, fb, 4));
	kb_xlate_addr6(a, &ra);
	kb_xlate_addr6(b, &rb);
	kb_xlate_addr6(c, &rc);

	ASSERT_EQ(0, xinit(&f, 1024));
	ASSERT_EQ(KB_XLATE_NEW, kb_xlate_put(&f, &ra));
	ASSERT_EQ(KB_XLATE_NEW, kb_xlate_put(&f, &rb));
	ASSERT_EQ(2, fill_of(&f));
	EXPECT_EQ(KB_XLATE_KNOWN, kb_xlate_put(&f, &ra));
	EXPECT_EQ(KB_XLATE_KNOWN, kb_xlate_put(&f, &rb));
	EXPECT_EQ(2, fill_of(&f));

	memset(out, 0, sizeof(out));
	ASSERT_EQ(2, kb_xlate_find(cells_of(&f), f.s.m, &f.hkey, &ra, out,
				   4));
	for (i = 0; i < 2; i++) {
		EXPECT_EQ(KBLOOM_XLATE_VALID, out[i].state);
		EXPECT_EQ(KBLOOM_XLATE_ADDR6, out[i].kind);
		kb_xlate_addr6_get(&out[i], got);
		EXPECT_EQ(0, memcmp(got, i ? b : a, 16)) {
			TH_LOG("record %u is not the %s address", i,
			       i ? "second" : "first");
		}
	}
	/* The key only: b's record, or a bare FAMILY 6 and fold, ask alike. */
	ASSERT_EQ(2, kb_xlate_find(cells_of(&f), f.s.m, &f.hkey, &rb, out,
				   4));
	{
		struct kbloom_xlate q = { .family = 6 };

		memcpy(&q.after_src, fa, 4);
		ASSERT_EQ(2, kb_xlate_find(cells_of(&f), f.s.m, &f.hkey, &q,
					   out, 4));
	}
	/* Another fold: nothing; then it is a record of its own. */
	ASSERT_EQ(0, kb_xlate_find(cells_of(&f), f.s.m, &f.hkey, &rc, out,
				   4));
	ASSERT_EQ(KB_XLATE_NEW, kb_xlate_put(&f, &rc));
	ASSERT_EQ(1, kb_xlate_find(cells_of(&f), f.s.m, &f.hkey, &rc, out,
				   4));
	kb_xlate_addr6_get(&out[0], got);
	EXPECT_EQ(0, memcmp(got, c, 16));
	ASSERT_EQ(2, kb_xlate_find(cells_of(&f), f.s.m, &f.hkey, &ra, out,
				   4));
	EXPECT_EQ(3, fill_of(&f));
	kb_filter_free(&f);
	KB_ASSERT_NO_LEAKS();
}

TEST(shapes)
{
	static const struct {
		const char *what;
		struct kb_shape s;
		enum kb_shape_error err;
	} c[] = {
		{ "m 64", { .m = 64, .k = 1 }, KB_SHAPE_OK },
		{ "m 66", { .m = 66, .k = 1 }, KB_SHAPE_OK },
		{ "m 65 (odd)", { .m = 65, .k = 1 }, KB_SHAPE_BAD_BITS },
		{ "m 1023 (odd)", { .m = 1023, .k = 1 }, KB_SHAPE_BAD_BITS },
		{ "m 62 (< BITS_MIN)", { .m = 62, .k = 1 }, KB_SHAPE_BAD_BITS },
		{ "k 0", { .m = 64, .k = 0 }, KB_SHAPE_BAD_HASHES },
		{ "k 2", { .m = 64, .k = 2 }, KB_SHAPE_BAD_HASHES },
		{ "k 7", { .m = 64, .k = 7 }, KB_SHAPE_BAD_HASHES },
		{ "cell_bits 1", { .m = 64, .k = 1, .cell_bits = 1 },
		  KB_SHAPE_EXTRA_PARAM },
		{ "update", { .m = 64, .k = 1, .update = 1 },
		  KB_SHAPE_EXTRA_PARAM },
		{ "decrement", { .m = 64, .k = 1, .decrement = 1 },
		  KB_SHAPE_EXTRA_PARAM },
		{ "subtables", { .m = 64, .k = 1, .subtables = 2 },
		  KB_SHAPE_EXTRA_PARAM },
		{ "bucket_cells", { .m = 64, .k = 1, .bucket_cells = 4 },
		  KB_SHAPE_EXTRA_PARAM },
		{ "fp_bits", { .m = 64, .k = 1, .fp_bits = 8 },
		  KB_SHAPE_EXTRA_PARAM },
		{ "dims", { .m = 64, .k = 1, .dims = 2 },
		  KB_SHAPE_EXTRA_PARAM },
		{ "capacity", { .m = 64, .k = 1, .capacity = 10 },
		  KB_SHAPE_EXTRA_PARAM },
		{ "growth", { .m = 64, .k = 1, .growth = 2 },
		  KB_SHAPE_EXTRA_PARAM },
		{ "tighten", { .m = 64, .k = 1, .tighten = 500000 },
		  KB_SHAPE_EXTRA_PARAM },
	};
	u32 i;

	for (i = 0; i < ARRAY_SIZE(c); i++) {
		struct kb_shape s = c[i].s;

		s.type = KBLOOM_TYPE_TRANSFORMS;
		EXPECT_EQ(c[i].err, kb_filter_check_shape(&s)) {
			TH_LOG("%s", c[i].what);
		}
		if (c[i].err == KB_SHAPE_OK) {
			EXPECT_EQ(s.m * 32, kb_filter_mem_for(&s));
		}
	}
}

TEST_HARNESS_MAIN
