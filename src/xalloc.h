/* SPDX-License-Identifier: MIT */
/* Allocation that never returns NULL: out of memory is fatal, after a hook (the TUI
 * restores the terminal there) has run. */
#ifndef ASCPROF_XALLOC_H
#define ASCPROF_XALLOC_H

#include <stddef.h>

/* Called once before exiting on allocation failure; may be NULL. */
void xalloc_set_oom_hook(void (*hook)(void));

void *xmalloc(size_t size);
void *xcalloc(size_t count, size_t size);
void *xrealloc(void *ptr, size_t size);
/* Grows *ptr (an array of *cap elements of elem_size) to hold at least need elements. */
void xgrow(void *ptr_to_ptr, size_t *cap, size_t need, size_t elem_size);
char *xstrdup(const char *s);
char *xstrndup(const char *s, size_t n);
/* printf into a fresh string (owned by the caller). */
char *xasprintf(const char *fmt, ...) __attribute__((format(printf, 1, 2)));

#endif
