#!/bin/bash
# SPDX-License-Identifier: MIT
# Copyright (c) 2026 The rbflame authors
#
# A real program nobody here wrote: Debian's rubocop (scripts/deps
# installs it), linting a copy of its own lib/rubocop/cop/lint (131
# files: some 5 s of CPU in the parser, the AST and the cops: deep stacks,
# modules prepended and included, class_eval'd matchers, blocks in
# blocks, singleton methods, C methods, GC).
#  - Launched, 'rbflame -r 999 -- rubocop --format offenses DIR': rbflame
#    exits with rubocop's status and rubocop prints what it prints
#    unprofiled (the same offenses, cop by cop); the GVL holder was
#    stopped and fewer than 1% of the ticks failed a read.
#  - Attached for 2 s to a rubocop already linting: the same again, and
#    once rbflame is gone rubocop runs on untraced (TracerPid 0).
#  - Every frame of both profiles in the files of rubocop, rubocop-ast,
#    parser and ast (or called from them) is what this Ruby, loading the
#    same files, says it is (frames-vs-ruby.rb): the label's owner exists
#    and defines the method itself, a Ruby method's frame is in its file
#    at a line of its code, a C method's at its caller's line; bodies at
#    real lines of real files; eval'd code in the file it was given.
[ -n "${BASH_VERSION:-}" ] || exec bash "$0" "$@"
. "$(dirname "$0")/../e2e/lib.sh"
. "$(dirname "$0")/lib-ruby.sh"

require_cmd rubocop
RUBOCOP=$(command -v rubocop)
GEMS=$("$RUBY" -e 'require "rubocop"
	%w[rubocop rubocop-ast parser ast].each { |g| puts Gem.loaded_specs.fetch(g).full_gem_path }' 2>"$T/gems.err") ||
	skip_or_fail "Ruby cannot load rubocop and its gems: $(head -n 1 "$T/gems.err")"
SRC=$(head -n 1 <<<"$GEMS")/lib/rubocop/cop/lint
[ -d "$SRC" ] || fail "no $SRC in Debian's rubocop"
# Outside the gem's tree: no .rubocop.yml of rubocop's own applies.
cp -r "$SRC" "$T/lint"
cd "$T" || fail "cd $T"
LINT=(--cache false --format offenses lint)

BARE_RC=0
"$RUBY" "$RUBOCOP" "${LINT[@]}" >"$T/bare.log" 2>&1 || BARE_RC=$?
[ -s "$T/bare.log" ] || fail "rubocop unprofiled printed nothing (exit $BARE_RC)"
say "rubocop unprofiled: exit $BARE_RC, $(grep Total "$T/bare.log")"

# same_output LOG WHAT: LOG is what rubocop printed unprofiled.
same_output() {
	cmp -s "$T/bare.log" "$1" || {
		diff "$T/bare.log" "$1" | head -n 20 >&2
		fail "$2: rubocop printed otherwise than unprofiled (above)"
	}
}

run_rbflame launch 120 -r 999 -o "$T/launch.folded" -- \
	"$RUBY" "$RUBOCOP" "${LINT[@]}"
expect_rc "$BARE_RC" "rbflame -r 999 -- rubocop (unprofiled: $BARE_RC)"
same_output "$T/launch.out" "launched"
assert_collapsed "$T/launch.folded" "launched"
assert_gvl_stopped "$T/launch.err" "launched" 1
say "launched: exit $RC after $ELAPSED s, the same output"

"$RUBY" "$RUBOCOP" "${LINT[@]}" >"$T/attached.log" 2>&1 </dev/null &
PID=$!
track "$PID"
# Past its start-up (about a second of requires): linting.
sleep 1.5
alive "$PID" || fail "rubocop ended within 1.5 s: too fast to attach to"
run_rbflame attach 60 -p "$PID" -s 2 -r 999 -o "$T/attach.folded"
expect_rc 0 "rbflame -p RUBOCOP -s 2 -r 999"
if alive "$PID"; then
	wait_untraced "$PID" 2
	say "attached: rubocop runs on, every thread's TracerPid 0"
fi
RC=0
wait "$PID" || RC=$?
expect_rc "$BARE_RC" "rubocop profiled for 2 s (unprofiled: $BARE_RC)"
same_output "$T/attached.log" "attached"
assert_collapsed "$T/attach.folded" "attached"
assert_gvl_stopped "$T/attach.err" "attached"

cat "$T/launch.folded" "$T/attach.folded" >"$T/both.folded"
frames_vs_ruby "$T/both.folded" "rubocop's profiles" 20000 "$GEMS" -r rubocop
