// SPDX-License-Identifier: GPL-2.0 OR MIT
/*
 * libFuzzer target: the packet digests of kmod/engine/digest.c (the module's
 * own code, run on every packet its hooks see) and bloomctl's packet
 * description and digest formatting (userspace/pktfmt.c, digestfmt.c).
 *
 * Input: the whole input is a packet from its network header. Every digest
 * mode is run on it with caplen = size and with every shorter caplen, each
 * from a heap block of exactly caplen bytes (ASan sees any read past it).
 * Then the first 8 bytes are taken as TCP GSO parameters and the rest as a
 * GSO super-packet (kb_digest_tcp_segments / kb_digest_tcp_segment):
 *   0-1  gso_size (LE16)
 *   2-3  total - caplen (LE16): the super-packet's length
 *   4    bit 0: fixed IPv4 ID; bits 1-7: segments to check past the first
 *
 * Invariants (a trap when broken):
 * - a skip reason is a known one, and a skipped digest is all zero;
 * - a digest's length is 1..KB_DIGEST_LEN_MAX and the one of its mode and
 *   family; MULTI dimensions lie within it, other modes have none;
 * - capturing more bytes never changes a verdict that was not SHORT, nor
 *   a digest: digest(pkt, n) == digest(pkt, n + extra);
 * - the digest's text (a KEY, or a TUPLE for MULTI) parses back to it;
 * - the GSO segments agree: segment nsegs is GSO, every mode but SPIE
 *   gives each segment the digest of the first.
 */
#include <stdbool.h>
#include <stdint.h>
#include <string.h>

#include "engine/digest.h"
#include "digestfmt.h"
#include "keyparse.h"
#include "pktfmt.h"
#include "fuzz_common.h"

#define GSO_PARAMS	8
#define MAX_SEGS_CHECKED 8

static const char *mode_name(uint32_t mode)
{
	const char *n = kb_digest_name(mode);

	return n ? n : "?";
}

/* Length of a digest of @mode for a packet of address length @alen. */
static uint32_t want_len(uint32_t mode, uint32_t alen, uint32_t len)
{
	switch (mode) {
	case KBLOOM_DIGEST_SRC:
	case KBLOOM_DIGEST_DST:
		return alen;
	case KBLOOM_DIGEST_FLOW:
		return 1 + 2 * alen + 4;
	case KBLOOM_DIGEST_MULTI:
		return 2 * alen + 2;
	case KBLOOM_DIGEST_SPIE:
		/* header (20 or 40) + 0..8 payload bytes */
		if (alen == 4 && len >= 20 && len <= 28)
			return len;
		if (alen == 16 && len >= 40 && len <= 48)
			return len;
		return 0;
	}
	return 0;
}

/* The checks of one result, whatever the input. */
static void check_digest(const uint8_t *pkt, uint32_t caplen, uint32_t mode,
			 uint32_t skip, const struct kb_digest *d)
{
	static const struct kb_digest zero;
	uint32_t alen, i;

	FUZZ_CHECK(skip <= KBLOOM_SKIP_MAX, "mode %s: skip %u", mode_name(mode),
		   skip);
	if (skip) {
		FUZZ_CHECK(!memcmp(d, &zero, sizeof(*d)),
			   "mode %s: skip %u but the digest is not zeroed",
			   mode_name(mode), skip);
		return;
	}
	FUZZ_CHECK(d->len >= 1 && d->len <= KB_DIGEST_LEN_MAX,
		   "mode %s: len %u", mode_name(mode), d->len);
	FUZZ_CHECK(caplen >= 1, "a digest of no bytes");
	alen = (pkt[0] >> 4) == 6 ? 16 : 4;
	FUZZ_CHECK(d->len == want_len(mode, alen, d->len),
		   "mode %s: len %u for an IPv%u packet", mode_name(mode),
		   d->len, alen == 4 ? 4 : 6);
	for (i = 0; i < KB_DIGEST_DIMS; i++) {
		if (mode == KBLOOM_DIGEST_MULTI) {
			FUZZ_CHECK(d->dim_len[i] >= 1 &&
				   (uint32_t)d->dim_off[i] + d->dim_len[i] <= d->len,
				   "MULTI dim %u: off %u len %u, digest %u", i,
				   d->dim_off[i], d->dim_len[i], d->len);
		} else {
			FUZZ_CHECK(!d->dim_off[i] && !d->dim_len[i],
				   "mode %s: dimension %u set", mode_name(mode), i);
		}
	}
	for (i = d->len; i < KB_DIGEST_LEN_MAX; i++)
		FUZZ_CHECK(!d->key[i], "mode %s: key byte %u past len %u set",
			   mode_name(mode), i, d->len);
}

/* The digest as bloomctl prints it must parse back to the same bytes. */
static void check_text(uint32_t mode, const struct kb_digest *d)
{
	static const char *const names[KB_DIGEST_DIMS] = { "src", "dst", "dport" };
	static struct kb_dims dims;
	char buf[KB_DIGEST_STR_MAX];
	struct kp_tuple t, want;
	struct tp_fail fail;
	uint8_t key[KBLOOM_KEY_MAX];
	size_t klen = 0, bad = 0;
	enum tp_error te;
	enum kp_error ke;
	int i;

	kb_digest_fmt(d, mode, buf, sizeof(buf));
	FUZZ_CHECK(strlen(buf) < sizeof(buf) - 1, "digest text cut: %s", buf);
	if (mode != KBLOOM_DIGEST_MULTI) {
		ke = key_parse(buf, strlen(buf), key, &klen, &bad);
		FUZZ_CHECK(ke == KP_OK && klen == d->len &&
			   !memcmp(key, d->key, klen),
			   "mode %s: '%s' parses back to error %d len %zu",
			   mode_name(mode), buf, ke, klen);
		return;
	}
	if (!dims.n) {
		dims.n = KB_DIGEST_DIMS;
		for (i = 0; i < KB_DIGEST_DIMS; i++)
			strcpy(dims.name[i], names[i]);
	}
	memset(&t, 0, sizeof(t));
	memset(&want, 0, sizeof(want));
	te = tuple_parse(buf, strlen(buf), &dims, true, &t, &fail);
	FUZZ_CHECK(te == TP_OK, "MULTI '%s' parses back to error %d", buf, te);
	kb_digest_tuple(d, &want);
	FUZZ_CHECK(t.mask == want.mask, "MULTI '%s': mask %#x, want %#x", buf,
		   t.mask, want.mask);
	for (i = 0; i < KB_DIGEST_DIMS; i++)
		FUZZ_CHECK(t.len[i] == want.len[i] &&
			   !memcmp(t.val[i], want.val[i], t.len[i]),
			   "MULTI '%s': dimension %d differs", buf, i);
}

/* Every mode on @pkt with every caplen 1..@size (capped past the span). */
static void fuzz_digest(const uint8_t *data, size_t size)
{
	struct kb_digest full[KBLOOM_DIGEST_MAX + 2], d;
	uint32_t skip_full[KBLOOM_DIGEST_MAX + 2], mode, skip;
	char desc[256];
	size_t n, top;

	/* The full capture, from a block of exactly @size bytes. */
	{
		uint8_t *pkt = fuzz_dup(data, size);

		/* Modes out of range included: they must be refused. */
		for (mode = 0; mode <= KBLOOM_DIGEST_MAX + 1; mode++) {
			skip_full[mode] = kb_digest(pkt, size, mode, &full[mode]);
			check_digest(pkt, size, mode, skip_full[mode], &full[mode]);
			if (mode == 0 || mode > KBLOOM_DIGEST_MAX) {
				FUZZ_CHECK(skip_full[mode] == KBLOOM_SKIP_MALFORMED,
					   "unknown mode %u: skip %u", mode,
					   skip_full[mode]);
				continue;
			}
			if (!skip_full[mode])
				check_text(mode, &full[mode]);
		}
		kb_pkt_describe(pkt, size, desc, sizeof(desc));
		FUZZ_CHECK(strlen(desc) < sizeof(desc), "description");
		/* A tiny buffer must be safe too. */
		kb_pkt_describe(pkt, size, desc, 8);
		free(pkt);
	}

	/*
	 * Shorter captures: past the span plus a few bytes, caplen does not
	 * matter, so stop there (a 64 KiB input would cost 64 K rounds).
	 */
	top = size < KB_DIGEST_SPAN + 16 ? size : KB_DIGEST_SPAN + 16;
	for (n = 0; n < top; n++) {
		uint8_t *pkt = fuzz_dup(data, n);

		for (mode = 1; mode <= KBLOOM_DIGEST_MAX; mode++) {
			skip = kb_digest(pkt, n, mode, &d);
			check_digest(pkt, n, mode, skip, &d);
			if (skip == KBLOOM_SKIP_SHORT)
				continue;
			FUZZ_CHECK(skip == skip_full[mode],
				   "mode %s: caplen %zu gives skip %u, caplen %zu skip %u",
				   mode_name(mode), n, skip, size, skip_full[mode]);
			FUZZ_CHECK(!memcmp(&d, &full[mode], sizeof(d)),
				   "mode %s: caplen %zu and %zu give different digests",
				   mode_name(mode), n, size);
		}
		if (n < 64 || n % 7 == 0)
			kb_pkt_describe(pkt, n, desc, sizeof(desc));
		free(pkt);
	}
}

static uint32_t seg_digest(const uint8_t *data, uint32_t caplen, uint32_t total,
			   uint32_t mode, uint32_t gso, bool fixed, uint32_t seg,
			   struct kb_digest *d)
{
	uint8_t *pkt = fuzz_dup(data, caplen);
	uint32_t skip;

	skip = kb_digest_tcp_segment(pkt, caplen, total, mode, gso, fixed, seg,
				     d);
	check_digest(pkt, caplen, mode, skip, d);
	free(pkt);
	return skip;
}

static void fuzz_gso(const uint8_t *data, size_t size)
{
	uint32_t gso, total, caplen, nsegs, mode, seg, extra, skip, skip0, n;
	struct kb_digest d, d0, dn, plain;
	uint32_t segs[MAX_SEGS_CHECKED + 3];
	unsigned int nseg = 0, i;
	bool fixed;
	uint8_t *pkt;

	if (size < GSO_PARAMS || size - GSO_PARAMS > 0xffff)
		return;
	gso = data[0] | (uint32_t)data[1] << 8;
	caplen = size - GSO_PARAMS;
	total = caplen + (data[2] | (uint32_t)data[3] << 8);
	fixed = data[4] & 1;
	extra = (data[4] >> 1) % MAX_SEGS_CHECKED;
	data += GSO_PARAMS;

	pkt = fuzz_dup(data, caplen);
	nsegs = kb_digest_tcp_segments(pkt, caplen, total, gso);
	free(pkt);
	/* Captured bytes past the span change nothing. */
	if (caplen > KB_DIGEST_SPAN) {
		pkt = fuzz_dup(data, KB_DIGEST_SPAN);
		n = kb_digest_tcp_segments(pkt, KB_DIGEST_SPAN, total, gso);
		free(pkt);
		FUZZ_CHECK(n == nsegs, "segments: %u with caplen %u, %u with the span",
			   nsegs, caplen, n);
	}
	if (!gso || !total) {
		FUZZ_CHECK(!nsegs, "%u segments of gso_size %u total %u", nsegs,
			   gso, total);
		return;
	}
	/* The first few segments, a few at the end, and one past the end. */
	for (seg = 0; seg < nsegs && seg <= extra; seg++)
		segs[nseg++] = seg;
	if (nsegs > extra + 1)
		segs[nseg++] = nsegs - 1;
	if (nsegs)
		segs[nseg++] = nsegs;

	for (mode = 1; mode <= KBLOOM_DIGEST_MAX; mode++) {
		skip0 = seg_digest(data, caplen, total, mode, gso, fixed, 0, &d0);
		if (!nsegs)
			FUZZ_CHECK(skip0 != KBLOOM_SKIP_NONE,
				   "mode %s: segment 0 digested, 0 segments",
				   mode_name(mode));
		for (i = 0; i < nseg; i++) {
			seg = segs[i];
			skip = seg_digest(data, caplen, total, mode, gso, fixed,
					  seg, &d);
			if (seg == nsegs) {
				FUZZ_CHECK(skip == KBLOOM_SKIP_GSO,
					   "mode %s: segment %u of %u: skip %u",
					   mode_name(mode), seg, nsegs, skip);
				continue;
			}
			/* Capturing more changes nothing once digested. */
			if (!skip && caplen < KB_DIGEST_SPAN + 8 &&
			    total > caplen) {
				uint32_t more = caplen + 1;
				uint8_t *big = malloc(more);

				memcpy(big, data, caplen);
				big[caplen] = 0xa5;
				skip0 = kb_digest_tcp_segment(big, more, total,
							      mode, gso, fixed,
							      seg, &dn);
				free(big);
				FUZZ_CHECK(!skip0 && !memcmp(&d, &dn, sizeof(d)),
					   "mode %s: segment %u: one more byte captured gives skip %u or another digest",
					   mode_name(mode), seg, skip0);
			}
			if (skip || mode == KBLOOM_DIGEST_SPIE)
				continue;
			/* Only lengths, IDs, sequence numbers differ. */
			seg_digest(data, caplen, total, mode, gso, fixed, 0,
				   &d0);
			if (d0.len)
				FUZZ_CHECK(!memcmp(&d, &d0, sizeof(d)),
					   "mode %s: segment %u and 0 differ",
					   mode_name(mode), seg);
			/* ... and the plain packet digest agrees, if any. */
			pkt = fuzz_dup(data, caplen);
			if (!kb_digest(pkt, caplen, mode, &plain))
				FUZZ_CHECK(!memcmp(&d, &plain, sizeof(d)),
					   "mode %s: segment %u differs from the packet's digest",
					   mode_name(mode), seg);
			free(pkt);
		}
	}
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	fuzz_digest(data, size);
	fuzz_gso(data, size);
	return 0;
}
