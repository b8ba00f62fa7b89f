#!/bin/bash
# SPDX-License-Identifier: MIT
# Copyright (c) 2026 The rbflame authors
#
# The bundled example of the quick start, examples/demo.rb, the way a user
# runs it: 'rbflame --threads -r 200 -- ruby examples/demo.rb 2'. It ends
# on its own after 2 s with status 0, and so does rbflame; the profile has
# its three threads (main, "pricing", "reporting"), each with the frames
# of its own work; and nothing in it is impossible (check_frames: every
# frame a method, block or body of demo.rb at a line inside it, or a C
# function at its caller's line), start-up aside.
[ -n "${BASH_VERSION:-}" ] || exec bash "$0" "$@"
. "$(dirname "$0")/../e2e/lib.sh"
. "$(dirname "$0")/lib-ruby.sh"

DEMO=$(cd "$top_srcdir/examples" && pwd -P)/demo.rb
[ -f "$DEMO" ] || fail "no $DEMO"
"$RUBY" "$top_srcdir/tests/ruby/ranges.rb" "$DEMO" >"$T/known.tsv" ||
	fail "ranges.rb failed on demo.rb"

run_rbflame demo 60 --threads -r 200 -o "$T/demo.folded" -- \
	"$RUBY" "$DEMO" 2
expect_rc 0 "rbflame --threads -r 200 -- ruby examples/demo.rb 2"
perl -e 'exit !($ARGV[0] >= 1.9 && $ARGV[0] < 30)' "$ELAPSED" ||
	fail "demo: rbflame exited after $ELAPSED s (the demo runs 2 s)"
say "exit 0 after $ELAPSED s; $(tail -n 1 "$T/demo.err")"
assert_collapsed "$T/demo.folded" "demo"
assert_share "$T/demo.folded" '^thread [0-9]+ "[^"]*";' 100 \
	"demo: stacks rooted at thread TID \"NAME\""

# thread_has NAME LABEL...: thread NAME has samples, and each LABEL is in
# some of its stacks.
thread_has() {
	local name=$1 label m t
	shift
	read -r m t <<<"$(share "$T/demo.folded" "^thread [0-9]+ \"$name\";")"
	[ "$m" -gt 0 ] || fail "demo: no stack rooted at thread \"$name\""
	for label; do
		n=$(LABEL=$label NAME=$name perl -ne '
			BEGIN { $re = qr/^thread \d+ "\Q$ENV{NAME}\E";(?:.*;)?\Q$ENV{LABEL}\E \(/ }
			my ($s, $c) = /^(.*) (\d+)$/ or next;
			$n += $c if $s =~ $re;
			END { print $n + 0, "\n" }
		' "$T/demo.folded")
		[ "$n" -gt 0 ] || {
			top_stacks "$T/demo.folded" 10 >&2
			fail "demo: thread \"$name\": no sample in $label"
		}
	done
	say "thread \"$name\": $m samples, with" \
		"$(printf '%s, ' "$@" | sed 's/, $//')"
}
thread_has main '<main>' 'Array#sort!' 'Shop::Ledger.journal' \
	'Integer#times' 'block in Shop::Ledger.journal'
thread_has pricing 'block in <main>' 'Shop::Pricing#total' 'Array#sum' \
	'block in Shop::Pricing#total' 'Shop::Pricing#line_price'
thread_has reporting 'block in <main>' 'Shop::Report.render' \
	'Shop::Report#lines' 'Shop::Ledger.checksum' \
	'block in Shop::Ledger.checksum'

check_frames "$T/demo.folded" "$T/known.tsv" >"$T/verdict.txt" ||
	fail "demo: impossible frames in the profile (above)"
say "every frame possible: $(cat "$T/verdict.txt")"
