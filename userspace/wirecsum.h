/* SPDX-License-Identifier: GPL-2.0 OR MIT */
/*
 * A UDP checksum as the wire carries it. A capture taken where checksum
 * offload had not filled it in yet (tcpdump on the sending host, or
 * behind a veth or a virtio device) holds the pseudo-header's sum, the
 * seed that the NIC, or the kernel's skb_checksum_help(), completes. The
 * routers digest the checksum as the wire carries it (kmod/attach.c:
 * SPIE's first 8 bytes of a UDP payload hold it), so a capture's packets
 * are read with the seed completed.
 */
#ifndef BLOOMCTL_WIRECSUM_H
#define BLOOMCTL_WIRECSUM_H

#include <stdbool.h>
#include <stdint.h>

/*
 * Whether @pkt (@caplen bytes from its IP header: an unfragmented IPv4,
 * or IPv6 with UDP as its first next header, UDP datagram captured
 * whole) holds the seed where its UDP checksum goes, and that is not the
 * checksum: then true, the checksum's offset from the IP header in *@at
 * and its value (network byte order, 0 sent as 0xffff) in *@be16.
 */
bool kb_wire_udp_csum(const uint8_t *pkt, uint32_t caplen, uint32_t *at,
		      uint8_t be16[2]);

#endif
