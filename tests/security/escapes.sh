#!/bin/bash
# SPDX-License-Identifier: MIT
# Copyright (c) 2026 The rbflame authors
#
# Terminal injection: a target chooses its thread names, method names,
# file paths and even its ruby_version, and rbflame prints them. A Ruby
# process running as nobody names a thread "\e]0;pwned\a" (an xterm
# title), a file "...\e[31m\nrbflame: ..." (red, then a fake line) with
# C1's CSI (U+009B) in it, and rewrites its ruby_version with Fiddle. Every text output (summary, lines, annotate,
# dot, diff's table, dump) and every message on stderr now shows them
# escaped ("\x1b", "\x0a", "\x9b"): no control character of the target's
# reaches the terminal, and no line is added. Collapsed, JSON and SVG
# had their own escaping already; collapsed is checked too.
[ -n "${BASH_VERSION:-}" ] || exec bash "$0" "$@"
. "$(dirname "$0")/../e2e/lib.sh"
. "$(dirname "$0")/lib-security.sh"

# raw_controls FILE [keep-tab]: prints the lines of FILE holding a control
# character (newline aside; tab too with keep-tab) or a C1 control, each
# with its control bytes shown as \xHH; empty when there is none.
raw_controls() {
	KEEP_TAB=${2:-} perl -ne '
		my $re = $ENV{KEEP_TAB} ? qr/[\x00-\x08\x0b-\x1f\x7f]|\xc2[\x80-\x9f]/
					: qr/[\x00-\x09\x0b-\x1f\x7f]|\xc2[\x80-\x9f]/;
		next unless /$re/;
		s/([\x00-\x1f\x7f\x80-\x9f])/sprintf("\\x%02x", ord $1)/ge;
		print "$ARGV:$.: $_";
	' "$1"
}

# clean FILE WHAT [keep-tab]: no raw control character in FILE.
clean() {
	local bad
	bad=$(raw_controls "$1" "${3:-}")
	[ -z "$bad" ] || fail "$2: the target's control characters got through: $(echo "$bad" | head -3)"
}

# shows FILE WHAT TEXT...: FILE has each TEXT (a fixed string), escaped.
shows() {
	local f=$1 what=$2 t
	shift 2
	for t; do
		grep -qF -- "$t" "$f" ||
			fail "$what: no '$t' in ${f##*/}: $(head -c 600 "$f")"
	done
}

cat >"$PUB/hostile.rb" <<'EOF'
path = "/srv/app/x\e[31mred\u009b0m\nrbflame: all is well.rb"
eval("def spin_file\n  i = 0\n  i += 1 while i >= 0\nend\n", nil, path, 1)
t = Thread.new { Thread.current.name = "w\e]0;pwned\a"; spin_file }
sleep 0.2
puts "ready"; $stdout.flush
t.join
EOF
start_nobody_ruby hostile "$PUB/hostile.rb"

run_rbflame run 60 -p "$TPID" -s 2 -r 199 --threads \
	-f summary -o "$T/summary.txt" -f lines -o "$T/lines.txt" \
	-f dot -o "$T/graph.dot" -f annotate -o "$T/annotate.txt" \
	-f collapsed -o "$T/stacks.folded" -f raw -o "$T/rec.rbflame"
expect_rc 0 "rbflame -p PID (a hostile target)"
for f in summary.txt lines.txt graph.dot stacks.folded run.err; do
	clean "$T/$f" "$f"
done
clean "$T/annotate.txt" annotate.txt keep-tab
# The names are there, escaped (';' in a thread root is "\x3b" already).
name='"w\x1b]0\x3bpwned\x07"'
file='x\x1b[31mred\x9b0m\x0arbflame: all is well.rb'
shows "$T/summary.txt" summary "$name"
shows "$T/lines.txt" lines "$file:3"
shows "$T/graph.dot" dot '"w\\x1b]0\\x3bpwned\\x07\"'
shows "$T/annotate.txt" annotate "Object#spin_file (/srv/app/$file:3)"
[ "$(grep -c '^rbflame: all is well' "$T/lines.txt")" = 0 ] ||
	fail "lines: the file name added a line"
say "summary, lines, dot, annotate, collapsed: the target's names escaped"

"$RBFLAME" diff "$T/rec.rbflame" "$T/rec.rbflame" >"$T/diff.txt" 2>"$T/diff.err" ||
	fail "rbflame diff failed: $(cat "$T/diff.err")"
clean "$T/diff.txt" "diff's table"
shows "$T/diff.txt" "diff's table" "$name"
"$RBFLAME" report -i "$T/rec.rbflame" -f summary >"$T/report.txt" ||
	fail "rbflame report -f summary failed"
clean "$T/report.txt" "report -f summary"
say "diff's table, report: escaped"

run_rbflame dump 60 dump -p "$TPID"
expect_rc 0 "rbflame dump -p PID"
clean "$T/dump.out" dump
shows "$T/dump.out" dump '"w\x1b]0;pwned\x07"' "$file:3)"
kill_tracee "$TPID"
say "dump: escaped"

# A ruby_version of its own: the messages that print it.
cat >"$PUB/version.rb" <<'EOF'
require "fiddle"
libc = Fiddle.dlopen(nil)
mprotect = Fiddle::Function.new(libc["mprotect"],
	[Fiddle::TYPE_VOIDP, Fiddle::TYPE_SIZE_T, Fiddle::TYPE_INT],
	Fiddle::TYPE_INT)
addr = Fiddle::Handle::DEFAULT["ruby_version"]
mprotect.call(addr & ~4095, 8192, 3) == 0 or abort "mprotect failed"
Fiddle::Pointer.new(addr)[0, 8] = "9\e]2;X\a\0"
puts "ready"; $stdout.flush
loop { sleep 0.01 }
EOF
start_nobody_ruby version "$PUB/version.rb"
run_rbflame version 30 -p "$TPID" -s 1 -o "$T/version.folded"
cat "$T/version.err"
clean "$T/version.err" "stderr (ruby_version)"
shows "$T/version.err" "stderr (ruby_version)" 'Ruby 9\x1b]2;X\x07'
run_rbflame vdump 30 dump -p "$TPID"
clean "$T/vdump.err" "dump's stderr (ruby_version)"
shows "$T/vdump.err" "dump's stderr (ruby_version)" '9\x1b]2;X\x07'
say "messages with the target's ruby_version: escaped: $(head -n 1 "$T/version.err" | cut -c1-120)"
