/* SPDX-License-Identifier: GPL-2.0 OR MIT */
/*
 * Packet digests (kmod/engine/digest.c, the module's own code) as bloomctl
 * shows and sends them: as a KEY ("0x..."), or for MULTI as a TUPLE of the
 * three dimensions ("src=0x..,dst=0x..,dport=0x..": dimension 1 = source
 * address, 2 = destination address, 3 = destination port).
 */
#ifndef BLOOMCTL_DIGESTFMT_H
#define BLOOMCTL_DIGESTFMT_H

#include <stddef.h>
#include <stdint.h>

#include "../kmod/engine/digest.h"
#include "keyparse.h"

/* Longest text of kb_digest_fmt(), NUL included. */
#define KB_DIGEST_STR_MAX	192

/* The digest as a KEY or TUPLE (@mode: enum kbloom_digest). */
void kb_digest_fmt(const struct kb_digest *d, uint32_t mode, char *buf,
		   size_t len);

/* MULTI: the digest as a tuple of dimensions 1..3. */
void kb_digest_tuple(const struct kb_digest *d, struct kp_tuple *t);

#endif
