# SPDX-License-Identifier: MIT
# Copyright (c) 2026 The rbflame authors
#
# Many-process benchmark target (bench/procs): a parent that forks N
# workers, as a preforking server does, and waits for them; each worker
# spins in Ruby 20 frames deep (one thread, always holding its GVL).
#
#   ruby procs-target.rb N
#
# Prints "worker PID" for each worker, then "ready" once all are spinning;
# runs until killed (the workers die with their parent: SIGTERM to the
# process group, or each).
def dive(n, w)
  return dive(n - 1, w) if n > 1

  w.puts "deep"
  w.close
  i = 0
  i += 1 while true
end

n = Integer(ARGV.fetch(0))
abort "usage: ruby procs-target.rb N (N >= 1)" if n < 1
$stdout.sync = true
pids = Array.new(n) do
  r, w = IO.pipe
  pid = fork do
    r.close
    dive(19, w)
  end
  w.close
  r.gets
  r.close
  pid
end
pids.each { |pid| puts "worker #{pid}" }
puts "ready"
trap("TERM") do
  pids.each { |pid| Process.kill("TERM", pid) rescue nil }
  exit
end
pids.each { |pid| Process.wait(pid) }
