#!/bin/bash
# SPDX-License-Identifier: MIT
# Copyright (c) 2026 The rbflame authors
#
# Command line: --help and --version on stdout with exit 0; usage errors
# exit 2 with "rbflame: ..." and "Try 'rbflame --help'" on stderr, touch no
# output file and start nothing.
[ -n "${BASH_VERSION:-}" ] || exec bash "$0" "$@"
# shellcheck source=tests/e2e/lib.sh
. "$(dirname "$0")/lib.sh"

run_rbflame help 10 --help
expect_rc 0 "rbflame --help"
[ -s "$T/help.out" ] || fail "rbflame --help: nothing on stdout"
[ ! -s "$T/help.err" ] || fail "rbflame --help: output on stderr"
for opt in --pid --duration --rate --output --format --threads --quiet \
	--help --version collapsed; do
	grep -q -e "$opt" "$T/help.out" || fail "rbflame --help does not mention $opt"
done
say "--help: exit 0, $(wc -l <"$T/help.out") lines on stdout, all options named"
run_rbflame h 10 -h
expect_rc 0 "rbflame -h"
cmp -s "$T/help.out" "$T/h.out" || fail "rbflame -h differs from --help"

for v in -V --version; do
	run_rbflame version 10 "$v"
	expect_rc 0 "rbflame $v"
	grep -Eq 'rbflame.*[0-9]+\.[0-9]+' "$T/version.out" ||
		fail "rbflame $v: no 'rbflame X.Y' on stdout"
	[ ! -s "$T/version.err" ] || fail "rbflame $v: output on stderr"
done
say "--version: $(head -n 1 "$T/version.out")"

# usage_error DESCRIPTION ARGS...: exit 2, the two lines, no output file.
n=0
usage_error() {
	local what=$1
	shift
	n=$((n + 1))
	rm -f "$T/u.folded"
	run_rbflame "usage$n" 10 -o "$T/u.folded" "$@"
	expect_rc 2 "rbflame $* ($what)"
	assert_usage_error "$T/usage$n.err" "rbflame $* ($what)"
	[ ! -s "$T/usage$n.out" ] || fail "rbflame $*: output on stdout"
	[ ! -e "$T/u.folded" ] || fail "rbflame $*: created the output file"
	say "usage error, exit 2: rbflame${*:+ $*}: $(head -n 1 "$T/usage$n.err")"
}

# Never a live process: were an option wrongly accepted, nothing is traced.
dead=$(dead_pid)
true_bin=$(command -v true)
usage_error "no target"
usage_error "unknown long option" --no-such-option -p "$dead"
usage_error "unknown short option" -Z -p "$dead"
usage_error "-p without its argument" -p
usage_error "pid not a number" -p abc
usage_error "pid with trailing junk" -p 12abc
usage_error "rate 0" -r 0 -p "$dead"
usage_error "negative rate" -r -5 -p "$dead"
usage_error "rate not a number" -r abc -p "$dead"
usage_error "duration not a number" -s abc -p "$dead"
usage_error "negative duration" -s -1 -p "$dead"
usage_error "unknown format" -f no-such-format -p "$dead"
usage_error "both -p and a command" -p "$dead" -- "$true_bin"
usage_error "-- without a command" --
