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
 *	INDEX [TIME] DESCRIPTION: came out of WHAT (window ID), not undone
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
#include "print.h"
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
	struct kb_out o;
	struct json j;
	size_t n, found;
};

/* One record found: the transform and the packet before it. */
static void print_before(struct qx *q, const uint8_t *pkt, uint32_t len,
			 const struct kb_xlate_hit *h, bool first)
{
	char what[192], desc[256], dig[KB_DIGEST_STR_MAX] = "none";
	const struct kb_out *o = &q->o;
	struct kb_digest d;
	uint8_t *before;
	char *hex;
	int r;

	kb_xlate_hit_str(h, what, sizeof(what));
	if ((h->rec.kind & KBLOOM_XLATE_OPAQUE) || kb_xlate_hit_lost(h)) {
		/*
		 * Nothing to rebuild: what came before was another packet, or
		 * its outer addresses or checksum are not in the table.
		 */
		kb_print_obj_begin(o, NULL);
		kb_print_u64(o, KB_PRINT_JSON, "window", NULL, h->window);
		kb_print_text(o, "%s", first ? "" : "; ");
		kb_print_str(o, KB_PRINT_ANY, "transform",
			     h->icmp_error ? "%s (its addresses not in the table)" :
			     "came out of %s", what);
		kb_print_u64(o, KB_PRINT_TEXT, NULL, " (window %llu), not undone",
			     h->window);
		kb_print_str(o, KB_PRINT_JSON, "before", NULL, NULL);
		kb_print_str(o, KB_PRINT_JSON, "before_digest", NULL, NULL);
		kb_print_str(o, KB_PRINT_JSON, "before_packet", NULL, NULL);
		kb_print_obj_end(o);
		return;
	}
	/* The lookup matched the key: only memory can fail. */
	r = kb_xlate_before(h, pkt, len, &before, &len);
	if (r) {
		errorf("%s", r == -ENOMEM ? "out of memory" :
		       "internal error: a record found does not invert");
		exit(EXIT_ERROR);
	}
	kb_pkt_describe(before, len, desc, sizeof(desc));
	if (!kb_digest(before, len, KBLOOM_DIGEST_SPIE, &d))
		kb_digest_fmt(&d, KBLOOM_DIGEST_SPIE, dig, sizeof(dig));
	hex = malloc(2 * len + 3);
	if (!hex) {
		errorf("out of memory");
		exit(EXIT_ERROR);
	}
	kb_hex_str(before, len, hex, 2 * len + 3);
	kb_print_obj_begin(o, NULL);
	/* JSON's window comes first, the text's after the transform */
	kb_print_u64(o, KB_PRINT_JSON, "window", NULL, h->window);
	kb_print_text(o, "%s", first ? "" : "; ");
	kb_print_str(o, KB_PRINT_ANY, "transform", "%s", what);
	kb_print_u64(o, KB_PRINT_TEXT, NULL, " (window %llu)", h->window);
	kb_print_str(o, KB_PRINT_ANY, "before", ", before: %s", desc);
	kb_print_str(o, KB_PRINT_ANY, "before_digest", ", digest %s", dig);
	kb_print_str(o, KB_PRINT_JSON, "before_packet", NULL, hex);
	kb_print_obj_end(o);
	free(hex);
	free(before);
}

static void one(struct qx *q, uint64_t index, uint64_t ts, const uint8_t *pkt,
		uint32_t len)
{
	struct kb_xlate_hit hit[QX_HITS_MAX];
	char desc[256];
	uint64_t since = q->since, until = q->until;
	size_t m, k, shown;

	if (q->slack) {
		since = ts > q->slack ? ts - q->slack : 0;
		until = ts > UINT64_MAX - q->slack ? UINT64_MAX : ts + q->slack;
	}
	m = kb_xlate_lookup(q->a, pkt, len, since, until, hit, QX_HITS_MAX);
	kb_pkt_describe(pkt, len, desc, sizeof(desc));
	q->n++;
	/* Transformed: a record gives the packet before; an arrival does not. */
	for (k = 0; k < m && k < QX_HITS_MAX; k++)
		if (!(hit[k].rec.kind & KBLOOM_XLATE_OPAQUE) &&
		    !(hit[k].icmp_error && hit[k].addr6_lost)) {
			q->found++;
			break;
		}
	kb_print_obj_begin(&q->o, NULL);
	kb_print_u64(&q->o, KB_PRINT_ANY, "packet", "%llu ", index);
	if (ts)
		kb_print_time(&q->o, KB_PRINT_ANY, "time", "%s ", ts);
	kb_print_str(&q->o, KB_PRINT_ANY, "description", "%s: ", desc);
	/* "not transformed" would be wrong for an error the NAT rewrote. */
	kb_print_str(&q->o, m ? KB_PRINT_JSON : KB_PRINT_ANY, "not_undone",
		     "%s", m ? NULL :
		     kb_xlate_nat_of_icmp_error(q->a, pkt, len, since, until) ?
		     "not undone: an ICMP error about a flow this NAT rewrote (its quoted header and an outer address; no record keeps what they were)" :
		     "not transformed here");
	kb_print_arr_begin(&q->o, "transforms");
	for (k = 0, shown = 0; k < m && k < QX_HITS_MAX; k++)
		if (!(hit[k].rec.kind & KBLOOM_XLATE_OPAQUE) ||
		    !kb_xlate_arrival_undone(hit, m < QX_HITS_MAX ? m : QX_HITS_MAX,
					     &hit[k].rec, false))
			print_before(q, pkt, len, &hit[k], !shown++);
	kb_print_arr_end(&q->o);
	kb_print_text(&q->o, "\n");
	kb_print_obj_end(&q->o);
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
	kb_out_stdout(&q.o, &q.j, opts.json);
	if (pcap)
		kb_print_arr_begin(&q.o, NULL);
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
	if (pcap) {
		kb_print_arr_end(&q.o);
		kb_print_text(&q.o, "%zu packets: %zu transformed, %zu not\n",
			      q.n, q.found, q.n - q.found);
	}
	kb_archive_close(a);
	return q.found == q.n && q.n ? EXIT_OK : EXIT_NEGATIVE;
}
