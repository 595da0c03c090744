/* SPDX-License-Identifier: GPL-2.0 OR MIT */
/* query on a transforms table (query_xlate.c). */
#ifndef BLOOMCTL_QUERY_XLATE_H
#define BLOOMCTL_QUERY_XLATE_H

#include <stddef.h>
#include <stdint.h>

#include "nl.h"

/*
 * Looks up the packets of capture @pcap (or, @pcap NULL, the one packet
 * @pkt of @len bytes) in transforms table @name, windows overlapping
 * [@since, @until], or, @slack not 0, [TIME - @slack, TIME + @slack]
 * around each one's capture time; prints and returns the exit status.
 */
int query_transforms(struct kb_nl *nl, const char *name, const char *pcap,
		     const uint8_t *pkt, size_t len, uint64_t since,
		     uint64_t until, uint64_t slack);

#endif
