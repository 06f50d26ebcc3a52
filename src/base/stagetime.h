/* SPDX-License-Identifier: MIT */
/* Where the time of a load and an analysis goes, for `make bench`: each stage adds its
 * wall time (monotonic clock, summed over the ranks and threads that ran it, so stages of
 * ranks analysed side by side can add up to more than the run) to a process-wide counter.
 * Two clock reads per stage and rank: always on, never printed unless asked
 * (ASCPROF_BENCH_OUT). With ASCPROF_STAGE_CLOCK=cpu the clock is the calling thread's CPU
 * time instead (a stage begins and ends on one thread): CPU seconds per stage, what to
 * trust on a shared machine. */
#ifndef ASCPROF_STAGETIME_H
#define ASCPROF_STAGETIME_H

#include <stdbool.h>
#include <stdio.h>

enum stage {
	STAGE_WALK,       /* the trace's ranges scanned into segments */
	STAGE_MERGE,      /* segments into the store's columns */
	STAGE_LANES,      /* lane event lists, order and nesting, the flow sort */
	STAGE_LINKS,      /* flow ends into links */
	STAGE_CSV,        /* CSV tables and communication files */
	STAGE_CLASSIFY,   /* each event's category */
	STAGE_SETS,       /* interval sets of a rank (busy, compute, comm, host-only, ...) */
	STAGE_STEPS,      /* step detection and phases */
	STAGE_METRICS,    /* window, attribution and per-step metrics */
	STAGE_OPSTATS,    /* op statistics, types and shapes */
	STAGE_TIMELINE,   /* the explorer's timeline index (the analysis hook) */
	STAGE_CAPTURE,    /* capture-level passes: alignment, communication, bottlenecks */
	STAGE_WRITE,      /* the report or summary written */
	STAGE_DIGEST,     /* digest files read and parsed (the capture-level passes over them
			   * count as STAGE_CAPTURE) */
	STAGE_COUNT
};

/* Seconds on the monotonic clock (the thread's CPU clock with ASCPROF_STAGE_CLOCK=cpu). */
double stagetime_now(void);
/* CPU seconds of the process so far, every thread (the bench's figures on a loaded machine:
 * a single-threaded run of a few milliseconds is measured in CPU, not wall, time). */
double stagetime_cpu(void);
/* True when stages are read on the thread's CPU clock: then a helper thread a stage waits
 * for adds its own time (on the wall clock the stage's span already holds it). */
bool stagetime_thread_clock(void);
/* Adds the time since t0 (a stagetime_now value) to stage s; returns now. Thread-safe. */
double stagetime_add(enum stage s, double t0);
double stagetime_seconds(enum stage s);
const char *stagetime_name(enum stage s); /* static */
/* "stage_NAME_ms VALUE" lines, one per stage (the bench's input). */
void stagetime_print(FILE *out);

#endif
