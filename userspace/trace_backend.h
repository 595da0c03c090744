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
 * read-only topology. Multi filters are refused.
 *
 * The dispatch here calls down to the backends through their ops
 * (trace_backend_ops); the backends call only what is below them
 * (trace_answer.h for the parts of an answer they share), never up.
 */
#ifndef BLOOMCTL_TRACE_BACKEND_H
#define BLOOMCTL_TRACE_BACKEND_H

#include <stdbool.h>
#include <stdint.h>

#include "sizing.h"
#include "topology.h"
#include "trace_answer.h"
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

struct kb_archive;

/*
 * One kind of router (enum kb_topo_kind). Each is given the whole state
 * and the router's index @r: b->state[r] is the backend's own (NULL at
 * first), b->t->r[r] the router.
 *   ask    asks the router's digest table about @items (tb_backend's ask)
 *   xlate  the router's transforms table, loaded as an archive
 *          (xlate_read.h)
 *   close  ends what the backend holds for the router (before the ssh
 *          control directory is removed); NULL when nothing
 */
struct trace_backend_ops {
	int (*ask)(struct trace_backends *b, size_t r,
		   const struct tb_item *items, size_t n, struct tb_answer *a,
		   char *err, size_t errlen);
	int (*xlate)(struct trace_backends *b, size_t r,
		     struct kb_archive **out, char *err, size_t errlen);
	void (*close)(struct trace_backends *b, size_t r);
};

extern const struct trace_backend_ops trace_netns_ops;	/* trace_netns.c */
extern const struct trace_backend_ops trace_archive_ops; /* trace_archive.c */
extern const struct trace_backend_ops trace_ssh_ops;	/* trace_ssh.c */

#endif
