// SPDX-License-Identifier: GPL-2.0 OR MIT
/*
 * Lookups through a read-only mapping of a filter (/dev/kbloom), without
 * bloomctl around them: the lookup rate user space reaches, beside the BPF
 * Bloom map's peeks (bench/pktpath.sh, section 4).
 *
 *   maplookup NAME N REPEAT
 *
 * Maps filter NAME of this netns, then tests the N digests kb_addbench.ko
 * and pktpath.sh make (28-byte IPv4/UDP headers, key i), REPEAT times,
 * hashed here with the header's key and tested 64 at a time with the
 * engine's own code (userspace/mapview.c, as 'bloomctl test -f' does).
 * Prints "NS_PER_LOOKUP PRESENT" (PRESENT: keys found in the last pass);
 * exit 2 on error.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "mapview.h"

#define KEY_LEN	28
#define BATCH	64

static void make_key(uint8_t *k, uint32_t i)
{
	static const uint8_t tmpl[KEY_LEN] = {
		0x45, 0x00, 0x00, 0x32, 0x00, 0x00, 0x00, 0x00,
		0x40, 0x11, 0x00, 0x00, 0x0a, 0x00, 0x00, 0x00,
		0xc6, 0x13, 0x00, 0x01, 0x00, 0x00, 0x00, 0x09,
		0x00, 0x1e, 0x00, 0x00,
	};

	memcpy(k, tmpl, KEY_LEN);
	k[13] = i >> 16;
	k[14] = i >> 8;
	k[15] = i;
	k[20] = i >> 8;
	k[21] = i;
}

static uint64_t now_ns(void)
{
	struct timespec t;

	clock_gettime(CLOCK_MONOTONIC, &t);
	return (uint64_t)t.tv_sec * 1000000000 + t.tv_nsec;
}

int main(int argc, char **argv)
{
	struct kb_hash h[BATCH];
	bool present[BATCH];
	struct kb_mapview v;
	uint64_t t0, t1, found = 0;
	uint32_t n, repeat, r, i, j, m;
	uint8_t *keys;

	if (argc != 4) {
		fprintf(stderr, "usage: maplookup NAME N REPEAT\n");
		return 2;
	}
	n = strtoul(argv[2], NULL, 0);
	repeat = strtoul(argv[3], NULL, 0);
	if (!n || !repeat) {
		fprintf(stderr, "maplookup: N and REPEAT must be positive\n");
		return 2;
	}
	keys = malloc((size_t)n * KEY_LEN);
	if (!keys) {
		fprintf(stderr, "maplookup: out of memory\n");
		return 2;
	}
	for (i = 0; i < n; i++)
		make_key(keys + (size_t)i * KEY_LEN, i);
	if (kb_mapview_open(&v, argv[1])) {
		fprintf(stderr, "maplookup: unable to map filter '%s': %s\n",
			argv[1], strerror(errno));
		return 2;
	}
	t0 = now_ns();
	for (r = 0; r < repeat; r++) {
		found = 0;
		for (i = 0; i < n; i += m) {
			m = n - i < BATCH ? n - i : BATCH;
			for (j = 0; j < m; j++)
				kb_hash_key(&kb_mapview_shape(&v)->hkey,
					    keys + (size_t)(i + j) * KEY_LEN,
					    KEY_LEN, &h[j]);
			if (kb_mapview_test(&v, h, m, present)) {
				fprintf(stderr, "maplookup: '%s': %s\n",
					argv[1], strerror(errno));
				return 2;
			}
			for (j = 0; j < m; j++)
				found += present[j];
		}
	}
	t1 = now_ns();
	printf("%llu %llu\n",
	       (unsigned long long)((t1 - t0) / ((uint64_t)n * repeat)),
	       (unsigned long long)found);
	kb_mapview_close(&v);
	free(keys);
	return 0;
}
