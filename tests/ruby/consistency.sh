#!/bin/bash
# SPDX-License-Identifier: MIT
# Copyright (c) 2026 The rbflame authors
#
# A sample is one consistent snapshot, though rbflame stops only the
# thread holding the GVL: the lockstep fixture's threads A and B pass a
# token (each other's Thread#name) at every step of their phases, tens of
# thousands of times a second, so that only a snapshot taken at one
# instant satisfies its invariants (see fixtures/lockstep.rb):
#
#   - in each sample of one thread, its name (the root, with --threads)
#     is "A p" or "A p+1" when its stack is in its phase-p method
#     Lockstep#a{p} (B: "B p"/"B p+1" in Lockstep#b{p}), modulo 8;
#   - in each 'rbflame dump', A's phase is B's or B's plus one.
#
# 'rbflame --threads -r 1000' runs until >= 10,000 samples of A and B
# have been checked: none may break the invariant, the name "A ..." must
# only ever root thread A's task (B alike), and every stack must be one
# the fixture can have (exact frames down to the phase method, then
# Lockstep#hand at one of its lines, Fixture.done? or a C function at its
# caller's line). Then RBFLAME_DUMPS (300) dumps must each show A and
# B in a possible pair of phases. The target must run on, untraced.
#
# Collapsed output cannot pair the samples of one tick; a per-sample
# output would let the first check compare A's stack with B's directly.
[ -n "${BASH_VERSION:-}" ] || exec bash "$0" "$@"
# shellcheck source=tests/e2e/lib.sh
. "$(dirname "$0")/../e2e/lib.sh"
# shellcheck source=tests/ruby/lib-ruby.sh
. "$(dirname "$0")/lib-ruby.sh"

WANT=${RBFLAME_CONSISTENCY_SAMPLES:-10000}
DUMPS=${RBFLAME_DUMPS:-300}
BUDGET=120	# seconds of sampling at most
FX=lockstep.rb

start_fixture ls lockstep.rb
pid=$TPID
tid_a=$(awk '$1 == "thread" && $2 == "A" { print $3 }' "$T/ls.log")
tid_b=$(awk '$1 == "thread" && $2 == "B" { print $3 }' "$T/ls.log")
if [ -z "$tid_a" ] || [ -z "$tid_b" ]; then
	fail "the fixture printed no tids"
fi

# What the checker knows: the threads, the exact stack of each phase
# method, Lockstep#hand's lines, the spans of the loops and of
# Fixture's methods.
{
	printf 'tid\tA\t%s\n' "$tid_a"
	printf 'tid\tB\t%s\n' "$tid_b"
	for x in a b; do
		for p in 0 1 2 3 4 5 6 7; do
			printf 'phase\t%s\t%s\t%s\n' "${x^^}" "$p" "$(expand_stack \
				"block in Lockstep#start {thread-$x};Lockstep#run_$x {run-$x$p};Lockstep#$x$p {$x$p}")"
		done
		printf 'root\t%s\t%s\n' "${x^^}" \
			"$(expand_stack "block in Lockstep#start {thread-$x}")"
	done
	for m in hand-give hand-wait hand-end; do
		printf 'hand\t%s\n' "$(expand_stack "Lockstep#hand {$m}")"
	done
	"$RUBY" "$top_srcdir/tests/ruby/ranges.rb" "$FIXTURES/lockstep.rb" \
		"$FIXTURES/fixture.rb" |
		grep -E '^(Lockstep#run_[ab]|Fixture\.[a-z_?]+)	' |
		sed 's/^/span\t/'
} >"$T/known.tsv" || fail "cannot describe the fixture's stacks"

# check_samples FOLDED...: every sample of A and B satisfies the fixture's
# invariant and has a possible stack. Prints "CHECKED BETWEEN OTHER" (the
# samples in a phase method, between two, of other threads) and the
# combinations seen; on failure the first bad samples on stderr.
check_samples() {
	perl -e '
	my ($known, @folded) = @ARGV;
	my (%tid, %phase, %root, %hand, %span);
	open(my $k, "<", $known) or die "open $known: $!\n";
	while (<$k>) {
		chomp;
		my @f = split /\t/;
		if ($f[0] eq "tid") { $tid{$f[2]} = $f[1] }
		elsif ($f[0] eq "phase") { $phase{$f[1]}{$f[2]} = $f[3] }
		elsif ($f[0] eq "root") { $root{$f[1]} = $f[2] }
		elsif ($f[0] eq "hand") { $hand{$f[1]} = 1 }
		elsif ($f[0] eq "span") { push @{$span{$f[1]}}, [@f[2 .. 4]] }
	}
	my $op = qr{\[\]=?|[-+]@|\*\*|<=>|===?|=~|!=|![~]?|<<|>>|<=|>=|[-+*/%<>&|^~]};
	my $cfunc = qr/^[A-Z]\w*(?:::[A-Z]\w*)*[#.](?:[A-Za-z_]\w*[?!=]?|$op)$/;
	sub in_span {
		my ($label, $path, $line) = @_;
		return grep { $_->[0] eq $path && $line >= $_->[1] &&
		    $line <= $_->[2] } @{$span{$label} // []};
	}
	# The frames below a known part of the stack: Ruby frames allowed
	# by $ok, then at most one C function, at its caller\x27s line.
	sub tail_ok {
		my ($ppath, $pline, $ok, @f) = @_;
		for my $i (0 .. $#f) {
			my ($label, $path, $l) = $f[$i] =~ /^(.+) \(([^()]+):(\d+)\)$/
			    or return "not LABEL (PATH:LINE): [$f[$i]]";
			if ($label =~ $cfunc && $label !~ /^(?:Lockstep|Fixture)[#.]/) {
				return "[$f[$i]] is neither a frame of the fixture " .
				    "nor a C function at its caller\x27s line " .
				    "($ppath:$pline)" if "$path:$l" ne "$ppath:$pline";
				return "frame below a C function" if $i < $#f;
			} elsif (!$ok->($i, $f[$i], $label, $path, $l)) {
				return "unexpected frame [$f[$i]]";
			}
			($ppath, $pline) = ($path, $l);
		}
		return undef;
	}
	my ($checked, $between, $other, @err, %combo) = (0, 0, 0);
	for my $folded (@folded) {
		open(my $fh, "<", $folded) or die "open $folded: $!\n";
		while (my $line = <$fh>) {
			chomp $line;
			my ($tid, $name, $stack, $n) =
			    $line =~ /^thread (\d+) "((?:[^"\\]|\\.)*)";(.*) (\d+)$/
			    or do { push @err, "no thread root: $line"; next };
			# Thread-state pseudo-frames end a stack: not frames of
			# the code, so not part of the invariant.
			$stack =~ s/(?:;\((?:garbage collection|marking|sweeping|waiting for GVL|blocked|running without GVL)\))+$//;
			my $who = $tid{$tid};
			if (!$who) {
				push @err, "thread $tid named [$name], the name of A" .
				    " or B: $line" if $name =~ /^[AB] \d$/;
				$other += $n;
				next;
			}
			my ($nw, $np) = $name =~ /^([AB]) (\d)$/;
			if (!defined $nw || $nw ne $who) {
				push @err, "thread $who ($tid) named [$name]: $line";
				next;
			}
			my ($p, $rest);
			for my $q (0 .. 7) {
				my $s = $phase{$who}{$q};
				if ($stack eq $s || index($stack, "$s;") == 0) {
					($p, $rest) = ($q, substr($stack, length $s));
					last;
				}
			}
			my $why;
			if (defined $p) {
				$rest =~ s/^;//;
				my ($pp, $pl) = $phase{$who}{$p} =~ /\(([^()]+):(\d+)\)$/;
				$why = tail_ok($pp, $pl, sub {
					my ($i, $f, $label, $path, $l) = @_;
					return $hand{$f} if $i == 0;
					return $label =~ /^Fixture\./ &&
					    in_span($label, $path, $l);
				}, split /;/, $rest);
				my $d = ($np - $p) % 8;
				$combo{"$who $p named $np"} += $n;
				$why //= "impossible: in phase $p (Lockstep#" . lc($who) .
				    "$p) but named \"$name\" (want \"$who $p\" or " .
				    "\"$who " . ($p + 1) % 8 . "\")" if $d > 1;
				$checked += $n if !$why;
			} elsif (index($stack, "$root{$who};") == 0) {
				my $r = substr($stack, length($root{$who}) + 1);
				my ($rp, $rl) = $root{$who} =~ /\(([^()]+):(\d+)\)$/;
				$why = tail_ok($rp, $rl, sub {
					my ($i, $f, $label, $path, $l) = @_;
					return $label eq "Lockstep#run_" . lc($who) &&
					    in_span($label, $path, $l) if $i == 0;
					return $label =~ /^Fixture\./ &&
					    in_span($label, $path, $l);
				}, split /;/, $r);
				$between += $n if !$why;
			} else {
				$why = "not a stack of thread $who";
			}
			push @err, "$why\n  in $line" if $why;
		}
	}
	if (@err) {
		print STDERR "$_\n" for @err[0 .. ($#err > 9 ? 9 : $#err)];
		printf STDERR "%d bad stacks\n", scalar @err;
		exit 1;
	}
	my %by;
	for (keys %combo) {
		my ($p, $np) = /(\d) named (\d)/;
		$by{($np - $p) % 8 ? "name=phase+1" : "name=phase"} += $combo{$_};
	}
	print "$checked $between $other\n";
	print join(", ", map { "$_ $by{$_}" } sort keys %by), "\n";
	' "$T/known.tsv" "$@"
}

runs=0
checked=0
files=()
while [ "$checked" -lt "$WANT" ]; do
	[ $((runs * 4)) -lt "$BUDGET" ] ||
		fail "only $checked samples of A and B in $runs runs of 4 s" \
			"at 1000 Hz (want $WANT)"
	runs=$((runs + 1))
	run_rbflame "run$runs" 60 --threads -p "$pid" -s 4 -r 1000 \
		-o "$T/run$runs.folded"
	expect_rc 0 "rbflame --threads -p PID -s 4 -r 1000 (run $runs)"
	assert_collapsed "$T/run$runs.folded" "run $runs" >/dev/null
	say "run $runs: $(tail -n 1 "$T/run$runs.err")"
	files+=("$T/run$runs.folded")
	check_samples "${files[@]}" >"$T/verdict.txt" ||
		fail "a sample broke the lockstep invariant (above)"
	read -r checked between other <"$T/verdict.txt"
done
say "$checked samples of A and B checked in $runs runs, none impossible" \
	"($(sed -n 2p "$T/verdict.txt"); $between between two phases," \
	"$other of the main thread)"
# Each thread was seen in every phase, with either name.
for x in a b; do
	for p in 0 1 2 3 4 5 6 7; do
		grep -q "Lockstep#$x$p (" "${files[@]}" ||
			fail "no sample of thread ${x^^} in Lockstep#$x$p"
	done
done
wait_untraced "$pid" 5
assert_running "$pid" 3 0.1

# Dumps: both threads at one instant, so their phases can be compared.
phase_of() {
	sed -n "s/^  Lockstep#$2\([0-7]\) (.*/\1/p" "$1"
}
pairs=0
for ((i = 1; i <= DUMPS; i++)); do
	run_rbflame dump 30 dump -p "$pid"
	expect_rc 0 "rbflame dump -p PID (dump $i)"
	r=$(check_dump "$T/dump.out" 2>&1) || fail "dump $i malformed: $r"
	dump_block "$T/dump.out" "$tid_a" >"$T/a.blk"
	dump_block "$T/dump.out" "$tid_b" >"$T/b.blk"
	pa=$(phase_of "$T/a.blk" a)
	pb=$(phase_of "$T/b.blk" b)
	na=$(sed -n '1s/^thread [0-9]* "A \([0-7]\)"$/\1/p' "$T/a.blk")
	nb=$(sed -n '1s/^thread [0-9]* "B \([0-7]\)"$/\1/p' "$T/b.blk")
	if [ -z "$na" ] || [ -z "$nb" ]; then
		fail "dump $i: threads A and B not named 'A N', 'B N'" \
			"($(head -n 1 "$T/a.blk"), $(head -n 1 "$T/b.blk"))"
	fi
	if [ -n "$pa" ]; then
		(((na - pa + 8) % 8 <= 1)) ||
			fail "dump $i: A in phase $pa named 'A $na'"
	fi
	if [ -n "$pb" ]; then
		(((nb - pb + 8) % 8 <= 1)) ||
			fail "dump $i: B in phase $pb named 'B $nb'"
	fi
	if [ -z "$pa" ] || [ -z "$pb" ]; then
		continue
	fi
	if (((pa - pb + 8) % 8 > 1)); then
		cat "$T/dump.out" >&2
		fail "dump $i: A in phase $pa while B is in phase $pb" \
			"(A's phase must be B's or B's + 1)"
	fi
	pairs=$((pairs + 1))
done
say "$DUMPS dumps, $pairs with both threads in a phase method: every pair" \
	"possible"
[ "$pairs" -gt 0 ] || fail "no dump caught both threads in a phase method"
wait_untraced "$pid" 5
assert_running "$pid" 3 0.1
