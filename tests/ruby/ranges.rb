# SPDX-License-Identifier: MIT
# Copyright (c) 2026 The rbflame authors
#
# Where each frame of a Ruby program may be: for the files given (the main
# script first, then files it requires) and for methods named with -m,
# prints one line per method, block, class or module body and top level:
#
#   LABEL<TAB>PATH<TAB>FIRST<TAB>LAST
#
# LABEL in Ruby 3.4's convention ("Churn#strings", "block in
# Churn#strings", "<class:Churn>", "<main>", "<top (required)>"), FIRST
# and LAST the lines its code spans. Files are parsed, never run.
#
#   ruby ranges.rb MAIN.rb [REQUIRED.rb...] [-m GC.start ...]
#
# -m CONST.name or CONST#name: a method of the running interpreter (e.g.
# GC.start, written in Ruby in <internal:gc>); its span comes from its
# instruction sequence's code_location, and its blocks (up to 4 levels)
# get the same span.
#
# Limits: blocks count levels inside one method as Ruby does, but a
# define_method body is labelled by its method, not as "block in
# <class:X>"; the fixtures this serves do not need more.
def const_name(node)
  case node&.type
  when :COLON2 then [const_name(node.children[0]), node.children[1]].compact.join("::")
  when :CONST then node.children[0].to_s
  when :COLON3 then node.children[0].to_s
  end
end

def walk(node, path, nesting, owner, depth)
  return unless node.is_a?(RubyVM::AbstractSyntaxTree::Node)
  case node.type
  when :CLASS, :MODULE
    short = const_name(node.children[0])
    full = (nesting + [short]).join("::")
    kind = node.type == :CLASS ? "class" : "module"
    label = "<#{kind}:#{short.split('::').last}>"
    puts [label, path, node.first_lineno, node.last_lineno].join("\t")
    node.children[1..].each { |c| walk(c, path, nesting + [short], label, 0) }
    return
  when :DEFN, :DEFS
    if node.type == :DEFN
      name = node.children[0]
      label = "#{nesting.empty? ? 'Object' : nesting.join('::')}##{name}"
    else
      name = node.children[1]
      label = "#{nesting.join('::')}.#{name}"
    end
    puts [label, path, node.first_lineno, node.last_lineno].join("\t")
    node.children.each { |c| walk(c, path, nesting, label, 0) }
    return
  when :ITER, :LAMBDA
    d = depth + 1
    label = d == 1 ? "block in #{owner}" : "block (#{d} levels) in #{owner}"
    puts [label, path, node.first_lineno, node.last_lineno].join("\t")
    # ITER: [the call, the block]; LAMBDA: [the block]
    body = node.type == :ITER ? 1 : 0
    node.children.each_with_index do |c, i|
      walk(c, path, nesting, owner, i == body ? d : depth)
    end
    return
  end
  node.children.each { |c| walk(c, path, nesting, owner, depth) }
end

methods = []
files = []
args = ARGV.dup
while (a = args.shift)
  if a == "-m"
    methods << args.shift
  else
    files << a
  end
end

methods.each do |spec|
  owner, sep, name = spec.rpartition(/[#.]/)
  mod = Object.const_get(owner)
  meth = sep == "." ? mod.method(name) : mod.instance_method(name)
  iseq = RubyVM::InstructionSequence.of(meth) or
    abort "ranges.rb: #{spec} is not written in Ruby"
  loc = iseq.to_a[4][:code_location]
  # Its blocks lie inside its span.
  [spec, "block in #{spec}", *(2..4).map { |n| "block (#{n} levels) in #{spec}" }].each do |label|
    puts [label, iseq.path, loc[0], loc[2]].join("\t")
  end
end

files.each_with_index do |path, i|
  top = i.zero? ? "<main>" : "<top (required)>"
  ast = RubyVM::AbstractSyntaxTree.parse_file(path)
  puts [top, path, 1, File.foreach(path).count].join("\t")
  walk(ast, path, [], top, 0)
end
