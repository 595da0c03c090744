// SPDX-License-Identifier: GPL-2.0 OR MIT
/*
 * bloomctl: the command line tool of kbloom. Global options, then one
 * subcommand from the table below (one file per subcommand).
 */
#include <getopt.h>
#include <stdarg.h>
#include <stdio.h>
#include <string.h>

#include "commands.h"
#include "util.h"

struct global_opts opts;

/*
 * A subcommand. Its help texts may name the ABI limits as {NAME_LEN},
 * {KEY_MAX}, {BITS_MIN}, {BITS_MAX}, {BITS_MAX_LOG2}, {HASHES_MAX}: they are
 * filled in from uapi/kbloom.h when printed.
 */
struct command {
	const char *name;
	int (*fn)(int argc, char **argv);
	const char *summary;	/* one line, for bloomctl --help */
	const char *usage;	/* argument lines, after "bloomctl NAME " */
	const char *help;	/* the rest of bloomctl NAME --help */
};

static const struct command commands[] = {
	{
		"create", cmd_create, "create a filter",
		"NAME bloom bits M hashes K [key HEX32] [capacity N]\n"
		"NAME bloom capacity N fpr P [key HEX32]\n",
		"Creates filter NAME in the network namespace. NAME is 1 to {NAME_LEN}\n"
		"printable bytes without spaces or '/', not starting with '-', not 'all'.\n"
		"Keywords may come in any order:\n"
		"  bits M       m, the number of bits: {BITS_MIN} to {BITS_MAX} (2^{BITS_MAX_LOG2})\n"
		"  hashes K     k, the number of hash functions: 1 to {HASHES_MAX}\n"
		"  capacity N   design capacity n >= 1, reported back by 'show' (which\n"
		"               then also prints the false positive rate at capacity)\n"
		"  fpr P        target false positive rate at capacity, 0 < P < 1; with\n"
		"               capacity N instead of bits and hashes, sizes the filter:\n"
		"               m = ceil(-n ln P / (ln 2)^2) rounded up to a multiple of 64,\n"
		"               k = round(ln 2 * m / n), 1 to {HASHES_MAX}\n"
		"  key HEX32    hash key: 32 hex digits (optionally 0x-prefixed) giving\n"
		"               the 16 key bytes in order; random when absent. Filters\n"
		"               with the same shape and key set the same bits.\n"
		"Prints nothing on success.\n",
	},
	{
		"destroy", cmd_destroy, "destroy a filter, or all filters",
		"NAME\n"
		"all\n",
		"Destroys filter NAME, or every filter of the network namespace.\n",
	},
	{
		"list", cmd_list, "list the filters, one line each",
		"\n",
		"Prints one line per filter, sorted by name:\n"
		"  NAME TYPE bits M hashes K memory BYTES fill SET-BITS inserts N\n"
		"With -j, a JSON array of objects as printed by 'show -j'.\n",
	},
	{
		"show", cmd_show, "show a filter, with estimates",
		"NAME\n",
		"Prints every field of filter NAME: type, bits (m), hashes (k), capacity,\n"
		"kernel memory, fill (bits set, X) and fill %, inserts, queries,\n"
		"positives, generation; and, computed here:\n"
		"  estimated keys    n* = -(m/k) ln(1 - X/m), or 'saturated' when X = m\n"
		"  fpr now           (X/m)^k, the false positive rate at the current fill\n"
		"  fpr at capacity   (1 - e^(-k n/m))^k for n = capacity, when set\n"
		"With -j, one JSON object: name, type, bits, hashes, capacity, memory,\n"
		"fill, fill_percent, inserts, queries, positives, generation, saturated,\n"
		"estimated_keys (null when saturated), fpr_now, fpr_at_capacity.\n",
	},
	{
		"add", cmd_add, "add keys to a filter",
		"NAME [--] KEY...\n"
		"NAME -f FILE\n",
		"Adds each KEY to filter NAME. With -f, reads one key a line from FILE\n"
		"('-' for standard input); a trailing \\r is dropped, an empty line is an\n"
		"error. Keys are sent in batches; when an error stops a file midway,\n"
		"the keys of the batches already sent stay added. Prints nothing on\n"
		"success.\n",
	},
	{
		"test", cmd_test, "test whether keys are in a filter",
		"NAME [--] KEY...\n"
		"NAME -f FILE\n",
		"Tests each KEY against filter NAME ('present' may be a false positive;\n"
		"'absent' is certain). Prints \"KEY present\" or \"KEY absent\" per key,\n"
		"in order; with -f FILE (as for add) also a summary line\n"
		"\"N keys: P present, A absent\". With -j prints one JSON object\n"
		"  {\"filter\":NAME,\"keys\":N,\"present\":P,\"absent\":A,\n"
		"   \"results\":[{\"key\":KEY,\"present\":true|false},...]}\n"
		"where \"results\" is given for keys on the command line only; with -f\n"
		"the object has the counts only.\n"
		"Exit status: 0 every key present, 1 some key absent, 2 error.\n",
	},
	{
		"clear", cmd_clear, "empty a filter",
		"NAME\n",
		"Empties filter NAME; its shape and hash key are kept.\n",
	},
};

static const char keys_help[] =
	"KEY is taken as literal bytes; 0x followed by an even number of hex\n"
	"digits is hex (0x666f6f is the key foo). A key is 1 to {KEY_MAX} bytes.\n";

/* Prints @s, replacing the {LIMIT} names of struct command. */
static void print_text(FILE *f, const char *s)
{
	const struct {
		const char *name;
		unsigned long long v;
	} vars[] = {
		{ "NAME_LEN", KBLOOM_NAME_MAX - 1 },
		{ "KEY_MAX", KBLOOM_KEY_MAX },
		{ "BITS_MIN", KBLOOM_BITS_MIN },
		{ "BITS_MAX", KBLOOM_BITS_MAX },
		{ "BITS_MAX_LOG2", __builtin_ctzll(KBLOOM_BITS_MAX) },
		{ "HASHES_MAX", KBLOOM_HASHES_MAX },
	};
	const char *end;
	size_t i, len;

	while (*s) {
		if (*s != '{' || !(end = strchr(s, '}'))) {
			fputc(*s++, f);
			continue;
		}
		len = end - s - 1;
		for (i = 0; i < ARRAY_SIZE(vars); i++)
			if (strlen(vars[i].name) == len &&
			    !memcmp(vars[i].name, s + 1, len))
				break;
		if (i == ARRAY_SIZE(vars)) {
			fputc(*s++, f);
			continue;
		}
		fprintf(f, "%llu", vars[i].v);
		s = end + 1;
	}
}

static void print_usage_lines(FILE *f, const struct command *c)
{
	const char *p = c->usage, *nl;
	bool first = true;

	while (*p) {
		nl = strchr(p, '\n');
		fprintf(f, "%s bloomctl %s%s%.*s\n", first ? "Usage:" : "      ",
			c->name, nl != p ? " " : "", (int)(nl - p), p);
		first = false;
		p = nl + 1;
	}
}

static void main_help(FILE *f)
{
	size_t i;

	fputs("Usage: bloomctl [-j|--json] [-n|--netns NAME] COMMAND [ARGS]\n"
	      "\n"
	      "Manages kbloom filters (Bloom filters in kernel memory) over\n"
	      "generic netlink.\n"
	      "\n"
	      "Options:\n"
	      "  -j, --json          print JSON (list, show, test)\n"
	      "  -n, --netns NAME    work in network namespace NAME (/run/netns/NAME)\n"
	      "  -h, --help          print this help\n"
	      "\n"
	      "Commands:\n", f);
	for (i = 0; i < ARRAY_SIZE(commands); i++)
		fprintf(f, "  %-9s %s\n", commands[i].name, commands[i].summary);
	fprintf(f, "  %-9s %s\n", "help", "print help: bloomctl help [COMMAND]");
	fputs("\n", f);
	print_text(f, keys_help);
	fputs("Exit status: 0 success, 1 a negative answer (test), 2 an error.\n"
	      "Run 'bloomctl COMMAND --help' for the arguments of a command.\n",
	      f);
}

static void command_help(const struct command *c)
{
	print_usage_lines(stdout, c);
	fputs("\n", stdout);
	print_text(stdout, c->help);
	if (!strcmp(c->name, "add") || !strcmp(c->name, "test")) {
		fputs("\n", stdout);
		print_text(stdout, keys_help);
	}
}

static const struct command *find_command(const char *name)
{
	size_t i;

	for (i = 0; i < ARRAY_SIZE(commands); i++)
		if (!strcmp(commands[i].name, name))
			return &commands[i];
	return NULL;
}

void usage_errorf(const char *cmd, const char *fmt, ...)
{
	char msg[512];
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(msg, sizeof(msg), fmt, ap);
	va_end(ap);
	errorf("%s: %s (see 'bloomctl %s --help')", cmd, msg, cmd);
}

void unexpected_argument(const char *cmd, const char *arg)
{
	static const char *const globals[] = { "-j", "--json", "-n", "--netns" };
	size_t i;

	for (i = 0; i < ARRAY_SIZE(globals); i++) {
		if (!strncmp(arg, globals[i], strlen(globals[i]))) {
			usage_errorf(cmd, "unexpected argument '%s': global options go before the command",
				     quote(arg));
			return;
		}
	}
	usage_errorf(cmd, "unexpected argument '%s'", quote(arg));
}

int open_netlink(struct kb_nl *nl)
{
	return kb_nl_open(nl, opts.netns);
}

static int help_command(int argc, char **argv)
{
	const struct command *c;

	if (argc < 2) {
		main_help(stdout);
		return EXIT_OK;
	}
	if (argc > 2) {
		unexpected_argument("help", argv[2]);
		return EXIT_ERROR;
	}
	c = find_command(argv[1]);
	if (!c) {
		errorf("unknown command '%s' (see 'bloomctl --help')",
		       quote(argv[1]));
		return EXIT_ERROR;
	}
	command_help(c);
	return EXIT_OK;
}

int main(int argc, char **argv)
{
	static const struct option longopts[] = {
		{ "json", no_argument, NULL, 'j' },
		{ "netns", required_argument, NULL, 'n' },
		{ "help", no_argument, NULL, 'h' },
		{ NULL, 0, NULL, 0 },
	};
	const struct command *c;
	int opt, ret;

	opterr = 0;
	while ((opt = getopt_long(argc, argv, "+:jn:h", longopts, NULL)) != -1) {
		switch (opt) {
		case 'j':
			opts.json = true;
			break;
		case 'n':
			opts.netns = optarg;
			break;
		case 'h':
			main_help(stdout);
			return EXIT_OK;
		case ':':
			errorf("option '%s' needs a NAME", argv[optind - 1]);
			return EXIT_ERROR;
		default:
			if (optopt)
				errorf("unknown option '-%c' (see 'bloomctl --help')",
				       optopt);
			else
				errorf("unknown option '%s' (see 'bloomctl --help')",
				       quote(argv[optind - 1]));
			return EXIT_ERROR;
		}
	}
	argc -= optind;
	argv += optind;
	if (!argc) {
		main_help(stderr);
		return EXIT_ERROR;
	}
	if (!strcmp(argv[0], "help"))
		return help_command(argc, argv);
	c = find_command(argv[0]);
	if (!c) {
		errorf("unknown command '%s' (see 'bloomctl --help')",
		       quote(argv[0]));
		return EXIT_ERROR;
	}
	if (argc > 1 && (!strcmp(argv[1], "--help") || !strcmp(argv[1], "-h"))) {
		command_help(c);
		ret = EXIT_OK;
	} else {
		ret = c->fn(argc, argv);
	}
	if (fflush(stdout) || ferror(stdout)) {
		errorf("unable to write the output: %m");
		return EXIT_ERROR;
	}
	return ret;
}
