# SPDX-License-Identifier: MIT
# Copyright (c) 2026 The rbflame authors
#
# Checks a collapsed profile of a real program against the program's own
# Ruby: the libraries given with -r are loaded here, then every file of
# the profile under one of the -d directories (nothing of them run but
# their load), then every frame of FOLDED whose file is under one of
# those directories, or whose caller's is, is looked up by its label, as
# Ruby itself knows it:
#
#   ruby frames-vs-ruby.rb FOLDED -r LIB... [-e CODE...] -d DIR...
#
# (-e: Ruby run after the -r libraries, e.g. to load a config.ru.)
#  - "Owner#name", "Owner.name", "block [(N levels) ]in Owner#name": the
#    constant Owner must exist and have the method (an instance method,
#    or one of its singleton class for "."); a method written in Ruby
#    must be in the frame's file, and the frame's line in the span of its
#    code (blocks are inside it); a C method (no source location) must
#    stand at its caller's file and line (the frame above); a block that
#    is the body of a method Owner got from define_method is labelled
#    with the name of the method it is written in (Ruby 3.4's rule): that
#    method, of Owner's ancestors or its singleton class's, must hold it;
#  - code a string eval'd in a method (Module#class_eval and the like,
#    the frame above, called from a frame of the same label): Ruby
#    labels it as that method, in the file and line the eval was given;
#    the file must exist (or be Ruby's "(eval...)"); code eval'd by
#    Binding#eval (the frame above) is labelled as the binding's frame
#    was, whatever called it (Rack's TOPLEVEL_BINDING.eval: "<main>"
#    under Rack::Builder.new_from_string), and only its file is checked;
#  - "<top (required)>", "<main>", "<class:X>", "<module:X>", "block in
#    <class:X>"...: the file must exist and the line be one of its lines;
#    one that the -e CODE compiled from a string (Unicorn's eval of
#    config.ru, a line of its own first) must be in the span of that
#    label's code as compiled, the string's lines, not the file's.
# Labels of anonymous or refined owners ("#<Class:0x...>",
# "#<refinement:...>") are counted apart, not checked. Prints the
# figures; exits 1 with the first bad frames on stderr when any frame
# fails, or when fewer than -n MIN frames were checked (default 100).
folded = ARGV.shift or
  abort "usage: frames-vs-ruby.rb FOLDED -r LIB... [-e CODE...] -d DIR... [-n MIN]"
dirs = []
libs = []
codes = []
min = 100
while (a = ARGV.shift)
  case a
  when "-r" then libs << ARGV.shift
  when "-e" then codes << ARGV.shift
  when "-d" then dirs << File.join(File.realpath(ARGV.shift), "")
  when "-n" then min = Integer(ARGV.shift)
  else abort "frames-vs-ruby.rb: unknown argument #{a}"
  end
end

EVALS = %w[Kernel#eval Module#class_eval Module#module_eval
           BasicObject#instance_eval].freeze

libs.each { |l| require l }
# Code the -e CODE compiles from a string (a server's eval of config.ru)
# has the lines of that string, not of the file it names: Unicorn's
# "Rack::Builder.new {(\n#{raw}\n)}.to_app" puts the file's last line
# at its line + 1. Each such iseq's span, by path and label, for the
# bodies and blocks that no method owns ("block in <main>").
EVAL_SPANS = Hash.new { |h, k| h[k] = [] }
def eval_spans(iseq, depth = 0)
  loc = iseq.to_a.dig(4, :code_location)
  EVAL_SPANS[[File.expand_path(iseq.path), iseq.label]] << [loc[0], loc[2]] if loc
  iseq.each_child { |c| eval_spans(c, depth + 1) } if depth < 64
end
compiled = TracePoint.new(:script_compiled) do |tp|
  eval_spans(tp.instruction_sequence) if tp.eval_script && tp.instruction_sequence
end
compiled.enable do
  codes.each { |c| eval(c, TOPLEVEL_BINDING) } # rubocop:disable Security/Eval
end
loaded = 0
File.foreach(folded) do |line|
  line.scan(/ \((\/[^()]+\.rb):\d+\)/) do |(path)|
    next unless dirs.any? { |d| path.start_with?(d) } ||
                path.start_with?(RbConfig::CONFIG["rubylibdir"])
    begin
      loaded += 1 if require(path)
    rescue StandardError, LoadError, NotImplementedError => e
      warn "frames-vs-ruby.rb: cannot load #{path}: #{e.class}"
    end
  end
end

STATE = /\A\((?:garbage collection|marking|sweeping|waiting for GVL|blocked|running without GVL)\)\z/
# PATH may hold one level of parentheses: "(eval)", "(eval at F:L)".
FRAME = /\A(.+) \(((?:[^()]|\([^()]*\))+):(\d+)\)\z/
# Prefixes: a rescue or ensure clause's, then a block's.
PREFIX = /(?:(?:rescue|ensure) in )?(?:block (?:\(\d+ levels\) )?in )?/
METHOD = /\A(#{PREFIX})([A-Z]\w*(?:::[A-Z]\w*)*)([#.])(.+)\z/
BODY = /\A#{PREFIX}(?:<(?:top \(required\)|main|class:\w+|module:\w+)>|singleton class)\z/

# The class or module a label names ("A::B"), or nil.
def module_named(owner)
  mod = Object.const_get(owner)
  mod.is_a?(Module) ? mod : nil
rescue NameError
  nil
end

def lines_of(path, cache)
  cache.fetch(path) do
    cache[path] = File.file?(path) ? File.foreach(path).count : nil
  end
end

# The method Owner#name (kind "#") or Owner.name (".") defined by Owner
# itself: the first of the lookup chain whose owner it is (a module
# prepended to Owner, or Owner's ancestors, may define the name too), or
# Owner's alias of it.
def find_method(owner, kind, name)
  mod = module_named(owner) or return nil
  mod = mod.singleton_class if kind == "."
  meth = begin
    mod.instance_method(name)
  rescue NameError
    nil
  end
  32.times do
    break unless meth
    return meth if meth.owner == mod
    meth = meth.super_method
  end
  alias_of(mod, name)
end

# An alias Owner made of an inherited method: "alias reset clear" in a
# subclass of String. Ruby 3.4's backtraces name its frames by the
# alias's owner and the original name (Puma::IOBuffer#clear); nil if
# Owner has none.
def alias_of(mod, name)
  (mod.instance_methods(false) + mod.private_instance_methods(false)).each do |a|
    meth = mod.instance_method(a)
    return meth if meth.owner == mod && meth.original_name == name.to_sym
  end
  nil
end

# A block whose method Owner#name is not Owner's own: the body of a
# method Owner got from define_method, written in a block of the method
# "name" of one of its ancestors or of its singleton class's (Ruby 3.4's
# backtraces label such a frame so: the owner of the method defined, the
# name of the method the block is written in; stackprof on 3.1 drops the
# owner). That method, in path at a line of its span, or nil.
def lexical_method(owner, name, path, line)
  mod = module_named(owner) or return nil
  [mod, mod.singleton_class].flat_map(&:ancestors).uniq.each do |m|
    next unless m.method_defined?(name, false) ||
                m.private_method_defined?(name, false)
    meth = m.instance_method(name)
    loc = meth.source_location
    span = span_of(meth)
    return meth if loc && loc[0] == path && span &&
                   (span[0]..span[1]).cover?(line)
  end
  nil
end

def span_of(meth)
  loc = RubyVM::InstructionSequence.of(meth)&.to_a&.dig(4, :code_location)
  loc && [loc[0], loc[2]]
end

nlines = {}
spans = {}
errors = []
checked = 0
counted = Hash.new(0)
samples = 0
File.foreach(folded) do |line|
  stack, n = line.chomp.match(/\A(.*) (\d+)\z/)&.captures
  next unless stack
  n = n.to_i
  samples += n
  frames = stack.split(";")
  # Roots: "process PID ...", "thread TID ..." (--subprocesses, --threads).
  frames.shift while frames.first&.match?(/\A(?:process|thread) /)
  frames.pop while frames.last&.match?(STATE)
  above = nil
  labels = []
  frames.each_with_index do |f, i|
    label, path, l = f.match(FRAME)&.captures
    unless label
      errors << "frame #{i} [#{f}]: not LABEL (PATH:LINE)\n  in #{line}"
      break
    end
    l = l.to_i
    labels << label
    here = above
    above = [path, l]
    next unless dirs.any? { |d| path.start_with?(d) } ||
                (here && dirs.any? { |d| here[0].start_with?(d) })
    why = nil
    if label.start_with?("#<")
      counted["anonymous or refined owner"] += n
      next
    elsif i >= 2 && ((EVALS.include?(labels[i - 1]) && labels[i - 2] == label) ||
                     labels[i - 1] == "Binding#eval")
      if path.start_with?("(eval") || File.file?(path)
        counted["eval'd code"] += n
      else
        why = "eval'd code in no such file"
      end
    elsif (m = label.match(METHOD))
      prefix, owner, kind, name = m.captures
      meth = find_method(owner, kind, name)
      if !meth && prefix.include?("block") &&
         lexical_method(owner, name, path, l)
        counted["blocks of define_method'd methods"] += n
      elsif !meth
        why = "Ruby knows no method #{owner}#{kind}#{name}"
      elsif meth.source_location.nil?
        if here != [path, l]
          why = "C method not at its caller's line (#{here&.join(':')})"
        else
          counted["C methods"] += n
        end
      else
        file = meth.source_location[0]
        span = spans[meth] ||= span_of(meth)
        if file != path
          why = "#{owner}#{kind}#{name} is in #{file}, not #{path}"
        elsif span && !(span[0]..span[1]).cover?(l)
          why = "line #{l} outside #{owner}#{kind}#{name} (#{file}:#{span[0]}-#{span[1]})"
        else
          counted[prefix.empty? ? "Ruby methods" : "blocks and clauses"] += n
        end
      end
    elsif label.match?(BODY) && EVAL_SPANS.key?([path, label])
      spans_here = EVAL_SPANS[[path, label]]
      if spans_here.any? { |a, b| (a..b).cover?(l) }
        counted["bodies of eval'd code"] += n
      else
        why = "line #{l} outside the eval'd #{label} (#{path}:" \
              "#{spans_here.map { |a, b| "#{a}-#{b}" }.join(', ')})"
      end
    elsif label.match?(BODY)
      max = lines_of(path, nlines)
      if !max
        why = "no such file"
      elsif l < 1 || l > max
        why = "line #{l} of a #{max}-line file"
      else
        counted["bodies"] += n
      end
    else
      why = "a label of no known shape"
    end
    checked += n
    errors << "frame #{i} [#{f}]: #{why}\n  in #{line.chomp[0, 600]}" if why
  end
end

puts format("%d samples, %d frames in %s checked against Ruby " \
            "(%d more files loaded): %s",
            samples, checked, dirs.join(" "), loaded,
            counted.sort_by { |k, v| [-v, k] }.map { |k, v| "#{k} #{v}" }.join(", "))
unless errors.empty?
  errors.uniq.first(10).each { |e| warn e }
  warn "#{errors.size} bad frames"
  exit 1
end
if checked < min
  warn "only #{checked} frames checked (want #{min} at least)"
  exit 1
end
