/* SPDX-License-Identifier: GPL-2.0 OR MIT */
/*
 * Packet digests: the key a packet is reduced to before it is added to a
 * filter (formats in uapi/kbloom.h, "Digest formats"). Pure byte parsing,
 * compiled into the module (its netfilter hooks feed it the first bytes of
 * each skb) and into bloomctl (which feeds it packets from a capture), so
 * both compute the same digest from the same packet.
 */
#ifndef KBLOOM_ENGINE_DIGEST_H
#define KBLOOM_ENGINE_DIGEST_H

#include "compat.h"
#include "../uapi/kbloom.h"

/*
 * Bytes from the network header a digest may need: a 60-byte IPv4 header
 * plus 8 payload bytes, or an IPv6 header and the extension headers before
 * the ports. A packet whose ports lie further in is skipped (SHORT).
 */
#define KB_DIGEST_SPAN		128
#define KB_DIGEST_LEN_MAX	48	/* IPv6 SPIE: 40 + 8 */
#define KB_DIGEST_DIMS		3	/* MULTI: src, dst, dst port */

struct kb_digest {
	u32 len;			/* bytes of key[] used */
	u8 key[KB_DIGEST_LEN_MAX];
	/* MULTI: dimension i is key[dim_off[i]] .. + dim_len[i] */
	u8 dim_off[KB_DIGEST_DIMS];
	u8 dim_len[KB_DIGEST_DIMS];
};

/*
 * Digest of one packet. @pkt holds the first @caplen bytes from the network
 * header (the packet may be longer; lengths are taken from the IP header).
 * @mode is an enum kbloom_digest. Returns KBLOOM_SKIP_NONE with @out filled,
 * or the enum kbloom_skip reason the packet has no digest (@out zeroed).
 * The header checks are the same in every mode (an unknown @mode and an
 * IPv6 jumbogram are MALFORMED); only FLOW and MULTI walk IPv6 extension
 * headers, and only they skip non-first fragments. digest.c lists the
 * corner cases the uapi formats leave open.
 */
u32 kb_digest(const u8 *pkt, u32 caplen, u32 mode, struct kb_digest *out);
/*
 * The same for the packet path, without zeroing @out first: on
 * KBLOOM_SKIP_NONE only @out->len, @out->key[0, len) and (MULTI) the
 * dimensions are written, which is all a recorder reads; on a skip @out
 * holds nothing useful.
 */
u32 kb_digest_packet(const u8 *pkt, u32 caplen, u32 mode,
		     struct kb_digest *out);

/*
 * Digest of segment @seg (0-based) of a TCP GSO packet: what the segment
 * put on the wire by segmentation looks like. @total is the super-packet's
 * length from the network header, @gso_size the TCP payload bytes per
 * segment, @fixed_id true when IPv4 IDs are not incremented per segment.
 * Returns a skip reason like kb_digest(); KBLOOM_SKIP_GSO when the packet
 * is not TCP or @seg is past the last segment.
 */
u32 kb_digest_tcp_segment(const u8 *pkt, u32 caplen, u32 total, u32 mode,
			  u32 gso_size, bool fixed_id, u32 seg,
			  struct kb_digest *out);

/*
 * Segments of a TCP GSO packet (0 when it is not TCP or malformed; 1 for
 * one without payload).
 */
u32 kb_digest_tcp_segments(const u8 *pkt, u32 caplen, u32 total,
			   u32 gso_size);

/*
 * The same for a UDP GSO packet (UDP_SEGMENT, SKB_GSO_UDP_L4): its
 * datagrams (0 when it is not UDP or malformed), the UDP header's offset
 * from the network header in *@l4; datagram @seg's digest, its UDP
 * checksum @csum (host order of the wire's big-endian value) summed by
 * the caller over the datagram as it will be (kmod/attach.c).
 */
u32 kb_digest_udp_segments(const u8 *pkt, u32 caplen, u32 total,
			   u32 gso_size, u32 *l4);
u32 kb_digest_udp_segment(const u8 *pkt, u32 caplen, u32 total, u32 mode,
			  u32 gso_size, u32 seg, u16 csum,
			  struct kb_digest *out);

/*
 * A tunnel's TCP GSO packet (IPv4 or IPv6 outer header; IPIP, IPv6 in
 * IPv4 or IPv6, GRE, or UDP such as VXLAN; the inner IPv4 or IPv6 header
 * at @inner from the outer one, @caplen bytes of it at hand): segment
 * @seg as segmentation puts it on the wire, built in @buf (KB_TUNNEL_SPAN
 * bytes; *@n of them used, up to the inner TCP header at least): the
 * outer lengths and IPv4 ID (+ @seg), UDP's length, the outer checksum
 * (GRE's when its C flag is set, UDP's with KB_TUNNEL_UDP_CSUM) and the
 * inner packet as kb_digest_tcp_segment() has it. A skip reason like
 * kb_digest(); GSO when it is no such packet.
 */
/* Headers of a tunnel's packet: outer, encapsulation, inner IPv6, TCP. */
#define KB_TUNNEL_SPAN		192
#define KB_TUNNEL_FIXED_ID	1u	/* inner IPv4 IDs not incremented */
#define KB_TUNNEL_UDP_CSUM	2u	/* the outer UDP header has a checksum */

u32 kb_tunnel_segments(const u8 *pkt, u32 caplen, u32 total, u32 inner,
		       u32 gso_size);
u32 kb_tunnel_segment(const u8 *pkt, u32 caplen, u32 total, u32 inner,
		      u32 gso_size, u32 flags, u32 seg, u8 *buf, u32 *n);
/*
 * Its digest in @mode, and with @unsure (not NULL) that of its unsure form
 * (kb_pkt_unsure(), for an IPv4 outer header) too.
 */
u32 kb_digest_tunnel_segment(const u8 *pkt, u32 caplen, u32 total, u32 inner,
			     u32 mode, u32 gso_size, u32 flags, u32 seg,
			     struct kb_digest *out, struct kb_digest *unsure);

/*
 * The unsure form of an IPv4 packet (uapi/kbloom.h, "Digest formats"):
 * what a router records, beside the segment as it sends it on, for a
 * tunnel's packet merged by GRO whose outer IPv4 ID on arrival GRO did
 * not check (DF set). Its ID zeroed, the reserved flag set (no sender
 * sets it, RFC 791). Whether @pkt may have one: IPv4 with DF, no
 * fragment, carrying IPIP, IPv6, GRE or UDP.
 */
void kb_pkt_unsure(u8 *pkt);
bool kb_pkt_may_be_unsure(const u8 *pkt, u32 caplen);

#endif /* KBLOOM_ENGINE_DIGEST_H */
