#!/bin/bash
# SPDX-License-Identifier: MIT
# Copyright (c) 2026 The rbflame authors
#
# doc/security.md's claim: an ordinary user given only CAP_SYS_PTRACE
# (setpriv --inh-caps=+sys_ptrace --ambient-caps=+sys_ptrace, as a
# systemd unit's AmbientCapabilities= would) profiles another user's
# Ruby process as root does: Ruby frames, native symbols from the
# target's libraries, annotate of the target's own sources. Without the
# capability the attach is refused. The files rbflame reads are then
# bounded by both users' rights: a 0600 file of rbflame's user that the
# target names is not annotated (the target could not read it), though
# the kernel would let rbflame's user read it. The capability reaches
# root's processes too: what doc/security.md warns about.
[ -n "${BASH_VERSION:-}" ] || exec bash "$0" "$@"
. "$(dirname "$0")/../e2e/lib.sh"
. "$(dirname "$0")/lib-security.sh"

require_cmd useradd

user=rbflame-test
if ! id -u "$user" >/dev/null 2>&1; then
	useradd --system --no-create-home --home-dir /nonexistent \
		--shell /usr/sbin/nologin "$user" || fail "useradd $user failed"
	say "created user $user"
fi
as_user=(setpriv --reuid="$user" --regid="$user" --init-groups --)
with_cap=(setpriv --reuid="$user" --regid="$user" --init-groups
	--inh-caps=+sys_ptrace --ambient-caps=+sys_ptrace --)

# rbflame where the user can run it, writing where the user may.
U=$T/u
mkdir "$U"
cp "$RBFLAME" "$U/rbflame"
chown "$user:" "$U"
chmod 755 "$U"
RBFLAME=$U/rbflame
"${with_cap[@]}" sh -c 'grep "^CapEff:" /proc/self/status' >"$T/caps.txt"
[ "$(cut -f2 "$T/caps.txt")" = 0000000000080000 ] ||
	fail "setpriv did not give CAP_SYS_PTRACE alone: $(cat "$T/caps.txt")"

# The target, as nobody: its own file, and one of rbflame's user that
# only that user can read.
for i in 1 2 3 4; do echo "MINE-LINE-$i"; done >"$PUB/mine.rb"
chmod 644 "$PUB/mine.rb"
for i in 1 2 3 4; do echo "PRIVATE-LINE-$i"; done >"$U/private.rb"
chown "$user:" "$U/private.rb"
chmod 600 "$U/private.rb"
cat >"$PUB/target.rb" <<EOF
code = "def spin\\n  i = 0\\n  i += 1 while i >= 0\\nend\\n"
eval(code.sub("spin", "spin_mine"), nil, "$PUB/mine.rb", 1)
eval(code.sub("spin", "spin_private"), nil, "$U/private.rb", 1)
puts "ready"; \$stdout.flush
[Thread.new { spin_mine }, Thread.new { spin_private }].each(&:join)
EOF
start_nobody_ruby target "$PUB/target.rb"

RUN_AS=("${as_user[@]}")
run_rbflame nocap 20 -p "$TPID" -s 1 -o "$U/nocap.txt"
expect_rc 1 "rbflame -p PID as $user without CAP_SYS_PTRACE"
assert_error_line "$T/nocap.err" "without CAP_SYS_PTRACE"
say "without the capability: $(cat "$T/nocap.err")"

RUN_AS=("${with_cap[@]}")
run_rbflame cap 60 -p "$TPID" -s 2 -r 199 --native -o "$U/cap.folded" \
	-f annotate --match '^Object#spin_' -o "$U/cap.txt"
expect_rc 0 "rbflame -p PID as $user with CAP_SYS_PTRACE"
assert_collapsed "$U/cap.folded" "CAP_SYS_PTRACE"
assert_share "$U/cap.folded" 'Object#spin_mine \(' 20 "CAP_SYS_PTRACE: Ruby frames"
assert_share "$U/cap.folded" "$LIBC_FRAME" 50 "CAP_SYS_PTRACE: libc's symbols"
cat "$U/cap.txt"
grep -qE '\|     3  \| MINE-LINE-3$' "$U/cap.txt" ||
	fail "CAP_SYS_PTRACE: the target's own source not annotated"
grep -q PRIVATE-LINE "$U/cap.txt" &&
	fail "CAP_SYS_PTRACE: annotate printed a file only $user can read"
say "CAP_SYS_PTRACE alone: Ruby and native frames, the target's source; not $user's own 0600 file"

# root's process, which the capability reaches as well.
RUN_AS=()
start_tracee stack-fcall -r "$T/root.ready"
wait_ready "$T/root.ready" 10 "$TPID"
RUN_AS=("${with_cap[@]}")
run_rbflame root 30 -p "$TPID" -s 1 -o "$U/root.folded"
expect_rc 0 "rbflame -p ROOT-PID as $user with CAP_SYS_PTRACE"
assert_share "$U/root.folded" "$CHAIN_RE" 90 "CAP_SYS_PTRACE on root's process"
