/* SPDX-License-Identifier: GPL-2.0 OR MIT */
/*
 * The traceback walk of 'bloomctl trace' (docs/trace.md), pure C over a
 * backend that answers, for one router, which of its windows hold each of
 * a batch of packets.
 *
 * The walk, for n packets at once, breadth first from router FROM:
 *   step 0   FROM is asked about every packet. A packet is NOT TRACEABLE
 *            when at - slack precedes the start of FROM's oldest retained
 *            window and windows were dropped before it (its ID is not 1)
 *            or at itself precedes it; else ABSENT when no window of FROM
 *            overlapping [at - slack, at] holds it; else FROM is the root
 *            of its graph (depth 0). A packet found at a router whose
 *            answer marks it blind (a later fragment its NAT may have
 *            rewritten, no record to undo it) ends NOT TRACEABLE too,
 *            its graph kept: beyond that router it is asked about in a
 *            form the routers upstream never saw.
 *   step d   for every packet, the routers next to a node of depth d - 1
 *            that were not asked about that packet yet are asked; each
 *            router once per step, about all of its pending packets
 *            (one backend call: one round trip). A router holding the
 *            packet in a window overlapping [at - slack, at] becomes a
 *            node of depth d, with an edge to each adjacent node of depth
 *            d - 1 (upstream -> downstream).
 * until no packet has anything left to ask. A router that cannot be asked
 * (its backend fails: down, no filter, a timeout ...) or records nothing
 * (KB_TOPO_NONE) becomes an UNKNOWN node instead, with the same edges, so
 * its own neighbours are asked in its place (as SPIE does for routers
 * that do not take part); one that failed is not asked again in the same
 * trace. At the end, unknown nodes with no seen node upstream of them are
 * taken out of the graph and listed apart (res->unknown): the packet may
 * have come through them, nothing beyond says so. A node without an
 * upstream edge is an ingress (always a seen one).
 *
 * The questions of one step go out up to @parallel at once (threads);
 * their answers are taken in router order, so the result is the same as
 * one after the other. Memory: O(packets + questions + nodes), not
 * packets times routers. A router's rate for one packet is the chance that
 * one of its windows overlapping the range holds it falsely,
 * 1 - prod(1 - fpr_w). The expected number of false branches of a packet
 * is the sum of its routers' rates over those asked about it upstream of
 * FROM that the packet did not pass; the walk does not know which those
 * are, and estimates the sum from the answers: a router asked that
 * answered absent adds fpr / (1 - fpr), one that answered present
 * nothing. Unbiased: a router the packet passed always answers present,
 * any other one absent with 1 - fpr (Horvitz and Thompson's weighting).
 */
#ifndef BLOOMCTL_TRACEBACK_H
#define BLOOMCTL_TRACEBACK_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "topology.h"

/* A transform's words (kb_xlate_str()), with their terminating 0. */
#define TB_WHAT_MAX	256

/* One window of a router's answer. */
struct tb_window {
	uint64_t id;
	uint64_t start, end;	/* CLOCK_REALTIME ns; end 0 while open */
	uint64_t packets, fill;
	double fpr;		/* its false positive rate, from its fill */
};

/* A packet to ask about. */
struct tb_item {
	const uint8_t *pkt;	/* from the IP header on */
	uint32_t len;
	uint64_t ts;		/* ns: when it was seen */
	uint64_t lo;		/* ns: the earliest a hop may have seen it */
};

/*
 * A transform a router inverted (its transforms table, xlate_read.h):
 * item @row arrived there as @pkt.
 */
struct tb_xform {
	uint32_t row;
	uint8_t *pkt;		/* malloc */
	uint32_t len;
	uint64_t window;	/* the window that recorded it */
	char what[TB_WHAT_MAX];	/* "SNAT 100.64.0.1:61000 <- 10.9.0.5:4000" */
	bool guess;		/* a form the router may not have seen (an
				 * ICMP error's sender, kb_xlate_hit) */
};

/* The forms a packet may have had on a hop: as seen, then as before a
 * transform (fragments reassembled, NAT or a tunnel undone).
 */
#define TB_FORMS_MAX	8

struct tb_form {
	const uint8_t *pkt;
	uint32_t len;
};

/* A router's answer about n items. */
struct tb_answer {
	uint32_t nwin;
	struct tb_window *win;	/* its retained windows, any order (malloc) */
	uint32_t row;		/* ceil(nwin / 8) */
	uint8_t *hits;		/* n rows: bit j (byte j/8, bit j%8) of row i
				 * set when win[j] holds item i (malloc) */
	struct tb_xform *xf;	/* transforms found (malloc), or NULL */
	uint32_t nxf;
	/*
	 * n rows: why this router's NAT may have rewritten item i with no
	 * record to undo it by (enum tb_blind; 0: it did not), or NULL for
	 * none (malloc).
	 */
	uint8_t *blind;
	/* n rows: for TB_BLIND_OPAQUE, what the item came out of (malloc). */
	char (*blind_what)[TB_WHAT_MAX];
	/*
	 * What may carry packets past the router's attachment, as 'show'
	 * says it ("flowtable, xdp"), or empty: an item it holds no digest
	 * of may have passed it unseen, so that router is unknown for it,
	 * never absent.
	 */
	char bypass[64];
};

struct tb_backend {
	/*
	 * Asks router @r (index in the topology) about @n items (n >= 1):
	 * fills @a, whose arrays the walk frees with free(). 0, or -1 with
	 * one line in @err: the router is unknown for the rest of the walk
	 * (an empty @err: the backend printed why). With @parallel > 1 it is
	 * called from several threads at once, never twice at once for the
	 * same router.
	 */
	int (*ask)(void *ctx, size_t r, const struct tb_item *items, size_t n,
		   struct tb_answer *a, char *err, size_t errlen);
	void *ctx;
	unsigned int parallel;	/* questions of a step at once (0: 1) */
};

/* A packet to trace. */
struct tb_packet {
	const uint8_t *pkt;	/* from the IP header on */
	uint32_t len;
	uint64_t at;		/* ns: when the victim saw it */
	/* Other forms it had upstream, known from the capture (a fragment
	 * reassembled): at most TB_FORMS_MAX - 1.
	 */
	const struct tb_form *alt;
	size_t nalt;
};

enum tb_blind {
	/* A later fragment with no head of its datagram among the items. */
	TB_BLIND_FRAGMENT = 1,
	/* An ICMP error about a flow the NAT rewrote (kb_xlate_nat_of_icmp_error). */
	TB_BLIND_ICMP_ERROR,
	/* Came out of IPsec or a tunnel no record undoes (blind_what). */
	TB_BLIND_OPAQUE,
	/*
	 * Held at its ingress only as a tunnel's packet merged there by GRO,
	 * whose outer IP ID before that router is not known (its unsure
	 * form, engine digest.h).
	 */
	TB_BLIND_MERGED,
	/* A later IPv6 fragment of a flow the NAT rewrote (no head looked for). */
	TB_BLIND_FRAGMENT6,
	/* An IPv6 fragment held at its ingress only reassembled (refrag). */
	TB_BLIND_REFRAG6,
	/*
	 * An ICMP error whose sender the ingress's NAT overwrote: no router
	 * before it holds the form with the guessed sender (guessed).
	 */
	TB_BLIND_ICMP_SENDER,
};

enum tb_status {
	TB_TRACED,		/* FROM holds it: nodes[0] is FROM */
	TB_ABSENT,		/* FROM does not hold it */
	TB_NOT_TRACEABLE,	/* older than FROM's oldest window, or (blind
				 * set) through a NAT no record can undo
				 * (enum tb_blind): its graph stops short,
				 * nodes kept as found */
	TB_UNKNOWN,		/* FROM could not be asked */
};

struct tb_node {
	size_t router;
	uint32_t depth;		/* steps from FROM */
	struct tb_window win;	/* the newest window of the range holding it */
	double fpr;		/* the router's rate over the range's windows */
	bool unknown;		/* not asked (see above): win and fpr are 0 */
	bool unsure;		/* holds it in its unsure form (see walk) */
	bool refrag;		/* an IPv6 fragment: holds it reassembled only */
	bool guessed;		/* gave a form with a guess (tb_xform) */
	char *xf;		/* the transforms it undid ("; "-joined, with
				 * their windows), or NULL (malloc) */
};

struct tb_edge {
	size_t from, to;	/* node indices: upstream -> downstream */
};

struct tb_result {
	enum tb_status status;
	uint64_t oldest;	/* start of FROM's oldest window (ns) */
	uint64_t oldest_id;
	struct tb_node *node;	/* breadth first: by depth */
	size_t nnodes;
	struct tb_edge *edge;
	size_t nedges;
	size_t *ingress;	/* node indices, deepest first */
	size_t ningress;
	size_t *unknown;	/* routers that could not be asked about it and
				 * have no seen node upstream (indices in the
				 * topology, in the order met) */
	size_t nunknown;
	bool blind;		/* see TB_NOT_TRACEABLE: at router blind_at */
	size_t blind_at;	/* the first such router (topology index) */
	enum tb_blind blind_why;
	char blind_what[TB_WHAT_MAX];	/* TB_BLIND_OPAQUE: what, as recorded */
	size_t asked;		/* routers asked about it upstream of FROM */
	double expected;	/* expected false branches (see above) */
};

struct tb_stats {
	size_t steps;		/* steps that asked anything (round trips) */
	size_t questions;	/* backend calls */
	size_t *per_router;	/* backend calls per router (NULL: not kept);
				 * a router is asked at most once a step */
	char **why;		/* set by tb_trace: per router, why it is
				 * unknown (malloc; NULL: not unknown) */
	size_t failed;		/* routers whose backend failed ('none' ones
				 * are not counted) */
};

/*
 * Traces @n packets from router @from with @slack_ns. Fills @res[0..n).
 * 0, or -1 with one line in @err (out of memory, a bad @from; @res is
 * freed). A router that cannot be asked is not an error (see above).
 * @st may be NULL; its per_router, when set, has topology->n slots; its
 * why is allocated here (topology->n slots), freed by tb_stats_free().
 */
int tb_trace(const struct kb_topo *t, size_t from, const struct tb_packet *p,
	     size_t n, uint64_t slack_ns, const struct tb_backend *b,
	     struct tb_result *res, struct tb_stats *st, char *err,
	     size_t errlen);

void tb_results_free(struct tb_result *res, size_t n);
/* Frees what an answer holds (its xf[].pkt too) and zeroes it. */
void tb_answer_free(struct tb_answer *a);
/* Frees @st->why (@nrouters slots). */
void tb_stats_free(struct tb_stats *st, size_t nrouters);

/* Whether window @w overlaps [lo, hi] (an open window lasts forever). */
bool tb_window_overlaps(const struct tb_window *w, uint64_t lo, uint64_t hi);

#endif
