// SPDX-License-Identifier: GPL-2.0 OR MIT
/*
 * natpath.sh --vxlan's packet writer: a tc ingress program that turns
 * each of pktgen's UDP packets to port 4789 into a VXLAN packet (RFC
 * 7348) carrying one inner IPv4 UDP packet of its own: it writes, over
 * the UDP payload, a VXLAN header (I flag, VNI 42), an Ethernet header
 * (to the vxlan device's 02:00:00:00:00:42, IPv4) and the inner packet,
 * 10.1.0.1:1024 > 198.19.0.1:9, 8 bytes of UDP with checksum 0, whose IP
 * ID is the low 16 bits of pktgen's sequence number (the 4 bytes after
 * its magic at the start of the payload, read before they are written
 * over): every packet differs, as a real tunnel's inner packets do, and
 * so does its tunnel record's key. The outer UDP checksum is 0 (pktgen's
 * default), which VXLAN allows and the payload does not change.
 */
#include <linux/bpf.h>
#include <linux/if_ether.h>
#include <linux/pkt_cls.h>
#include <bpf/bpf_helpers.h>
#include <bpf/bpf_endian.h>

/* From the Ethernet header: outer IPv4 (20, no options) and UDP (8). */
#define PAYLOAD		(ETH_HLEN + 20 + 8)
#define VXLAN_PORT	4789
#define INNER_LEN	(8 + ETH_HLEN + 20 + 8)

SEC("tc")
int vxlan_write(struct __sk_buff *skb)
{
	__u8 b[INNER_LEN] = {
		0x08, 0, 0, 0, 0, 0, 42, 0,			/* VXLAN */
		0x02, 0, 0, 0, 0, 0x42, 0x02, 0, 0, 0, 0, 0x01,	/* Ethernet */
		0x08, 0x00,
		0x45, 0, 0, 28, 0, 0, 0, 0, 64, 17, 0, 0,	/* IPv4 */
		10, 1, 0, 1, 198, 19, 0, 1,
		0x04, 0x00, 0, 9, 0, 8, 0, 0,			/* UDP */
	};
	__u8 *ip = b + 8 + ETH_HLEN;
	__u32 seq, sum = 0;
	__u16 dport;
	int i;

	if (bpf_skb_load_bytes(skb, ETH_HLEN + 20 + 2, &dport, 2) ||
	    dport != bpf_htons(VXLAN_PORT) ||
	    bpf_skb_load_bytes(skb, PAYLOAD + 4, &seq, 4))
		return TC_ACT_OK;
	seq = bpf_ntohl(seq);
	ip[4] = seq >> 8;
	ip[5] = seq;
	for (i = 0; i < 20; i += 2)
		sum += ip[i] << 8 | ip[i + 1];
	sum = (sum & 0xffff) + (sum >> 16);
	sum = (sum & 0xffff) + (sum >> 16);
	ip[10] = ~sum >> 8;
	ip[11] = ~sum;
	bpf_skb_store_bytes(skb, PAYLOAD, b, sizeof(b), 0);
	return TC_ACT_OK;
}

char LICENSE[] SEC("license") = "Dual MIT/GPL";
