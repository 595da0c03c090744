/* SPDX-License-Identifier: GPL-2.0 OR MIT */
/*
 * The picture of a trace: 'bloomctl trace ... dot FILE' writes the traced
 * paths as a Graphviz DOT digraph (docs/trace.md, "The attack as a
 * picture"). The routers the walk asked are drawn (FROM, every router
 * of a graph, and their neighbours), grey, with the links between them;
 * the label says how many routers and links were left out. The
 * routers on a traced path are black, each with its window and false
 * positive rate (and the transforms it undid); the edges packets took are
 * red, drawn upstream -> downstream; ingress routers are filled red and
 * doubled; unknown routers are dashed orange with the reason; the router
 * the walk started from is bold. Layout: bottom to top (rankdir BT), so
 * FROM is on top and each link points from the router farther from FROM
 * (by hops in the topology) to the nearer one, as the text tree reads.
 *
 * Every string is written quoted and escaped ("\"", "\\", newlines as
 * "\n"), whatever the topology parser allows, so any name or reason is
 * safe. Pure output, no I/O beyond @f: unit-tested on the host
 * (trace_dot_test).
 */
#ifndef BLOOMCTL_TRACE_DOT_H
#define BLOOMCTL_TRACE_DOT_H

#include <stddef.h>
#include <stdio.h>

#include "topology.h"
#include "traceback.h"

/*
 * Writes the graph of @n results (those not TB_TRACED add nothing but
 * their unknown routers) over topology @t, walked from router @from, as
 * DOT to @f. @why: per router, why it is unknown (NULL, or NULL entries:
 * "not asked"). @title: the graph's label (NULL: none). 0, or -1 when out
 * of memory or @f failed (errno set).
 */
int trace_dot_write(FILE *f, const struct kb_topo *t, size_t from,
		    const struct tb_result *const *res, size_t n,
		    char *const *why, const char *title);

/* Writes @s quoted for DOT: "..." with ", \ and newlines escaped. */
void trace_dot_quote(FILE *f, const char *s);

#endif
