// SPDX-License-Identifier: GPL-2.0 OR MIT
/*
 * SipHash-1-3 with a 64-bit output: one SipRound per 8-byte message word
 * and three finalisation rounds (sipround.h). The kernel has it only as
 * hsiphash() on 64-bit machines, truncated to 32 bits; filters created
 * with KBLOOM_HASH_FN_SIPHASH13 need all 64 (h1 picks a cell of up to
 * 2^33, and h2 is derived from it), so it is here, the same source in the
 * module and in the tools.
 */
#include "hash.h"
#include "sipround.h"

u64 kb_siphash13(const void *data, size_t len, const siphash_key_t *key)
{
	return kb_siphash_cd(data, len, key->key[0], key->key[1], 1, 3);
}
