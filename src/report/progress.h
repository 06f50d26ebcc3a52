/* SPDX-License-Identifier: MIT */
/* A progress line for the non-interactive modes (--report, --summary, --digest): files,
 * trace bytes read of the total, ranks done and the stage, on one line of stderr redrawn
 * in place every 100 ms by a thread of its own, and cleared at the end. Only when stderr
 * is a terminal: never in stdout, nothing at all in a pipe or a file. Every function
 * accepts NULL (no terminal). Only numbers and fixed words are written, never capture
 * bytes. */
#ifndef ASCPROF_PROGRESS_H
#define ASCPROF_PROGRESS_H

#include <stdatomic.h>
#include <stddef.h>

#include "capture.h"

/* Stopped before the output is written: stdout may be the same terminal. */
enum progress_stage { PROGRESS_LOADING, PROGRESS_ANALYSING };

struct progress;
/* Starts the line for cap (borrowed, must outlive the progress) when fd 2 is a terminal;
 * NULL otherwise. */
struct progress *progress_start(const struct capture *cap);
void progress_stage(struct progress *p, enum progress_stage s);
/* The counter of ranks analysed, for analysis_hook.ranks_done (NULL without a line). */
_Atomic size_t *progress_ranks_counter(struct progress *p);
/* Clears the line and frees p; before anything else is written to stderr. */
void progress_stop(struct progress *p);
/* The line for the current state into buf (exposed for tests). */
void progress_format(const struct capture *cap, enum progress_stage s, size_t ranks_analysed, char *buf,
		     size_t size);

#endif
