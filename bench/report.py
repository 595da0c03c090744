#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0 OR MIT
"""Turns bench/pktpath.sh's rows into the packet-path part of results.md
and PNG plots (gnuplot), every figure a ratio measured in the same run.

  bench/report.py ROWS.tsv RESULTS.md PLOTDIR COMMAND [NAT.tsv NATCOMMAND]

ROWS.tsv holds "SECTION CONFIG ROUND VALUE" lines (bench/pktpath.sh --out);
the section is appended to RESULTS.md; COMMAND is the command line that
produced the rows, printed beside every table. NAT.tsv, when given, holds
bench/natpath.sh's rows (section "nat": the NAT router with and without
the transforms table), produced by NATCOMMAND. Memory per key comes from
`bloomctl -j calc` (the sizing rules the module is created with).
"""
import json
import os
import statistics
import subprocess
import sys
from collections import defaultdict

HERE = os.path.dirname(os.path.abspath(__file__))
BLOOMCTL = os.path.join(HERE, "..", "userspace", "bloomctl")


def load(path):
    rows = defaultdict(lambda: defaultdict(dict))
    with open(path) as f:
        for line in f:
            sec, cfg, rnd, val = line.split()
            rows[sec][cfg][int(rnd)] = float(val)
    return rows


def spread(values):
    """Median and (min, max) of a list."""
    return statistics.median(values), min(values), max(values)


def ratios(sec, cfg, base):
    """Per-round ratio cfg/base (both from the same round), so drift
    between rounds cancels."""
    return [sec[cfg][r] / sec[base][r] for r in sec[cfg] if r in sec[base]]


def fmt_ratio(vals):
    m, lo, hi = spread(vals)
    return f"{m:.2f}× [{lo:.2f}–{hi:.2f}]"


def fmt_rate(vals):
    m, lo, hi = spread(vals)
    return f"{m:,.0f} [{lo:,.0f}–{hi:,.0f}]"


def gnuplot(script):
    try:
        subprocess.run(["gnuplot"], input=script, text=True, check=True)
        return True
    except (OSError, subprocess.CalledProcessError) as e:
        print(f"report.py: gnuplot failed: {e}", file=sys.stderr)
        return False


def bar_plot(png, title, ylabel, labels, meds, los, his):
    data = "\n".join(f'"{l}" {m} {lo} {hi}' for l, m, lo, hi in zip(labels, meds, los, his))
    return gnuplot(f"""set terminal pngcairo size 900,500
set output '{png}'
set title '{title}'
set ylabel '{ylabel}'
set style fill solid 0.6
set boxwidth 0.6
set yrange [0:*]
set xtics rotate by -20
set grid ytics
plot '-' using 0:2:xtic(1) with boxes notitle, '' using 0:2:3:4 with yerrorbars lc rgb 'black' pt -1 notitle
{data}
e
{data}
e
""")


def against_none(w, rows, what, tail):
    """Each configuration's packets/s against `none` (a table), then the
    line `WHAT: transforms attached / not attached = R (median of N
    roundsTAIL).`"""
    w("| configuration | packets/s | vs none | vs none, best |")
    w("|---|---:|---:|---:|")
    for cfg in rows:
        best = max(rows[cfg].values()) / max(rows["none"].values())
        w(f"| {cfg} | {fmt_rate(list(rows[cfg].values()))} | "
          f"{fmt_ratio(ratios(rows, cfg, 'none'))} | {best:.2f}× |")
    r = ratios(rows, "transforms", "none")
    w("")
    w(f"{what}: transforms attached / not attached = {spread(r)[0]:.2f} "
      f"(median of {len(r)} rounds{tail}).\n")


def nat_section(w, nat, command):
    """bench/natpath.sh's rows: packets/s through a NAT router, each
    configuration against `none` (NAT, nothing attached) round by round."""
    if "none" not in nat or "transforms" not in nat:
        sys.exit("report.py: the NAT rows lack 'none' or 'transforms'")
    w("\n## NAT router in the test VM: the transforms table\n")
    w(f"Produced by `{command}`: pktgen injects 64-byte UDP packets of")
    w("1000 flows (conntrack entries) into a veth of the VM, which routes")
    w("them out of a dummy device (the sink) and masquerades them (nft,")
    w("postrouting);")
    w("`transforms`: a transforms table attached at postrouting (one record")
    w("per flow, every packet looked up); `transforms+spie`: that and a")
    w("blocked filter with digest spie at forward. Configurations interleaved")
    w("round by round; median of the rounds and [min–max]; ratios taken round")
    w("by round against `none`; \"best\": the ratio of the configurations'")
    w("best rates (other load on the host only slows a run down). QEMU TCG:")
    w("only the ratios mean anything.\n")
    against_none(w, nat, "NAT router", f", `{command}`")


def vxlan_section(w, vx, command):
    """bench/natpath.sh --vxlan's rows: packets/s through a VXLAN endpoint."""
    if "none" not in vx or "transforms" not in vx:
        sys.exit("report.py: the VXLAN rows lack 'none' or 'transforms'")
    w("\n## VXLAN endpoint in the test VM: the transforms table\n")
    w(f"Produced by `{command}` (`--vxlan`): as above, but the router takes")
    w("each packet out of a vxlan device (a tc program writes the VXLAN")
    w("header and the inner packet over pktgen's payload, its inner IP ID")
    w("pktgen's sequence number) and forwards the inner one, no NAT;")
    w("`transforms` records each packet's outer headers at input (a tunnel")
    w("record per packet) and the device's arrival per flow.\n")
    against_none(w, vx, "VXLAN endpoint", "")


def main():
    if len(sys.argv) not in (5, 7):
        sys.exit(__doc__)
    rows, out, plotdir, command = load(sys.argv[1]), sys.argv[2], sys.argv[3], sys.argv[4]
    md = []
    w = md.append
    w("\n## Packet path in the test VM (issue 8, items 2-5 and 7)\n")
    w(f"Produced by `{command}`: pktgen injects 64-byte UDP packets with random")
    w("source address and port into a veth's receive path (xmit_mode")
    w("netif_receive), so the packets per second fall by what the hooks cost;")
    w("configurations interleaved round by round; median of the rounds and")
    w("[min–max]; ratios are taken round by round against `none`. The VM is")
    w("QEMU TCG (software emulation): only the ratios mean anything.\n")

    pps = rows.get("pps", {})
    if "none" in pps:
        w("| configuration | packets/s | vs none | vs bpf-bloom |")
        w("|---|---:|---:|---:|")
        labels, meds, los, his = [], [], [], []
        for cfg in pps:
            vs_none = ratios(pps, cfg, "none")
            vs_bpf = ratios(pps, cfg, "bpf-bloom") if "bpf-bloom" in pps else []
            w(f"| {cfg} | {fmt_rate(list(pps[cfg].values()))} | {fmt_ratio(vs_none)} | "
              f"{fmt_ratio(vs_bpf) if vs_bpf else '–'} |")
            m, lo, hi = spread(vs_none)
            labels.append(cfg), meds.append(m), los.append(lo), his.append(hi)
        blocked = spread(ratios(pps, "blocked", "none"))[0] if "blocked" in pps else 0
        vsbpf = spread(ratios(pps, "blocked", "bpf-bloom"))[0] if "bpf-bloom" in pps else 0
        w("")
        if "hook-only" in pps and "blocked" in pps:
            own = spread(ratios(pps, "blocked", "hook-only"))[0]
            floor = spread(ratios(pps, "hook-only", "none"))[0]
            w(f"The netfilter hook call alone (`hook-only`) keeps {floor:.0%} of the "
              f"unattached rate; `blocked` keeps {own:.0%} of `hook-only`'s: the "
              f"digest and the add beyond the call.\n")
        if "blocked-ingress" in pps and "blocked" in pps:
            m, lo, hi = spread(ratios(pps, "blocked-ingress", "blocked"))
            w(f"At the netdev ingress hook (`blocked-ingress`, before any flowtable) "
              f"the same filter records at {m:.2f}× [{lo:.2f}–{hi:.2f}] the rate it "
              f"records at prerouting (`blocked`), round by round.\n")
        w(f"Targets: attached `blocked` keeps ≥ 90% of the unattached rate: "
          f"{blocked:.0%} ({'met' if blocked >= 0.9 else 'not met'}); kbloom's attached rate "
          f"≥ the BPF map's: blocked/bpf-bloom {vsbpf:.2f}× "
          f"({'met' if vsbpf >= 1 else 'not met'}).\n")
        if bar_plot(os.path.join(plotdir, "pktpath.png"),
                    "packet path: rate relative to no hook (median, min-max)",
                    "packets/s relative to none", labels, meds, los, his):
            w("![packet path](pktpath.png)\n")

    pps2 = rows.get("pps2", {})
    if pps2 and pps:
        w("### 1 vs 2 CPUs (two pktgen threads, one veth each, one shared filter)\n")
        w("| configuration | packets/s, 2 CPUs | 2 CPUs / 1 CPU | vs none (2 CPUs) |")
        w("|---|---:|---:|---:|")
        for cfg in pps2:
            scale = ratios({"a": pps2[cfg], "b": pps[cfg]}, "a", "b") if cfg in pps else []
            w(f"| {cfg} | {fmt_rate(list(pps2[cfg].values()))} | "
              f"{fmt_ratio(scale) if scale else '–'} | {fmt_ratio(ratios(pps2, cfg, 'none'))} |")
        w("")

    load_rows = rows.get("load", {})
    if load_rows:
        w("### Bulk load over netlink (the same keys: 28-byte digests)\n")
        w("| how | keys/s | vs one process per key | vs in-kernel add |")
        w("|---|---:|---:|---:|")
        for cfg in load_rows:
            v = list(load_rows[cfg].values())
            per = ratios(load_rows, cfg, "per-process") if "per-process" in load_rows else []
            ink = ratios(load_rows, cfg, "in-kernel") if "in-kernel" in load_rows else []
            w(f"| {cfg} | {fmt_rate(v)} | {fmt_ratio(per) if per else '–'} | "
              f"{fmt_ratio(ink) if ink else '–'} |")
        w("\n`per-process`: one `bloomctl add NAME KEY` per key; `batch`: `bloomctl add")
        w("NAME -f FILE`; `in-kernel`: the same keys hashed and added inside the kernel,")
        w("32 at a time as the ADD handler does, by `bench/kadd/kb_addbench.ko`.")
        w("Targets: batch ≥ 10× per-process, and within 3× of in-kernel.\n")

    look = rows.get("lookup", {})
    if look:
        w("### Lookups\n")
        w("| how | lookups/s | ratio |")
        w("|---|---:|---:|")
        base = "bpf-test-run" if "bpf-test-run" in look else None
        for cfg in look:
            v = list(look[cfg].values())
            r = ratios(look, cfg, base) if base else []
            w(f"| {cfg} | {fmt_rate(v)} | {fmt_ratio(r) if r else '–'} |")
        w("\n`kbloom-test-mapped`: `bloomctl test NAME -f FILE` reading the filter through")
        w("its read-only mapping (/dev/kbloom), from the tool's start to its end, hex")
        w("keys parsed and hashed included; `kbloom-test-batch`: the same with")
        w("`KBLOOM_NO_MAP=1` (netlink batches); `kbloom-mapped`: the lookups alone")
        w("through the mapping (`bench/maplookup`: the digests made in memory, hashed and")
        w("tested 64 at a time with bloomctl's reader); `bpf-test-run`: BPF_PROG_TEST_RUN of a tc")
        w("program computing the digest and peeking the BPF Bloom filter map, per run.\n")

    if len(sys.argv) == 7:
        rows = load(sys.argv[5])
        nat_section(w, rows.get("nat", {}), sys.argv[6])
        if "vxlan" in rows:
            vxlan_section(w, rows["vxlan"], sys.argv[6])

    # Item 6: memory per key beside the information-theoretic bound.
    w("## Memory per key at a target FPR (issue 8, item 6)\n")
    w("From `bloomctl -j calc capacity 1000000 fpr P` (the sizes `create` uses);")
    w("the bound is log2(1/p) bits per key. A time-paged filter of W windows")
    w("holds W+1 tables of this size.\n")
    w("| type | p = 1e-2 | p = 1e-3 | p = 1e-4 |")
    w("|---|---:|---:|---:|")
    per_type = defaultdict(dict)
    bound = {}
    for p in ("0.01", "0.001", "0.0001"):
        out_calc = subprocess.run([BLOOMCTL, "-j", "calc", "capacity", "1000000", "fpr", p],
                                  capture_output=True, text=True, check=True).stdout
        d = json.loads(out_calc)
        bound[p] = d["bound_bits_per_key"]
        for t in d["types"]:
            if "bits_per_key" in t:
                per_type[t["type"]][p] = t["bits_per_key"]
    w(f"| log2(1/p) bound | {bound['0.01']:.2f} | {bound['0.001']:.2f} | {bound['0.0001']:.2f} |")
    for t, v in per_type.items():
        cells = " | ".join(f"{v[p]:.2f} ({v[p] / bound[p]:.2f}×)" if p in v else "–"
                           for p in ("0.01", "0.001", "0.0001"))
        w(f"| {t} | {cells} |")
    w("")
    with open(out, "a") as f:
        f.write("\n".join(md) + "\n")


if __name__ == "__main__":
    main()
