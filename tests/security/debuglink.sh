#!/bin/bash
# SPDX-License-Identifier: MIT
# Copyright (c) 2026 The rbflame authors
#
# A target chooses the libraries it maps, and a library without .symtab
# sends rbflame to its .gnu_debuglink file beside it, read whole for its
# CRC. A Ruby process running as nobody maps its own copy of libruby
# (stripped, as Debian ships it) next to a 2 GiB sparse file of the
# debuglink's name: 'rbflame dump' once read all of it (16.5 s, the
# target stopped meanwhile). A debuglink candidate is now refused past
# 256 MiB, and is read for its CRC only once it is an ELF file with a
# .symtab: dump takes well under a second, and still reads the stack.
[ -n "${BASH_VERSION:-}" ] || exec bash "$0" "$@"
. "$(dirname "$0")/../e2e/lib.sh"
. "$(dirname "$0")/lib-security.sh"

require_cmd readelf truncate

# The libruby a Ruby process maps.
libruby=$("$RUBY" -e 'print File.read("/proc/self/maps")[%r{ (/\S*/libruby[^/\s]*)$}, 1]')
[ -f "$libruby" ] || skip_or_fail "$RUBY maps no shared libruby: a static ruby"
link=$(readelf -p .gnu_debuglink "$libruby" 2>/dev/null |
	sed -n 's/^ *\[ *0\] *//p')
[ -n "$link" ] || skip_or_fail "$libruby has no .gnu_debuglink (not stripped?)"

soname=$(readelf -d "$libruby" | sed -n 's/.*Library soname: \[\(.*\)\]$/\1/p')
[ -n "$soname" ] || fail "$libruby has no soname"
cp "$libruby" "$PUB/$soname"
truncate -s 2G "$PUB/$link"
say "$PUB/$soname links to $link: $(du -h --apparent-size "$PUB/$link" | cut -f1) (sparse)"

"${AS_NOBODY[@]}" env LD_LIBRARY_PATH="$PUB" "$RUBY" -e '
	def spin; loop { sleep 0.01 }; end
	puts "ready"; $stdout.flush; spin' >"$T/target.log" 2>&1 </dev/null &
TPID=$!
track "$TPID"
wait_ready "$T/target.log" 20 "$TPID"
grep -q " $PUB/$soname\$" "/proc/$TPID/maps" ||
	fail "the target does not map its own libruby"

run_rbflame dump 60 dump -p "$TPID"
expect_rc 0 "rbflame dump -p PID"
say "dump: $ELAPSED s"
grep -q '^  Object#spin (-e:2)$' "$T/dump.out" ||
	fail "dump did not read the stack: $(cat "$T/dump.out")"
perl -e 'exit !($ARGV[0] < 3)' "$ELAPSED" ||
	fail "dump took $ELAPSED s: the debuglink file was read"
