// SPDX-License-Identifier: GPL-2.0 OR MIT
/*
 * batch [-k] [FILE|-]: the commands of FILE, one a line, each run through
 * the command table as if given on the command line (cli_dispatch), with
 * the global options of this run. Errors printed while a line runs start
 * with "FILE:LINE: " (errorf_context). Without -k the first failing line
 * ends the batch; with -k every line runs and the failed ones are listed
 * at the end. Exit status 1 of a line (a negative answer) is not a
 * failure.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "commands.h"
#include "util.h"

struct batch {
	const char *label;	/* FILE for messages: quoted, or "stdin" */
	FILE *f;
	bool keep;		/* -k */
	uint64_t line;		/* number of the current line, from 1 */
	uint64_t commands;	/* lines that held a command */
	uint64_t negative;	/* lines that answered 1 */
	uint64_t *failed;	/* lines that failed, in order */
	size_t nfailed, cap_failed;
	char context[256];	/* "FILE:LINE" */
};

/*
 * Splits @line (@len bytes, no NUL) into words in @buf (room for len + 1
 * bytes) and @argv (room for len / 2 + 2 pointers), as the help of
 * 'batch' says. Returns the number of words, or -1 with the reason in
 * @why.
 */
static int split_line(const char *line, size_t len, char *buf, char **argv,
		      char *why, size_t whylen)
{
	size_t i = 0, o = 0;
	int argc = 0;

	for (;;) {
		while (i < len && (line[i] == ' ' || line[i] == '\t'))
			i++;
		if (i == len || line[i] == '#')
			break;
		argv[argc++] = &buf[o];
		while (i < len && line[i] != ' ' && line[i] != '\t') {
			char c = line[i];
			size_t open = i;

			if (c == '\'') {
				for (i++; i < len && line[i] != '\''; i++)
					buf[o++] = line[i];
				if (i == len) {
					snprintf(why, whylen, "unterminated ' (opened at column %zu)",
						 open + 1);
					return -1;
				}
				i++;
			} else if (c == '"') {
				for (i++; i < len && line[i] != '"'; i++) {
					if (line[i] == '\\' && i + 1 < len &&
					    (line[i + 1] == '"' || line[i + 1] == '\\'))
						i++;
					buf[o++] = line[i];
				}
				if (i == len) {
					snprintf(why, whylen, "unterminated \" (opened at column %zu)",
						 open + 1);
					return -1;
				}
				i++;
			} else if (c == '\\') {
				if (i + 1 == len) {
					snprintf(why, whylen, "the line ends in an escape '\\'");
					return -1;
				}
				buf[o++] = line[i + 1];
				i += 2;
			} else {
				buf[o++] = c;
				i++;
			}
		}
		buf[o++] = '\0';
	}
	argv[argc] = NULL;
	return argc;
}

static int note_failed(struct batch *b)
{
	if (b->nfailed == b->cap_failed) {
		size_t cap = b->cap_failed ? 2 * b->cap_failed : 16;
		uint64_t *p = realloc(b->failed, cap * sizeof(*p));

		if (!p) {
			errorf("out of memory");
			return -1;
		}
		b->failed = p;
		b->cap_failed = cap;
	}
	b->failed[b->nfailed++] = b->line;
	return 0;
}

/*
 * One line: its exit status, EXIT_OK for a blank line or a comment. @buf
 * and @argv are scratch space of the sizes split_line() needs.
 */
static int run_line(struct batch *b, const char *line, size_t len, char *buf,
		    char **argv)
{
	unsigned long errors = errorf_count;
	const char *name;
	char why[128];
	int argc, r;

	if (memchr(line, '\0', len)) {
		b->commands++;
		errorf("invalid line '%s': it holds a NUL byte",
		       quote_mem(line, len));
		return EXIT_ERROR;
	}
	argc = split_line(line, len, buf, argv, why, sizeof(why));
	if (!argc)
		return EXIT_OK;
	b->commands++;
	if (argc < 0) {
		errorf("invalid line '%s': %s", quote_mem(line, len), why);
		return EXIT_ERROR;
	}
	name = cli_dispatch.full_name(argv[0]);
	if (name && !strcmp(name, "batch")) {
		errorf("a batch may not run 'batch'");
		return EXIT_ERROR;
	}
	if (argv[0][0] == '-') {
		errorf("unexpected option '%s': global options go before 'batch' and apply to every line",
		       quote(argv[0]));
		return EXIT_ERROR;
	}
	r = cli_dispatch.run(argc, argv);
	if (fflush(stdout) || ferror(stdout)) {
		errorf("unable to write the output: %m");
		return EXIT_ERROR;
	}
	if (r == EXIT_OK || r == EXIT_NEGATIVE)
		return r;
	/* Every failure gets its line, even one the command did not print. */
	if (errorf_count == errors)
		errorf("'%s' failed (exit status %d)", quote(argv[0]), r);
	return EXIT_ERROR;
}

/*
 * Reads the batch from a descriptor of its own and points standard input
 * at /dev/null: a command given '-' must not eat the lines after it.
 */
static FILE *take_stdin(void)
{
	int fd, null;
	FILE *f;

	fd = fcntl(STDIN_FILENO, F_DUPFD_CLOEXEC, 3);
	if (fd < 0) {
		errorf("batch: unable to read stdin: %s", strerror(errno));
		return NULL;
	}
	f = fdopen(fd, "r");
	if (!f) {
		errorf("batch: unable to read stdin: %s", strerror(errno));
		close(fd);
		return NULL;
	}
	null = open("/dev/null", O_RDONLY | O_CLOEXEC);
	if (null < 0 || dup2(null, STDIN_FILENO) < 0) {
		errorf("batch: unable to open /dev/null as stdin: %s",
		       strerror(errno));
		if (null >= 0)
			close(null);
		fclose(f);
		return NULL;
	}
	close(null);
	clearerr(stdin);
	return f;
}

/* The last line of -k: every line that failed. */
static void report_failed(const struct batch *b)
{
	char *list = NULL;
	size_t len = 0, i;
	FILE *m;

	m = open_memstream(&list, &len);
	if (!m) {
		errorf("%s: %zu of %" PRIu64 " commands failed", b->label,
		       b->nfailed, b->commands);
		return;
	}
	for (i = 0; i < b->nfailed; i++)
		fprintf(m, "%s%" PRIu64, i ? ", " : "", b->failed[i]);
	if (fclose(m)) {
		errorf("%s: %zu of %" PRIu64 " commands failed", b->label,
		       b->nfailed, b->commands);
	} else {
		errorf("%s: %zu of %" PRIu64 " commands failed: line%s %s",
		       b->label, b->nfailed, b->commands,
		       b->nfailed == 1 ? "" : "s", list);
	}
	free(list);
}

int cmd_batch(int argc, char **argv)
{
	struct batch b = { 0 };
	const char *path = NULL;
	char *line = NULL, *buf = NULL, **words = NULL, *label = NULL;
	size_t cap = 0, room = 0;
	ssize_t n;
	int i, r, ret = EXIT_ERROR;

	for (i = 1; i < argc; i++) {
		if (!strcmp(argv[i], "-k") && !b.keep) {
			b.keep = true;
		} else if (!strcmp(argv[i], "-k")) {
			usage_errorf(argv[0], "'-k' given twice");
			return EXIT_ERROR;
		} else if (argv[i][0] == '-' && argv[i][1]) {
			usage_errorf(argv[0], "unknown option '%s'", quote(argv[i]));
			return EXIT_ERROR;
		} else if (!path) {
			path = argv[i];
		} else {
			unexpected_argument(argv[0], argv[i]);
			return EXIT_ERROR;
		}
	}
	if (!path || !strcmp(path, "-")) {
		b.f = take_stdin();
		if (!b.f)
			return EXIT_ERROR;
	} else {
		b.f = fopen(path, "re");
		if (!b.f) {
			errorf("batch: unable to open '%s': %s", quote(path),
			       strerror(errno));
			return EXIT_ERROR;
		}
	}
	/* quote() rotates its buffers: keep our own copy of the label. */
	label = strdup(!path || !strcmp(path, "-") ? "stdin" :
		       quote(path));
	if (!label) {
		errorf("out of memory");
		goto out;
	}
	b.label = label;

	for (;;) {
		errno = 0;
		n = getline(&line, &cap, b.f);
		if (n < 0)
			break;
		b.line++;
		if (n && line[n - 1] == '\n')
			n--;
		if (n && line[n - 1] == '\r')
			n--;
		if ((size_t)n + 1 > room) {
			free(buf);
			free(words);
			room = n + 1;
			buf = malloc(room);
			words = calloc(room / 2 + 2, sizeof(*words));
			if (!buf || !words) {
				errorf("out of memory");
				goto out;
			}
		}
		snprintf(b.context, sizeof(b.context), "%s:%" PRIu64, b.label,
			 b.line);
		errorf_context = b.context;
		r = run_line(&b, line, n, buf, words);
		errorf_context = NULL;
		if (r == EXIT_NEGATIVE) {
			b.negative++;
		} else if (r != EXIT_OK) {
			if (note_failed(&b))
				goto out;
			if (!b.keep)
				goto out;
		}
	}
	if (ferror(b.f)) {
		if (b.line)
			errorf("batch: unable to read '%s' after line %" PRIu64 ": %s",
			       b.label, b.line, strerror(errno ? errno : EIO));
		else
			errorf("batch: unable to read '%s': %s", b.label,
			       strerror(errno ? errno : EIO));
		goto out;
	}
	if (b.nfailed) {
		report_failed(&b);
		goto out;
	}
	ret = b.negative ? EXIT_NEGATIVE : EXIT_OK;
out:
	errorf_context = NULL;
	fclose(b.f);
	free(line);
	free(buf);
	free(words);
	free(b.failed);
	free(label);
	return ret;
}

/* Its entry in the command table of bloomctl.c. */
const struct kb_command kb_cmd_batch = {
	.name = "batch",
	.fn = cmd_batch,
	.summary = "run commands from a file, one a line",
	.usage = "[-k] [FILE|-]\n",
	.help =
		"Runs the commands of FILE (standard input when FILE is '-' or not\n"
		"given), one a line, each as if it were given to bloomctl as COMMAND\n"
		"[ARGS]: -j and -n (given before 'batch') apply to every line. A line\n"
		"is words separated by blanks (spaces, tabs). '...' quotes everything\n"
		"up to the next '; \"...\" everything up to the next \" but \\\" and \\\\\n"
		"stand for \" and \\; outside quotes \\ takes the next character as it\n"
		"is. So a key with blanks is written \"two words\", 'two words' or\n"
		"two\\ words, and \"\" is an empty argument. A word starting with an\n"
		"unquoted # starts a comment, to the end of the line; blank lines and\n"
		"comments are skipped, and a trailing \\r is dropped. A line may not\n"
		"run batch or start with a global option.\n"
		"Lines run in order. The first that fails (exit status 2, or a line\n"
		"that does not parse) stops the batch: its error, one line on stderr,\n"
		"names the line,\n"
		"  bloomctl: FILE:LINE: unable to clear filter 'x': ...\n"
		"('stdin' for standard input) and the lines after it do not run.\n"
		"  -k   keep going: run every line, report each failure as above as\n"
		"       it happens, and at the end list them in one more line:\n"
		"         bloomctl: FILE: F of N commands failed: lines L1, L2, ...\n"
		"A negative answer (exit status 1: a key absent for test, a packet\n"
		"for query or trace) is not a failure and does not stop the batch.\n"
		"Each line opens its own netlink socket. When the batch is read from\n"
		"standard input, a command given '-' (standard input) reads nothing.\n"
		"Exit status: 0 every line succeeded, 1 none failed but some answered\n"
		"negatively, 2 some line failed or FILE could not be read.\n",
};
