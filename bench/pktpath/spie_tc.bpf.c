// SPDX-License-Identifier: GPL-2.0 OR MIT
/*
 * The in-kernel peer of kbloom's packet path (issue 8, item 3): a tc
 * ingress program that reduces each IPv4 packet to the same 28-byte SPIE
 * digest as kmod/engine/digest.c (TOS, TTL and checksum zeroed, options
 * left out, then the first 8 bytes after the header) and pushes it into a
 * BPF_MAP_TYPE_BLOOM_FILTER. The loader (spie_bpf.c) sets the map's
 * max_entries and number of hashes so that it has kbloom's bits and k.
 * spie_lookup does the same digest and only peeks: BPF_PROG_TEST_RUN on it
 * gives the map's lookup rate.
 */
#include <linux/bpf.h>
#include <linux/if_ether.h>
#include <linux/pkt_cls.h>
#include <bpf/bpf_helpers.h>
#include <bpf/bpf_endian.h>

#define SPIE_LEN	28

struct spie_digest {
	__u8 b[SPIE_LEN];
};

struct {
	__uint(type, BPF_MAP_TYPE_BLOOM_FILTER);
	__type(value, struct spie_digest);
	__uint(max_entries, 1000000);	/* set by the loader */
	__uint(map_extra, 7);		/* hashes: set by the loader */
} digests SEC(".maps");

/* Packets digested and skipped, index 0 and 1 (per-CPU, summed by the loader). */
struct {
	__uint(type, BPF_MAP_TYPE_PERCPU_ARRAY);
	__type(key, __u32);
	__type(value, __u64);
	__uint(max_entries, 2);
} counts SEC(".maps");

static __always_inline void count(__u32 i)
{
	__u64 *c = bpf_map_lookup_elem(&counts, &i);

	if (c)
		(*c)++;
}

/* 0 and the digest in @d, or -1 when the packet has none. */
static __always_inline int spie(struct __sk_buff *skb, struct spie_digest *d)
{
	void *data = (void *)(long)skb->data;
	void *end = (void *)(long)skb->data_end;
	__u8 *ip = data + ETH_HLEN;
	__u32 ihl, tot;

	if (skb->protocol != bpf_htons(ETH_P_IP) || (void *)(ip + 20) > end)
		return -1;
	ihl = (ip[0] & 0x0f) * 4;
	tot = ((__u32)ip[2] << 8) | ip[3];
	if ((ip[0] >> 4) != 4 || ihl < 20 || tot < ihl + 8)
		return -1;	/* short payloads: rare, not in the benchmark */
	if (ihl > 60 || (void *)(ip + ihl + 8) > end)
		return -1;
	__builtin_memcpy(d->b, ip, 20);
	d->b[1] = 0;
	d->b[8] = 0;
	d->b[10] = 0;
	d->b[11] = 0;
	/* ihl is 20..60 in steps of 4: a bounded copy the verifier accepts */
	if (bpf_skb_load_bytes(skb, ETH_HLEN + ihl, d->b + 20, 8) < 0)
		return -1;
	return 0;
}

SEC("tc")
int spie_record(struct __sk_buff *skb)
{
	struct spie_digest d;

	if (spie(skb, &d) < 0) {
		count(1);
		return TC_ACT_OK;
	}
	bpf_map_push_elem(&digests, &d, BPF_ANY);
	count(0);
	return TC_ACT_OK;
}

SEC("tc")
int spie_lookup(struct __sk_buff *skb)
{
	struct spie_digest d;

	if (spie(skb, &d) < 0)
		return TC_ACT_SHOT;
	return bpf_map_peek_elem(&digests, &d) == 0 ? TC_ACT_OK : TC_ACT_UNSPEC;
}

char LICENSE[] SEC("license") = "Dual MIT/GPL";
