/* SPDX-License-Identifier: MIT */
/* The prompt line: what '/' (search), '\\' (filter) and ':' (command) type into the status
 * line, and what Enter does with it: a search of the top view, its filter, or a `:` command
 * of the command table (commands.h; the handlers live in prompt.c). */
#ifndef ASCPROF_PROMPT_H
#define ASCPROF_PROMPT_H

#include "app.h"

/* A key while the prompt is open (app->prompt_kind set): edits the text (UTF-8), Esc
 * closes it, Enter submits it. */
void prompt_key(struct app *app, int key);
/* Searches the top view for text (borrowed for the call; dir 0: from the selection on,
 * 1 next, -1 previous) and says on the status line which match of how many it landed on. */
void prompt_search(struct app *app, const char *text, int dir);

#endif
