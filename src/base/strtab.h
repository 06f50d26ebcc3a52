/* SPDX-License-Identifier: MIT */
/* String interning: each distinct byte string gets a small integer id. Ids are dense
 * (0 .. count-1) and id 0 is always the empty string. Pointers returned stay valid until
 * the table is freed. Not thread-safe: one table per loader thread, merged afterwards. */
#ifndef ASCPROF_STRTAB_H
#define ASCPROF_STRTAB_H

#include <stddef.h>
#include <stdint.h>

#define STRTAB_NONE UINT32_MAX

struct strtab;

struct strtab *strtab_new(void); /* owned: strtab_free */
void strtab_free(struct strtab *st);
uint32_t strtab_intern(struct strtab *st, const char *s, size_t len);
uint32_t strtab_intern_cstr(struct strtab *st, const char *s);
/* The id of s, or STRTAB_NONE. */
uint32_t strtab_find(const struct strtab *st, const char *s, size_t len);
/* NUL-terminated (the string itself may hold NULs; use strtab_len); borrowed. */
const char *strtab_str(const struct strtab *st, uint32_t id);
size_t strtab_len(const struct strtab *st, uint32_t id);
uint32_t strtab_count(const struct strtab *st);
/* Memory held, for the bytes-per-event figure. */
size_t strtab_bytes(const struct strtab *st);
/* Occupied slots that strtab_intern passed before its answer, over the table's life:
 * about the number of interns when the hash spreads names (tests). */
uint64_t strtab_probes(const struct strtab *st);

#endif
