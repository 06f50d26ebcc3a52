/* SPDX-License-Identifier: MIT */
/* The report modes of the command line, once it is parsed: --summary and --report (text
 * or JSON) of a capture or a directory of digests, and --report of a comparison (--compare,
 * --compare-ranks); the progress line on stderr, the index writes put off until the output
 * is out, and `make bench`'s figures (ASCPROF_BENCH_OUT). The program's main parses the
 * options and calls report_cli_run; nothing here draws on a terminal. */
#ifndef ASCPROF_REPORT_CLI_H
#define ASCPROF_REPORT_CLI_H

#include <stdbool.h>

#include "capture.h"

enum report_cli_mode { REPORT_CLI_SUMMARY, REPORT_CLI_REPORT };
enum report_cli_compare {
	REPORT_CLI_ONE,      /* one capture (or directory of digests): paths[0] */
	REPORT_CLI_CAPTURES, /* --compare: paths[0] BEFORE, paths[1] AFTER */
	REPORT_CLI_RANKS,    /* --compare-ranks ranks[0] ranks[1] of paths[0] */
};

/* The parsed command line; the strings are borrowed from argv (they outlive the run). */
struct report_cli_opts {
	enum report_cli_mode mode; /* REPORT_CLI_REPORT for every comparison */
	bool json;
	enum report_cli_compare compare;
	const char *paths[2];
	int ranks[2];
	/* the capture options (index.defer, when set, owned by the caller: its writes run
	 * here once the output is flushed) */
	struct capture_opts capture;
	/* the process's CPU seconds (stagetime_cpu) and the wall clock (stagetime_now) when
	 * main started: the benchmarks' start-up and time to the result */
	double cpu_start, wall_start;
};

/* Writes the report or summary asked for to stdout, messages to stderr; returns the
 * process's exit status (0, or 1 when nothing could be loaded or compared). With
 * capture.index.defer it ignores SIGPIPE until the indexes are written, then ends by it
 * as the write would have. */
int report_cli_run(const struct report_cli_opts *opts);

#endif
