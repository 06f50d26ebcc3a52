/* SPDX-License-Identifier: MIT */
/* Header normalisation, the alias lookup and table recognition. */
#include "csv_schema.h"

#include "i18n.h"
#include "sbuf.h"

#include <string.h>

struct col_def {
	const char *names;
	enum csv_type type;
};

static const struct col_def col_defs[CSV_COL_COUNT] = {
#define CSV_DEF(id, t, n) [COL_##id] = {n, t},
	CSV_COLUMNS(CSV_DEF)
#undef CSV_DEF
};

static const char *kind_names[CSV_KIND_COUNT] = {
#define CSV_KIND_NAME(id, name) [CSV_##id] = name,
	CSV_KINDS(CSV_KIND_NAME)
#undef CSV_KIND_NAME
};

/* Lowercase, no spaces, tabs or underscores, BOM dropped, µ/μ as u. */
static size_t normalise(const char *s, size_t len, char *out, size_t cap)
{
	size_t o = 0;
	const unsigned char *p = (const unsigned char *)s;
	for (size_t i = 0; i < len && o + 1 < cap; i++) {
		unsigned char c = p[i];
		if (c == ' ' || c == '\t' || c == '_' || c == '\r' || c == '\n')
			continue;
		if (c == 0xEF && i + 2 < len && p[i + 1] == 0xBB && p[i + 2] == 0xBF) {
			i += 2;
			continue;
		}
		if ((c == 0xC2 && i + 1 < len && p[i + 1] == 0xB5) ||
		    (c == 0xCE && i + 1 < len && p[i + 1] == 0xBC)) {
			out[o++] = 'u';
			i++;
			continue;
		}
		if (c >= 'A' && c <= 'Z')
			c = (unsigned char)(c - 'A' + 'a');
		out[o++] = (char)c;
	}
	out[o] = '\0';
	return o;
}

int csv_schema_lookup(const char *header, size_t len)
{
	char want[256], alias[256];
	normalise(header, len, want, sizeof want);
	if (!want[0])
		return -1;
	for (int c = 0; c < CSV_COL_COUNT; c++) {
		const char *names = col_defs[c].names;
		while (*names) {
			const char *bar = strchr(names, '|');
			size_t n = bar ? (size_t)(bar - names) : strlen(names);
			normalise(names, n, alias, sizeof alias);
			if (strcmp(want, alias) == 0)
				return c;
			names += n + (bar ? 1 : 0);
		}
	}
	return -1;
}

enum csv_type csv_schema_type(enum csv_col col) { return col_defs[col].type; }

/* READ-LIST: one line per column; tests/csv_columns_read.sh compares it with the code. */
static const bool col_read[CSV_COL_COUNT] = {
	[COL_ACCEL_CORE] = true,
	[COL_AICORE_TIME] = true,
	[COL_AIC_ICACHE_MISS] = true,
	[COL_AIC_MAC_RATIO] = true,
	[COL_AIC_MTE1_RATIO] = true,
	[COL_AIC_MTE2_RATIO] = true,
	[COL_AIC_MTE3_RATIO] = true,
	[COL_AIC_SCALAR_RATIO] = true,
	[COL_AIC_VEC_RATIO] = true,
	[COL_AIV_ICACHE_MISS] = true,
	[COL_AIV_MAC_RATIO] = true,
	[COL_AIV_MTE1_RATIO] = true,
	[COL_AIV_MTE2_RATIO] = true,
	[COL_AIV_MTE3_RATIO] = true,
	[COL_AIV_SCALAR_RATIO] = true,
	[COL_AIV_TIME] = true,
	[COL_AIV_VEC_RATIO] = true,
	[COL_ALLOCATION_TIME] = true,
	[COL_BLOCK_DIM] = true,
	[COL_COMM_NOT_OVERLAPPED] = true,
	[COL_COMPONENT] = true,
	[COL_COMPUTING] = true,
	[COL_DURATION] = true,
	[COL_FREE] = true,
	[COL_HOST_TOTAL] = true,
	[COL_INPUT_SHAPES] = true,
	[COL_NAME] = true,
	[COL_OP_STATE] = true,
	[COL_RELEASE_TIME] = true,
	[COL_SIZE_KB] = true,
	[COL_STEP_ID] = true,
	[COL_STAGE] = true,
	[COL_START] = true,
	[COL_STEP] = true,
	[COL_STREAM_ID] = true,
	[COL_TIMESTAMP] = true,
	[COL_TOTAL] = true,
	[COL_TOTAL_ACTIVE_KB] = true,
	[COL_TOTAL_ACTIVE_MB] = true,
	[COL_TOTAL_ALLOCATED_KB] = true,
	[COL_TOTAL_ALLOCATED_MB] = true,
	[COL_TOTAL_RESERVED_KB] = true,
	[COL_TOTAL_RESERVED_MB] = true,
	[COL_TYPE] = true,
};

bool csv_schema_is_read(enum csv_col col) { return col_read[col]; }

const char *csv_schema_label(enum csv_col col)
{
	static char labels[CSV_COL_COUNT][64];
	if (!labels[col][0]) {
		const char *names = col_defs[col].names;
		const char *bar = strchr(names, '|');
		size_t n = bar ? (size_t)(bar - names) : strlen(names);
		if (n >= sizeof labels[col])
			n = sizeof labels[col] - 1;
		memcpy(labels[col], names, n);
		labels[col][n] = '\0';
	}
	return labels[col];
}

enum csv_kind csv_schema_kind(const bool p[CSV_COL_COUNT])
{
	if (p[COL_API_NAME] && p[COL_COUNT])
		return CSV_API_STATISTIC;
	if (p[COL_START] && p[COL_STOP] && p[COL_DURATION] && !p[COL_TYPE])
		return CSV_TASK_TIME; /* msprof task_time: scheduler tasks, not ops */
	if (p[COL_CORE_ID])
		return CSV_AI_CORE_UTIL;
	if (p[COL_STEP] && p[COL_ITERATION_TIME])
		return CSV_ITERATION_TRACE;
	if (p[COL_NAME] && (p[COL_HOST_SELF] || p[COL_HOST_TOTAL]))
		return CSV_OPERATOR_DETAILS;
	if (p[COL_NAME] && p[COL_START] && p[COL_DURATION])
		return CSV_KERNEL;
	if (p[COL_TYPE] && p[COL_COUNT] && p[COL_TOTAL])
		return CSV_OP_STATISTIC;
	if (p[COL_COMPUTING] && p[COL_FREE])
		return CSV_STEP_TRACE;
	if (p[COL_SIZE_KB] && p[COL_ALLOCATION_TIME])
		return CSV_OPERATOR_MEMORY;
	if (p[COL_COMPONENT] && p[COL_TIMESTAMP] &&
	    (p[COL_TOTAL_ALLOCATED_MB] || p[COL_TOTAL_ALLOCATED_KB]))
		return CSV_MEMORY_RECORD;
	if (p[COL_COMPONENT] && p[COL_TIMESTAMP] && (p[COL_TOTAL_RESERVED_MB] || p[COL_TOTAL_RESERVED_KB]))
		return CSV_NPU_MODULE_MEM;
	if (p[COL_HIT_RATE])
		return CSV_L2_CACHE;
	return CSV_UNKNOWN;
}

const char *csv_kind_name(enum csv_kind kind)
{
	return kind < CSV_KIND_COUNT ? kind_names[kind] : "unknown";
}

enum csv_kind csv_schema_kind_by_name(const char *base_name)
{
	if (!strncmp(base_name, "communication_statistic", 23))
		return CSV_COMM_STATISTIC;
	return CSV_UNKNOWN;
}

/* Files the exporters name after the table they hold, and the columns that table is read
 * by: a file so named whose header lacks them is reported, not silently "unknown". */
static const struct {
	const char *prefix;
	enum csv_kind kind;
	enum csv_col needs[3];
	int n_needs;
} named_tables[] = {
	{"kernel_details", CSV_KERNEL, {COL_NAME, COL_START, COL_DURATION}, 3},
	{"op_summary", CSV_KERNEL, {COL_NAME, COL_START, COL_DURATION}, 3},
	{"operator_details", CSV_OPERATOR_DETAILS, {COL_NAME, COL_HOST_TOTAL}, 2},
	{"op_statistic", CSV_OP_STATISTIC, {COL_TYPE, COL_COUNT, COL_TOTAL}, 3},
	{"step_trace_time", CSV_STEP_TRACE, {COL_COMPUTING, COL_FREE}, 2},
	{"operator_memory", CSV_OPERATOR_MEMORY, {COL_SIZE_KB, COL_ALLOCATION_TIME}, 2},
	{"api_statistic", CSV_API_STATISTIC, {COL_API_NAME, COL_COUNT}, 2},
};

bool csv_schema_name_mismatch(const char *base_name, enum csv_kind kind, const bool present[CSV_COL_COUNT],
			      struct sbuf *why)
{
	for (size_t i = 0; i < sizeof named_tables / sizeof named_tables[0]; i++) {
		size_t n = strlen(named_tables[i].prefix);
		if (strncmp(base_name, named_tables[i].prefix, n) != 0 || kind == named_tables[i].kind)
			continue;
		/* "kernel_details.csv", "op_summary_0_1.csv": the name, then a suffix or the end */
		if (base_name[n] != '.' && base_name[n] != '_')
			continue;
		sbuf_addf(why, _("named like a %s table, but its header does not match it (missing:"),
			  csv_kind_name(named_tables[i].kind));
		const char *sep = " ";
		for (int k = 0; k < named_tables[i].n_needs; k++)
			if (!present[named_tables[i].needs[k]]) {
				sbuf_addf(why, "%s%s", sep, csv_schema_label(named_tables[i].needs[k]));
				sep = ", ";
			}
		sbuf_addf(why, _("); read as %s and not used as %s"), kind == CSV_UNKNOWN ? _("an unknown table") : csv_kind_name(kind),
			  csv_kind_name(named_tables[i].kind));
		return true;
	}
	return false;
}
