/* SPDX-License-Identifier: MIT */
/* Big arrays in unlinked temporary files, mapped shared: their pages are the kernel's file
 * cache, which it writes out and drops under memory pressure, rather than private memory
 * it cannot. The loaders keep their event columns, flow ends, lane lists, links, the CSV
 * tables' typed columns and the Db reader's counters here, so a trace larger than the
 * memory given to the process still loads (trace.c, db.c, lanes.c, csv_table.c).
 *
 * An array below SPILL_MIN_BYTES, or any array when no directory takes a temporary file
 * (none writable, or only memory file systems such as tmpfs, where a file would be
 * private memory under another name), is plain malloc memory: the functions below accept
 * either, so a column's owner frees it with spill_free whatever it became. The space is
 * written (zeros) before it is mapped: a full disk falls back to malloc instead of a
 * SIGBUS on first write, and the mapping finds its pages in the file cache.
 * Each spilled array keeps its file's descriptor: at most half the open-file limit go to
 * them (the soft limit is raised towards the hard one, up to 8192, on first use); past
 * that, new arrays stay in memory. ASCPROF_SPILL=0 turns spilling off (comparisons,
 * tests); ASCPROF_SPILL_DIR names the directory to use first. Thread-safe. */
#ifndef ASCPROF_SPILL_H
#define ASCPROF_SPILL_H

#include <stdbool.h>
#include <stddef.h>

/* 64 KiB: at 1 MiB the arrays below it kept a 100 MB capture's first open at 0.13-0.17 x
 * its trace in private memory; at 64 KiB 0.04-0.08 x, with the same CPU time. */
#define SPILL_MIN_BYTES ((size_t)1 << 16)

/* The directory tried first (the trace index's: on the user's disk), before $TMPDIR,
 * /var/tmp and /tmp; copied; NULL clears it. Used when it exists. */
void spill_set_dir(const char *dir);

/* Like realloc (never NULL; contents kept up to the smaller size); from SPILL_MIN_BYTES
 * on, the array moves to a file. p may be NULL, malloc'ed or spilled. */
void *spill_realloc(void *p, size_t size);
void *spill_alloc(size_t size);
/* Lazy forms, for an array written front to back by one thread (the loader's merge): the
 * space past what the array holds now is mapped but not yet written, and must be asked
 * for with spill_ensure before it is touched (a touch past it is a SIGBUS). A malloc'ed
 * result needs no asking; the calls cost nothing then. */
void *spill_realloc_lazy(void *p, size_t size);
void *spill_alloc_lazy(size_t size);
/* Makes the first upto bytes of p usable (written, page-rounded); returns p, or where the
 * array moved to in memory when its file could not grow (a full disk). */
void *spill_ensure(void *p, size_t upto);
/* xgrow over spill_realloc. */
void spill_grow(void *ptr_to_ptr, size_t *cap, size_t need, size_t elem_size);
/* Frees what spill_realloc or malloc gave (NULL is fine). */
void spill_free(void *p);
/* Gives back the whole pages in byte range [from, to) of an array whose bytes there are
 * read no more (they read as zeros after): madvise for a malloc'ed array, a hole punched
 * in a spilled one's file, whose pages a lazily grown array then reuses. Returns how far
 * pages were given back (the next call's from). */
size_t spill_release(void *buf, size_t from, size_t to);
/* Whether p is a spilled array; the bytes spilled now (tests, measurements). */
bool spill_is(const void *p);
size_t spill_bytes(void);

#endif
