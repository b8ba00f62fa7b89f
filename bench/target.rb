# SPDX-License-Identifier: MIT
# Copyright (c) 2026 The rbflame authors
#
# Stop-time benchmark target: THREADS threads, each with a Ruby stack
# exactly DEPTH frames deep, spinning in Ruby (no method call in the hot
# loop, so one of them always holds the GVL and its stack stays put).
#
#   ruby target.rb DEPTH THREADS
#
# With THREADS = 1 the main thread spins (<main>, then DEPTH - 1 frames of
# Target#dive); otherwise the main thread sleeps in Thread#join and each
# worker spins under 'block in Target#start' and DEPTH - 1 frames of
# Target#dive. Prints "ready" once every spinning thread is at its depth,
# then runs until killed.
class Target
  # queue: where each thread reports that it is deep (nil: print
  # "ready" instead).
  def initialize(queue)
    @queue = queue
  end

  # n frames of dive, the last one spinning.
  def dive(n)
    return dive(n - 1) if n > 1

    @queue ? @queue << :deep : puts("ready")
    i = 0
    i += 1 while true
  end

  def start(threads, depth)
    Array.new(threads) { Thread.new { dive(depth - 1) } }
  end
end

depth = Integer(ARGV.fetch(0))
threads = Integer(ARGV.fetch(1))
abort "usage: ruby target.rb DEPTH THREADS (DEPTH >= 2)" if depth < 2 || threads < 1
$stdout.sync = true
if threads == 1
  Target.new(nil).dive(depth - 1)
else
  queue = Thread::Queue.new
  workers = Target.new(queue).start(threads, depth)
  threads.times { queue.pop }
  puts "ready"
  workers.each(&:join)
end
