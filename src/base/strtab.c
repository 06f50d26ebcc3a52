/* SPDX-License-Identifier: MIT */
/* Open-addressing string interner over a chunked arena (so pointers never move). */
#include "strtab.h"

#include <pthread.h>
#include <stdlib.h>
#include <string.h>
#include <sys/random.h>
#include <time.h>
#include <unistd.h>
#include <xxhash.h>

#include "xalloc.h"

#define CHUNK_SIZE (64 * 1024)

struct strtab_entry {
	const char *s;
	uint32_t len;
	uint32_t hash;
};

struct strtab {
	struct strtab_entry *entries;
	size_t n, cap;
	uint32_t *slots; /* id + 1, 0 = empty */
	size_t nslots;   /* power of two */
	char **chunks;
	size_t nchunks, chunks_cap;
	size_t chunk_used, chunk_size;
	size_t bytes;
	uint64_t probes; /* occupied slots passed by lookups (strtab_probes) */
};

/* XXH3 over every byte, seeded once per process from the kernel's random source: names
 * come from strangers' files, and a hash that can be steered makes every lookup walk one
 * long chain (a hand-rolled hash once ignored all but the first four bytes of 8-byte
 * words: 200k names like op000123 took 18 s). Nothing visible depends on the seed: ids
 * are given in first-seen order, the slots only decide how long a lookup walks. */
static uint64_t hash_seed;
static pthread_once_t hash_seed_once = PTHREAD_ONCE_INIT;

static void init_hash_seed(void)
{
	uint64_t s;
	if (getrandom(&s, sizeof s, GRND_NONBLOCK) != (ssize_t)sizeof s) {
		struct timespec ts;
		clock_gettime(CLOCK_MONOTONIC, &ts);
		s = ((uint64_t)ts.tv_nsec << 20) ^ (uint64_t)ts.tv_sec ^ ((uint64_t)getpid() << 40);
	}
	hash_seed = s;
}

static inline uint32_t hash_bytes(const char *s, size_t len)
{
	uint64_t h = XXH3_64bits_withSeed(s, len, hash_seed);
	return (uint32_t)(h ^ (h >> 32));
}

static char *arena_alloc(struct strtab *st, size_t n)
{
	if (st->nchunks == 0 || st->chunk_used + n > st->chunk_size) {
		size_t size = n > CHUNK_SIZE ? n : CHUNK_SIZE;
		xgrow(&st->chunks, &st->chunks_cap, st->nchunks + 1, sizeof *st->chunks);
		st->chunks[st->nchunks++] = xmalloc(size);
		st->chunk_used = 0;
		st->chunk_size = size;
		st->bytes += size;
	}
	char *p = st->chunks[st->nchunks - 1] + st->chunk_used;
	st->chunk_used += n;
	return p;
}

static void rehash(struct strtab *st, size_t nslots)
{
	free(st->slots);
	st->slots = xcalloc(nslots, sizeof *st->slots);
	st->nslots = nslots;
	for (size_t id = 0; id < st->n; id++) {
		size_t i = st->entries[id].hash & (nslots - 1);
		while (st->slots[i])
			i = (i + 1) & (nslots - 1);
		st->slots[i] = (uint32_t)id + 1;
	}
}

struct strtab *strtab_new(void)
{
	pthread_once(&hash_seed_once, init_hash_seed);
	struct strtab *st = xcalloc(1, sizeof *st);
	rehash(st, 256);
	strtab_intern(st, "", 0);
	return st;
}

void strtab_free(struct strtab *st)
{
	if (!st)
		return;
	for (size_t i = 0; i < st->nchunks; i++)
		free(st->chunks[i]);
	free(st->chunks);
	free(st->entries);
	free(st->slots);
	free(st);
}

/* The slot holding s (hash h), else the empty slot where it would go; each occupied slot
 * passed is counted in *probes when probes is not NULL. */
static inline size_t slot_of(const struct strtab *st, const char *s, size_t len, uint32_t h, uint64_t *probes)
{
	size_t i = h & (st->nslots - 1);
	while (st->slots[i]) {
		const struct strtab_entry *e = &st->entries[st->slots[i] - 1];
		if (e->hash == h && e->len == len && memcmp(e->s, s, len) == 0)
			return i;
		i = (i + 1) & (st->nslots - 1);
		if (probes)
			(*probes)++;
	}
	return i;
}

uint32_t strtab_find(const struct strtab *st, const char *s, size_t len)
{
	size_t i = slot_of(st, s, len, hash_bytes(s, len), NULL);
	return st->slots[i] ? st->slots[i] - 1 : STRTAB_NONE;
}

uint32_t strtab_intern(struct strtab *st, const char *s, size_t len)
{
	if (len > UINT32_MAX - 1)
		len = UINT32_MAX - 1; /* a 4 GB name is an error elsewhere; never overflow here */
	uint32_t h = hash_bytes(s, len);
	size_t i = slot_of(st, s, len, h, &st->probes);
	if (st->slots[i])
		return st->slots[i] - 1;
	char *copy = arena_alloc(st, len + 1);
	memcpy(copy, s, len);
	copy[len] = '\0';
	xgrow(&st->entries, &st->cap, st->n + 1, sizeof *st->entries);
	uint32_t id = (uint32_t)st->n++;
	st->entries[id] = (struct strtab_entry){copy, (uint32_t)len, h};
	st->slots[i] = id + 1;
	if (st->n * 2 > st->nslots)
		rehash(st, st->nslots * 2);
	return id;
}

uint32_t strtab_intern_cstr(struct strtab *st, const char *s) { return strtab_intern(st, s, strlen(s)); }

const char *strtab_str(const struct strtab *st, uint32_t id)
{
	return id < st->n ? st->entries[id].s : "";
}

size_t strtab_len(const struct strtab *st, uint32_t id)
{
	return id < st->n ? st->entries[id].len : 0;
}

uint32_t strtab_count(const struct strtab *st) { return (uint32_t)st->n; }

size_t strtab_bytes(const struct strtab *st)
{
	return st->bytes + st->cap * sizeof *st->entries + st->nslots * sizeof *st->slots;
}

uint64_t strtab_probes(const struct strtab *st) { return st->probes; }
