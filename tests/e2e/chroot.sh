#!/bin/bash
# SPDX-License-Identifier: MIT
# Copyright (c) 2026 The rbflame authors
#
# Targets whose files are not where the host sees them. First a plain
# chroot: the dynamically linked chain tracee and its libraries copied into
# a directory (libraries under /chrootlib, found through LD_LIBRARY_PATH),
# run with chroot(1), profiled from the host with -p. Then a container: the
# same tree on a tmpfs mounted in a private mount namespace, invisible from
# the host except through /proc/PID/root. Both: >= 95% main;f0;f1;f2;f3.
[ -n "${BASH_VERSION:-}" ] || exec bash "$0" "$@"
# shellcheck source=tests/e2e/lib.sh
. "$(dirname "$0")/lib.sh"

require_root
require_cmd chroot ldd unshare
unshare --mount true 2>/dev/null ||
	skip_or_fail "cannot create a mount namespace (unshare --mount)"

# A name the host does not have, so only the target's root can resolve it.
exe=/rbflame-e2e-chroot-tracee-$$
[ ! -e "$exe" ] || fail "$exe exists on the host"

R=$T/root
mkdir -p "$R/chrootlib"
cp "$TRACEES/stack-fcall" "$R$exe"
ldd "$TRACEES/stack-fcall" >"$T/ldd.log"
while read -r a b c _; do
	if [ "$b" = "=>" ] && [ "${c#/}" != "$c" ]; then
		cp -L "$c" "$R/chrootlib/"		# a library
	elif [ "${a#/}" != "$a" ]; then
		mkdir -p "$R$(dirname "$a")"		# the interpreter
		cp -L "$a" "$R$a"
	fi
done <"$T/ldd.log"
[ -e "$R/chrootlib/libc.so.6" ] || fail "libc.so.6 not found by ldd"
say "chroot tree: $(cd "$R" && find . -type f | sort | tr '\n' ' ')"

# Plain chroot.
env LD_LIBRARY_PATH=/chrootlib chroot "$R" "$exe" -r /ready \
	>"$T/chroot-tracee.log" 2>&1 &
TPID=$!
track "$TPID"
wait_ready "$R/ready" 10 "$TPID"
[ "$(readlink "/proc/$TPID/root")" = "$R" ] ||
	fail "tracee root is $(readlink "/proc/$TPID/root"), want $R"
grep -q '/chrootlib/libc.so.6' "/proc/$TPID/maps" ||
	fail "tracee does not use the chroot's libc"
run_rbflame chroot 20 -p "$TPID" -s 2 -r 200 -o "$T/chroot.folded"
expect_rc 0 "rbflame -p CHROOTED-PID"
assert_collapsed "$T/chroot.folded" "chroot"
assert_share "$T/chroot.folded" "$CHAIN_RE" 95 "chroot"
wait_untraced "$TPID" 2
assert_running "$TPID" 3 0.1
kill_tracee "$TPID"

# Container: a tmpfs mounted on M in a new mount namespace, the tree copied
# into it, chroot there. From the host, M is an empty directory.
M=$T/mnt
mkdir "$M"
ready=/ready-rbflame-e2e-$$
# shellcheck disable=SC2016 # expanded by the inner sh
unshare --mount --propagation private sh -c '
	mount -t tmpfs rbflame-e2e "$1" && cp -a "$2/." "$1/" &&
	exec env LD_LIBRARY_PATH=/chrootlib chroot "$1" "$3" -r "$4"
' sh "$M" "$R" "$exe" "$ready" >"$T/container-tracee.log" 2>&1 &
TPID=$!
track "$TPID"
n=500
until [ -s "/proc/$TPID/root$ready" ]; do
	alive "$TPID" || fail "container tracee died"
	n=$((n - 1))
	[ "$n" -gt 0 ] || fail "container tracee not ready after 10 s"
	sleep 0.02
done
[ ! -e "$M$exe" ] || fail "the container's files are visible from the host"
[ "$(readlink "/proc/$TPID/ns/mnt")" != "$(readlink /proc/self/ns/mnt)" ] ||
	fail "tracee is in our mount namespace"
say "container: tracee $TPID in mount namespace $(readlink "/proc/$TPID/ns/mnt"), maps: $(grep -m1 "$exe" "/proc/$TPID/maps" | awk '{print $6}')"
run_rbflame container 20 -p "$TPID" -s 2 -r 200 -o "$T/container.folded"
expect_rc 0 "rbflame -p CONTAINER-PID"
assert_collapsed "$T/container.folded" "container"
assert_share "$T/container.folded" "$CHAIN_RE" 95 "container (mount namespace)"
wait_untraced "$TPID" 2
assert_running "$TPID" 3 0.1
