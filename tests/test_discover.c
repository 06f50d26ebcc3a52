/* SPDX-License-Identifier: MIT */
/* Discovery over small trees built in a temp dir: every path shape a user may type,
 * both worker-name shapes, rank sources, raw captures, and hostile trees. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "discover.h"
#include "testutil.h"
#include "xalloc.h"

static const char tiny_trace[] = "[{\"ph\": \"X\", \"name\": \"a\", \"pid\": 1, \"tid\": 1, \"ts\": \"1.0\", \"dur\": 1}]";

/* A worker dir with an export; info_rank < 0 means no profiler_info file. */
static void make_worker(const char *root, const char *name, int info_rank, bool done)
{
	char rel[512];
	snprintf(rel, sizeof rel, "%s/ASCEND_PROFILER_OUTPUT/trace_view.json", name);
	free(tu_write_str(root, rel, tiny_trace));
	snprintf(rel, sizeof rel, "%s/ASCEND_PROFILER_OUTPUT/kernel_details.csv", name);
	free(tu_write_str(root, rel, "Name,Type,Start Time(us),Duration(us)\n"));
	if (done) {
		snprintf(rel, sizeof rel, "%s/ASCEND_PROFILER_OUTPUT/analyse.done", name);
		free(tu_write_str(root, rel, ""));
	}
	if (info_rank >= 0) {
		char json[128];
		snprintf(rel, sizeof rel, "%s/profiler_info_%d.json", name, info_rank);
		snprintf(json, sizeof json, "{\"rank_id\": \"%d\", \"torch_npu_version\": \"2.7.1\"}", info_rank);
		free(tu_write_str(root, rel, json));
	}
}

static bool diag_has(struct diag_list *dl, const char *needle)
{
	for (size_t i = 0; i < dl->n; i++)
		if (strstr(dl->items[i].msg, needle))
			return true;
	return false;
}

static void test_profiler_dir_with_both_name_shapes(void **state)
{
	(void)state;
	char *root = tu_tmpdir();
	/* the hostname shape carries no rank: profiler_info says 1 */
	make_worker(root, "localhost.localdomain_12345_20260305161830123_ascend_pt", 1, true);
	/* the rank shape, no profiler_info: the name says 0 */
	make_worker(root, "dp0_pp0_tp0_dcp0_ep0_rank0_20260305161834123_ascend_pt", -1, true);
	/* a prefixed rank shape with profiler_info disagreeing with the name: info wins */
	make_worker(root, "warmup_dp0_pp0_tp0_dcp0_ep0_rank5_20260305161834999_ascend_pt", 2, true);
	struct capture_plan plan;
	struct diag_list dl;
	diag_init(&dl);
	assert_int_equal(discover(root, &plan, &dl), 0);
	assert_int_equal(plan.n_ranks, 3);
	assert_int_equal(plan.ranks[0].rank, 0);
	assert_int_equal(plan.ranks[0].rank_source, RANK_FROM_NAME);
	assert_int_equal(plan.ranks[1].rank, 1);
	assert_int_equal(plan.ranks[1].rank_source, RANK_FROM_INFO);
	assert_non_null(strstr(plan.ranks[1].label, "localhost"));
	assert_int_equal(plan.ranks[2].rank, 2);
	assert_string_equal(plan.ranks[1].info.torch_npu_version, "2.7.1");
	for (size_t i = 0; i < plan.n_ranks; i++) {
		assert_int_equal(plan.ranks[i].cls, CAPTURE_CLASS_A);
		assert_true(plan.ranks[i].export_done);
		assert_non_null(discover_find(&plan.ranks[i], ROLE_TRACE));
		assert_non_null(discover_find(&plan.ranks[i], ROLE_CSV));
	}
	assert_int_equal(diag_count(&dl, DIAG_WARN), 0);
	discover_free(&plan);
	diag_free(&dl);
	tu_rmtree(root);
	free(root);
}

static void test_every_entry_point(void **state)
{
	(void)state;
	char *root = tu_tmpdir();
	make_worker(root, "w_ascend_pt", 3, false);
	char path[1024];
	const char *entries[] = {"", "/w_ascend_pt", "/w_ascend_pt/ASCEND_PROFILER_OUTPUT",
				 "/w_ascend_pt/ASCEND_PROFILER_OUTPUT/trace_view.json"};
	for (size_t i = 0; i < sizeof entries / sizeof entries[0]; i++) {
		snprintf(path, sizeof path, "%s%s", root, entries[i]);
		struct capture_plan plan;
		struct diag_list dl;
		diag_init(&dl);
		assert_int_equal(discover(path, &plan, &dl), 0);
		assert_int_equal(plan.n_ranks, 1);
		/* rank 3 from profiler_info in each case, even for the single file */
		assert_int_equal(plan.ranks[0].rank, 3);
		assert_non_null(discover_find(&plan.ranks[0], ROLE_TRACE));
		if (i < 3)
			assert_true(diag_has(&dl, "no analyse.done")); /* the export may be incomplete */
		discover_free(&plan);
		diag_free(&dl);
	}
	tu_rmtree(root);
	free(root);
}

static void test_raw_capture_says_what_to_run(void **state)
{
	(void)state;
	char *root = tu_tmpdir();
	free(tu_write_str(root, "h_1_2_ascend_pt/FRAMEWORK/torch.op_mark", "x"));
	free(tu_write_str(root, "h_1_2_ascend_pt/PROF_000001_20230628101435646_FKFLNPEPPRRCFCBA/host/info.json", "{}"));
	struct capture_plan plan;
	struct diag_list dl;
	diag_init(&dl);
	assert_int_equal(discover(root, &plan, &dl), -1);
	assert_int_equal(plan.raw_captures, 1);
	assert_true(diag_has(&dl, "from torch_npu.profiler.profiler import analyse"));
	assert_int_equal(dl.items[0].level, DIAG_ERROR);
	discover_free(&plan);
	diag_free(&dl);

	/* nothing at all: one clear error naming what was looked for */
	char *empty = tu_tmpdir();
	diag_init(&dl);
	assert_int_equal(discover(empty, &plan, &dl), -1);
	assert_true(diag_has(&dl, "no profiling data found"));
	discover_free(&plan);
	diag_free(&dl);
	/* files that are there but empty (an interrupted export): not "found none" */
	char *hollow = tu_tmpdir();
	free(tu_write_str(hollow, "PROF_1/mindstudio_profiler_output/msprof_1.json", ""));
	free(tu_write_str(hollow, "PROF_1/mindstudio_profiler_output/op_summary_1.csv", ""));
	diag_init(&dl);
	assert_int_equal(discover(hollow, &plan, &dl), -1);
	assert_true(diag_has(&dl, "the 2 profiling file(s) found are all empty"));
	assert_false(diag_has(&dl, "no profiling data found"));
	discover_free(&plan);
	diag_free(&dl);
	tu_rmtree(hollow);
	free(hollow);
	diag_init(&dl);
	assert_int_equal(discover("/nonexistent/ascprof", &plan, &dl), -1);
	assert_true(diag_has(&dl, "No such file"));
	discover_free(&plan);
	diag_free(&dl);
	tu_rmtree(root);
	tu_rmtree(empty);
	free(root);
	free(empty);
}

static void test_rank_by_order_and_duplicates(void **state)
{
	(void)state;
	char *root = tu_tmpdir();
	make_worker(root, "b_ascend_pt", -1, true);
	make_worker(root, "a_ascend_pt", -1, true);
	make_worker(root, "c_rank1_ascend_pt", -1, true); /* takes 1: order fills 0 and 2 */
	struct capture_plan plan;
	struct diag_list dl;
	diag_init(&dl);
	assert_int_equal(discover(root, &plan, &dl), 0);
	assert_int_equal(plan.n_ranks, 3);
	assert_string_equal(plan.ranks[0].label, "a_ascend_pt");
	assert_int_equal(plan.ranks[0].rank_source, RANK_FROM_ORDER);
	assert_int_equal(plan.ranks[1].rank, 1);
	assert_string_equal(plan.ranks[2].label, "b_ascend_pt");
	assert_int_equal(plan.ranks[2].rank, 2);
	discover_free(&plan);
	diag_free(&dl);

	make_worker(root, "d_ascend_pt", 1, true);
	diag_init(&dl);
	assert_int_equal(discover(root, &plan, &dl), 0);
	assert_true(diag_has(&dl, "two captures claim rank 1"));
	discover_free(&plan);
	diag_free(&dl);
	tu_rmtree(root);
	free(root);
}

static void test_hostile_trees(void **state)
{
	(void)state;
	char *root = tu_tmpdir();
	make_worker(root, "w_ascend_pt", 0, true);
	char p[1024], q[1024];
	/* a symlink loop beside the capture */
	snprintf(p, sizeof p, "%s/loop", root);
	assert_int_equal(symlink(".", p), 0);
	/* a FIFO where a CSV should be, and a directory named like the trace */
	snprintf(p, sizeof p, "%s/w_ascend_pt/ASCEND_PROFILER_OUTPUT/op_statistic.csv", root);
	assert_int_equal(mkfifo(p, 0600), 0);
	snprintf(q, sizeof q, "%s/x_ascend_pt/ASCEND_PROFILER_OUTPUT/trace_view.json", root);
	assert_int_equal(tu_sh("mkdir -p '%s'", q), 0);
	struct capture_plan plan;
	struct diag_list dl;
	diag_init(&dl);
	assert_int_equal(discover(root, &plan, &dl), 0);
	assert_true(diag_has(&dl, "FIFO, not a file"));
	assert_true(diag_has(&dl, "directory, not a file"));
	/* the loop is seen through "loop/w_ascend_pt" but walked once */
	size_t ranks_w = 0;
	for (size_t i = 0; i < plan.n_ranks; i++)
		ranks_w += !strcmp(plan.ranks[i].label, "w_ascend_pt");
	assert_int_equal(ranks_w, 1);
	discover_free(&plan);
	diag_free(&dl);
	/* an unreadable worker is reported and skipped, others still load (root ignores
	 * permissions, so only check when not running as root) */
	if (geteuid() != 0) {
		snprintf(p, sizeof p, "%s/x_ascend_pt", root);
		chmod(p, 0);
		diag_init(&dl);
		assert_int_equal(discover(root, &plan, &dl), 0);
		assert_true(diag_has(&dl, "Permission denied"));
		discover_free(&plan);
		diag_free(&dl);
		chmod(p, 0755);
	}
	tu_rmtree(root);
	free(root);
}

/* Communication files: Class A beside the trace, Class B in PROF_x/analyze, a cluster's in
 * cluster_analysis_output (attached to the capture); a file of that name holding something
 * else, or nothing, is named and skipped. */
static void test_communication_files(void **state)
{
	(void)state;
	char *root = tu_tmpdir();
	const char *comm = "{\"step1\": {\"p2p\": {}, \"collective\": {}}}";
	make_worker(root, "a_rank0_ascend_pt", 0, true);
	free(tu_write_str(root, "a_rank0_ascend_pt/ASCEND_PROFILER_OUTPUT/communication.json", comm));
	free(tu_write_str(root, "a_rank0_ascend_pt/ASCEND_PROFILER_OUTPUT/communication_matrix.json", "  [1]"));
	free(tu_write_str(root, "PROF_000001_20260101_ABC/mindstudio_profiler_output/msprof_1.json", tiny_trace));
	free(tu_write_str(root, "PROF_000001_20260101_ABC/analyze/communication.json", comm));
	free(tu_write_str(root, "PROF_000001_20260101_ABC/analyze/communication_matrix.json", ""));
	free(tu_write_str(root, "PROF_000001_20260101_ABC/analyze/communication_analyzer.db", "x"));
	free(tu_write_str(root, "cluster_analysis_output/cluster_communication.json", "{}"));
	free(tu_write_str(root, "cluster_analysis_output/cluster_step_trace_time.csv", "a,b\n"));
	free(tu_write_str(root, "old/cluster_analysis_output/cluster_communication_matrix.json", "{}"));
	struct capture_plan plan;
	struct diag_list dl;
	diag_init(&dl);
	assert_int_equal(discover(root, &plan, &dl), 0);
	assert_int_equal(plan.n_ranks, 2);
	const struct rank_plan *a = plan.ranks[0].cls == CAPTURE_CLASS_A ? &plan.ranks[0] : &plan.ranks[1];
	const struct rank_plan *b = a == &plan.ranks[0] ? &plan.ranks[1] : &plan.ranks[0];
	assert_int_equal(b->cls, CAPTURE_CLASS_B);
	assert_non_null(discover_find(a, ROLE_COMM));
	assert_null(discover_find(a, ROLE_COMM_MATRIX)); /* "[1]": not an object */
	assert_true(diag_has(&dl, "not communication data"));
	assert_non_null(discover_find(b, ROLE_COMM));
	assert_null(discover_find(b, ROLE_COMM_MATRIX)); /* 0 bytes */
	assert_true(diag_has(&dl, "empty file"));
	assert_non_null(strstr(discover_find(b, ROLE_COMM)->path, "/analyze/communication.json"));
	assert_int_equal(plan.n_cluster_files, 1);
	assert_int_equal(plan.cluster_files[0].role, ROLE_COMM);
	assert_non_null(strstr(plan.cluster_dir, "cluster_analysis_output"));
	assert_true(diag_has(&dl, "a second cluster_analysis_output"));
	discover_free(&plan);
	diag_free(&dl);

	/* a cluster directory alone is something to load */
	char path[1024];
	snprintf(path, sizeof path, "%s/cluster_analysis_output", root);
	diag_init(&dl);
	assert_int_equal(discover(path, &plan, &dl), 0);
	assert_int_equal(plan.n_ranks, 0);
	assert_int_equal(plan.n_cluster_files, 1);
	discover_free(&plan);
	diag_free(&dl);
	tu_rmtree(root);
	free(root);
}

static void test_rank_from_name(void **state)
{
	(void)state;
	assert_int_equal(discover_rank_from_name("dp0_pp0_tp0_dcp0_ep0_rank12_20260305161834123_ascend_pt"), 12);
	assert_int_equal(discover_rank_from_name("rank_3_ascend_pt"), 3);
	assert_int_equal(discover_rank_from_name("rank1_ascend_pt"), 1);
	assert_int_equal(discover_rank_from_name("localhost_123_2026_ascend_pt"), -1);
	assert_int_equal(discover_rank_from_name("ranking_ascend_pt"), -1);
}

static void test_real_level1_two_ranks(void **state)
{
	(void)state;
	TU_REAL_OR_SKIP(path, "msinsight/test/data/pytorch/text/level1");
	struct capture_plan plan;
	struct diag_list dl;
	diag_init(&dl);
	assert_int_equal(discover(path, &plan, &dl), 0);
	/* two worker dirs, rank_id 0 and 1 in their profiler_info files */
	assert_int_equal(plan.n_ranks, 2);
	assert_int_equal(plan.ranks[0].rank, 0);
	assert_int_equal(plan.ranks[1].rank, 1);
	assert_int_equal(plan.ranks[0].rank_source, RANK_FROM_INFO);
	assert_string_equal(plan.ranks[0].info.profiler_level, "Level1");
	assert_true(plan.ranks[0].info.has_schedule);
	/* ls ASCEND_PROFILER_OUTPUT: 10 csv + trace + 2 communication json */
	size_t csv = 0;
	for (size_t i = 0; i < plan.ranks[0].n_files; i++)
		csv += plan.ranks[0].files[i].role == ROLE_CSV;
	assert_int_equal(csv, 9);
	assert_non_null(discover_find(&plan.ranks[0], ROLE_COMM));
	assert_non_null(discover_find(&plan.ranks[0], ROLE_COMM_MATRIX));
	assert_false(plan.ranks[0].export_done); /* these exports have no analyse.done */
	discover_free(&plan);
	diag_free(&dl);
	free(path);
}

/* A folder of unrelated captures is no job: two generated runs an hour apart side by side
 * (and msinsight's level0, level1 and level2 captures, made hours apart, each of ranks 0
 * and 1) are told apart and said loudly; one run's ranks stay one run. */
static size_t runs_of(const char *path, char **note)
{
	struct capture_plan plan;
	struct diag_list dl;
	diag_init(&dl);
	assert_int_equal(discover(path, &plan, &dl), 0);
	size_t n = plan.n_runs;
	*note = plan.runs_note ? xstrdup(plan.runs_note) : NULL;
	if (n > 1) { /* said among the messages too */
		bool said = false;
		for (size_t i = 0; i < dl.n; i++)
			said |= strstr(dl.items[i].msg, "separate profiling runs") != NULL;
		assert_true(said);
	}
	discover_free(&plan);
	diag_free(&dl);
	return n;
}

static void test_separate_runs(void **state)
{
	(void)state;
	if (!tu_gen())
		skip();
	char *a = tu_generate("--steps 3 --seed 2 --ranks 2");
	char *b = tu_generate("--steps 3 --seed 2 --offsets-us 3500000000");
	char *dir = tu_tmpdir();
	assert_int_equal(tu_sh("cp -r '%s'/*_ascend_pt '%s'/*_ascend_pt '%s'/", a, b, dir), 0);
	char *note;
	assert_int_equal(runs_of(a, &note), 1);
	assert_null(note);
	assert_int_equal(runs_of(dir, &note), 2);
	assert_non_null(note);
	assert_non_null(strstr(note, "2 separate profiling runs"));
	free(note);
	tu_rmtree(a);
	tu_rmtree(b);
	tu_rmtree(dir);
	free(a);
	free(b);
	free(dir);
	char *real = tu_real("msinsight/test/data/pytorch/db");
	if (!real)
		return;
	assert_int_equal(runs_of(real, &note), 3);
	free(note);
	free(real);
	real = tu_real("msinsight/test/data/pytorch/db/level0");
	assert_int_equal(runs_of(real, &note), 1);
	assert_null(note);
	free(real);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_profiler_dir_with_both_name_shapes),
		cmocka_unit_test(test_every_entry_point),
		cmocka_unit_test(test_raw_capture_says_what_to_run),
		cmocka_unit_test(test_rank_by_order_and_duplicates),
		cmocka_unit_test(test_hostile_trees),
		cmocka_unit_test(test_communication_files),
		cmocka_unit_test(test_rank_from_name),
		cmocka_unit_test(test_real_level1_two_ranks),
		cmocka_unit_test(test_separate_runs),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
