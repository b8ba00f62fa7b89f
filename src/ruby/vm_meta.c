// SPDX-License-Identifier: MIT
// Copyright (c) 2026 The rbflame authors
/*
 * struct ruby_vm <-> the Ruby fields of a snapshot's meta. Offline, the
 * layout is found again by its release: the snapshot records its name,
 * never its offsets.
 */
#include "config.h"

#include <errno.h>
#include <stdio.h>
#include <string.h>

#include "rbflame/ruby.h"
#include "rbflame/ruby_layout.h"
#include "rbflame/ruby_vm_meta.h"
#include "rbflame/snapshot.h"

static void
copy_str(char *dst, size_t cap, const char *src)
{
	snprintf(dst, cap, "%s", src ? src : "");
}

void
ruby_vm_meta_set(struct snapshot_meta *meta, const struct ruby_vm *vm)
{
	copy_str(meta->ruby_layout, sizeof(meta->ruby_layout),
		 vm->layout ? vm->layout->version : "");
	copy_str(meta->ruby_version, sizeof(meta->ruby_version), vm->version);
	copy_str(meta->ruby_description, sizeof(meta->ruby_description),
		 vm->description);
	meta->ruby_vm = vm->vm;
	meta->ruby_symbols = vm->symbols;
	meta->ruby_vm_from_export = vm->vm_from_export;
	meta->ruby_pthread_tid_off = vm->pthread_tid_off;
}

int
ruby_vm_meta_get(const struct snapshot_meta *meta, struct ruby_vm *vm)
{
	const char *which = meta->ruby_layout[0] ? meta->ruby_layout
						  : meta->ruby_version;

	memset(vm, 0, sizeof(*vm));
	copy_str(vm->version, sizeof(vm->version), meta->ruby_version);
	copy_str(vm->description, sizeof(vm->description),
		 meta->ruby_description);
	vm->vm = meta->ruby_vm;
	vm->symbols = meta->ruby_symbols;
	vm->vm_from_export = meta->ruby_vm_from_export;
	vm->pthread_tid_off = meta->ruby_pthread_tid_off;
	if (!which[0]) {
		errno = ENOENT;	/* not a snapshot of a Ruby process */
		return -1;
	}
	if (!vm->version[0])
		copy_str(vm->version, sizeof(vm->version), which);
	/* The layout it was read with; another release of the same X.Y
	 * gets the nearest one (a snapshot from a newer rbflame). */
	vm->layout = ruby_layout_find(which, &vm->generated_exact);
	vm->generated = vm->layout;
	if (!vm->layout) {
		errno = ENOTSUP;
		return -1;
	}
	return 0;
}
