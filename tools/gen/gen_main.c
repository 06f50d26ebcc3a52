/* SPDX-License-Identifier: MIT */
/* ascprof-gen: --target-bytes calibration and the driver (the command line: gen_opts.c). */
#include "gen.h"
#include "gen_db.h"

/* Trace bytes of the largest rank for a given step count (count-only run). */
static uint64_t measure(const struct opts *o, int steps)
{
	struct gen G;
	gen_init(&G, o, steps);
	gen_simulate(&G);
	uint64_t mx = 0;
	for (int r = 0; r < o->ranks; r++) {
		struct tw t;
		uint64_t n = write_trace(&G, &G.rk[r], NULL, &t);
		if (n > mx)
			mx = n;
	}
	gen_free(&G);
	return mx;
}

/* --target-bytes: trace size is linear in the decode-step count, so fit it on two short runs. */
static int calibrate(const struct opts *o)
{
	int minsteps = (o->prefill > 0 ? o->prefill : 0) + 1;
	int s0 = minsteps + 2, s1 = s0 + 24;
	uint64_t b0 = measure(o, s0), b1 = measure(o, s1);
	double per = (double)(b1 - b0) / (s1 - s0);
	double want = (double)o->target_bytes;
	long long steps = s0 + llround((want - (double)b0) / (per > 1 ? per : 1));
	if (steps < minsteps)
		steps = minsteps;
	if (steps > 10000000)
		die("--target-bytes %" PRId64 " needs more than 10^7 steps", o->target_bytes);
	return (int)steps;
}

int main(int argc, char **argv)
{
	struct opts o;
	parse_opts(argc, argv, &o);
	if (o.check_only)
		return self_check(o.out) ? 1 : 0;
	int steps = o.steps;
	if (o.target_bytes && !o.raw)
		steps = calibrate(&o);
	mkdir_p(o.out);
	if (!o.force && !dir_empty(o.out))
		usage_error("%s is not empty (use --force to write into it anyway)", o.out);
	struct gen G;
	gen_init(&G, &o, steps);
	gen_simulate(&G);
	struct rank_out *ro = xcalloc((size_t)o.ranks, sizeof *ro);
	for (int r = 0; r < o.ranks; r++)
		write_rank(&G, &G.rk[r], &ro[r]);
	write_truth(&G, ro);
	if (o.serving && !o.raw)
		gen_serving(&G);
	if (o.cluster_db && gen_cluster_db(o.out, o.slow_rank) != 0)
		die("the cluster_analysis.db failed");
	for (int r = 0; r < o.ranks && o.export_db; r++) {
		char wd[4096];
		path_join(wd, sizeof wd, o.out, G.rk[r].dir);
		if (gen_db_export(wd, G.rk[r].r, o.export_db == 2) != 0)
			die("the Db export of rank %d failed", r);
	}
	if (o.target_bytes && !o.raw) {
		uint64_t mx = 0;
		for (int r = 0; r < o.ranks; r++)
			mx = ro[r].trace_bytes > mx ? ro[r].trace_bytes : mx;
		if (!o.truncate_at &&
		    (mx * 10 < (uint64_t)o.target_bytes * 9 || mx * 10 > (uint64_t)o.target_bytes * 11))
			fprintf(stderr,
			        "%s: note: trace is %" PRIu64 " bytes for --target-bytes %" PRId64
			        " (%d steps; the smallest capture has %d)\n",
			        prog, mx, o.target_bytes, steps, (o.prefill > 0 ? o.prefill : 0) + 1);
	}
	for (int r = 0; r < o.ranks; r++) {
		free(ro[r].ragged.buf);
		free(ro[r].excel.buf);
	}
	free(ro);
	gen_free(&G);
	if (o.self_check)
		return self_check(o.out) ? 1 : 0;
	return 0;
}
