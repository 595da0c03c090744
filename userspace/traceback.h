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
 *            of its graph (depth 0).
 *   step d   for every packet, the routers next to a node of depth d - 1
 *            that were not asked about that packet yet are asked; each
 *            router once per step, about all of its pending packets
 *            (one backend call: one round trip). A router holding the
 *            packet in a window overlapping [at - slack, at] becomes a
 *            node of depth d, with an edge to each adjacent node of depth
 *            d - 1 (upstream -> downstream).
 * until no packet has anything left to ask. A node without an upstream
 * edge is an ingress. A router's rate for one packet is the chance that
 * one of its windows overlapping the range holds it falsely,
 * 1 - prod(1 - fpr_w); the expected number of false branches of a packet
 * is the sum of that over the routers asked about it upstream of FROM.
 */
#ifndef BLOOMCTL_TRACEBACK_H
#define BLOOMCTL_TRACEBACK_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "topology.h"

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
};

/* A router's answer about n items. */
struct tb_answer {
	uint32_t nwin;
	struct tb_window *win;	/* its retained windows, any order (malloc) */
	uint32_t row;		/* ceil(nwin / 8) */
	uint8_t *hits;		/* n rows: bit j (byte j/8, bit j%8) of row i
				 * set when win[j] holds item i (malloc) */
};

struct tb_backend {
	/*
	 * Asks router @r (index in the topology) about @n items (n >= 1):
	 * fills @a, whose arrays the walk frees with free(). 0, or -1 with
	 * one line in @err (the walk stops).
	 */
	int (*ask)(void *ctx, size_t r, const struct tb_item *items, size_t n,
		   struct tb_answer *a, char *err, size_t errlen);
	void *ctx;
};

/* A packet to trace. */
struct tb_packet {
	const uint8_t *pkt;	/* from the IP header on */
	uint32_t len;
	uint64_t at;		/* ns: when the victim saw it */
};

enum tb_status {
	TB_TRACED,		/* FROM holds it: nodes[0] is FROM */
	TB_ABSENT,		/* FROM does not hold it */
	TB_NOT_TRACEABLE,	/* older than FROM's oldest window */
};

struct tb_node {
	size_t router;
	uint32_t depth;		/* steps from FROM */
	struct tb_window win;	/* the newest window of the range holding it */
	double fpr;		/* the router's rate over the range's windows */
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
	size_t asked;		/* routers asked about it upstream of FROM */
	double expected;	/* expected false branches: sum of their rates */
};

struct tb_stats {
	size_t steps;		/* steps that asked anything (round trips) */
	size_t questions;	/* backend calls */
	size_t *per_router;	/* backend calls per router (NULL: not kept);
				 * a router is asked at most once a step */
};

/*
 * Traces @n packets from router @from with @slack_ns. Fills @res[0..n).
 * 0, or -1 with one line in @err (a backend failed; @res is freed);
 * @err is left empty when the backend printed its error itself.
 * @st may be NULL; its per_router, when set, has topology->n slots.
 */
int tb_trace(const struct kb_topo *t, size_t from, const struct tb_packet *p,
	     size_t n, uint64_t slack_ns, const struct tb_backend *b,
	     struct tb_result *res, struct tb_stats *st, char *err,
	     size_t errlen);

void tb_results_free(struct tb_result *res, size_t n);

/* Whether window @w overlaps [lo, hi] (an open window lasts forever). */
bool tb_window_overlaps(const struct tb_window *w, uint64_t lo, uint64_t hi);

#endif
