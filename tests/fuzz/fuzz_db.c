/* SPDX-License-Identifier: MIT */
/* The Db readers over SQL text (issue 41): the input is run against an empty in-memory
 * database (its own budget of steps, no ATTACH, no file of its own), the result written
 * out as a file and read by every Db reader as a capture's would be: the events
 * (db_load_rank), the kernel table, the memory tables, analysis.db's communication, and
 * msprof-analyze's cluster_analysis.db (its rank rows, groups, communication). The readers
 * run under a budget of steps proportional to the file; a view, a virtual table, a
 * missing index or a crafted value must end with a message, never a hang or a crash. */
#include <sqlite3.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "cluster_db.h"
#include "comm_json.h"
#include "db.h"
#include "diag.h"
#include "store.h"
#include "xalloc.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static int build_budget(void *ctx)
{
	return --*(long *)ctx <= 0; /* the input's own SQL stops too */
}

/* Statements that would reach outside the in-memory database are refused. */
static int deny_outside(void *ctx, int code, const char *a, const char *b, const char *c, const char *d)
{
	(void)ctx;
	(void)a;
	(void)b;
	(void)c;
	(void)d;
	return code == SQLITE_ATTACH || code == SQLITE_DETACH ? SQLITE_DENY : SQLITE_OK;
}

/* The database the SQL makes, as file bytes (owned); NULL when it makes none. */
static unsigned char *build(const char *sql, sqlite3_int64 *len)
{
	sqlite3 *h = NULL;
	if (sqlite3_open_v2(":memory:", &h, SQLITE_OPEN_READWRITE | SQLITE_OPEN_MEMORY, NULL) != SQLITE_OK) {
		sqlite3_close(h);
		return NULL;
	}
	long steps = 20000; /* x 1000 VM steps */
	sqlite3_progress_handler(h, 1000, build_budget, &steps);
	sqlite3_set_authorizer(h, deny_outside, NULL);
	sqlite3_limit(h, SQLITE_LIMIT_LENGTH, 1 << 20);
	sqlite3_exec(h, sql, NULL, NULL, NULL); /* what it made before an error counts */
	unsigned char *bytes = sqlite3_serialize(h, "main", len, 0);
	sqlite3_close(h);
	return bytes;
}

static void read_all(const char *events, const char *analysis, const char *cluster)
{
	struct diag_list dl;
	diag_init(&dl);
	struct rank_store rs;
	store_init(&rs);
	db_load_rank(&rs, events, &dl);
	store_free(&rs);
	struct csv_table *t = db_kernel_table(events, true, &dl);
	csvt_free(t);
	for (size_t i = 0; i < db_n_csv_specs; i++) {
		t = db_csv_table(db_csv_specs[i].in_analysis ? analysis : events, &db_csv_specs[i], &dl);
		csvt_free(t);
	}
	struct comm_data cd = {0};
	db_comm_load(&cd, analysis, 0, &dl);
	comm_data_free(&cd);
	struct cluster_db cdb;
	cluster_db_read(cluster, &cdb, &dl);
	cluster_db_free(&cdb);
	struct comm_data cc = {0};
	db_cluster_comm_load(&cc, cluster, &dl);
	comm_data_free(&cc);
	diag_free(&dl);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	static char dir[4096];
	if (!dir[0]) {
		const char *tmp = getenv("TMPDIR");
		snprintf(dir, sizeof dir, "%s/ascprof-fuzz-db-XXXXXX", tmp && *tmp ? tmp : "/tmp");
		if (!mkdtemp(dir))
			abort();
		/* the readers' budget, without the fixed allowance real files get: fast runs */
		setenv("ASCPROF_DB_STEPS_PER_BYTE", "64", 1);
	}
	char *sql = xmalloc(size + 1);
	memcpy(sql, data, size);
	sql[size] = 0;
	sqlite3_int64 len = 0;
	unsigned char *bytes = build(sql, &len);
	free(sql);
	if (!bytes)
		return 0;
	/* the same bytes under each name the readers look for */
	char *names[3] = {xasprintf("%s/ascend_pytorch_profiler_0.db", dir), xasprintf("%s/analysis.db", dir),
			  xasprintf("%s/cluster_analysis.db", dir)};
	for (int i = 0; i < 3; i++) {
		FILE *f = fopen(names[i], "wb");
		if (!f || fwrite(bytes, 1, (size_t)len, f) != (size_t)len)
			abort();
		fclose(f);
	}
	sqlite3_free(bytes);
	read_all(names[0], names[1], names[2]);
	for (int i = 0; i < 3; i++) {
		unlink(names[i]);
		free(names[i]);
	}
	return 0;
}
