#!/bin/bash
# SPDX-License-Identifier: MIT
# Copyright (c) 2026 The rbflame authors
#
# A pool taking turns (fixtures/turns.rb: eight workers wait on a queue;
# the one that takes a job dives 40 frames deeper and spins in
# Object#work): at each stop a worker or two woke into a stack far
# deeper than its last read, whose control frames and values the read
# fetches ahead for all such threads at once (ruby_reader_set_fresh()).
# 3 s at 200 Hz with --threads:
#  - every worker's sample in Object#work has exactly its 40 + 1
#    Object#dive frames above it (a fetch of the wrong moment or of
#    another thread's lines would cut or graft frames);
#  - every worker is seen at work, and the work is most of the samples
#    of the GVL's holder;
#  - a waiting worker is in Thread::Queue#pop.
[ -n "${BASH_VERSION:-}" ] || exec bash "$0" "$@"
. "$(dirname "$0")/../e2e/lib.sh"
. "$(dirname "$0")/lib-ruby.sh"

start_fixture turns turns.rb
run_rbflame turns 30 --threads -p "$TPID" -s 3 -r 200 -o "$T/turns.folded"
expect_rc 0 "rbflame --threads -p PID -s 3 -r 200 (turns.rb)"
assert_collapsed "$T/turns.folded" turns.rb
read -r work bad waiting other workers <<<"$(perl -ne '
	next unless /^thread \d+ "worker-(\d+)";(.*) (\d+)$/;
	my ($w, $s, $c) = ($1, $2, $3);
	if ($s =~ /;Object#work \(/) {
		my $d = () = $s =~ /;Object#dive \(/g;
		if ($d == 41) { $work += $c; $seen{$w} = 1 }
		else { $bad += $c; print STDERR "cut or grafted ($d dives): $s\n" }
	} elsif ($s =~ /;Thread::Queue#pop \(/) {
		$waiting += $c;
	} else {
		$other += $c;
	}
	END { printf "%d %d %d %d %d\n", $work, $bad, $waiting, $other,
		  scalar keys %seen }' "$T/turns.folded")"
say "workers: $work samples at work (41 dives), $bad cut or grafted, $waiting waiting, $other elsewhere; $workers of 8 seen at work"
[ "$bad" = 0 ] || fail "$bad samples in Object#work without exactly 41 Object#dive frames"
[ "$workers" = 8 ] || fail "only $workers of the 8 workers seen at work"
[ "$work" -ge 200 ] || fail "only $work samples at work in 3 s at 200 Hz"
[ "$waiting" -ge "$work" ] || fail "fewer waiting samples ($waiting) than working ($work)"
[ "$other" -le $(((work + waiting) / 10)) ] ||
	fail "$other samples neither at work nor waiting"
