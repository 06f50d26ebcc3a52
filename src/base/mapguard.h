/* SPDX-License-Identifier: MIT */
/* Reading mapped files that may shrink while they are read.
 *
 * A read of a mapped page beyond a file's end raises SIGBUS: a trace or CSV truncated while
 * it loads would kill the process without a word. mapguard_run runs a reader with such
 * faults on one range caught for the calling thread only (a thread-local jump buffer, so
 * the parallel walkers each have their own); a fault elsewhere goes to the handler that
 * was there before. The handler is installed while at least one guard is active and the
 * previous one restored after the last. The reader must not hold locks or leave shared
 * state half-updated while it reads the range: a fault leaves it where it was. */
#ifndef ASCPROF_MAPGUARD_H
#define ASCPROF_MAPGUARD_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/* Runs fn(arg) with faults on [base, base + len) caught. True when fn returned; false when a
 * read of the range faulted, with *fault_off the offset of the first byte that could not
 * be read (a page boundary). Guards nest per thread: the innermost one catches. */
bool mapguard_run(const void *base, size_t len, void (*fn)(void *), void *arg, size_t *fault_off);

/* Why mapguard_map_file did not map a file (each reader words and grades it itself). */
enum map_file_status {
	MAP_FILE_OK,
	MAP_FILE_CANNOT_OPEN, /* *err: errno */
	MAP_FILE_NOT_REGULAR,
	MAP_FILE_EMPTY,
	MAP_FILE_TOO_BIG,     /* over max_bytes */
	MAP_FILE_CANNOT_MAP,  /* *err: errno */
};
/* Maps path read-only for a read front to back (MADV_SEQUENTIAL); max_bytes 0: no limit.
 * *size is the file's size once it is known to be a regular file (also when empty or too
 * big). On MAP_FILE_OK, *map (owned: munmap it, *size bytes) and, when fd is not NULL, the
 * open descriptor in *fd (owned: close it); otherwise nothing is left open. */
enum map_file_status mapguard_map_file(const char *path, uint64_t max_bytes, void **map, uint64_t *size, int *fd,
				       int *err);

#endif
