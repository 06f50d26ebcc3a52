/* SPDX-License-Identifier: MIT */
/* The advice section of the report (advice.h): the findings that reach their rule's
 * threshold as problems, the others as one line of what was seen below it. */
#include "report.h"

#include <math.h>

#include "advice.h"
#include "i18n.h"
#include <stdbool.h>
#include <string.h>
#include "jsonw.h"
#include "summary.h"

static bool rule_has_finding(const struct rank_analysis *ra, int rule)
{
	for (size_t i = 0; i < ra->n_advice; i++)
		if (ra->advice[i].rule == rule)
			return true;
	return false;
}

/* Two reasons are one when their text is (a rule's static string and another's, or a
 * digest's copy: never by address, which the compiler may or may not share). */
static bool same_reason(const char *a, const char *b)
{
	return a == b || (a && b && !strcmp(a, b));
}

/* Why a rule without a finding was not applied (static): its recorded reason, or the rank
 * had no timeline to run the rules on. */
static const char *rule_reason(const struct rank_analysis *ra, int rule)
{
	if (ra->advice_status[rule] == ADV_STATUS_NOT_APPLICABLE && ra->advice_reason[rule])
		return ra->advice_reason[rule];
	return ra->attr.invalid_why ? N_("the trace has no device lane: the rules did not run")
				    : N_("no trace and no kernel table rows with start times: the rules did not run");
}

/* The rules that saw no instance, in one line each way: checked, and not applicable with why. */
static void text_unfound(const struct rank_analysis *ra, FILE *out)
{
	size_t k = 0;
	for (int r = 0; r < ADV_COUNT; r++)
		if (!rule_has_finding(ra, r) && ra->advice_status[r] == ADV_STATUS_CHECKED)
			fprintf(out, "%s%s", k++ ? ", " : _("  checked, no instance: "), advice_rules[r].id);
	if (k)
		fputc('\n', out);
	/* not applicable, one line per reason */
	bool done[ADV_COUNT] = {false};
	for (int r = 0; r < ADV_COUNT; r++) {
		if (done[r] || rule_has_finding(ra, r) || ra->advice_status[r] == ADV_STATUS_CHECKED)
			continue;
		const char *why = rule_reason(ra, r);
		fputs(_("  not applicable: "), out);
		for (int q = r, n = 0; q < ADV_COUNT; q++)
			if (!done[q] && !rule_has_finding(ra, q) && ra->advice_status[q] != ADV_STATUS_CHECKED &&
			    same_reason(rule_reason(ra, q), why)) {
				fprintf(out, "%s%s", n++ ? ", " : "", advice_rules[q].id);
				done[q] = true;
			}
		fputs(" (", out);
		summary_put_clean(out, _(why));
		fputs(")\n", out);
	}
}

void report_advice_text(const struct rank_analysis *ra, FILE *out)
{
	if (!ra->attr.valid && !ra->n_advice)
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
			r->threshold, result_confidence_text(f->conf));
		summary_put_clean(out, f->evidence);
		fprintf(out, _("\n      why: %s\n      try: %s\n"), _(r->why), _(r->try_this));
	}
	if (!below) {
		text_unfound(ra, out);
		return;
	}
	fputs(_("  below threshold:"), out);
	for (size_t i = 0, k = 0; i < ra->n_advice; i++) {
		const struct advice_finding *f = &ra->advice[i];
		if (f->triggered)
			continue;
		fprintf(out, "%s %s (%.1f %s < %.1f)", k++ ? ";" : "", advice_rules[f->rule].id, f->value,
			advice_rules[f->rule].unit, advice_rules[f->rule].threshold);
	}
	fputc('\n', out);
	text_unfound(ra, out);
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
		jsonw_kstr(w, "status", f->triggered ? "triggered" : "checked");
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
		jsonw_kstr(w, "confidence", result_confidence_name(f->conf));
		jsonw_kstr(w, "evidence", f->evidence);
		jsonw_kstr(w, "why", r->why);
		jsonw_kstr(w, "try", r->try_this);
		jsonw_obj_end(w);
	}
	/* the rules that saw no instance: checked, or not applicable and why (one entry per rule) */
	for (int k = 0; k < ADV_COUNT; k++) {
		if (rule_has_finding(ra, k))
			continue;
		const struct advice_rule *r = &advice_rules[k];
		int st = ra->advice_status[k];
		jsonw_obj_begin(w);
		jsonw_kstr(w, "rule", r->id);
		jsonw_kstr(w, "title", r->title);
		jsonw_kstr(w, "status", st == ADV_STATUS_CHECKED ? "checked" : "not applicable");
		jsonw_kbool(w, "triggered", false);
		jsonw_kuint(w, "count", 0);
		jsonw_kdouble(w, "threshold", r->threshold, 3);
		jsonw_kstr(w, "unit", r->unit);
		if (st != ADV_STATUS_CHECKED)
			jsonw_kstr(w, "reason", rule_reason(ra, k));
		jsonw_obj_end(w);
	}
	jsonw_arr_end(w);
}
