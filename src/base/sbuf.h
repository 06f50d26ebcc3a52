/* SPDX-License-Identifier: MIT */
/* A growable byte string, always NUL-terminated. */
#ifndef ASCPROF_SBUF_H
#define ASCPROF_SBUF_H

#include <stddef.h>

struct sbuf {
	char *buf; /* owned; NULL until the first append */
	size_t len;
	size_t cap;
};

#define SBUF_INIT {NULL, 0, 0}

void sbuf_add(struct sbuf *sb, const char *s, size_t n);
void sbuf_adds(struct sbuf *sb, const char *s);
void sbuf_addc(struct sbuf *sb, char c);
void sbuf_addf(struct sbuf *sb, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
void sbuf_reset(struct sbuf *sb);
/* The contents ("" when empty); borrowed, valid until the next change. */
const char *sbuf_str(const struct sbuf *sb);
/* Hands the buffer to the caller (owned) and leaves sb empty. */
char *sbuf_detach(struct sbuf *sb);
void sbuf_free(struct sbuf *sb);

#endif
