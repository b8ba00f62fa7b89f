#!/bin/sh
# SPDX-License-Identifier: MIT
# Copyright (c) 2026 The rbflame authors
#
# Recaptures ruby31-threads.snap: runs ruby31-threads.rb from a fixed
# directory (the paths inside the snapshot are those of the capture), waits
# until every thread is at its blocking point, and takes one dump with
# --snapshot. Usage: capture.sh RBFLAME [RUBY]. Needs ptrace rights over
# the child (same user, Yama scope <= 1).
set -eu
rbflame=$1
ruby=${2:-ruby}
here=$(cd "$(dirname "$0")" && pwd)
work=/tmp/rbflame-fixture
rm -rf "$work"
mkdir -p "$work"
cp "$here/ruby31-threads.rb" "$work/"
fifo=$work/ready
mkfifo "$fifo"
"$ruby" "$work/ruby31-threads.rb" "$work/ruby-backtraces.txt" >"$fifo" &
pid=$!
trap 'kill $pid 2>/dev/null || :' EXIT
read -r line <"$fifo"
test "$line" = ready
"$rbflame" dump -p "$pid" --snapshot "$here/ruby31-threads.snap" \
	>"$work/rbflame-dump.txt"
cat "$work/rbflame-dump.txt"
echo "--- Ruby's own backtraces:"
cat "$work/ruby-backtraces.txt"
