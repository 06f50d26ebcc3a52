/* SPDX-License-Identifier: MIT */
/* The element splitter: shapes, strings that look like structure, truncation, garbage. */
#include <stdlib.h>
#include <string.h>

#include "json_scan.h"
#include "testutil.h"

/* Walks all elements; writes their [start,end) pairs; returns the final status. */
static enum jscan_status walk(const char *s, size_t *starts, size_t *ends, size_t *n, size_t *pos)
{
	struct jscan js;
	struct sbuf err = SBUF_INIT;
	assert_true(jscan_open(&js, s, strlen(s), &err));
	*n = 0;
	for (;;) {
		size_t a, b;
		enum jscan_status st = jscan_next(&js, &a, &b);
		if (st != JSCAN_ELEMENT) {
			if (pos)
				*pos = js.pos;
			return st;
		}
		starts[*n] = a;
		ends[*n] = b;
		(*n)++;
	}
}

static void test_bare_array_and_pretty(void **state)
{
	(void)state;
	size_t s[8], e[8], n;
	const char *a = "[{\"ph\": \"X\"}, {\"ph\": \"M\"}]";
	assert_int_equal(walk(a, s, e, &n, NULL), JSCAN_END);
	assert_int_equal(n, 2);
	assert_memory_equal(a + s[1], "{\"ph\": \"M\"}", e[1] - s[1]);
	const char *p = "\xEF\xBB\xBF\n[\n    {\n        \"ph\": \"X\"\n    },\n    {\n        \"a\": [1, {\"b\": 2}]\n    }\n]\n";
	assert_int_equal(walk(p, s, e, &n, NULL), JSCAN_END);
	assert_int_equal(n, 2);
	assert_int_equal(p[e[1] - 1], '}');
	assert_int_equal(walk("[]", s, e, &n, NULL), JSCAN_END);
	assert_int_equal(n, 0);
}

static void test_wrapper_found_after_other_members(void **state)
{
	(void)state;
	size_t s[8], e[8], n;
	/* the member before traceEvents holds strings with braces, brackets and escaped quotes */
	const char *w = "{\"otherData\": {\"x\": \"}]{[\\\"\", \"y\": [1,2]}, \"displayTimeUnit\": \"ns\","
			" \"traceEvents\": [{\"ph\": \"X\"}], \"more\": {\"z\": \"}, {\"}}";
	struct jscan js;
	struct sbuf err = SBUF_INIT;
	assert_true(jscan_open(&js, w, strlen(w), &err));
	assert_int_equal(js.shape, JSCAN_WRAPPED);
	assert_int_equal(walk(w, s, e, &n, NULL), JSCAN_END);
	assert_int_equal(n, 1);
	assert_false(jscan_open(&js, "{\"a\": 1}", 8, &err));
	assert_non_null(strstr(err.buf, "traceEvents"));
	sbuf_reset(&err);
	assert_false(jscan_open(&js, "   ", 3, &err));
	sbuf_reset(&err);
	assert_false(jscan_open(&js, "\x01\x02", 2, &err));
	assert_non_null(strstr(err.buf, "byte 0"));
	sbuf_free(&err);
}

static void test_strings_that_look_like_structure(void **state)
{
	(void)state;
	size_t s[8], e[8], n;
	const char *t = "[{\"name\": \"a}, {b\\\\\", \"c\": \"\\\"}]\"}, {\"name\": \"[{\"}]";
	assert_int_equal(walk(t, s, e, &n, NULL), JSCAN_END);
	assert_int_equal(n, 2);
	assert_memory_equal(t + s[1], "{\"name\": \"[{\"}", e[1] - s[1]);
}

static void test_truncated_tail_keeps_complete_elements(void **state)
{
	(void)state;
	size_t s[8], e[8], n, pos;
	const char *full = "[{\"ph\": \"X\", \"ts\": \"1.000\"}, {\"ph\": \"X\", \"ts\": \"2.000\"}]";
	size_t len = strlen(full);
	/* cut at every byte: the elements that end before the cut survive, never more */
	for (size_t cut = 1; cut < len; cut++) {
		char *buf = strndup(full, cut);
		enum jscan_status st = walk(buf, s, e, &n, &pos);
		size_t complete = 0;
		for (size_t k = 0; k < 2; k++) {
			size_t end_k = k == 0 ? strlen("[{\"ph\": \"X\", \"ts\": \"1.000\"}")
					      : len - 1;
			complete += end_k <= cut;
		}
		assert_int_equal(st, JSCAN_TRUNCATED);
		assert_int_equal(n, complete);
		free(buf);
	}
	assert_int_equal(walk(full, s, e, &n, NULL), JSCAN_END);
}

static void test_garbage_between_elements_is_reported(void **state)
{
	(void)state;
	size_t s[8], e[8], n, pos;
	const char *g = "[{\"ph\": \"X\"}, \x01\x02 {\"ph\": \"X\"}]";
	assert_int_equal(walk(g, s, e, &n, &pos), JSCAN_ERROR);
	assert_int_equal(n, 1);
	assert_int_equal(pos, 14);
}

static void test_deep_nesting_does_not_recurse(void **state)
{
	(void)state;
	size_t depth = 100000;
	char *buf = malloc(2 * depth + 8);
	size_t k = 0;
	buf[k++] = '[';
	for (size_t i = 0; i < depth; i++)
		buf[k++] = '[';
	for (size_t i = 0; i < depth; i++)
		buf[k++] = ']';
	buf[k++] = ']';
	buf[k] = '\0';
	size_t s[4], e[4], n;
	assert_int_equal(walk(buf, s, e, &n, NULL), JSCAN_END);
	assert_int_equal(n, 1);
	assert_int_equal(e[0] - s[0], 2 * depth);
	free(buf);
}

static void test_resync_finds_boundaries(void **state)
{
	(void)state;
	const char *t = "[{\"a\": 1},\n  {\"b\": 2}, {\"c\": \"}, {\"}]";
	size_t at = jscan_resync(t, strlen(t), 2);
	assert_int_equal(t[at], '{');
	assert_memory_equal(t + at, "{\"b\"", 4);
	/* a "}, {" inside a string is a plausible but wrong guess: resync may return it;
	 * the loader must confirm guesses (tested in test_trace) */
	size_t inside = jscan_resync(t, strlen(t), at + 1);
	assert_true(inside != (size_t)-1);
	assert_int_equal(jscan_resync("[{}]", 4, 1), (size_t)-1);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_bare_array_and_pretty),
		cmocka_unit_test(test_wrapper_found_after_other_members),
		cmocka_unit_test(test_strings_that_look_like_structure),
		cmocka_unit_test(test_truncated_tail_keeps_complete_elements),
		cmocka_unit_test(test_garbage_between_elements_is_reported),
		cmocka_unit_test(test_deep_nesting_does_not_recurse),
		cmocka_unit_test(test_resync_finds_boundaries),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
