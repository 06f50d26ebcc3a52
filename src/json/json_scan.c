/* SPDX-License-Identifier: MIT */
/* String-aware element splitter for huge JSON arrays. */
#include "json_scan.h"

#include <stdio.h>
#include <string.h>

#include "i18n.h"

#define NOT_FOUND ((size_t)-1)

size_t jscan_skip_ws(const char *b, size_t len, size_t pos)
{
	while (pos < len && (b[pos] == ' ' || b[pos] == '\n' || b[pos] == '\r' || b[pos] == '\t'))
		pos++;
	return pos;
}

/* Offset just past the closing quote of a string whose body starts at pos. */
static size_t array_string_end(const char *b, size_t len, size_t pos)
{
	for (;;) {
		const char *q = memchr(b + pos, '"', len - pos);
		if (!q)
			return NOT_FOUND;
		size_t at = (size_t)(q - b);
		/* an odd run of backslashes before the quote escapes it */
		size_t bs = 0;
		while (at - bs > pos && b[at - bs - 1] == '\\')
			bs++;
		if ((bs & 1) == 0)
			return at + 1;
		pos = at + 1;
	}
}

/* 1 for bytes the container walk must look at. */
static const unsigned char structural[256] = {
	['"'] = 1, ['{'] = 1, ['}'] = 1, ['['] = 1, [']'] = 1,
};

size_t jscan_value_end(const char *b, size_t len, size_t pos)
{
	if (pos >= len)
		return NOT_FOUND;
	char c = b[pos];
	if (c == '"')
		return array_string_end(b, len, pos + 1);
	if (c != '{' && c != '[') {
		/* primitive: up to a delimiter */
		while (pos < len) {
			char d = b[pos];
			if (d == ',' || d == ']' || d == '}' || d == ' ' || d == '\n' || d == '\r' ||
			    d == '\t')
				return pos;
			pos++;
		}
		return NOT_FOUND;
	}
	long depth = 0;
	while (pos < len) {
		while (pos < len && !structural[(unsigned char)b[pos]])
			pos++;
		if (pos >= len)
			break;
		c = b[pos];
		if (c == '"') {
			pos = array_string_end(b, len, pos + 1);
			if (pos == NOT_FOUND)
				return NOT_FOUND;
			continue;
		}
		if (c == '{' || c == '[') {
			depth++;
		} else if (--depth == 0) {
			return pos + 1;
		}
		pos++;
	}
	return NOT_FOUND;
}

static bool key_is(const char *b, size_t len, size_t start, const char *key)
{
	size_t kl = strlen(key);
	return start + kl + 1 < len && memcmp(b + start + 1, key, kl) == 0 && b[start + 1 + kl] == '"';
}

bool jscan_open(struct jscan *js, const char *buf, size_t len, struct sbuf *err)
{
	memset(js, 0, sizeof *js);
	js->buf = buf;
	js->len = len;
	size_t pos = 0;
	if (len >= 3 && memcmp(buf, "\xEF\xBB\xBF", 3) == 0)
		pos = 3;
	pos = jscan_skip_ws(buf, len, pos);
	if (pos >= len) {
		sbuf_addf(err, "empty file (no JSON value)");
		return false;
	}
	if (buf[pos] == '[') {
		js->shape = JSCAN_BARE_ARRAY;
		js->array_start = pos;
		js->pos = pos + 1;
		return true;
	}
	if (buf[pos] != '{') {
		sbuf_addf(err, _("byte %zu: expected '[' or '{' at the start, found 0x%02X"), pos,
			 (unsigned char)buf[pos]);
		return false;
	}
	/* A wrapper object: walk its members at depth 1 looking for "traceEvents". */
	pos++;
	for (;;) {
		pos = jscan_skip_ws(buf, len, pos);
		if (pos >= len) {
			sbuf_addf(err, _("byte %zu: the file ends before a \"traceEvents\" array"), pos);
			return false;
		}
		if (buf[pos] == '}') {
			sbuf_addf(err, _("byte %zu: JSON object without a \"traceEvents\" array"), pos);
			return false;
		}
		if (buf[pos] == ',') {
			pos++;
			continue;
		}
		if (buf[pos] != '"') {
			sbuf_addf(err, _("byte %zu: expected a member name, found 0x%02X"), pos,
				 (unsigned char)buf[pos]);
			return false;
		}
		size_t key_start = pos;
		size_t key_end = array_string_end(buf, len, pos + 1);
		if (key_end == NOT_FOUND) {
			sbuf_addf(err, _("byte %zu: the file ends inside a member name"), pos);
			return false;
		}
		bool is_events = key_is(buf, len, key_start, "traceEvents");
		pos = jscan_skip_ws(buf, len, key_end);
		if (pos >= len || buf[pos] != ':') {
			sbuf_addf(err, _("byte %zu: expected ':' after a member name"), pos);
			return false;
		}
		pos = jscan_skip_ws(buf, len, pos + 1);
		if (is_events) {
			if (pos >= len || buf[pos] != '[') {
				sbuf_addf(err, _("byte %zu: \"traceEvents\" is not an array"), pos);
				return false;
			}
			js->shape = JSCAN_WRAPPED;
			js->array_start = pos;
			js->pos = pos + 1;
			return true;
		}
		size_t vend = jscan_value_end(buf, len, pos);
		if (vend == NOT_FOUND) {
			sbuf_addf(err, _("byte %zu: the file ends before a \"traceEvents\" array"), pos);
			return false;
		}
		pos = vend;
	}
}

enum jscan_status jscan_next(struct jscan *js, size_t *start, size_t *end)
{
	const char *b = js->buf;
	size_t len = js->len;
	size_t pos = js->pos;
	for (;;) {
		pos = jscan_skip_ws(b, len, pos);
		if (pos >= len) {
			js->pos = len;
			return JSCAN_TRUNCATED;
		}
		char c = b[pos];
		if (c == ',') {
			pos++;
			continue;
		}
		if (c == ']') {
			js->pos = pos + 1;
			return JSCAN_END;
		}
		if (c == '{' || c == '[' || c == '"' || c == '-' || (c >= '0' && c <= '9') || c == 't' ||
		    c == 'f' || c == 'n') {
			size_t e = jscan_value_end(b, len, pos);
			if (e == NOT_FOUND) {
				js->pos = pos;
				return JSCAN_TRUNCATED;
			}
			*start = pos;
			*end = e;
			js->pos = e;
			return JSCAN_ELEMENT;
		}
		js->pos = pos;
		return JSCAN_ERROR;
	}
}

size_t jscan_resync(const char *b, size_t len, size_t pos)
{
	while (pos < len) {
		const char *q = memchr(b + pos, '{', len - pos);
		if (!q)
			return NOT_FOUND;
		size_t at = (size_t)(q - b);
		/* look back over whitespace for ',' and then '}' */
		size_t k = at;
		while (k > 0 && (b[k - 1] == ' ' || b[k - 1] == '\n' || b[k - 1] == '\r' || b[k - 1] == '\t'))
			k--;
		if (k > 0 && b[k - 1] == ',') {
			k--;
			while (k > 0 &&
			       (b[k - 1] == ' ' || b[k - 1] == '\n' || b[k - 1] == '\r' || b[k - 1] == '\t'))
				k--;
			if (k > 0 && b[k - 1] == '}')
				return at;
		}
		pos = at + 1;
	}
	return NOT_FOUND;
}
