/* SPDX-License-Identifier: MIT */
/* Shared list behaviour for table views: a selection and a scroll position over n rows,
 * moves by key, search by text, and which match a search landed on. The struct is the
 * view's own (inside its state); nothing here keeps a pointer. */
#ifndef ASCPROF_LISTBOX_H
#define ASCPROF_LISTBOX_H

#include <stdbool.h>
#include <stddef.h>

#include "actions.h"

/* What a view's or a listbox's key handler did with an action (view_ops' handle). */
enum { VH_UNHANDLED = 0, VH_HANDLED = 1 };

struct listbox {
	size_t sel, top, n;
	int height;
};
/* Moves for down, up, page up/down, top and bottom; VH_HANDLED when the action was one. */
int listbox_handle(struct listbox *lb, enum action act);
void listbox_clamp(struct listbox *lb, int height);
/* Moves the selection to the next row (dir 1), previous row (-1) or first row from the
 * selection on (0), cyclically, whose text matches; false when none does. ctx and text
 * are borrowed for the call and passed to match as they are. Notes which match it is. */
bool listbox_search(struct listbox *lb, int dir, bool (*match)(const void *ctx, size_t row, const char *text),
		    const void *ctx, const char *text);
/* The last search's match k (from 1) of n (0 of 0: none noted), for the status line. */
void listbox_set_matches(size_t k, size_t n);
void listbox_matches(size_t *k, size_t *n);

#endif
