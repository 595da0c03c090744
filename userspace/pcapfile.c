// SPDX-License-Identifier: GPL-2.0 OR MIT
/*
 * Capture files through libpcap (pcap and pcapng, timestamps in ns): the
 * link-layer header of each frame is stripped according to the file's link
 * type and IPv4/IPv6 packets are handed to a callback from their network
 * header on, a UDP checksum that offload had yet to fill in completed as
 * the wire carries it (wirecsum.h).
 */
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "pcapdl.h"
#include "pcapfile.h"
#include "textutil.h"
#include "wirecsum.h"

#define ETH_P_IPV4	0x0800
#define ETH_P_IPV6	0x86dd
#define ETH_P_8021Q	0x8100
#define ETH_P_8021AD	0x88a8

/* Link-type numbers as they appear in files, whatever this OS calls them. */
#define LT_NULL		0
#define LT_RAW_BSD	12	/* DLT_RAW on most systems */
#define LT_RAW_OBSD	14	/* DLT_RAW on OpenBSD */
#define LT_RAW		101	/* LINKTYPE_RAW */
#define LT_LOOP		108
#define LT_SLL		113
#define LT_IPV4		228
#define LT_IPV6		229
#define LT_SLL2		276

enum kb_link {
	KB_LINK_ETHER,		/* Ethernet, VLAN tags skipped */
	KB_LINK_RAW,		/* the IP header first */
	KB_LINK_SLL,		/* 16-byte cooked header, protocol at 14 */
	KB_LINK_SLL2,		/* 20-byte cooked header, protocol at 0 */
	KB_LINK_NULL,		/* 4-byte address family */
};

static int link_of(int dlt, enum kb_link *link)
{
	switch (dlt) {
	case DLT_EN10MB:
		*link = KB_LINK_ETHER;
		return 0;
	case LT_RAW_BSD:
	case LT_RAW_OBSD:
	case LT_RAW:
	case LT_IPV4:
	case LT_IPV6:
		*link = KB_LINK_RAW;
		return 0;
	case LT_SLL:
		*link = KB_LINK_SLL;
		return 0;
	case LT_SLL2:
		*link = KB_LINK_SLL2;
		return 0;
	case LT_NULL:
	case LT_LOOP:
		*link = KB_LINK_NULL;
		return 0;
	}
	return -1;
}

static unsigned int be16(const uint8_t *p)
{
	return (unsigned int)p[0] << 8 | p[1];
}

/* An IPv4 or IPv6 ethertype after any 802.1Q/802.1ad tags at @off. */
static long after_tags(const uint8_t *b, uint32_t len, uint32_t off,
		       unsigned int type)
{
	while (type == ETH_P_8021Q || type == ETH_P_8021AD) {
		/* TCI (2 bytes), then the next ethertype. */
		if (off + 4 > len)
			return -1;
		type = be16(b + off + 2);
		off += 4;
	}
	if (type != ETH_P_IPV4 && type != ETH_P_IPV6)
		return -1;
	return off;
}

/* IPv4 / IPv6 address families of the BSDs, macOS and Linux. */
static int family_is_ip(uint32_t af)
{
	switch (af) {
	case 2:			/* AF_INET everywhere */
	case 10:		/* AF_INET6: Linux */
	case 24:		/* NetBSD, OpenBSD, BSD/OS */
	case 28:		/* FreeBSD, DragonFly */
	case 30:		/* macOS */
		return 1;
	}
	return 0;
}

/*
 * Offset of the network header of an IP frame, or -1 when the frame does
 * not carry IPv4/IPv6 (or is too short to tell).
 */
static long l3_offset(enum kb_link link, const uint8_t *b, uint32_t len)
{
	uint32_t af;

	switch (link) {
	case KB_LINK_ETHER:
		if (len < 14)
			return -1;
		return after_tags(b, len, 14, be16(b + 12));
	case KB_LINK_RAW:
		if (len < 1 || (b[0] >> 4 != 4 && b[0] >> 4 != 6))
			return -1;
		return 0;
	case KB_LINK_SLL:
		if (len < 16)
			return -1;
		return after_tags(b, len, 16, be16(b + 14));
	case KB_LINK_SLL2:
		if (len < 20)
			return -1;
		return after_tags(b, len, 20, be16(b));
	case KB_LINK_NULL:
		if (len < 4)
			return -1;
		/* Host order of the capturing machine (NULL) or big endian
		 * (LOOP): the family is small, so either order reads.
		 */
		af = (uint32_t)b[0] << 24 | (uint32_t)b[1] << 16 |
		     (uint32_t)b[2] << 8 | b[3];
		if (af > 0xffff)
			af = __builtin_bswap32(af);
		return family_is_ip(af) ? 4 : -1;
	}
	return -1;
}

/* Linux's packet types (linux/if_packet.h), as cooked captures hold them. */
#define KB_PACKET_OUTGOING	4

/* What the frame's link header says of its direction (KB_PCAP_DIR_*). */
static int direction(enum kb_link link, const uint8_t *b)
{
	/* l3_offset() has checked the header is there. */
	switch (link) {
	case KB_LINK_SLL:	/* packet type: bytes 0-1 */
		return be16(b) == KB_PACKET_OUTGOING ? KB_PCAP_DIR_OUT :
						       KB_PCAP_DIR_IN;
	case KB_LINK_SLL2:	/* packet type: byte 10 */
		return b[10] == KB_PACKET_OUTGOING ? KB_PCAP_DIR_OUT :
						     KB_PCAP_DIR_IN;
	default:
		return KB_PCAP_DIR_UNKNOWN;
	}
}

int kb_pcap_each(const char *path, kb_pcap_cb cb, void *arg,
		 struct kb_pcap_counts *counts, char *err, size_t errlen)
{
	char ebuf[PCAP_ERRBUF_SIZE] = "";
	struct kb_pcap_counts local;
	struct pcap_pkthdr *h;
	const uint8_t *data;
	enum kb_link link;
	int dlt, rc, ret = 0;
	const struct kb_pcap_api *pc;
	uint8_t *copy = NULL, csum[2];
	size_t copy_cap = 0;
	uint32_t at;
	pcap_t *p;

	if (!counts)
		counts = &local;
	memset(counts, 0, sizeof(*counts));

	pc = kb_pcap_api(err, errlen);
	if (!pc)
		return -1;
	p = pc->open_offline_with_tstamp_precision(path,
						    PCAP_TSTAMP_PRECISION_NANO,
						    ebuf);
	if (!p) {
		size_t n = strlen(path);

		/* libpcap names the file itself when the open fails. */
		if (!strncmp(ebuf, path, n) && ebuf[n] == ':')
			kb_seterr(err, errlen, "%s", ebuf);
		else
			kb_seterr(err, errlen, "%s: %s", path, ebuf);
		return -1;
	}
	dlt = pc->datalink(p);
	if (link_of(dlt, &link)) {
		const char *name = pc->datalink_val_to_name(dlt);

		kb_seterr(err, errlen, "%s: unsupported link type %s (%d)", path,
			  name ? name : "unknown", dlt);
		pc->close(p);
		return -1;
	}

	while ((rc = pc->next_ex(p, &h, &data)) == 1) {
		struct kb_pcap_packet pkt;
		uint32_t wire;
		long off;

		counts->frames++;
		off = l3_offset(link, data, h->caplen);
		/* An IP frame without IP bytes captured still counts (as IP). */
		if (off < 0 || (uint32_t)off > h->caplen) {
			counts->other++;
			continue;
		}
		wire = h->len > h->caplen ? h->len : h->caplen;
		pkt.index = counts->frames;
		/* Nanoseconds in tv_usec: the file was opened for them. */
		pkt.ts_ns = (uint64_t)h->ts.tv_sec * 1000000000ULL +
			    (uint64_t)h->ts.tv_usec;
		pkt.l3 = data + off;
		pkt.caplen = h->caplen - (uint32_t)off;
		pkt.wirelen = wire - (uint32_t)off;
		pkt.dir = direction(link, data);
		if (kb_wire_udp_csum(pkt.l3, pkt.caplen, &at, csum)) {
			if (copy_cap < pkt.caplen) {
				uint8_t *c = realloc(copy, pkt.caplen);

				if (!c) {
					kb_seterr(err, errlen, "%s: out of memory",
						  path);
					ret = -1;
					break;
				}
				copy = c;
				copy_cap = pkt.caplen;
			}
			memcpy(copy, pkt.l3, pkt.caplen);
			memcpy(copy + at, csum, sizeof(csum));
			pkt.l3 = copy;
		}
		counts->ip++;
		ret = cb(&pkt, arg);
		if (ret)
			break;
	}
	if (rc == PCAP_ERROR) {
		kb_seterr(err, errlen, "%s: frame %llu: %s", path,
			  (unsigned long long)counts->frames + 1, pc->geterr(p));
		ret = -1;
	}
	pc->close(p);
	free(copy);
	return ret;
}
