#!/bin/bash
# SPDX-License-Identifier: MIT
# Copyright (c) 2026 The rbflame authors
#
# The adversarial target (issue 20): tests/matrix/fixtures/adversary.rb
# corrupts, through Fiddle, the VM structures it never uses again (the
# control frames of 16 parked threads, an iseq, a class name: cycles,
# huge lengths, wild pointers, strings without terminator), and rbflame
# samples it 30 s at 1000 Hz: it must not crash or hang, stay under 100
# MiB of RSS, count its failed reads, write its profile and detach
# cleanly; the target must go on running and receive its SIGUSR1s.
#
# The check is the version matrix's matrix-adversary (tests/matrix/run.sh
# says it in full), here on the host's Ruby alone; ADVERSARY_VERSIONS
# ("2.7 3.1 3.3 3.4 selfbuilt") runs it on others, whose chroots
# check-matrix builds.
[ -n "${BASH_VERSION:-}" ] || exec bash "$0" "$@"
dir=$(cd "$(dirname "$0")" && pwd)
MATRIX_VERSIONS=${ADVERSARY_VERSIONS:-3.1} MATRIX_CHECKS=matrix-adversary \
	exec bash "$dir/../matrix/run.sh"
