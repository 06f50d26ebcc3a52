/* SPDX-License-Identifier: MIT */
/* Capture loading: discovery, CSV tables, traces, in the order users need them. */
#include "capture.h"

#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "trace.h"
#include "xalloc.h"

struct capture *capture_open(const char *path, const struct capture_opts *opts)
{
	struct capture *cap = xcalloc(1, sizeof *cap);
	diag_init(&cap->diags);
	if (opts)
		cap->opts = *opts;
	cap->usable = discover(path, &cap->plan, &cap->diags) == 0;
	cap->n_ranks = cap->plan.n_ranks;
	cap->ranks = xcalloc(cap->n_ranks ? cap->n_ranks : 1, sizeof *cap->ranks);
	for (size_t i = 0; i < cap->n_ranks; i++) {
		struct rank_data *rd = &cap->ranks[i];
		rd->plan = &cap->plan.ranks[i];
		store_init(&rd->store);
		atomic_init(&rd->state, RANK_PENDING);
		const struct found_file *tf = discover_find(rd->plan, ROLE_TRACE);
		rd->trace_bytes_total = tf ? tf->size : 0;
	}
	return cap;
}

static double now_seconds(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

static void load_csvs(struct capture *cap, struct rank_data *rd)
{
	size_t cap_csvs = 0;
	for (size_t i = 0; i < rd->plan->n_files; i++) {
		const struct found_file *f = &rd->plan->files[i];
		if (f->role != ROLE_CSV)
			continue;
		struct csv_table *t = csvt_load(f->path, &cap->diags);
		if (!t)
			continue;
		xgrow(&rd->csvs, &cap_csvs, rd->n_csvs + 1, sizeof *rd->csvs);
		rd->csvs[rd->n_csvs++] = t;
		if (t->kind == CSV_UNKNOWN)
			continue;
		if (rd->by_kind[t->kind]) {
			diag_add(&cap->diags, DIAG_WARN, f->path, 0, -1,
				 "a second %s table (the first is %s); this one is not used",
				 csv_kind_name(t->kind), rd->by_kind[t->kind]->path);
			continue;
		}
		rd->by_kind[t->kind] = t;
	}
}

static void load_trace(struct capture *cap, struct rank_data *rd)
{
	const struct found_file *tf = NULL;
	size_t ntraces = 0;
	for (size_t i = 0; i < rd->plan->n_files; i++)
		if (rd->plan->files[i].role == ROLE_TRACE) {
			if (!tf)
				tf = &rd->plan->files[i];
			ntraces++;
		}
	if (!tf)
		return;
	if (ntraces > 1)
		diag_add(&cap->diags, DIAG_WARN, tf->path, 0, -1,
			 "%zu timeline files in this directory; only this one is read", ntraces);
	struct trace_load_opts topts = {
		.threads = cap->opts.threads,
		.progress = &rd->trace_bytes_done,
		.max_file_bytes = cap->opts.max_trace_bytes,
	};
	rd->trace_failed = trace_load(&rd->store, tf->path, &topts, &cap->diags) != 0;
}

void capture_load(struct capture *cap)
{
	double t0 = now_seconds();
	for (size_t i = 0; i < cap->n_ranks && !atomic_load(&cap->cancel); i++) {
		load_csvs(cap, &cap->ranks[i]);
		atomic_store_explicit(&cap->ranks[i].state, RANK_CSV_READY, memory_order_release);
	}
	for (size_t i = 0; i < cap->n_ranks && !atomic_load(&cap->cancel); i++) {
		struct rank_data *rd = &cap->ranks[i];
		atomic_store_explicit(&rd->state, RANK_TRACE_LOADING, memory_order_release);
		load_trace(cap, rd);
		atomic_store_explicit(&rd->state, RANK_READY, memory_order_release);
	}
	cap->load_seconds = now_seconds() - t0;
	atomic_store_explicit(&cap->done, true, memory_order_release);
}

void capture_free(struct capture *cap)
{
	if (!cap)
		return;
	for (size_t i = 0; i < cap->n_ranks; i++) {
		struct rank_data *rd = &cap->ranks[i];
		store_free(&rd->store);
		for (size_t k = 0; k < rd->n_csvs; k++)
			csvt_free(rd->csvs[k]);
		free(rd->csvs);
	}
	free(cap->ranks);
	discover_free(&cap->plan);
	diag_free(&cap->diags);
	free(cap);
}

const struct csv_table *capture_csv(const struct capture *cap, size_t rank_index, enum csv_kind kind)
{
	if (rank_index >= cap->n_ranks)
		return NULL;
	const struct rank_data *rd = &cap->ranks[rank_index];
	if (capture_rank_state(rd) < RANK_CSV_READY)
		return NULL;
	return rd->by_kind[kind];
}
