#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0 OR MIT
"""The trace's cost against the number of routers: a section of
bench/results.md and the plot bench/trace.png (gnuplot), from the TSV rows
of bench/trace_scale.sh (OUT=, archive routers) and bench/trace_live.sh
(--out, live routers in network namespaces and over ssh in the VM).

  trace_report.py TSV RESULTS_MD PLOTDIR COMMAND...

Rows: part routers way questions wall_s packets found. Every figure is
from the same run; the ratios compare ways of asking at one size.
"""
import os
import sys
from collections import defaultdict

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from report import gnuplot  # noqa: E402

PARTS = {
    "archive": "archive routers (trace_gen)",
    "archive-10pct-unknown": "archive routers, 10% unknown (mean of trials)",
    "netns": "live routers, network namespaces (VM)",
    "netns-10pct-unknown": "live routers, 10% without a filter (VM)",
    "ssh": "live routers over ssh, one sshd each (VM)",
}


def load(path):
    rows = []
    with open(path) as f:
        for line in f:
            c = line.rstrip("\n").split("\t")
            if len(c) != 7:
                continue
            rows.append({"part": c[0], "routers": int(c[1]), "way": c[2],
                         "q": float(c[3]), "wall": float(c[4]),
                         "packets": int(c[5]), "found": int(c[6])})
    return rows


def plot(png, rows):
    """Questions and wall time against routers, log-log, one line per part
    (the default way: parallel 16; ssh: parallel 16 with reuse)."""
    series = defaultdict(list)
    for r in rows:
        if r["way"] in ("parallel 16", "parallel 16 reuse yes"):
            series[r["part"]].append((r["routers"], r["q"], r["wall"]))
    if not series:
        return False
    names = sorted(series)
    blocks = []
    for n in names:
        pts = sorted(series[n])
        blocks.append("\n".join(f"{a} {q} {w}" for a, q, w in pts) + "\ne\n")
    def plots(col):
        return ", ".join(f"'-' using 1:{col} with linespoints lw 2 title '{PARTS.get(n, n)}'"
                         for n in names)
    script = f"""set terminal pngcairo size 1100,560 noenhanced
set output '{png}'
set multiplot layout 1,2 title "bloomctl trace against the number of routers (one run; default way: parallel 16, ssh with reuse)"
set logscale xy
set grid
set offsets graph 0.05, graph 0.05, 0, 0
set key top left font ',9' box opaque
set xlabel 'routers'
set ylabel 'questions'
plot {plots(2)}
{"".join(blocks)}
set ylabel 'wall seconds'
unset key
plot {plots(3)}
{"".join(blocks)}
unset multiplot
"""
    return gnuplot(script)


def main():
    if len(sys.argv) < 5:
        sys.exit(__doc__)
    rows = load(sys.argv[1])
    out, plotdir, command = sys.argv[2], sys.argv[3], " ".join(sys.argv[4:])
    if not rows:
        sys.exit("trace_report.py: no rows in " + sys.argv[1])
    with open(out, "a") as f:
        w = f.write
        w("\n## Trace against the number of routers\n\n")
        w(f"Produced by `{command}`. Questions: routers asked in all "
          "(KBLOOM_TRACE_STATS); wall: median seconds of the trace; found: "
          "attack packets whose ingress list names the true ingress.\n\n")
        w("| routers are | routers | trace | questions | questions / routers | wall s | found |\n")
        w("|---|---:|---|---:|---:|---:|---:|\n")
        for r in rows:
            w(f"| {PARTS.get(r['part'], r['part'])} | {r['routers']} | {r['way']} | "
              f"{r['q']:g} | {r['q'] / r['routers']:.3f} | {r['wall']:.4f} | "
              f"{r['found']} / {r['packets']} |\n")
        ratio = defaultdict(dict)
        for r in rows:
            ratio[(r["part"], r["routers"])][r["way"]] = r["wall"]
        lines = []
        for (part, n), ways in sorted(ratio.items()):
            slow = ways.get("parallel 1 reuse no") or ways.get("parallel 1")
            if not slow:
                continue
            for way, t in sorted(ways.items()):
                if t > 0 and way not in ("parallel 1", "parallel 1 reuse no"):
                    lines.append(f"| {PARTS.get(part, part)} | {n} | {way} | {slow / t:.2f}x |\n")
        if lines:
            w("\n| routers are | routers | trace | speed vs sequential (parallel 1, no reuse) |\n")
            w("|---|---:|---|---:|\n")
            for line in lines:
                w(line)
        png = os.path.join(plotdir, "trace.png")
        if plot(png, rows):
            w(f"\n![trace against routers]({os.path.basename(png)})\n")


if __name__ == "__main__":
    main()
