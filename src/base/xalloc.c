/* SPDX-License-Identifier: MIT */
/* Allocation wrappers: fail loudly, once, after letting the front end clean up. */
#include "config.h"
#include "xalloc.h"

#include <errno.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>
#ifdef HAVE_MALLOC_H
#include <malloc.h>
#endif

static void (*oom_hook)(void);

void xalloc_set_oom_hook(void (*hook)(void)) { oom_hook = hook; }

static void out_of_memory(size_t size)
{
	if (oom_hook)
		oom_hook();
	/* the program's own name: the explorer, the generator and the tests share this */
	fprintf(stderr, "%s: out of memory (allocating %zu bytes)\n", program_invocation_short_name, size);
	exit(3);
}

void xalloc_trim(void)
{
	/* under a sanitizer the heap is the sanitizer's: glibc's arenas hold nothing to give back,
	 * and walking them while other threads allocate crashed once (test_readonly.sh, ASan) */
#if defined(HAVE_MALLOC_H) && !defined(__SANITIZE_ADDRESS__) && !defined(__SANITIZE_THREAD__)
	malloc_trim(0);
#endif
}

size_t xalloc_release(void *buf, size_t from, size_t to)
{
	long v = sysconf(_SC_PAGESIZE); /* glibc keeps it at hand: no call to cache */
	size_t page = v > 0 ? (size_t)v : 4096;
	uintptr_t base = (uintptr_t)buf;
	uintptr_t lo = (base + from + page - 1) & ~(uintptr_t)(page - 1);
	uintptr_t hi = (base + to) & ~(uintptr_t)(page - 1);
	if (hi <= lo)
		return from;
	madvise((void *)lo, hi - lo, MADV_DONTNEED); /* advice: nothing to do if refused */
	return hi - base;
}

void *xmalloc(size_t size)
{
	void *p = malloc(size ? size : 1);
	if (!p)
		out_of_memory(size);
	return p;
}

void *xcalloc(size_t count, size_t size)
{
	void *p = calloc(count ? count : 1, size ? size : 1);
	if (!p)
		out_of_memory(count * size);
	return p;
}

void *xrealloc(void *ptr, size_t size)
{
	void *p = realloc(ptr, size ? size : 1);
	if (!p)
		out_of_memory(size);
	return p;
}

void xgrow(void *ptr_to_ptr, size_t *cap, size_t need, size_t elem_size)
{
	void **pp = ptr_to_ptr;
	if (need <= *cap)
		return;
	size_t ncap = *cap ? *cap : 16;
	while (ncap < need) {
		if (ncap > ((size_t)-1) / 2 / elem_size)
			out_of_memory(need * elem_size);
		ncap *= 2;
	}
	*pp = xrealloc(*pp, ncap * elem_size);
	*cap = ncap;
}

char *xstrdup(const char *s) { return xstrndup(s, strlen(s)); }

char *xstrndup(const char *s, size_t n)
{
	char *p = xmalloc(n + 1);
	memcpy(p, s, n);
	p[n] = '\0';
	return p;
}

char *xasprintf(const char *fmt, ...)
{
	va_list ap;
	va_start(ap, fmt);
	int n = vsnprintf(NULL, 0, fmt, ap);
	va_end(ap);
	if (n < 0)
		return xstrdup("");
	char *p = xmalloc((size_t)n + 1);
	va_start(ap, fmt);
	vsnprintf(p, (size_t)n + 1, fmt, ap);
	va_end(ap);
	return p;
}
