/* SPDX-License-Identifier: MIT */
/* `--report` and `--report --json` as users and scripts see them: the JSON parsed with
 * jsmn and its documented keys checked (values against the demo's ground truth), the
 * text report compared with a golden file, and no raw control bytes from hostile op
 * names in either. ASCPROF_UPDATE_GOLDEN=1 rewrites the golden report. */
#include <stdio.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "json_tok.h"
#include "testutil.h"

struct doc {
	char *js;
	size_t len;
	struct jtok jt;
};

/* Runs the binary from the source tree (so paths in the output are relative) into a file. */
static char *run(const char *args, size_t *len, int *rc)
{
	const char *bin = getenv("ASCPROF_BIN"), *src = getenv("ASCPROF_SRCDIR");
	if (!bin || !src)
		return NULL;
	char *dir = tu_tmpdir();
	char out[4096];
	snprintf(out, sizeof out, "%s/out", dir);
	int r = tu_sh("cd '%s' && '%s' %s > '%s' 2>/dev/null", src, bin, args, out);
	if (rc)
		*rc = r;
	char *text = tu_read(out, len);
	tu_rmtree(dir);
	free(dir);
	return text;
}

static int key(struct doc *d, int obj, const char *k)
{
	int v = jtok_obj_get(&d->jt, d->js, obj, k);
	if (v < 0)
		fail_msg("missing key \"%s\"", k);
	return v;
}

static double num(struct doc *d, int tok)
{
	if (d->jt.t[tok].type != JSMN_PRIMITIVE)
		fail_msg("not a number: %.*s", d->jt.t[tok].end - d->jt.t[tok].start, d->js + d->jt.t[tok].start);
	return strtod(d->js + d->jt.t[tok].start, NULL);
}

static int item(struct doc *d, int arr, int k)
{
	assert_int_equal(d->jt.t[arr].type, JSMN_ARRAY);
	assert_true(k < d->jt.t[arr].size);
	int i = arr + 1;
	for (int j = 0; j < k; j++)
		i = jtok_skip(&d->jt, i);
	return i;
}

/* Runs the binary with args (exit status 0) and parses its JSON output into d. */
static void load_doc(struct doc *d, const char *args)
{
	int rc;
	d->js = run(args, &d->len, &rc);
	if (!d->js)
		skip();
	assert_int_equal(rc, 0);
	jtok_init(&d->jt);
	assert_true(jtok_parse(&d->jt, d->js, d->len) > 0);
}

static void test_json_report_keys_and_values(void **state)
{
	(void)state;
	struct doc d;
	load_doc(&d, "--report --json fixtures/demo");
	int ranks = key(&d, 0, "ranks");
	assert_int_equal(d.jt.t[ranks].size, 2);
	assert_int_equal(d.jt.t[key(&d, 0, "warnings")].type, JSMN_ARRAY);
	char truth_dir[4096];
	snprintf(truth_dir, sizeof truth_dir, "%s/fixtures/demo", getenv("ASCPROF_SRCDIR"));
	struct tu_truth *truth = tu_truth_load(truth_dir);
	for (int r = 0; r < 2; r++) {
		int rk = item(&d, ranks, r);
		assert_int_equal((int)num(&d, key(&d, rk, "rank")), r);
		int m = key(&d, rk, "metrics");
		static const char *required[] = {"wall_us", "npu_busy_us", "npu_busy_pct", "host_busy_pct",
						 "host_only_us", "npu_idle_us", "comm_us", "comm_overlapped_us",
						 "comm_not_overlapped_us", "steps", "prefill_steps", "decode_steps",
						 "dispatch_per_step"};
		for (size_t i = 0; i < sizeof required / sizeof required[0]; i++)
			num(&d, key(&d, m, required[i]));
		assert_int_equal(d.jt.t[key(&d, m, "step_source")].type, JSMN_STRING);
		assert_int_equal(d.jt.t[key(&d, m, "phase_source")].type, JSMN_STRING);
		/* the workload, and each step's phase with the signal that decided it */
		int wl = key(&d, m, "workload");
		assert_true(d.jt.t[wl].end - d.jt.t[wl].start == 9 && !strncmp(d.js + d.jt.t[wl].start, "inference", 9));
		int st0 = item(&d, key(&d, key(&d, rk, "steps"), "list"), 0);
		static const char *stepkeys[] = {"phase", "phase_signal", "phase_confidence", "phase_evidence"};
		for (size_t i = 0; i < sizeof stepkeys / sizeof stepkeys[0]; i++)
			assert_int_equal(d.jt.t[key(&d, st0, stepkeys[i])].type, JSMN_STRING);
		/* values: the same numbers the generator planted */
		assert_true(tu_close(num(&d, key(&d, m, "wall_us")) * 1e3, (double)tu_truth_int(truth, "rank.%d.wall_ns", r), 1e-6, 1));
		assert_true(tu_close(num(&d, key(&d, m, "npu_busy_us")) * 1e3,
				     (double)tu_truth_int(truth, "rank.%d.npu_busy_ns", r), 0.01, 1));
		assert_int_equal((long long)num(&d, key(&d, m, "steps")), tu_truth_int(truth, "rank.%d.steps", r));
		int bns = key(&d, rk, "bottlenecks");
		assert_int_equal(d.jt.t[bns].size, 4);
		for (int b = 0; b < 4; b++) {
			int bn = item(&d, bns, b);
			assert_int_equal(d.jt.t[key(&d, bn, "name")].type, JSMN_STRING);
			double score = num(&d, key(&d, bn, "score"));
			assert_true(score >= 0 && score <= 100);
			assert_int_equal(d.jt.t[key(&d, bn, "evidence")].type, JSMN_ARRAY);
			int g = key(&d, bn, "gain");
			num(&d, key(&d, g, "low_pct"));
			num(&d, key(&d, g, "high_pct"));
			assert_int_equal(d.jt.t[key(&d, g, "confidence")].type, JSMN_STRING);
		}
		int al = key(&d, rk, "align");
		int off = key(&d, al, "offset_us");
		num(&d, key(&d, off, "first"));
		num(&d, key(&d, off, "raw"));
		double coll = num(&d, key(&d, off, "collective"));
		num(&d, key(&d, al, "residual_us"));
		double planted = (double)(tu_truth_int(truth, "rank.%d.offset_ns", r) - tu_truth_int(truth, "rank.0.offset_ns")) / 1e3;
		assert_true(tu_close(coll, planted, 0, 5.0));
		int ops = key(&d, rk, "top_ops");
		assert_true(d.jt.t[ops].size > 0);
		int op = item(&d, ops, 0);
		static const char *opkeys[] = {"count", "total_us", "avg_us", "p50_us", "p95_us", "max_us", "share_pct"};
		assert_int_equal(d.jt.t[key(&d, op, "name")].type, JSMN_STRING);
		assert_int_equal(d.jt.t[key(&d, op, "scope")].type, JSMN_STRING);
		for (size_t i = 0; i < sizeof opkeys / sizeof opkeys[0]; i++)
			num(&d, key(&d, op, opkeys[i]));
		/* the collectives: one row of their kind with its group, every call counted (issue
		 * 35); other ops have no group */
		for (int list = 0; list < 2; list++) {
			int arr = key(&d, rk, list ? "top_op_types" : "top_ops"), found = 0;
			for (int i = 0; i < d.jt.t[arr].size; i++) {
				int o = item(&d, arr, i), g = key(&d, o, "group"), nm = key(&d, o, "name");
				bool is_coll = d.jt.t[nm].end - d.jt.t[nm].start == 14 && !strncmp(d.js + d.jt.t[nm].start, "hcom_allReduce", 14);
				assert_int_equal(d.jt.t[g].type, is_coll ? JSMN_STRING : JSMN_PRIMITIVE);
				int sc = key(&d, o, "scope");
				if (!is_coll || strncmp(d.js + d.jt.t[sc].start, "device", 6))
					continue; /* the "all" scope may repeat it */
				found++;
				assert_int_equal((long long)num(&d, key(&d, o, "count")), tu_truth_int(truth, "rank.%d.collectives", r));
				assert_true(tu_close(num(&d, key(&d, o, "total_us")) * 1e3,
						     (double)(tu_truth_int(truth, "rank.%d.coll_transfer_ns", r) +
							      tu_truth_int(truth, "rank.%d.coll_wait_ns", r)), 1e-9, 1));
			}
			assert_int_equal(found, 1);
		}
	}
	tu_truth_free(truth);
	jtok_free(&d.jt);
	free(d.js);
}

/* `--report --json path` into d. */
static void load_report_json(struct doc *d, const char *path)
{
	char args[4200];
	snprintf(args, sizeof args, "--report --json '%s'", path);
	load_doc(d, args);
}

/* The sum of an object's values in us, in ns (3 decimals: exact). */
static long long obj_sum_ns(struct doc *d, int obj)
{
	long long sum = 0;
	for (int i = obj + 1, k = 0; k < d->jt.t[obj].size; k++) {
		sum += llround(num(d, i + 1) * 1e3); /* key at i, value at i + 1 */
		i = jtok_skip(&d->jt, i + 1);
	}
	return sum;
}

/* --report --json: every rank's attribution sums to its wall_us (each bucket in us with 3
 * decimals, so to the ns), and every gain is at most 70 % and at most its buckets' share. */
static void check_attribution_json(const char *path)
{
	struct doc d;
	load_report_json(&d, path);
	int ranks = key(&d, 0, "ranks");
	for (int r = 0; r < d.jt.t[ranks].size; r++) {
		int rk = item(&d, ranks, r);
		int at = key(&d, rk, "attribution"), info = key(&d, rk, "attribution_info");
		if (d.jt.t[at].type != JSMN_OBJECT) {
			assert_false(d.js[d.jt.t[key(&d, info, "valid")].start] == 't');
			continue;
		}
		long long wall = llround(num(&d, key(&d, info, "wall_us")) * 1e3);
		assert_int_equal(wall, llround(num(&d, key(&d, key(&d, rk, "metrics"), "wall_us")) * 1e3));
		assert_int_equal(obj_sum_ns(&d, at), wall);
		int bns = key(&d, rk, "bottlenecks");
		for (int b = 0; b < d.jt.t[bns].size; b++) {
			int bn = item(&d, bns, b);
			double hi = num(&d, key(&d, key(&d, bn, "gain"), "high_pct"));
			double share = 100.0 * num(&d, key(&d, bn, "bucket_us")) * 1e3 / (double)wall;
			assert_true(hi <= 70.0);
			assert_true(hi <= share + 0.006); /* two decimals */
		}
		assert_true(num(&d, key(&d, key(&d, rk, "combined_gain"), "high_pct")) <= 70.0);
	}
	jtok_free(&d.jt);
	free(d.js);
}

/* check on the demo and on the real level 1 and level 2 captures (those present) */
static void check_demo_and_real(void (*check)(const char *path))
{
	check("fixtures/demo");
	static const char *real[] = {"msinsight/test/data/pytorch/text/level1", "msinsight/test/st/level2"};
	for (size_t i = 0; i < sizeof real / sizeof real[0]; i++) {
		char *dir = tu_real(real[i]);
		if (!dir)
			continue;
		check(dir);
		free(dir);
	}
}

static void test_json_attribution(void **state)
{
	(void)state;
	check_demo_and_real(check_attribution_json);
}

/* --report --json: every rank's gaps by cause sum to their total_us, which is the sum of
 * the attribution's device-idle buckets (to the ns); the top gaps are longest first, each
 * with a cause of by_cause's and a step in the steps' list or null. */
static void check_gaps_json(const char *path)
{
	struct doc d;
	load_report_json(&d, path);
	int ranks = key(&d, 0, "ranks");
	for (int r = 0; r < d.jt.t[ranks].size; r++) {
		int rk = item(&d, ranks, r);
		int gaps = key(&d, rk, "gaps"), at = key(&d, rk, "attribution");
		if (d.jt.t[gaps].type != JSMN_OBJECT) /* no timeline (step_trace_time.csv may still
							 * give an attribution) */
			continue;
		long long total = llround(num(&d, key(&d, gaps, "total_us")) * 1e3), idle = 0;
		int by = key(&d, gaps, "by_cause");
		assert_int_equal(obj_sum_ns(&d, by), total);
		static const char *idle_keys[] = {"host_sync", "host_copy", "host_dispatch", "host_python", "idle",
						  "edge_idle"};
		for (size_t k = 0; k < sizeof idle_keys / sizeof idle_keys[0]; k++)
			idle += llround(num(&d, key(&d, at, idle_keys[k])) * 1e3);
		assert_int_equal(idle, total);
		int top = key(&d, gaps, "top"), n_steps = d.jt.t[key(&d, key(&d, rk, "steps"), "list")].size;
		double last = INFINITY;
		for (int i = 0; i < d.jt.t[top].size; i++) {
			int g = item(&d, top, i);
			double dur = num(&d, key(&d, g, "dur_us"));
			assert_true(dur > 0 && dur <= last);
			last = dur;
			num(&d, key(&d, g, "start_us"));
			int c = key(&d, g, "cause");
			char cause[32];
			snprintf(cause, sizeof cause, "%.*s", d.jt.t[c].end - d.jt.t[c].start, d.js + d.jt.t[c].start);
			assert_true(num(&d, key(&d, by, cause)) >= dur);
			int st = key(&d, g, "step");
			if (d.js[d.jt.t[st].start] != 'n')
				assert_true(num(&d, st) >= 0 && num(&d, st) < n_steps);
			else
				assert_true(d.js[d.jt.t[key(&d, g, "phase")].start] == 'n');
		}
	}
	jtok_free(&d.jt);
	free(d.js);
}

static void test_json_gaps(void **state)
{
	(void)state;
	check_demo_and_real(check_gaps_json);
}

static void test_golden_text_report(void **state)
{
	(void)state;
	size_t len;
	char *text = run("--report fixtures/demo", &len, NULL);
	if (!text)
		skip();
	char golden[4096];
	snprintf(golden, sizeof golden, "%s/tests/data/demo_report.txt", getenv("ASCPROF_SRCDIR"));
	if (getenv("ASCPROF_UPDATE_GOLDEN")) {
		FILE *f = fopen(golden, "w");
		assert_non_null(f);
		fwrite(text, 1, len, f);
		fclose(f);
	}
	size_t glen;
	char *want = tu_read(golden, &glen);
	assert_non_null(want);
	if (glen != len || memcmp(want, text, len)) {
		/* show where they part */
		size_t i = 0;
		while (i < len && i < glen && want[i] == text[i])
			i++;
		size_t ls = i;
		while (ls > 0 && text[ls - 1] != '\n')
			ls--;
		fail_msg("report differs from tests/data/demo_report.txt at byte %zu:\n got: %.120s\nwant: %.120s", i,
			 text + ls, want + ls);
	}
	free(want);
	free(text);
}

/* Removes a capture of tu_generate with the temp directory around it, and frees dir. */
static void rm_generated(char *dir)
{
	char *parent = strdup(dir);
	*strrchr(parent, '/') = '\0';
	tu_rmtree(parent);
	free(parent);
	free(dir);
}

/* Issue 35 item 6: each communication group says how many ranks it has and how many the
 * capture holds. 4 ranks written, the last 2 directories dropped: the matrices of ranks 0
 * and 1 still name all 4 (the generator's one group, comm.group in the truth). */
static void test_json_group_coverage(void **state)
{
	(void)state;
	if (!tu_gen())
		skip();
	char *dir = tu_generate("--ranks 4 --comm --steps 4 --ops 30 --seed 3");
	struct tu_truth *truth = tu_truth_load(dir);
	assert_int_equal(tu_sh("cd '%s' && ls -d *_ascend_pt | tail -n 2 | xargs rm -rf", dir), 0);
	struct doc d;
	load_report_json(&d, dir);
	int groups = key(&d, key(&d, 0, "communication"), "groups");
	assert_int_equal(d.jt.t[groups].size, 1);
	int g = item(&d, groups, 0), nm = key(&d, g, "name");
	const char *want = tu_truth_str(truth, "comm.group");
	assert_int_equal(d.jt.t[nm].end - d.jt.t[nm].start, (int)strlen(want));
	assert_memory_equal(d.js + d.jt.t[nm].start, want, strlen(want));
	assert_int_equal((int)num(&d, key(&d, g, "ranks_in_group")), 4);
	assert_int_equal((int)num(&d, key(&d, g, "ranks_captured")), 2);
	/* no layout (issue 35 item 7): the metadata's tp [0, 1, 2, 3] is not matched by the
	 * 2 members known */
	int par = key(&d, g, "parallel");
	assert_int_equal(d.jt.t[par].type, JSMN_PRIMITIVE);
	assert_int_equal(d.js[d.jt.t[par].start], 'n');
	/* the text report and its cluster section say it too */
	size_t len;
	char args[4200];
	snprintf(args, sizeof args, "--report '%s'", dir);
	char *text = run(args, &len, NULL);
	assert_non_null(text);
	assert_non_null(strstr(text, "    group of 4 ranks, 2 captured\n"));
	assert_non_null(strstr(text, "  1 communication group(s) larger than the capture (the largest: group of 4 ranks, 2 captured)"));
	free(text);
	tu_truth_free(truth);
	jtok_free(&d.jt);
	free(d.js);
	rm_generated(dir);

	/* --naming rank: dp0_pp0_tp<r>_...: the group of all 4 differs in tp alone */
	dir = tu_generate("--ranks 4 --comm --naming rank --steps 4 --ops 30 --seed 3");
	load_report_json(&d, dir);
	groups = key(&d, key(&d, 0, "communication"), "groups");
	par = key(&d, item(&d, groups, 0), "parallel");
	assert_int_equal(d.jt.t[par].type, JSMN_STRING);
	assert_int_equal(d.jt.t[par].end - d.jt.t[par].start, 2);
	assert_memory_equal(d.js + d.jt.t[par].start, "tp", 2);
	jtok_free(&d.jt);
	free(d.js);
	rm_generated(dir);
}

static void test_hostile_names_stay_escaped(void **state)
{
	(void)state;
	const char *bin = getenv("ASCPROF_BIN");
	if (!tu_gen() || !bin)
		skip();
	char *dir = tu_generate("--ranks 1 --seed 13 --steps 4 --hostile");
	static const char *modes[] = {"--report", "--report --json", "--summary", "--summary --json"};
	for (size_t i = 0; i < sizeof modes / sizeof modes[0]; i++) {
		char out[4096];
		snprintf(out, sizeof out, "%s.out", dir);
		assert_int_equal(tu_sh("'%s' %s '%s' > '%s' 2>&1", bin, modes[i], dir, out), 0);
		size_t len;
		char *text = tu_read(out, &len);
		for (size_t k = 0; k < len; k++) {
			unsigned char c = (unsigned char)text[k];
			if ((c < 0x20 && c != '\n') || c == 0x7f)
				fail_msg("%s: raw control byte 0x%02X at %zu", modes[i], c, k);
			if (c == 0xC2 && k + 1 < len && (unsigned char)text[k + 1] >= 0x80 && (unsigned char)text[k + 1] <= 0x9F)
				fail_msg("%s: raw C1 control at %zu", modes[i], k);
		}
		assert_null(strstr(text, "\xE2\x80\xAE")); /* U+202E, right-to-left override */
		free(text);
		remove(out);
	}
	/* the explorer, headless, with the hostile op on screen: shown escaped, and the bytes
	 * curses writes to the terminal carry none of the sequences from the data */
	char keys[4096], dump[4096], raw[4096];
	snprintf(keys, sizeof keys, "%s.keys", dir);
	snprintf(dump, sizeof dump, "%s.dump", dir);
	snprintf(raw, sizeof raw, "%s.raw", dir);
	FILE *f = fopen(keys, "w");
	assert_non_null(f);
	fprintf(f, "3\nc\n/ \"evil\" Enter\n:dump %s\nEnter\n2 Enter\n:dump %s.2\n", dump, dump);
	fclose(f);
	assert_int_equal(tu_sh("TERM=xterm-256color '%s' --script '%s' --term-out '%s' --size 120x40 '%s' >/dev/null 2>&1",
			       bin, keys, raw, dir), 0);
	size_t len;
	char *screen = tu_read(dump, &len);
	assert_non_null(screen);
	assert_non_null(strstr(screen, "evil::\\e[31mred\\e[0m\\e]52;c;aGk="));
	assert_null(memchr(screen, 0x1b, len));
	free(screen);
	char *bytes = tu_read(raw, &len);
	assert_non_null(bytes);
	assert_true(len > 1000); /* curses did draw */
	for (size_t k = 0; k + 1 < len; k++)
		if (bytes[k] == 0x1b && bytes[k + 1] == ']')
			fail_msg("an OSC sequence reached the terminal at byte %zu", k);
	assert_null(memmem(bytes, len, "\x1b[31mred", 9));
	assert_null(memmem(bytes, len, "\xC2\x9B", 2));
	assert_null(memchr(bytes, 0x07, len)); /* the BEL after the OSC 52 in the op name */
	free(bytes);
	rm_generated(dir);
}

/* The text report (--no-index) of path, as an owned string; the binary must exit 0. */
static char *report_text_of(const char *path)
{
	const char *bin = getenv("ASCPROF_BIN");
	char *tmp = tu_tmpdir();
	char out[4096];
	snprintf(out, sizeof out, "%s/report.txt", tmp);
	assert_int_equal(tu_sh("'%s' --no-index --report '%s' > '%s' 2>/dev/null", bin, path, out), 0);
	size_t len;
	char *text = tu_read(out, &len);
	assert_non_null(text);
	tu_rmtree(tmp);
	free(tmp);
	return text;
}

/* what must come under the rank's heading, before its metrics */
static void assert_before_metrics(const char *text, const char *needle)
{
	const char *at = strstr(text, needle), *metrics = strstr(text, "\nmetrics\n");
	if (!at || !metrics || at > metrics)
		fail_msg("\"%s\" is not before the metrics", needle);
}

/* A trace cut short, or one that gave nothing, is said at the top of its rank, before any
 * figure: read alone, "NPU busy 0.000 us" of a cut trace would look measured. The cut is
 * planted by the generator at a known byte; the whole trace's device lanes come after it. */
static void test_rank_header_says_trace_cut_or_unread(void **state)
{
	(void)state;
	if (!tu_gen() || !getenv("ASCPROF_BIN"))
		skip();
	char *dir = tu_generate("--ranks 1 --seed 3 --steps 6 --truncate-at 200000");
	char *text = report_text_of(dir);
	const char *cut = "(trace CUT SHORT: the file ends inside its event array";
	assert_before_metrics(text, cut);
	/* the bytes kept: the complete elements before the cut, so fewer than planted */
	unsigned long long kept = strtoull(strstr(strstr(text, cut), "first ") + 6, NULL, 10);
	assert_true(kept > 100000 && kept < 200000);
	free(text);
	rm_generated(dir);

	/* a trace_view.json that is no trace at all */
	char *bad = tu_tmpdir();
	free(tu_write_str(bad, "trace_view.json", "hello, not a trace\n"));
	text = report_text_of(bad);
	assert_before_metrics(text, "(trace NOT READ: ");
	assert_null(strstr(text, "insufficient data for device figures)"));
	free(text);
	tu_rmtree(bad);
	free(bad);
}

/* Ranks whose first events lie hours apart are other runs (a parent directory of several),
 * and the report says so under the alignment table; ranks of one run (the generator's
 * default offsets, about a millisecond) say nothing. The offset is planted. */
static void test_ranks_hours_apart_are_flagged(void **state)
{
	(void)state;
	if (!tu_gen() || !getenv("ASCPROF_BIN"))
		skip();
	static const char *args[] = {"--ranks 2 --seed 4 --steps 3 --ops 30 --offsets-us 0,3600000000",
				     "--ranks 2 --seed 4 --steps 3 --ops 30"};
	for (int k = 0; k < 2; k++) {
		char *dir = tu_generate(args[k]);
		char *text = report_text_of(dir);
		if (k == 0)
			assert_non_null(strstr(text, "! rank 1's first event is 1.0 hours from rank 0's"));
		else
			assert_null(strstr(text, "first event is"));
		free(text);
		rm_generated(dir);
	}
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_json_report_keys_and_values),
		cmocka_unit_test(test_json_attribution),
		cmocka_unit_test(test_json_gaps),
		cmocka_unit_test(test_json_group_coverage),
		cmocka_unit_test(test_golden_text_report),
		cmocka_unit_test(test_hostile_names_stay_escaped),
		cmocka_unit_test(test_rank_header_says_trace_cut_or_unread),
		cmocka_unit_test(test_ranks_hours_apart_are_flagged),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
