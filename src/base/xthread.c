/* SPDX-License-Identifier: MIT */
/* One helper thread beside the caller (see xthread.h). */
#include "xthread.h"

#include <unistd.h>

void xthread_start(struct xthread *t, void *(*fn)(void *), void *arg, bool threaded)
{
	t->started = threaded && pthread_create(&t->tid, NULL, fn, arg) == 0;
	if (!t->started)
		fn(arg);
}

bool xthread_try_start(struct xthread *t, void *(*fn)(void *), void *arg)
{
	t->started = pthread_create(&t->tid, NULL, fn, arg) == 0;
	return t->started;
}

void xthread_join(struct xthread *t)
{
	if (t->started)
		pthread_join(t->tid, NULL);
	t->started = false;
}

int xthread_cpus(void)
{
	long n = sysconf(_SC_NPROCESSORS_ONLN);
	return n > 1 ? (int)n : 1;
}
