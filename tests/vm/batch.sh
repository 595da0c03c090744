#!/bin/bash
# bloomctl batch against the loaded module, in the test VM: commands one a
# line from a file or stdin, run through the command table with the global
# options of the batch; errors name FILE:LINE; -k keeps going.
#
# One behaviour per check, exact outputs and exit codes (0 ok, 1 a line
# answered negatively, 2 a line failed).
set -uo pipefail
cd "$(dirname "$0")/../.."
. tests/vm/tap.sh
bc=$PWD/userspace/bloomctl
tmp=$(mktemp -d)
trap '$bc destroy all >/dev/null 2>&1; ip netns del kb-b1 2>/dev/null; rm -rf "$tmp"' EXIT
cd "$tmp" || exit 1

# same TEXT FILE: FILE holds exactly TEXT (printf %s, so TEXT ends in \n).
same() {
	local want=$1 got
	got=$(cat "$2"; echo x)
	[ "${got%x}" = "$want" ] || { echo "want: $want"; return 1; }
}

absent() { ! "$bc" show "$1" >/dev/null 2>&1; }

good() {
	printf '%s\n' 'create f bloom bits 4096 hashes 3' 'add f alpha beta' \
		'test f alpha beta' > good.txt &&
	capture "$tmp" "$bc" batch good.txt && [ $rc -eq 0 ] &&
	same $'alpha present\nbeta present\n' out && same '' err &&
	"$bc" test f alpha beta >/dev/null
}
check "a good batch runs every line in order, exit 0" good

comments() {
	printf '%s\n' '# a comment' '' '   ' '	# indented comment' \
		'test f alpha   # trailing comment' '#test f nosuchkey' > c.txt &&
	capture "$tmp" "$bc" batch c.txt && [ $rc -eq 0 ] &&
	same $'alpha present\n' out && same '' err
}
check "blank lines and # comments are skipped" comments

quoting() {
	printf '%s\n' 'add f "two words" '"'"'it is'"'"' x\ y' \
		'test f "two words" '"'"'it is'"'"' x\ y "q\"" "#h"' > q.txt &&
	capture "$tmp" "$bc" batch q.txt && [ $rc -eq 1 ] &&
	same $'two words present\nit is present\nx y present\nq" absent\n#h absent\n' out &&
	"$bc" test f 'two words' 'it is' 'x y' >/dev/null
}
check "quotes and backslash give keys with blanks (one word each)" quoting

crlf() {
	printf 'test f alpha\r\n' > crlf.txt &&
	capture "$tmp" "$bc" batch crlf.txt && [ $rc -eq 0 ] && same $'alpha present\n' out
}
check "a trailing CR is dropped" crlf

stops() {
	printf '%s\n' 'create s1 bloom bits 4096 hashes 3' '# comment' \
		'clear nosuch' 'create s2 bloom bits 4096 hashes 3' > stop.txt &&
	capture "$tmp" "$bc" batch stop.txt && [ $rc -eq 2 ] && same '' out &&
	[ "$(wc -l < err)" -eq 1 ] &&
	[[ $(cat err) == "bloomctl: stop.txt:3: unable to clear filter 'nosuch': No such file or directory"* ]] &&
	"$bc" show s1 >/dev/null
}
check "the first failing line stops the batch: one stderr line FILE:3: and its error, exit 2" stops
check "the lines after the failing one did not run" absent s2

keep() {
	printf '%s\n' 'create k1 bloom bits 4096 hashes 3' 'clear nosuch1' \
		'create k2 bloom bits 4096 hashes 3' '' 'destroy nosuch2' \
		'create k3 bloom bits 4096 hashes 3' > keep.txt &&
	capture "$tmp" "$bc" batch -k keep.txt && [ $rc -eq 2 ] && same '' out &&
	[ "$(wc -l < err)" -eq 3 ] &&
	[[ $(sed -n 1p err) == "bloomctl: keep.txt:2: unable to clear filter 'nosuch1': No such file or directory"* ]] &&
	[[ $(sed -n 2p err) == "bloomctl: keep.txt:5: unable to destroy filter 'nosuch2': No such file or directory"* ]] &&
	[ "$(sed -n 3p err)" = "bloomctl: keep.txt: 2 of 5 commands failed: lines 2, 5" ] &&
	"$bc" show k1 >/dev/null && "$bc" show k2 >/dev/null &&
	"$bc" show k3 >/dev/null
}
check "-k runs every line, reports each failing one and lists them last, exit 2" keep

parse_error() {
	printf '%s\n' 'test f alpha' 'add f "open' 'create p2 bloom bits 4096 hashes 3' > pe.txt &&
	capture "$tmp" "$bc" batch pe.txt && [ $rc -eq 2 ] && same $'alpha present\n' out &&
	same $'bloomctl: pe.txt:2: invalid line \'add f "open\': unterminated " (opened at column 7)\n' err &&
	absent p2
}
check "an unterminated quote fails its line, naming line and column" parse_error

nested() {
	printf '%s\n' 'batch other.txt' > nest.txt &&
	capture "$tmp" "$bc" batch nest.txt && [ $rc -eq 2 ] &&
	same $'bloomctl: nest.txt:1: a batch may not run \'batch\'\n' err
}
check "a line may not run batch" nested

global_opt() {
	printf '%s\n' '-j list' > go.txt &&
	capture "$tmp" "$bc" batch go.txt && [ $rc -eq 2 ] &&
	same $'bloomctl: go.txt:1: unexpected option \'-j\': global options go before \'batch\' and apply to every line\n' err
}
check "a line may not start with a global option" global_opt

unknown() {
	printf '%s\n' 'frobnicate f' > u.txt &&
	capture "$tmp" "$bc" batch u.txt && [ $rc -eq 2 ] &&
	same $'bloomctl: u.txt:1: unknown command \'frobnicate\' (see \'bloomctl --help\')\n' err
}
check "an unknown command names its line" unknown

stdin_batch() {
	printf '%s\n' 'create in1 bloom bits 4096 hashes 3' 'test f alpha' > in1.txt &&
	capture "$tmp" "$bc" batch < in1.txt && [ $rc -eq 0 ] && same $'alpha present\n' out &&
	"$bc" show in1 >/dev/null
}
check "without FILE the batch is read from stdin" stdin_batch

stdin_dash() {
	printf '%s\n' 'test f beta' 'clear nosuch' > dash.txt &&
	capture "$tmp" "$bc" batch - < dash.txt && [ $rc -eq 2 ] &&
	same $'beta present\n' out &&
	[[ $(cat err) == "bloomctl: stdin:2: unable to clear filter 'nosuch': "* ]]
}
check "FILE '-' is stdin, named 'stdin' in errors" stdin_dash

stdin_not_eaten() {
	# 'add -f -' must not read the batch's own lines as keys.
	printf '%s\n' 'add f -f -' 'create in2 bloom bits 4096 hashes 3' > in2.txt &&
	capture "$tmp" "$bc" batch < in2.txt && [ $rc -eq 0 ] && same '' err &&
	"$bc" show in2 >/dev/null && ! "$bc" test f 'create in2 bloom bits 4096 hashes 3' >/dev/null
}
check "with the batch on stdin, a command's '-' does not eat the lines after it" stdin_not_eaten

negative() {
	printf '%s\n' 'test f alpha nokey' 'create n1 bloom bits 4096 hashes 3' 'test f beta' > neg.txt &&
	capture "$tmp" "$bc" batch neg.txt && [ $rc -eq 1 ] &&
	same $'alpha present\nnokey absent\nbeta present\n' out && same '' err &&
	"$bc" show n1 >/dev/null
}
check "a negative answer does not stop the batch; it exits 1" negative

negative_and_failure() {
	printf '%s\n' 'test f nokey' 'clear nosuch' > nf.txt &&
	capture "$tmp" "$bc" batch -k nf.txt && [ $rc -eq 2 ] &&
	[ "$(tail -1 err)" = "bloomctl: nf.txt: 1 of 2 commands failed: line 2" ]
}
check "a failure outranks a negative answer: exit 2" negative_and_failure

json_lines() {
	printf '%s\n' 'show f' 'test f alpha' > j.txt &&
	capture "$tmp" "$bc" -j batch j.txt && [ $rc -eq 0 ] && [ "$(wc -l < out)" -eq 2 ] &&
	python3 - "$tmp/out" <<-'EOF'
	import json, sys
	lines = open(sys.argv[1]).read().splitlines()
	show, test = (json.loads(l) for l in lines)
	assert show["name"] == "f" and show["type"] == "bloom" and show["bits"] == 4096, show
	assert test == {"filter": "f", "keys": 1, "present": 1, "absent": 0,
	                "results": [{"key": "alpha", "present": True}]}, test
	EOF
}
check "-j applies to every line: each prints its JSON" json_lines

netns() {
	ip netns add kb-b1 &&
	printf '%s\n' 'create nsf bloom bits 4096 hashes 3' 'add nsf k' 'test nsf k' > ns.txt &&
	capture "$tmp" "$bc" -n kb-b1 batch ns.txt && [ $rc -eq 0 ] && same $'k present\n' out &&
	[ "$("$bc" -n kb-b1 list | cut -d' ' -f1)" = nsf ] && absent nsf
}
check "-n applies to every line: the filter is made in that netns only" netns

usage_errors() {
	capture "$tmp" "$bc" batch a.txt b.txt && [ $rc -eq 2 ] &&
	same $'bloomctl: batch: unexpected argument \'b.txt\' (see \'bloomctl batch --help\')\n' err &&
	capture "$tmp" "$bc" batch -x && [ $rc -eq 2 ] &&
	same $'bloomctl: batch: unknown option \'-x\' (see \'bloomctl batch --help\')\n' err &&
	capture "$tmp" "$bc" batch nosuchfile.txt && [ $rc -eq 2 ] &&
	same $'bloomctl: batch: unable to open \'nosuchfile.txt\': No such file or directory\n' err
}
check "bad arguments and a missing FILE are errors naming them" usage_errors

finish
