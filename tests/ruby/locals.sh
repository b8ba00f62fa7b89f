#!/bin/bash
# SPDX-License-Identifier: MIT
# Copyright (c) 2026 The rbflame authors
#
# 'rbflame dump -p PID --locals' on tests/matrix/fixtures/locals.rb, a
# process whose threads park holding locals of every kind the dump renders
# (tests/matrix/check-locals.pl says what each must print): every value
# exact, the GVL holder's frames marked stale and no other's; the target
# left running and untraced.
#
# Then the same fixture with "corrupt": thread lx-victim holds two Strings
# whose length and pointer the fixture overwrote through Fiddle (garbage
# memory, as the hardening issue's adversarial target has): the dump
# prints '?' for the one pointing nowhere and 64 bytes for the one that
# claims 2^63-1 bytes, exits 0, and the target runs on, five dumps in a
# row. Last, under YJIT, a parked frame entered from JIT code is marked
# stale.
[ -n "${BASH_VERSION:-}" ] || exec bash "$0" "$@"
. "$(dirname "$0")/../e2e/lib.sh"
. "$(dirname "$0")/lib-ruby.sh"

FIXTURES=$(cd "$top_srcdir/tests/matrix/fixtures" && pwd -P)
CHECK="$top_srcdir/tests/matrix/check-locals.pl"
"$RUBY" -rfiddle -e 1 2>/dev/null ||
	fail "$RUBY has no Fiddle (Debian's libruby ships it)"

start_fixture locals locals.rb
pid=$TPID
run_rbflame dump 30 dump -p "$pid" --locals
expect_rc 0 "rbflame dump -p PID --locals"
perl "$CHECK" "$T/dump.out" >"$T/check.txt" || {
	cat "$T/check.txt" "$T/dump.out" >&2
	fail "dump --locals: values differ from what the fixture holds"
}
say "locals: $(cat "$T/check.txt")"
wait_untraced "$pid" 2
assert_running "$pid" 3 0.05

# Without --locals: the same stacks, no value lines.
run_rbflame plain 30 dump -p "$pid"
expect_rc 0 "rbflame dump -p PID"
if grep -q '^    ' "$T/plain.out"; then
	fail "dump without --locals printed values"
fi
kill_tracee "$pid"

start_fixture corrupt locals.rb corrupt
pid=$TPID
for i in 1 2 3 4 5; do
	run_rbflame bad$i 30 dump -p "$pid" --locals
	expect_rc 0 "rbflame dump -p PID --locals (garbage Strings, run $i)"
	perl "$CHECK" "$T/bad$i.out" corrupt >"$T/check$i.txt" || {
		cat "$T/check$i.txt" "$T/bad$i.out" "$T/bad$i.err" >&2
		fail "dump --locals on garbage Strings (run $i)"
	}
	wait_untraced "$pid" 2
	assert_running "$pid" 2 0.05
done
say "garbage Strings: $(cat "$T/check5.txt")"
kill_tracee "$pid"

# YJIT (Debian's 3.1 has it): a parked frame entered from JIT code says
# its values may be stale.
"$RUBY" --yjit --yjit-call-threshold=2 "$FIXTURES/locals.rb" yjit \
	>"$T/yjit.log" 2>&1 </dev/null &
pid=$!
track "$pid"
wait_line "$T/yjit.log" '^ready$' 20 "$pid"
run_rbflame yjit 30 dump -p "$pid" --locals
expect_rc 0 "rbflame dump -p PID --locals (YJIT)"
perl "$CHECK" "$T/yjit.out" yjit >"$T/checky.txt" || {
	cat "$T/checky.txt" "$T/yjit.out" >&2
	fail "dump --locals under YJIT"
}
say "YJIT: $(cat "$T/checky.txt")"
kill_tracee "$pid"
say "PASS"
