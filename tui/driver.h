/* SPDX-License-Identifier: MIT */
/* The headless modes' driver: a script's steps (script.h) run against the app (keys,
 * screen dumps, resizes, waits for the load, timed frames), and the benchmarks' figures
 * written to app->bench (ASCPROF_BENCH_OUT): load, analysis and index times, sizes, and
 * per-frame draw times. */
#ifndef ASCPROF_DRIVER_H
#define ASCPROF_DRIVER_H

#include "app.h"
#include "script.h"

/* Runs sc's steps (sc borrowed, its position advanced) until one is a key: returns the
 * key, or -1 at the end of the script. */
int driver_next_key(struct app *app, struct script *sc);
/* Takes what the loader published (app_publish_check) and, the first time, writes the
 * load's figures when benchmarking: the main loop's and the script steps' check. */
void driver_publish_check(struct app *app);

#endif
