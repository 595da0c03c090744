#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0 OR MIT
"""Small pcap helpers for tests/vm/digest.sh (standard library only).

  pcaptool.py count FILE [KIND]     IPv4/IPv6 packets in FILE, or those of
                                    KIND: opt4 (IPv4 with options), frag4,
                                    frag6 (fragments), later (fragments
                                    but the first)
  pcaptool.py hex FILE KIND         hex of the first packet of KIND (from
                                    the IP header): icmp4 (echo request),
                                    icmp6 (echo request), udp4, tcp4
  pcaptool.py mutate IN OUT         every IP packet of IN with one byte of
                                    its SPIE digest changed: packets never
                                    sent (IPv4: the ID's top bit and low
                                    byte, IPv6: the flow label's low byte)
  pcaptool.py random OUT N SEED     N random IPv4/IPv6 UDP and TCP packets
                                    from 198.18.0.0/15 and 2001:db8::/32
  pcaptool.py fuzz IN OUT SEED [K]  every Kth packet of IN (default all),
                                    each also truncated, with a bad
                                    version, header or total length, IPv4
                                    options, extension headers, fragment
                                    offsets and random bytes
  pcaptool.py ttl HEX TTL           the IP packet HEX with TTL (hop limit)
                                    set, for the TTL-invariance check
  pcaptool.py shift IN OUT SECONDS  every IP packet of IN, its capture time
                                    moved by SECONDS (negative: earlier)

Written captures are Ethernet (linktype 1), microsecond timestamps.
"""
import random
import struct
import sys

ETH_IP4 = b"\x02\x00\x00\x00\x00\x02\x02\x00\x00\x00\x00\x01\x08\x00"
ETH_IP6 = b"\x02\x00\x00\x00\x00\x02\x02\x00\x00\x00\x00\x01\x86\xdd"


def read(path):
    """Yields (ts_sec, ts_frac, frame) of a classic pcap file."""
    with open(path, "rb") as f:
        data = f.read()
    magic = data[:4]
    if magic in (b"\xd4\xc3\xb2\xa1", b"\x4d\x3c\xb2\xa1"):
        e = "<"
    elif magic in (b"\xa1\xb2\xc3\xd4", b"\xa1\xb2\x3c\x4d"):
        e = ">"
    else:
        sys.exit("pcaptool: %s: not a pcap file" % path)
    linktype = struct.unpack(e + "I", data[20:24])[0]
    if linktype != 1:
        sys.exit("pcaptool: %s: linktype %d, not Ethernet" % (path, linktype))
    off = 24
    while off + 16 <= len(data):
        sec, frac, incl, _orig = struct.unpack(e + "IIII", data[off:off + 16])
        off += 16
        yield sec, frac, data[off:off + incl]
        off += incl


def ip_of(frame):
    """The IP packet of an Ethernet frame (802.1Q skipped), or None."""
    off = 12
    etype = struct.unpack(">H", frame[off:off + 2])[0]
    while etype in (0x8100, 0x88A8) and len(frame) >= off + 6:
        off += 4
        etype = struct.unpack(">H", frame[off:off + 2])[0]
    if etype in (0x0800, 0x86DD):
        return frame[off + 2:]
    return None


def write(path, packets):
    """Writes (sec, usec, ip_packet) tuples as Ethernet frames."""
    with open(path, "wb") as f:
        f.write(struct.pack("<IHHiIII", 0xA1B2C3D4, 2, 4, 0, 0, 262144, 1))
        for sec, usec, pkt in packets:
            frame = (ETH_IP6 if pkt[:1] and pkt[0] >> 4 == 6 else ETH_IP4) + pkt
            f.write(struct.pack("<IIII", sec, usec, len(frame), len(frame)))
            f.write(frame)


def ips(path):
    for sec, frac, frame in read(path):
        pkt = ip_of(frame)
        if pkt is not None:
            yield sec, frac, pkt


def kind_of(pkt):
    v = pkt[0] >> 4
    if v == 4:
        hl = (pkt[0] & 15) * 4
        frag = struct.unpack(">H", pkt[6:8])[0] & 0x1FFF
        if frag:
            return None
        if pkt[9] == 1 and pkt[hl] == 8:
            return "icmp4"
        return {6: "tcp4", 17: "udp4"}.get(pkt[9])
    if v == 6 and pkt[6] == 58 and pkt[40] == 128:
        return "icmp6"
    return None


def checksum(b):
    if len(b) % 2:
        b += b"\0"
    s = sum(struct.unpack(">%dH" % (len(b) // 2), b))
    while s >> 16:
        s = (s & 0xFFFF) + (s >> 16)
    return ~s & 0xFFFF


def ipv4(src, dst, proto, payload, ident, ttl=64, options=b""):
    hl = 20 + len(options)
    h = struct.pack(">BBHHHBBH4s4s", 0x40 | hl // 4, 0, hl + len(payload),
                    ident, 0x4000, ttl, proto, 0, src, dst) + options
    h = h[:10] + struct.pack(">H", checksum(h)) + h[12:]
    return h + payload


def ipv6(src, dst, nh, payload, flow):
    return struct.pack(">IHBB16s16s", 0x60000000 | flow, len(payload), nh, 64,
                       src, dst) + payload


def frag_of(pkt):
    """None, or (offset, more) of a fragment (IPv6: a fragment header
    right after the fixed header, as Linux sends them)."""
    if pkt[0] >> 4 == 4:
        f = struct.unpack(">H", pkt[6:8])[0]
        return (f & 0x1FFF, bool(f & 0x2000)) if f & 0x3FFF else None
    if pkt[6] == 44 and len(pkt) >= 48:
        f = struct.unpack(">H", pkt[42:44])[0]
        return (f >> 3, bool(f & 1))
    return None


KINDS = {
    "all": lambda p: True,
    "opt4": lambda p: p[0] >> 4 == 4 and p[0] & 15 > 5,
    "frag4": lambda p: p[0] >> 4 == 4 and frag_of(p) is not None,
    "frag6": lambda p: p[0] >> 4 == 6 and frag_of(p) is not None,
    "later": lambda p: frag_of(p) is not None and frag_of(p)[0] > 0,
}


def cmd_count(path, kind="all"):
    print(sum(1 for _s, _f, p in ips(path) if KINDS[kind](p)))


def cmd_hex(path, kind):
    for _s, _f, pkt in ips(path):
        if kind_of(pkt) == kind:
            print(pkt.hex())
            return
    sys.exit("pcaptool: no %s packet in %s" % (kind, path))


def cmd_mutate(src, dst):
    out = []
    for sec, frac, pkt in ips(src):
        b = bytearray(pkt)
        if b[0] >> 4 == 4:
            b[4] ^= 0x80
            b[5] ^= 0xFF
        else:
            b[3] ^= 0xA5
        out.append((sec, frac // 1000 if frac >= 1000000 else frac, bytes(b)))
    write(dst, out)


def cmd_random(dst, n, seed):
    r = random.Random(int(seed))
    out = []
    for i in range(int(n)):
        proto = r.choice((6, 17))
        l4 = struct.pack(">HH", r.randrange(1, 65536), r.randrange(1, 65536))
        l4 += bytes(r.randrange(256) for _ in range(r.randrange(4, 60)))
        if r.random() < 0.5:
            src = bytes([198, 18 + r.randrange(2)]) + r.randbytes(2)
            dst_ = bytes([198, 18 + r.randrange(2)]) + r.randbytes(2)
            pkt = ipv4(src, dst_, proto, l4, r.randrange(65536))
        else:
            src = b"\x20\x01\x0d\xb8" + r.randbytes(12)
            dst_ = b"\x20\x01\x0d\xb8" + r.randbytes(12)
            pkt = ipv6(src, dst_, proto, l4, r.randrange(1 << 20))
        out.append((1700000000 + i, 0, pkt))
    write(dst, out)


def variants(pkt, r):
    """The packet and broken or unusual forms of it."""
    yield pkt
    b = bytearray(pkt)
    v6 = b[0] >> 4 == 6
    # Truncated at every interesting length.
    for cut in (1, 8, 19, 20, 21, 27, 28, 39, 40, 47, 48, 60):
        if cut < len(b):
            yield bytes(b[:cut])
    # Bad version.
    c = bytearray(b)
    c[0] = (c[0] & 0x0F) | (5 << 4)
    yield bytes(c)
    if not v6:
        # Header length below 20 and past the packet.
        for ihl in (4, 15):
            c = bytearray(b)
            c[0] = 0x40 | ihl
            yield bytes(c)
        # Total length: shorter than the header, than the packet, longer.
        for tot in (10, 24, len(b) - 1, len(b) + 100, 65535):
            c = bytearray(b)
            c[2:4] = struct.pack(">H", tot & 0xFFFF)
            yield bytes(c)
        # IPv4 options (NOPs and an end), the payload after them.
        hl = (b[0] & 15) * 4
        opts = b"\x01\x01\x01\x00"
        c = bytearray(b[:hl]) + opts + b[hl:]
        c[0] = (c[0] & 0xF0) | ((hl + 4) // 4)
        c[2:4] = struct.pack(">H", struct.unpack(">H", b[2:4])[0] + 4)
        yield bytes(c)
        # A later fragment, and a first one.
        for frag in (0x2000, 0x00B9, 0x20B9):
            c = bytearray(b)
            c[6:8] = struct.pack(">H", frag)
            yield bytes(c)
    else:
        # Payload length 0 (jumbo-like), shorter, longer.
        for plen in (0, 4, len(b) - 40 + 100):
            c = bytearray(b)
            c[4:6] = struct.pack(">H", plen & 0xFFFF)
            yield bytes(c)
        # Extension headers: hop-by-hop, then a fragment header.
        for ext in (b"\x00\x00\x01\x04\x00\x00\x00\x00",
                    b"\x00\x00\x00\xb8\x12\x34\x56\x78",
                    b"\x00\x00\x00\x01\x12\x34\x56\x78"):
            c = bytearray(b[:40]) + bytearray(ext) + b[40:]
            c[40] = b[6]
            c[6] = 0 if ext[3] == 4 else 44
            c[4:6] = struct.pack(">H", len(c) - 40)
            yield bytes(c)
    # Random bytes after the first one.
    yield bytes([b[0]]) + r.randbytes(max(0, min(len(b), 80) - 1))


def cmd_fuzz(src, dst, seed, every="1"):
    r = random.Random(int(seed))
    out = []
    for i, (sec, frac, pkt) in enumerate(ips(src)):
        if i % int(every):
            continue
        for v in variants(pkt, r):
            out.append((sec, frac // 1000 if frac >= 1000000 else frac, v))
    write(dst, out)


def cmd_ttl(hexpkt, ttl):
    b = bytearray(bytes.fromhex(hexpkt))
    b[8 if b[0] >> 4 == 4 else 7] = int(ttl)
    print(b.hex())


def cmd_shift(src, dst, seconds):
    nsec = open(src, "rb").read(4) in (b"\x4d\x3c\xb2\xa1", b"\xa1\xb2\x3c\x4d")
    write(dst, [(sec + int(seconds), frac // 1000 if nsec else frac, pkt)
                for sec, frac, pkt in ips(src)])


def main():
    cmds = {"count": cmd_count, "hex": cmd_hex, "mutate": cmd_mutate,
            "random": cmd_random, "fuzz": cmd_fuzz, "ttl": cmd_ttl,
            "shift": cmd_shift}
    if len(sys.argv) < 2 or sys.argv[1] not in cmds:
        sys.exit(__doc__)
    cmds[sys.argv[1]](*sys.argv[2:])


if __name__ == "__main__":
    main()
