#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0 OR MIT
"""Where the packet path's cost is: kbloom.ko without one step at a time.

Each variant is kmod/ with one edit (a text replacement that must match
exactly once, so a change of the source breaks the variant loudly instead
of measuring something else). Variants that leave out the add's writes
lose bits: they are measurements, never a module to use.

  variants.py names                  the variants, one per line
  variants.py apply VARIANT DIR      edit the copy of kmod/ in DIR
  variants.py report LOG             rounds.sh's rows -> markdown tables
"""
import statistics
import sys
from pathlib import Path

BLOCKED_H = "engine/blocked.h"
# The packet path adds through its CPU's queue: the batch add's locked OR.
LOCKED_OR = "\t\t\tatomic_long_or(miss, (atomic_long_t *)&line[w]);\n"
READ_ONLY = "\t\t\tbarrier();\n"
LINE = "\treturn f->mem + kb_reduce(h->h1, f->nblocks) * KB_BLOCK_WORDS;\n"

# name -> (what it leaves out, [(file, old, new), ...]); BASE first.
VARIANTS = {
    "BASE": ("nothing: kbloom.ko as it is", []),
    "PLAIN": ("the lock prefix: a plain OR of a new key's bits (loses bits "
              "between CPUs)",
              [(BLOCKED_H, LOCKED_OR,
                "\t\t\tWRITE_ONCE(line[w], line[w] | miss);\n")]),
    "READ": ("the writes: the line is read and the missing bits found, "
             "nothing is set",
             [(BLOCKED_H, LOCKED_OR, READ_ONLY)]),
    "ONEPAGE": ("the random line: as READ, with every key's line in the "
                "filter's first 4 KiB",
                [(BLOCKED_H, LOCKED_OR, READ_ONLY),
                 (BLOCKED_H, LINE,
                  "\treturn f->mem + kb_reduce(h->h1, 64) * KB_BLOCK_WORDS;\n")]),
    "NOADD": ("the add: digest, SipHash and the prefetch only",
              [("engine/batch.h",
                "\tkb_filter_add_prefetched(f, b->h, n);\n",
                "\tbarrier();\n")]),
    "DIGEST": ("the queue, the hash and the add: the packet is digested "
               "and counted",
               [("attach.c",
                 "\t\tkb_dq_put(att->dq, d->key, d->len);\n",
                 "\t\tbarrier();\n")]),
    "HOOK": ("the digest, the hash and the add: the hook counts the "
             "packet and returns",
             [("attach.c",
               "\tthis_cpu_inc(att->stats->seen);\n\n\tp = kb_skb_head(",
               "\tthis_cpu_inc(att->stats->seen);\n\treturn;\n"
               "\n\tp = kb_skb_head(")]),
}

# The steps, as the differences of two neighbouring variants.
STEPS = [
    ("the lock prefix of the ORs", "BASE", "PLAIN"),
    ("the writes themselves", "PLAIN", "READ"),
    ("reaching a random line of the filter", "READ", "ONEPAGE"),
    ("the add's other instructions", "ONEPAGE", "NOADD"),
    ("SipHash, the prefetch and the queue", "NOADD", "DIGEST"),
    ("the digest and the counters", "DIGEST", "HOOK"),
]


def die(msg):
    sys.exit(f"variants.py: {msg}")


def apply(name, root):
    if name not in VARIANTS:
        die(f"unknown variant '{name}' (variants: {' '.join(VARIANTS)})")
    for rel, old, new in VARIANTS[name][1]:
        path = Path(root) / rel
        text = path.read_text()
        n = text.count(old)
        if n != 1:
            die(f"{name}: {rel} holds the text to replace {n} times, not once: "
                f"{old.strip()!r} (update bench/ablate/variants.py)")
        path.write_text(text.replace(old, new))


def read_rows(log):
    """Rows 'R ROUND VARIANT NONE BLOCKED NONE2' -> {variant: {round: ratio}}:
    blocked against the mean of the unattached runs either side of it."""
    ratios = {}
    for line in Path(log).read_text().splitlines():
        f = line.split()
        if len(f) != 6 or f[0] != "R":
            continue
        r, var, a, b, c = int(f[1]), f[2], int(f[3]), int(f[4]), int(f[5])
        if a + c == 0:
            die(f"{log}: no unattached rate in {line!r}")
        ratios.setdefault(var, {})[r] = 2 * b / (a + c)
    return ratios


def report(log):
    ratios = read_rows(log)
    if "BASE" not in ratios:
        die(f"{log}: no BASE rows")
    base = ratios["BASE"]
    print("| variant | leaves out | blocked / none, median [min–max] "
          "| vs BASE, paired median | rounds faster than BASE |")
    print("|---|---|---:|---:|---:|")
    for var in VARIANTS:
        if var not in ratios:
            continue
        v = ratios[var]
        paired = [v[r] / base[r] for r in v if r in base]
        cells = ("–", "–") if var == "BASE" else (
            f"{statistics.median(paired):.3f}",
            f"{sum(p > 1 for p in paired)} of {len(paired)}")
        print(f"| {var} | {VARIANTS[var][0]} | {statistics.median(v.values()):.3f} "
              f"[{min(v.values()):.3f}–{max(v.values()):.3f}] | {cells[0]} "
              f"| {cells[1]} |")
    print()
    print("| step | its share of the unattached rate: median of the rounds' "
          "differences [min–max] |")
    print("|---|---:|")
    for what, a, b in STEPS:
        if a in ratios and b in ratios:
            d = [ratios[b][r] - ratios[a][r] for r in ratios[a] if r in ratios[b]]
            print(f"| {what} ({b} − {a}) | {statistics.median(d):+.1%} "
                  f"[{min(d):+.1%}–{max(d):+.1%}] |")
    if "HOOK" in ratios:
        d = [1 - x for x in ratios["HOOK"].values()]
        print(f"| the netfilter call and the hook's entry (1 − HOOK) "
              f"| {statistics.median(d):+.1%} [{min(d):+.1%}–{max(d):+.1%}] |")


def main(argv):
    if len(argv) == 2 and argv[1] == "names":
        print("\n".join(VARIANTS))
    elif len(argv) == 4 and argv[1] == "apply":
        apply(argv[2], argv[3])
    elif len(argv) == 3 and argv[1] == "report":
        report(argv[2])
    else:
        sys.exit(__doc__.strip())


if __name__ == "__main__":
    main(sys.argv)
