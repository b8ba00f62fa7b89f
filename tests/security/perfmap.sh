#!/bin/bash
# SPDX-License-Identifier: MIT
# Copyright (c) 2026 The rbflame authors
#
# --native names JIT code from the perf map a Ruby process's JIT writes,
# /tmp/perf-PID.map, a name the target chooses the contents of (and,
# being its /tmp, can make a symlink). rbflame runs as root: it must read
# the map only as the target could.
#
# A Ruby process running 'ruby --yjit' as nobody (the host's Ruby, whose
# YJIT compiles the hot loop into an anonymous r-x mapping) with
#   1. /tmp/perf-PID.map a symlink, planted by nobody, to a root-only
#      0600 map naming every JIT mapping "ROOTONLY": no frame is named
#      from it (one [JIT] frame stays);
#   2. the map a file of nobody's own, naming them "[JIT] Mine#spin":
#      the frames are '[yjit] Mine#spin'.
[ -n "${BASH_VERSION:-}" ] || exec bash "$0" "$@"
. "$(dirname "$0")/../e2e/lib.sh"
. "$(dirname "$0")/lib-security.sh"

"$RUBY" --yjit -e 'exit(RubyVM::YJIT.enabled? ? 0 : 1)' 2>/dev/null ||
	skip_or_fail "$RUBY --yjit does not enable YJIT"

cat >"$PUB/target.rb" <<'EOF'
def spin(n)
  i = 0
  i += 1 while i < n
  i
end
100.times { spin(10) }
puts "ready"; $stdout.flush
loop { spin(100_000) }
EOF
start_nobody_ruby target --yjit "$PUB/target.rb"
MAP=/tmp/perf-$TPID.map
rm -f "$MAP"
drop_map() { rm -f "$MAP"; }
on_exit drop_map

# map_of NAME: a perf map naming every anonymous r-x mapping NAME.
map_of() {
	perl -ne 'BEGIN { $name = shift }
		printf "%s %x %s\n", $1, hex($2) - hex($1), $name
			if /^([0-9a-f]+)-([0-9a-f]+) r-xp \S+ \S+ \S+\s*$/' \
		"$1" "/proc/$TPID/maps"
}
map_of "[JIT] ROOTONLY#secret" >"$T/secret.map"
[ -s "$T/secret.map" ] || fail "no anonymous r-x mapping in the target (YJIT's code)"
chmod 600 "$T/secret.map"
"${AS_NOBODY[@]}" test -r "$T/secret.map" &&
	fail "nobody can read $T/secret.map: the test is wrong"

# ---- 1. a symlink to a root-only map -----------------------------------------
"${AS_NOBODY[@]}" ln -s "$T/secret.map" "$MAP" ||
	fail "nobody cannot plant $MAP"
run_rbflame link 60 --native -p "$TPID" -s 2 -r 199 -o "$T/link.folded"
expect_rc 0 "rbflame --native -p PID (map a link to a root-only file)"
if grep -q ROOTONLY "$T/link.folded" "$T/link.err"; then
	fail "named JIT code from a map the target cannot read: $(grep -m1 ROOTONLY "$T/link.folded")"
fi
grep -q ';Object#spin ([^;]*);\[JIT\] [0-9]*$' "$T/link.folded" ||
	fail "no '...;Object#spin;[JIT]' stack: $(head -c 400 "$T/link.folded")"
say "a perf map linked to a root-only file: not read, JIT code one [JIT] frame"

# ---- 2. the target's own map ------------------------------------------------
rm -f "$MAP"
map_of "[JIT] Mine#spin" >"$PUB/mine.map"
chmod 644 "$PUB/mine.map"
"${AS_NOBODY[@]}" cp "$PUB/mine.map" "$MAP" || fail "nobody cannot write $MAP"
run_rbflame own 60 --native -p "$TPID" -s 2 -r 199 -o "$T/own.folded"
expect_rc 0 "rbflame --native -p PID (the target's own map)"
n=$(awk '/;\[yjit\] Mine#spin [0-9]+$/ { n += $NF } END { print n + 0 }' \
	"$T/own.folded")
[ "$n" -gt 0 ] ||
	fail "the target's own map named nothing: $(head -c 400 "$T/own.folded")"
kill_tracee "$TPID"
say "the target's own perf map: $n samples end in [yjit] Mine#spin"
