/* SPDX-License-Identifier: MIT */
/* The capture doctor: what a capture lacks for each analysis, and the profiler setting that
 * would add it (profiler level, record_shapes, with_stack, PMU metrics, a schedule), a window
 * so long that it costs loading time, a graph-mode capture without kernel_details.csv. It
 * reads what the ranks hold (their tables, profiler_info, lanes, steps): no verdict, only
 * what a next capture should switch on. */
#ifndef ASCPROF_DOCTOR_H
#define ASCPROF_DOCTOR_H

#include <stddef.h>

#include "doctor_types.h"

/* A rank's events from which a window costs loading time: about 1 GB of trace_view.json
 * (some 200 bytes an event), tens of seconds to read and index on a laptop core. */
#define DOCTOR_LONG_EVENTS 5000000u

struct analysis;
struct capture;
/* The items a loaded capture calls for, in a fixed order, each once with the ranks that
 * lack it (*out owned, freed by the caller). an (may be NULL, as for --summary): its step
 * sources, for the step check, which is left out without it. */
size_t doctor_check(const struct capture *cap, const struct analysis *an, struct doctor_item **out);
/* The items for an analysed capture (an->doctor, owned by an); none for digests. */
void doctor_run(struct analysis *an);

#endif
