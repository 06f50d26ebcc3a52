/* SPDX-License-Identifier: MIT */
/* What app.c offers the explorer's other parts (mainloop.c, loader.c, prompt.c,
 * commands.c, driver.c): the view table and stack, the publication check, key dispatch,
 * search and drawing a frame. app.c calls none of them back: what it needs of a higher
 * part (the view table) is given to it. Views never include this: they have app.h. Main
 * thread only, but app_clock. */
#ifndef ASCPROF_APP_PARTS_H
#define ASCPROF_APP_PARTS_H

#include "app.h"

/* Seconds on the monotonic clock (any thread). */
double app_clock(void);
/* Takes views (VIEW_COUNT entries, static: the main loop's table) as the app's view table
 * and sets up the stack (the first view), the canvas and the alignment. */
void app_start_views(struct app *app, const struct view_ops *const *views);
/* Destroys every created view's state and the canvas. */
void app_end_views(struct app *app);
/* View v's operations (static). */
const struct view_ops *app_view_ops(const struct app *app, enum view_id v);
/* The view on top of the stack. */
enum view_id app_top_view(const struct app *app);
/* View v's state, created on first use (owned by the app). */
void *app_view_state(struct app *app, enum view_id v);
/* Every created view's update: new data, another rank or alignment. */
void app_refresh_views(struct app *app);
/* Takes what the loader published once it has: the views update. True when this call
 * took it (app->seen is then the publication: the benchmarks note it). */
bool app_publish_check(struct app *app);
/* A key while no prompt is open: the top view's handler first, then the global actions. */
void app_handle_key(struct app *app, int key);
/* Searches the top view for text (borrowed for the call; dir 0: from the selection on,
 * 1 next, -1 previous) and says on the status line which match of how many it landed on. */
void app_search(struct app *app, const char *text, int dir);
/* Draws the frame into app->cv (title bar, the top view, status line). */
void app_render(struct app *app);

#endif
