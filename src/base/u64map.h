/* SPDX-License-Identifier: MIT */
/* A small open-addressing map from 64-bit keys to 32-bit values (lanes, kinds, attribute
 * pairs and tracks of the loaders). */
#ifndef ASCPROF_U64MAP_H
#define ASCPROF_U64MAP_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

struct u64map {
	uint64_t *keys; /* owned, cap slots */
	uint32_t *vals; /* owned, parallel to keys */
	size_t n, cap; /* cap is a power of two; a key of 0 is stored +1 shifted, see below */
};

static inline uint64_t mix64(uint64_t k)
{
	k ^= k >> 33;
	k *= 0xff51afd7ed558ccdULL;
	k ^= k >> 33;
	return k;
}

void u64map_free(struct u64map *m);
/* The value slot for key, inserted (zero) when absent; *found says which. Keys are stored
 * as key+1 so that 0 marks an empty slot; callers never use UINT64_MAX. */
uint32_t *u64map_slot(struct u64map *m, uint64_t key, bool *found); /* valid until the next slot call */
/* The value for key (valid until the next slot call), or NULL; never inserts. */
const uint32_t *u64map_get(const struct u64map *m, uint64_t key);

#endif
