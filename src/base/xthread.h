/* SPDX-License-Identifier: MIT */
/* One helper thread beside the caller: independent stages of one job (the lane sorts
 * beside the flow sort, one rank's op statistics beside its metrics) share two cores.
 *
 * xthread_start runs fn(arg) on a new thread when `threaded` (and the thread can be
 * created), else right away on the caller's thread, so a serial run does the same work
 * in the same order as a build without the helper. xthread_join waits for it. */
#ifndef ASCPROF_XTHREAD_H
#define ASCPROF_XTHREAD_H

#include <pthread.h>
#include <stdbool.h>

struct xthread {
	pthread_t tid;
	bool started;
};

void xthread_start(struct xthread *t, void *(*fn)(void *), void *arg, bool threaded);
/* fn(arg) on a new thread, or nothing when none can be created (false): for work that
 * waits for what the caller does next, which must not run on the caller's thread. */
bool xthread_try_start(struct xthread *t, void *(*fn)(void *), void *arg);
void xthread_join(struct xthread *t);
/* Online CPUs (at least 1). */
int xthread_cpus(void);

#endif
