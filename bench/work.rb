# SPDX-License-Identifier: MIT
# Copyright (c) 2026 The rbflame authors
#
# Slowdown benchmark workload: one thread doing the same unit of Ruby work
# (string, array and hash operations, 20 frames deep) over and over, and
# reporting its throughput every 100 ms:
#
#   w START END ITERATIONS STATE
#
# START and END in seconds of CLOCK_MONOTONIC, STATE whether the window
# was profiled from start to end ("on"), not at all ("off") or partly
# ("mixed", to be ignored). Before the first window it prints "ready".
#
#   ruby work.rb traced SECONDS
#       STATE is whether a tracer (rbflame) is attached, read from
#       /proc/self/status at both ends of the window; a controller attaches
#       and detaches rbflame meanwhile. Runs SECONDS, then exits.
#
#   ruby work.rb stackprof HZ CYCLES [PERIOD]
#       toggles stackprof itself: PERIOD seconds (1) idle, PERIOD seconds
#       under StackProf.start(mode: :wall, interval: 1e6 / HZ), CYCLES
#       times, then PERIOD idle; the toggles fall between windows. After
#       each profiled period it prints "s SAMPLES SECONDS", what stackprof
#       collected.
WINDOW = 0.1
DEPTH = 20

def now
  Process.clock_gettime(Process::CLOCK_MONOTONIC)
end

# One unit of work, DEPTH frames down.
def unit(n)
  return unit(n - 1) if n > 1

  a = Array.new(40) { |i| "item-#{i}" }
  h = {}
  a.each_with_index { |s, i| h[s] = i * 3 }
  a.map(&:upcase).join(",").length + h.size
end

def traced?
  File.read("/proc/self/status")[/^TracerPid:\s*(\d+)/, 1].to_i != 0
end

# Runs windows until `until_t`, each labelled by state_at (called at both
# ends of a window).
def windows(until_t, state_at)
  t = now
  while t < until_t
    s0 = state_at.call
    finish = t + WINDOW
    n = 0
    while (t1 = now) < finish
      unit(DEPTH)
      n += 1
    end
    s1 = state_at.call
    state = s0 == s1 ? s0 : "mixed"
    puts "w #{format('%.4f', t)} #{format('%.4f', t1)} #{n} #{state}"
    t = t1
  end
end

$stdout.sync = true
mode = ARGV.shift
case mode
when "traced"
  secs = Float(ARGV.fetch(0))
  puts "ready"
  windows(now + secs, -> { traced? ? "on" : "off" })
when "stackprof"
  require "stackprof"
  hz = Integer(ARGV.fetch(0))
  cycles = Integer(ARGV.fetch(1))
  period = Float(ARGV.fetch(2, "1"))
  interval = 1_000_000 / hz
  puts "ready"
  state = "off"
  t = now
  cycles.times do
    windows(t += period, -> { state })
    StackProf.start(mode: :wall, interval: interval, raw: false)
    state = "on"
    t0 = now
    windows(t += period, -> { state })
    StackProf.stop
    state = "off"
    puts "s #{StackProf.results[:samples]} #{format('%.3f', now - t0)}"
  end
  windows(t + period, -> { state })
else
  abort "usage: ruby work.rb traced SECONDS | stackprof HZ CYCLES [PERIOD]"
end
