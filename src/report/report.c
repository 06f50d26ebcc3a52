/* SPDX-License-Identifier: MIT */
/* Text and JSON reports over one analysis. */
#include "config.h"
#include "i18n.h"
#include "report.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <uniwidth.h>

#include "doctor.h"
#include "jsonw.h"
#include "op_rows.h"
#include "summary.h"

static const char *rank_label(const struct analysis *an, const struct rank_analysis *ra)
{
	return an->cap->ranks[ra->rank_index].plan->label;
}

/* ---- text --------------------------------------------------------------------------- */

void report_attribution_text(const struct rank_analysis *ra, FILE *out)
{
	const struct attribution *a = &ra->attr;
	if (!a->valid) {
		fprintf(out, _("\nattribution: insufficient data (%s)\n"), _(attribution_why(a)));
		return;
	}
	char barbuf[64];
	report_attribution_bar(a, barbuf, 50);
	fprintf(out, _("\nattribution of the %.3f ms window (each ns in one bucket, by priority)\n  [%s]\n"),
		(double)a->wall_ns / 1e6, barbuf);
	for (int k = 0; k < ATTR_COUNT; k++) {
		if (!a->ns[k])
			continue;
		char v[32];
		fprintf(out, "  %c ", attr_bucket_defs[k].letter);
		report_put_padded(out, _(attr_bucket_defs[k].label), 34);
		fprintf(out, " %14s %6.2f %%\n",
			report_value_text((double)a->ns[k] / 1e3, "us", false, v, sizeof v), attribution_pct(a, a->ns[k]));
	}
	if (a->ns[ATTR_COMM_WAIT] || a->ns[ATTR_COMM_TRANSFER] || a->ns[ATTR_COMM_SETUP] || a->ns[ATTR_COMM_UNSPLIT]) {
		fputs(_("  communication split: "), out);
		summary_put_clean(out, _(a->comm_split));
		fputc('\n', out);
	}
	if (!a->host_known)
		fputs(_("  no host trace: idle inside the device span has no known cause, and syncs are unseen\n"), out);
}

static void bar(FILE *out, int score, int width)
{
	int filled = score * width / 100;
	fputc('[', out);
	for (int i = 0; i < width; i++)
		fputc(i < filled ? '#' : '.', out);
	fputc(']', out);
}

/* The rank's title, and what its figures cannot come from (a file not read or cut). */
static void text_rank_title(const struct analysis *an, const struct rank_analysis *ra, FILE *out)
{
	fprintf(out, _("\n== rank %d  "), ra->rank);
	summary_put_clean(out, rank_label(an, ra));
	fprintf(out, " ==\n");
	const struct rank_data *rd = &an->cap->ranks[ra->rank_index];
	if (rd->db_path && rd->trace_failed) {
		/* a Db-only rank must never read as a clean one */
		fputs(_("   (Db export NOT READ: "), out);
		summary_put_clean(out, rd->db_path);
		fputs(_("; see --summary for why. Insufficient data: no figure below comes from it)\n"), out);
	} else if (rd->store.trace.path && !ra->has_trace) {
		/* a trace that gave nothing must not read as a capture without one */
		fputs(_("   (trace NOT READ: "), out);
		summary_put_clean(out, rd->store.trace.path);
		fputs(_("; see the messages below. No figure below comes from it)\n"), out);
	} else if (rd->store.trace.truncated) {
		/* the figures of a cut trace cover its start only: say so before any of them */
		fprintf(out, _("   (trace CUT SHORT: the file ends inside its event array; every figure below "
			       "covers only the events in its first %llu bytes, see the messages below)\n"),
			(unsigned long long)rd->store.trace.parsed_bytes);
	} else if (!ra->has_trace && ra->has_timeline)
		fputs(_("   (no trace: device figures from the kernel table's rows)\n"), out);
	else if (!ra->has_trace && ra->attr.valid)
		fputs(_("   (no trace and no kernel table rows: figures from step_trace_time.csv)\n"), out);
	else if (!ra->has_trace)
		fputs(_("   (no trace and no kernel table rows: insufficient data for device figures)\n"), out);
}

static void text_metrics(const struct rank_analysis *ra, FILE *out)
{
	char b[64];
	fputs(_("\nmetrics\n"), out);
	for (int mi = 0; mi < M_COUNT; mi++) {
		enum metric_id m = (enum metric_id)mi;
		if (!ra->have[m])
			continue;
		fputs("  ", out);
		report_put_padded(out, _(metric_defs[m].label), 26);
		fprintf(out, " %14s  %s", report_metric_text(ra, m, b, sizeof b),
			ra->source[m] ? _(ra->source[m]) : "");
		if (ra->conf[m] != CONF_HIGH)
			fprintf(out, _(" [confidence %s]"), result_confidence_text(ra->conf[m]));
		fputc('\n', out);
	}
	if (ra->have[M_DISPATCH_PER_STEP] && ra->v[M_DISPATCH_PER_STEP] > 1200)
		fputs(_("  ! more than 1200 host ops per step: dispatch is a fixed per-step cost\n"), out);
}

/* A step's figures, in two tables because the phase's strings sit between them in both
 * the text and the JSON: its window, then what the window held. Unknown figures (no
 * device lanes, no host trace) are NaN: "-" in the text, null in the JSON, as the metrics. */
#define STEP_ROW(name, expr) \
	static double name(const void *row, const void *ctx) \
	{ \
		const struct step *s = row; \
		const struct rank_analysis *ra = ctx; \
		(void)ra; \
		return expr; \
	}
STEP_ROW(stf_start, s->has_window ? (double)(s->start - ra->t0) : NAN)
STEP_ROW(stf_dur, (double)(s->end - s->start))
STEP_ROW(stf_compute, ra->have[M_COMPUTE_US] ? (double)s->compute_ns : NAN)
STEP_ROW(stf_comm, ra->have[M_COMPUTE_US] ? (double)s->comm_not_overlapped_ns : NAN)
STEP_ROW(stf_free, ra->have[M_COMPUTE_US] ? (double)s->free_ns : NAN)
STEP_ROW(stf_host, ra->have[M_HOST_ONLY_US] ? (double)s->host_only_ns : NAN)
STEP_ROW(stf_h2d, (double)s->h2d_ns)
STEP_ROW(stf_d2h, (double)s->d2h_ns)
STEP_ROW(stf_dispatch, ra->have[M_DISPATCH_OPS] ? (double)s->dispatch_ops : NAN)
STEP_ROW(stf_replays, (double)s->graph_replays)

static const struct report_field step_window_fields[] = {
	{"start_us", RF_OPT, 0, 10, 3, 1e6, 1e3, 3, stf_start},
	{"dur_us", RF_NS, 1, 9, 3, 1e6, 1, 0, stf_dur},
};
#define N_STEP_WINDOW_FIELDS (sizeof step_window_fields / sizeof step_window_fields[0])

static const struct report_field step_fields[] = {
	{"compute_us", RF_NS, 0, 11, 3, 1e6, 1, 0, stf_compute},
	{"comm_not_overlapped_us", RF_NS, 1, 12, 3, 1e6, 1, 0, stf_comm},
	{"free_us", RF_NS, 2, 9, 3, 1e6, 1, 0, stf_free},
	{"host_only_us", RF_NS, 3, 13, 3, 1e6, 1, 0, stf_host},
	{"h2d_us", RF_NS, -1, 0, 0, 1, 1, 0, stf_h2d},
	{"d2h_us", RF_NS, -1, 0, 0, 1, 1, 0, stf_d2h},
	{"dispatch_ops", RF_COUNT, 4, 9, 0, 1, 1, 0, stf_dispatch},
	{"graph_replays", RF_COUNT, -1, 0, 0, 1, 1, 0, stf_replays},
};
#define N_STEP_FIELDS (sizeof step_fields / sizeof step_fields[0])

/* The workload, the steps and their phases, with what each was read from. */
static void text_steps(const struct rank_analysis *ra, FILE *out)
{
	fprintf(out, _("\nworkload: %s"), result_workload_name(ra->workload));
	if (ra->workload_evidence) {
		fputs(" (", out);
		summary_put_clean(out, ra->workload_evidence);
		fputc(')', out);
	}
	fprintf(out, _("\nsteps: %zu from %s"), ra->n_steps, result_step_source_name(ra->step_source));
	if (ra->step_evidence) {
		fputs(" (", out);
		summary_put_clean(out, ra->step_evidence);
		fputc(')', out);
	}
	fprintf(out, _("\nphases: %s, confidence %s"), result_phase_source_name(ra->phase_source),
		result_confidence_text(ra->phase_conf));
	if (ra->phase_evidence) {
		fputs(": ", out);
		summary_put_clean(out, ra->phase_evidence);
	}
	fputc('\n', out);
	if (ra->n_steps) {
		/* TRANSLATORS: column titles: each keeps the cells of its column */
		fputs(_("  #    start ms    dur ms  phase    compute ms  comm-exp ms   free ms  host-only ms  dispatch  "
		      "signal      confidence\n"),
		      out);
		size_t shown = ra->n_steps > 40 ? 40 : ra->n_steps;
		for (size_t i = 0; i < shown; i++) {
			const struct step *s = &ra->steps[i];
			fprintf(out, "  %-3zu", i + 1);
			report_fields_text(out, step_window_fields, N_STEP_WINDOW_FIELDS, s, ra, 0);
			fputs("  ", out);
			/* "training" is a byte wider than the column: the compute figure's field,
			 * wider than its values, gives the byte back so the columns stay put */
			const char *phase = _(result_step_phase_name(s));
			int over = u8_strwidth((const uint8_t *)phase, "UTF-8") - 7;
			over = over < 0 ? 0 : over > 4 ? 4 : over;
			report_put_padded(out, phase, 7);
			report_fields_text(out, step_fields, N_STEP_FIELDS, s, ra, over);
			fprintf(out, "  %-10s  %s\n", result_phase_signal_name(s->phase_source),
				result_confidence_text(s->phase_conf));
		}
		if (shown < ra->n_steps)
			fprintf(out, _("  ... %zu more steps (see --json)\n"), ra->n_steps - shown);
	}
}

static void text_crosschecks(const struct rank_analysis *ra, FILE *out)
{
	for (size_t i = 0; i < ra->n_checks; i++) {
		const struct crosscheck *c = &ra->checks[i];
		fprintf(out, _("\ncross-check with %s (window %.3f ms): %s\n"), c->source,
			(double)(c->win_end - c->win_start) / 1e6, c->agree ? _("agrees within 2 %") : _("DIFFERS"));
		static const char *what[3] = {"Computing", "Communication(Not Overlapped)", "Free"};
		for (int k = 0; k < 3; k++)
			fprintf(out, _("  %-30s theirs %12.3f us  ours %12.3f us  diff %+7.2f %%\n"), what[k],
				(double)c->theirs[k] / 1e3, (double)c->ours[k] / 1e3, c->diff_pct[k]);
		if (c->explanation) {
			fputs(_("  why: "), out);
			summary_put_clean(out, c->explanation);
			fputc('\n', out);
		}
	}
}

/* The candidates by score, the combined gain, the collectives named alone, the verdict. */
static void text_bottlenecks(const struct rank_analysis *ra, FILE *out)
{
	fputs(_("\nbottlenecks (score 0-100, >= 40 triggers)\n"), out);
	int order[BN_COUNT];
	bottleneck_order(ra, order);
	for (int i = 0; i < BN_COUNT; i++) {
		const struct bottleneck *bn = &ra->bn[order[i]];
		fputs("  ", out);
		report_put_padded(out, bn->name, 14);
		fprintf(out, " %3d ", bn->score);
		bar(out, bn->score, 20);
		fprintf(out, "%s\n", bn->score >= 40 ? _("  TRIGGERED") : "");
		if (bn->insufficient) {
			fputs("      ", out);
			summary_put_clean(out, bn->insufficient);
			fputc('\n', out);
		}
		for (size_t e = 0; e < bn->n_ev; e++) {
			fprintf(out, "      %s ", bn->ev[e].triggered ? "*" : "-");
			summary_put_clean(out, bn->ev[e].text);
			fputc('\n', out);
		}
		if (bn->score >= 40) {
			fprintf(out, _("      expected gain %.1f-%.1f %% of the window (confidence %s): "), bn->gain.low_pct,
				bn->gain.high_pct, result_confidence_text(bn->gain.conf));
			summary_put_clean(out, bn->gain.basis);
			fputs(_("\n      try: "), out);
			summary_put_clean(out, bn->advice);
			fputc('\n', out);
		}
	}
	fprintf(out, _("  combined expected gain of the triggered candidates: %.1f-%.1f %% (capped at 70 %%)\n"),
		ra->combined_gain_low, ra->combined_gain_high);
	report_outliers_text(ra, out);
	char verdict[VERDICT_MAX];
	fprintf(out, _("  verdict: %s\n"), bottleneck_verdict(ra, verdict, sizeof verdict));
}

/* A top op's figures, in the JSON's order; the text's columns by text_col (busy time and
 * the deviation from the CSV are the JSON's alone). */
#define OPS_ROW(T, name, expr) \
	static double name(const void *row, const void *ctx) \
	{ \
		const T *o = row; \
		(void)ctx; \
		return expr; \
	}
OPS_ROW(struct op_stat, opf_count, (double)o->count)
OPS_ROW(struct op_stat, opf_total, (double)o->total_ns)
OPS_ROW(struct op_stat, opf_avg, o->avg_ns)
OPS_ROW(struct op_stat, opf_p50, (double)o->p50_ns)
OPS_ROW(struct op_stat, opf_p95, (double)o->p95_ns)
OPS_ROW(struct op_stat, opf_max, (double)o->max_ns)
OPS_ROW(struct op_stat, opf_busy, (double)o->busy_ns)
OPS_ROW(struct op_stat, opf_share, o->share_pct)
OPS_ROW(struct op_stat, opf_csv, o->csv_total_ns >= 0 ? (double)o->csv_total_ns : NAN)
OPS_ROW(struct op_stat, opf_dev, o->deviation_pct)

static const struct report_field op_fields[] = {
	{"count", RF_COUNT, 0, 5, 0, 1, 1, 0, opf_count},
	{"total_us", RF_NS, 1, 13, 3, 1e6, 1, 0, opf_total},
	{"avg_us", RF_DOUBLE, 2, 9, 3, 1e3, 1e3, 3, opf_avg},
	{"p50_us", RF_NS, 3, 9, 3, 1e3, 1, 0, opf_p50},
	{"p95_us", RF_NS, 4, 9, 3, 1e3, 1, 0, opf_p95},
	{"max_us", RF_NS, 5, 9, 3, 1e3, 1, 0, opf_max},
	{"busy_us", RF_NS, -1, 0, 0, 1, 1, 0, opf_busy},
	{"share_pct", RF_PCT, 6, 5, 1, 1, 1, 3, opf_share},
	{"csv_total_us", RF_OPT, 7, 8, 3, 1e6, 1e3, 3, opf_csv},
	{"deviation_pct", RF_DOUBLE, -1, 0, 0, 1, 1, 3, opf_dev},
};
#define N_OP_FIELDS (sizeof op_fields / sizeof op_fields[0])

OPS_ROW(struct op_type_stat, otf_count, (double)o->count)
OPS_ROW(struct op_type_stat, otf_names, (double)o->n_names)
OPS_ROW(struct op_type_stat, otf_total, (double)o->total_ns)
OPS_ROW(struct op_type_stat, otf_busy, (double)o->busy_ns)
OPS_ROW(struct op_type_stat, otf_share, o->share_pct)

/* An op type's figures: the text puts the names' count last, the JSON after the count. */
static const struct report_field op_type_fields[] = {
	{"count", RF_COUNT, 0, 6, 0, 1, 1, 0, otf_count},
	{"names", RF_COUNT, 4, 6, 0, 1, 1, 0, otf_names},
	{"total_us", RF_NS, 1, 13, 3, 1e6, 1, 0, otf_total},
	{"busy_us", RF_NS, 2, 13, 3, 1e6, 1, 0, otf_busy},
	{"share", RF_PCT, 3, 5, 1, 1, 1, 3, otf_share},
};
#define N_OP_TYPE_FIELDS (sizeof op_type_fields / sizeof op_type_fields[0])

static void text_top_ops(const struct rank_analysis *ra, FILE *out)
{
	/* without a trace the rows are the tables' own: no trace to set a CSV total beside */
	fputs(ra->has_trace ? _("\ntop ops by total time (trace; CSV total beside it)\n")
			    : _("\ntop ops by total time (kernel table and operator_details rows: no trace)\n"),
	      out);
	for (int scope = SCOPE_DEVICE; scope <= SCOPE_HOST; scope++) {
		fprintf(out, "  %s:\n", result_scope_name((enum op_scope)scope));
		/* TRANSLATORS: column titles: each keeps the cells of its column */
		fputs(_("    count      total ms    avg us    p50 us    p95 us    max us  share  csv ms    name\n"), out);
		size_t shown = 0;
		for (size_t i = 0; i < ra->n_ops && shown < REPORT_TOP_OPS; i++) {
			const struct op_stat *o = &ra->ops[i];
			if (o->scope != scope || o->phase != PHASE_UNKNOWN)
				continue;
			fputs("   ", out);
			report_fields_text(out, op_fields, N_OP_FIELDS, o, NULL, 0);
			fputs("  ", out);
			char label[600];
			summary_put_clean(out, op_rows_label(o->name, o->group, label, sizeof label));
			fputc('\n', out);
			shown++;
		}
	}
}

static void text_top_op_types(const struct rank_analysis *ra, FILE *out)
{
	if (ra->n_op_types) {
		fputs(_("\ntop op types (Type, or the name without collective suffixes; busy = union for "
		      "communication)\n"), out);
		for (int scope = SCOPE_DEVICE; scope <= SCOPE_HOST; scope++) {
			fprintf(out, "  %s:\n", result_scope_name((enum op_scope)scope));
			/* TRANSLATORS: column titles: each keeps the cells of its column */
			fputs(_("     count      total ms       busy ms  share  names  type\n"), out);
			size_t shown = 0;
			for (size_t i = 0; i < ra->n_op_types && shown < REPORT_TOP_OPS; i++) {
				const struct op_type_stat *t = &ra->op_types[i];
				if (t->scope != scope)
					continue;
				fputs("   ", out);
				report_fields_text(out, op_type_fields, N_OP_TYPE_FIELDS, t, NULL, 0);
				fputs("  ", out);
				char label[600];
				summary_put_clean(out, op_rows_label(t->name, t->group, label, sizeof label));
				fputc('\n', out);
				shown++;
			}
		}
	}
}

static void text_rank(const struct analysis *an, const struct rank_analysis *ra, FILE *out)
{
	text_rank_title(an, ra, out);
	text_metrics(ra, out);
	text_steps(ra, out);
	text_crosschecks(ra, out);
	report_attribution_text(ra, out);
	report_gaps_text(ra, out);
	text_bottlenecks(ra, out);
	report_phase_text(ra, out);
	report_advice_text(ra, out);
	text_top_ops(ra, out);
	text_top_op_types(ra, out);
	report_memory_text(ra, out);
}

void report_print_text(const struct analysis *an, FILE *out)
{
	fprintf(out, _("ascprof-tui %s report of "), PACKAGE_VERSION);
	summary_put_clean(out, an->cap->plan.path);
	fprintf(out, _("\n%zu rank(s) analysed; times are each rank's own clock, relative to its first event\n"),
		an->n_ranks);
	/* before anything that treats the ranks as one job */
	if (an->cap->plan.runs_note) {
		fputs(_("WARNING: "), out);
		summary_put_clean(out, an->cap->plan.runs_note);
		fputc('\n', out);
	}
	if (an->n_ranks > 1) {
		fputs(_("\nrank alignment (clock offset vs rank "), out);
		fprintf(out, _("%d; subtract it to align)\n"), an->ranks[0].rank);
		/* TRANSLATORS: column titles: each keeps the cells of its column */
		fputs(_("  rank       first us         raw us  collective us   residual us  matched\n"), out);
		for (size_t i = 0; i < an->n_ranks; i++) {
			const struct rank_analysis *ra = &an->ranks[i];
			fprintf(out, "  %-4d %13.3f %13.3f %14.3f %13.3f  %zu%s", ra->rank,
				(double)ra->offset_ns[ALIGN_FIRST] / 1e3, (double)ra->offset_ns[ALIGN_RAW] / 1e3,
				(double)ra->offset_ns[ALIGN_COLLECTIVE] / 1e3, (double)ra->residual_ns / 1e3,
				ra->matched_collectives, ra->collective_ok ? "" : _(" (no collectives matched)"));
			if (ra->aligned_via >= 0)
				fprintf(out, _(" (through rank %d: no name shared with the reference)"), ra->aligned_via);
			else if (ra->align_loose)
				fputs(_(" (names matched with digits ignored: maybe another group's)"), out);
			fputc('\n', out);
		}
		/* ranks of one job start within minutes: first events hours apart are other runs
		 * (a parent directory of several), which no alignment puts on one clock */
		for (size_t i = 1; i < an->n_ranks; i++) {
			double h = fabs((double)an->ranks[i].offset_ns[ALIGN_FIRST]) / 3.6e12;
			if (h >= 1.0)
				fprintf(out, _("  ! rank %d's first event is %.1f hours from rank %d's: probably another "
					       "profiling run, not a rank of this one\n"),
					an->ranks[i].rank, h, an->ranks[0].rank);
		}
		if (an->n_slow) {
			fputs(_("slow-rank flags ((max - min) / mean above 5 %):\n"), out);
			for (size_t i = 0; i < an->n_slow; i++)
				fprintf(out, _("  %s spread %.1f %%: highest on rank %d, lowest on rank %d\n"),
					an->slow[i].metric, an->slow[i].spread_pct, an->slow[i].max_rank,
					an->slow[i].min_rank);
		} else {
			fputs(_("no slow-rank flags (compute, communication and free within 5 %)\n"), out);
		}
	}
	for (size_t i = 0; i < an->n_ranks; i++)
		text_rank(an, &an->ranks[i], out);
	report_comm_text(an, out);
	report_cluster_text(an, out);
	report_serving_text(an, out);
	report_moe_text(an, out);
	if (an->cap->diags.n || an->diags.n) {
		fputs(_("\nmessages\n"), out);
		summary_print_diags((struct diag_list *)&an->cap->diags, out, "  ");
		summary_print_diags((struct diag_list *)&an->diags, out, "  ");
	}
}

/* ---- JSON --------------------------------------------------------------------------- */

static void json_warning(const struct diag *d, void *ctx)
{
	char *line = diag_format(d);
	jsonw_str(ctx, line);
	free(line);
}



static void json_metrics(struct jsonw *w, const struct rank_analysis *ra)
{
	jsonw_key(w, "metrics");
	jsonw_obj_begin(w);
	for (int m = 0; m < M_COUNT; m++)
		jsonw_kdouble(w, metric_defs[m].key, ra->have[m] ? ra->v[m] : NAN,
			      !strcmp(metric_defs[m].unit, "ratio") ? 4 : 3);
	jsonw_kstr(w, "step_source", result_step_source_name(ra->step_source));
	jsonw_kstr(w, "phase_source", result_phase_source_name(ra->phase_source));
	jsonw_kstr(w, "workload", result_workload_name(ra->workload));
	jsonw_obj_end(w);

	jsonw_key(w, "metric_info");
	jsonw_obj_begin(w);
	for (int m = 0; m < M_COUNT; m++) {
		if (!ra->have[m])
			continue;
		jsonw_key(w, metric_defs[m].key);
		jsonw_obj_begin(w);
		jsonw_kstr(w, "unit", metric_defs[m].unit);
		jsonw_kstr(w, "source", ra->source[m]);
		jsonw_kstr(w, "confidence", result_confidence_name(ra->conf[m]));
		jsonw_obj_end(w);
	}
	jsonw_obj_end(w);
}

static void json_steps(struct jsonw *w, const struct rank_analysis *ra)
{
	jsonw_key(w, "steps");
	jsonw_obj_begin(w);
	jsonw_kstr(w, "source", result_step_source_name(ra->step_source));
	jsonw_kstr(w, "evidence", ra->step_evidence);
	jsonw_kstr(w, "phase_source", result_phase_source_name(ra->phase_source));
	jsonw_kstr(w, "phase_confidence", result_confidence_name(ra->phase_conf));
	jsonw_kstr(w, "phase_evidence", ra->phase_evidence);
	jsonw_kstr(w, "workload", result_workload_name(ra->workload));
	jsonw_kstr(w, "workload_evidence", ra->workload_evidence);
	jsonw_key(w, "phase_signals"); /* steps decided by each signal */
	jsonw_obj_begin(w);
	for (int g = 0; g < PHASE_SRC_COUNT; g++)
		if (ra->phase_steps[g]) {
			jsonw_kuint(w, result_phase_signal_name((enum phase_source)g), ra->phase_steps[g]);
		}
	jsonw_obj_end(w);
	jsonw_key(w, "list");
	jsonw_arr_begin(w);
	for (size_t i = 0; i < ra->n_steps; i++) {
		const struct step *s = &ra->steps[i];
		jsonw_obj_begin(w);
		jsonw_kint(w, "index", s->index);
		jsonw_kstr(w, "label", s->label);
		report_fields_json(w, step_window_fields, N_STEP_WINDOW_FIELDS, s, ra);
		jsonw_kstr(w, "phase", result_step_phase_name(s));
		jsonw_kstr(w, "phase_signal", result_phase_signal_name(s->phase_source));
		jsonw_kstr(w, "phase_confidence", result_confidence_name(s->phase_conf));
		jsonw_kstr(w, "phase_evidence", s->phase_evidence);
		report_fields_json(w, step_fields, N_STEP_FIELDS, s, ra);
		jsonw_obj_end(w);
	}
	jsonw_arr_end(w);
	jsonw_obj_end(w);
}

static void json_checks(struct jsonw *w, const struct rank_analysis *ra)
{
	static const char *what[3] = {"computing", "communication_not_overlapped", "free"};
	jsonw_key(w, "crosschecks");
	jsonw_arr_begin(w);
	for (size_t i = 0; i < ra->n_checks; i++) {
		const struct crosscheck *c = &ra->checks[i];
		jsonw_obj_begin(w);
		jsonw_kstr(w, "source", c->source);
		jsonw_kus(w, "window_us", c->win_end - c->win_start);
		for (int k = 0; k < 3; k++) {
			jsonw_key(w, what[k]);
			jsonw_obj_begin(w);
			jsonw_kus(w, "theirs_us", c->theirs[k]);
			jsonw_kus(w, "ours_us", c->ours[k]);
			jsonw_kdouble(w, "diff_pct", c->diff_pct[k], 3);
			jsonw_obj_end(w);
		}
		jsonw_kbool(w, "agree", c->agree);
		jsonw_kstr(w, "explanation", c->explanation);
		jsonw_obj_end(w);
	}
	jsonw_arr_end(w);
}

static void json_attribution(struct jsonw *w, const struct rank_analysis *ra)
{
	const struct attribution *a = &ra->attr;
	jsonw_key(w, "attribution");
	if (!a->valid) {
		jsonw_null(w);
	} else {
		jsonw_obj_begin(w);
		for (int k = 0; k < ATTR_COUNT; k++)
			jsonw_kus(w, attr_bucket_defs[k].key, a->ns[k]);
		jsonw_obj_end(w);
	}
	jsonw_key(w, "attribution_info");
	jsonw_obj_begin(w);
	jsonw_kbool(w, "valid", a->valid);
	jsonw_kus(w, "wall_us", a->wall_ns);
	jsonw_kbool(w, "host_known", a->host_known);
	jsonw_kstr(w, "comm_split", a->comm_split);
	jsonw_kint_or_null(w, "late_rank", ra->late_rank, ra->late_rank >= 0);
	jsonw_kus(w, "span_start_us", a->span_lo - ra->t0);
	jsonw_kus(w, "span_end_us", a->span_hi - ra->t0);
	jsonw_obj_end(w);
}

static void json_bottlenecks(struct jsonw *w, const struct rank_analysis *ra)
{
	jsonw_key(w, "bottlenecks");
	jsonw_arr_begin(w);
	for (int k = 0; k < BN_COUNT; k++) {
		const struct bottleneck *b = &ra->bn[k];
		jsonw_obj_begin(w);
		jsonw_kstr(w, "name", b->name);
		jsonw_kint(w, "score", b->score);
		jsonw_kbool(w, "triggered", b->score >= 40);
		jsonw_kstr(w, "insufficient", b->insufficient);
		jsonw_kus(w, "bucket_us", b->bucket_ns);
		jsonw_key(w, "evidence");
		jsonw_arr_begin(w);
		for (size_t e = 0; e < b->n_ev; e++) {
			jsonw_obj_begin(w);
			jsonw_kstr(w, "metric", b->ev[e].metric);
			jsonw_kdouble(w, "value", b->ev[e].value, 4);
			jsonw_kdouble(w, "threshold", b->ev[e].threshold, 4);
			jsonw_kstr(w, "unit", b->ev[e].unit);
			jsonw_kbool(w, "triggered", b->ev[e].triggered);
			jsonw_kstr(w, "text", b->ev[e].text);
			jsonw_obj_end(w);
		}
		jsonw_arr_end(w);
		jsonw_key(w, "gain");
		jsonw_obj_begin(w);
		jsonw_kdouble(w, "low_pct", b->gain.low_pct, 2);
		jsonw_kdouble(w, "high_pct", b->gain.high_pct, 2);
		jsonw_kstr(w, "confidence", result_confidence_name(b->gain.conf));
		jsonw_kstr(w, "basis", b->gain.basis);
		jsonw_obj_end(w);
		jsonw_kstr(w, "advice", b->advice);
		jsonw_obj_end(w);
	}
	jsonw_arr_end(w);
	char verdict[VERDICT_MAX];
	jsonw_kstr(w, "verdict", bottleneck_verdict(ra, verdict, sizeof verdict));
	/* the verdict names a collective first (collective_outliers[0]) before its candidates */
	jsonw_kbool(w, "verdict_leads_collective", bottleneck_verdict_leads_collective(ra));
	/* the verdict's candidates in its order, with what the order is by */
	jsonw_key(w, "verdict_order");
	jsonw_obj_begin(w);
	jsonw_kstr(w, "rank_by", "expected_gain");
	jsonw_kstr(w, "gain_point", "midpoint");
	jsonw_key(w, "candidates");
	jsonw_arr_begin(w);
	int order[BN_COUNT];
	bottleneck_verdict_order(ra, order);
	for (int i = 0; i < BN_COUNT && ra->bn[order[i]].score >= 40; i++) {
		const struct bottleneck *b = &ra->bn[order[i]];
		bool known = bottleneck_gain_known(ra, order[i]);
		char why[VERDICT_REASON_MAX];
		jsonw_obj_begin(w);
		jsonw_kstr(w, "name", b->name);
		jsonw_kint(w, "score", b->score);
		jsonw_kbool(w, "gain_known", known);
		jsonw_kdouble(w, "gain_low_pct", b->gain.low_pct, 2);
		jsonw_kdouble(w, "gain_high_pct", b->gain.high_pct, 2);
		jsonw_kdouble(w, "gain_mid_pct", bottleneck_gain_mid(b), 2);
		jsonw_kdouble(w, "bucket_pct", attribution_pct(&ra->attr, b->bucket_ns), 2);
		jsonw_kstr(w, "reason", bottleneck_verdict_reason(ra, order[i], why, sizeof why));
		jsonw_obj_end(w);
	}
	jsonw_arr_end(w);
	jsonw_obj_end(w);
	jsonw_key(w, "combined_gain");
	jsonw_obj_begin(w);
	jsonw_kdouble(w, "low_pct", ra->combined_gain_low, 2);
	jsonw_kdouble(w, "high_pct", ra->combined_gain_high, 2);
	jsonw_kdouble(w, "cap_pct", 70, 0);
	jsonw_obj_end(w);
}

static void json_ops(struct jsonw *w, const struct analysis *an, const struct rank_analysis *ra)
{
	(void)an;
	jsonw_kstr(w, "ops_source", ra->ops_source);
	jsonw_key(w, "top_ops");
	jsonw_arr_begin(w);
	for (int scope = 0; scope < SCOPE_COUNT; scope++) {
		size_t shown = 0;
		for (size_t i = 0; i < ra->n_ops && shown < REPORT_TOP_OPS; i++) {
			const struct op_stat *o = &ra->ops[i];
			if (o->scope != scope || o->phase != PHASE_UNKNOWN)
				continue;
			shown++;
			jsonw_obj_begin(w);
			jsonw_kstr(w, "name", o->name);
			jsonw_kstr(w, "group", o->group);
			jsonw_kstr(w, "scope", result_scope_name((enum op_scope)o->scope));
			jsonw_kstr(w, "category", category_name((enum ev_category)o->category));
			jsonw_kstr(w, "type", o->type);
			report_fields_json(w, op_fields, N_OP_FIELDS, o, NULL);
			jsonw_obj_end(w);
		}
	}
	jsonw_arr_end(w);
	jsonw_key(w, "top_op_types");
	jsonw_arr_begin(w);
	for (int scope = SCOPE_DEVICE; scope <= SCOPE_HOST; scope++) {
		size_t shown = 0;
		for (size_t i = 0; i < ra->n_op_types && shown < REPORT_TOP_OPS; i++) {
			const struct op_type_stat *t = &ra->op_types[i];
			if (t->scope != scope)
				continue;
			shown++;
			jsonw_obj_begin(w);
			jsonw_kstr(w, "name", t->name);
			jsonw_kstr(w, "group", t->group);
			jsonw_kstr(w, "scope", result_scope_name((enum op_scope)t->scope));
			jsonw_kstr(w, "category", category_name((enum ev_category)t->category));
			report_fields_json(w, op_type_fields, N_OP_TYPE_FIELDS, t, NULL);
			jsonw_obj_end(w);
		}
	}
	jsonw_arr_end(w);
}

void report_print_json(const struct analysis *an, FILE *out)
{
	struct jsonw w;
	jsonw_init(&w, out, true);
	jsonw_obj_begin(&w);
	jsonw_kstr(&w, "tool", "ascprof-tui");
	jsonw_kstr(&w, "version", PACKAGE_VERSION);
	jsonw_kstr(&w, "path", an->cap->plan.path);
	jsonw_kstr(&w, "time_base", "each rank's own clock; *_us durations; start_us relative to the rank's first event");
	jsonw_key(&w, "ranks");
	jsonw_arr_begin(&w);
	for (size_t i = 0; i < an->n_ranks; i++) {
		const struct rank_analysis *ra = &an->ranks[i];
		jsonw_obj_begin(&w);
		jsonw_kint(&w, "rank", ra->rank);
		jsonw_kstr(&w, "label", rank_label(an, ra));
		jsonw_kbool(&w, "has_trace", ra->has_trace);
		jsonw_kint(&w, "t0_ns", ra->t0);
		json_metrics(&w, ra);
		json_steps(&w, ra);
		json_checks(&w, ra);
		json_attribution(&w, ra);
		json_bottlenecks(&w, ra);
		report_phase_json(&w, ra);
		report_advice_json(&w, ra);
		jsonw_key(&w, "align");
		jsonw_obj_begin(&w);
		jsonw_key(&w, "offset_us");
		jsonw_obj_begin(&w);
		for (int m = 0; m < ALIGN_COUNT; m++)
			jsonw_kus(&w, result_align_name((enum align_mode)m), ra->offset_ns[m]);
		jsonw_obj_end(&w);
		jsonw_kus(&w, "residual_us", ra->residual_ns);
		jsonw_kus(&w, "residual_max_us", ra->residual_max_ns);
		jsonw_kuint(&w, "matched_collectives", ra->matched_collectives);
		jsonw_kbool(&w, "collective_ok", ra->collective_ok);
		jsonw_kint_or_null(&w, "aligned_via", ra->aligned_via, ra->aligned_via >= 0);
		jsonw_kbool(&w, "names_loose", ra->align_loose);
		jsonw_obj_end(&w);
		json_ops(&w, an, ra);
		report_memory_json(&w, ra);
		report_gaps_json(&w, ra);
		report_outliers_json(&w, ra);
		jsonw_obj_end(&w);
	}
	jsonw_arr_end(&w);
	jsonw_key(&w, "slow_ranks");
	jsonw_arr_begin(&w);
	for (size_t i = 0; i < an->n_slow; i++) {
		jsonw_obj_begin(&w);
		jsonw_kstr(&w, "metric", an->slow[i].metric);
		jsonw_kdouble(&w, "spread_pct", an->slow[i].spread_pct, 2);
		jsonw_kint(&w, "max_rank", an->slow[i].max_rank);
		jsonw_kint(&w, "min_rank", an->slow[i].min_rank);
		jsonw_obj_end(&w);
	}
	jsonw_arr_end(&w);
	report_comm_json(&w, an);
	report_cluster_json(&w, an);
	report_serving_json(&w, an);
	report_moe_json(&w, an);
	jsonw_key(&w, "thresholds");
	jsonw_arr_begin(&w);
	for (size_t i = 0; i < n_threshold_defs; i++) {
		jsonw_obj_begin(&w);
		jsonw_kstr(&w, "candidate", threshold_defs[i].kind == BN_HOST_DISPATCH ? "host dispatch"
			                    : threshold_defs[i].kind == BN_NPU_COMPUTE ? "NPU compute"
			                    : threshold_defs[i].kind == BN_COMMUNICATION ? "communication" : "copy");
		jsonw_kstr(&w, "metric", threshold_defs[i].metric);
		jsonw_kdouble(&w, "threshold", threshold_defs[i].threshold, 3);
		jsonw_kdouble(&w, "full_score_at", threshold_defs[i].full, 3);
		jsonw_kbool(&w, "scored", threshold_defs[i].scores);
		jsonw_obj_end(&w);
	}
	jsonw_arr_end(&w);
	/* the warnings, one list (analysis_warnings): the input's then the analysis'; the text
	 * report prints each as one warning line, the Overview counts them */
	jsonw_key(&w, "warnings");
	jsonw_arr_begin(&w);
	analysis_warnings(an, json_warning, &w);
	jsonw_arr_end(&w);
	summary_doctor_json(&w, an->doctor, an->n_doctor); /* the capture's: none from digests */
	summary_json_diagnostics(&w, (struct diag_list *)&an->cap->diags);
	/* the analysis' remarks below warning level (its warnings are in "warnings") */
	jsonw_key(&w, "analysis_notes");
	jsonw_arr_begin(&w);
	for (size_t i = 0; i < an->diags.n; i++) {
		if (an->diags.items[i].level >= DIAG_WARN)
			continue;
		char *line = diag_format(&an->diags.items[i]);
		jsonw_str(&w, line);
		free(line);
	}
	jsonw_arr_end(&w);
	jsonw_obj_end(&w);
	fputc('\n', out);
}
