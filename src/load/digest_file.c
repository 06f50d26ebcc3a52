/* SPDX-License-Identifier: MIT */
/* Digest files: the header around a payload, the files of a directory, the atomic write
 * (see digest_file.h). */
#include "config.h"
#include "digest_file.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>
#include <xxhash.h>

#include "i18n.h"
#include "xalloc.h"

static void digest_file_put_le(unsigned char *p, uint64_t v, int n)
{
	for (int i = 0; i < n; i++)
		p[i] = (unsigned char)(v >> (8 * i));
}

static uint64_t digest_file_get_le(const unsigned char *p, int n)
{
	uint64_t v = 0;
	for (int i = 0; i < n; i++)
		v |= (uint64_t)p[i] << (8 * i);
	return v;
}

/* Letters, digits, '-' and '_' only: a host name goes into a file name. */
static void digest_file_safe_name(const char *s, char *out, size_t size)
{
	size_t k = 0;
	for (; s && *s && k + 1 < size; s++)
		out[k++] = ((*s >= 'a' && *s <= 'z') || (*s >= 'A' && *s <= 'Z') || (*s >= '0' && *s <= '9') ||
			    *s == '-' || *s == '_')
				   ? *s
				   : '_';
	if (!k)
		out[k++] = '_';
	out[k] = 0;
}

void digest_file_host(char *host, size_t size)
{
	if (gethostname(host, size - 1))
		snprintf(host, size, "unknown");
	host[size - 1] = 0;
}

void digest_file_begin(struct sbuf *out)
{
	sbuf_add(out, DIGEST_MAGIC, 8);
	char zero[DIGEST_HEADER - 8] = {0};
	sbuf_add(out, zero, sizeof zero); /* the rest of the header: digest_file_seal */
}

void digest_file_seal(char *buf, size_t len)
{
	unsigned char *h = (unsigned char *)buf;
	size_t plen = len - DIGEST_HEADER;
	digest_file_put_le(h + 8, DIGEST_VERSION, 4);
	digest_file_put_le(h + 12, 0, 4);
	digest_file_put_le(h + 16, plen, 8);
	digest_file_put_le(h + 24, XXH3_64bits(buf + DIGEST_HEADER, plen), 8);
}

int digest_file_check(const char *buf, size_t len, struct sbuf *why)
{
	const unsigned char *h = (const unsigned char *)buf;
	if (len < 8 || memcmp(buf, DIGEST_MAGIC, 8)) {
		sbuf_addf(why, "%s", _("not a digest (no ASCPDIG magic)"));
		return -1;
	}
	if (len < DIGEST_HEADER) {
		sbuf_addf(why, _("truncated: %zu bytes, shorter than the %d-byte header"), len, DIGEST_HEADER);
		return -1;
	}
	uint64_t version = digest_file_get_le(h + 8, 4), plen = digest_file_get_le(h + 16, 8),
		 sum = digest_file_get_le(h + 24, 8);
	if (version != DIGEST_VERSION) {
		sbuf_addf(why, _("digest format version %llu; this build reads version %u (write it again with this build)"),
			 (unsigned long long)version, DIGEST_VERSION);
		return -1;
	}
	if (plen != len - DIGEST_HEADER) {
		sbuf_addf(why, _("truncated or padded: the header says %llu payload bytes, the file has %zu"),
			 (unsigned long long)plen, len - DIGEST_HEADER);
		return -1;
	}
	if (XXH3_64bits(buf + DIGEST_HEADER, plen) != sum) {
		sbuf_addf(why, "%s", _("checksum mismatch: the file was changed or damaged after it was written"));
		return -1;
	}
	return 0;
}

static bool digest_file_has_suffix(const char *s, const char *suf)
{
	size_t a = strlen(s), b = strlen(suf);
	return a >= b && !strcmp(s + a - b, suf);
}

char *digest_file_read(const char *path, size_t *len, struct sbuf *why)
{
	/* O_NONBLOCK: a FIFO named *.apdigest opens at once (and is refused below) */
	int fd = open(path, O_RDONLY | O_CLOEXEC | O_NONBLOCK);
	if (fd < 0) {
		sbuf_addf(why, _("cannot open: %s"), strerror(errno));
		return NULL;
	}
	struct stat st;
	if (fstat(fd, &st) || !S_ISREG(st.st_mode)) {
		sbuf_addf(why, "%s", _("not a regular file"));
		close(fd);
		return NULL;
	}
	size_t n = (size_t)st.st_size, got = 0;
	char *buf = xmalloc(n + 1);
	while (got < n) {
		ssize_t r = read(fd, buf + got, n - got);
		if (r <= 0) {
			if (r < 0 && errno == EINTR)
				continue;
			break;
		}
		got += (size_t)r;
	}
	close(fd);
	buf[got] = 0;
	*len = got;
	return buf;
}

char **digest_file_list(const char *path, size_t *n)
{
	char **out = NULL;
	size_t cap = 0;
	*n = 0;
	struct stat st;
	if (stat(path, &st))
		return NULL;
	if (!S_ISDIR(st.st_mode)) {
		out = xmalloc(sizeof *out);
		out[0] = xstrdup(path);
		*n = 1;
		return out;
	}
	DIR *dir = opendir(path);
	if (!dir)
		return NULL;
	struct dirent *de;
	while ((de = readdir(dir))) {
		if (de->d_name[0] == '.' || !digest_file_has_suffix(de->d_name, DIGEST_SUFFIX))
			continue;
		xgrow(&out, &cap, *n + 1, sizeof *out);
		out[(*n)++] = xasprintf("%s/%s", path, de->d_name);
	}
	closedir(dir);
	return out;
}

bool digest_file_is(const char *path)
{
	struct stat st;
	if (stat(path, &st))
		return false;
	if (S_ISREG(st.st_mode)) {
		char magic[8];
		int fd = open(path, O_RDONLY | O_CLOEXEC | O_NONBLOCK);
		struct stat fs;
		bool yes = fd >= 0 && fstat(fd, &fs) == 0 && S_ISREG(fs.st_mode) && read(fd, magic, 8) == 8 &&
			   !memcmp(magic, DIGEST_MAGIC, 8);
		if (fd >= 0)
			close(fd);
		return yes;
	}
	size_t n;
	char **list = digest_file_list(path, &n);
	for (size_t i = 0; i < n; i++)
		free(list[i]);
	free(list);
	return n > 0;
}

int digest_file_write(const char *outdir, int rank, int device_id, const char *host, const char *buf, size_t len,
		      struct diag_list *dl)
{
	int rc = -1;
	char hname[128];
	digest_file_safe_name(host, hname, sizeof hname);
	char dev[24] = "";
	if (device_id >= 0)
		snprintf(dev, sizeof dev, ".d%d", device_id);
	char *final = xasprintf("%s/rank%05d.%s%s%s", outdir, rank, hname, dev, DIGEST_SUFFIX);
	char *tmp = xasprintf("%s/.rank%05d.%s.%ld.tmp", outdir, rank, hname, (long)getpid());
	if (mkdir(outdir, 0777) && errno != EEXIST) {
		diag_add(dl, DIAG_ERROR, outdir, -1, -1, _("cannot create the digest directory: %s"), strerror(errno));
		goto out;
	}
	/* a new file of ours (O_EXCL: never through a link or over a file planted there) */
	int tfd = open(tmp, O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0666);
	FILE *f = tfd >= 0 ? fdopen(tfd, "wb") : NULL;
	if (!f && tfd >= 0) {
		close(tfd);
		unlink(tmp);
	}
	if (!f) {
		diag_add(dl, DIAG_ERROR, tmp, -1, -1, _("cannot write: %s"), strerror(errno));
		goto out;
	}
	bool ok = fwrite(buf, 1, len, f) == len;
	ok = (fflush(f) == 0) && ok;
	ok = (fsync(fileno(f)) == 0 || errno == EINVAL) && ok;
	ok = (fclose(f) == 0) && ok;
	if (!ok || rename(tmp, final)) {
		diag_add(dl, DIAG_ERROR, final, -1, -1, _("cannot write: %s"), strerror(errno));
		unlink(tmp);
		goto out;
	}
	rc = 0;
out:
	free(final);
	free(tmp);
	return rc;
}
