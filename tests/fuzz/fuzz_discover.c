/* SPDX-License-Identifier: MIT */
/* Discovery and loading over a directory tree built from the fuzz bytes, then the
 * analysis, the report and the summary (both formats) of whatever loaded.
 *
 * Input: records of [where][name][kind][len lo][len hi][len bytes of content]. `where`
 * and `name` pick from the tables below (the layouts discovery knows), `kind` makes a
 * regular file, a directory, a FIFO, a symlink to the tree's root or to itself. A tree
 * made by tests/fuzz/seed.sh from a generated capture is a good seed. */
#include <fcntl.h>
#include <ftw.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "analysis.h"
#include "capture.h"
#include "report.h"
#include "summary.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static const char *const fz_dirs[] = {
	"",
	"w_rank0_ascend_pt/",
	"w_rank0_ascend_pt/ASCEND_PROFILER_OUTPUT/",
	"w_rank1_ascend_pt/",
	"w_rank1_ascend_pt/ASCEND_PROFILER_OUTPUT/",
	"host_42_20250101_ascend_pt/ASCEND_PROFILER_OUTPUT/",
	"PROF_000001_20250101_ABC/mindstudio_profiler_output/",
	"PROF_000001_20250101_ABC/device_0/",
	"w_rank0_ascend_pt/PROF_000001_20250101_ABC/",
	"w_rank0_ascend_pt/FRAMEWORK/",
};
static const char *const fz_names[] = {
	"trace_view.json", "kernel_details.csv", "op_statistic.csv", "step_trace_time.csv",
	"operator_details.csv", "api_statistic.csv", "communication.json",
	"communication_matrix.json", "profiler_info_0.json", "profiler_info_1.json",
	"profiler_metadata.json", "analyse.done", "msprof_20250101.json", "op_summary_1.csv",
	"ascend_pytorch_profiler_0.db", "profiler_info.json", "analysis.db", "msprof_20250101000000.db",
};
#define FZ_COUNT(a) (sizeof(a) / sizeof(a)[0])

static char fz_root[4096];

static int fz_rm(const char *path, const struct stat *st, int flag, struct FTW *ftw)
{
	(void)st;
	(void)flag;
	if (ftw->level > 0)
		remove(path);
	return 0;
}

/* Creates every parent directory of root/rel. */
static void fz_mkdirs(const char *path)
{
	char buf[4096];
	snprintf(buf, sizeof buf, "%s", path);
	for (char *p = buf + strlen(fz_root) + 1; *p; p++)
		if (*p == '/') {
			*p = '\0';
			mkdir(buf, 0755);
			*p = '/';
		}
}

static void fz_build(const uint8_t *d, size_t n)
{
	size_t i = 0;
	for (int files = 0; files < 24 && i + 5 <= n; files++) {
		const char *where = fz_dirs[d[i] % FZ_COUNT(fz_dirs)];
		const char *name = fz_names[d[i + 1] % FZ_COUNT(fz_names)];
		uint8_t kind = d[i + 2];
		size_t len = (size_t)d[i + 3] | (size_t)d[i + 4] << 8;
		i += 5;
		if (len > n - i)
			len = n - i;
		char path[4096];
		if (snprintf(path, sizeof path, "%s/%s%s", fz_root, where, name) >= (int)sizeof path)
			continue; /* never: the root is a short temporary directory */
		fz_mkdirs(path);
		switch (kind) {
		case 'D': mkdir(path, 0755); break;
		case 'F': mkfifo(path, 0644); break;
		case 'L': symlink(fz_root, path); break;
		case 'S': symlink(path, path); break;
		default: {
			/* a FIFO or symlink an earlier record left here must not block the harness */
			int fd = open(path, O_WRONLY | O_CREAT | O_TRUNC | O_NONBLOCK | O_NOFOLLOW, 0644);
			if (fd >= 0) {
				if (write(fd, d + i, len) < 0)
					abort();
				close(fd);
			}
		}
		}
		i += len;
	}
}

static void fz_cleanup(void)
{
	nftw(fz_root, fz_rm, 16, FTW_DEPTH | FTW_PHYS);
	rmdir(fz_root);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	if (!fz_root[0]) {
		const char *base = getenv("TMPDIR");
		snprintf(fz_root, sizeof fz_root, "%s/ascprof-fuzz-XXXXXX", base && *base ? base : "/tmp");
		if (!mkdtemp(fz_root))
			abort();
		atexit(fz_cleanup);
	}
	nftw(fz_root, fz_rm, 16, FTW_DEPTH | FTW_PHYS);
	fz_build(data, size);

	struct capture_opts opts = {.threads = 1};
	struct capture *cap = capture_open(fz_root, &opts);
	if (cap->usable)
		capture_load(cap);
	FILE *null = fopen("/dev/null", "w");
	summary_print_text(cap, null);
	summary_print_json(cap, null);
	if (cap->usable) {
		struct analysis *an = analysis_run(cap);
		report_print_text(an, null);
		report_print_json(an, null);
		analysis_free(an);
	}
	fclose(null);
	capture_free(cap);
	return 0;
}
