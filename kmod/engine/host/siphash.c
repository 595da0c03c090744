// SPDX-License-Identifier: GPL-2.0 OR MIT
/*
 * SipHash-2-4, 64-bit output (Aumasson & Bernstein, "SipHash: a fast
 * short-input PRF", 2012): two SipRounds per 8-byte message word, four
 * finalisation rounds, written from the paper's description
 * (../sipround.h). Checked against the reference vectors
 * (tests/unit/siphash_test.c), so the tools hash as the kernel does.
 */
#include "siphash.h"
#include "../sipround.h"

u64 siphash(const void *data, size_t len, const siphash_key_t *key)
{
	return kb_siphash_cd(data, len, key->key[0], key->key[1], 2, 4);
}

void siphash_key_from_bytes(siphash_key_t *key,
			    const u8 bytes[SIPHASH_KEY_LEN])
{
	key->key[0] = kb_load_le64(bytes);
	key->key[1] = kb_load_le64(bytes + 8);
}
