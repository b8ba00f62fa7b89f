#!/bin/bash
# SPDX-License-Identifier: MIT
# Copyright (c) 2026 The rbflame authors
#
# The GVL split, on the gvl fixture (tests/ruby/fixtures): two CPU-bound
# threads (spin-a, spin-b) contending for the GVL while the main thread
# sleeps. Wall mode (the default), --threads, rounds of 8 s at 1000 Hz
# until each spinner has >= 10,000 samples: each spinner's samples are
# >= 97% Object#spin at its line (the rest in Fixture.done?, a GVL
# hand-over point), 35-65% ending in (waiting for GVL) and the rest
# running (Ruby hands the GVL over every 100 ms: about half each); the
# main thread's are >= 95% Kernel#sleep;(blocked); the summary lines count
# the same samples per state as the profile. On a busy machine rbflame
# keeps only a few hundred ticks a second, so this lives in the long tier
# (tests/ruby/states.sh checks the same quickly, without the 10,000).
[ -n "${BASH_VERSION:-}" ] || exec bash "$0" "$@"
. "$(dirname "$0")/../e2e/lib.sh"
. "$(dirname "$0")/../ruby/lib-ruby.sh"

FX=gvl.rb
start_fixture gvl gvl.rb
pid=$TPID
tid_of() {
	awk -v n="$1" '$1 == "thread" && $2 == n { print $3 }' "$T/gvl.log"
}
main=$(tid_of main) a=$(tid_of spin-a) b=$(tid_of spin-b)
[ -n "$main" ] && [ -n "$a" ] && [ -n "$b" ] ||
	fail "the fixture did not print its three threads"

# merge OUT FILES...: one collapsed profile, counts of equal stacks added.
merge() {
	local out=$1
	shift
	perl -ne '
		chomp;
		$n{$1} += $2 if /^(.*) (\d+)$/;
		END { print "$_ $n{$_}\n" for sort keys %n }
	' "$@" >"$out"
}

# Wall mode: rounds until each spinner has 10,000 samples.
files=() blocked=0 waiting=0
for round in $(seq 1 12); do
	run_rbflame "wall$round" 40 --threads -p "$pid" -s 8 -r 1000 \
		-o "$T/wall$round.folded"
	expect_rc 0 "rbflame --threads -p PID -s 8 -r 1000 (round $round)"
	sum=$(tail -n 1 "$T/wall$round.err")
	say "round $round: $sum"
	files+=("$T/wall$round.folded")
	w=$(printf '%s\n' "$sum" | sed -n 's/.*waiting for GVL \([0-9]*\),.*/\1/p')
	bl=$(printf '%s\n' "$sum" | sed -n 's/.*, blocked \([0-9]*\),.*/\1/p')
	[ -n "$w" ] && [ -n "$bl" ] ||
		fail "no samples per state on the summary line"
	waiting=$((waiting + w)) blocked=$((blocked + bl))
	merge "$T/wall.folded" "${files[@]}"
	na=$(share "$T/wall.folded" '' "^thread $a \"" | cut -d' ' -f2)
	nb=$(share "$T/wall.folded" '' "^thread $b \"" | cut -d' ' -f2)
	[ "$na" -ge 10000 ] && [ "$nb" -ge 10000 ] && break
done
assert_collapsed "$T/wall.folded" "wall mode"
[ "$na" -ge 10000 ] && [ "$nb" -ge 10000 ] ||
	fail "only $na and $nb samples of the spinners in $round rounds"

spin=$(expand_stack 'block in Object#spinner {spinner};Object#spin {spin}')
for t in "$a:spin-a" "$b:spin-b"; do
	tid=${t%%:*} name=${t#*:}
	assert_stacks "$T/wall.folded" 97 "$name (tid $tid), all" \
		--within "thread $tid \"$name\";" \
		"thread $tid \"$name\";$spin@GC?@" \
		"thread $tid \"$name\";$spin;(waiting for GVL)"
	read -r n tot <<<"$(share "$T/wall.folded" ';\(waiting for GVL\)$' \
		"^thread $tid \"")"
	pct=$(perl -e 'printf "%.1f", 100 * $ARGV[0] / $ARGV[1]' "$n" "$tot")
	say "$name: $n/$tot = $pct% waiting for the GVL (want 35-65%)"
	perl -e 'exit !($ARGV[0] >= 35 && $ARGV[0] <= 65)' "$pct" ||
		fail "$name waits for the GVL $pct% of its samples, not about half"
done
s=$(expand_stack "thread $main \"main\";<main> {main-sleep};Kernel#sleep {main-sleep};(blocked)")
assert_stacks "$T/wall.folded" 95 "main (tid $main) sleeping" \
	--within "thread $main \"main\";" "$s"

# The summary's per-state counts are the profile's.
read -r n _ <<<"$(share "$T/wall.folded" ';\(waiting for GVL\)$')"
[ "$n" = "$waiting" ] ||
	fail "summary lines: $waiting waiting for GVL, profile: $n"
read -r n _ <<<"$(share "$T/wall.folded" ';\(blocked\)$')"
[ "$n" = "$blocked" ] || fail "summary lines: $blocked blocked, profile: $n"
say "summary per state = profile: $waiting waiting for GVL, $blocked blocked"


wait_untraced "$pid" 2
assert_running "$pid" 3 0.1
