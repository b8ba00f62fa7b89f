#!/bin/bash
# SPDX-License-Identifier: MIT
# Copyright (c) 2026 The rbflame authors
#
# --threads on the multi-threaded tracee: every stack is rooted at
# 'thread TID "NAME"', NAME the thread's name (pthread_setname_np) or, for
# an unnamed thread, the process comm; each worker's stacks hold its own
# functions; a name with '"' and ';' stays inside one frame. Without
# --threads no stack starts with "thread".
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
say "threads: pid $TPID, workers a=$tid_a b=$tid_b c=$tid_c d=$tid_d"

run_rbflame thr 20 --threads -p "$TPID" -s 3 -r 200 -o "$T/thr.folded"
expect_rc 0 "rbflame --threads -p PID -s 3 -r 200"
assert_collapsed "$T/thr.folded" "--threads"
assert_share "$T/thr.folded" '^thread [0-9]+ "' 100 \
	"--threads: stacks rooted at thread TID \"NAME\""

# Each worker: its own root, >= 90% of its samples in worker_X;spin_X.
# (Four threads spin: on a small, busy machine each stop waits for the
# scheduler, so only a handful of ticks per thread is guaranteed.)
worker() {
	local tid=$1 name=$2 x=$3 m t
	read -r m t <<<"$(share "$T/thr.folded" "^thread $tid \"$name\"(;|\$)")"
	[ "$m" -gt 0 ] || fail "no stack rooted at thread $tid \"$name\""
	assert_share "$T/thr.folded" \
		"(^|;)$LIBC_FRAME;worker_$x;spin_$x(;|\$)" 90 \
		"thread $tid \"$name\"" "^thread $tid \""
	[ "$m" -ge 3 ] || fail "thread $tid \"$name\": only $m samples"
}
worker "$tid_a" worker-a a
worker "$tid_b" worker-b b
worker "$tid_c" threads c	# unnamed: the process comm

# worker_d is named q"t;x. Whatever the escape, the root frame (the text
# before the first ';') must be the whole 'thread TID "..."' with no bare
# quote inside, or flamegraph.pl splits the name into two frames.
assert_share "$T/thr.folded" "(^|;)$LIBC_FRAME;worker_d;spin_d(;|\$)" 90 \
	"thread $tid_d (name q\"t;x)" "^thread $tid_d "
PAT_TID=$tid_d perl -ne '
	chomp;
	/^(.*) \d+$/ or next;
	my $s = $1;
	next unless $s =~ /^thread $ENV{PAT_TID} /;
	my ($root) = split /;/, $s;
	$seen{$root}++;
	END {
		for my $r (sort keys %seen) {
			print "root frame: $r\n";
			if ($r !~ /^thread $ENV{PAT_TID} "(?:[^"\\]|\\.)*"$/) {
				print STDERR "root frame [$r] is not one " .
				    "thread TID \"NAME\" frame\n";
				$bad = 1;
			}
		}
		exit($bad ? 1 : 0);
	}
' "$T/thr.folded" >"$T/escape.txt" ||
	fail "thread name q\"t;x not escaped into one frame"
say "thread name q\"t;x: $(head -n 1 "$T/escape.txt")"

# Without --threads: no thread roots, the same functions.
run_rbflame plain 20 -p "$TPID" -s 1 -r 200 -o "$T/plain.folded"
expect_rc 0 "rbflame -p PID -s 1 (threads tracee)"
assert_collapsed "$T/plain.folded" "threads without --threads"
if grep -q '^thread ' "$T/plain.folded"; then
	fail "stacks rooted at 'thread ...' without --threads"
fi
for x in a b c d; do
	read -r m t <<<"$(share "$T/plain.folded" "(^|;)worker_$x;spin_$x(;|\$)")"
	[ "$m" -gt 0 ] || fail "without --threads: no worker_$x;spin_$x stack"
	say "without --threads: worker_$x;spin_$x $m/$t samples"
done

wait_untraced "$TPID" 2
assert_running "$TPID" 3 0.1
