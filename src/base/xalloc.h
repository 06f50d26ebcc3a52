/* SPDX-License-Identifier: MIT */
/* Allocation that never returns NULL: out of memory is fatal, after a hook (the TUI
 * restores the terminal there) has run. */
#ifndef ASCPROF_XALLOC_H
#define ASCPROF_XALLOC_H

#include <stddef.h>
#include <stdlib.h>
#include <string.h>

/* Called once before exiting on allocation failure; may be NULL. */
void xalloc_set_oom_hook(void (*hook)(void));

/* Owned by the caller (free); they never return NULL: on failure the OOM hook runs and
 * the program exits. xrealloc takes ptr. */
void *xmalloc(size_t size);
void *xcalloc(size_t count, size_t size);
void *xrealloc(void *ptr, size_t size);
/* Grows *ptr (an array of *cap elements of elem_size) to hold at least need elements. */
void xgrow(void *ptr_to_ptr, size_t *cap, size_t need, size_t elem_size);
/* Gives the whole pages of bytes [from, to) of an allocated buffer back to the system:
 * their content is no longer needed (they read as zeros after); the buffer is freed as
 * usual. Returns where the released pages end (from when none was whole), to be the next
 * call's `from`: a big buffer consumed front to back shrinks as it is read. */
size_t xalloc_release(void *buf, size_t from, size_t to);
/* Hands the free memory at the top of malloc's arenas back to the system (glibc's
 * malloc_trim; nothing elsewhere): after a phase of many small allocations freed out of
 * order (SQLite's pages and statements) that would otherwise stay resident. */
void xalloc_trim(void);
/* Fresh copies, owned by the caller. */
char *xstrdup(const char *s);
char *xstrndup(const char *s, size_t n);
/* printf into a fresh string (owned by the caller). */
char *xasprintf(const char *fmt, ...) __attribute__((format(printf, 1, 2)));

/* qsort and memcpy with empty arrays allowed: NULL with a count of 0 is undefined
 * behaviour for the libc functions, and empty arrays are everywhere in a loader. */
static inline void xqsort(void *base, size_t n, size_t size, int (*cmp)(const void *, const void *))
{
	if (n > 1)
		qsort(base, n, size, cmp);
}
static inline void xqsort_r(void *base, size_t n, size_t size,
			    int (*cmp)(const void *, const void *, void *), void *ctx)
{
	if (n > 1)
		qsort_r(base, n, size, cmp, ctx);
}
static inline void xmemcpy(void *dst, const void *src, size_t n)
{
	if (n)
		memcpy(dst, src, n);
}

#endif
