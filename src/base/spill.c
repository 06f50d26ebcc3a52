/* SPDX-License-Identifier: MIT */
/* File-backed arrays: see spill.h. Each spilled array is its own unlinked file, so growing
 * one is a write of zeros and mremap, and freeing it is munmap and close: the kernel
 * drops its pages without writing them when the load ends before its writeback does.
 *
 * Where the pages come from matters as much as how many there are: a page the kernel has
 * not handed out lately costs several times one it just took back (on a virtual machine
 * the host backs it on first touch: 0.4-0.7 GB/s of zeros written against 3-5 GB/s for
 * pages freed a moment before, measured on the CI machine kind). So a copy from one
 * spilled array into another gives the source's pages back as it goes (spill_release
 * punches them out of its file) and writes the destination's space just ahead of its
 * writes (spill_realloc_lazy, spill_ensure): the destination reuses the source's pages. */
#include "spill.h"

#include <errno.h>
#include <fcntl.h>
#include <linux/magic.h>
#include <malloc.h>
#include <pthread.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <sys/statfs.h>
#include <unistd.h>

#include "xalloc.h"

/* From this many elements on, growth is by an eighth rather than doubling. */
#define SPILL_GROW_EIGHTH ((size_t)1 << 18)

struct spill_ent {
	char *p;
	size_t len;    /* mapped bytes: whole pages */
	size_t filled; /* bytes of the file written (reserve): whole pages, at most len */
	int fd;
};

static pthread_mutex_t spill_mu = PTHREAD_MUTEX_INITIALIZER;
static struct spill_ent *ents;
static size_t n_ents, cap_ents, spilled_bytes;
static char *pref_dir;
static int enabled = -1; /* -1: not yet read from the environment */
static size_t max_files;  /* spilled arrays at once: each holds a descriptor */

static size_t page_size(void)
{
	long v = sysconf(_SC_PAGESIZE);
	return v > 0 ? (size_t)v : 4096;
}

static size_t round_pages(size_t n)
{
	size_t pg = page_size();
	return (n + pg - 1) / pg * pg;
}

void spill_set_dir(const char *dir)
{
	pthread_mutex_lock(&spill_mu);
	free(pref_dir);
	pref_dir = dir && *dir ? xstrdup(dir) : NULL;
	pthread_mutex_unlock(&spill_mu);
}

/* Memory file systems hold a file's pages as the process's private memory does. */
static bool on_disk(const char *dir)
{
	struct statfs sf;
	if (statfs(dir, &sf) != 0)
		return false;
	return sf.f_type != TMPFS_MAGIC && sf.f_type != RAMFS_MAGIC;
}

static int open_in(const char *dir)
{
	if (!dir || !*dir || !on_disk(dir)) {
		errno = ENOENT;
		return -1;
	}
	int fd = open(dir, O_TMPFILE | O_RDWR | O_CLOEXEC | O_EXCL, 0600);
	if (fd >= 0 || (errno != EOPNOTSUPP && errno != EISDIR && errno != EINVAL))
		return fd;
	char *path = xasprintf("%s/.ascprof-spill-XXXXXX", dir);
	fd = mkostemp(path, O_CLOEXEC);
	if (fd >= 0)
		unlink(path);
	free(path);
	return fd;
}

/* Each spilled array keeps its file open (to grow it): half the descriptors at most go to
 * them, the soft limit raised towards the hard one first (a capture of many ranks holds
 * a few dozen arrays per rank). Past that, arrays stay in memory. */
static size_t file_budget(void)
{
	struct rlimit rl;
	if (getrlimit(RLIMIT_NOFILE, &rl) != 0)
		return 64;
	if (rl.rlim_cur != RLIM_INFINITY && rl.rlim_cur < 8192 && rl.rlim_cur < rl.rlim_max) {
		rlim_t want = rl.rlim_max == RLIM_INFINITY || rl.rlim_max > 8192 ? 8192 : rl.rlim_max;
		struct rlimit up = {want, rl.rlim_max};
		if (setrlimit(RLIMIT_NOFILE, &up) == 0)
			rl.rlim_cur = want;
	}
	return rl.rlim_cur == RLIM_INFINITY ? 4096 : (size_t)rl.rlim_cur / 2;
}

/* Called with spill_mu held. */
static int open_tmp(void)
{
	if (enabled < 0) {
		const char *e = getenv("ASCPROF_SPILL");
		enabled = !(e && !strcmp(e, "0"));
		max_files = file_budget();
	}
	if (!enabled || n_ents >= max_files)
		return -1;
	const char *dirs[] = {getenv("ASCPROF_SPILL_DIR"), pref_dir, getenv("TMPDIR"), "/var/tmp", "/tmp"};
	for (size_t i = 0; i < sizeof dirs / sizeof dirs[0]; i++) {
		int fd = open_in(dirs[i]);
		if (fd >= 0)
			return fd;
		if (errno == EMFILE || errno == ENFILE)
			return -1; /* out of descriptors for now: this array stays in memory */
	}
	enabled = 0; /* nowhere to spill: not asked again */
	return -1;
}

/* Called with spill_mu held: the entry of p, or NULL. */
static struct spill_ent *find(const void *p)
{
	if (!p)
		return NULL;
	for (size_t i = 0; i < n_ents; i++)
		if (ents[i].p == p)
			return &ents[i];
	return NULL;
}

/* Makes [from, to) of the file: written with zeros, so the pages are in the file cache
 * before the mapping touches them (a fault on a page not yet there goes through the read
 * path: readahead, zeroing, a journal handle per page, several times the cost of a
 * private page) and their blocks are reserved (a full disk fails here, not as a SIGBUS
 * on a write).
 *
 * 64 KiB a call: the page cache makes a write's folios as large as the write (up to 2 MiB),
 * and large folios come from the memory the kernel has handed out least lately, which on
 * a virtual machine costs several times more on first touch (the host backs it again; a
 * guest gives free blocks of 2 MiB and more back to the host). Written 1 MiB a call, 100
 * MB of fresh file took 0.20-0.24 s of CPU; 64 KiB a call, 0.04-0.06 s (the CI machine
 * kind, kernel 6.18, 4 alternating runs each). Fallocate instead of zeros was no better:
 * the read path then zeroes the same cold folios (1 GB capture, --summary --json: CPU
 * 1.36 against 1.28 s). */
static bool reserve(int fd, size_t from, size_t to)
{
	static const char zero[64 << 10];
	while (from < to) {
		size_t want = to - from < sizeof zero ? to - from : sizeof zero;
		ssize_t w = pwrite(fd, zero, want, (off_t)from);
		if (w <= 0)
			return false;
		from += (size_t)w;
	}
	return true;
}

bool spill_is(const void *p)
{
	pthread_mutex_lock(&spill_mu);
	bool r = find(p) != NULL;
	pthread_mutex_unlock(&spill_mu);
	return r;
}

size_t spill_bytes(void)
{
	pthread_mutex_lock(&spill_mu);
	size_t r = spilled_bytes;
	pthread_mutex_unlock(&spill_mu);
	return r;
}

/* Moves a spilled array back to malloc memory (its file could not grow): what its file
 * holds is copied, the rest is left as malloc gives it. Called with spill_mu held. */
static void *unspill(void *p, size_t size)
{
	struct spill_ent *e = find(p), gone = *e;
	*e = ents[--n_ents];
	spilled_bytes -= gone.len;
	void *q = xmalloc(size);
	memcpy(q, gone.p, gone.filled < size ? gone.filled : size);
	munmap(gone.p, gone.len);
	close(gone.fd);
	return q;
}

/* Resizes a spilled array; its file is written outside the lock (the array is its
 * caller's alone, the registry is shared). */
static void *respill(void *p, int fd, size_t old_len, size_t filled, size_t size, bool lazy)
{
	size_t len = round_pages(size);
	if (len == old_len && (lazy || filled == len))
		return p;
	bool ok = true;
	if (len < filled)
		ok = ftruncate(fd, (off_t)len) == 0;
	else if (!lazy)
		ok = reserve(fd, filled, len);
	if (ok && (len < filled || !lazy))
		filled = len;
	pthread_mutex_lock(&spill_mu);
	void *q = ok ? (len == old_len ? p : mremap(p, old_len, len, MREMAP_MAYMOVE)) : MAP_FAILED;
	if (q == MAP_FAILED) {
		q = unspill(p, size);
	} else {
		struct spill_ent *e = find(p);
		spilled_bytes += len - old_len;
		e->p = q;
		e->len = len;
		e->filled = filled;
	}
	pthread_mutex_unlock(&spill_mu);
	return q;
}

/* lazy: the space past what p holds now is written only when spill_ensure asks for it. */
static void *spill_resize(void *p, size_t size, bool lazy)
{
	if (!size)
		size = 1;
	pthread_mutex_lock(&spill_mu);
	struct spill_ent *e = find(p);
	int fd = e ? e->fd : -1;
	size_t old_len = e ? e->len : 0, filled = e ? e->filled : 0;
	if (!e && size >= SPILL_MIN_BYTES)
		fd = open_tmp();
	pthread_mutex_unlock(&spill_mu);
	if (e)
		return respill(p, fd, old_len, filled, size, lazy);
	if (fd >= 0) {
		size_t len = round_pages(size);
		/* a malloc'ed array's contents are copied in: that much is written now */
		size_t old = p ? malloc_usable_size(p) : 0;
		filled = lazy ? round_pages(old < size ? old : size) : len;
		void *q = MAP_FAILED;
		if (reserve(fd, 0, filled))
			q = mmap(NULL, len, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);
		if (q != MAP_FAILED) {
			if (p) {
				memcpy(q, p, old < size ? old : size);
				free(p);
			}
			pthread_mutex_lock(&spill_mu);
			xgrow(&ents, &cap_ents, n_ents + 1, sizeof *ents);
			ents[n_ents++] = (struct spill_ent){q, len, filled, fd};
			spilled_bytes += len;
			pthread_mutex_unlock(&spill_mu);
			return q;
		}
		close(fd);
	}
	return xrealloc(p, size);
}

void *spill_realloc(void *p, size_t size) { return spill_resize(p, size, false); }

void *spill_realloc_lazy(void *p, size_t size) { return spill_resize(p, size, true); }

void *spill_alloc(size_t size) { return spill_resize(NULL, size, false); }

void *spill_alloc_lazy(size_t size) { return spill_resize(NULL, size, true); }

void *spill_ensure(void *p, size_t upto)
{
	pthread_mutex_lock(&spill_mu);
	struct spill_ent *e = find(p);
	if (!e || upto <= e->filled) {
		pthread_mutex_unlock(&spill_mu);
		return p;
	}
	int fd = e->fd;
	size_t from = e->filled, to = round_pages(upto);
	if (to > e->len)
		to = e->len;
	pthread_mutex_unlock(&spill_mu);
	/* the array is its writer's alone: no one else moves it meanwhile */
	bool ok = reserve(fd, from, to);
	pthread_mutex_lock(&spill_mu);
	e = find(p);
	void *q = p;
	if (ok)
		e->filled = to;
	else
		q = unspill(p, e->len); /* a full disk: the array goes on in memory */
	pthread_mutex_unlock(&spill_mu);
	return q;
}

void spill_grow(void *ptr_to_ptr, size_t *cap, size_t need, size_t elem_size)
{
	void **pp = ptr_to_ptr;
	if (need <= *cap)
		return;
	size_t ncap = *cap ? *cap : 16;
	/* a spilled array's capacity is written (see reserve): big ones grow by an eighth.
	 * The step depends on the counts alone: callers grow several columns of different
	 * element sizes to one shared capacity. */
	if (need >= SPILL_GROW_EIGHTH)
		ncap = need + need / 8;
	while (ncap < need) {
		if (ncap > ((size_t)-1) / 2 / elem_size)
			ncap = need; /* xrealloc reports it */
		else
			ncap *= 2;
	}
	*pp = spill_realloc(*pp, ncap * elem_size);
	*cap = ncap;
}

void spill_free(void *p)
{
	if (!p)
		return;
	pthread_mutex_lock(&spill_mu);
	struct spill_ent *e = find(p);
	if (!e) {
		pthread_mutex_unlock(&spill_mu);
		free(p);
		return;
	}
	struct spill_ent gone = *e;
	*e = ents[--n_ents];
	spilled_bytes -= gone.len;
	pthread_mutex_unlock(&spill_mu);
	munmap(gone.p, gone.len);
	close(gone.fd);
}

size_t spill_release(void *buf, size_t from, size_t to)
{
	pthread_mutex_lock(&spill_mu);
	struct spill_ent *e = find(buf);
	int fd = e ? e->fd : -1;
	pthread_mutex_unlock(&spill_mu);
	if (fd < 0)
		return xalloc_release(buf, from, to);
	/* whole pages only: their neighbours' other bytes are still to be read */
	size_t pg = page_size(), lo = (from + pg - 1) / pg * pg, hi = to / pg * pg;
	if (hi <= lo)
		return from;
	/* advice, as madvise is: a file system without holes keeps the pages */
	fallocate(fd, FALLOC_FL_PUNCH_HOLE | FALLOC_FL_KEEP_SIZE, (off_t)lo, (off_t)(hi - lo));
	return hi;
}
