/* SPDX-License-Identifier: MIT */
#include "progress.h"

#include <pthread.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <time.h>
#include <unistd.h>
#include <unistr.h>
#include <uniwidth.h>

#include "i18n.h"
#include "summary.h"
#include "xalloc.h"

struct progress {
	const struct capture *cap;
	_Atomic int stage;
	_Atomic size_t ranks_analysed;
	pthread_mutex_t lock;
	pthread_cond_t wake;
	bool stop;
	pthread_t tid;
};

void progress_format(const struct capture *cap, enum progress_stage s, size_t ranks_analysed, char *buf,
		     size_t size)
{
	size_t files = 0, ready = 0;
	uint64_t done = 0, total = 0;
	for (size_t i = 0; i < cap->n_ranks; i++) {
		const struct rank_data *rd = &cap->ranks[i];
		files += rd->plan->n_files;
		ready += capture_rank_state(rd) == RANK_READY;
		uint64_t d = atomic_load(&((struct rank_data *)rd)->trace_bytes_done);
		done += d < rd->trace_bytes_total ? d : rd->trace_bytes_total;
		total += rd->trace_bytes_total;
	}
	char b1[32], b2[32];
	switch (s) {
	case PROGRESS_LOADING:
		if (total)
			snprintf(buf, size, _("loading %zu files: %s of %s read (%.0f%%), %zu/%zu ranks loaded"), files,
				 summary_bytes(done, b1, sizeof b1), summary_bytes(total, b2, sizeof b2),
				 100.0 * (double)done / (double)total, ready, cap->n_ranks);
		else
			snprintf(buf, size, _("loading %zu files: %zu/%zu ranks loaded"), files, ready, cap->n_ranks);
		break;
	case PROGRESS_ANALYSING:
		snprintf(buf, size, _("analysing: %zu/%zu ranks done"), ranks_analysed, ready);
		break;
	}
}

static int term_columns(void)
{
	struct winsize ws;
	return ioctl(STDERR_FILENO, TIOCGWINSZ, &ws) == 0 && ws.ws_col > 0 ? ws.ws_col : 80;
}

/* The bytes of s's longest prefix within w display columns (a CJK character takes two,
 * and is never cut in half). */
static int fit_columns(const char *s, int w)
{
	const uint8_t *p = (const uint8_t *)s, *end = p + strlen(s);
	int used = 0;
	while (p < end) {
		ucs4_t c;
		int n = u8_mbtouc(&c, p, (size_t)(end - p));
		int cw = uc_width(c, "UTF-8");
		if (used + (cw < 0 ? 1 : cw) > w)
			break;
		used += cw < 0 ? 1 : cw;
		p += n;
	}
	return (int)(p - (const uint8_t *)s);
}

/* "\r", the line cut to the terminal's width less one (no wrap), then clear to the end. */
static void draw(struct progress *p)
{
	char line[256];
	progress_format(p->cap, (enum progress_stage)atomic_load(&p->stage), atomic_load(&p->ranks_analysed),
			line, sizeof line);
	char out[300];
	int cols = term_columns() - 1;
	int n = snprintf(out, sizeof out, "\rascprof-tui: %.*s\033[K", fit_columns(line, cols > 13 ? cols - 13 : 0), line);
	if (n > 0)
		(void)!write(STDERR_FILENO, out, (size_t)n < sizeof out ? (size_t)n : sizeof out - 1);
}

static void *progress_main(void *arg)
{
	struct progress *p = arg;
	pthread_mutex_lock(&p->lock);
	while (!p->stop) {
		draw(p);
		struct timespec ts;
		clock_gettime(CLOCK_REALTIME, &ts);
		ts.tv_nsec += 100 * 1000000L;
		if (ts.tv_nsec >= 1000000000L) {
			ts.tv_sec++;
			ts.tv_nsec -= 1000000000L;
		}
		pthread_cond_timedwait(&p->wake, &p->lock, &ts);
	}
	pthread_mutex_unlock(&p->lock);
	return NULL;
}

struct progress *progress_start(const struct capture *cap)
{
	if (!isatty(STDERR_FILENO))
		return NULL;
	struct progress *p = xcalloc(1, sizeof *p);
	p->cap = cap;
	atomic_init(&p->stage, PROGRESS_LOADING);
	atomic_init(&p->ranks_analysed, 0);
	pthread_mutex_init(&p->lock, NULL);
	pthread_cond_init(&p->wake, NULL);
	draw(p); /* at once: a small capture may be loaded before the thread runs */
	if (pthread_create(&p->tid, NULL, progress_main, p) != 0) {
		pthread_mutex_destroy(&p->lock);
		pthread_cond_destroy(&p->wake);
		free(p);
		return NULL;
	}
	return p;
}

void progress_stage(struct progress *p, enum progress_stage s)
{
	if (!p)
		return;
	atomic_store(&p->stage, (int)s);
	pthread_mutex_lock(&p->lock);
	draw(p); /* at once, here: a short stage still shows */
	pthread_mutex_unlock(&p->lock);
}

_Atomic size_t *progress_ranks_counter(struct progress *p) { return p ? &p->ranks_analysed : NULL; }

void progress_stop(struct progress *p)
{
	if (!p)
		return;
	pthread_mutex_lock(&p->lock);
	p->stop = true;
	pthread_cond_signal(&p->wake);
	pthread_mutex_unlock(&p->lock);
	pthread_join(p->tid, NULL);
	static const char clear[] = "\r\033[K";
	(void)!write(STDERR_FILENO, clear, sizeof clear - 1);
	pthread_mutex_destroy(&p->lock);
	pthread_cond_destroy(&p->wake);
	free(p);
}
