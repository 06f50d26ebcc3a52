/* SPDX-License-Identifier: MIT */
/* The per-phase section of the report (phase_verdict.h): each phase's steps, their
 * windows in the attribution's buckets and the verdict of the rank's rules over them. */
#include "report.h"

#include "i18n.h"
#include "jsonw.h"
#include "summary.h"

void report_phase_text(const struct rank_analysis *ra, FILE *out)
{
	if (!ra->n_by_phase)
		return;
	fputs(_("\nby phase (each phase's steps: their windows in the same buckets, judged by the same rules; on "
		"vLLM, a prefill step's time and a decode step's time are the device side of time to first token "
		"and of time per output token)\n"),
	      out);
	for (size_t i = 0; i < ra->n_by_phase; i++) {
		const struct phase_verdict *pv = &ra->by_phase[i];
		char bar[32];
		report_attribution_bar(&pv->attr, bar, 30);
		fputs("  ", out);
		report_put_padded(out, _(phase_verdict_name(pv)), 8);
		fprintf(out, _(" %5zu steps  p50 %10.3f ms  p95 %10.3f ms  total %11.3f ms  [%s]\n      "), pv->steps,
			(double)pv->p50_ns / 1e6, (double)pv->p95_ns / 1e6, (double)pv->attr.wall_ns / 1e6, bar);
		summary_put_clean(out, pv->verdict);
		fputc('\n', out);
	}
}

void report_phase_json(struct jsonw *w, const struct rank_analysis *ra)
{
	jsonw_key(w, "by_phase");
	if (!ra->n_by_phase) { /* no step windows (a step table's rows) or no attribution */
		jsonw_null(w);
		return;
	}
	jsonw_arr_begin(w);
	for (size_t i = 0; i < ra->n_by_phase; i++) {
		const struct phase_verdict *pv = &ra->by_phase[i];
		jsonw_obj_begin(w);
		jsonw_kstr(w, "phase", phase_verdict_name(pv));
		jsonw_kuint(w, "steps", pv->steps);
		jsonw_kus(w, "wall_us", pv->attr.wall_ns);
		jsonw_key(w, "attribution");
		jsonw_obj_begin(w);
		for (int k = 0; k < ATTR_COUNT; k++)
			jsonw_kus(w, attr_bucket_defs[k].key, pv->attr.ns[k]);
		jsonw_obj_end(w);
		jsonw_kstr(w, "verdict", pv->verdict);
		if (pv->first >= 0) {
			jsonw_kstr(w, "bottleneck", ra->bn[pv->first].name);
			jsonw_kdouble(w, "gain_pct", (pv->gain_low_pct + pv->gain_high_pct) / 2, 2);
			jsonw_kdouble(w, "gain_low_pct", pv->gain_low_pct, 2);
			jsonw_kdouble(w, "gain_high_pct", pv->gain_high_pct, 2);
		} else {
			jsonw_knull(w, "bottleneck");
			jsonw_knull(w, "gain_pct");
		}
		jsonw_kus(w, "short_gap_us", pv->short_gap_ns);
		jsonw_kus(w, "step_p50_us", pv->p50_ns);
		jsonw_kus(w, "step_p95_us", pv->p95_ns);
		jsonw_obj_end(w);
	}
	jsonw_arr_end(w);
}
