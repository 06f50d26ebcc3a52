/* SPDX-License-Identifier: MIT */
/* SIGBUS on a mapped range: a per-thread jump out of the reader. */
#include "mapguard.h"

#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <setjmp.h>
#include <signal.h>
#include <stdint.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

struct guard {
	sigjmp_buf jb;
	uintptr_t base;
	size_t len;
	volatile uintptr_t fault;
	struct guard *outer;
};

static _Thread_local struct guard *volatile current;
static pthread_mutex_t install_lock = PTHREAD_MUTEX_INITIALIZER;
static int installed; /* active guards, all threads */
static struct sigaction previous;

static void on_sigbus(int sig, siginfo_t *si, void *uc)
{
	struct guard *g = current;
	uintptr_t at = (uintptr_t)si->si_addr;
	if (g && at >= g->base && at - g->base < g->len) {
		g->fault = at;
		siglongjmp(g->jb, 1);
	}
	/* not ours: what was there before */
	if ((previous.sa_flags & SA_SIGINFO) && previous.sa_sigaction) {
		previous.sa_sigaction(sig, si, uc);
	} else if (previous.sa_handler != SIG_DFL && previous.sa_handler != SIG_IGN) {
		previous.sa_handler(sig);
	}
	/* returning re-runs the faulting read, which now ends the process as it would have */
	signal(SIGBUS, SIG_DFL);
}

static void install(void)
{
	pthread_mutex_lock(&install_lock);
	if (installed++ == 0) {
		struct sigaction sa;
		memset(&sa, 0, sizeof sa);
		sa.sa_sigaction = on_sigbus;
		sa.sa_flags = SA_SIGINFO | SA_NODEFER;
		sigemptyset(&sa.sa_mask);
		sigaction(SIGBUS, &sa, &previous);
	}
	pthread_mutex_unlock(&install_lock);
}

static void uninstall(void)
{
	pthread_mutex_lock(&install_lock);
	if (--installed == 0)
		sigaction(SIGBUS, &previous, NULL);
	pthread_mutex_unlock(&install_lock);
}

bool mapguard_run(const void *base, size_t len, void (*fn)(void *), void *arg, size_t *fault_off)
{
	struct guard g;
	g.base = (uintptr_t)base;
	g.len = len;
	g.fault = 0;
	g.outer = current;
	install();
	bool ok;
	if (sigsetjmp(g.jb, 1) == 0) {
		current = &g;
		fn(arg);
		ok = true;
	} else {
		ok = false;
		if (fault_off)
			*fault_off = (size_t)(g.fault - g.base);
	}
	current = g.outer;
	uninstall();
	return ok;
}

enum map_file_status mapguard_map_file(const char *path, uint64_t max_bytes, void **map, uint64_t *size, int *fd,
				       int *err)
{
	int f = open(path, O_RDONLY | O_CLOEXEC | O_NONBLOCK);
	if (f < 0) {
		*err = errno;
		return MAP_FILE_CANNOT_OPEN;
	}
	struct stat st;
	enum map_file_status r = MAP_FILE_OK;
	if (fstat(f, &st) != 0 || !S_ISREG(st.st_mode))
		r = MAP_FILE_NOT_REGULAR;
	else if ((*size = (uint64_t)st.st_size) == 0)
		r = MAP_FILE_EMPTY;
	else if (max_bytes && *size > max_bytes)
		r = MAP_FILE_TOO_BIG;
	else if ((*map = mmap(NULL, (size_t)st.st_size, PROT_READ, MAP_PRIVATE, f, 0)) == MAP_FAILED) {
		*err = errno;
		r = MAP_FILE_CANNOT_MAP;
	} else
		madvise(*map, (size_t)st.st_size, MADV_SEQUENTIAL);
	if (r == MAP_FILE_OK && fd)
		*fd = f;
	else
		close(f);
	return r;
}
