/* SPDX-License-Identifier: MIT */
/* Diagnostics: what went wrong with the input, where (file, line or byte offset), and
 * what was kept. Loaders append from any thread; front ends print or show them. */
#ifndef ASCPROF_DIAG_H
#define ASCPROF_DIAG_H

#include <pthread.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>

enum diag_level { DIAG_INFO, DIAG_WARN, DIAG_ERROR };

struct diag {
	enum diag_level level;
	char *file;    /* owned; may be NULL when no file is concerned */
	long line;     /* 1-based line, or 0 */
	int64_t offset; /* byte offset, or -1 */
	char *msg;     /* owned */
};

struct diag_list {
	pthread_mutex_t lock;
	struct diag *items; /* owned */
	size_t n, cap;
	size_t dropped; /* beyond the cap below, counted only */
};

/* At most this many diagnostics are kept; the rest are counted in `dropped`. */
#define DIAG_MAX 10000

void diag_init(struct diag_list *dl);
void diag_free(struct diag_list *dl);
void diag_add(struct diag_list *dl, enum diag_level level, const char *file, long line,
	      int64_t offset, const char *fmt, ...) __attribute__((format(printf, 6, 7)));
/* The same with a va_list (for wrappers that filter or count before adding). */
void diag_addv(struct diag_list *dl, enum diag_level level, const char *file, long line, int64_t offset,
	       const char *fmt, va_list ap) __attribute__((format(printf, 6, 0)));
/* "file:line: message", "file: byte N: message" or "message", in the messages' language (a
 * JSON run's is English); owned by the caller. */
char *diag_format(const struct diag *d);
/* The same with the file named relative to root (the capture's path as given) when it lies
 * under it: what a screen shows, the capture's own path being said once above. */
char *diag_format_under(const struct diag *d, const char *root);
/* "info", "warning", "error": English, for JSON; static. */
const char *diag_level_name(enum diag_level level);
/* The same in the messages' language, for text; static. */
const char *diag_level_text(enum diag_level level);
/* Appends copies of src's messages to dst, in order (a worker's messages, once it is done). */
void diag_append(struct diag_list *dst, const struct diag_list *src);
/* Number of diagnostics at or above the level. */
size_t diag_count(struct diag_list *dl, enum diag_level min_level);

#endif
