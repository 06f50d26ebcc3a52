/* SPDX-License-Identifier: MIT */
/* The gaps section of the report (gaps.h): the device-idle time by cause and the longest
 * gaps, each with its step and what the host did. */
#include "report.h"

#include "i18n.h"
#include "jsonw.h"
#include "summary.h"

/* The step's phase as shown, or NULL for a gap outside every step. */
static const char *gap_phase(const struct rank_analysis *ra, const struct gap *g)
{
	return g->step >= 0 && (size_t)g->step < ra->n_steps ? result_step_phase_name(&ra->steps[g->step]) : NULL;
}

void report_gaps_text(const struct rank_analysis *ra, FILE *out)
{
	const struct gap_analysis *ga = &ra->gaps;
	if (!ga->valid)
		return;
	fprintf(out, _("\ndevice-idle gaps: %llu, %.3f ms (the attribution's host-bound, idle and edge idle buckets), by "
		       "cause\n"),
		(unsigned long long)ga->count, (double)ga->total_ns / 1e6);
	for (int c = 0; c < GAP_CAUSE_COUNT; c++) {
		if (!ga->by_cause[c])
			continue;
		fprintf(out, "  %-22s %12.3f ms %5.1f %%\n", gaps_cause_name((enum gap_cause)c),
			(double)ga->by_cause[c] / 1e6, attribution_pct(&ra->attr, ga->by_cause[c]));
		if (c != GAP_NO_DISPATCH)
			continue;
		fputs(_("      host during no_dispatch:"), out);
		for (int h = 0, k = 0; h < GAP_HOST_COUNT; h++)
			if (ga->no_dispatch_by_host[h])
				fprintf(out, "%s %s %.3f ms", k++ ? ";" : "", gaps_host_name((enum gap_host)h),
					(double)ga->no_dispatch_by_host[h] / 1e6);
		fputc('\n', out);
	}
	if (!ga->n_top)
		return;
	fputs(_("  longest gaps:\n"), out);
	/* TRANSLATORS: column titles: each keeps the cells of its column */
	fputs(_("  #      start ms      dur us  step  phase    cause                  host\n"), out);
	for (size_t i = 0; i < ga->n_top; i++) {
		const struct gap *g = &ga->top[i];
		char step[16] = "-";
		if (g->step >= 0)
			snprintf(step, sizeof step, "%d", g->step + 1);
		const char *phase = gap_phase(ra, g);
		fprintf(out, "  %-2zu %12.3f %11.3f %5s  ", i + 1, (double)(g->start - ra->t0) / 1e6, (double)g->dur / 1e3,
			step);
		report_put_padded(out, phase ? _(phase) : "-", 8);
		fprintf(out, " %-22s %s\n", gaps_cause_name((enum gap_cause)g->cause), gaps_host_name((enum gap_host)g->host));
	}
}

void report_gaps_json(struct jsonw *w, const struct rank_analysis *ra)
{
	const struct gap_analysis *ga = &ra->gaps;
	jsonw_key(w, "gaps");
	if (!ga->valid) {
		jsonw_null(w);
		return;
	}
	jsonw_obj_begin(w);
	jsonw_kuint(w, "count", ga->count);
	jsonw_kus(w, "total_us", ga->total_ns);
	jsonw_key(w, "top");
	jsonw_arr_begin(w);
	for (size_t i = 0; i < ga->n_top; i++) {
		const struct gap *g = &ga->top[i];
		jsonw_obj_begin(w);
		jsonw_kus(w, "start_us", g->start - ra->t0);
		jsonw_kus(w, "dur_us", g->dur);
		jsonw_kint_or_null(w, "step", g->step, g->step >= 0);
		jsonw_kstr(w, "phase", gap_phase(ra, g));
		jsonw_kstr(w, "cause", gaps_cause_name((enum gap_cause)g->cause));
		jsonw_kstr(w, "host", gaps_host_name((enum gap_host)g->host));
		jsonw_obj_end(w);
	}
	jsonw_arr_end(w);
	jsonw_key(w, "by_cause");
	jsonw_obj_begin(w);
	for (int c = 0; c < GAP_CAUSE_COUNT; c++)
		jsonw_kus(w, gaps_cause_name((enum gap_cause)c), ga->by_cause[c]);
	jsonw_obj_end(w);
	jsonw_key(w, "no_dispatch_by_host");
	jsonw_obj_begin(w);
	for (int h = 0; h < GAP_HOST_COUNT; h++)
		jsonw_kus(w, gaps_host_name((enum gap_host)h), ga->no_dispatch_by_host[h]);
	jsonw_obj_end(w);
	jsonw_obj_end(w);
}
