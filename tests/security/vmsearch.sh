#!/bin/bash
# SPDX-License-Identifier: MIT
# Copyright (c) 2026 The rbflame authors
#
# The VM search has a time budget (issue #20): a target that looks like
# Ruby 3.1.2 (a fake libruby, no ruby_current_vm_ptr) but whose data is
# 8 MiB of pointers makes the structural search read the target for each
# of a million candidates, seconds of work. That work is done in 10 ms
# slices with the event loop between them, so the target's signals are
# forwarded meanwhile: SIGUSR1 sent 5 times during the search reaches
# the handler within 0.3 s each time (before the budget: 1.6 s, the
# whole search). rbflame then gives up with its one-line "could not be
# located" error, and the target is left running and untraced.
[ -n "${BASH_VERSION:-}" ] || exec bash "$0" "$@"
. "$(dirname "$0")/../e2e/lib.sh"
require_cmd "${CC:-cc}"

src=$top_srcdir/tests/security/vmsearch
"${CC:-cc}" -O1 -shared -fPIC -o "$T/libruby-fake.so" \
	"$src/libruby-fake.c" || fail "cannot build the fake libruby"
"${CC:-cc}" -O1 -o "$T/vmsearch" "$src/vmsearch.c" -L"$T" -lruby-fake \
	-Wl,-rpath,"$T" || fail "cannot build the target"

# ASan makes the search 40x slower (70 s alone, over 150 s beside a
# make check): an eighth of the pointers still takes it past the signals.
# And each search call's fixed part (the maps, libruby's symbols, the
# VM's check) takes a 10 ms budget whole there on a host whose page
# faults exit to the hypervisor (a PVM guest), leaving each call the
# quarter budget every call scans at least: no end in 150 s, even with a
# 64th of the pointers. The budget is the knob for a host too slow for
# it (RBFLAME_PROBE_BUDGET_US): 40 ms a call, the search over in 15 s.
words=
if [ "$ASAN_BUILD" = 1 ]; then
	words=$((1 << 17))
	export RBFLAME_PROBE_BUDGET_US=40000
fi
VMSEARCH_WORDS=$words "$T/vmsearch" >"$T/target.log" 2>&1 </dev/null &
TPID=$!
track "$TPID"
for _ in $(seq 500); do
	grep -q '^ready$' "$T/target.log" && break
	sleep 0.01
done
grep -q '^ready$' "$T/target.log" || fail "the target did not start"

start_rbflame search -p "$TPID" -s 150
wait_traced "$TPID" 5
sent=()
for i in 1 2 3 4 5; do
	sleep 0.3
	alive "$RBPID" || break
	sent+=("$(date +%s.%N)")
	kill -USR1 "$TPID"
	# Wait for this one before the next: standard signals merge.
	for _ in $(seq 3000); do
		[ "$(grep -c '^usr1 ' "$T/target.log")" -ge "${#sent[@]}" ] &&
			break
		sleep 0.01
	done
done
wait_rbflame 180 || fail "rbflame still running after 180 s"
[ "${#sent[@]}" -ge 1 ] ||
	fail "rbflame ended before a signal was sent: $(cat "$T/search.err")"
mapfile -t got < <(sed -n 's/^usr1 //p' "$T/target.log")
[ "${#got[@]}" = "${#sent[@]}" ] ||
	fail "sent ${#sent[@]} SIGUSR1, the handler ran ${#got[@]} times"
worst=0
for i in "${!sent[@]}"; do
	worst=$(perl -e 'my $d = $ARGV[1] - $ARGV[0];
		printf "%.3f", $d > $ARGV[2] ? $d : $ARGV[2]' \
		"${sent[i]}" "${got[i]}" "$worst")
done
say "${#sent[@]} SIGUSR1 during the search, the slowest handled after $worst s"
perl -e 'exit !($ARGV[0] < 0.3)' "$worst" ||
	fail "a SIGUSR1 waited $worst s for the VM search (want < 0.3 s)"
grep -q 'could not be located' "$T/search.err" ||
	fail "rbflame did not give up on the VM: $(cat "$T/search.err")"
expect_rc 1 "rbflame -p PID on a fake libruby"
wait_untraced "$TPID" 2
assert_running "$TPID" 3 0.1
say "ok"
