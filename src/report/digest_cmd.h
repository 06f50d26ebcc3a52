/* SPDX-License-Identifier: MIT */
/* `--digest OUTDIR CAPTURE...`: loads and analyses each capture and writes one digest per
 * rank into OUTDIR (digest.h), never into a capture. */
#ifndef ASCPROF_DIGEST_CMD_H
#define ASCPROF_DIGEST_CMD_H

#include <stdbool.h>
#include <stddef.h>
#include <stdio.h>

#include "capture.h"

/* One line per digest written to out, messages to err. Returns 0 when every rank of every
 * capture was written, 1 otherwise, 2 when OUTDIR is inside a capture. */
int digest_command(const char *outdir, char *const *paths, size_t n, const struct capture_opts *opts, FILE *out,
		   FILE *err);

/* --summary of digests (or a cluster_analysis_output): per rank what was read and from
 * where (the capture path, its trace bytes), then the messages; JSON with json. */
struct analysis;
void digest_summary(const struct analysis *an, bool json, FILE *out);

#endif
