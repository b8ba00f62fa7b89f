# shellcheck shell=bash
# SPDX-License-Identifier: MIT
# Copyright (c) 2026 The rbflame authors
#
# Helpers for the security tests (tests/security/*.sh), sourced after
# ../e2e/lib.sh: a Ruby target running as nobody, and a scratch area it
# can reach ($T is root's, mode 700).

: "${top_srcdir:?source ../e2e/lib.sh first}"
RUBY=${RUBY:-ruby}

require_root
require_cmd setpriv
command -v "$RUBY" >/dev/null 2>&1 ||
	skip_or_fail "Ruby interpreter not found: $RUBY (scripts/deps installs it)"

# The target's user: nobody, with no group but its own.
AS_NOBODY=(setpriv --reuid=nobody --regid=nogroup --clear-groups --)

# $T/pub: where the target's files live; the path to it must be
# searchable by nobody.
chmod 711 "$T"
PUB=$T/pub
mkdir "$PUB"
chmod 755 "$PUB"

# start_nobody_ruby TAG ARGS...: "$RUBY ARGS..." as nobody in the
# background, output in $T/TAG.log; sets TPID. The script says "ready"
# when it is.
start_nobody_ruby() {
	local tag=$1
	shift
	"${AS_NOBODY[@]}" "$RUBY" "$@" >"$T/$tag.log" 2>&1 </dev/null &
	TPID=$!
	track "$TPID"
	wait_ready "$T/$tag.log" 20 "$TPID"
}
