#!/bin/bash
# SPDX-License-Identifier: MIT
# Copyright (c) 2026 The rbflame authors
#
# The (garbage collection) share against Ruby's own account: the gcshare
# fixture allocates without pause over a large live set and prints, on
# SIGUSR1, GC.stat(:time) and its CPU time. Rounds of 'rbflame -p PID -s
# 12 -r 1000', each between two such lines, until the profile has >=
# 10,000 samples: the share of samples ending in (garbage collection)
# (with or without a phase under it) is within 5 points of the share of
# the fixture's CPU time that GC.stat(:time) says went to the collector
# (Ruby measures GC time in CPU time; wall-clock sampling sees the same
# split as long as the target is descheduled evenly across phases).
# Every sample is the fixture's one thread in Litter#churn or <main>.
[ -n "${BASH_VERSION:-}" ] || exec bash "$0" "$@"
. "$(dirname "$0")/../e2e/lib.sh"
. "$(dirname "$0")/lib-ruby.sh"

FX=gcshare.rb
start_fixture gcs gcshare.rb
pid=$TPID

# gc_line N: waits for the fixture's Nth "gc" line and prints it.
gc_line() {
	local n=200
	until [ "$(grep -c '^gc ' "$T/gcs.log")" -ge "$1" ]; do
		n=$((n - 1))
		[ "$n" -gt 0 ] || fail "no answer to SIGUSR1 from the fixture"
		sleep 0.05
	done
	grep '^gc ' "$T/gcs.log" | sed -n "${1}p"
}

gc_ms=0 cpu=0 k=0 files=()
for round in 1 2 3; do
	kill -USR1 "$pid"
	k=$((k + 1))
	read -r _ g0 _ c0 <<<"$(gc_line $k)"
	run_rbflame "r$round" 40 -p "$pid" -s 12 -r 1000 -o "$T/r$round.folded"
	kill -USR1 "$pid"
	k=$((k + 1))
	read -r _ g1 _ c1 <<<"$(gc_line $k)"
	expect_rc 0 "rbflame -p PID -s 12 -r 1000 (round $round)"
	say "round $round: $(tail -n 1 "$T/r$round.err")"
	gc_ms=$((gc_ms + g1 - g0))
	cpu=$(perl -e 'print $ARGV[0] + $ARGV[2] - $ARGV[1]' "$cpu" "$c0" "$c1")
	files+=("$T/r$round.folded")
	cat "${files[@]}" >"$T/all.folded"
	[ "$(total_samples "$T/all.folded")" -ge 10000 ] && break
done
n=$(total_samples "$T/all.folded")
[ "$n" -ge 10000 ] || fail "only $n samples in $round rounds"

assert_share "$T/all.folded" '^<main> \(' 100 "stacks rooted at <main>"
read -r g t <<<"$(share "$T/all.folded" \
	';\(garbage collection\)(;\((marking|sweeping)\))?$')"
verdict=$(perl -e '
	my ($g, $t, $ms, $cpu) = @ARGV;
	my $p = 100 * $g / $t;
	my $r = 100 * $ms / 1000 / $cpu;
	printf "%.1f %.1f %d\n", $p, $r, abs($p - $r) <= 5;
' "$g" "$t" "$gc_ms" "$cpu")
read -r prof ruby ok <<<"$verdict"
say "(garbage collection): $g/$t samples = $prof%;" \
	"GC.stat(:time): $gc_ms ms of $cpu s CPU = $ruby% (want within 5 points)"
[ "$ok" = 1 ] || fail "GC share $prof% in the profile, $ruby% by GC.stat"
[ "$g" -gt 0 ] || fail "no sample in the collector"

wait_untraced "$pid" 2
assert_running "$pid" 3 0.1
