/* SPDX-License-Identifier: MIT */
/* Helpers shared by the cmocka tests: locating sources, the generator and the real
 * fixtures (which live beside the checkout and may be absent), temp directories and
 * small file I/O. Tests write only under a fresh directory in $TMPDIR. */
#ifndef ASCPROF_TESTUTIL_H
#define ASCPROF_TESTUTIL_H

#include <stdarg.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <cmocka.h>

/* Running under an emulator (tests/emu/run sets ASCPROF_EMULATED): CPU times and their
 * ratios say nothing of the code there, so timing checks assert only natively. */
bool tu_emulated(void);
/* $ASCPROF_SHARED/fixtures-real/<rel>, or NULL when the real fixtures are absent. */
char *tu_real(const char *rel);
/* Skips the current test (cmocka skip) when the real fixtures are absent. */
#define TU_REAL_OR_SKIP(var, rel)                                                        \
	char *var = tu_real(rel);                                                            \
	if (!var) {                                                                          \
		skip();                                                                          \
	}
/* A fresh empty directory under $TMPDIR (owned string); removed by tu_rmtree. */
char *tu_tmpdir(void);
void tu_rmtree(const char *path);
/* Writes bytes to dir/name (creating parent dirs); returns the owned full path. */
char *tu_write(const char *dir, const char *name, const void *data, size_t len);
char *tu_write_str(const char *dir, const char *name, const char *text);
/* A file that shrinks under its reader: data written to dir/name, mapped whole (len
 * bytes, read-only), then truncated to cut bytes. Returns the map; *fd is the open file
 * (close it and munmap(map, len) when done). */
void *tu_map_then_truncate(const char *dir, const char *name, const void *data, size_t len, size_t cut,
			   int *fd);
/* Reads a whole file; NULL on failure. */
char *tu_read(const char *path, size_t *len);
/* Runs a shell command; returns its exit status (or -1). */
int tu_sh(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
/* Path of the generator binary, or NULL (the test is then skipped). */
const char *tu_gen(void);
/* Runs the generator with args into a fresh temp dir; returns the dir (owned). */
char *tu_generate(const char *args);
/* Ground truth of a generated capture: key=value lines. */
struct tu_truth;
struct tu_truth *tu_truth_load(const char *dir);
void tu_truth_free(struct tu_truth *t);
/* The value for key; fails the test when missing. */
long long tu_truth_int(const struct tu_truth *t, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
/* The value, or def when missing. */
long long tu_truth_int_or(const struct tu_truth *t, long long def, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));
const char *tu_truth_str(const struct tu_truth *t, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
/* Iterates keys with a prefix: calls fn(key, value) for each. */
void tu_truth_each(const struct tu_truth *t, const char *prefix,
		   void (*fn)(const char *key, const char *value, void *ctx), void *ctx);
/* A generated capture, loaded and analysed, with its ground truth. */
struct tu_capture {
	char *dir;
	struct capture *cap;
	struct analysis *an;
	struct tu_truth *truth;
};
/* Generates with args, loads and (with analyse) analyses; skips the test without the
 * generator. */
void tu_capture_load(struct tu_capture *c, const char *args, bool analyse);
/* Frees it and removes its temp dir. */
void tu_capture_free(struct tu_capture *c);
/* report_print_text of an analysis, as an owned string. */
struct analysis;
char *tu_report_text(const struct analysis *an);
/* The binary's (ASCPROF_BIN) --report --json of a capture, written beside it as DIR.json and
 * read back (owned, *len bytes); skips the test without the binary or the generator. */
char *tu_report_json(const char *dir, size_t *len);
/* |a - b| <= tol * |b| (relative), with an absolute floor. */
bool tu_close(double a, double b, double rel_tol, double abs_tol);

#endif
