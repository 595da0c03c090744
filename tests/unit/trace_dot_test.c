// SPDX-License-Identifier: GPL-2.0 OR MIT
/*
 * Host tests of the DOT picture of 'bloomctl trace' (userspace/trace_dot.c,
 * docs/trace.md "The attack as a picture"): the exact graph for a small
 * topology and a hand-made result, and DOT quoting of names and reasons
 * that hold quotes, backslashes and newlines.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "kselftest_harness.h"

#include "../../userspace/trace_dot.h"

/*
 *   r1 (from)
 *   |-- r2    window 3, SNAT undone
 *   |   `-- r4 (renamed r"4\x)  ingress
 *   `-- r3    none: unknown next to the path
 *       `-- r5 not reached
 */
static const char topo_text[] =
	"router r1 netns n1 filter spie\n"
	"router r2 netns n2 filter spie\n"
	"router r3 none\n"
	"router r4 netns n4 filter spie\n"
	"router r5 netns n5 filter spie\n"
	"link r1 r2\n"
	"link r1 r3\n"
	"link r2 r4\n"
	"link r3 r5\n";

/* @t's output for @n results, in a malloc'ed string. */
static char *render(const struct kb_topo *t, const struct tb_result *const *r,
		    size_t n, char *const *why, const char *title)
{
	char *buf = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&buf, &len);

	if (!f)
		return NULL;
	if (trace_dot_write(f, t, 0, r, n, why, title)) {
		fclose(f);
		free(buf);
		return NULL;
	}
	fclose(f);
	return buf;
}

/* The result of one packet: r4 > r2 > r1, r3 unknown next to the path. */
static struct tb_node nodes[] = {
	{ .router = 0, .depth = 0, .win = { .id = 7 }, .fpr = 0.001 },
	{ .router = 1, .depth = 1, .win = { .id = 3 }, .fpr = 0.00215,
	  .xf = "SNAT 100.64.0.1:61000 <- 10.9.0.5:4000 (window 3); GRE 10.0.1.2 > 10.0.1.1 id 9 (window 3)" },
	{ .router = 3, .depth = 2, .win = { .id = 2 }, .fpr = 0.0005 },
};
static struct tb_edge edges[] = { { 1, 0 }, { 2, 1 } };
static size_t ingress[] = { 2 };
static size_t unknown[] = { 2 };

static const struct tb_result one = {
	.status = TB_TRACED, .node = nodes, .nnodes = 3, .edge = edges,
	.nedges = 2, .ingress = ingress, .ningress = 1, .unknown = unknown,
	.nunknown = 1,
};

TEST(one_packet_exact)
{
	static const char want[] =
		"digraph trace {\n"
		"  rankdir=BT;\n"
		"  nodesep=0.35;\n"
		"  ranksep=0.45;\n"
		"  labelloc=t;\n"
		"  fontname=\"Helvetica\";\n"
		"  fontsize=14;\n"
		"  label=\"trace from r1: packet 1, \\\"odd\\\" \\\\ title\";\n"
		"  node [shape=box, style=rounded, fontname=\"Helvetica\", fontsize=11, color=grey70, fontcolor=grey55];\n"
		"  edge [dir=none, color=grey80, fontname=\"Helvetica\", fontsize=10];\n"
		"  \"r1\" [label=\"r1\\nfrom (next to the victim)\\nwindow 7, fpr 0.001\", color=black, fontcolor=black, group=path, penwidth=2.5];\n"
		"  \"r2\" [label=\"r2\\nwindow 3, fpr 0.00215\\nSNAT 100.64.0.1:61000 <- 10.9.0.5:4000 (window 3)\\nGRE 10.0.1.2 > 10.0.1.1 id 9 (window 3)\", color=black, fontcolor=black, group=path];\n"
		"  \"r3\" [label=\"r3\\nunknown next to the path: declared \\\"none\\\" in C:\\\\topo\", style=\"rounded,dashed\", color=\"#e69138\", fontcolor=\"#b45f06\"];\n"
		"  \"r\\\"4\\\\x\" [label=\"r\\\"4\\\\x\\nwindow 2, fpr 0.0005\\ningress\", style=\"rounded,filled\", fillcolor=\"#f4cccc\", color=\"#cc0000\", fontcolor=black, peripheries=2, group=path];\n"
		"  \"r5\" [label=\"r5\"];\n"
		"  \"r2\" -> \"r1\" [dir=forward, color=\"#cc0000\", penwidth=2.5];\n"
		"  \"r3\" -> \"r1\";\n"
		"  \"r\\\"4\\\\x\" -> \"r2\" [dir=forward, color=\"#cc0000\", penwidth=2.5];\n"
		"  \"r5\" -> \"r3\";\n"
		"}\n";
	const struct tb_result *r[] = { &one };
	char *why[5] = { NULL, NULL, "declared \"none\" in C:\\topo" };
	struct kb_topo t;
	char err[256], *got;

	ASSERT_EQ(0, kb_topo_parse(topo_text, "topo.txt", &t, err, sizeof(err)));
	strcpy(t.r[3].name, "r\"4\\x");	/* beyond what the parser allows */
	got = render(&t, r, 1, why, "trace from r1: packet 1, \"odd\" \\ title");
	ASSERT_NE(NULL, got);
	if (strcmp(got, want))
		fprintf(stderr, "# got:\n%s", got);
	EXPECT_STREQ(want, got);
	free(got);
	kb_topo_free(&t);
}

/*
 * Two packets over the same path, r2 in different windows and rates:
 * the windows listed, the highest rate "up to", counts on the nodes and
 * the edges, transforms counted rather than spelt out; no title.
 */
TEST(two_packets_counted)
{
	struct tb_node n2[3];
	struct tb_result two = one;
	const struct tb_result *r[] = { &one, &two };
	struct kb_topo t;
	char err[256], *got;

	memcpy(n2, nodes, sizeof(n2));
	n2[1].win.id = 4;
	n2[1].fpr = 0.003;
	n2[1].xf = NULL;
	two.node = n2;
	ASSERT_EQ(0, kb_topo_parse(topo_text, "topo.txt", &t, err, sizeof(err)));
	got = render(&t, r, 2, NULL, NULL);
	ASSERT_NE(NULL, got);
	EXPECT_EQ(NULL, strstr(got, "label=\"trace"));
	EXPECT_NE(NULL, strstr(got, "  \"r2\" [label=\"r2\\nwindows 3, 4, fpr up to 0.003\\n2 of 2 packets\\ntransforms undone: 1 packet\", color=black, fontcolor=black, group=path];\n"));
	EXPECT_NE(NULL, strstr(got, "  \"r1\" [label=\"r1\\nfrom (next to the victim)\\nwindow 7, fpr 0.001\\n2 of 2 packets\", color=black, fontcolor=black, group=path, penwidth=2.5];\n"));
	EXPECT_NE(NULL, strstr(got, "  \"r4\" [label=\"r4\\nwindow 2, fpr 0.0005\\n2 of 2 packets\\ningress of 2\", "));
	EXPECT_NE(NULL, strstr(got, "  \"r3\" [label=\"r3\\nunknown next to the path: not asked\", "));
	EXPECT_NE(NULL, strstr(got, "  \"r2\" -> \"r1\" [dir=forward, color=\"#cc0000\", penwidth=2.5, label=\" 2\", fontcolor=\"#cc0000\"];\n"));
	free(got);
	kb_topo_free(&t);
}

/*
 * Nothing traced: the walk asked FROM only, so FROM alone is drawn, grey,
 * and the label says what was left out.
 */
TEST(nothing_traced_only_from)
{
	struct tb_result absent = { .status = TB_ABSENT };
	const struct tb_result *r[] = { &absent };
	struct kb_topo t;
	char err[256], *got;

	ASSERT_EQ(0, kb_topo_parse(topo_text, "topo.txt", &t, err, sizeof(err)));
	got = render(&t, r, 1, NULL, "t");
	ASSERT_NE(NULL, got);
	EXPECT_EQ(NULL, strstr(got, "#cc0000"));
	EXPECT_NE(NULL, strstr(got, "  label=\"t\\n4 of 5 routers and 4 links not drawn: not asked\";\n"));
	EXPECT_NE(NULL, strstr(got, "  \"r1\" [label=\"r1\\nfrom (next to the victim)\", penwidth=2.5];\n}\n"));
	EXPECT_EQ(NULL, strstr(got, "\"r2\""));
	free(got);
	kb_topo_free(&t);
}

/*
 * A line r1 - r2 - ... - r8 with the packet at r1 and r2 only: the walk
 * asked r1, r2 and r3 (r2's neighbour, absent). r4 to r8 and the links
 * beyond r3 are left out, said so in the label (no title given).
 */
TEST(only_what_the_walk_asked)
{
	static const char line8[] =
		"router r1 netns a filter f\nrouter r2 netns a filter f\n"
		"router r3 netns a filter f\nrouter r4 netns a filter f\n"
		"router r5 netns a filter f\nrouter r6 netns a filter f\n"
		"router r7 netns a filter f\nrouter r8 netns a filter f\n"
		"link r1 r2\nlink r2 r3\nlink r3 r4\nlink r4 r5\n"
		"link r5 r6\nlink r6 r7\nlink r7 r8\n";
	struct tb_node nd[] = {
		{ .router = 0, .depth = 0, .win = { .id = 1 } },
		{ .router = 1, .depth = 1, .win = { .id = 1 } },
	};
	struct tb_edge ed[] = { { 1, 0 } };
	size_t ing[] = { 1 };
	struct tb_result two = {
		.status = TB_TRACED, .node = nd, .nnodes = 2, .edge = ed,
		.nedges = 1, .ingress = ing, .ningress = 1,
	};
	const struct tb_result *r[] = { &two };
	struct kb_topo t;
	char err[256], *got;

	ASSERT_EQ(0, kb_topo_parse(line8, "line8", &t, err, sizeof(err)));
	got = render(&t, r, 1, NULL, NULL);
	ASSERT_NE(NULL, got);
	EXPECT_NE(NULL, strstr(got, "  label=\"5 of 8 routers and 5 links not drawn: not asked\";\n"));
	EXPECT_NE(NULL, strstr(got, "  \"r3\" [label=\"r3\"];\n"));
	EXPECT_NE(NULL, strstr(got, "  \"r3\" -> \"r2\";\n}\n"));
	EXPECT_EQ(NULL, strstr(got, "\"r4\""));
	free(got);
	kb_topo_free(&t);
}

TEST(quote)
{
	char *buf = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&buf, &len);

	ASSERT_NE(NULL, f);
	trace_dot_quote(f, "a\"b\\c\nd -> {e};");
	fclose(f);
	EXPECT_STREQ("\"a\\\"b\\\\c\\nd -> {e};\"", buf);
	free(buf);
}

TEST_HARNESS_MAIN
