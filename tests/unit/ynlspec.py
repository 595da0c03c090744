#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0 OR MIT
"""The YNL spec of the family (docs/netlink/kbloom.yaml) against the ABI
header (kmod/uapi/kbloom.h) and the module's attribute policies
(kmod/netlink.c, and for the shape's parameters the engine's rows in
kmod/engine/filter.c). Run by ynlspec_test.sh; prints TAP.

The spec is read by the kernel's own YNL library (tools/net/ynl/lib of
Debian's linux-source-6.12, via scripts/ynl), validated against its
genetlink-legacy schema, and every C name it implies (name-prefix + name,
upper case, dashes as underscores, as tools/net/ynl/ynl-gen-c.py renders
them) is looked up in the header. The header's values come from the C
compiler, not from parsing: a generated program that includes kbloom.h
prints every enum member and #define the header declares.

Each check runs once on the real spec and again on copies of it with one
deliberate fault each (an attribute left out, a type changed, an enum entry
missing, a command renumbered), which it must report: the check can fail.
"""
import copy
import os
import re
import subprocess
import sys
import tempfile

import yaml

TOP = os.path.abspath(os.path.join(os.path.dirname(__file__), '..', '..'))
YNL = sys.argv[1]
SPEC = os.path.join(TOP, 'docs', 'netlink', 'kbloom.yaml')
HEADER = os.path.join(TOP, 'kmod', 'uapi', 'kbloom.h')
POLICY = os.path.join(TOP, 'kmod', 'netlink.c')
PARAMS = os.path.join(TOP, 'kmod', 'engine', 'filter.c')
SHAPE = os.path.join(TOP, 'kmod', 'engine', 'filter.h')
SCHEMA = os.path.join(YNL, 'Documentation', 'netlink', 'genetlink-legacy.yaml')
sys.path.insert(0, os.path.join(YNL, 'tools', 'net', 'ynl'))
from lib import SpecFamily  # noqa: E402 (the kernel's YNL library)

# The header's attribute enums whose values the spec must reproduce, and
# the spec's sets that have no enum in the header (their attributes are
# #defines there, or, for a multi key's tuple, plain dimension numbers).
TYPE_WORDS = ('u8', 'u16', 'u32', 'u64', 'string', 'binary', 'nest', 'flag')
NLA_TYPES = {'NLA_U8': 'u8', 'NLA_U16': 'u16', 'NLA_U32': 'u32',
             'NLA_U64': 'u64', 'NLA_NUL_STRING': 'string',
             'NLA_STRING': 'string', 'NLA_BINARY': 'binary',
             'NLA_FLAG': 'flag', 'NLA_NESTED': 'nest',
             'NLA_NESTED_ARRAY': 'nest'}


def c_upper(name):
    return name.upper().replace('-', '_')


def parse_header():
    """Enum names with their members in order, the type word of each
    member's comment, and every #define: names only (values: compiler)."""
    text = open(HEADER).read()
    enums, words = {}, {}
    for m in re.finditer(r'enum\s+(\w+)\s*\{(.*?)\};', text, re.S):
        members = []
        for line in m.group(2).splitlines():
            mm = re.match(r'\s*(\w+)\s*(=[^,]*)?,?\s*(/\*(.*))?$', line)
            if not mm:
                continue
            members.append(mm.group(1))
            comment = mm.group(4) or ''
            w = re.search(r'\b(%s)\b' % '|'.join(TYPE_WORDS), comment)
            if w:
                words[mm.group(1)] = w.group(1)
        enums[m.group(1)] = members
    defines = re.findall(r'^#define\s+(KBLOOM_\w+)\s+\S', text, re.M)
    return enums, words, defines


def header_values(names):
    """Each name's value, as the compiler sees kbloom.h."""
    with tempfile.TemporaryDirectory() as tmp:
        src = os.path.join(tmp, 'v.c')
        with open(src, 'w') as f:
            f.write('#include <stdio.h>\n#include "uapi/kbloom.h"\n'
                    'int main(void)\n{\n')
            for n in names:
                f.write('\tprintf("%%s %%lld\\n", "%s", (long long)(%s));\n'
                        % (n, n))
            f.write('\treturn 0;\n}\n')
        exe = os.path.join(tmp, 'v')
        subprocess.run(['gcc', '-I', os.path.join(TOP, 'kmod'), '-o', exe,
                        src], check=True)
        out = subprocess.run([exe], check=True, capture_output=True,
                             text=True).stdout
    return {n: int(v) for n, v in (line.split() for line in
                                   out.splitlines())}


def header_strings():
    text = open(HEADER).read()
    return dict(re.findall(r'^#define\s+(KBLOOM_\w+)\s+"([^"]*)"', text, re.M))


def parse_policy():
    """The type of each attribute the module's policies accept (NLA_REJECT,
    reply-only attributes, left out)."""
    types = {}
    for m in re.finditer(r'\[(KBLOOM_\w+)\]\s*=\s*([^\n]*)', open(POLICY).read()):
        rhs = m.group(2)
        if 'NLA_REJECT' in rhs:
            continue
        if 'NLA_POLICY_NESTED' in rhs:
            types[m.group(1)] = 'nest'
        elif re.search(r'NLA_POLICY_(EXACT_LEN|MIN_LEN)\b', rhs):
            types[m.group(1)] = 'binary'
        else:
            t = [w for w in re.findall(r'\bNLA_[A-Z0-9_]+\b', rhs)
                 if w in NLA_TYPES]
            if t:
                types[m.group(1)] = NLA_TYPES[t[0]]
    # The shape's parameters' lines are written at init from the engine's
    # rows (kb_params[]): each a u32 or u64 as its kb_shape field is.
    fields = dict((f, t) for t, f in re.findall(
        r'^\s*(u32|u64)\s+(\w+);', open(SHAPE).read().split('struct kb_shape {')[1]
        .split('};')[0], re.M))
    for attr, field in re.findall(r'\.attr = (KBLOOM_A_\w+),\s*\.offset = KB_AT\((\w+)\)',
                                  open(PARAMS).read()):
        types.setdefault(attr, fields[field])
    return types


def load(spec_yaml):
    """The spec as the kernel's YNL library reads it (schema-validated)."""
    with tempfile.NamedTemporaryFile('w', suffix='.yaml', delete=False) as f:
        f.write('# SPDX-License-Identifier: ((GPL-2.0 WITH Linux-syscall-note) OR MIT)\n')
        yaml.safe_dump(spec_yaml, f, sort_keys=False)
    try:
        return SpecFamily(f.name, SCHEMA)
    finally:
        os.unlink(f.name)


def enum_c_names(fam, d):
    """C names and values of a definition (enum, flags or const)."""
    if d['type'] == 'const':
        return {c_upper(d.get('name-prefix', fam.name + '-') + d['name']): d['value']}
    prefix = d.get('name-prefix', '%s-%s-' % (fam.name, d['name']))
    return {c_upper(prefix + e.name): e.user_value()
            for e in fam.consts[d['name']].entries.values()}


def set_c_names(aset):
    prefix = aset.yaml['name-prefix']
    return {c_upper(prefix + a.name): a for a in aset.attrs.values()}


# Spec sets without a header enum: tuple's attribute types are the
# dimension numbers 1..KBLOOM_DIMS_MAX (kbloom.h names none of them).
NUMBERED_SETS = {'tuple': 'KBLOOM_DIMS_MAX'}


def check_family(fam, hv, strings):
    p = []
    if fam.name != strings.get('KBLOOM_GENL_NAME'):
        p.append("family name '%s', header KBLOOM_GENL_NAME '%s'"
                 % (fam.name, strings.get('KBLOOM_GENL_NAME')))
    if fam.yaml.get('version') != hv['KBLOOM_GENL_VERSION']:
        p.append('version %s, header KBLOOM_GENL_VERSION %d'
                 % (fam.yaml.get('version'), hv['KBLOOM_GENL_VERSION']))
    groups = [g['name'] for g in fam.yaml['mcast-groups']['list']]
    if groups != [strings.get('KBLOOM_MCGRP_EVENTS')]:
        p.append('multicast groups %s, header KBLOOM_MCGRP_EVENTS %s'
                 % (groups, strings.get('KBLOOM_MCGRP_EVENTS')))
    return p


def compare_enum(what, spec_names, header_members, hv):
    """spec_names: C name -> value. Both ways, by name and value; the
    header's UNSPEC 0 of attribute and command enums and its __*_MAX
    sentinels are not entries of a spec."""
    p = []
    members = [m for m in header_members if not m.startswith('__')]
    for name, value in spec_names.items():
        if name not in members:
            p.append('%s: %s (%d) is not in kbloom.h' % (what, name, value))
        elif hv[name] != value:
            p.append('%s: %s is %d in the spec, %d in kbloom.h'
                     % (what, name, value, hv[name]))
    for m in members:
        if m not in spec_names and not (m.endswith('_UNSPEC') and hv[m] == 0
                                         and what != 'definition'):
            p.append('%s: kbloom.h has %s (%d), the spec not' % (what, m, hv[m]))
    sentinel = [m for m in header_members if m.startswith('__')]
    if sentinel and spec_names:
        top = max(spec_names.values())
        if hv[sentinel[0]] != top + 1:
            p.append('%s: %s is %d, the spec ends at %d'
                     % (what, sentinel[0], hv[sentinel[0]], top))
    return p


def check_commands(fam, enums, hv):
    """An event that reuses a command's number (the events group's
    create and destroy) is that command's: it must be named CMD-ntf."""
    ops = fam.yaml['operations']
    calls = {o.value: o.name for o in fam.msgs.values() if o.is_call}
    names, p = {}, []
    for o in fam.msgs.values():
        if o.is_async and o.value in calls:
            if o.name != calls[o.value] + '-ntf':
                p.append('command: event %s has command %s\'s number %d: name it %s-ntf'
                         % (o.name, calls[o.value], o.value, calls[o.value]))
            continue
        names[c_upper(ops['name-prefix'] + o.name)] = o.value
    p += compare_enum('command', names, enums[c_upper(ops['enum-name']).lower()], hv)
    return p


def check_definitions(fam, enums, defines, hv):
    p = []
    for d in fam.yaml.get('definitions', []):
        names = enum_c_names(fam, d)
        if d['type'] == 'const':
            for n, v in names.items():
                if n not in hv:
                    p.append('const %s is not in kbloom.h' % n)
                elif hv[n] != v:
                    p.append('const %s is %d in the spec, %d in kbloom.h'
                             % (n, v, hv[n]))
        elif d.get('enum-name'):
            ename = c_upper(d['enum-name']).lower()
            if ename not in enums:
                p.append('enum %s is not in kbloom.h' % ename)
            else:
                p += compare_enum('enum %s' % ename, names, enums[ename], hv)
        else:
            # flags rendered as #defines in the header (KBLOOM_F_*)
            prefix = c_upper(d['name-prefix'])
            header = [n for n in defines if n.startswith(prefix) and
                      not n.endswith('_MASK')]
            for n, v in names.items():
                if n not in hv:
                    p.append('flag %s is not in kbloom.h' % n)
                elif hv[n] != v:
                    p.append('flag %s is %d in the spec, %d in kbloom.h'
                             % (n, v, hv[n]))
            for n in header:
                if n not in names:
                    p.append('kbloom.h has flag %s, the spec not' % n)
    specced = {c_upper(d['enum-name']).lower()
               for d in fam.yaml.get('definitions', []) if d.get('enum-name')}
    specced |= {c_upper(s['enum-name']).lower()
                for s in fam.yaml['attribute-sets'] if s.get('enum-name')}
    specced.add(c_upper(fam.yaml['operations']['enum-name']).lower())
    for e in enums:
        if e not in specced:
            p.append('kbloom.h has enum %s, the spec not' % e)
    return p


def check_attributes(fam, enums, hv):
    p = []
    for aset in fam.attr_sets.values():
        names = {n: a.value for n, a in set_c_names(aset).items()}
        ename = aset.yaml.get('enum-name')
        if aset.name in NUMBERED_SETS:
            want = list(range(1, hv[NUMBERED_SETS[aset.name]] + 1))
            if sorted(names.values()) != want:
                p.append('set %s: values %s, want 1..%s'
                         % (aset.name, sorted(names.values()),
                            NUMBERED_SETS[aset.name]))
        elif ename:
            ename = c_upper(ename).lower()
            if ename not in enums:
                p.append('set %s: enum %s is not in kbloom.h' % (aset.name, ename))
            else:
                p += compare_enum('set %s' % aset.name, names, enums[ename], hv)
        else:
            for n, v in names.items():
                if n not in hv:
                    p.append('set %s: %s is not in kbloom.h' % (aset.name, n))
                elif hv[n] != v:
                    p.append('set %s: %s is %d in the spec, %d in kbloom.h'
                             % (aset.name, n, v, hv[n]))
    return p


def check_types(fam, words, policy):
    p = []
    for aset in fam.attr_sets.values():
        for n, a in set_c_names(aset).items():
            t = a.type
            if n in words and words[n] != t:
                p.append("%s is %s in the spec, '%s' in kbloom.h's comment"
                         % (n, t, words[n]))
            if n in policy and policy[n] != t:
                p.append('%s is %s in the spec, %s in kmod/netlink.c policy'
                         % (n, t, policy[n]))
    for n in words:
        if not any(n in set_c_names(s) for s in fam.attr_sets.values()) and \
           re.match(r'KBLOOM_\w*A_', n):
            p.append('%s has a type in kbloom.h but is no spec attribute' % n)
    return p


def run_checks(fam, ctx):
    enums, words, defines, hv, strings, policy = ctx
    return {
        'family': check_family(fam, hv, strings),
        'commands': check_commands(fam, enums, hv),
        'definitions': check_definitions(fam, enums, defines, hv),
        'attributes': check_attributes(fam, enums, hv),
        'types': check_types(fam, words, policy),
    }


DESCR = {
    'family': 'family name, version and multicast group are kbloom.h\'s',
    'commands': 'every command of the spec is kbloom.h\'s enum kbloom_cmd member of that value, and every member is in the spec',
    'definitions': 'every enum, flag and constant of the spec has kbloom.h\'s value, and every header enum and flag is in the spec',
    'attributes': 'every attribute of every set has kbloom.h\'s value, and every header attribute is in the spec',
    'types': 'every attribute type is the one kbloom.h\'s comment and kmod/netlink.c\'s policy give',
}


def mutations(spec):
    """(description, the group that must report it, the mutated spec)."""
    out = []
    s = copy.deepcopy(spec)
    kb = next(a for a in s['attribute-sets'] if a['name'] == 'kbloom')
    kb['attributes'] = [a for a in kb['attributes'] if a['name'] != 'fill']
    for op in s['operations']['list']:
        for sub in ('do', 'dump'):
            for part in ('request', 'reply'):
                try:
                    op[sub][part]['attributes'].remove('fill')
                except (KeyError, TypeError, ValueError):
                    pass
    out.append(('attribute fill left out of set kbloom', 'attributes',
                'set kbloom: KBLOOM_A_GENERATION is 14 in the spec, 15 in kbloom.h', s))
    s = copy.deepcopy(spec)
    kb = next(a for a in s['attribute-sets'] if a['name'] == 'kbloom')
    next(a for a in kb['attributes'] if a['name'] == 'bits')['type'] = 'u32'
    out.append(('bits typed u32', 'types',
                "KBLOOM_A_BITS is u32 in the spec, 'u64' in kbloom.h's comment", s))
    s = copy.deepcopy(spec)
    t = next(d for d in s['definitions'] if d['name'] == 'type')
    t['entries'] = [e for e in t['entries'] if e != 'dcf']
    out.append(('enum entry dcf left out', 'definitions',
                'enum kbloom_type: kbloom.h has KBLOOM_TYPE_DCF (9), the spec not', s))
    s = copy.deepcopy(spec)
    next(o for o in s['operations']['list'] if o['name'] == 'status')['value'] = 19
    out.append(('command status numbered 19', 'commands',
                'command: KBLOOM_CMD_STATUS is 19 in the spec, 18 in kbloom.h', s))
    s = copy.deepcopy(spec)
    next(o for o in s['operations']['list'] if o['name'] == 'create-ntf')['name'] = 'created'
    out.append(('the create event named created', 'commands',
                "command: event created has command create's number 1: name it create-ntf", s))
    return out


def main():
    enums, words, defines = parse_header()
    members = [m for ms in enums.values() for m in ms]
    hv = header_values(members + [d for d in defines
                                  if d not in header_strings()])
    ctx = (enums, words, defines, hv, header_strings(), parse_policy())
    n = 0
    bad = 0
    print('TAP version 13')

    def result(ok, descr, problems=()):
        nonlocal n, bad
        n += 1
        for line in problems:
            print('# ' + line)
        print('%s %d - %s' % ('ok' if ok else 'not ok', n, descr))
        bad += not ok

    spec = yaml.safe_load(open(SPEC))
    try:
        fam = SpecFamily(SPEC, SCHEMA)
        result(True, 'the spec loads in the kernel\'s YNL library, valid against genetlink-legacy.yaml')
    except Exception as e:  # the schema's ValidationError, or the library's
        result(False, 'the spec loads in the kernel\'s YNL library, valid against genetlink-legacy.yaml',
               str(e).splitlines()[:10])
        print('1..%d' % n)
        return 1
    for group, problems in run_checks(fam, ctx).items():
        result(not problems, DESCR[group], problems)
    # The policies were parsed: a parser that found nothing would pass.
    result(len(ctx[5]) >= 40 and ctx[5].get('KBLOOM_A_BITS') == 'u64',
           'kmod/netlink.c policies parsed (%d attributes, KBLOOM_A_BITS u64)' % len(ctx[5]))
    for descr, group, want, mutated in mutations(spec):
        problems = run_checks(load(mutated), ctx)[group]
        result(want in problems,
               'a spec with %s fails the %s check: "%s"' % (descr, group, want),
               () if want in problems else problems)
    print('1..%d' % n)
    return 1 if bad else 0


sys.exit(main())
