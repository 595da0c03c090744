#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0 OR MIT
"""The attacker of the traceback demo and tests: forged-source packets.

  spoof.py DST COUNT [--seed S] [--interval SECS] [--log FILE] [--tag T]

Sends COUNT IPv4 packets to DST through a raw socket with IP_HDRINCL, each
with a random forged source address (outside 10.0.0.0/8, where the
topologies of scripts/topo.py live): UDP datagrams to port 9 and, every
third packet, ICMP echo requests. To an IPv6 DST, IPv6 packets (the raw
socket's IPPROTO_RAW sends the header as written) from forged sources in
2000::/3 (outside fd00::/8, the demo's), UDP or ICMPv6 echo requests, each
with a random flow label, which identifies it as the IP ID does in IPv4.
Every header field is chosen here (IP ID or flow label, ports, payload),
so the same seed sends the same packets. With --log, one JSON line per
packet sent is appended to FILE: {"tag", "src", "dst", "proto", "id"} (the
IP ID or flow label and the forged source identify the packet in a
capture). Needs CAP_NET_RAW: run it as root in the attacker's namespace.
"""
import argparse
import ipaddress
import json
import random
import socket
import struct
import time


def csum(data):
    if len(data) % 2:
        data += b"\0"
    s = sum(struct.unpack("!%dH" % (len(data) // 2), data))
    while s >> 16:
        s = (s & 0xFFFF) + (s >> 16)
    return ~s & 0xFFFF


def forged_source(rng):
    while True:
        a = rng.randrange(1, 224)
        if a not in (10, 127):
            return "%d.%d.%d.%d" % (a, rng.randrange(256), rng.randrange(256),
                                    rng.randrange(1, 255))


def packet(rng, src, dst, i):
    ipid = rng.randrange(65536)
    payload = b"kbloom-spoof %06d " % i + bytes(rng.randrange(256)
                                                 for _ in range(24))
    s, d = socket.inet_aton(src), socket.inet_aton(dst)
    if i % 3 == 2:
        proto = 1
        ident, seq = rng.randrange(65536), i
        hdr = struct.pack("!BBHHH", 8, 0, 0, ident, seq)
        l4 = struct.pack("!BBHHH", 8, 0, csum(hdr + payload), ident, seq) + payload
    else:
        proto = 17
        sport = rng.randrange(1024, 65536)
        ulen = 8 + len(payload)
        pseudo = s + d + struct.pack("!BBH", 0, 17, ulen)
        hdr = struct.pack("!HHHH", sport, 9, ulen, 0)
        c = csum(pseudo + hdr + payload) or 0xFFFF
        l4 = struct.pack("!HHHH", sport, 9, ulen, c) + payload
    total = 20 + len(l4)
    ip = struct.pack("!BBHHHBBH4s4s", 0x45, 0, total, ipid, 0, 64, proto, 0, s, d)
    ip = ip[:10] + struct.pack("!H", csum(ip)) + ip[12:]
    return ip + l4, ipid, ("udp" if proto == 17 else "icmp")


def forged_source6(rng):
    return str(ipaddress.IPv6Address((0x2 << 125) | rng.getrandbits(125)))


def packet6(rng, src, dst, i):
    label = rng.randrange(1, 1 << 20)
    payload = b"kbloom-spoof %06d " % i + bytes(rng.randrange(256)
                                                 for _ in range(24))
    s = socket.inet_pton(socket.AF_INET6, src)
    d = socket.inet_pton(socket.AF_INET6, dst)
    if i % 3 == 2:
        proto, ident = 58, rng.randrange(65536)
        body = struct.pack("!BBHHH", 128, 0, 0, ident, i) + payload
        ck = 2
    else:
        proto = 17
        body = struct.pack("!HHHH", rng.randrange(1024, 65536), 9,
                           8 + len(payload), 0) + payload
        ck = 6
    pseudo = s + d + struct.pack("!IxxxB", len(body), proto)
    c = csum(pseudo + body) or 0xFFFF
    body = body[:ck] + struct.pack("!H", c) + body[ck + 2:]
    ip = struct.pack("!IHBB", 6 << 28 | label, len(body), proto, 64) + s + d
    return ip + body, label, ("udp" if proto == 17 else "icmp6")


def main():
    ap = argparse.ArgumentParser(description="Forged-source packets to DST.")
    ap.add_argument("dst")
    ap.add_argument("count", type=int)
    ap.add_argument("--seed", type=int, default=1)
    ap.add_argument("--interval", type=float, default=0.05)
    ap.add_argument("--log")
    ap.add_argument("--tag", default="a")
    args = ap.parse_args()
    v6 = ipaddress.ip_address(args.dst).version == 6
    rng = random.Random(args.seed)
    if v6:
        sock = socket.socket(socket.AF_INET6, socket.SOCK_RAW,
                             socket.IPPROTO_RAW)
    else:
        sock = socket.socket(socket.AF_INET, socket.SOCK_RAW,
                             socket.IPPROTO_RAW)
        sock.setsockopt(socket.IPPROTO_IP, socket.IP_HDRINCL, 1)
    log = open(args.log, "a") if args.log else None
    for i in range(args.count):
        if v6:
            src = forged_source6(rng)
            pkt, ipid, proto = packet6(rng, src, args.dst, i)
        else:
            src = forged_source(rng)
            pkt, ipid, proto = packet(rng, src, args.dst, i)
        sock.sendto(pkt, (args.dst, 0))
        if log:
            log.write(json.dumps({"tag": args.tag, "src": src, "dst": args.dst,
                                  "proto": proto, "id": ipid}) + "\n")
        if args.interval:
            time.sleep(args.interval)
    if log:
        log.close()


if __name__ == "__main__":
    main()
