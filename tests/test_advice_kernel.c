/* SPDX-License-Identifier: MIT */
/* The kernel advice rules (advice_kernel.c: block_dim, pipe_bound, dynamic_shape) and
 * memory_ops on planted captures: a worker directory with a trace, a kernel_details.csv
 * written here row by row (so every expected figure is the sum of the rows planted), and a
 * PROF_ device directory whose info.json gives the core counts. Each rule fires with the
 * plant, stays checked without it, and says why it is not applicable when the capture lacks
 * what it reads (no core count, no PMU columns, one step). */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "advice.h"
#include "analysis.h"
#include "capture.h"
#include "npu_cores.h"
#include "sbuf.h"
#include "testutil.h"
#include "xalloc.h"

#define W "r0_ascend_pt/"
#define US(x) ((int64_t)(x) * 1000)

struct kcap {
	char *dir;
	struct capture *cap;
	struct analysis *an;
	const struct rank_analysis *ra;
};

/* events: "lane,name,start_us,dur_us[,task type]" with lane h (Python, cpu_op), a (CANN)
 * or d (device stream); csv: kernel_details.csv or NULL; aic > 0: an info.json with aic
 * AI Cores and aiv Vector cores. */
static void kcap_load(struct kcap *k, const char *events, const char *csv, int aic, int aiv)
{
	struct sbuf t = SBUF_INIT;
	sbuf_addf(&t, "[{\"ph\": \"M\", \"name\": \"process_name\", \"pid\": 1, \"args\": {\"name\": \"Python\"}},\n"
		      "{\"ph\": \"M\", \"name\": \"process_name\", \"pid\": 4, \"args\": {\"name\": \"CANN\"}},\n"
		      "{\"ph\": \"M\", \"name\": \"process_name\", \"pid\": 2, \"args\": {\"name\": \"Ascend Hardware\"}},\n"
		      "{\"ph\": \"M\", \"name\": \"thread_name\", \"pid\": 2, \"tid\": 2, \"args\": {\"name\": \"Stream 2\"}}");
	char lane, name[96], tt[32];
	double ts, dur;
	int used;
	for (const char *p = events; sscanf(p, " %c,%95[^,],%lf,%lf%n", &lane, name, &ts, &dur, &used) == 4;) {
		p += used;
		strcpy(tt, "AI_CORE");
		if (*p == ',' && sscanf(p, ",%31[A-Z_]%n", tt, &used) == 1)
			p += used;
		int pid = lane == 'h' ? 1 : lane == 'a' ? 4 : 2;
		sbuf_addf(&t, ",\n{\"ph\": \"X\", \"name\": \"%s\", \"pid\": %d, \"tid\": %d, \"ts\": \"%.3f\", \"dur\": %.3f, "
			      "\"cat\": \"%s\"",
			  name, pid, pid, ts, dur, pid == 1 ? "cpu_op" : pid == 4 ? "AscendCL" : "kernel");
		if (pid == 2)
			sbuf_addf(&t, ", \"args\": {\"Task Type\": \"%s\"}", tt);
		sbuf_addf(&t, "}");
	}
	sbuf_addf(&t, "]");
	k->dir = tu_tmpdir();
	free(tu_write_str(k->dir, W "ASCEND_PROFILER_OUTPUT/trace_view.json", sbuf_str(&t)));
	sbuf_free(&t);
	free(tu_write_str(k->dir, W "analyse.done", ""));
	if (csv)
		free(tu_write_str(k->dir, W "ASCEND_PROFILER_OUTPUT/kernel_details.csv", csv));
	if (aic > 0) {
		char info[160];
		snprintf(info, sizeof info, "{\"DeviceInfo\": [{\"id\": 0, \"ai_core_num\": %d, \"aiv_num\": %d}]}", aic, aiv);
		free(tu_write_str(k->dir, W "PROF_000001_20261207000000000_ABCDEFG/device_0/info.json.0", info));
	}
	k->cap = capture_open(k->dir, NULL);
	capture_load(k->cap);
	k->an = analysis_run(k->cap);
	assert_int_equal(k->an->n_ranks, 1);
	k->ra = &k->an->ranks[0];
}

static void kcap_free(struct kcap *k)
{
	analysis_free(k->an);
	capture_free(k->cap);
	tu_rmtree(k->dir);
	free(k->dir);
}

static const struct advice_finding *finding(const struct rank_analysis *ra, enum advice_rule_id r)
{
	for (size_t i = 0; i < ra->n_advice; i++)
		if (ra->advice[i].rule == (int)r)
			return &ra->advice[i];
	return NULL;
}

static const char block_events[] = "d,MatMul,0,100 d,MatMul,200,100 d,Add,400,100,AI_VECTOR_CORE "
				   "d,Cast,600,10,AI_VECTOR_CORE d,Sort,700,100,AI_CPU";
#define BLOCK_HEAD "Name,Type,Accelerator Core,Start Time(us),Duration(us),Block Dim\n"

/* 20 AI Cores, 40 Vector cores. Of the AI Core and Vector kernels (100 + 100 + 100 + 10 us),
 * the first MatMul (8 blocks) and the Add (20 of 40) are long and under their cores: 200 of
 * 310 us. The second MatMul fills its 20, the Cast is short, the Sort is AI CPU. */
static void test_block_dim(void **state)
{
	(void)state;
	struct kcap k;
	kcap_load(&k, block_events,
		  BLOCK_HEAD "MatMul,MatMul,AI_CORE,0,100,8\nMatMul,MatMul,AI_CORE,200,100,20\n"
			     "Add,Add,AI_VECTOR_CORE,400,100,20\nCast,Cast,AI_VECTOR_CORE,600,10,1\nSort,Sort,AI_CPU,700,100,1\n",
		  20, 40);
	const struct advice_finding *f = finding(k.ra, ADV_BLOCK_DIM);
	assert_non_null(f);
	assert_true(f->triggered);
	assert_int_equal(f->count, 2);
	assert_int_equal(f->total_ns, US(200));
	assert_true(tu_close(f->value, 100.0 * 200 / 310, 1e-9, 1e-9));
	assert_non_null(strstr(f->evidence, "MatMul 0.100 ms, 8 blocks"));
	assert_non_null(strstr(f->evidence, "Add 0.100 ms, 20 blocks"));
	assert_non_null(strstr(f->evidence, "20 AI Cores, 40 Vector cores (info.json)"));
	/* the event to show is the trace's kernel at the row's start */
	assert_true(f->event != UINT32_MAX);
	assert_int_equal(store_ts(&k.cap->ranks[0].store, f->event), f->event_ts);
	assert_int_equal(k.ra->advice_status[ADV_BLOCK_DIM], ADV_STATUS_TRIGGERED);
	kcap_free(&k);
	/* every long kernel on all its cores: checked, nothing found */
	kcap_load(&k, block_events,
		  BLOCK_HEAD "MatMul,MatMul,AI_CORE,0,100,20\nMatMul,MatMul,AI_CORE,200,100,40\n"
			     "Add,Add,AI_VECTOR_CORE,400,100,40\nCast,Cast,AI_VECTOR_CORE,600,10,1\nSort,Sort,AI_CPU,700,100,1\n",
		  20, 40);
	assert_null(finding(k.ra, ADV_BLOCK_DIM));
	assert_int_equal(k.ra->advice_status[ADV_BLOCK_DIM], ADV_STATUS_CHECKED);
	kcap_free(&k);
	/* level 0: Block Dim 0 on every row (not recorded): nothing judged, not "checked" */
	kcap_load(&k, block_events, BLOCK_HEAD "MatMul,MatMul,AI_CORE,0,100,0\nAdd,Add,AI_VECTOR_CORE,400,100,0\n", 20, 40);
	assert_int_equal(k.ra->advice_status[ADV_BLOCK_DIM], ADV_STATUS_NOT_APPLICABLE);
	assert_non_null(strstr(k.ra->advice_reason[ADV_BLOCK_DIM], "level 0"));
	kcap_free(&k);
	/* the same plant without a device record: the count is unknown, never guessed */
	kcap_load(&k, block_events, BLOCK_HEAD "MatMul,MatMul,AI_CORE,0,100,8\n", 0, 0);
	assert_null(finding(k.ra, ADV_BLOCK_DIM));
	assert_int_equal(k.ra->advice_status[ADV_BLOCK_DIM], ADV_STATUS_NOT_APPLICABLE);
	assert_non_null(strstr(k.ra->advice_reason[ADV_BLOCK_DIM], "core count unknown"));
	kcap_free(&k);
}

/* Three heavy kernels with PMU ratios: MatMul 600 us cube 0.90 (cube-bound), Add 300 us with
 * every pipe under 0.5 (bound by none), Cast 100 us vector 0.6 (no single pipe). 300 of
 * 1000 us latency-bound: 30 %. */
static void test_pipe_bound(void **state)
{
	(void)state;
	const char *ev = "d,MatMul,0,600 d,Add,600,300,AI_VECTOR_CORE d,Cast,900,100,AI_VECTOR_CORE";
	const char *head = "Name,Type,Accelerator Core,Start Time(us),Duration(us),aic_mac_ratio,aic_mte2_ratio,"
			   "aiv_vec_ratio,aiv_mte2_ratio\n";
	char csv[512];
	snprintf(csv, sizeof csv, "%sMatMul,MatMul,AI_CORE,0,600,0.9,0.3,N/A,N/A\n"
		 "Add,Add,AI_VECTOR_CORE,600,300,N/A,N/A,%s,0.3\nCast,Cast,AI_VECTOR_CORE,900,100,N/A,N/A,0.6,0.1\n",
		 head, "0.2");
	struct kcap k;
	kcap_load(&k, ev, csv, 0, 0);
	const struct advice_finding *f = finding(k.ra, ADV_PIPE_BOUND);
	assert_non_null(f);
	assert_true(f->triggered);
	assert_int_equal(f->count, 1);
	assert_int_equal(f->total_ns, US(300));
	assert_true(tu_close(f->value, 30.0, 1e-9, 1e-9));
	assert_non_null(strstr(f->evidence, "1 of 3 heavy kernels"));
	assert_non_null(strstr(f->evidence, "MatMul 0.600 ms: cube-bound (0.90)"));
	assert_non_null(strstr(f->evidence, "Add 0.300 ms: bound by none (highest mte2 0.30)"));
	assert_non_null(strstr(f->evidence, "Cast 0.100 ms: no single pipe (highest vector 0.60)"));
	assert_string_equal(f->event_name, "Add"); /* the latency-bound one to show */
	assert_int_equal(k.ra->advice_status[ADV_PIPE_BOUND], ADV_STATUS_TRIGGERED);
	kcap_free(&k);
	/* the Add vector-bound (0.85, a percentage written as 85): none latency-bound */
	snprintf(csv, sizeof csv, "%sMatMul,MatMul,AI_CORE,0,600,0.9,0.3,N/A,N/A\n"
		 "Add,Add,AI_VECTOR_CORE,600,300,N/A,N/A,%s,0.3\nCast,Cast,AI_VECTOR_CORE,900,100,N/A,N/A,0.6,0.1\n",
		 head, "85");
	kcap_load(&k, ev, csv, 0, 0);
	f = finding(k.ra, ADV_PIPE_BOUND);
	assert_non_null(f);
	assert_false(f->triggered);
	assert_int_equal(f->count, 0);
	assert_non_null(strstr(f->evidence, "Add 0.300 ms: vector-bound (0.85)"));
	assert_int_equal(k.ra->advice_status[ADV_PIPE_BOUND], ADV_STATUS_CHECKED);
	kcap_free(&k);
	/* PMU columns of zeros only: not measured (not every kernel latency-bound) */
	snprintf(csv, sizeof csv, "%sMatMul,MatMul,AI_CORE,0,600,0,0,0,0\nAdd,Add,AI_VECTOR_CORE,600,300,0,0,0,0\n", head);
	kcap_load(&k, ev, csv, 0, 0);
	assert_null(finding(k.ra, ADV_PIPE_BOUND));
	assert_int_equal(k.ra->advice_status[ADV_PIPE_BOUND], ADV_STATUS_NOT_APPLICABLE);
	kcap_free(&k);
	/* no PMU columns: not applicable, with the setting that adds them */
	kcap_load(&k, ev, BLOCK_HEAD "MatMul,MatMul,AI_CORE,0,600,8\n", 0, 0);
	assert_int_equal(k.ra->advice_status[ADV_PIPE_BOUND], ADV_STATUS_NOT_APPLICABLE);
	assert_non_null(strstr(k.ra->advice_reason[ADV_PIPE_BOUND], "PipeUtilization"));
	kcap_free(&k);
}

#define SHAPE_HEAD "Name,Type,OP State,Accelerator Core,Start Time(us),Duration(us),Input Shapes\n"
static const char shape_events[] = "h,ProfilerStep#1,0,1000 h,ProfilerStep#2,1000,1000 h,ProfilerStep#3,2000,1000 "
				   "d,MatMul,100,50 d,Add,300,50 d,MatMul,1100,50 d,Add,1300,50 "
				   "d,MatMul,2100,50 d,Add,2300,50 d,Cast,2500,50";

/* Three steps. The first sees MatMul [4,16;16,16] and Add [4,16]; step 2 brings Add [5,16],
 * step 3 MatMul [6,16;16,16] (and Add [5,16] again, seen) and a Cast whose OP State is
 * dynamic (compiled once for any shape), and a Sort first run in step 3 (its first compile,
 * not a compile again): 2 new shapes, in 2 of the 3 static operators. */
static void test_dynamic_shape(void **state)
{
	(void)state;
	struct kcap k;
	kcap_load(&k, shape_events,
		  SHAPE_HEAD "MatMul,MatMul,static,AI_CORE,100,50,\"4,16;16,16\"\nAdd,Add,static,AI_VECTOR_CORE,300,50,\"4,16\"\n"
			     "MatMul,MatMul,static,AI_CORE,1100,50,\"4,16;16,16\"\nAdd,Add,static,AI_VECTOR_CORE,1300,50,\"5,16\"\n"
			     "MatMul,MatMul,static,AI_CORE,2100,50,\"6,16;16,16\"\nAdd,Add,static,AI_VECTOR_CORE,2300,50,\"5,16\"\n"
			     "Cast,Cast,dynamic,AI_VECTOR_CORE,2500,50,\"7\"\nSort,Sort,static,AI_VECTOR_CORE,2700,50,\"9\"\n",
		  0, 0);
	assert_int_equal(k.ra->n_steps, 3);
	const struct advice_finding *f = finding(k.ra, ADV_DYNAMIC_SHAPE);
	assert_non_null(f);
	assert_true(f->triggered);
	assert_int_equal(f->count, 2);
	assert_int_equal(f->total_ns, US(100));
	assert_non_null(strstr(f->evidence, "2 input shapes first seen after the first step of their phase, in 2 of 3 operators"));
	assert_non_null(strstr(f->evidence, "Add 1 new of 2 distinct shapes"));
	assert_non_null(strstr(f->evidence, "MatMul 1 new of 2 distinct shapes"));
	/* the first new shape of the op with most (a tie: the first interned, MatMul) */
	assert_int_equal(f->event_ts - k.cap->ranks[0].store.window_start, US(2100)); /* the window opens at 0 */
	assert_int_equal(k.ra->advice_status[ADV_DYNAMIC_SHAPE], ADV_STATUS_TRIGGERED);
	kcap_free(&k);
	/* every step repeats the first one's shapes: checked */
	kcap_load(&k, shape_events,
		  SHAPE_HEAD "MatMul,MatMul,static,AI_CORE,100,50,\"4,16;16,16\"\nAdd,Add,static,AI_VECTOR_CORE,300,50,\"4,16\"\n"
			     "MatMul,MatMul,static,AI_CORE,1100,50,\"4,16;16,16\"\nAdd,Add,static,AI_VECTOR_CORE,1300,50,\"4,16\"\n"
			     "MatMul,MatMul,static,AI_CORE,2100,50,\"4,16;16,16\"\nAdd,Add,static,AI_VECTOR_CORE,2300,50,\"4,16\"\n"
			     "Cast,Cast,dynamic,AI_VECTOR_CORE,2500,50,\"7\"\n",
		  0, 0);
	assert_null(finding(k.ra, ADV_DYNAMIC_SHAPE));
	assert_int_equal(k.ra->advice_status[ADV_DYNAMIC_SHAPE], ADV_STATUS_CHECKED);
	kcap_free(&k);
	/* no OP State: a static kernel cannot be told from a dynamic one */
	kcap_load(&k, shape_events,
		  "Name,Type,Accelerator Core,Start Time(us),Duration(us),Input Shapes\n"
		  "MatMul,MatMul,AI_CORE,100,50,\"4,16;16,16\"\nMatMul,MatMul,AI_CORE,2100,50,\"6,16;16,16\"\n", 0, 0);
	assert_null(finding(k.ra, ADV_DYNAMIC_SHAPE));
	assert_int_equal(k.ra->advice_status[ADV_DYNAMIC_SHAPE], ADV_STATUS_NOT_APPLICABLE);
	assert_non_null(strstr(k.ra->advice_reason[ADV_DYNAMIC_SHAPE], "OP State"));
	kcap_free(&k);
	/* one step: nothing to compare with */
	kcap_load(&k, "h,ProfilerStep#1,0,1000 d,MatMul,100,50",
		  SHAPE_HEAD "MatMul,MatMul,static,AI_CORE,100,50,\"4,16;16,16\"\n", 0, 0);
	assert_int_equal(k.ra->advice_status[ADV_DYNAMIC_SHAPE], ADV_STATUS_NOT_APPLICABLE);
	kcap_free(&k);
}

/* A 50 us aclrtMalloc with the device idle between two kernels, in a 250 us window: 20 %; an
 * aclrtMallocHost (host memory) is not counted. An aclrtFree under a kernel is exposed for
 * nothing: below the threshold. */
static void test_memory_ops(void **state)
{
	(void)state;
	struct kcap k;
	kcap_load(&k, "d,MatMul,0,100 a,AscendCL@aclrtMalloc,100,50 d,Add,150,100 a,AscendCL@aclrtMallocHost,160,10",
		  NULL, 0, 0);
	const struct advice_finding *f = finding(k.ra, ADV_MEMORY_OPS);
	assert_non_null(f);
	assert_true(f->triggered);
	assert_int_equal(f->count, 1);
	assert_int_equal(f->total_ns, US(50));
	assert_int_equal(f->exposed_ns, US(50));
	assert_true(tu_close(f->value, 20.0, 1e-9, 1e-9));
	assert_true(f->event != UINT32_MAX);
	assert_non_null(strstr(f->event_name, "aclrtMalloc"));
	kcap_free(&k);
	kcap_load(&k, "d,MatMul,0,100 a,AscendCL@aclrtFree,20,50 d,Add,150,100", NULL, 0, 0);
	f = finding(k.ra, ADV_MEMORY_OPS);
	assert_non_null(f);
	assert_false(f->triggered);
	assert_int_equal(f->exposed_ns, 0);
	assert_int_equal(k.ra->advice_status[ADV_MEMORY_OPS], ADV_STATUS_CHECKED);
	kcap_free(&k);
	/* a 12 ms free with the device idle: named as one of 10 ms and more */
	kcap_load(&k, "d,MatMul,0,100 a,AscendCL@aclrtFree,100,12000 d,Add,12100,100", NULL, 0, 0);
	f = finding(k.ra, ADV_MEMORY_OPS);
	assert_non_null(f);
	assert_true(f->triggered);
	assert_non_null(strstr(f->evidence, "; 1 of 10 ms and more"));
	kcap_free(&k);
	kcap_load(&k, "d,MatMul,0,100 a,AscendCL@aclrtLaunchKernel,120,10 d,Add,150,100", NULL, 0, 0);
	assert_null(finding(k.ra, ADV_MEMORY_OPS));
	assert_int_equal(k.ra->advice_status[ADV_MEMORY_OPS], ADV_STATUS_CHECKED);
	kcap_free(&k);
}

/* The generator's plants against its truth (figures from its model, not from the files
 * the rules read): MatMulV2 on 8 blocks of Ascend910B3's 20 AI Cores (the attention's 8
 * count too), a new static Add shape in every step, 5 aclrtMalloc calls in each idle gap
 * between steps, every kernel's PMU ratios bound by a pipe but RmsNorm's. Without the
 * plants, on the same chip: the shape and memory rules checked, block_dim finds only the
 * kernels its own block counts put under the cores. */
static void test_generated(void **state)
{
	(void)state;
	struct tu_capture c;
	tu_capture_load(&c, "--steps 8 --prefill 2 --chip Ascend910B3 --block-dim 8 --new-shapes --alloc-storm 5 --pmu-bound",
			true);
	const struct rank_analysis *ra = &c.an->ranks[0];
	const struct advice_finding *f = finding(ra, ADV_BLOCK_DIM);
	assert_non_null(f);
	assert_true(f->triggered);
	assert_int_equal(f->count, tu_truth_int(c.truth, "rank.0.advice.small_block_kernels"));
	assert_int_equal(f->total_ns, tu_truth_int(c.truth, "rank.0.advice.small_block_ns"));
	assert_non_null(strstr(f->evidence, "MatMulV2"));
	f = finding(ra, ADV_DYNAMIC_SHAPE);
	assert_non_null(f);
	assert_true(f->triggered);
	assert_int_equal(f->count, tu_truth_int(c.truth, "rank.0.advice.new_shapes"));
	assert_non_null(strstr(f->evidence, "Add "));
	f = finding(ra, ADV_MEMORY_OPS);
	assert_non_null(f);
	assert_int_equal(f->count, tu_truth_int(c.truth, "rank.0.advice.alloc_calls"));
	assert_int_equal(f->total_ns, tu_truth_int(c.truth, "rank.0.advice.alloc_ns"));
	assert_int_equal(f->exposed_ns, f->total_ns); /* planted where the device idles */
	/* every kernel bound by a pipe but RmsNorm: its time over the PMU rows' time */
	f = finding(ra, ADV_PIPE_BOUND);
	assert_non_null(f);
	long long lat = tu_truth_int(c.truth, "rank.0.advice.latency_bound_ns");
	long long pmu = tu_truth_int(c.truth, "rank.0.advice.pmu_ns");
	assert_int_equal(f->count, 1);
	assert_int_equal(f->total_ns, lat);
	assert_true(tu_close(f->value, 100.0 * (double)lat / (double)pmu, 1e-9, 1e-9));
	assert_true(f->triggered == (f->value >= 10.0));
	assert_non_null(strstr(f->evidence, "bound by none: RmsNorm"));
	assert_non_null(strstr(f->evidence, "MatMulV2"));
	assert_string_equal(f->event_name, "RmsNorm");
	tu_capture_free(&c);
	tu_capture_load(&c, "--steps 8 --prefill 2 --chip Ascend910B3", true);
	ra = &c.an->ranks[0];
	f = finding(ra, ADV_BLOCK_DIM);
	/* the attention kernels (8 blocks) stay, the MatMulV2 ones (24 blocks) leave */
	long long want = tu_truth_int(c.truth, "rank.0.advice.small_block_kernels");
	assert_int_equal(f ? (long long)f->count : 0, want);
	assert_true(!f || !strstr(f->evidence, "MatMulV2"));
	assert_null(finding(ra, ADV_DYNAMIC_SHAPE));
	assert_null(finding(ra, ADV_MEMORY_OPS));
	assert_int_equal(ra->advice_status[ADV_DYNAMIC_SHAPE], ADV_STATUS_CHECKED);
	assert_int_equal(ra->advice_status[ADV_MEMORY_OPS], ADV_STATUS_CHECKED);
	tu_capture_free(&c);
}

/* Where the core counts come from: a PROF_ directory's device info in a worker directory,
 * or a device directory straight in a Class B rank's PROF_ directory (the worker then),
 * both exact; the chip table's family range; nothing found: unknown. */
static void test_npu_cores(void **state)
{
	(void)state;
	char *dir = tu_tmpdir();
	struct npu_cores nc;
	npu_cores_read(dir, NULL, &nc);
	assert_false(nc.known);
	free(tu_write_str(dir, "w/PROF_000001_1_A/device_3/info.json.3",
			  "{\"DeviceInfo\": [{\"id\": 3, \"ai_cpu_core_num\": 7, \"ai_core_num\": 24, \"aiv_num\": 48}]}"));
	char *w = xasprintf("%s/w", dir), *p = xasprintf("%s/w/PROF_000001_1_A", dir);
	npu_cores_read(w, NULL, &nc);
	assert_true(nc.known);
	assert_int_equal(nc.aic_lo, 24);
	assert_int_equal(nc.aic_hi, 24);
	assert_int_equal(nc.aiv_lo, 48);
	assert_string_equal(nc.source, "info.json");
	npu_cores_read(p, NULL, &nc); /* Class B: the PROF_ directory is the rank's */
	assert_true(nc.known && nc.aic_lo == 24);
	assert_true(npu_cores_from_chip("Ascend910B", &nc));
	assert_true(nc.aic_lo == 20 && nc.aic_hi == 30 && nc.aiv_lo == 40 && nc.aiv_hi == 48);
	assert_false(npu_cores_from_chip("Ascend910B9", &nc));
	free(w);
	free(p);
	tu_rmtree(dir);
	free(dir);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_block_dim),
		cmocka_unit_test(test_pipe_bound),
		cmocka_unit_test(test_dynamic_shape),
		cmocka_unit_test(test_memory_ops),
		cmocka_unit_test(test_generated),
		cmocka_unit_test(test_npu_cores),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
