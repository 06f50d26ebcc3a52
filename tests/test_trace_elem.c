/* SPDX-License-Identifier: MIT */
/* The fast element scanner against jsmn, the oracle: whenever the scanner answers, its
 * element end and every field must be exactly what the jsmn path gives. Checked on
 * hand-made corner cases, on every element of generated and real traces, and on hundreds
 * of thousands of deterministic mutations of them (byte flips, cuts, insertions); and at
 * the loader level, a store read either way must be the same. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "json_scan.h"
#include "trace.h"
#include "trace_elem.h"
#include "testutil.h"

static struct jtok jt;
static size_t fast_answers, unsure;

/* The contract for one input buffer (an element at its start): elem_crosscheck. */
static void check_one(const char *buf, size_t len)
{
	struct sbuf why = SBUF_INIT;
	switch (elem_crosscheck(&jt, buf, len, &why)) {
	case ELEM_LEFT_TO_JSMN: unsure++; return;
	case ELEM_AGREE: fast_answers++; return;
	case ELEM_DISAGREE: fail_msg("%s", why.buf);
	}
}

static void check_str(const char *s) { check_one(s, strlen(s)); }

static void test_corner_cases(void **state)
{
	(void)state;
	static const char *cases[] = {
		"{}",
		"{ }",
		"{\"ph\": \"X\"}",
		"{\"ph\":\"X\",\"name\":\"a\",\"ts\":\"1.5\",\"dur\":2,\"pid\":1,\"tid\":\"t\",\"cat\":\"c\"}",
		"{\n    \"ph\": \"X\",\n    \"args\": {\n        \"Task Type\": \"AI_CORE\"\n    }\n}",
		/* key order, duplicates (the last top-level one wins, the first args one) */
		"{\"name\": \"a\", \"name\": \"b\", \"ph\": \"X\", \"args\": {\"Task Type\": \"A\", \"Task Type\": \"B\"}}",
		"{\"args\": {\"Task Type\": \"A\"}, \"args\": {\"name\": \"n\"}, \"ph\": \"M\", \"name\": \"thread_name\"}",
		"{\"args\": 5, \"ph\": \"X\"}",
		"{\"args\": [1, {\"x\": 2}], \"ph\": \"X\"}",
		/* escapes: in values, in keys, escaped quotes and backslashes */
		"{\"name\": \"a\\\"b\\\\c\\/d\\u00e9\\n\", \"ph\": \"X\"}",
		"{\"na\\u006de\": \"x\", \"ph\": \"X\"}",
		"{\"name\": \"\\ud83d\\ude00\", \"ph\": \"X\"}",
		"{\"name\": \"bad \\x escape\"}",
		"{\"name\": \"bad \\u12G4 escape\"}",
		"{\"name\": \"ends with backslash\\\\\"}",
		/* numbers and primitives as jsmn sees them */
		"{\"ts\": 1736408883674584.732, \"dur\": -0, \"pid\": 1e3, \"tid\": true, \"id\": null}",
		"{\"ts\": 12:34, \"ph\": \"X\"}",
		"{\"ts\": 1.2.3, \"ph\": \"X\"}",
		"{\"ts\": nan}",
		"{\"ts\": +1}",
		"{\"ts\": .5}",
		"{\"id\": 40004068119343529983, \"ph\": \"f\", \"bp\": \"e\"}",
		/* counters: the first numeric args member */
		"{\"ph\": \"C\", \"name\": \"HBM\", \"args\": {\"label\": \"x\", \"KB\": 9069036.0, \"MHz\": 1}}",
		"{\"args\": {\"value\": \"12\"}, \"ph\": \"C\", \"processName\": \"APP/DDR\"}",
		"{\"args\": {\"value\": {\"Read(B/s)\": 1}}, \"ph\": \"C\"}",
		/* found by fuzz_elem: a later "ph" makes it a counter after its args were read */
		"{\"ph\": 20640, \"args\": {\"KB\": 9067518.0}, \"ph\": \"C\"}",
		"{\"AprocessName\":\"HBM\",\"ts\":\"1736408890427377.318\",\"pid\":317080512,\"tId\":0,"
		"\"args\":{\"labels\":\"NPU\"},\"ph\":20640,\"tid\":0,\"args\":{\"KB\":9067518.0},\"ph\":\"C\"}",
		/* keys read as one word ("ph": ) and their near misses, read the long way */
		"{\"ph\":  \"X\", \"pid\":\t1, \"tid\": \n2, \"ts\": \"1.000\", \"dur\":3}",
		"{\"ph\": \"X\", \"phh\": \"Y\", \"pi\": 1, \"names\": \"n\", \"nam\": \"m\", \"arg\": {}}",
		"{\"ph\": \"C\", \"args\": {\"KB\": 1}, \"args\": {\"MB\": 2}, \"ph\": \"X\"}",
		"{\"p\\u0068\": \"X\", \"name\": \"a\"}",
		"{\"name\": ",
		"{\"ph\": \"X\", \"ts\": ",
		"{\"ph\": \"X\", \"args\": ",
		"{\"ph\": \"X\", \"id\": ,}",
		"{\"bp\": \"e\", \"cat\": \"c\", \"id\": \"7\", \"ph\": \"f\"}",
		/* broken or odd: the scanner must not answer differently from jsmn */
		"{\"ph\": \"X\",}",
		"{\"ph\" \"X\"}",
		"{\"ph\": \"X\" \"name\": \"a\"}",
		"{,}",
		"{\"a\": [1,]}",
		"{\"a\": {\"b\": }}",
		"{\"a\": \"x\"} trailing",
		"{\"a\": 1",
		"{\"a\": \"unterminated",
		"{\"a\": [[[[[[[[[[[[[[[[[[[[]]]]]]]]]]]]]]]]]]]]}",
		"{1: 2}",
		"{\"a\": 'x'}",
		"{\"a\": \"tab\tin string\"}",
		"{\"a\": tr\x01ue}",
		"{\"a\": \"\xff\xfe invalid utf-8\"}",
	};
	for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++)
		check_str(cases[i]);
	/* a NUL inside: jsmn stops there */
	check_one("{\"name\": \"a\0b\", \"ph\": \"X\"}", 27);
	check_one("{\"ph\": \"X\"\0}", 12);
	/* deep nesting beyond the scanner's limit goes to jsmn */
	char deep[400];
	size_t k = 0;
	deep[k++] = '{';
	memcpy(deep + k, "\"a\": ", 5);
	k += 5;
	for (int i = 0; i < 100; i++)
		deep[k++] = '[';
	for (int i = 0; i < 100; i++)
		deep[k++] = ']';
	deep[k++] = '}';
	check_one(deep, k);
	assert_true(fast_answers > 20);
	assert_true(unsure > 10);
}

static uint64_t rng = 0x2545F4914F6CDD1DULL;
static uint64_t next(void)
{
	rng ^= rng >> 12;
	rng ^= rng << 25;
	rng ^= rng >> 27;
	return rng * 2685821657736338717ULL;
}

/* Every element of a file, then mutations of a sample of them. */
static void check_file(const char *path, size_t mutations)
{
	size_t len;
	char *buf = tu_read(path, &len);
	assert_non_null(buf);
	struct jscan js;
	struct sbuf err = SBUF_INIT;
	assert_true(jscan_open(&js, buf, len, &err));
	size_t start, end, n = 0;
	char *m = malloc(1 << 20);
	while (jscan_next(&js, &start, &end) == JSCAN_ELEMENT) {
		check_one(buf + start, len - start);
		n++;
		if (mutations && end - start < (1u << 19)) {
			size_t el = end - start;
			for (size_t r = 0; r < 40 && mutations; r++, mutations--) {
				memcpy(m, buf + start, el);
				size_t ml = el;
				switch (next() % 5) {
				case 0: m[next() % ml] = (char)next(); break;                  /* flip a byte */
				case 1: ml = 1 + next() % ml; break;                              /* cut */
				case 2: m[next() % ml] = "\"{}[],:\\ \0"[next() % 10]; break;  /* structure */
				case 3: {                                                         /* insert */
					size_t at = next() % ml;
					memmove(m + at + 1, m + at, ml - at);
					m[at] = "\"\\,:{}[] x0-.eE"[next() % 15];
					ml++;
					break;
				}
				default: {                                                        /* swap two */
					size_t x = next() % ml, y = next() % ml;
					char t = m[x];
					m[x] = m[y];
					m[y] = t;
				}
				}
				check_one(m, ml);
			}
		}
	}
	assert_true(n > 0);
	free(m);
	free(buf);
}

/* The instruction sets against each other at their widths' edges: a string and a number
 * of every length up to 80 (16- and 32-byte loads end at every offset), with a quote,
 * backslash escape, NUL, control byte or structural byte at every position, and the
 * element cut at every length. elem_crosscheck runs every set the CPU has against the
 * portable one and jsmn; the scanner must answer (not leave to jsmn) the plain cases. */
static void test_isa_edges(void **state)
{
	(void)state;
	assert_true(elem_isa_available(ELEM_ISA_SCALAR));
	assert_true(elem_isa_available(elem_isa_used()));
	assert_string_equal(elem_isa_name(ELEM_ISA_NEON), "neon");
#if defined(__aarch64__)
	/* every aarch64 CPU has NEON: elem_crosscheck below must run it */
	assert_true(elem_isa_available(ELEM_ISA_NEON));
#else
	assert_false(elem_isa_available(ELEM_ISA_NEON));
#endif
	/* the default: SSE2 on x86-64, NEON on aarch64, else the byte loops */
	if (!getenv("ASCPROF_SCAN"))
		assert_int_equal(elem_isa_used(), elem_isa_available(ELEM_ISA_SSE2)   ? ELEM_ISA_SSE2
						  : elem_isa_available(ELEM_ISA_NEON) ? ELEM_ISA_NEON
										      : ELEM_ISA_SCALAR);
	static const char *const odd[] = {"\"", "\\\"", "\\n", "\\u00e9", "\\x", "\x01", "\x7f", "\xc3\xa9",
					  ",", "}", "]", "{", "[", " ", "\t", "e", "."};
	char body[128], buf[512];
	size_t before = fast_answers;
	for (size_t len = 0; len <= 80; len++) {
		for (size_t at = 0; at <= len; at++) {
			for (size_t k = 0; k <= sizeof odd / sizeof odd[0]; k++) {
				size_t n = 0;
				for (size_t i = 0; i < len; i++)
					body[n++] = (char)('a' + i % 26);
				if (k < sizeof odd / sizeof odd[0]) {
					size_t ol = strlen(odd[k]);
					memmove(body + at + ol, body + at, n - at);
					memcpy(body + at, odd[k], ol);
					n += ol;
				}
				/* a string value, a key, and a primitive of digits */
				int m = snprintf(buf, sizeof buf, "{\"ph\": \"X\", \"name\": \"%.*s\", \"%.*s\": 1, \"ts\": 1%.*s}",
						 (int)n, body, (int)n, body, (int)len, "01234567890123456789012345678901234567890123456789012345678901234567890123456789");
				check_one(buf, (size_t)m);
				if (k == sizeof odd / sizeof odd[0])
					for (int cut = m - 1; cut > m - 40 && cut > 0; cut -= 3)
						check_one(buf, (size_t)cut);
				/* a number with the odd byte inside */
				m = snprintf(buf, sizeof buf, "{\"ts\": 1%.*s%s%.*s, \"ph\": \"X\"}", (int)at,
					     "01234567890123456789012345678901234567890123456789012345678901234567890123456789",
					     k < sizeof odd / sizeof odd[0] ? odd[k] : "", (int)(len - at),
					     "01234567890123456789012345678901234567890123456789012345678901234567890123456789");
				check_one(buf, (size_t)m);
			}
		}
	}
	assert_true(fast_answers - before > 50000);
}

static void test_generated_traces(void **state)
{
	(void)state;
	if (!tu_gen())
		skip();
	static const char *variants[] = {"", "--minify", "--pretty --call-stack", "--hostile --chinese", "--wrapper"};
	for (size_t i = 0; i < sizeof variants / sizeof variants[0]; i++) {
		char args[128];
		snprintf(args, sizeof args, "--ranks 1 --seed %zu --steps 3 --ops 60 %s", i + 20, variants[i]);
		char *dir = tu_generate(args);
		char cmd[4200];
		snprintf(cmd, sizeof cmd, "ls %s/*/ASCEND_PROFILER_OUTPUT/trace_view.json > %s.list", dir, dir);
		assert_int_equal(system(cmd), 0);
		char listp[4200];
		snprintf(listp, sizeof listp, "%s.list", dir);
		char *list = tu_read(listp, NULL);
		list[strcspn(list, "\n")] = '\0';
		check_file(list, 100000);
		free(list);
		char *parent = strdup(dir);
		*strrchr(parent, '/') = '\0';
		tu_rmtree(parent);
		free(parent);
		free(dir);
	}
}

static void test_real_traces(void **state)
{
	(void)state;
	static const char *rel[] = {
		"msinsight/test/data/pytorch/text/level1/rank0_ascend_pt/ASCEND_PROFILER_OUTPUT/trace_view.json",
		"msinsight/test/data/pytorch/text/level0/rank1_ascend_pt/ASCEND_PROFILER_OUTPUT/trace_view.json",
		"vllm-ascend/prof_unpack/PROF_GROUP_20260823_165254/PROF_Memory/PROF_000001_20260823165413436_00626258NIRJNPIC/mindstudio_profiler_output/msprof_20260823165420.json",
		"msinsight/server/src/test/fuzz/test_data/trace_view_tiny.json",
	};
	bool any = false;
	for (size_t i = 0; i < sizeof rel / sizeof rel[0]; i++) {
		char *p = tu_real(rel[i]);
		if (!p)
			continue;
		any = true;
		check_file(p, 400000);
		free(p);
	}
	if (!any)
		skip();
}

/* The loader, fast path or jsmn alone: the same store. */
static void test_loader_paths_agree(void **state)
{
	(void)state;
	char *p = tu_real("msinsight/test/data/pytorch/text/level1/rank1_ascend_pt/ASCEND_PROFILER_OUTPUT/trace_view.json");
	if (!p)
		skip();
	struct rank_store a, b;
	store_init(&a);
	store_init(&b);
	struct trace_load_opts fast = {.threads = 1}, ref = {.threads = 1, .jsmn_only = true};
	assert_int_equal(trace_load(&a, p, &fast, NULL), 0);
	assert_int_equal(trace_load(&b, p, &ref, NULL), 0);
	assert_true(a.trace.fast_elements > 0);
	assert_int_equal(b.trace.fast_elements, 0);
	assert_memory_equal(&a.ph, &b.ph, sizeof a.ph);
	assert_int_equal(a.n_ev, b.n_ev);
	assert_int_equal(a.n_ctr, b.n_ctr);
	assert_int_equal(a.n_links, b.n_links);
	for (size_t e = 0; e < a.n_ev; e++) {
		assert_true(store_ts(&a, e) == store_ts(&b, e) && store_dur(&a, e) == store_dur(&b, e) && store_ev_off(&a, e) == store_ev_off(&b, e));
		assert_string_equal(store_ev_name(&a, e), store_ev_name(&b, e));
		assert_string_equal(store_str(&a, store_ev_attr(&a, e)->task_type),
				    store_str(&b, store_ev_attr(&b, e)->task_type));
	}
	for (size_t c = 0; c < a.n_ctr; c++)
		assert_true(a.ctr_ts[c] == b.ctr_ts[c] &&
			    (a.ctr_value[c] == b.ctr_value[c] || (a.ctr_value[c] != a.ctr_value[c] && b.ctr_value[c] != b.ctr_value[c])));
	store_free(&a);
	store_free(&b);
	free(p);
}

static int setup(void **state)
{
	(void)state;
	jtok_init(&jt);
	return 0;
}

static int teardown(void **state)
{
	(void)state;
	jtok_free(&jt);
	fprintf(stderr, "fast scanner answered %zu inputs (all equal to jsmn), left %zu to jsmn\n", fast_answers,
		unsure);
	return 0;
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_corner_cases),
		cmocka_unit_test(test_isa_edges),
		cmocka_unit_test(test_generated_traces),
		cmocka_unit_test(test_real_traces),
		cmocka_unit_test(test_loader_paths_agree),
	};
	return cmocka_run_group_tests(tests, setup, teardown);
}
