/* SPDX-License-Identifier: MIT */
/* Hostile and broken input, one capture per case: a generated two-rank capture is copied,
 * one thing in rank 0 is broken, and the whole capture goes through discovery, loading,
 * the analysis and both reports. Each case asserts
 *   (a) a message that names the broken file, with its line or byte offset where the
 *       problem has one, and says what was kept;
 *   (b) that everything else still loaded: rank 1 in full, rank 0's other files;
 *   (c) no crash and no hang (an alarm ends a case that blocks).
 * The cut-trace cases also run on a real trace when ../shared/fixtures-real is there. */
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/un.h>
#include <unistd.h>

#include "analysis.h"
#include "capture.h"
#include "report.h"
#include "sbuf.h"
#include "summary.h"
#include "testutil.h"

#define CASE_SECONDS 60
#define N_CSV 5 /* tables per generated rank */
#define API_HDR "Level,API Name,Time(us),Count,Avg(us),Min(us),Max(us),Variance\n"

static char *base;    /* the generated capture (owned) */
static char *workdir; /* where cases are copied (owned) */
static struct tu_truth *truth;

/* Where the message must point. */
enum loc { LOC_NONE, LOC_LINE, LOC_OFFSET };
/* How much of rank 0's trace must be kept. */
enum kept { EV_ALL, EV_SOME, EV_NONE };

struct ctx {
	char worker[4096]; /* rank 0's worker dir */
	char out[4200];    /* its ASCEND_PROFILER_OUTPUT */
	long param;
};

struct bad_case {
	const char *name;
	void (*make)(struct ctx *c);
	long param;
	const char *file;  /* basename the message names; NULL: no message expected */
	const char *msg;   /* a part of it (what happened and what was kept) */
	enum loc loc;
	enum kept trace;   /* rank 0's X events */
	size_t events;     /* when not 0: exactly this many X events in rank 0 */
	int csv_lost;      /* rank 0's tables not read (negative: tables the case adds) */
	uint64_t max_trace_bytes;
	uint64_t max_csv_bytes;
	const char *mem_available; /* ASCPROF_MEM_AVAILABLE for the case */
	bool unprivileged; /* load as an ordinary user (root ignores file permissions) */
	const char *text_has; /* a part of the text summary or report (what was kept, shown safely) */
	const char *never; /* text that no message and no report may hold */
	const char *msg_absent; /* no message may hold this (a misleading second one) */
};

/* ---- helpers -------------------------------------------------------------------------- */

static char *path_in(const char *dir, const char *name)
{
	char *p;
	assert_true(asprintf(&p, "%s/%s", dir, name) > 0);
	return p;
}

static void put(const char *dir, const char *name, const void *data, size_t len)
{
	char *p = path_in(dir, name);
	remove(p);
	free(p);
	free(tu_write(dir, name, data, len));
}

static void put_str(const char *dir, const char *name, const char *text) { put(dir, name, text, strlen(text)); }

static char *slurp(const char *dir, const char *name, size_t *len)
{
	char *p = path_in(dir, name);
	char *b = tu_read(p, len);
	assert_non_null(b);
	free(p);
	return b;
}

/* A small trace: a process name, the extra elements (each with a leading comma), then
 * two events on one lane: anything wrong in the extra ones must not lose those. */
static void put_trace(struct ctx *c, const char *extra)
{
	char *text;
	assert_true(asprintf(&text,
			     "[{\"ph\": \"M\", \"name\": \"process_name\", \"pid\": 7, \"tid\": 0, \"args\": {\"name\": \"Python\"}}%s,\n"
			     "{\"ph\": \"X\", \"name\": \"a\", \"pid\": 7, \"tid\": 1, \"ts\": \"100.0\", \"dur\": 5},\n"
			     "{\"ph\": \"X\", \"name\": \"b\", \"pid\": 7, \"tid\": 1, \"ts\": \"110.0\", \"dur\": 5}]",
			     extra) > 0);
	put_str(c->out, "trace_view.json", text);
	free(text);
}

/* ---- what each case breaks ------------------------------------------------------------ */

static void mk_nothing(struct ctx *c) { (void)c; }
static void mk_empty_trace(struct ctx *c) { put(c->out, "trace_view.json", "", 0); }
static void mk_empty_csv(struct ctx *c) { put(c->out, "kernel_details.csv", "", 0); }

/* the generated trace cut at param/11 of its length */
static void mk_cut(struct ctx *c)
{
	size_t len;
	char *t = slurp(c->out, "trace_view.json", &len);
	put(c->out, "trace_view.json", t, len * (size_t)c->param / 11);
	free(t);
}

/* a real exported trace cut at param/11 of its length (skipped without the fixtures) */
static const char real_trace[] = "msinsight/test/data/pytorch/text/level1/rank0_ascend_pt/ASCEND_PROFILER_OUTPUT/trace_view.json";
static void mk_cut_real(struct ctx *c)
{
	char *p = tu_real(real_trace); /* there: test_case skipped the case otherwise */
	size_t len;
	char *t = tu_read(p, &len);
	put(c->out, "trace_view.json", t, len * (size_t)c->param / 11);
	free(t);
	free(p);
}

static void garbage(char *b, size_t n)
{
	uint64_t x = 0x9E3779B97F4A7C15ULL;
	for (size_t i = 0; i < n; i++) {
		x ^= x << 13;
		x ^= x >> 7;
		x ^= x << 17;
		b[i] = (char)x;
	}
}

static void mk_garbage_trace(struct ctx *c)
{
	char b[65536];
	garbage(b, sizeof b);
	b[0] = '\x7f'; /* not '[' or '{' by chance */
	put(c->out, "trace_view.json", b, sizeof b);
}

static void mk_garbage_csv(struct ctx *c)
{
	char b[65536];
	garbage(b, sizeof b);
	put(c->out, "op_statistic.csv", b, sizeof b);
}

static void mk_bad_utf8_trace(struct ctx *c)
{
	put_trace(c, ",\n{\"ph\": \"X\", \"name\": \"bad\xff\xfe\xc0name\", \"pid\": 7, \"tid\": 1, \"ts\": \"120.0\", \"dur\": 1}");
}

static void mk_bad_utf8_csv(struct ctx *c)
{
	put_str(c->out, "api_statistic.csv", API_HDR "L,ok,1,1,1,1,1,0\nL,bad\xff\xfe\x80,1,1,1,1,1,0\n");
}

static void mk_gbk_csv(struct ctx *c)
{
	/* "矩阵乘" in GBK */
	put_str(c->out, "op_statistic.csv", "OP Type,Core Type,Count,Total Time(us)\nMatMul,AI_CORE,3,10\n"
					    "\xbe\xd8\xd5\xf3\xb3\xcb,AI_CORE,1,2\n");
}

static void mk_mb_line_trace(struct ctx *c)
{
	size_t n = 1 << 20;
	char *name = malloc(n + 1);
	memset(name, 'x', n);
	name[n] = '\0';
	char *extra;
	assert_true(asprintf(&extra, ",{\"ph\": \"X\", \"name\": \"%s\", \"pid\": 7, \"tid\": 1, \"ts\": \"130.0\", \"dur\": 1}", name) > 0);
	/* one line, no newline anywhere */
	char *text;
	assert_true(asprintf(&text, "[{\"ph\": \"X\", \"name\": \"a\", \"pid\": 7, \"tid\": 1, \"ts\": \"100.0\", \"dur\": 5}%s]", extra) > 0);
	put_str(c->out, "trace_view.json", text);
	free(text);
	free(extra);
	free(name);
}

static void mk_mb_line_csv(struct ctx *c)
{
	size_t n = 1 << 20;
	char *text = malloc(n + 100);
	int k = sprintf(text, API_HDR "L,");
	memset(text + k, 'y', n);
	strcpy(text + k + n, ",1,1,1,1,1,0\n");
	put_str(c->out, "api_statistic.csv", text);
	free(text);
}

static void mk_deep_trace(struct ctx *c)
{
	size_t depth = 100000;
	const char *head = "[{\"ph\": \"X\", \"name\": \"a\", \"pid\": 7, \"tid\": 1, \"ts\": \"100.0\", \"dur\": 5},\n";
	size_t hl = strlen(head);
	char *t = malloc(hl + 2 * depth + 2);
	memcpy(t, head, hl);
	memset(t + hl, '[', depth);
	memset(t + hl + depth, ']', depth);
	t[hl + 2 * depth] = ']';
	put(c->out, "trace_view.json", t, hl + 2 * depth + 1);
	free(t);
}

static void mk_deep_args(struct ctx *c)
{
	size_t depth = 100000;
	struct sbuf sb = SBUF_INIT;
	sbuf_adds(&sb, ",\n{\"ph\": \"X\", \"name\": \"deep\", \"pid\": 7, \"tid\": 1, \"ts\": \"120.0\", \"dur\": 1, \"args\": {\"x\": ");
	for (size_t i = 0; i < depth; i++)
		sbuf_addc(&sb, '[');
	for (size_t i = 0; i < depth; i++)
		sbuf_addc(&sb, ']');
	sbuf_adds(&sb, "}}");
	put_trace(c, sbuf_str(&sb));
	sbuf_free(&sb);
}

static void mk_huge_number(struct ctx *c)
{
	put_trace(c, ",\n{\"ph\": \"X\", \"name\": \"huge\", \"pid\": 7, \"tid\": 1, \"ts\": 1e309, \"dur\": 1}");
}

static void mk_nan(struct ctx *c)
{
	put_trace(c, ",\n{\"ph\": \"X\", \"name\": \"nan\", \"pid\": 7, \"tid\": 1, \"ts\": \"NaN\", \"dur\": 1}");
}

static void mk_neg_zero(struct ctx *c)
{
	put_trace(c, ",\n{\"ph\": \"X\", \"name\": \"z\", \"pid\": 7, \"tid\": 1, \"ts\": \"-0\", \"dur\": -0}");
}

static void mk_neg_dur(struct ctx *c)
{
	put_trace(c, ",\n{\"ph\": \"X\", \"name\": \"neg\", \"pid\": 7, \"tid\": 1, \"ts\": \"120.0\", \"dur\": -5}");
}

static void mk_huge_dur(struct ctx *c)
{
	put_trace(c, ",\n{\"ph\": \"X\", \"name\": \"long\", \"pid\": 7, \"tid\": 1, \"ts\": \"120.0\", \"dur\": 1e300}");
}

/* found by fuzz_discover: step times near the limit overflowed the cross-check's sums */
static void mk_huge_steps(struct ctx *c)
{
	put_str(c->out, "step_trace_time.csv",
		"Step,Computing,Communication(Not Overlapped),Overlapped,Communication,Free,Stage,Bubble\n"
		",2999999999999999,0,0,0,2999999999999999,2999999999999999,0\n"
		",2999999999999999,0,0,0,2999999999999999,-2999999999999999,0\n"
		",3000000000000001,0,0,0,1,2999999999999999,0\n");
}

/* times at both ends of what is kept, and one beyond */
static void mk_time_extremes(struct ctx *c)
{
	put_trace(c, ",\n{\"ph\": \"X\", \"name\": \"early\", \"pid\": 7, \"tid\": 1, \"ts\": \"-2999999999999999\", \"dur\": 2999999999999999},\n"
		     "{\"ph\": \"X\", \"name\": \"late\", \"pid\": 7, \"tid\": 2, \"ts\": \"2999999999999999\", \"dur\": 2999999999999999},\n"
		     "{\"ph\": \"X\", \"name\": \"beyond\", \"pid\": 7, \"tid\": 2, \"ts\": \"3000000000000001\", \"dur\": 1}");
}

static void mk_non_monotonic(struct ctx *c)
{
	put_trace(c, ",\n{\"ph\": \"X\", \"name\": \"early\", \"pid\": 7, \"tid\": 1, \"ts\": \"50.0\", \"dur\": 1},\n"
		     "{\"ph\": \"X\", \"name\": \"late\", \"pid\": 7, \"tid\": 1, \"ts\": \"900.0\", \"dur\": 1},\n"
		     "{\"ph\": \"X\", \"name\": \"mid\", \"pid\": 7, \"tid\": 1, \"ts\": \"300.0\", \"dur\": 1}");
}

static void mk_dup_meta(struct ctx *c)
{
	put_trace(c, ",\n{\"ph\": \"M\", \"name\": \"process_name\", \"pid\": 7, \"tid\": 0, \"args\": {\"name\": \"CANN\"}}");
}

/* found by fuzz_trace: a sort index beyond int64 was converted anyway */
static void mk_huge_sort_index(struct ctx *c)
{
	put_trace(c, ",\n{\"ph\": \"M\", \"name\": \"process_sort_index\", \"pid\": 7, \"args\": {\"sort_index\": 1.2e27}},\n"
		     "{\"ph\": \"M\", \"name\": \"thread_sort_index\", \"pid\": 7, \"tid\": 1, \"args\": {\"sort_index\": -1e300}}");
}

static void mk_no_meta(struct ctx *c)
{
	put_str(c->out, "trace_view.json",
		"[{\"ph\": \"X\", \"name\": \"a\", \"pid\": 7, \"tid\": 1, \"ts\": \"100.0\", \"dur\": 5},\n"
		"{\"ph\": \"X\", \"name\": \"b\", \"pid\": 7, \"tid\": 1, \"ts\": \"110.0\", \"dur\": 5}]");
}

static void mk_pid_string(struct ctx *c)
{
	put_str(c->out, "trace_view.json",
		"[{\"ph\": \"M\", \"name\": \"process_name\", \"pid\": \"7\", \"tid\": 0, \"args\": {\"name\": \"Python\"}},\n"
		"{\"ph\": \"X\", \"name\": \"a\", \"pid\": \"7\", \"tid\": \"1\", \"ts\": \"100.0\", \"dur\": 5},\n"
		"{\"ph\": \"X\", \"name\": \"b\", \"pid\": \"rank 0 worker\", \"tid\": 1, \"ts\": \"110.0\", \"dur\": 5}]");
}

static void mk_header_only(struct ctx *c) { put_str(c->out, "op_statistic.csv", "OP Type,Core Type,Count,Total Time(us)\r\n"); }
static void mk_bom_only(struct ctx *c) { put_str(c->out, "op_statistic.csv", "\xEF\xBB\xBF"); }
static void mk_bom_trace(struct ctx *c)
{
	size_t len;
	char *t = slurp(c->out, "trace_view.json", &len);
	char *b = malloc(len + 3);
	memcpy(b, "\xEF\xBB\xBF", 3);
	memcpy(b + 3, t, len);
	put(c->out, "trace_view.json", b, len + 3);
	free(b);
	free(t);
}

static void mk_ragged(struct ctx *c)
{
	put_str(c->out, "api_statistic.csv", API_HDR "L,a,1,1,1,1,1,0\nL,b,1\nL,c,1,1,1,1,1,0,9,9\nL,d,1,1,1,1,1,0\n");
}

static void mk_unbalanced_quote(struct ctx *c)
{
	put_str(c->out, "api_statistic.csv", API_HDR "L,a,1,1,1,1,1,0\n\"L,b,1,1,1,1,1,0\nL,c,1,1,1,1,1,0\n");
}

static void mk_nul_csv(struct ctx *c)
{
	static const char t[] = API_HDR "L,a\0b,1,1,1,1,1,0\nL,c,1,1,1,1,1,0\n";
	put(c->out, "api_statistic.csv", t, sizeof t - 1);
}

static void mk_excel(struct ctx *c)
{
	size_t len;
	char *t = slurp(c->out, "kernel_details.csv", &len);
	/* the second line's Start Time (the first cell that starts with 17) in exponent form */
	char *line2 = strchr(t, '\n') + 1;
	char *ts = strstr(line2, ",17");
	assert_non_null(ts);
	size_t k = strspn(ts + 1, "0123456789.\t");
	struct sbuf sb = SBUF_INIT;
	sbuf_add(&sb, t, (size_t)(ts + 1 - t));
	sbuf_adds(&sb, "1.73641E+15");
	sbuf_adds(&sb, ts + 1 + k);
	put(c->out, "kernel_details.csv", sb.buf, sb.len);
	sbuf_free(&sb);
	free(t);
}

/* A table under a known name with another header (issue 14): reported with what was expected. */
static void mk_foreign_header(struct ctx *c) { put_str(c->out, "kernel_details.csv", "Name,Elapsed\r\nMatMul,3\r\n"); }

static void mk_denied(struct ctx *c)
{
	char *p = path_in(c->out, "trace_view.json");
	assert_int_equal(chmod(p, 0), 0);
	free(p);
}

static void mk_symlink_loop(struct ctx *c)
{
	char *p = path_in(c->out, "trace_view.json");
	remove(p);
	assert_int_equal(symlink("trace_view.json", p), 0); /* points at itself */
	free(p);
	/* and a directory loop beside it */
	p = path_in(c->worker, "again");
	assert_int_equal(symlink("..", p), 0);
	free(p);
}

static void mk_fifo(struct ctx *c)
{
	char *p = path_in(c->out, c->param ? "kernel_details.csv" : "trace_view.json");
	remove(p);
	assert_int_equal(mkfifo(p, 0600), 0);
	free(p);
}

/* found by fuzz_discover: a FIFO named like profiler_info blocked discovery in open() */
static void mk_fifo_info(struct ctx *c)
{
	char *p = path_in(c->worker, "profiler_info_0.json");
	remove(p);
	assert_int_equal(mkfifo(p, 0600), 0);
	free(p);
}

/* issue 41, item 11: a FIFO at profiler_metadata.json was skipped without a word */
static void mk_fifo_metadata(struct ctx *c)
{
	char *p = path_in(c->worker, "profiler_metadata.json");
	remove(p);
	assert_int_equal(mkfifo(p, 0600), 0);
	free(p);
}

/* issue 41, item 10: thousands of tiny tables beside the export (100,000 two-line files
 * took 1.1 GB and a summary line each): the first 4,096 CSV files by name are read */
static void mk_many_csv(struct ctx *c)
{
	for (int i = 0; i < 4200; i++) {
		char name[32], text[64];
		snprintf(name, sizeof name, "zz_extra_%05d.csv", i);
		snprintf(text, sizeof text, "Name,Duration(us)\nMatMul,%d\n", i);
		put_str(c->out, name, text);
	}
}

static void mk_dir_trace(struct ctx *c)
{
	char *p = path_in(c->out, "trace_view.json");
	remove(p);
	assert_int_equal(mkdir(p, 0755), 0);
	free(p);
}

/* found by fuzz_discover: a broken profiler_info before a good one leaked its path */
static void mk_two_infos(struct ctx *c) { put_str(c->worker, "profiler_info.json", "[1, 2]"); }

static void mk_bad_info(struct ctx *c) { put_str(c->worker, "profiler_info_0.json", "{\"rank_id\": 0, \"config\": [}"); }

/* rank 0's trace made larger than rank 1's (trailing spaces), for the size limits */
static void mk_padded(struct ctx *c)
{
	size_t len;
	char *t = slurp(c->out, "trace_view.json", &len);
	assert_true(len < 200000);
	t = realloc(t, 300000);
	memset(t + len, ' ', 300000 - len);
	put(c->out, "trace_view.json", t, 300000);
	free(t);
}

static void mk_wrapper_junk(struct ctx *c) { put_str(c->out, "trace_view.json", "{\"otherData\": {\"x\": 1}, \"displayTimeUnit\": \"ns\"}"); }

static void mk_junk_after(struct ctx *c)
{
	put_str(c->out, "trace_view.json",
		"[{\"ph\": \"X\", \"name\": \"a\", \"pid\": 7, \"tid\": 1, \"ts\": \"100.0\", \"dur\": 5} @@@ "
		"{\"ph\": \"X\", \"name\": \"b\", \"pid\": 7, \"tid\": 1, \"ts\": \"110.0\", \"dur\": 5}]");
}

static void mk_control_bytes(struct ctx *c)
{
	put_trace(c, ",\n{\"ph\": \"X\", \"name\": \"evil\\u001b]52;c;aGk=\\u0007\\r\\u009b31m\", \"pid\": 7, \"tid\": 1, "
		     "\"ts\": \"120.0\", \"dur\": 1, \"args\": {\"Task Type\": \"\\u001b[2J\"}}");
}

/* issue 22: profiler_info strings printed by --summary; a DEL counted as a phase */
static void mk_info_escapes(struct ctx *c)
{
	put_str(c->worker, "profiler_info_0.json",
		"{\"rank_id\": 0, \"torch_npu_version\": \"2.1\\u001b[31m\", \"cann_version\": \"\\u001b]0;pwned\\u0007, \\u001b[2J\", "
		"\"config\": {\"experimental_config\": {\"_profiler_level\": \"Level1\\r\", \"_aic_metrics\": \"\\u009b1m\\u007f\"}}}");
}

/* issue 22: a dur of 95 years stretched the Timeline's window until its ruler overflowed */
static void mk_year_dur(struct ctx *c)
{
	put_trace(c, ",\n{\"ph\": \"X\", \"name\": \"years\", \"pid\": 7, \"tid\": 1, \"ts\": \"120.0\", \"dur\": 2999999999999999}");
}

/* issue 22: header-only memory tables sorted NULL arrays (UBSan) */
static void mk_memory_headers(struct ctx *c)
{
	put_str(c->out, "memory_record.csv",
		"Component,Timestamp(us),Total Allocated(MB),Total Reserved(MB),Total Active(MB),Stream Ptr,Device Type\n");
	put_str(c->out, "npu_module_mem.csv", "Component,Timestamp(us),Total Reserved(MB),Device\n");
	put_str(c->out, "operator_memory.csv", "Name,Size(KB),Allocation Time(us),Release Time(us),Duration(us),Device Type\n");
}

/* issue 22: profiler_info nested 200k deep took 13 s; now the deep part is blanked */
static void mk_deep_info(struct ctx *c)
{
	struct sbuf sb = SBUF_INIT;
	sbuf_adds(&sb, "{\"rank_id\": 0, \"cann_version\": \"8.0.RC3\", \"config\": {\"x\": ");
	for (int i = 0; i < 200000; i++)
		sbuf_addc(&sb, '[');
	for (int i = 0; i < 200000; i++)
		sbuf_addc(&sb, ']');
	sbuf_adds(&sb, ", \"experimental_config\": {\"_profiler_level\": \"Level2\"}}}");
	put(c->worker, "profiler_info_0.json", sb.buf, sb.len);
	sbuf_free(&sb);
}

/* issue 22: a repeated entry was counted twice (transit 63.5 -> 127.1 MB, no message) */
static void mk_comm_repeats(struct ctx *c)
{
	static const char entry[] = "\"hcom_allReduce__1@g\": {\"Communication Time Info\": {\"Start Timestamp(us)\": "
				    "1736408883674600.0, \"Elapse Time(ms)\": 2.0, \"Transit Time(ms)\": 1.0}, "
				    "\"Communication Bandwidth Info\": {\"HCCS\": {\"Transit Size(MB)\": 63.5, "
				    "\"Transit Time(ms)\": 1.0, \"Bandwidth(GB/s)\": 63.5}}}";
	char *t;
	assert_true(asprintf(&t, "{\"step1\": {\"collective\": {%s, %s}}}", entry, entry) > 0);
	put_str(c->out, "communication.json", t);
	free(t);
}

/* issue 22: a UTF-16 table (named as such, and read) */
static void mk_utf16_csv(struct ctx *c)
{
	static const char text[] = API_HDR "L,a,1,1,1,1,1,0\nL,b,2,1,2,2,2,0\n";
	char b[2 * sizeof text + 2] = {'\xFF', '\xFE'};
	for (size_t i = 0; i + 1 < sizeof text; i++)
		b[2 + 2 * i] = text[i]; /* ASCII: the high byte stays 0 */
	put(c->out, "api_statistic.csv", b, 2 + 2 * (sizeof text - 1));
}

/* issue 22: an unreadable output directory also got "no analyse.done" */
static void mk_unreadable_dir(struct ctx *c) { assert_int_equal(chmod(c->out, 0), 0); }

/* issue 22: a socket named profiler_info gave ENXIO without saying what was kept */
static void mk_socket_info(struct ctx *c)
{
	char *p = path_in(c->worker, "profiler_info_0.json");
	remove(p);
	free(p);
	/* bound from inside the directory: a socket's path is limited to 108 bytes */
	int here = open(".", O_RDONLY | O_DIRECTORY);
	assert_true(here >= 0);
	assert_int_equal(chdir(c->worker), 0);
	struct sockaddr_un sa = {.sun_family = AF_UNIX, .sun_path = "profiler_info_0.json"};
	int fd = socket(AF_UNIX, SOCK_STREAM, 0);
	assert_true(fd >= 0);
	assert_int_equal(bind(fd, (struct sockaddr *)&sa, sizeof sa), 0);
	close(fd);
	assert_int_equal(fchdir(here), 0);
	close(here);
}

static void mk_del_ph(struct ctx *c) { put_trace(c, ",\n{\"ph\": \"\x7f\", \"name\": \"del\", \"pid\": 7, \"tid\": 1, \"ts\": \"1.0\"}"); }
/* ---- issue 22, part B: links out of the capture, shrinking files, CSV limits, slices,
 * silent wrong results ---------------------------------------------------------------- */

#define SECRET "root:*:19000:0:99999:7:::SECRET-LINE"

/* a file outside the capture (beside the case directory) holding a secret line */
static char *outside_file(struct ctx *c)
{
	char *p = path_in(c->worker, "../../outside-secret.txt");
	FILE *f = fopen(p, "w");
	assert_non_null(f);
	fputs(SECRET "\n", f);
	fclose(f);
	char *real = realpath(p, NULL);
	assert_non_null(real);
	free(p);
	return real;
}

/* kernel_details.csv (param 0) or profiler_metadata.json (param 1) linked to it */
static void mk_link_out(struct ctx *c)
{
	char *target = outside_file(c);
	char *p = c->param ? path_in(c->worker, "profiler_metadata.json") : path_in(c->out, "kernel_details.csv");
	remove(p);
	assert_int_equal(symlink(target, p), 0);
	free(p);
	free(target);
}

static void mk_link_to_root(struct ctx *c)
{
	char *p = path_in(c->worker, "../rootlink");
	assert_int_equal(symlink("/", p), 0);
	free(p);
}

/* a link that stays inside the capture is followed */
static void mk_link_inside(struct ctx *c)
{
	char *from = path_in(c->out, "kernel_details.csv"), *to = path_in(c->worker, "kernel_moved.csv");
	assert_int_equal(rename(from, to), 0);
	assert_int_equal(symlink("../kernel_moved.csv", from), 0);
	free(from);
	free(to);
}

/* a B/E pair around the two events, and an E that closes nothing */
static void mk_begin_end(struct ctx *c)
{
	put_trace(c, ",\n{\"ph\": \"B\", \"name\": \"span\", \"pid\": 7, \"tid\": 1, \"ts\": \"90.0\"},\n"
		     "{\"ph\": \"E\", \"pid\": 7, \"tid\": 1, \"ts\": \"130.0\"},\n"
		     "{\"ph\": \"E\", \"pid\": 7, \"tid\": 1, \"ts\": \"140.0\"}");
}

static void mk_nul_name(struct ctx *c)
{
	put_trace(c, ",\n{\"ph\": \"X\", \"name\": \"half\\u0000hidden\", \"pid\": 7, \"tid\": 1, \"ts\": \"120.0\", \"dur\": 1}");
}

static void mk_exponent_ts(struct ctx *c)
{
	put_trace(c, ",\n{\"ph\": \"X\", \"name\": \"e\", \"pid\": 7, \"tid\": 1, \"ts\": 1.2e2, \"dur\": 1}");
}

/* param 0: bytes after the closing ']'; 1: a wrapper with a second "traceEvents" */
static void mk_after_array(struct ctx *c)
{
	static const char ev[] = "{\"ph\": \"X\", \"name\": \"a\", \"pid\": 7, \"tid\": 1, \"ts\": \"100.0\", \"dur\": 5}";
	char *text;
	if (c->param)
		assert_true(asprintf(&text, "{\"traceEvents\": [%s], \"traceEvents\": [%s, %s]}", ev, ev, ev) > 0);
	else
		assert_true(asprintf(&text, "[%s]\n[%s]\n", ev, ev) > 0);
	put_str(c->out, "trace_view.json", text);
	free(text);
}

/* param 0: ';'-separated, 1: TAB-separated */
static void mk_other_separator(struct ctx *c)
{
	put_str(c->out, "api_statistic.csv", c->param ? "Level\tAPI Name\tTime(us)\tCount\nL\ta\t1\t1\n"
						      : "Level;API Name;Time(us);Count\nL;a;1;1\n");
}

static void mk_nul_header(struct ctx *c)
{
	static const char t[] = "OP Type,Core Type,Cou\0nt,Total Time(us)\nMatMul,AI_CORE,3,10\n";
	put(c->out, "op_statistic.csv", t, sizeof t - 1);
}

static void mk_bad_step_ids(struct ctx *c)
{
	put_str(c->out, "step_trace_time.csv",
		"Step,Computing,Communication(Not Overlapped),Overlapped,Communication,Free,Stage,Bubble\n"
		"abc,10,0,0,0,1,11,0\n"
		"3,10,0,0,0,1,11,0\n"
		"3,10,0,0,0,1,11,0\n"
		"1,10,0,0,0,1,11,0\n"
		"-2,10,0,0,0,1,11,0\n");
}

/* memory tables beside the generated ones (the case counts them: csv_lost -2) */
static void mk_bad_memory(struct ctx *c)
{
	put_str(c->out, "memory_record.csv",
		"Component,Timestamp(us),Total Allocated(MB),Total Reserved(MB),Total Active(MB),Stream Ptr,Device Type\n"
		"APP,1736408893013080.301,,10368,,,NPU:0\n"
		"APP,1736408893013090.301,,-64,,,NPU:0\n"
		"APP,,,20000,,,NPU:0\n");
	put_str(c->out, "operator_memory.csv",
		"Name,Size(KB),Allocation Time(us),Release Time(us),Duration(us),Device Type\n"
		"aten::empty_strided,1572864,1736408893013080.301,1736408893034370.249,21289.948,NPU:0\n"
		"aten::empty,-512,1736408893013080.301,,,NPU:0\n"
		"aten::zeros,64,1736408893034370.249,1736408893013080.301,,NPU:0\n");
}

/* kernel_details.csv padded to 5 MB with blank lines (which hold no rows) */
static void mk_big_csv(struct ctx *c)
{
	size_t len;
	char *t = slurp(c->out, "kernel_details.csv", &len);
	size_t big = 5u << 20;
	assert_true(len < big);
	t = realloc(t, big);
	memset(t + len, '\n', big - len);
	put(c->out, "kernel_details.csv", t, big);
	free(t);
}

/* a quoted cell opened in api_statistic.csv and never closed, 20 MB long */
static void mk_endless_cell(struct ctx *c)
{
	static const char head[] = API_HDR "L,a,1,1,1,1,1,0\nL,\"";
	size_t hl = sizeof head - 1, n = 20u << 20;
	char *t = malloc(hl + n);
	assert_non_null(t);
	memcpy(t, head, hl);
	memset(t + hl, 'x', n);
	put(c->out, "api_statistic.csv", t, hl + n);
	free(t);
}

/* a table whose first line is no header at all (a copied system file): its cells are not
 * echoed in the drill-down message */
static void mk_not_a_header(struct ctx *c) { put_str(c->out, "kernel_details.csv", SECRET "\nbin:*:19000:0:99999:7:::\n"); }

/* ---- the table ------------------------------------------------------------------------ */

#define CUT(mk, what, k)                                                                    \
	{.name = what " trace cut at " #k "/11", .make = mk, .param = k, .file = "trace_view.json", \
	 .msg = "cut short", .loc = LOC_OFFSET, .trace = EV_SOME}

static const struct bad_case cases[] = {
	{.name = "intact capture", .make = mk_nothing},
	{.name = "0-byte trace", .make = mk_empty_trace, .file = "trace_view.json", .msg = "empty file (0 bytes); skipped", .trace = EV_NONE},
	{.name = "0-byte CSV", .make = mk_empty_csv, .file = "kernel_details.csv", .msg = "empty file (0 bytes); skipped", .csv_lost = 1},
	CUT(mk_cut, "generated", 1), CUT(mk_cut, "generated", 2), CUT(mk_cut, "generated", 3),
	CUT(mk_cut, "generated", 4), CUT(mk_cut, "generated", 5), CUT(mk_cut, "generated", 6),
	CUT(mk_cut, "generated", 7), CUT(mk_cut, "generated", 8), CUT(mk_cut, "generated", 9),
	CUT(mk_cut, "generated", 10),
	CUT(mk_cut_real, "real", 1), CUT(mk_cut_real, "real", 2), CUT(mk_cut_real, "real", 3),
	CUT(mk_cut_real, "real", 4), CUT(mk_cut_real, "real", 5), CUT(mk_cut_real, "real", 6),
	CUT(mk_cut_real, "real", 7), CUT(mk_cut_real, "real", 8), CUT(mk_cut_real, "real", 9),
	CUT(mk_cut_real, "real", 10),
	{.name = "binary garbage as the trace", .make = mk_garbage_trace, .file = "trace_view.json", .msg = "not a Chrome trace", .trace = EV_NONE},
	{.name = "binary garbage as a CSV", .make = mk_garbage_csv, .file = "op_statistic.csv", .msg = "not UTF-8 and not GB18030", .loc = LOC_LINE},
	{.name = "invalid UTF-8 in a trace name", .make = mk_bad_utf8_trace, .file = "trace_view.json", .msg = "not valid UTF-8 (the first event with one", .loc = LOC_OFFSET, .trace = EV_SOME, .events = 3},
	{.name = "invalid UTF-8 in a CSV", .make = mk_bad_utf8_csv, .file = "api_statistic.csv", .msg = "bad bytes are shown escaped", .loc = LOC_LINE},
	{.name = "GBK CSV", .make = mk_gbk_csv, .file = "op_statistic.csv", .msg = "read as GB18030/GBK", .loc = LOC_LINE},
	{.name = "1 MB single-line trace", .make = mk_mb_line_trace, .trace = EV_SOME, .events = 2},
	{.name = "1 MB CSV line", .make = mk_mb_line_csv},
	{.name = "nesting 100,000 deep as an element", .make = mk_deep_trace, .file = "trace_view.json", .msg = "not an object; skipped", .loc = LOC_OFFSET, .trace = EV_SOME, .events = 1},
	{.name = "nesting 100,000 deep in args", .make = mk_deep_args, .file = "trace_view.json",
	 .msg = "values nested more than 64 deep in an element of 200089 bytes; the event is kept without them",
	 .loc = LOC_OFFSET, .trace = EV_SOME, .events = 3},
	{.name = "ts 1e309", .make = mk_huge_number, .file = "trace_view.json", .msg = "\"ts\" is out of range (1e309); event dropped", .loc = LOC_OFFSET, .trace = EV_SOME, .events = 2},
	{.name = "ts NaN", .make = mk_nan, .file = "trace_view.json", .msg = "\"ts\" is not a number (NaN); event dropped", .loc = LOC_OFFSET, .trace = EV_SOME, .events = 2},
	{.name = "ts and dur -0", .make = mk_neg_zero, .trace = EV_SOME, .events = 3},
	{.name = "negative dur", .make = mk_neg_dur, .file = "trace_view.json", .msg = "negative \"dur\" (-5); kept with duration 0", .loc = LOC_OFFSET, .trace = EV_SOME, .events = 3},
	{.name = "dur 1e300", .make = mk_huge_dur, .file = "trace_view.json", .msg = "\"dur\" is out of range (1e300); kept with duration 0", .loc = LOC_OFFSET, .trace = EV_SOME, .events = 3},
	{.name = "step times near the limit", .make = mk_huge_steps, .file = "step_trace_time.csv",
	 .msg = "Computing \"3000000000000001\" is out of range; read as missing", .loc = LOC_LINE},
	{.name = "times at both ends of the range", .make = mk_time_extremes, .file = "trace_view.json",
	 .msg = "\"ts\" is out of range (3000000000000001); event dropped", .loc = LOC_OFFSET, .events = 4,
	 .trace = EV_SOME},
	{.name = "non-monotonic ts", .make = mk_non_monotonic, .trace = EV_SOME, .events = 5},
	{.name = "duplicate process_name", .make = mk_dup_meta, .file = "trace_view.json", .msg = "named both \"Python\" and \"CANN\"; the later name is used", .loc = LOC_OFFSET, .trace = EV_SOME, .events = 2},
	{.name = "sort index beyond int64", .make = mk_huge_sort_index, .trace = EV_SOME, .events = 2},
	{.name = "no metadata", .make = mk_no_meta, .file = "trace_view.json", .msg = "have no process_name metadata", .trace = EV_SOME, .events = 2},
	{.name = "pid as a string", .make = mk_pid_string, .trace = EV_SOME, .events = 2},
	{.name = "UTF-8 BOM before the trace", .make = mk_bom_trace},
	{.name = "CSV with only a header", .make = mk_header_only, .file = "op_statistic.csv", .msg = "a header and no data rows"},
	{.name = "BOM-only CSV", .make = mk_bom_only, .file = "op_statistic.csv", .msg = "no header row; skipped", .csv_lost = 1},
	{.name = "ragged rows", .make = mk_ragged, .file = "api_statistic.csv", .msg = "cells", .loc = LOC_LINE},
	{.name = "unbalanced quotes", .make = mk_unbalanced_quote, .file = "api_statistic.csv", .msg = "is never closed", .loc = LOC_LINE},
	{.name = "NUL byte in a CSV", .make = mk_nul_csv},
	{.name = "Excel-mangled timestamp", .make = mk_excel, .file = "kernel_details.csv", .msg = "exponent", .loc = LOC_LINE},
	{.name = "kernel_details.csv with a foreign header", .make = mk_foreign_header, .file = "kernel_details.csv",
	 .msg = "named like a kernel_details table, but its header does not match it (missing: Start Time(us), "
		"Duration(us)); read as an unknown table", .loc = LOC_LINE},
	{.name = "permission denied", .make = mk_denied, .file = "trace_view.json", .msg = "cannot open: Permission denied", .trace = EV_NONE, .unprivileged = true},
	{.name = "symlink loops", .make = mk_symlink_loop, .file = "trace_view.json", .msg = "cannot stat: Too many levels of symbolic links; skipped", .trace = EV_NONE},
	{.name = "FIFO as the trace", .make = mk_fifo, .file = "trace_view.json", .msg = "FIFO, not a file", .trace = EV_NONE},
	{.name = "FIFO as a CSV", .make = mk_fifo, .param = 1, .file = "kernel_details.csv", .msg = "FIFO, not a file", .csv_lost = 1},
	{.name = "FIFO as profiler_info", .make = mk_fifo_info, .file = "profiler_info_0.json", .msg = "not a regular file"},
	{.name = "4,200 tiny CSV files", .make = mk_many_csv, .file = "ASCEND_PROFILER_OUTPUT",
	 .msg = "109 more CSV files here are not read: a rank reads at most 4096", .csv_lost = -(4096 - N_CSV)},
	{.name = "FIFO as profiler_metadata", .make = mk_fifo_metadata, .file = "profiler_metadata.json",
	 .msg = "is a FIFO, not a file; skipped"},
	{.name = "directory named trace_view.json", .make = mk_dir_trace, .file = "trace_view.json", .msg = "directory, not a file", .trace = EV_NONE},
	{.name = "a broken profiler_info before a good one", .make = mk_two_infos, .file = "profiler_info.json", .msg = "not a JSON object"},
	{.name = "broken profiler_info", .make = mk_bad_info, .file = "profiler_info_0.json", .msg = "not a JSON object"},
	{.name = "JSON object without traceEvents", .make = mk_wrapper_junk, .file = "trace_view.json", .msg = "not a Chrome trace", .trace = EV_NONE},
	{.name = "junk between elements", .make = mk_junk_after, .file = "trace_view.json", .msg = "kept the 1 events before it", .loc = LOC_OFFSET, .trace = EV_SOME, .events = 1},
	{.name = "control bytes in names and args", .make = mk_control_bytes, .trace = EV_SOME, .events = 3},
	{.name = "trace over --max-trace-bytes", .make = mk_padded, .file = "trace_view.json",
	 .msg = "is over the limit of 250000 bytes set by --max-trace-bytes; skipped", .trace = EV_NONE,
	 .max_trace_bytes = 250000},
	/* no default limit: what grows with a trace is spilled to disk (spill.h) */
	{.name = "trace larger than the memory available", .make = mk_padded, .trace = EV_ALL,
	 .mem_available = "200000"},
	/* ---- issue 22, part A ---- */
	{.name = "escapes in profiler_info versions", .make = mk_info_escapes, .text_has = "CANN \\e]0;pwned\\a, \\e[2J"},
	{.name = "dur of 95 years", .make = mk_year_dur, .file = "trace_view.json",
	 .msg = "\"dur\" (2999999999999999 us) is longer than a day; kept with duration 0", .loc = LOC_OFFSET,
	 .trace = EV_SOME, .events = 3},
	{.name = "header-only memory tables", .make = mk_memory_headers, .file = "operator_memory.csv",
	 .msg = "a header and no data rows", .csv_lost = -3},
	{.name = "profiler_info nested 200,000 deep", .make = mk_deep_info, .file = "profiler_info_0.json",
	 .msg = "1 value nested more than 64 deep not read; the rest is kept", .text_has = "CANN 8.0.RC3, Level2"},
	{.name = "an entry twice in communication.json", .make = mk_comm_repeats, .file = "communication.json",
	 .msg = "entry \"hcom_allReduce__1@g\" of step1 appears again (first at byte 49); the later one is kept",
	 .loc = LOC_OFFSET, .text_has = "1 step(s), 1 entries"},
	{.name = "UTF-16 CSV", .make = mk_utf16_csv, .file = "api_statistic.csv",
	 .msg = "UTF-16LE (byte order mark): read converted to UTF-8"},
	{.name = "unreadable output directory", .make = mk_unreadable_dir, .file = "ASCEND_PROFILER_OUTPUT",
	 .msg = "cannot read directory: Permission denied; skipped", .trace = EV_NONE, .csv_lost = N_CSV,
	 .unprivileged = true, .msg_absent = "no analyse.done"},
	{.name = "socket named profiler_info", .make = mk_socket_info, .file = "profiler_info_0.json",
	 .msg = "a socket, not a regular file; ignored: no versions, level or rank from it"},
	{.name = "DEL as a ph value", .make = mk_del_ph, .trace = EV_SOME, .events = 2, .text_has = " other 1"},
	/* issue 22, part B */
	{.name = "CSV linked to a file outside the capture", .make = mk_link_out, .file = "kernel_details.csv",
	 .msg = "a symbolic link leads outside the capture here; not followed", .csv_lost = 1, .never = "SECRET-LINE"},
	{.name = "metadata linked outside the capture", .make = mk_link_out, .param = 1, .file = "profiler_metadata.json",
	 .msg = "a symbolic link leads outside the capture here; not followed", .never = "SECRET-LINE"},
	{.name = "directory link to /", .make = mk_link_to_root, .file = "rootlink",
	 .msg = "a symbolic link leads outside the capture here; not followed", .never = "/proc"},
	{.name = "link inside the capture", .make = mk_link_inside},
	{.name = "a first line that is no header", .make = mk_not_a_header, .file = "kernel_details.csv",
	 .msg = "no known column in the first line (1 cells): not a table this program reads", .loc = LOC_LINE,
	 .never = "SECRET-LINE"},
	{.name = "B/E pairs and an E alone", .make = mk_begin_end, .file = "trace_view.json",
	 .msg = "\"E\" event with no \"B\" open on its thread (pid 7, tid 1); dropped", .loc = LOC_OFFSET, .trace = EV_SOME,
	 .events = 3},
	{.name = "\\u0000 in a name", .make = mk_nul_name, .file = "trace_view.json",
	 .msg = "a string holds \\u0000 (\"half\xEF\xBF\xBDhidden\"...): shown as U+FFFD rather than cut there", .loc = LOC_OFFSET,
	 .trace = EV_SOME, .events = 3},
	{.name = "ts in exponent form", .make = mk_exponent_ts, .file = "trace_view.json",
	 .msg = "\"ts\" in exponent form (1.2e2): the digits it dropped are lost; kept as read", .loc = LOC_OFFSET,
	 .trace = EV_SOME, .events = 3},
	{.name = "data after the events' ']'", .make = mk_after_array, .file = "trace_view.json",
	 .msg = "bytes after the closing ']' of the events are not read", .loc = LOC_OFFSET, .trace = EV_SOME, .events = 1},
	{.name = "a second traceEvents", .make = mk_after_array, .param = 1, .file = "trace_view.json",
	 .msg = "a second \"traceEvents\" key after the events that were read", .loc = LOC_OFFSET, .trace = EV_SOME, .events = 1},
	{.name = "';'-separated CSV", .make = mk_other_separator, .file = "api_statistic.csv",
	 .msg = "the header is separated by ';', not commas: the table is not read", .loc = LOC_LINE},
	{.name = "TAB-separated CSV", .make = mk_other_separator, .param = 1, .file = "api_statistic.csv",
	 .msg = "the header is separated by TABs, not commas: the table is not read", .loc = LOC_LINE},
	{.name = "NUL in a CSV header cell", .make = mk_nul_header, .file = "op_statistic.csv",
	 .msg = "header cell 3 holds a NUL byte; read without it", .loc = LOC_LINE},
	{.name = "step id not a number", .make = mk_bad_step_ids, .file = "step_trace_time.csv",
	 .msg = "Step \"abc\" is not a step number; the row is kept", .loc = LOC_LINE},
	{.name = "step id repeated", .make = mk_bad_step_ids, .file = "step_trace_time.csv",
	 .msg = "Step 3 again (first at line 3): its times are counted twice", .loc = LOC_LINE},
	{.name = "step ids descending", .make = mk_bad_step_ids, .file = "step_trace_time.csv",
	 .msg = "Step 1 comes after step 3: the steps are out of order", .loc = LOC_LINE},
	{.name = "step id negative", .make = mk_bad_step_ids, .file = "step_trace_time.csv",
	 .msg = "Step -2 is negative; the row is kept", .loc = LOC_LINE},
	{.name = "negative reserved memory", .make = mk_bad_memory, .file = "memory_record.csv",
	 .msg = "Total Reserved(MB) is negative (-64); kept as read", .loc = LOC_LINE, .csv_lost = -2},
	{.name = "memory sample without a time", .make = mk_bad_memory, .file = "memory_record.csv",
	 .msg = "a sample without a readable Timestamp(us): a peak here has no time", .loc = LOC_LINE, .csv_lost = -2},
	{.name = "release before allocation", .make = mk_bad_memory, .file = "operator_memory.csv",
	 .msg = "released 21289.948 µs before it was allocated; kept as read", .loc = LOC_LINE, .csv_lost = -2},
	{.name = "CSV over --max-csv-bytes", .make = mk_big_csv, .file = "kernel_details.csv",
	 .msg = "5242880 bytes is over the limit of 1000000 bytes set by --max-csv-bytes; skipped", .csv_lost = 1,
	 .max_csv_bytes = 1000000},
	{.name = "CSV larger than memory allows", .make = mk_big_csv, .file = "kernel_details.csv",
	 .msg = "5242880 bytes is over the limit of 1333300 bytes that the 1000000 bytes of available memory allow",
	 .csv_lost = 1, .mem_available = "1000000"},
	{.name = "a quoted cell that never ends, 20 MB", .make = mk_endless_cell, .file = "api_statistic.csv",
	 .msg = "runs past 16 MB (an unclosed quote?): the rows before it are kept", .loc = LOC_LINE},
};

/* ---- running a case ------------------------------------------------------------------- */

static const struct diag *find_diag(struct capture *cap, const struct bad_case *bc)
{
	for (size_t i = 0; i < cap->diags.n; i++) {
		const struct diag *d = &cap->diags.items[i];
		const char *slash = d->file ? strrchr(d->file, '/') : NULL;
		if (!slash || strcmp(slash + 1, bc->file) || !strstr(d->msg, bc->msg))
			continue;
		if ((bc->loc == LOC_LINE && d->line <= 0) || (bc->loc == LOC_OFFSET && d->offset < 0))
			continue;
		return d;
	}
	return NULL;
}

static void dump_diags(struct capture *cap)
{
	for (size_t i = 0; i < cap->diags.n; i++) {
		char *s = diag_format(&cap->diags.items[i]);
		print_message("  %s: %s\n", diag_level_name(cap->diags.items[i].level), s);
		free(s);
	}
}

static void test_case(void **state)
{
	const struct bad_case *bc = *state;
	if (!base)
		skip();
	/* before anything is allocated: a skip() leaves this function by longjmp */
	if (bc->make == mk_cut_real) {
		char *real = tu_real(real_trace);
		free(real);
		if (!real)
			skip();
	}
	alarm(CASE_SECONDS); /* a hang ends the test program: the case fails */
	/* inside workdir, so that a failed or skipped case leaves nothing behind */
	char *dir;
	assert_true(asprintf(&dir, "%s/case-XXXXXX", workdir) > 0);
	assert_non_null(mkdtemp(dir));
	assert_int_equal(tu_sh("cp -a '%s/.' '%s/'", base, dir), 0);
	struct ctx c = {.param = bc->param};
	assert_int_equal(tu_sh("cd '%s' && test -d *_rank0_*_ascend_pt/ASCEND_PROFILER_OUTPUT", dir), 0);
	char *list = NULL;
	assert_true(asprintf(&list, "%s/.rank0", workdir) > 0);
	assert_int_equal(tu_sh("cd '%s' && ls -d *_rank0_*_ascend_pt > '%s'", dir, list), 0);
	char *r0 = tu_read(list, NULL);
	r0[strcspn(r0, "\n")] = '\0';
	snprintf(c.worker, sizeof c.worker, "%s/%s", dir, r0);
	snprintf(c.out, sizeof c.out, "%s/ASCEND_PROFILER_OUTPUT", c.worker);
	free(r0);
	free(list);
	bc->make(&c);

	if (bc->mem_available)
		setenv("ASCPROF_MEM_AVAILABLE", bc->mem_available, 1);
	/* as root, the load runs with the effective uid of nobody (and back) */
	bool dropped = bc->unprivileged && geteuid() == 0;
	if (dropped)
		assert_int_equal(tu_sh("chmod 755 '%s' '%s'", workdir, dir), 0);
	if (dropped && seteuid(65534) != 0)
		fail_msg("cannot take the uid of nobody");
	struct capture_opts opts = {.threads = 2, .max_trace_bytes = bc->max_trace_bytes,
				    .max_csv_bytes = bc->max_csv_bytes};
	struct capture *cap = capture_open(dir, &opts);
	if (cap->usable)
		capture_load(cap);
	if (dropped && seteuid(0) != 0)
		abort(); /* the other cases cannot run as nobody */
	assert_true(cap->usable);
	unsetenv("ASCPROF_MEM_AVAILABLE");
	struct analysis *an = analysis_run(cap);
	char *outputs = NULL;
	size_t outputs_len = 0;
	FILE *null = bc->never ? open_memstream(&outputs, &outputs_len) : fopen("/dev/null", "w");
	report_print_text(an, null);
	report_print_json(an, null);
	summary_print_json(cap, null);
	fclose(null);
	/* the text forms go to a terminal: no capture byte may reach it unescaped */
	char *text = NULL;
	size_t text_len = 0;
	FILE *mem = open_memstream(&text, &text_len);
	report_print_text(an, mem);
	summary_print_text(cap, mem);
	fclose(mem);
	for (size_t i = 0; i < text_len; i++)
		if (((unsigned char)text[i] < ' ' && text[i] != '\n') || text[i] == 0x7f)
			fail_msg("byte 0x%02x at %zu of the text summary or report: \"%.60s\"",
				 (unsigned char)text[i], i, text + (i > 30 ? i - 30 : 0));
	if (bc->text_has && !strstr(text, bc->text_has)) {
		print_message("%s", text);
		fail_msg("the text summary or report lacks \"%s\"", bc->text_has);
	}
	free(text);
	analysis_free(an);
	if (bc->never) {
		for (size_t i = 0; i < cap->diags.n; i++) {
			const struct diag *d = &cap->diags.items[i];
			if (strstr(d->msg, bc->never) || (d->file && strstr(d->file, bc->never)))
				fail_msg("a message holds \"%s\": %s", bc->never, d->msg);
		}
		if (strstr(outputs, bc->never))
			fail_msg("a report holds \"%s\"", bc->never);
		free(outputs);
	}

	/* (a) the message */
	if (bc->file && !find_diag(cap, bc)) {
		dump_diags(cap);
		fail_msg("no message naming %s%s with \"%s\"", bc->file,
			 bc->loc == LOC_LINE ? " and a line" : bc->loc == LOC_OFFSET ? " and a byte offset" : "", bc->msg);
	}
	for (size_t i = 0; bc->msg_absent && i < cap->diags.n; i++)
		if (strstr(cap->diags.items[i].msg, bc->msg_absent) && strstr(cap->diags.items[i].file, "_rank0_")) {
			dump_diags(cap);
			fail_msg("a message with \"%s\"", bc->msg_absent);
		}
	if (!bc->file && diag_count(&cap->diags, DIAG_WARN)) {
		dump_diags(cap);
		fail_msg("a warning where none was expected");
	}
	/* (b) everything else still loaded */
	assert_int_equal(cap->n_ranks, 2);
	const struct rank_data *r0d = NULL, *r1d = NULL;
	for (size_t r = 0; r < cap->n_ranks; r++) {
		if (strstr(cap->ranks[r].plan->label, "_rank0_"))
			r0d = &cap->ranks[r];
		else
			r1d = &cap->ranks[r];
	}
	assert_non_null(r0d);
	assert_non_null(r1d);
	assert_int_equal(r1d->store.n_ev, tu_truth_int(truth, "rank.1.events.X"));
	assert_int_equal(r1d->n_csvs, N_CSV);
	assert_int_equal(r0d->n_csvs, N_CSV - bc->csv_lost);
	if (bc->events)
		assert_int_equal(r0d->store.n_ev, bc->events);
	size_t all = (size_t)tu_truth_int(truth, "rank.0.events.X");
	switch (bc->trace) {
	case EV_ALL: assert_int_equal(r0d->store.n_ev, all); break;
	case EV_SOME:
		if (r0d->store.n_ev == 0)
			fail_msg("rank 0 kept no events");
		break;
	case EV_NONE: assert_int_equal(r0d->store.n_ev, 0); break;
	}
	capture_free(cap);
	alarm(0);
	tu_rmtree(dir);
	free(dir);
}

/* The binary on a capture with many broken files at once: it still exits 0, and the
 * JSON summary names every broken file. */
static void test_binary_on_many_broken_files(void **state)
{
	(void)state;
	const char *bin = getenv("ASCPROF_BIN");
	if (!base || !bin)
		skip();
	char *dir;
	assert_true(asprintf(&dir, "%s/many-XXXXXX", workdir) > 0);
	assert_non_null(mkdtemp(dir));
	assert_int_equal(tu_sh("cp -a '%s/.' '%s/' && cd '%s' && o=$(ls -d *_rank0_*_ascend_pt)/ASCEND_PROFILER_OUTPUT && "
			       ": > $o/kernel_details.csv && printf '\\357\\273\\277' > $o/op_statistic.csv && "
			       "head -c 5000 $o/trace_view.json > $o/t && mv $o/t $o/trace_view.json && "
			       "rm $o/api_statistic.csv && mkfifo $o/api_statistic.csv",
			       base, dir, dir), 0);
	char out[4200];
	snprintf(out, sizeof out, "%s.json", dir);
	for (int mode = 0; mode < 2; mode++) {
		assert_int_equal(tu_sh("timeout 60 '%s' %s --json '%s' > '%s' 2>/dev/null", bin,
				       mode ? "--report" : "--summary", dir, out), 0);
		char *js = tu_read(out, NULL);
		assert_non_null(js);
		assert_non_null(strstr(js, "kernel_details.csv"));
		assert_non_null(strstr(js, "empty file"));
		assert_non_null(strstr(js, "no header row"));
		assert_non_null(strstr(js, "cut short"));
		assert_non_null(strstr(js, "FIFO, not a file"));
		free(js);
	}
	remove(out);
	tu_rmtree(dir);
	free(dir);
}

/* The default CSV limit: from the memory this machine has available, 4/3 of it (traces
 * have none). */
static void test_default_limit_from_memory(void **state)
{
	(void)state;
	unsetenv("ASCPROF_MEM_AVAILABLE");
	uint64_t avail = capture_mem_available();
	assert_true(avail > 0); /* MemAvailable is always there on Linux */
	assert_true(capture_auto_csv_limit(avail) > avail);
	assert_int_equal(capture_auto_csv_limit(750), 1000);
	assert_int_equal(capture_auto_csv_limit(0), 0); /* unknown: no limit */
	assert_true(capture_auto_csv_limit(UINT64_MAX) == UINT64_MAX);
	setenv("ASCPROF_MEM_AVAILABLE", "12345", 1);
	assert_int_equal(capture_mem_available(), 12345);
	unsetenv("ASCPROF_MEM_AVAILABLE");
}

static int setup(void **state)
{
	(void)state;
	if (!tu_gen())
		return 0;
	base = tu_generate("--ranks 2 --ops 8 --steps 3 --prefill 1 --naming rank --seed 5");
	truth = tu_truth_load(base);
	workdir = strdup(base);
	*strrchr(workdir, '/') = '\0';
	return 0;
}

static int teardown(void **state)
{
	(void)state;
	if (workdir)
		tu_rmtree(workdir);
	tu_truth_free(truth);
	free(workdir);
	free(base);
	return 0;
}

int main(void)
{
	enum { N = sizeof cases / sizeof cases[0] };
	struct CMUnitTest tests[N + 2];
	for (size_t i = 0; i < N; i++)
		tests[i] = (struct CMUnitTest){cases[i].name, test_case, NULL, NULL, (void *)&cases[i]};
	tests[N] = (struct CMUnitTest){"binary on many broken files", test_binary_on_many_broken_files, NULL, NULL, NULL};
	tests[N + 1] = (struct CMUnitTest){"default limit from memory", test_default_limit_from_memory, NULL, NULL, NULL};
	return _cmocka_run_group_tests("bad_input", tests, N + 2, setup, teardown);
}
