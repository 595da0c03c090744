/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Multicast events: filters created and destroyed, windows rotated,
 * attachments gone with their device.
 */
#ifndef KBLOOM_EVENTS_H
#define KBLOOM_EVENTS_H

#include "registry.h"

/* Index of KBLOOM_MCGRP_EVENTS in the family's groups. */
#define KB_MCGRP_EVENTS	0

struct genl_family;

/*
 * The family the events go out on, given by netlink.c before it is
 * registered: events are a floor below the family (docs/design.md).
 */
void kb_events_init(struct genl_family *family);

/* KBLOOM_CMD_CREATE or KBLOOM_CMD_DESTROY for @obj; process context. */
void kb_event_filter(struct net *net, const struct kb_obj *obj, u8 cmd);
/* KBLOOM_CMD_ROTATED: @closed closed and @opened opened; process context. */
void kb_event_rotated(struct net *net, const struct kb_obj *obj,
		      const struct kb_window *closed,
		      const struct kb_window *opened);

/*
 * KBLOOM_CMD_DETACH: @obj's attachment at @hook to device @ifname went
 * with its device (before it is freed); process context.
 */
void kb_event_detached(struct net *net, const struct kb_obj *obj, u32 hook,
		       const char *ifname);

#endif /* KBLOOM_EVENTS_H */
