#!/bin/bash
# SPDX-License-Identifier: MIT
# Copyright (c) 2026 The rbflame authors
#
# The Debian package as a user gets it (issue 25), end to end:
#
#   build    a copy of the source tree (the files git knows, or the whole
#            tree of an unpacked tarball; the tree itself is never written)
#            goes through 'dpkg-buildpackage -us -uc -b' in a clean
#            environment: the .deb holds the binary, the man page, README,
#            NEWS and the copyright, depends on the libraries it links
#            (shlibs), and the build ran the unit tests and nothing else
#            (the ptrace suites need root and a real system)
#   lintian  the source package and the .deb are lintian clean: no tag at
#            all, pedantic and info included, but those debian/*
#            lintian-overrides explain
#   install  a fresh bookworm chroot: a new copy of the project's cached
#            debootstrap of bookworm with Debian's ruby3.1
#            (scripts/ruby-chroot bookworm; the cache itself is never
#            changed), where 'apt install ./rbflame_*.deb' fetches the
#            dependencies from the host's own mirror
#   profile  the installed /usr/bin/rbflame, run inside the chroot,
#            profiles a Ruby loop there by -p PID and by launching it; the
#            script's method, at its path inside the chroot, holds most
#            samples
#
# 41 to 83 s with the chroot cached (2 CPUs, idle to busy), 50 s more to
# build it once a week.
# Needs root (chroot, mount), the network to the host's Debian mirror,
# and dpkg-dev, debhelper, lintian and debootstrap (scripts/deps).
[ -n "${BASH_VERSION:-}" ] || exec bash "$0" "$@"
# shellcheck source=tests/e2e/lib.sh
. "$(dirname "$0")/../e2e/lib.sh"

require_root
require_cmd dpkg-buildpackage dpkg-source dh dh_autoreconf lintian debootstrap \
	chroot mount flock

step_t0=
step() {
	step_t0=$(now)
	say "$*"
}
step_done() {
	say "  $* ($(elapsed "$step_t0") s)"
}

# ---- build ------------------------------------------------------------------

step "copying the source tree"
src=$T/pkg/rbflame
mkdir -p "$src"
if git -C "$top_srcdir" rev-parse --is-inside-work-tree >/dev/null 2>&1; then
	# Tracked and new files as they are in the work tree (what a commit
	# of it would hold), not the build's or an earlier package's output.
	(cd "$top_srcdir" &&
		git ls-files -z --cached --others --exclude-standard |
		perl -0 -ne 'chomp; print "$_\0" if -e || -l' |
			tar --null -T - -cf -) | tar -C "$src" -xf - ||
		fail "cannot copy the files of $top_srcdir"
else
	# An unpacked dist tarball: the whole tree, but a build directory
	# below it (one configured in the tree is debian/rules clean's).
	skip=()
	rel=$(realpath --relative-to="$top_srcdir" "$top_builddir")
	case $rel in
	. | ../*) ;;
	*) skip=(--exclude="./$rel") ;;
	esac
	(cd "$top_srcdir" && tar "${skip[@]}" -cf - .) | tar -C "$src" -xf - ||
		fail "cannot copy $top_srcdir"
fi
[ -x "$src/debian/rules" ] || fail "no executable debian/rules in the copy"
step_done "$(find "$src" -type f | wc -l) files"

# deb_env CMD...: CMD in the environment of a build daemon, not make's
# (MAKEFLAGS with a jobserver of check-long's make, top_srcdir, CFLAGS).
deb_env() {
	env -i PATH=/usr/sbin:/usr/bin:/sbin:/bin HOME="$T" LC_ALL=C.UTF-8 \
		DEB_BUILD_OPTIONS="parallel=$(nproc)" "$@"
}

step "dpkg-source -b (the source package, for lintian)"
(cd "$T/pkg" && deb_env dpkg-source -b rbflame) >"$T/source.log" 2>&1 || {
	tail -n 20 "$T/source.log" >&2
	fail "dpkg-source -b failed"
}
dsc=$(echo "$T"/pkg/rbflame_*.dsc)
[ -f "$dsc" ] || fail "dpkg-source -b made no .dsc"
step_done "${dsc##*/}"

step "dpkg-buildpackage -us -uc -b"
(cd "$src" && deb_env dpkg-buildpackage -us -uc -b) >"$T/build.log" 2>&1 || {
	tail -n 40 "$T/build.log" >&2
	fail "dpkg-buildpackage failed (log above, last 40 lines)"
}
deb=$(echo "$T"/pkg/rbflame_*_amd64.deb)
changes=$(echo "$T"/pkg/rbflame_*_amd64.changes)
{ [ -f "$deb" ] && [ -f "$changes" ]; } ||
	fail "dpkg-buildpackage made no rbflame_*_amd64.deb and .changes"
step_done "${deb##*/}, $(stat -c %s "$deb") bytes"

# The build's test step: the unit tests, all passing, and nothing else.
ran=$(grep -cE '^(PASS|FAIL|SKIP|ERROR|XFAIL|XPASS): ' "$T/build.log" || true)
unit=$(grep -cE '^PASS: tests/unit/check_' "$T/build.log" || true)
[ "$ran" -gt 0 ] || fail "the package build ran no test"
[ "$ran" = "$unit" ] || {
	grep -E '^(PASS|FAIL|SKIP|ERROR|XFAIL|XPASS): ' "$T/build.log" |
		grep -v '^PASS: tests/unit/' >&2
	fail "the package build ran $ran tests, of which $unit passing unit tests"
}
say "the package build ran the $unit unit tests, all passing, and no other"

# What the package holds and needs.
dpkg-deb -c "$deb" | awk '{ print $6 }' | sed 's,^\./,/,' >"$T/contents.out"
for f in /usr/bin/rbflame /usr/share/man/man1/rbflame.1.gz \
	/usr/share/doc/rbflame/copyright \
	/usr/share/doc/rbflame/examples/demo.rb; do
	grep -qx "$f" "$T/contents.out" || fail "${deb##*/} lacks $f"
done
for f in README NEWS; do
	grep -qxE "/usr/share/doc/rbflame/$f(\.gz)?" "$T/contents.out" ||
		fail "${deb##*/} lacks /usr/share/doc/rbflame/$f"
done
depends=$(dpkg-deb -f "$deb" Depends)
for lib in libc6 libunwind8 libdw1 libelf1 libprotobuf-c1 zlib1g; do
	case ", $depends," in
	*", $lib "* | *", $lib,"*) ;;
	*) fail "${deb##*/} does not depend on $lib: Depends: $depends" ;;
	esac
done
say "${deb##*/}: binary, man page, README, NEWS, copyright, examples;" \
	"Depends: $depends"

# ---- lintian -------------------------------------------------------------------

step "lintian"
# Every tag but the overridden ones fails, pedantic and info included.
# (Lintian warns that it runs as root: the test needs root for chroot.)
lintian -I --pedantic --fail-on error,warning,info,pedantic \
	"$dsc" "$changes" >"$T/lintian.out" 2>"$T/lintian.err" || {
	cat "$T/lintian.out" "$T/lintian.err" >&2
	fail "lintian found the tags above"
}
[ ! -s "$T/lintian.out" ] || {
	cat "$T/lintian.out" >&2
	fail "lintian found the tags above"
}
step_done "no tag on ${dsc##*/} and ${changes##*/}"

# ---- a fresh bookworm chroot ----------------------------------------------------

step "scripts/ruby-chroot bookworm (the cached base)"
"$top_srcdir/scripts/ruby-chroot" bookworm >"$T/chroot.out" 2>"$T/chroot.err" || {
	cat "$T/chroot.err" >&2
	fail "scripts/ruby-chroot bookworm failed"
}
{
	read -r base
	read -r ruby
} <"$T/chroot.out"
{ [ -d "$base" ] && [ -n "$ruby" ]; } || fail "scripts/ruby-chroot printed no chroot"
step_done "$base, $ruby"

root=$T/root
# Whatever happens: the chroot's processes killed, its /proc unmounted,
# then the copy removed, never through a mount still there.
teardown() {
	local p
	for p in ${CHROOT_PIDS:-}; do
		kill -KILL "$p" 2>/dev/null || true
		wait "$p" 2>/dev/null || true
	done
	if mountpoint -q "$root/proc" 2>/dev/null; then
		umount "$root/proc" 2>/dev/null || umount -l "$root/proc" || true
	fi
	if mountpoint -q "$root/proc" 2>/dev/null; then
		KEEP_T=1
		say "$root/proc still mounted: $T kept, unmount it and remove it"
	else
		rm -rf --one-file-system "$root"
	fi
}
on_exit teardown
CHROOT_PIDS=

step "a fresh copy of it"
# Under scripts/ruby-chroot's lock: a run rebuilding the week-old chroot
# removes it first.
flock "${base%/*}/.${base##*/}.lock" cp -a "$base" "$root" ||
	fail "cannot copy $base"
[ ! -e "$root/usr/bin/rbflame" ] || fail "the copy of $base holds rbflame"
cp /etc/resolv.conf "$root/etc/resolv.conf" 2>/dev/null || true
step_done "$(du -sm "$root" | cut -f1) MB"
mount -t proc proc "$root/proc" || fail "cannot mount /proc in $root"

# in_root CMD...: CMD inside the chroot, in a plain environment.
in_root() {
	chroot "$root" /usr/bin/env -i PATH=/usr/sbin:/usr/bin:/sbin:/bin \
		LC_ALL=C DEBIAN_FRONTEND=noninteractive HOME=/root "$@"
}

step "apt install ./${deb##*/} in the chroot"
cp "$deb" "$root/tmp/" || fail "cannot copy ${deb##*/} into the chroot"
in_root apt-get -q update >"$T/apt.log" 2>&1 || {
	tail -n 20 "$T/apt.log" >&2
	fail "apt-get update in the chroot failed"
}
# The README's line, as a user types it (apt's "no stable CLI" warning
# aside).
in_root sh -c 'cd /tmp && apt install -y ./rbflame_*.deb' >>"$T/apt.log" 2>&1 || {
	tail -n 20 "$T/apt.log" >&2
	fail "apt install ./${deb##*/} in the chroot failed"
}
# shellcheck disable=SC2016 # dpkg-query's ${Version}
version=$(in_root dpkg-query -W -f '${Version} ${Status}' rbflame) ||
	fail "dpkg does not know rbflame after apt install"
case $version in
*" install ok installed") ;;
*) fail "rbflame in the chroot: $version" ;;
esac
pulled=$(sed -n 's/^Setting up \([^: ]*\).*/\1/p' "$T/apt.log" | paste -sd ' ')
step_done "rbflame ${version%% *} installed; set up: $pulled"

in_root /usr/bin/rbflame --version >"$T/version.out" 2>&1 || {
	cat "$T/version.out" >&2
	fail "the installed rbflame does not run"
}
# One version, two homes: configure.ac's AC_INIT (rbflame --version)
# and debian/changelog (the package's).
read -r _ binver _ <"$T/version.out"
[ "$binver" = "${version%% *}" ] || fail "rbflame --version says $binver," \
	"the package is ${version%% *}: debian/changelog and AC_INIT differ"
say "in the chroot: $(head -n 1 "$T/version.out"), as the package's version"

# ---- profile a Ruby in the chroot ----------------------------------------------

# The method to find: a name only this script has.
cat >"$root/tmp/deb-spin.rb" <<'EOF'
# A Ruby loop for tests/long/deb.sh: spins in deb_spin until ARGV[0]
# seconds have passed (for ever without one), saying "ready" once it has.
def deb_spin
  x = 0
  x += 1 while x < 100_000
  x
end

$stdout.sync = true
stop = ARGV[0] && Process.clock_gettime(Process::CLOCK_MONOTONIC) + ARGV[0].to_f
deb_spin
puts "ready"
deb_spin until stop && Process.clock_gettime(Process::CLOCK_MONOTONIC) >= stop
EOF
RE='(^|;)Object#deb_spin \(/tmp/deb-spin\.rb:[0-9]+\)(;|$)'

# The installed binary, run in the chroot by run_rbflame.
RUN_AS=(chroot "$root")
RBFLAME=/usr/bin/rbflame

# check_profile TAG WHAT: the chroot's /tmp/TAG.folded is collapsed
# output and deb_spin holds at least half its samples.
check_profile() {
	local m t
	cp "$root/tmp/$1.folded" "$T/$1.folded" 2>/dev/null ||
		fail "$2: rbflame wrote no /tmp/$1.folded in the chroot"
	assert_collapsed "$T/$1.folded" "$2"
	read -r m t <<<"$(share "$T/$1.folded" "$RE")"
	{ [ "$m" -gt 0 ] && [ $((m * 2)) -ge "$t" ]; } || {
		top_stacks "$T/$1.folded" >&2
		fail "$2: $m of $t samples in Object#deb_spin (/tmp/deb-spin.rb), want half"
	}
	say "$2: $m of $t samples in Object#deb_spin (/tmp/deb-spin.rb:LINE)"
}

step "rbflame -p PID -s 2, in the chroot"
chroot "$root" "$ruby" /tmp/deb-spin.rb >"$T/spin.log" 2>&1 </dev/null &
spin=$!
CHROOT_PIDS="$CHROOT_PIDS $spin"
track "$spin"
wait_spin_ready() {
	local n=1500
	until grep -qx ready "$T/spin.log" 2>/dev/null; do
		alive "$spin" || fail "the Ruby loop died: $(cat "$T/spin.log")"
		n=$((n - 1))
		[ "$n" -gt 0 ] || fail "the Ruby loop not ready after 30 s"
		sleep 0.02
	done
}
wait_spin_ready
run_rbflame attach 60 -p "$spin" -s 2 -o /tmp/attach.folded
expect_rc 0 "rbflame -p $spin -s 2 in the chroot"
alive "$spin" || fail "the Ruby loop died while profiled"
check_profile attach "attach (-p $spin)"
kill_tracee "$spin"

step "rbflame -- $ruby deb-spin.rb 1.5, in the chroot"
run_rbflame launch 60 -o /tmp/launch.folded -- "$ruby" /tmp/deb-spin.rb 1.5
expect_rc 0 "rbflame -- $ruby /tmp/deb-spin.rb 1.5 in the chroot"
check_profile launch "launch"

say "built, lintian clean, installed with apt into a fresh bookworm," \
	"and profiling Ruby there"
