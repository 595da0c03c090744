// SPDX-License-Identifier: GPL-2.0 OR MIT
/*
 * Host tests of the traceback walk of 'bloomctl trace'
 * (userspace/traceback.c) with real engine filters in memory: a "mem"
 * backend whose routers are rings of kb_filter windows, asked exactly as
 * the netns backend asks the kernel's (digest each packet in spie, test
 * it in every window, rate from the fill).
 *
 * Random router trees (5 to 40 routers, several seeds): each packet's
 * digest is inserted at every router of its true path, every window is
 * filled with random keys to a chosen false positive rate; then the true
 * path must be in the answer, the ingress found, and the number of extra
 * routers ("false branches") over all packets within Poisson bounds of
 * the expected number the walk itself predicts. Plus the corner cases:
 * not traceable, absent, graphs with cycles, windows out of the range,
 * routers that cannot be asked or record nothing (unknown: stepped over),
 * parallel walks giving the same graphs as sequential ones on random
 * graphs, and the JSON reader of the ssh backend.
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "kselftest_harness.h"
#include "kb_test.h"

#include "../../kmod/engine/digest.h"
#include "../../kmod/engine/filter.h"
#include "../../userspace/topology.h"
#include "../../userspace/trace_json.h"
#include "../../userspace/traceback.h"

#define SEC		1000000000ULL
#define NWIN		3
#define M_BITS		4096
#define K_HASHES	4

struct mem_router {
	struct kb_filter f[NWIN];
	struct tb_window w[NWIN];
};

struct mem {
	size_t n;
	struct mem_router *r;
	long fail_at;		/* router whose ask fails, or -1 */
	const uint8_t *fails;	/* per router: its ask fails (NULL: none) */
	size_t asks;		/* every ask (atomic: asked from threads) */
};

static void mem_init(struct mem *m, size_t n, uint64_t first_id,
		     uint64_t t0)
{
	struct kb_shape s = {
		.type = KBLOOM_TYPE_BLOOM, .m = M_BITS, .k = K_HASHES,
		.cell_bits = 1,
	};
	uint8_t key[16] = { 1, 2, 3 };
	size_t i, j;

	memset(m, 0, sizeof(*m));
	m->n = n;
	m->fail_at = -1;
	m->r = calloc(n, sizeof(*m->r));
	for (i = 0; i < n; i++) {
		key[15] = (uint8_t)i;
		for (j = 0; j < NWIN; j++) {
			if (kb_filter_init(&m->r[i].f[j], &s, key))
				abort();
			/* [t0 + 10 s j, t0 + 10 s (j + 1)), the last open */
			m->r[i].w[j].id = first_id + j;
			m->r[i].w[j].start = t0 + 10 * SEC * j;
			m->r[i].w[j].end = j + 1 < NWIN ?
				t0 + 10 * SEC * (j + 1) : 0;
		}
	}
}

static void mem_free(struct mem *m)
{
	size_t i, j;

	for (i = 0; i < m->n; i++)
		for (j = 0; j < NWIN; j++)
			kb_filter_free(&m->r[i].f[j]);
	free(m->r);
}

static int mem_ask(void *ctx, size_t r, const struct tb_item *items, size_t n,
		   struct tb_answer *a, char *err, size_t errlen)
{
	struct mem *m = ctx;
	struct mem_router *mr = &m->r[r];
	struct kb_digest d;
	size_t i, j;

	__atomic_fetch_add(&m->asks, 1, __ATOMIC_RELAXED);
	if ((long)r == m->fail_at || (m->fails && m->fails[r])) {
		snprintf(err, errlen, "router %zu: unreachable", r);
		return -1;
	}
	a->nwin = NWIN;
	a->row = (NWIN + 7) / 8;
	a->win = calloc(NWIN, sizeof(*a->win));
	a->hits = calloc(n, a->row);
	for (j = 0; j < NWIN; j++) {
		struct kb_fill f;

		kb_filter_fill(&mr->f[j], &f);
		a->win[j] = mr->w[j];
		a->win[j].fill = f.nonzero;
		a->win[j].fpr = pow((double)f.nonzero / M_BITS, K_HASHES);
	}
	for (i = 0; i < n; i++) {
		if (kb_digest(items[i].pkt, items[i].len, KBLOOM_DIGEST_SPIE,
			      &d))
			continue;
		for (j = 0; j < NWIN; j++)
			if (kb_filter_test(&mr->f[j], d.key, d.len))
				a->hits[i * a->row + j / 8] |= 1 << (j % 8);
	}
	return 0;
}

/* A UDP packet of 36 bytes, random addresses, ID and ports. */
static void make_packet(struct kb_rng *rng, uint8_t pkt[36])
{
	memset(pkt, 0, 36);
	pkt[0] = 0x45;
	pkt[3] = 36;
	kb_rng_bytes(rng, pkt + 4, 2);		/* ID */
	pkt[8] = 64;
	pkt[9] = 17;
	kb_rng_bytes(rng, pkt + 12, 4);		/* forged source */
	pkt[16] = 10; pkt[19] = 2;		/* the victim */
	kb_rng_bytes(rng, pkt + 20, 4);		/* ports */
	pkt[25] = 16;
	kb_rng_bytes(rng, pkt + 28, 8);
}

/* A random packet in @pkt, traced as @tp: the victim saw it at @at. */
static void packet_at(struct kb_rng *rng, uint8_t pkt[36],
		      struct tb_packet *tp, uint64_t at)
{
	make_packet(rng, pkt);
	tp->pkt = pkt;
	tp->len = 36;
	tp->at = at;
}

/* @n random packets from seed @seed, as packet_at. */
static void packets_at(uint64_t seed, uint8_t (*pkt)[36],
		       struct tb_packet *tp, size_t n, uint64_t at)
{
	struct kb_rng rng;
	size_t i;

	kb_rng_seed(&rng, seed);
	for (i = 0; i < n; i++)
		packet_at(&rng, pkt[i], &tp[i], at);
}

static void insert_packet(struct mem *m, size_t r, size_t win,
			  const uint8_t *pkt)
{
	struct kb_digest d;

	if (kb_digest(pkt, 36, KBLOOM_DIGEST_SPIE, &d))
		abort();
	kb_filter_add(&m->r[r].f[win], d.key, d.len);
}

/* Random keys into window @win of router @r up to rate @p: (X/m)^k = p. */
static void fill_to(struct mem *m, size_t r, size_t win, double p,
		    struct kb_rng *rng)
{
	struct kb_filter *f = &m->r[r].f[win];
	uint64_t want = (uint64_t)(pow(p, 1.0 / K_HASHES) * M_BITS);
	struct kb_fill fl;
	uint8_t key[12];

	for (;;) {
		kb_filter_fill(f, &fl);
		if (fl.nonzero >= want)
			return;
		kb_rng_bytes(rng, key, sizeof(key));
		kb_filter_add(f, key, sizeof(key));
	}
}

/* A random tree of @n routers r1..rn (r1 the root) as a topology. */
static void random_tree(struct kb_rng *rng, size_t n, size_t *parent,
			struct kb_topo *t)
{
	size_t cap = 64 * n + 64, len = 0, i;
	char *text = malloc(cap), err[256];

	for (i = 0; i < n; i++)
		len += snprintf(text + len, cap - len,
				"router r%zu netns - filter spie\n", i + 1);
	parent[0] = SIZE_MAX;
	for (i = 1; i < n; i++) {
		parent[i] = kb_rng_below(rng, i);
		len += snprintf(text + len, cap - len, "link r%zu r%zu\n",
				parent[i] + 1, i + 1);
	}
	if (kb_topo_parse(text, "tree", t, err, sizeof(err))) {
		fprintf(stderr, "# %s\n", err);
		abort();
	}
	free(text);
}

static long node_of(const struct tb_result *r, size_t router)
{
	size_t x;

	for (x = 0; x < r->nnodes; x++)
		if (r->node[x].router == router)
			return (long)x;
	return -1;
}

static bool has_edge(const struct tb_result *r, size_t from, size_t to)
{
	size_t e;

	for (e = 0; e < r->nedges; e++)
		if (r->node[r->edge[e].from].router == from &&
		    r->node[r->edge[e].to].router == to)
			return true;
	return false;
}

/* log P(X = k), X ~ Poisson(l). */
static double lpois(double l, unsigned k)
{
	return -l + k * log(l) - lgamma(k + 1.0);
}

/* The smallest k with P(X <= k) >= q. */
static unsigned pois_quantile(double l, double q)
{
	double c = 0;
	unsigned k;

	if (l <= 0)
		return 0;
	for (k = 0;; k++) {
		c += exp(lpois(l, k));
		if (c >= q)
			return k;
	}
}

/* Whether @x lies in the 99.9% interval of Poisson(@e), two-sided. */
static bool in_interval(size_t x, double e)
{
	return x >= pois_quantile(e, 0.0005) && x <= pois_quantile(e, 0.9995);
}

static uint64_t tree_height(const size_t *parent, size_t n)
{
	uint64_t h = 0, d;
	size_t i, x;

	for (i = 0; i < n; i++) {
		for (d = 0, x = i; x; x = parent[x])
			d++;
		if (d > h)
			h = d;
	}
	return h;
}

TEST(random_trees)
{
	static const size_t sizes[] = { 5, 9, 17, 28, 40 };
	static const double rates[] = { 0.002, 0.01, 0.03 };
	const size_t npk = 60;
	double expected_all = 0;
	size_t extra_all = 0, packets = 0, trees = 0, exact_ingress = 0;
	uint64_t seed;
	size_t si;

	for (seed = 1; seed <= 3; seed++) {
		for (si = 0; si < ARRAY_SIZE(sizes); si++) {
			size_t n = sizes[si], i, j, x, *parent, *attacker;
			size_t per_router[64] = { 0 };
			struct tb_stats st = { .per_router = per_router };
			struct tb_backend be = { mem_ask, NULL, 0 };
			struct tb_packet *tp;
			struct tb_result *res;
			uint8_t (*pkt)[36];
			struct kb_topo t;
			struct kb_rng rng;
			struct mem m;
			char err[256];

			kb_rng_seed(&rng, seed * 1000 + n);
			parent = calloc(n, sizeof(*parent));
			attacker = calloc(npk, sizeof(*attacker));
			tp = calloc(npk, sizeof(*tp));
			res = calloc(npk, sizeof(*res));
			pkt = calloc(npk, sizeof(*pkt));
			random_tree(&rng, n, parent, &t);
			mem_init(&m, n, 11, 1000 * SEC);
			be.ctx = &m;
			for (i = 0; i < npk; i++) {
				make_packet(&rng, pkt[i]);
				attacker[i] = kb_rng_below(&rng, n);
				/* its true path, in the current window */
				for (x = attacker[i]; x != SIZE_MAX;
				     x = parent[x])
					insert_packet(&m, x, 2, pkt[i]);
				/* and somewhere in an old window: not in range */
				insert_packet(&m, kb_rng_below(&rng, n), 0,
					      pkt[i]);
				tp[i].pkt = pkt[i];
				tp[i].len = 36;
				tp[i].at = 1000 * SEC + 25 * SEC +
					   kb_rng_below(&rng, SEC);
			}
			for (i = 0; i < n; i++)
				for (j = 0; j < NWIN; j++)
					fill_to(&m, i, j,
						rates[kb_rng_below(&rng, 3)],
						&rng);

			ASSERT_EQ(0, tb_trace(&t, 0, tp, npk, 2 * SEC, &be,
					      res, &st, err, sizeof(err)))
				TH_LOG("%s", err);
			/* batched: each router at most once a step */
			EXPECT_LE(st.steps, tree_height(parent, n) + 1);
			for (i = 0; i < n; i++)
				EXPECT_LE(per_router[i], st.steps);
			EXPECT_EQ(m.asks, st.questions);
			EXPECT_LE(st.questions, n * st.steps);

			for (i = 0; i < npk; i++) {
				struct tb_result *r = &res[i];
				size_t pathlen = 0, up;
				long a;

				ASSERT_EQ(TB_TRACED, r->status);
				ASSERT_EQ(0, r->node[0].router);
				EXPECT_EQ(0, r->node[0].depth);
				EXPECT_EQ(13, r->node[0].win.id);
				for (x = attacker[i]; x != SIZE_MAX;
				     x = parent[x]) {
					long nd = node_of(r, x);

					pathlen++;
					ASSERT_LE(0, nd) TH_LOG("seed %llu n %zu packet %zu: r%zu of the true path missing",
								(unsigned long long)seed, n, i, x + 1);
					EXPECT_EQ(13, r->node[nd].win.id);
					if (x)
						EXPECT_TRUE(has_edge(r, x, parent[x]));
				}
				EXPECT_EQ(r->nnodes - 1, r->nedges);	/* a tree */
				EXPECT_LE(1, r->ningress);
				/* the true ingress, unless a false branch sits above it */
				a = node_of(r, attacker[i]);
				up = 0;
				for (j = 0; j < r->nedges; j++)
					if (r->edge[j].to == (size_t)a)
						up++;
				if (!up) {
					bool found = false;

					for (j = 0; j < r->ningress; j++)
						found |= r->node[r->ingress[j]].router ==
							 attacker[i];
					EXPECT_TRUE(found);
				}
				if (r->nnodes == pathlen) {
					EXPECT_EQ(1, r->ningress);
					EXPECT_EQ(attacker[i],
						  r->node[r->ingress[0]].router);
					exact_ingress++;
				}
				/* deepest first */
				for (j = 1; j < r->ningress; j++)
					EXPECT_GE(r->node[r->ingress[j - 1]].depth,
						  r->node[r->ingress[j]].depth);
				extra_all += r->nnodes - pathlen;
				expected_all += r->expected;
				EXPECT_GE(r->expected, 0);
				EXPECT_LE(r->asked, n - 1);
				packets++;
			}
			tb_results_free(res, npk);
			tb_stats_free(&st, t.n);
			mem_free(&m);
			kb_topo_free(&t);
			free(parent);
			free(attacker);
			free(tp);
			free(res);
			free(pkt);
			trees++;
		}
	}
	kb_diag("%zu trees, %zu packets: %zu false branches, expected %.2f, exact ingress %zu",
		trees, packets, extra_all, expected_all, exact_ingress);
	EXPECT_TRUE(in_interval(extra_all, expected_all));
	EXPECT_GT(expected_all, 5.0);	/* the check has power */
	KB_ASSERT_NO_LEAKS();
}

/*
 * A random connected graph of @n routers (r1 the victim's; n <= 64) with
 * cycles: a random tree, then links between random routers of fewer than
 * 5 until each has 3 or more where it can. @parent: each router's next
 * hop toward r1 on a shortest path (its packets' route).
 */
static void random_graph(struct kb_rng *rng, size_t n, size_t *parent,
			 struct kb_topo *t)
{
	size_t cap = 64 * n * 6 + 64, len = 0, i, j, tries, deg[64] = { 0 };
	size_t queue[64], head = 0, tail = 0;
	uint8_t adj[64][64] = { { 0 } };
	char *text = malloc(cap), err[256];

	for (i = 1; i < n; i++) {
		j = kb_rng_below(rng, i);
		adj[i][j] = adj[j][i] = 1;
		deg[i]++;
		deg[j]++;
	}
	for (tries = 0; tries < 100 * n; tries++) {
		i = kb_rng_below(rng, n);
		j = kb_rng_below(rng, n);
		if (i == j || adj[i][j] || deg[i] >= 5 || deg[j] >= 5 ||
		    (deg[i] >= 3 && deg[j] >= 3))
			continue;
		adj[i][j] = adj[j][i] = 1;
		deg[i]++;
		deg[j]++;
	}
	for (i = 0; i < n; i++)
		parent[i] = SIZE_MAX - 1;
	parent[0] = SIZE_MAX;
	queue[tail++] = 0;
	while (head < tail) {
		i = queue[head++];
		for (j = 0; j < n; j++)
			if (adj[i][j] && parent[j] == SIZE_MAX - 1) {
				parent[j] = i;
				queue[tail++] = j;
			}
	}
	for (i = 0; i < n; i++)
		len += snprintf(text + len, cap - len,
				"router r%zu netns - filter spie\n", i + 1);
	for (i = 0; i < n; i++)
		for (j = i + 1; j < n; j++)
			if (adj[i][j])
				len += snprintf(text + len, cap - len,
						"link r%zu r%zu\n", i + 1, j + 1);
	if (kb_topo_parse(text, "graph", t, err, sizeof(err))) {
		fprintf(stderr, "# %s\n", err);
		abort();
	}
	free(text);
}

/*
 * The walk's expected false branches against what it finds: random
 * graphs of 18 and 24 routers with cycles, 160 forged packets each from
 * random routers along their shortest paths, every router's windows
 * filled to one of three levels and the routers of the attack's paths
 * to three times it (they carry it: the fullest filters). Summed per
 * graph and over all, the routers in the answers off the true paths
 * stay within the 99.9% Poisson interval of the summed expectation; an
 * expectation off by 1.5 either way falls outside it (the check has the
 * power to see a model that counts the true path's routers, as the sum
 * of every asked router's rate did: about twice the truth).
 */
TEST(expected_false_branches_two_sided)
{
	static const size_t sizes[] = { 18, 24 };
	static const double levels[] = { 0.02, 0.06, 0.15 };
	const size_t npk = 160;
	size_t extra_all = 0;
	double expected_all = 0;
	size_t si, li;

	for (si = 0; si < ARRAY_SIZE(sizes); si++) {
		size_t extra_g = 0;
		double expected_g = 0;

		for (li = 0; li < ARRAY_SIZE(levels); li++) {
			size_t n = sizes[si], i, j, x, *parent, *attacker;
			struct tb_backend be = { mem_ask, NULL, 0 };
			size_t extra = 0, unsure = 0;
			double expected = 0;
			uint8_t *on_path, (*pkt)[36];
			struct tb_packet *tp;
			struct tb_result *res;
			struct kb_topo t;
			struct kb_rng rng;
			struct mem m;
			char err[256];

			kb_rng_seed(&rng, 7000 + 100 * n + li);
			parent = calloc(n, sizeof(*parent));
			attacker = calloc(npk, sizeof(*attacker));
			on_path = calloc(n, 1);
			tp = calloc(npk, sizeof(*tp));
			res = calloc(npk, sizeof(*res));
			pkt = calloc(npk, sizeof(*pkt));
			random_graph(&rng, n, parent, &t);
			mem_init(&m, n, 11, 1000 * SEC);
			be.ctx = &m;
			for (i = 0; i < npk; i++) {
				make_packet(&rng, pkt[i]);
				/*
				 * Half with DF: UDP that may be a tunnel's,
				 * asked about in its unsure form too, one
				 * more chance of a false branch each.
				 */
				if (i & 1)
					pkt[i][6] = 0x40;
				attacker[i] = 1 + kb_rng_below(&rng, n - 1);
				for (x = attacker[i]; x != SIZE_MAX; x = parent[x]) {
					insert_packet(&m, x, 2, pkt[i]);
					on_path[x] = 1;
				}
				tp[i].pkt = pkt[i];
				tp[i].len = 36;
				tp[i].at = 1000 * SEC + 25 * SEC;
			}
			for (i = 0; i < n; i++)
				for (j = 0; j < NWIN; j++)
					fill_to(&m, i, j, levels[li] *
						(on_path[i] ? 3 : 1), &rng);
			ASSERT_EQ(0, tb_trace(&t, 0, tp, npk, 2 * SEC, &be,
					      res, NULL, err, sizeof(err)))
				TH_LOG("%s", err);
			for (i = 0; i < npk; i++) {
				size_t pathlen = 0;

				/*
				 * An ingress holding a DF packet's unsure
				 * form falsely: not traceable past it, the
				 * graph kept.
				 */
				if (res[i].status == TB_NOT_TRACEABLE) {
					ASSERT_TRUE(i & 1);
					ASSERT_EQ(TB_BLIND_MERGED,
						  res[i].blind_why);
					unsure++;
				} else {
					ASSERT_EQ(TB_TRACED, res[i].status);
				}
				for (x = attacker[i]; x != SIZE_MAX; x = parent[x]) {
					ASSERT_LE(0, node_of(&res[i], x));
					pathlen++;
				}
				extra += res[i].nnodes - pathlen;
				expected += res[i].expected;
			}
			kb_diag("%zu routers, fill level %.2f: %zu false branches, %.1f expected; %zu not traceable past a false unsure form",
				n, levels[li], extra, expected, unsure);
			extra_g += extra;
			expected_g += expected;
			tb_results_free(res, npk);
			mem_free(&m);
			kb_topo_free(&t);
			free(parent);
			free(attacker);
			free(on_path);
			free(tp);
			free(res);
			free(pkt);
		}
		EXPECT_TRUE(in_interval(extra_g, expected_g))
			TH_LOG("%zu routers: %zu false branches, %.1f expected",
			       sizes[si], extra_g, expected_g);
		extra_all += extra_g;
		expected_all += expected_g;
	}
	kb_diag("all: %zu false branches, %.1f expected", extra_all,
		expected_all);
	EXPECT_GT(expected_all, 200.0);
	EXPECT_TRUE(in_interval(extra_all, expected_all));
	EXPECT_FALSE(in_interval(extra_all, expected_all * 1.5));
	EXPECT_FALSE(in_interval(extra_all, expected_all / 1.5));
	KB_ASSERT_NO_LEAKS();
}

/*
 * r1 - r2 - ... - rn in a line (n <= 99), r@none declared 'none' (0: every
 * router records), the others 'netns - filter f'.
 */
static int line_topo(struct kb_topo *t, size_t n, size_t none)
{
	char text[64 * 100], err[256];
	size_t len = 0, i;

	for (i = 1; i <= n; i++)
		len += snprintf(text + len, sizeof(text) - len,
				i == none ? "router r%zu none\n" :
				"router r%zu netns - filter f\n", i);
	for (i = 1; i < n; i++)
		len += snprintf(text + len, sizeof(text) - len,
				"link r%zu r%zu\n", i, i + 1);
	if (kb_topo_parse(text, "line", t, err, sizeof(err))) {
		fprintf(stderr, "# %s\n", err);
		return -1;
	}
	return 0;
}

TEST(not_traceable_and_absent)
{
	struct mem m;
	struct tb_backend be = { mem_ask, &m, 0 };
	struct tb_result res[5];
	struct tb_packet tp[5] = { 0 };
	uint8_t pkt[5][36];
	struct kb_topo t;
	char err[256];
	int i;

	ASSERT_EQ(0, line_topo(&t, 3, 0));
	/* windows 5, 6, 7: 4 were dropped; from 100 s */
	mem_init(&m, 3, 5, 100 * SEC);
	packets_at(7, pkt, tp, 5, 0);
	for (i = 0; i < 3; i++) {
		insert_packet(&m, i, 0, pkt[0]);
		insert_packet(&m, i, 0, pkt[1]);
		insert_packet(&m, i, 2, pkt[3]);
	}
	tp[0].at = 101 * SEC;	/* at - slack before window 5: lost ones */
	tp[1].at = 103 * SEC;	/* within window 5: fine */
	tp[2].at = 125 * SEC;	/* held nowhere */
	tp[3].at = 125 * SEC;	/* held in the range */
	tp[4].at = 50 * SEC;	/* long before */
	ASSERT_EQ(0, tb_trace(&t, 0, tp, 5, 2 * SEC, &be, res, NULL, err,
			      sizeof(err)));
	EXPECT_EQ(TB_NOT_TRACEABLE, res[0].status);
	EXPECT_EQ(100 * SEC, res[0].oldest);
	EXPECT_EQ(5, res[0].oldest_id);
	EXPECT_EQ(0, res[0].nnodes);
	EXPECT_EQ(TB_TRACED, res[1].status);
	EXPECT_EQ(3, res[1].nnodes);
	EXPECT_EQ(5, res[1].node[2].win.id);
	EXPECT_EQ(TB_ABSENT, res[2].status);
	EXPECT_EQ(0, res[2].nnodes);
	EXPECT_EQ(0, res[2].asked);
	EXPECT_EQ(TB_TRACED, res[3].status);
	EXPECT_EQ(3, res[3].nnodes);
	EXPECT_EQ(2, res[3].asked);
	EXPECT_EQ(1, res[3].ningress);
	EXPECT_EQ(2, res[3].node[res[3].ingress[0]].router);
	EXPECT_EQ(TB_NOT_TRACEABLE, res[4].status);
	tb_results_free(res, 5);
	mem_free(&m);

	/* Window 1 retained: nothing was dropped, the same packet traces. */
	mem_init(&m, 3, 1, 100 * SEC);
	for (i = 0; i < 3; i++)
		insert_packet(&m, i, 0, pkt[0]);
	ASSERT_EQ(0, tb_trace(&t, 0, tp, 1, 2 * SEC, &be, res, NULL, err,
			      sizeof(err)));
	EXPECT_EQ(TB_TRACED, res[0].status);
	EXPECT_EQ(3, res[0].nnodes);
	tb_results_free(res, 1);
	/* but before the filter existed it is not traceable */
	ASSERT_EQ(0, tb_trace(&t, 0, &tp[4], 1, 2 * SEC, &be, res, NULL, err,
			      sizeof(err)));
	EXPECT_EQ(TB_NOT_TRACEABLE, res[0].status);
	tb_results_free(res, 1);
	mem_free(&m);
	kb_topo_free(&t);
	KB_ASSERT_NO_LEAKS();
}

/* mem_ask, with router @blind's answer marking every item blind (@why). */
struct blind_mem {
	struct mem m;
	size_t blind;
	enum tb_blind why;
};

static int blind_ask(void *ctx, size_t r, const struct tb_item *items,
		     size_t n, struct tb_answer *a, char *err, size_t errlen)
{
	struct blind_mem *bm = ctx;
	int ret = mem_ask(&bm->m, r, items, n, a, err, errlen);

	if (!ret && r == bm->blind) {
		a->blind = malloc(n);
		memset(a->blind, bm->why, n);
	}
	return ret;
}

TEST(a_blind_router_makes_the_packet_not_traceable)
{
	/*
	 * r1 (from) - r2 (blind: its NAT may have rewritten the packet, no
	 * record says how) - r3. The packet is at r1 only, as r2 and r3 got
	 * another form of it: never "traced" with ingress r1. Blind at r1
	 * itself and absent there: not "absent" either.
	 */
	struct blind_mem bm;
	struct tb_backend be = { blind_ask, &bm, 0 };
	struct tb_result res;
	struct tb_packet tp = { 0 };
	uint8_t pkt[36];
	struct kb_topo t;
	char err[256];

	ASSERT_EQ(0, line_topo(&t, 3, 0));
	packets_at(11, &pkt, &tp, 1, 25 * SEC);
	mem_init(&bm.m, 3, 1, 0);
	insert_packet(&bm.m, 0, 2, pkt);
	bm.blind = 1;
	bm.why = TB_BLIND_FRAGMENT;
	ASSERT_EQ(0, tb_trace(&t, 0, &tp, 1, 2 * SEC, &be, &res, NULL, err,
			      sizeof(err)));
	EXPECT_EQ(TB_NOT_TRACEABLE, res.status);
	EXPECT_TRUE(res.blind);
	EXPECT_EQ(1, res.blind_at);
	EXPECT_EQ(TB_BLIND_FRAGMENT, res.blind_why);
	EXPECT_EQ(1, res.nnodes);
	tb_results_free(&res, 1);

	/* The router's reason is the packet's: an ICMP error's. */
	bm.why = TB_BLIND_ICMP_ERROR;
	ASSERT_EQ(0, tb_trace(&t, 0, &tp, 1, 2 * SEC, &be, &res, NULL, err,
			      sizeof(err)));
	EXPECT_EQ(TB_NOT_TRACEABLE, res.status);
	EXPECT_EQ(1, res.blind_at);
	EXPECT_EQ(TB_BLIND_ICMP_ERROR, res.blind_why);
	tb_results_free(&res, 1);
	bm.why = TB_BLIND_FRAGMENT;

	bm.blind = 2;		/* r3 is never asked: r2 said absent */
	ASSERT_EQ(0, tb_trace(&t, 0, &tp, 1, 2 * SEC, &be, &res, NULL, err,
			      sizeof(err)));
	EXPECT_EQ(TB_TRACED, res.status);
	EXPECT_FALSE(res.blind);
	tb_results_free(&res, 1);

	mem_free(&bm.m);
	mem_init(&bm.m, 3, 1, 0);
	bm.blind = 0;
	ASSERT_EQ(0, tb_trace(&t, 0, &tp, 1, 2 * SEC, &be, &res, NULL, err,
			      sizeof(err)));
	EXPECT_EQ(TB_NOT_TRACEABLE, res.status);
	EXPECT_TRUE(res.blind);
	EXPECT_EQ(0, res.blind_at);
	EXPECT_EQ(0, res.nnodes);
	tb_results_free(&res, 1);
	mem_free(&bm.m);
	kb_topo_free(&t);
	KB_ASSERT_NO_LEAKS();
}

/* Adds @pkt's unsure form (engine digest.h) to window @win of router @r. */
static void insert_unsure(struct mem *m, size_t r, size_t win,
			  const uint8_t *pkt)
{
	uint8_t u[36];

	memcpy(u, pkt, sizeof(u));
	kb_pkt_unsure(u);
	insert_packet(m, r, win, u);
}

TEST(an_ingress_holding_the_unsure_form_is_not_traceable_past)
{
	/*
	 * r1 (from) - r2 - r3 - r4. A GRE packet with DF (a tunnel's outer
	 * packet) at r1, and at r2 also in its unsure form: r2 merged it by
	 * GRO and sent it on with an outer ID r3 may never have seen.
	 */
	struct mem m;
	struct tb_backend be = { mem_ask, &m, 0 };
	struct tb_result res;
	struct tb_packet tp = { 0 };
	uint8_t pkt[36];
	struct kb_topo t;
	char err[256];

	ASSERT_EQ(0, line_topo(&t, 4, 0));
	packets_at(12, &pkt, &tp, 1, 25 * SEC);
	pkt[6] = 0x40;
	pkt[9] = 47;
	mem_init(&m, 4, 1, 0);
	insert_packet(&m, 0, 2, pkt);
	insert_packet(&m, 1, 2, pkt);
	insert_unsure(&m, 1, 2, pkt);
	/* Nothing before r2 holds it: not traceable past r2, never r2's. */
	ASSERT_EQ(0, tb_trace(&t, 0, &tp, 1, 2 * SEC, &be, &res, NULL, err,
			      sizeof(err)));
	EXPECT_EQ(TB_NOT_TRACEABLE, res.status);
	EXPECT_TRUE(res.blind);
	EXPECT_EQ(1, res.blind_at);
	EXPECT_EQ(TB_BLIND_MERGED, res.blind_why);
	EXPECT_EQ(2, res.nnodes);
	EXPECT_TRUE(res.node[1].unsure);
	EXPECT_FALSE(res.node[0].unsure);
	tb_results_free(&res, 1);

	/* r3 sent the ID r2 sent on: traced, ingress r3. */
	insert_packet(&m, 2, 2, pkt);
	ASSERT_EQ(0, tb_trace(&t, 0, &tp, 1, 2 * SEC, &be, &res, NULL, err,
			      sizeof(err)));
	EXPECT_EQ(TB_TRACED, res.status);
	EXPECT_FALSE(res.blind);
	ASSERT_EQ(1, res.ningress);
	EXPECT_EQ(2, res.node[res.ingress[0]].router);
	tb_results_free(&res, 1);
	mem_free(&m);

	/* r2 holds only the unsure form (its segment's checksum unknown). */
	mem_init(&m, 4, 1, 0);
	insert_packet(&m, 0, 2, pkt);
	insert_unsure(&m, 1, 2, pkt);
	insert_packet(&m, 2, 2, pkt);
	ASSERT_EQ(0, tb_trace(&t, 0, &tp, 1, 2 * SEC, &be, &res, NULL, err,
			      sizeof(err)));
	EXPECT_EQ(TB_TRACED, res.status);
	EXPECT_EQ(3, res.nnodes);
	EXPECT_EQ(2, res.node[res.ingress[0]].router);
	tb_results_free(&res, 1);
	mem_free(&m);

	/* Without DF GRO checks the IDs: no unsure form is asked about. */
	pkt[6] = 0;
	mem_init(&m, 4, 1, 0);
	insert_packet(&m, 0, 2, pkt);
	insert_unsure(&m, 1, 2, pkt);
	ASSERT_EQ(0, tb_trace(&t, 0, &tp, 1, 2 * SEC, &be, &res, NULL, err,
			      sizeof(err)));
	EXPECT_EQ(TB_TRACED, res.status);
	EXPECT_EQ(1, res.nnodes);
	tb_results_free(&res, 1);
	mem_free(&m);
	kb_topo_free(&t);
	KB_ASSERT_NO_LEAKS();
}

/* mem_ask, and router guesser's NAT gives each item a form with a guess. */
struct guess_mem {
	struct mem m;
	size_t guesser;
	bool guess;
};

/* @pkt with its source address changed: the form a guess gives. */
static void guessed_form(const uint8_t *pkt, uint8_t *out)
{
	memcpy(out, pkt, 36);
	out[15] ^= 0x5a;
}

static int guess_ask(void *ctx, size_t r, const struct tb_item *items,
		     size_t n, struct tb_answer *a, char *err, size_t errlen)
{
	struct guess_mem *gm = ctx;
	int ret = mem_ask(&gm->m, r, items, n, a, err, errlen);
	size_t i;

	if (ret || r != gm->guesser)
		return ret;
	a->xf = calloc(n, sizeof(*a->xf));
	for (i = 0; i < n; i++) {
		a->xf[i].row = i;
		a->xf[i].pkt = malloc(36);
		a->xf[i].len = 36;
		a->xf[i].guess = gm->guess;
		guessed_form(items[i].pkt, a->xf[i].pkt);
		snprintf(a->xf[i].what, sizeof(a->xf[i].what),
			 "ICMP error about DNAT A <- B, its sender guessed");
	}
	a->nxf = n;
	return 0;
}

TEST(an_ingress_that_guessed_a_form_is_not_traceable_past)
{
	/*
	 * r1 (from) - r2 (NAT: the error's sender it overwrote, put back
	 * as a guess) - r3. r2 holds the error as it left; the guessed form
	 * is asked of r3.
	 */
	struct guess_mem gm = { .guesser = 1, .guess = true };
	struct tb_backend be = { guess_ask, &gm, 0 };
	struct tb_result res;
	struct tb_packet tp = { 0 };
	uint8_t pkt[36], g[36];
	struct kb_topo t;
	char err[256];

	ASSERT_EQ(0, line_topo(&t, 3, 0));
	packets_at(13, &pkt, &tp, 1, 25 * SEC);
	guessed_form(pkt, g);
	mem_init(&gm.m, 3, 1, 0);
	insert_packet(&gm.m, 0, 2, pkt);
	insert_packet(&gm.m, 1, 2, pkt);
	/* No digest before r2 holds the guess: not r2's, said so. */
	ASSERT_EQ(0, tb_trace(&t, 0, &tp, 1, 2 * SEC, &be, &res, NULL, err,
			      sizeof(err)));
	EXPECT_EQ(TB_NOT_TRACEABLE, res.status);
	EXPECT_TRUE(res.blind);
	EXPECT_EQ(1, res.blind_at);
	EXPECT_EQ(TB_BLIND_ICMP_SENDER, res.blind_why);
	EXPECT_EQ(2, res.nnodes);
	EXPECT_TRUE(res.node[1].guessed);
	EXPECT_FALSE(res.node[0].guessed);
	tb_results_free(&res, 1);

	/* r3 holds the guessed form: it was right, traced, ingress r3. */
	insert_packet(&gm.m, 2, 2, g);
	ASSERT_EQ(0, tb_trace(&t, 0, &tp, 1, 2 * SEC, &be, &res, NULL, err,
			      sizeof(err)));
	EXPECT_EQ(TB_TRACED, res.status);
	EXPECT_FALSE(res.blind);
	ASSERT_EQ(1, res.ningress);
	EXPECT_EQ(2, res.node[res.ingress[0]].router);
	tb_results_free(&res, 1);
	mem_free(&gm.m);

	/* A form that is no guess (an exact inverse): r2 is the ingress. */
	gm.guess = false;
	mem_init(&gm.m, 3, 1, 0);
	insert_packet(&gm.m, 0, 2, pkt);
	insert_packet(&gm.m, 1, 2, pkt);
	ASSERT_EQ(0, tb_trace(&t, 0, &tp, 1, 2 * SEC, &be, &res, NULL, err,
			      sizeof(err)));
	EXPECT_EQ(TB_TRACED, res.status);
	ASSERT_EQ(1, res.ningress);
	EXPECT_EQ(1, res.node[res.ingress[0]].router);
	tb_results_free(&res, 1);
	mem_free(&gm.m);
	kb_topo_free(&t);
	KB_ASSERT_NO_LEAKS();
}

/* mem_ask, and router bypassed's attachment may be passed by a flowtable. */
struct bypass_mem {
	struct mem m;
	size_t bypassed;
};

static int bypass_ask(void *ctx, size_t r, const struct tb_item *items,
		      size_t n, struct tb_answer *a, char *err, size_t errlen)
{
	struct bypass_mem *bm = ctx;
	int ret = mem_ask(&bm->m, r, items, n, a, err, errlen);

	if (!ret && r == bm->bypassed)
		snprintf(a->bypass, sizeof(a->bypass), "flowtable");
	return ret;
}

TEST(a_bypassed_router_is_unknown_where_it_saw_nothing)
{
	/*
	 * r1 (from) - r2 - r3. r2's flowtable carried the packet past its
	 * attachment: held at r1 and r3, not at r2. r2 is unknown for it
	 * (with why), never absent: the walk goes on to r3, the ingress.
	 * A bypassed FROM that holds nothing is unknown, not absent; one
	 * that holds the packet is traced as ever.
	 */
	struct bypass_mem bm;
	struct tb_backend be = { bypass_ask, &bm, 0 };
	struct tb_result res;
	struct tb_packet tp = { 0 };
	struct tb_stats st = { 0 };
	uint8_t pkt[36];
	struct kb_topo t;
	char err[256];

	ASSERT_EQ(0, line_topo(&t, 3, 0));
	packets_at(12, &pkt, &tp, 1, 25 * SEC);
	mem_init(&bm.m, 3, 1, 0);
	insert_packet(&bm.m, 0, 2, pkt);
	insert_packet(&bm.m, 2, 2, pkt);
	bm.bypassed = 1;
	ASSERT_EQ(0, tb_trace(&t, 0, &tp, 1, 2 * SEC, &be, &res, &st, err,
			      sizeof(err)));
	EXPECT_EQ(TB_TRACED, res.status);
	ASSERT_EQ(3, res.nnodes);
	EXPECT_EQ(1, res.node[1].router);
	EXPECT_TRUE(res.node[1].unknown);
	EXPECT_EQ(2, res.node[2].router);
	EXPECT_FALSE(res.node[2].unknown);
	ASSERT_EQ(1, res.ningress);
	EXPECT_EQ(2, res.node[res.ingress[0]].router);
	ASSERT_NE(NULL, st.why[1]);
	EXPECT_NE(NULL, strstr(st.why[1], "router r2 holds no digest of it, but its attachment may be passed by (flowtable)"));
	EXPECT_EQ(NULL, st.why[0]);
	tb_results_free(&res, 1);
	tb_stats_free(&st, t.n);

	/* Not passed by: r2's absence ends the path at r1. */
	bm.bypassed = 9;
	ASSERT_EQ(0, tb_trace(&t, 0, &tp, 1, 2 * SEC, &be, &res, NULL, err,
			      sizeof(err)));
	EXPECT_EQ(TB_TRACED, res.status);
	EXPECT_EQ(1, res.nnodes);
	tb_results_free(&res, 1);

	bm.bypassed = 0;	/* FROM holds it: traced through */
	ASSERT_EQ(0, tb_trace(&t, 0, &tp, 1, 2 * SEC, &be, &res, NULL, err,
			      sizeof(err)));
	EXPECT_EQ(TB_TRACED, res.status);
	tb_results_free(&res, 1);

	mem_free(&bm.m);
	mem_init(&bm.m, 3, 1, 0);
	ASSERT_EQ(0, tb_trace(&t, 0, &tp, 1, 2 * SEC, &be, &res, &st, err,
			      sizeof(err)));
	EXPECT_EQ(TB_UNKNOWN, res.status);
	ASSERT_NE(NULL, st.why[0]);
	EXPECT_NE(NULL, strstr(st.why[0], "router r1 holds no digest of it"));
	tb_results_free(&res, 1);
	tb_stats_free(&st, t.n);
	mem_free(&bm.m);
	kb_topo_free(&t);
	KB_ASSERT_NO_LEAKS();
}

TEST(cycles_make_a_graph)
{
	/*
	 *      r1 (from)
	 *     /  \
	 *   r2    r3
	 *     \  /
	 *      r4 - r5
	 */
	struct mem m;
	struct tb_backend be = { mem_ask, &m, 0 };
	struct tb_result res;
	struct tb_packet tp = { 0 };
	uint8_t pkt[36];
	struct kb_topo t;
	char err[256];
	size_t per[5] = { 0 };
	struct tb_stats st = { .per_router = per };
	struct kb_fill f1, f2;
	double p1, p2;
	int i;

	ASSERT_EQ(0, kb_topo_parse("router r1 netns a filter f\nrouter r2 netns a filter f\n"
				   "router r3 netns a filter f\nrouter r4 netns a filter f\n"
				   "router r5 netns a filter f\n"
				   "link r1 r2\nlink r1 r3\nlink r2 r4\nlink r3 r4\nlink r4 r5\n",
				   "diamond", &t, err, sizeof(err)));
	/* at 20.5 s: windows 2 and 3 overlap [18.5, 20.5] */
	packets_at(3, &pkt, &tp, 1, 20 * SEC + SEC / 2);
	mem_init(&m, 5, 1, 0);
	for (i = 0; i < 4; i++)
		insert_packet(&m, i, 2, pkt);
	/* a second window in range holding it at r2: the newer one is shown */
	insert_packet(&m, 1, 1, pkt);
	ASSERT_EQ(0, tb_trace(&t, 0, &tp, 1, 2 * SEC, &be, &res, &st, err,
			      sizeof(err)));
	ASSERT_EQ(TB_TRACED, res.status);
	ASSERT_EQ(4, res.nnodes);
	EXPECT_EQ(3, res.node[3].router);
	EXPECT_EQ(2, res.node[3].depth);
	EXPECT_TRUE(has_edge(&res, 3, 1));
	EXPECT_TRUE(has_edge(&res, 3, 2));
	EXPECT_TRUE(has_edge(&res, 1, 0));
	EXPECT_TRUE(has_edge(&res, 2, 0));
	EXPECT_EQ(4, res.nedges);
	EXPECT_EQ(1, res.ningress);
	EXPECT_EQ(3, res.node[res.ingress[0]].router);
	EXPECT_EQ(3, res.node[node_of(&res, 1)].win.id);
	/* r2, r3, r4, r5 asked once each: r4 not twice */
	EXPECT_EQ(4, res.asked);
	EXPECT_EQ(4, st.steps);		/* from, {r2,r3}, r4, r5 */
	EXPECT_EQ(1, per[3]);
	/* the rate of a router over two windows in range */
	kb_filter_fill(&m.r[1].f[1], &f1);
	kb_filter_fill(&m.r[1].f[2], &f2);
	p1 = pow((double)f1.nonzero / M_BITS, K_HASHES);
	p2 = pow((double)f2.nonzero / M_BITS, K_HASHES);
	EXPECT_TRUE(fabs(res.node[node_of(&res, 1)].fpr -
			 (1 - (1 - p1) * (1 - p2))) < 1e-15);
	tb_results_free(&res, 1);
	tb_stats_free(&st, t.n);
	mem_free(&m);
	kb_topo_free(&t);
	KB_ASSERT_NO_LEAKS();
}

/*
 * Every router: one window over all time, rate 1e-18, holding every item
 * (with a non-NULL @ctx, but router @ctx[0], which holds none).
 */
static int tiny_ask(void *ctx, size_t r, const struct tb_item *items, size_t n,
		    struct tb_answer *a, char *err, size_t errlen)
{
	const size_t *none = ctx;

	a->nwin = 1;
	a->row = 1;
	a->win = calloc(1, sizeof(*a->win));
	a->hits = malloc(n ? n : 1);
	memset(a->hits, !none || r != *none, n ? n : 1);
	a->win[0].id = 1;
	a->win[0].start = 1;
	a->win[0].fpr = 1e-18;
	return 0;
}

TEST(tiny_rates_are_not_rounded_to_zero)
{
	/*
	 *   r1 (from) - r2 - r3 (absent)
	 * a rate of 1e-18 (a big filter holding few packets, as in the demo)
	 * is below what 1 - (1 - p) in doubles can hold: it must come out as
	 * it is, not as 0, in r2's node and in the expectation r3 adds.
	 */
	static size_t r3 = 2;
	struct tb_backend be = { tiny_ask, &r3, 0 };
	struct tb_result res;
	struct tb_packet tp = { 0 };
	uint8_t pkt[36];
	struct kb_topo t;
	char err[256];

	ASSERT_EQ(0, line_topo(&t, 3, 0));
	packets_at(5, &pkt, &tp, 1, 25 * SEC);
	ASSERT_EQ(0, tb_trace(&t, 0, &tp, 1, 2 * SEC, &be, &res, NULL, err,
			      sizeof(err)));
	ASSERT_EQ(TB_TRACED, res.status);
	ASSERT_EQ(2, res.nnodes);
	EXPECT_TRUE(fabs(res.node[node_of(&res, 1)].fpr - 1e-18) <= 1e-27);
	EXPECT_TRUE(fabs(res.expected - 1e-18) <= 1e-27);
	tb_results_free(&res, 1);
	kb_topo_free(&t);
	KB_ASSERT_NO_LEAKS();
}

TEST(a_failing_router_is_unknown_and_stepped_over)
{
	/*
	 * r1 (from) - r2 (fails) - r3 - r4: the packets went r3 -> r2 -> r1.
	 * r2 is an unknown node, r3 is asked in its place and holds them,
	 * r4 does not: ingress r3. r2 is asked once, not again.
	 */
	struct mem m;
	struct tb_backend be = { mem_ask, &m, 0 };
	struct tb_result res[2];
	struct tb_packet tp[2] = { 0 };
	uint8_t pkt[2][36];
	size_t per[4] = { 0 };
	struct tb_stats st = { .per_router = per };
	struct kb_topo t;
	char err[256] = "";
	int i;

	ASSERT_EQ(0, line_topo(&t, 4, 0));
	mem_init(&m, 4, 1, 0);
	m.fail_at = 1;
	packets_at(9, pkt, tp, 2, 25 * SEC);
	for (i = 0; i < 2; i++) {
		insert_packet(&m, 0, 2, pkt[i]);
		insert_packet(&m, 2, 2, pkt[i]);
	}
	ASSERT_EQ(0, tb_trace(&t, 0, tp, 2, 2 * SEC, &be, res, &st, err,
			      sizeof(err)));
	for (i = 0; i < 2; i++) {
		EXPECT_EQ(TB_TRACED, res[i].status);
		ASSERT_EQ(3, res[i].nnodes);
		EXPECT_FALSE(res[i].node[0].unknown);
		EXPECT_EQ(1, res[i].node[1].router);
		EXPECT_TRUE(res[i].node[1].unknown);
		EXPECT_EQ(1, res[i].node[1].depth);
		EXPECT_EQ(2, res[i].node[2].router);
		EXPECT_FALSE(res[i].node[2].unknown);
		EXPECT_EQ(2, res[i].node[2].depth);
		EXPECT_EQ(2, res[i].nedges);
		EXPECT_TRUE(has_edge(&res[i], 1, 0));
		EXPECT_TRUE(has_edge(&res[i], 2, 1));
		ASSERT_EQ(1, res[i].ningress);
		EXPECT_EQ(2, res[i].node[res[i].ingress[0]].router);
		EXPECT_EQ(0, res[i].nunknown);
		/* r3 and r4 asked; r2 was not answered */
		EXPECT_EQ(2, res[i].asked);
	}
	EXPECT_EQ(1, st.failed);
	EXPECT_STREQ("router 1: unreachable", st.why[1]);
	EXPECT_EQ(NULL, st.why[0]);
	EXPECT_EQ(NULL, st.why[2]);
	/* r1, r2 (failed), r3, r4: once each, two packets or not */
	EXPECT_EQ(4, m.asks);
	EXPECT_EQ(0, per[1]);	/* questions answered */
	EXPECT_EQ(3, st.questions);
	tb_results_free(res, 2);
	tb_stats_free(&st, t.n);
	EXPECT_EQ(NULL, st.why);
	mem_free(&m);
	kb_topo_free(&t);
	KB_ASSERT_NO_LEAKS();
}

TEST(an_unknown_router_with_nothing_beyond_is_listed_apart)
{
	/*
	 * r1 (from) - r2 (fails) - r3 - r4, only r1 holds the packet: r2
	 * leads to no router that saw it, so it is not on the path but in
	 * res.unknown, and r1 is the ingress (as far as anyone can say).
	 */
	struct mem m;
	struct tb_backend be = { mem_ask, &m, 0 };
	struct tb_stats st = { 0 };
	struct tb_result res;
	struct tb_packet tp = { 0 };
	uint8_t pkt[36];
	struct kb_topo t;
	char err[256] = "";

	ASSERT_EQ(0, line_topo(&t, 4, 0));
	mem_init(&m, 4, 1, 0);
	m.fail_at = 1;
	packets_at(10, &pkt, &tp, 1, 25 * SEC);
	insert_packet(&m, 0, 2, pkt);
	ASSERT_EQ(0, tb_trace(&t, 0, &tp, 1, 2 * SEC, &be, &res, &st, err,
			      sizeof(err)));
	EXPECT_EQ(TB_TRACED, res.status);
	ASSERT_EQ(1, res.nnodes);
	EXPECT_EQ(0, res.node[0].router);
	EXPECT_EQ(0, res.nedges);
	ASSERT_EQ(1, res.nunknown);
	EXPECT_EQ(1, res.unknown[0]);
	ASSERT_EQ(1, res.ningress);
	EXPECT_EQ(0, res.ingress[0]);
	/* r3 was asked in r2's place (and said no), r4 was not */
	EXPECT_EQ(1, res.asked);
	EXPECT_EQ(3, m.asks);
	EXPECT_EQ(1, st.failed);
	tb_results_free(&res, 1);
	tb_stats_free(&st, t.n);
	mem_free(&m);
	kb_topo_free(&t);
	KB_ASSERT_NO_LEAKS();
}

TEST(a_router_declared_none_is_stepped_over_without_asking)
{
	struct mem m;
	struct tb_backend be = { mem_ask, &m, 0 };
	size_t per[4] = { 0 };
	struct tb_stats st = { .per_router = per };
	struct tb_result res;
	struct tb_packet tp = { 0 };
	uint8_t pkt[36];
	struct kb_topo t;
	char err[256] = "";

	ASSERT_EQ(0, line_topo(&t, 4, 2));
	mem_init(&m, 4, 1, 0);
	packets_at(11, &pkt, &tp, 1, 25 * SEC);
	insert_packet(&m, 0, 2, pkt);
	insert_packet(&m, 2, 2, pkt);
	insert_packet(&m, 3, 2, pkt);
	ASSERT_EQ(0, tb_trace(&t, 0, &tp, 1, 2 * SEC, &be, &res, &st, err,
			      sizeof(err)));
	ASSERT_EQ(4, res.nnodes);
	EXPECT_TRUE(res.node[1].unknown);
	EXPECT_EQ(1, res.node[1].router);
	EXPECT_EQ(3, res.node[res.ingress[0]].router);
	EXPECT_EQ(3, res.node[3].depth);
	EXPECT_EQ(0, st.failed);	/* declared, not failed */
	EXPECT_STREQ("records nothing (declared 'none' on line 2)", st.why[1]);
	EXPECT_EQ(0, per[1]);
	EXPECT_EQ(3, m.asks);		/* r1, r3, r4: never r2 */
	tb_results_free(&res, 1);
	tb_stats_free(&st, t.n);
	mem_free(&m);
	kb_topo_free(&t);
	KB_ASSERT_NO_LEAKS();
}

TEST(from_unknown_stops_every_packet)
{
	struct mem m;
	struct tb_backend be = { mem_ask, &m, 0 };
	struct tb_stats st = { 0 };
	struct tb_result res[2];
	struct tb_packet tp[2] = { 0 };
	uint8_t pkt[2][36];
	struct kb_topo t;
	char err[256] = "";

	ASSERT_EQ(0, line_topo(&t, 3, 0));
	mem_init(&m, 3, 1, 0);
	m.fail_at = 0;
	packets_at(12, pkt, tp, 2, 25 * SEC);
	ASSERT_EQ(0, tb_trace(&t, 0, tp, 2, 2 * SEC, &be, res, &st, err,
			      sizeof(err)));
	EXPECT_EQ(TB_UNKNOWN, res[0].status);
	EXPECT_EQ(TB_UNKNOWN, res[1].status);
	EXPECT_EQ(0, res[0].nnodes);
	EXPECT_EQ(1, m.asks);
	EXPECT_EQ(1, st.failed);
	EXPECT_STREQ("router 0: unreachable", st.why[0]);
	tb_results_free(res, 2);
	tb_stats_free(&st, t.n);
	mem_free(&m);
	kb_topo_free(&t);
	KB_ASSERT_NO_LEAKS();
}

TEST(ten_thousand_packets_in_one_walk)
{
	/*
	 * A chain of 20 routers, each holding every packet (tiny_ask): 10 000
	 * packets are traced in one walk of 20 steps and 20 questions (one
	 * per router, all the packets pending there in it), each packet to
	 * the far end of the chain.
	 */
	struct tb_backend be = { tiny_ask, NULL, 4 };
	const size_t n = 10000, nr = 20;
	size_t per[20] = { 0 };
	struct tb_stats st = { .per_router = per };
	struct tb_packet *tp = calloc(n, sizeof(*tp));
	struct tb_result *res = calloc(n, sizeof(*res));
	uint8_t pkt[36];
	char err[256];
	size_t i, bad = 0;
	struct kb_topo t;

	ASSERT_TRUE(tp && res);
	ASSERT_EQ(0, line_topo(&t, nr, 0));
	/* one packet, seen n times */
	packets_at(13, &pkt, tp, 1, 25 * SEC);
	for (i = 1; i < n; i++) {
		tp[i] = tp[0];
		tp[i].at = (25 + i % 7) * SEC;
	}
	ASSERT_EQ(0, tb_trace(&t, 0, tp, n, 2 * SEC, &be, res, &st, err,
			      sizeof(err)));
	for (i = 0; i < n; i++)
		bad += res[i].status != TB_TRACED || res[i].nnodes != nr ||
		       res[i].nedges != nr - 1 || res[i].ningress != 1 ||
		       res[i].node[res[i].ingress[0]].router != nr - 1 ||
		       res[i].asked != nr - 1;
	EXPECT_EQ(0, bad);
	EXPECT_EQ(nr, st.questions);
	EXPECT_EQ(nr, st.steps);
	for (i = 0; i < nr; i++)
		EXPECT_EQ(1, per[i]);
	tb_results_free(res, n);
	tb_stats_free(&st, t.n);
	free(tp);
	free(res);
	kb_topo_free(&t);
	KB_ASSERT_NO_LEAKS();
}

/* Whether two walks' results are the same graphs, node for node. */
static bool same_results(const struct tb_result *a, const struct tb_result *b,
			 size_t n)
{
	size_t i, x;

	for (i = 0; i < n; i++) {
		if (a[i].status != b[i].status || a[i].nnodes != b[i].nnodes ||
		    a[i].nedges != b[i].nedges ||
		    a[i].ningress != b[i].ningress ||
		    a[i].nunknown != b[i].nunknown ||
		    a[i].asked != b[i].asked || a[i].expected != b[i].expected)
			return false;
		for (x = 0; x < a[i].nnodes; x++)
			if (a[i].node[x].router != b[i].node[x].router ||
			    a[i].node[x].depth != b[i].node[x].depth ||
			    a[i].node[x].unknown != b[i].node[x].unknown ||
			    a[i].node[x].win.id != b[i].node[x].win.id ||
			    a[i].node[x].fpr != b[i].node[x].fpr)
				return false;
		if ((a[i].nedges && memcmp(a[i].edge, b[i].edge,
					   a[i].nedges * sizeof(*a[i].edge))) ||
		    (a[i].ningress && memcmp(a[i].ingress, b[i].ingress,
					     a[i].ningress * sizeof(size_t))) ||
		    (a[i].nunknown && memcmp(a[i].unknown, b[i].unknown,
					     a[i].nunknown * sizeof(size_t))))
			return false;
	}
	return true;
}

TEST(parallel_and_sequential_walks_give_the_same_graphs)
{
	/*
	 * Random graphs with cycles (a random tree plus extra links), 8 to
	 * 60 routers, some declared 'none', some failing; packets inserted
	 * along random walks from r1 and windows filled to a few percent
	 * of false positives: the walk with 1, 2, 3, 8 and 64 questions at
	 * once gives the same nodes, edges, ingress, unknowns, counts and
	 * rates, in the same order.
	 */
	const size_t npk = 12;
	size_t seed, differ = 0, graphs = 0, with_unknown = 0;

	for (seed = 1; seed <= 40; seed++) {
		struct kb_rng rng;
		size_t n, i, j, len = 0, cap, extra;
		uint8_t *fails, pkt[12][36];
		struct tb_packet tp[12] = { 0 };
		struct tb_result seq[12], par[12];
		char *text, err[256];
		struct kb_topo t;
		struct mem m;
		static const unsigned int width[] = { 2, 3, 8, 64 };

		kb_rng_seed(&rng, 1000 + seed);
		n = 8 + kb_rng_below(&rng, 53);
		cap = 80 * n + 64 * 2 * n + 64;
		text = malloc(cap);
		fails = calloc(n, 1);
		for (i = 0; i < n; i++) {
			bool none = i && kb_rng_below(&rng, 10) == 0;

			len += snprintf(text + len, cap - len,
					none ? "router r%zu none\n" :
					"router r%zu netns - filter spie\n", i + 1);
			fails[i] = i && !none && kb_rng_below(&rng, 10) == 0;
		}
		for (i = 1; i < n; i++)
			len += snprintf(text + len, cap - len, "link r%zu r%zu\n",
					(size_t)kb_rng_below(&rng, i) + 1, i + 1);
		/* extra links: cycles (a pair already linked is skipped) */
		extra = n / 2;
		for (j = 0; j < extra; j++) {
			size_t a = kb_rng_below(&rng, n), b = kb_rng_below(&rng, n);
			char l1[64], l2[64];

			snprintf(l1, sizeof(l1), "link r%zu r%zu\n", a + 1, b + 1);
			snprintf(l2, sizeof(l2), "link r%zu r%zu\n", b + 1, a + 1);
			if (a == b || strstr(text, l1) || strstr(text, l2))
				continue;
			len += snprintf(text + len, cap - len, "%s", l1);
		}
		ASSERT_EQ(0, kb_topo_parse(text, "random", &t, err, sizeof(err))) {
			TH_LOG("%s", err);
		}
		mem_init(&m, n, 1, 0);
		m.fails = fails;
		for (i = 0; i < n; i++)
			fill_to(&m, i, 2, 0.02, &rng);
		for (i = 0; i < npk; i++) {
			size_t at = 0, steps = kb_rng_below(&rng, 8);

			packet_at(&rng, pkt[i], &tp[i], 25 * SEC);
			insert_packet(&m, 0, 2, pkt[i]);
			for (j = 0; j < steps && t.r[at].nnbr; j++) {
				at = t.r[at].nbr[kb_rng_below(&rng, t.r[at].nnbr)];
				insert_packet(&m, at, 2, pkt[i]);
			}
		}
		{
			struct tb_backend be = { mem_ask, &m, 1 };
			struct tb_stats s1 = { 0 };
			size_t w;

			ASSERT_EQ(0, tb_trace(&t, 0, tp, npk, 2 * SEC, &be, seq,
					      &s1, err, sizeof(err)));
			for (i = 0; i < npk; i++)
				with_unknown += seq[i].nunknown > 0 ||
						(seq[i].nnodes &&
						 seq[i].node[seq[i].nnodes - 1].unknown);
			for (w = 0; w < ARRAY_SIZE(width); w++) {
				struct tb_stats s2 = { 0 };

				be.parallel = width[w];
				ASSERT_EQ(0, tb_trace(&t, 0, tp, npk, 2 * SEC, &be,
						      par, &s2, err, sizeof(err)));
				differ += !same_results(seq, par, npk) ||
					  s1.steps != s2.steps ||
					  s1.questions != s2.questions ||
					  s1.failed != s2.failed;
				tb_results_free(par, npk);
				tb_stats_free(&s2, t.n);
			}
			tb_results_free(seq, npk);
			tb_stats_free(&s1, t.n);
		}
		graphs++;
		mem_free(&m);
		kb_topo_free(&t);
		free(text);
		free(fails);
	}
	EXPECT_EQ(0, differ);
	EXPECT_EQ(40, graphs);
	EXPECT_GT(with_unknown, 0);	/* the unknowns were exercised */
	KB_ASSERT_NO_LEAKS();
}

TEST(json_reader)
{
	static const char out[] =
		"{\"name\":\"spie\",\"type\":\"bloom\",\"bits\":65536,\"hashes\":4}\n"
		"{\"filter\":\"spie\",\"digest\":\"spie\",\"since\":null,\"until\":null,"
		"\"windows\":[{\"id\":7,\"start\":\"2026-01-01T00:00:00.000+00:00\","
		"\"start_ns\":1767225600123456789,\"end\":null,\"end_ns\":0,"
		"\"packets\":3,\"fill\":12}],"
		"\"packets\":[{\"index\":1,\"ts\":null,\"ts_ns\":0,\"description\":"
		"\"UDP \\\"a\\\" \\u0041\\n\",\"digest\":\"0x45\",\"windows\":[7],"
		"\"present\":true},{\"index\":2,\"skip\":\"short\"}],"
		"\"packets_total\":2,\"present\":1,\"absent\":0,\"skipped\":1,"
		"\"x\":[-1.5e3,true,false,[],{}]}\n";
	const struct tj *w, *p;
	struct tj *a, *b, *c;
	size_t pos = 0;
	uint64_t v;
	char err[160];

	a = tj_parse(out, strlen(out), &pos, err, sizeof(err));
	ASSERT_NE(NULL, a) TH_LOG("%s", err);
	b = tj_parse(out, strlen(out), &pos, err, sizeof(err));
	ASSERT_NE(NULL, b) TH_LOG("%s", err);
	c = tj_parse(out, strlen(out), &pos, err, sizeof(err));
	EXPECT_EQ(NULL, c);
	EXPECT_STREQ("", err);		/* the end, not an error */
	EXPECT_STREQ("bloom", tj_str(a, "type"));
	ASSERT_EQ(0, tj_u64(tj_get(a, "bits"), &v));
	EXPECT_EQ(65536, v);
	w = tj_get(b, "windows");
	ASSERT_NE(NULL, w);
	ASSERT_EQ(TJ_ARR, w->type);
	ASSERT_EQ(1, w->n);
	ASSERT_EQ(0, tj_u64(tj_get(&w->v[0], "start_ns"), &v));
	EXPECT_EQ(1767225600123456789ULL, v);	/* exact, not a double */
	EXPECT_EQ(TJ_NULL, tj_get(&w->v[0], "end")->type);
	p = tj_get(b, "packets");
	ASSERT_EQ(2, p->n);
	EXPECT_STREQ("UDP \"a\" A\n", tj_str(&p->v[0], "description"));
	EXPECT_EQ(TJ_BOOL, tj_get(&p->v[0], "present")->type);
	EXPECT_TRUE(tj_get(&p->v[0], "present")->b);
	EXPECT_EQ(NULL, tj_get(&p->v[1], "windows"));
	EXPECT_EQ(-1, tj_u64(tj_get(b, "x"), &v));
	EXPECT_EQ(-1, tj_u64(&tj_get(b, "x")->v[0], &v));	/* negative */
	tj_free(a);
	tj_free(b);

	/* errors say where */
	pos = 0;
	EXPECT_EQ(NULL, tj_parse("{\"a\" 1}", 7, &pos, err, sizeof(err)));
	EXPECT_STREQ("JSON: ':' expected at byte 5", err);
	pos = 0;
	EXPECT_EQ(NULL, tj_parse("[1,2", 4, &pos, err, sizeof(err)));
	EXPECT_STREQ("JSON: unexpected end at byte 4", err);
	pos = 0;
	EXPECT_EQ(NULL, tj_parse("[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]",
				 80, &pos, err, sizeof(err)));
	EXPECT_TRUE(strstr(err, "nested too deep") != NULL);
	pos = 0;
	EXPECT_EQ(NULL, tj_parse("\"abc", 4, &pos, err, sizeof(err)));
	EXPECT_TRUE(strstr(err, "a bad string") != NULL);
	pos = 0;
	EXPECT_EQ(NULL, tj_parse("nul", 3, &pos, err, sizeof(err)));
	KB_ASSERT_NO_LEAKS();
}

TEST_HARNESS_MAIN
