#!/bin/bash
# SPDX-License-Identifier: MIT
# Copyright (c) 2026 The rbflame authors
#
# Time-weighted samples with rbflame itself delayed: rbflame runs pinned
# to CPU 0 at nice 10 beside two busy loops pinned there too at nice 0
# (--no-realtime: at SCHED_FIFO, its default where allowed, the loops
# would not delay it; this is the host that refuses it), the workload
# (tests/long/accuracy.rb: a 60/30/10 split of its thread's CPU time,
# measured by the thread's own clock) on CPU 1, --mode cpu at 499 Hz for
# 15 s, written raw. At nice 0 the loops no longer delayed it: since
# rbflame sleeps for a stop at once where stops land slowly, the
# scheduler's wakeup preemption runs it on time, and a CI host saw 615
# late ticks of 7048 (8.7%); at nice 10 (a weight of 110 beside the
# loops' 2 x 1024) it takes some 240 of its 499 ticks a second, the
# rest skipped late (3,700-4,400 in 15 s), and the workload, stopped 15%
# of the time, gives 3,300-3,900 samples (nice 19: 601, too few for c's 10%
# to be within 2 points). A round of the workload is 0.3
# CPU seconds (ACCURACY_ROUND; accuracy.sh's 0.03): c's turn is then 30
# ms, longer than most of the intervals a late tick weighs, so a sample's
# weight is the time of the method it is in. With 3 ms turns a late
# tick's interval spanned several turns, all weighed as the one it
# landed in: right on average, and so noisy that a fresh CI machine saw
# a 2.83 points apart (62.82% weighted, 59.99% measured). Asserted:
#  - the contention delayed rbflame: at least 10% of its ticks were late
#    (else the test shows nothing);
#  - read back as speedscope (whose weights are the samples' recorded
#    times), each method's share of the time is within 2 points of the
#    share the workload measured;
#  - the time the samples in a, b and c stand for is within 5% of the
#    CPU seconds the workload measured in them (sample count x period is
#    printed beside it: late ticks make it wrong);
#  - the recording is marked weighted and, the command having run to its
#    end, complete (rbflame report -f summary prints its time).
[ -n "${BASH_VERSION:-}" ] || exec bash "$0" "$@"
. "$(dirname "$0")/../e2e/lib.sh"
. "$(dirname "$0")/../ruby/lib-ruby.sh"

require_cmd taskset
[ "$(nproc)" -ge 2 ] || fail "needs two CPUs (rbflame and the workload on their own)"
WL=$top_srcdir/tests/long/accuracy.rb

hogs=
for i in 1 2; do
	taskset -c 0 sh -c 'while :; do :; done' &
	track $!
	hogs="$hogs $!"
done
RC=0
ACCURACY_ROUND=0.3 timeout -k 5 90 nice -n 10 taskset -c 0 "$RBFLAME" --no-realtime \
	--mode cpu -r 499 \
	-o "$T/w.rbflame" -- taskset -c 1 "$RUBY" "$WL" 15 \
	>"$T/w.out" 2>"$T/w.err" </dev/null || RC=$?
for p in $hogs; do kill "$p" 2>/dev/null; done
expect_rc 0 "rbflame --mode cpu beside two busy loops"
say "$(tail -n 1 "$T/w.err")"

re='\(([0-9]+) ticks at [^)]*\), ([0-9]+) late ticks'
[[ $(tail -n 1 "$T/w.err") =~ $re ]] || fail "no summary line: $(cat "$T/w.err")"
ticks=${BASH_REMATCH[1]} late=${BASH_REMATCH[2]}
[ $((late * 10)) -ge "$ticks" ] ||
	fail "the busy loops did not delay rbflame: $late late ticks of $ticks"

"$RBFLAME" report -i "$T/w.rbflame" -f speedscope -o "$T/w.json" ||
	fail "report -f speedscope failed"
"$RBFLAME" report -i "$T/w.rbflame" -f summary -o "$T/w.sum" ||
	fail "report -f summary failed"
grep -q '^  Time: [0-9.]* s ' "$T/w.sum" ||
	fail "the summary of a weighted recording shows no time: $(head -6 "$T/w.sum")"

m=$(sed -n 's/^measured: .*(CPU seconds: a \([0-9.]*\) b \([0-9.]*\) c \([0-9.]*\),.*/\1 \2 \3/p' "$T/w.out")
[ -n "$m" ] || fail "the workload printed no measured split: $(cat "$T/w.out")"
say "$(cat "$T/w.out")"

# shellcheck disable=SC2086 # $m is three numbers
perl -MJSON::PP -e '
	my ($file, $me, @cpu) = @ARGV;
	local $/;
	open my $fh, "<", $file or die "$file: $!";
	my $j = decode_json(<$fh>);
	my @names = map { $_->{name} } @{$j->{shared}{frames}};
	my (%w, %n, $period);
	$period = 1e9 / 499;
	for my $p (@{$j->{profiles}}) {
		my ($s, $wt) = ($p->{samples}, $p->{weights});
		for my $i (0 .. $#$s) {
			my %on = map { $names[$_] => 1 } @{$s->[$i]};
			for my $k (qw(a b c)) {
				next unless $on{"Object#$k"};
				$w{$k} += $wt->[$i];
				$n{$k}++;
			}
		}
	}
	my ($tw, $tn, $tc) = (0, 0, 0);
	$tw += $w{$_} // 0 for qw(a b c);
	$tn += $n{$_} // 0 for qw(a b c);
	$tc += $_ for @cpu;
	die "$me: no samples in a, b or c\n" unless $tw > 0 && $tn > 0;
	my %c = (a => $cpu[0], b => $cpu[1], c => $cpu[2]);
	my @bad;
	for my $k (qw(a b c)) {
		my $ws = 100 * ($w{$k} // 0) / $tw;
		my $ns = 100 * ($n{$k} // 0) / $tn;
		my $ms = 100 * $c{$k} / $tc;
		printf "%s: %s: measured %.2f%%, weighted %.2f%%, by count %.2f%%\n",
		    $me, $k, $ms, $ws, $ns;
		push @bad, sprintf("%s: weighted share %.2f%%, measured %.2f%% " .
		    "(%.2f points apart, 2 allowed)", $k, $ws, $ms, abs($ws - $ms))
		    if abs($ws - $ms) > 2;
	}
	printf "%s: CPU seconds in a, b, c: measured %.3f, weighted %.3f, " .
	    "count x period %.3f\n", $me, $tc, $tw / 1e9, $tn * $period / 1e9;
	push @bad, sprintf("weighted time %.3f s, measured %.3f s " .
	    "(%.1f%% apart, 5 allowed)", $tw / 1e9, $tc,
	    100 * abs($tw / 1e9 - $tc) / $tc)
	    if abs($tw / 1e9 - $tc) > 0.05 * $tc;
	print STDERR "$_\n" for @bad;
	exit(@bad ? 1 : 0);
' "$T/w.json" "$ME" $m || fail "the weighted profile is not within bounds"

# The raw recording says it is the whole run of the command.
"$RBFLAME" report -i "$T/w.rbflame" -f raw -o "$T/w2.rbflame" ||
	fail "report -f raw failed"
cmp -s "$T/w.rbflame" "$T/w2.rbflame" ||
	fail "a weighted recording read and written again changed"
say "time-weighted shares within 2 points and time within 5% with rbflame delayed"
