/* SPDX-License-Identifier: MIT */
/* msprof-analyze's cluster step table over arbitrary bytes (issue 41): the input is written
 * as cluster_step_trace_time.csv in a directory of its own, opened as a cluster output
 * (cluster_output_open: rank rows, sums, the ranks x steps table, slow ranks) and reported
 * in text and JSON. Sums past int64, ragged rows, huge rank or step numbers must end with a
 * message, never undefined arithmetic or memory of ranks x steps. */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "analysis.h"
#include "cluster.h"
#include "report.h"
#include "xalloc.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	static char dir[4096];
	if (!dir[0]) {
		const char *tmp = getenv("TMPDIR");
		snprintf(dir, sizeof dir, "%s/ascprof-fuzz-cluster-XXXXXX", tmp && *tmp ? tmp : "/tmp");
		if (!mkdtemp(dir))
			abort();
	}
	char *path = xasprintf("%s/cluster_step_trace_time.csv", dir);
	FILE *f = fopen(path, "wb");
	if (!f || fwrite(data, 1, size, f) != size)
		abort();
	fclose(f);
	struct analysis *an = analysis_from_cluster_output(dir);
	FILE *null = fopen("/dev/null", "w");
	if (!null)
		abort();
	report_print_text(an, null);
	report_print_json(an, null);
	fclose(null);
	analysis_free(an);
	unlink(path);
	free(path);
	return 0;
}
