/* SPDX-License-Identifier: MIT */
/* The explorer's main loop: the part above the app (app.h), the loader thread (loader.h),
 * the prompt line (prompt.h) and the headless driver (driver.h), which it runs. */
#ifndef ASCPROF_MAINLOOP_H
#define ASCPROF_MAINLOOP_H

#include "app.h"

/* Runs the explorer on path; returns the process exit status. path and opts are borrowed
 * for the run. */
int mainloop_run(const char *path, const struct app_opts *opts);

#endif
