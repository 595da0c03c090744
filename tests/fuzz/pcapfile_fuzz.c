// SPDX-License-Identifier: GPL-2.0 OR MIT
/*
 * libFuzzer target: capture files through userspace/pcapfile.c (libpcap
 * underneath, pcap and pcapng), then each IP packet through the digests
 * and the one-line description, as `bloomctl digest ... pcap FILE` does.
 *
 * Input: a whole capture file, written to a temporary file (kb_pcap_each
 * takes a path) that is rewritten for every input.
 * Invariants (a trap when broken):
 * - every packet lies within its frame: for a classic pcap file (parsed
 *   here independently, either byte order) packet i's bytes are the last
 *   caplen bytes of record i, and caplen <= the record's length;
 * - caplen <= wirelen, indexes count 1, 2, ... with the frames;
 * - the counts add up: frames = ip + other, ip = packets delivered;
 * - a callback's non-zero return stops the walk and is returned.
 * Every byte of every packet is read (ASan sees a packet running past its
 * buffer), and digested in every mode.
 */
#include <fcntl.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "engine/digest.h"
#include "pcapfile.h"
#include "pktfmt.h"
#include "fuzz_common.h"

static char path[256];
static int fd = -1;

/* Records of a classic pcap file: where each one's bytes are. */
struct rec {
	size_t off;
	uint32_t incl;
};

struct walk {
	const uint8_t *data;
	size_t size;
	struct rec *recs;	/* NULL: not a classic pcap file */
	size_t nrecs;
	uint32_t snaplen;
	uint64_t frames_seen;	/* callback calls */
	uint64_t last_index;
	uint64_t stop_at;	/* return 7 at this call (0: never) */
};

static uint32_t get32(const uint8_t *p, bool swap)
{
	uint32_t v = fuzz_le32(p);

	return swap ? __builtin_bswap32(v) : v;
}

/* Parses a classic pcap's record headers; false when it is not one. */
static bool classic(struct walk *w)
{
	const uint8_t *d = w->data;
	size_t off = 24, cap = 0;
	unsigned int major, minor;
	uint32_t magic;
	bool swap;

	if (w->size < 24)
		return false;
	magic = fuzz_le32(d);
	if (magic == 0xa1b2c3d4 || magic == 0xa1b23c4d)
		swap = false;
	else if (magic == 0xd4c3b2a1 || magic == 0x4d3cb2a1)
		swap = true;
	else
		return false;
	w->snaplen = get32(d + 16, swap);
	major = d[swap ? 5 : 4] | d[swap ? 4 : 5] << 8;
	minor = d[swap ? 7 : 6] | d[swap ? 6 : 7] << 8;
	while (off + 16 <= w->size) {
		uint32_t incl = get32(d + off + 8, swap);
		uint32_t orig = get32(d + off + 12, swap);

		/*
		 * libpcap's quirk for files of version 2.0-2.2 (and 2.3 when
		 * they look it): the two lengths are swapped.
		 */
		if (major == 2 && (minor < 3 || (minor == 3 && incl > orig)))
			incl = orig;

		if (incl > w->size - off - 16)
			break;
		if (w->nrecs == cap) {
			cap = cap ? cap * 2 : 16;
			w->recs = realloc(w->recs, cap * sizeof(*w->recs));
			if (!w->recs)
				abort();
		}
		w->recs[w->nrecs].off = off + 16;
		w->recs[w->nrecs].incl = incl;
		w->nrecs++;
		off += 16 + (size_t)incl;
	}
	return true;
}

static int each(const struct kb_pcap_packet *p, void *arg)
{
	struct walk *w = arg;
	struct kb_digest d;
	char desc[256];
	uint32_t mode, sum = 0, i;

	w->frames_seen++;
	FUZZ_CHECK(p->index > w->last_index, "index %llu after %llu",
		   (unsigned long long)p->index,
		   (unsigned long long)w->last_index);
	w->last_index = p->index;
	FUZZ_CHECK(p->caplen <= p->wirelen, "caplen %u > wirelen %u",
		   p->caplen, p->wirelen);
	for (i = 0; i < p->caplen; i++)
		sum += p->l3[i];
	(void)sum;
	if (w->recs && p->index <= w->nrecs) {
		const struct rec *r = &w->recs[p->index - 1];

		FUZZ_CHECK(p->caplen <= r->incl,
			   "frame %llu: caplen %u, record holds %u",
			   (unsigned long long)p->index, p->caplen, r->incl);
		/*
		 * libpcap keeps a record whole unless it exceeds its snap
		 * length: then the packet is the last caplen bytes of it.
		 */
		if (r->incl <= w->snaplen && r->incl <= 262144)
			FUZZ_CHECK(!memcmp(p->l3, w->data + r->off + r->incl -
					   p->caplen, p->caplen),
				   "frame %llu: the packet is not the end of its record",
				   (unsigned long long)p->index);
	}
	for (mode = 1; mode <= KBLOOM_DIGEST_MAX; mode++)
		kb_digest(p->l3, p->caplen, mode, &d);
	kb_pkt_describe(p->l3, p->caplen, desc, sizeof(desc));
	if (w->stop_at && w->frames_seen == w->stop_at)
		return 7;
	return 0;
}

int LLVMFuzzerInitialize(int *argc, char ***argv)
{
	const char *tmp = getenv("TMPDIR");

	snprintf(path, sizeof(path), "%s/kbloom-pcapfuzz.XXXXXX",
		 tmp && *tmp ? tmp : "/tmp");
	fd = mkstemp(path);
	if (fd < 0) {
		perror("pcapfile_fuzz: mkstemp");
		exit(1);
	}
	/* Gone when the fuzzer exits, whatever way it exits. */
	unlink(path);
	snprintf(path, sizeof(path), "/proc/self/fd/%d", fd);
	return 0;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct kb_pcap_counts c;
	struct walk w;
	char err[512];
	int rc;

	if (ftruncate(fd, 0) || pwrite(fd, data, size, 0) != (ssize_t)size)
		abort();
	memset(&w, 0, sizeof(w));
	w.data = data;
	w.size = size;
	classic(&w);
	/* Stop at the second packet for a third of the inputs. */
	w.stop_at = size % 3 == 0 ? 2 : 0;
	err[0] = 0;
	rc = kb_pcap_each(path, each, &w, &c, err, sizeof(err));
	FUZZ_CHECK(rc == 0 || rc == -1 || rc == 7, "kb_pcap_each gave %d", rc);
	FUZZ_CHECK(rc != -1 || err[0], "failed without a reason");
	FUZZ_CHECK(c.ip == w.frames_seen, "ip %llu, callback called %llu times",
		   (unsigned long long)c.ip,
		   (unsigned long long)w.frames_seen);
	FUZZ_CHECK(c.frames == c.ip + c.other, "frames %llu != ip %llu + other %llu",
		   (unsigned long long)c.frames, (unsigned long long)c.ip,
		   (unsigned long long)c.other);
	if (rc == 7)
		FUZZ_CHECK(w.stop_at && w.frames_seen == w.stop_at,
			   "stopped without being asked");
	else if (w.stop_at)
		FUZZ_CHECK(w.frames_seen < w.stop_at, "did not stop");
	if (w.recs && rc == 0)
		FUZZ_CHECK(c.frames <= w.nrecs, "%llu frames from %zu records",
			   (unsigned long long)c.frames, w.nrecs);
	free(w.recs);
	return 0;
}
