#!/bin/bash
# SPDX-License-Identifier: MIT
# Copyright (c) 2026 The rbflame authors
#
# Thread states and --mode, on the gvl fixture: two CPU-bound threads
# (spin-a, spin-b) contending for the GVL while the main thread sleeps.
#  - wall mode (the default), --threads, 3 s at 1000 Hz: each spinner's
#    samples are >= 97% Object#spin at its line or in Fixture.done?
#    (where the GVL may change hands too), some running and some ending in (waiting for GVL);
#    the main thread's are >= 95% Kernel#sleep;
#    (blocked); the summary line counts the same samples per state as
#    the profile (the split itself, about half each over >= 10,000
#    samples, is tests/long/gvlshare.sh);
#  - --mode cpu: the sleeping main thread disappears, no sample waits for
#    the GVL or is blocked, and both spinners are there.
[ -n "${BASH_VERSION:-}" ] || exec bash "$0" "$@"
. "$(dirname "$0")/../e2e/lib.sh"
. "$(dirname "$0")/lib-ruby.sh"

FX=gvl.rb
start_fixture gvl gvl.rb
pid=$TPID
tid_of() {
	awk -v n="$1" '$1 == "thread" && $2 == n { print $3 }' "$T/gvl.log"
}
main=$(tid_of main) a=$(tid_of spin-a) b=$(tid_of spin-b)
[ -n "$main" ] && [ -n "$a" ] && [ -n "$b" ] ||
	fail "the fixture did not print its three threads"

# Wall mode, 3 s: every state where it belongs.
run_rbflame wall 40 --threads -p "$pid" -s 3 -r 1000 -o "$T/wall.folded"
expect_rc 0 "rbflame --threads -p PID -s 3 -r 1000"
sum=$(tail -n 1 "$T/wall.err")
say "wall: $sum"
assert_collapsed "$T/wall.folded" "wall mode"
spin=$(expand_stack 'block in Object#spinner {spinner};Object#spin {spin}')
for t in "$a:spin-a" "$b:spin-b"; do
	tid=${t%%:*} name=${t#*:}
	mapfile -t dn < <(done_stacks "thread $tid \"$name\";$spin")
	assert_stacks "$T/wall.folded" 97 "$name (tid $tid)" \
		--within "thread $tid \"$name\";" \
		"thread $tid \"$name\";$spin@GC?@" \
		"thread $tid \"$name\";$spin;(waiting for GVL)" "${dn[@]}"
done
# From its sleep on: before it, main may still be finishing the write
# of "ready", waiting to take the GVL back from the spinners.
root=$(expand_stack "thread $main \"main\";<main> {main-sleep};Kernel#sleep {main-sleep}")
s=$(expand_stack "thread $main \"main\";<main> {main-sleep};Kernel#sleep {main-sleep};(blocked)")
assert_stacks "$T/wall.folded" 95 "main (tid $main) sleeping" \
	--within "$root;" "$s"

# The summary's per-state counts are the profile's.
for st in 'waiting for GVL' blocked; do
	n=$(printf '%s\n' "$sum" | sed -n "s/.*[;,] $st \([0-9]*\)[,;]*.*/\1/p")
	read -r m _ <<<"$(share "$T/wall.folded" ";\\($st\\)\$")"
	say "summary: $st $n; profile: $m"
	[ -n "$n" ] && [ "$n" = "$m" ] ||
		fail "summary line: $st ${n:-missing}, profile: $m"
done

# cpu mode: only threads on a CPU.
run_rbflame cpu 40 --mode cpu --threads -p "$pid" -s 3 -r 1000 \
	-o "$T/cpu.folded"
expect_rc 0 "rbflame --mode cpu --threads -p PID -s 3 -r 1000"
say "cpu: $(tail -n 1 "$T/cpu.err")"
assert_collapsed "$T/cpu.folded" "cpu mode"
read -r n tot <<<"$(share "$T/cpu.folded" "^thread $main \"")"
say "cpu: $n/$tot samples of the sleeping main thread (want 0)"
[ "$n" = 0 ] || fail "cpu mode: the sleeping main thread has $n samples"
read -r n tot <<<"$(share "$T/cpu.folded" ';\((waiting for GVL|blocked)\)$')"
[ "$n" = 0 ] || fail "cpu mode: $n samples waiting or blocked"
for t in "$a" "$b"; do
	read -r n tot <<<"$(share "$T/cpu.folded" "^thread $t \"spin-")"
	say "cpu: $n/$tot samples of spinner $t"
	[ "$n" -gt 0 ] || fail "cpu mode: spinner $t never sampled"
done
assert_share "$T/cpu.folded" ";Object#spin \\([^)]*\\)(;\\((garbage collection|marking|sweeping)\\))*\$" \
	97 "cpu: spinners running Object#spin"

wait_untraced "$pid" 2
assert_running "$pid" 3 0.1
