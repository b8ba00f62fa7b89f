#!/bin/bash
# SPDX-License-Identifier: MIT
# Copyright (c) 2026 The rbflame authors
#
# rbflame top in a real terminal: tmux (a private server, 120x40) runs
# 'rbflame top -p PID' on the gvl fixture (spin-a and spin-b contend for
# the GVL, main sleeps), and the test reads the screen with capture-pane
# and types with send-keys:
#   - within 3 s of the start the top row is Object#spin (self 2/3 of the
#     samples: two spinners of three threads);
#   - each spinner's bar waits for the GVL 30-70% of its samples of the
#     last 5 s (about half: the GVL changes hands every 100 ms, so 5 s
#     hold ~50 hand-overs a thread and the share's sd is about 7 points;
#     tests/long/gvlshare.sh checks 35-65% over 10,000 samples), main is
#     >= 95% blocked;
#   - 't' sorts by total (the column falls, the spinners' block rises
#     above Kernel#sleep), 's' by self again; 'w' switches the window;
#   - 'p' freezes the screen (same text 2.5 s later), 'p' again thaws it;
#   - a resize to 80x24 redraws: no line wider, the keys on row 24;
#   - 'q' ends rbflame with status 0, and Ctrl-C does too in a second
#     run; after each the fixture runs on, untraced (TracerPid 0 in every
#     thread, none in state t).
# Then without a terminal: a plain-text snapshot with Object#spin on top,
# status 0 after SIGINT. The target's exit ends a run with status 0, its
# last view left on the terminal (or printed, without one). Last, launch
# mode with --subprocesses on the forked fixture: the parent's and the
# child's threads are rows, Child#spin is there, status 0. With --thread
# '^spin-a$' spin-a's row alone; a pattern that does not compile is a
# usage error (exit 2, the reason on the first line).
[ -n "${BASH_VERSION:-}" ] || exec bash "$0" "$@"
. "$(dirname "$0")/../e2e/lib.sh"
. "$(dirname "$0")/lib-ruby.sh"
require_cmd tmux

FX=gvl.rb
start_fixture gvl gvl.rb
pid=$TPID

SOCK=$T/tmux.sock
tm() {
	tmux -S "$SOCK" "$@"
}
on_exit "tmux -S '$SOCK' kill-server 2>/dev/null"

# screen: the pane's text now, into $T/screen.
screen() {
	tm capture-pane -p -t top >"$T/screen" 2>/dev/null || : >"$T/screen"
}

# first_row: the first function row of $T/screen.
first_row() {
	awk 'f && NF { print; exit } /SELF%/ { f = 1 }' "$T/screen"
}

# rows: the function rows of $T/screen, "SELF TOTAL NAME" (no % signs).
rows() {
	awk 'f && /%/ { gsub("%", ""); print } /SELF%/ { f = 1 }' "$T/screen"
}

# wait_screen REGEX SECS: until a line of the screen matches REGEX.
wait_screen() {
	local n
	n=$(perl -e 'print int($ARGV[0] * 10)' "$2")
	for (( ; ; )); do
		screen
		grep -qE -- "$1" "$T/screen" && return 0
		n=$((n - 1))
		[ "$n" -gt 0 ] || {
			cat "$T/screen" >&2
			fail "no /$1/ on the screen after $2 s"
		}
		sleep 0.1
	done
}

# start_top TAG [PID]: rbflame top -p PID ($pid by default) in a new tmux
# server; its exit status goes to $T/TAG.rc, its stderr to $T/TAG.err;
# the pane stays for end_top to read.
start_top() {
	rm -f "$T/$1.rc"
	tm -f /dev/null new-session -d -s top -x 120 -y 40 \
		"'$RBFLAME' top -p ${2:-$pid} 2>'$T/$1.err';
		 echo \$? >'$T/$1.rc'; sleep 60"
}

# end_top TAG WHAT SECS [PID]: rbflame exits within SECS with status 0
# and leaves PID ($pid by default) running, untraced (no check for a gone
# PID); the pane's last text is in $T/screen, the tmux server killed.
end_top() {
	local n
	n=$(perl -e 'print int($ARGV[0] * 50)' "$3")
	until [ -s "$T/$1.rc" ]; do
		n=$((n - 1))
		[ "$n" -gt 0 ] ||
			fail "$2: rbflame top still running after $3 s"
		sleep 0.02
	done
	RC=$(cat "$T/$1.rc")
	screen
	tm kill-server 2>/dev/null || true
	[ ! -s "$T/$1.err" ] || cat "$T/$1.err" >&2
	expect_rc 0 "rbflame top, $2"
	if alive "${4:-$pid}"; then
		wait_untraced "${4:-$pid}" 2
		assert_running "${4:-$pid}" 3 0.1
		say "$2: exit status 0; the fixture runs on, untraced"
	fi
}

# ---- the hot method, the states ---------------------------------------------

t0=$(now)
start_top quit
for (( ; ; )); do
	screen
	first_row | grep -q ' Object#spin ' && break
	perl -e 'exit !($ARGV[0] > 3)' "$(elapsed "$t0")" && {
		cat "$T/screen" >&2
		fail "Object#spin not on the top row within 3 s"
	}
	sleep 0.1
done
say "top row after $(elapsed "$t0") s: $(first_row)"

# The bars of the last 5 s, once 5 s have been sampled.
wait_screen '^rbflame top: .*, ([5-9]|[1-9][0-9]+) s$' 15
main=$(awk '$1 == "thread" && $2 == "main" { print $3 }' "$T/gvl.log")
grep -E '^(THREAD|[0-9]+ ")' "$T/screen" | sed 's/^/  /'
for name in spin-a spin-b; do
	read -r run gvl gc blk <<<"$(awk -v n="\"$name\"" \
		'$2 == n { print $3, $4, $5, $6 }' "$T/screen")"
	[ -n "$gvl" ] || fail "no state bar for $name"
	[ "$gvl" -ge 30 ] && [ "$gvl" -le 70 ] ||
		fail "$name waits for the GVL $gvl%, not about half"
	[ $((run + gvl)) -ge 95 ] ||
		fail "$name: running $run% + waiting $gvl%, want >= 95%"
done
read -r blk <<<"$(awk -v t="$main" '$1 == t { print $6 }' "$T/screen")"
[ -n "$blk" ] && [ "$blk" -ge 95 ] ||
	fail "main (tid $main) blocked ${blk:-?}%, want >= 95%"

# ---- sorting, the window ----------------------------------------------------

# falling COLUMN WHAT: the rows' COLUMN (1 self, 2 total) never rises.
falling() {
	rows | awk -v c="$1" \
		'NR > 1 && $c > prev + 0.05 { exit 1 } { prev = $c }' ||
		{
			cat "$T/screen" >&2
			fail "$2: column $1 rises"
		}
}
# rank NAME: NAME's row number among the functions.
rank() {
	rows | awk -v n="$1" 'index($0, n) { print NR; exit }'
}

tm send-keys -t top t
wait_screen 'sort: total' 3
falling 2 "sorted by total"
[ "$(rank 'block in Object#spinner')" -lt "$(rank 'Kernel#sleep')" ] ||
	fail "sorted by total, the spinners' block is not above Kernel#sleep"
tm send-keys -t top s
wait_screen 'sort: self' 3
falling 1 "sorted by self"
[ "$(rank 'block in Object#spinner')" -gt "$(rank 'Kernel#sleep')" ] ||
	fail "sorted by self, the spinners' block is not below Kernel#sleep"
first_row | grep -q ' Object#spin ' || fail "sorted by self again, $(first_row)"
say "t sorts by total, s by self"
tm send-keys -t top w
wait_screen 'window: since start' 3
tm send-keys -t top w
wait_screen 'window: last 5 s' 3

# ---- pause ------------------------------------------------------------------

tm send-keys -t top p
wait_screen 'PAUSED' 3
cp "$T/screen" "$T/paused"
sleep 2.5
screen
cmp -s "$T/screen" "$T/paused" || {
	diff "$T/paused" "$T/screen" >&2 || true
	fail "the screen changed while paused"
}
tm send-keys -t top p
head -n 1 "$T/paused" >"$T/paused.head"
n=30
for (( ; ; )); do
	screen
	! grep -q PAUSED "$T/screen" &&
		! head -n 1 "$T/screen" | cmp -s - "$T/paused.head" && break
	n=$((n - 1))
	[ "$n" -gt 0 ] || fail "the screen did not move on after 'p' again"
	sleep 0.1
done
say "p freezes the screen for 2.5 s, p again thaws it"

# ---- resize -----------------------------------------------------------------

tm resize-window -t top -x 80 -y 24
wait_screen '^ q quit' 3
n=$(wc -l <"$T/screen")
widest=$(awk '{ if (length > m) m = length } END { print m + 0 }' "$T/screen")
[ "$widest" -le 80 ] ||
	fail "after a resize to 80 columns, a line is wider"
[ "$(grep -n '^ q quit' "$T/screen" | cut -d: -f1)" = 24 ] ||
	fail "after a resize to 24 rows, the keys are not on row 24 (of $n)"
say "resized to 80x24: redrawn to fit"

# ---- q, Ctrl-C ---------------------------------------------------------------

tm send-keys -t top q
end_top quit "q" 3
start_top ctrlc
wait_screen 'SELF%' 10
tm send-keys -t top C-c
end_top ctrlc "Ctrl-C" 3

# ---- no terminal: snapshots -------------------------------------------------

start_rbflame plain top -p "$pid"
wait_line "$T/plain.out" '^  SELF%' 10 "$RBPID"
sleep 0.5
kill -INT "$RBPID"
wait_rbflame 5 || fail "rbflame top (plain) still running 5 s after SIGINT"
expect_rc 0 "rbflame top, plain text, SIGINT"
awk 'f && NF { print; exit } /SELF%/ { f = 1 }' "$T/plain.out" |
	grep -q ' Object#spin ' ||
	fail "plain text: Object#spin is not the first row"
grep -q $'\033' "$T/plain.out" && fail "plain text: escape sequences in it"
wait_untraced "$pid" 2
assert_running "$pid" 3 0.1
say "plain text: a snapshot with Object#spin on top; SIGINT: status 0"

# ---- the target's exit ------------------------------------------------------

start_fixture short gvl.rb 4
short=$TPID
start_top gone "$short"
end_top gone "the target's exit, on the screen" 10 "$short"
grep -q 'sampling ended' "$T/screen" && first_row | grep -q ' Object#spin ' ||
	{
		cat "$T/screen" >&2
		fail "the target's exit: no last view left on the terminal"
	}
say "the target's exit: status 0, the last view left on the terminal"

start_fixture short2 gvl.rb 3
short=$TPID
start_rbflame gone top -p "$short"
wait_rbflame 10 || fail "rbflame top still running 7 s after its target's end"
expect_rc 0 "rbflame top, target exited"
grep -q 'sampling ended' "$T/gone.out" ||
	fail "the target's exit: no last snapshot"
say "the target's exit: a last snapshot, status 0"

# ---- -- COMMAND with --subprocesses ---------------------------------------

# The forked fixture's parent waits in Process.wait while its child spins
# in Child#spin: both processes' main threads are rows, and Child#spin is
# there. The command's output shares rbflame's; rbflame exits with its
# status, 0.
run_rbflame sub 20 top --subprocesses -- "$RUBY" "$FIXTURES/forked.rb" main 4
expect_rc 0 "rbflame top --subprocesses -- ruby forked.rb main 4"
child=$(sed -n 's/^child \([0-9]*\)$/\1/p' "$T/sub.out")
parent=$(sed -n 's/^parent \([0-9]*\)$/\1/p' "$T/sub.out")
[ -n "$child" ] && [ -n "$parent" ] ||
	fail "--subprocesses: no parent or child pid"
last=$(awk '/^rbflame top:/ { n = NR } END { print n }' "$T/sub.out")
tail -n "+$last" "$T/sub.out" >"$T/sub.last"
grep -q 'sampling ended' "$T/sub.last" ||
	fail "--subprocesses: no last snapshot"
grep -qE "^$child \"" "$T/sub.last" ||
	fail "--subprocesses: no row for the child $child"
grep -qE "^$parent \"" "$T/sub.last" ||
	fail "--subprocesses: no row for the parent $parent"
grep -qE '%  Child#spin ' "$T/sub.last" || fail "--subprocesses: no Child#spin"
say "--subprocesses -- COMMAND: parent $parent and child $child" \
	"watched, status 0"

# ---- --thread ---------------------------------------------------------------

# Only spin-a: its row alone (spin-b and main have none), Object#spin
# still on top, status 0.
run_rbflame thr 20 top --thread '^spin-a$' -- "$RUBY" "$FIXTURES/gvl.rb" 4
expect_rc 0 "rbflame top --thread '^spin-a\$' -- ruby gvl.rb 4"
last=$(awk '/^rbflame top:/ { n = NR } END { print n }' "$T/thr.out")
tail -n "+$last" "$T/thr.out" >"$T/thr.last"
grep -q 'sampling ended' "$T/thr.last" || fail "--thread: no last snapshot"
rows=$(grep -cE '^[0-9]+ "' "$T/thr.last")
grep -qE '^[0-9]+ "spin-a" ' "$T/thr.last" && [ "$rows" = 1 ] || {
	cat "$T/thr.last" >&2
	fail "--thread '^spin-a\$': want the row of spin-a alone, $rows rows"
}
awk 'f && NF { print; exit } /SELF%/ { f = 1 }' "$T/thr.last" |
	grep -q ' Object#spin ' || fail "--thread: Object#spin is not on top"
run_rbflame thrbad 10 top --thread '(' -p 1
expect_rc 2 "rbflame top --thread '('"
head -n 1 "$T/thrbad.err" | grep -q "^rbflame: top: invalid --thread pattern '(': " ||
	fail "rbflame top --thread '(': $(cat "$T/thrbad.err")"
say "--thread: the one thread's row, status 0; a bad pattern: $(head -n 1 "$T/thrbad.err")"
