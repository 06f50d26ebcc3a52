/* SPDX-License-Identifier: MIT */
/* Op statistics per scope and phase (counting-sort groups, percentiles by selection), by
 * type and by shape, with the CSV tables' totals beside the trace's. */
#ifndef ASCPROF_OPSTATS_H
#define ASCPROF_OPSTATS_H

#include <stdbool.h>
#include <stddef.h>

#include "capture.h"
#include "diag.h"
#include "evkind.h"
#include "result.h"

/* One rank's op statistics, in two parts: what needs only the classes and the CSV tables
 * (the op instances counted per name, the tables' totals, the shapes), which may run
 * before the steps are known, then the rest (which reads the steps' windows and phases and
 * frees p). They may read the store, the CSV tables, ra->rank, ra->cls and the steps, and
 * write only ra->ops, ra->n_ops, ra->ops_source, ra->op_types, ra->op_shapes (and their
 * counts) and their messages (dl); neither part adds a message before the second's end.
 * threaded: the rows of half the names are computed on a helper thread of their own; the
 * rows come out in the same order either way. */
struct ops_prep;
struct ops_prep *opstats_prepare(const struct capture *cap, size_t rank_index, struct rank_analysis *ra);
void opstats_finish(const struct capture *cap, size_t rank_index, struct rank_analysis *ra,
			 struct diag_list *dl, bool threaded, struct ops_prep *p);

#endif
