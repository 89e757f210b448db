// SPDX-License-Identifier: MIT
/*
 * refcount.c - the one slow path of refcount_t (include/spindle/refcount.h):
 * a count that went wrong is reported once per count, with where it
 * happened, and pinned far from 0 so the object is never freed again.
 */
#include <spindle/refcount.h>
#include <spindle/ksyms.h>

unsigned long refcount_warnings;

void refcount_warn_saturate(refcount_t *r, const char *what)
{
	atomic_set(&r->refs, REFCOUNT_SATURATED);
	refcount_warnings++;
	printk(KERN_WARNING "refcount_t: %s.\n", what);
	dump_stack();
}
