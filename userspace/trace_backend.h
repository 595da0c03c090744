/* SPDX-License-Identifier: GPL-2.0 OR MIT */
/*
 * Where 'bloomctl trace' reads each router's digest tables: the backends
 * behind traceback.h's tb_backend, one per kind of topology entry.
 *
 *   netns    (trace_netns.c)   a generic netlink socket opened inside the
 *                              router's network namespace; GET once, then
 *                              one batched KBLOOM_CMD_QUERY per question
 *   archive  (trace_archive.c) the window files of 'bloomctl archive',
 *                              loaded once per trace (archive_read.h)
 *   ssh      (trace_ssh.c)     one ssh invocation per question, running
 *                              'bloomctl -j show' and 'bloomctl -j query
 *                              FILTER pcap -' there with the packets on
 *                              its stdin as a raw-IP capture, over one
 *                              connection per router (OpenSSH
 *                              multiplexing in a private directory)
 *   none                       records nothing: never asked (the walk
 *                              steps over it, traceback.h)
 *
 * The walk may ask several routers at once (threads): every router's
 * state is its own, and nothing here is shared between routers but the
 * read-only topology.
 *
 * Every window's false positive rate comes from its fill as 'bloomctl
 * show' computes "fpr now" (cardinality.h, card_fpr_now): (X/m)^k for
 * bloom, counting and stable; the same upper bound for partitioned; the
 * block occupancy model at the fill's key estimate for blocked; d c X /
 * (m 2^f) for dleft. Multi filters are refused.
 */
#ifndef BLOOMCTL_TRACE_BACKEND_H
#define BLOOMCTL_TRACE_BACKEND_H

#include <stdbool.h>
#include <stdint.h>

#include "sizing.h"
#include "topology.h"
#include "traceback.h"

/* The state of every router of a topology. */
struct trace_backends {
	const struct kb_topo *t;
	const char *default_netns;	/* for 'netns -' (bloomctl -n) */
	void **state;			/* per router, backend-owned */
	unsigned int *ssh_calls;	/* per router: ssh invocations */
	uint64_t timeout_ms;		/* per ssh question; 0: none */
	char *ctl_dir;			/* ssh control sockets (0700) */
	struct kb_archive **xlate;	/* per router: its transforms, once read */
};

/*
 * 0, or -1 with one line in @err. Makes the ssh control directory when
 * the topology has ssh routers and @reuse is set.
 */
int trace_backends_init(struct trace_backends *b, const struct kb_topo *t,
			const char *default_netns, bool reuse, char *err,
			size_t errlen);
/* Ends the ssh connections, removes the control directory, frees. */
void trace_backends_free(struct trace_backends *b);
/* The tb_backend ask(): dispatches by the router's kind. */
int trace_backends_ask(void *ctx, size_t r, const struct tb_item *items,
		       size_t n, struct tb_answer *a, char *err,
		       size_t errlen);

/* The backends (state: *@state, NULL at first). */
int trace_netns_ask(void **state, const struct kb_topo_router *r,
		    const char *default_netns, const struct tb_item *items,
		    size_t n, struct tb_answer *a, char *err, size_t errlen);
void trace_netns_free(void *state);
/* Router @r's transforms table over its socket (xlate_read.h). */
struct kb_archive;
int trace_netns_xlate(void **state, const struct kb_topo_router *r,
		      const char *default_netns, struct kb_archive **out,
		      char *err, size_t errlen);
int trace_archive_ask(void **state, const struct kb_topo_router *r,
		      const struct tb_item *items, size_t n,
		      struct tb_answer *a, char *err, size_t errlen);
void trace_archive_free(void *state);
int trace_ssh_ask(const struct kb_topo_router *r, const char *ctl_dir,
		  uint64_t timeout_ms, const struct tb_item *items, size_t n,
		  struct tb_answer *a, char *err, size_t errlen);
/*
 * Router @r's transforms table over ssh: 'show -j' for its windows, then
 * each window's 'save TABLE -' in one call, loaded as an archive.
 */
int trace_ssh_xlate(const struct kb_topo_router *r, const char *ctl_dir,
		    uint64_t timeout_ms, struct kb_archive **out, char *err,
		    size_t errlen);
/* Ends router @r's master connection in @ctl_dir, if there is one. */
void trace_ssh_close(const struct kb_topo_router *r, const char *ctl_dir);

/* Shared by the backends. */
/* A window's rate from its fill (see above). */
double trace_window_fpr(const struct kb_shape *p, uint64_t fill);
/* a->bypass from the attachment's KBLOOM_BYPASS_* @bits, or one @name. */
void trace_bypass_bits(struct tb_answer *a, uint32_t bits);
void trace_bypass_join(struct tb_answer *a, const char *name);
/* Allocates a->win (nwin) and a->hits (n rows), zeroed. 0 or -1. */
int trace_answer_alloc(struct tb_answer *a, uint32_t nwin, size_t n);

#endif
