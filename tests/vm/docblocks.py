#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0 OR MIT
"""The runnable command blocks of the docs, for tests/vm/docs.sh.

  docblocks.py extract OUTDIR FILE.md...
      Writes OUTDIR/N.sh (a bash script running block N's commands) and
      OUTDIR/N.json (where it is, and each command's expected output and
      exit status) for every ```sh block of the files, in order; prints
      one line per block: N FILE:LINE.
  docblocks.py check N.json RESULTDIR
      Compares what N.sh wrote in RESULTDIR (out.I, rc.I per command)
      with the expectations; prints each mismatch, exit 1 if any.

The rules (docs/tour.md, "Docs that run"):

- Only ```sh blocks run; ``` and ```console blocks are illustrations,
  not run (they need a network, a build machine, or change the machine).
- A command is a line and its continuation lines (a line ending in \\);
  lines that are only a comment are skipped; a comment after a command
  is the shell's.
- Lines "#> TEXT" right after a command are its output (stdout and
  stderr, in the order written). In them "..." stands for any text
  within the line, and a line "#> ..." alone for any number of lines.
  A last line "#> [exit N]" is its exit status (default 0).
- A command without "#>" lines must exit 0; its output is not compared.
"""
import json
import os
import re
import sys


def blocks(path):
    """Yields (line number of the opening fence, [(line, text)...])."""
    with open(path) as f:
        lines = f.read().split("\n")
    i = 0
    while i < len(lines):
        if lines[i].rstrip() == "```sh":
            start, body = i + 1, []
            i += 1
            while i < len(lines) and lines[i].rstrip() != "```":
                body.append((i + 1, lines[i]))
                i += 1
            if i == len(lines):
                sys.exit("docblocks: %s:%d: ```sh block never closed"
                         % (path, start))
            yield start, body
        i += 1


def commands(path, body):
    """[{line, text, out: [..] or None, rc}] of a block."""
    cmds, i = [], 0
    while i < len(body):
        n, text = body[i]
        s = text.strip()
        if s.startswith("#>"):
            if not cmds:
                sys.exit("docblocks: %s:%d: output before any command"
                         % (path, n))
            c = cmds[-1]
            if c["out"] is None:
                c["out"] = []
            t = s[2:]
            t = t[1:] if t.startswith(" ") else t
            m = re.fullmatch(r"\[exit (\d+)\]", t)
            if m:
                c["rc"] = int(m.group(1))
            else:
                c["out"].append(t)
            i += 1
            continue
        if not s or s.startswith("#"):
            i += 1
            continue
        cmd = [text]
        while cmd[-1].endswith("\\") and i + 1 < len(body):
            i += 1
            cmd.append(body[i][1])
        cmds.append({"line": n, "text": "\n".join(cmd), "out": None,
                     "rc": 0})
        i += 1
    return cmds


def quote(s):
    return "'" + s.replace("'", "'\\''") + "'"


def script(path, start, cmds):
    sh = ["#!/bin/bash",
          "# %s:%d, written by tests/vm/docblocks.py" % (path, start),
          "# Usage: N.sh RESULTDIR (run in the block's working directory)",
          "__kb_res=$1",
          "__kb_rc=0",
          "__kb_status() { return \"$1\"; }"]
    for i, c in enumerate(cmds):
        sh.append("__kb_c=%s" % quote(c["text"]))
        sh.append("__kb_status \"$__kb_rc\"; eval \"$__kb_c\" "
                  ">\"$__kb_res/out.%d\" 2>&1 </dev/null" % i)
        sh.append("__kb_rc=$?; echo \"$__kb_rc\" >\"$__kb_res/rc.%d\"" % i)
    return "\n".join(sh) + "\n"


def extract(outdir, files):
    n = 0
    for path in files:
        for start, body in blocks(path):
            n += 1
            cmds = commands(path, body)
            with open(os.path.join(outdir, "%d.sh" % n), "w") as f:
                f.write(script(path, start, cmds))
            with open(os.path.join(outdir, "%d.json" % n), "w") as f:
                json.dump({"file": path, "line": start, "commands": cmds}, f)
            print("%d %s:%d" % (n, path, start))


def line_re(pattern):
    return re.compile(".*".join(re.escape(p) for p in pattern.split("...")))


def matches(want, got):
    """Whether the lines got match the patterns want."""
    if not want:
        return not got
    if want[0] == "...":
        return any(matches(want[1:], got[k:]) for k in range(len(got) + 1))
    return bool(got) and bool(line_re(want[0]).fullmatch(got[0])) and \
        matches(want[1:], got[1:])


def show(lines, most=8):
    """Prints @lines indented, the first and last 4 of more than @most
    (the TAP report keeps 20 lines)."""
    if len(lines) <= most:
        part = lines
    else:
        part = lines[:4] + ["(%d lines)" % (len(lines) - 8)] + lines[-4:]
    for x in part:
        print("    " + x)


def check(spec, resdir):
    with open(spec) as f:
        b = json.load(f)
    bad = 0
    for i, c in enumerate(b["commands"]):
        where = "%s:%d" % (b["file"], c["line"])
        try:
            with open(os.path.join(resdir, "out.%d" % i)) as f:
                out = f.read()
            with open(os.path.join(resdir, "rc.%d" % i)) as f:
                rc = int(f.read())
        except OSError:
            print("%s: %s: not run" % (where, c["text"]))
            bad += 1
            continue
        got = out.split("\n")
        if got and got[-1] == "":
            got.pop()
        if rc != c["rc"]:
            print("%s: %s: exit %d, the doc says %d" % (where, c["text"], rc,
                                                        c["rc"]))
            bad += 1
        elif c["out"] is not None and not matches(c["out"], got):
            print("%s: %s: output differs from the doc" % (where, c["text"]))
            print("  the doc:")
            show(c["out"])
            print("  the command:")
            show(got)
            bad += 1
        else:
            continue
        if c["out"] is None and out:
            show(got)
    return 1 if bad else 0


def main():
    if len(sys.argv) >= 4 and sys.argv[1] == "extract":
        extract(sys.argv[2], sys.argv[3:])
        return 0
    if len(sys.argv) == 4 and sys.argv[1] == "check":
        return check(sys.argv[2], sys.argv[3])
    sys.exit(__doc__)


if __name__ == "__main__":
    sys.exit(main())
