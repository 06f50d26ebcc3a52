/* SPDX-License-Identifier: MIT */
/* CSV output of :export: quoting as RFC 4180 reads it back, and files written only where
 * asked: never inside a capture (through symlinks too), never over an existing file
 * unless told. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "csvw.h"
#include "testutil.h"

static char *row_text(const char *const *cells, size_t n)
{
	char *buf = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&buf, &len);
	csvw_row(f, cells, n);
	fclose(f);
	return buf;
}

/* csvw_open with err holding this call's reason only */
static FILE *open_csv(const char *path, const char *const *roots, size_t n, bool overwrite, struct sbuf *err)
{
	sbuf_reset(err);
	return csvw_open(path, roots, n, overwrite, err);
}

static void test_quoting(void **state)
{
	(void)state;
	const char *plain[] = {"aten::mm", "12.5", NULL};
	char *t = row_text(plain, 3);
	assert_string_equal(t, "aten::mm,12.5,\r\n");
	free(t);
	/* commas, quotes, line breaks and edge spaces are quoted, quotes doubled */
	const char *hard[] = {"a,b", "say \"hi\"", "two\nlines", " pad", "量化矩阵乘"};
	t = row_text(hard, 5);
	assert_string_equal(t, "\"a,b\",\"say \"\"hi\"\"\",\"two\nlines\",\" pad\",量化矩阵乘\r\n");
	free(t);
}

static void test_paths(void **state)
{
	(void)state;
	char *dir = tu_tmpdir();
	char *cap = tu_write_str(dir, "cap/rank0/trace_view.json", "[]");
	char root[4096], out[4096], link[4096], inside[4096], sibling[4096];
	snprintf(root, sizeof root, "%s/cap", dir);
	snprintf(inside, sizeof inside, "%s/cap/rank0/ops.csv", dir);
	snprintf(sibling, sizeof sibling, "%s/capture2/ops.csv", dir);
	snprintf(out, sizeof out, "%s/ops.csv", dir);
	snprintf(link, sizeof link, "%s/alias", dir);
	assert_int_equal(symlink(root, link), 0);
	assert_true(csvw_path_inside(inside, root));
	assert_true(csvw_path_inside(root, root));
	assert_false(csvw_path_inside(out, root));
	/* a directory named like the capture's with more after it is not inside */
	tu_sh("mkdir -p '%s/capture2'", dir);
	assert_false(csvw_path_inside(sibling, root));
	/* through a symlink to the capture */
	char via[4200];
	snprintf(via, sizeof via, "%s/rank0/x.csv", link);
	assert_true(csvw_path_inside(via, root));
	/* a capture given as a file: its directory counts */
	assert_true(csvw_path_inside(inside, cap));

	const char *roots[2] = {root, NULL};
	struct sbuf err = SBUF_INIT;
	FILE *f = open_csv(via, roots, 2, true, &err);
	assert_null(f);
	assert_non_null(strstr(err.buf, "inside the capture"));
	assert_int_equal(access(via, F_OK), -1); /* nothing was created */
	f = open_csv(out, roots, 2, false, &err);
	assert_non_null(f);
	const char *cells[] = {"x"};
	csvw_row(f, cells, 1);
	assert_int_equal(fclose(f), 0);
	/* an existing file is kept unless overwriting */
	assert_null(open_csv(out, roots, 2, false, &err));
	assert_non_null(strstr(err.buf, "exists"));
	f = open_csv(out, roots, 2, true, &err);
	assert_non_null(f);
	fclose(f);
	size_t len = 99;
	char *back = tu_read(out, &len);
	assert_int_equal(len, 0); /* truncated */
	free(back);
	/* a directory that does not exist */
	char missing[4200];
	snprintf(missing, sizeof missing, "%s/no/such/dir.csv", dir);
	assert_null(open_csv(missing, roots, 2, false, &err));
	assert_non_null(strstr(err.buf, "cannot write"));
	sbuf_free(&err);
	free(cap);
	tu_rmtree(dir);
	free(dir);
}

/* Issue 41, item 4 (a): links that lead into the capture, or onto its files. */
static void test_links(void **state)
{
	(void)state;
	char *dir = tu_tmpdir();
	char *cap_file = tu_write_str(dir, "cap/rank0/kernel_details.csv", "Name\r\nMatMul\r\n");
	tu_sh("mkdir -p '%s/out'", dir);
	char root[4096], p[4200], target[4200];
	snprintf(root, sizeof root, "%s/cap", dir);
	const char *roots[1] = {root};
	struct sbuf err = SBUF_INIT;
	/* a dangling symlink outside that points into the capture: :export! followed it */
	snprintf(p, sizeof p, "%s/out/dangling.csv", dir);
	snprintf(target, sizeof target, "%s/cap/rank0/new.csv", dir);
	assert_int_equal(symlink(target, p), 0);
	assert_true(csvw_path_inside(p, root));
	assert_null(open_csv(p, roots, 1, true, &err));
	assert_non_null(strstr(err.buf, "inside the capture"));
	assert_int_equal(access(target, F_OK), -1);
	/* the same through a relative link, several levels missing */
	snprintf(p, sizeof p, "%s/out/deep.csv", dir);
	assert_int_equal(symlink("../cap/rank0/a/b/c.csv", p), 0);
	assert_null(open_csv(p, roots, 1, true, &err));
	assert_non_null(strstr(err.buf, "inside the capture"));
	/* a symlink to a file outside: not followed either (the file itself is asked for) */
	snprintf(p, sizeof p, "%s/out/link.csv", dir);
	snprintf(target, sizeof target, "%s/out/real.csv", dir);
	free(tu_write_str(dir, "out/real.csv", "keep"));
	assert_int_equal(symlink(target, p), 0);
	assert_null(open_csv(p, roots, 1, true, &err));
	assert_non_null(strstr(err.buf, "symbolic link"));
	size_t len;
	char *back = tu_read(target, &len);
	assert_int_equal(len, 4); /* untouched */
	free(back);
	/* a hard link outside to a capture's file: truncating it would change the capture */
	snprintf(p, sizeof p, "%s/out/hard.csv", dir);
	assert_int_equal(link(cap_file, p), 0);
	assert_null(open_csv(p, roots, 1, true, &err));
	assert_non_null(strstr(err.buf, "hard links"));
	back = tu_read(cap_file, &len);
	assert_int_equal(len, strlen("Name\r\nMatMul\r\n"));
	free(back);
	/* a FIFO: refused at once, never waiting for a reader */
	snprintf(p, sizeof p, "%s/out/fifo.csv", dir);
	assert_int_equal(mkfifo(p, 0600), 0);
	alarm(10);
	assert_null(open_csv(p, roots, 1, true, &err));
	alarm(0);
	assert_non_null(strstr(err.buf, "fifo.csv"));
	sbuf_free(&err);
	free(cap_file);
	tu_rmtree(dir);
	free(dir);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_quoting),
		cmocka_unit_test(test_paths),
		cmocka_unit_test(test_links),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
