// SPDX-License-Identifier: GPL-2.0 OR MIT
/*
 * Loader of the BPF peer (spie_tc.bpf.c), for bench/pktpath.sh:
 *
 *   spie_bpf attach IFACE[,IFACE] BITS K
 *                                  tc ingress program recording SPIE
 *                                  digests into a Bloom filter map of BITS
 *                                  bits (a power of two) and K hashes;
 *                                  one map for all devices; pins its
 *                                  counters in /sys/fs/bpf
 *   spie_bpf counts                "DIGESTED SKIPPED" since attach
 *   spie_bpf detach IFACE[,IFACE]  removes the program (and clsact)
 *   spie_bpf lookup BITS K N REPEAT
 *                                  a map of that shape holding N digests;
 *                                  BPF_PROG_TEST_RUN of spie_lookup on a
 *                                  packet whose digest is among them,
 *                                  REPEAT times: prints "NS_PER_LOOKUP"
 *
 * The kernel sizes a Bloom filter map as roundup_pow_of_two(max_entries *
 * K / 5 * 7) bits (kernel/bpf/bloom_filter.c); max_entries is chosen so
 * that this is exactly BITS.
 */
#include <errno.h>
#include <net/if.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <bpf/bpf.h>
#include <bpf/libbpf.h>

#define PIN_COUNTS "/sys/fs/bpf/kbloom_bench_spie_counts"

static const char *obj_path;

static int die(const char *what, int err)
{
	fprintf(stderr, "spie_bpf: %s: %s\n", what, strerror(err < 0 ? -err : err));
	exit(2);
}

static uint64_t map_bits(uint64_t entries, uint32_t k)
{
	uint64_t b = entries * k / 5 * 7, p = 64;

	while (p < b)
		p <<= 1;
	return p;
}

/* The largest max_entries whose map has exactly @bits bits. */
static uint32_t entries_for(uint64_t bits, uint32_t k)
{
	uint64_t lo = 1, hi = bits, mid;

	while (lo < hi) {
		mid = (lo + hi + 1) / 2;
		if (map_bits(mid, k) <= bits)
			lo = mid;
		else
			hi = mid - 1;
	}
	if (map_bits(lo, k) != bits) {
		fprintf(stderr, "spie_bpf: no map of %llu bits with %u hashes\n",
			(unsigned long long)bits, k);
		exit(2);
	}
	return lo;
}

static struct bpf_object *open_sized(uint64_t bits, uint32_t k)
{
	struct bpf_object *obj = bpf_object__open_file(obj_path, NULL);
	struct bpf_map *m;
	int err;

	if (!obj)
		die(obj_path, errno);
	m = bpf_object__find_map_by_name(obj, "digests");
	if (!m)
		die("map digests", ENOENT);
	if (k < 1 || k > 15)
		die("hashes must be 1..15", EINVAL);
	err = bpf_map__set_max_entries(m, entries_for(bits, k));
	if (!err)
		err = bpf_map__set_map_extra(m, k);
	if (err)
		die("map size", err);
	err = bpf_object__load(obj);
	if (err)
		die("load", err);
	return obj;
}

/* Attaches one program (one map) to each device of the list @ifnames. */
static int cmd_attach(char *ifnames, uint64_t bits, uint32_t k)
{
	struct bpf_object *obj = open_sized(bits, k);
	char *ifname, *save = NULL;
	int err;

	for (ifname = strtok_r(ifnames, ",", &save); ifname;
	     ifname = strtok_r(NULL, ",", &save)) {
		DECLARE_LIBBPF_OPTS(bpf_tc_hook, hook, .attach_point = BPF_TC_INGRESS);
		DECLARE_LIBBPF_OPTS(bpf_tc_opts, opts, .handle = 1, .priority = 1);

		hook.ifindex = if_nametoindex(ifname);
		if (!hook.ifindex)
			die(ifname, errno);
		err = bpf_tc_hook_create(&hook);
		if (err && err != -EEXIST)
			die("clsact", err);
		opts.prog_fd = bpf_program__fd(bpf_object__find_program_by_name(obj, "spie_record"));
		err = bpf_tc_attach(&hook, &opts);
		if (err)
			die("tc attach", err);
	}
	unlink(PIN_COUNTS);
	err = bpf_map__pin(bpf_object__find_map_by_name(obj, "counts"), PIN_COUNTS);
	if (err)
		die(PIN_COUNTS, err);
	return 0;
}

static int cmd_detach(char *ifnames)
{
	char *ifname, *save = NULL;

	for (ifname = strtok_r(ifnames, ",", &save); ifname;
	     ifname = strtok_r(NULL, ",", &save)) {
		DECLARE_LIBBPF_OPTS(bpf_tc_hook, hook,
				    .attach_point = BPF_TC_INGRESS | BPF_TC_EGRESS);

		hook.ifindex = if_nametoindex(ifname);
		if (!hook.ifindex)
			die(ifname, errno);
		bpf_tc_hook_destroy(&hook);
	}
	unlink(PIN_COUNTS);
	return 0;
}

static int cmd_counts(void)
{
	int fd = bpf_obj_get(PIN_COUNTS), ncpu = libbpf_num_possible_cpus(), c;
	uint64_t v[2] = { 0, 0 }, *per;
	uint32_t i;

	if (fd < 0)
		die(PIN_COUNTS, errno);
	per = calloc(ncpu, sizeof(*per));
	if (!per)
		die("calloc", ENOMEM);
	for (i = 0; i < 2; i++) {
		if (bpf_map_lookup_elem(fd, &i, per))
			die("counts", errno);
		for (c = 0; c < ncpu; c++)
			v[i] += per[c];
	}
	printf("%llu %llu\n", (unsigned long long)v[0], (unsigned long long)v[1]);
	return 0;
}

/* An Ethernet + IPv4 + UDP packet; @n varies the source port and address. */
static void packet(uint8_t *p, uint32_t n)
{
	memset(p, 0, 64);
	p[12] = 0x08;
	p += 14;
	p[0] = 0x45;
	p[3] = 50;
	p[8] = 64;
	p[9] = 17;
	p[12] = 10;
	p[13] = n >> 16;
	p[14] = n >> 8;
	p[15] = n;
	p[16] = 198;
	p[17] = 18;
	p[19] = 1;
	p[20] = n >> 8;
	p[21] = n;
	p[23] = 9;
	p[25] = 30;
}

static int cmd_lookup(uint64_t bits, uint32_t k, uint32_t n, uint32_t repeat)
{
	struct bpf_object *obj = open_sized(bits, k);
	int mfd = bpf_map__fd(bpf_object__find_map_by_name(obj, "digests"));
	int pfd = bpf_program__fd(bpf_object__find_program_by_name(obj, "spie_lookup"));
	uint8_t pkt[64], d[28];
	uint32_t i;
	int err;
	DECLARE_LIBBPF_OPTS(bpf_test_run_opts, t, .data_in = pkt,
			    .data_size_in = sizeof(pkt), .repeat = repeat);

	for (i = 0; i < n; i++) {
		packet(pkt, i);
		memcpy(d, pkt + 14, 20);
		d[1] = d[8] = d[10] = d[11] = 0;
		memcpy(d + 20, pkt + 34, 8);
		if (bpf_map_update_elem(mfd, NULL, d, BPF_ANY))
			die("map push", errno);
	}
	packet(pkt, n / 2);
	err = bpf_prog_test_run_opts(pfd, &t);
	if (err)
		die("test run", err);
	if (t.retval != 0) {
		fprintf(stderr, "spie_bpf: a pushed digest was not found (retval %u)\n", t.retval);
		return 2;
	}
	printf("%u\n", t.duration);
	return 0;
}

int main(int argc, char **argv)
{
	static char path[4096];
	char *slash;

	snprintf(path, sizeof(path), "%s", argv[0]);
	slash = strrchr(path, '/');
	snprintf(slash ? slash + 1 : path, sizeof(path) - (slash ? slash + 1 - path : 0),
		 "spie_tc.bpf.o");
	obj_path = path;
	libbpf_set_strict_mode(LIBBPF_STRICT_ALL);
	if (argc == 5 && !strcmp(argv[1], "attach"))
		return cmd_attach(argv[2], strtoull(argv[3], NULL, 0), atoi(argv[4]));
	if (argc == 3 && !strcmp(argv[1], "detach"))
		return cmd_detach(argv[2]);
	if (argc == 2 && !strcmp(argv[1], "counts"))
		return cmd_counts();
	if (argc == 6 && !strcmp(argv[1], "lookup"))
		return cmd_lookup(strtoull(argv[2], NULL, 0), atoi(argv[3]),
				  atoi(argv[4]), atoi(argv[5]));
	fprintf(stderr, "usage: spie_bpf attach IFACE BITS K | counts | detach IFACE | lookup BITS K N REPEAT\n");
	return 2;
}
