/* SPDX-License-Identifier: MIT */
/* Copyright (c) 2026 The rbflame authors */
/*
 * A struct ruby_vm to and from the Ruby fields of a snapshot's meta
 * (doc/snapshot-format.md, META): what 'rbflame dump --snapshot' records
 * of the VM it found, and what 'rbflame dump --from-snapshot' and the
 * tests read it back with. The snapshot itself knows nothing of Ruby:
 * to it these are strings and numbers.
 */
#ifndef RBFLAME_RUBY_VM_META_H
#define RBFLAME_RUBY_VM_META_H

struct ruby_vm;
struct snapshot_meta;

/** Copies the fields of vm into meta (not pid, maps, regs, time). */
void ruby_vm_meta_set(struct snapshot_meta *meta, const struct ruby_vm *vm);

/**
 * Rebuilds a struct ruby_vm from meta, choosing the layout whose "X.Y"
 * matches meta's layout (or Ruby version) among the generated ones
 * (ruby_layout_find()). 0, or -1 with errno ENOENT when meta names no
 * Ruby (not a snapshot of a Ruby process), ENOTSUP when no layout
 * matches (vm->version then says what the snapshot holds).
 */
int ruby_vm_meta_get(const struct snapshot_meta *meta, struct ruby_vm *vm);

#endif
