/* SPDX-License-Identifier: GPL-2.0 OR MIT */
/*
 * Reading IP packets out of a capture file (libpcap): Ethernet (with
 * 802.1Q/802.1ad tags), raw IP, IPv4/IPv6 link types and Linux cooked
 * captures (SLL and SLL2). Each IPv4 or IPv6 packet is handed over from its
 * network header; frames of other protocols are counted, not returned.
 */
#ifndef BLOOMCTL_PCAPFILE_H
#define BLOOMCTL_PCAPFILE_H

#include <stddef.h>
#include <stdint.h>

/*
 * The packet's direction, when the link type records it (Linux cooked
 * captures, tcpdump -i any: the packet type; other link types do not).
 */
enum {
	KB_PCAP_DIR_UNKNOWN,	/* the capture does not say */
	KB_PCAP_DIR_IN,		/* received by the capturing host */
	KB_PCAP_DIR_OUT,	/* sent by the capturing host */
};

struct kb_pcap_packet {
	uint64_t index;		/* 1-based position of the frame in the file */
	uint64_t ts_ns;		/* capture time, ns since the epoch */
	const uint8_t *l3;	/* from the network header */
	uint32_t caplen;	/* bytes at l3 */
	uint32_t wirelen;	/* bytes at l3 on the wire (may exceed caplen) */
	int dir;		/* KB_PCAP_DIR_*: as far as the capture says */
};

struct kb_pcap_counts {
	uint64_t frames;	/* frames read */
	uint64_t ip;		/* IPv4/IPv6 packets handed to the callback */
	uint64_t other;		/* frames that carried no IP packet */
};

/* Returns 0 to go on, anything else to stop (kb_pcap_each returns it). */
typedef int (*kb_pcap_cb)(const struct kb_pcap_packet *p, void *arg);

/*
 * Calls @cb for every IP packet of the capture @path ("-": stdin). Returns
 * 0 after the last packet, what @cb returned if it stopped, or -1 with a
 * one-line reason in @err (the file cannot be opened or read, an unsupported
 * link type, a damaged record).
 */
int kb_pcap_each(const char *path, kb_pcap_cb cb, void *arg,
		 struct kb_pcap_counts *counts, char *err, size_t errlen);

#endif /* BLOOMCTL_PCAPFILE_H */
