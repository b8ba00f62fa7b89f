#!/bin/bash
# SPDX-License-Identifier: MIT
# Copyright (c) 2026 The rbflame authors
#
# One run writes the raw recording and every other format; then
# 'rbflame report' from the recording must give each of them byte for
# byte (one report run with -o repeated, and one per format on standard
# output), the recording itself included. A collapsed file converts too:
# report from it equals report from the recording for the formats that
# need only stacks and counts (collapsed itself).
[ -n "${BASH_VERSION:-}" ] || exec bash "$0" "$@"
. "$(dirname "$0")/../e2e/lib.sh"
. "$(dirname "$0")/../ruby/lib-ruby.sh"

FMTS="collapsed raw speedscope stackprof callgrind pprof samplingprof"
args=()
for f in $FMTS; do
	args+=(-f "$f" -o "$T/direct.$f")
done
run_rbflame run 60 -r 300 -o "$T/p.rbflame" "${args[@]}" -- \
	"$RUBY" "$FIXTURES/threads.rb" 1
expect_rc 0 "rbflame (raw and every format) -- ruby threads.rb 1"

rargs=()
for f in $FMTS; do
	rargs+=(-f "$f" -o "$T/report.$f")
done
run_rbflame report 60 report -i "$T/p.rbflame" "${rargs[@]}"
expect_rc 0 "rbflame report -i p.rbflame (every format)"
for f in $FMTS; do
	cmp "$T/direct.$f" "$T/report.$f" ||
		fail "$f from the recording differs from the run's own"
	size=$(wc -c <"$T/direct.$f")
	say "$f: report from raw = direct output ($size bytes)"
done
cmp "$T/p.rbflame" "$T/direct.raw" ||
	fail "two raw outputs of one run differ"

# Standard output, format by -f.
for f in collapsed speedscope; do
	run_rbflame stdout.$f 60 report -i "$T/p.rbflame" -f "$f"
	expect_rc 0 "rbflame report -f $f"
	cmp "$T/direct.$f" "$T/stdout.$f.out" ||
		fail "report -f $f on standard output differs"
done

# From collapsed text: the same stacks and counts.
run_rbflame fromtxt 60 report -i "$T/direct.collapsed" -o "$T/again.txt"
expect_rc 0 "rbflame report -i FILE.collapsed"
cmp "$T/direct.collapsed" "$T/again.txt" ||
	fail "collapsed -> report -> collapsed changed the stacks"
say "collapsed -> report -> collapsed: identical"

# callgrind from collapsed text: "self FN N" and "call FN -> CFN N".
cg_costs() {
	awk '/^fn=/ { fn = substr($0, 4); incall = 0; next }
	     /^cfn=/ { cfn = substr($0, 5); next }
	     /^calls=/ { incall = 1; next }
	     /^[0-9]+ [0-9]+$/ {
		if (incall) { call[fn " -> " cfn] += $2; incall = 0 }
		else self[fn] += $2 }
	     END { for (k in self) print "self " k " " self[k]
		   for (k in call) print "call " k " " call[k] }' "$1" |
		LC_ALL=C sort
}
run_rbflame cgtxt 60 report -i "$T/direct.collapsed" -f callgrind \
	-o "$T/fromtxt.callgrind"
expect_rc 0 "rbflame report -i FILE.collapsed -f callgrind"
cg_costs "$T/direct.callgrind" >"$T/cg.want"
cg_costs "$T/fromtxt.callgrind" >"$T/cg.got"
diff -u "$T/cg.want" "$T/cg.got" >&2 ||
	fail "callgrind from collapsed differs from the recording's in costs"
[ "$(grep -c '^fl=$' "$T/fromtxt.callgrind")" = \
  "$(grep -c '^fl=$' "$T/direct.callgrind")" ] ||
	fail "callgrind from collapsed has more functions without a file"
say "collapsed -> callgrind: the recording's" \
	"$(wc -l <"$T/cg.want") function and call costs"

# Errors: a damaged recording names itself and exits 1.
head -c 100 "$T/p.rbflame" >"$T/cut.rbflame"
run_rbflame cut 10 report -i "$T/cut.rbflame" -o "$T/x.txt"
expect_rc 1 "report of a truncated recording"
assert_error_line "$T/cut.err" "report of a truncated recording"
grep -q 'cut.rbflame' "$T/cut.err" || fail "the error does not name the file"
say "truncated recording: $(cat "$T/cut.err")"
