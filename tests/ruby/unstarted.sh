#!/bin/bash
# SPDX-License-Identifier: MIT
# Copyright (c) 2026 The rbflame authors
#
# A Ruby thread that exists but has not run Ruby code yet (created, named,
# waiting for the GVL that the main thread holds in Integer#pow): Ruby
# gives it an empty backtrace. 'rbflame dump' shows its header with no
# frame (nothing "unreadable"), the main thread exactly, and a --threads
# profile counts no failed read for it: no frame is no failure. At most a
# root-only stack 'thread TID "unstarted"' stands for it.
[ -n "${BASH_VERSION:-}" ] || exec bash "$0" "$@"
. "$(dirname "$0")/../e2e/lib.sh"
. "$(dirname "$0")/lib-ruby.sh"

FX=unstarted.rb
main_want=$(expand_stack '<main> {pow};Integer#pow {pow}')

# start: runs the fixture until its main thread is in Integer#pow (polled
# with dump: the fixture cannot print without letting the thread start);
# sets TPID and UTID, the unstarted thread's tid (its comm). Returns 1 if
# the thread did start (a time slice ended before Integer#pow).
start() {
	local i leaf d
	"$RUBY" "$FIXTURES/$FX" >"$T/fixture.log" 2>&1 </dev/null &
	TPID=$!
	track "$TPID"
	for ((i = 0; ; i++)); do
		[ "$i" -lt 100 ] || fail "main thread not in Integer#pow after 100 dumps"
		alive "$TPID" || fail "the fixture died"
		run_rbflame poll 30 dump -p "$TPID"
		leaf=$(dump_block "$T/poll.out" "$TPID" | tail -n 1)
		[ "$leaf" = "  ${main_want##*;}" ] && break
		sleep 0.2
	done
	UTID=
	for d in /proc/"$TPID"/task/*; do
		[ "$(cat "$d/comm" 2>/dev/null)" = unstarted ] && UTID=${d##*/}
	done
	[ -n "$UTID" ] || fail "no task named 'unstarted' in /proc/$TPID/task"
	if dump_block "$T/poll.out" "$UTID" | grep -q 'Kernel#sleep'; then
		say "the thread started before Integer#pow (time slice): again"
		kill_tracee "$TPID"
		return 1
	fi
}
start || start || start || fail "the thread started before Integer#pow 3 times"
say "pid $TPID, main in Integer#pow, thread $UTID \"unstarted\" waiting"

run_rbflame dump 30 dump -p "$TPID"
expect_rc 0 "rbflame dump -p PID (unstarted thread)"
printf 'thread %s "main"\n' "$TPID" >"$T/want.main"
printf '%s\n' "$main_want" | tr ';' '\n' | sed 's/^/  /' >>"$T/want.main"
dump_block "$T/dump.out" "$TPID" >"$T/got.main"
diff -u "$T/want.main" "$T/got.main" >&2 ||
	fail "dump: the main thread's block differs (- want, + got)"
printf 'thread %s "unstarted"\n' "$UTID" >"$T/want.unstarted"
dump_block "$T/dump.out" "$UTID" >"$T/got.unstarted"
diff -u "$T/want.unstarted" "$T/got.unstarted" >&2 ||
	fail "dump: thread $UTID (not started, empty backtrace in Ruby)" \
		"is not a header without frames (- want, + got)"
r=$(check_dump "$T/dump.out" 2>&1) || fail "dump output malformed: $r"
say "dump: main exactly, thread $UTID \"unstarted\" without frames ($r)"

run_rbflame thr 30 --threads -p "$TPID" -s 1 -r 100 -o "$T/thr.folded"
expect_rc 0 "rbflame --threads -p PID (unstarted thread)"
assert_collapsed "$T/thr.folded" "--threads, unstarted thread"
assert_stacks "$T/thr.folded" 95 "--threads, main" \
	--within "thread $TPID \"main\";" "thread $TPID \"main\";$main_want"
if grep -v "^thread $TPID \"main\";" "$T/thr.folded" |
	grep -qv "^thread $UTID \"unstarted\" [0-9]*\$"; then
	fail "--threads: stacks other than main's and a root-only" \
		"'thread $UTID \"unstarted\"'"
fi
summary=$(tail -n 1 "$T/thr.err")
say "--threads: $summary"
failed=$(printf '%s\n' "$summary" | sed -n 's/.* \([0-9]*\) failed reads.*/\1/p')
[ "$failed" = 0 ] ||
	fail "--threads: $failed failed reads for a thread that simply has" \
		"no frame yet"
wait_untraced "$TPID" 2
assert_running "$TPID" 3 0.1
