/* SPDX-License-Identifier: MIT */
/* String interning: dense ids, stable pointers, embedded NULs, growth. */
#include <stdio.h>
#include <string.h>

#include "strtab.h"
#include "testutil.h"

static void test_ids_are_dense_and_stable(void **state)
{
	(void)state;
	struct strtab *st = strtab_new();
	assert_int_equal(strtab_count(st), 1);
	assert_string_equal(strtab_str(st, 0), "");
	uint32_t a = strtab_intern_cstr(st, "aten::mm");
	uint32_t b = strtab_intern_cstr(st, "MatMulV2");
	assert_int_equal(a, 1);
	assert_int_equal(b, 2);
	assert_int_equal(strtab_intern_cstr(st, "aten::mm"), a);
	const char *p = strtab_str(st, a);
	/* many more strings: rehashing must not move earlier strings */
	char buf[32];
	for (int i = 0; i < 100000; i++) {
		snprintf(buf, sizeof buf, "op_%d", i);
		assert_int_equal(strtab_intern_cstr(st, buf), (uint32_t)i + 3);
	}
	assert_ptr_equal(strtab_str(st, a), p);
	assert_string_equal(p, "aten::mm");
	assert_int_equal(strtab_find(st, "op_99999", 8), 100002);
	assert_int_equal(strtab_find(st, "absent", 6), STRTAB_NONE);
	strtab_free(st);
	strtab_free(NULL);
}

static void test_embedded_nul_and_prefixes(void **state)
{
	(void)state;
	struct strtab *st = strtab_new();
	uint32_t x = strtab_intern(st, "a\0b", 3);
	uint32_t y = strtab_intern(st, "a", 1);
	assert_int_not_equal(x, y);
	assert_int_equal(strtab_len(st, x), 3);
	assert_memory_equal(strtab_str(st, x), "a\0b", 3);
	strtab_free(st);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_ids_are_dense_and_stable),
		cmocka_unit_test(test_embedded_nul_and_prefixes),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
