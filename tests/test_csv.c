/* SPDX-License-Identifier: MIT */
/* CSV tables: the byte-level mess of real exports, the alias table, lazy rows. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#include <unistr.h>

#include "csv_table.h"
#include "num.h"
#include "sanitize.h"
#include "sbuf.h"
#include "testutil.h"

static struct csv_table *load(const char *name, const char *text, struct diag_list *dl)
{
	return csvt_load_buffer(name, text, strlen(text), dl);
}

/* A file that shrinks under the parse (issue 22): 64 KB of equal rows mapped, then cut to
 * 32 KB (a page boundary: the reads past it fault) or to 20000 bytes (mid-page: the rest of
 * that page reads as zeros). The rows of the whole lines before the new end are kept, and
 * the message gives the offset. */
static void test_file_shrinking_under_the_parse(void **state)
{
	(void)state;
	static const char hdr[] = "OP Type,Core Type,Count,Total Time(us)\n";
	struct sbuf sb = SBUF_INIT;
	sbuf_adds(&sb, hdr);
	size_t row_len = 0;
	for (int i = 0; sb.len < 65536; i++) {
		size_t before = sb.len;
		sbuf_addf(&sb, "Op%06d,AI_CORE,%06d,1.5\n", i, i);
		row_len = sb.len - before;
	}
	const size_t cuts[] = {32768, 20000};
	for (size_t k = 0; k < 2; k++) {
		char *dir = tu_tmpdir();
		int fd;
		void *map = tu_map_then_truncate(dir, "op_statistic.csv", sb.buf, sb.len, cuts[k], &fd);
		char *path;
		assert_true(asprintf(&path, "%s/op_statistic.csv", dir) > 0);
		struct diag_list dl;
		diag_init(&dl);
		struct csv_table *t = csvt_load_map(path, fd, map, sb.len, &dl);
		assert_non_null(t);
		size_t rows = (cuts[k] - (sizeof hdr - 1)) / row_len; /* whole lines only */
		assert_int_equal(t->nrows, rows);
		size_t end = sizeof hdr - 1 + rows * row_len;
		char want[200];
		snprintf(want, sizeof want, "the file shrank while it was read (from %zu to %zu bytes): kept the %zu rows",
			 sb.len, cuts[k], rows);
		bool said = false;
		for (size_t i = 0; i < dl.n; i++)
			said |= strstr(dl.items[i].msg, want) && dl.items[i].offset == (int64_t)end;
		if (!said)
			for (size_t i = 0; i < dl.n; i++)
				print_message("%lld %s\n", (long long)dl.items[i].offset, dl.items[i].msg);
		assert_true(said);
		assert_int_equal(diag_count(&dl, DIAG_WARN), 1);
		csvt_free(t);
		diag_free(&dl);
		munmap(map, sb.len);
		close(fd);
		tu_rmtree(dir);
		free(path);
		free(dir);
	}
	sbuf_free(&sb);
}

static bool diag_has(struct diag_list *dl, const char *needle, long line)
{
	for (size_t i = 0; i < dl->n; i++)
		if (strstr(dl->items[i].msg, needle) && (line < 0 || dl->items[i].line == line))
			return true;
	return false;
}

/* Shaped like the real level1 kernel_details.csv: CRLF, a TAB after the timestamp (once
 * inside quotes), triple-quoted shapes, N/A cells, Block Dim spelling. */
static const char kernel_csv[] =
	"Step Id,Model ID,Task ID,Stream ID,Name,Type,OP State,Accelerator Core,Start Time(us),"
	"Duration(us),Wait Time(us),Block Dim,Mix Block Dim,HF32 Eligible,Input Shapes,Context ID,"
	"aic_mac_ratio,aiv_vec_ratio\r\n"
	"50,4294967295,11051,2,trans_TransData_0,TransData,dynamic,AI_VECTOR_CORE,1736408883704643.212\t,"
	"53.741,0,32,0,NO,\"\"\"32,3,224,224\"\"\",N/A,0.0,0.186\r\n"
	"50,4294967295,11052,2,MatMul,MatMulV2,dynamic,AI_CORE,\"1736408883704801.156\t\","
	"6.54,104.202,8,0,NO,\"\"\"64,3,11,11\"\"\",N/A,0.52,N/A\r\n"
	"50,N/A,N/A,N/A,hcom_allReduce__586_0_1,hcom_allReduce_,N/A,HCCL,1736408883732241.564\t,"
	"79089.520,0,N/A,N/A,N/A,,N/A,N/A,N/A\r\n";

static void test_real_shaped_kernel_details(void **state)
{
	(void)state;
	struct diag_list dl;
	diag_init(&dl);
	struct csv_table *t = load("kernel_details.csv", kernel_csv, &dl);
	assert_non_null(t);
	assert_int_equal(t->kind, CSV_KERNEL);
	assert_true(t->crlf);
	assert_int_equal(t->nrows, 3);
	assert_int_equal(t->ncols, 18);
	int64_t ns;
	assert_true(csvt_time(t, 0, COL_START, &ns));
	assert_true(ns == 1736408883704643212LL);
	assert_true(csvt_time(t, 1, COL_START, &ns)); /* the tab inside quotes */
	assert_true(ns == 1736408883704801156LL);
	assert_true(csvt_time(t, 2, COL_DURATION, &ns));
	assert_true(ns == 79089520);
	assert_string_equal(csvt_str(t, 0, COL_NAME), "trans_TransData_0");
	assert_string_equal(csvt_str(t, 1, COL_ACCEL_CORE), "AI_CORE");
	assert_string_equal(csvt_str(t, 0, COL_INPUT_SHAPES), "\"32,3,224,224\"");
	double d;
	assert_true(csvt_num(t, 0, COL_BLOCK_DIM, &d) && d == 32);  /* "Block Dim" */
	assert_false(csvt_num(t, 2, COL_BLOCK_DIM, &d));            /* N/A */
	assert_true(csvt_num(t, 0, COL_AIV_VEC_RATIO, &d) && d > 0.185 && d < 0.187);
	assert_false(csvt_num(t, 1, COL_AIV_VEC_RATIO, &d));
	assert_int_equal(csvt_line(t, 0), 2);
	assert_int_equal(csvt_line(t, 2), 4);
	assert_int_equal(t->ragged_rows, 0);
	/* drill-down: every cell, read again */
	struct csv_cells cells;
	assert_int_equal(csvt_row_cells(t, 1, &cells), 0);
	assert_int_equal(cells.n, 18);
	assert_string_equal(cells.cells[4], "MatMul");
	assert_string_equal(cells.cells[14], "\"64,3,11,11\"");
	csvt_cells_free(&cells);
	assert_int_equal(diag_count(&dl, DIAG_WARN), 0);
	csvt_free(t);
	diag_free(&dl);
}

static void test_class_b_spellings_map_to_the_same_columns(void **state)
{
	(void)state;
	const char *op_summary =
		"Device_id,Op Name,OP Type,Task Type,Task Start Time(us),Task Duration(us),"
		"Task Wait Time(us),Block Num,Mix Block Num\n"
		"0,MatMul,MatMulV2,AI_CORE,100.5,7.25,0,24,N/A\n";
	struct csv_table *t = load("op_summary_20260823165421.csv", op_summary, NULL);
	assert_non_null(t);
	assert_int_equal(t->kind, CSV_KERNEL);
	assert_string_equal(csvt_str(t, 0, COL_NAME), "MatMul");
	assert_string_equal(csvt_str(t, 0, COL_TYPE), "MatMulV2");
	assert_string_equal(csvt_str(t, 0, COL_ACCEL_CORE), "AI_CORE");
	int64_t ns;
	assert_true(csvt_time(t, 0, COL_DURATION, &ns) && ns == 7250);
	double d;
	assert_true(csvt_num(t, 0, COL_BLOCK_DIM, &d) && d == 24);
	csvt_free(t);

	/* µ vs u, spaces and case in headers */
	const char *mem = "Component,Timestamp (\xC2\xB5s),Total Allocated(MB),Total Reserved(MB)\n"
			  "APP,1736408883573957.920\t,,2109.6015625\n";
	t = load("memory_record.csv", mem, NULL);
	assert_non_null(t);
	assert_int_equal(t->kind, CSV_MEMORY_RECORD);
	assert_true(csvt_time(t, 0, COL_TIMESTAMP, &ns) && ns == 1736408883573957920LL);
	assert_false(csvt_num(t, 0, COL_TOTAL_ALLOCATED_MB, &d));
	csvt_free(t);

	const struct { const char *header; enum csv_kind kind; } kinds[] = {
		{"Step,Computing,Communication(Not Overlapped),Overlapped,Communication,Free,Stage,Bubble,"
		 "Communication(Not Overlapped and Exclude Receive)\n", CSV_STEP_TRACE},
		{"Device_id,Step,Computing,Communication(Not Overlapped),Overlapped,Communication,Free,Stage,"
		 "Bubble,Communication(Not Overlapped and Exclude Receive),Preparing\n", CSV_STEP_TRACE},
		{"OP Type,Core Type,Count,Total Time(us),Min Time(us),Avg Time(us),Max Time(us),Ratio(%)\n",
		 CSV_OP_STATISTIC},
		{"Device_id,Level,API Name,Time(us),Count,Avg(us),Min(us),Max(us),Variance\n", CSV_API_STATISTIC},
		{"Name,Input Shapes,Call Stack,Host Self Duration(us),Host Total Duration(us),Device Self "
		 "Duration(us),Device Total Duration(us),Device Self Duration With AICore(us),Device Total "
		 "Duration With AICore(us)\n", CSV_OPERATOR_DETAILS},
		{"Stream Id,Task Id,Hit Rate,Victim Rate,Op Name\n", CSV_L2_CACHE},
		{"a,b,c\n1,2,3\n", CSV_UNKNOWN},
	};
	for (size_t i = 0; i < sizeof kinds / sizeof kinds[0]; i++) {
		t = load("x.csv", kinds[i].header, NULL);
		assert_non_null(t);
		assert_int_equal(t->kind, kinds[i].kind);
		csvt_free(t);
	}
}

static void test_bom_gbk_and_multiline_cells(void **state)
{
	(void)state;
	/* GBK for 算子 is CB E3 D7 D3; the file is otherwise ASCII with a UTF-8 BOM */
	const char gbk[] = "\xEF\xBB\xBFName,Input Shapes,Call Stack,Host Self Duration(us),Host Total Duration(us)\n"
			   "\xCB\xE3\xD7\xD3_1,,\"a.py(1): f;\nb.py(2): g\",10.5,20\n"
			   "aten::mm,\"1,2\",,3,4\n";
	struct diag_list dl;
	diag_init(&dl);
	struct csv_table *t = csvt_load_buffer("operator_details.csv", gbk, sizeof gbk - 1, &dl);
	assert_non_null(t);
	assert_true(t->bom);
	assert_true(t->gbk);
	assert_int_equal(t->kind, CSV_OPERATOR_DETAILS);
	assert_string_equal(t->headers[0], "Name"); /* no BOM glued to the first header */
	assert_string_equal(csvt_str(t, 0, COL_NAME), "\xE7\xAE\x97\xE5\xAD\x90_1"); /* 算子 in UTF-8 */
	/* Call Stack and Host Self are not read by the analysis: not typed, read on drill-down */
	assert_false(csvt_has(t, COL_CALL_STACK));
	assert_false(csvt_has(t, COL_HOST_SELF));
	assert_int_equal(csvt_line(t, 0), 2);
	assert_int_equal(csvt_line(t, 1), 4); /* after the two-line cell */
	int64_t ns;
	assert_true(csvt_time(t, 0, COL_HOST_TOTAL, &ns) && ns == 20000);
	assert_true(diag_has(&dl, "GB18030", 2));
	struct csv_cells cells;
	assert_int_equal(csvt_row_cells(t, 0, &cells), 0);
	assert_int_equal(cells.n, 5);
	assert_string_equal(cells.cells[0], "\xE7\xAE\x97\xE5\xAD\x90_1");
	assert_string_equal(cells.cells[2], "a.py(1): f;\nb.py(2): g");
	assert_string_equal(cells.cells[3], "10.5");
	csvt_cells_free(&cells);
	csvt_free(t);
	diag_free(&dl);
}

static void test_ragged_excel_and_bad_numbers(void **state)
{
	(void)state;
	const char *text = "Name,Type,Accelerator Core,Start Time(us),Duration(us)\n"
			   "a,A,AI_CORE,1.69512E+15,1\n"
			   "b,B,AI_CORE,100\n"
			   "c,C,AI_CORE,200,2,extra\n"
			   "d,D,AI_CORE,300,oops\n";
	struct diag_list dl;
	diag_init(&dl);
	struct csv_table *t = load("kernel_details.csv", text, &dl);
	assert_non_null(t);
	assert_int_equal(t->nrows, 4);
	assert_int_equal(t->ragged_rows, 2);
	assert_int_equal(t->excel_numbers, 1);
	assert_true(diag_has(&dl, "exponent form", 2));
	assert_true(diag_has(&dl, "4 cells under a 5-column header", 3));
	assert_true(diag_has(&dl, "6 cells under a 5-column header", 4));
	assert_true(diag_has(&dl, "not a number", 5));
	int64_t ns;
	assert_true(csvt_time(t, 0, COL_START, &ns) && ns == 1695120000000000000LL);
	assert_false(csvt_time(t, 1, COL_DURATION, &ns)); /* the missing cell */
	assert_false(csvt_time(t, 3, COL_DURATION, &ns));
	assert_true(csvt_time(t, 2, COL_DURATION, &ns) && ns == 2000);
	csvt_free(t);
	diag_free(&dl);
}

static void test_empty_header_only_and_broken_quotes(void **state)
{
	(void)state;
	struct diag_list dl;
	diag_init(&dl);
	assert_null(csvt_load_buffer("empty.csv", "", 0, &dl));
	assert_true(diag_has(&dl, "empty file", -1));
	assert_null(load("bom.csv", "\xEF\xBB\xBF", &dl));
	assert_true(diag_has(&dl, "no header row", -1));

	struct csv_table *t = load("h.csv", "OP Type,Core Type,Count,Total Time(us)\r\n", &dl);
	assert_non_null(t);
	assert_int_equal(t->nrows, 0);
	assert_int_equal(t->kind, CSV_OP_STATISTIC);
	csvt_free(t);

	t = load("q.csv", "Name,Type,Accelerator Core,Start Time(us),Duration(us)\n"
			  "a,A,AI_CORE,1,1\n"
			  "\"b,B,AI_CORE,2,2\n"
			  "c,C,AI_CORE,3,3\n", &dl);
	assert_non_null(t);
	assert_int_equal(t->nrows, 2);
	assert_true(diag_has(&dl, "never closed", 3));
	csvt_free(t);
	diag_free(&dl);
}

static void test_unknown_columns_listed_once(void **state)
{
	(void)state;
	struct diag_list dl;
	diag_init(&dl);
	struct csv_table *t = load("k.csv", "Name,Type,Start Time(us),Duration(us),Brand New,Another\n"
					    "a,A,1,1,x,y\nb,B,2,2,x,y\n", &dl);
	assert_non_null(t);
	size_t infos = 0;
	for (size_t i = 0; i < dl.n; i++)
		if (strstr(dl.items[i].msg, "Brand New, Another"))
			infos++;
	assert_int_equal(infos, 1);
	struct csv_cells cells;
	assert_int_equal(csvt_row_cells(t, 1, &cells), 0);
	assert_string_equal(cells.cells[4], "x"); /* still there for drill-down */
	csvt_cells_free(&cells);
	csvt_free(t);
	diag_free(&dl);
}

/* Issue 22: a 10,000-column table made one 100 KB message line: at most 16 names, each
 * cut at 40 bytes (on a character boundary), then "...". */
static void test_unknown_columns_capped(void **state)
{
	(void)state;
	struct sbuf sb = SBUF_INIT;
	sbuf_adds(&sb, "Name,Type,Start Time(us),Duration(us)");
	for (int c = 0; c < 10000; c++)
		sbuf_addf(&sb, ",extra column %d \xE7\xAE\x97\xE5\xAD\x90\xE7\xAE\x97\xE5\xAD\x90\xE7\xAE\x97\xE5\xAD\x90"
			       "\xE7\xAE\x97\xE5\xAD\x90\xE7\xAE\x97\xE5\xAD\x90",
			  c);
	sbuf_adds(&sb, "\na,A,1,1\n");
	struct diag_list dl;
	diag_init(&dl);
	struct csv_table *t = csvt_load_buffer("k.csv", sb.buf, sb.len, &dl);
	assert_non_null(t);
	const char *msg = NULL;
	for (size_t i = 0; i < dl.n; i++)
		if (strstr(dl.items[i].msg, "not used by the analysis"))
			msg = dl.items[i].msg;
	assert_non_null(msg);
	assert_true(strlen(msg) < 1200);
	assert_non_null(strstr(msg, "10000 column(s) not used by the analysis, kept for drill-down: extra column 0 "));
	assert_non_null(strstr(msg, "extra column 15 "));
	assert_null(strstr(msg, "extra column 16 "));
	assert_non_null(strstr(msg, "..., extra column 1 "));
	assert_non_null(strstr(msg, "..., ..."));
	assert_null(sanitize_utf8_first_bad((const uint8_t *)msg, strlen(msg))); /* no cut character */
	csvt_free(t);
	diag_free(&dl);
	sbuf_free(&sb);
}

/* Issue 22: 1e400 in a timestamp column was "kept as read" (exponent form) and then "read
 * as missing" (out of range): one message, the true one. */
static void test_out_of_range_exponent_one_message(void **state)
{
	(void)state;
	struct diag_list dl;
	diag_init(&dl);
	struct csv_table *t = load("kernel_details.csv", "Name,Type,Start Time(us),Duration(us)\na,A,1e400,1\nb,B,1.5E+3,1\n", &dl);
	assert_non_null(t);
	int64_t ns;
	assert_false(csvt_time(t, 0, COL_START, &ns));
	assert_true(csvt_time(t, 1, COL_START, &ns) && ns == 1500000);
	assert_true(diag_has(&dl, "Start Time(us) \"1e400\" is out of range; read as missing", 2));
	assert_false(diag_has(&dl, "\"1e400\" is in exponent form", -1));
	assert_true(diag_has(&dl, "\"1.5E+3\" is in exponent form (rewritten by Excel?): precision lost, kept as read", 3));
	csvt_free(t);
	diag_free(&dl);
}

/* Issue 22: a UTF-16 table (with its byte order mark) is named as such and read,
 * drill-down included, in either byte order. */
static void test_utf16_read(void **state)
{
	(void)state;
	static const char text[] = "Name,Type,Start Time(us),Duration(us),Extra\n\xE7\xAE\x97,MatMul,10,2.5,x y\nb,B,20,1,z\n";
	for (int be = 0; be < 2; be++) {
		struct sbuf sb = SBUF_INIT;
		sbuf_adds(&sb, be ? "\xFE\xFF" : "\xFF\xFE");
		size_t n = 0;
		uint16_t *u16 = u8_to_u16((const uint8_t *)text, sizeof text - 1, NULL, &n);
		assert_non_null(u16);
		for (size_t k = 0; k < n; k++) {
			char b[2] = {(char)(u16[k] & 0xFF), (char)(u16[k] >> 8)};
			if (be) {
				char x = b[0];
				b[0] = b[1];
				b[1] = x;
			}
			sbuf_add(&sb, b, 2);
		}
		free(u16);
		struct diag_list dl;
		diag_init(&dl);
		struct csv_table *t = csvt_load_buffer("kernel_details.csv", sb.buf, sb.len, &dl);
		assert_non_null(t);
		assert_true(diag_has(&dl, be ? "UTF-16BE (byte order mark): read converted to UTF-8"
					     : "UTF-16LE (byte order mark): read converted to UTF-8", -1));
		assert_int_equal(diag_count(&dl, DIAG_WARN), 0);
		assert_int_equal(t->kind, CSV_KERNEL);
		assert_int_equal(t->nrows, 2);
		assert_string_equal(csvt_str(t, 0, COL_NAME), "\xE7\xAE\x97");
		int64_t ns;
		assert_true(csvt_time(t, 1, COL_START, &ns) && ns == 20000);
		struct csv_cells cells;
		assert_int_equal(csvt_row_cells(t, 0, &cells), 0);
		assert_int_equal(cells.n, 5);
		assert_string_equal(cells.cells[4], "x y");
		csvt_cells_free(&cells);
		csvt_free(t);
		diag_free(&dl);
		sbuf_free(&sb);
	}
}

static void test_real_level1_kernel_details(void **state)
{
	(void)state;
	TU_REAL_OR_SKIP(path, "msinsight/test/data/pytorch/text/level1/rank0_ascend_pt/ASCEND_PROFILER_OUTPUT/kernel_details.csv");
	struct diag_list dl;
	diag_init(&dl);
	struct csv_table *t = csvt_load(path, &dl);
	assert_non_null(t);
	/* 191 rows, 46 columns: python3 -c "import csv; r=list(csv.reader(open(P, newline='')));
	 * print(len(r)-1, len(r[0]))" */
	assert_int_equal(t->nrows, 191);
	assert_int_equal(t->ncols, 46);
	assert_int_equal(t->kind, CSV_KERNEL);
	int64_t ns;
	/* first row: Start Time "1736408883704643.212\t", Duration 53.741 */
	assert_true(csvt_time(t, 0, COL_START, &ns) && ns == 1736408883704643212LL);
	assert_true(csvt_time(t, 0, COL_DURATION, &ns) && ns == 53741);
	assert_int_equal(diag_count(&dl, DIAG_WARN), 0);
	csvt_free(t);
	diag_free(&dl);
	free(path);
}

/* The fast UTF-8 check gives u8_check's answer on random mixes of ASCII, valid
 * multi-byte characters, GBK pairs, surrogates, overlongs and cut sequences. */
static void test_utf8_check_matches_libunistring(void **state)
{
	(void)state;
	static const char *const pieces[] = {"a", "plain ascii text, ", "\xE4\xB8\xAD", "\xC3\xA9", "\xF0\x9F\x98\x80",
					     "\xD6\xD0", "\xED\xA0\x80", "\xC0\xAF", "\xE4\xB8", "\x80", "\xFF", "\n"};
	uint64_t rng = 12345;
	uint8_t buf[256];
	for (int k = 0; k < 200000; k++) {
		size_t n = 0;
		rng ^= rng << 13, rng ^= rng >> 7, rng ^= rng << 17;
		int count = (int)(rng % 12);
		for (int i = 0; i < count; i++) {
			rng ^= rng << 13, rng ^= rng >> 7, rng ^= rng << 17;
			const char *p = pieces[(rng % 100) < 80 ? rng % 2 : rng % (sizeof pieces / sizeof pieces[0])];
			size_t l = strlen(p);
			if (n + l > sizeof buf)
				break;
			memcpy(buf + n, p, l);
			n += l;
		}
		assert_ptr_equal(sanitize_utf8_first_bad(buf, n), u8_check(buf, n));
	}
}

/* The fast UTF-8 check's 64-byte ASCII runs (SSE2 or NEON: sanitize_isa_name) at their
 * edges, against u8_check: ASCII of every length up to 200 from every alignment; then one
 * odd sequence (valid or not, cut by the end when it runs past it) at every position of
 * ASCII of every length, alone and with a bad byte at the end (the runs resumed after it). */
static void test_utf8_check_vector_edges(void **state)
{
	(void)state;
	static const char *const odd[] = {"\x80", "\xBF", "\xFF", "\xC0\xAF", "\xC3\xA9", "\xC3",
					  "\xE4\xB8\xAD", "\xE4\xB8", "\xED\xA0\x80", "\xF0\x9F\x98\x80",
					  "\xF0\x9F\x98", "\xF4\x90\x80\x80", "\xD6\xD0", "\x7F", "\x01"};
	enum { MAX = 200 };
	static uint8_t room[16 + MAX];
	for (size_t align = 0; align < 16; align++)
		for (size_t len = 0; len <= MAX; len++) {
			for (size_t i = 0; i < len; i++)
				room[align + i] = (uint8_t)('a' + i % 26);
			assert_null(sanitize_utf8_first_bad(room + align, len));
		}
	for (size_t len = 1; len <= MAX; len++) {
		uint8_t *buf = room + len % 16;
		for (size_t at = 0; at < len; at++)
			for (size_t k = 0; k < sizeof odd / sizeof odd[0]; k++) {
				size_t ol = strlen(odd[k]);
				for (size_t i = 0; i < len; i++)
					buf[i] = (uint8_t)('a' + i % 26);
				memcpy(buf + at, odd[k], at + ol <= len ? ol : len - at);
				const uint8_t *want = u8_check(buf, len);
				assert_ptr_equal(sanitize_utf8_first_bad(buf, len), want);
				if (at + ol < len) {
					buf[len - 1] = 0xFF;
					want = u8_check(buf, len);
					assert_ptr_equal(sanitize_utf8_first_bad(buf, len), want);
				}
			}
	}
#if defined(__aarch64__)
	assert_string_equal(sanitize_isa_name(), "neon");
#elif defined(__x86_64__)
	assert_string_equal(sanitize_isa_name(), "sse2");
#endif
}

/* The plain-line fast path against libcsv: random tables with spaces and TABs around
 * cells, CRLF and lone CR, blank lines, ragged rows, quoted cells (those lines go through
 * libcsv either way), numbers, times and text; every typed cell, row offset and line must
 * agree. */
static void check_same_tables_isa(const char *text, size_t len, enum csvt_isa isa);

/* With each instruction set of the line scan this CPU has (the same tables from each). */
static void check_same_tables(const char *text, size_t len)
{
	enum csvt_isa used = csvt_isa_used();
	for (int i = 0; i < CSVT_ISA_COUNT; i++)
		if (csvt_isa_set((enum csvt_isa)i))
			check_same_tables_isa(text, len, (enum csvt_isa)i);
	csvt_isa_set(used);
}

static void check_same_tables_isa(const char *text, size_t len, enum csvt_isa isa)
{
	struct diag_list d1, d2;
	diag_init(&d1);
	diag_init(&d2);
	unsetenv("ASCPROF_LIBCSV_ONLY");
	struct csv_table *a = csvt_load_buffer("t.csv", text, len, &d1);
	setenv("ASCPROF_LIBCSV_ONLY", "1", 1);
	struct csv_table *b = csvt_load_buffer("t.csv", text, len, &d2);
	unsetenv("ASCPROF_LIBCSV_ONLY");
	assert_true((a == NULL) == (b == NULL));
	/* the same messages, in the same order (the encoding's among them) */
	if (d1.n != d2.n)
		fail_msg("%s: %zu messages, libcsv %zu, in:\n%.*s", csvt_isa_name(isa), d1.n, d2.n, (int)len, text);
	for (size_t i = 0; i < d1.n; i++) {
		char *x = diag_format(&d1.items[i]), *y = diag_format(&d2.items[i]);
		assert_string_equal(x, y);
		free(x);
		free(y);
	}
	if (a) {
		assert_int_equal(a->gbk, b->gbk);
		assert_int_equal(a->ncols, b->ncols);
		for (size_t c = 0; c < a->ncols; c++)
			assert_string_equal(a->headers[c], b->headers[c]);
		if (a->nrows != b->nrows)
			fail_msg("%s: %zu rows, libcsv %zu, in:\n%.*s", csvt_isa_name(isa), a->nrows, b->nrows, (int)len,
				 text);
		assert_int_equal(a->ragged_rows, b->ragged_rows);
		assert_int_equal(a->bad_numbers, b->bad_numbers);
		for (size_t r = 0; r < a->nrows; r++) {
			assert_true(csvt_row_off(a, r) == csvt_row_off(b, r));
			assert_int_equal(csvt_line(a, r), csvt_line(b, r));
			for (int c = 0; c < CSV_COL_COUNT; c++) {
				if (!csvt_has(a, (enum csv_col)c))
					continue;
				assert_string_equal(csvt_str(a, r, (enum csv_col)c), csvt_str(b, r, (enum csv_col)c));
				int64_t x = 0, y = 0;
				assert_int_equal(csvt_time(a, r, (enum csv_col)c, &x), csvt_time(b, r, (enum csv_col)c, &y));
				assert_true(x == y);
				double u = 0, v = 0;
				assert_int_equal(csvt_num(a, r, (enum csv_col)c, &u), csvt_num(b, r, (enum csv_col)c, &v));
				assert_true(memcmp(&u, &v, sizeof u) == 0);
			}
		}
	}
	csvt_free(a);
	csvt_free(b);
	diag_free(&d1);
	diag_free(&d2);
}

/* xorshift64: a function, so that several draws in one expression are sequenced */
static uint64_t next_rand(uint64_t *s)
{
	*s ^= *s << 13;
	*s ^= *s >> 7;
	*s ^= *s << 17;
	return *s;
}

#define KERNEL_HEADER                                                                                        \
	"Device_id,Name,Type,OP State,Accelerator Core,Start Time(us),Duration(us),Wait Time(us),Block Dim,"   \
	"Mix Block Dim,HF32 Eligible,Input Shapes,Input Data Types,Input Formats,Output Shapes,Output Data "    \
	"Types,Output Formats,Context ID,aicore_time(us),aic_total_cycles,aic_mac_time(us),aic_mac_ratio,"      \
	"aic_scalar_time(us),aic_scalar_ratio,aic_mte1_time(us),aic_mte1_ratio,aic_mte2_time(us),"             \
	"aic_mte2_ratio,aic_fixpipe_time(us),aic_fixpipe_ratio,aic_icache_miss_rate,aiv_time(us),"             \
	"aiv_total_cycles,aiv_vec_time(us),aiv_vec_ratio,aiv_scalar_time(us),aiv_scalar_ratio,"                \
	"aiv_mte2_time(us),aiv_mte2_ratio,aiv_mte3_time(us),aiv_mte3_ratio,aiv_icache_miss_rate,"              \
	"cube_utilization(%)"

static void test_plain_lines_match_libcsv(void **state)
{
	(void)state;
	static const char *const cells[] = {"MatMulV2", "1736408883674584.732", "12.5", "N/A", "", "42",
					    "\xE9\x87\x8F\xE5\x8C\x96", "AI_CORE", "-0.25", "1.7E+15",
					    "\"a,b\"", "\"x\"\"y\"", "x y", "\"ab\"c", "a\"b", "\" in quotes \"",
					    "\"\"", "\"open", "\"12.5\"", "\"\"\"1,2\"\"\"",
					    "\"\"\"151936,4096;1857\"\"\"", "0.559", "0.000", "18.325", "007.50",
					    "1.", ".5", "-3", "1234567890123456", "123456789012345.6", "\"a\" ,",
					    "\"a\"\"\"", " \"b\"\"c\" ", "x", "y", "z", "1", "2", "3", "4", "5", "6",
					    "7", "8", "9", "0.5", "\xD6\xD0\xCE\xC4", "\"\xD6\xD0\n\xCE\xC4\"", "\xFF"};
	static const char *const pads[] = {"", "", "", " ", "\t", "  \t"};
	static const char *const ends[] = {"\n", "\n", "\r\n", "\r\n", "\n\n", "\r", " \t\n"};
	uint64_t rng = 777;
#define NEXT() next_rand(&rng)
	char *buf = malloc(1 << 16);
	/* 30,000 tables take ten seconds: the long runs only (CI); 3,000 by default */
	const char *lng = getenv("ASCPROF_LONG_TESTS");
	int tables = lng && !strcmp(lng, "1") ? 30000 : 3000;
	for (int k = 0; k < tables; k++) {
		/* the second header puts untyped columns between the typed ones (stepped over
		 * comma by comma) and after the last (only counted) */
		int shape = (int)(NEXT() % 3);
		bool wide = shape == 1;
		int ncols = shape == 2 ? 43 : wide ? 9 : 5;
		/* the third is a kernel table's header: rows of hundreds of bytes, cells and
		 * quoted commas across the splitter's 64-byte blocks, typed cells past them */
		size_t n = (size_t)sprintf(buf, "%s\n", shape == 2 ? KERNEL_HEADER
							 : wide ? "Foo,Name,Bar,Baz,Start Time(us),Qux,Duration(us),Type,Zap"
								: "Name,Start Time(us),Duration(us),Block Dim,Type");
		int rows = (int)(NEXT() % 12);
		for (int r = 0; r < rows; r++) {
			int ncells = ncols + (int)(NEXT() % 3) - 1;
			for (int c = 0; c < ncells; c++) {
				if (c)
					buf[n++] = ',';
				n += (size_t)sprintf(buf + n, "%s%s%s", pads[NEXT() % 6],
						     cells[NEXT() % (sizeof cells / sizeof cells[0])],
						     pads[NEXT() % 6]);
			}
			n += (size_t)sprintf(buf + n, "%s", ends[NEXT() % 7]);
		}
		if (NEXT() % 4 == 0 && n > 0 && buf[n - 1] == '\n')
			n--; /* no newline at the end */
		check_same_tables(buf, n);
	}
#undef NEXT
	free(buf);
}

/* The line scan runs on AVX-512 where the CPU has it, on NEON on aarch64 (unless
 * $ASCPROF_CSV_SCAN says otherwise), the baseline always exists, and a set the CPU lacks
 * cannot be chosen. */
static void test_line_scan_isa_choice(void **state)
{
	(void)state;
	assert_true(csvt_isa_available(CSVT_ISA_BASE));
	assert_false(csvt_isa_available(CSVT_ISA_COUNT));
	assert_false(csvt_isa_set(CSVT_ISA_COUNT));
#if defined(__aarch64__)
	/* every aarch64 CPU has NEON: check_same_tables must run it */
	assert_true(csvt_isa_available(CSVT_ISA_NEON));
#else
	assert_false(csvt_isa_available(CSVT_ISA_NEON));
#endif
	if (!getenv("ASCPROF_CSV_SCAN"))
		assert_int_equal(csvt_isa_used(), csvt_isa_available(CSVT_ISA_AVX512) ? CSVT_ISA_AVX512
						  : csvt_isa_available(CSVT_ISA_NEON) ? CSVT_ISA_NEON
										      : CSVT_ISA_BASE);
	enum csvt_isa used = csvt_isa_used();
	assert_int_equal(csvt_isa_set(CSVT_ISA_AVX512), csvt_isa_available(CSVT_ISA_AVX512));
	assert_int_equal(csvt_isa_set(CSVT_ISA_NEON), csvt_isa_available(CSVT_ISA_NEON));
	assert_true(csvt_isa_set(used));
	assert_string_equal(csvt_isa_name(CSVT_ISA_AVX512), "avx512");
	assert_string_equal(csvt_isa_name(CSVT_ISA_NEON), "neon");
}

/* Lines past what the splitter lists (more quotes than it keeps positions of, a header of
 * more cells than it keeps separators of) read as libcsv reads them. */
static void test_splitter_limits_match_libcsv(void **state)
{
	(void)state;
	struct sbuf sb = SBUF_INIT;
	sbuf_adds(&sb, "Name,Input Shapes,Duration(us)\nA,\"");
	for (int i = 0; i < 5000; i++) /* 10,000 quotes in one cell */
		sbuf_adds(&sb, "\"\",");
	sbuf_adds(&sb, "\",1.5\nB,\"");
	for (int i = 0; i < 5000; i++)
		sbuf_adds(&sb, "\"\"");
	sbuf_adds(&sb, "\",2\nC,\"s\",3\nD,a\"b,4\n");
	check_same_tables(sbuf_str(&sb), sb.len);
	struct diag_list dl;
	diag_init(&dl);
	struct csv_table *t = csvt_load_buffer("q.csv", sbuf_str(&sb), sb.len, &dl);
	assert_non_null(t);
	assert_int_equal(t->nrows, 4);
	assert_int_equal(strlen(csvt_str(t, 0, COL_INPUT_SHAPES)), 10000);
	assert_int_equal(strlen(csvt_str(t, 1, COL_INPUT_SHAPES)), 5000);
	assert_int_equal(t->ragged_rows, 0);
	assert_string_equal(csvt_str(t, 3, COL_INPUT_SHAPES), "a\"b"); /* libcsv's reading */
	int64_t ns;
	assert_true(csvt_time(t, 2, COL_DURATION, &ns));
	assert_true(ns == 3000);
	csvt_free(t);
	diag_free(&dl);
	/* a table cut short by an unclosed quote past 16 MB: its encoding still counts the
	 * bytes after the cut (a GB18030 byte there makes it GB18030) */
	sbuf_reset(&sb);
	sbuf_adds(&sb, "Name,Duration(us)\nA,1\n\"");
	for (int i = 0; i < (17 << 20) / 64; i++)
		sbuf_adds(&sb, "xxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxx");
	sbuf_adds(&sb, "\nB,2\n\xD6\xD0,3\n");
	check_same_tables(sbuf_str(&sb), sb.len);
	diag_init(&dl);
	t = csvt_load_buffer("cut.csv", sbuf_str(&sb), sb.len, &dl);
	assert_non_null(t);
	assert_true(t->gbk);
	assert_int_equal(t->nrows, 1);
	csvt_free(t);
	diag_free(&dl);
	sbuf_reset(&sb);
	for (int i = 0; i < 70000; i++)
		sbuf_addf(&sb, "c%d,", i);
	sbuf_adds(&sb, "Name,Duration(us)\n");
	for (int r = 0; r < 3; r++) {
		for (int i = 0; i < 70000; i++)
			sbuf_adds(&sb, ",");
		sbuf_addf(&sb, "op%d,%d.5\n", r, r);
	}
	check_same_tables(sbuf_str(&sb), sb.len);
	diag_init(&dl);
	t = csvt_load_buffer("w.csv", sbuf_str(&sb), sb.len, &dl);
	assert_non_null(t);
	assert_int_equal(t->ncols, 70002);
	assert_int_equal(t->nrows, 3);
	assert_string_equal(csvt_str(t, 2, COL_NAME), "op2");
	assert_true(csvt_time(t, 2, COL_DURATION, &ns));
	assert_true(ns == 2500);
	csvt_free(t);
	diag_free(&dl);
	sbuf_free(&sb);
}

/* Rows keep their own file's line and byte offset when a second slice is appended, with
 * blank lines and a cell over two lines shifting the lines after them. */
static void test_appended_slices_keep_lines_and_offsets(void **state)
{
	(void)state;
	char *dir = tu_tmpdir();
	const char *a_text = "Name,Duration(us)\nA,1\n\nB,2\n";
	const char *b_text = "Name,Duration(us)\n\"C\nc\",3\nD,4\n";
	char *a_path = tu_write_str(dir, "op_summary_slice_0.csv", a_text);
	char *b_path = tu_write_str(dir, "op_summary_slice_1.csv", b_text);
	struct diag_list dl;
	diag_init(&dl);
	struct csv_table *a = csvt_load(a_path, &dl), *b = csvt_load(b_path, &dl);
	assert_non_null(a);
	assert_non_null(b);
	assert_true(csvt_append(a, b));
	assert_int_equal(a->nrows, 4);
	static const uint32_t lines[] = {2, 4, 2, 4};
	static const uint64_t offs[] = {18, 23, 18, 26};
	static const char *names[] = {"A", "B", "C\nc", "D"};
	for (size_t r = 0; r < 4; r++) {
		assert_int_equal(csvt_line(a, r), lines[r]);
		assert_int_equal(csvt_row_off(a, r), offs[r]);
		struct csv_cells cells;
		assert_int_equal(csvt_row_cells(a, r, &cells), 0);
		assert_string_equal(cells.cells[0], names[r]);
		csvt_cells_free(&cells);
	}
	assert_string_equal(csvt_row_path(a, 2), b_path);
	csvt_free(a);
	diag_free(&dl);
	tu_rmtree(dir);
	free(a_path);
	free(b_path);
	free(dir);
}

/* The high bits of an offset past 4 GB come from the step list, by row. */
static void test_row_offset_steps(void **state)
{
	(void)state;
	struct csvt_step at[] = {{0, 0}, {3, 1}, {5, 2}};
	struct csvt_steps s = {at, 3, 3};
	assert_int_equal(csvt_steps_at(&s, 0), 0);
	assert_int_equal(csvt_steps_at(&s, 2), 0);
	assert_int_equal(csvt_steps_at(&s, 3), 1);
	assert_int_equal(csvt_steps_at(&s, 4), 1);
	assert_int_equal(csvt_steps_at(&s, 5), 2);
	assert_int_equal(csvt_steps_at(&s, 1000), 2);
	struct csvt_steps none = {NULL, 0, 0};
	assert_int_equal(csvt_steps_at(&none, 7), 0);
	uint32_t lo[6] = {10, 20, 30, 5, 6, 7};
	struct csv_table t = {.row_off_lo = lo, .off_high = s};
	assert_true(csvt_row_off(&t, 4) == ((uint64_t)1 << 32 | 6));
	assert_true(csvt_row_off(&t, 5) == ((uint64_t)2 << 32 | 7));
}

/* A table whose first bad byte comes megabytes in is read as GB18030 throughout, and each
 * message is said once (a ragged row before the bad byte, the encoding warning with the
 * bad byte's line). */
static void test_late_gbk_byte_read_again(void **state)
{
	(void)state;
	struct sbuf sb = SBUF_INIT;
	sbuf_adds(&sb, "Name,Input Shapes,Call Stack,Host Self Duration(us),Host Total Duration(us)\n");
	sbuf_adds(&sb, "short,row\n"); /* line 2: ragged */
	size_t rows = 1;
	while (sb.len < 3u << 20) {
		sbuf_addf(&sb, "aten::op_%zu,\"1,2\",,3,4\n", rows);
		rows++;
	}
	long bad_line = (long)rows + 2; /* its row index, the header line, lines from 1 */
	sbuf_adds(&sb, "\xCB\xE3\xD7\xD3_1,,,1,2\n"); /* 算子 in GBK */
	rows++;
	struct diag_list dl;
	diag_init(&dl);
	struct csv_table *t = csvt_load_buffer("operator_details.csv", sb.buf, sb.len, &dl);
	assert_non_null(t);
	assert_true(t->gbk);
	assert_int_equal(t->nrows, rows);
	assert_string_equal(csvt_str(t, rows - 1, COL_NAME), "\xE7\xAE\x97\xE5\xAD\x90_1");
	assert_string_equal(csvt_str(t, 1, COL_NAME), "aten::op_1");
	assert_true(diag_has(&dl, "GB18030", bad_line));
	size_t ragged = 0, encoding = 0;
	for (size_t i = 0; i < dl.n; i++) {
		ragged += strstr(dl.items[i].msg, "under a 5-column header") != NULL;
		encoding += strstr(dl.items[i].msg, "not UTF-8") != NULL;
	}
	assert_int_equal(ragged, 1);
	assert_int_equal(encoding, 1);
	csvt_free(t);
	diag_free(&dl);
	sbuf_free(&sb);
}

/* A NUL inside a header cell (issue 22) used to end the name there and lose the column:
 * it is left out and said. */
static void test_nul_in_header_cell(void **state)
{
	(void)state;
	static const char t[] = "OP Type,Core Type,Cou\0nt,Total Time(us)\nMatMul,AI_CORE,3,10\n";
	struct diag_list dl;
	diag_init(&dl);
	struct csv_table *tab = csvt_load_buffer("op_statistic.csv", t, sizeof t - 1, &dl);
	assert_non_null(tab);
	assert_string_equal(tab->headers[2], "Count");
	assert_int_equal(tab->header_col[2], COL_COUNT);
	assert_true(diag_has(&dl, "header cell 3 holds a NUL byte; read without it", 1));
	csvt_free(tab);
	diag_free(&dl);
}

/* ---- tables built from cells ------------------------------------------------------- */

/* The CSV text of rows of cells (NULL ends a row, a second NULL the table), each cell quoted
 * when it holds a comma, quote, CR or LF: what db_tables.c wrote before it built tables. */
static void cells_csv(const char *const *cells, struct sbuf *out)
{
	for (size_t i = 0; cells[i] || cells[i + 1]; i++) {
		if (!cells[i]) {
			sbuf_addc(out, '\n');
			continue;
		}
		const char *v = cells[i];
		if (i && cells[i - 1])
			sbuf_addc(out, ',');
		if (!strpbrk(v, ",\"\r\n")) {
			sbuf_adds(out, v);
			continue;
		}
		sbuf_addc(out, '"');
		for (const char *p = v; *p; p++) {
			if (*p == '"')
				sbuf_addc(out, '"');
			sbuf_addc(out, *p);
		}
		sbuf_addc(out, '"');
	}
	sbuf_addc(out, '\n');
}

/* Drill-down: row r's cells in t as in a, the table of its CSV text. */
static void same_row_cells(const struct csv_table *a, const struct csv_table *t, size_t r)
{
	struct csv_cells ca, cb;
	assert_int_equal(csvt_row_cells(a, r, &ca), csvt_row_cells(t, r, &cb));
	assert_int_equal(ca.n, cb.n);
	for (size_t k = 0; k < ca.n; k++)
		assert_string_equal(ca.cells[k], cb.cells[k]);
	csvt_cells_free(&ca);
	csvt_cells_free(&cb);
}

/* A built table's test ends: the text's table a and the built one t, each's messages,
 * the text. */
static void built_pair_free(struct csv_table *a, struct csv_table *t, struct diag_list *dt, struct diag_list *db,
			    struct sbuf *text)
{
	csvt_free(a);
	csvt_free(t);
	diag_free(dt);
	diag_free(db);
	sbuf_free(text);
}

/* The table built from cells is the table its CSV text gives: columns, typed cells, lines,
 * every row's cells for drill-down, and the messages. */
static void check_built(const char *name, const char *const *cells)
{
	struct sbuf text = SBUF_INIT;
	cells_csv(cells, &text);
	struct diag_list dt, db;
	diag_init(&dt);
	diag_init(&db);
	struct csv_table *a = csvt_load_buffer(name, text.buf, text.len, &dt);
	struct csvt_build *b = csvt_build_begin(name, &db);
	for (size_t i = 0; cells[i] || cells[i + 1]; i++) {
		if (cells[i])
			csvt_build_cell(b, cells[i], strlen(cells[i]));
		else
			csvt_build_row(b);
	}
	csvt_build_row(b);
	struct csv_table *t = csvt_build_end(b);
	assert_int_equal(dt.n, db.n);
	for (size_t i = 0; i < dt.n; i++) {
		char *x = diag_format(&dt.items[i]), *y = diag_format(&db.items[i]);
		if (strcmp(x, y))
			fail_msg("%s: message %zu \"%s\", the text's \"%s\"", name, i, y, x);
		free(x);
		free(y);
	}
	assert_true(!a == !t);
	if (a) {
		assert_int_equal(a->kind, t->kind);
		assert_int_equal(a->ncols, t->ncols);
		assert_int_equal(a->nrows, t->nrows);
		assert_int_equal(a->n_typed, t->n_typed);
		assert_int_equal(a->gbk, t->gbk);
		assert_int_equal(a->file_size, t->file_size);
		for (size_t c = 0; c < a->ncols; c++)
			assert_string_equal(a->headers[c], t->headers[c]);
		for (size_t r = 0; r < a->nrows; r++) {
			assert_int_equal(csvt_line(a, r), csvt_line(t, r));
			for (size_t k = 0; k < a->n_typed; k++) {
				enum csv_col c = a->cols[k].col;
				assert_string_equal(csvt_str(a, r, c), csvt_str(t, r, c));
				double x = 0, y = 0;
				bool hx = csvt_num(a, r, c, &x), hy = csvt_num(t, r, c, &y);
				assert_int_equal(hx, hy);
				if (hx && x != y)
					fail_msg("%s: row %zu column %zu: %.17g, the text's %.17g", name, r, k, y, x);
			}
			same_row_cells(a, t, r);
		}
	}
	built_pair_free(a, t, &dt, &db, &text);
}

static void test_built_tables(void **state)
{
	(void)state;
	/* a kernel table: names with commas, quotes and line ends, blanks, numbers in every form */
	static const char *const kernels[] = {
		"Name", "Type", "Accelerator Core", "Start Time(us)", "Duration(us)", "Wait Time(us)", "Block Dim",
		"Input Shapes", "aic_mac_ratio", NULL,
		"MatMul", "MatMul", "AI_CORE", "1700000000000000.125", "12.5", "0", "20", "\"1,2\";\"3\"", "0.5", NULL,
		"  Add  ", "Add", "AI_VECTOR_CORE", "1700000000000013.000", "1.000", "", "8", "", "", NULL,
		"a,b", "Line\nEnd", "\tAI_CORE", "1.7e15", "x", "N/A", "1", "\"", "1e-3", NULL,
		"cr\ronly", "T", "AI_CORE", "1700000000000020", "2", "3", "4", "5", "0.123456789", NULL,
		"two\nlines\nhere", "T", "AI_CORE", "1700000000000030", "-1", "1e400", "4", "\r\n", "nan", NULL,
		"", "", "", "", "", "", "", "", "", NULL,
		"last", "T", "AI_CORE", "1700000000000040", "3", "4", "5", "6", "0.25", NULL, NULL,
	};
	check_built("k.db:COMPUTE_TASK_INFO", kernels);
	/* not UTF-8: GB18030 ("测试" in GBK), and bytes that are neither */
	static const char *const gbk[] = {
		"Name", "Type", "Start Time(us)", NULL,
		"ok", "A", "1", NULL,
		"\xb2\xe2\xca\xd4", "B,\xb2\xe2", "2", NULL, NULL,
	};
	check_built("g.db:COMPUTE_TASK_INFO", gbk);
	static const char *const bad[] = {
		"Name", "Type", "Start Time(us)", NULL,
		"a\nb", "A", "1", NULL,
		"\"q\"\xff", "x\xff\xfe", "2", NULL, NULL,
	};
	check_built("b.db:COMPUTE_TASK_INFO", bad);
	/* one column: a blank row is no row; more cells than the header, fewer */
	static const char *const one[] = {
		"Step", NULL, "1", NULL, "  ", NULL, "", NULL, "\" \"", NULL, "2", "extra", NULL, NULL,
	};
	check_built("s.db:StepTraceTime", one);
	/* the memory record: exponent timestamps (warned five times, then counted) */
	static const char *const mem[] = {
		"Component", "Timestamp(us)", "Total Allocated(MB)", "Total Reserved(MB)", "Device Type", NULL,
		"APP", "1.7e15", "1", "2", "NPU:0", NULL, "APP", "1.7e15", "1", "2", "NPU:0", NULL,
		"APP", "1.7e15", "1", "2", "NPU:0", NULL, "APP", "1.7e15", "1", "2", "NPU:0", NULL,
		"APP", "1.7e15", "1", "2", "NPU:0", NULL, "APP", "1.7e15", "x", "2", "NPU:0", NULL,
		"APP", "1.7e15", "1", "2", "NPU:0", NULL, NULL,
	};
	check_built("m.db:MEMORY_RECORD", mem);
	/* a header alone, and nothing at all */
	static const char *const head[] = {"Name", "Type", NULL, NULL};
	check_built("h.db:COMPUTE_TASK_INFO", head);
	static const char *const none[] = {NULL, NULL};
	check_built("n.db:COMPUTE_TASK_INFO", none);
}

/* A random double of the shapes a Db's counters take (k / 10^6, whole numbers) and of
 * any other (every bit pattern, near the formatter's limits). */
static double typed_draw(uint64_t *rng)
{
	uint64_t r = next_rand(rng);
	double d;
	switch (r % 8) {
	case 0:
	case 1: return (double)(next_rand(rng) % 1000000000) / 1e6;
	case 2: return (double)(next_rand(rng) % 2000000000);
	case 3: return (double)(next_rand(rng) >> 11) / 9007199254740992.0; /* [0, 1) */
	case 4: {
		static const double edge[] = {1e-4, 1e3, 1e9, 0.0, 1.0};
		d = edge[next_rand(rng) % 5];
		return next_rand(rng) % 2 ? nextafter(d, 0) : nextafter(d, 2e9);
	}
	case 5: return -(double)(next_rand(rng) % 1000000) / 1e3;
	default: {
		uint64_t bits = next_rand(rng);
		memcpy(&d, &bits, sizeof d);
		return isfinite(d) ? d : 0.5;
	}
	}
}

/* A builder named name, its messages into db, with the header head (NULL-terminated),
 * which text (the same table as CSV) starts with too. */
static struct csvt_build *build_with_header(const char *name, const char *const *head, struct sbuf *text,
					    struct diag_list *db)
{
	struct csvt_build *b = csvt_build_begin(name, db);
	for (size_t i = 0; head[i]; i++) {
		sbuf_addf(text, "%s%s", i ? "," : "", head[i]);
		csvt_build_cell(b, head[i], strlen(head[i]));
	}
	sbuf_addc(text, '\n');
	csvt_build_row(b);
	return b;
}

/* Cells given with their values (csvt_build_cell_time/_num, the Db reader's counters and
 * times) type exactly as the same text read from a CSV file: the Db report and its text
 * twin's stay byte-identical. Random doubles and times, typed, rounded or not; !utf8: a
 * last cell in GBK makes the builder type every row again from the cells' text alone. */
static void typed_cells_match_text(bool utf8)
{
	uint64_t rng = 20261207;
	const char *lng = getenv("ASCPROF_LONG_TESTS");
	size_t rows = lng && !strcmp(lng, "1") ? 1000000 : 100000, exact = 0;
	struct sbuf text = SBUF_INIT;
	struct diag_list dt, db;
	diag_init(&dt);
	diag_init(&db);
	static const char *const head[] = {"Start Time(us)", "aic_mac_ratio", "Block Dim", "Duration(us)", "Name", NULL};
	struct csvt_build *b = build_with_header("t.db:COMPUTE_TASK_INFO", head, &text, &db);
	for (size_t r = 0; r < rows; r++) {
		/* times: any ns a Db gives, negatives and past NUM_TIME_MAX_NS among them */
		int64_t ns = (int64_t)(next_rand(&rng) % 4000000000000000000ULL);
		if (r % 17 == 0)
			ns = -ns;
		if (r % 5 == 0)
			ns %= 100000000;
		double ratio = typed_draw(&rng), num = typed_draw(&rng);
		char t[48], x[40], y[40];
		num_format_ns_as_us(ns, t, sizeof t);
		exact += num_format_g9_exact(ratio, x, sizeof x);
		num_format_g9(num, y, sizeof y);
		/* the last row's name is GBK ("测试"): every row is typed again from its text
		 * at the end, as a file with a bad byte is read again */
		const char *name = r + 1 < rows || utf8 ? "k" : "\xb2\xe2\xca\xd4";
		sbuf_addf(&text, "%s,%s,%s,%s,%s\n", t, x, y, t, name);
		csvt_build_cell_time(b, ns);
		csvt_build_cell_num(b, ratio);
		csvt_build_cell_num(b, num);
		csvt_build_cell(b, t, strlen(t)); /* the same time as text: the path before */
		csvt_build_cell(b, name, strlen(name));
		csvt_build_row(b);
	}
	/* both paths taken often: a test of the typed values, not only of the fallback */
	assert_true(exact > rows / 4 && exact < rows * 9 / 10);
	struct csv_table *a = csvt_load_buffer("t.csv", text.buf, text.len, &dt);
	struct csv_table *t = csvt_build_end(b);
	assert_non_null(a);
	assert_non_null(t);
	assert_int_equal(dt.n, db.n);
	assert_int_equal(a->nrows, rows);
	assert_int_equal(t->nrows, rows);
	assert_int_equal(a->gbk, !utf8);
	assert_int_equal(t->gbk, !utf8);
	assert_int_equal(a->n_typed, 5);
	assert_int_equal(t->n_typed, 5);
	/* the value cells' text lengths, counted without writing it */
	assert_int_equal(a->file_size, t->file_size);
	for (size_t k = 0; k < 4; k++) {
		const struct csv_column *ca = &a->cols[k], *cb = &t->cols[k];
		assert_int_equal(ca->type, cb->type);
		size_t w = ca->type == CSVT_RATIO ? sizeof(float) : 8;
		const char *pa = (const char *)ca->v.time, *pb = (const char *)cb->v.time;
		for (size_t r = 0; r < rows; r++)
			if (memcmp(pa + r * w, pb + r * w, w))
				fail_msg("column %s row %zu differs from the text's", a->headers[ca->index], r);
	}
	/* drill-down: the cells' text as the file's */
	for (size_t r = 0; r < rows; r += 997) {
		same_row_cells(a, t, r);
	}
	built_pair_free(a, t, &dt, &db, &text);
}

static void test_built_typed_cells_match_text(void **state)
{
	(void)state;
	typed_cells_match_text(true);
	typed_cells_match_text(false);
}

/* Values given to columns of another type (a time to a text column, a number to a time
 * column, a blank row between): typed from their text, as the file's reader types it;
 * the text written only then (the builder keeps the value). */
static void test_built_values_in_other_columns(void **state)
{
	(void)state;
	static const int64_t ns[] = {0, 1500, 1700000000000000123, 999};
	static const double num[] = {0.25, 12, 1e-3, 3.5e-5};
	struct sbuf text = SBUF_INIT;
	struct diag_list dt, db;
	diag_init(&dt);
	diag_init(&db);
	static const char *const head[] = {"Name", "Start Time(us)", "Block Dim", NULL};
	struct csvt_build *b = build_with_header("v.db:COMPUTE_TASK_INFO", head, &text, &db);
	for (size_t r = 0; r < 4; r++) {
		char t[48], x[40];
		num_format_ns_as_us(ns[r], t, sizeof t);
		num_format_g9(num[r], x, sizeof x);
		sbuf_addf(&text, "%s,%s,%s\n%s", t, x, t, r == 1 ? "\n" : "");
		csvt_build_cell_time(b, ns[r]);
		csvt_build_cell_num(b, num[r]);
		csvt_build_cell_time(b, ns[r]);
		csvt_build_row(b);
		if (r == 1) {
			csvt_build_cell(b, "", 0);
			csvt_build_row(b);
		}
	}
	struct csv_table *a = csvt_load_buffer("v.csv", text.buf, text.len, &dt);
	struct csv_table *t = csvt_build_end(b);
	assert_non_null(a);
	assert_non_null(t);
	assert_int_equal(dt.n, db.n);
	assert_int_equal(a->nrows, 4);
	assert_int_equal(t->nrows, 4);
	assert_int_equal(a->file_size, t->file_size);
	for (size_t r = 0; r < 4; r++) {
		assert_string_equal(csvt_str(a, r, COL_NAME), csvt_str(t, r, COL_NAME));
		int64_t x = 0, y = 0;
		assert_int_equal(csvt_time(a, r, COL_START, &x), csvt_time(t, r, COL_START, &y));
		assert_int_equal(x, y);
		assert_int_equal(csvt_line(a, r), csvt_line(t, r));
		same_row_cells(a, t, r);
	}
	/* the name is the time's text: what a reader of it sees */
	assert_string_equal(csvt_str(t, 2, COL_NAME), "1700000000000000.123");
	csvt_free(a);
	csvt_free(t);
	diag_free(&dt);
	diag_free(&db);
	sbuf_free(&text);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_real_shaped_kernel_details),
		cmocka_unit_test(test_class_b_spellings_map_to_the_same_columns),
		cmocka_unit_test(test_bom_gbk_and_multiline_cells),
		cmocka_unit_test(test_ragged_excel_and_bad_numbers),
		cmocka_unit_test(test_empty_header_only_and_broken_quotes),
		cmocka_unit_test(test_unknown_columns_listed_once),
		cmocka_unit_test(test_unknown_columns_capped),
		cmocka_unit_test(test_utf16_read),
		cmocka_unit_test(test_out_of_range_exponent_one_message),
		cmocka_unit_test(test_real_level1_kernel_details),
		cmocka_unit_test(test_utf8_check_matches_libunistring),
		cmocka_unit_test(test_utf8_check_vector_edges),
		cmocka_unit_test(test_plain_lines_match_libcsv),
		cmocka_unit_test(test_line_scan_isa_choice),
		cmocka_unit_test(test_splitter_limits_match_libcsv),
		cmocka_unit_test(test_appended_slices_keep_lines_and_offsets),
		cmocka_unit_test(test_row_offset_steps),
		cmocka_unit_test(test_late_gbk_byte_read_again),
		cmocka_unit_test(test_file_shrinking_under_the_parse),
		cmocka_unit_test(test_nul_in_header_cell),
		cmocka_unit_test(test_built_tables),
		cmocka_unit_test(test_built_typed_cells_match_text),
		cmocka_unit_test(test_built_values_in_other_columns),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
