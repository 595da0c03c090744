#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0 OR MIT
"""Router trees in network namespaces, for `bloomctl trace` (demo and tests).

  topo.py tree OUT [--routers N] [--seed S] [--parents LIST] [--prefix P]
                   [--hosts H] [--attackers A]
      Makes a tree of routers r1..rN (r1 the root), the victim host v
      behind r1, A attacker hosts (a, or a1..aA) behind distinct leaf
      routers and up to H background hosts (h<router>) behind other
      routers, then writes into directory OUT:
        topo.txt     the topology file of `bloomctl trace` (docs/trace.md):
                     one `router` line per router, one `link` per edge
        build.sh     builds it: namespaces, veth pairs, addresses, routes
        teardown.sh  deletes the namespaces
        topo.json    all of it, and each attacker's true path
        addrs.sh     addr_NAME=ADDRESS for every host, for shell scripts
      and prints the tree (as below) and the address plan.
      The tree is random (seeded: the same seed gives the same tree) unless
      --parents gives it: the parent of r2, r3, ... in order, e.g.
      --parents 1,1,1,2,2,3,4,5 (r2, r3, r4 under r1; r5, r6 under r2 ...).
  topo.py draw OUT   prints the tree of OUT/topo.json again
  topo.py offloads-off DEV...
      ethtool -K DEV tx off rx off tso off gso off gro off, for every DEV
      of this namespace, in one process (build.sh uses it: under software
      emulation every process started costs)

What build.sh builds, e.g. for --parents 1,1,2 --hosts 1:

    r1  <- v (victim, 10.0.4.2)
    ├── r2
    │   └── r4  <- a (attacker, 10.0.5.2)
    └── r3  <- h3 (host, 10.0.6.2)

  - a network namespace per router and host, named PREFIX + name
    (bloomctl -n PREFIXr2 ...); IPv4 only (no IPv6 addresses: no
    autoconfiguration chatter), rp_filter off everywhere (forged sources
    must pass), forwarding on (set in the calling namespace, from which
    new namespaces take their IPv4 settings);
  - a veth pair per edge, named X-Y in X's namespace (r2-r4 in r2 leads to
    r4), offloads (checksum, TSO, GSO, GRO) off on each so that packets
    are digested and captured as they are on the wire;
  - link number j (edges first, in router order, then hosts) is
    10.0.j.0/24: .1 on the upper side (towards r1), .2 on the lower;
  - static routes: each router reaches the subnets below a child through
    that child and everything else through its parent (r1 has no default
    route: replies to forged sources die there); hosts route through their
    router.
"""
import argparse
import json
import os
import random
import struct
import sys


def make_tree(n, seed, parents_arg):
    """Parent of every router: {"r2": "r1", ...}."""
    if parents_arg:
        plist = [int(x) for x in parents_arg.split(",")]
        n = len(plist) + 1
        for i, p in enumerate(plist, start=2):
            if not 1 <= p < i:
                sys.exit("topo.py: the parent of r%d must be r1..r%d, not r%d"
                         % (i, i - 1, p))
        return {"r%d" % i: "r%d" % p for i, p in enumerate(plist, start=2)}
    rng = random.Random(seed)
    parent = {}
    children = {1: 0}
    for i in range(2, n + 1):
        # A random recursive tree, at most 3 children a router: branches
        # and some depth.
        p = rng.choice([j for j in range(1, i) if children[j] < 3])
        parent["r%d" % i] = "r%d" % p
        children[p] += 1
        children[i] = 0
    return parent


def rnum(name):
    return int(name[1:])


def build(args):
    rng = random.Random(args.seed * 7919 + 1)
    parent = make_tree(args.routers, args.seed, args.parents)
    routers = ["r1"] + sorted(parent, key=rnum)
    kids = {r: [] for r in routers}
    for r in routers[1:]:
        kids[parent[r]].append(r)
    leaves = [r for r in routers if not kids[r] and r != "r1"]
    if args.attackers > len(leaves):
        sys.exit("topo.py: %d attackers, but only %d leaf routers"
                 % (args.attackers, len(leaves)))
    if args.attack_at:
        att_routers = args.attack_at.split(",")
        if len(att_routers) != args.attackers or not all(
                r in leaves for r in att_routers):
            sys.exit("topo.py: --attack-at needs %d leaf routers of %s"
                     % (args.attackers, leaves))
    else:
        # The deepest leaves first (longer paths), ties at random.
        order = sorted(leaves, key=lambda r: (-depth(r, parent), rng.random()))
        att_routers = order[:args.attackers] if args.parents else \
            rng.sample(leaves, args.attackers)
    others = [r for r in leaves if r not in att_routers]
    others += [r for r in routers[1:] if kids[r] and r not in att_routers]
    host_routers = others[:args.hosts] if args.parents else \
        rng.sample(others, min(args.hosts, len(others)))
    host_routers.sort(key=rnum)

    hosts = [{"name": "v", "role": "victim", "router": "r1"}]
    for i, r in enumerate(att_routers, start=1):
        hosts.append({"name": "a" if args.attackers == 1 else "a%d" % i,
                      "role": "attacker", "router": r})
    for r in host_routers:
        hosts.append({"name": "h%d" % rnum(r), "role": "host", "router": r})

    links = []      # upper, lower, subnet number
    for r in routers[1:]:
        links.append((parent[r], r))
    for h in hosts:
        links.append((h["router"], h["name"]))
    if len(links) > 254:
        sys.exit("topo.py: too many links for 10.0.j.0/24 (%d)" % len(links))
    addr = {}       # (node, neighbour) -> address of node on that link
    subnet = {}     # (upper, lower) -> j
    for j, (up, low) in enumerate(links, start=1):
        subnet[(up, low)] = j
        addr[(up, low)] = "10.0.%d.1" % j
        addr[(low, up)] = "10.0.%d.2" % j
    for h in hosts:
        h["addr"] = addr[(h["name"], h["router"])]
        h["gateway"] = addr[(h["router"], h["name"])]
        h["dev"] = "%s-%s" % (h["name"], h["router"])

    def below(r):
        """Subnets of the links under router r (not the one above it)."""
        out = []
        for (up, low), j in subnet.items():
            if up == r:
                out.append(j)
                if low in kids:
                    out += below(low)
        return out

    routes = {}
    for r in routers:
        rt = []
        for c in kids[r]:
            for j in sorted(below(c)):
                rt.append(("10.0.%d.0/24" % j, addr[(c, r)]))
        if r != "r1":
            rt.append(("default", addr[(parent[r], r)]))
        routes[r] = rt
    for h in hosts:
        routes[h["name"]] = [("default", h["gateway"])]

    def path_up(r):
        p = [r]
        while p[-1] != "r1":
            p.append(parent[p[-1]])
        return p

    topo = {
        "prefix": args.prefix,
        "seed": args.seed,
        "routers": routers,
        "parent": parent,
        "hosts": hosts,
        "links": [{"upper": u, "lower": l, "subnet": "10.0.%d.0/24" % j,
                   "upper_addr": addr[(u, l)], "lower_addr": addr[(l, u)]}
                  for (u, l), j in subnet.items()],
        "routes": {k: [{"to": d, "via": v} for d, v in rt]
                   for k, rt in routes.items()},
        "true_path": {h["name"]: path_up(h["router"]) for h in hosts},
    }
    topo["drawing"] = draw(topo)
    os.makedirs(args.out, exist_ok=True)
    with open(os.path.join(args.out, "topo.json"), "w") as f:
        json.dump(topo, f, indent=1)
    write_topofile(topo, os.path.join(args.out, "topo.txt"))
    write_build(topo, os.path.join(args.out, "build.sh"))
    write_teardown(topo, os.path.join(args.out, "teardown.sh"))
    with open(os.path.join(args.out, "addrs.sh"), "w") as f:
        for h in hosts:
            f.write("addr_%s=%s\n" % (h["name"], h["addr"]))
    if not args.quiet:
        print(topo["drawing"])
        print()
        print(plan(topo))


def depth(r, parent):
    d = 0
    while r != "r1":
        r = parent[r]
        d += 1
    return d


def draw(topo):
    """The tree, `tree` style, hosts beside their routers."""
    kids = {r: [] for r in topo["routers"]}
    for r in topo["routers"][1:]:
        kids[topo["parent"][r]].append(r)
    at = {}
    for h in topo["hosts"]:
        at.setdefault(h["router"], []).append(
            "%s (%s, %s)" % (h["name"], h["role"], h["addr"]))
    lines = []

    def walk(r, lead, last, top):
        label = r + ("  <- " + ", ".join(at[r]) if r in at else "")
        if top:
            lines.append(label)
        else:
            lines.append(lead + ("└── " if last else "├── ") + label)
        sub = lead if top else lead + ("    " if last else "│   ")
        for i, c in enumerate(kids[r]):
            walk(c, sub, i == len(kids[r]) - 1, False)
    walk("r1", "", True, True)
    return "\n".join(lines)


def plan(topo):
    out = ["links (upper .1, lower .2):"]
    for l in topo["links"]:
        out.append("  %-4s %-4s %s" % (l["upper"], l["lower"], l["subnet"]))
    return "\n".join(out)


def ns(topo, name):
    return topo["prefix"] + name


def write_topofile(topo, path):
    with open(path, "w") as f:
        f.write("# bloomctl trace topology (docs/trace.md), made by "
                "scripts/topo.py\n#\n")
        for line in topo["drawing"].splitlines():
            f.write("#   " + line + "\n")
        f.write("\n")
        for r in topo["routers"]:
            f.write("router %s netns %s filter spie\n" % (r, ns(topo, r)))
        f.write("\n")
        for r in topo["routers"][1:]:
            f.write("link %s %s\n" % (topo["parent"][r], r))


def write_build(topo, path):
    routers = topo["routers"]
    nodes = routers + [h["name"] for h in topo["hosts"]]
    devs = {n: [] for n in nodes}
    for l in topo["links"]:
        u, lo = l["upper"], l["lower"]
        devs[u].append(("%s-%s" % (u, lo), l["upper_addr"]))
        devs[lo].append(("%s-%s" % (lo, u), l["lower_addr"]))
    alldevs = [d for n in nodes for d, _ in devs[n]]
    L = []
    w = L.append
    w("#!/bin/bash")
    w("# Builds this tree of routers in network namespaces (made by")
    w("# scripts/topo.py; teardown.sh removes it):")
    w("#")
    for line in topo["drawing"].splitlines():
        w("#   " + line)
    w("set -e")
    w("topo_py=%s" % os.path.abspath(__file__))
    w("# New namespaces take their IPv4 settings from this one: forwarding")
    w("# on, no reverse-path filter (forged sources must pass).")
    w("sysctl -qw net.ipv4.ip_forward=1 net.ipv4.conf.all.rp_filter=0 "
      "net.ipv4.conf.default.rp_filter=0")
    w("# The namespaces, and a veth pair per link (X-Y goes to X's namespace).")
    w("ip -batch - <<'EOF'")
    for n in nodes:
        w("netns add %s" % ns(topo, n))
    for l in topo["links"]:
        u, lo = l["upper"], l["lower"]
        w("link add %s-%s type veth peer name %s-%s" % (u, lo, lo, u))
    w("EOF")
    w("# Offloads off (checksum, TSO, GSO, GRO: ethtool -K DEV tx off rx off")
    w("# tso off gso off gro off, for all of them in one process), so that")
    w("# packets are digested and captured as they are on the wire.")
    w("python3 -S \"$topo_py\" offloads-off \\")
    for i in range(0, len(alldevs), 8):
        w("\t" + " ".join(alldevs[i:i + 8]) +
          (" \\" if i + 8 < len(alldevs) else ""))
    w("ip -batch - <<'EOF'")
    for n in nodes:
        for d, _ in devs[n]:
            w("link set %s netns %s" % (d, ns(topo, n)))
    w("EOF")
    w("# Addresses and routes; no IPv6 addresses (no autoconfiguration chatter).")
    for n in nodes:
        w("ip -n %s -batch - <<'EOF'" % ns(topo, n))
        w("link set lo up")
        for d, a in devs[n]:
            w("link set %s addrgenmode none" % d)
            w("addr add %s/24 dev %s" % (a, d))
            w("link set %s up" % d)
        for r in topo["routes"][n]:
            w("route add %s via %s" % (r["to"], r["via"]))
        w("EOF")
    with open(path, "w") as f:
        f.write("\n".join(L) + "\n")
    os.chmod(path, 0o755)


def offloads_off(devs):
    """ethtool -K DEV tx off rx off tso off gso off gro off, by ioctl."""
    import array
    import fcntl
    import socket
    SIOCETHTOOL = 0x8946
    # ETHTOOL_STXCSUM, SRXCSUM, STSO, SGSO, SGRO (linux/ethtool.h)
    cmds = (0x17, 0x15, 0x1F, 0x24, 0x2C)
    s = socket.socket(socket.AF_INET, socket.SOCK_DGRAM)
    bad = 0
    for d in devs:
        for c in cmds:
            val = array.array("I", [c, 0])      # struct ethtool_value
            ifr = struct.pack("16sP", d.encode(), val.buffer_info()[0])
            ifr += b"\0" * (40 - len(ifr))
            try:
                fcntl.ioctl(s, SIOCETHTOOL, ifr)
            except OSError as e:
                print("topo.py: %s: ethtool command 0x%x: %s" % (d, c, e),
                      file=sys.stderr)
                bad = 1
    return bad


def write_teardown(topo, path):
    nodes = topo["routers"] + [h["name"] for h in topo["hosts"]]
    with open(path, "w") as f:
        f.write("#!/bin/bash\n# Deletes the namespaces of build.sh "
                "(and with them the veths).\n")
        f.write("ip -force -batch - <<'EOF' 2>/dev/null\n")
        for n in nodes:
            f.write("netns del %s\n" % ns(topo, n))
        f.write("EOF\ntrue\n")
    os.chmod(path, 0o755)


def main():
    ap = argparse.ArgumentParser(
        description="Router trees in network namespaces for bloomctl trace "
                    "(see the top of this file).")
    sub = ap.add_subparsers(dest="cmd", required=True)
    t = sub.add_parser("tree", help="make a tree: topo.txt, build.sh, ...")
    t.add_argument("out", help="directory for the files")
    t.add_argument("--routers", type=int, default=9)
    t.add_argument("--seed", type=int, default=1)
    t.add_argument("--parents", help="r2's, r3's ... parent numbers: 1,1,2")
    t.add_argument("--prefix", default="", help="namespace name prefix")
    t.add_argument("--hosts", type=int, default=3,
                   help="background hosts (default 3)")
    t.add_argument("--attackers", type=int, default=1)
    t.add_argument("--attack-at", help="leaf routers of the attackers: r9,...")
    t.add_argument("-q", "--quiet", action="store_true")
    d = sub.add_parser("draw", help="print the tree of OUT/topo.json")
    d.add_argument("out")
    o = sub.add_parser("offloads-off", help="ethtool -K DEV tx off rx off "
                       "tso off gso off gro off, for each DEV")
    o.add_argument("dev", nargs="+")
    args = ap.parse_args()
    if args.cmd == "offloads-off":
        sys.exit(offloads_off(args.dev))
    if args.cmd == "tree":
        if not args.parents and args.routers < 2:
            sys.exit("topo.py: at least 2 routers")
        build(args)
    else:
        with open(os.path.join(args.out, "topo.json")) as f:
            topo = json.load(f)
        print(topo["drawing"])
        print()
        print(plan(topo))


if __name__ == "__main__":
    main()
