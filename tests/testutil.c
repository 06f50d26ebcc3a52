/* SPDX-License-Identifier: MIT */
/* Test helpers: paths, temp dirs, files, the generator and its ground truth. */
#include "testutil.h"

#include "analysis.h"
#include "capture.h"
#include "report.h"

#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <fcntl.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

char *tu_real(const char *rel)
{
	const char *shared = getenv("ASCPROF_SHARED");
	char buf[4096];
	if (!shared || !*shared)
		shared = "../shared";
	snprintf(buf, sizeof buf, "%s/fixtures-real/%s", shared, rel);
	struct stat st;
	if (stat(buf, &st) != 0)
		return NULL;
	return strdup(buf);
}

char *tu_tmpdir(void)
{
	const char *base = getenv("TMPDIR");
	char buf[4096];
	snprintf(buf, sizeof buf, "%s/ascprof-test-XXXXXX", base && *base ? base : "/tmp");
	char *d = mkdtemp(buf);
	assert_non_null(d);
	return strdup(d);
}

void tu_rmtree(const char *path)
{
	if (!path || !strstr(path, "ascprof-test-"))
		return; /* only ever remove what tu_tmpdir made */
	tu_sh("chmod -R u+rwx '%s' 2>/dev/null; rm -rf '%s'", path, path);
}

static void mkdirs(const char *path)
{
	char buf[4096];
	snprintf(buf, sizeof buf, "%s", path);
	for (char *p = buf + 1; *p; p++) {
		if (*p == '/') {
			*p = '\0';
			mkdir(buf, 0755);
			*p = '/';
		}
	}
}

char *tu_write(const char *dir, const char *name, const void *data, size_t len)
{
	char *path;
	if (asprintf(&path, "%s/%s", dir, name) < 0)
		return NULL;
	mkdirs(path);
	FILE *f = fopen(path, "wb");
	assert_non_null(f);
	assert_int_equal(fwrite(data, 1, len, f), len);
	fclose(f);
	return path;
}

void *tu_map_then_truncate(const char *dir, const char *name, const void *data, size_t len, size_t cut,
			   int *fd)
{
	char *path = tu_write(dir, name, data, len);
	*fd = open(path, O_RDWR);
	assert_true(*fd >= 0);
	free(path);
	void *map = mmap(NULL, len, PROT_READ, MAP_SHARED, *fd, 0);
	assert_true(map != MAP_FAILED);
	assert_int_equal(ftruncate(*fd, (off_t)cut), 0);
	return map;
}

char *tu_write_str(const char *dir, const char *name, const char *text)
{
	return tu_write(dir, name, text, strlen(text));
}

char *tu_read(const char *path, size_t *len)
{
	FILE *f = fopen(path, "rb");
	if (!f)
		return NULL;
	size_t cap = 65536, n = 0;
	char *buf = malloc(cap + 1);
	size_t r;
	while ((r = fread(buf + n, 1, cap - n, f)) > 0) {
		n += r;
		if (n == cap) {
			cap *= 2;
			buf = realloc(buf, cap + 1);
		}
	}
	fclose(f);
	buf[n] = '\0';
	if (len)
		*len = n;
	return buf;
}

int tu_sh(const char *fmt, ...)
{
	va_list ap;
	va_start(ap, fmt);
	char *cmd;
	int n = vasprintf(&cmd, fmt, ap);
	va_end(ap);
	if (n < 0)
		return -1;
	int st = system(cmd);
	free(cmd);
	if (st == -1 || !WIFEXITED(st))
		return -1;
	return WEXITSTATUS(st);
}

const char *tu_gen(void)
{
	const char *g = getenv("ASCPROF_GEN");
	if (g && access(g, X_OK) == 0)
		return g;
	if (access("tools/ascprof-gen", X_OK) == 0)
		return "tools/ascprof-gen";
	return NULL;
}

char *tu_generate(const char *args)
{
	const char *gen = tu_gen();
	assert_non_null(gen);
	char *dir = tu_tmpdir();
	int rc = tu_sh("'%s' --out '%s/cap' --force %s >/dev/null", gen, dir, args);
	assert_int_equal(rc, 0);
	char *out;
	if (asprintf(&out, "%s/cap", dir) < 0)
		return NULL;
	free(dir);
	return out;
}

struct tu_kv {
	char *key, *value;
};

struct tu_truth {
	struct tu_kv *kv;
	size_t n;
};

struct tu_truth *tu_truth_load(const char *dir)
{
	char path[4096];
	snprintf(path, sizeof path, "%s/ground_truth.txt", dir);
	char *text = tu_read(path, NULL);
	assert_non_null(text);
	struct tu_truth *t = calloc(1, sizeof *t);
	size_t cap = 0;
	for (char *line = strtok(text, "\n"); line; line = strtok(NULL, "\n")) {
		while (*line == ' ' || *line == '\t')
			line++;
		if (*line == '#' || !*line)
			continue;
		char *eq = strchr(line, '=');
		if (!eq)
			continue;
		char *k = line, *ke = eq;
		while (ke > k && (ke[-1] == ' ' || ke[-1] == '\t'))
			ke--;
		char *v = eq + 1;
		while (*v == ' ' || *v == '\t')
			v++;
		size_t vl = strlen(v);
		while (vl && (v[vl - 1] == ' ' || v[vl - 1] == '\r'))
			vl--;
		if (t->n == cap) {
			cap = cap ? cap * 2 : 256;
			t->kv = realloc(t->kv, cap * sizeof *t->kv);
		}
		t->kv[t->n].key = strndup(k, (size_t)(ke - k));
		t->kv[t->n].value = strndup(v, vl);
		t->n++;
	}
	free(text);
	return t;
}

void tu_truth_free(struct tu_truth *t)
{
	if (!t)
		return;
	for (size_t i = 0; i < t->n; i++) {
		free(t->kv[i].key);
		free(t->kv[i].value);
	}
	free(t->kv);
	free(t);
}

static const char *lookup(const struct tu_truth *t, const char *key)
{
	for (size_t i = 0; i < t->n; i++)
		if (!strcmp(t->kv[i].key, key))
			return t->kv[i].value;
	return NULL;
}

long long tu_truth_int(const struct tu_truth *t, const char *fmt, ...)
{
	char key[512];
	va_list ap;
	va_start(ap, fmt);
	vsnprintf(key, sizeof key, fmt, ap);
	va_end(ap);
	const char *v = lookup(t, key);
	if (!v)
		fail_msg("ground truth has no key %s", key);
	return strtoll(v, NULL, 10);
}

long long tu_truth_int_or(const struct tu_truth *t, long long def, const char *fmt, ...)
{
	char key[512];
	va_list ap;
	va_start(ap, fmt);
	vsnprintf(key, sizeof key, fmt, ap);
	va_end(ap);
	const char *v = lookup(t, key);
	return v ? strtoll(v, NULL, 10) : def;
}

const char *tu_truth_str(const struct tu_truth *t, const char *fmt, ...)
{
	char key[512];
	va_list ap;
	va_start(ap, fmt);
	vsnprintf(key, sizeof key, fmt, ap);
	va_end(ap);
	const char *v = lookup(t, key);
	if (!v)
		fail_msg("ground truth has no key %s", key);
	return v;
}

void tu_truth_each(const struct tu_truth *t, const char *prefix,
		   void (*fn)(const char *key, const char *value, void *ctx), void *ctx)
{
	size_t pl = strlen(prefix);
	for (size_t i = 0; i < t->n; i++)
		if (!strncmp(t->kv[i].key, prefix, pl))
			fn(t->kv[i].key, t->kv[i].value, ctx);
}

bool tu_close(double a, double b, double rel_tol, double abs_tol)
{
	double d = fabs(a - b);
	return d <= abs_tol || d <= rel_tol * fabs(b);
}

void tu_capture_load(struct tu_capture *c, const char *args, bool analyse)
{
	if (!tu_gen())
		skip();
	c->dir = tu_generate(args);
	c->cap = capture_open(c->dir, NULL);
	assert_true(c->cap->usable);
	capture_load(c->cap);
	c->an = analyse ? analysis_run(c->cap) : NULL;
	c->truth = tu_truth_load(c->dir);
}

void tu_capture_free(struct tu_capture *c)
{
	analysis_free(c->an);
	capture_free(c->cap);
	tu_truth_free(c->truth);
	char *parent = strdup(c->dir);
	char *slash = strrchr(parent, '/');
	if (slash)
		*slash = '\0';
	tu_rmtree(parent);
	free(parent);
	free(c->dir);
}

char *tu_report_text(const struct analysis *an)
{
	char *text = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&text, &len);
	assert_non_null(f);
	report_print_text(an, f);
	fclose(f);
	return text;
}

char *tu_report_json(const char *dir, size_t *len)
{
	const char *bin = getenv("ASCPROF_BIN");
	if (!tu_gen() || !bin)
		skip();
	char out[4200];
	snprintf(out, sizeof out, "%s.json", dir);
	assert_int_equal(tu_sh("'%s' --no-index --report --json '%s' > '%s' 2>/dev/null", bin, dir, out), 0);
	char *js = tu_read(out, len);
	assert_non_null(js);
	return js;
}

bool tu_emulated(void)
{
	const char *e = getenv("ASCPROF_EMULATED");
	return e && *e && strcmp(e, "0") != 0;
}
