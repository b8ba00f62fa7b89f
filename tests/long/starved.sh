#!/bin/bash
# SPDX-License-Identifier: MIT
# Copyright (c) 2026 The rbflame authors
#
# A starved target: rbflame launches 'taskset -c 0 nice -n 19 ruby
# SCRIPT' beside four busy loops pinned to CPU 0 at nice 0, so the Ruby
# gets some 0.4% of a CPU (a loaded host, a container at its CPU
# quota): mapping libruby, setting up its VM and loading rubygems, some
# 50 ms of its own time, take seconds of wall time. The loops run until
# the script begins (at most STARVE_MAX s), then the Ruby finishes and
# rbflame with it. How long that takes is the host's: 15 s here, more
# than 14 s on a CI host where a fixed 14 s run ended before the Ruby
# had its VM (1 sample, of taskset). rbflame waits for the VM by the
# target's time, the wall time less what the target spent waiting for a
# CPU (a wall-clock 3 s gave up: "its VM could not be located", or
# called the Ruby native when its loader was still at work).
# Asserted:
#  - the starvation was real: the Ruby's script began more than 3 s of
#    wall time after its process (it prints how long);
#  - rbflame exits 0 and never says the VM "could not be located";
#  - >= 50 samples (some 500 here), >= 80% of them Ruby stacks (rooted at
#    <internal:gem_prelude> or <main>: rubygems loading, at that speed).
[ -n "${BASH_VERSION:-}" ] || exec bash "$0" "$@"
. "$(dirname "$0")/../e2e/lib.sh"
. "$(dirname "$0")/../ruby/lib-ruby.sh"

require_cmd taskset
[ "$(nproc)" -ge 2 ] || fail "needs two CPUs (rbflame beside the starved CPU)"

# The script: how long after its process began it got to run, s.
cat >"$T/late.rb" <<'RB'
$stdout.sync = true # the test ends the busy loops when it reads this
hz = 100.0 # CLK_TCK on Linux x86_64
start = File.read("/proc/self/stat").split(") ").last.split[19].to_i / hz
puts format("started %.2f s after its process", File.read("/proc/uptime").to_f - start)
RB

hogs=
for i in $(seq ${STARVE_HOGS:-4}); do
	taskset -c 0 sh -c 'while :; do :; done' &
	track $!
	hogs="$hogs $!"
done
sleep 1	# the loops settled on CPU 0 (launched at once, the Ruby's start
	# raced them)
RC=0
max=${STARVE_MAX:-90}
timeout -k 5 $((max + 30)) "$RBFLAME" -o "$T/s.folded" -- \
	taskset -c 0 nice -n 19 "$RUBY" "$T/late.rb" \
	>"$T/s.out" 2>"$T/s.err" </dev/null &
rb=$!
t0=$(date +%s)
while kill -0 "$rb" 2>/dev/null && ! grep -q '^started' "$T/s.out" &&
	[ $(($(date +%s) - t0)) -lt "$max" ]; do
	sleep 0.2
done
for p in $hogs; do kill "$p" 2>/dev/null; done
say "busy loops ended after $(($(date +%s) - t0)) s"
wait "$rb" || RC=$?
expect_rc 0 "rbflame -- taskset -c 0 nice -n 19 ruby (starved)"
say "$(tail -n 1 "$T/s.err")"
say "the Ruby $(cat "$T/s.out")"
late=$(sed -n 's/^started \([0-9.]*\) s after its process$/\1/p' "$T/s.out")
[ -n "$late" ] || fail "the Ruby printed no start time: $(cat "$T/s.out")"
perl -e 'exit !($ARGV[0] > 3)' "$late" ||
	fail "the Ruby started $late s after its process, want > 3 s: not starved, the test shows nothing"
grep -q 'could not be located' "$T/s.err" &&
	fail "rbflame gave up on the starved Ruby: $(grep 'could not be located' "$T/s.err")"
assert_collapsed "$T/s.folded" starved
read -r k tot <<<"$(perl -ne '/ (\d+)$/ or next; my $n = $1; $t += $n;
	$k += $n if /^(?:<internal:gem_prelude>|<main>) /;
	END { printf "%d %d\n", $k, $t }' "$T/s.folded")"
say "Ruby stacks: $k of $tot samples"
[ "$tot" -ge 50 ] || fail "only $tot samples while starved"
[ $((k * 100)) -ge $((tot * 80)) ] ||
	fail "only $k of $tot samples are Ruby stacks: $(sort -t' ' -k2 -rn "$T/s.folded" | head -n 3)"
