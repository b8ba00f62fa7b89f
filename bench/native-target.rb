# SPDX-License-Identifier: MIT
# Copyright (c) 2026 The rbflame authors
#
# bench/native's target: one thread spinning in the test extension
# (tests/native/ext) at a native stack of a known depth:
#
#   ruby native-target.rb EXTDIR DEPTH
#
# <main> -> Object#spin -> RbflameTestExt.deep(DEPTH, ...), whose C
# function recurses DEPTH times (rbft_deep_step) before spinning, under
# the interpreter's and libc's own frames. Prints "ready", then runs until
# killed.
$LOAD_PATH.unshift(ARGV.fetch(0))
require "rbflame_test_ext"
$stdout.sync = true

def spin(depth)
  loop { RbflameTestExt.deep(depth, 20_000_000) }
end

puts "ready"
spin(Integer(ARGV.fetch(1)))
