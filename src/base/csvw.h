/* SPDX-License-Identifier: MIT */
/* Tables written out as CSV (the explorer's :export): RFC 4180 quoting, and a file opened
 * only where the user said and never inside a capture. */
#ifndef ASCPROF_CSVW_H
#define ASCPROF_CSVW_H

#include <stdbool.h>
#include <stddef.h>
#include <stdio.h>

#include "sbuf.h"

/* path resolved through symlinks, also where it (or some of its directories) does not
 * exist yet, a dangling symlink followed to where it points; NULL when it cannot be. */
char *csvw_resolve(const char *path);
/* Whether path (existing or not) lies in the directory tree of root (a directory or a
 * file; a file's own directory counts), both resolved through symlinks (csvw_resolve). */
bool csvw_path_inside(const char *path, const char *root);
/* Opens path for a CSV table: refused (NULL, why in err) when it lies inside any of the
 * n roots (NULL ones skipped), or exists and overwrite is false, or is a symlink, not a
 * regular file, or a file with other hard links. The caller owns the FILE (fclose). */
FILE *csvw_open(const char *path, const char *const *roots, size_t n, bool overwrite, struct sbuf *err);
/* One row of n cells (NULL cells are empty), quoted where a cell holds a comma, a quote,
 * a line break or leading/trailing spaces; ends with CRLF as RFC 4180 says. */
void csvw_row(FILE *f, const char *const *cells, size_t n);

#endif
