/* SPDX-License-Identifier: MIT */
/* Steps and phases on the capture shapes vLLM-Ascend really writes (ascprof-gen --shape vllm:
 * no ProfilerStep, mstx, python_function or Input Dims) and on training: the steps found
 * and every step's phase against the planted truth, one test per phase signal (Stage text,
 * annotation ranges, decode-only kernels, attention shapes, duration clusters), and the
 * workload of generated and real training captures. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "analysis.h"
#include "category.h"
#include "testutil.h"

/* A generated capture, changed by the caller before it is loaded. */
static void load_generated(struct tu_capture *c, char *dir)
{
	c->dir = dir;
	c->cap = capture_open(dir, NULL);
	assert_true(c->cap->usable);
	capture_load(c->cap);
	c->an = analysis_run(c->cap);
	c->truth = tu_truth_load(dir);
}

static char *rank_file(const struct tu_capture *c, int r, const char *name)
{
	char *p;
	if (asprintf(&p, "%s/%s/ASCEND_PROFILER_OUTPUT/%s", c->dir, tu_truth_str(c->truth, "rank.%d.dir", r),
	             name) < 0)
		return NULL;
	return p;
}

static enum phase truth_phase(const struct tu_truth *t, int r, size_t k)
{
	const char *p = tu_truth_str(t, "rank.%d.step.%zu.phase", r, k);
	return !strcmp(p, "prefill")  ? PHASE_PREFILL
	       : !strcmp(p, "decode") ? PHASE_DECODE
	       : !strcmp(p, "mixed")  ? PHASE_MIXED
	                              : PHASE_UNKNOWN;
}

/* As many steps as planted, each holding its planted device work: a step's window starts at
 * its first device task (steps from idle gaps or the op sequence) or before it (annotation
 * steps), within 1 us, and ends at or after its last (the marked shape's truth states no
 * device span per step: there, the count). */
static void check_steps(const struct tu_capture *c)
{
	for (size_t i = 0; i < c->an->n_ranks; i++) {
		const struct rank_analysis *ra = &c->an->ranks[i];
		int r = ra->rank;
		assert_int_equal(ra->n_steps, tu_truth_int(c->truth, "rank.%d.steps", r));
		for (size_t k = 0; k < ra->n_steps; k++) {
			const struct step *s = &ra->steps[k];
			if (tu_truth_int_or(c->truth, -1, "rank.%d.step.%zu.dev_start_ns", r, k) < 0)
				continue;
			long long ds = tu_truth_int(c->truth, "rank.%d.step.%zu.dev_start_ns", r, k);
			long long de = tu_truth_int(c->truth, "rank.%d.step.%zu.dev_end_ns", r, k);
			assert_true(s->has_window);
			if (!(s->win_start <= ds + 1000 && s->win_end >= de))
				fail_msg("rank %d step %zu: window [%lld, %lld), planted device work [%lld, "
				         "%lld]",
				         r, k, (long long)s->win_start, (long long)s->win_end, ds, de);
			if ((ra->step_source == STEP_SRC_IDLE_GAPS ||
			     ra->step_source == STEP_SRC_OP_SEQUENCE) &&
			    llabs((long long)s->start - ds) > 1000)
				fail_msg("rank %d step %zu starts at %lld, planted %lld", r, k,
				         (long long)s->start, ds);
		}
	}
}

/* Every step's phase as planted; returns how many steps each signal decided (all ranks). */
static void check_phases(const struct tu_capture *c, size_t per_signal[PHASE_SRC_COUNT])
{
	memset(per_signal, 0, PHASE_SRC_COUNT * sizeof *per_signal);
	for (size_t i = 0; i < c->an->n_ranks; i++) {
		const struct rank_analysis *ra = &c->an->ranks[i];
		assert_int_equal(ra->workload, WORKLOAD_INFERENCE);
		for (size_t k = 0; k < ra->n_steps; k++) {
			const struct step *s = &ra->steps[k];
			enum phase want = truth_phase(c->truth, ra->rank, k);
			if (s->phase != want)
				fail_msg("rank %d step %zu: %s from %s (%s: %s), planted %s", ra->rank, k,
				         result_phase_name(s->phase),
				         result_phase_signal_name(s->phase_source),
				         result_confidence_name(s->phase_conf), s->phase_evidence,
				         result_phase_name(want));
			per_signal[s->phase_source]++;
		}
		assert_true(ra->have[M_MIXED_STEPS]);
	}
}

/* Steps whose phase is not the planted one (unknown counts), and how many were planted. */
static size_t phase_errors(const struct tu_capture *c, size_t *steps)
{
	size_t wrong = 0;
	for (size_t i = 0; i < c->an->n_ranks; i++) {
		const struct rank_analysis *ra = &c->an->ranks[i];
		for (size_t k = 0; k < ra->n_steps; k++) {
			const struct step *s = &ra->steps[k];
			enum phase want = truth_phase(c->truth, ra->rank, k);
			if (s->phase != want && wrong++ < 3)
				print_message("rank %d step %zu: %s from %s (%s: %s), planted %s\n", ra->rank,
				              k, result_phase_name(s->phase),
				              result_phase_signal_name(s->phase_source),
				              result_confidence_name(s->phase_conf), s->phase_evidence,
				              result_phase_name(want));
		}
		*steps += ra->n_steps;
	}
	return wrong;
}

/* Every capture shape issue 34 names (vLLM-Ascend 0.7-0.9 eager, FusedInferAttentionScore in
 * every state, MLA, chunked prefill, ACLGraph FULL_AND_PIECEWISE: decode replayed by one
 * aclmdlRIExecuteAsync, its tasks under Model Id 1; and the marked shape), each with
 * ProfilerStep markers, without, and rewritten to vLLM-Ascend's default export, two seeds
 * on 2 and 4 ranks: the steps as planted in number and order, and at most 1 % of them read
 * as another phase than planted (unknown counts). The prefill steps of the eager and graph
 * shapes read as decode before (every one of them in some captures). */
static void test_every_shape(void **state)
{
	(void)state;
	static const char *const shapes[] = {
	        "--shape vllm",
	        "--shape vllm,short",
	        "--shape vllm,legacy",
	        "--shape vllm,mla",
	        "--shape vllm,mixed=4",
	        "--shape vllm,mla,mixed=4",
	        "--shape vllm,graph",
	        "--shape vllm,graph,mixed=4",
	        "--shape vllm,graph,mla,mixed=4",
	        "--shape vllm,annotate,mixed=4",
	        "--shape vllm,moe,mixed=4",
	        "--shape vllm,mla,moe,graph,mixed=4",
	        "--shape marked",
	};
	static const char *const exports[] = {"--step-marks profilerstep", "--step-marks none",
	                                      "--step-marks profilerstep --default-export"};
	for (size_t i = 0; i < sizeof shapes / sizeof shapes[0]; i++) {
		size_t steps = 0, wrong = 0;
		bool marked = !strcmp(shapes[i], "--shape marked");
		for (size_t e = 0; e < sizeof exports / sizeof exports[0]; e++)
			for (int seed = 1; seed <= 2; seed++) {
				char args[256];
				/* the marked shape's own markers are engine ops */
				const char *ex = marked && e == 0   ? ""
				                 : marked && e == 2 ? "--default-export"
				                                    : exports[e];
				snprintf(args, sizeof args,
				         "%s %s --steps 30 --prefill 8 --ops 40 --ranks %d --seed %d",
				         shapes[i], ex, 2 * seed, seed);
				struct tu_capture c;
				tu_capture_load(&c, args, true);
				check_steps(&c);
				wrong += phase_errors(&c, &steps);
				tu_capture_free(&c);
			}
		if (wrong * 100 > steps)
			fail_msg("%s: %zu of %zu steps read as another phase than planted", shapes[i], wrong,
			         steps);
	}
}

/* Where decode-only kernels mark decode, a kernel table without Input Shapes (a level that
 * writes none, renamed away on every rank) still reads every step: decode from the kernels,
 * the others from their absence, at most 1 % of steps wrong. Not decode is sure (medium);
 * prefill rather than mixed only where the step's attention reads less than half the decode
 * batch beside it reads (a mixed step reads that batch's cache), else the step says that
 * nothing separates the two (low). */
static void test_marking_kernels_without_shapes(void **state)
{
	(void)state;
	if (!tu_gen())
		skip();
	static const char *const shapes[] = {"vllm,legacy", "vllm,mla", "vllm,graph", "vllm,graph,short"};
	for (size_t i = 0; i < sizeof shapes / sizeof shapes[0]; i++) {
		size_t steps = 0, wrong = 0;
		for (int seed = 1; seed <= 2; seed++) {
			char args[160];
			snprintf(args, sizeof args,
			         "--shape %s --default-export --steps 30 --prefill 8 --ops 40 --ranks %d "
			         "--seed %d",
			         shapes[i], 2 * seed, seed);
			struct tu_capture c;
			c.dir = tu_generate(args);
			assert_int_equal(tu_sh("find '%s' -name kernel_details.csv -exec sed -i '1s/Input "
			                       "Shapes/Input Shapez/' {} +",
			                       c.dir),
			                 0);
			load_generated(&c, c.dir);
			check_steps(&c);
			wrong += phase_errors(&c, &steps);
			for (size_t r = 0; r < c.an->n_ranks; r++)
				for (size_t k = 0; k < c.an->ranks[r].n_steps; k++) {
					const struct step *s = &c.an->ranks[r].steps[k];
					assert_int_equal(s->phase_source, PHASE_SRC_KERNELS);
					if (s->phase == PHASE_DECODE)
						assert_int_equal(s->phase_conf, CONF_HIGH);
					else if (s->phase_conf == CONF_LOW)
						assert_non_null(strstr(s->phase_evidence, "prefill or mixed"));
					else
						assert_int_equal(s->phase_conf, CONF_MEDIUM);
				}
			tu_capture_free(&c);
		}
		if (wrong * 100 > steps)
			fail_msg("%s without shapes: %zu of %zu steps read as another phase than planted",
			         shapes[i], wrong, steps);
	}
}

/* A step whose attention is missing (a capture cut inside it, before its attention ran)
 * shows nothing by lacking the decode-only kernels: a decode step of a legacy capture with
 * its kernel table's attention rows deleted is read from its duration among the decode steps
 * (low), not as prefill from the missing PagedAttention. */
static void test_step_without_attention(void **state)
{
	(void)state;
	if (!tu_gen())
		skip();
	struct tu_capture c;
	c.dir = tu_generate("--shape vllm,legacy --steps 16 --prefill 4 --ops 40 --seed 4");
	c.truth = tu_truth_load(c.dir);
	size_t k = 1;
	while (truth_phase(c.truth, 0, k) != PHASE_DECODE)
		k++;
	long long ds = tu_truth_int(c.truth, "rank.0.step.%zu.dev_start_ns", k) / 1000 - 1;
	long long de = tu_truth_int(c.truth, "rank.0.step.%zu.dev_end_ns", k) / 1000 + 1;
	char *kt = rank_file(&c, 0, "kernel_details.csv");
	/* Name is the 2nd column, Start Time(us) the 6th */
	assert_int_equal(tu_sh("awk -F, '!($2 ~ /Attention/ && $6 >= %lld && $6 <= %lld)' '%s' > '%s.new' && "
	                       "! cmp -s '%s' '%s.new' && mv '%s.new' '%s'",
	                       ds, de, kt, kt, kt, kt, kt, kt),
	                 0);
	free(kt);
	tu_truth_free(c.truth);
	load_generated(&c, c.dir);
	const struct step *s = &c.an->ranks[0].steps[k];
	assert_int_equal(s->phase, PHASE_DECODE);
	assert_int_equal(s->phase_source, PHASE_SRC_CLUSTERS);
	assert_int_equal(s->phase_conf, CONF_LOW);
	size_t steps = 0;
	assert_int_equal(phase_errors(&c, &steps), 0);
	tu_capture_free(&c);
}

/* The default capture shape, several seeds: short prefills whose durations overlap the
 * decodes', mixed (chunked-prefill) steps, MoE (MC2) and MLA. Kernels decide the decode
 * steps, attention shapes the others; durations decide none. */
static void test_default_shape_seeds(void **state)
{
	(void)state;
	for (int seed = 1; seed <= 4; seed++) {
		char args[160];
		snprintf(args, sizeof args,
		         "--shape vllm,mla,moe,short,mixed=3 --steps 14 --prefill 4 --ranks 2 --seed %d",
		         seed);
		struct tu_capture c;
		tu_capture_load(&c, args, true);
		assert_int_equal(c.an->ranks[0].step_source, STEP_SRC_OP_SEQUENCE);
		check_steps(&c);
		size_t sig[PHASE_SRC_COUNT];
		check_phases(&c, sig);
		assert_int_equal(sig[PHASE_SRC_KERNELS] + sig[PHASE_SRC_SHAPES], 2 * 14);
		assert_true(sig[PHASE_SRC_KERNELS] > 0 && sig[PHASE_SRC_SHAPES] > 0);
		/* an MLA model splits decode parts off: prompts of several sequences are sure too */
		for (size_t i = 0; i < c.an->n_ranks; i++)
			for (size_t k = 0; k < c.an->ranks[i].n_steps; k++)
				assert_int_not_equal(c.an->ranks[i].steps[k].phase_conf, CONF_LOW);
		tu_capture_free(&c);
	}
}

/* Graph mode (ACLGraph FULL_AND_PIECEWISE): decode-only steps replay one graph (no host ops
 * or launch flows of their own) with PagedAttention, the others replay pieces between eager
 * attention calls and are never read as decode; steps still split at the device's idle gaps. */
static void test_graph_replays(void **state)
{
	(void)state;
	struct tu_capture c;
	tu_capture_load(&c, "--shape vllm,graph,short --steps 12 --prefill 3 --seed 11", true);
	check_steps(&c);
	size_t sig[PHASE_SRC_COUNT];
	check_phases(&c, sig);
	const struct rank_analysis *ra = &c.an->ranks[0];
	for (size_t k = 0; k < ra->n_steps; k++) {
		bool graph = tu_truth_int(c.truth, "rank.0.step.%zu.graph", k);
		/* one replay per full-graph step, one per piece of a piecewise one */
		assert_int_equal(ra->steps[k].graph_replays,
		                 tu_truth_int(c.truth, "rank.0.step.%zu.replays", k));
		if (graph) {
			assert_int_equal(ra->steps[k].phase_source, PHASE_SRC_KERNELS);
			assert_int_equal(ra->steps[k].phase_conf, CONF_HIGH);
		}
	}
	assert_non_null(strstr(ra->step_evidence, "replay a captured graph"));
	assert_true(sig[PHASE_SRC_KERNELS] == (size_t)tu_truth_int(c.truth, "rank.0.decode_steps"));
	/* a replay's device tasks carry its Model Id, the eager ones none (4294967295) */
	char *trace = rank_file(&c, 0, "trace_view.json");
	assert_int_equal(tu_sh("grep -q '\"Model Id\": 1,' '%s' && grep -q '\"Model Id\": 4294967295,' '%s'",
	                       trace, trace),
	                 0);
	free(trace);
	tu_capture_free(&c);
}

/* Steps without markers: with no host gap before decode steps the device barely idles
 * between graph replays (about 0.1 ms, under the idle-gap threshold), and the repeating op
 * sequence (embedding first, sampler last) still finds every step; without a sampler
 * kernel that closes every step, the idle gaps do (the host gap is there). */
static void test_steps_without_markers(void **state)
{
	(void)state;
	struct tu_capture c;
	tu_capture_load(&c, "--shape vllm,graph --host-gap-us 0 --steps 12 --prefill 2 --seed 3", true);
	assert_int_equal(c.an->ranks[0].step_source, STEP_SRC_OP_SEQUENCE);
	assert_int_equal(c.an->ranks[0].conf[M_STEPS], CONF_MEDIUM);
	check_steps(&c);
	size_t sig[PHASE_SRC_COUNT];
	check_phases(&c, sig);
	tu_capture_free(&c);
	tu_capture_load(&c, "--shape vllm --drop-op ArgMaxV2 --steps 12 --prefill 2 --seed 3", true);
	assert_int_equal(c.an->ranks[0].step_source, STEP_SRC_IDLE_GAPS);
	check_steps(&c);
	check_phases(&c, sig);
	tu_capture_free(&c);
}

/* A capture cut short ends inside a step: the op sequence keeps that partial step (an open
 * without its close) instead of giving up, at several cut points; a cut decode step is not
 * read as prefill for the PagedAttention it lost. */
static void test_op_sequence_partial_step(void **state)
{
	(void)state;
	static const char *const base = "--shape vllm,graph --host-gap-us 0 --steps 12 --prefill 2 --seed 3";
	static const int cuts_pct[] = {46, 61, 77}; /* of the whole trace */
	struct tu_capture whole; /* a cut capture states no per-step truth: the same one uncut does */
	tu_capture_load(&whole, base, false);
	char *trace = rank_file(&whole, 0, "trace_view.json");
	size_t size = 0;
	free(tu_read(trace, &size));
	free(trace);
	for (size_t i = 0; i < sizeof cuts_pct / sizeof cuts_pct[0]; i++) {
		char args[160];
		snprintf(args, sizeof args, "%s --truncate-at %zu", base, size * (size_t)cuts_pct[i] / 100);
		struct tu_capture c;
		tu_capture_load(&c, args, true);
		tu_truth_free(c.truth);
		c.truth = tu_truth_load(whole.dir);
		const struct rank_analysis *ra = &c.an->ranks[0];
		const struct rank_store *rs = &c.cap->ranks[0].store;
		int64_t last_kernel = INT64_MIN;
		for (size_t ev = 0; ev < rs->n_ev; ev++)
			if (ra->cls[ev].cat == CAT_COMPUTE && store_ts(rs, ev) > last_kernel)
				last_kernel = store_ts(rs, ev);
		size_t begun = 0; /* planted steps with a kernel left in the cut trace */
		for (long long k = 0; k < tu_truth_int(c.truth, "rank.0.steps"); k++)
			begun += tu_truth_int(c.truth, "rank.0.step.%lld.dev_start_ns", k) <= last_kernel;
		assert_true(begun >= 3 && begun < 12);
		assert_int_equal(ra->step_source, STEP_SRC_OP_SEQUENCE);
		assert_int_equal(ra->n_steps, begun);
		for (size_t k = 0; k < ra->n_steps; k++) {
			assert_true(llabs((long long)ra->steps[k].start -
			                  tu_truth_int(c.truth, "rank.0.step.%zu.dev_start_ns", k)) <= 1000);
			/* the cut step may have lost its attention: missing PagedAttention then says
			 * nothing, and a decode step is never read otherwise from its absence */
			const struct step *s = &ra->steps[k];
			if (truth_phase(c.truth, 0, k) == PHASE_DECODE &&
			    s->phase_source == PHASE_SRC_KERNELS)
				assert_int_equal(s->phase, PHASE_DECODE);
		}
		tu_capture_free(&c);
	}
	tu_capture_free(&whole);
}

/* Signal: vLLM annotation ranges. They mark the steps too, and give mixed steps even where
 * the attention is one call over the whole batch. */
static void test_signal_annotation(void **state)
{
	(void)state;
	struct tu_capture c;
	tu_capture_load(&c, "--shape vllm,annotate,mixed=3 --steps 12 --prefill 3 --seed 5", true);
	const struct rank_analysis *ra = &c.an->ranks[0];
	assert_int_equal(ra->step_source, STEP_SRC_ENGINE);
	check_steps(&c);
	size_t sig[PHASE_SRC_COUNT];
	check_phases(&c, sig);
	assert_int_equal(sig[PHASE_SRC_ANNOTATION], 12);
	assert_int_equal(ra->phase_source, PHASE_SRC_ANNOTATION);
	assert_int_equal(ra->v[M_MIXED_STEPS], 3);
	tu_capture_free(&c);
}

/* Signal: decode-only kernels, read from the trace's device lanes when there is no kernel
 * table (graph mode with MTP writes none): the decode steps are decided by them, and a step
 * without them in this capture is not decode (prefill here, medium). */
static void test_signal_kernels_from_trace(void **state)
{
	(void)state;
	if (!tu_gen())
		skip();
	struct tu_capture c;
	char *dir = tu_generate("--shape vllm,graph --steps 10 --prefill 2 --seed 8");
	c.dir = dir;
	c.truth = tu_truth_load(dir);
	char *kt = rank_file(&c, 0, "kernel_details.csv");
	assert_int_equal(remove(kt), 0);
	free(kt);
	tu_truth_free(c.truth);
	load_generated(&c, dir);
	const struct rank_analysis *ra = &c.an->ranks[0];
	size_t kernels = 0;
	for (size_t k = 0; k < ra->n_steps; k++) {
		const struct step *s = &ra->steps[k];
		assert_int_equal(s->phase, truth_phase(c.truth, 0, k));
		assert_int_equal(s->phase_source, PHASE_SRC_KERNELS);
		if (s->phase == PHASE_DECODE) {
			assert_int_equal(s->phase_conf, CONF_HIGH);
			kernels++;
		} else {
			assert_int_equal(s->phase_conf, CONF_MEDIUM);
			assert_non_null(strstr(s->phase_evidence, "not a decode-only batch"));
		}
	}
	assert_int_equal(kernels, tu_truth_int(c.truth, "rank.0.decode_steps"));
	tu_capture_free(&c);
}

/* Generates a capture, edits rank 0's kernel_details.csv with a sed expression (no single
 * quotes) and checks the edit left `check` in it, then loads and analyses it. */
static void load_edited(struct tu_capture *c, const char *args, const char *expr, const char *check)
{
	char *dir = tu_generate(args);
	c->dir = dir;
	c->truth = tu_truth_load(dir);
	char *kt = rank_file(c, 0, "kernel_details.csv");
	assert_int_equal(tu_sh("sed -i '%s' '%s' && grep -q -- '%s' '%s'", expr, kt, check, kt), 0);
	free(kt);
	tu_truth_free(c->truth);
	load_generated(c, dir);
}

/* PagedAttention over more tokens than sequences is the split-fuse form older vLLM-Ascend
 * ran for chunked prefill: its name alone must not make a step decode. Every attention
 * kernel of the table renamed PagedAttention: decode steps are still read from it, prefill
 * steps from their shapes. */
static void test_paged_attention_splitfuse(void **state)
{
	(void)state;
	if (!tu_gen())
		skip();
	struct tu_capture c;
	load_edited(&c, "--shape vllm --steps 10 --prefill 3 --seed 12",
	            "s/FusedInferAttentionScore/PagedAttention/g", "PagedAttention");
	const struct rank_analysis *ra = &c.an->ranks[0];
	for (size_t k = 0; k < ra->n_steps; k++) {
		enum phase want = truth_phase(c.truth, 0, k);
		assert_int_equal(ra->steps[k].phase, want);
		assert_int_equal(ra->steps[k].phase_source,
		                 want == PHASE_DECODE ? PHASE_SRC_KERNELS : PHASE_SRC_SHAPES);
	}
	tu_capture_free(&c);
}

/* Signal: attention query tokens against sequences. Decode (tokens = sequences) and one
 * prompt (one sequence) are read with medium confidence; several sequences with more tokens
 * are prompt tokens but may hold decodes (chunked prefill): such a step, planted prefill or
 * mixed, is read against the capture's decode steps (as many sequences as they run: the
 * running decodes ride along, mixed; fewer: prompts only), with low confidence. */
static void check_shapes_signal(const struct tu_capture *c)
{
	check_steps(c);
	const struct rank_analysis *ra = &c->an->ranks[0];
	for (size_t k = 0; k < ra->n_steps; k++) {
		const struct step *s = &ra->steps[k];
		enum phase want = truth_phase(c->truth, 0, k);
		long long seqs = tu_truth_int(c->truth, "rank.0.step.%zu.seqs", k);
		assert_int_equal(s->phase_source, PHASE_SRC_SHAPES);
		assert_int_equal(s->phase, want);
		assert_int_equal(s->phase_conf, want == PHASE_MIXED || (want == PHASE_PREFILL && seqs > 1)
		                                        ? CONF_LOW
		                                        : CONF_MEDIUM);
	}
}

static void test_signal_shapes(void **state)
{
	(void)state;
	static const char *const args = "--shape vllm,mixed=3 --steps 14 --prefill 4 --seed 3";
	struct tu_capture c;
	tu_capture_load(&c, args, true);
	check_shapes_signal(&c);
	tu_capture_free(&c);
	/* the same with empty optional inputs and an attention mask (2-D) before the block table,
	 * as the operator lists its inputs */
	load_edited(&c, args,
	            "s/;2048,128,1024;2048,128,1024;/;2048,128,1024;2048,128,1024;;2048,2048;;;;;;;;/g",
	            ";;2048,2048;;;;;;;;");
	check_shapes_signal(&c);
	tu_capture_free(&c);
}

/* Signal: duration clusters, on the marked shape (its attention shapes carry no sequence
 * count): long prefills separate from the decodes. */
static void test_signal_clusters(void **state)
{
	(void)state;
	struct tu_capture c;
	tu_capture_load(&c, "--steps 14 --prefill 3 --seed 6", true);
	const struct rank_analysis *ra = &c.an->ranks[0];
	assert_int_equal(ra->phase_source, PHASE_SRC_CLUSTERS);
	for (size_t k = 0; k < ra->n_steps; k++) {
		assert_int_equal(ra->steps[k].phase, truth_phase(c.truth, 0, k));
		assert_int_equal(ra->steps[k].phase_source, PHASE_SRC_CLUSTERS);
	}
	tu_capture_free(&c);
}

/* vLLM-Ascend's default capture records no shapes: a chunked-prefill capture (--shape
 * vllm,mixed=3) with its kernel table's Input Shapes column renamed falls to the durations.
 * Its mixed steps and a short prompt take about a decode step's time: they read decode, and
 * that reading (and any other the durations give) is never above low confidence (seed 1 read
 * them decode with confidence medium). */
static void test_durations_without_shapes_stay_low(void **state)
{
	(void)state;
	if (!tu_gen())
		skip();
	for (int seed = 1; seed <= 2; seed++) {
		struct tu_capture c;
		char args[96];
		snprintf(args, sizeof args, "--shape vllm,mixed=3 --steps 14 --prefill 3 --seed %d", seed);
		load_edited(&c, args, "1s/Input Shapes/Input Shapez/", "Input Shapez");
		const struct rank_analysis *ra = &c.an->ranks[0];
		size_t wrong = 0;
		for (size_t k = 0; k < ra->n_steps; k++) {
			const struct step *s = &ra->steps[k];
			assert_true(s->phase_source == PHASE_SRC_CLUSTERS || s->phase_source == PHASE_SRC_UNIFORM);
			assert_int_equal(s->phase_conf, CONF_LOW);
			wrong += s->phase != truth_phase(c.truth, 0, k);
		}
		assert_true(wrong > 0); /* the durations do misread them: hence low */
		assert_int_equal(ra->phase_conf, CONF_LOW);
		tu_capture_free(&c);
	}
}

/* A capture of args with every rank's Input Shapes renamed away (vLLM-Ascend's default
 * level writes none), loaded. */
static void load_without_shapes(struct tu_capture *c, const char *args)
{
	c->dir = tu_generate(args);
	assert_int_equal(tu_sh("find '%s' -name kernel_details.csv -exec sed -i '1s/Input Shapes/Input Shapez/' {} +",
	                       c->dir),
	                 0);
	load_generated(c, c->dir);
}

/* Signal: the tokens the collectives carry. With FusedInferAttentionScore in every state and
 * no shapes, no kernel settles a step; the tensor-parallel allReduce of each step carries its
 * batch's tokens x hidden elements (the generator writes them so, and real traces give count
 * and data_type), so decode steps (a token per running sequence) and prompt steps separate
 * where the durations of short prompts did not (13 % of steps wrong before, all "decode"):
 * at most 1 % wrong; no wrong step above low confidence (a 97-token prompt among 48-token
 * decodes read decode medium before); prompt steps low (a prompt step may be mixed) unless
 * their attention reads less than half the decode batch beside them reads (no decode batch
 * rides along: prefill, medium, saying so). */
static void test_signal_payload(void **state)
{
	(void)state;
	if (!tu_gen())
		skip();
	size_t steps = 0, wrong = 0, from_payload = 0, medium = 0;
	for (int seed = 1; seed <= 3; seed++) {
		char args[160];
		snprintf(args, sizeof args,
		         "--shape vllm --default-export --steps 40 --prefill 10 --ops 40 --ranks 2 --seed %d", seed);
		struct tu_capture c;
		load_without_shapes(&c, args);
		check_steps(&c);
		wrong += phase_errors(&c, &steps);
		for (size_t r = 0; r < c.an->n_ranks; r++)
			for (size_t k = 0; k < c.an->ranks[r].n_steps; k++) {
				const struct step *s = &c.an->ranks[r].steps[k];
				if (s->phase_source != PHASE_SRC_PAYLOAD)
					continue;
				from_payload++;
				if (s->phase != truth_phase(c.truth, c.an->ranks[r].rank, k))
					assert_int_equal(s->phase_conf, CONF_LOW);
				else if (s->phase != PHASE_DECODE && s->phase_conf != CONF_LOW)
					assert_non_null(strstr(s->phase_evidence, "so not mixed"));
				medium += s->phase_conf == CONF_MEDIUM;
				assert_non_null(strstr(s->phase_evidence, "allReduce carries"));
			}
		tu_capture_free(&c);
	}
	assert_true(from_payload * 10 >= steps * 9);
	assert_true(medium * 2 >= from_payload); /* the decode batches that sit together: medium */
	if (wrong * 100 > steps)
		fail_msg("%zu of %zu steps read as another phase than planted", wrong, steps);
	/* one rank: no collective, the durations as before */
	struct tu_capture c;
	load_without_shapes(&c, "--shape vllm --default-export --steps 20 --prefill 5 --ops 40 --seed 4");
	for (size_t k = 0; k < c.an->ranks[0].n_steps; k++)
		assert_int_not_equal(c.an->ranks[0].steps[k].phase_source, PHASE_SRC_PAYLOAD);
	tu_capture_free(&c);
}

/* Chunked prefill with FusedInferAttentionScore in every state and no shapes (vllm,mixed=4
 * and its ACLGraph form, the default export, Input Shapes renamed away): no kernel settles a
 * step but the graph's decode-only ones. Every decode and prefill step as planted (a 97-token
 * prompt read decode, and a long prefill among short decodes, before); a mixed step, the
 * running decode batch beside a prompt chunk, looks like a prefill here and says so: prefill
 * or mixed, low, never medium (every mixed step of the ACLGraph captures read prefill medium
 * before). Errors at most the planted mixed steps, none above low confidence, and the rank's
 * phase evidence counts the steps nothing separates. The MoE form carries no allReduce payload
 * (its collectives are MC2 and all-to-alls): the durations and the attention beside them read
 * it, low, a prompt as short as a decode step may read decode there, at most 1 % of the
 * steps beside the mixed ones (16.7 % wrong before, now 2 of 240). */
static void test_mixed_without_shapes(void **state)
{
	(void)state;
	if (!tu_gen())
		skip();
	static const char *const shapes[] = {"vllm,mixed=4", "vllm,graph,mixed=4", "vllm,moe,mixed=4"};
	for (size_t i = 0; i < sizeof shapes / sizeof shapes[0]; i++) {
		bool moe = strstr(shapes[i], "moe") != NULL;
		size_t steps = 0, other = 0; /* steps, and wrong ones not planted mixed */
		for (int seed = 1; seed <= 2; seed++) {
			char args[160];
			snprintf(args, sizeof args,
			         "--shape %s --default-export --steps 40 --prefill 10 --ops 40 --ranks %d --seed %d",
			         shapes[i], 2 * seed, seed);
			struct tu_capture c;
			load_without_shapes(&c, args);
			check_steps(&c);
			size_t mixed = 0;
			for (size_t r = 0; r < c.an->n_ranks; r++) {
				const struct rank_analysis *ra = &c.an->ranks[r];
				size_t wrong = 0;
				for (size_t k = 0; k < ra->n_steps; k++) {
					const struct step *s = &ra->steps[k];
					enum phase want = truth_phase(c.truth, ra->rank, k);
					mixed += want == PHASE_MIXED;
					steps++;
					if (s->phase == want)
						continue;
					wrong++;
					other += want != PHASE_MIXED;
					if (moe && s->phase_conf == CONF_LOW) /* the durations' evidence says either */
						continue;
					if (want != PHASE_MIXED || s->phase_conf != CONF_LOW ||
					    !strstr(s->phase_evidence, "prefill or mixed"))
						fail_msg("%s seed %d rank %d step %zu: %s (%s: %s), planted %s", shapes[i],
						         seed, ra->rank, k, result_phase_name(s->phase),
						         result_confidence_name(s->phase_conf), s->phase_evidence,
						         result_phase_name(want));
				}
				if (wrong)
					assert_non_null(strstr(ra->phase_evidence, "prefill or mixed"));
			}
			assert_true(mixed > 0);
			tu_capture_free(&c);
		}
		if (other * 100 > steps)
			fail_msg("%s: %zu of %zu steps not planted mixed read as another phase", shapes[i], other, steps);
	}
}

/* MLA runs a mixed batch as two attention calls per layer (mla_v1's _forward_decode and
 * _forward_prefill), a prefill or a decode batch as one: without shapes, a step without the
 * MLA preprocess that marks decode is mixed where it makes twice a decode step's attention
 * calls, prefill where as many (both medium); every step as planted (10 % wrong before: the
 * mixed steps read prefill by their duration). */
static void test_mixed_by_attention_calls(void **state)
{
	(void)state;
	if (!tu_gen())
		skip();
	size_t steps = 0, wrong = 0, mixed = 0;
	for (int seed = 1; seed <= 2; seed++) {
		char args[160];
		snprintf(args, sizeof args,
		         "--shape vllm,mla,mixed=4 --default-export --steps 30 --prefill 8 --ops 40 --ranks 2 --seed %d",
		         seed);
		struct tu_capture c;
		load_without_shapes(&c, args);
		check_steps(&c);
		wrong += phase_errors(&c, &steps);
		for (size_t r = 0; r < c.an->n_ranks; r++)
			for (size_t k = 0; k < c.an->ranks[r].n_steps; k++) {
				const struct step *s = &c.an->ranks[r].steps[k];
				if (s->phase != PHASE_MIXED)
					continue;
				mixed++;
				assert_int_equal(s->phase_source, PHASE_SRC_KERNELS);
				assert_int_equal(s->phase_conf, CONF_MEDIUM);
				assert_non_null(strstr(s->phase_evidence, "attention calls"));
			}
		tu_capture_free(&c);
	}
	assert_true(mixed > 0);
	assert_int_equal(wrong, 0);
}

/* Signal: a Stage column with text labels (real files hold a number there) beats every
 * other signal: step 3, a decode by its duration, is labelled prefill and read so. */
static void test_signal_stage(void **state)
{
	(void)state;
	if (!tu_gen())
		skip();
	struct tu_capture c;
	char *dir = tu_generate("--step-marks profilerstep --step-trace rows --steps 6 --prefill 2 --seed 4");
	c.dir = dir;
	c.truth = tu_truth_load(dir);
	char *path = rank_file(&c, 0, "step_trace_time.csv");
	char *text = tu_read(path, NULL);
	assert_non_null(text);
	/* rewrite the 7th cell (Stage) of each row with the planted phase; row 3 (a decode) says prefill */
	FILE *f = fopen(path, "w");
	assert_non_null(f);
	size_t row = 0;
	for (char *line = strtok(text, "\n"); line; line = strtok(NULL, "\n"), row++) {
		char *cell = line;
		for (int i = 0; i < 6 && cell; i++)
			cell = strchr(cell, ',') ? strchr(cell, ',') + 1 : NULL;
		char *end = cell ? strchr(cell, ',') : NULL;
		if (!row || !end) {
			fprintf(f, "%s\n", line);
			continue;
		}
		const char *label = row == 3                                            ? "Prefill"
		                    : truth_phase(c.truth, 0, row - 1) == PHASE_PREFILL ? "Prefill"
		                                                                        : "Decode";
		fprintf(f, "%.*s%s%s\n", (int)(cell - line), line, label, end);
	}
	fclose(f);
	free(text);
	free(path);
	tu_truth_free(c.truth);
	load_generated(&c, dir);
	const struct rank_analysis *ra = &c.an->ranks[0];
	assert_int_equal(ra->n_steps, 6);
	assert_int_equal(ra->phase_source, PHASE_SRC_STAGE);
	for (size_t k = 0; k < ra->n_steps; k++) {
		const struct step *s = &ra->steps[k];
		assert_int_equal(s->phase_source, PHASE_SRC_STAGE);
		assert_int_equal(s->phase, k == 2 ? PHASE_PREFILL : truth_phase(c.truth, 0, k));
		assert_int_equal(s->phase_conf, CONF_HIGH);
	}
	tu_capture_free(&c);
}

static void check_training(const struct analysis *an)
{
	for (size_t i = 0; i < an->n_ranks; i++) {
		const struct rank_analysis *ra = &an->ranks[i];
		if (ra->workload != WORKLOAD_TRAINING)
			fail_msg("rank %d: workload %s (%s)", ra->rank, result_workload_name(ra->workload),
			         ra->workload_evidence);
		assert_false(ra->have[M_PREFILL_STEPS]);
		assert_false(ra->have[M_DECODE_STEPS]);
		assert_false(ra->have[M_MIXED_STEPS]);
		assert_true(ra->n_steps >= 1);
		for (size_t k = 0; k < ra->n_steps; k++) {
			assert_int_equal(ra->steps[k].phase, PHASE_UNKNOWN);
			assert_int_equal(ra->steps[k].phase_source, PHASE_SRC_WORKLOAD);
			/* shown as training, not "unknown" beside confidence high */
			assert_string_equal(result_step_phase_name(&ra->steps[k]), "training");
		}
		for (size_t e = 0; e < ra->bn[BN_HOST_DISPATCH].n_ev; e++)
			assert_string_not_equal(ra->bn[BN_HOST_DISPATCH].ev[e].metric, "dispatch_per_step");
	}
}

/* Training: generated DDP steps (ProfilerStep marks as planted) and the real training
 * fixtures, including ranks with only a step table and communication files. */
static void test_training(void **state)
{
	(void)state;
	struct tu_capture c;
	tu_capture_load(&c, "--shape train --ranks 2 --steps 4 --seed 2", true);
	check_training(c.an);
	assert_int_equal(c.an->ranks[0].n_steps, 4);
	assert_int_equal(c.an->ranks[0].step_source, STEP_SRC_PROFILER_STEP);
	tu_capture_free(&c);
	static const char *const real[] = {"msinsight/test/data/pytorch/text/level0",
	                                   "msinsight/test/data/pytorch/text/level1",
	                                   "msinsight/test/st/level2"};
	for (size_t i = 0; i < sizeof real / sizeof real[0]; i++) {
		TU_REAL_OR_SKIP(dir, real[i]);
		struct capture *cap = capture_open(dir, NULL);
		capture_load(cap);
		struct analysis *an = analysis_run(cap);
		assert_true(an->n_ranks >= 2);
		check_training(an);
		/* st/level2's ranks 1 and 3 have a step table only: "training" is their peers' word,
		 * not their own evidence, so it is not stated with high confidence */
		for (size_t r = 0; r < an->n_ranks; r++) {
			const struct rank_analysis *ra = &an->ranks[r];
			bool own = !strstr(ra->workload_evidence, "of the same capture trains");
			assert_int_equal(ra->phase_conf, own ? CONF_HIGH : CONF_MEDIUM);
			for (size_t k = 0; k < ra->n_steps; k++)
				assert_int_equal(ra->steps[k].phase_conf, own ? CONF_HIGH : CONF_MEDIUM);
			if (i == 2 && (ra->rank == 1 || ra->rank == 3))
				assert_false(own);
		}
		analysis_free(an);
		capture_free(cap);
		free(dir);
	}
}

/* Inference ranks keep their labels when a peer has no kernels: the peer rule needs a
 * training rank, and the demo (two inference ranks) stays inference with counts. */
static void test_inference_counts(void **state)
{
	(void)state;
	struct tu_capture c;
	tu_capture_load(&c, "--ranks 2 --steps 8 --prefill 2 --seed 1", true);
	for (size_t i = 0; i < c.an->n_ranks; i++) {
		const struct rank_analysis *ra = &c.an->ranks[i];
		assert_int_equal(ra->workload, WORKLOAD_INFERENCE);
		assert_true(ra->have[M_PREFILL_STEPS] && ra->have[M_DECODE_STEPS]);
		assert_int_equal(ra->v[M_PREFILL_STEPS] + ra->v[M_DECODE_STEPS] + ra->v[M_MIXED_STEPS], 8);
	}
	tu_capture_free(&c);
}

/* A capture of neither serving nor training (vllm-ascend's PROF_Memory: an operator test of
 * three kernels; msinsight's heatMap) used to read "Decode steps 1" from its one step's
 * duration. Durations say prefill or decode only of a workload that serves: here the
 * phase is unknown and no prefill/decode counts are claimed. */
static void test_unknown_workload_has_no_phases(void **state)
{
	(void)state;
	static const char *const real[] = {"vllm-ascend/prof_unpack/PROF_GROUP_20260823_165254/PROF_Memory",
	                                   "msinsight/server/src/test/test_data/heatMap"};
	for (size_t i = 0; i < sizeof real / sizeof real[0]; i++) {
		TU_REAL_OR_SKIP(dir, real[i]);
		struct capture *cap = capture_open(dir, NULL);
		capture_load(cap);
		struct analysis *an = analysis_run(cap);
		const struct rank_analysis *ra = &an->ranks[0];
		assert_int_equal(ra->workload, WORKLOAD_UNKNOWN);
		assert_true(ra->n_steps >= 1);
		for (size_t k = 0; k < ra->n_steps; k++)
			assert_int_equal(ra->steps[k].phase, PHASE_UNKNOWN);
		assert_false(ra->have[M_PREFILL_STEPS] || ra->have[M_DECODE_STEPS] || ra->have[M_MIXED_STEPS]);
		/* nor serving advice (it read "async scheduling" here) */
		assert_null(strstr(ra->bn[BN_HOST_DISPATCH].advice, "async scheduling"));
		analysis_free(an);
		capture_free(cap);
		free(dir);
	}
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	        cmocka_unit_test(test_every_shape),
	        cmocka_unit_test(test_marking_kernels_without_shapes),
	        cmocka_unit_test(test_step_without_attention),
	        cmocka_unit_test(test_default_shape_seeds),
	        cmocka_unit_test(test_graph_replays),
	        cmocka_unit_test(test_steps_without_markers),
	        cmocka_unit_test(test_op_sequence_partial_step),
	        cmocka_unit_test(test_signal_annotation),
	        cmocka_unit_test(test_signal_kernels_from_trace),
	        cmocka_unit_test(test_signal_shapes),
	        cmocka_unit_test(test_paged_attention_splitfuse),
	        cmocka_unit_test(test_signal_clusters),
	        cmocka_unit_test(test_durations_without_shapes_stay_low),
	        cmocka_unit_test(test_signal_payload),
	        cmocka_unit_test(test_mixed_without_shapes),
	        cmocka_unit_test(test_mixed_by_attention_calls),
	        cmocka_unit_test(test_signal_stage),
	        cmocka_unit_test(test_training),
	        cmocka_unit_test(test_inference_counts),
	        cmocka_unit_test(test_unknown_workload_has_no_phases),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
