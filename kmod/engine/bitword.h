/* SPDX-License-Identifier: GPL-2.0 OR MIT */
/*
 * A bit of an array of words, read and set: what bits.c and bloom.h's
 * inline path both use. Below both, so that bloom.h calls bits.c and
 * bits.c never calls back (docs/design.md, "Floors").
 */
#ifndef KBLOOM_ENGINE_BITWORD_H
#define KBLOOM_ENGINE_BITWORD_H

#include "compat.h"

/* Bit @pos of @mem, in bit 0 of the result (the rest is the word's). */
static inline unsigned long kb_bit_word(const unsigned long *mem, u64 pos)
{
	return READ_ONCE(mem[BIT_WORD(pos)]) >> (pos % BITS_PER_LONG);
}

/*
 * Sets bit @pos of @mem; true if it was clear. Read first: a set bit costs
 * no locked write or line bounce.
 */
static inline bool kb_bit_set_new(unsigned long *mem, u64 pos)
{
	if (kb_bit_word(mem, pos) & 1)
		return false;
	set_bit(pos, mem);
	return true;
}

#endif /* KBLOOM_ENGINE_BITWORD_H */
