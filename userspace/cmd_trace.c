// SPDX-License-Identifier: GPL-2.0 OR MIT
/*
 * trace TOPOLOGY from ROUTER { pcap FILE [packet N] | packet HEX }
 *       [at TIME] [slack DURATION] [victim PREFIX[,PREFIX...]]
 *       [parallel N] [timeout DURATION] [reuse yes|no] [dot FILE]
 *
 * Hash-based IP traceback (SPIE): walks upstream from the victim's router
 * through the routers of the topology file (topology.h), asking at each
 * step every router next to the path which of its windows hold the
 * packets (traceback.h; the backends in trace_backend.h), and prints the
 * graph of routers that saw each packet, its ingress routers, per hop the
 * window and its false positive rate, and the expected number of false
 * branches; with 'dot FILE', also the picture of it (trace_dot.h: FILE
 * '-' is standard output, and then nothing else is printed there).
 * Packets the victim sent (outgoing in a capture that records
 * direction, or from a source in 'victim') are left out, each said so.
 * Contract: docs/trace.md.
 *
 * Routers that cannot be asked are unknown on the path, and the walk goes
 * on through their neighbours.
 *
 * Exit: 0 every packet traced to at least FROM and every router asked
 * answered, 1 some packet absent at FROM, not traceable, without a digest
 * or unknown at FROM, or none left to trace, or some router could not be
 * asked, 2 error (the walk did not run).
 */
#include <errno.h>
#include <pthread.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "commands.h"
#include "describe.h"
#include "digestfmt.h"
#include "json.h"
#include "kwargs.h"
#include "pcapdl.h"
#include "pcapfile.h"
#include "pktxform.h"
#include "pktfmt.h"
#include "print.h"
#include "progress.h"
#include "timefmt.h"
#include "topology.h"
#include "trace_backend.h"
#include "trace_dot.h"
#include "traceback.h"
#include "util.h"
#include "victim.h"

#define SLACK_DEFAULT_MS	2000
#define PARALLEL_DEFAULT	16
#define PARALLEL_MAX		256
#define TIMEOUT_DEFAULT_MS	60000

enum {
	T_FROM, T_PCAP, T_PACKET, T_AT, T_SLACK, T_VICTIM, T_PARALLEL,
	T_TIMEOUT, T_REUSE, T_DOT, T_NUM
};

/* Why a packet is left out: the victim sent it. */
enum { LEFT_NO, LEFT_OUTGOING, LEFT_VICTIM };

struct tpkt {
	uint64_t index;
	uint64_t at;		/* ns */
	uint8_t *data;
	uint32_t len;
	uint32_t skip;		/* no spie digest: the reason */
	char desc[256];
	char digest[KB_DIGEST_STR_MAX];
	long res;		/* index into the results, or -1 */
	long frag;		/* an IPv4 or IPv6 fragment: its index in frags */
	uint8_t *whole;		/* then the head of the packet it was cut
				 * from, when the capture holds its first
				 * and last fragments (pktxform.h)
				 */
	uint32_t wlen;
	int left;		/* LEFT_*: not traced, the victim sent it */
	const struct kb_prefix *left_by;	/* LEFT_VICTIM: the prefix */
};

struct trace {
	struct kb_topo topo;
	char **why;		/* per router: why it is unknown, or NULL */
	size_t from;
	uint64_t slack;		/* ns */
	bool have_at;
	uint64_t at;
	uint64_t want_index;	/* packet N of the capture; 0: every one */
	struct kb_victim victim;	/* 'victim PREFIX,...' (n 0: none) */
	struct tpkt *p;
	size_t n, cap;
	/* The capture's IPv4 fragments, traced or not (their siblings). */
	struct pkt_frag_ref *frags;
	size_t nfrags, capfrags;
	int failed;
};

/*
 * Bytes kept of a reassembled head: the digests need 128 at most
 * (KB_DIGEST_SPAN), NAT inversion no more than were kept.
 */
#define WHOLE_MAX	256

static bool is_fragment(const uint8_t *d, uint32_t len)
{
	return pkt_is_fragment(d, len);
}

/* Keeps fragment @data for the reassembly of its siblings: its index. */
static long keep_fragment(struct trace *t, const uint8_t *data, uint32_t len)
{
	uint8_t *copy;

	if (t->nfrags == t->capfrags) {
		size_t cap = t->capfrags ? 2 * t->capfrags : 16;
		void *nf = realloc(t->frags, cap * sizeof(*t->frags));

		if (!nf)
			return -1;
		t->frags = nf;
		t->capfrags = cap;
	}
	copy = malloc(len);
	if (!copy)
		return -1;
	memcpy(copy, data, len);
	t->frags[t->nfrags].pkt = copy;
	t->frags[t->nfrags].len = len;
	return (long)t->nfrags++;
}

static int keep_packet(struct trace *t, uint64_t index, uint64_t ts,
		       const uint8_t *data, uint32_t len, int dir)
{
	struct kb_digest d;
	struct tpkt *p;

	if (t->n == t->cap) {
		size_t cap = t->cap ? 2 * t->cap : 16;
		void *np = realloc(t->p, cap * sizeof(*t->p));

		if (!np)
			goto oom;
		t->p = np;
		t->cap = cap;
	}
	p = &t->p[t->n];
	memset(p, 0, sizeof(*p));
	p->index = index;
	p->at = t->have_at ? t->at : ts;
	p->len = len;
	p->data = malloc(len ? len : 1);
	if (!p->data)
		goto oom;
	memcpy(p->data, data, len);
	kb_pkt_describe(data, len, p->desc, sizeof(p->desc));
	p->skip = kb_digest(data, len, KBLOOM_DIGEST_SPIE, &d);
	if (!p->skip)
		kb_digest_fmt(&d, KBLOOM_DIGEST_SPIE, p->digest,
			      sizeof(p->digest));
	p->res = -1;
	p->frag = -1;
	if (is_fragment(data, len)) {
		p->frag = keep_fragment(t, data, len);
		if (p->frag < 0)
			goto oom;
	}
	/* Packets the victim sent: the capture says so, or their source. */
	p->left_by = kb_victim_match(&t->victim, data, len);
	if (dir == KB_PCAP_DIR_OUT)
		p->left = LEFT_OUTGOING;
	else if (p->left_by)
		p->left = LEFT_VICTIM;
	t->n++;
	return 0;
oom:
	errorf("out of memory");
	return -1;
}

/*
 * A fragment whose first and last siblings are in the capture: the head
 * of the packet a router cut it from, which the routers before that one
 * saw (pktxform.h). -1: out of memory.
 */
static int reassemble(struct trace *t, struct tpkt *p)
{
	uint32_t n;

	if (p->frag < 0)
		return 0;
	p->whole = malloc(WHOLE_MAX);
	if (!p->whole)
		return -1;
	if (pkt_defrag_head(t->frags, t->nfrags, p->frag, p->whole,
			    WHOLE_MAX, &n)) {
		free(p->whole);
		p->whole = NULL;
		return 0;
	}
	p->wlen = n;
	return 0;
}

static int pcap_packet(const struct kb_pcap_packet *pp, void *arg)
{
	struct trace *t = arg;

	if (t->want_index && pp->index != t->want_index) {
		/* Another fragment of its packet may be anywhere. */
		if (is_fragment(pp->l3, pp->caplen) &&
		    keep_fragment(t, pp->l3, pp->caplen) < 0) {
			errorf("out of memory");
			t->failed = 1;
			return 1;
		}
		return 0;
	}
	if (keep_packet(t, pp->index, pp->ts_ns, pp->l3, pp->caplen,
			pp->dir)) {
		t->failed = 1;
		return 1;
	}
	return 0;
}

/* Why @p is left out: "sent by the victim: ...". */
static const char *left_str(const struct tpkt *p, char *buf, size_t n)
{
	if (p->left == LEFT_OUTGOING)
		snprintf(buf, n, "sent by the victim: outgoing in the capture");
	else
		snprintf(buf, n, "sent by the victim: source in %s",
			 p->left_by->str);
	return buf;
}

static const char *rname(const struct trace *t, const struct tb_result *r,
			 size_t node)
{
	return t->topo.r[r->node[node].router].name;
}

static const char *why_unknown(const struct trace *t, size_t router)
{
	return t->why && t->why[router] ? t->why[router] : "not asked";
}

/*
 * One node of the walk: a line under the tree (text; @cont is what a
 * further line of the node starts with, the tree's bars), or an object of
 * "nodes" (JSON: router, window, fpr, depth, transforms; unknown instead
 * of the window when the router could not be asked).
 */
static void render_node(const struct kb_out *o, const struct trace *t,
			const struct tb_result *r, size_t x, const char *cont)
{
	const struct tb_node *nd = &r->node[x];
	struct kb_window_desc w = {
		.id = nd->win.id, .start = nd->win.start, .end = nd->win.end,
	};

	kb_print_obj_begin(o, NULL);
	kb_print_str(o, KB_PRINT_ANY, "router", "%s  ", rname(t, r, x));
	if (nd->unknown) {
		kb_print_str(o, KB_PRINT_ANY, "unknown", "unknown: %s\n",
			     why_unknown(t, nd->router));
		kb_print_str(o, KB_PRINT_JSON, "window", NULL, NULL);
		kb_print_str(o, KB_PRINT_JSON, "fpr", NULL, NULL);
		kb_print_u64(o, KB_PRINT_JSON, "depth", NULL, nd->depth);
		kb_print_obj_end(o);
		return;
	}
	kb_print_obj_begin(o, "window");
	kb_print_u64(o, KB_PRINT_ANY, "id", "window %llu", w.id);
	kb_print_text(o, " (%s)", kb_window_span(&w));
	if (kb_out_is_json(o)) {
		kb_json_time(o->j, "start", nd->win.start);
		kb_json_time(o->j, "end", nd->win.end);
	}
	kb_print_u64(o, KB_PRINT_JSON, "packets", NULL, nd->win.packets);
	kb_print_u64(o, KB_PRINT_JSON, "fill", NULL, nd->win.fill);
	kb_print_obj_end(o);
	kb_print_double(o, KB_PRINT_ANY, "fpr", ", fpr %.3g\n", nd->fpr);
	kb_print_u64(o, KB_PRINT_JSON, "depth", NULL, nd->depth);
	if (nd->xf)
		kb_print_text(o, "%s%*s  ", cont, (int)strlen(rname(t, r, x)),
			      "");
	kb_print_str(o, KB_PRINT_ANY, "transforms", "%s\n", nd->xf);
	kb_print_obj_end(o);
}

/* Text: the nodes upstream of node @x, drawn below it. */
static void render_tree(const struct kb_out *o, const struct trace *t,
			const struct tb_result *r, size_t x, char *prefix,
			size_t plen, uint8_t *shown)
{
	size_t e, last = SIZE_MAX;

	for (e = 0; e < r->nedges; e++)
		if (r->edge[e].to == x)
			last = e;
	for (e = 0; e < r->nedges; e++) {
		size_t up = r->edge[e].from;

		if (r->edge[e].to != x)
			continue;
		kb_print_text(o, "%s%s", prefix, e == last ? "`-- " : "|-- ");
		if (shown[up]) {
			kb_print_text(o, "%s (see above)\n", rname(t, r, up));
			continue;
		}
		shown[up] = 1;
		if (plen + 5 < 4096) {
			strcpy(prefix + plen, e == last ? "    " : "|   ");
			render_node(o, t, r, up, prefix);
			render_tree(o, t, r, up, prefix, plen + 4, shown);
			prefix[plen] = 0;
		} else {
			render_node(o, t, r, up, "");
		}
	}
}

/*
 * The nodes: in text the tree from node 0 (FROM) upstream, in JSON the
 * array of every node, then the edges.
 */
static void render_nodes(const struct kb_out *o, const struct trace *t,
			 const struct tb_result *r)
{
	static __thread char prefix[4096];
	uint8_t *shown;
	size_t i;

	kb_print_arr_begin(o, "nodes");
	if (kb_out_is_json(o)) {
		for (i = 0; r && i < r->nnodes; i++)
			render_node(o, t, r, i, "");
	} else {
		shown = calloc(r->nnodes, 1);
		if (!shown) {
			errorf("out of memory");
			exit(EXIT_ERROR);
		}
		shown[0] = 1;
		render_node(o, t, r, 0, "");
		prefix[0] = 0;
		render_tree(o, t, r, 0, prefix, 0, shown);
		free(shown);
	}
	kb_print_arr_end(o);
	kb_print_arr_begin(o, "edges");
	for (i = 0; r && i < r->nedges && kb_out_is_json(o); i++) {
		kb_print_obj_begin(o, NULL);
		kb_print_str(o, KB_PRINT_JSON, "from", NULL,
			     rname(t, r, r->edge[i].from));
		kb_print_str(o, KB_PRINT_JSON, "to", NULL,
			     rname(t, r, r->edge[i].to));
		kb_print_obj_end(o);
	}
	kb_print_arr_end(o);
}

/* Why a packet is not traceable past a router (enum tb_blind). */
static const char *const blind_words[] = {
	[TB_BLIND_FRAGMENT] =
		"a later fragment through its NAT: no first fragment of its datagram in the capture to find the record by",
	[TB_BLIND_ICMP_ERROR] =
		"an ICMP error about a flow its NAT rewrote: the NAT rewrote the quoted header and an outer address, which no record keeps",
	[TB_BLIND_OPAQUE] = "it came out of ",
	[TB_BLIND_FRAGMENT6] =
		"a later IPv6 fragment through its NAT: its record is found only by a whole packet's or a first fragment's ports",
	[TB_BLIND_REFRAG6] =
		"an IPv6 fragment it reassembled (it tracks connections) and cut again with an identification of its own; the one it arrived with was not kept",
	[TB_BLIND_ICMP_SENDER] =
		"an ICMP error about a flow its NAT rewrote, which set the error's source to the flow's end: no digest holds it as sent by the flow's other end (the likeliest sender), and no record keeps who sent it",
	[TB_BLIND_MERGED] =
		"it arrived there in a tunnel's packets merged by GRO, whose outer IP IDs before it were not kept; no router before it holds the ID it left with",
};

/*
 * One packet's answer. Text: its line, then (traced) the tree, the
 * ingress routers, the unknown routers next to the path and the count of
 * questions; a packet left out, without a digest or not traced ends after
 * a line saying why. JSON: one object (docs/trace.md), every field there
 * whatever the status (@r NULL for a packet left out or without digest).
 */
static void render_one(const struct kb_out *o, const struct trace *t,
		       const struct tpkt *p, const struct tb_result *r)
{
	const char *from = t->topo.r[t->from].name, *status;
	char at[KB_TIME_STR_MAX], old[KB_TIME_STR_MAX], why[96];
	bool asked = !p->left && !p->skip;
	size_t i;

	status = p->left ? "left out" :
		 p->skip ? "no digest" :
		 r->status == TB_TRACED ? "traced" :
		 r->status == TB_ABSENT ? "absent" :
		 r->status == TB_UNKNOWN ? "unknown" : "not traceable";
	kb_print_obj_begin(o, NULL);
	kb_print_u64(o, KB_PRINT_ANY, "packet", "packet %llu: ", p->index);
	kb_print_str(o, KB_PRINT_ANY, "description", "%s", p->desc);
	kb_print_str(o, KB_PRINT_JSON, "digest", NULL,
		     p->skip ? NULL : p->digest);
	if (kb_out_is_json(o))
		kb_json_time(o->j, "at", p->at);
	else
		kb_print_text(o, ", at %s",
			      kb_time_str(p->at, false, at, sizeof(at)));
	kb_print_str(o, KB_PRINT_JSON, "from", NULL, from);
	kb_print_str(o, KB_PRINT_JSON, "status", NULL, status);
	kb_print_bool(o, KB_PRINT_JSON, "traceable", NULL,
		      asked && r->status != TB_NOT_TRACEABLE &&
		      r->status != TB_UNKNOWN);
	if (p->left)
		kb_print_str(o, KB_PRINT_ANY, "left_out", ": left out (%s)\n",
			     left_str(p, why, sizeof(why)));
	if (asked)
		kb_print_text(o, ", digest %s\n", p->digest);
	if (asked && r->status == TB_UNKNOWN) {
		kb_print_text(o, "unknown at %s (", from);
		kb_print_str(o, KB_PRINT_ANY, "why", "%s)\n",
			     why_unknown(t, t->from));
	}
	if (p->skip)
		/* text: left out says it all */
		kb_print_str(o, p->left ? KB_PRINT_JSON : KB_PRINT_ANY, "skip",
			     ": no digest (%s)\n", kb_skip_str(p->skip));
	else if (r && kb_out_is_json(o))
		kb_json_time(o->j, "oldest", r->oldest);
	if (asked && r->status == TB_NOT_TRACEABLE && r->blind) {
		char blind[KB_TOPO_NAME_MAX + TB_WHAT_MAX + 160];

		snprintf(blind, sizeof(blind), "not traceable past %s (%s%s%s)",
			 t->topo.r[r->blind_at].name, blind_words[r->blind_why],
			 r->blind_why == TB_BLIND_OPAQUE ? r->blind_what : "",
			 r->blind_why == TB_BLIND_OPAQUE ?
			 " there: the routers before it carried another packet, which no record rebuilds" :
			 "");
		kb_print_str(o, KB_PRINT_ANY, "why", "%s\n", blind);
	} else if (asked && r->status == TB_NOT_TRACEABLE)
		kb_print_text(o, "not traceable (older than the oldest window, %s)\n",
			      kb_time_str(r->oldest, false, old, sizeof(old)));
	if (asked && r->status == TB_ABSENT)
		kb_print_text(o, "absent at %s (no window of [at - slack, at] holds it)\n",
			      from);
	/* A blind one's graph is drawn as far as it goes. */
	if (!kb_out_is_json(o) &&
	    (!asked || (r->status != TB_TRACED && !r->blind)))
		return;
	render_nodes(o, t, r);
	kb_print_arr_begin(o, "ingress");
	for (i = 0; r && i < r->ningress; i++) {
		if (i)
			kb_print_text(o, "%s", i == 1 ? " (" : ", ");
		kb_print_str(o, KB_PRINT_ANY, NULL, i ? "%s" : "ingress: %s",
			     rname(t, r, r->ingress[i]));
		if (i && i + 1 == r->ningress)
			kb_print_text(o, ")");
	}
	kb_print_text(o, "\n");
	kb_print_arr_end(o);
	kb_print_arr_begin(o, "unknown");
	for (i = 0; r && i < r->nunknown; i++) {
		kb_print_obj_begin(o, NULL);
		kb_print_str(o, KB_PRINT_ANY, "router",
			     "unknown next to the path: %s",
			     t->topo.r[r->unknown[i]].name);
		kb_print_str(o, KB_PRINT_ANY, "why", " (%s)\n",
			     why_unknown(t, r->unknown[i]));
		kb_print_obj_end(o);
	}
	kb_print_arr_end(o);
	kb_print_u64(o, KB_PRINT_ANY, "asked", "asked %llu router",
		     r ? r->asked : 0);
	kb_print_text(o, "%s upstream", r && r->asked == 1 ? "" : "s");
	kb_print_double(o, KB_PRINT_ANY, "expected_false_branches",
			", expected false branches: %.3g\n",
			r ? r->expected : 0);
	kb_print_obj_end(o);
}

static void trace_free(struct trace *t)
{
	size_t i;

	for (i = 0; i < t->n; i++) {
		free(t->p[i].data);
		free(t->p[i].whole);
	}
	free(t->p);
	for (i = 0; i < t->nfrags; i++)
		free((void *)t->frags[i].pkt);
	free(t->frags);
	kb_topo_free(&t->topo);
}

/* The backends, with the questions counted for the progress line. */
struct counted {
	struct trace_backends *be;
	struct progress prog;
	pthread_mutex_t lock;	/* the questions run in threads */
	uint64_t answered;
};

static int ask_counted(void *ctx, size_t r, const struct tb_item *items,
		       size_t n, struct tb_answer *a, char *err,
		       size_t errlen)
{
	struct counted *c = ctx;
	int ret = trace_backends_ask(c->be, r, items, n, a, err, errlen);

	pthread_mutex_lock(&c->lock);
	c->answered++;
	progress_update(&c->prog, c->answered, 0);
	pthread_mutex_unlock(&c->lock);
	return ret;
}

/*
 * The picture of the @ntp results (trace_dot.h), titled with what was
 * traced. 0, or -1 having said why.
 */
static int write_dot(FILE *f, const struct trace *t,
		     const struct tb_result *res, size_t ntp, const char *path)
{
	const struct tb_result **rp;
	char title[512];
	size_t i, ntraced = 0;
	int r;

	rp = calloc(ntp ? ntp : 1, sizeof(*rp));
	if (!rp) {
		errorf("out of memory");
		return -1;
	}
	for (i = 0; i < ntp; i++) {
		rp[i] = &res[i];
		ntraced += res[i].status == TB_TRACED;
	}
	if (t->n == 1)
		snprintf(title, sizeof(title), "trace from %s: packet %llu, %s",
			 t->topo.r[t->from].name,
			 (unsigned long long)t->p[0].index, t->p[0].desc);
	else
		snprintf(title, sizeof(title),
			 "trace from %s: %zu packets, %zu traced",
			 t->topo.r[t->from].name, t->n, ntraced);
	errno = 0;
	r = trace_dot_write(f, &t->topo, t->from, rp, ntp, t->why, title);
	free(rp);
	if (r) {
		errorf("unable to write dot file '%s': %s", quote(path),
		       errno ? strerror(errno) : "out of memory");
		return -1;
	}
	return 0;
}

int cmd_trace(int argc, char **argv)
{
	struct kwarg kw[T_NUM] = {
		[T_FROM] = { "from" },
		[T_PCAP] = { "pcap" },
		[T_PACKET] = { "packet" },
		[T_AT] = { "at" },
		[T_SLACK] = { "slack" },
		[T_VICTIM] = { "victim" },
		[T_PARALLEL] = { "parallel" },
		[T_TIMEOUT] = { "timeout" },
		[T_REUSE] = { "reuse" },
		[T_DOT] = { "dot" },
	};
	static uint8_t pkt[KBLOOM_PACKET_MAX];
	struct trace_backends be;
	struct tb_backend backend;
	struct counted counted = { .lock = PTHREAD_MUTEX_INITIALIZER };
	struct tb_packet *tp = NULL;
	struct tb_form *wforms = NULL;
	struct tb_result *res = NULL;
	struct kb_out out;
	struct json j;
	struct kb_pcap_counts counts;
	struct tb_stats st;
	char why[1024];
	uint64_t now, timeout_ms = TIMEOUT_DEFAULT_MS, par;
	size_t i, ntp = 0, npos = 0, nleft = 0;
	bool reuse = true, dot_stdout = false;
	FILE *dot = NULL;
	int ret = EXIT_ERROR, r;
	long from;
	struct trace t;

	memset(&t, 0, sizeof(t));
	memset(&be, 0, sizeof(be));
	memset(&st, 0, sizeof(st));
	if (argc < 2) {
		usage_errorf(argv[0], "missing the TOPOLOGY file");
		return EXIT_ERROR;
	}
	if (kwargs_parse(argv[0], argc, argv, 2, kw, T_NUM))
		return EXIT_ERROR;
	if (!kw[T_FROM].val) {
		usage_errorf(argv[0], "missing 'from ROUTER'");
		return EXIT_ERROR;
	}
	if (!kw[T_PCAP].val && !kw[T_PACKET].val) {
		usage_errorf(argv[0], "missing 'pcap FILE' or 'packet HEX'");
		return EXIT_ERROR;
	}
	now = kb_now_ns();
	if (kw[T_AT].val) {
		if (kb_time_parse(kw[T_AT].val, now, &t.at, why, sizeof(why))) {
			errorf("invalid at '%s': %s", quote(kw[T_AT].val), why);
			return EXIT_ERROR;
		}
		t.have_at = true;
	}
	t.slack = SLACK_DEFAULT_MS * KB_NS_PER_MS;
	if (kw[T_SLACK].val &&
	    kb_duration_ns_parse(kw[T_SLACK].val, &t.slack, why, sizeof(why))) {
		errorf("invalid slack '%s': %s", quote(kw[T_SLACK].val), why);
		return EXIT_ERROR;
	}
	if (kw[T_VICTIM].val &&
	    kb_victim_parse(kw[T_VICTIM].val, &t.victim, why, sizeof(why))) {
		errorf("invalid victim '%s': %s", quote(kw[T_VICTIM].val), why);
		return EXIT_ERROR;
	}
	par = PARALLEL_DEFAULT;
	if (kw[T_PARALLEL].val &&
	    (parse_u64(kw[T_PARALLEL].val, &par) || !par ||
	     par > PARALLEL_MAX)) {
		errorf("invalid parallel '%s': the number of routers asked at once, 1 to %d",
		       quote(kw[T_PARALLEL].val), PARALLEL_MAX);
		return EXIT_ERROR;
	}
	if (kw[T_TIMEOUT].val &&
	    (kb_duration_parse(kw[T_TIMEOUT].val, &timeout_ms, why,
			       sizeof(why)) || !timeout_ms)) {
		errorf("invalid timeout '%s': %s", quote(kw[T_TIMEOUT].val),
		       timeout_ms ? why : "must be longer than 0");
		return EXIT_ERROR;
	}
	if (kw[T_REUSE].val) {
		if (!strcmp(kw[T_REUSE].val, "no")) {
			reuse = false;
		} else if (strcmp(kw[T_REUSE].val, "yes")) {
			errorf("invalid reuse '%s': yes or no",
			       quote(kw[T_REUSE].val));
			return EXIT_ERROR;
		}
	}
	if (kw[T_PCAP].val && kw[T_PACKET].val &&
	    (parse_u64(kw[T_PACKET].val, &t.want_index) || !t.want_index)) {
		errorf("invalid packet '%s': with pcap, the index of a frame of the capture (1, 2, ...)",
		       quote(kw[T_PACKET].val));
		return EXIT_ERROR;
	}
	if (kw[T_DOT].val && !strcmp(kw[T_DOT].val, "-")) {
		if (opts.json) {
			errorf("'dot -' and -j would both write standard output: give 'dot FILE'");
			return EXIT_ERROR;
		}
		dot_stdout = true;
	}
	if (kb_topo_load(argv[1], &t.topo, why, sizeof(why))) {
		errorf("invalid topology: %s", why);
		return EXIT_ERROR;
	}
	from = kb_topo_find(&t.topo, kw[T_FROM].val);
	if (from < 0) {
		errorf("invalid from '%s': no such router in %s",
		       quote(kw[T_FROM].val), t.topo.path);
		goto out;
	}
	t.from = from;
	if (t.topo.r[from].kind == KB_TOPO_NONE) {
		errorf("invalid from '%s': router %s records nothing (declared 'none' on line %u of %s); start at a router next to the victim that does",
		       quote(kw[T_FROM].val), t.topo.r[from].name,
		       t.topo.r[from].line, t.topo.path);
		goto out;
	}
	/* Before the walk: a file that cannot be written fails at once. */
	if (kw[T_DOT].val) {
		dot = dot_stdout ? stdout : fopen(kw[T_DOT].val, "w");
		if (!dot) {
			errorf("unable to write dot file '%s': %m",
			       quote(kw[T_DOT].val));
			goto out;
		}
	}

	if (!kw[T_PCAP].val) {
		size_t len;

		if (kb_hex_packet_parse(kw[T_PACKET].val, pkt, sizeof(pkt),
					&len, why, sizeof(why))) {
			errorf("invalid packet '%s': %s",
			       quote(kw[T_PACKET].val), why);
			goto out;
		}
		if (keep_packet(&t, 1, now, pkt, len, KB_PCAP_DIR_UNKNOWN))
			goto out;
	} else {
		r = kb_pcap_each(kw[T_PCAP].val, pcap_packet, &t, &counts, why,
				 sizeof(why));
		if (t.failed)
			goto out;
		if (r < 0) {
			errorf("unable to read capture '%s': %s",
			       quote(kw[T_PCAP].val), why);
			goto out;
		}
		if (!t.n) {
			if (t.want_index)
				errorf("invalid packet '%s': capture '%s' has no IP packet %llu",
				       quote(kw[T_PACKET].val),
				       quote(kw[T_PCAP].val),
				       (unsigned long long)t.want_index);
			else
				errorf("capture '%s' holds no IP packet",
				       quote(kw[T_PCAP].val));
			goto out;
		}
	}

	tp = calloc(t.n, sizeof(*tp));
	wforms = calloc(t.n, sizeof(*wforms));
	res = calloc(t.n, sizeof(*res));
	st.per_router = calloc(t.topo.n, sizeof(*st.per_router));
	if (!tp || !wforms || !res || !st.per_router) {
		errorf("out of memory");
		goto out;
	}
	if (trace_backends_init(&be, &t.topo, opts.netns, reuse, why,
				sizeof(why))) {
		errorf("%s", why);
		goto out;
	}
	be.timeout_ms = timeout_ms;
	for (i = 0; i < t.n; i++) {
		if (t.p[i].skip || t.p[i].left)
			continue;
		t.p[i].res = ntp;
		tp[ntp].pkt = t.p[i].data;
		tp[ntp].len = t.p[i].len;
		tp[ntp].at = t.p[i].at;
		if (reassemble(&t, &t.p[i])) {
			errorf("out of memory");
			goto out;
		}
		if (t.p[i].whole) {
			wforms[ntp].pkt = t.p[i].whole;
			wforms[ntp].len = t.p[i].wlen;
			tp[ntp].alt = &wforms[ntp];
			tp[ntp].nalt = 1;
		}
		ntp++;
	}
	/* A remote router that hangs up must not kill us with SIGPIPE. */
	signal(SIGPIPE, SIG_IGN);
	/*
	 * libpcap loaded here, before the walk's threads write captures
	 * (when it is missing, each ssh router says so: it is unknown)
	 */
	for (i = 0; i < t.topo.n; i++)
		if (t.topo.r[i].kind == KB_TOPO_SSH) {
			kb_pcap_api(why, sizeof(why));
			break;
		}
	counted.be = &be;
	progress_start(&counted.prog, false, 0, "questions answered",
		       "trace from %s (%zu routers)", t.topo.r[t.from].name,
		       t.topo.n);
	backend.ask = ask_counted;
	backend.ctx = &counted;
	backend.parallel = par;
	why[0] = 0;
	r = ntp ? tb_trace(&t.topo, t.from, tp, ntp, t.slack, &backend, res,
			   &st, why, sizeof(why)) : 0;
	progress_end(&counted.prog);
	if (r) {
		if (why[0])
			errorf("unable to trace: %s", why);
		goto out;
	}
	t.why = st.why;

	if (dot && write_dot(dot, &t, res, ntp, kw[T_DOT].val)) {
		ret = EXIT_ERROR;
		goto out;
	}
	if (dot_stdout) {
		/* standard output is the picture's */
	} else {
		kb_out_stdout(&out, &j, opts.json);
		if (t.n > 1)
			kb_print_arr_begin(&out, NULL);
		for (i = 0; i < t.n; i++) {
			if (i)
				kb_print_text(&out, "\n");
			render_one(&out, &t, &t.p[i],
				   t.p[i].res < 0 ? NULL : &res[t.p[i].res]);
		}
		if (t.n > 1)
			kb_print_arr_end(&out);
	}
	ret = st.failed ? EXIT_NEGATIVE : EXIT_OK;
	for (i = 0; i < t.n; i++) {
		if (t.p[i].left)
			nleft++;
		else if (t.p[i].res >= 0 && res[t.p[i].res].status == TB_TRACED)
			npos++;
		else
			ret = EXIT_NEGATIVE;
	}
	if (!npos)		/* nothing traced, if only as all were left out */
		ret = EXIT_NEGATIVE;
	if (!opts.json && !dot_stdout && t.n > 1) {
		printf("\n%zu packets: %zu traced, %zu not", t.n, npos,
		       t.n - npos - nleft);
		if (nleft)
			printf(", %zu left out (sent by the victim)", nleft);
		printf("; %zu steps, %zu questions\n", st.steps, st.questions);
	}
	if (getenv("KBLOOM_TRACE_STATS")) {
		fprintf(stderr, "trace: %zu steps, %zu questions", st.steps,
			st.questions);
		for (i = 0; i < t.topo.n; i++)
			if (st.per_router[i])
				fprintf(stderr, ", %s %zu", t.topo.r[i].name,
					st.per_router[i]);
		fputc('\n', stderr);
	}
	if (st.failed && !opts.json && !dot_stdout)
		printf("%spartial: %zu router%s could not be asked\n",
		       t.n > 1 ? "" : "\n", st.failed,
		       st.failed == 1 ? "" : "s");
out:
	if (dot && dot != stdout && fclose(dot) && ret != EXIT_ERROR) {
		errorf("unable to write dot file '%s': %m",
		       quote(kw[T_DOT].val));
		ret = EXIT_ERROR;
	}
	/* No picture of a trace that did not run. */
	if (dot && dot != stdout && ret == EXIT_ERROR)
		unlink(kw[T_DOT].val);
	if (res)
		tb_results_free(res, ntp);
	free(res);
	free(tp);
	free(wforms);
	free(st.per_router);
	tb_stats_free(&st, t.topo.n);
	trace_backends_free(&be);
	trace_free(&t);
	return ret;
}

/* Its entry in the command table of bloomctl.c. */
const struct kb_command kb_cmd_trace = {
	.name = "trace",
	.fn = cmd_trace,
	.summary = "trace a packet upstream through routers",
	.usage =
		"TOPOLOGY from ROUTER pcap FILE [packet N] [at TIME] [slack DURATION] [victim PREFIX[,PREFIX...]] [parallel N] [timeout DURATION] [reuse yes|no] [dot FILE]\n"
		"TOPOLOGY from ROUTER packet HEX [at TIME] [slack DURATION] [victim PREFIX[,PREFIX...]] [parallel N] [timeout DURATION] [reuse yes|no] [dot FILE]\n",
	.help =
		"Hash-based IP traceback (SPIE): finds the routers a packet passed\n"
		"through, even with a forged source, from the digest tables ('attach\n"
		"... digest spie' on time-paged filters) of the routers listed in the\n"
		"TOPOLOGY file, one statement a line ('#' comments):\n"
		"  router NAME netns NETNS filter FILTER     a namespace here ('-': this\n"
		"                                            one, or -n's)\n"
		"  router NAME archive DIR filter FILTER     windows of 'bloomctl archive'\n"
		"  ... [transforms TABLE]                    (netns, archive, ssh) its NAT's\n"
		"                                            transforms table (below)\n"
		"  router NAME ssh [USER@]HOST filter FILTER [netns NETNS] [port N]\n"
		"         [identity FILE] [config FILE] [bloomctl PATH] [transforms TABLE]\n"
		"                                            a remote router: runs\n"
		"                                            'PATH -j query' there over ssh\n"
		"                                            (and 'PATH save TABLE -')\n"
		"  router NAME none                          records nothing (no kbloom):\n"
		"                                            stepped over, never asked\n"
		"  link NAME NAME                            neighbours (undirected)\n"
		"Relative paths are taken from the TOPOLOGY file's directory.\n"
		"  from ROUTER     the router next to the victim: the walk starts there\n"
		"  pcap FILE       every IP packet of the capture is traced ('packet N':\n"
		"                  only frame N); packet HEX: one packet from its IP header\n"
		"  at TIME         when the victim saw it (default: its capture time;\n"
		"                  now for packet HEX); TIME as for 'query'\n"
		"  slack DURATION  how long before 'at' a hop may have seen it (2s)\n"
		"  victim PREFIX,...  the victim's addresses (ADDR or ADDR/LEN, IPv4 or\n"
		"                  IPv6): packets from them are left out, as the victim\n"
		"                  sent them; so are those a capture records as outgoing\n"
		"                  (Linux cooked captures: tcpdump -i any). Capture with\n"
		"                  'tcpdump -Q in' to record only what the victim received\n"
		"  parallel N      routers asked at once in a step, 1 to 256 (16)\n"
		"  timeout DURATION  an ssh question not answered by then is killed and\n"
		"                  its router unknown (60s)\n"
		"  reuse no        one ssh connection per question, not one per router\n"
		"                  for the whole trace (OpenSSH ControlMaster; yes)\n"
		"  dot FILE        also draw the trace as a Graphviz DOT graph in FILE\n"
		"                  ('-': standard output, alone there; not with -j):\n"
		"                  every router and link grey, the traced edges red,\n"
		"                  each hop with its window and fpr, the ingress\n"
		"                  filled red (render: dot -Tsvg FILE -o trace.svg)\n"
		"Breadth first from ROUTER, each step asks every router next to the\n"
		"path (and not yet asked) about all its pending packets at once; a\n"
		"router joins the path when one of its windows overlapping [at - slack,\n"
		"at] holds the packet's digest. A router that cannot be asked (down,\n"
		"no filter, a failing remote bloomctl, the timeout) or declared 'none'\n"
		"is 'unknown' on the path, with the reason, and its neighbours are\n"
		"asked in its place; one with no router beyond it that saw the packet\n"
		"is listed as 'unknown next to the path'. Prints per packet the graph\n"
		"from ROUTER upstream, each hop with its window and false positive rate\n"
		"(from the window's fill), the ingress routers (the deepest first; those\n"
		"where false positives branch it in parentheses), the routers asked and\n"
		"the expected number of false branches (from the routers that answered\n"
		"absent: each rate p adds p / (1 - p), docs/trace.md). A\n"
		"packet older than ROUTER's oldest window is 'not traceable', not absent;\n"
		"so is a later fragment past a NAT router when the capture holds no\n"
		"first fragment of its datagram to find the NAT's record by.\n"
		"Through NAT and tunnels: a router with 'transforms TABLE' looks each\n"
		"packet up in its transforms table (windows overlapping [at - slack,\n"
		"at]; see 'bloomctl create --help'); a record found turns the packet\n"
		"back into what arrived there (NAT undone, conntrack's or stateless:\n"
		"NPTv6; or the outer packet of an\n"
		"IPIP, 6in4, GRE, VXLAN or GENEVE tunnel, or over IPv6 of a 4in6, 6in6,\n"
		"GRE6, VXLAN6 or GENEVE6 one), its hop prints the transform (\"SNAT A <- B (window\n"
		"ID)\", \"GRE A > B id N\", \"4in6 A > B flowlabel 0xF encaplimit 4\"),\n"
		"and the\n"
		"routers upstream are asked about that form too. A packet that arrived\n"
		"at its ingress only\n"
		"in a tunnel's packets merged by GRO (their outer IDs before it not\n"
		"kept) is 'not traceable past' that router, never its ingress.\n"
		"Fragments: a fragment whose first and last siblings are in the\n"
		"capture is also asked about as the packet it was cut from (what the\n"
		"routers before the fragmenting one saw).\n"
		"With -j, a JSON object per packet (an array for several): see\n"
		"docs/trace.md. $KBLOOM_SSH names the ssh program (default ssh).\n"
		"Left-out packets are listed ('left out (sent by the victim: ...)') and\n"
		"counted, never traced. Exit status: 0 every packet not left out traced\n"
		"to at least ROUTER and every router asked answered, 1 some packet\n"
		"absent there, not traceable, without a digest or unknown there, none\n"
		"left to trace, or some router could not be asked (a partial trace),\n"
		"2 error (bad topology or arguments: nothing was traced).\n",
};
