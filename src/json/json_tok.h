/* SPDX-License-Identifier: MIT */
/* jsmn over one element at a time, with a growing token buffer and small accessors.
 * jsmn is the only JSON tokenizer in the project. */
#ifndef ASCPROF_JSON_TOK_H
#define ASCPROF_JSON_TOK_H

#define JSMN_HEADER
#define JSMN_STRICT
#include <jsmn.h>

#include <stdbool.h>
#include <stddef.h>

#include "sbuf.h"

/* Elements needing more tokens than this are refused (nesting bombs). */
#define JTOK_MAX_TOKENS (1 << 20)

struct jtok {
	jsmntok_t *t; /* owned */
	unsigned int cap;
	int n;
};

void jtok_init(struct jtok *jt);
void jtok_free(struct jtok *jt);
/* Tokenizes js[0..len). Returns the token count, or a negative jsmn error
 * (JSMN_ERROR_INVAL, JSMN_ERROR_PART, or JSMN_ERROR_NOMEM beyond JTOK_MAX_TOKENS). */
int jtok_parse(struct jtok *jt, const char *js, size_t len);
/* Index of the token after the whole subtree rooted at i. */
int jtok_skip(const struct jtok *jt, int i);
/* Index of the value of `key` in the object at obj, or -1. Keys compare raw (unescaped). */
int jtok_obj_get(const struct jtok *jt, const char *js, int obj, const char *key);
bool jtok_eq(const char *js, const jsmntok_t *t, const char *s);
/* The token's text with JSON escapes decoded (strings); primitives verbatim. */
void jtok_unescape(const char *js, const jsmntok_t *t, struct sbuf *out);
/* Appends the decoded text of a JSON string body (without its quotes). */
void json_unescape(const char *s, size_t len, struct sbuf *out);
/* Whether a string token contains a backslash (needs unescaping). */
bool jtok_has_escape(const char *js, const jsmntok_t *t);
const char *jtok_error_name(int err);

#endif
