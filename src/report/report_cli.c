/* SPDX-License-Identifier: MIT */
/* The report modes of the command line (report_cli.h). */
#include "config.h"
#include "report_cli.h"

#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <unistd.h>

#include "analysis.h"
#include "compare.h"
#include "digest.h"
#include "digest_cmd.h"
#include "i18n.h"
#include "progress.h"
#include "report.h"
#include "stagetime.h"
#include "summary.h"
#include "trace_index.h"

/* Loads cap and, with `analyse`, analyses it (NULL otherwise), showing the progress on
 * stderr when it is a terminal (progress.h): the non-interactive modes call this. */
static struct analysis *load_with_progress(struct capture *cap, bool analyse)
{
	struct progress *prog = progress_start(cap); /* NULL unless stderr is a terminal */
	if (cap->usable)
		capture_load(cap);
	struct analysis *an = NULL;
	if (analyse) {
		progress_stage(prog, PROGRESS_ANALYSING);
		struct analysis_hook hook = {.ranks_done = progress_ranks_counter(prog)};
		an = analysis_index_run(cap, &hook, NULL); /* from the index when it holds it */
	}
	progress_stop(prog); /* cleared before anything is written */
	return an;
}

/* The process's CPU time at main's start, once the capture or the digests are open, and
 * once the report is written (bench_stages); the wall clock at main's start, the time to
 * the output flushed and the time of the index writes after it. */
static double cpu_main, cpu_opened, cpu_written;
static double wall_main, result_s, index_write_s;
static double open_s, load_s; /* the capture opened, loaded and analysed; its load alone */

static void run_deferred(struct tindex_defer *d, bool release);

/* The index writes put off until the output is out (tindex_opts.defer): the output is
 * flushed and, with release, let go (stdout becomes /dev/null, so a reader of a pipe sees
 * its end now, not after the writes); then they run, and one that fails says so. */
static void write_deferred(struct tindex_defer *d, bool release)
{
	fflush(stdout);
	/* a reader that left early (| head): SIGPIPE was put off too (report_cli_run), so that
	 * the indexes are still written; the process then ends by it as it would have */
	struct pollfd pf = {.fd = STDOUT_FILENO, .events = POLLOUT};
	bool broken = ferror(stdout) && poll(&pf, 1, 0) == 1 && (pf.revents & POLLERR);
	if (d && tindex_defer_pending(d))
		run_deferred(d, release);
	if (broken) {
		signal(SIGPIPE, SIG_DFL);
		raise(SIGPIPE);
	}
}

static void run_deferred(struct tindex_defer *d, bool release)
{
	if (release) {
		int fd = open("/dev/null", O_WRONLY | O_CLOEXEC);
		if (fd >= 0) {
			dup2(fd, STDOUT_FILENO);
			close(fd);
		}
	}
	double t0 = stagetime_now();
	tindex_defer_run(d);
	summary_print_diags(tindex_defer_failures(d), stderr, "");
	index_write_s += stagetime_now() - t0;
}

/* --report with --compare or --compare-ranks. */
static int report_compare(const struct report_cli_opts *ao, const char *const paths[2], bool json)
{
	int n = ao->compare == REPORT_CLI_CAPTURES ? 2 : 1, rc = 0;
	struct capture *cap[2] = {NULL, NULL};
	struct analysis *an[2] = {NULL, NULL};
	for (int i = 0; i < n; i++) {
		cap[i] = capture_open(paths[i], &ao->capture);
		if (!cap[i]->usable)
			rc = 1;
		an[i] = load_with_progress(cap[i], true);
	}
	struct comparison *c = ao->compare == REPORT_CLI_CAPTURES
				       ? compare_captures(an[0], an[1])
				       : compare_ranks(an[0], ao->ranks[0], ao->ranks[1]);
	if (rc) {
		for (int i = 0; i < n; i++)
			if (!cap[i]->usable)
				summary_print_diags(&cap[i]->diags, stderr, "");
		fputs(_("ascprof-tui: nothing to load for one of the captures; see the messages above\n"), stderr);
	} else if (!c) {
		fprintf(stderr, _("ascprof-tui: --compare-ranks %d %d: no such rank in %s\n"), ao->ranks[0],
			ao->ranks[1], paths[0]);
		rc = 1;
	} else if (json) {
		report_compare_json(c, stdout);
	} else {
		report_compare_text(c, stdout);
	}
	result_s = stagetime_now() - wall_main;
	write_deferred(ao->capture.index.defer, true);
	compare_free(c);
	for (int i = 0; i < n; i++) {
		analysis_free(an[i]);
		capture_free(cap[i]);
	}
	return rc;
}

/* `make bench`: where the time went (stagetime.h), to ASCPROF_BENCH_OUT when set: the
 * stages, then the CPU before main (exec and the dynamic loader), to open, to write. */
static void bench_stages(void)
{
	const char *path = getenv("ASCPROF_BENCH_OUT");
	FILE *f = path && *path ? fopen(path, "w") : NULL;
	if (!f)
		return;
	stagetime_print(f);
	fprintf(f, "cpu_startup_ms %.3f\ncpu_open_ms %.3f\ncpu_write_ms %.3f\n", cpu_main * 1e3,
		(cpu_opened - cpu_main) * 1e3, (cpu_written - cpu_opened) * 1e3);
	fprintf(f, "result_ms %.1f\nresult_cpu_ms %.1f\nindex_write_ms %.1f\n", result_s * 1e3, cpu_written * 1e3,
		index_write_s * 1e3);
	fprintf(f, "open_ms %.1f\nload_ms %.1f\n", open_s * 1e3, load_s * 1e3);
	fclose(f);
}

int report_cli_run(const struct report_cli_opts *opts)
{
	cpu_main = opts->cpu_start;
	wall_main = opts->wall_start;
	struct report_cli_opts ro = *opts;
	bool json = ro.json;
	const char *path = ro.paths[0];
	if (json)
		i18n_english();
	/* --report and --summary verify an index's event columns only if they read them (the
	 * explorer's views read them from the start) */
	ro.capture.index.lazy = true;
	/* a pipe's reader leaving early must not take the indexes with it: the output's
	 * SIGPIPE waits until they are written (write_deferred) */
	if (ro.capture.index.defer)
		signal(SIGPIPE, SIG_IGN);
	if (ro.compare != REPORT_CLI_ONE) {
		const char *paths[2] = {path, ro.paths[1]};
		return report_compare(&ro, paths, json);
	}

	struct analysis *sum_an = analysis_open_summaries(path);
	if (sum_an) {
		struct analysis *an = sum_an;
		cpu_opened = stagetime_cpu();
		double t_sum = stagetime_now();
		if (ro.mode != REPORT_CLI_REPORT)
			digest_summary(an, json, stdout);
		else if (json)
			report_print_json(an, stdout);
		else
			report_print_text(an, stdout);
		fflush(stdout);
		stagetime_add(STAGE_WRITE, t_sum);
		cpu_written = stagetime_cpu();
		result_s = stagetime_now() - wall_main;
		write_deferred(ro.capture.index.defer, true); /* nothing to write: a broken pipe's signal */
		bench_stages();
		int drc = an->n_ranks ? 0 : 1;
		if (!an->n_ranks)
			fputs(_("ascprof-tui: no rank could be read; see the messages above\n"), stderr);
		analysis_free(an);
		return drc;
	}
	double t_open = stagetime_now();
	/* the summary shows which PMU columns a Db's kernel table has, never a value */
	ro.capture.no_counter_values = ro.mode != REPORT_CLI_REPORT;
	struct capture *cap = capture_open(path, &ro.capture);
	struct analysis *an = load_with_progress(cap, ro.mode == REPORT_CLI_REPORT);
	cpu_opened = stagetime_cpu();
	open_s = stagetime_now() - t_open;
	load_s = cap->load_seconds;
	double t_write;
	if (ro.mode == REPORT_CLI_REPORT) {
		t_write = stagetime_now();
		if (json)
			report_print_json(an, stdout);
		else
			report_print_text(an, stdout);
		fflush(stdout);
		stagetime_add(STAGE_WRITE, t_write);
		cpu_written = stagetime_cpu();
		result_s = stagetime_now() - wall_main;
		analysis_free(an);
	} else {
		t_write = stagetime_now();
		if (json)
			summary_print_json(cap, stdout);
		else
			summary_print_text(cap, stdout);
		fflush(stdout);
		stagetime_add(STAGE_WRITE, t_write);
		cpu_written = stagetime_cpu();
		result_s = stagetime_now() - wall_main;
	}
	write_deferred(ro.capture.index.defer, true); /* the capture is still whole: they read it */
	bench_stages();
	int rc = cap->usable ? 0 : 1;
	if (!cap->usable && !json) {
		fputs(_("ascprof-tui: nothing to load; see the messages above\n"), stderr);
	}
	capture_free(cap);
	return rc;
}
