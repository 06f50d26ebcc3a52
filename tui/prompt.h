/* SPDX-License-Identifier: MIT */
/* The prompt line: what '/' (search), '\\' (filter) and ':' (command) type into the status
 * line, and what Enter does with it: a search of the top view, its filter, or a `:` command
 * of the command table (commands.h, where the handlers live too). */
#ifndef ASCPROF_PROMPT_H
#define ASCPROF_PROMPT_H

#include "app.h"

/* A key while the prompt is open (app->prompt_kind set): edits the text (UTF-8), Esc
 * closes it, Enter submits it. */
void prompt_key(struct app *app, int key);

#endif
