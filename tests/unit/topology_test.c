// SPDX-License-Identifier: GPL-2.0 OR MIT
/*
 * Host tests of the topology file of 'bloomctl trace'
 * (userspace/topology.c, docs/trace.md): every statement and keyword, and
 * errors that name the file and the line.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "kselftest_harness.h"

#include "../../userspace/topology.h"

/* Parses @text as "dir/topo.txt"; the error, if any, in @err. */
static int parse(const char *text, struct kb_topo *t, char *err)
{
	err[0] = 0;
	return kb_topo_parse(text, "dir/topo.txt", t, err, 512);
}

/* @text must fail with an error starting with @want. */
static int refused(const char *text, const char *want)
{
	struct kb_topo t;
	char err[512];

	if (!parse(text, &t, err)) {
		fprintf(stderr, "# accepted: %s\n", text);
		kb_topo_free(&t);
		return 0;
	}
	if (strncmp(err, want, strlen(want))) {
		fprintf(stderr, "# want '%s...', got '%s'\n", want, err);
		return 0;
	}
	return 1;
}

static int has_nbr(const struct kb_topo *t, const char *a, const char *b)
{
	long i = kb_topo_find(t, a), j = kb_topo_find(t, b);
	size_t k;

	if (i < 0 || j < 0)
		return 0;
	for (k = 0; k < t->r[i].nnbr; k++)
		if (t->r[i].nbr[k] == (size_t)j)
			return 1;
	return 0;
}

TEST(every_statement)
{
	static const char text[] =
		"# a comment line\n"
		"\n"
		"router r1 netns ns1 filter spie   # trailing comment\n"
		"router r2\tnetns - filter f.2\r\n"
		"router r3 archive arch filter spie\n"
		"router r4 archive /abs/arch filter spie\n"
		"router r5 ssh root@10.0.0.2 filter spie netns rr5 port 2222 identity keys/id config /etc/ssh.conf bloomctl /opt/bloomctl\n"
		"router r6 ssh host filter spie transforms xlate\n"
		"router r0 ssh ops.team_1@fe80::1%eth0 filter spie\n"
		"link r1 r2\n"
		"link r2 r3\n"
		"  link r3 r4\n"
		"link r2 r5\n"
		"link r6 r5\n"
		"link r1 r7\n"		/* r7 declared below the link */
		"router r7 netns ns7 filter spie\n";
	struct kb_topo t;
	char err[512];
	const struct kb_topo_router *r;

	ASSERT_EQ(0, parse(text, &t, err)) TH_LOG("%s", err);
	ASSERT_EQ(8, t.n);
	EXPECT_EQ(6, t.nlinks);

	r = &t.r[kb_topo_find(&t, "r1")];
	EXPECT_EQ(KB_TOPO_NETNS, r->kind);
	EXPECT_STREQ("ns1", r->netns);
	EXPECT_STREQ("spie", r->filter);
	EXPECT_EQ(3, r->line);

	r = &t.r[kb_topo_find(&t, "r2")];
	EXPECT_EQ(KB_TOPO_NETNS, r->kind);
	EXPECT_EQ(NULL, r->netns);	/* '-': this namespace */
	EXPECT_STREQ("f.2", r->filter);

	r = &t.r[kb_topo_find(&t, "r3")];
	EXPECT_EQ(KB_TOPO_ARCHIVE, r->kind);
	EXPECT_STREQ("dir/arch", r->dir);	/* relative to the file */
	r = &t.r[kb_topo_find(&t, "r4")];
	EXPECT_STREQ("/abs/arch", r->dir);

	r = &t.r[kb_topo_find(&t, "r5")];
	EXPECT_EQ(KB_TOPO_SSH, r->kind);
	EXPECT_STREQ("root@10.0.0.2", r->host);
	EXPECT_STREQ("rr5", r->netns);
	EXPECT_EQ(2222, r->port);
	EXPECT_STREQ("dir/keys/id", r->identity);
	EXPECT_STREQ("/etc/ssh.conf", r->config);
	EXPECT_STREQ("/opt/bloomctl", r->bloomctl);

	r = &t.r[kb_topo_find(&t, "r0")];
	EXPECT_STREQ("ops.team_1@fe80::1%eth0", r->host);

	r = &t.r[kb_topo_find(&t, "r6")];
	EXPECT_STREQ("bloomctl", r->bloomctl);	/* the remote PATH's */
	EXPECT_EQ(0, r->port);
	EXPECT_EQ(NULL, r->identity);
	EXPECT_EQ(NULL, r->netns);
	EXPECT_STREQ("xlate", r->transforms);	/* read over ssh too */

	EXPECT_TRUE(has_nbr(&t, "r1", "r2"));
	EXPECT_TRUE(has_nbr(&t, "r2", "r1"));	/* undirected */
	EXPECT_TRUE(has_nbr(&t, "r3", "r4"));
	EXPECT_TRUE(has_nbr(&t, "r5", "r6"));
	EXPECT_TRUE(has_nbr(&t, "r7", "r1"));
	EXPECT_FALSE(has_nbr(&t, "r1", "r3"));
	EXPECT_EQ(-1, kb_topo_find(&t, "r8"));
	kb_topo_free(&t);
}

TEST(no_directory_in_the_path)
{
	struct kb_topo t;
	char err[512];

	ASSERT_EQ(0, kb_topo_parse("router a archive arch filter f\n",
				   "topo", &t, err, sizeof(err)));
	EXPECT_STREQ("arch", t.r[0].dir);
	kb_topo_free(&t);
}

TEST(a_file_without_final_newline_and_one_router)
{
	struct kb_topo t;
	char err[512];

	ASSERT_EQ(0, parse("router only netns x filter f", &t, err));
	EXPECT_EQ(1, t.n);
	EXPECT_EQ(0, t.r[0].nnbr);
	kb_topo_free(&t);
}

TEST(errors_name_file_and_line)
{
	EXPECT_TRUE(refused("router r1 netns a filter f\nbogus r1\n",
			    "dir/topo.txt:2: unknown statement 'bogus'"));
	EXPECT_TRUE(refused("# c\n\nrouter\n", "dir/topo.txt:3: router: missing NAME"));
	EXPECT_TRUE(refused("router r1\n", "dir/topo.txt:1: router r1: missing where"));
	EXPECT_TRUE(refused("router r1 netns\n", "dir/topo.txt:1: router r1: missing its argument"));
	EXPECT_TRUE(refused("router r1 tunnel x filter f\n",
			    "dir/topo.txt:1: router r1: unknown location 'tunnel'"));
	EXPECT_TRUE(refused("router r1 netns a\n",
			    "dir/topo.txt:1: router r1: missing 'filter FILTER'"));
	EXPECT_TRUE(refused("router r1 netns a filter\n",
			    "dir/topo.txt:1: router r1: 'filter' needs a value"));
	EXPECT_TRUE(refused("router r1 netns a filter f filter g\n",
			    "dir/topo.txt:1: router r1: 'filter' given twice"));
	EXPECT_TRUE(refused("router r1 netns a filter f colour red\n",
			    "dir/topo.txt:1: router r1: unknown keyword 'colour'"));
	EXPECT_TRUE(refused("router r1 netns a filter f port 22\n",
			    "dir/topo.txt:1: router r1: 'port' is for ssh routers only"));
	EXPECT_TRUE(refused("router r1 archive d filter f bloomctl /x\n",
			    "dir/topo.txt:1: router r1: 'bloomctl' is for ssh routers only"));
	EXPECT_TRUE(refused("router r1 netns a filter bad/name\n",
			    "dir/topo.txt:1: router r1: invalid filter name 'bad/name'"));
	EXPECT_TRUE(refused("router r1 netns a filter 0123456789012345678901234567890123\n",
			    "dir/topo.txt:1: router r1: invalid filter name"));
	EXPECT_TRUE(refused("router r/1 netns a filter f\n",
			    "dir/topo.txt:1: invalid router name 'r/1'"));
	EXPECT_TRUE(refused("router r0123456789012345678901234567890 netns a filter f\n",
			    "dir/topo.txt:1: invalid router name"));
	EXPECT_TRUE(refused("router r1 netns a/b filter f\n",
			    "dir/topo.txt:1: router r1: invalid network namespace 'a/b'"));
	EXPECT_TRUE(refused("router r1 netns .. filter f\n",
			    "dir/topo.txt:1: router r1: invalid network namespace '..'"));
	EXPECT_TRUE(refused("router r1 netns a filter f\nrouter r1 netns b filter f\n",
			    "dir/topo.txt:2: router 'r1' declared twice (first on line 1)"));
	EXPECT_TRUE(refused("router r1 ssh -oProxyCommand=x filter f\n",
			    "dir/topo.txt:1: router r1: invalid ssh destination '-oProxyCommand=x'"));
	EXPECT_TRUE(refused("router r1 ssh root@ filter f\n",
			    "dir/topo.txt:1: router r1: invalid ssh destination"));
	/* Only [USER@]HOST: no URI, no second '@', no shell or config syntax. */
	EXPECT_TRUE(refused("router r1 ssh ssh://root@h filter f\n",
			    "dir/topo.txt:1: router r1: invalid ssh destination 'ssh://root@h' ([USER@]HOST"));
	EXPECT_TRUE(refused("router r1 ssh a@b@c filter f\n",
			    "dir/topo.txt:1: router r1: invalid ssh destination 'a@b@c'"));
	EXPECT_TRUE(refused("router r1 ssh h;reboot filter f\n",
			    "dir/topo.txt:1: router r1: invalid ssh destination 'h;reboot'"));
	EXPECT_TRUE(refused("router r1 ssh root@-oProxyCommand=x filter f\n",
			    "dir/topo.txt:1: router r1: invalid ssh destination 'root@-oProxyCommand=x'"));
	EXPECT_TRUE(refused("router r1 ssh -l@h filter f\n",
			    "dir/topo.txt:1: router r1: invalid ssh destination '-l@h'"));
	EXPECT_TRUE(refused("router r1 ssh h filter f port 0\n",
			    "dir/topo.txt:1: router r1: invalid port '0'"));
	EXPECT_TRUE(refused("router r1 ssh h filter f port 65536\n",
			    "dir/topo.txt:1: router r1: invalid port '65536'"));
	EXPECT_TRUE(refused("router r1 ssh h filter f port 22x\n",
			    "dir/topo.txt:1: router r1: invalid port '22x'"));
	EXPECT_TRUE(refused("router r1 ssh h filter f netns a/b\n",
			    "dir/topo.txt:1: router r1: invalid network namespace 'a/b'"));
	EXPECT_TRUE(refused("router r1 netns a filter f\nlink r1\n",
			    "dir/topo.txt:2: link: needs two router names"));
	EXPECT_TRUE(refused("router r1 netns a filter f\nlink r1 r2 r3\n",
			    "dir/topo.txt:2: link: too many words"));
	EXPECT_TRUE(refused("router r1 netns a filter f\nlink r1 r1\n",
			    "dir/topo.txt:2: link: a router linked to itself ('r1')"));
	EXPECT_TRUE(refused("router r1 netns a filter f\n\nlink r1 r9\n",
			    "dir/topo.txt:3: link: no router 'r9' in this file"));
	EXPECT_TRUE(refused("router r1 netns a filter f\nrouter r2 netns b filter f\n"
			    "link r1 r2\n# again\nlink r2 r1\n",
			    "dir/topo.txt:5: link r2 r1 given twice (first on line 3)"));
	EXPECT_TRUE(refused("router r1 none filter f\n",
			    "dir/topo.txt:1: router r1: 'none' (a router that records nothing) takes nothing after it, not 'filter'"));
	EXPECT_TRUE(refused("router r1 none\nrouter r1 none\n",
			    "dir/topo.txt:2: router 'r1' declared twice (first on line 1)"));
	/* the first repeated link in file order, whatever the names' order */
	EXPECT_TRUE(refused("router a netns x filter f\nrouter b netns x filter f\n"
			    "router c netns x filter f\nlink b c\nlink a b\n"
			    "link b a\nlink c b\n",
			    "dir/topo.txt:6: link b a given twice (first on line 5)"));
	EXPECT_TRUE(refused("# nothing\n\n", "dir/topo.txt: no router in the file"));
	EXPECT_TRUE(refused("", "dir/topo.txt: no router in the file"));
}

TEST(a_router_that_records_nothing)
{
	struct kb_topo t;
	char err[512], buf[64];
	const struct kb_topo_router *r;

	ASSERT_EQ(0, parse("router r1 netns a filter f\nrouter r2 none  # no kbloom\n"
			   "link r1 r2\n", &t, err)) TH_LOG("%s", err);
	r = &t.r[kb_topo_find(&t, "r2")];
	EXPECT_EQ(KB_TOPO_NONE, r->kind);
	EXPECT_EQ(NULL, r->filter);
	EXPECT_EQ(2, r->line);
	EXPECT_STREQ("none", kb_topo_where(r, buf, sizeof(buf)));
	EXPECT_TRUE(has_nbr(&t, "r1", "r2"));
	kb_topo_free(&t);
}

/* Appends to a growing buffer. */
static void put(char **s, size_t *len, size_t *cap, const char *fmt, size_t a,
		size_t b)
{
	int n;

	for (;;) {
		n = snprintf(*s + *len, *cap - *len, fmt, a, b);
		if ((size_t)n < *cap - *len)
			break;
		*cap *= 2;
		*s = realloc(*s, *cap);
		if (!*s)
			abort();
	}
	*len += n;
}

TEST(large_and_dense_topologies_parse_in_good_time)
{
	/*
	 * 100 000 routers in a chain plus a hub linked to all of them
	 * (200 000 links, one router of degree 100 000), and 400 routers
	 * all linked to each other (79 800 links): names are found by hash
	 * and repeated links by sorting, so this takes well under a second,
	 * not the hours of a scan per name and per link.
	 */
	size_t len = 0, cap = 1 << 20, i, j;
	char *s = malloc(cap), err[512];
	struct kb_topo t;
	clock_t c0 = clock();

	ASSERT_NE(NULL, s);
	s[0] = 0;
	put(&s, &len, &cap, "router hub netns - filter f\n", 0, 0);
	for (i = 0; i < 100000; i++)
		put(&s, &len, &cap, "router r%zu archive d%zu filter f\n", i, i);
	for (i = 0; i < 100000; i++) {
		put(&s, &len, &cap, "link hub r%zu\n", i, 0);
		if (i)
			put(&s, &len, &cap, "link r%zu r%zu\n", i - 1, i);
	}
	ASSERT_EQ(0, parse(s, &t, err)) TH_LOG("%s", err);
	EXPECT_EQ(100001, t.n);
	EXPECT_EQ(199999, t.nlinks);
	EXPECT_EQ(100000, t.r[0].nnbr);
	EXPECT_EQ(100000, kb_topo_find(&t, "r99999"));
	EXPECT_EQ(-1, kb_topo_find(&t, "r100000"));
	kb_topo_free(&t);
	/* the same with one link repeated at the end */
	put(&s, &len, &cap, "link r%zu hub\n", 5, 0);
	ASSERT_EQ(-1, parse(s, &t, err));
	EXPECT_TRUE(strstr(err, ":300001: link r5 hub given twice (first on line 100011)") != NULL)
		TH_LOG("%s", err);

	len = 0;
	s[0] = 0;
	for (i = 0; i < 400; i++)
		put(&s, &len, &cap, "router k%zu none\n", i, 0);
	for (i = 0; i < 400; i++)
		for (j = i + 1; j < 400; j++)
			put(&s, &len, &cap, "link k%zu k%zu\n", i, j);
	ASSERT_EQ(0, parse(s, &t, err)) TH_LOG("%s", err);
	EXPECT_EQ(79800, t.nlinks);
	EXPECT_EQ(399, t.r[7].nnbr);
	kb_topo_free(&t);
	free(s);
	EXPECT_LT((double)(clock() - c0) / CLOCKS_PER_SEC, 5.0);
}

TEST(load_from_a_file)
{
	char path[] = "/tmp/kb-topo-XXXXXX", err[512];
	struct kb_topo t;
	FILE *f;
	int fd;

	fd = mkstemp(path);
	ASSERT_LE(0, fd);
	f = fdopen(fd, "w");
	ASSERT_NE(NULL, f);
	fputs("router a netns na filter f\nrouter b netns nb filter f\nlink a b\nlink a c\n", f);
	fclose(f);
	ASSERT_EQ(-1, kb_topo_load(path, &t, err, sizeof(err)));
	EXPECT_TRUE(strstr(err, ":4: link: no router 'c'") != NULL) TH_LOG("%s", err);
	EXPECT_EQ(0, strncmp(err, path, strlen(path)));
	unlink(path);
	ASSERT_EQ(-1, kb_topo_load("/nonexistent/topo", &t, err, sizeof(err)));
	EXPECT_STREQ("/nonexistent/topo: No such file or directory", err);
}

TEST_HARNESS_MAIN
