/* SPDX-License-Identifier: MIT */
/* The digest payload's encoding (digest_file.h has the file around it): one walk over the
 * fields serves the writer and the reader, each primitive writing its value or reading it
 * back, so the two cannot disagree about the order. Integers are LEB128 varints (signed
 * ones zigzag-coded), doubles their 8 bytes little-endian, strings once each (a tag: 0
 * none, 1 new: length, bytes and a NUL, k + 2 the k-th string met before), arrays a count
 * then elements. A read that goes past the payload or meets a value out of its range marks
 * the walk bad and returns zeroes from then on: the caller checks `bad` once at the end. */
#ifndef ASCPROF_DIO_H
#define ASCPROF_DIO_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "comm_json.h"
#include "sbuf.h"
#include "strtab.h"

/* Buffers a digest-read result keeps, freed together. */
struct digest_keep;
struct digest_keep *dio_keep_new(void);
void dio_keep_add(struct digest_keep *k, void *p); /* takes p (malloc'd) */
void dio_keep_free(struct digest_keep *k);

struct dio {
	bool rd;
	struct sbuf out; /* writing */
	struct strtab *seen; /* writing: strings written, by interned id ... */
	uint32_t *seq;       /* ... to their order of writing (UINT32_MAX: not yet) */
	size_t seq_cap;
	uint32_t n_strs;     /* strings met so far (both directions) */
	char *p, *end;       /* reading */
	const char **strs;   /* reading: the strings met, in order */
	size_t strs_cap;
	bool bad;
	struct digest_keep *keep; /* reading: stub tables */
};

uint64_t dio_u(struct dio *d, uint64_t v);
int64_t dio_i(struct dio *d, int64_t v);
bool dio_b(struct dio *d, bool v);
double dio_d(struct dio *d, double v);
/* An enumeration: a read value outside [0, count) makes the walk bad. */
int dio_e(struct dio *d, int v, int count);
/* A string, borrowed from the payload when read. */
const char *dio_s(struct dio *d, const char *s);
/* A string the reader owns (a copy when read). */
char *dio_os(struct dio *d, char *s);
/* A count of elements of at least min bytes each: a count the rest of the payload cannot
 * hold makes the walk bad (no allocation from a hostile count). */
size_t dio_n(struct dio *d, size_t n, size_t min);
/* arr when writing; a zeroed array of n elements when reading. */
void *dio_array(struct dio *d, void *arr, size_t n, size_t elem);
/* *len bytes, borrowed from the payload when read. */
const char *dio_bytes(struct dio *d, const char *s, size_t *len);
/* An index into a table of n entries already read. */
uint32_t dio_ix(struct dio *d, uint32_t v, size_t n);
/* A range [first, first + count) inside a table of n entries. */
void dio_range(struct dio *d, uint32_t *first, uint32_t *count, size_t n);
/* A table's count, and when reading a zeroed array of that many (into *(T **)parr, with
 * *n and *cap set). Returns the count. */
size_t dio_vec(struct dio *d, void *parr, size_t *n, size_t *cap, size_t min, size_t elem);
/* A rank's communication*.json as loaded (comm_json.h). */
void dio_comm(struct dio *d, struct comm_data *cd);

#endif
