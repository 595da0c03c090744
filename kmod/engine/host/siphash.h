/* SPDX-License-Identifier: GPL-2.0 OR MIT */
/*
 * SipHash-2-4 with 64-bit output for userspace: the same function as the
 * kernel's siphash() (include/linux/siphash.h), so tools compute the same
 * hashes, and hence the same filter probe positions, as the module.
 *
 * The prototype and siphash_key_t come from the engine's host
 * compatibility header (kmod/engine/compat.h includes it outside the
 * kernel), so the engine, the tools and the tests share one declaration.
 */
#ifndef KBLOOM_USERSPACE_SIPHASH_H
#define KBLOOM_USERSPACE_SIPHASH_H

#include "kbloom_host_compat.h"

#define SIPHASH_KEY_LEN	16	/* bytes: KBLOOM_HASH_KEY_LEN */

/*
 * u64 siphash(const void *data, size_t len, const siphash_key_t *key);
 *
 * (declared in kbloom_host_compat.h) SipHash-2-4 of the @len bytes at
 * @data, which need not be aligned; @len may be 0. key->key[0] and
 * key->key[1] are k0 and k1, the 16-byte key read as two little-endian
 * words (siphash_key_from_bytes() below).
 */

/* Fills @key from 16 key bytes, read as two little-endian words. */
void siphash_key_from_bytes(siphash_key_t *key,
			    const u8 bytes[SIPHASH_KEY_LEN]);

#endif /* KBLOOM_USERSPACE_SIPHASH_H */
