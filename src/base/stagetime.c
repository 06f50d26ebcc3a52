/* SPDX-License-Identifier: MIT */
#include "stagetime.h"

#include <stdatomic.h>
#include <stdint.h>
#include <time.h>

static _Atomic uint64_t stage_ns[STAGE_COUNT];

static const char *const names[STAGE_COUNT] = {
	[STAGE_WALK] = "walk",         [STAGE_MERGE] = "merge",     [STAGE_LANES] = "lanes",
	[STAGE_LINKS] = "links",       [STAGE_CSV] = "csv",         [STAGE_CLASSIFY] = "classify",
	[STAGE_SETS] = "sets",         [STAGE_STEPS] = "steps",     [STAGE_METRICS] = "metrics",
	[STAGE_OPSTATS] = "opstats",   [STAGE_TIMELINE] = "timeline", [STAGE_CAPTURE] = "capture",
	[STAGE_WRITE] = "write",       [STAGE_DIGEST] = "digest",
};

double stagetime_now(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
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
