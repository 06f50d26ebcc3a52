/* SPDX-License-Identifier: MIT */
/* Makes capture bytes safe for a terminal. Op names and args come from strangers'
 * machines: an ESC, OSC 52 or bidi override in them must never reach the terminal. */
#ifndef ASCPROF_SANITIZE_H
#define ASCPROF_SANITIZE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "sbuf.h"

/* Appends s with every unsafe sequence written as visible text: C0 controls and DEL as
 * \t \n \r \e \a or \xNN, C1 controls and bidi/line-separator controls as \u{XXXX},
 * invalid UTF-8 bytes as \xNN. A literal backslash stays a backslash. */
void sanitize_append(struct sbuf *sb, const char *s, size_t len);
/* The same into a fresh string (owned by the caller). */
char *sanitize_dup(const char *s, size_t len);
/* True when sanitize_append would copy s unchanged. */
bool sanitize_is_clean(const char *s, size_t len);
/* True for code points that must not be written to a terminal as they are. */
bool sanitize_unsafe_codepoint(unsigned cp);
/* The first byte of s that does not start valid UTF-8 (u8_check's answer), or NULL. */
const uint8_t *sanitize_utf8_first_bad(const uint8_t *s, size_t n);
/* The instruction set of sanitize_utf8_first_bad's ASCII runs, fixed at build: sse2,
 * neon or scalar (--version names it). */
const char *sanitize_isa_name(void); /* static */

#endif
