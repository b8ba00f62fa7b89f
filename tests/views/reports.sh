#!/bin/bash
# SPDX-License-Identifier: MIT
# Copyright (c) 2026 The rbflame authors
#
# The text reports and the call graph on a real profile of
# tests/views/fixtures/workload.rb (three steps of a third each):
# -f summary is stackprof's table (header, columns, heaviest self first)
# with the three steps on top and --limit honoured; -f lines puts each
# step's samples on its loop's line; -f dot is accepted by graphviz
# (dot -Tsvg gives well-formed SVG) with the steps as boxes under their
# caller.
[ -n "${BASH_VERSION:-}" ] || exec bash "$0" "$@"
. "$(dirname "$0")/../e2e/lib.sh"
. "$(dirname "$0")/lib-views.sh"

require_ruby
require_cmd dot xmllint
MIN_SAMPLES=0	# one attach each: the files are reports, not stacks

ROW='^ +([0-9]+) +\( *([0-9.]+)%\) +([0-9]+) +\( *([0-9.]+)%\)     (.+)$'

# summary
profile_workload summary 2 -f summary --limit 5
S=$T/summary.folded
cat "$S"
head -n 5 "$S" | grep -qE '^  Mode: wall\(999 Hz\)$' || fail "summary: no Mode line"
grep -qE '^  Samples: [0-9]+ ' "$S" || fail "summary: no Samples line"
grep -qx '     TOTAL    (pct)     SAMPLES    (pct)     FRAME' "$S" ||
	fail "summary: not stackprof's column header"
[ "$(grep -cE "$ROW" "$S")" = 5 ] || fail "summary: --limit 5 not 5 rows"
grep -qE '^  \([0-9]+ more frames under the 5 shown\)$' "$S" ||
	fail "summary: no line saying rows were left out"
# Heaviest self first, the three steps on top with about a third each.
perl -ne '
	BEGIN { $re = qr/'"$ROW"'/ }
	my ($tot, $self, $spct, $name) = $_ =~ $re ? ($1, $3, $4, $5) : next;
	$n++;
	die "rows not sorted by self: $_" if defined $last && $self > $last;
	$last = $self;
	if ($n <= 3) {
		die "row $n is not a step: $_" unless $name =~ /^Workload#(parse|tax|render)$/;
		die "$name: self share $spct%, expected about a third\n" if $spct < 20 || $spct > 46;
		die "$name: total != self\n" if $tot != $self;
	}
' "$S" || fail "summary: rows"
say "summary: stackprof's table, the three steps on top, --limit 5"

# lines
profile_workload lines 2 -f lines
L=$T/lines.folded
for m in parse tax render; do
	line=$(awk -v m="$m" '$0 ~ "def "m"$" { f = 1 } f && /i \+= 1 while/ { print NR; exit }' \
		"$VFIX/workload.rb")
	[ -n "$line" ] || fail "no loop line for $m in workload.rb"
	grep -qE "^ +[0-9]+ +\( *[0-9.]+%\) +[0-9]+ +\( *[0-9.]+%\)     Workload#$m \\($VFIX/workload.rb:$line\\)$" "$L" ||
		fail "lines: no row for Workload#$m at workload.rb:$line"
done
grep -qx '     TOTAL    (pct)     SAMPLES    (pct)     LINE' "$L" ||
	fail "lines: no column header"
say "lines: each step on its loop's line"

# dot
profile_workload dot 2 -f dot
D=$T/dot.folded
dot -Tsvg "$D" >"$T/graph.svg" 2>"$T/dot.stderr" ||
	fail "dot -Tsvg rejected the graph: $(head -n 3 "$T/dot.stderr")"
xmllint --noout "$T/graph.svg" || fail "dot's SVG is not well-formed"
for m in parse tax render; do
	grep -qE "^  ([0-9]+) \[size=[0-9.]+\] \[fontsize=[0-9.]+\] \[label=\"Workload#$m\\\\n[0-9]+ \\([0-9.]+%\\)\\\\r\"\\];$" "$D" ||
		fail "dot: no box for Workload#$m"
	grep -q ">Workload#$m</text>" "$T/graph.svg" ||
		fail "dot -Tsvg: Workload#$m not drawn"
done
perl -e '
	my (%id, @e);
	while (<>) {
		$id{$2} = $1 if /^  (\d+) \[.*\[label="([^\\"]+)\\n/;
		push @e, [$1, $2, $3] if /^  (\d+) -> (\d+) \[label="(\d+)"\]/;
	}
	my $b = $id{"block in Workload#run"} // die "no block in Workload#run\n";
	for my $m (qw(parse tax render)) {
		my $t = $id{"Workload#$m"};
		die "no edge block in Workload#run -> Workload#$m\n"
		    unless grep { $_->[0] == $b && $_->[1] == $t && $_->[2] > 0 } @e;
	}
' "$D" || fail "dot: edges"
say "dot: accepted by dot -Tsvg; the three steps under block in Workload#run"
