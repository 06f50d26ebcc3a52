/* SPDX-License-Identifier: MIT */
/* The comparison as text and as JSON: the same numbers, capture strings sanitised. */
#include "config.h"
#include "i18n.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "compare.h"
#include "jsonw.h"
#include "report.h"
#include "summary.h"
#include "xalloc.h"

/* Ops listed per group in the text report, and per scope and phase in the JSON. */
#define COMPARE_TOP_OPS 10
#define COMPARE_PHASE_OPS 5
#define COMPARE_JSON_OPS 500

static const char *side_path(const struct comparison *c, int s)
{
	return c->an[s]->cap->plan.path;
}

/* ---- text --------------------------------------------------------------------------- */

/* What each side recorded, first: every figure below is judged only where it is alike. */
static void text_recorded(const struct comparison *c, FILE *out)
{
	if (c->n_recorded_differ)
		fprintf(out, _("\nwhat each side recorded: %zu difference(s); figures that depend on them are not "
			"comparable\n"), c->n_recorded_differ);
	else
		fputs(_("\nwhat each side recorded: alike\n"), out);
	fputs("  ", out);
	report_put_padded(out, _("item"), 24);
	fputc(' ', out);
	report_put_padded(out, c->label[0], 28);
	fputc(' ', out);
	report_put_padded(out, c->label[1], 28);
	fputc('\n', out);
	for (int k = 0; k < REC_COUNT; k++) {
		const struct compare_recorded *r = &c->recorded[k];
		fputs(r->differs ? "! " : "  ", out);
		report_put_padded(out, _(r->label), 24);
		fputc(' ', out);
		report_put_padded(out, r->value[0], 28);
		fputc(' ', out);
		report_put_padded(out, r->value[1], 28);
		fputc('\n', out);
	}
}

/* The reasons figures of a pair are not comparable, each once. */
static void text_not_comparable(const struct compare_pair *p, FILE *out)
{
	const char *said[CDEP_COUNT];
	size_t n = 0;
	for (int f = 0; f < CF_COUNT; f++) {
		const char *r = p->fig[f].reason;
		bool seen = !r;
		for (size_t i = 0; i < n && !seen; i++)
			seen = said[i] == r;
		if (seen)
			continue;
		if (!n)
			fputs(_("\n  not comparable, because:\n"), out);
		said[n++] = r;
		fputs("    - ", out);
		summary_put_clean(out, r);
		fputc('\n', out);
	}
}

static void text_figures(const struct compare_pair *p, const struct comparison *c, FILE *out)
{
	fputs("\n  ", out);
	report_put_padded(out, _("figure"), 26);
	fprintf(out, " %14s %14s ", c->label[0], c->label[1]);
	report_put_right(out, _("delta"), 14);
	fputc(' ', out);
	report_put_right(out, _("delta %"), 9);
	fprintf(out, "  %s\n", _("verdict"));
	for (int f = 0; f < CF_COUNT; f++) {
		const struct compare_value *cv = &p->fig[f];
		if ((!cv->have[0] || cv->v[0] == 0) && (!cv->have[1] || cv->v[1] == 0))
			continue; /* nothing on either side: the JSON still lists it */
		struct compare_fig_def d = compare_fig(f);
		char a[32], b[32], dl[32], pct[32] = "";
		report_value_text(cv->have[0] ? cv->v[0] : NAN, d.unit, false, a, sizeof a);
		report_value_text(cv->have[1] ? cv->v[1] : NAN, d.unit, false, b, sizeof b);
		report_value_text(cv->delta, d.unit, true, dl, sizeof dl);
		if (!isnan(cv->delta_pct))
			snprintf(pct, sizeof pct, "%+.2f %%", cv->delta_pct);
		fputs("  ", out);
		report_put_padded(out, _(d.label), 26);
		fprintf(out, " %14s %14s %14s %9s  %s\n", a, b, dl, pct, compare_verdict_name(cv->verdict));
	}
	text_not_comparable(p, out);
}

static void text_bottlenecks(const struct compare_pair *p, const struct comparison *c, FILE *out)
{
	fputs(_("\nbottleneck scores (0-100, >= 40 triggers)\n"), out);
	fputs("  ", out);
	report_put_padded(out, _("candidate"), 16);
	fprintf(out, " %8s %8s ", c->label[0], c->label[1]);
	report_put_right(out, _("delta"), 7);
	fputc('\n', out);
	for (int k = 0; k < BN_COUNT; k++) {
		fputs("  ", out);
		report_put_padded(out, p->ra[0]->bn[k].name, 16);
		fprintf(out, " %8d %8d %+7d%s\n", p->bn_score[0][k], p->bn_score[1][k],
			p->bn_score[1][k] - p->bn_score[0][k], p->bn_comparable[k] ? "" : _("  not comparable"));
	}
	if (!p->have_gain)
		return;
	const struct compare_gain *g = &p->gain;
	if (g->gain_known)
		fprintf(out, _("\ntop bottleneck of %s: %s, expected gain %.1f-%.1f %%: %s\n  basis: "), c->label[0],
			g->name, g->low_pct, g->high_pct, compare_gain_verdict_name(g->verdict));
	else
		fprintf(out, _("\ntop bottleneck of %s: %s, expected gain unknown: %s\n  basis: "), c->label[0], g->name,
			compare_gain_verdict_name(g->verdict));
	summary_put_clean(out, g->basis);
	fputs(_("\n  (achieved: the improvement reaches the low end of the range; partly: above 0 but below it; "
	      "missed: 0 or worse)\n"),
	      out);
}

const char *report_compare_categories(const struct compare_pair *p, int scope, char *buf, size_t size)
{
	size_t n = (size_t)snprintf(buf, size, "%-7s", result_scope_name((enum op_scope)scope));
	for (int k = 0; k < CAT_COUNT && n < size; k++)
		if (p->cat_share[0][scope][k] > 0 || p->cat_share[1][scope][k] > 0)
			n += (size_t)snprintf(buf + n, size - n, "  %s %.1f -> %.1f", category_name((enum ev_category)k),
					      p->cat_share[0][scope][k], p->cat_share[1][scope][k]);
	return buf;
}

static void text_categories(const struct compare_pair *p, const struct comparison *c, FILE *out)
{
	fprintf(out, _("\nop time by category (%% of the scope's op time, %s -> %s)\n"), c->label[0], c->label[1]);
	for (int s = SCOPE_DEVICE; s <= SCOPE_HOST; s++) {
		char line[256];
		fprintf(out, "  %s\n", report_compare_categories(p, s, line, sizeof line));
	}
}

static void op_row(const struct op_diff *d, FILE *out)
{
	char ca[24] = "-", cb[24] = "-", ta[24] = "-", tb[24] = "-", aa[24] = "-", ab[24] = "-", tp[24] = "";
	char da[24] = "";
	for (int s = 0; s < 2; s++) {
		const struct op_stat *o = d->s[s];
		if (!o)
			continue;
		snprintf(s ? cb : ca, 24, "%llu", (unsigned long long)o->count);
		snprintf(s ? tb : ta, 24, "%.3f", (double)o->total_ns / 1e6);
		snprintf(s ? ab : aa, 24, "%.3f", o->avg_ns / 1e3);
	}
	if (!isnan(d->delta_total_pct))
		snprintf(tp, sizeof tp, "%+.1f%%", d->delta_total_pct);
	if (d->s[0] && d->s[1])
		snprintf(da, sizeof da, "%+.3f", d->delta_avg_ns / 1e3);
	fprintf(out, "    %-7s %9s %9s %+7lld %11s %11s %+11.3f %8s %10s %10s %10s  ", compare_op_change_name(d->change),
		ca, cb, (long long)d->delta_count, ta, tb, (double)d->delta_total_ns / 1e6, tp, aa, ab, da);
	char label[600];
	summary_put_clean(out, op_rows_label(d->name, d->group, label, sizeof label));
	fputc('\n', out);
}

static int cmp_by_avg(const void *a, const void *b)
{
	const struct op_diff *x = *(const struct op_diff *const *)a, *y = *(const struct op_diff *const *)b;
	double dx = fabs(x->delta_avg_ns), dy = fabs(y->delta_avg_ns);
	if (dx != dy)
		return dx > dy ? -1 : 1;
	int c = strcmp(x->name, y->name);
	return c ? c : analysis_group_cmp(x->group, y->group);
}

/* The pair's ops of a scope and phase that pass keep(), most changed first (by total, or
 * by average with by_avg); at most max of them. */
static size_t select_ops(const struct compare_pair *p, int scope, int phase, bool (*keep)(const struct op_diff *, int),
			 int arg, bool by_avg, const struct op_diff **out, size_t max)
{
	size_t n = 0;
	for (size_t i = 0; i < p->n_ops; i++) {
		const struct op_diff *d = &p->ops[i];
		if (d->scope == scope && d->phase == phase && keep(d, arg))
			out[n++] = d;
	}
	if (by_avg)
		xqsort(out, n, sizeof *out, cmp_by_avg);
	return n < max ? n : max;
}

static bool keep_change(const struct op_diff *d, int change) { return (int)d->change == change; }
static bool keep_avg_change(const struct op_diff *d, int change) { return (int)d->avg_change == change; }
static bool keep_changed(const struct op_diff *d, int unused)
{
	(void)unused;
	return d->change != OPC_SAME;
}

static void op_group(const struct compare_pair *p, int scope, int phase, const char *title,
		     bool (*keep)(const struct op_diff *, int), int arg, bool by_avg, size_t max, FILE *out)
{
	const struct op_diff **v = xmalloc((p->n_ops ? p->n_ops : 1) * sizeof *v);
	size_t total = 0;
	for (size_t i = 0; i < p->n_ops; i++)
		total += p->ops[i].scope == scope && p->ops[i].phase == phase && keep(&p->ops[i], arg);
	size_t n = select_ops(p, scope, phase, keep, arg, by_avg, v, max);
	if (n) {
		fprintf(out, "   %s (%zu%s)\n", title, total, n < total ? _(", most changed first") : "");
		for (size_t i = 0; i < n; i++)
			op_row(v[i], out);
	}
	free(v);
}

static void text_ops(const struct compare_pair *p, const struct comparison *c, FILE *out)
{
	fprintf(out, _("\nop changes (n: calls, ms: total time, us: average per call, d: %s - %s; a change within %.0f %% "
		"of %s is \"same\")\n"), c->label[1], c->label[0], COMPARE_NOISE_PCT, c->label[0]);
	char head[256], t[6][32];
	for (int s = 0; s < 2; s++) {
		snprintf(t[s], sizeof t[s], "n %s", c->label[s]);
		snprintf(t[2 + s], sizeof t[2 + s], "ms %s", c->label[s]);
		snprintf(t[4 + s], sizeof t[4 + s], "us %s", c->label[s]);
	}
	snprintf(head, sizeof head, "    %-7s %9s %9s %7s %11s %11s %11s %8s %10s %10s %10s  name\n", "change", t[0], t[1],
		 "d n", t[2], t[3], "d ms", "d %", t[4], t[5], "d us");
	const char *source = compare_why(p, 0);
	if (source) { /* the op lists come from other files on each side */
		fputs(_("  not comparable, because "), out);
		summary_put_clean(out, source);
		fputc('\n', out);
		return;
	}
	for (int s = SCOPE_DEVICE; s <= SCOPE_HOST; s++) {
		const size_t *n = p->n_change[s][PHASE_UNKNOWN];
		fprintf(out, _("  %s ops, all phases: %zu slower, %zu faster, %zu added, %zu removed, %zu same\n"),
			result_scope_name((enum op_scope)s), n[OPC_SLOWER], n[OPC_FASTER], n[OPC_ADDED], n[OPC_REMOVED],
			n[OPC_SAME]);
		fputs(head, out);
		op_group(p, s, PHASE_UNKNOWN, _("slower by total"), keep_change, OPC_SLOWER, false, COMPARE_TOP_OPS, out);
		op_group(p, s, PHASE_UNKNOWN, _("faster by total"), keep_change, OPC_FASTER, false, COMPARE_TOP_OPS, out);
		op_group(p, s, PHASE_UNKNOWN, _("removed"), keep_change, OPC_REMOVED, false, COMPARE_TOP_OPS, out);
		op_group(p, s, PHASE_UNKNOWN, _("added"), keep_change, OPC_ADDED, false, COMPARE_TOP_OPS, out);
		op_group(p, s, PHASE_UNKNOWN, _("slower per call"), keep_avg_change, OPC_SLOWER, true, COMPARE_PHASE_OPS,
			 out);
		op_group(p, s, PHASE_UNKNOWN, _("faster per call"), keep_avg_change, OPC_FASTER, true, COMPARE_PHASE_OPS,
			 out);
		const char *why = compare_why(p, 1u << CDEP_STEPS | 1u << CDEP_PHASES);
		if (why) { /* no op is slower or faster in a phase of steps defined two ways */
			fputs(_("   prefill and decode steps: not comparable, because "), out);
			summary_put_clean(out, why);
			fputc('\n', out);
			continue;
		}
		for (int ph = PHASE_PREFILL; ph <= PHASE_DECODE; ph++) {
			char title[64];
			snprintf(title, sizeof title, _("%s steps: largest changes"), _(result_phase_name((enum phase)ph)));
			op_group(p, s, ph, title, keep_changed, 0, false, COMPARE_PHASE_OPS, out);
		}
	}
}

void report_compare_text(const struct comparison *c, FILE *out)
{
	fprintf(out, _("ascprof-tui %s comparison\n"), PACKAGE_VERSION);
	for (int s = 0; s < 2; s++) {
		fprintf(out, "  %-8s ", c->mode == CMP_RANKS ? "capture" : c->label[s]);
		summary_put_clean(out, side_path(c, s));
		fputc('\n', out);
		if (c->mode == CMP_RANKS)
			break;
	}
	fprintf(out, _("delta = %s - %s, %% of %s; better or worse by each figure's direction; within %.0f %% is "
		"\"same\"\n"), c->label[1], c->label[0], c->label[0], COMPARE_NOISE_PCT);
	text_recorded(c, out);
	if (c->n_warnings) {
		fputs(_("\ncomparability warnings\n"), out);
		for (size_t i = 0; i < c->n_warnings; i++) {
			fputs("  ! ", out);
			summary_put_clean(out, c->warnings[i]);
			fputc('\n', out);
		}
	} else {
		fputs(_("\nno comparability warnings (ranks, steps, phases, versions, level, shapes alike)\n"), out);
	}
	for (size_t i = 0; i < c->n_pairs; i++) {
		const struct compare_pair *p = &c->pairs[i];
		if (c->mode == CMP_RANKS)
			fprintf(out, _("\n== rank %d vs rank %d ==\n"), p->ra[0]->rank, p->ra[1]->rank);
		else
			fprintf(out, _("\n== rank %d (%s) vs rank %d (%s) ==\n"), p->ra[0]->rank, c->label[0],
				p->ra[1]->rank, c->label[1]);
		text_figures(p, c, out);
		text_bottlenecks(p, c, out);
		text_categories(p, c, out);
		text_ops(p, c, out);
	}
	if (!c->n_pairs)
		fputs(_("\nno ranks to compare\n"), out);
}

/* ---- JSON --------------------------------------------------------------------------- */

static void jpair_num(struct jsonw *w, const char *key, const bool have[2], const double v[2], int decimals)
{
	jsonw_key(w, key);
	jsonw_arr_begin(w);
	for (int s = 0; s < 2; s++)
		if (have[s])
			jsonw_double(w, v[s], decimals);
		else
			jsonw_null(w);
	jsonw_arr_end(w);
}

static void jpair_int(struct jsonw *w, const char *key, int a, int b)
{
	jsonw_key(w, key);
	jsonw_arr_begin(w);
	jsonw_int(w, a);
	jsonw_int(w, b);
	jsonw_arr_end(w);
}

/* "comparable": true, or false with "reason" */
static void json_comparable(struct jsonw *w, bool comparable, const char *reason)
{
	jsonw_kbool(w, "comparable", comparable);
	if (!comparable)
		jsonw_kstr(w, "reason", reason);
}

static void json_figures(struct jsonw *w, const struct compare_pair *p)
{
	jsonw_key(w, "figures");
	jsonw_obj_begin(w);
	for (int f = 0; f < CF_COUNT; f++) {
		const struct compare_value *cv = &p->fig[f];
		struct compare_fig_def d = compare_fig(f);
		int dec = !strcmp(d.unit, "ratio") ? 4 : 3;
		jsonw_key(w, d.key);
		jsonw_obj_begin(w);
		jsonw_kstr(w, "unit", d.unit);
		jsonw_kstr(w, "better", compare_dir_name(d.dir));
		jpair_num(w, "values", cv->have, cv->v, dec);
		jsonw_kdouble(w, "delta", cv->delta, dec);
		jsonw_kdouble(w, "delta_pct", cv->delta_pct, 3);
		jsonw_kstr(w, "verdict", compare_verdict_name(cv->verdict));
		json_comparable(w, cv->comparable, cv->reason);
		jsonw_obj_end(w);
	}
	jsonw_obj_end(w);
}

static void json_bottlenecks(struct jsonw *w, const struct compare_pair *p)
{
	jsonw_key(w, "bottlenecks");
	jsonw_arr_begin(w);
	for (int k = 0; k < BN_COUNT; k++) {
		jsonw_obj_begin(w);
		jsonw_kstr(w, "name", p->ra[0]->bn[k].name);
		jpair_int(w, "scores", p->bn_score[0][k], p->bn_score[1][k]);
		json_comparable(w, p->bn_comparable[k], p->bn_reason[k]);
		jsonw_obj_end(w);
	}
	jsonw_arr_end(w);
	jsonw_key(w, "gain");
	if (!p->have_gain) {
		jsonw_null(w);
		return;
	}
	const struct compare_gain *g = &p->gain;
	jsonw_obj_begin(w);
	jsonw_kstr(w, "bottleneck", g->name);
	jpair_int(w, "scores", g->score[0], g->score[1]);
	jsonw_kbool(w, "triggered", g->triggered);
	jsonw_kdouble(w, "expected_low_pct", g->low_pct, 2);
	jsonw_kdouble(w, "expected_high_pct", g->high_pct, 2);
	jsonw_kbool(w, "expected_known", g->gain_known);
	jsonw_kstr(w, "measured_on", g->base_name);
	bool have[2] = {true, true};
	jpair_num(w, "measured_us", have, g->base, 3);
	jsonw_kdouble(w, "actual_pct", g->actual_pct, 3);
	jsonw_kstr(w, "verdict", compare_gain_verdict_name(g->verdict));
	jsonw_kstr(w, "basis", g->basis);
	json_comparable(w, g->comparable, g->reason);
	jsonw_obj_end(w);
}

static void json_categories(struct jsonw *w, const struct compare_pair *p)
{
	jsonw_key(w, "category_shares_pct");
	jsonw_obj_begin(w);
	for (int s = SCOPE_DEVICE; s <= SCOPE_HOST; s++) {
		jsonw_key(w, result_scope_name((enum op_scope)s));
		jsonw_obj_begin(w);
		for (int k = 0; k < CAT_COUNT; k++) {
			bool have[2] = {true, true};
			double v[2] = {p->cat_share[0][s][k], p->cat_share[1][s][k]};
			jpair_num(w, category_name((enum ev_category)k), have, v, 3);
		}
		jsonw_obj_end(w);
	}
	jsonw_obj_end(w);
}

static void json_op(struct jsonw *w, const struct op_diff *d)
{
	jsonw_obj_begin(w);
	jsonw_kstr(w, "name", d->name);
	jsonw_kstr(w, "group", d->group);
	jsonw_kstr(w, "scope", result_scope_name((enum op_scope)d->scope));
	jsonw_kstr(w, "phase", d->phase == PHASE_UNKNOWN ? "all" : result_phase_name((enum phase)d->phase));
	jsonw_kstr(w, "category", category_name((enum ev_category)d->category));
	jsonw_kstr(w, "change", compare_op_change_name(d->change));
	jsonw_kstr(w, "avg_change", compare_op_change_name(d->avg_change));
	bool have[2] = {d->s[0] != NULL, d->s[1] != NULL};
	double count[2], total[2], avg[2];
	for (int s = 0; s < 2; s++) {
		count[s] = have[s] ? (double)d->s[s]->count : 0;
		total[s] = have[s] ? (double)d->s[s]->total_ns / 1e3 : 0;
		avg[s] = have[s] ? d->s[s]->avg_ns / 1e3 : 0;
	}
	jpair_num(w, "count", have, count, 0);
	jsonw_kint(w, "delta_count", d->delta_count);
	jpair_num(w, "total_us", have, total, 3);
	jsonw_kus(w, "delta_total_us", d->delta_total_ns);
	jsonw_kdouble(w, "delta_total_pct", d->delta_total_pct, 3);
	jpair_num(w, "avg_us", have, avg, 3);
	jsonw_kdouble(w, "delta_avg_us", have[0] && have[1] ? d->delta_avg_ns / 1e3 : NAN, 3);
	jsonw_kdouble(w, "delta_avg_pct", d->delta_avg_pct, 3);
	json_comparable(w, d->comparable, d->reason);
	jsonw_obj_end(w);
}

static void json_ops(struct jsonw *w, const struct compare_pair *p)
{
	static const char *phase_keys[3] = {"all", "prefill", "decode"};
	jsonw_key(w, "op_changes");
	jsonw_obj_begin(w);
	for (int s = SCOPE_DEVICE; s <= SCOPE_HOST; s++) {
		jsonw_key(w, result_scope_name((enum op_scope)s));
		jsonw_obj_begin(w);
		for (int ph = 0; ph < 3; ph++) {
			jsonw_key(w, phase_keys[ph]);
			jsonw_obj_begin(w);
			for (int k = 0; k < OPC_COUNT; k++) {
				jsonw_kuint(w, compare_op_change_name((enum op_change)k), p->n_change[s][ph][k]);
			}
			const char *why = compare_why(p, ph ? 1u << CDEP_STEPS | 1u << CDEP_PHASES : 0);
			json_comparable(w, !why, why);
			jsonw_obj_end(w);
		}
		jsonw_obj_end(w);
	}
	jsonw_obj_end(w);
	/* device and host ops per phase, most changed first; the "all" scope repeats them */
	size_t left_out = 0, shown[SCOPE_COUNT][3] = {{0}};
	jsonw_key(w, "ops");
	jsonw_arr_begin(w);
	for (size_t i = 0; i < p->n_ops; i++) {
		const struct op_diff *d = &p->ops[i];
		if (d->scope == SCOPE_ALL)
			continue;
		if (shown[d->scope][d->phase]++ >= COMPARE_JSON_OPS) {
			left_out++;
			continue;
		}
		json_op(w, d);
	}
	jsonw_arr_end(w);
	jsonw_kuint(w, "ops_left_out", left_out);
}

void report_compare_json(const struct comparison *c, FILE *out)
{
	struct jsonw w;
	jsonw_init(&w, out, true);
	jsonw_obj_begin(&w);
	jsonw_kstr(&w, "tool", "ascprof-tui");
	jsonw_kstr(&w, "version", PACKAGE_VERSION);
	jsonw_kstr(&w, "mode", c->mode == CMP_CAPTURES ? "captures" : "ranks");
	jsonw_key(&w, "sides");
	jsonw_arr_begin(&w);
	for (int s = 0; s < 2; s++) {
		jsonw_obj_begin(&w);
		jsonw_kstr(&w, "label", c->label[s]);
		jsonw_kstr(&w, "path", side_path(c, s));
		jsonw_kuint(&w, "ranks", c->an[s]->n_ranks);
		jsonw_obj_end(&w);
	}
	jsonw_arr_end(&w);
	jsonw_kstr(&w, "convention",
		   "pairs of values are [first side, second side]; delta = second - first; *_pct of the first");
	jsonw_kdouble(&w, "noise_pct", COMPARE_NOISE_PCT, 1);
	jsonw_key(&w, "recorded");
	jsonw_obj_begin(&w);
	for (int k = 0; k < REC_COUNT; k++) {
		const struct compare_recorded *r = &c->recorded[k];
		jsonw_key(&w, r->key);
		jsonw_obj_begin(&w);
		jsonw_key(&w, "values");
		jsonw_arr_begin(&w);
		jsonw_str(&w, r->value[0]);
		jsonw_str(&w, r->value[1]);
		jsonw_arr_end(&w);
		jsonw_kbool(&w, "differs", r->differs);
		jsonw_obj_end(&w);
	}
	jsonw_obj_end(&w);
	jsonw_key(&w, "warnings");
	jsonw_arr_begin(&w);
	for (size_t i = 0; i < c->n_warnings; i++)
		jsonw_str(&w, c->warnings[i]);
	jsonw_arr_end(&w);
	jsonw_key(&w, "pairs");
	jsonw_arr_begin(&w);
	for (size_t i = 0; i < c->n_pairs; i++) {
		const struct compare_pair *p = &c->pairs[i];
		jsonw_obj_begin(&w);
		jpair_int(&w, "ranks", p->ra[0]->rank, p->ra[1]->rank);
		/* a side whose steps were found again without its markers, as the other side's */
		jsonw_key(&w, "steps_found_again");
		jsonw_arr_begin(&w);
		jsonw_bool(&w, p->steps_again[0]);
		jsonw_bool(&w, p->steps_again[1]);
		jsonw_arr_end(&w);
		json_figures(&w, p);
		json_bottlenecks(&w, p);
		json_categories(&w, p);
		json_ops(&w, p);
		jsonw_obj_end(&w);
	}
	jsonw_arr_end(&w);
	jsonw_obj_end(&w);
	fputc('\n', out);
}
