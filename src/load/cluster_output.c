/* SPDX-License-Identifier: MIT */
/* msprof-analyze's cluster_analysis_output as a capture (see cluster_output.h). */
#include "config.h"
#include "cluster_output.h"

#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "db.h"
#include "xalloc.h"

bool cluster_output_is(const char *path)
{
	char *p = cluster_out_find(path);
	if (!p)
		p = cluster_db_find(path, NULL);
	if (!p)
		return false;
	free(p);
	/* read as a cluster overview only where no rank of its own is found */
	struct capture *cap = capture_open(path, NULL);
	bool none = cap->n_ranks == 0;
	capture_free(cap);
	return none;
}

/* A file name directly under dir exists. */
static bool cluster_output_has_file(const char *dir, const char *name)
{
	char *p = xasprintf("%s/%s", dir, name);
	bool yes = access(p, F_OK) == 0;
	free(p);
	return yes;
}

/* The capture's ranks, one per rank of the rows: no files, no events. */
static void cluster_output_ranks_of_rows(struct cluster_output *co, const char *path)
{
	struct capture *cap = co->cap;
	size_t nr = 0;
	for (size_t i = 0; i < co->n_rows; i++)
		nr += i == 0 || co->rows[i].rank != co->rows[i - 1].rank;
	/* a bare cluster_analysis_output has no ranks of its own (cluster_output_is) */
	free(cap->ranks);
	free(cap->plan.ranks);
	cap->plan.ranks = xcalloc(nr ? nr : 1, sizeof *cap->plan.ranks);
	cap->ranks = xcalloc(nr ? nr : 1, sizeof *cap->ranks);
	co->rows_of = xcalloc(nr + 1, sizeof *co->rows_of);
	size_t k = 0;
	for (size_t a = 0; a < co->n_rows; k++) {
		size_t b = a;
		while (b < co->n_rows && co->rows[b].rank == co->rows[a].rank)
			b++;
		co->rows_of[k] = a;
		struct rank_plan *rp = &cap->plan.ranks[k];
		rp->rank = co->rows[a].rank;
		rp->label = xasprintf("rank %d of %s", co->rows[a].rank, co->rows_from);
		rp->output_dir = xstrdup(path);
		rp->device_id = -1;
		rp->export_done = true;
		struct rank_data *rd = &cap->ranks[k];
		rd->plan = rp;
		rd->source = &source_tables;
		rd->store.strs = strtab_new();
		atomic_init(&rd->state, RANK_READY);
		atomic_init(&rd->csv_ready, true);
		a = b;
	}
	co->rows_of[nr] = co->n_rows;
	cap->plan.n_ranks = cap->n_ranks = nr;
	cap->usable = nr > 0;
}

void cluster_output_read(const char *path, struct cluster_output *co)
{
	memset(co, 0, sizeof *co);
	/* discovery and loading read its cluster_communication*.json (the comm section); a
	 * directory holding only cluster_analysis.db has nothing for them */
	struct capture *cap;
	if (cluster_output_has_file(path, "cluster_communication.json") ||
	    cluster_output_has_file(path, "cluster_communication_matrix.json") ||
	    cluster_output_has_file(path, CLUSTER_STEP_TRACE)) {
		cap = capture_open(path, NULL);
		capture_load(cap);
	} else {
		cap = xcalloc(1, sizeof *cap);
		diag_init(&cap->diags);
		cap->plan.path = xstrdup(path);
		atomic_init(&cap->done, true);
	}
	co->cap = cap;
	/* cluster_analysis.db's rank rows where it has them, else the CSV's */
	char *dbp = cluster_db_find(path, &cap->diags);
	if (dbp) {
		co->db = xcalloc(1, sizeof *co->db);
		if (cluster_db_read(dbp, co->db, &cap->diags) == 0 && !cap->cluster_comm.n_files) {
			/* its communication tables, where no cluster_communication*.json gave them */
			db_cluster_comm_load(&cap->cluster_comm, dbp, &cap->diags);
		}
		free(dbp);
	}
	co->rows_from = CLUSTER_STEP_TRACE;
	if (co->db && co->db->n_rows) {
		co->n_rows = co->db->n_rows;
		co->rows = xmalloc(co->n_rows * sizeof *co->rows);
		memcpy(co->rows, co->db->rows, co->n_rows * sizeof *co->rows);
		co->rows_from = co->db->rows_table;
	} else if ((co->csv = cluster_out_find(path))) {
		cluster_out_read(co->csv, &co->rows, &co->n_rows, &cap->diags);
	}
	cluster_output_ranks_of_rows(co, path);
}

void cluster_output_free(struct cluster_output *co)
{
	capture_free(co->cap);
	if (co->db) {
		cluster_db_free(co->db);
		free(co->db);
	}
	free(co->rows);
	free(co->csv);
	free(co->rows_of);
	memset(co, 0, sizeof *co);
}
