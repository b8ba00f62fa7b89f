#!/bin/bash
# SPDX-License-Identifier: MIT
# Copyright (c) 2026 The rbflame authors
#
# Sampling through garbage collection and compaction: the gc fixture
# allocates strings, arrays and hashes without pause, runs GC.start and
# GC.compact (which moves iseqs, strings and method entries under a
# reader's caches). 'rbflame -p PID -s 20 -r 1000' must exit 0, leave the
# target running (alive, not stopped, untraced), and write nothing
# impossible: every stack starts at <main> (once); every frame is
# 'LABEL (PATH:LINE)' where LABEL is a method, block or body of the
# fixture (or GC.start/GC.compact of <internal:gc>) and LINE lies inside
# its code, or LABEL has the shape of a C function (Word#word, Word.word,
# Word::Word#word, Word#+) and carries its caller's PATH:LINE, a real line
# of an existing file.
[ -n "${BASH_VERSION:-}" ] || exec bash "$0" "$@"
. "$(dirname "$0")/../e2e/lib.sh"
. "$(dirname "$0")/lib-ruby.sh"

# Where each of the fixture's frames may be (see ranges.rb).
"$RUBY" "$top_srcdir/tests/ruby/ranges.rb" -m GC.start -m GC.compact \
	"$FIXTURES/gc.rb" "$FIXTURES/fixture.rb" >"$T/known.tsv" ||
	fail "ranges.rb failed"
say "$(wc -l <"$T/known.tsv") known frames (methods, blocks, bodies)"

start_fixture gc gc.rb
run_rbflame gc 60 -p "$TPID" -s 20 -r 1000 -o "$T/gc.folded"
expect_rc 0 "rbflame -p PID -s 20 -r 1000 (gc fixture)"
say "$(tail -n 1 "$T/gc.err")"
assert_collapsed "$T/gc.folded" "gc"
wait_untraced "$TPID" 5
assert_running "$TPID" 5 0.1
say "the target is alive, running and untraced after 20 s at 1000 Hz"

perl -e '
	my ($known, $folded) = @ARGV;
	my %known;	# label -> [[path, first, last], ...]
	open(my $k, "<", $known) or die "open $known: $!\n";
	while (<$k>) {
		chomp;
		my ($label, $path, $first, $last) = split /\t/;
		push @{$known{$label}}, [$path, $first, $last];
	}
	# Owner#name, Owner.name, A::B#name; name an identifier (with ?, !
	# or =) or one of Ruby\x27s operator methods (String#+ is a real call
	# in 3.1: its backtraces show it).
	my $op = qr{\[\]=?|[-+]@|\*\*|<=>|===?|=~|!=|![~]?|<<|>>|<=|>=|[-+*/%<>&|^~]};
	my $cfunc = qr/^[A-Z]\w*(?:::[A-Z]\w*)*[#.](?:[A-Za-z_]\w*[?!=]?|$op)$/;
	my (%nlines, %seen, @err, $samples, $frames);
	sub nlines {
		my ($p) = @_;
		return $nlines{$p} if exists $nlines{$p};
		my $n;
		if (open(my $f, "<", $p)) { $n = 0; $n++ while <$f>; }
		return $nlines{$p} = $n;
	}
	open(my $fh, "<", $folded) or die "open $folded: $!\n";
	while (my $line = <$fh>) {
		chomp $line;
		my ($stack, $n) = $line =~ /^(.*) (\d+)$/ or next;
		$samples += $n;
		my @f = split /;/, $stack;
		my ($ppath, $pline);
		for my $i (0 .. $#f) {
			$frames += $n;
			my $why;
			my ($label, $path, $l) =
			    $f[$i] =~ /^(.+) \(([^()]+):(\d+)\)$/;
			if (!defined $label) {
				$why = "not LABEL (PATH:LINE)";
			} elsif ($i == 0 && $label ne "<main>") {
				$why = "stack does not start at <main>";
			} elsif ($i > 0 && $label eq "<main>") {
				$why = "<main> below the root";
			} elsif ($known{$label}) {
				my $ok = grep {
					$_->[0] eq $path && $l >= $_->[1] &&
					    $l <= $_->[2]
				} @{$known{$label}};
				$why = "line $l outside $label (at " . join(", ",
				    map { "$_->[0]:$_->[1]-$_->[2]" }
				    @{$known{$label}}) . ")" if !$ok;
				$seen{$label} += $n if $ok;
			} elsif ($label =~ $cfunc) {
				my $max = nlines($path);
				if ($path !~ m{^/}) {
					$why = "C function with a relative path";
				} elsif (!defined $max) {
					$why = "no such file $path";
				} elsif ($l < 1 || $l > $max) {
					$why = "line $l of a $max-line file";
				} elsif ($i == 0 || "$path:$l" ne "$ppath:$pline") {
					$why = "C function not at its caller\x27s " .
					    "line" . ($i ? " ($ppath:$pline)" : "");
				}
				$seen{"C functions"} += $n if !$why;
			} else {
				$why = "unknown label (neither the fixture\x27s " .
				    "nor a C function\x27s)";
			}
			push @err, "frame $i [$f[$i]]: $why\n  in $line" if $why;
			($ppath, $pline) = ($path, $l);
		}
	}
	if (@err) {
		print STDERR "$_\n" for @err[0 .. ($#err > 9 ? 9 : $#err)];
		printf STDERR "%d bad frames\n", scalar @err;
		exit 1;
	}
	printf "%d samples, %d frames checked; samples per frame kind: %s\n",
	    $samples, $frames, join(", ", map { "$_ $seen{$_}" }
	    sort { $seen{$b} <=> $seen{$a} } keys %seen);
' "$T/known.tsv" "$T/gc.folded" >"$T/verdict.txt" ||
	fail "gc: impossible frames in the profile (above)"
say "every frame possible: $(cat "$T/verdict.txt")"

# The run did sample the collector at work, not only the allocations.
for m in 'GC\.start' 'GC\.compact' 'Churn#collect'; do
	read -r n t <<<"$(share "$T/gc.folded" "(^|;)$m \\(")"
	say "$n/$t samples in ${m/\\/}"
	[ "$n" -gt 0 ] || fail "gc: no sample in ${m/\\/}: the fixture did" \
		"not exercise the collector"
done
