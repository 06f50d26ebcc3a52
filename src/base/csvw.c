/* SPDX-License-Identifier: MIT */
/* CSV output for exported tables. */
#include "config.h"
#include "csvw.h"

#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "xalloc.h"

/* path resolved through symlinks; for a path that does not exist yet, its directory
 * resolved and its last component appended. NULL when the directory does not exist. */
static char *resolve(const char *path)
{
	char *r = realpath(path, NULL);
	if (r)
		return r;
	const char *slash = strrchr(path, '/');
	char *dir = slash ? (slash == path ? xstrdup("/") : xstrndup(path, (size_t)(slash - path))) : xstrdup(".");
	char *rd = realpath(dir, NULL);
	free(dir);
	if (!rd)
		return NULL;
	const char *base = slash ? slash + 1 : path;
	size_t n = strlen(rd) + strlen(base) + 2;
	char *out = xmalloc(n);
	snprintf(out, n, "%s/%s", strcmp(rd, "/") ? rd : "", base);
	free(rd);
	return out;
}

bool csvw_path_inside(const char *path, const char *root)
{
	char *p = resolve(path), *r = realpath(root, NULL);
	bool inside = false;
	if (p && r) {
		struct stat st;
		if (stat(r, &st) == 0 && !S_ISDIR(st.st_mode)) {
			char *s = strrchr(r, '/');
			if (s)
				*(s == r ? s + 1 : s) = '\0';
		}
		size_t n = strlen(r);
		inside = !strcmp(r, "/") || (!strncmp(p, r, n) && (p[n] == '/' || p[n] == '\0'));
	}
	free(p);
	free(r);
	return inside;
}

FILE *csvw_open(const char *path, const char *const *roots, size_t n, bool overwrite, char *err, size_t err_size)
{
	for (size_t i = 0; i < n; i++)
		if (roots[i] && csvw_path_inside(path, roots[i])) {
			snprintf(err, err_size, "%s is inside the capture %s: give a path outside it", path, roots[i]);
			return NULL;
		}
	/* O_EXCL unless overwriting: an existing file is never replaced by surprise */
	int fd = open(path, O_WRONLY | O_CREAT | O_CLOEXEC | (overwrite ? O_TRUNC : O_EXCL), 0666);
	if (fd < 0) {
		if (errno == EEXIST)
			snprintf(err, err_size, "%s exists (:export! overwrites it)", path);
		else
			snprintf(err, err_size, "cannot write %s: %s", path, strerror(errno));
		return NULL;
	}
	FILE *f = fdopen(fd, "w");
	if (!f) {
		snprintf(err, err_size, "cannot write %s: %s", path, strerror(errno));
		close(fd);
	}
	return f;
}

void csvw_row(FILE *f, const char *const *cells, size_t n)
{
	for (size_t i = 0; i < n; i++) {
		const char *c = cells[i] ? cells[i] : "";
		size_t len = strlen(c);
		bool quote = strpbrk(c, ",\"\r\n") || (len && (c[0] == ' ' || c[len - 1] == ' '));
		if (i)
			fputc(',', f);
		if (!quote) {
			fputs(c, f);
			continue;
		}
		fputc('"', f);
		for (; *c; c++) {
			if (*c == '"')
				fputc('"', f);
			fputc(*c, f);
		}
		fputc('"', f);
	}
	fputs("\r\n", f);
}
