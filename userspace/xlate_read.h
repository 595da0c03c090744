/* SPDX-License-Identifier: GPL-2.0 OR MIT */
/*
 * A router's transform records (KBLOOM_TYPE_TRANSFORMS, uapi/kbloom.h)
 * read for 'trace' and 'query': every window of the table, from the
 * kernel or from 'bloomctl archive' files, loaded as an archive
 * (archive_read.h), and the records of one packet looked up in it by the
 * module's own probe rule (kmod/engine/xlate.c).
 */
#ifndef BLOOMCTL_XLATE_READ_H
#define BLOOMCTL_XLATE_READ_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "archive_read.h"
#include "nl.h"

/* A record found, and the window that holds it. */
struct kb_xlate_hit {
	struct kbloom_xlate rec;
	uint64_t window;
	uint64_t start, end;	/* the window's: CLOCK_REALTIME ns, end 0 open */
	/*
	 * IPv6 addresses the record holds folded, from the address records
	 * (or the packet's own, an address a NAT kept): a tunnel's outer
	 * source and destination, a NAT's BEFORE ones; and the packet's
	 * (AFTER) own, for its words.
	 */
	uint8_t addr6[32];
	uint8_t after6[32];
	bool addr6_lost;	/* no address record holds one of them */
	/*
	 * A tunnel record's more record (kb_xlate_has_more(): VXLAN's and
	 * GENEVE's UDP checksum over IPv6, GENEVE's options' length and
	 * flags), paired by its BEFORE_SRC,
	 * BEFORE_DST and FIRST; @more_lost: none is in the table.
	 */
	struct kbloom_xlate more;
	bool more_lost;
	/*
	 * An ICMP or ICMPv6 error's: the record of the flow it is about,
	 * which the NAT rewrote it with (pkt_icmp_error_invert(), _invert6()
	 * with BEFORE's addresses in addr6, AFTER's in after6); @guess: its
	 * outer source before is the flow's other end, a guess.
	 */
	bool icmp_error, guess;
};

/*
 * Every retained window of transforms table @name over @nl: each window
 * is exported (EXPORT) into a private temporary directory (mkdtemp, mode
 * 0700), verified and loaded as an archive, and the files removed. A
 * window a rotation drops meanwhile is left out. 0 and *@out, or -1 with
 * one line in @err (no such table, not a transforms table, ...).
 */
int kb_xlate_load(struct kb_nl *nl, const char *name,
		  struct kb_archive **out, char *err, size_t errlen);

/*
 * The records of @a for the packet @pkt (@len bytes from its IP header,
 * as it left the router) in the windows overlapping [@lo, @hi], newest
 * window first: up to @max in @out; returns how many there are. NAT
 * records are of IPv4 packets (pktxform.h, pkt_xlate_want()), tunnel
 * records of IPv4 and IPv6 ones (pkt_tunnel_want()), arrival records
 * too (pkt_arrival_want()). A tunnel record over IPv6 comes with its
 * outer addresses from the address records, once per pair when two
 * addresses share a fold (addr6_lost when none has it), and one with a
 * more record once per distinct one (more_lost when none). An ICMP or ICMPv6
 * error none of those is of gets the NAT records of the flow it is about
 * (icmp_error, pkt_icmp_error_of(); an IPv6 one with the addresses of
 * the record's other form, pkt_icmp_error_addrs6()).
 */
size_t kb_xlate_lookup(const struct kb_archive *a, const uint8_t *pkt,
		       uint32_t len, uint64_t lo, uint64_t hi,
		       struct kb_xlate_hit *out, size_t max);

/*
 * Whether what @hit's record needs beside it is lost: the outer packet
 * (the packet before) cannot be rebuilt, and is said so by name.
 */
bool kb_xlate_hit_lost(const struct kb_xlate_hit *hit);

/*
 * Whether a NAT record of @a in the windows overlapping [@lo, @hi] has
 * the family, protocol and AFTER addresses of the packet @pkt (IPv4, or
 * IPv6 folded: pkt_addrs_key()), whatever its ports: a later fragment
 * (no ports, no key of its own) of one of those flows may have been
 * rewritten by this router, and only its datagram's head could tell by
 * which record.
 */
bool kb_xlate_nat_of_addrs(const struct kb_archive *a, const uint8_t *pkt,
			   uint32_t len, uint64_t lo, uint64_t hi);

/*
 * Whether @pkt is an ICMP error about a flow a NAT record of @a (windows
 * overlapping [@lo, @hi]) is of (pkt_icmp_error_of()). The router's NAT
 * rewrote its quoted header and outer addresses, which that record
 * undoes (kb_xlate_lookup() gives it, icmp_error).
 */
bool kb_xlate_nat_of_icmp_error(const struct kb_archive *a,
				const uint8_t *pkt, uint32_t len, uint64_t lo,
				uint64_t hi);

/*
 * Whether arrival record @arr among a packet's records @hit (@m of them)
 * is undone by one of them: a tunnel record (a vxlan or ip6tnl device's
 * packets are recorded at input, each, as well as the device's arrival
 * per flow), or (@tunneled) one found for the packet as it was before
 * the router's NAT, which it met after the tunnel. IPsec's arrival never
 * is (ciphertext), nor GRO's merge (the first packet's record may match
 * the others', their inner IDs rewritten).
 */
bool kb_xlate_arrival_undone(const struct kb_xlate_hit *hit, size_t m,
			     const struct kbloom_xlate *arr, bool tunneled);

/*
 * The packet @pkt (@len bytes) was before the record of @hit: NAT
 * undone, or the outer packet of a tunnel around it (pktxform.h). 0 and
 * *@out (malloc, *@outlen bytes; an ICMP error's hit: the error before
 * the NAT, pkt_icmp_error_invert()), -EINVAL when it is not a record of
 * @pkt, an arrival record (KBLOOM_XLATE_OPAQUE: nothing to rebuild it
 * by) or a tunnel record over IPv6 whose addresses or more record are
 * lost (kb_xlate_hit_lost()), -ENOMEM.
 */
int kb_xlate_before(const struct kb_xlate_hit *hit, const uint8_t *pkt,
		    uint32_t len, uint8_t **out, uint32_t *outlen);

/*
 * What record @r undid, AFTER <- BEFORE: "SNAT 100.64.0.1:61000 <-
 * 10.9.0.5:4000", "DNAT 10.9.0.5:53 <- 100.64.0.1:5353", an ICMP echo as
 * "SNAT 100.64.0.1 id 7 <- 10.9.0.5 id 3"; both as "SNAT ...; DNAT ...";
 * a tunnel by its outer packet, "IPIP 10.2.0.1 > 10.3.0.2 id 4660",
 * "GRE 10.2.0.1 > 10.3.0.2 id 4660[ key 7]" or "VXLAN 10.2.0.1:51234 >
 * 10.3.0.2:4789 id 4660[ csum 0x1f2e]", over IPv6 "4in6 (its outer addresses are not
 * in the table) flowlabel 0x5b1c3[ encaplimit 4]"; an arrival by what the
 * packet came out of, "IPsec ESP 10.1.0.1 > 10.2.0.2 spi 0x100" or "a
 * vxlan device (ifindex 7)". kb_xlate_hit_str(): the same with a tunnel
 * record's outer IPv6 addresses, "4in6 fd02::1 > fd03::2 flowlabel
 * 0x5b1c3 encaplimit 4" ("6in6", "GRE6 ...[ key 7]").
 */
void kb_xlate_str(const struct kbloom_xlate *r, char *buf, size_t len);
void kb_xlate_hit_str(const struct kb_xlate_hit *hit, char *buf, size_t len);

#endif
