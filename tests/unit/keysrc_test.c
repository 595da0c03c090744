// SPDX-License-Identifier: GPL-2.0 OR MIT
/*
 * Keys from a file (userspace/keysrc.c): lines are found in a 64 KiB read
 * buffer, so the cases that matter are the buffer's edges and the line
 * length limit.
 *
 *   file or pipe --read(2)--> rbuf [ ... line\n line\n li| ] --> key_parse
 *                                                        ^ refill here
 */
#include <signal.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include "kselftest_harness.h"

#include "keysrc.h"

static char usage_msg[512];

/* bloomctl.c's; keysrc only calls it for a malformed command line. */
void usage_errorf(const char *cmd, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(usage_msg, sizeof(usage_msg), fmt, ap);
	va_end(ap);
	fprintf(stderr, "%s: %s\n", cmd, usage_msg);
}

/* Opens @path (or "-") as `add f -f PATH` would. */
static int src_open(struct keysrc *s, const char *path)
{
	char *argv[] = { "add", "f", "-f", (char *)path, NULL };
	const char *name;

	if (keysrc_init(s, 4, argv, &name))
		return -1;
	return keysrc_open(s);
}

static char *tmpfile_with(const char *data, size_t len)
{
	static char path[64];
	int fd;

	strcpy(path, "/tmp/keysrc_test.XXXXXX");
	fd = mkstemp(path);
	if (fd < 0 || write(fd, data, len) != (ssize_t)len)
		return NULL;
	close(fd);
	return path;
}

/* "0x" + 2 * @bytes hex digits (byte i = i & 0xff) + @tail. */
static size_t hex_line(char *out, size_t bytes, const char *tail)
{
	size_t i, n = 0;

	n += sprintf(out, "0x");
	for (i = 0; i < bytes; i++)
		n += sprintf(out + n, "%02x", (unsigned int)(i & 0xff));
	n += sprintf(out + n, "%s", tail);
	return n;
}

TEST(lines_across_the_read_buffer_edges)
{
	/* 3-17 byte keys: every alignment of a line against 64 KiB */
	size_t cap = 8 << 20, len = 0, i, n = 40000;
	char *data = malloc(cap), *path;
	struct keysrc s;

	ASSERT_NE(NULL, data);
	for (i = 0; i < n; i++)
		len += sprintf(data + len, "key-%zu-%.*s\n", i,
			       (int)(i % 11), "abcdefghijk");
	path = tmpfile_with(data, len);
	ASSERT_NE(NULL, path);
	ASSERT_GT(len, 4 * KEYSRC_READ_BUF);
	ASSERT_EQ(0, src_open(&s, path));
	for (i = 0; i < n; i++) {
		char want[64];
		int wl = sprintf(want, "key-%zu-%.*s", i, (int)(i % 11),
				 "abcdefghijk");

		ASSERT_EQ(1, keysrc_next(&s));
		ASSERT_EQ(wl, s.keylen);
		ASSERT_EQ(0, memcmp(want, s.key, wl));
		ASSERT_EQ(i + 1, s.line);
	}
	ASSERT_EQ(0, keysrc_next(&s));
	keysrc_close(&s);
	unlink(path);
	free(data);
}

TEST(last_line_without_newline_and_crlf)
{
	const char data[] = "a\r\nbb\r\nccc";
	char *path = tmpfile_with(data, sizeof(data) - 1);
	struct keysrc s;

	ASSERT_EQ(0, src_open(&s, path));
	ASSERT_EQ(1, keysrc_next(&s));
	ASSERT_EQ(1, s.keylen);
	ASSERT_EQ(1, keysrc_next(&s));
	ASSERT_EQ(2, s.keylen);
	ASSERT_EQ(0, memcmp("bb", s.key, 2));
	ASSERT_EQ(1, keysrc_next(&s));
	ASSERT_EQ(3, s.keylen);
	ASSERT_EQ(0, memcmp("ccc", s.key, 3));
	ASSERT_EQ(0, keysrc_next(&s));
	keysrc_close(&s);
	unlink(path);
}

TEST(longest_key_line_with_cr_is_taken)
{
	/* KEYSRC_LINE_MAX = "0x", 2 digits a byte of KBLOOM_KEY_MAX, "\r" */
	char *line = malloc(KEYSRC_LINE_MAX + 16), *path;
	size_t n = hex_line(line, KBLOOM_KEY_MAX, "\r\n");
	struct keysrc s;

	ASSERT_EQ(KEYSRC_LINE_MAX + 1, n);
	path = tmpfile_with(line, n);
	ASSERT_EQ(0, src_open(&s, path));
	ASSERT_EQ(1, keysrc_next(&s));
	ASSERT_EQ(KBLOOM_KEY_MAX, s.keylen);
	ASSERT_EQ(0xff, s.key[255]);
	ASSERT_EQ(0, keysrc_next(&s));
	keysrc_close(&s);
	unlink(path);
	free(line);
}

TEST(one_byte_longer_is_refused)
{
	char *line = malloc(KEYSRC_LINE_MAX + 16), *path;
	size_t n = hex_line(line, KBLOOM_KEY_MAX, "\r\r\n");
	struct keysrc s;

	path = tmpfile_with(line, n);
	ASSERT_EQ(0, src_open(&s, path));
	ASSERT_EQ(-1, keysrc_next(&s));
	keysrc_close(&s);
	unlink(path);
	free(line);
}

TEST(an_empty_line_is_refused)
{
	char *path = tmpfile_with("a\n\nb\n", 5);
	struct keysrc s;

	ASSERT_EQ(0, src_open(&s, path));
	ASSERT_EQ(1, keysrc_next(&s));
	ASSERT_EQ(-1, keysrc_next(&s));
	ASSERT_EQ(2, s.line);
	keysrc_close(&s);
	unlink(path);
}

/*
 * A key comes out as soon as its line is in the pipe: the reader must not
 * wait for a full buffer or the end of the stream.
 */
TEST(a_pipe_streams_line_by_line)
{
	int data[2], go[2], saved;
	struct keysrc s;
	char c = 0;
	pid_t pid;

	ASSERT_EQ(0, pipe(data));
	ASSERT_EQ(0, pipe(go));
	pid = fork();
	ASSERT_LE(0, pid);
	if (!pid) {
		close(data[0]);
		close(go[1]);
		if (write(data[1], "first\n", 6) != 6 ||
		    read(go[0], &c, 1) != 1 ||
		    write(data[1], "second\n", 7) != 7)
			_exit(1);
		_exit(0);
	}
	close(data[1]);
	close(go[0]);
	saved = dup(STDIN_FILENO);
	ASSERT_EQ(STDIN_FILENO, dup2(data[0], STDIN_FILENO));
	close(data[0]);
	ASSERT_EQ(0, src_open(&s, "-"));
	alarm(10);	/* a reader waiting for more fails by SIGALRM */
	ASSERT_EQ(1, keysrc_next(&s));
	ASSERT_EQ(0, memcmp("first", s.key, 5));
	ASSERT_EQ(1, write(go[1], "x", 1));
	ASSERT_EQ(1, keysrc_next(&s));
	ASSERT_EQ(0, memcmp("second", s.key, 6));
	ASSERT_EQ(0, keysrc_next(&s));
	alarm(0);
	keysrc_close(&s);
	dup2(saved, STDIN_FILENO);
	close(saved);
	close(go[1]);
	waitpid(pid, NULL, 0);
}

/* keysrc_init() on the words of @line (up to 8); 0 or -1. */
static int init_words(struct keysrc *s, char *line)
{
	char *argv[9] = { 0 }, *save = NULL;
	const char *name;
	int argc = 0;

	for (char *w = strtok_r(line, " ", &save); w && argc < 8;
	     w = strtok_r(NULL, " ", &save))
		argv[argc++] = w;
	usage_msg[0] = 0;
	return keysrc_init(s, argc, argv, &name);
}

/*
 * A mistyped option never becomes a key (a filter cannot take it back):
 * a word starting with '-' among the keys is refused, naming it, unless
 * the keys follow "--".
 */
TEST(an_option_typo_is_not_a_key)
{
	struct keysrc s;
	char l1[] = "add seen --file keys.txt", l2[] = "add seen keys.txt -F",
	     l3[] = "add seen a - b", l4[] = "add seen -- --file -F",
	     l5[] = "test seen 0x2d2d66696c65 plain";

	EXPECT_EQ(-1, init_words(&s, l1));
	EXPECT_STREQ("'--file' looks like an option, not a key (keys starting with '-' go after '--', or in hex: 0x2d...)",
		     usage_msg);
	EXPECT_EQ(-1, init_words(&s, l2));
	EXPECT_NE(NULL, strstr(usage_msg, "'-F' looks like an option"));
	EXPECT_EQ(-1, init_words(&s, l3));
	EXPECT_NE(NULL, strstr(usage_msg, "'-' looks like an option"));
	ASSERT_EQ(0, init_words(&s, l4));
	ASSERT_EQ(2, s.nkeys);
	EXPECT_STREQ("--file", s.keys[0]);
	EXPECT_STREQ("-F", s.keys[1]);
	ASSERT_EQ(0, init_words(&s, l5));
	EXPECT_EQ(2, s.nkeys);
}

TEST_HARNESS_MAIN
