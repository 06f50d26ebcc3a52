/* SPDX-License-Identifier: MIT */
#include "stagetime.h"

#include <stdatomic.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

static _Atomic uint64_t stage_ns[STAGE_COUNT];

static const char *const names[STAGE_COUNT] = {
	[STAGE_WALK] = "walk",         [STAGE_MERGE] = "merge",     [STAGE_LANES] = "lanes",
	[STAGE_LINKS] = "links",       [STAGE_CSV] = "csv",         [STAGE_CLASSIFY] = "classify",
	[STAGE_SETS] = "sets",         [STAGE_STEPS] = "steps",     [STAGE_METRICS] = "metrics",
	[STAGE_OPSTATS] = "opstats",   [STAGE_TIMELINE] = "timeline", [STAGE_CAPTURE] = "capture",
	[STAGE_WRITE] = "write",       [STAGE_DIGEST] = "digest",
};

/* The clock stages are read on: 0 not chosen yet, else the clock's id plus one. Any thread
 * may choose it first: they all choose the same. */
static _Atomic int stage_clock;

static clockid_t stage_clock_id(void)
{
	int c = atomic_load_explicit(&stage_clock, memory_order_relaxed);
	if (!c) {
		const char *e = getenv("ASCPROF_STAGE_CLOCK");
		c = (e && !strcmp(e, "cpu") ? (int)CLOCK_THREAD_CPUTIME_ID : (int)CLOCK_MONOTONIC) + 1;
		atomic_store_explicit(&stage_clock, c, memory_order_relaxed);
	}
	return (clockid_t)(c - 1);
}

bool stagetime_thread_clock(void) { return stage_clock_id() == CLOCK_THREAD_CPUTIME_ID; }

double stagetime_now(void)
{
	struct timespec ts;
	clock_gettime(stage_clock_id(), &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

double stagetime_cpu(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

double stagetime_add(enum stage s, double t0)
{
	double t = stagetime_now();
	if ((unsigned)s < STAGE_COUNT && t > t0)
		atomic_fetch_add_explicit(&stage_ns[s], (uint64_t)((t - t0) * 1e9), memory_order_relaxed);
	return t;
}

double stagetime_seconds(enum stage s)
{
	return (unsigned)s < STAGE_COUNT ? (double)atomic_load_explicit(&stage_ns[s], memory_order_relaxed) / 1e9
					 : 0;
}

const char *stagetime_name(enum stage s) { return (unsigned)s < STAGE_COUNT ? names[s] : "?"; }

void stagetime_print(FILE *out)
{
	for (int s = 0; s < STAGE_COUNT; s++)
		fprintf(out, "stage_%s_ms %.3f\n", names[s], stagetime_seconds((enum stage)s) * 1e3);
}
