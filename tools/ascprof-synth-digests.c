/* SPDX-License-Identifier: MIT */
/* Synthetic digests for benchmarks and tests: the first rank of a (generated) capture
 * written N times as ranks 0..N-1, one of them planted slow (its steps 30 % longer, its
 * collectives 2 us shorter than everyone else's, so the others wait for it).
 *   ascprof-synth-digests CAPTURE OUTDIR N [SLOW_RANK]
 * Prints the bytes written and the capture's trace bytes. */
#include "config.h"

#include <stdio.h>
#include <stdlib.h>

#include "analysis.h"
#include "capture.h"
#include "digest.h"
#include "summary.h"

int main(int argc, char **argv)
{
	if (argc < 4) {
		fputs("usage: ascprof-synth-digests CAPTURE OUTDIR N [SLOW_RANK]\n", stderr);
		return 2;
	}
	int n = atoi(argv[3]), slow_rank = argc > 4 ? atoi(argv[4]) : -1;
	struct capture *cap = capture_open(argv[1], NULL);
	if (!cap->usable || n < 1) {
		fprintf(stderr, "ascprof-synth-digests: nothing to load in %s\n", argv[1]);
		capture_free(cap);
		return 1;
	}
	capture_load(cap);
	struct analysis *an = analysis_run(cap);
	if (!an->n_ranks) {
		fputs("ascprof-synth-digests: no rank analysed\n", stderr);
		return 1;
	}
	struct rank_analysis *ra = &an->ranks[0];
	struct diag_list dl;
	diag_init(&dl);
	uint64_t total = 0;
	int rc = 0;
	for (int r = 0; r < n && !rc; r++) {
		bool slow = r == slow_rank;
		ra->rank = r;
		if (slow)
			for (size_t s = 0; s < ra->n_steps; s++)
				ra->steps[s].end += (ra->steps[s].end - ra->steps[s].start) * 3 / 10;
		for (size_t i = 0; i < an->n_colls[0]; i++)
			an->colls[0][i].dur += slow ? -1000 : 1000;
		/* the communication records speak for rank r too */
		struct comm_data *cm = &cap->ranks[ra->rank_index].comm;
		for (size_t i = 0; i < cm->n_ops; i++)
			cm->ops[i].rank = r;
		for (size_t i = 0; i < cm->n_links; i++)
			cm->links[i].rank = r;
		uint64_t bytes = 0;
		rc = digest_write(an, 0, argv[2], &dl, &bytes);
		total += bytes;
		for (size_t i = 0; i < an->n_colls[0]; i++)
			an->colls[0][i].dur -= slow ? -1000 : 1000;
		if (slow)
			for (size_t s = 0; s < ra->n_steps; s++)
				ra->steps[s].end = ra->steps[s].start + (ra->steps[s].end - ra->steps[s].start) * 10 / 13;
	}
	summary_print_diags(&dl, stderr, "");
	diag_free(&dl);
	printf("%d digests, %llu bytes; trace bytes per rank %llu\n", n, (unsigned long long)total,
	       (unsigned long long)cap->ranks[ra->rank_index].trace_bytes_total);
	analysis_free(an);
	capture_free(cap);
	return rc ? 1 : 0;
}
