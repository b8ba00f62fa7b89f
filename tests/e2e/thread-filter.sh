#!/bin/bash
# SPDX-License-Identifier: MIT
# Copyright (c) 2026 The rbflame authors
#
# --thread REGEX on a process that is not Ruby (the multi-threaded tracee:
# four spinning workers, "worker-a", "worker-b", an unnamed one keeping
# the comm "threads", and "q\"t;x"): only the threads whose comm or tid
# matches are sampled, and the others are never interrupted, by --debug's
# count of PTRACE_INTERRUPTs per thread (first shown to count: without
# --thread every worker is interrupted in every tick).
[ -n "${BASH_VERSION:-}" ] || exec bash "$0" "$@"
# shellcheck source=tests/e2e/lib.sh
. "$(dirname "$0")/lib.sh"

start_tracee threads -r "$T/ready"
wait_ready "$T/ready" 10 "$TPID"
tid() {
	awk -v f="$1" '$2 == f { print $1 }' "$T/ready"
}
tid_a=$(tid worker_a)
tid_b=$(tid worker_b)
tid_c=$(tid worker_c)
tid_d=$(tid worker_d)

# interrupts TAG TID: the PTRACE_INTERRUPTs thread TID got in run TAG.
interrupts() {
	local n
	n=$(sed -n "s/^rbflame: thread $2 of process $TPID: \([0-9]*\) interrupts\$/\1/p" \
		"$T/$1.err")
	[ -n "$n" ] || fail "$1: --debug counted no interrupts of thread $2"
	echo "$n"
}
ticks() {
	sed -n 's/.* samples in [0-9.]* s (\([0-9]*\) ticks at .*/\1/p' "$T/$1.err"
}
roots() {
	sed -n 's/^thread \([0-9]*\) .*/\1/p' "$T/$1.folded" | sort -u |
		tr '\n' ' '
}

run_rbflame all 20 --threads --debug -p "$TPID" -s 1 -r 100 \
	-o "$T/all.folded"
expect_rc 0 "rbflame --threads --debug -p PID -s 1 -r 100"
nt=$(ticks all)
for t in "$tid_a" "$tid_b" "$tid_c" "$tid_d"; do
	k=$(interrupts all "$t")
	[ "$k" -ge $((nt / 2)) ] ||
		fail "without --thread, thread $t was interrupted $k times in $nt ticks"
done

# By name (worker-a) and by tid (the unnamed worker_c).
run_rbflame sel 20 --threads --debug --thread "^worker-a\$|^$tid_c\$" \
	-p "$TPID" -s 1 -r 100 -o "$T/sel.folded"
expect_rc 0 "rbflame --thread '^worker-a\$|^TID\$' -p PID -s 1 -r 100"
assert_collapsed "$T/sel.folded" "--thread on a native process"
want=$(printf '%s\n' "$tid_a" "$tid_c" | sort | tr '\n' ' ')
[ "$(roots sel)" = "$want" ] ||
	fail "--thread '^worker-a\$|^$tid_c\$': roots $(roots sel), want $want"
nt=$(ticks sel)
for t in "$tid_b" "$tid_d" "$TPID"; do
	k=$(interrupts sel "$t")
	[ "$k" = 0 ] || fail "--thread: thread $t (not matching) interrupted $k times"
done
for t in "$tid_a" "$tid_c"; do
	k=$(interrupts sel "$t")
	[ "$k" -ge $((nt / 2)) ] ||
		fail "--thread: thread $t (matching) interrupted $k times in $nt ticks"
done
assert_share "$T/sel.folded" "^thread $tid_a \"worker-a\";.*worker_a;spin_a\$" \
	90 "worker-a in spin_a" "^thread $tid_a "
say "--thread on a native process: $(total_samples "$T/sel.folded") samples" \
	"of worker-a and thread $tid_c; worker-b, q\"t;x and main: 0 interrupts"
wait_untraced "$TPID" 2
assert_running "$TPID" 1 0
kill_tracee "$TPID"
