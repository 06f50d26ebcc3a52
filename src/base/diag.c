/* SPDX-License-Identifier: MIT */
/* A thread-safe list of input diagnostics with their location. */
#include "diag.h"

#include <stdarg.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "i18n.h"
#include "sbuf.h"
#include "xalloc.h"

void diag_init(struct diag_list *dl)
{
	pthread_mutex_init(&dl->lock, NULL);
	dl->items = NULL;
	dl->n = dl->cap = 0;
	dl->dropped = 0;
}

void diag_free(struct diag_list *dl)
{
	if (!dl)
		return;
	for (size_t i = 0; i < dl->n; i++) {
		free(dl->items[i].file);
		free(dl->items[i].msg);
	}
	free(dl->items);
	dl->items = NULL;
	dl->n = dl->cap = 0;
	pthread_mutex_destroy(&dl->lock);
}

void diag_add(struct diag_list *dl, enum diag_level level, const char *file, long line,
	      int64_t offset, const char *fmt, ...)
{
	va_list ap;
	va_start(ap, fmt);
	diag_addv(dl, level, file, line, offset, fmt, ap);
	va_end(ap);
}

void diag_addv(struct diag_list *dl, enum diag_level level, const char *file, long line, int64_t offset,
	       const char *fmt, va_list ap)
{
	if (!dl)
		return;
	va_list ap2;
	va_copy(ap2, ap);
	int n = vsnprintf(NULL, 0, fmt, ap2);
	va_end(ap2);
	char *msg = xmalloc(n > 0 ? (size_t)n + 1 : 1);
	vsnprintf(msg, n > 0 ? (size_t)n + 1 : 1, fmt, ap);

	pthread_mutex_lock(&dl->lock);
	if (dl->n >= DIAG_MAX) {
		dl->dropped++;
		pthread_mutex_unlock(&dl->lock);
		free(msg);
		return;
	}
	xgrow(&dl->items, &dl->cap, dl->n + 1, sizeof *dl->items);
	struct diag *d = &dl->items[dl->n++];
	d->level = level;
	d->file = file ? xstrdup(file) : NULL;
	d->line = line;
	d->offset = offset;
	d->msg = msg;
	pthread_mutex_unlock(&dl->lock);
}

char *diag_format(const struct diag *d)
{
	return diag_format_under(d, NULL);
}

char *diag_format_under(const struct diag *d, const char *root)
{
	struct sbuf sb = SBUF_INIT;
	if (d->file) {
		const char *f = d->file;
		size_t n = root ? strlen(root) : 0;
		while (n > 1 && root[n - 1] == '/')
			n--;
		if (n && !strncmp(f, root, n) && f[n] == '/' && f[n + 1])
			f += n + 1;
		sbuf_adds(&sb, f);
		if (d->line > 0)
			sbuf_addf(&sb, ":%ld", d->line);
		else if (d->offset >= 0) {
			sbuf_adds(&sb, ": ");
			sbuf_addf(&sb, _("byte %lld"), (long long)d->offset);
		}
		sbuf_adds(&sb, ": ");
	}
	sbuf_adds(&sb, d->msg);
	return sbuf_detach(&sb);
}

/* English: the JSON's "level" (diag_level_text translates it for text) */
const char *diag_level_name(enum diag_level level)
{
	switch (level) {
	case DIAG_INFO: return N_("info");
	case DIAG_WARN: return N_("warning");
	case DIAG_ERROR: return N_("error");
	}
	return "?";
}

const char *diag_level_text(enum diag_level level) { return _(diag_level_name(level)); }

size_t diag_count(struct diag_list *dl, enum diag_level min_level)
{
	size_t c = 0;
	pthread_mutex_lock(&dl->lock);
	for (size_t i = 0; i < dl->n; i++)
		c += dl->items[i].level >= min_level;
	pthread_mutex_unlock(&dl->lock);
	return c;
}

/* Whether dl holds an error with this file and text already. */
static bool has_error(struct diag_list *dl, const char *file, const char *msg)
{
	bool found = false;
	pthread_mutex_lock(&dl->lock);
	for (size_t i = 0; i < dl->n && !found; i++) {
		const struct diag *d = &dl->items[i];
		found = d->level == DIAG_ERROR && !strcmp(d->msg, msg) &&
			(d->file && file ? !strcmp(d->file, file) : d->file == file);
	}
	pthread_mutex_unlock(&dl->lock);
	return found;
}

void diag_append(struct diag_list *dst, const struct diag_list *src)
{
	for (size_t i = 0; i < src->n; i++) {
		const struct diag *d = &src->items[i];
		/* one error said once: every reader of a file that is no database (the events,
		 * each table) met it and said so, four times */
		if (d->level == DIAG_ERROR && has_error(dst, d->file, d->msg))
			continue;
		diag_add(dst, d->level, d->file, d->line, d->offset, "%s", d->msg);
	}
	if (src->dropped)
		diag_add(dst, DIAG_WARN, NULL, 0, -1, _("%zu more messages were dropped"), src->dropped);
}
