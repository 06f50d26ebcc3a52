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

/* path resolved through symlinks, also where it does not exist yet: a missing path is
 * its directory resolved (as deep as levels are missing) and its last component
 * appended; a dangling symlink is followed to where it points, where a file created
 * through it would land. NULL when it cannot be resolved (a loop, "..", too deep). */
static char *resolve_at(const char *path, int depth)
{
	char *r = realpath(path, NULL);
	if (r)
		return r;
	if (depth > 40 || !*path)
		return NULL;
	const char *slash = strrchr(path, '/');
	char *dir = slash ? (slash == path ? xstrdup("/") : xstrndup(path, (size_t)(slash - path))) : xstrdup(".");
	const char *base = slash ? slash + 1 : path;
	struct stat lst;
	char *out = NULL;
	if (lstat(path, &lst) == 0 && S_ISLNK(lst.st_mode)) {
		char target[PATH_MAX];
		ssize_t n = readlink(path, target, sizeof target - 1);
		if (n > 0) {
			target[n] = '\0';
			char *full = target[0] == '/' ? xstrdup(target) : xasprintf("%s/%s", dir, target);
			out = resolve_at(full, depth + 1);
			free(full);
		}
	} else if (*base && strcmp(base, ".") && strcmp(base, "..")) {
		char *rd = resolve_at(dir, depth + 1);
		if (rd)
			out = xasprintf("%s/%s", strcmp(rd, "/") ? rd : "", base);
		free(rd);
	} else if (!*base) { /* a trailing slash */
		out = resolve_at(dir, depth + 1);
	}
	free(dir);
	return out;
}

char *csvw_resolve(const char *path) { return resolve_at(path, 0); }

bool csvw_path_inside(const char *path, const char *root)
{
	char *p = resolve_at(path, 0), *r = realpath(root, NULL);
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

static const char *inside_any(const char *path, const char *const *roots, size_t n)
{
	for (size_t i = 0; i < n; i++)
		if (roots[i] && csvw_path_inside(path, roots[i]))
			return roots[i];
	return NULL;
}

FILE *csvw_open(const char *path, const char *const *roots, size_t n, bool overwrite, struct sbuf *err)
{
	const char *root = inside_any(path, roots, n);
	if (root) {
		sbuf_addf(err, "%s is inside the capture %s: give a path outside it", path, root);
		return NULL;
	}
	/* never through a symlink (O_NOFOLLOW; O_EXCL refuses one too), never a FIFO or a
	 * device (O_NONBLOCK: opening one does not wait for a reader) */
	int flags = O_WRONLY | O_CLOEXEC | O_NOFOLLOW | O_NONBLOCK;
	bool created = false;
	int fd = overwrite ? open(path, flags) : -1;
	if (fd < 0 && (!overwrite || errno == ENOENT)) {
		fd = open(path, flags | O_CREAT | O_EXCL, 0666);
		created = fd >= 0;
	}
	if (fd < 0) {
		if (errno == EEXIST && !overwrite)
			sbuf_addf(err, "%s exists (:export! overwrites it)", path);
		else if (errno == ELOOP || errno == EEXIST)
			sbuf_addf(err, "%s is a symbolic link: give the file itself", path);
		else
			sbuf_addf(err, "cannot write %s: %s", path, strerror(errno));
		return NULL;
	}
	/* what was opened, checked again: a regular file of its own (another hard link to it
	 * may be a capture's file, and truncating it would change the capture), not inside a
	 * capture (a directory swapped for a link meanwhile) */
	struct stat st;
	char fdpath[64];
	snprintf(fdpath, sizeof fdpath, "/proc/self/fd/%d", fd);
	char *real = realpath(fdpath, NULL);
	const char *why = NULL;
	if (fstat(fd, &st) != 0 || !S_ISREG(st.st_mode))
		why = "is not a regular file";
	else if (st.st_nlink > 1)
		why = "has other hard links (one may be a capture's file): remove it or give another name";
	else if (real && (root = inside_any(real, roots, n)))
		why = "is inside a capture: give a path outside it";
	free(real);
	if (!why && (fcntl(fd, F_SETFL, 0) != 0 || (!created && ftruncate(fd, 0) != 0)))
		why = strerror(errno);
	if (why) {
		sbuf_addf(err, "%s %s", path, why);
		if (created)
			unlink(path);
		close(fd);
		return NULL;
	}
	FILE *f = fdopen(fd, "w");
	if (!f) {
		sbuf_addf(err, "cannot write %s: %s", path, strerror(errno));
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
