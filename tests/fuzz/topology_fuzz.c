// SPDX-License-Identifier: GPL-2.0 OR MIT
/*
 * libFuzzer target: the topology file of 'bloomctl trace'
 * (userspace/topology.c), the input as the file's text.
 * Invariants (a trap when broken): a refusal says "PATH:LINE: WHY" and
 * leaves nothing allocated (ASan's leak check); an accepted topology has
 * routers of valid names, each found under its name, a filter unless it
 * records nothing, neighbours that are routers and links both ways.
 */
#include <stdbool.h>
#include <stdint.h>
#include <string.h>

#include "topology.h"
#include "fuzz_common.h"

static bool name_ok(const char *s)
{
	size_t n = strlen(s), i;

	if (n < 1 || n >= KB_TOPO_NAME_MAX)
		return false;
	for (i = 0; i < n; i++)
		if (!strchr("ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789_.-",
			    s[i]))
			return false;
	return true;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	char *text = malloc(size + 1), err[256] = "";
	struct kb_topo t;
	size_t i, j, k;

	if (!text)
		return 0;
	memcpy(text, data, size);
	text[size] = 0;
	if (kb_topo_parse(text, "/fuzz/topo", &t, err, sizeof(err))) {
		FUZZ_CHECK(!strncmp(err, "/fuzz/topo:", 11) && strlen(err) > 13,
			   "refusal without PATH:LINE: WHY: '%s'", err);
		free(text);
		return 0;
	}
	for (i = 0; i < t.n; i++) {
		const struct kb_topo_router *r = &t.r[i];

		FUZZ_CHECK(name_ok(r->name), "router name '%s'", r->name);
		FUZZ_CHECK(kb_topo_find(&t, r->name) == (long)i,
			   "router %zu '%s' found at %ld", i, r->name,
			   kb_topo_find(&t, r->name));
		FUZZ_CHECK((r->kind == KB_TOPO_NONE) == !r->filter,
			   "router '%s': kind %d, filter %p", r->name, r->kind,
			   (void *)r->filter);
		FUZZ_CHECK(r->kind != KB_TOPO_ARCHIVE || r->dir, "archive without dir");
		FUZZ_CHECK(r->kind != KB_TOPO_SSH || (r->host && r->bloomctl),
			   "ssh without host or bloomctl");
		for (j = 0; j < r->nnbr; j++) {
			const struct kb_topo_router *o;
			bool back = false;

			FUZZ_CHECK(r->nbr[j] < t.n, "neighbour %zu of %zu routers",
				   r->nbr[j], t.n);
			o = &t.r[r->nbr[j]];
			for (k = 0; k < o->nnbr; k++)
				back |= o->nbr[k] == i;
			FUZZ_CHECK(back, "link %s-%s one way", r->name, o->name);
		}
	}
	FUZZ_CHECK(kb_topo_find(&t, "no such router!") == -1, "a name that cannot be");
	kb_topo_free(&t);
	free(text);
	return 0;
}
