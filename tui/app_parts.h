/* SPDX-License-Identifier: MIT */
/* What app.c offers the explorer's other parts (loader.c, prompt.c, driver.c): the view
 * table and stack, the publication check and drawing a frame. Views never include it:
 * they have app.h. Main thread only, but app_clock. */
#ifndef ASCPROF_APP_PARTS_H
#define ASCPROF_APP_PARTS_H

#include "app.h"

/* Seconds on the monotonic clock (any thread). */
double app_clock(void);
/* View v's operations (static). */
const struct view_ops *app_view_ops(enum view_id v);
/* The view on top of the stack. */
enum view_id app_top_view(const struct app *app);
/* View v's state, created on first use (owned by the app). */
void *app_view_state(struct app *app, enum view_id v);
/* Every created view's update: new data, another rank or alignment. */
void app_refresh_views(struct app *app);
/* Takes what the loader published once it has: the views update, benchmarks note it. */
void app_publish_check(struct app *app);
/* Draws the frame into app->cv (title bar, the top view, status line). */
void app_render(struct app *app);

#endif
