/* SPDX-License-Identifier: MIT */
/* `--digest OUTDIR CAPTURE...` (digest_cmd.h). */
#include "config.h"
#include "digest_cmd.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "analysis.h"
#include "capture.h"
#include "csvw.h"
#include "digest.h"
#include "i18n.h"
#include "jsonw.h"
#include "summary.h"
#include "xalloc.h"

/* mkdir -p dir (the man page: created when missing, with its parents). */
static int make_dirs(const char *dir)
{
	char *p = xstrdup(dir);
	int rc = 0;
	for (char *s = p + 1; *s && !rc; s++)
		if (*s == '/') {
			*s = 0;
			if (mkdir(p, 0777) && errno != EEXIST)
				rc = -1;
			*s = '/';
		}
	if (!rc && mkdir(p, 0777) && errno != EEXIST)
		rc = -1;
	free(p);
	return rc;
}

/* The directory of a capture's that outdir lies inside (through symlinks, also where it
 * does not exist yet), as discovery finds them: the path given and every directory the
 * run reads (a worker above an output directory opened alone); owned, NULL when none. */
static char *inside_capture(const char *outdir, const char *path)
{
	struct capture_plan plan = {0};
	struct diag_list dl;
	diag_init(&dl);
	discover(path, &plan, &dl);
	const char *in = capture_dir_inside(&plan, outdir);
	if (!in && csvw_path_inside(outdir, path))
		in = path;
	char *r = in ? xstrdup(in) : NULL;
	discover_free(&plan);
	diag_free(&dl);
	return r;
}

int digest_command(const char *outdir, char *const *paths, size_t n, const struct capture_opts *opts, FILE *out,
		   FILE *err)
{
	/* checked before anything is created: nothing is ever written into a capture */
	for (size_t i = 0; i < n; i++) {
		char *in = inside_capture(outdir, paths[i]);
		if (in) {
			fprintf(err,
				_("ascprof-tui: --digest %s lies inside the capture %s; digests never go into a "
				  "capture: give a directory outside it\n"),
				outdir, in);
			free(in);
			return 2;
		}
	}
	if (make_dirs(outdir)) {
		fprintf(err, _("ascprof-tui: cannot create %s: %s\n"), outdir, strerror(errno));
		return 1;
	}
	int rc = 0;
	for (size_t i = 0; i < n; i++) {
		struct capture *cap = capture_open(paths[i], opts);
		if (!cap->usable) {
			summary_print_diags(&cap->diags, err, "");
			fprintf(err, _("ascprof-tui: nothing to digest in %s\n"), paths[i]);
			capture_free(cap);
			rc = 1;
			continue;
		}
		capture_load(cap);
		/* the analysis' texts (evidence, advice) go into the digests, which later JSON runs
		 * read: written in English whatever the language, like JSON; this command's own
		 * lines stay in the user's */
		i18n_english();
		struct analysis *an = analysis_run(cap);
		i18n_user();
		struct diag_list dl;
		diag_init(&dl);
		for (size_t r = 0; r < an->n_ranks; r++) {
			uint64_t bytes = 0, trace = cap->ranks[an->ranks[r].rank_index].trace_bytes_total;
			if (digest_write(an, r, outdir, &dl, &bytes)) {
				rc = 1;
				continue;
			}
			fprintf(out, _("rank %d: %llu bytes"), an->ranks[r].rank, (unsigned long long)bytes);
			if (trace)
				fprintf(out, _(" (%.2f %% of its trace's %llu bytes)"), 100.0 * (double)bytes / (double)trace,
					(unsigned long long)trace);
			fputc('\n', out);
		}
		if (an->n_ranks < cap->n_ranks) {
			fprintf(err, _("ascprof-tui: %s: %zu of %zu ranks could not be analysed; no digest for them\n"),
				paths[i], cap->n_ranks - an->n_ranks, cap->n_ranks);
			rc = 1;
		}
		summary_print_diags(&dl, err, "");
		diag_free(&dl);
		analysis_free(an);
		/* the indexes once this capture's digests are out, while it is still whole */
		fflush(out);
		if (opts->index.defer && tindex_defer_pending(opts->index.defer)) {
			tindex_defer_run(opts->index.defer);
			summary_print_diags(tindex_defer_failures(opts->index.defer), err, "");
		}
		capture_free(cap);
	}
	return rc;
}

void digest_summary(const struct analysis *an, bool json, FILE *out)
{
	const struct capture *cap = an->cap;
	if (json) {
		struct jsonw w;
		jsonw_init(&w, out, true);
		jsonw_obj_begin(&w);
		jsonw_kstr(&w, "path", cap->plan.path);
		jsonw_kstr(&w, "kind", "summaries");
		jsonw_key(&w, "ranks");
		jsonw_arr_begin(&w);
		for (size_t i = 0; i < an->n_ranks; i++) {
			const struct rank_analysis *ra = &an->ranks[i];
			const struct rank_data *rd = &cap->ranks[ra->rank_index];
			jsonw_obj_begin(&w);
			jsonw_kint(&w, "rank", ra->rank);
			jsonw_kstr(&w, "label", rd->plan->label);
			jsonw_kstr(&w, "capture", rd->plan->output_dir);
			jsonw_kuint(&w, "trace_bytes", rd->trace_bytes_total);
			jsonw_kuint(&w, "steps", ra->n_steps);
			jsonw_obj_end(&w);
		}
		jsonw_arr_end(&w);
		summary_json_diags(&w, (struct diag_list *)&cap->diags);
		jsonw_obj_end(&w);
		fputc('\n', out);
		return;
	}
	fprintf(out, _("ascprof-tui %s summary of "), PACKAGE_VERSION);
	summary_put_clean(out, cap->plan.path);
	fprintf(out, _("\n%zu rank(s) read without their events (digests or a cluster table)\n"), an->n_ranks);
	for (size_t i = 0; i < an->n_ranks; i++) {
		const struct rank_analysis *ra = &an->ranks[i];
		const struct rank_data *rd = &cap->ranks[ra->rank_index];
		fprintf(out, _("  rank %-5d %4zu steps  trace %llu bytes  "), ra->rank, ra->n_steps,
			(unsigned long long)rd->trace_bytes_total);
		summary_put_clean(out, rd->plan->output_dir);
		fputc('\n', out);
	}
	if (cap->diags.n) {
		fputs(_("diagnostics:\n"), out);
		summary_print_diags((struct diag_list *)&cap->diags, out, "  ");
	}
}
