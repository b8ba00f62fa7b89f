# SPDX-License-Identifier: MIT
# Copyright (c) 2026 The rbflame authors
#
# Puma for bench/server: a master and 2 workers of BENCH_THREADS threads
# each (default 16: with Puma's own, some 40 threads in all), serving
# tests/ruby/fixtures/server/config.ru. The port comes from PORT.
workers 2
n = Integer(ENV.fetch('BENCH_THREADS', '16'))
threads n, n
bind "tcp://127.0.0.1:#{ENV.fetch('PORT')}"
environment 'production'
quiet
