/* SPDX-License-Identifier: MIT */
/* The list behaviour of table views (listbox.h). */
#include "listbox.h"

void listbox_clamp(struct listbox *lb, int height)
{
	lb->height = height > 0 ? height : 1;
	if (lb->n == 0) {
		lb->sel = lb->top = 0;
		return;
	}
	if (lb->sel >= lb->n)
		lb->sel = lb->n - 1;
	if (lb->sel < lb->top)
		lb->top = lb->sel;
	if (lb->sel >= lb->top + (size_t)lb->height)
		lb->top = lb->sel - (size_t)lb->height + 1;
}

/* The last search's place among its matches, for the status line ("match k of n"); set by
 * listbox_search and listbox_set_matches, read by the prompt's search (main thread only). */
static size_t match_k, match_n;

void listbox_set_matches(size_t k, size_t n)
{
	match_k = k;
	match_n = n;
}

void listbox_matches(size_t *k, size_t *n)
{
	*k = match_k;
	*n = match_n;
}

bool listbox_search(struct listbox *lb, int dir, bool (*match)(const void *ctx, size_t row, const char *text),
		    const void *ctx, const char *text)
{
	size_t n = lb->n;
	for (size_t k = dir == 0 ? 0 : 1; k <= n && n; k++) {
		size_t i = dir < 0 ? (lb->sel + n - k % n) % n : (lb->sel + k) % n;
		if (match(ctx, i, text)) {
			lb->sel = i;
			listbox_clamp(lb, lb->height);
			/* which match this is, counting in row order */
			match_k = match_n = 0;
			for (size_t r = 0; r < n; r++)
				if (match(ctx, r, text)) {
					match_n++;
					if (r == i)
						match_k = match_n;
				}
			return true;
		}
	}
	return false;
}

int listbox_handle(struct listbox *lb, enum action act)
{
	size_t page = lb->height > 1 ? (size_t)lb->height - 1 : 1;
	switch (act) {
	case ACT_DOWN:
		if (lb->sel + 1 < lb->n)
			lb->sel++;
		break;
	case ACT_UP:
		if (lb->sel > 0)
			lb->sel--;
		break;
	case ACT_PAGE_DOWN:
		lb->sel = lb->sel + page < lb->n ? lb->sel + page : (lb->n ? lb->n - 1 : 0);
		break;
	case ACT_PAGE_UP:
		lb->sel = lb->sel > page ? lb->sel - page : 0;
		break;
	case ACT_TOP: lb->sel = 0; break;
	case ACT_BOTTOM: lb->sel = lb->n ? lb->n - 1 : 0; break;
	default: return VH_UNHANDLED;
	}
	listbox_clamp(lb, lb->height);
	return VH_HANDLED;
}
