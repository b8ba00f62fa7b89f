# SPDX-License-Identifier: MIT
# Copyright (c) 2026 The rbflame authors
#
# bench/bench.rb's call-heavy target: DEPTH frames of dive, then a loop
# whose every step is two calls (twice, step), so the stack changes
# millions of times a second: what --nonblocking's reads tear most.
#
#   ruby calls.rb DEPTH
class Calls
  def step(i)
    i + 1
  end

  def twice(i)
    step(step(i))
  end

  def dive(n)
    return dive(n - 1) if n > 1

    puts "ready"
    i = 0
    i = twice(i) while true
  end
end

depth = Integer(ARGV.fetch(0))
abort "usage: ruby calls.rb DEPTH (DEPTH >= 2)" if depth < 2
$stdout.sync = true
Calls.new.dive(depth - 1)
