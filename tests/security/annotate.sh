#!/bin/bash
# SPDX-License-Identifier: MIT
# Copyright (c) 2026 The rbflame authors
#
# -f annotate prints lines of the files a target's frames name, and the
# target chooses those names (eval(code, nil, PATH, 1)). rbflame runs as
# root: it must read only what the target itself could read, inside the
# target's own root, and from a recording only under --source-root.
#
# 1. A Ruby process running as nobody names a root-only 0600 file and a
#    0644 file in a root-only 0700 directory: 'rbflame -p PID -f
#    annotate' once printed their lines (13 of them in the report); now
#    "(source not available)" for both, and the file it may read is
#    annotated.
# 2. 'rbflame report -i REC -f annotate' of that recording once read the
#    host's files as named, no process needed: now nothing without
#    --source-root, and under --source-root DIR the names resolve inside
#    DIR (an absolute symlink in DIR stays in DIR).
# 3. A target in its own root (a chroot in a private mount namespace,
#    as a container) plants an absolute symlink: once followed from
#    rbflame's root to a host file; now resolved in the target's root.
[ -n "${BASH_VERSION:-}" ] || exec bash "$0" "$@"
. "$(dirname "$0")/../e2e/lib.sh"
. "$(dirname "$0")/lib-security.sh"

require_cmd unshare mount chroot

# The code the target runs under the names it chooses: the hot loop is
# on line 3 of each "file", so annotate shows lines 2 to 4.
CODE='def spin\n  i = 0\n  i += 1 while i >= 0\nend\n'

secret_lines() {	# FILE WORD: 20 lines "WORD-LINE-N"
	for i in $(seq 1 20); do echo "$2-LINE-$i"; done >"$1"
}

# no_line_of FILE WORD WHAT: FILE shows no line of a WORD file.
no_line_of() {
	if grep -q "$2-LINE-" "$1"; then
		fail "$3: printed lines of the $2 file: $(grep "$2-LINE-" "$1" | head -3)"
	fi
}

# ---- 1. names of files the target cannot read ---------------------------------
mkdir -m 700 "$T/closed"
secret_lines "$T/secret.rb" ROOTONLY
chmod 600 "$T/secret.rb"
secret_lines "$T/closed/open.rb" CLOSEDDIR
chmod 644 "$T/closed/open.rb"
secret_lines "$PUB/mine.rb" PUBLIC
chmod 644 "$PUB/mine.rb"
"${AS_NOBODY[@]}" test -r "$T/secret.rb" &&
	fail "nobody can read $T/secret.rb: the test is wrong"
"${AS_NOBODY[@]}" test -r "$T/closed/open.rb" &&
	fail "nobody can read $T/closed/open.rb: the test is wrong"

cat >"$PUB/target.rb" <<EOF
code = "$CODE"
eval(code.sub("spin", "spin_secret"), nil, "$T/secret.rb", 1)
eval(code.sub("spin", "spin_closed"), nil, "$T/closed/open.rb", 1)
eval(code.sub("spin", "spin_mine"), nil, "$PUB/mine.rb", 1)
puts "ready"; \$stdout.flush
[Thread.new { spin_secret }, Thread.new { spin_closed }, Thread.new { spin_mine }].each(&:join)
EOF
start_nobody_ruby target "$PUB/target.rb"
run_rbflame live 60 -p "$TPID" -s 2 -r 199 -f annotate --match '^Object#spin_' \
	-o "$T/live.txt" -f raw -o "$T/live.rbflame"
expect_rc 0 "rbflame -p PID -f annotate"
kill_tracee "$TPID"
cat "$T/live.txt"
for f in secret closed mine; do
	grep -q "^Object#spin_$f (" "$T/live.txt" ||
		fail "live: Object#spin_$f not annotated (no samples?)"
done
no_line_of "$T/live.txt" ROOTONLY "live annotate"
no_line_of "$T/live.txt" CLOSEDDIR "live annotate"
grep -qE '^ +[0-9]+ .*\|     3  \| PUBLIC-LINE-3$' "$T/live.txt" ||
	fail "live: the file the target may read is not annotated"
say "live: a 0600 root file and a file in a 0700 directory: not read; the target's own file: annotated"

# ---- 2. a recording ----------------------------------------------------------
"$RBFLAME" report -i "$T/live.rbflame" -f annotate --match '^Object#spin_' \
	>"$T/report.txt" 2>"$T/report.err" || fail "report -f annotate failed"
no_line_of "$T/report.txt" ROOTONLY "report"
no_line_of "$T/report.txt" CLOSEDDIR "report"
no_line_of "$T/report.txt" PUBLIC "report"
[ "$(grep -c '(source not available)' "$T/report.txt")" = 3 ] ||
	fail "report: want 3 functions without source: $(cat "$T/report.txt")"
say "report -i REC -f annotate: no host file read without --source-root"

# Under --source-root, names resolve inside it: the recorded absolute
# path of secret.rb, and an absolute symlink there, stay in DIR.
S=$T/srcroot
mkdir -p "$S$T" "$S$PUB"
secret_lines "$S$T/secret.rb" SRCROOT
ln -s "$T/secret.rb" "$S$PUB/mine.rb"	# absolute: DIR's secret.rb
"$RBFLAME" report -i "$T/live.rbflame" -f annotate --match '^Object#spin_' \
	--source-root "$S" >"$T/srcroot.txt" 2>"$T/srcroot.err" ||
	fail "report --source-root failed: $(cat "$T/srcroot.err")"
cat "$T/srcroot.txt"
no_line_of "$T/srcroot.txt" ROOTONLY "report --source-root"
[ "$(grep -c 'SRCROOT-LINE-3$' "$T/srcroot.txt")" = 2 ] ||
	fail "report --source-root: secret.rb and the link to it not read in DIR"
say "report --source-root DIR: the recorded paths and their symlinks resolve in DIR"

# ---- 3. an absolute symlink in the target's own root -----------------------------
# The target's root: /usr of the host bound in a private mount namespace
# (Debian's merged /usr: /bin, /lib and /lib64 are links into it).
R=$T/root
mkdir -p "$R/usr" "$R/app" "$R$PUB" "$R/tmp"
chmod -R go+rx "$R"
for l in bin lib lib64 sbin; do
	[ -L "/$l" ] && ln -s "$(readlink "/$l")" "$R/$l"
done
secret_lines "$PUB/host.rb" HOST
chmod 644 "$PUB/host.rb"
secret_lines "$R$PUB/host.rb" CONTAINER
chmod 644 "$R$PUB/host.rb"
ln -s "$PUB/host.rb" "$R/app/link.rb"
printf '%s\n' "code = \"$CODE\"" \
	'eval(code, nil, "/app/link.rb", 1)' \
	'puts "ready"; $stdout.flush' 'spin' >"$R/app/main.rb"
unshare -m --propagation private sh -c '
	mount --rbind /usr "$1/usr" &&
	exec chroot --userspec=nobody:nogroup "$1" "$2" /app/main.rb' \
	sh "$R" "$(command -v "$RUBY")" >"$T/chroot.log" 2>&1 </dev/null &
TPID=$!
track "$TPID"
wait_ready "$T/chroot.log" 20 "$TPID"
TPID=$(pgrep -P "$TPID" || echo "$TPID")	# unshare's child, if any
[ "$(readlink "/proc/$TPID/root")" = "$R" ] ||
	fail "the target's root is $(readlink "/proc/$TPID/root"), want $R"
run_rbflame chroot 60 -p "$TPID" -s 2 -r 199 -f annotate --match spin \
	-o "$T/chroot.txt"
expect_rc 0 "rbflame -p PID -f annotate (chroot)"
cat "$T/chroot.txt"
no_line_of "$T/chroot.txt" HOST "chroot annotate"
grep -qE '^ +[0-9]+ .*\|     3  \| CONTAINER-LINE-3$' "$T/chroot.txt" ||
	fail "chroot: /app/link.rb not read inside the target's root"
say "an absolute symlink in the target's root: resolved there, not on the host"
