/* SPDX-License-Identifier: MIT */
/* The Db source: a torch_npu or msprof Db export (and analysis.db beside it) read through
 * db.h: the events, the tables in the text export's form, the CommAnalyzer tables. */
#include "config.h"
#include "capture.h"

#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "db.h"
#include "i18n.h"
#include "xalloc.h"

static const char *source_db_base_of(const char *path)
{
	const char *s = strrchr(path, '/');
	return s ? s + 1 : path;
}

/* Text or Db: a rank with both reads the text export unless --source db says otherwise
 * (the same run's data; the text one also carries the CSV and communication files); a
 * rank with a Db export only reads it. */
static bool source_db_probe(struct rank_data *rd, enum capture_source want, struct diag_list *dl)
{
	const char *events = NULL, *analysis = NULL;
	bool text = false;
	for (size_t k = 0; k < rd->plan->n_files; k++) {
		const struct found_file *f = &rd->plan->files[k];
		text |= f->role == ROLE_TRACE;
		if (f->role != ROLE_DB)
			continue;
		if (!events && db_is_events_name(source_db_base_of(f->path)))
			events = f->path;
		else if (db_is_events_name(source_db_base_of(f->path)))
			diag_add(dl, DIAG_WARN, f->path, 0, -1, _("a second Db export beside %s; not read"), events);
		if (!analysis && db_is_analysis_name(source_db_base_of(f->path)))
			analysis = f->path;
	}
	if (!events) {
		if (want == SOURCE_DB && text)
			diag_add(dl, DIAG_WARN, rd->plan->output_dir, 0, -1,
				 _("--source db: this rank has no Db export (ascend_pytorch_profiler*.db, "
				 "msprof_*.db); its text export is read"));
		return false;
	}
	if (text && want != SOURCE_DB) {
		rd->source_why = want == SOURCE_TEXT ? "text: --source text"
						     : "text: both exports hold the run; text is read "
						       "(--source db reads the Db)";
		return false;
	}
	if (!text && want == SOURCE_TEXT) {
		diag_add(dl, DIAG_WARN, events, 0, -1,
			 _("--source text: this rank has only a Db export; it is read all the same"));
	}
	rd->db_path = events;
	rd->analysis_db_path = analysis;
	rd->source_why = text ? "Db: --source db" : "Db: the only export of this rank";
	return true;
}


static uint64_t source_db_load_bytes(const struct rank_data *rd)
{
	for (size_t k = 0; k < rd->plan->n_files; k++)
		if (rd->plan->files[k].path == rd->db_path)
			return rd->plan->files[k].size;
	return 0;
}

static void source_db_load(struct rank_data *rd, const struct source_load_ctx *ctx, struct diag_list *dl)
{
	(void)ctx;
	rd->trace_failed = db_load_rank(&rd->store, rd->db_path, dl) != 0;
	atomic_store(&rd->trace_bytes_done, rd->trace_bytes_total);
}

/* analysis.db's StepTraceTime, the memory tables and the kernel table, in the text
 * export's form, built from their cells. */
static size_t source_db_tables(struct rank_data *rd, const _Atomic bool *cancel, bool wait_events,
			       bool counter_values, struct csv_table **out, size_t max, struct diag_list *dl)
{
	size_t n = 0;
	/* the kernel table once the rank's events are in: its counters (a double per
	 * compute task and counter) would otherwise sit beside the event load's peak */
	while (wait_events && capture_rank_state(rd) < RANK_TRACE_LOADED && !atomic_load(cancel))
		nanosleep(&(struct timespec){0, 1000000}, NULL);
	if (atomic_load(cancel))
		return 0;
	struct csv_table *kernels = db_kernel_table(rd->db_path, counter_values, dl);
	if (kernels && n < max)
		out[n++] = kernels;
	for (size_t i = 0; i < db_n_csv_specs && n < max; i++) {
		const struct db_csv_spec *spec = &db_csv_specs[i];
		const char *path = spec->in_analysis ? rd->analysis_db_path : rd->db_path;
		if (!path)
			continue;
		struct csv_table *t = db_csv_table(path, spec, dl);
		if (t)
			out[n++] = t;
	}
	return n;
}

/* analysis.db's CommAnalyzer tables */
static void source_db_comm(struct rank_data *rd, struct diag_list *dl)
{
	if (!rd->analysis_db_path)
		return;
	db_comm_load(&rd->comm, rd->analysis_db_path, rd->plan->rank, dl);
}

const struct source_ops source_db = {
	.name = "Db",
	.probe = source_db_probe,
	.load_bytes = source_db_load_bytes,
	.load = source_db_load,
	.tables = source_db_tables,
	.comm = source_db_comm,
	.entry_text = db_element_json,
	.event_args = db_event_args,
};
