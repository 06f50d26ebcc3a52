/* SPDX-License-Identifier: MIT */
/* cluster_step_trace_time.csv (cluster_out.h). The file is msprof-analyze's own: numbers
 * without quotes except the stage rows' rank lists, which are skipped before their quotes
 * matter (the Type column comes first). */
#include "cluster_out.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "i18n.h"
#include "num.h"
#include "xalloc.h"

enum { C_STEP, C_TYPE, C_INDEX, C_COMP, C_CNO, C_OVL, C_COMM, C_FREE, C_STAGE, C_N };
static const char *const col_names[C_N] = {"Step", "Type", "Index", "Computing", "Communication(Not Overlapped)",
					    "Overlapped", "Communication", "Free", "Stage"};

char *cluster_out_find(const char *dir)
{
	char *p = xasprintf("%s/%s", dir, CLUSTER_STEP_TRACE);
	struct stat st;
	if (stat(p, &st) == 0 && S_ISREG(st.st_mode))
		return p;
	free(p);
	return NULL;
}

static int cmp_row(const void *a, const void *b)
{
	const struct cluster_out_row *x = a, *y = b;
	if (x->rank != y->rank)
		return x->rank < y->rank ? -1 : 1;
	return x->step < y->step ? -1 : x->step > y->step;
}

/* Splits line (no newline) at commas into at most max cells; returns the count. */
static size_t split(char *line, char **cells, size_t *lens, size_t max)
{
	size_t n = 0;
	char *p = line;
	for (;;) {
		char *c = strchr(p, ',');
		if (n < max) {
			cells[n] = p;
			lens[n] = c ? (size_t)(c - p) : strlen(p);
			n++;
		}
		if (!c)
			return n;
		p = c + 1;
	}
}

int cluster_out_read(const char *path, struct cluster_out_row **rows, size_t *n, struct diag_list *dl)
{
	*rows = NULL;
	*n = 0;
	FILE *f = fopen(path, "rb");
	if (!f) {
		diag_add(dl, DIAG_ERROR, path, -1, -1, _("cannot read"));
		return -1;
	}
	char *line = NULL;
	size_t cap = 0, rcap = 0;
	ssize_t got;
	long lineno = 0;
	int at[C_N];
	for (int k = 0; k < C_N; k++)
		at[k] = -1;
	int rc = 0;
	while ((got = getline(&line, &cap, f)) >= 0) {
		lineno++;
		while (got > 0 && (line[got - 1] == '\n' || line[got - 1] == '\r'))
			line[--got] = 0;
		char *text = line;
		if (lineno == 1 && !strncmp(text, "\xef\xbb\xbf", 3)) /* a BOM */
			text += 3;
		char *cells[64];
		size_t lens[64];
		size_t nc = split(text, cells, lens, 64);
		if (lineno == 1) {
			for (size_t i = 0; i < nc; i++)
				for (int k = 0; k < C_N; k++)
					if (at[k] < 0 && lens[i] == strlen(col_names[k]) &&
					    !strncmp(cells[i], col_names[k], lens[i]))
						at[k] = (int)i;
			if (at[C_TYPE] < 0 || at[C_INDEX] < 0 || at[C_COMP] < 0 || at[C_CNO] < 0 || at[C_FREE] < 0) {
				diag_add(dl, DIAG_ERROR, path, 1, -1,
					 _("not msprof-analyze's cluster step table: no Type, Index, Computing, "
					 "Communication(Not Overlapped) or Free column"));
				rc = -1;
				break;
			}
			continue;
		}
		if (!got || (size_t)at[C_TYPE] >= nc || lens[at[C_TYPE]] != 4 || strncmp(cells[at[C_TYPE]], "rank", 4))
			continue; /* stage rows, blank lines */
		struct cluster_out_row r = {.step = -1, .wait_ns = -1, .transmit_ns = -1};
		int64_t idx;
		bool rounded, ok = (size_t)at[C_INDEX] < nc &&
				   num_int64(cells[at[C_INDEX]], lens[at[C_INDEX]], &idx) == NUM_OK && idx >= 0 &&
				   idx < 1000000;
		int64_t *dst[C_N] = {[C_COMP] = &r.computing_ns, [C_CNO] = &r.comm_not_overlapped_ns,
				     [C_OVL] = &r.overlapped_ns, [C_COMM] = &r.comm_ns, [C_FREE] = &r.free_ns,
				     [C_STAGE] = &r.stage_ns};
		for (int k = C_COMP; ok && k < C_N; k++) {
			if (at[k] < 0 || (size_t)at[k] >= nc)
				continue;
			/* times a trace can hold (num_time_ns): three parts of a step never overflow
			 * (fuzz_cluster: 2.9e18 + 5.8e18 + 2.9e18 ns did) */
			enum num_status st = num_time_ns(cells[at[k]], lens[at[k]], dst[k], &rounded);
			ok = st == NUM_OK || st == NUM_MISSING;
		}
		if (ok && at[C_STEP] >= 0 && (size_t)at[C_STEP] < nc && lens[at[C_STEP]]) {
			enum num_status st = num_int64(cells[at[C_STEP]], lens[at[C_STEP]], &r.step);
			ok = st == NUM_OK && r.step >= 0;
		}
		if (!ok) {
			diag_add(dl, DIAG_WARN, path, lineno, -1, _("a rank row with a cell that is not a number; row left out"));
			continue;
		}
		/* the step's time is its parts (Stage is the pipeline stage's time: it can be
		 * shorter, ranks 8-15 of msinsight's test cluster) */
		r.step_ns = num_sat_add(num_sat_add(r.computing_ns, r.comm_not_overlapped_ns), r.free_ns);
		r.rank = (int)idx;
		xgrow(rows, &rcap, *n + 1, sizeof **rows);
		(*rows)[(*n)++] = r;
	}
	free(line);
	fclose(f);
	if (rc == 0 && !*n)
		diag_add(dl, DIAG_WARN, path, -1, -1, _("no rank rows"));
	if (*n)
		qsort(*rows, *n, sizeof **rows, cmp_row);
	return rc;
}
