// SPDX-License-Identifier: GPL-2.0 OR MIT
/*
 * Measured false positive rates of the plain Bloom filter engine against
 * the classical approximation p = (1 - e^{-kn/m})^k, for the shapes of
 * Table 3.1 in seed 004 (m/n = 2..9, k = 1..7) and of Table 3 in seed 002
 * (n = 1500, k = 5, m = 3000..7500).
 *
 * Each cell: n present keys, Q = 10^6 keys known to be absent (a different
 * first byte), fixed hash keys, so every run measures the same numbers.
 * Two checks per cell, each a 99.9% two-sided normal bound (z = 3.29)
 * plus a continuity term 0.5/Q:
 *
 *  - against p_fill = (X/m)^k, X the cells actually set: given the filter,
 *    the positives are Binomial(Q, ~p_fill), so the bound is
 *    z sqrt(p_fill (1 - p_fill) / Q). This checks that probes of absent
 *    keys behave like independent uniform cells.
 *  - against the theory (1 - e^{-kn/m})^k: the filter itself is random
 *    too, and its fill fraction f = X/m varies around 1 - e^{-kn/m} by
 *    Var f = Var(empty cells of kn balls in m bins) / m^2, which moves
 *    p = f^k by k f^{k-1} sd(f) -- as much as the binomial term for small
 *    k at these sizes -- so the bound is z sqrt(p(1-p)/Q + (k f^{k-1})^2
 *    Var f) (Var f divided by R when R filters are averaged).
 *
 * Each cell prints "# m/n=8 k=5 theory=0.02168 seed=0.0217
 * measured=0.02171 ..." with the seed table's printed value beside.
 */
#include <math.h>

#include "kselftest_harness.h"
#include "kb_test.h"
#include "../../kmod/uapi/kbloom.h"

#define Z999	3.29		/* 99.9% two-sided */
#define Q	1000000		/* absent keys probed per cell */
#define KMAX	7

static const u8 fpr_hkey[16] = {	/* "kbloom-fpr-test!" */
	'k', 'b', 'l', 'o', 'o', 'm', '-', 'f',
	'p', 'r', '-', 't', 'e', 's', 't', '!',
};

/* Present key i and absent key i: disjoint by their first byte. */
static void present_key(u8 key[9], u64 i)
{
	key[0] = 0x50;
	kb_put_le64(key + 1, i);
}

static void absent_key(u8 key[9], u64 i)
{
	key[0] = 0xa0;
	kb_put_le64(key + 1, i);
}

static double theory_fpr(double n, double m, double k)
{
	return pow(-expm1(-k * n / m), k);
}

/*
 * Variance of the fraction of cells set by N independent uniform probes
 * into m cells: Var(E)/m^2 with E the empty cells,
 * Var E = m a + m(m-1) b - m^2 a^2, a = (1-1/m)^N, b = (1-2/m)^N,
 * written so that the near-cancellation of b - a^2 stays accurate.
 */
static double fill_var(double m, double N)
{
	double a = exp(N * log1p(-1 / m));
	double b = exp(N * log1p(-2 / m));
	double d = log1p(-2 / m) - 2 * log1p(-1 / m);
	double v = m * a + m * m * a * a * expm1(N * d) - m * b;

	return v / (m * m);
}

/* Value and 99.9% half-width: checks and the diagnostic line. */
struct fpr_check {
	double measured;
	double theory, theory_bound;
	double cond, cond_bound;
};

/* Does the seed table's printed value round to our theory? */
static bool seed_agrees(const char *seed, double theory)
{
	const char *dot = strchr(seed, '.');
	int decimals = dot ? (int)strlen(dot + 1) : 0;

	/* Allow one unit in the last printed place (seeds round loosely). */
	return fabs(atof(seed) - theory) <= pow(10, -decimals) + 1e-12;
}

static void fpr_report(struct __test_metadata *_metadata, const char *what,
		       const char *seed, const struct fpr_check *c)
{
	kb_diag("%s theory=%.5f seed=%s measured=%.5f (+-%.5f) fill-conditional=%.5f (+-%.5f)",
		what, c->theory, seed, c->measured, c->theory_bound, c->cond,
		c->cond_bound);
	EXPECT_LE(fabs(c->measured - c->theory), c->theory_bound) {
		TH_LOG("%s: measured %.5f, theory %.5f +- %.5f", what,
		       c->measured, c->theory, c->theory_bound);
	}
	EXPECT_LE(fabs(c->measured - c->cond), c->cond_bound) {
		TH_LOG("%s: measured %.5f, (fill/m)^k %.5f +- %.5f", what,
		       c->measured, c->cond, c->cond_bound);
	}
	EXPECT_TRUE(seed_agrees(seed, c->theory)) {
		TH_LOG("%s: seed table says %s, theory %.5f", what, seed,
		       c->theory);
	}
}

/*
 * One filter per k in ks[0..nk), all with the same n keys (hashed once),
 * each probed with the same Q absent keys. Fills out chk[0..nk).
 */
static void measure(struct __test_metadata *_metadata, u64 n, u64 m,
		    const u32 *ks, int nk, struct fpr_check *chk)
{
	struct kb_filter f[KMAX];
	u64 pos[KMAX] = { 0 };
	struct kb_hash h;
	u8 key[9];
	u64 i;
	int j;

	for (j = 0; j < nk; j++)
		ASSERT_EQ(0, kb_filter_init(&f[j], KBLOOM_TYPE_BLOOM, m, ks[j],
					    fpr_hkey));
	for (i = 0; i < n; i++) {
		present_key(key, i);
		kb_hash_key(&f[0].hkey, key, sizeof(key), &h);
		for (j = 0; j < nk; j++)
			kb_filter_add_hash(&f[j], &h);
	}
	for (i = 0; i < Q; i++) {
		absent_key(key, i);
		kb_hash_key(&f[0].hkey, key, sizeof(key), &h);
		for (j = 0; j < nk; j++)
			pos[j] += kb_filter_test_hash(&f[j], &h);
	}
	for (j = 0; j < nk; j++) {
		double k = ks[j], t = theory_fpr(n, m, k);
		double fbar = -expm1(-k * n / m);
		double slope = k * pow(fbar, k - 1);
		double fill = (double)kb_filter_fill(&f[j]) / m;
		double c = pow(fill, k);

		chk[j].measured = (double)pos[j] / Q;
		chk[j].theory = t;
		chk[j].theory_bound = Z999 * sqrt(t * (1 - t) / Q +
				slope * slope * fill_var(m, k * n)) + 0.5 / Q;
		chk[j].cond = c;
		chk[j].cond_bound = Z999 * sqrt(c * (1 - c) / Q) + 0.5 / Q;
		kb_filter_free(&f[j]);
	}
}

/* Seed 004, Table 3.1: one row per variant, n = 100000. */
FIXTURE(table3_1) {};
FIXTURE_SETUP(table3_1) {}
FIXTURE_TEARDOWN(table3_1) {}

FIXTURE_VARIANT(table3_1) {
	u32 ratio;		/* m/n */
	const char *seed[KMAX];	/* printed values for k = 1.. */
};

FIXTURE_VARIANT_ADD(table3_1, mn2) {
	.ratio = 2, .seed = { "0.393", "0.400" },
};
FIXTURE_VARIANT_ADD(table3_1, mn3) {
	.ratio = 3, .seed = { "0.283", "0.237", "0.253" },
};
FIXTURE_VARIANT_ADD(table3_1, mn4) {
	.ratio = 4, .seed = { "0.221", "0.155", "0.147", "0.160" },
};
FIXTURE_VARIANT_ADD(table3_1, mn5) {
	.ratio = 5,
	.seed = { "0.181", "0.109", "0.0918", "0.0919", "0.101" },
};
FIXTURE_VARIANT_ADD(table3_1, mn6) {
	.ratio = 6,
	.seed = { "0.154", "0.080", "0.061", "0.056", "0.058", "0.064" },
};
FIXTURE_VARIANT_ADD(table3_1, mn7) {
	.ratio = 7,
	.seed = { "0.133", "0.0618", "0.0423", "0.0359", "0.0347",
		  "0.0364" },
};
FIXTURE_VARIANT_ADD(table3_1, mn8) {
	.ratio = 8,
	.seed = { "0.118", "0.0489", "0.0306", "0.024", "0.0217", "0.0216",
		  "0.0229" },
};
FIXTURE_VARIANT_ADD(table3_1, mn9) {
	.ratio = 9,
	.seed = { "0.105", "0.0397", "0.0228", "0.0166", "0.0141", "0.0133",
		  "0.0135" },
};

TEST_F(table3_1, fpr)
{
	const u64 n = 100000, m = variant->ratio * n;
	struct fpr_check chk[KMAX];
	u32 ks[KMAX];
	int nk = 0, j;

	while (nk < KMAX && variant->seed[nk]) {
		ks[nk] = nk + 1;
		nk++;
	}
	measure(_metadata, n, m, ks, nk, chk);
	for (j = 0; j < nk; j++) {
		char what[64];

		snprintf(what, sizeof(what), "m/n=%u k=%u", variant->ratio,
			 ks[j]);
		fpr_report(_metadata, what, variant->seed[j], &chk[j]);
	}
	KB_ASSERT_NO_LEAKS();
}

/* Seed 002, Table 3: n = 1500, k = 5, m = 3000..7500 in steps of 500. */
static const char *const seed002[] = {
	"0.651", "0.535", "0.435", "0.351", "0.283",
	"0.228", "0.185", "0.150", "0.123", "0.101",
};

/* The same m/n ratios at n = 30000 (x20), one filter each. */
TEST(seed002_scaled)
{
	const u64 scale = 20, n = 1500 * scale;
	const u32 k = 5;
	size_t s;

	for (s = 0; s < 10; s++) {
		const u64 m = (3000 + 500 * s) * scale;
		struct fpr_check chk;
		char what[64];

		measure(_metadata, n, m, &k, 1, &chk);
		snprintf(what, sizeof(what), "n=%llu m=%llu k=%u",
			 (unsigned long long)n, (unsigned long long)m, k);
		fpr_report(_metadata, what, seed002[s], &chk);
	}
	KB_ASSERT_NO_LEAKS();
}

/*
 * The seed's own sizes, n = 1500: one such filter's FPR is mostly the
 * luck of its fill, so average R filters with different hash keys, each
 * probed with Q/R absent keys.
 */
TEST(seed002_literal)
{
	const u64 n = 1500, R = 100, q = Q / R;
	const u32 k = 5;
	struct kb_rng rng;
	size_t s;

	kb_rng_seed(&rng, 2002);
	for (s = 0; s < 10; s++) {
		const u64 m = 3000 + 500 * s;
		double t = theory_fpr(n, m, k), fbar = -expm1(-(double)k * n / m);
		double slope = k * pow(fbar, k - 1);
		double cond = 0, cond_var = 0;
		struct fpr_check chk;
		u64 pos = 0, r, i;
		char what[64];

		for (r = 0; r < R; r++) {
			struct kb_filter f;
			struct kb_hash h;
			u8 hkey[16], key[9];
			double c;

			kb_rng_bytes(&rng, hkey, sizeof(hkey));
			ASSERT_EQ(0, kb_filter_init(&f, KBLOOM_TYPE_BLOOM, m, k,
						    hkey));
			for (i = 0; i < n; i++) {
				present_key(key, i);
				kb_filter_add(&f, key, sizeof(key));
			}
			for (i = 0; i < q; i++) {
				absent_key(key, i);
				kb_hash_key(&f.hkey, key, sizeof(key), &h);
				pos += kb_filter_test_hash(&f, &h);
			}
			c = pow((double)kb_filter_fill(&f) / m, k);
			cond += c / R;
			cond_var += c * (1 - c) / q / (R * R);
			kb_filter_free(&f);
		}
		chk.measured = (double)pos / Q;
		chk.theory = t;
		chk.theory_bound = Z999 * sqrt(t * (1 - t) / Q + slope * slope *
					       fill_var(m, k * n) / R) + 0.5 / Q;
		chk.cond = cond;
		chk.cond_bound = Z999 * sqrt(cond_var) + 0.5 / Q;
		snprintf(what, sizeof(what), "n=%llu m=%llu k=%u (%llu filters)",
			 (unsigned long long)n, (unsigned long long)m, k,
			 (unsigned long long)R);
		fpr_report(_metadata, what, seed002[s], &chk);
	}
	KB_ASSERT_NO_LEAKS();
}

TEST_HARNESS_MAIN
