// SPDX-License-Identifier: GPL-2.0 OR MIT
/*
 * query NAME { packet HEX | pcap FILE } [since TIME] [until TIME | slack D]
 * on a transforms table: "what was this packet before this router
 * rewrote it?". Every window of the table is read (xlate_read.h), each
 * packet, as it left the router, is looked up in the windows overlapping
 * [since, until] (or, by a capture's time, [TIME - slack, TIME + slack]:
 * cmd_query.c), and each record found gives the packet as it arrived:
 *	INDEX [TIME] DESCRIPTION: SNAT A <- B (window ID), before: DESCRIPTION, digest 0x...
 *	INDEX [TIME] DESCRIPTION: not transformed here
 *	N packets: T transformed, U not
 * The digest is the SPIE digest of the packet as it arrived, which the
 * routers before this one recorded. Exit: 0 every packet transformed,
 * 1 some not, 2 error.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "commands.h"
#include "describe.h"
#include "digestfmt.h"
#include "json.h"
#include "pcapfile.h"
#include "pktfmt.h"
#include "pktxform.h"
#include "query_xlate.h"
#include "timefmt.h"
#include "util.h"
#include "xlate_read.h"

/* Records of one packet shown, at most. */
#define QX_HITS_MAX	16

struct qx {
	const struct kb_archive *a;
	uint64_t since, until;
	uint64_t slack;		/* not 0: around each capture time */
	bool pcap;
	struct json j;
	size_t n, found;
};

static void print_before(struct qx *q, const uint8_t *pkt, uint32_t len,
			 const struct kb_xlate_hit *h, bool first)
{
	char what[96], desc[256], dig[KB_DIGEST_STR_MAX] = "none";
	struct kb_digest d;
	uint8_t *before;
	int r;

	kb_xlate_str(&h->rec, what, sizeof(what));
	/* The lookup matched the key: only memory can fail. */
	r = kb_xlate_before(&h->rec, pkt, len, &before, &len);
	if (r) {
		errorf("%s", r == -ENOMEM ? "out of memory" :
		       "internal error: a record found does not invert");
		exit(EXIT_ERROR);
	}
	kb_pkt_describe(before, len, desc, sizeof(desc));
	if (!kb_digest(before, len, KBLOOM_DIGEST_SPIE, &d))
		kb_digest_fmt(&d, KBLOOM_DIGEST_SPIE, dig, sizeof(dig));
	if (opts.json) {
		char *hex = malloc(2 * len + 3);

		if (!hex) {
			errorf("out of memory");
			exit(EXIT_ERROR);
		}
		kb_hex_str(before, len, hex, 2 * len + 3);
		json_obj_begin(&q->j);
		json_key(&q->j, "window");
		json_u64(&q->j, h->window);
		json_key(&q->j, "transform");
		json_str(&q->j, what);
		json_key(&q->j, "before");
		json_str(&q->j, desc);
		json_key(&q->j, "before_digest");
		json_str(&q->j, dig);
		json_key(&q->j, "before_packet");
		json_str(&q->j, hex);
		json_obj_end(&q->j);
		free(hex);
	} else {
		printf("%s%s (window %llu), before: %s, digest %s", first ? "" : "; ",
		       what, (unsigned long long)h->window, desc, dig);
	}
	free(before);
}

static void one(struct qx *q, uint64_t index, uint64_t ts, const uint8_t *pkt,
		uint32_t len)
{
	struct kb_xlate_hit hit[QX_HITS_MAX];
	char desc[256], at[KB_TIME_STR_MAX];
	uint64_t since = q->since, until = q->until;
	size_t m, k;

	if (q->slack) {
		since = ts > q->slack ? ts - q->slack : 0;
		until = ts > UINT64_MAX - q->slack ? UINT64_MAX : ts + q->slack;
	}
	m = kb_xlate_lookup(q->a, pkt, len, since, until, hit, QX_HITS_MAX);
	kb_pkt_describe(pkt, len, desc, sizeof(desc));
	q->n++;
	q->found += m > 0;
	if (opts.json) {
		json_obj_begin(&q->j);
		json_key(&q->j, "packet");
		json_u64(&q->j, index);
		if (ts)
			kb_json_time(&q->j, "time", ts);
		json_key(&q->j, "description");
		json_str(&q->j, desc);
		json_key(&q->j, "transforms");
		json_arr_begin(&q->j);
	} else {
		printf("%llu ", (unsigned long long)index);
		if (ts)
			printf("%s ", kb_time_str(ts, false, at, sizeof(at)));
		printf("%s: ", desc);
		if (!m)
			printf("not transformed here");
	}
	for (k = 0; k < m && k < QX_HITS_MAX; k++)
		print_before(q, pkt, len, &hit[k], !k);
	if (opts.json) {
		json_arr_end(&q->j);
		json_obj_end(&q->j);
	} else {
		putchar('\n');
	}
}

static int pcap_packet(const struct kb_pcap_packet *pp, void *arg)
{
	one(arg, pp->index, pp->ts_ns, pp->l3, pp->caplen);
	return 0;
}

int query_transforms(struct kb_nl *nl, const char *name, const char *pcap,
		     const uint8_t *pkt, size_t len, uint64_t since,
		     uint64_t until, uint64_t slack)
{
	struct kb_archive *a;
	struct kb_pcap_counts counts;
	struct qx q = { .since = since, .until = until, .slack = slack,
			.pcap = pcap };
	char why[1400];
	int r;

	if (kb_xlate_load(nl, name, &a, why, sizeof(why))) {
		errorf("unable to query filter '%s': %s", quote(name), why);
		return EXIT_ERROR;
	}
	q.a = a;
	if (opts.json) {
		json_init(&q.j, stdout);
		if (pcap)
			json_arr_begin(&q.j);
	}
	if (pcap) {
		r = kb_pcap_each(pcap, pcap_packet, &q, &counts, why,
				 sizeof(why));
		if (r) {
			if (opts.json)
				putchar('\n');
			errorf("unable to read capture '%s': %s", quote(pcap),
			       why);
			kb_archive_close(a);
			return EXIT_ERROR;
		}
	} else {
		one(&q, 1, 0, pkt, len);
	}
	if (opts.json) {
		if (pcap)
			json_arr_end(&q.j);
	} else if (pcap) {
		printf("%zu packets: %zu transformed, %zu not\n", q.n, q.found,
		       q.n - q.found);
	}
	kb_archive_close(a);
	return q.found == q.n && q.n ? EXIT_OK : EXIT_NEGATIVE;
}
