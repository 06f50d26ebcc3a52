/* SPDX-License-Identifier: MIT */
/* The loaders' 64-bit key map. */
#include "u64map.h"

#include <stdlib.h>
#include <string.h>

#include "xalloc.h"

void u64map_free(struct u64map *m)
{
	free(m->keys);
	free(m->vals);
	memset(m, 0, sizeof *m);
}

uint32_t *u64map_slot(struct u64map *m, uint64_t key, bool *found)
{
	if (m->cap == 0 || (m->n + 1) * 2 > m->cap) {
		size_t ncap = m->cap ? m->cap * 2 : 64;
		uint64_t *nk = xcalloc(ncap, sizeof *nk);
		uint32_t *nv = xcalloc(ncap, sizeof *nv);
		for (size_t i = 0; i < m->cap; i++) {
			if (!m->keys[i])
				continue;
			size_t j = mix64(m->keys[i]) & (ncap - 1);
			while (nk[j])
				j = (j + 1) & (ncap - 1);
			nk[j] = m->keys[i];
			nv[j] = m->vals[i];
		}
		free(m->keys);
		free(m->vals);
		m->keys = nk;
		m->vals = nv;
		m->cap = ncap;
	}
	uint64_t k = key + 1;
	size_t i = mix64(k) & (m->cap - 1);
	while (m->keys[i]) {
		if (m->keys[i] == k) {
			*found = true;
			return &m->vals[i];
		}
		i = (i + 1) & (m->cap - 1);
	}
	m->keys[i] = k;
	m->n++;
	*found = false;
	return &m->vals[i];
}

const uint32_t *u64map_get(const struct u64map *m, uint64_t key)
{
	if (m->cap == 0)
		return NULL;
	uint64_t k = key + 1;
	size_t i = mix64(k) & (m->cap - 1);
	while (m->keys[i]) {
		if (m->keys[i] == k)
			return &m->vals[i];
		i = (i + 1) & (m->cap - 1);
	}
	return NULL;
}
