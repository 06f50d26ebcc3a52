/* SPDX-License-Identifier: MIT */
/* Memory tables with values chosen by hand, in Class A units (MB) and Class B units (KB):
 * both must give the same peaks, curve and allocations, with negative and empty sizes
 * kept as written. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "csv_table.h"
#include "memory.h"
#include "sbuf.h"
#include "testutil.h"

static const char record_mb[] =
	"Component,Timestamp(us),Total Allocated(MB),Total Reserved(MB),Total Active(MB),Stream Ptr,Device Type\n"
	"APP,1000.000\t,,2000.0,,,NPU:0\n"
	"PTA,1000.500\t,100.0,512.0,100.0,1,NPU:0\n"
	"PTA,1500.000\t,300.0,512.0,250.0,1,NPU:0\n"
	"APP,2000.000\t,,2048.0,,,NPU:0\n"
	"PTA,2500.000\t,50.0,1024.0,40.0,1,NPU:0\n";

/* msprof writes KB and its own column order */
static const char record_kb[] =
	"Device_id,Component,Timestamp(us),Total Allocated(KB),Total Reserved(KB),Device\n"
	"0,APP,1000.000,N/A,2048000,NPU:0\n"
	"0,PTA,1000.500,102400,524288,NPU:0\n"
	"0,PTA,1500.000,307200,524288,NPU:0\n"
	"0,APP,2000.000,N/A,2097152,NPU:0\n"
	"0,PTA,2500.000,51200,1048576,NPU:0\n";

static const char op_memory[] =
	"Name,Size(KB),Allocation Time(us),Release Time(us),Duration(us),Device Type\n"
	"a,2048,1000.0,1500.0,500.0,NPU:0\n"
	"b,-1024,1100.0,,,NPU:0\n"
	"c,,1200.0,,,NPU:0\n"
	"d,4096,1300.0,,,NPU:0\n";

static const struct mem_component *comp(const struct mem_analysis *m, const char *name)
{
	for (size_t i = 0; i < m->n_comps; i++)
		if (!strcmp(m->comps[i].name, name))
			return &m->comps[i];
	fail_msg("no component %s", name);
	return NULL;
}

static void check_record(const char *name, const char *text, bool in_kb)
{
	struct diag_list dl;
	diag_init(&dl);
	struct csv_table *t = csvt_load_buffer(name, text, strlen(text), &dl);
	assert_non_null(t);
	assert_int_equal(t->kind, CSV_MEMORY_RECORD);
	struct mem_analysis m;
	memory_analyse(t, NULL, NULL, &m);
	assert_int_equal(m.record_in_kb, in_kb);
	assert_int_equal(m.n_comps, 2);
	const struct mem_component *pta = comp(&m, "PTA"), *app = comp(&m, "APP");
	assert_true(fabs(pta->peak_allocated_mb - 300.0) < 1e-9);
	assert_true(fabs(pta->peak_reserved_mb - 1024.0) < 1e-9);
	assert_true(pta->peak_ts == 1500000); /* the allocated peak's row */
	assert_int_equal(pta->peak_row, 2);
	assert_int_equal(pta->samples, 3);
	assert_true(isnan(app->peak_allocated_mb));
	assert_true(fabs(app->peak_reserved_mb - 2048.0) < 1e-9);
	assert_true(app->peak_ts == 2000000);
	assert_true(fabs(memory_peak_reserved_mb(&m) - 2048.0) < 1e-9);
	assert_true(fabs(memory_peak_allocated_mb(&m) - 300.0) < 1e-9);
	if (in_kb)
		assert_true(isnan(pta->peak_active_mb));
	else
		assert_true(fabs(pta->peak_active_mb - 250.0) < 1e-9);
	/* the curve is PTA allocated (no PTA+GE here): 100 in the first bucket, 300 from the
	 * sample at 1500 us (bucket 127 of 256 over 1000.5 .. 2500 us) and 50 in the last */
	assert_string_equal(m.curve_component, "PTA");
	assert_string_equal(m.curve_field, "allocated");
	assert_int_equal(m.n_curve, MEM_CURVE_POINTS);
	assert_true(m.curve_t0 == 1000500 && m.curve_t1 == 2500000);
	int b300 = (int)((1500000.0 - 1000500.0) / (1499500.0 + 1.0) * MEM_CURVE_POINTS);
	for (int i = 0; i < m.n_curve - 1; i++)
		assert_true(m.curve[i] == (i < b300 ? 100.0 : 300.0));
	assert_true(m.curve[m.n_curve - 1] == 50.0);
	memory_free(&m);
	csvt_free(t);
	diag_free(&dl);
}

static void test_record_in_mb_and_kb(void **state)
{
	(void)state;
	check_record("memory_record.csv", record_mb, false);
	check_record("memory_record_20260101000000.csv", record_kb, true);
}

static void test_allocations_keep_what_is_written(void **state)
{
	(void)state;
	struct diag_list dl;
	diag_init(&dl);
	struct csv_table *t = csvt_load_buffer("operator_memory.csv", op_memory, strlen(op_memory), &dl);
	assert_non_null(t);
	assert_int_equal(t->kind, CSV_OPERATOR_MEMORY);
	struct mem_analysis m;
	memory_analyse(NULL, NULL, t, &m);
	assert_int_equal(m.n_allocs, 3); /* c has no size */
	assert_int_equal(m.negative_sizes, 1);
	assert_int_equal(m.never_released, 2);
	assert_true(fabs(m.total_alloc_mb - 6.0) < 1e-9);
	assert_int_equal(m.n_top, 3);
	assert_string_equal(m.top[0].name, "d");
	assert_string_equal(m.top[1].name, "a");
	assert_true(m.top[1].duration_ns == 500000);
	assert_string_equal(m.top[2].name, "b");
	assert_true(fabs(m.top[2].size_mb + 1.0) < 1e-9);
	assert_int_equal(m.top[2].row, 1);
	memory_free(&m);
	csvt_free(t);
	diag_free(&dl);
}

/* A table of many distinct components (hostile or broken): each row was compared with
 * every component seen so far, 200k names took minutes. Now one look-up per row: the
 * peaks of all 200k, in first-seen order, in well under the limit. */
static void test_many_components(void **state)
{
	(void)state;
	enum { N = 200000 };
	struct sbuf sb = SBUF_INIT;
	sbuf_adds(&sb, "Component,Timestamp(us),Total Allocated(MB),Total Reserved(MB),Total Active(MB),Stream Ptr,Device Type\n");
	for (int i = 0; i < N; i++)
		sbuf_addf(&sb, "c%06d,%d.0,%d.0,%d.0,1.0,1,NPU:0\n", i, 1000 + i, i % 977, i % 977 + 1);
	sbuf_adds(&sb, "c000005,5.0,2000.0,3000.0,1.0,1,NPU:0\n");
	struct diag_list dl;
	diag_init(&dl);
	struct csv_table *t = csvt_load_buffer("memory_record.csv", sb.buf, sb.len, &dl);
	assert_non_null(t);
	struct timespec a, b;
	clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &a);
	struct mem_analysis m;
	memory_analyse(t, NULL, NULL, &m);
	clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &b);
	double sec = (double)(b.tv_sec - a.tv_sec) + (double)(b.tv_nsec - a.tv_nsec) * 1e-9;
	print_message("memory_record with %d components: %.3f s\n", N, sec);
	assert_true(sec < 5.0); /* about 0.05 s; the quadratic walk took minutes */
	assert_int_equal(m.n_comps, N);
	const struct mem_component *c5 = comp(&m, "c000005");
	assert_int_equal(c5->samples, 2);
	assert_true(c5->peak_allocated_mb == 2000.0);
	assert_int_equal(c5->peak_row, N);
	memory_free(&m);
	csvt_free(t);
	diag_free(&dl);
	sbuf_free(&sb);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_record_in_mb_and_kb),
		cmocka_unit_test(test_allocations_keep_what_is_written),
		cmocka_unit_test(test_many_components),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
