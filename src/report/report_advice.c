/* SPDX-License-Identifier: MIT */
/* The advice section of the report (advice.h): the findings that reach their rule's
 * threshold as problems, the others as one line of what was seen below it. */
#include "report.h"

#include <math.h>

#include "advice.h"
#include "i18n.h"
#include "jsonw.h"
#include "summary.h"

void report_advice_text(const struct rank_analysis *ra, FILE *out)
{
	if (!ra->n_advice)
		return;
	fputs(_("\nadvice (Ascend rules; time already in the attribution buckets named, no extra gain)\n"), out);
	size_t below = 0;
	for (size_t i = 0; i < ra->n_advice; i++) {
		const struct advice_finding *f = &ra->advice[i];
		const struct advice_rule *r = &advice_rules[f->rule];
		if (!f->triggered) {
			below++;
			continue;
		}
		fprintf(out, _("  * %s (%.1f %s >= %.1f, confidence %s)\n      "), _(r->title), f->value, r->unit,
			r->threshold, analysis_confidence_text(f->conf));
		summary_put_clean(out, f->evidence);
		fprintf(out, _("\n      why: %s\n      try: %s\n"), _(r->why), _(r->try_this));
	}
	if (!below)
		return;
	fputs(_("  below threshold:"), out);
	for (size_t i = 0, k = 0; i < ra->n_advice; i++) {
		const struct advice_finding *f = &ra->advice[i];
		if (f->triggered)
			continue;
		fprintf(out, "%s %s (%.1f %s < %.1f)", k++ ? ";" : "", advice_rules[f->rule].id, f->value,
			advice_rules[f->rule].unit, advice_rules[f->rule].threshold);
	}
	fputc('\n', out);
}


void report_advice_json(struct jsonw *w, const struct rank_analysis *ra)
{
	jsonw_key(w, "advice");
	jsonw_arr_begin(w);
	for (size_t i = 0; i < ra->n_advice; i++) {
		const struct advice_finding *f = &ra->advice[i];
		const struct advice_rule *r = &advice_rules[f->rule];
		jsonw_obj_begin(w);
		jsonw_kstr(w, "rule", r->id);
		jsonw_kstr(w, "title", r->title);
		jsonw_kbool(w, "triggered", f->triggered);
		jsonw_kdouble(w, "value", f->value, 3);
		jsonw_kstr(w, "unit", r->unit);
		jsonw_kdouble(w, "threshold", r->threshold, 3);
		jsonw_kuint(w, "count", f->count);
		jsonw_kus(w, "total_us", f->total_ns);
		jsonw_kdouble(w, "share_pct", f->share_pct, 3);
		jsonw_kstr(w, "share_of", f->share_of);
		jsonw_kus(w, "exposed_us", f->exposed_ns);
		jsonw_kstr(w, "bucket", f->bucket);
		jsonw_key(w, "exposed_buckets_us");
		jsonw_obj_begin(w);
		for (int k = 0; k < 4; k++)
			jsonw_kus(w, attr_bucket_defs[advice_host_buckets[k]].key, f->host_ns[k]);
		jsonw_obj_end(w);
		jsonw_kstr(w, "event_name", f->event_name); /* not its index: a Db export orders events differently */
		jsonw_kint_or_null(w, "csv_line", f->csv_line, f->csv_line);
		jsonw_kdouble(w, "event_start_us", f->event_ts != INT64_MIN ? (double)(f->event_ts - ra->t0) / 1e3 : NAN, 3);
		jsonw_kstr(w, "confidence", analysis_confidence_name(f->conf));
		jsonw_kstr(w, "evidence", f->evidence);
		jsonw_kstr(w, "why", r->why);
		jsonw_kstr(w, "try", r->try_this);
		jsonw_obj_end(w);
	}
	jsonw_arr_end(w);
}
