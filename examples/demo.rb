# SPDX-License-Identifier: MIT
# Copyright (c) 2026 The rbflame authors
#
# A small Ruby program for the quick-start demo: a shop that prices
# orders, writes reports and keeps its books, so the flamegraph has
# something to show. Classes in a module, singleton methods, blocks, a
# section heavy in C functions (sorting, string building, Integer#times),
# and two named threads doing different work besides the main thread.
#
#   ruby examples/demo.rb [SECONDS]     (default 5, then exits 0)
#
#   rbflame --threads -r 199 -o demo.collapsed -- ruby examples/demo.rb 5

module Shop
  Item = Struct.new(:name, :price, :qty)

  # Makes the catalogue.
  class Catalogue
    NAMES = %w[apple pear plum fig kiwi lime date].freeze

    def self.build(size)
      Array.new(size) do |i|
        Item.new("#{NAMES[i % NAMES.size]}-#{i}", (i * 37 % 1000) / 10.0, i % 7 + 1)
      end
    end
  end

  # Prices orders: plain Ruby arithmetic in a method and its blocks.
  class Pricing
    TAX = 0.2

    def initialize(items)
      @items = items
    end

    def total
      @items.sum { |item| line_price(item) }
    end

    def line_price(item)
      price = item.price * item.qty
      price -= discount(price) if item.qty > 3
      price * (1 + TAX)
    end

    def discount(price)
      steps = 0
      p = price
      while p > 1
        p /= 2
        steps += 1
      end
      steps * 0.5
    end
  end

  # Writes reports: mostly C functions (sort_by, format, join, upcase).
  class Report
    def self.render(items)
      new(items).lines.join("\n")
    end

    def initialize(items)
      @items = items
    end

    def lines
      @items.sort_by { |item| -item.price }.map do |item|
        format("%-12s %8.2f x %d", item.name.upcase, item.price, item.qty)
      end
    end
  end

  # Keeps the books: checksums with Integer#times and string building.
  module Ledger
    def self.checksum(text)
      sum = 0
      text.each_byte { |b| sum = (sum * 31 + b) & 0xffffffff }
      sum
    end

    def self.journal(n)
      out = +""
      n.times { |i| out << "entry #{i}: #{(i * 17) % 101}\n" }
      out
    end
  end
end

seconds = Float(ARGV[0] || 5)
deadline = Process.clock_gettime(Process::CLOCK_MONOTONIC) + seconds
time_left = -> { Process.clock_gettime(Process::CLOCK_MONOTONIC) < deadline }
catalogue = Shop::Catalogue.build(2000)

pricing = Thread.new do
  Thread.current.name = "pricing"
  pricer = Shop::Pricing.new(catalogue)
  pricer.total while time_left.call
end

reporting = Thread.new do
  Thread.current.name = "reporting"
  while time_left.call
    report = Shop::Report.render(catalogue)
    Shop::Ledger.checksum(report)
  end
end

# The main thread: sorting and string building, all C functions.
while time_left.call
  numbers = Array.new(20_000) { |i| (i * 7919) % 10_007 }
  numbers.sort!
  Shop::Ledger.journal(2000)
end

pricing.join
reporting.join
