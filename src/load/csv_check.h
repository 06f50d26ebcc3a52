/* SPDX-License-Identifier: MIT */
/* Checks of what a loaded table's rows mean, beyond their syntax: step ids that are not
 * numbers, repeat or go backwards; negative memory totals; a release before its allocation; a
 * memory sample without a time. Each is a warning naming the file and line (the rows
 * are kept as they are): a table that is wrong this way gives wrong figures otherwise
 * without a word. */
#ifndef ASCPROF_CSV_CHECK_H
#define ASCPROF_CSV_CHECK_H

#include "csv_table.h"
#include "diag.h"

void csv_check_table(const struct csv_table *t, struct diag_list *dl);

#endif
