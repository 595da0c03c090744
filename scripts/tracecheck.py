#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0 OR MIT
"""Checks `bloomctl trace` answers against the true paths (demo and tests).

  tracecheck.py pick CAPTURE LOG OUT [--max K]
      The packets of CAPTURE (the victim's tcpdump -w) that scripts/spoof.py
      sent (LOG: its --log lines, matched by forged source and IP ID, or
      IPv6 flow label): up to
      K of them, spread over the capture and the attackers, written to the
      capture OUT (same link type and timestamps) and described in OUT.json
      (index in CAPTURE, attacker, forged source, protocol).
  tracecheck.py report TOPO PICKED TRACE [--summary FILE]
      TOPO: topo.json of scripts/topo.py; PICKED: OUT.json of pick; TRACE:
      the output of `bloomctl -j trace ... pcap OUT` (one object per packet,
      or an array). Prints per packet the forged source, the true path
      (the attacker's router up to the victim's), the reconstructed one
      (each ingress down to the victim's router; several when false
      positives branch it) and whether it holds the true path; then a
      verdict line. A packet whose answer misses a router or an edge of its
      true path (or is absent) is a false negative, "MISSING"; one whose
      answer is "not traceable" (its windows were gone when the trace
      asked) was not recorded, said so apart; either makes the exit
      status 1. Also counts extra routers ("false branches") against the
      bound expected + 3 sqrt(expected) + 1 from the answer's own
      expected_false_branches, summed; each packet's against the larger
      of that bound and its Poisson quantile at 1 - 0.001/N (N packets:
      a bound all N hold with 99.9%, where one packet over a 3-sigma
      bound of its own is a few percent likely among 24); and the sum
      against the two-sided 99.9% Poisson interval of the summed
      expectation (low, high). --summary writes the figures as JSON.
"""
import argparse
import json
import math
import socket
import struct
import sys


def read_pcap(path):
    with open(path, "rb") as f:
        data = f.read()
    magic = data[:4]
    if magic in (b"\xd4\xc3\xb2\xa1", b"\x4d\x3c\xb2\xa1"):
        e = "<"
    elif magic in (b"\xa1\xb2\xc3\xd4", b"\xa1\xb2\x3c\x4d"):
        e = ">"
    else:
        sys.exit("tracecheck: %s: not a pcap file" % path)
    linktype = struct.unpack(e + "I", data[20:24])[0]
    recs, off = [], 24
    while off + 16 <= len(data):
        incl = struct.unpack(e + "I", data[off + 8:off + 12])[0]
        recs.append(data[off:off + 16 + incl])
        off += 16 + incl
    return data[:24], e, linktype, recs


def ip_header(rec, linktype):
    frame = rec[16:]
    if linktype == 1:                   # Ethernet
        off = 12
        et = struct.unpack(">H", frame[off:off + 2])[0]
        while et in (0x8100, 0x88A8):
            off += 4
            et = struct.unpack(">H", frame[off:off + 2])[0]
        if et not in (0x0800, 0x86DD):
            return None
        ip = frame[off + 2:]
    elif linktype == 113:               # Linux cooked
        if struct.unpack(">H", frame[14:16])[0] not in (0x0800, 0x86DD):
            return None
        ip = frame[16:]
    elif linktype in (101, 228, 12):    # raw IP
        ip = frame
    else:
        sys.exit("tracecheck: link type %d not handled" % linktype)
    if len(ip) < 20 or ip[0] >> 4 not in (4, 6) or (ip[0] >> 4 == 6 and
                                                    len(ip) < 40):
        return None
    return ip


def ident(ip):
    """The forged source and the IP ID (IPv6: the flow label) of @ip."""
    if ip[0] >> 4 == 6:
        return (socket.inet_ntop(socket.AF_INET6, ip[8:24]),
                struct.unpack(">I", ip[0:4])[0] & 0xFFFFF)
    return socket.inet_ntoa(ip[12:16]), struct.unpack(">H", ip[4:6])[0]


def pick(args):
    sent = {}
    with open(args.log) as f:
        for line in f:
            p = json.loads(line)
            sent[(p["src"], p["id"])] = p
    # Behind a NAT (--nat-src ADDR[,ADDR...]) the victim sees ADDR as the
    # source of every forged packet: those are matched by IP ID and protocol, which
    # NAT keeps, when exactly one packet sent has them.
    by_id = {}
    for k, p in sent.items():
        by_id.setdefault((p["id"], p["proto"]), []).append(k)
    head, _e, lt, recs = read_pcap(args.capture)
    found = []
    for i, rec in enumerate(recs, start=1):
        ip = ip_header(rec, lt)
        if ip is None:
            continue
        key = ident(ip)
        if key not in sent and args.nat_src and key[0] in args.nat_src.split(","):
            proto = {1: "icmp", 17: "udp"}.get(ip[9])
            cands = [k for k in by_id.get((key[1], proto), []) if k in sent]
            if len(cands) == 1:
                key = cands[0]
        if key in sent:
            found.append((i, rec, sent.pop(key)))
    # Spread: round robin over the attackers, evenly over each one's packets.
    by_tag = {}
    for f in found:
        by_tag.setdefault(f[2]["tag"], []).append(f)
    chosen = []
    tags = sorted(by_tag)
    per = max(1, args.max // max(1, len(tags)))
    for t in tags:
        lst = by_tag[t]
        n = min(per, len(lst))
        chosen += [lst[int(j * len(lst) / n)] for j in range(n)]
    chosen.sort(key=lambda f: f[0])
    with open(args.out, "wb") as f:
        f.write(head)
        for c in chosen:
            f.write(c[1])
    desc = [{"index": c[0], "attacker": c[2]["tag"], "src": c[2]["src"],
             "proto": c[2]["proto"], "id": c[2]["id"]} for c in chosen]
    with open(args.out + ".json", "w") as f:
        json.dump({"captured": len(found), "sent": len(found) + len(sent),
                   "picked": desc}, f, indent=1)
    print("%d of %d forged packets captured at the victim; %d picked"
          % (len(found), len(found) + len(sent), len(chosen)))
    return 0 if chosen else 1


def bound(expected):
    return int(expected + 3 * math.sqrt(expected) + 1)


def pois_quantile(lam, q):
    """The smallest k with P(X <= k) >= q, X ~ Poisson(lam)."""
    if lam <= 0:
        return 0
    k, c = 0, 0.0
    while True:
        c += math.exp(-lam + k * math.log(lam) - math.lgamma(k + 1))
        if c >= q:
            return k
        k += 1


def paths_of(ans, root):
    """Each ingress's path down to root, following the answer's edges."""
    down = {}
    for e in ans.get("edges", []):
        down.setdefault(e["from"], []).append(e["to"])
    out = []
    for ing in ans.get("ingress", []):
        p, seen = [ing], {ing}
        while p[-1] != root and down.get(p[-1]):
            nxt = down[p[-1]][0]
            if nxt in seen:
                break
            p.append(nxt)
            seen.add(nxt)
        out.append(p)
    return out


def report(args):
    with open(args.topo) as f:
        topo = json.load(f)
    with open(args.picked) as f:
        picked = json.load(f)["picked"]
    with open(args.trace) as f:
        text = f.read()
    try:
        answers = json.loads(text) if text.strip() else []
    except ValueError as e:
        sys.exit("tracecheck: %s: not JSON (%s)" % (args.trace, e))
    if isinstance(answers, dict):
        answers = [answers]
    by_packet = {a.get("packet"): a for a in answers}
    root = "r1"
    rows, missing, extra_total, exp_total, over = [], 0, 0, 0.0, 0
    unrecorded = 0
    ingresses = set()
    for n, p in enumerate(picked, start=1):
        truth = topo["true_path"][p["attacker"]]
        ingresses.add(truth[0])
        ans = by_packet.get(n, {})
        nodes = {x["router"] for x in ans.get("nodes", [])}
        edges = {(x["from"], x["to"]) for x in ans.get("edges", [])}
        true_edges = set(zip(truth, truth[1:]))
        ok = (ans.get("traceable", False) and set(truth) <= nodes and
              true_edges <= edges and truth[0] in ans.get("ingress", []))
        extra = len(nodes - set(truth))
        exp = float(ans.get("expected_false_branches", 0.0))
        b = max(bound(exp), pois_quantile(exp, 1 - 0.001 / len(picked)))
        if ans and not ans.get("traceable", True):
            unrecorded += 1
        elif not ok:
            missing += 1
        if extra > b:
            over += 1
        extra_total += extra
        exp_total += exp
        if not ans:
            got = "(no answer)"
        elif not ans.get("traceable", True):
            got = "not traceable"
        elif not nodes:
            got = "absent"
        else:
            got = " | ".join(">".join(q) for q in paths_of(ans, root))
        rows.append((p["index"], p["src"], p["proto"], ">".join(truth), got,
                     "yes" if ok else "NO", extra, exp, b))
    w_s = max([len("forged source")] + [len(r[1]) for r in rows])
    w_t = max([len("true path")] + [len(r[3]) for r in rows])
    w_g = max([len("reconstructed")] + [len(r[4]) for r in rows])
    fmt = "%5s  %-*s %-5s %-*s  %-*s  %-5s %s"
    print(fmt % ("pkt", w_s, "forged source", "proto", w_t, "true path", w_g,
                 "reconstructed", "match", "false branches (expected)"))
    for r in rows:
        print(fmt % (r[0], w_s, r[1], r[2], w_t, r[3], w_g, r[4], r[5],
                     "%d (%.2g, bound %d)" % (r[6], r[7], r[8])))
    n = len(rows)
    total_b = bound(exp_total)
    traced = n - missing - unrecorded
    ing = ", ".join(sorted(ingresses, key=lambda r: int(r[1:])))
    verdict = ("verdict: %d/%d attack packets traced to their true ingress %s "
               "(%d false branch%s, %.2g expected)"
               % (traced, n, ing, extra_total, "" if extra_total == 1 else "es",
                  exp_total))
    if missing:
        verdict += " -- %d true path%s MISSING" % (missing, "" if missing == 1 else "s")
    if unrecorded:
        verdict += (" -- %d not recorded (the windows had expired when the "
                    "trace asked: not a miss)" % unrecorded)
    print(verdict)
    summary = {"packets": n, "missing": missing, "not_recorded": unrecorded,
               "extra": extra_total,
               "expected": exp_total, "bound": total_b, "over_bound": over,
               "low": pois_quantile(exp_total, 0.0005),
               "high": pois_quantile(exp_total, 0.9995),
               "answers": len(answers)}
    if args.summary:
        with open(args.summary, "w") as f:
            json.dump(summary, f)
    return 1 if missing or unrecorded or n == 0 else 0


def main():
    ap = argparse.ArgumentParser(
        description="Checks bloomctl trace answers (see the top of this file).")
    sub = ap.add_subparsers(dest="cmd", required=True)
    p = sub.add_parser("pick")
    p.add_argument("capture")
    p.add_argument("log")
    p.add_argument("out")
    p.add_argument("--max", type=int, default=6)
    p.add_argument("--nat-src", help="the NAT addresses forged packets arrive with (ADDR[,ADDR...])")
    r = sub.add_parser("report")
    r.add_argument("topo")
    r.add_argument("picked")
    r.add_argument("trace")
    r.add_argument("--summary")
    args = ap.parse_args()
    sys.exit(pick(args) if args.cmd == "pick" else report(args))


if __name__ == "__main__":
    main()
