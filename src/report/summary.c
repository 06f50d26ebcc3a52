/* SPDX-License-Identifier: MIT */
/* The --summary printer: counts per rank, lanes, counters, flows, CSV tables, warnings. */
#include "config.h"
#include "i18n.h"
#include "summary.h"

#include <stdlib.h>
#include <string.h>

#include "db.h"
#include "doctor.h"
#include "jsonw.h"
#include "lanes.h"
#include "sanitize.h"
#include "sbuf.h"
#include "xalloc.h"


void summary_put_clean(FILE *out, const char *s)
{
	struct sbuf sb = SBUF_INIT;
	sanitize_append(&sb, s, strlen(s));
	fputs(sbuf_str(&sb), out);
	sbuf_free(&sb);
}

const char *summary_bytes(uint64_t b, char *buf, size_t size)
{
	if (b >= (1ull << 30))
		snprintf(buf, size, "%.2f GB", (double)b / (1ull << 30));
	else if (b >= (1ull << 20))
		snprintf(buf, size, "%.1f MB", (double)b / (1ull << 20));
	else if (b >= 1024)
		snprintf(buf, size, "%.1f KB", (double)b / 1024);
	else
		snprintf(buf, size, "%llu B", (unsigned long long)b);
	return buf;
}

const char *summary_duration(int64_t ns, char *buf, size_t size)
{
	double a = ns < 0 ? -(double)ns : (double)ns;
	if (a >= 1e9)
		snprintf(buf, size, "%.3f s", (double)ns / 1e9);
	else if (a >= 1e6)
		snprintf(buf, size, "%.3f ms", (double)ns / 1e6);
	else if (a >= 1e3)
		snprintf(buf, size, "%.3f us", (double)ns / 1e3);
	else
		snprintf(buf, size, "%lld ns", (long long)ns);
	return buf;
}

void summary_print_diags(struct diag_list *dl, FILE *out, const char *indent)
{
	pthread_mutex_lock(&dl->lock);
	for (size_t i = 0; i < dl->n; i++) {
		char *line = diag_format(&dl->items[i]);
		fprintf(out, _("%s%s: "), indent, diag_level_text(dl->items[i].level));
		summary_put_clean(out, line);
		fputc('\n', out);
		free(line);
	}
	if (dl->dropped)
		fprintf(out, _("%s... and %zu more diagnostics\n"), indent, dl->dropped);
	pthread_mutex_unlock(&dl->lock);
}

void summary_json_diags(struct jsonw *w, struct diag_list *dl)
{
	pthread_mutex_lock(&dl->lock);
	jsonw_key(w, "warnings");
	jsonw_arr_begin(w);
	for (size_t i = 0; i < dl->n; i++) {
		if (dl->items[i].level < DIAG_WARN)
			continue;
		char *line = diag_format(&dl->items[i]);
		jsonw_str(w, line);
		free(line);
	}
	jsonw_arr_end(w);
	pthread_mutex_unlock(&dl->lock);
	summary_json_diagnostics(w, dl);
}

void summary_json_diagnostics(struct jsonw *w, struct diag_list *dl)
{
	pthread_mutex_lock(&dl->lock);
	jsonw_key(w, "diagnostics");
	jsonw_arr_begin(w);
	for (size_t i = 0; i < dl->n; i++) {
		const struct diag *d = &dl->items[i];
		jsonw_obj_begin(w);
		jsonw_kstr(w, "level", diag_level_name(d->level));
		jsonw_kstr(w, "file", d->file);
		jsonw_kint_or_null(w, "line", d->line, d->line > 0);
		jsonw_kint_or_null(w, "offset", d->offset, d->offset >= 0);
		jsonw_kstr(w, "message", d->msg);
		jsonw_obj_end(w);
	}
	jsonw_arr_end(w);
	jsonw_kuint(w, "diagnostics_dropped", dl->dropped);
	pthread_mutex_unlock(&dl->lock);
}

static const char *file_base(const char *path)
{
	const char *s = strrchr(path, '/');
	return s ? s + 1 : path;
}

static size_t lane_x_events(const struct lane *l) { return l->n_events; }

/* ---- text --------------------------------------------------------------------------- */

static void text_comm(const struct comm_data *cd, const char *indent, FILE *out)
{
	for (size_t k = 0; k < cd->n_files; k++) {
		const struct comm_file *f = &cd->files[k];
		fprintf(out, _("%scomm: "), indent);
		summary_put_clean(out, file_base(f->path));
		fprintf(out, _("  %s%s, %zu step(s), %zu entries, %zu links"), f->matrix ? _("matrix") : _("time and bandwidth"),
			f->cluster ? _(" (cluster layout)") : "", f->n_steps, f->n_ops, f->n_links);
		if (f->skipped)
			fprintf(out, _(", %zu skipped (see diagnostics)"), f->skipped);
		fputc('\n', out);
	}
}

/* Which export was read where a rank has a text and a Db one, and why; for a Db, the
 * tables read (db.h), or that it could not be read. */
static void text_source(const struct rank_data *rd, FILE *out)
{
	fprintf(out, _("  source: %s\n"), rd->source_why);
	if (!rd->db_path)
		return;
	fputs(_("  db: "), out);
	summary_put_clean(out, file_base(rd->db_path));
	if (rd->analysis_db_path) {
		fputs(", ", out);
		summary_put_clean(out, file_base(rd->analysis_db_path));
	}
	if (rd->trace_failed) {
		fputs(_(": NOT READ (see the diagnostics)\n"), out);
		return;
	}
	const char *tables[64];
	size_t n = db_tables_present(rd->db_path, rd->analysis_db_path, tables, 64);
	fputs(_("; tables read:"), out);
	for (size_t i = 0; i < n; i++)
		fprintf(out, "%s %s", i ? "," : "", tables[i]);
	fputc('\n', out);
}

static void text_rank(const struct rank_data *rd, FILE *out)
{
	const struct rank_plan *rp = rd->plan;
	const struct rank_store *rs = &rd->store;
	char b1[64], b2[64];
	fprintf(out, _("rank %d  "), rp->rank);
	summary_put_clean(out, rp->label);
	fprintf(out, _("  (class %s; rank from %s)\n"), discover_class_name(rp->cls),
		discover_rank_source_name(rp->rank_source));
	if (rp->info.loaded) {
		/* Every field is capture text: sanitised like labels and lane names. */
		fputs(_("  profiler_info: torch_npu "), out);
		summary_put_clean(out, rp->info.torch_npu_version ? rp->info.torch_npu_version : "?");
		fputs(_(", CANN "), out);
		summary_put_clean(out, rp->info.cann_version ? rp->info.cann_version : "?");
		fputs(", ", out);
		summary_put_clean(out, rp->info.profiler_level ? rp->info.profiler_level : "level ?");
		fputs(_(", aic_metrics "), out);
		summary_put_clean(out, rp->info.aic_metrics ? rp->info.aic_metrics : "?");
		fprintf(out, "%s\n", rp->info.has_schedule ? _(", with schedule") : "");
	}
	if (rd->source_why)
		text_source(rd, out);
	if (rs->trace.path) {
		fputs(_("  trace: "), out);
		summary_put_clean(out, file_base(rs->trace.path));
		fprintf(out, "  %s", summary_bytes(rs->trace.size, b1, sizeof b1));
		if (rs->has_events || rs->ph.by_char['M'])
			fprintf(out, _(", read in %.3f s (%d thread%s)%s%s"), rs->trace.load_seconds,
				rs->trace.threads_used, rs->trace.threads_used == 1 ? "" : "s",
				rs->trace.wrapped ? _(", traceEvents wrapper") : "",
				rs->trace.truncated ? _(", CUT SHORT") : "");
		fputc('\n', out);
		if (rd->index.state != TINDEX_OFF) {
			fprintf(out, "  index: %s", tindex_state_name(rd->index.state));
			if (rd->index.deferred) /* not yet: once this is written (trace_index.h) */
				fputs(" after this output", out);
			if (rd->index.bytes)
				fprintf(out, ", %s in %.3f s", summary_bytes(rd->index.bytes, b1, sizeof b1),
					rd->index.seconds);
			if (rd->index.why[0]) {
				fputs(" (", out);
				summary_put_clean(out, rd->index.why);
				fputc(')', out);
			}
			/* the CSV tables' own indexes (the larger tables have one) */
			const char *sep = "; tables:";
			for (int k = TINDEX_USED; k <= TINDEX_NOT_WRITTEN; k++)
				if (rd->csv_index[k]) {
					fprintf(out, "%s %zu %s", sep, rd->csv_index[k], tindex_state_name((enum tindex_state)k));
					sep = ",";
				}
			if (rd->csv_deferred)
				fprintf(out, " (%zu of them after this output)", rd->csv_deferred);
			fputc('\n', out);
		}
		fputs(_("  events:"), out);
		const char *order = "XMsfCBEibenNODPt";
		for (const char *p = order; *p; p++)
			if (rs->ph.by_char[(unsigned char)*p])
				fprintf(out, " %c %llu", *p, (unsigned long long)rs->ph.by_char[(unsigned char)*p]);
		for (int c = 0; c < 128; c++)
			if (rs->ph.by_char[c] && !strchr(order, c) && c > ' ' && c < 0x7f)
				fprintf(out, " %c %llu", c, (unsigned long long)rs->ph.by_char[c]);
		if (rs->ph.other)
			fprintf(out, _(" other %llu"), (unsigned long long)rs->ph.other);
		if (rs->ph.rejected)
			fprintf(out, _(" (rejected %llu)"), (unsigned long long)rs->ph.rejected);
		fputc('\n', out);
		if (rs->has_events)
			fprintf(out, _("  window: %s\n"),
				summary_duration(rs->window_end - rs->window_start, b2, sizeof b2));
		uint32_t *order_l = xmalloc((rs->n_lanes ? rs->n_lanes : 1) * sizeof *order_l);
		lanes_display_order(rs, order_l);
		fputs(_("  lanes:\n"), out);
		for (size_t i = 0; i < rs->n_lanes; i++) {
			const struct lane *l = &rs->lanes[order_l[i]];
			fprintf(out, "    %-14s ", lanes_group_name(l->group));
			summary_put_clean(out, l->process_name ? store_str(rs, l->process_name) : "?");
			fputs(" / ", out);
			summary_put_clean(out, l->thread_name ? store_str(rs, l->thread_name)
							      : store_str(rs, l->tid_text));
			fprintf(out, _(": %zu events\n"), lane_x_events(l));
		}
		free(order_l);
		if (rs->n_tracks) {
			fprintf(out, _("  counters: %zu tracks, %zu samples\n"), rs->n_tracks, rs->n_ctr);
		}
		if (rs->n_flows)
			fprintf(out, _("  flows: %zu events, %zu links, %zu unmatched\n"), rs->n_flows,
				rs->n_links, rs->unmatched_flows);
		if (rs->n_ev)
			fprintf(out, _("  store: %s (%.1f bytes/event)\n"),
				summary_bytes(store_bytes(rs), b1, sizeof b1),
				(double)store_bytes(rs) / (double)(rs->n_ev + rs->n_ctr + rs->n_flows));
	} else {
		fputs(_("  trace: none\n"), out);
	}
	for (size_t k = 0; k < rd->n_csvs; k++) {
		const struct csv_table *t = rd->csvs[k];
		fputs(_("  csv: "), out);
		summary_put_clean(out, file_base(t->path));
		fprintf(out, _("  %s, %zu rows, %zu columns%s%s%s\n"), csv_kind_name(t->kind), t->nrows,
			t->ncols, t->gbk ? ", GB18030" : "", t->bom ? ", BOM" : "",
			t->ragged_rows ? _(", ragged rows") : "");
	}
	text_comm(&rd->comm, "  ", out);
}

void summary_doctor_text(FILE *out, const struct doctor_item *items, size_t n)
{
	if (!n) {
		fputs(_("capture doctor: the capture holds what every analysis reads\n"), out);
		return;
	}
	fputs(_("capture doctor (what the capture lacks, and the setting that adds it):\n"), out);
	for (size_t i = 0; i < n; i++)
		fprintf(out, _("  - missing: %s (%zu rank(s)): %s; set %s\n"), _(items[i].what_missing), items[i].ranks,
			_(items[i].affects), items[i].setting);
}

void summary_doctor_json(struct jsonw *w, const struct doctor_item *items, size_t n)
{
	jsonw_key(w, "doctor");
	jsonw_arr_begin(w);
	for (size_t i = 0; i < n; i++) {
		jsonw_obj_begin(w);
		jsonw_kstr(w, "what_missing", items[i].what_missing);
		jsonw_kstr(w, "affects", items[i].affects);
		jsonw_kstr(w, "setting", items[i].setting);
		jsonw_kuint(w, "ranks", items[i].ranks);
		jsonw_obj_end(w);
	}
	jsonw_arr_end(w);
}

void summary_print_text(const struct capture *cap, FILE *out)
{
	fprintf(out, _("ascprof-tui %s summary of "), PACKAGE_VERSION);
	summary_put_clean(out, cap->plan.path);
	fputc('\n', out);
	fprintf(out, _("%zu rank%s found"), cap->n_ranks, cap->n_ranks == 1 ? "" : "s");
	if (cap->plan.raw_captures)
		fprintf(out, _(", %zu raw (not analysed)"), cap->plan.raw_captures);
	fputc('\n', out);
	if (cap->plan.runs_note) {
		fputs(_("WARNING: "), out);
		summary_put_clean(out, cap->plan.runs_note);
		fputc('\n', out);
	}
	for (size_t i = 0; i < cap->n_ranks; i++)
		text_rank(&cap->ranks[i], out);
	if (cap->plan.cluster_dir) {
		fputs(_("cluster "), out);
		summary_put_clean(out, cap->plan.cluster_dir);
		fputc('\n', out);
		text_comm(&cap->cluster_comm, "  ", out);
	}
	if (cap->serving) {
		const struct serving *sv = cap->serving;
		fprintf(out, _("serving (MS Service Profiler, %s) "), serving_gen_name(sv->gen));
		summary_put_clean(out, cap->plan.serving_path);
		fprintf(out, _(": %zu request row(s), %zu httpReq span(s), %zu batch(es), %zu forward(s), %zu KV cache "
			       "and %zu queue sample(s)\n"),
			sv->n_req, sv->http_spans, sv->n_batch, sv->n_fwd, sv->n_kv, sv->n_queue);
	}
	if (cap->n_ranks) { /* the step check needs the analysis: --report's doctor has it */
		struct doctor_item *doc;
		size_t n_doc = doctor_check(cap, NULL, &doc);
		summary_doctor_text(out, doc, n_doc);
		free(doc);
	}
	if (cap->diags.n) {
		fputs(_("diagnostics:\n"), out);
		summary_print_diags((struct diag_list *)&cap->diags, out, "  ");
	}
}

/* ---- JSON --------------------------------------------------------------------------- */

static void json_comm(struct jsonw *w, const char *key, const struct comm_data *cd)
{
	jsonw_key(w, key);
	jsonw_arr_begin(w);
	for (size_t k = 0; k < cd->n_files; k++) {
		const struct comm_file *f = &cd->files[k];
		jsonw_obj_begin(w);
		jsonw_kstr(w, "path", f->path);
		jsonw_kstr(w, "content", f->matrix ? "matrix" : "time_bandwidth");
		jsonw_kbool(w, "cluster_layout", f->cluster);
		jsonw_kuint(w, "steps", f->n_steps);
		jsonw_kuint(w, "entries", f->n_ops);
		jsonw_kuint(w, "links", f->n_links);
		jsonw_kuint(w, "skipped", f->skipped);
		jsonw_obj_end(w);
	}
	jsonw_arr_end(w);
}


static void json_profiler_info(struct jsonw *w, const struct rank_plan *rp)
{
	jsonw_key(w, "profiler_info");
	if (rp->info.loaded) {
		jsonw_obj_begin(w);
		jsonw_kstr(w, "path", rp->info.path);
		jsonw_kstr(w, "torch_npu_version", rp->info.torch_npu_version);
		jsonw_kstr(w, "cann_version", rp->info.cann_version);
		jsonw_kstr(w, "profiler_level", rp->info.profiler_level);
		jsonw_kstr(w, "aic_metrics", rp->info.aic_metrics);
		jsonw_kbool(w, "schedule", rp->info.has_schedule);
		jsonw_obj_end(w);
	} else {
		jsonw_null(w);
	}
}

/* What the rank was read from: text or a Db, and the Db's tables. */
static void json_source(struct jsonw *w, const struct rank_data *rd)
{
	jsonw_key(w, "source");
	jsonw_obj_begin(w);
	jsonw_kstr(w, "kind", rd->db_path ? "db" : "text");
	jsonw_kstr(w, "why", rd->source_why);
	jsonw_kstr(w, "db", rd->db_path);
	jsonw_kstr(w, "analysis_db", rd->analysis_db_path);
	jsonw_kbool(w, "db_read", rd->db_path && !rd->trace_failed);
	jsonw_key(w, "db_tables");
	jsonw_arr_begin(w);
	const char *tables[64];
	size_t n_tables = rd->db_path ? db_tables_present(rd->db_path, rd->analysis_db_path, tables, 64) : 0;
	for (size_t i = 0; i < n_tables; i++)
		jsonw_str(w, tables[i]);
	jsonw_arr_end(w);
	jsonw_obj_end(w);
}

/* The trace's load (size, cut, threads, times) and its index. */
static void json_trace(struct jsonw *w, const struct rank_data *rd)
{
	const struct rank_store *rs = &rd->store;
	jsonw_key(w, "trace");
	if (rs->trace.path) {
		jsonw_obj_begin(w);
		jsonw_kstr(w, "path", rs->trace.path);
		jsonw_kuint(w, "bytes", rs->trace.size);
		jsonw_kuint(w, "parsed_bytes", rs->trace.parsed_bytes);
		jsonw_kbool(w, "truncated", rs->trace.truncated);
		jsonw_kint_or_null(w, "cut_offset", rs->trace.cut_offset, rs->trace.cut_offset >= 0);
		jsonw_kbool(w, "wrapped", rs->trace.wrapped);
		jsonw_kint(w, "threads", rs->trace.threads_used);
		jsonw_kdouble(w, "load_seconds", rs->trace.load_seconds, 4);
		jsonw_key(w, "phase_seconds");
		jsonw_obj_begin(w);
		jsonw_kdouble(w, "walk", rs->trace.walk_seconds, 4);
		jsonw_kdouble(w, "merge", rs->trace.merge_seconds, 4);
		jsonw_kdouble(w, "finish", rs->trace.finish_seconds, 4);
		jsonw_obj_end(w);
		jsonw_kuint(w, "fast_elements", rs->trace.fast_elements);
		jsonw_key(w, "index");
		jsonw_obj_begin(w);
		jsonw_kstr(w, "state", tindex_state_name(rd->index.state));
		jsonw_kuint(w, "bytes", rd->index.bytes);
		jsonw_kdouble(w, "seconds", rd->index.seconds, 4);
		jsonw_kstr(w, "why", rd->index.why);
		/* written once this output is out: bytes and seconds are not known yet */
		jsonw_kbool(w, "deferred", rd->index.deferred);
		jsonw_kuint(w, "tables_deferred", rd->csv_deferred);
		jsonw_key(w, "tables"); /* CSV tables by their indexes' state */
		jsonw_obj_begin(w);
		for (int k = TINDEX_USED; k <= TINDEX_NOT_WRITTEN; k++)
			jsonw_kuint(w, tindex_state_name((enum tindex_state)k), rd->csv_index[k]);
		jsonw_obj_end(w);
		jsonw_obj_end(w);
		jsonw_obj_end(w);
	} else {
		jsonw_null(w);
	}
}

/* Events by their ph character. */
static void json_events(struct jsonw *w, const struct rank_store *rs)
{
	jsonw_key(w, "events");
	jsonw_obj_begin(w);
	for (int c = 33; c < 127; c++) {
		if (!rs->ph.by_char[c])
			continue;
		char k[2] = {(char)c, 0};
		jsonw_kuint(w, k, rs->ph.by_char[c]);
	}
	jsonw_kuint(w, "other", rs->ph.other);
	jsonw_kuint(w, "not_object", rs->ph.not_object);
	jsonw_kuint(w, "rejected", rs->ph.rejected);
	jsonw_obj_end(w);
}

/* The lanes in display order. */
static void json_lanes(struct jsonw *w, const struct rank_store *rs)
{
	jsonw_key(w, "lanes");
	jsonw_arr_begin(w);
	uint32_t *order = xmalloc((rs->n_lanes ? rs->n_lanes : 1) * sizeof *order);
	lanes_display_order(rs, order);
	for (size_t i = 0; i < rs->n_lanes; i++) {
		const struct lane *l = &rs->lanes[order[i]];
		jsonw_obj_begin(w);
		jsonw_kstr(w, "process", l->process_name ? store_str(rs, l->process_name) : NULL);
		jsonw_kstr(w, "thread", l->thread_name ? store_str(rs, l->thread_name) : NULL);
		jsonw_kstr(w, "pid", store_str(rs, l->pid_text));
		jsonw_kstr(w, "tid", store_str(rs, l->tid_text));
		jsonw_kstr(w, "group", lanes_group_name(l->group));
		jsonw_kuint(w, "events", l->n_events);
		if (l->group == LANE_DEVICE) {
			jsonw_kint(w, "stream", l->stream);
		}
		jsonw_obj_end(w);
	}
	free(order);
	jsonw_arr_end(w);
}

static void json_counters(struct jsonw *w, const struct rank_store *rs)
{
	jsonw_key(w, "counters");
	jsonw_arr_begin(w);
	for (size_t i = 0; i < rs->n_tracks; i++) {
		const struct counter_track *t = &rs->tracks[i];
		jsonw_obj_begin(w);
		jsonw_kstr(w, "process", t->process_name ? store_str(rs, t->process_name) : NULL);
		jsonw_kstr(w, "name", store_str(rs, t->name));
		jsonw_kstr(w, "value_key", store_str(rs, t->value_key));
		jsonw_kuint(w, "samples", t->n_samples);
		jsonw_obj_end(w);
	}
	jsonw_arr_end(w);
}

/* The CSV tables by file name. */
static void json_csvs(struct jsonw *w, const struct rank_data *rd)
{
	jsonw_key(w, "csv");
	jsonw_obj_begin(w);
	for (size_t k = 0; k < rd->n_csvs; k++) {
		const struct csv_table *t = rd->csvs[k];
		jsonw_key(w, file_base(t->path));
		jsonw_obj_begin(w);
		jsonw_kstr(w, "kind", csv_kind_name(t->kind));
		jsonw_kuint(w, "rows", t->nrows);
		jsonw_kuint(w, "columns", t->ncols);
		jsonw_kuint(w, "ragged_rows", t->ragged_rows);
		jsonw_kstr(w, "encoding", t->gbk ? "gb18030" : "utf-8");
		jsonw_kbool(w, "bom", t->bom);
		jsonw_kbool(w, "used", t->kind != CSV_UNKNOWN && rd->by_kind[t->kind] == t);
		jsonw_obj_end(w);
	}
	jsonw_obj_end(w);
}

static void json_rank(struct jsonw *w, const struct rank_data *rd)
{
	const struct rank_plan *rp = rd->plan;
	const struct rank_store *rs = &rd->store;
	jsonw_obj_begin(w);
	jsonw_kint(w, "rank", rp->rank);
	jsonw_kstr(w, "rank_source", discover_rank_source_name(rp->rank_source));
	jsonw_kstr(w, "label", rp->label);
	jsonw_kstr(w, "path", rp->worker_dir ? rp->worker_dir : rp->output_dir);
	jsonw_kstr(w, "class", rp->cls == CAPTURE_CLASS_A ? "A" : rp->cls == CAPTURE_CLASS_B ? "B" : "files");
	jsonw_kbool(w, "export_done", rp->export_done);

	json_profiler_info(w, rp);
	json_source(w, rd);
	json_trace(w, rd);
	json_events(w, rs);
	json_lanes(w, rs);
	json_counters(w, rs);

	jsonw_key(w, "flows");
	jsonw_obj_begin(w);
	jsonw_kuint(w, "events", rs->n_flows);
	jsonw_kuint(w, "links", rs->n_links);
	jsonw_kuint(w, "unmatched", rs->unmatched_flows);
	jsonw_obj_end(w);

	jsonw_key(w, "window_ns");
	if (rs->has_events) {
		jsonw_arr_begin(w);
		jsonw_int(w, rs->window_start);
		jsonw_int(w, rs->window_end);
		jsonw_arr_end(w);
	} else {
		jsonw_null(w);
	}

	json_csvs(w, rd);

	json_comm(w, "communication", &rd->comm);

	jsonw_key(w, "memory");
	jsonw_obj_begin(w);
	jsonw_kuint(w, "store_bytes", store_bytes(rs));
	size_t nev = rs->n_ev + rs->n_ctr + rs->n_flows;
	jsonw_kdouble(w, "bytes_per_event", nev ? (double)store_bytes(rs) / (double)nev : 0.0, 1);
	jsonw_obj_end(w);
	jsonw_obj_end(w);
}

void summary_print_json(const struct capture *cap, FILE *out)
{
	struct jsonw w;
	jsonw_init(&w, out, true);
	jsonw_obj_begin(&w);
	jsonw_kstr(&w, "tool", "ascprof-tui");
	jsonw_kstr(&w, "version", PACKAGE_VERSION);
	jsonw_kstr(&w, "path", cap->plan.path);
	jsonw_kuint(&w, "raw_captures", cap->plan.raw_captures);
	jsonw_key(&w, "ranks");
	jsonw_arr_begin(&w);
	for (size_t i = 0; i < cap->n_ranks; i++)
		json_rank(&w, &cap->ranks[i]);
	jsonw_arr_end(&w);
	jsonw_kstr(&w, "cluster_dir", cap->plan.cluster_dir);
	json_comm(&w, "cluster_communication", &cap->cluster_comm);
	if (cap->serving) { /* MS Service Profiler output: what was read of it */
		const struct serving *sv = cap->serving;
		jsonw_key(&w, "serving");
		jsonw_obj_begin(&w);
		jsonw_kstr(&w, "path", cap->plan.serving_path);
		jsonw_kstr(&w, "generation", serving_gen_name(sv->gen));
		jsonw_kuint(&w, "request_rows", sv->n_req);
		jsonw_kuint(&w, "http_spans", sv->http_spans);
		jsonw_kuint(&w, "batches", sv->n_batch);
		jsonw_kuint(&w, "forwards", sv->n_fwd);
		jsonw_kuint(&w, "kvcache_samples", sv->n_kv);
		jsonw_kuint(&w, "queue_samples", sv->n_queue);
		jsonw_obj_end(&w);
	}
	struct doctor_item *doc;
	size_t n_doc = doctor_check(cap, NULL, &doc);
	summary_doctor_json(&w, doc, n_doc);
	free(doc);
	summary_json_diags(&w, (struct diag_list *)&cap->diags);
	jsonw_obj_end(&w);
	fputc('\n', out);
}
