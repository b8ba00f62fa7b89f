#!/bin/bash
# SPDX-License-Identifier: MIT
# Copyright (c) 2026 The rbflame authors
#
# No frame from a stale cache: the compact fixture runs GC.compact in a
# loop between rounds of allocation, method redefinition (new iseqs at
# every switch) and class creation, while 'rbflame -p PID -r 1000'
# samples it for 10 s. Every method and block of the fixture sits on one
# line, so each of its frames has exactly one possible text. Every frame
# of every sample must be
#
#   - one of the fixture's frames, 'LABEL (PATH:LINE)' with LINE the one
#     marked for it, under the one Ruby frame that calls it (so Morph#shape
#     at version A's line only under Churn#use_a, version B's only under
#     Churn#use_b; GenA#work only under Churn#gen_a, GenB#work, the same
#     code, only under Churn#gen_b), or a Ruby method of another file the
#     fixture calls
#     (GC.compact, Fixture.done?) at a line of its instructions;
#   - or a C function the fixture calls (its TracePoint says which) at
#     the path and line of the Ruby frame above it;
#
# each stack rooted at <main> at its marked line. rbflame exits 0 and the
# target runs on, untraced; the samples checked are reported.
[ -n "${BASH_VERSION:-}" ] || exec bash "$0" "$@"
# shellcheck source=tests/e2e/lib.sh
. "$(dirname "$0")/../e2e/lib.sh"
# shellcheck source=tests/ruby/lib-ruby.sh
. "$(dirname "$0")/lib-ruby.sh"
require_ruby_c_iterators

SECS=${RBFLAME_COMPACT_SECS:-10}
FX=compact.rb

"$RUBY" -e 'exit GC.respond_to?(:compact) ? 0 : 1' ||
	skip_or_fail "this Ruby has no GC.compact"

# The frames of other files and the C functions, as the fixture sees them.
"$RUBY" "$FIXTURES/compact.rb" list >"$T/list.tsv" ||
	fail "ruby compact.rb list failed"
grep -q '^cfunc	' "$T/list.tsv" || fail "compact.rb list: no C function"
grep -q '^ruby	GC\.compact	' "$T/list.tsv" ||
	fail "compact.rb list: GC.compact is not a Ruby method here"

# known KEY PARENTS SPEC: a frame of the fixture (SPEC as for expand_stack,
# @HEX@ for an anonymous class's digits) and the keys of the Ruby frames
# that may call it ('-' for the root).
known() {
	printf 'frame\t%s\t%s\t%s\n' "$1" "$2" "$(expand_stack "$3")"
}
{
	known main - '<main> {main}'
	known round main 'Churn#round {round}'
	for m in strings arrays hashes morph anon named compact; do
		known "$m" round "Churn#$m {$m}"
	done
	for m in strings arrays hashes morph named; do
		known "block-$m" "$m" "block in Churn#$m {$m}"
	done
	known build gen-a,gen-b 'Churn#build {build}'
	known block-build build 'block in Churn#build {build}'
	for v in a b; do
		known "define-$v" block-morph "Churn#define_$v {define-$v}"
		known "use-$v" block-morph "Churn#use_$v {use-$v}"
		# class_eval's code runs in a frame labelled as its caller.
		known "eval-$v" "define-$v" "Churn#define_$v {shape-$v}"
		known "shape-$v" "use-$v" "Morph#shape {shape-$v}"
		known "block-shape-$v" "shape-$v" "block in Morph#shape {shape-$v}"
	done
	known block-anon anon 'block in Churn#anon {anon}'
	known block2-anon block-anon 'block (2 levels) in Churn#anon {anon}'
	known anon-work block-anon '#<Class:0x@HEX@>#work {anon}'
	known block-anon-work anon-work 'block in #<Class:0x@HEX@>#work {anon}'
	for v in a b; do
		known "gen-$v" block-named "Churn#gen_$v {gen-$v}"
		known "gen-$v-work" "gen-$v" "Gen${v^^}#work {build}"
		known "block-gen-$v-work" "gen-$v-work" \
			"block in Gen${v^^}#work {build}"
	done
	# Other files' Ruby methods, at the lines of their instructions.
	while IFS=$'\t' read -r kind label path lines; do
		[ "$kind" = ruby ] || continue
		case $label in
		GC.compact) parents=compact ;;
		Fixture.*) parents=main ;;
		*) fail "compact.rb list: unexpected Ruby method $label" ;;
		esac
		for l in ${lines//,/ }; do
			printf 'frame\t%s\t%s\t%s (%s:%s)\n' "$label" "$parents" \
				"$label" "$path" "$l"
		done
	done <"$T/list.tsv"
	sed -n 's/^cfunc	/cfunc	/p' "$T/list.tsv"
} >"$T/known.tsv" || fail "cannot describe the fixture's frames"
say "$(grep -c '^frame' "$T/known.tsv") known Ruby frames," \
	"$(grep -c '^cfunc' "$T/known.tsv") C functions"

# check_compact KNOWN FOLDED: every frame possible (see the top). Prints
# the figures; on failure the first bad frames on stderr, returns 1.
check_compact() {
	perl -e '
	my ($known, $folded) = @ARGV;
	my (@frames, %cfunc);
	open(my $k, "<", $known) or die "open $known: $!\n";
	while (<$k>) {
		chomp;
		my @f = split /\t/;
		if ($f[0] eq "cfunc") { $cfunc{$f[1]} = 1; next }
		my $re = quotemeta($f[3]);
		$re =~ s/\\\@HEX\\\@/[0-9a-f]+/g;
		push @frames, [$f[1], { map { $_ => 1 } split /,/, $f[2] },
		    qr/^$re$/];
	}
	my (%seen, @err, $samples, $nframes, $cframes);
	open(my $fh, "<", $folded) or die "open $folded: $!\n";
	while (my $line = <$fh>) {
		chomp $line;
		my ($stack, $n) = $line =~ /^(.*) (\d+)$/ or next;
		# Thread-state pseudo-frames end a stack: not frames of
		# the code, so not part of the invariant.
		$stack =~ s/(?:;\((?:garbage collection|marking|sweeping|waiting for GVL|blocked|running without GVL)\))+$//;
		$samples += $n;
		my ($pkey, $ppath, $pline) = ("-");
		my @f = split /;/, $stack;
		for my $i (0 .. $#f) {
			$nframes += $n;
			my ($label, $path, $l) = $f[$i] =~ /^(.+) \(([^()]+):(\d+)\)$/;
			my $why;
			my ($hit) = grep { $f[$i] =~ $_->[2] } @frames;
			if (!defined $label) {
				$why = "not LABEL (PATH:LINE)";
			} elsif ($hit) {
				if (!$hit->[1]{$pkey}) {
					$why = $pkey eq "-" ? "not a root" :
					    "called from [$pkey], possible only from [" .
					    join(", ", sort keys %{$hit->[1]}) . "]";
				} else {
					$seen{$hit->[0]} += $n;
				}
				($pkey, $ppath, $pline) = ($hit->[0], $path, $l);
			} elsif ($cfunc{$label}) {
				if ($i == 0) {
					$why = "a C function as the root";
				} elsif ("$path:$l" ne "$ppath:$pline") {
					$why = "C function not at its caller\x27s line" .
					    " ($ppath:$pline)";
				} else {
					$cframes += $n;
				}
			} else {
				$why = "neither a frame of the fixture (at its line)" .
				    " nor a C function it calls";
			}
			push @err, "frame $i [$f[$i]]: $why\n  in $line" if $why;
		}
	}
	if (@err) {
		print STDERR "$_\n" for @err[0 .. ($#err > 9 ? 9 : $#err)];
		printf STDERR "%d impossible frames\n", scalar @err;
		exit 1;
	}
	printf "%d samples, %d frames (%d of C functions) checked; " .
	    "samples per frame: %s\n", $samples, $nframes, $cframes // 0,
	    join(", ", map { "$_ $seen{$_}" }
	    sort { $seen{$b} <=> $seen{$a} || $a cmp $b } keys %seen);
	' "$1" "$2"
}

start_fixture compact compact.rb run
run_rbflame compact $((SECS + 60)) -p "$TPID" -s "$SECS" -r 1000 \
	-o "$T/compact.folded"
expect_rc 0 "rbflame -p PID -s $SECS -r 1000 (compact fixture)"
say "$(tail -n 1 "$T/compact.err")"
assert_collapsed "$T/compact.folded" "compact"
wait_untraced "$TPID" 5
assert_running "$TPID" 3 0.1

check_compact "$T/known.tsv" "$T/compact.folded" >"$T/verdict.txt" ||
	fail "compact: impossible frames in the profile (above)"
say "no impossible frame: $(cat "$T/verdict.txt")"

# The run sampled compaction, both versions of the redefined method and
# the method of both classes.
for k in GC.compact shape-a shape-b gen-a-work gen-b-work; do
	grep -qE "(: |, )$k [0-9]+" "$T/verdict.txt" ||
		fail "compact: no sample in [$k]: the fixture did not run it" \
			"while sampled"
done
