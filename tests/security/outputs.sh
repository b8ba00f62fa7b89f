#!/bin/bash
# SPDX-License-Identifier: MIT
# Copyright (c) 2026 The rbflame authors
#
# Output files written as root. Before, -o was opened with fopen("w")
# before the attach and through any symlink:
# 1. 'rbflame -p DEAD-PID -o FILE' emptied an existing FILE; now a failed
#    run leaves it as it was.
# 2. A symlink another user plants under the output's name made root
#    truncate and overwrite the file it points to. Tested in a directory
#    owned by nobody (not sticky: fs.protected_symlinks has no say
#    there), and in a sticky world-writable one like /tmp with
#    fs.protected_symlinks set to 0 (as on some hosts; restored after):
#    rbflame now refuses the link, for -o, report's -o and diff's --svg
#    and --collapsed, and the file it points to is untouched.
# 3. A full disk left a partial file; now the old file stays whole and no
#    temporary file is left. A regular output replaces the old file only
#    when complete, with its mode.
# 4. Standard output ("-", /dev/stdout), a FIFO and /dev/null are written
#    as they are.
[ -n "${BASH_VERSION:-}" ] || exec bash "$0" "$@"
. "$(dirname "$0")/../e2e/lib.sh"
. "$(dirname "$0")/lib-security.sh"

require_cmd mount umount sysctl

# A profile to write: 3000 stacks, about 100 kB collapsed.
perl -e 'printf "main;work_%d;leaf_%d %d\n", $_, $_ % 7, 1 + $_ % 5 for 1 .. 3000' \
	>"$PUB/big.folded"
printf 'main;a 3\nmain;b 1\n' >"$PUB/small.folded"
# What report writes for each, to compare with.
"$RBFLAME" report -i "$PUB/big.folded" -o "$T/big.ref" ||
	fail "report -i big.folded failed"
"$RBFLAME" report -i "$PUB/small.folded" -o "$T/small.ref" ||
	fail "report -i small.folded failed"

# ---- 1. a failed run leaves the file as it was ------------------------------
echo "an earlier profile" >"$T/keep.txt"
dead=$(dead_pid)
run_rbflame dead 20 -p "$dead" -s 1 -o "$T/keep.txt"
expect_rc 1 "rbflame -p $dead (no such process)"
[ "$(cat "$T/keep.txt")" = "an earlier profile" ] ||
	fail "a failed attach changed the existing output: '$(cat "$T/keep.txt")'"
run_rbflame badin 20 report -i "$T/missing.rbflame" -o "$T/keep.txt"
expect_rc 1 "rbflame report -i MISSING"
[ "$(cat "$T/keep.txt")" = "an earlier profile" ] ||
	fail "a failed report changed the existing output"
[ "$(find "$T" -maxdepth 1 -name '.keep.txt.*' | wc -l)" = 0 ] ||
	fail "a temporary file was left: $(ls -a "$T")"
say "a failed attach and a failed report leave the existing output alone"

# ---- 2. a symlink planted by another user ------------------------------------
echo "root's precious file" >"$T/precious"
chmod 644 "$T/precious"

# check_refused TAG WHAT: the run failed, said why, left precious alone.
check_refused() {
	[ "$RC" != 0 ] || fail "$2: rbflame wrote through the symlink (exit 0)"
	grep -q "symbolic link" "$T/$1.err" ||
		fail "$2: no word of the symlink: $(cat "$T/$1.err")"
	[ "$(cat "$T/precious")" = "root's precious file" ] ||
		fail "$2: the file the link points to was changed: '$(head -c 200 "$T/precious")'"
	say "$2: refused: $(head -n 1 "$T/$1.err")"
}

# A directory nobody owns, not sticky.
D=$PUB/nobodys
mkdir "$D"
chown nobody:nogroup "$D"
chmod 755 "$D"
"${AS_NOBODY[@]}" ln -s "$T/precious" "$D/out.txt"
"${AS_NOBODY[@]}" ln -s "$T/precious" "$D/out.svg"
"${AS_NOBODY[@]}" ln -s "$T/precious" "$D/diff.txt"

start_tracee stack-fcall -r "$T/fcall.ready"
wait_ready "$T/fcall.ready" 10 "$TPID"
run_rbflame live 30 -p "$TPID" -s 0.3 -o "$D/out.txt"
check_refused live "rbflame -p PID -o LINK (directory of nobody)"
wait_untraced "$TPID" 5
run_rbflame report 20 report -i "$PUB/small.folded" -o "$D/out.txt"
check_refused report "rbflame report -o LINK"
run_rbflame dsvg 20 diff "$PUB/small.folded" "$PUB/small.folded" \
	--svg "$D/out.svg"
check_refused dsvg "rbflame diff --svg LINK"
run_rbflame dcol 20 diff "$PUB/small.folded" "$PUB/small.folded" \
	--collapsed "$D/diff.txt"
check_refused dcol "rbflame diff --collapsed LINK"

# A sticky world-writable directory, /tmp's kind, without the kernel's
# protected_symlinks (which would refuse root to follow nobody's link).
ps=$(sysctl -n fs.protected_symlinks)
if [ "$ps" != 0 ]; then
	sysctl -qw fs.protected_symlinks=0 ||
		fail "cannot set fs.protected_symlinks to 0"
	on_exit "sysctl -qw fs.protected_symlinks=$ps"
fi
S=$PUB/sticky
mkdir "$S"
chmod 1777 "$S"
"${AS_NOBODY[@]}" ln -s "$T/precious" "$S/out.txt"
run_rbflame sticky 30 -p "$TPID" -s 0.3 -o "$S/out.txt"
check_refused sticky "rbflame -p PID -o LINK (sticky directory, protected_symlinks 0)"
if [ "$ps" != 0 ]; then
	sysctl -qw fs.protected_symlinks="$ps"
	[ "$(sysctl -n fs.protected_symlinks)" = "$ps" ] ||
		fail "fs.protected_symlinks not restored to $ps"
fi
kill_tracee "$TPID"

# ---- 3. a full disk, and the mode of the file replaced -----------------------------
F=$T/full
mkdir "$F"
mount -t tmpfs -o size=16k rbflame-full "$F" || fail "cannot mount a tmpfs"
on_exit "umount '$F'"
echo "the old profile" >"$F/out.txt"
run_rbflame full 20 report -i "$PUB/big.folded" -o "$F/out.txt"
expect_rc 1 "rbflame report -o FILE on a full disk"
grep -q "No space left on device" "$T/full.err" ||
	fail "no word of the full disk: $(cat "$T/full.err")"
[ "$(cat "$F/out.txt")" = "the old profile" ] ||
	fail "a full disk changed the existing output ($(wc -c <"$F/out.txt") bytes)"
[ "$(ls -A "$F")" = out.txt ] || fail "files left on the full disk: $(ls -A "$F")"
rm "$F/out.txt"
run_rbflame full2 20 report -i "$PUB/big.folded" -o "$F/new.txt"
expect_rc 1 "rbflame report -o NEW-FILE on a full disk"
[ -z "$(ls -A "$F")" ] || fail "a partial file was left: $(ls -A "$F")"
say "a full disk: exit 1, '$(cat "$T/full.err")', the old file whole, nothing partial"

echo old >"$T/mode.txt"
chmod 640 "$T/mode.txt"
chown nobody:nogroup "$T/mode.txt"
run_rbflame mode 20 report -i "$PUB/big.folded" -o "$T/mode.txt"
expect_rc 0 "rbflame report -o EXISTING"
cmp -s "$T/mode.txt" "$T/big.ref" || fail "the output was not replaced"
[ "$(stat -c '%a %U' "$T/mode.txt")" = "640 nobody" ] ||
	fail "the replaced file is $(stat -c '%a %U' "$T/mode.txt"), want 640 nobody"
say "an existing output is replaced with its mode and owner (640 nobody)"

# ---- 4. outputs that are not regular files ------------------------------------
(cd "$T" && "$RBFLAME" report -i "$PUB/small.folded" -o -) >"$T/dash.out" ||
	fail "report -o - failed"
"$RBFLAME" report -i "$PUB/small.folded" -o /dev/stdout >"$T/devout.out" ||
	fail "report -o /dev/stdout failed"
for f in dash devout; do
	cmp -s "$T/$f.out" "$T/small.ref" ||
		fail "-o ${f}: not the profile on standard output"
done
[ ! -e "$T/-" ] || fail "-o - created a file named '-'"
mkfifo "$T/fifo"
cat "$T/fifo" >"$T/fifo.out" &
track $!
"$RBFLAME" report -i "$PUB/small.folded" -o "$T/fifo" || fail "report -o FIFO failed"
wait $! || true
cmp -s "$T/fifo.out" "$T/small.ref" || fail "-o FIFO: not the profile"
[ -p "$T/fifo" ] || fail "-o FIFO replaced the FIFO"
"$RBFLAME" report -i "$PUB/small.folded" -o /dev/null || fail "report -o /dev/null failed"
[ -c /dev/null ] || fail "/dev/null is no longer a device"
say "-o -, -o /dev/stdout, a FIFO and /dev/null: written as they are"
