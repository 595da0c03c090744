#!/bin/bash
# bloomctl metrics, consumed the standard way: the file it writes is read
# by the real Prometheus node exporter (Debian's prometheus-node-exporter,
# textfile collector) and scraped over HTTP with curl; every kbloom figure
# of the scrape is checked against bloomctl -j show of the same filter,
# taken at the same moment (filters at rest), and against the module's
# parameters.
#
# One behaviour per check, exact values (derived rates: to the 10
# significant digits show -j prints).
set -uo pipefail
cd "$(dirname "$0")/../.."
. tests/vm/tap.sh
bc=$PWD/userspace/bloomctl
tmp=$(mktemp -d)
ne_pid=
cleanup() {
	[ -n "$ne_pid" ] && kill "$ne_pid" 2>/dev/null && wait "$ne_pid" 2>/dev/null
	$bc destroy all >/dev/null 2>&1
	ip netns del kb-m1 2>/dev/null
	rm -rf "$tmp"
}
trap cleanup EXIT
mkdir "$tmp/textfile"
port=9187

# The filters: one of each kind of figure, at rest while compared.
setup() {
	ip link set lo up &&
	"$bc" create bf bloom capacity 1000 fpr 0.01 &&
	"$bc" add bf k1 k2 k3 k4 k5 k6 k7 k8 k9 k10 &&
	"$bc" test bf k1 k2 nope >/dev/null; [ $? -eq 1 ] &&
	"$bc" create cf counting bits 4096 hashes 3 &&
	"$bc" add cf a a b && "$bc" del cf a &&
	"$bc" create st stable bits 8192 hashes 3 counter-bits 2 decrement 10 &&
	"$bc" add st x y &&
	"$bc" create sc scalable capacity 100 fpr 0.01 &&
	seq 1 300 | sed 's/^/s/' | "$bc" add sc -f - &&
	"$bc" create dc dcf bits 1024 hashes 3 counter-bits 2 &&
	"$bc" add dc d d d d d &&
	"$bc" create 'q"x\y' bloom bits 64 hashes 1 &&
	ip netns add kb-m1 && ip -n kb-m1 link set lo up &&
	"$bc" -n kb-m1 create pk bloom bits 65536 hashes 4 windows 3 interval 1h &&
	"$bc" -n kb-m1 attach pk hook output family ipv4 digest spie &&
	ip netns exec kb-m1 ping -q -c 3 -i 0.2 127.0.0.1 >/dev/null
}
check "set-up: bloom, counting, stable, scalable, dcf, an odd name, and in netns kb-m1 an attached time-paged filter" setup

write() {
	"$bc" metrics "$tmp/textfile/kbloom.prom" &&
	"$bc" -n kb-m1 metrics "$tmp/textfile/kbloom-kb-m1.prom" &&
	for f in bf cf st sc dc 'q"x\y'; do "$bc" -j show "$f" >"$tmp/show-$f.json" || return 1; done &&
	"$bc" -n kb-m1 -j show pk >"$tmp/show-pk.json"
}
check "bloomctl metrics FILE for both namespaces, then show -j of every filter" write

# The node exporter with only the textfile collector, on loopback.
scrape() {
	prometheus-node-exporter --web.listen-address=127.0.0.1:$port \
		--collector.disable-defaults --collector.textfile \
		--collector.textfile.directory="$tmp/textfile" \
		>"$tmp/ne.log" 2>&1 &
	ne_pid=$!
	for _ in $(seq 1 100); do
		curl -sf "http://127.0.0.1:$port/metrics" >"$tmp/scrape" && break
		sleep 0.2
	done
	grep -q '^kbloom_' "$tmp/scrape" || { cat "$tmp/ne.log"; return 1; }
}
check "prometheus-node-exporter serves the kbloom files (curl scrape)" scrape

no_error() {
	grep -qx 'node_textfile_scrape_error 0' "$tmp/scrape" &&
	! grep -i 'level=error' "$tmp/ne.log"
}
check "the textfile collector parsed both files without error (node_textfile_scrape_error 0)" no_error

# The comparison, in Python over the scrape's samples.
compare() {
	python3 - "$tmp" "$@" <<'EOF'
import json, math, re, sys
tmp, what = sys.argv[1], sys.argv[2]
samples = {}
types = {}
for line in open(tmp + '/scrape'):
    m = re.match(r'# TYPE (\S+) (\S+)', line)
    if m:
        types[m.group(1)] = m.group(2)
        continue
    m = re.match(r'(kbloom_\w+)(\{(.*)\})? (\S+)$', line.strip())
    if not m:
        continue
    labels = dict(re.findall(r'(\w+)="((?:[^"\\]|\\.)*)"', m.group(3) or ''))
    labels = {k: v.replace('\\"', '"').replace('\\\\', '\\') for k, v in labels.items()}
    samples[(m.group(1), tuple(sorted(labels.items())))] = float(m.group(4))

def get(metric, **labels):
    return samples.get((metric, tuple(sorted(labels.items()))))

def close(a, b):
    return a == b or abs(a - b) <= 1e-9 * max(abs(a), abs(b))

fail = []
def expect(metric, want, **labels):
    got = get(metric, **labels)
    if want is None:
        if got is not None:
            fail.append('%s%s: %r, want none' % (metric, labels, got))
    elif got is None or not close(got, float(want)):
        fail.append('%s%s: %r, want %r' % (metric, labels, got, want))

# metric suffix -> the show -j value it must equal (None: absent)
def mapping(j):
    wl = j.get('window_list') or []
    at = j.get('attach')
    fr = j.get('fpr_stable_point', j.get('fpr_limit'))
    m = {
        'cells': j['bits'], 'hashes': j['hashes'],
        'capacity_keys': j.get('capacity') or None,
        'memory_bytes': j.get('memory'), 'fill_cells': j.get('fill'),
        'fill_ratio': None if j.get('fill_percent') is None else j['fill_percent'] / 100,
        'saturated_cells': j.get('saturated_counters'),
        'generation': j.get('generation'),
        'inserts_total': j.get('inserts'), 'queries_total': j.get('queries'),
        'positives_total': j.get('positives'), 'deletes_total': j.get('deletes'),
        'estimated_keys': j['keys'] if 'slices' in j else j.get('estimated_keys'),
        'false_positive_ratio': j.get('fpr_now'),
        'false_positive_ratio_at_capacity': j.get('fpr_at_capacity'),
        'false_positive_ratio_limit': fr,
        'windows': len(wl) if 'windows' in j else None,
        'windows_max': j.get('windows'),
        'window_interval_seconds': j['interval_ms'] / 1000 if 'interval_ms' in j else None,
        'rotations_total': wl[0]['id'] - 1 if wl else None,
        'packets_seen_total': at['seen'] if at else None,
        'packets_digested_total': at['digested'] if at else None,
        'slices': len(j['slices']) if 'slices' in j else None,
        'overflow_keys_total': j['overflow'] if 'slices' in j else None,
        'ofv_bits': j.get('ofv_bits'),
        'lost_increments_total': j.get('lost'),
    }
    return m

if what == 'filters':
    for name, ns in (('bf', None), ('cf', None), ('st', None), ('sc', None),
                     ('dc', None), ('q"x\\y', None), ('pk', 'kb-m1')):
        j = json.load(open('%s/show-%s.json' % (tmp, name)))
        lab = {'filter': name}
        if ns:
            lab['netns'] = ns
        expect('kbloom_filter_info', 1, type=j['type'], **lab)
        for suffix, want in mapping(j).items():
            expect('kbloom_filter_' + suffix, want, **lab)
        at = j.get('attach')
        if at:
            for reason, n in at['skipped_by_reason'].items():
                expect('kbloom_filter_packets_skipped_total', n, reason=reason, **lab)
            expect('kbloom_filter_attach_info', 1, hook=at['hook'], family=at['family'],
                   digest=at['digest'], dev=at['dev'] or '', **lab)
            for by in ('flowtable', 'xdp', 'hw-offload'):
                expect('kbloom_filter_attach_bypass', int(by in at['bypass']), by=by, **lab)
        if 'grow_error' in j:
            expect('kbloom_filter_growth_stopped', 0 if j['grow_error'] is None else 1,
                   reason=j['grow_error'] or 'ok', **lab)
    names = {dict(l).get('filter') for (m, l) in samples if m == 'kbloom_filter_info'}
    if names != {'bf', 'cf', 'st', 'sc', 'dc', 'q"x\\y', 'pk'}:
        fail.append('filters in the scrape: %s' % sorted(names))
elif what == 'kinds':
    # each kind of figure is there at all (the set-up made them non-trivial)
    for metric, lab, want in (
            ('kbloom_filter_capacity_keys', {'filter': 'bf'}, 1000),
            ('kbloom_filter_inserts_total', {'filter': 'bf'}, 10),
            ('kbloom_filter_deletes_total', {'filter': 'cf'}, 1),
            ('kbloom_filter_windows', {'filter': 'pk', 'netns': 'kb-m1'}, 1),
            ('kbloom_filter_windows_max', {'filter': 'pk', 'netns': 'kb-m1'}, 3),
            ('kbloom_filter_window_interval_seconds', {'filter': 'pk', 'netns': 'kb-m1'}, 3600),
            ('kbloom_filter_rotations_total', {'filter': 'pk', 'netns': 'kb-m1'}, 0),
            ('kbloom_filter_packets_seen_total', {'filter': 'pk', 'netns': 'kb-m1'}, 6),
            ('kbloom_filter_packets_digested_total', {'filter': 'pk', 'netns': 'kb-m1'}, 6),
            ('kbloom_filter_inserts_total', {'filter': 'sc'}, 300)):
        expect(metric, want, **lab)
    if not (get('kbloom_filter_slices', filter='sc') or 0) > 1:
        fail.append('scalable sc made %r slices, want more than 1' % get('kbloom_filter_slices', filter='sc'))
    # d's five adds carry once per probe into the overflow vector, which
    # widens from 1 bit to 2; two of d's three probes on one cell (its
    # hash key is drawn at create) carry twice there, and it widens to 4
    if (get('kbloom_filter_ofv_bits', filter='dc') or 0) not in (2, 4):
        fail.append('dcf dc has an overflow vector of %r bits, want 2 (4 when two probes share a cell)' % get('kbloom_filter_ofv_bits', filter='dc'))
elif what == 'module':
    lim = int(open('/sys/module/kbloom/parameters/max_memory').read())
    mx = int(open('/sys/module/kbloom/parameters/max_filters').read())
    ver = open('/sys/module/kbloom/version').read().strip()
    mem = sum(v for (m, l), v in samples.items()
              if m == 'kbloom_filter_memory_bytes' and 'netns' not in dict(l))
    mem_ns = sum(v for (m, l), v in samples.items()
                 if m == 'kbloom_filter_memory_bytes' and 'netns' in dict(l))
    expect('kbloom_module_loaded', 1)
    expect('kbloom_module_loaded', 1, netns='kb-m1')
    expect('kbloom_module_info', 1, version=ver)
    expect('kbloom_filters', 6)
    expect('kbloom_filters', 1, netns='kb-m1')
    expect('kbloom_filters_max', mx)
    expect('kbloom_memory_limit_bytes', lim)
    expect('kbloom_memory_bytes', mem)
    expect('kbloom_memory_bytes', mem_ns, netns='kb-m1')
    expect('kbloom_memory_mapped_gone_bytes', 0)
    expect('kbloom_memory_all_bytes', mem + mem_ns)
elif what == 'names':
    for metric, t in types.items():
        if not metric.startswith('kbloom_'):
            continue
        if (t == 'counter') != metric.endswith('_total'):
            fail.append('%s is a %s' % (metric, t))
        if re.search(r'_(ms|percent|kb|mb|bits_set)$', metric):
            fail.append('%s: not a base unit' % metric)
    for (m, l) in samples:
        if m not in types:
            fail.append('%s has no TYPE' % m)
for f in fail:
    print(f)
sys.exit(1 if fail else 0)
EOF
}
check "every filter's figures in the scrape equal show -j's (present exactly when show -j has them)" compare filters
check "each kind of figure is there: capacity, counters, windows, packets, slices, ofv" compare kinds
check "module figures: loaded, version, filters, max_filters, memory per namespace and in all, max_memory" compare module
check "names: counters (and only they) end in _total, every metric has a TYPE, base units" compare names

rotations() {
	local before after got
	"$bc" create rot bloom bits 1024 hashes 2 windows 3 interval 300ms &&
	sleep 1 &&
	before=$("$bc" -j show rot | python3 -c 'import json,sys; print(json.load(sys.stdin)["window_list"][0]["id"] - 1)') &&
	got=$("$bc" metrics | sed -n 's/^kbloom_filter_rotations_total{filter="rot"} //p') &&
	after=$("$bc" -j show rot | python3 -c 'import json,sys; print(json.load(sys.stdin)["window_list"][0]["id"] - 1)') &&
	echo "before $before metrics $got after $after" &&
	[ "$before" -ge 2 ] && [ "$before" -le "$got" ] && [ "$got" -le "$after" ]
}
check "a rotating filter: rotations_total (at least 2 after 1 s of 300 ms windows) lies between show -j's before and after" rotations

finish
