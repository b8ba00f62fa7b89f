# SPDX-License-Identifier: MIT
# Copyright (c) 2026 The rbflame authors
#
# The process behind ruby31-threads.snap (capture.sh takes it). Every
# thread blocks at a known line, except "spinner", which holds the GVL in a
# one-line loop; "deep" is 40 frames of recursion. check_snapshot.c expects
# these labels and line numbers: after editing this file, recapture.

module Sleepy
  def self.nap
    sleep
  end
end

class Worker
  def initialize(queue)
    @queue = queue
  end

  def run
    step(3)
  end

  def step(n)
    if n.zero?
      [1].each { |_| @queue.pop }
    else
      step(n - 1)
    end
  end
end

class Spinner
  def spin
    i = 0
    i += 1 while true
  end
end

class Dynamic
  define_method(:defined) { Sleepy.nap }
end

def deep(n)
  n.zero? ? Sleepy.nap : deep(n - 1)
end

ready = Queue.new
threads = []
threads << Thread.new do
  Thread.current.name = "worker"
  ready << 1
  Worker.new(Queue.new).run
end
threads << Thread.new do
  Thread.current.name = "timer"
  3.times do |i|
    ready << 1
    Sleepy.nap
  end
end
threads << Thread.new do
  Thread.current.name = "dynamic"
  ready << 1
  Dynamic.new.defined
end
threads << Thread.new do
  Thread.current.name = "deep"
  ready << 1
  deep(40)
end
4.times { ready.pop }
sleep 0.5
threads << Thread.new do
  Thread.current.name = "spinner"
  Spinner.new.spin
end
sleep 0.5
if ARGV[0]
  # Ruby's own view of each thread, for comparing with rbflame's.
  File.open(ARGV[0], "w") do |f|
    Thread.list.each do |t|
      f.puts "thread #{t.name || "main"}"
      (t.backtrace || []).reverse_each { |l| f.puts "  #{l}" }
    end
  end
end
$stdout.puts "ready"
$stdout.flush
threads.each(&:join)
