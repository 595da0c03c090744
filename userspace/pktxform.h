/* SPDX-License-Identifier: GPL-2.0 OR MIT */
/*
 * Packets as they were before a router changed them, for a traceback that
 * crosses NAT and fragmentation.
 *
 * A SPIE digest (uapi/kbloom.h, "Digest formats") covers the IPv4 header
 * less TOS, TTL and header checksum, and the first 8 bytes after it. A
 * router that translates addresses (NAT) or fragments a packet changes
 * those bytes, so the digest the victim computes from what it received
 * is not the one the routers upstream of that change recorded. To step
 * back across such a router, the traceback rebuilds the packet as the
 * router received it and digests that:
 *
 * NAT: the router's KBLOOM_TYPE_TRANSFORMS table holds struct kbloom_xlate
 *	records, each an AFTER tuple (as the packet left) and the BEFORE
 *	tuple (as it arrived). pkt_xlate_want() gives the key to look a
 *	packet up by; pkt_xlate_invert() rewrites the packet to BEFORE,
 *	addresses, ports or ICMP echo identifier, and updates every checksum
 *	over the changed bytes incrementally (Rijsinghani, "Computation of
 *	the Internet Checksum via Incremental Update", RFC 1624, 1994), so
 *	the result is byte for byte what a from-scratch checksum would give
 *	and a truncated capture can be inverted as well as a whole packet.
 *
 * Fragmentation: pkt_defrag_head() rebuilds the head of the packet a
 *	router fragmented (RFC 791, "Fragmentation and Reassembly") from
 *	its first and last fragments in the same capture. Those two suffice
 *	for the SPIE digest: the first fragment holds the original header
 *	(options not copied into later fragments included) and the first 8
 *	payload bytes; of what fragmentation changed, TOS, TTL and checksum
 *	are not digested, MF and the offset are 0 in the original, and its
 *	total length is the header length plus the end of the data, which
 *	the last fragment gives (its offset * 8 + its data length). The
 *	middle fragments carry nothing the digest covers.
 *
 * NAT of IPv4 and IPv6 (whose records fold the addresses: see
 * pkt_xlate_invert6()); fragments of IPv4 (IPv6 routers do not
 * fragment). Pure functions over bytes, no output: unit-tested on the
 * host.
 */
#ifndef BLOOMCTL_PKTXFORM_H
#define BLOOMCTL_PKTXFORM_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "../kmod/uapi/kbloom.h"

/*
 * The lookup key of the IPv4 packet at @pkt (@len bytes captured from the
 * IP header) as seen downstream of a NAT router: @want gets FAMILY 4, PROTO,
 * AFTER_SRC, AFTER_DST and AFTER_SPORT, AFTER_DPORT (the ports of TCP, UDP,
 * UDP-Lite, SCTP and DCCP; for an ICMP echo request or reply the
 * identifier in AFTER_SPORT and 0 in AFTER_DPORT; 0 and 0 for anything
 * else, ICMP errors included); every other field 0. Lengths are bounded by
 * the header's total length as well as by @len (link-layer padding is no
 * payload). Returns 0, or -1 when the packet has no lookup: not IPv4, a
 * malformed header, a non-first fragment (no ports), or too short for the
 * ports (or ICMP type and identifier) it needs.
 */
int pkt_xlate_want(const uint8_t *pkt, uint32_t len, struct kbloom_xlate *want);

/*
 * The packet at @pkt (@len bytes captured) as it arrived at the router
 * that made record @rec: @out gets @len bytes, the packet with source and
 * destination address and ports (or ICMP echo identifier) set to the
 * record's BEFORE_* values, and these checksums updated over the changed
 * bytes wherever they lie within the captured bytes (the packet's total
 * length bounding them):
 *   IPv4 header checksum (RFC 791): the addresses;
 *   UDP (RFC 768), UDP-Lite (RFC 3828): pseudo-header addresses and ports;
 *	a UDP checksum of 0 (none sent) stays 0, a result of 0 is sent as
 *	0xffff;
 *   TCP (RFC 793), DCCP (RFC 4340): pseudo-header addresses and ports;
 *   ICMP (RFC 792): the identifier (ICMP's checksum has no pseudo-header).
 * SCTP's CRC32c (RFC 9260) is left as found: it cannot be updated
 * incrementally and lies beyond the 8 bytes a SPIE digest covers. TTL,
 * TOS and IP ID are left as found. Returns 0, or -1 with @out untouched
 * when the packet has no lookup (see pkt_xlate_want(): not IPv4, non-first
 * fragment, too short) or its key is not the record's (FAMILY 4, PROTO,
 * AFTER_*).
 */
int pkt_xlate_invert(const uint8_t *pkt, uint32_t len,
		     const struct kbloom_xlate *rec, uint8_t *out);

/*
 * IPv6 NAT (FAMILY 6 records, whose addresses are folded): the IPv6
 * packet's key from pkt_xlate_want() is its upper protocol past
 * hop-by-hop, routing, destination options and a first fragment's
 * headers (a later fragment has none), its addresses folded
 * (kb_xlate_fold6()), and ports or an ICMPv6 echo's identifier after
 * those headers. pkt_xlate_invert6() is pkt_xlate_invert() for it, given
 * the 32 bytes of the BEFORE source and destination at @before6 (from
 * the table's address records; their folds must be the record's): the
 * addresses and ports set, and the checksums over them updated (UDP,
 * UDP-Lite, TCP, DCCP as above; ICMPv6's (RFC 4443), whose
 * pseudo-header has the addresses, with an echo's identifier). IPv6 has
 * no header checksum. Returns 0, or -1 with @out untouched.
 */
int pkt_xlate_invert6(const uint8_t *pkt, uint32_t len,
		      const struct kbloom_xlate *rec, const uint8_t *before6,
		      uint8_t *out);

/*
 * Later fragments (offset not 0) carry no ports, so no record has their
 * key: the record of their datagram does. When @head (the datagram's
 * first fragment, or its head rebuilt by pkt_defrag_head(): an offset of
 * 0, and the source, destination, IP ID and protocol of fragment @frag)
 * has key @rec (pkt_xlate_invert() would rewrite it), @out gets @len
 * bytes, the fragment with the record's BEFORE addresses and its header
 * checksum updated; the rest of it (no ports, no L4 checksum: they are in
 * the first fragment) as found. Returns 0, or -1 with @out untouched
 * when @frag is no later fragment of @head's datagram or @rec is not
 * @head's.
 */
int pkt_xlate_invert_later(const uint8_t *head, uint32_t hlen,
			   const uint8_t *frag, uint32_t len,
			   const struct kbloom_xlate *rec, uint8_t *out);

/*
 * What names the IPv4 datagram @pkt (at least 20 bytes) is a fragment
 * of (RFC 791): source, destination, identification and protocol, in
 * @key. Fragments of one datagram have equal keys.
 */
#define PKT_DATAGRAM_KEY 11
void pkt_datagram_key(const uint8_t *pkt, uint8_t key[PKT_DATAGRAM_KEY]);

/*
 * Whether @pkt (@len bytes) is a later fragment (well-formed, offset not
 * 0): 4 for IPv4 (looked up through its datagram's head), 6 for IPv6 (a
 * fragment header; its head is not looked for: IPv6 routers do not
 * fragment, so a NAT'ed one is said so), 0 for none.
 */
int pkt_is_later_fragment(const uint8_t *pkt, uint32_t len);

/*
 * FAMILY, PROTO (IPv6: past the extension headers, a later fragment's
 * from its fragment header), AFTER_SRC and AFTER_DST (IPv6: folded) of
 * @pkt in @want, the rest 0: what a NAT record of its flow has, whatever
 * its ports. 0, or -1 for no IP header.
 */
int pkt_addrs_key(const uint8_t *pkt, uint32_t len, struct kbloom_xlate *want);

/*
 * The key of an arrival record (KBLOOM_XLATE_OPAQUE) for @pkt, an IPv4 or
 * IPv6 packet as it left the router, as the kernel makes it: FAMILY,
 * PROTO, the addresses (IPv6: each the XOR of its four 32-bit words), and
 * the ports or an ICMP or ICMPv6 echo's identifier as pkt_xlate_want()
 * reads them (0 for a later fragment; IPv6: right after the fixed
 * header). 0, or -1 when the capture is too short for them or @pkt is
 * not IP.
 */
int pkt_arrival_want(const uint8_t *pkt, uint32_t len,
		     struct kbloom_xlate *want);

/*
 * Whether @pkt is an ICMP error (RFC 792: destination unreachable, source
 * quench, redirect, time exceeded, parameter problem; not a fragment),
 * or an ICMPv6 one (RFC 4443: destination unreachable, packet too big,
 * time exceeded, parameter problem; an IPv6 record's addresses folded),
 * about a packet of the flow NAT record @rec is of: its quoted packet
 * (the other direction's) in the form it had on the error's side of the
 * router, the record's BEFORE when @rec is of the quoted packet's
 * direction, its AFTER read backwards when of the error's. 0: not; 1:
 * of it; 2: of it, and the NAT set the error's outer source to the
 * flow's end (pkt_icmp_error_invert() can only guess who sent it).
 */
int pkt_icmp_error_of(const struct kbloom_xlate *rec, const uint8_t *pkt,
		      uint32_t len);

/*
 * ICMP error @pkt (@len bytes) about a packet of the flow IPv4 NAT record
 * @rec is of (pkt_icmp_error_of()), as it was before the NAT rewrote it,
 * into @out (@len bytes): its quoted packet, the outer destination, the
 * checksums; where the NAT set the outer source to the flow's own (2
 * from pkt_icmp_error_of(): the error may have come from any router past
 * it), the flow's other end, the error's likeliest sender: a guess.
 * 0, or -1 (not such an error; IPv6: pkt_icmp_error_invert6()).
 */
int pkt_icmp_error_invert(const struct kbloom_xlate *rec, const uint8_t *pkt,
			  uint32_t len, uint8_t *out);

/*
 * The same for an ICMPv6 error about the flow of IPv6 NAT record @rec,
 * whose addresses are folded: pkt_icmp_error_addrs6() says which the
 * inversion needs (the record's other form's source and destination,
 * their @folds; each may be the quote's own address, @own, and surely
 * is where @sure: the NAT did not rewrite that side), 0 for AFTER's, 1
 * for BEFORE's, -1 (not such an error); pkt_icmp_error_invert6() then
 * takes BEFORE's (@before6) and AFTER's (@after6), 32 bytes each
 * (source, destination), whose folds must be the record's. 0 or -1.
 */
int pkt_icmp_error_addrs6(const struct kbloom_xlate *rec, const uint8_t *pkt,
			  uint32_t len, uint32_t folds[2],
			  const uint8_t *own[2], bool sure[2]);
int pkt_icmp_error_invert6(const struct kbloom_xlate *rec, const uint8_t *pkt,
			   uint32_t len, const uint8_t *before6,
			   const uint8_t *after6, uint8_t *out);

/* One IP packet of a capture: @len bytes captured from its IP header. */
struct pkt_frag_ref {
	const uint8_t *pkt;
	uint32_t len;
};

/*
 * The head of the packet that IPv4 fragment @i of @pkts (@n packets of one
 * capture) was cut from. Its siblings are the fragments (MF set or offset
 * non-zero) with the same source, destination, IP ID and protocol. Should
 * several first (offset 0) or last (MF clear) fragments match (an ID
 * reused within the capture), the first one nearest before @i and the
 * last one nearest after it are taken, as senders emit fragments in order
 * and captures are in time order (the nearest on the other side when
 * there is none). @out gets, up to @outmax bytes in
 * all, the first fragment's header with total length = header length +
 * the last fragment's offset * 8 + its data length, MF and fragment offset
 * cleared (DF and the reserved bit as found), header checksum recomputed,
 * followed by the first fragment's data bytes as captured; *@outlen the
 * bytes written. Returns 0 (built), 1 when packet @i is no IPv4 fragment
 * (IPv4 without MF and offset, or not IPv4: nothing written; digest it as
 * it is), or -1 with nothing written when its IPv4 header is malformed,
 * when its first or last sibling is not in @pkts (packets with malformed
 * headers are no siblings), or when the two disagree (the data would end
 * within the first fragment, or past 65535 bytes).
 */
int pkt_defrag_head(const struct pkt_frag_ref *pkts, size_t n, size_t i,
		    uint8_t *out, uint32_t outmax, uint32_t *outlen);

/*
 * IPv6 (RFC 8200 4.5): hosts fragment, and a router that tracks
 * connections reassembles what it forwards before its forward hook sees
 * it (conntrack), so a digest there is of the whole datagram. For a
 * packet @i with a fragment header (after hop-by-hop, routing and
 * destination options headers, if any) pkt_defrag_head() rebuilds that
 * datagram's head from its first and last fragments in @pkts (the same
 * addresses and identification): the first fragment's headers without
 * the fragment header (the header before it naming the fragment
 * header's next header instead), payload length to the end of the last
 * fragment's data (its offset + its data length), then the first
 * fragment's data as captured; 1 for an IPv6 packet without a fragment
 * header, -1 as for IPv4. pkt_is_fragment(): whether @pkt is an IPv4
 * fragment (MF or an offset) or an IPv6 one (a fragment header).
 */
int pkt_is_fragment(const uint8_t *pkt, uint32_t len);

/*
 * Tunnels (IPIP, GRE, VXLAN, GENEVE: RFC 2003, RFC 2784, RFC 7348, RFC
 * 8926; over IPv6, RFC 2473): a tunnel record says that the inner packet with these
 * addresses, protocol and IP ID arrived at the decapsulating router
 * inside an outer packet; the routers inside the tunnel recorded that
 * one. pkt_tunnel_want() gives an inner packet's lookup key: FAMILY 4,
 * PROTO, AFTER_SRC, AFTER_DST and its IP ID in AFTER_SPORT; for an IPv6
 * packet (6in4, RFC 4213, and 6in6: KIND IPIP; in GRE, VXLAN, GENEVE) the engine's
 * kb_xlate_key6() (0, or -1 for no IP header).
 * pkt_tunnel_outer() writes the outer packet. Over IPv4 (@outer6 NULL):
 * a 20-byte IPv4 header (the record's addresses, IP ID, flags and
 * offset; protocol 4, 41 (6in4), 47 or 17; total length 20 + the GRE or
 * VXLAN headers + the inner total length; TOS 0, TTL 64 and its
 * checksum, which no digest covers). Over IPv6 (KIND OUTER6, @outer6 the
 * 32 bytes of its source and destination address, from the address
 * records): a 40-byte IPv6 header (traffic class 0, the record's flow
 * label, payload length, hop limit 64) and, when the record has one,
 * the 8-byte destination options header of an encapsulation limit
 * (RFC 2473 4.1.1: next header, 0, type 4, length 1, the limit, PadN
 * 1 1 0). Then the GRE header (version 0, protocol 0x0800, 0x86DD for
 * an IPv6 inner packet, the flags of
 * KIND's GRE_CSUM, GRE_KEY and GRE_SEQ, FIRST as the first optional word
 * and zero for the others, which no digest covers) or VXLAN's UDP header
 * (FIRST's ports, its length, its checksum: over IPv4 the record's, over
 * IPv6 BEFORE_SPORT of @more, the more record paired with @rec, or 0
 * without KIND VXLAN_CSUM), VXLAN header (I flag, VNI 0;
 * GENEVE's: version 0, protocol 0x6558, VNI 0; with KIND GENEVE_OPT its
 * first 16 bits, the options' length and flags, from @more's
 * BEFORE_DPORT, and that many zero bytes of options) and Ethernet
 * header (zero addresses, type IPv4 or IPv6), which no digest
 * covers past the UDP header, then the inner packet as captured (an
 * IPv6 one with FIRST's hop limit and traffic class, unless FIRST is
 * GRE's word or VXLAN's ports), up to @outmax
 * bytes; *@outlen the bytes written. 0, or -1 when @rec is no tunnel
 * record of this inner packet, @outer6 is given for a record over IPv4
 * or missing for one over IPv6, @more is given for a record without a
 * more record (kb_xlate_has_more(): VXLAN and GENEVE over IPv6 with a
 * checksum, GENEVE with options) or missing for one with, or is not one
 * of @rec (KIND MORE, the same BEFORE_SRC, BEFORE_DST and FIRST; a
 * checksum only over IPv6 with KIND VXLAN_CSUM; GENEVE's 16 bits, of
 * version 0, exactly with KIND GENEVE_OPT), or @outmax does not hold
 * the outer headers. pkt_gre_len() is the GRE header's length for a
 * record's KIND (0 for IPIP, VXLAN and GENEVE).
 */
uint32_t pkt_gre_len(uint8_t kind);
int pkt_tunnel_want(const uint8_t *pkt, uint32_t len, struct kbloom_xlate *want);
int pkt_tunnel_outer(const uint8_t *pkt, uint32_t len,
		     const struct kbloom_xlate *rec, const uint8_t *outer6,
		     const struct kbloom_xlate *more, uint8_t *out,
		     uint32_t outmax, uint32_t *outlen);

#endif
