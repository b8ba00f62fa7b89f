# SPDX-License-Identifier: MIT
# Copyright (c) 2026 The rbflame authors
#
# The accuracy workload: one thread calls a, b and c in turn, forever or
# for SECONDS, so that they take 60%, 30% and 10% of its CPU time as
# measured by the thread's own CPU clock (CLOCK_THREAD_CPUTIME_ID) around
# every call. The three bodies are the same loop; the split is held by
# feedback: before each round the iteration counts are chosen from each
# method's measured cost per iteration so that the CPU time spent so far
# moves to 60/30/10, whatever the machine's load does to the costs.
#
#   ruby accuracy.rb SECONDS [calls]
#
# ACCURACY_ROUND: the CPU seconds of a round (a, b and c once each),
# 0.03 unless set.
#
# With "calls" each loop step is a call of a small method (Object#step),
# so the stack changes millions of times a second: the workload on which
# --nonblocking's reads tear most.
#
# At the end it prints one line:
#
#   measured: a 60.02 b 29.99 c 9.99 (CPU seconds: a 5.401 b 2.699 c 0.899, rounds 300)
#
# The loop body allocates nothing (no GC) and runs without frames of its
# own, so a sample of the thread inside a, b or c has that frame as its leaf.

if ARGV[1] == "calls"
  def step(i)
    i + 1
  end

  def a(n)
    i = 0
    i = step(i) while i < n
  end

  def b(n)
    i = 0
    i = step(i) while i < n
  end

  def c(n)
    i = 0
    i = step(i) while i < n
  end
else
  def a(n)
    i = 0
    i += 1 while i < n
  end

  def b(n)
    i = 0
    i += 1 while i < n
  end

  def c(n)
    i = 0
    i += 1 while i < n
  end
end

SHARE = { a: 0.6, b: 0.3, c: 0.1 }.freeze
ROUND = Float(ENV.fetch("ACCURACY_ROUND", "0.03")) # CPU seconds per round

def cpu
  Process.clock_gettime(Process::CLOCK_THREAD_CPUTIME_ID)
end

seconds = Float(ARGV.fetch(0) { abort "usage: #{$PROGRAM_NAME} SECONDS [calls]" })
$stdout.sync = true
spent = Hash.new(0.0)
iters = Hash.new(0)
# First estimate of each method's cost per iteration.
SHARE.each_key do |m|
  t = cpu
  send(m, 100_000)
  spent[m] += cpu - t
  iters[m] += 100_000
end
rounds = 0
deadline = Process.clock_gettime(Process::CLOCK_MONOTONIC) + seconds
while Process.clock_gettime(Process::CLOCK_MONOTONIC) < deadline
  total = spent.values.sum + ROUND
  SHARE.each do |m, share|
    want = share * total - spent[m]
    next if want <= 0
    n = (want * iters[m] / spent[m]).to_i
    next if n < 1
    t = cpu
    send(m, n)
    spent[m] += cpu - t
    iters[m] += n
  end
  rounds += 1
end
all = spent.values.sum
printf("measured: a %.2f b %.2f c %.2f (CPU seconds: a %.3f b %.3f c %.3f, rounds %d)\n",
       *SHARE.keys.map { |m| 100 * spent[m] / all },
       *SHARE.keys.map { |m| spent[m] }, rounds)
