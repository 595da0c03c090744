// SPDX-License-Identifier: GPL-2.0 OR MIT
/*
 * bloomctl: the command line tool of kbloom. Global options, then one
 * subcommand from the table below (one file per subcommand, holding its
 * entry: name, function and help texts).
 */
#include <getopt.h>
#include <stdio.h>
#include <string.h>

#include "commands.h"
#include "progress.h"
#include "util.h"

/*
 * The commands, in the order of bloomctl --help: each one's entry (name,
 * function and help texts) is in its own cmd_NAME.c.
 */
static const struct kb_command *const commands[] = {
	&kb_cmd_create,
	&kb_cmd_destroy,
	&kb_cmd_list,
	&kb_cmd_show,
	&kb_cmd_add,
	&kb_cmd_del,
	&kb_cmd_test,
	&kb_cmd_count,
	&kb_cmd_clear,
	&kb_cmd_merge,
	&kb_cmd_estimate,
	&kb_cmd_calc,
	&kb_cmd_attach,
	&kb_cmd_detach,
	&kb_cmd_query,
	&kb_cmd_digest,
	&kb_cmd_save,
	&kb_cmd_restore,
	&kb_cmd_archive,
	&kb_cmd_monitor,
	&kb_cmd_metrics,
	&kb_cmd_trace,
	&kb_cmd_batch,
};

static const char keys_help[] =
	"KEY is taken as literal bytes; 0x followed by an even number of hex\n"
	"digits is hex (0x666f6f is the key foo). A key is 1 to {KEY_MAX} bytes.\n"
	"For a multi filter a key is a tuple of DIM=VALUE items separated by\n"
	"commas, one tuple per argument or line, e.g.\n"
	"  src=10.0.0.1,dst=10.0.0.2,dport=80\n"
	"DIM is one of the filter's dimensions (see 'show'), each at most once;\n"
	"VALUE is a KEY as above, and a value holding ',' or '=' must be given\n"
	"in hex. add needs every dimension; test any non-empty subset (present\n"
	"when each dimension named holds its value).\n";

/* Prints @s, replacing the {LIMIT} names of struct kb_command. */
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
		{ "MEM_MAX", KBLOOM_MEM_MAX },
		{ "DIMS_MAX", KBLOOM_DIMS_MAX },
		{ "DIM_NAME_LEN", KBLOOM_DIM_NAME_MAX - 1 },
		{ "DECREMENT_MAX", KBLOOM_DECREMENT_MAX },
		{ "WINDOWS_MAX", KBLOOM_WINDOWS_MAX },
		{ "PACKET_MAX", KBLOOM_PACKET_MAX },
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

static void print_usage_lines(FILE *f, const struct kb_command *c)
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

	fputs("Usage: bloomctl [-j|-json|--json] [-n|--netns NAME] [-e|-exist|--exist] [-q|--quiet] COMMAND [ARGS]\n"
	      "\n"
	      "Manages kbloom filters (Bloom filters in kernel memory) over\n"
	      "generic netlink.\n"
	      "\n"
	      "Options:\n"
	      "  -j, -json, --json   print JSON (list, show, test, count, estimate,\n"
	      "                      calc, query, digest, archive, trace, monitor)\n"
	      "  -n, --netns NAME    work in network namespace NAME (/run/netns/NAME)\n"
	      "  -e, -exist, --exist create and attach succeed when the very filter or\n"
	      "                      attachment asked for exists already (a setup\n"
	      "                      script may run again); one that differs is still\n"
	      "                      an error naming the difference\n"
	      "  -q, --quiet         no progress line: on a terminal, long work (add,\n"
	      "                      test, del and count -f, save, restore, archive,\n"
	      "                      trace) shows one on stderr, erased at the end;\n"
	      "                      never with -j, nor when stderr is no terminal\n"
	      "  -h, --help          print this help\n"
	      "  -V, --version       print bloomctl's version and the loaded module's\n"
	      "                      (warns when they differ; does not load it)\n"
	      "\n"
	      "Commands:\n", f);
	for (i = 0; i < ARRAY_SIZE(commands); i++)
		fprintf(f, "  %-9s %s\n", commands[i]->name, commands[i]->summary);
	fprintf(f, "  %-9s %s\n", "help", "print help: bloomctl help [COMMAND]");
	fputs("\n", f);
	print_text(f, keys_help);
	fputs("Exit status: 0 success, 1 a negative answer (test, query, trace;\n"
	      "batch: a line answered negatively), 2 an error.\n"
	      "Run 'bloomctl COMMAND --help' for the arguments of a command.\n"
	      "COMMAND may be any prefix that names one command (li: list); a\n"
	      "prefix of several is an error naming them.\n",
	      f);
}

static void command_help(const struct kb_command *c)
{
	print_usage_lines(stdout, c);
	fputs("\n", stdout);
	print_text(stdout, c->help);
	if (!strcmp(c->name, "add") || !strcmp(c->name, "test") ||
	    !strcmp(c->name, "del") || !strcmp(c->name, "count")) {
		fputs("\n", stdout);
		print_text(stdout, keys_help);
	}
}

/* The help command: not in the table, but a name like the others. */
static const struct kb_command help_entry = { .name = "help" };

/*
 * The command @word names, as iproute2 takes them: its full name, or a
 * prefix of exactly one command's name ("li" is list; "help" counts).
 * NULL when none; *@ambiguous (may be NULL) tells a prefix of several.
 */
static const struct kb_command *match_command(const char *word, bool *ambiguous)
{
	const struct kb_command *found = NULL;
	size_t i, n = strlen(word), hits = 0;

	if (ambiguous)
		*ambiguous = false;
	if (!strcmp(word, help_entry.name))
		return &help_entry;
	for (i = 0; i < ARRAY_SIZE(commands); i++)
		if (!strcmp(commands[i]->name, word))
			return commands[i];
	if (!n)
		return NULL;
	for (i = 0; i < ARRAY_SIZE(commands); i++) {
		if (!strncmp(commands[i]->name, word, n)) {
			found = commands[i];
			hits++;
		}
	}
	if (!strncmp(help_entry.name, word, n)) {
		found = &help_entry;
		hits++;
	}
	if (hits > 1) {
		if (ambiguous)
			*ambiguous = true;
		return NULL;
	}
	return found;
}

static const char *command_full_name(const char *word)
{
	const struct kb_command *c = match_command(word, NULL);

	return c ? c->name : NULL;
}

/* match_command(), printing why when it finds none. */
static const struct kb_command *find_command(const char *word)
{
	const struct kb_command *c;
	char names[256];
	size_t i, n = 0, len = strlen(word);
	bool ambiguous;

	c = match_command(word, &ambiguous);
	if (c)
		return c;
	if (!ambiguous) {
		errorf("unknown command '%s' (see 'bloomctl --help')",
		       quote(word));
		return NULL;
	}
	names[0] = '\0';
	for (i = 0; i <= ARRAY_SIZE(commands); i++) {
		const char *name = i < ARRAY_SIZE(commands) ?
				   commands[i]->name : help_entry.name;

		if (!strncmp(name, word, len) && n < sizeof(names))
			n += snprintf(names + n, sizeof(names) - n, "%s%s",
				      n ? ", " : "", name);
	}
	errorf("ambiguous command '%s': %s (see 'bloomctl --help')",
	       quote(word), names);
	return NULL;
}

static int help_command(int argc, char **argv)
{
	const struct kb_command *c;

	/* help, help --help and help -h: the main help */
	if (argc < 2 || !strcmp(argv[1], "--help") || !strcmp(argv[1], "-h")) {
		main_help(stdout);
		return EXIT_OK;
	}
	if (argc > 2) {
		unexpected_argument("help", argv[2]);
		return EXIT_ERROR;
	}
	c = find_command(argv[1]);
	if (!c)
		return EXIT_ERROR;
	if (c == &help_entry) {
		main_help(stdout);
		return EXIT_OK;
	}
	command_help(c);
	return EXIT_OK;
}

static int run_command(int argc, char **argv)
{
	const struct kb_command *c;

	c = find_command(argv[0]);
	if (!c)
		return EXIT_ERROR;
	/* The command's messages name it in full, not as abbreviated. */
	argv[0] = (char *)c->name;
	if (c == &help_entry)
		return help_command(argc, argv);
	if (argc > 1 && (!strcmp(argv[1], "--help") || !strcmp(argv[1], "-h"))) {
		command_help(c);
		return EXIT_OK;
	}
	return c->fn(argc, argv);
}

/*
 * Names what getopt refused in @arg: a long option given a value it does
 * not take (--help=x), a letter that is no option inside a cluster
 * (-ejx), or the word itself.
 */
static void unknown_option(const char *arg, int letter)
{
	const char *eq = strchr(arg, '=');

	if (!strncmp(arg, "--", 2) && eq)
		errorf("option '%.*s' takes no value: '%s' (see 'bloomctl --help')",
		       (int)(eq - arg), arg, quote(arg));
	else if (arg[0] == '-' && arg[1] != '-' && letter && strlen(arg) > 2)
		errorf("unknown option '-%c' in '%s' (see 'bloomctl --help')",
		       letter, quote(arg));
	else
		errorf("unknown option '%s' (see 'bloomctl --help')", quote(arg));
}

int main(int argc, char **argv)
{
	static const struct option longopts[] = {
		{ "json", no_argument, NULL, 'j' },
		{ "netns", required_argument, NULL, 'n' },
		{ "exist", no_argument, NULL, 'e' },
		{ "quiet", no_argument, NULL, 'q' },
		{ "help", no_argument, NULL, 'h' },
		{ "version", no_argument, NULL, 'V' },
		{ NULL, 0, NULL, 0 },
	};
	const struct kb_command *c;
	int opt, ret, i, word;

	/*
	 * -json, as iproute2 spells it, is --json, and -exist, as ipset
	 * spells it, --exist: among the global options only (up to the
	 * command; -n takes the next word).
	 */
	for (i = 1; i < argc && argv[i][0] == '-' && strcmp(argv[i], "--"); i++) {
		if (!strcmp(argv[i], "-json"))
			argv[i] = "--json";
		else if (!strcmp(argv[i], "-exist"))
			argv[i] = "--exist";
		else if (!strcmp(argv[i], "-n") || !strcmp(argv[i], "--netns"))
			i++;
	}
	opterr = 0;
	/* word: the argument getopt reads (a cluster of letters stays one) */
	for (word = optind;
	     (opt = getopt_long(argc, argv, "+:jeqn:hV", longopts, NULL)) != -1;
	     word = optind) {
		switch (opt) {
		case 'j':
			opts.json = true;
			break;
		case 'n':
			opts.netns = optarg;
			break;
		case 'e':
			opts.exist = true;
			break;
		case 'q':
			opts.quiet = true;
			break;
		case 'h':
			main_help(stdout);
			return EXIT_OK;
		case 'V':
			return print_version();
		case ':':
			errorf("option '%s' needs a NAME", argv[optind - 1]);
			return EXIT_ERROR;
		default:
			unknown_option(argv[word], optopt);
			return EXIT_ERROR;
		}
	}
	argc -= optind;
	argv += optind;
	if (!argc) {
		main_help(stderr);
		return EXIT_ERROR;
	}
	/*
	 * --exist only where something is made: never a silent no-op. (The
	 * command's own errors, unknown or ambiguous, come from run_command.)
	 */
	c = match_command(argv[0], NULL);
	if (opts.exist && c && c->fn != cmd_create && c->fn != cmd_attach &&
	    c->fn != cmd_batch) {
		errorf("option --exist applies to create, attach and batch, not to '%s'",
		       quote(argv[0]));
		return EXIT_ERROR;
	}
	progress_allow(!opts.quiet && !opts.json);
	cli_dispatch.run = run_command;
	cli_dispatch.full_name = command_full_name;
	ret = run_command(argc, argv);
	if (fflush(stdout) || ferror(stdout)) {
		errorf("unable to write the output: %m");
		return EXIT_ERROR;
	}
	return ret;
}
