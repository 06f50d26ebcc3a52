/* SPDX-License-Identifier: MIT */
/* Growable strings for report and message building. */
#include "sbuf.h"

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "xalloc.h"

static void sbuf_reserve(struct sbuf *sb, size_t extra)
{
	xgrow(&sb->buf, &sb->cap, sb->len + extra + 1, 1);
}

void sbuf_add(struct sbuf *sb, const char *s, size_t n)
{
	sbuf_reserve(sb, n);
	memcpy(sb->buf + sb->len, s, n);
	sb->len += n;
	sb->buf[sb->len] = '\0';
}

void sbuf_adds(struct sbuf *sb, const char *s) { sbuf_add(sb, s, strlen(s)); }

void sbuf_addc(struct sbuf *sb, char c) { sbuf_add(sb, &c, 1); }

void sbuf_addf(struct sbuf *sb, const char *fmt, ...)
{
	va_list ap;
	char small[256];
	va_start(ap, fmt);
	int n = vsnprintf(small, sizeof small, fmt, ap);
	va_end(ap);
	if (n < 0)
		return;
	if ((size_t)n < sizeof small) {
		sbuf_add(sb, small, (size_t)n);
		return;
	}
	sbuf_reserve(sb, (size_t)n);
	va_start(ap, fmt);
	vsnprintf(sb->buf + sb->len, (size_t)n + 1, fmt, ap);
	va_end(ap);
	sb->len += (size_t)n;
}

void sbuf_reset(struct sbuf *sb)
{
	sb->len = 0;
	if (sb->buf)
		sb->buf[0] = '\0';
}

const char *sbuf_str(const struct sbuf *sb) { return sb->buf ? sb->buf : ""; }

char *sbuf_detach(struct sbuf *sb)
{
	char *p = sb->buf ? sb->buf : xstrdup("");
	sb->buf = NULL;
	sb->len = sb->cap = 0;
	return p;
}

void sbuf_free(struct sbuf *sb)
{
	free(sb->buf);
	sb->buf = NULL;
	sb->len = sb->cap = 0;
}
