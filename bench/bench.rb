# SPDX-License-Identifier: MIT
# Copyright (c) 2026 The rbflame authors
#
# The measurements behind bench/run, which builds the programs and calls
#
#   ruby bench.rb RBFLAME RBFLAME_NOCACHE|- FLOOR
#
# and prints the tables on stdout (progress on stderr). Settings from the
# environment (defaults in brackets):
#
#   BENCH_SECS [3]     seconds of each stop-time measurement, split in
#   BENCH_ROUNDS [3]   rounds that alternate floor, rbflame and uncached
#   BENCH_RATE [200]   sampling rate of the stop-time measurements
#   BENCH_CYCLES [8]   idle/profiled cycles of each slowdown measurement
#   BENCH_PERIOD [1]   seconds of each half cycle
#   BENCH_RT [0]       1: rbflame and floor run SCHED_FIFO (chrt -f 10),
#                      so a loaded machine delays them less
#   BENCH_ONLY [all]   "stop", "nonblocking" or "slowdown": run one part
#                      only
require "open3"
require "rbconfig"

HERE = __dir__
RUBY = RbConfig.ruby
RBFLAME, NOCACHE, FLOOR = ARGV
abort "usage: ruby bench.rb RBFLAME RBFLAME_NOCACHE|- FLOOR" unless FLOOR
SECS = Float(ENV.fetch("BENCH_SECS", "3"))
ROUNDS = Integer(ENV.fetch("BENCH_ROUNDS", "3"))
RATE = Integer(ENV.fetch("BENCH_RATE", "200"))
CYCLES = Integer(ENV.fetch("BENCH_CYCLES", "8"))
PERIOD = Float(ENV.fetch("BENCH_PERIOD", "1"))
RT = ENV.fetch("BENCH_RT", "0") == "1" ? %w[chrt -f 10] : []
ONLY = ENV.fetch("BENCH_ONLY", "all")

def note(msg)
  warn "bench: #{msg}"
end

def median(v)
  return nil if v.empty?

  s = v.sort
  s.size.odd? ? s[s.size / 2] : (s[s.size / 2 - 1] + s[s.size / 2]) / 2.0
end

def quantile(v, q)
  s = v.sort
  s[(q * (s.size - 1)).round]
end

# Starts ruby SCRIPT ARGS with stdout to a pipe; waits for "ready".
# Returns [pid, io].
def start(script, *args)
  io = IO.popen([RUBY, File.join(HERE, script), *args.map(&:to_s)], "r")
  line = io.gets
  raise "#{script} #{args.join(' ')}: no ready line (#{line.inspect})" unless line == "ready\n"

  [io.pid, io]
end

def stop(pid, io)
  Process.kill("KILL", pid)
rescue Errno::ESRCH
  nil
ensure
  io.close
end

# rbflame's summary line: {samples:, ticks:, late:, failed:, p50:, p99:
# (the stop), held50:, held99: (the holds), lat50: (interrupt latency)}
def summary(err)
  line = err.lines.grep(/ samples in .* threads stopped/).last or
    return { error: err.lines.last.to_s.strip }
  {
    samples: line[/: (\d+) samples/, 1].to_i,
    ticks: line[/\((\d+) ticks/, 1].to_i,
    late: line[/(\d+) late ticks/, 1].to_i,
    failed: line[/(\d+) failed reads/, 1].to_i,
    p50: line[/stopped ([\d.]+) us p50/, 1].to_f,
    p99: line[/stopped [\d.]+ us p50, ([\d.]+) us p99/, 1].to_f,
    held50: line[/held ([\d.]+) us p50/, 1].to_f,
    held99: line[/held [\d.]+ us p50, ([\d.]+) us p99/, 1].to_f,
    lat50: line[/interrupt latency ([\d.]+) us p50/, 1].to_f,
    rereads: line[/torn reads \d+ of (\d+)/, 1].to_i,
    torn: line[/torn reads (\d+) of/, 1].to_i,
    kept: line[/(\d+) stacks kept to their settled part/, 1].to_i
  }
end

def rbflame(bin, pid, secs, rate, *opts)
  _out, err, = Open3.capture3(*RT, bin, *opts, "-p", pid.to_s, "-s", secs.to_s,
                              "-r", rate.to_s, "-o", "/dev/null")
  summary(err)
end

def floor(pid, secs, *opts)
  out, err, st = Open3.capture3(*RT, FLOOR, *opts, "-p", pid.to_s,
                                "-n", (secs * RATE).round.to_s, "-r", RATE.to_s)
  return { error: err.strip } unless st.success?

  { p50: out[/cycles, ([\d.]+) us p50/, 1].to_f,
    p99: out[/cycles, [\d.]+ us p50, ([\d.]+) us p99/, 1].to_f,
    held50: out[/held ([\d.]+) us p50/, 1].to_f }
end

# The deepest Ruby stack of pid, from one 'rbflame dump'.
def depth_seen(pid)
  out, = Open3.capture3(RBFLAME, "dump", "-p", pid.to_s)
  out.split(/\n\n/).map { |b| b.lines.count { |l| l.start_with?("  ") } }.max
end

# The median over rounds of each figure (an error if any round failed).
def combine(runs)
  return nil if runs.empty?

  bad = runs.find { |r| r[:error] }
  return bad if bad

  r = {}
  runs.first.each_key { |k| r[k] = median(runs.map { |x| x[k] }) }
  r[:ticks] = runs.sum { |x| x[:ticks] } if runs.first.key?(:ticks)
  r
end

# "P50 / P99" of r's figure (:p50 and :p99 the stop, :held50 and :held99
# the holds), or a word.
def fmt(r, p50 = :p50, p99 = :p99)
  return "n/a" unless r
  return "error" if r[:error]

  format("%.1f / %.1f", r[p50], r[p99])
end

def fmt1(r, key)
  return "n/a" unless r
  return "error" if r[:error]

  format("%.1f", r[key])
end

# ---- stop time -------------------------------------------------------------

def stop_time
  rows = []
  [[20, 1], [200, 1], [20, 50], [200, 50]].each do |depth, threads|
    note "stop time: #{depth} deep, #{threads} thread(s)"
    pid, io = start("target.rb", depth, threads)
    begin
      sleep 0.5
      seen = depth_seen(pid)
      runs = { floor: [], read: [], cached: [], uncached: [] }
      secs = SECS / ROUNDS
      # Interleaved, so that a change in the machine's load weighs on all
      # three alike.
      ROUNDS.times do
        runs[:floor] << floor(pid, secs)
        runs[:read] << floor(pid, secs, "-R")
        runs[:cached] << rbflame(RBFLAME, pid, secs, RATE)
        runs[:uncached] << rbflame(NOCACHE, pid, secs, RATE) unless NOCACHE == "-"
      end
      rows << { depth: depth, threads: threads, seen: seen,
                floor: combine(runs[:floor]), read: combine(runs[:read]),
                cached: combine(runs[:cached]),
                uncached: combine(runs[:uncached]) }
    ensure
      stop(pid, io)
    end
  end
  rows
end

# Goals on the held time (issue #17): the part of a stop rbflame's own
# work makes, which the interrupt's latency (the floor's bulk, that moves
# by milliseconds on a busy host) does not blur. A goal below what the
# floor's bare hold (PTRACE_CONT alone) took cannot be judged.
HELD_GOAL_US = { 20 => 10, 200 => 40 }.freeze

def goal(row, rows)
  c = row[:cached]
  return "-" if !c || c[:error] || row[:floor][:error]

  if row[:threads] == 1
    limit = HELD_GOAL_US.fetch(row[:depth], 40)
    return "inconclusive (floor's bare hold #{format('%.1f', row[:floor][:held50])} us > #{limit} us: busy machine)" if row[:floor][:held50] > limit

    read = row[:read] && !row[:read][:error] && row[:read][:held50]
    below = read && read > limit ? "; floor + read alone #{format('%.1f', read)}" : ""
    "#{c[:held50] <= limit ? 'met' : 'MISSED'} (<= #{limit}#{below})"
  else
    one = rows.find { |r| r[:depth] == row[:depth] && r[:threads] == 1 }
    return "-" unless one && one[:cached] && !one[:cached][:error]

    # Twice a hold the machine set is no goal either.
    busy = [row, one].map { |r| r[:floor][:held50] if r[:floor] && !r[:floor][:error] }
    one_limit = HELD_GOAL_US.fetch(row[:depth], 40)
    return "inconclusive (floor's bare hold > #{one_limit} us: busy machine)" if busy.any? { |h| h.nil? || h > one_limit }

    limit = 2 * one[:cached][:held50]
    "#{c[:held50] <= limit ? 'met' : 'MISSED'} (<= 2 x 1 thread = #{format('%.1f', limit)})"
  end
end

def print_stop_time(rows)
  puts "Stop time per sample, us (p50 / p99), from rbflame's summary: -r #{RATE} for"
  puts "#{SECS} s. stopped: from the GVL holder's interrupt to the resume returning;"
  puts "held: each thread from waitpid reporting its stop to PTRACE_CONT returning"
  puts "(what rbflame's own work adds); latency: PTRACE_INTERRUPT to the stop"
  puts "reported, p50. floor = the bare PTRACE_INTERRUPT -> stop -> PTRACE_CONT"
  puts "cycle on the same target and thread (bench/floor at #{RATE} Hz), and its"
  puts "bare hold (PTRACE_CONT alone), p50. Measured in #{ROUNDS} interleaved rounds;"
  puts "figures are medians over the rounds. floor + read: the floor's hold"
  puts "doing the least a hold that reads the target does (bench/floor -R:"
  puts "orig_rax and one 512-byte process_vm_readv of a line fetched just before"
  puts "the interrupt too, as rbflame does), p50: what no reading hold goes under"
  puts "on this host. Goals, on held p50: 1 thread, 10 us (20 deep) or"
  puts "40 us (200 deep); 50 threads, at most twice 1 thread's."
  puts
  fm = "%-21s %-17s %-10s %-12s %-17s %-15s %-9s %-17s %-6s %s"
  puts format(fm, "target", "floor", "floor held", "floor + read", "stopped", "held",
              "latency", "held, cache off", "ticks", "goal (held p50)")
  rows.each do |r|
    name = "#{r[:depth]} deep, #{r[:threads]} thr" + (r[:seen] == r[:depth] ? "" : " (saw #{r[:seen]})")
    puts format(fm, name, fmt(r[:floor]), fmt1(r[:floor], :held50),
                fmt1(r[:read], :held50), fmt(r[:cached]), fmt(r[:cached], :held50, :held99),
                fmt1(r[:cached], :lat50),
                fmt(r[:uncached], :held50, :held99),
                r[:cached] && r[:cached][:ticks], goal(r, rows))
  end
  errs = rows.flat_map { |r| [r[:floor], r[:read], r[:cached], r[:uncached]] }.compact.select { |x| x[:error] }
  errs.each { |e| puts "  error: #{e[:error]}" }
  puts
end

# ---- slowdown ----------------------------------------------------------------

# Windows [start, end, iterations, state] from work.rb's output.
def parse_windows(text)
  text.lines.grep(/^w /).map do |l|
    _, a, b, n, s = l.split
    [a.to_f, b.to_f, n.to_i, s]
  end
end

# Iterations per second while profiled and idle (medians), and the paired
# slowdown: each profiled period against the idle periods around it.
def slowdown(wins)
  # Group consecutive windows of one state into periods.
  periods = []
  wins.each do |w|
    next if w[3] == "mixed"

    if periods.empty? || periods.last[:state] != w[3]
      periods << { state: w[3], rates: [] }
    end
    periods.last[:rates] << w[2] / (w[1] - w[0])
  end
  # Drop the first window of each period (a transition may end in it).
  periods.each { |p| p[:rates].shift if p[:rates].size > 2 }
  on = periods.select { |p| p[:state] == "on" }.flat_map { |p| p[:rates] }
  off = periods.select { |p| p[:state] == "off" }.flat_map { |p| p[:rates] }
  ratios = []
  periods.each_with_index do |p, i|
    next unless p[:state] == "on"

    around = []
    around << periods[i - 1] if i.positive?
    around << periods[i + 1] if i + 1 < periods.size
    around.select! { |q| q[:state] == "off" && !q[:rates].empty? }
    next if around.empty? || p[:rates].empty?

    ratios << median(p[:rates]) / median(around.flat_map { |q| q[:rates] })
  end
  {
    on: median(on), off: median(off), n_on: on.size, n_off: off.size,
    paired: ratios.empty? ? nil : 1 - median(ratios),
    spread: ratios.size < 2 ? nil : [1 - quantile(ratios, 0.75), 1 - quantile(ratios, 0.25)]
  }
end

def slowdown_rbflame(rate)
  note "slowdown: rbflame at #{rate} Hz, #{CYCLES} cycles"
  total = (2 * CYCLES + 1) * PERIOD + 2 * CYCLES + 5
  pid, io = start("work.rb", "traced", total)
  out = +""
  reader = Thread.new { out << io.read }
  samples = []
  begin
    CYCLES.times do
      sleep PERIOD
      samples << rbflame(RBFLAME, pid, PERIOD, rate)
    end
    sleep PERIOD
  ensure
    begin
      Process.kill("TERM", pid)
    rescue Errno::ESRCH
      nil
    end
    reader.join
    io.close
  end
  got = samples.reject { |s| s[:error] }.sum { |s| s[:samples] }
  slowdown(parse_windows(out)).merge(samples: got, secs: CYCLES * PERIOD)
end

def slowdown_stackprof(rate)
  note "slowdown: stackprof at #{rate} Hz, #{CYCLES} cycles"
  out, err, st = Open3.capture3(RUBY, File.join(HERE, "work.rb"), "stackprof",
                                rate.to_s, CYCLES.to_s, PERIOD.to_s)
  raise "work.rb stackprof: #{err}" unless st.success?

  got = out.lines.grep(/^s /).sum { |l| l.split[1].to_i }
  slowdown(parse_windows(out)).merge(samples: got, secs: CYCLES * PERIOD)
end

def pct(x)
  x ? format("%.2f%%", 100 * x) : "n/a"
end

def print_slowdown(rows)
  puts "Target slowdown: work.rb (one thread, 20 frames deep) reports its"
  puts "iterations every 100 ms while it is profiled #{PERIOD} s and idle #{PERIOD} s in turn,"
  puts "#{CYCLES} times; rbflame attaches -s #{PERIOD} from outside, stackprof (mode: :wall) is"
  puts "started and stopped in-process. Slowdown = 1 - profiled/idle, each profiled"
  puts "period against the idle ones around it (median over periods; p25-p75 in"
  puts "brackets); it/s are medians over all windows."
  puts
  puts format("%-10s %6s %11s %11s %9s %20s %13s  %s", "profiler", "Hz", "idle it/s",
              "prof. it/s", "slowdown", "(p25..p75)", "samples/s", "goal")
  rows.each do |r|
    sp = r[:spread] ? "(#{pct(r[:spread][0])}..#{pct(r[:spread][1])})" : ""
    rate = r[:secs].positive? ? format("%.0f", r[:samples] / r[:secs]) : "-"
    puts format("%-10s %6d %11.0f %11.0f %9s %20s %13s  %s", r[:tool], r[:rate],
                r[:off] || 0, r[:on] || 0, pct(r[:paired]), sp, rate, r[:goal])
  end
  puts
end

def slowdown_goals(rows)
  rows.each do |r|
    next unless r[:tool] == "rbflame"

    sp = rows.find { |x| x[:tool] == "stackprof" && x[:rate] == r[:rate] }
    limit = r[:rate] <= 100 ? 0.005 : 0.03
    width = ->(x) { x[:spread] ? x[:spread][1] - x[:spread][0] : Float::INFINITY }
    r[:goal] =
      if !r[:paired]
        "n/a"
      elsif width.(r) > limit
        "inconclusive (spread #{pct(width.(r))} > goal #{pct(limit)})"
      else
        "#{r[:paired] < limit ? 'met' : 'MISSED'} (< #{pct(limit)})"
      end
    r[:goal] +=
      if !sp || !sp[:paired]
        ""
      elsif (r[:paired] - sp[:paired]).abs < [width.(r), width.(sp)].max / 2
        ", vs stackprof inconclusive"
      else
        r[:paired] < sp[:paired] ? ", below stackprof" : ", NOT below stackprof"
      end
  end
  rows.each { |r| r[:goal] ||= "" }
end

# ---- --nonblocking -------------------------------------------------------------

# --nonblocking on the call-heavy target (calls.rb, 20 deep), at the
# default rate and at 1000 Hz: the ticks whose sample was dropped (goal:
# under 5%, issue #17), the reads that tore, and the stacks kept to their
# settled part under [torn]. Sums over ROUNDS runs of SECS / ROUNDS.
NB_DROP_GOAL = 5.0

def nonblocking
  pid, io = start("calls.rb", 20)
  begin
    sleep 0.5
    [99, 1000].map do |rate|
      note "--nonblocking: call-heavy, 20 deep, #{rate} Hz"
      runs = Array.new(ROUNDS) do
        rbflame(RBFLAME, pid, SECS / ROUNDS, rate, "--nonblocking")
      end
      bad = runs.find { |r| r[:error] }
      next { rate: rate, error: bad[:error] } if bad

      r = { rate: rate }
      %i[ticks failed rereads torn kept].each { |k| r[k] = runs.sum { |x| x[k] } }
      r
    end
  ensure
    stop(pid, io)
  end
end

def print_nonblocking(rows)
  puts
  puts "--nonblocking on a call-heavy loop (bench/calls.rb, 20 deep)"
  puts
  row = "%-6s %8s %16s %16s %14s  %s"
  puts format(row, "rate", "ticks", "dropped", "torn reads", "kept [torn]",
              "goal (dropped < #{NB_DROP_GOAL}%)")
  rows.each do |r|
    if r[:error]
      puts format(row, r[:rate], "error", r[:error], "", "", "")
      next
    end
    pc = ->(a, b) { b.positive? ? 100.0 * a / b : 0.0 }
    drop = pc.(r[:failed], r[:ticks])
    puts format(row, r[:rate], r[:ticks],
                format("%d (%.1f%%)", r[:failed], drop),
                format("%d (%.1f%%)", r[:torn], pc.(r[:torn], r[:rereads])),
                r[:kept], drop < NB_DROP_GOAL ? "met" : "MISSED")
  end
end

# ---- main --------------------------------------------------------------------

if %w[all stop].include?(ONLY)
  print_stop_time(stop_time)
end
if %w[all nonblocking].include?(ONLY)
  print_nonblocking(nonblocking)
end
if %w[all slowdown].include?(ONLY)
  rows = []
  [100, 1000].each do |rate|
    rows << slowdown_rbflame(rate).merge(tool: "rbflame", rate: rate)
    rows << slowdown_stackprof(rate).merge(tool: "stackprof", rate: rate)
  end
  print_slowdown(slowdown_goals(rows))
end
