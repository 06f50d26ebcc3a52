/* SPDX-License-Identifier: MIT */
/* ascprof-tui: command line entry. Non-interactive modes (--summary, --report) never
 * touch the terminal; the interactive explorer starts only when stdout is a terminal. */
#include "config.h"

#include <errno.h>
#include <fcntl.h>
#include <getopt.h>
#include <poll.h>
#include <signal.h>
#ifdef HAVE_MALLOC_H
#include <malloc.h>
#endif
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "actions.h"
#include "commands.h"
#include "analysis.h"
#include "app.h"
#include "capture.h"
#include "compare.h"
#include "csv_table.h"
#include "i18n.h"
#include "progress.h"
#include "digest.h"
#include "digest_cmd.h"
#include "report.h"
#include "sanitize.h"
#include "spill.h"
#include "stagetime.h"
#include "summary.h"
#include "trace_elem.h"
#include "trace_index.h"

enum mode { MODE_TUI, MODE_SUMMARY, MODE_REPORT };

/* The version, then the instruction set each byte scanner runs (chosen at start, or fixed
 * at build): what a bug report needs to be reproduced ($ASCPROF_SCAN, $ASCPROF_CSV_SCAN). */
static void print_version(void)
{
	printf("ascprof-tui %s\n", PACKAGE_VERSION);
	printf("scanners: trace elements %s, csv lines %s, sanitizer %s\n", elem_isa_name(elem_isa_used()),
	       csvt_isa_name(csvt_isa_used()), sanitize_isa_name());
}

static void usage(FILE *out)
{
	fputs(_("Usage: ascprof-tui [OPTIONS] [PATH]\n"
	      "       ascprof-tui [OPTIONS] --compare BEFORE AFTER\n"
	      "Explore an Ascend NPU profiling capture (torch_npu profiler or msprof).\n"
	      "PATH is a torch_profiler_dir, a *_ascend_pt directory, its ASCEND_PROFILER_OUTPUT,\n"
	      "a PROF_* directory or a single trace/CSV/Db file (default: .).\n"
	      "\n"
	      "  -r, --report             print the analysis (metrics, steps, bottlenecks, top ops)\n"
	      "  -s, --summary            print what was found and loaded, then exit\n"
	      "  -j, --json               with --report or --summary: print JSON\n"
	      "      --digest OUTDIR      write one digest per rank of each PATH into OUTDIR (PATH may\n"
	      "                           be given several times); open OUTDIR later like a capture\n"
	      "      --compare            two PATHs, BEFORE and AFTER: explore or report how they differ\n"
	      "      --compare-ranks R1 R2  rank R2 of PATH against rank R1 (put the fast rank first)\n"
	      "  -t, --threads N          threads for reading traces (default: one per CPU)\n"
	      "      --list-keys          print every key of the explorer and exit\n"
	      "      --list-commands      print every : command of the explorer and exit\n"
	      "      --script FILE        run the explorer headless, keys and :dump steps from FILE\n"
	      "      --size WxH           terminal size for --script (default 80x24)\n"
	      "      --term-out FILE      with --script: drive curses and write its bytes to FILE\n"
	      "      --max-trace-bytes N  refuse trace files larger than N bytes (K, M, G; 0, the\n"
	      "                           default: no limit)\n"
	      "      --max-csv-bytes N    refuse CSV files larger than N bytes (default: what\n"
	      "                           available memory allows)\n"
	      "      --index-dir DIR      keep trace indexes in DIR (default: $XDG_CACHE_HOME/ascprof-tui,\n"
	      "                           else ~/.cache/ascprof-tui)\n"
	      "      --no-index           neither read nor write a trace index\n"
	      "      --source text|db     where a rank has a text and a Db export (*.db), read this\n"
	      "                           one (default: text; a Db-only rank reads its Db)\n"
	      "  -h, --help               show this help and exit\n"
	      "  -V, --version            show the version and exit\n"),
	      out);
}

static int parse_count(const char *s, unsigned long long *out)
{
	char *end;
	errno = 0;
	unsigned long long v = strtoull(s, &end, 10);
	if (errno || end == s || *end)
		return -1;
	*out = v;
	return 0;
}

static int parse_rank(const char *s, int *out)
{
	char *end;
	errno = 0;
	long v = strtol(s, &end, 10);
	if (errno || end == s || *end || v < 0 || v > 1000000)
		return -1;
	*out = (int)v;
	return 0;
}

/* `--compare-ranks R1 R2` takes two values, which getopt cannot: it is taken out of argv
 * first. Returns 0, or 2 after a message. */
static int take_compare_ranks(int *argc, char **argv, struct app_opts *ao)
{
	for (int i = 1; i < *argc; i++) {
		if (!strcmp(argv[i], "--"))
			break;
		if (strcmp(argv[i], "--compare-ranks"))
			continue;
		if (i + 2 >= *argc || parse_rank(argv[i + 1], &ao->compare_ranks[0]) ||
		    parse_rank(argv[i + 2], &ao->compare_ranks[1])) {
			fputs(_("ascprof-tui: --compare-ranks wants two rank numbers, e.g. --compare-ranks 0 3\n"), stderr);
			return 2;
		}
		ao->compare = CMP_ARG_RANKS;
		memmove(&argv[i], &argv[i + 3], (size_t)(*argc - i - 3 + 1) * sizeof *argv);
		*argc -= 3;
		i--;
	}
	return 0;
}

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
	/* a reader that left early (| head): SIGPIPE was put off too (run_mode), so that
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

/* `make bench`: where the time went (stagetime.h), to ASCPROF_BENCH_OUT when set: the
 * stages, then the CPU before main (exec and the dynamic loader), to open, to write. */
/* --report with --compare or --compare-ranks. */
static int report_compare(const struct app_opts *ao, const char *const paths[2], bool json)
{
	int n = ao->compare == CMP_ARG_CAPTURES ? 2 : 1, rc = 0;
	struct capture *cap[2] = {NULL, NULL};
	struct analysis *an[2] = {NULL, NULL};
	for (int i = 0; i < n; i++) {
		cap[i] = capture_open(paths[i], &ao->capture);
		if (!cap[i]->usable)
			rc = 1;
		an[i] = load_with_progress(cap[i], true);
	}
	struct comparison *c = ao->compare == CMP_ARG_CAPTURES
				       ? compare_captures(an[0], an[1])
				       : compare_ranks(an[0], ao->compare_ranks[0], ao->compare_ranks[1]);
	if (rc) {
		for (int i = 0; i < n; i++)
			if (!cap[i]->usable)
				summary_print_diags(&cap[i]->diags, stderr, "");
		fputs(_("ascprof-tui: nothing to load for one of the captures; see the messages above\n"), stderr);
	} else if (!c) {
		fprintf(stderr, _("ascprof-tui: --compare-ranks %d %d: no such rank in %s\n"), ao->compare_ranks[0],
			ao->compare_ranks[1], paths[0]);
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

/* A byte count with an optional K, M or G suffix (powers of 1024). */
static int parse_bytes(const char *s, unsigned long long *out)
{
	char *end;
	errno = 0;
	unsigned long long v = strtoull(s, &end, 10);
	if (errno || end == s || *s == '-')
		return -1;
	int shift = 0;
	switch (*end) {
	case 'K': case 'k': shift = 10; end++; break;
	case 'M': case 'm': shift = 20; end++; break;
	case 'G': case 'g': shift = 30; end++; break;
	default: break;
	}
	if (*end || (shift && v > (~0ULL >> shift)))
		return -1;
	*out = v << shift;
	return 0;
}

/* Buffers of 256 KB and more get pages of their own, returned to the system when freed.
 * By default glibc raises this threshold (up to 32 MB) each time a big buffer is freed,
 * after which the loader's and the analysis's temporaries are carved from its arenas and
 * stay resident there after free: 20 to 50 MB more at the peak of a 1 GB capture, varying
 * from run to run with the threads' timing. */
static void malloc_policy(void)
{
#if defined(HAVE_MALLOC_H) && defined(M_MMAP_THRESHOLD)
	mallopt(M_MMAP_THRESHOLD, 256 * 1024);
#endif
}

static int run_mode(const struct capture_opts *copts_in, const struct app_opts *aopts_in, enum mode mode, bool json,
		    const char *digest_dir, int argc, char **argv);

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

int main(int argc, char **argv)
{
	cpu_main = stagetime_cpu();
	wall_main = stagetime_now();
	malloc_policy();
	i18n_init();
	enum { OPT_MAX_TRACE = 1000, OPT_MAX_CSV, OPT_LIST_KEYS, OPT_LIST_COMMANDS, OPT_SCRIPT, OPT_SIZE, OPT_TERM_OUT, OPT_COMPARE,
	       OPT_SOURCE, OPT_INDEX_DIR, OPT_NO_INDEX, OPT_DIGEST };
	static const struct option longopts[] = {
		{"summary", no_argument, NULL, 's'},
		{"report", no_argument, NULL, 'r'},
		{"json", no_argument, NULL, 'j'},
		{"threads", required_argument, NULL, 't'},
		{"max-trace-bytes", required_argument, NULL, OPT_MAX_TRACE},
		{"max-csv-bytes", required_argument, NULL, OPT_MAX_CSV},
		{"list-keys", no_argument, NULL, OPT_LIST_KEYS},
		{"list-commands", no_argument, NULL, OPT_LIST_COMMANDS},
		{"script", required_argument, NULL, OPT_SCRIPT},
		{"size", required_argument, NULL, OPT_SIZE},
		{"term-out", required_argument, NULL, OPT_TERM_OUT},
		{"compare", no_argument, NULL, OPT_COMPARE},
		{"source", required_argument, NULL, OPT_SOURCE},
		{"index-dir", required_argument, NULL, OPT_INDEX_DIR},
		{"no-index", no_argument, NULL, OPT_NO_INDEX},
		{"digest", required_argument, NULL, OPT_DIGEST},
		{"help", no_argument, NULL, 'h'},
		{"version", no_argument, NULL, 'V'},
		{NULL, 0, NULL, 0},
	};
	enum mode mode = MODE_TUI;
	bool json = false;
	struct capture_opts copts = {.index = {.enabled = true}};
	struct app_opts aopts = {0};
	const char *digest_dir = NULL;
	aopts.script = getenv("ASCPROF_SCRIPT");
	if (take_compare_ranks(&argc, argv, &aopts))
		return 2;
	int c;
	while ((c = getopt_long(argc, argv, "rsjt:hV", longopts, NULL)) != -1) {
		unsigned long long v;
		switch (c) {
		case 's':
		case 'r':
			if (mode != MODE_TUI && mode != (c == 's' ? MODE_SUMMARY : MODE_REPORT)) {
				/* two outputs: neither silently wins */
				fprintf(stderr, _("ascprof-tui: --report and --summary are two different outputs; give one\n"));
				return 2;
			}
			mode = c == 's' ? MODE_SUMMARY : MODE_REPORT;
			break;
		case 'j': json = true; break;
		case 't':
			if (parse_count(optarg, &v) || v > 64) {
				fprintf(stderr, _("ascprof-tui: --threads wants a number from 0 to 64\n"));
				return 2;
			}
			copts.threads = (int)v;
			break;
		case OPT_MAX_TRACE:
		case OPT_MAX_CSV:
			if (parse_bytes(optarg, &v)) {
				fprintf(stderr, _("ascprof-tui: --max-%s-bytes wants a number of bytes "
						"(K, M, G suffixes; 0 for no limit)\n"), c == OPT_MAX_CSV ? "csv" : "trace");
				return 2;
			}
			*(c == OPT_MAX_CSV ? &copts.max_csv_bytes : &copts.max_trace_bytes) = v ? v : CAPTURE_NO_LIMIT;
			break;
		case OPT_SOURCE:
			if (!strcmp(optarg, "text"))
				copts.source = SOURCE_TEXT;
			else if (!strcmp(optarg, "db"))
				copts.source = SOURCE_DB;
			else {
				fprintf(stderr, _("ascprof-tui: --source wants text or db\n"));
				return 2;
			}
			break;
		case OPT_INDEX_DIR: copts.index.dir = optarg; break;
		case OPT_NO_INDEX: copts.index.enabled = false; break;
		case OPT_DIGEST: digest_dir = optarg; break;
		case OPT_LIST_KEYS: actions_print(stdout); return 0;
		case OPT_LIST_COMMANDS: commands_print(stdout); return 0;
		case OPT_SCRIPT: aopts.script = optarg; break;
		case OPT_TERM_OUT: aopts.term_out = optarg; break;
		case OPT_COMPARE:
			if (aopts.compare == CMP_ARG_RANKS) {
				fputs(_("ascprof-tui: --compare and --compare-ranks exclude each other\n"), stderr);
				return 2;
			}
			aopts.compare = CMP_ARG_CAPTURES;
			break;
		case OPT_SIZE:
			if (sscanf(optarg, "%dx%d", &aopts.width, &aopts.height) != 2 || aopts.width < 1 ||
			    aopts.height < 1) {
				fprintf(stderr, _("ascprof-tui: --size wants WxH, e.g. 100x30\n"));
				return 2;
			}
			break;
		case 'h': usage(stdout); return 0;
		case 'V': print_version(); return 0;
		default: usage(stderr); return 2;
		}
	}
	struct tindex_defer *defer = NULL;
	if (copts.index.enabled) {
		/* the loader's big arrays go to files beside the indexes first: the user's disk,
		 * where /tmp may be memory (spill.h) */
		char *dir = tindex_dir(&copts.index);
		spill_set_dir(dir);
		free(dir);
		/* no one waits for an index: it is written once the result is out */
		copts.index.defer = defer = tindex_defer_new();
	}
	int rc = run_mode(&copts, &aopts, mode, json, digest_dir, argc, argv);
	tindex_defer_free(defer);
	return rc;
}

/* What main was asked for, once the options are read. */
static int run_mode(const struct capture_opts *copts_in, const struct app_opts *aopts_in, enum mode mode, bool json,
		    const char *digest_dir, int argc, char **argv)
{
	struct capture_opts copts = *copts_in;
	struct app_opts aopts = *aopts_in;
	if (digest_dir) {
		if (aopts.compare || mode != MODE_TUI || json) {
			fputs(_("ascprof-tui: --digest writes digests; give it alone with its PATHs\n"), stderr);
			return 2;
		}
		char *dot[] = {(char *)"."};
		return digest_command(digest_dir, optind < argc ? argv + optind : dot,
				      optind < argc ? (size_t)(argc - optind) : 1, &copts, stdout, stderr);
	}
	if (aopts.compare == CMP_ARG_CAPTURES && argc - optind != 2) {
		fprintf(stderr, _("ascprof-tui: --compare wants two PATHs, BEFORE and AFTER\n"));
		usage(stderr);
		return 2;
	}
	if (aopts.compare != CMP_ARG_CAPTURES && argc - optind > 1) {
		fprintf(stderr, _("ascprof-tui: one PATH at most\n"));
		usage(stderr);
		return 2;
	}
	if (aopts.compare && mode == MODE_SUMMARY) {
		fprintf(stderr, _("ascprof-tui: --summary describes one capture; use --report to compare\n"));
		return 2;
	}
	const char *path = optind < argc ? argv[optind] : ".";
	aopts.compare_path = aopts.compare == CMP_ARG_CAPTURES ? argv[optind + 1] : NULL;
	aopts.capture = copts;

	if (json)
		i18n_english();
	if (mode == MODE_TUI && !json) {
		aopts.mode = aopts.script ? (aopts.term_out ? TERM_FILE : TERM_HEADLESS) : TERM_REAL;
		return app_main(path, &aopts);
	}
	/* --report and --summary verify an index's event columns only if they read them (the
	 * explorer's views read them from the start) */
	copts.index.lazy = aopts.capture.index.lazy = true;
	/* a pipe's reader leaving early must not take the indexes with it: the output's
	 * SIGPIPE waits until they are written (write_deferred) */
	if (copts.index.defer)
		signal(SIGPIPE, SIG_IGN);
	if (aopts.compare) {
		const char *paths[2] = {path, aopts.compare_path};
		return report_compare(&aopts, paths, json);
	}

	struct analysis *sum_an = analysis_open_summaries(path);
	if (sum_an) {
		struct analysis *an = sum_an;
		cpu_opened = stagetime_cpu();
		double t_sum = stagetime_now();
		if (mode != MODE_REPORT)
			digest_summary(an, json, stdout);
		else if (json)
			report_print_json(an, stdout);
		else
			report_print_text(an, stdout);
		fflush(stdout);
		stagetime_add(STAGE_WRITE, t_sum);
		cpu_written = stagetime_cpu();
		result_s = stagetime_now() - wall_main;
		write_deferred(copts.index.defer, true); /* nothing to write: a broken pipe's signal */
		bench_stages();
		int drc = an->n_ranks ? 0 : 1;
		if (!an->n_ranks)
			fputs(_("ascprof-tui: no rank could be read; see the messages above\n"), stderr);
		analysis_free(an);
		return drc;
	}
	double t_open = stagetime_now();
	struct capture *cap = capture_open(path, &copts);
	struct analysis *an = load_with_progress(cap, mode == MODE_REPORT);
	cpu_opened = stagetime_cpu();
	open_s = stagetime_now() - t_open;
	load_s = cap->load_seconds;
	double t_write;
	if (mode == MODE_REPORT) {
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
	write_deferred(copts.index.defer, true); /* the capture is still whole: they read it */
	bench_stages();
	int rc = cap->usable ? 0 : 1;
	if (!cap->usable && !json) {
		fputs(_("ascprof-tui: nothing to load; see the messages above\n"), stderr);
	}
	capture_free(cap);
	return rc;
}
