/* SPDX-License-Identifier: MIT */
/* `ascprof-tui --summary --json` as a script would use it: run the binary, parse its
 * output with jsmn, check the documented keys and values; the exit status for
 * unusable input; and the exact text of jsonw's key-and-value writers. */
#include <stdio.h>
#include <stdlib.h>
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "json_tok.h"
#include "jsonw.h"
#include "sbuf.h"
#include "testutil.h"

struct doc {
	char *js;
	size_t len;
	struct jtok jt;
};

static int run_json(const char *args, struct doc *d)
{
	const char *bin = getenv("ASCPROF_BIN");
	assert_non_null(bin);
	char *dir = tu_tmpdir();
	char out[4096];
	snprintf(out, sizeof out, "%s/out.json", dir);
	int rc = tu_sh("'%s' --summary --json %s > '%s' 2>/dev/null", bin, args, out);
	d->js = tu_read(out, &d->len);
	assert_non_null(d->js);
	jtok_init(&d->jt);
	int n = jtok_parse(&d->jt, d->js, d->len);
	if (n <= 0)
		fail_msg("output is not JSON (%d): %.200s", n, d->js);
	tu_rmtree(dir);
	free(dir);
	return rc;
}

static void doc_free(struct doc *d)
{
	jtok_free(&d->jt);
	free(d->js);
}

static int get(struct doc *d, int obj, const char *key)
{
	int v = jtok_obj_get(&d->jt, d->js, obj, key);
	if (v < 0)
		fail_msg("missing key \"%s\"", key);
	return v;
}

static long long num(struct doc *d, int tok)
{
	assert_int_equal(d->jt.t[tok].type, JSMN_PRIMITIVE);
	return strtoll(d->js + d->jt.t[tok].start, NULL, 10);
}

static int array_item(struct doc *d, int arr, int k)
{
	assert_int_equal(d->jt.t[arr].type, JSMN_ARRAY);
	assert_true(k < d->jt.t[arr].size);
	int i = arr + 1;
	for (int j = 0; j < k; j++)
		i = jtok_skip(&d->jt, i);
	return i;
}

static bool str_is(struct doc *d, int tok, const char *s)
{
	return d->jt.t[tok].type == JSMN_STRING && jtok_eq(d->js, &d->jt.t[tok], s);
}

static const char trace_json[] =
	"[{\"ph\": \"X\", \"name\": \"aten::mm\", \"pid\": 1, \"tid\": 1, \"ts\": \"1736408883674584.732\", \"dur\": 2},"
	"{\"ph\": \"X\", \"name\": \"MatMul\\u001b[31m\", \"pid\": 2, \"tid\": 2, \"ts\": \"1736408883674585.000\", \"dur\": 3.5},"
	"{\"ph\": \"C\", \"name\": \"AI Core Freq\", \"pid\": 3, \"tid\": 0, \"ts\": \"1736408883674584.000\", \"args\": {\"MHz\": 1800}},"
	"{\"ph\": \"M\", \"name\": \"process_name\", \"pid\": 1, \"tid\": 0, \"args\": {\"name\": \"Python\"}},"
	"{\"ph\": \"M\", \"name\": \"thread_name\", \"pid\": 1, \"tid\": 1, \"args\": {\"name\": \"Thread 1\"}},"
	"{\"ph\": \"M\", \"name\": \"process_name\", \"pid\": 2, \"tid\": 0, \"args\": {\"name\": \"Ascend Hardware\"}},"
	"{\"ph\": \"M\", \"name\": \"thread_name\", \"pid\": 2, \"tid\": 2, \"args\": {\"name\": \"Stream 2\"}}]";

/* The key-and-value writers every JSON writer in src/ uses: their exact text. */
static void test_jsonw_scalar_helpers(void **state)
{
	(void)state;
	char *buf = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&buf, &len);
	assert_non_null(f);
	struct jsonw w;
	jsonw_init(&w, f, false);
	jsonw_obj_begin(&w);
	jsonw_kus(&w, "a", 1234567);
	jsonw_kus(&w, "b", -1);
	jsonw_kus(&w, "c", 5000);
	jsonw_knull(&w, "d");
	jsonw_kint_or_null(&w, "e", -7, true);
	jsonw_kint_or_null(&w, "f", 7, false);
	jsonw_kdouble_inf(&w, "g", INFINITY, 2);
	jsonw_kdouble_inf(&w, "h", -INFINITY, 2);
	jsonw_kdouble_inf(&w, "i", NAN, 2);
	jsonw_kdouble_inf(&w, "j", 2.125, 2);
	jsonw_kdouble(&w, "k", INFINITY, 2);
	jsonw_kstr(&w, "l", NULL);
	jsonw_obj_end(&w);
	fclose(f);
	assert_string_equal(buf, "{\"a\":1234.567,\"b\":-0.001,\"c\":5,\"d\":null,\"e\":-7,\"f\":null,"
				 "\"g\":\"inf\",\"h\":\"-inf\",\"i\":null,\"j\":2.12,\"k\":null,\"l\":null}");
	free(buf);
}

/* jsonw_escape's exact text: runs of plain ASCII (written a run at a time) between quotes,
 * backslashes, control bytes, valid and invalid UTF-8 and a bidi override, at the start,
 * the middle and the end of a string. */
static void test_jsonw_escape_text(void **state)
{
	(void)state;
	static const struct { const char *in; size_t len; const char *out; } cases[] = {
		{"", 0, ""},
		{"plain text", 10, "plain text"},
		{"\"q\"", 3, "\\\"q\\\""},
		{"a\\b\\", 4, "a\\\\b\\\\"},
		{"x\ny\tz\r", 6, "x\\ny\\tz\\r"},
		{"\x1b[31mred", 8, "\\u001b[31mred"},
		{"caf\xc3\xa9 ok", 8, "caf\xc3\xa9 ok"},
		{"bad\xff!", 5, "bad\\\\xFF!"},
		{"\xe2\x80\xae" "evil", 7, "\\u202eevil"},
		{"nul\0in", 6, "nul\\u0000in"},
		{"~\x7f~", 3, "~\\u007f~"},
	};
	for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
		char *buf = NULL;
		size_t len = 0;
		FILE *f = open_memstream(&buf, &len);
		assert_non_null(f);
		jsonw_escape(f, cases[i].in, cases[i].len);
		fclose(f);
		if (strcmp(buf, cases[i].out))
			fail_msg("case %zu: got [%s], want [%s]", i, buf, cases[i].out);
		free(buf);
	}
}

static void test_summary_json_keys(void **state)
{
	(void)state;
	char *root = tu_tmpdir();
	free(tu_write_str(root, "host_1_20260101000000000_ascend_pt/ASCEND_PROFILER_OUTPUT/trace_view.json", trace_json));
	free(tu_write_str(root, "host_1_20260101000000000_ascend_pt/ASCEND_PROFILER_OUTPUT/kernel_details.csv",
			  "Name,Type,Accelerator Core,Start Time(us),Duration(us)\r\nMatMul,MatMulV2,AI_CORE,1736408883674585.000\t,3.5\r\n"));
	free(tu_write_str(root, "host_1_20260101000000000_ascend_pt/ASCEND_PROFILER_OUTPUT/analyse.done", ""));
	free(tu_write_str(root, "host_1_20260101000000000_ascend_pt/profiler_info_4.json", "{\"rank_id\": 4}"));
	char args[4200];
	snprintf(args, sizeof args, "'%s'", root);
	struct doc d;
	assert_int_equal(run_json(args, &d), 0);
	int ranks = get(&d, 0, "ranks");
	assert_int_equal(d.jt.t[ranks].size, 1);
	int r0 = array_item(&d, ranks, 0);
	assert_int_equal(num(&d, get(&d, r0, "rank")), 4);
	int events = get(&d, r0, "events");
	assert_int_equal(num(&d, get(&d, events, "X")), 2);
	assert_int_equal(num(&d, get(&d, events, "M")), 4);
	assert_int_equal(num(&d, get(&d, events, "C")), 1);
	int window = get(&d, r0, "window_ns");
	assert_true(num(&d, array_item(&d, window, 0)) == 1736408883674584732LL);
	assert_true(num(&d, array_item(&d, window, 1)) == 1736408883674588500LL);
	int lanes = get(&d, r0, "lanes");
	assert_int_equal(d.jt.t[lanes].size, 2);
	int l0 = array_item(&d, lanes, 0);
	assert_true(str_is(&d, get(&d, l0, "process"), "Python"));
	assert_true(str_is(&d, get(&d, l0, "thread"), "Thread 1"));
	assert_int_equal(num(&d, get(&d, l0, "events")), 1);
	int csv = get(&d, r0, "csv");
	int kd = get(&d, csv, "kernel_details.csv");
	assert_int_equal(num(&d, get(&d, kd, "rows")), 1);
	int warnings = get(&d, 0, "warnings");
	assert_int_equal(d.jt.t[warnings].type, JSMN_ARRAY);
	/* terminal safety: the ESC in the op name is not in the output as a raw byte */
	assert_null(memchr(d.js, 0x1b, d.len));
	doc_free(&d);
	tu_rmtree(root);
	free(root);
}

static void test_unusable_input_exits_non_zero(void **state)
{
	(void)state;
	char *root = tu_tmpdir();
	char args[4200];
	snprintf(args, sizeof args, "'%s'", root);
	struct doc d;
	assert_int_not_equal(run_json(args, &d), 0);
	int ranks = get(&d, 0, "ranks");
	assert_int_equal(d.jt.t[ranks].size, 0);
	int warnings = get(&d, 0, "warnings");
	assert_true(d.jt.t[warnings].size >= 1);
	assert_non_null(strstr(d.js, "no profiling data found"));
	doc_free(&d);
	tu_rmtree(root);
	free(root);
}

static void test_real_level1_summary(void **state)
{
	(void)state;
	TU_REAL_OR_SKIP(dir, "msinsight/test/data/pytorch/text/level1");
	char args[4200];
	snprintf(args, sizeof args, "'%s'", dir);
	struct doc d;
	assert_int_equal(run_json(args, &d), 0);
	int ranks = get(&d, 0, "ranks");
	assert_int_equal(d.jt.t[ranks].size, 2);
	int r1 = array_item(&d, ranks, 1);
	assert_int_equal(num(&d, get(&d, r1, "rank")), 1);
	/* python json: rank1 trace has 4385 X, 80 M, 606 s, 611 f, 4287 C */
	int events = get(&d, r1, "events");
	assert_int_equal(num(&d, get(&d, events, "X")), 4385);
	assert_int_equal(num(&d, get(&d, events, "C")), 4287);
	assert_int_equal(num(&d, get(&d, get(&d, get(&d, r1, "csv"), "operator_details.csv"), "rows")), 859);
	doc_free(&d);
	free(dir);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_jsonw_scalar_helpers),
		cmocka_unit_test(test_jsonw_escape_text),
		cmocka_unit_test(test_summary_json_keys),
		cmocka_unit_test(test_unusable_input_exits_non_zero),
		cmocka_unit_test(test_real_level1_summary),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
