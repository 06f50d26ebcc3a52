/* SPDX-License-Identifier: MIT */
/* The Ascend advice rules (advice.h) on planted traces: each rule fires when its pattern
 * is planted above the threshold, with the figures the plant implies, and stays silent (or
 * below its threshold) when the pattern is absent or small. On the real level1 capture the
 * compile and TransData findings are checked against counts read from the trace by hand
 * (19 AscendCL@aclopCompileAndExecute, 14.049 ms; 57 TransData tasks, 1.423 ms: their
 * durations in ns are rounded each, so 57 x 0.5 ns is the tolerance). */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "advice.h"
#include "doctor.h"
#include "analysis.h"
#include "capture.h"
#include "report.h"
#include "sbuf.h"
#include "testutil.h"
#include "xalloc.h"

/* Lanes: h Python (cat cpu_op), a CANN (AscendCL), g Python GC, d Ascend Hardware stream 2.
 * Events are "lane,name,start_us,dur_us" with NAME/TASKTYPE on device lanes (AI_CORE when
 * not given). */
static char *planted_trace(const char *spec)
{
	struct {
		char c;
		int pid;
		const char *process, *cat;
	} lanes[] = {{'h', 1, "Python", "cpu_op"},
		     {'a', 4, "CANN", "AscendCL"},
		     {'g', 5, "Python GC", "GC"},
		     {'d', 2, "Ascend Hardware", "kernel"}};
	char *text = xstrdup("[{\"ph\": \"M\", \"name\": \"thread_name\", \"pid\": 2, \"tid\": 2, "
			     "\"args\": {\"name\": \"Stream 2\"}}");
	for (size_t i = 0; i < sizeof lanes / sizeof lanes[0]; i++) {
		char *next = xasprintf("%s,\n{\"ph\": \"M\", \"name\": \"process_name\", \"pid\": %d, "
				       "\"args\": {\"name\": \"%s\"}}", text, lanes[i].pid, lanes[i].process);
		free(text);
		text = next;
	}
	char lane[4], name[96];
	double ts, dur;
	const char *p = spec;
	int used;
	while (sscanf(p, " %3[^,],%95[^,],%lf,%lf%n", lane, name, &ts, &dur, &used) == 4) {
		p += used;
		size_t k = 0;
		while (k + 1 < sizeof lanes / sizeof lanes[0] && lanes[k].c != lane[0])
			k++;
		char *slash = strchr(name, '/');
		const char *tt = "AI_CORE";
		if (slash) {
			*slash = 0;
			tt = slash + 1;
		}
		char args[64] = "";
		if (lanes[k].pid == 2)
			snprintf(args, sizeof args, ", \"args\": {\"Task Type\": \"%s\"}", tt);
		char *next = xasprintf("%s,\n{\"ph\": \"X\", \"name\": \"%s\", \"pid\": %d, \"tid\": %d, "
				       "\"ts\": \"%.3f\", \"dur\": %.3f, \"cat\": \"%s\"%s}",
				       text, name, lanes[k].pid, lanes[k].pid, ts, dur, lanes[k].cat, args);
		free(text);
		text = next;
	}
	char *out = xasprintf("%s]", text);
	free(text);
	return out;
}

struct planted {
	char *dir;
	struct capture *cap;
	struct analysis *an;
	const struct rank_analysis *ra;
};

static void planted_load(struct planted *pc, const char *spec)
{
	pc->dir = tu_tmpdir();
	char *trace = planted_trace(spec);
	free(tu_write_str(pc->dir, "trace_view.json", trace));
	free(trace);
	pc->cap = capture_open(pc->dir, NULL);
	capture_load(pc->cap);
	pc->an = analysis_run(pc->cap);
	assert_int_equal(pc->an->n_ranks, 1);
	pc->ra = &pc->an->ranks[0];
}

static void planted_free(struct planted *pc)
{
	analysis_free(pc->an);
	capture_free(pc->cap);
	tu_rmtree(pc->dir);
	free(pc->dir);
}

static const struct advice_finding *finding(const struct rank_analysis *ra, enum advice_rule_id r)
{
	for (size_t i = 0; i < ra->n_advice; i++)
		if (ra->advice[i].rule == (int)r)
			return &ra->advice[i];
	return NULL;
}

/* The finding's event is one the rule is about: its name contains want. */
static void assert_event_named(const struct planted *pc, const struct advice_finding *f, const char *want)
{
	assert_true(f->event != UINT32_MAX);
	const char *name = store_ev_name(&pc->cap->ranks[0].store, f->event);
	assert_non_null(strstr(name, want));
	assert_true(f->event_end > f->event_ts);
}

#define US(x) ((int64_t)(x) * 1000)

/* One 50 us aclopCompileAndExecute while the device idles between two kernels: host busy
 * is the aten::add around it (60 us), so 50 / 60 of host time; the 50 us are device idle
 * with the host in a framework op, the host_dispatch bucket. */
static void test_online_compile(void **state)
{
	(void)state;
	struct planted pc;
	planted_load(&pc, "d,MatMul,0,100 h,aten::add,100,60 a,AscendCL@aclopCompileAndExecute,105,50 "
			  "d,Add,160,100");
	const struct advice_finding *f = finding(pc.ra, ADV_ONLINE_COMPILE);
	assert_non_null(f);
	assert_true(f->triggered);
	assert_int_equal(f->count, 1);
	assert_int_equal(f->total_ns, US(50));
	assert_true(tu_close(f->value, 100.0 * 50 / 60, 1e-9, 1e-9));
	assert_int_equal(f->exposed_ns, US(50));
	assert_true(pc.ra->attr.ns[ATTR_HOST_DISPATCH] >= f->exposed_ns); /* the time is that bucket's */
	assert_string_equal(f->bucket, "host_dispatch");
	assert_event_named(&pc, f, "aclopCompileAndExecute");
	/* the reports carry it: text as a problem with why and try, JSON in the rank's advice */
	char *buf = NULL;
	size_t len = 0;
	FILE *out = open_memstream(&buf, &len);
	report_print_text(pc.an, out);
	fclose(out);
	assert_non_null(strstr(buf, "  * on-the-fly operator compilation (83.3 % >= 1.0, confidence high)\n"
				    "      1 aclopCompile* calls, 0.050 ms (83.3 % of host busy); 0.050 ms with the device "
				    "idle (in host_dispatch 0.050 ms)\n      why: "));
	free(buf);
	out = open_memstream(&buf, &len);
	report_print_json(pc.an, out);
	fclose(out);
	const char *adv = strstr(buf, "\"advice\": [");
	assert_non_null(adv);
	assert_non_null(strstr(adv, "\"rule\": \"online_compile\""));
	assert_non_null(strstr(adv, "\"count\": 1,"));
	assert_non_null(strstr(adv, "\"exposed_us\": 50,"));
	assert_non_null(strstr(adv, "\"bucket\": \"host_dispatch\""));
	assert_non_null(strstr(adv, "\"event_start_us\": 105,")); /* from the first event */
	assert_non_null(strstr(adv, "\"event_name\": \"AscendCL@aclopCompileAndExecute\","));
	free(buf);
	planted_free(&pc);
	/* absent: the same host op runs without compiling */
	planted_load(&pc, "d,MatMul,0,100 h,aten::add,100,60 a,AscendCL@aclopCreateAttr,105,50 d,Add,160,100");
	assert_null(finding(pc.ra, ADV_ONLINE_COMPILE));
	assert_int_equal(advice_triggered(pc.ra), 0);
	planted_free(&pc);
	/* small: 1 us of compile in 1000 us of host time is seen, not a problem */
	planted_load(&pc, "h,aten::add,0,1000 a,AscendCL@aclopCompile,10,1 d,MatMul,0,1000");
	f = finding(pc.ra, ADV_ONLINE_COMPILE);
	assert_non_null(f);
	assert_false(f->triggered);
	assert_true(tu_close(f->value, 0.1, 1e-9, 1e-9));
	planted_free(&pc);
}

/* A 100 us Cast on AI_CPU beside 900 us of AI Core work: 10 % of device busy. */
static void test_aicpu(void **state)
{
	(void)state;
	struct planted pc;
	planted_load(&pc, "d,MatMul,0,900 d,Cast/AI_CPU,900,100");
	const struct advice_finding *f = finding(pc.ra, ADV_AICPU);
	assert_non_null(f);
	assert_true(f->triggered);
	assert_int_equal(f->count, 1);
	assert_int_equal(f->total_ns, US(100));
	assert_true(tu_close(f->value, 10.0, 1e-9, 1e-9));
	assert_non_null(strstr(f->evidence, "top: Cast 100.0 us"));
	assert_event_named(&pc, f, "Cast");
	planted_free(&pc);
	/* absent: the same Cast on AI Core */
	planted_load(&pc, "d,MatMul,0,900 d,Cast,900,100");
	assert_null(finding(pc.ra, ADV_AICPU));
	planted_free(&pc);
	/* absent: an MC2 kernel's AI CPU part drives communication, it is no slow operator */
	planted_load(&pc, "d,MatMul,0,900 d,MatmulAllReduceAicpu/AI_CPU,900,100");
	assert_null(finding(pc.ra, ADV_AICPU));
	planted_free(&pc);
}

/* TransData tasks: 2 x 50 us of 1000 us device busy is 10 %; a 1 us one in 1000 us is not
 * a problem. */
static void test_transdata(void **state)
{
	(void)state;
	struct planted pc;
	planted_load(&pc, "d,MatMul,0,450 d,trans_TransData_1,450,50 d,MatMul,500,450 "
			  "d,aclnnMaxPool2dWithMask_TransDataSpecial_TransData,950,50");
	const struct advice_finding *f = finding(pc.ra, ADV_TRANSDATA);
	assert_non_null(f);
	assert_true(f->triggered);
	assert_int_equal(f->count, 2);
	assert_true(tu_close(f->value, 10.0, 1e-9, 1e-9));
	assert_string_equal(f->bucket, "compute");
	assert_event_named(&pc, f, "TransData");
	planted_free(&pc);
	planted_load(&pc, "d,MatMul,0,999 d,trans_TransData_1,999,1");
	f = finding(pc.ra, ADV_TRANSDATA);
	assert_non_null(f);
	assert_false(f->triggered);
	planted_free(&pc);
	planted_load(&pc, "d,MatMul,0,1000");
	assert_null(finding(pc.ra, ADV_TRANSDATA));
	planted_free(&pc);
}

/* n kernels of kernel_us every 20 us; with host ops covering the gaps (the device waits for
 * dispatch) or not. */
static char *storm_spec(int n, double kernel_us, bool host)
{
	char *s = xstrdup("");
	for (int i = 0; i < n; i++) {
		char *next = host ? xasprintf("%s d,Add,%d,%.1f h,aten::add,%.1f,%.1f", s, i * 20, kernel_us,
					      i * 20 + kernel_us, 20 - kernel_us)
				  : xasprintf("%s d,Add,%d,%.1f", s, i * 20, kernel_us);
		free(s);
		s = next;
	}
	return s;
}

/* 200 kernels of 5 us, each followed by 15 us of device idle inside a host op: all kernels
 * small and the host_dispatch bucket holds 199 x 15 us (the last gap is after the last
 * kernel, the window's edge). Without the host ops the device idles for no dispatch, and
 * with 50 us kernels none is small. */
static void test_dispatch_storm(void **state)
{
	(void)state;
	struct planted pc;
	char *spec = storm_spec(200, 5, true);
	planted_load(&pc, spec);
	free(spec);
	const struct advice_finding *f = finding(pc.ra, ADV_DISPATCH_STORM);
	assert_non_null(f);
	assert_true(f->triggered);
	assert_int_equal(f->count, 200);
	assert_true(tu_close(f->value, 100.0, 1e-9, 1e-9));
	assert_int_equal(f->exposed_ns, US(199 * 15));
	assert_int_equal(pc.ra->attr.ns[ATTR_HOST_DISPATCH], f->exposed_ns);
	assert_event_named(&pc, f, "Add");
	planted_free(&pc);
	spec = storm_spec(200, 5, false);
	planted_load(&pc, spec);
	free(spec);
	f = finding(pc.ra, ADV_DISPATCH_STORM);
	assert_non_null(f);
	assert_false(f->triggered); /* small, but the device does not wait for the host */
	planted_free(&pc);
	spec = storm_spec(200, 19, true);
	planted_load(&pc, spec);
	free(spec);
	assert_null(finding(pc.ra, ADV_DISPATCH_STORM));
	planted_free(&pc);
}

/* A stream sync that outlasts the device's work by 100 us in a 1000 us window: 10 %
 * exposed. Under device work it blocks nothing the device could do: 0 % exposed. */
static void test_stream_sync(void **state)
{
	(void)state;
	struct planted pc;
	planted_load(&pc, "d,MatMul,0,500 a,AscendCL@aclrtSynchronizeStreamWithTimeout,400,200 d,Add,600,400");
	const struct advice_finding *f = finding(pc.ra, ADV_STREAM_SYNC);
	assert_non_null(f);
	assert_true(f->triggered);
	assert_int_equal(f->count, 1);
	assert_int_equal(f->total_ns, US(200));
	assert_int_equal(f->exposed_ns, US(100));
	assert_true(tu_close(f->value, 10.0, 1e-9, 1e-9));
	assert_event_named(&pc, f, "Synchronize");
	/* the category table flags any *synchronize* host call a sync: host_sync holds it */
	assert_int_equal(f->host_ns[0], US(100));
	assert_int_equal(pc.ra->attr.ns[ATTR_HOST_SYNC], US(100));
	assert_string_equal(f->bucket, "host_sync");
	planted_free(&pc);
	/* a sync inside a framework op: the sync layer comes first, so still host_sync */
	planted_load(&pc, "d,MatMul,0,500 h,aten::add,380,240 a,AscendCL@aclrtSynchronizeDevice,400,200 "
			  "d,Add,620,380");
	f = finding(pc.ra, ADV_STREAM_SYNC);
	assert_non_null(f);
	assert_true(f->triggered);
	assert_int_equal(f->exposed_ns, US(100));
	assert_int_equal(f->host_ns[0], US(100));
	assert_int_equal(f->host_ns[2], 0);
	assert_int_equal(pc.ra->attr.ns[ATTR_HOST_DISPATCH], US(20)); /* aten::add after the sync */
	planted_free(&pc);
	planted_load(&pc, "d,MatMul,0,500 a,AscendCL@aclrtSynchronizeStream,100,200 d,Add,500,500");
	f = finding(pc.ra, ADV_STREAM_SYNC);
	assert_non_null(f);
	assert_false(f->triggered);
	assert_int_equal(f->exposed_ns, 0);
	planted_free(&pc);
}

/* GC inside a ProfilerStep: 100 us of a 1000 us step is 10 %. The same GC between two steps
 * is in the steps' span, as it is without the markers (steps cut at the idle gap it makes);
 * before the first step it is in none. */
static void test_gc_in_steps(void **state)
{
	(void)state;
	struct planted pc;
	planted_load(&pc, "h,ProfilerStep#1,0,1000 d,MatMul,0,1000 g,GC,300,100 h,ProfilerStep#2,1200,1000 "
			  "d,MatMul,1200,1000");
	assert_int_equal(pc.ra->n_steps, 2);
	const struct advice_finding *f = finding(pc.ra, ADV_GC);
	assert_non_null(f);
	assert_true(f->triggered);
	assert_int_equal(f->count, 1);
	assert_int_equal(f->total_ns, US(100));
	assert_event_named(&pc, f, "GC");
	assert_int_equal(f->exposed_ns, 0); /* the device computes meanwhile */
	assert_int_equal(pc.ra->advice_status[ADV_GC], ADV_STATUS_TRIGGERED);
	planted_free(&pc);
	/* the same GC with the device idle: its 100 us are the host_python bucket's */
	planted_load(&pc, "h,ProfilerStep#1,0,1000 d,MatMul,0,300 g,GC,300,100 d,MatMul,400,600");
	f = finding(pc.ra, ADV_GC);
	assert_non_null(f);
	assert_int_equal(f->exposed_ns, US(100));
	assert_int_equal(f->host_ns[3], US(100));
	assert_int_equal(pc.ra->attr.ns[ATTR_HOST_PYTHON], US(100));
	assert_string_equal(f->bucket, "host_python");
	planted_free(&pc);
	/* three steps of twelve 80 us kernels 5 us apart, 300 us between steps, GC in the first
	 * gap: with ProfilerStep marks, then without (steps cut at the gaps) */
	for (int marked = 1; marked >= 0; marked--) {
		struct sbuf sb = {0};
		for (int st = 0; st < 3; st++) {
			int t0 = st * (12 * 85 + 295);
			if (marked)
				sbuf_addf(&sb, "h,ProfilerStep#%d,%d,%d ", st + 1, t0, 12 * 85 - 5);
			for (int k = 0; k < 12; k++)
				sbuf_addf(&sb, "d,MatMul,%d,80 ", t0 + k * 85);
		}
		sbuf_addf(&sb, "g,GC,%d,100", 12 * 85 + 50);
		planted_load(&pc, sb.buf);
		free(sb.buf);
		assert_int_equal(pc.ra->n_steps, 3);
		f = finding(pc.ra, ADV_GC);
		assert_non_null(f);
		assert_int_equal(f->count, 1);
		assert_int_equal(f->total_ns, US(100));
		assert_int_equal(f->exposed_ns, US(100)); /* the device idles between the steps */
		assert_true(f->triggered);
		planted_free(&pc);
	}
	/* before the first step: outside the steps' span */
	planted_load(&pc, "g,GC,0,100 h,ProfilerStep#1,200,1000 d,MatMul,200,1000 h,ProfilerStep#2,1200,1000 "
			  "d,MatMul,1200,1000");
	f = finding(pc.ra, ADV_GC);
	assert_non_null(f);
	assert_int_equal(f->count, 0);
	assert_false(f->triggered);
	planted_free(&pc);
}

/* The real level1 capture, both ranks: the figures counted from its trace with Python. */
static void test_real_level1(void **state)
{
	(void)state;
	TU_REAL_OR_SKIP(dir, "msinsight/test/data/pytorch/text/level1");
	struct capture *cap = capture_open(dir, NULL);
	capture_load(cap);
	struct analysis *an = analysis_run(cap);
	assert_int_equal(an->n_ranks, 2);
	const struct rank_analysis *ra = &an->ranks[0];
	const struct advice_finding *c = finding(ra, ADV_ONLINE_COMPILE), *t = finding(ra, ADV_TRANSDATA);
	assert_non_null(c);
	assert_non_null(t);
	assert_int_equal(c->count, 19);
	assert_true(tu_close((double)c->total_ns / 1e6, 14.04923, 0, 1e-6));
	assert_int_equal(t->count, 57);
	assert_true(tu_close((double)t->total_ns / 1e6, 1.4232083, 0, 3e-5));
	assert_true(c->triggered && t->triggered);
	assert_null(finding(ra, ADV_AICPU)); /* no AI_CPU task type in the trace */
	/* every rule has a status: the two findings triggered, AI CPU checked with no instance;
	 * level1 records no GC events, so the GC rule is not applicable and says why */
	assert_int_equal(ra->advice_status[ADV_ONLINE_COMPILE], ADV_STATUS_TRIGGERED);
	assert_int_equal(ra->advice_status[ADV_TRANSDATA], ADV_STATUS_TRIGGERED);
	assert_int_equal(ra->advice_status[ADV_AICPU], ADV_STATUS_CHECKED);
	assert_int_equal(ra->advice_status[ADV_GC], ADV_STATUS_NOT_APPLICABLE);
	assert_non_null(strstr(ra->advice_reason[ADV_GC], "gc_detect_threshold"));
	for (int r = 0; r < ADV_COUNT; r++)
		assert_true(ra->advice_status[r] != ADV_STATUS_UNKNOWN);
	analysis_free(an);
	capture_free(cap);
	free(dir);
}

/* The real level 0, 1 and 2 captures (text and Db) give the three sequence rules a status
 * on every rank. Level 1 and 2 hold the same four all-reduces: their HCCS Size Distribution
 * (14 transfers each; read with python from communication.json) is 2.064384 MB x12 +
 * 1.937312 MB x2, 8.404992 x12 + 8.290304 x2, 18.890752 x12 + 18.776064 x2, 1.245184 x12 +
 * 1.162496 x2: 42 of 56 under 16 MB, and 1937312 and 1162496 bytes are no multiple of 512
 * (4 transfers), all among the small ones: 75 %. The Db export gives the same counts. */
static void test_real_levels(void **state)
{
	(void)state;
	static const char *const levels[] = {"text/level0", "text/level1", "db/level0", "db/level1", "db/level2"};
	for (size_t l = 0; l < sizeof levels / sizeof levels[0]; l++) {
		char rel[128];
		snprintf(rel, sizeof rel, "msinsight/test/data/pytorch/%s", levels[l]);
		TU_REAL_OR_SKIP(dir, rel);
		struct capture *cap = capture_open(dir, NULL);
		capture_load(cap);
		struct analysis *an = analysis_run(cap);
		assert_int_equal(an->n_ranks, 2);
		bool level0 = strstr(levels[l], "level0") != NULL;
		for (size_t i = 0; i < an->n_ranks; i++) {
			const struct rank_analysis *ra = &an->ranks[i];
			for (int r = ADV_SMALL_TRANSFERS; r <= ADV_AFFINITY_API; r++)
				assert_true(ra->advice_status[r] != ADV_STATUS_UNKNOWN);
			const struct advice_finding *f = finding(ra, ADV_SMALL_TRANSFERS);
			if (level0) {
				assert_null(f);
				assert_int_equal(ra->advice_status[ADV_SMALL_TRANSFERS], ADV_STATUS_NOT_APPLICABLE);
				continue;
			}
			assert_non_null(f);
			assert_int_equal(f->count, 42);
			assert_true(tu_close(f->value, 75.0, 0, 1e-9));
			assert_non_null(strstr(f->evidence, "42 of 56 transfers in 4 collectives"));
			assert_non_null(strstr(f->evidence, "; 4 not a multiple of 512 bytes"));
		}
		analysis_free(an);
		capture_free(cap);
		free(dir);
	}
}

/* test_rank_0 has no trace: its kernel table's two AI_CPU Cast rows (72.1612 and 72.8611
 * us, lines 9 and 12) over its 27132.428 us of device busy are 0.53 %: seen, below 1 %; the
 * finding names the longer row's line and its start. */
static void test_real_kernel_table(void **state)
{
	(void)state;
	TU_REAL_OR_SKIP(dir, "msinsight/server/src/test/test_data/test_rank_0");
	struct capture *cap = capture_open(dir, NULL);
	capture_load(cap);
	struct analysis *an = analysis_run(cap);
	const struct rank_analysis *ra = &an->ranks[0];
	assert_false(ra->has_trace);
	const struct advice_finding *f = finding(ra, ADV_AICPU);
	assert_non_null(f);
	assert_int_equal(f->count, 2);
	assert_int_equal(f->total_ns, 72161 + 72861); /* each rounded to the ns */
	assert_true(tu_close(f->value, 100.0 * 145.0223 / 27132.428, 1e-4, 0));
	assert_false(f->triggered);
	assert_int_equal(f->csv_line, 12);
	assert_int_equal(f->event_end - f->event_ts, 72861);
	assert_true(f->event == UINT32_MAX);
	assert_non_null(strstr(f->evidence, "top: trans_Cast_15"));
	/* the kernel table alone: the device rules checked, the host rules not applicable */
	assert_int_equal(ra->advice_status[ADV_AICPU], ADV_STATUS_CHECKED);
	assert_int_equal(ra->advice_status[ADV_TRANSDATA], ADV_STATUS_CHECKED);
	static const enum advice_rule_id host[] = {ADV_ONLINE_COMPILE, ADV_DISPATCH_STORM, ADV_STREAM_SYNC, ADV_GC};
	for (size_t i = 0; i < sizeof host / sizeof host[0]; i++) {
		assert_int_equal(ra->advice_status[host[i]], ADV_STATUS_NOT_APPLICABLE);
		assert_non_null(strstr(ra->advice_reason[host[i]], "no trace"));
	}
	analysis_free(an);
	capture_free(cap);
	free(dir);
}

/* The environment the process ran with, from profiler_metadata.json: the generator plants
 * ASCEND_LAUNCH_BLOCKING=1 and an allocator setting; the rule names the first, quotes the
 * second as context, and is triggered on every rank. Without the plant it is checked (the
 * watched variables are all empty); a capture without the file says not applicable. */
static void test_env_variables(void **state)
{
	(void)state;
	struct tu_capture c;
	tu_capture_load(&c, "--ranks 2 --steps 4 --env ASCEND_LAUNCH_BLOCKING=1 --env "
			    "PYTORCH_NPU_ALLOC_CONF=expandable_segments:True",
			true);
	for (size_t i = 0; i < c.an->n_ranks; i++) {
		const struct rank_analysis *ra = &c.an->ranks[i];
		const struct advice_finding *f = finding(ra, ADV_ENV_VARIABLES);
		assert_non_null(f);
		assert_true(f->triggered);
		assert_int_equal(f->count, 1);
		assert_int_equal(ra->advice_status[ADV_ENV_VARIABLES], ADV_STATUS_TRIGGERED);
		assert_non_null(strstr(f->evidence, "ASCEND_LAUNCH_BLOCKING=1"));
		assert_non_null(strstr(f->evidence, "also set: PYTORCH_NPU_ALLOC_CONF=expandable_segments:True"));
	}
	tu_capture_free(&c);
	tu_capture_load(&c, "--ranks 2 --steps 4 --env ASCEND_GLOBAL_LOG_LEVEL=3", true);
	for (size_t i = 0; i < c.an->n_ranks; i++) {
		assert_null(finding(&c.an->ranks[i], ADV_ENV_VARIABLES)); /* level 3 (error) costs nothing */
		assert_int_equal(c.an->ranks[i].advice_status[ADV_ENV_VARIABLES], ADV_STATUS_CHECKED);
	}
	tu_capture_free(&c);
	/* a kernel table alone, no metadata beside it */
	char *dir = tu_real("msinsight/server/src/test/test_data/test_rank_0");
	if (!dir)
		return;
	struct capture *cap = capture_open(dir, NULL);
	capture_load(cap);
	struct analysis *an = analysis_run(cap);
	assert_int_equal(an->ranks[0].advice_status[ADV_ENV_VARIABLES], ADV_STATUS_NOT_APPLICABLE);
	assert_non_null(strstr(an->ranks[0].advice_reason[ADV_ENV_VARIABLES], "profiler_metadata.json"));
	analysis_free(an);
	capture_free(cap);
	free(dir);
}

/* A throttled AI Core: the generator plants 800 MHz (of 1800) over the middle 30 % of each
 * rank's span (its routine 1650 MHz dips stay above 90 % and count for nothing). The rule
 * finds that share of the window, one stretch, and a compute kernel inside it to show;
 * without the plant it is checked and finds nothing. */
static void test_aicore_freq(void **state)
{
	(void)state;
	struct tu_capture c;
	tu_capture_load(&c, "--steps 20 --freq-drop 30", true);
	const struct rank_analysis *ra = &c.an->ranks[0];
	const struct advice_finding *f = finding(ra, ADV_AICORE_FREQ);
	assert_non_null(f);
	assert_true(f->triggered);
	assert_int_equal(f->count, 1);
	/* 30 % of the counters' span, which is the window less its few edge microseconds */
	assert_true(f->value > 27.0 && f->value < 31.0);
	assert_true(f->event != UINT32_MAX && f->event_end > f->event_ts);
	assert_non_null(strstr(f->evidence, "lowest 800 MHz"));
	assert_int_equal(ra->advice_status[ADV_AICORE_FREQ], ADV_STATUS_TRIGGERED);
	tu_capture_free(&c);
	tu_capture_load(&c, "--steps 20", true);
	assert_null(finding(&c.an->ranks[0], ADV_AICORE_FREQ));
	assert_int_equal(c.an->ranks[0].advice_status[ADV_AICORE_FREQ], ADV_STATUS_CHECKED);
	tu_capture_free(&c);
}

/* Every collective sends --packet-bytes to each peer, so communication.json's Size
 * Distribution holds that one size: 1000 bytes is under 16 MB and not a multiple of 512, so
 * every transfer the truth counts (comm.<r>.packets) is small and misaligned; 32 MiB is
 * neither, and the rule checks them and finds nothing. */
static void test_small_transfers(void **state)
{
	(void)state;
	struct tu_capture c;
	tu_capture_load(&c, "--ranks 2 --steps 6 --comm --packet-bytes 1000", true);
	assert_int_equal(tu_truth_int(c.truth, "comm.packet_bytes"), 1000);
	for (size_t i = 0; i < c.an->n_ranks; i++) {
		const struct rank_analysis *ra = &c.an->ranks[i];
		long long packets = tu_truth_int(c.truth, "comm.%d.packets", ra->rank);
		const struct advice_finding *f = finding(ra, ADV_SMALL_TRANSFERS);
		assert_non_null(f);
		assert_true(packets > 0);
		assert_int_equal(f->count, packets);
		assert_true(f->triggered && tu_close(f->value, 100.0, 0, 1e-9));
		char want[96];
		snprintf(want, sizeof want, "%lld not a multiple of 512 bytes", packets);
		assert_non_null(strstr(f->evidence, want));
		assert_non_null(f->event_name); /* the collective with the most of them */
		assert_int_equal(ra->advice_status[ADV_SMALL_TRANSFERS], ADV_STATUS_TRIGGERED);
	}
	tu_capture_free(&c);
	tu_capture_load(&c, "--ranks 2 --steps 6 --comm --packet-bytes 33554432", true);
	for (size_t i = 0; i < c.an->n_ranks; i++) {
		const struct advice_finding *f = finding(&c.an->ranks[i], ADV_SMALL_TRANSFERS);
		assert_non_null(f); /* seen, below the threshold: 0 % */
		assert_false(f->triggered);
		assert_int_equal(f->count, 0);
		assert_int_equal(c.an->ranks[i].advice_status[ADV_SMALL_TRANSFERS], ADV_STATUS_CHECKED);
	}
	tu_capture_free(&c);
	/* one rank, no communication.json: the rule says why it cannot look */
	tu_capture_load(&c, "--steps 4", true);
	assert_int_equal(c.an->ranks[0].advice_status[ADV_SMALL_TRANSFERS], ADV_STATUS_NOT_APPLICABLE);
	assert_non_null(c.an->ranks[0].advice_reason[ADV_SMALL_TRANSFERS]);
	tu_capture_free(&c);
}

/* The generator's layers run Add, RmsNorm and Silu, Mul in a row; the truth counts those
 * pairs over the plan (fusable.*: compute units in order; affinity.silu_mul: the framework
 * ops in order). The rules find exactly those counts, per step; with --fused the model
 * calls npu_add_rms_norm and npu_swiglu, and both rules check and find none. */
static void test_fusable_and_affinity(void **state)
{
	(void)state;
	static const char *const marks[] = {"engine", "profilerstep", "none"};
	for (size_t m = 0; m < sizeof marks / sizeof marks[0]; m++) {
		char args[96];
		snprintf(args, sizeof args, "--ranks 2 --steps 12 --step-marks %s", marks[m]);
		struct tu_capture c;
		tu_capture_load(&c, args, true);
		long long add_rms = tu_truth_int(c.truth, "fusable.add_rms_norm"),
			  swiglu = tu_truth_int(c.truth, "fusable.swiglu"),
			  silu_mul = tu_truth_int(c.truth, "affinity.silu_mul");
		assert_true(add_rms > 0 && swiglu > 0 && silu_mul > 0);
		for (size_t i = 0; i < c.an->n_ranks; i++) {
			const struct rank_analysis *ra = &c.an->ranks[i];
			const struct advice_finding *f = finding(ra, ADV_FUSABLE_OPS), *a = finding(ra, ADV_AFFINITY_API);
			assert_non_null(f);
			assert_non_null(a);
			assert_int_equal(f->count, add_rms + swiglu);
			assert_int_equal(a->count, silu_mul);
			assert_true(ra->n_steps > 0); /* found without markers too */
			assert_true(tu_close(f->value, (double)(add_rms + swiglu) / (double)ra->n_steps, 1e-12, 0));
			assert_true(f->triggered && a->triggered);
			char want[64];
			snprintf(want, sizeof want, "Add+RmsNorm %lld (npu_add_rms_norm)", add_rms);
			assert_non_null(strstr(f->evidence, want));
			snprintf(want, sizeof want, "Silu+Mul %lld (npu_swiglu)", swiglu);
			assert_non_null(strstr(f->evidence, want));
			/* the event shown is the first op of an instance */
			assert_true(f->event != UINT32_MAX && a->event != UINT32_MAX);
			const char *fn = store_ev_name(&c.cap->ranks[i].store, f->event);
			assert_true(!strcmp(fn, "Add") || !strcmp(fn, "Silu"));
			assert_string_equal(store_ev_name(&c.cap->ranks[i].store, a->event), "aten::silu");
		}
		tu_capture_free(&c);
	}
	/* the rotary embedding built from small ops: Neg, ConcatD, Mul kernels (npu_rotary_mul)
	 * and aten::neg, aten::cat on the host, as many as the truth counts */
	struct tu_capture c;
	tu_capture_load(&c, "--ranks 2 --steps 8 --unfused-rope", true);
	long long rotary = tu_truth_int(c.truth, "fusable.rotary"), neg_cat = tu_truth_int(c.truth, "affinity.neg_cat");
	assert_true(rotary > 0 && neg_cat > 0);
	for (size_t i = 0; i < c.an->n_ranks; i++) {
		const struct rank_analysis *ra = &c.an->ranks[i];
		const struct advice_finding *f = finding(ra, ADV_FUSABLE_OPS), *a = finding(ra, ADV_AFFINITY_API);
		assert_non_null(f);
		assert_non_null(a);
		assert_int_equal(f->count, tu_truth_int(c.truth, "fusable.add_rms_norm") +
						   tu_truth_int(c.truth, "fusable.swiglu") + rotary);
		assert_int_equal(a->count, tu_truth_int(c.truth, "affinity.silu_mul") + neg_cat);
		char want[64];
		snprintf(want, sizeof want, "Neg+Concat+Mul %lld (npu_rotary_mul)", rotary);
		assert_non_null(strstr(f->evidence, want));
		snprintf(want, sizeof want, "aten::neg+aten::cat %lld (npu_rotary_mul)", neg_cat);
		assert_non_null(strstr(a->evidence, want));
	}
	tu_capture_free(&c);
	tu_capture_load(&c, "--ranks 2 --steps 12 --fused", true);
	assert_int_equal(tu_truth_int(c.truth, "fusable.add_rms_norm") + tu_truth_int(c.truth, "fusable.swiglu"), 0);
	for (size_t i = 0; i < c.an->n_ranks; i++) {
		const struct rank_analysis *ra = &c.an->ranks[i];
		assert_null(finding(ra, ADV_FUSABLE_OPS));
		assert_null(finding(ra, ADV_AFFINITY_API));
		assert_int_equal(ra->advice_status[ADV_FUSABLE_OPS], ADV_STATUS_CHECKED);
		assert_int_equal(ra->advice_status[ADV_AFFINITY_API], ADV_STATUS_CHECKED);
	}
	tu_capture_free(&c);
}

static const struct doctor_item *doctor_has(const struct analysis *an, const char *what)
{
	for (size_t i = 0; i < an->n_doctor; i++)
		if (!strcmp(an->doctor[i].what_missing, what))
			return &an->doctor[i];
	return NULL;
}

/* The item is there, lacking on n ranks. */
static const struct doctor_item *doctor_on(const struct analysis *an, const char *what, size_t n)
{
	const struct doctor_item *d = doctor_has(an, what);
	assert_non_null(d);
	assert_int_equal(d->ranks, n);
	return d;
}

/* The capture doctor on planted captures: the generator writes profiler_info with
 * with_stack only under --call-stack, record_shapes false under --default-export (whose
 * steps, without markers or a step table, are inferred from repeating kernels), and
 * communication.json only under --comm. Each condition planted is named with its setting
 * on every rank; with all of them switched on the doctor has nothing to say. --summary's
 * (no analysis) is the same less the step check. */
static void test_doctor(void **state)
{
	(void)state;
	struct tu_capture c;
	tu_capture_load(&c, "--ranks 2 --steps 6", true);
	doctor_on(c.an, "communication.json", 2);
	assert_string_equal(doctor_on(c.an, "call stacks (with_stack)", 2)->setting, "with_stack=True");
	assert_null(doctor_has(c.an, "Input Dims on framework ops (record_shapes)"));
	assert_null(doctor_has(c.an, "step markers (a schedule)"));
	assert_null(doctor_has(c.an, "PMU columns in kernel_details.csv (aic_metrics)"));
	assert_null(doctor_has(c.an, "kernel_details.csv"));
	tu_capture_free(&c);

	tu_capture_load(&c, "--ranks 2 --steps 6 --comm --call-stack", true);
	assert_int_equal(c.an->n_doctor, 0);
	tu_capture_free(&c);

	tu_capture_load(&c, "--ranks 2 --steps 6 --comm --default-export --step-trace none", true);
	doctor_on(c.an, "Input Dims on framework ops (record_shapes)", 2);
	doctor_on(c.an, "step markers (a schedule)", 2);
	assert_null(doctor_has(c.an, "communication.json"));
	struct doctor_item *sum;
	size_t n = doctor_check(c.cap, NULL, &sum);
	assert_int_equal(n, c.an->n_doctor - 1); /* no step check without the analysis */
	for (size_t i = 0; i < n; i++)
		assert_string_not_equal(sum[i].what_missing, "step markers (a schedule)");
	free(sum);
	tu_capture_free(&c);
}

/* A generated capture (in a temp dir) without its kernel_details.csv: the doctor names the
 * missing table, and for a graph-mode capture (aclmdlRIExecute on the host) says why it
 * matters there; with the table there, neither. */
static void doctor_without_kernels(const char *args, const char *want, const char *not_want)
{
	char *dir = tu_generate(args);
	assert_int_equal(tu_sh("find '%s' -name kernel_details.csv | grep -q . && find '%s' -name kernel_details.csv -delete",
			       dir, dir),
			 0);
	struct capture *cap = capture_open(dir, NULL);
	capture_load(cap);
	struct analysis *an = analysis_run(cap);
	doctor_on(an, want, 1);
	assert_null(doctor_has(an, not_want));
	analysis_free(an);
	capture_free(cap);
	*strrchr(dir, '/') = '\0'; /* the temp dir holding cap/ */
	tu_rmtree(dir);
	free(dir);
}

static void test_doctor_kernel_table(void **state)
{
	(void)state;
	doctor_without_kernels("--steps 4", "kernel_details.csv", "kernel_details.csv in a graph-mode capture");
	doctor_without_kernels("--steps 4 --shape vllm,graph", "kernel_details.csv in a graph-mode capture",
			       "kernel_details.csv");
	struct tu_capture c;
	tu_capture_load(&c, "--steps 4 --shape vllm,graph", true);
	assert_null(doctor_has(c.an, "kernel_details.csv in a graph-mode capture"));
	assert_null(doctor_has(c.an, "kernel_details.csv"));
	tu_capture_free(&c);
}

/* The real level 0 capture has no PMU columns and no communication.json on its two ranks;
 * level 1 has both: the doctor names the first two only there. */
static void test_doctor_real(void **state)
{
	(void)state;
	static const char *const levels[] = {"text/level0", "text/level1"};
	for (size_t l = 0; l < 2; l++) {
		char rel[128];
		snprintf(rel, sizeof rel, "msinsight/test/data/pytorch/%s", levels[l]);
		TU_REAL_OR_SKIP(dir, rel);
		struct capture *cap = capture_open(dir, NULL);
		capture_load(cap);
		struct analysis *an = analysis_run(cap);
		if (l == 0) {
			doctor_on(an, "PMU columns in kernel_details.csv (aic_metrics)", 2);
			doctor_on(an, "communication.json", 2);
		} else {
			assert_null(doctor_has(an, "PMU columns in kernel_details.csv (aic_metrics)"));
			assert_null(doctor_has(an, "communication.json"));
		}
		analysis_free(an);
		capture_free(cap);
		free(dir);
	}
}

/* The same host-bound plant (40 steps: 30 us of aten ops on the host with the device
 * idle, then a 20 us kernel) under three sets of kernel names: serving kernels
 * (FusedInferAttentionScore), backward kernels (MatMulGrad) and neither. Host dispatch
 * triggers in all three; its advice follows the workload, and an unknown workload gets no
 * serving advice (prefill, async scheduling, requests) stated as if it served. */
static void plant_host_bound(struct planted *pc, const char *kernel)
{
	struct sbuf sb = SBUF_INIT;
	for (int k = 0; k < 40; k++)
		sbuf_addf(&sb, "h,aten::linear,%d,30 d,%s,%d,20 ", k * 50, kernel, k * 50 + 30);
	planted_load(pc, sbuf_str(&sb));
	sbuf_free(&sb);
}

static void test_host_advice_follows_workload(void **state)
{
	(void)state;
	static const struct {
		const char *kernel;
		enum workload w;
	} cases[] = {{"FusedInferAttentionScore", WORKLOAD_INFERENCE},
		     {"MatMulGrad", WORKLOAD_TRAINING},
		     {"MatMulV2", WORKLOAD_UNKNOWN}};
	for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
		struct planted pc;
		plant_host_bound(&pc, cases[i].kernel);
		const struct rank_analysis *ra = pc.ra;
		assert_int_equal(ra->workload, cases[i].w);
		const struct bottleneck *b = &ra->bn[BN_HOST_DISPATCH];
		assert_true(b->score >= 40);
		assert_true(ra->attr.ns[ATTR_HOST_DISPATCH] >= US(39 * 30));
		bool serving = strstr(b->advice, "async scheduling") || strstr(b->advice, "prefill") ||
			       strstr(b->advice, "ACLGraph");
		assert_int_equal(serving, cases[i].w == WORKLOAD_INFERENCE);
		if (cases[i].w == WORKLOAD_TRAINING)
			assert_non_null(strstr(b->advice, "data loader"));
		if (cases[i].w == WORKLOAD_UNKNOWN)
			assert_non_null(strstr(b->advice, "per-step Python and host ops"));
		planted_free(&pc);
	}
}

/* The device-idle gaps' causes (gaps.h) on a planted trace, each gap exact: GC with the
 * device idle is no_dispatch with host gc, a device notify wait is peer_wait, the time between
 * two ProfilerSteps between_steps, an .item with the device idle no_dispatch with host sync,
 * host work after the last kernel capture_edge; together the attribution's idle buckets. (Here
 * for the planted traces; test_gaps reads generated and real captures.) */
static void test_gap_causes(void **state)
{
	(void)state;
	struct planted pc;
	planted_load(&pc, "h,ProfilerStep#1,0,1000 h,ProfilerStep#2,1200,1000 d,MatMul,0,300 g,GC,300,100 "
			  "d,MatMul,400,200 d,Notify_Wait/NOTIFY_WAIT,600,100 d,MatMul,700,300 d,MatMul,1200,300 "
			  "h,aten::item,1500,200 d,MatMul,1700,500 h,aten::zeros,2200,100");
	const struct gap_analysis *g = &pc.ra->gaps;
	assert_int_equal(pc.ra->n_steps, 2);
	assert_int_equal(g->count, 5);
	assert_int_equal(g->total_ns, US(700));
	assert_int_equal(g->by_cause[GAP_NO_DISPATCH], US(300));
	assert_int_equal(g->no_dispatch_by_host[GAP_HOST_GC], US(100));
	assert_int_equal(g->no_dispatch_by_host[GAP_HOST_SYNC], US(200));
	assert_int_equal(g->by_cause[GAP_PEER_WAIT], US(100));
	assert_int_equal(g->by_cause[GAP_BETWEEN_STEPS], US(200));
	assert_int_equal(g->by_cause[GAP_CAPTURE_EDGE], US(100));
	static const enum attr_bucket idle[] = {ATTR_HOST_SYNC, ATTR_HOST_COPY, ATTR_HOST_DISPATCH,
						ATTR_HOST_PYTHON, ATTR_IDLE,      ATTR_EDGE_IDLE};
	assert_int_equal(attribution_sum(&pc.ra->attr, idle, 6), g->total_ns);
	/* the longest first, the earlier of equal ones first; each with its step */
	static const struct {
		int64_t start, dur;
		int32_t step;
		enum gap_cause cause;
	} want[] = {{US(1000), US(200), 1, GAP_BETWEEN_STEPS}, {US(1500), US(200), 1, GAP_NO_DISPATCH},
		    {US(300), US(100), 0, GAP_NO_DISPATCH},    {US(600), US(100), 0, GAP_PEER_WAIT}};
	for (size_t i = 0; i < 4; i++) {
		assert_int_equal(g->top[i].start - pc.ra->t0, want[i].start);
		assert_int_equal(g->top[i].dur, want[i].dur);
		assert_int_equal(g->top[i].step, want[i].step);
		assert_int_equal(g->top[i].cause, want[i].cause);
	}
	assert_int_equal(g->top[4].cause, GAP_CAPTURE_EDGE);
	planted_free(&pc);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_gap_causes),        cmocka_unit_test(test_env_variables),
		cmocka_unit_test(test_aicore_freq),       cmocka_unit_test(test_small_transfers),
		cmocka_unit_test(test_fusable_and_affinity), cmocka_unit_test(test_doctor),
		cmocka_unit_test(test_doctor_real),       cmocka_unit_test(test_doctor_kernel_table),
		cmocka_unit_test(test_online_compile), cmocka_unit_test(test_aicpu),
		cmocka_unit_test(test_transdata),      cmocka_unit_test(test_dispatch_storm),
		cmocka_unit_test(test_stream_sync),    cmocka_unit_test(test_gc_in_steps),
		cmocka_unit_test(test_host_advice_follows_workload),
		cmocka_unit_test(test_real_level1),    cmocka_unit_test(test_real_kernel_table),
		cmocka_unit_test(test_real_levels),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
