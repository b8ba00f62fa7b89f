#!/bin/bash
# SPDX-License-Identifier: MIT
# Copyright (c) 2026 The rbflame authors
#
# A target that is not Ruby is no error: rbflame prints a one-line notice
# (program name first, naming the process) and profiles native stacks,
# exit status 0; in attach mode (the chain tracee, sleep(1)) and in launch
# mode; -q silences the notice. 'rbflame dump' has no Ruby stack to print:
# one error line, nothing on stdout, exit status 1. A Ruby target gets no
# such notice.
[ -n "${BASH_VERSION:-}" ] || exec bash "$0" "$@"
. "$(dirname "$0")/../e2e/lib.sh"
. "$(dirname "$0")/lib-ruby.sh"

# notice_of TAG WHAT: the one stderr line of run TAG that speaks of Ruby,
# which must start with "rbflame: " (the summary line does not count).
notice_of() {
	local n
	n=$(grep -ci 'ruby' "$T/$1.err" || true)
	[ "$n" = 1 ] || {
		cat "$T/$1.err" >&2
		fail "$2: want one notice line about Ruby on stderr, got $n"
	}
	NOTICE=$(grep -i 'ruby' "$T/$1.err")
	case $NOTICE in
	"rbflame: "*) ;;
	*) fail "$2: notice does not start with 'rbflame: ': $NOTICE" ;;
	esac
}

# Attach: the chain tracee.
start_tracee stack-fcall -r "$T/ready"
wait_ready "$T/ready" 10 "$TPID"
run_rbflame chain 30 -p "$TPID" -s 1 -r 200 -o "$T/chain.folded"
expect_rc 0 "rbflame -p PID -s 1 (chain tracee, not Ruby)"
notice_of chain "attach, not Ruby"
case $NOTICE in
*"$TPID"*) ;;
*) fail "attach, not Ruby: the notice does not name process $TPID: $NOTICE" ;;
esac
say "attach, not Ruby: notice: $NOTICE"
assert_collapsed "$T/chain.folded" "attach, not Ruby"
assert_share "$T/chain.folded" "$CHAIN_RE" 95 "attach, not Ruby: native chain"
# The notice with the pid as a pattern, to look for it elsewhere.
NOTICE_RE=$(NOTICE=$NOTICE P=$TPID perl -e '
	my @parts = split /\Q$ENV{P}\E/, $ENV{NOTICE}, -1;
	print join("[0-9]+", map { quotemeta } @parts);
')

# -q: no notice, the same profile.
run_rbflame quiet 30 -q -p "$TPID" -s 0.5 -r 200 -o "$T/quiet.folded"
expect_rc 0 "rbflame -q -p PID (not Ruby)"
[ ! -s "$T/quiet.err" ] || fail "-q, not Ruby: stderr not empty: $(head -n 2 "$T/quiet.err")"
assert_share "$T/quiet.folded" "$CHAIN_RE" 95 "-q, not Ruby: native chain"

# dump: nothing to print.
run_rbflame dump 30 dump -p "$TPID"
expect_rc 1 "rbflame dump -p PID (not Ruby)"
[ ! -s "$T/dump.out" ] || fail "dump, not Ruby: something on stdout"
assert_error_line "$T/dump.err" "dump, not Ruby"
grep -qi ruby "$T/dump.err" || fail "dump, not Ruby: the error does not say why"
say "dump, not Ruby: exit 1: $(cat "$T/dump.err")"
wait_untraced "$TPID" 2
assert_running "$TPID" 3 0.1
kill_tracee "$TPID"

# Attach: sleep(1), blocked in nanosleep the whole time.
SLEEP=$(command -v sleep)
"$SLEEP" 100 &
TPID=$!
track "$TPID"
n=0
until [ "$(readlink "/proc/$TPID/exe" 2>/dev/null)" = "$(readlink -f "$SLEEP")" ]; do
	n=$((n + 1))
	[ "$n" -lt 500 ] || fail "sleep 100 did not start"
	sleep 0.01
done
run_rbflame sleep 30 -p "$TPID" -s 1 -r 200 -o "$T/sleep.folded"
expect_rc 0 "rbflame -p PID -s 1 (sleep 100)"
notice_of sleep "attach to sleep(1)"
assert_collapsed "$T/sleep.folded" "attach to sleep(1)"
assert_share "$T/sleep.folded" 'nanosleep' 95 "attach to sleep(1): in nanosleep"
kill_tracee "$TPID"

# Launch mode.
run_rbflame launch 30 -s 1 -r 200 -o "$T/launch.folded" -- \
	"$TRACEES/stack-fcall" 1.5
expect_rc 0 "rbflame -s 1 -- stack-fcall 1.5 (not Ruby)"
notice_of launch "launch, not Ruby"
say "launch, not Ruby: notice: $NOTICE"
assert_collapsed "$T/launch.folded" "launch, not Ruby"
assert_share "$T/launch.folded" "$CHAIN_RE" 95 "launch, not Ruby: native chain"

# A Ruby target: no such notice.
start_fixture ruby geometry.rb area
run_rbflame ruby 30 -p "$TPID" -s 0.5 -r 200 -o "$T/ruby.folded"
expect_rc 0 "rbflame -p PID (Ruby)"
if RE=$NOTICE_RE perl -ne 'exit 0 if /^$ENV{RE}$/; END { exit 1 }' \
	"$T/ruby.err"; then
	cat "$T/ruby.err" >&2
	fail "a Ruby target got the not-Ruby notice"
fi
grep -q 'Geometry::Shape#area' "$T/ruby.folded" ||
	fail "Ruby target: no Ruby frames"
say "Ruby target: Ruby stacks, no not-Ruby notice"
