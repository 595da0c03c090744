// SPDX-License-Identifier: GPL-2.0 OR MIT
/*
 * query NAME packet HEX [OPTION...]
 * query NAME pcap FILE [OPTION...]
 *	OPTION: digest MODE, since TIME, until TIME, slack DURATION
 *
 * "Did this packet pass here, and when?": each packet is reduced to its
 * digest here, by the module's own code (kmod/engine/digest.c), in the
 * filter's digest mode (that of its attachment, else spie, or multi for a
 * multi filter), and the digests are sent in batches with KBLOOM_CMD_QUERY
 * (query_client.c), whose reply says which windows hold each one. Every
 * packet is kept until the end, so the output (text or JSON) is written
 * only once every answer is in.
 *
 * Text, one line per packet and a summary:
 *	INDEX [TIME] DESCRIPTION: window ID (START to END)[, window ...]
 *	INDEX [TIME] DESCRIPTION: absent
 *	INDEX [TIME] DESCRIPTION: absent from the oldest window on (START), not recorded before
 *	INDEX [TIME] DESCRIPTION: not recorded (before the oldest window, START)
 *	INDEX [TIME] DESCRIPTION: not recorded (after now)
 *	INDEX [TIME] DESCRIPTION: no digest (REASON)
 *	N packets: P present, A absent, U not recorded, S skipped
 * Only windows overlapping [since, until] count; with neither given, a
 * packet of a capture counts those overlapping [TIME - slack, TIME +
 * slack] (its capture time; slack 2 s by default, as trace's), one given
 * as HEX every window. The filter holds what
 * happened from the start of its oldest window (its creation while
 * window 1 is kept) to now: a range given by since/until that lies
 * wholly outside is "not recorded", one that begins before it is absent
 * only in part (both counted as not recorded), so "absent" stays certain.
 * Exit: 0 every digested packet present, 1 some absent or not recorded,
 * 2 error.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <netlink/genl/genl.h>

#include "commands.h"
#include "describe.h"
#include "digestfmt.h"
#include "json.h"
#include "kwargs.h"
#include "pcapfile.h"
#include "pktfmt.h"
#include "print.h"
#include "query_client.h"
#include "query_xlate.h"
#include "timefmt.h"
#include "types.h"
#include "util.h"

enum { Q_PACKET, Q_PCAP, Q_DIGEST, Q_SINCE, Q_UNTIL, Q_SLACK, Q_NUM };

#define SLACK_DEFAULT_MS 2000	/* as trace's */

struct qpacket {
	uint64_t index;
	uint64_t ts;		/* capture time, ns; 0 on the command line */
	uint32_t skip;		/* KBLOOM_SKIP_NONE: digested */
	char *desc;
	char *digest;		/* text (kb_digest_fmt) */
};

/* The answer for a digested packet; see status(). */
enum qstatus {
	QS_PRESENT, QS_ABSENT, QS_ABSENT_PART, QS_BEFORE, QS_AFTER,
	QS_UNSEEN,	/* absent, but the attachment may be passed by */
};

struct query {
	const char *name;
	struct kb_nl nl;
	struct kb_desc desc;
	uint32_t mode;
	bool pcap;
	uint64_t since, until;	/* ns, until UINT64_MAX: open */
	bool since_given;
	/*
	 * Each packet of a capture by its capture time: [ts - slack, ts +
	 * slack], and since/until span them all (the windows shown).
	 */
	bool by_capture;
	uint64_t slack;		/* ns */
	uint64_t now;

	/*
	 * Packet i is the client's item i. Its win: every window reported
	 * (and GET's), by id; its oldest: the start of the oldest window
	 * every digest was asked of, nothing before it is held.
	 */
	struct kb_query_client qc;
	bool qc_init;
	struct kp_tuple tuple;

	struct qpacket *p;
	size_t n, cap;

	int failed;		/* an error was printed */
};

static const struct kb_window_desc *find_window(const struct query *q,
						uint64_t id)
{
	size_t i;

	for (i = 0; i < q->qc.nwin; i++)
		if (q->qc.win[i].id == id)
			return &q->qc.win[i];
	return NULL;
}

/* Does window @w overlap [since, until]? An open window lasts until now. */
static bool overlaps(const struct query *q, const struct kb_window_desc *w,
		     uint64_t since, uint64_t until)
{
	uint64_t end = w->end ? w->end : q->now;

	return w->start <= until && end >= since;
}

static bool in_range(const struct query *q, const struct kb_window_desc *w)
{
	return overlaps(q, w, q->since, q->until);
}

/*
 * The range packet @p is looked up in: since/until, or by its capture
 * time, slack either side: the capture may be taken upstream of this
 * router or downstream, on a clock within slack of the router's.
 */
static void packet_range(const struct query *q, const struct qpacket *p,
			 uint64_t *since, uint64_t *until)
{
	*since = q->since;
	*until = q->until;
	if (q->by_capture) {
		*since = p->ts > q->slack ? p->ts - q->slack : 0;
		*until = p->ts > UINT64_MAX - q->slack ? UINT64_MAX :
			 p->ts + q->slack;
	}
}

static bool packet_in_range(const struct query *q, const struct qpacket *p,
			    const struct kb_window_desc *w)
{
	uint64_t since, until;

	packet_range(q, p, &since, &until);
	return overlaps(q, w, since, until);
}

/* Digests one packet and queues its digest. 0, or -1 (printed). */
static int add_packet(struct query *q, uint64_t index, uint64_t ts,
		      const uint8_t *pkt, uint32_t caplen)
{
	char desc[256], key[KB_DIGEST_STR_MAX];
	uint64_t since, until;
	struct kb_digest d;
	struct qpacket *p;
	int r;

	if (q->n == q->cap) {
		q->cap = q->cap ? 2 * q->cap : 64;
		q->p = xrealloc(q->p, q->cap * sizeof(*q->p));
	}
	p = &q->p[q->n];
	memset(p, 0, sizeof(*p));
	p->index = index;
	p->ts = ts;
	if (q->by_capture) {
		/* The windows shown: those of every packet's range. */
		packet_range(q, p, &since, &until);
		if (!q->n || since < q->since)
			q->since = since;
		if (!q->n || until > q->until)
			q->until = until;
	}
	kb_pkt_describe(pkt, caplen, desc, sizeof(desc));
	p->desc = xstrdup(desc);
	p->skip = kb_digest(pkt, caplen, q->mode, &d);
	q->n++;
	if (p->skip)
		return 0;
	kb_digest_fmt(&d, q->mode, key, sizeof(key));
	p->digest = xstrdup(key);
	if (q->mode == KBLOOM_DIGEST_MULTI) {
		kb_digest_tuple(&d, &q->tuple);
		r = kb_query_client_add_tuple(&q->qc, q->n - 1, &q->tuple, key,
					      strlen(key));
	} else {
		r = kb_query_client_add(&q->qc, q->n - 1, d.key, d.len, key,
					strlen(key));
	}
	if (r) {
		keybatch_perror(&q->qc.batch, "query");
		return -1;
	}
	return 0;
}

static int pcap_packet(const struct kb_pcap_packet *p, void *arg)
{
	struct query *q = arg;

	if (add_packet(q, p->index, p->ts_ns, p->l3, p->caplen)) {
		q->failed = 1;
		return 1;
	}
	return 0;
}

/* Whether packet @p is present in a window of the range. */
static bool present(const struct query *q, const struct qpacket *p)
{
	const struct kb_window_desc *w;
	const uint64_t *hits;
	uint32_t i, n;

	hits = kb_query_client_hits(&q->qc, p - q->p, &n);
	for (i = 0; i < n; i++) {
		w = find_window(q, hits[i]);
		if (w && packet_in_range(q, p, w))
			return true;
	}
	return false;
}

/* What may carry packets past the filter's attachment (KBLOOM_BYPASS_*). */
static uint32_t bypass_bits(const struct query *q)
{
	return q->desc.have & KB_HAVE_ATTACH ? q->desc.attach.bypass : 0;
}

/*
 * Present; else absent when [since, until] lies within what the filter
 * holds (an omitted since: from its oldest window), absent in part when
 * a given since precedes the oldest window, not recorded when the range
 * ends before it or starts after now. Time after now has not happened.
 */
static enum qstatus status(const struct query *q, const struct qpacket *p)
{
	uint64_t since, until;

	if (present(q, p))
		return QS_PRESENT;
	packet_range(q, p, &since, &until);
	if (until < q->qc.oldest)
		return QS_BEFORE;
	if (since > q->now)
		return QS_AFTER;
	if ((q->since_given || q->by_capture) && since < q->qc.oldest)
		return QS_ABSENT_PART;
	/* "absent" is certain only where nothing passes the hook by */
	if (bypass_bits(q))
		return QS_UNSEEN;
	return QS_ABSENT;
}

static const char *status_str(enum qstatus s)
{
	switch (s) {
	case QS_PRESENT:
		return "present";
	case QS_ABSENT:
		return "absent";
	case QS_ABSENT_PART:
		return "absent in part";
	case QS_UNSEEN:
		return "not seen";
	default:
		return "not recorded";
	}
}

static void json_ns(struct json *j, const char *key, uint64_t ns)
{
	char buf[KB_TIME_STR_MAX];

	json_key(j, key);
	if (ns)
		json_str(j, kb_time_str(ns, true, buf, sizeof(buf)));
	else
		json_null(j);
}

/*
 * The answer, one line a packet and a summary line, or one JSON object:
 * filter, digest, since, until, oldest, windows (those of the range),
 * packets ([{index, ts, ts_ns, description, digest, windows, present,
 * status}], or status "no digest" and skip), packets_total, present,
 * absent, not_recorded, skipped.
 */
static void render(const struct kb_out *o, const struct query *q)
{
	uint64_t npresent = 0, nabsent = 0, nunrec = 0, nskipped = 0;
	char ts[KB_TIME_STR_MAX], old[KB_TIME_STR_MAX], bypass[96] = "";
	const struct kb_window_desc *w;
	uint64_t since, until;
	const struct qpacket *p;
	const uint64_t *hits;
	enum qstatus st;
	uint32_t h, nhits, shown;
	size_t i;

	for (i = 0; i < 32; i++)
		if (bypass_bits(q) & (1u << i))
			snprintf(bypass + strlen(bypass),
				 sizeof(bypass) - strlen(bypass), "%s%s",
				 *bypass ? ", " : "", kb_bypass_str(i));
	kb_print_obj_begin(o, NULL);
	if (kb_out_is_json(o)) {
		kb_print_str(o, KB_PRINT_JSON, "filter", NULL, q->name);
		kb_print_str(o, KB_PRINT_JSON, "digest", NULL,
			     kb_digest_str(q->mode));
		json_ns(o->j, "since", q->since);
		json_ns(o->j, "until", q->until == UINT64_MAX ? 0 : q->until);
		kb_json_time(o->j, "oldest", q->qc.oldest);
		kb_print_arr_begin(o, "bypass");
		for (i = 0; i < 32; i++)
			if (bypass_bits(q) & (1u << i))
				kb_print_str(o, KB_PRINT_JSON, NULL, NULL,
					     kb_bypass_str(i));
		kb_print_arr_end(o);
		kb_print_arr_begin(o, "windows");
		for (i = 0; i < q->qc.nwin; i++)
			if (in_range(q, &q->qc.win[i]))
				kb_window_json(o->j, &q->qc.win[i]);
		kb_print_arr_end(o);
	}
	kb_time_str(q->qc.oldest, false, old, sizeof(old));
	kb_print_arr_begin(o, "packets");
	for (i = 0; i < q->n; i++) {
		p = &q->p[i];
		kb_print_obj_begin(o, NULL);
		kb_print_u64(o, KB_PRINT_ANY, "index", "%llu ", p->index);
		if (kb_out_is_json(o)) {
			json_ns(o->j, "ts", p->ts);
			kb_print_u64(o, KB_PRINT_JSON, "ts_ns", NULL, p->ts);
			if (q->by_capture) {
				packet_range(q, p, &since, &until);
				json_ns(o->j, "since", since);
				json_ns(o->j, "until", until);
			}
		} else if (q->pcap) {
			kb_print_text(o, "%s ",
				      kb_time_str(p->ts, false, ts, sizeof(ts)));
		}
		kb_print_str(o, KB_PRINT_ANY, "description", "%s: ", p->desc);
		if (p->skip) {
			kb_print_str(o, KB_PRINT_JSON, "status", NULL,
				     "no digest");
			kb_print_str(o, KB_PRINT_ANY, "skip", "no digest (%s)\n",
				     kb_skip_str(p->skip));
			kb_print_obj_end(o);
			nskipped++;
			continue;
		}
		kb_print_str(o, KB_PRINT_JSON, "digest", NULL, p->digest);
		kb_print_arr_begin(o, "windows");
		shown = 0;
		hits = kb_query_client_hits(&q->qc, i, &nhits);
		for (h = 0; h < nhits; h++) {
			w = find_window(q, hits[h]);
			if (!w || !packet_in_range(q, p, w))
				continue;
			kb_print_text(o, "%swindow ", shown++ ? ", " : "");
			kb_print_u64(o, KB_PRINT_ANY, NULL, "%llu", w->id);
			kb_print_text(o, " (%s)", kb_window_span(w));
		}
		kb_print_arr_end(o);
		st = status(q, p);
		kb_print_bool(o, KB_PRINT_JSON, "present", NULL,
			      st == QS_PRESENT);
		kb_print_str(o, KB_PRINT_JSON, "status", NULL, status_str(st));
		switch (st) {
		case QS_PRESENT:
			npresent++;
			break;
		case QS_ABSENT:
			kb_print_text(o, "absent");
			nabsent++;
			break;
		case QS_ABSENT_PART:
			kb_print_text(o, "absent from the oldest window on (%s), not recorded before",
				      old);
			nunrec++;
			break;
		case QS_BEFORE:
			kb_print_text(o, "not recorded (before the oldest window, %s)",
				      old);
			nunrec++;
			break;
		case QS_AFTER:
			kb_print_text(o, "not recorded (after now)");
			nunrec++;
			break;
		case QS_UNSEEN:
			kb_print_text(o, "not seen (its attachment may be passed by: %s)",
				      bypass);
			nunrec++;
			break;
		}
		kb_print_text(o, "\n");
		kb_print_obj_end(o);
	}
	kb_print_arr_end(o);
	kb_print_u64(o, KB_PRINT_ANY, "packets_total", "%llu packets: ", q->n);
	kb_print_u64(o, KB_PRINT_ANY, "present", "%llu present, ", npresent);
	kb_print_u64(o, KB_PRINT_ANY, "absent", "%llu absent, ", nabsent);
	kb_print_u64(o, KB_PRINT_ANY, "not_recorded", "%llu not recorded, ",
		     nunrec);
	kb_print_u64(o, KB_PRINT_ANY, "skipped", "%llu skipped\n", nskipped);
	kb_print_obj_end(o);
}

/* The digest mode: given, the attachment's, or spie (multi: multi). */
static int pick_mode(struct query *q, const char *given)
{
	const struct kb_desc *d = &q->desc;
	bool multi = kb_utype_tuples(d->p.type);
	int mode;

	if (given) {
		mode = kb_digest_parse(given);
		if (mode < 0) {
			errorf("invalid digest '%s': one of %s", quote(given),
			       kb_digest_list);
			return -1;
		}
	} else if (d->have & KB_HAVE_ATTACH) {
		mode = d->attach.digest;
	} else {
		mode = multi ? KBLOOM_DIGEST_MULTI : KBLOOM_DIGEST_SPIE;
	}
	if (mode < 1 || mode > KBLOOM_DIGEST_MAX) {
		errorf("unable to query filter '%s': it is attached with digest mode %d, unknown to this bloomctl (give 'digest MODE')",
		       quote(q->name), mode);
		return -1;
	}
	if (mode == KBLOOM_DIGEST_MULTI && (!multi || d->dims.n != 3)) {
		errorf("unable to query filter '%s' by digest multi: that needs a multi filter of 3 dimensions (src, dst, dst port), '%s' is %s%s",
		       quote(q->name), quote(q->name), kb_type_str(d->p.type),
		       multi ? " of another number of dimensions" : "");
		return -1;
	}
	if (mode != KBLOOM_DIGEST_MULTI && multi) {
		errorf("unable to query filter '%s' by digest %s: a multi filter takes digest multi",
		       quote(q->name), kb_digest_str(mode));
		return -1;
	}
	q->mode = mode;
	return 0;
}

static int parse_time(const char *kw, const char *s, uint64_t now,
		      uint64_t *ns)
{
	char why[160];

	if (kb_time_parse(s, now, ns, why, sizeof(why))) {
		errorf("invalid %s '%s': %s", kw, quote(s), why);
		return -1;
	}
	return 0;
}

static int by_id(const void *a, const void *b)
{
	const struct kb_window_desc *x = a, *y = b;

	return x->id < y->id ? -1 : x->id > y->id;
}

static void query_free(struct query *q)
{
	size_t i;

	for (i = 0; i < q->n; i++) {
		free(q->p[i].desc);
		free(q->p[i].digest);
	}
	free(q->p);
	if (q->qc_init)
		kb_query_client_free(&q->qc);
}

int cmd_query(int argc, char **argv)
{
	struct kwarg kw[Q_NUM] = {
		[Q_PACKET] = { "packet" },
		[Q_PCAP] = { "pcap" },
		[Q_DIGEST] = { "digest" },
		[Q_SINCE] = { "since" },
		[Q_UNTIL] = { "until" },
		[Q_SLACK] = { "slack" },
	};
	static uint8_t pkt[KBLOOM_PACKET_MAX];
	static struct query q;
	struct kb_pcap_counts counts;
	struct kb_out out;
	struct json j;
	char why[160];
	size_t len = 0, i;
	int ret = EXIT_ERROR, r;

	memset(&q, 0, sizeof(q));
	if (argc < 2) {
		usage_errorf(argv[0], "missing filter NAME");
		return EXIT_ERROR;
	}
	q.name = argv[1];
	if (!check_name(q.name))
		return EXIT_ERROR;
	if (kwargs_parse(argv[0], argc, argv, 2, kw, Q_NUM))
		return EXIT_ERROR;
	if (!kw[Q_PACKET].val == !kw[Q_PCAP].val) {
		usage_errorf(argv[0], "%s",
			     kw[Q_PACKET].val ? "give 'packet HEX' or 'pcap FILE', not both" :
			     "missing 'packet HEX' or 'pcap FILE'");
		return EXIT_ERROR;
	}
	q.now = kb_now_ns();
	q.until = UINT64_MAX;
	q.since_given = kw[Q_SINCE].val;
	if (kw[Q_SINCE].val &&
	    parse_time("since", kw[Q_SINCE].val, q.now, &q.since))
		return EXIT_ERROR;
	if (kw[Q_UNTIL].val &&
	    parse_time("until", kw[Q_UNTIL].val, q.now, &q.until))
		return EXIT_ERROR;
	if (q.since > q.until) {
		errorf("invalid since '%s': after until '%s'",
		       quote(kw[Q_SINCE].val), quote(kw[Q_UNTIL].val));
		return EXIT_ERROR;
	}
	if (kw[Q_SLACK].val && !kw[Q_PCAP].val) {
		errorf("invalid slack '%s': it is around a capture time, and packet HEX has none",
		       quote(kw[Q_SLACK].val));
		return EXIT_ERROR;
	}
	if (kw[Q_SLACK].val && (kw[Q_SINCE].val || kw[Q_UNTIL].val)) {
		errorf("invalid slack '%s': since and until give the range already",
		       quote(kw[Q_SLACK].val));
		return EXIT_ERROR;
	}
	q.slack = SLACK_DEFAULT_MS * KB_NS_PER_MS;
	if (kw[Q_SLACK].val &&
	    kb_duration_ns_parse(kw[Q_SLACK].val, &q.slack, why, sizeof(why))) {
		errorf("invalid slack '%s': %s", quote(kw[Q_SLACK].val), why);
		return EXIT_ERROR;
	}
	q.by_capture = kw[Q_PCAP].val && !kw[Q_SINCE].val && !kw[Q_UNTIL].val;
	if (kw[Q_PACKET].val &&
	    kb_hex_packet_parse(kw[Q_PACKET].val, pkt, sizeof(pkt), &len, why,
				sizeof(why))) {
		errorf("invalid packet '%s': %s", quote(kw[Q_PACKET].val), why);
		return EXIT_ERROR;
	}

	if (open_netlink(&q.nl))
		return EXIT_ERROR;
	if (kb_desc_get(&q.nl, q.name, &q.desc)) {
		kb_nl_perror(&q.nl, "unable to query filter '%s'",
			     quote(q.name));
		goto out;
	}
	if (kb_utype_records(q.desc.p.type)) {
		if (kw[Q_DIGEST].val) {
			errorf("invalid digest '%s': a transforms table is looked up by the packet's addresses and ports",
			       quote(kw[Q_DIGEST].val));
			goto out;
		}
		ret = query_transforms(&q.nl, q.name, kw[Q_PCAP].val, pkt, len,
				       q.since, q.until,
				       q.by_capture ? q.slack : 0);
		goto out;
	}
	if (pick_mode(&q, kw[Q_DIGEST].val))
		goto out;
	kb_query_client_init(&q.qc, &q.nl, q.name);
	q.qc_init = true;
	for (i = 0; i < q.desc.nwin; i++)
		kb_window_note(&q.qc.win, &q.qc.nwin, &q.qc.cap_win,
			       &q.desc.win[i]);

	if (kw[Q_PACKET].val) {
		if (add_packet(&q, 1, 0, pkt, len))
			goto out;
	} else {
		q.pcap = true;
		r = kb_pcap_each(kw[Q_PCAP].val, pcap_packet, &q, &counts, why,
				 sizeof(why));
		if (q.failed)
			goto out;
		if (r) {
			errorf("unable to read capture '%s': %s",
			       quote(kw[Q_PCAP].val), why);
			goto out;
		}
	}
	if (kb_query_client_flush(&q.qc)) {
		keybatch_perror(&q.qc.batch, "query");
		goto out;
	}
	if (q.qc.nwin)
		qsort(q.qc.win, q.qc.nwin, sizeof(*q.qc.win), by_id);
	kb_out_stdout(&out, &j, opts.json);
	render(&out, &q);
	ret = EXIT_OK;
	for (i = 0; i < q.n; i++)
		if (!q.p[i].skip && !present(&q, &q.p[i]))
			ret = EXIT_NEGATIVE;
out:
	query_free(&q);
	kb_nl_close(&q.nl);
	return ret;
}

/* Its entry in the command table of bloomctl.c. */
const struct kb_command kb_cmd_query = {
	.name = "query",
	.fn = cmd_query,
	.summary = "did these packets pass here, and when?",
	.usage =
		"NAME packet HEX [digest MODE] [since TIME] [until TIME]\n"
		"NAME pcap FILE [digest MODE] [since TIME] [until TIME | slack DURATION]\n"
		"NAME { packet HEX | pcap FILE } [since TIME] [until TIME | slack DURATION]  (transforms)\n",
	.help =
		"Reduces each packet to its digest (the module's own code, compiled\n"
		"into bloomctl) and asks filter NAME which of its windows hold it.\n"
		"  packet HEX     one packet from its IP header on, in hex; blanks and\n"
		"                 ':' may separate bytes (up to {PACKET_MAX} bytes)\n"
		"  pcap FILE      every IPv4 and IPv6 packet of a capture (tcpdump -w;\n"
		"                 Ethernet, raw IP or Linux cooked; '-' for stdin)\n"
		"  digest MODE    spie, flow, src, dst or multi (see 'bloomctl attach\n"
		"                 --help'); default: the mode the filter is attached\n"
		"                 with, else spie (multi for a multi filter)\n"
		"  since TIME     count only windows that overlap [since, until]\n"
		"  until TIME     (default: from the oldest window to now; the packets\n"
		"                 of a capture: see slack)\n"
		"  slack DURATION with neither since nor until, each packet of a\n"
		"                 capture counts the windows overlapping [TIME - slack,\n"
		"                 TIME + slack] around its capture time TIME (2s): the\n"
		"                 capture may be taken before or after this router, on\n"
		"                 a clock within slack of the router's\n"
		"TIME is a local time 2026-11-22T07:31:30[.mmm] (or with Z or +HH:MM\n"
		"for UTC and offsets), @SECONDS since the epoch (@1700000000.5), -D\n"
		"for D ago (-5m; D as for 'create ... interval') or now. Prints a line\n"
		"per packet, then a summary:\n"
		"  INDEX [TIME] DESCRIPTION: window ID (START to END)[, window ...]\n"
		"  INDEX [TIME] DESCRIPTION: absent\n"
		"  INDEX [TIME] DESCRIPTION: absent from the oldest window on (START),\n"
		"                            not recorded before\n"
		"  INDEX [TIME] DESCRIPTION: not recorded (before the oldest window, START)\n"
		"  INDEX [TIME] DESCRIPTION: not recorded (after now)\n"
		"  INDEX [TIME] DESCRIPTION: not seen (its attachment may be passed by: BYPASS)\n"
		"  INDEX [TIME] DESCRIPTION: no digest (REASON)\n"
		"  N packets: P present, A absent, U not recorded, S skipped\n"
		"where INDEX is the frame's place in the capture (1 for packet HEX),\n"
		"TIME its capture time, DESCRIPTION \"PROTO SRC > DST\" and windows\n"
		"run from START to END ('now' while open). A filter that is not\n"
		"time-paged has one window, since its creation. The filter holds\n"
		"what passed from the start of its oldest window to now: a range\n"
		"that ends before it or starts after now is 'not recorded', one\n"
		"that starts before it is absent only from the oldest window on;\n"
		"both count as not recorded. 'present' may be a false positive;\n"
		"'absent' is certain. With -j, one JSON object:\n"
		"  {\"filter\",\"digest\",\"since\",\"until\",\"oldest\",\"oldest_ns\",\"bypass\",\n"
		"   \"windows\":[{\"id\",\"start\",\"start_ns\",\"end\",\"end_ns\",\n"
		"   \"packets\",\"fill\"},...],\"packets\":[{\"index\",\"ts\",\"ts_ns\",\n"
		"   [\"since\",\"until\" (by its capture time)],\n"
		"   \"description\",\"digest\",\"windows\":[ID,...],\"present\",\"status\"}\n"
		"   or {...,\"status\":\"no digest\",\"skip\":REASON},...],\n"
		"   \"packets_total\",\"present\",\"absent\",\"not_recorded\",\"skipped\"}\n"
		"status: \"present\", \"absent\", \"absent in part\", \"not recorded\" or\n"
		"\"not seen\" (absent where the attachment may be passed by: 'show'\n"
		"says what, as 'bypass'; counted as not recorded).\n"
		"Exit status: 0 every packet with a digest present, 1 some absent or\n"
		"not recorded (wholly or in part), 2 error.\n"
		"On a transforms table (no digest mode): each packet, as it left the\n"
		"router, is looked up in the windows overlapping [since, until]; each\n"
		"record found gives the packet as it arrived, and its spie digest (what\n"
		"the routers before this one recorded):\n"
		"  INDEX [TIME] DESCRIPTION: SNAT A <- B (window ID), before:\n"
		"                            DESCRIPTION, digest 0x...[; ...]\n"
		"  INDEX [TIME] DESCRIPTION: not transformed here\n"
		"  N packets: T transformed, U not\n"
		"(A <- B: as it left <- as it arrived; SNAT for the source, DNAT for\n"
		"the destination). With -j, per packet {\"packet\",\"time\",\"time_ns\",\n"
		"\"description\",\"transforms\":[{\"window\",\"transform\",\"before\",\n"
		"\"before_digest\",\"before_packet\"},...]} (an array for pcap). Exit\n"
		"status: 0 every packet transformed, 1 some not, 2 error.\n",
};
