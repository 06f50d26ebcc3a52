/* SPDX-License-Identifier: MIT */
/* jsmn over one element at a time, with a growing token buffer and small accessors.
 * jsmn is the only JSON tokenizer in the project. */
#ifndef ASCPROF_JSON_TOK_H
#define ASCPROF_JSON_TOK_H

#define JSMN_HEADER
#define JSMN_STRICT
/* Parent links make jsmn linear: without them every closing bracket and every comma
 * after a nested value walks back over all the tokens before it, and 100k nested
 * brackets took seconds (issue 22). Every includer must see the same token layout. */
#define JSMN_PARENT_LINKS
#include <jsmn.h>

#include <stdbool.h>
#include <stddef.h>

#include "sbuf.h"

/* Elements needing more tokens than this are refused (nesting bombs). */
#define JTOK_MAX_TOKENS (1 << 20)
/* Nesting deeper than this is refused before jsmn sees it: with parent links jsmn's
 * walk at a closing bracket is as long as the nesting below it, so the limit keeps
 * every parse linear (100k levels took seconds). Real captures nest a few levels. */
#define JTOK_MAX_DEPTH 64
/* jtok_parse's answer for nesting beyond JTOK_MAX_DEPTH (beside jsmn's -1..-3). */
#define JTOK_ERROR_DEPTH (-4)

struct jtok {
	jsmntok_t *t; /* owned */
	unsigned int cap;
	int n;
};

void jtok_init(struct jtok *jt);
void jtok_free(struct jtok *jt);
/* Tokenizes js[0..len). Returns the token count, or a negative jsmn error
 * (JSMN_ERROR_INVAL, JSMN_ERROR_PART, or JSMN_ERROR_NOMEM beyond JTOK_MAX_TOKENS), or
 * JTOK_ERROR_DEPTH for nesting beyond JTOK_MAX_DEPTH. Linear in len. */
int jtok_parse(struct jtok *jt, const char *js, size_t len);
/* The deepest nesting of brackets outside strings in js[0..len) (1 for a flat object),
 * counting no further than limit + 1. */
int jtok_depth(const char *js, size_t len, int limit);
/* Replaces in place every array or object nested deeper than keep with a 0 and spaces,
 * so that the text keeps its length and every shallower value its offset; returns how
 * many were replaced. An unclosed one is replaced to the end. */
size_t jtok_flatten_deep(char *js, size_t len, int keep);
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
const char *jtok_error_name(int err); /* static */

#endif
