/* SPDX-License-Identifier: MIT */
/* The capture doctor's item (doctor.h fills them), below result.h, which holds them in the
 * analysis. */
#ifndef ASCPROF_DOCTOR_TYPES_H
#define ASCPROF_DOCTOR_TYPES_H

#include <stddef.h>

struct doctor_item {
	const char *what_missing; /* static, N_(): "Input Dims on framework ops (record_shapes)" */
	const char *affects;      /* static, N_(): the analyses that go without it */
	const char *setting;      /* static: the profiler setting that adds it (code, untranslated) */
	size_t ranks;             /* the ranks that lack it */
};

#endif
