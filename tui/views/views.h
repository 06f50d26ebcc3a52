/* SPDX-License-Identifier: MIT */
/* What views share besides the app (app.h): drawing helpers (widgets.c). A view opens
 * another through app_open, never through an entry point here; what views compute from
 * the model lives in the core (op_rows.h, kernel_index.h). Every pointer given to these
 * is borrowed for the call; none is kept. */
#ifndef ASCPROF_VIEWS_H
#define ASCPROF_VIEWS_H

#include "app.h"
#include "i18n.h"

/* Opens the Timeline on rank_index's whole window (its trace's first to last event). */
void view_open_rank_timeline(struct app *app, size_t rank_index);
/* Draws a labelled horizontal bar of `frac` (0..1) in w cells. */
void draw_bar(struct canvas *cv, int x, int y, int w, double frac, enum style st);
/* A rank's attribution as one bar (letters in their bucket's colour) on row y and, with
 * two rows, the legend of its non-empty buckets with their shares on y + 1. Returns the
 * rows used. */
int draw_attribution(struct canvas *cv, int x, int y, int w, int rows, const struct attribution *a);
void draw_attribution_bar(struct canvas *cv, int x, int y, int w, const struct attribution *a);
void draw_attribution_legend(struct canvas *cv, int x, int y, int w, const struct attribution *a);
/* The selected row's text in full, at the bottom of a list whose row cut it: the lines the
 * drawer takes in a list of h lines when the row shows `shown` columns of text (0 when it
 * fits, at most 4), and the drawer itself, `lines` lines from y. */
int view_text_drawer_lines(int w, int h, int shown, const char *text);
void view_text_drawer(struct canvas *cv, int x, int y, int w, int lines, const char *text);
/* s followed by spaces up to `width` columns of display width, in buf: for a translated
 * word inside a printf row, where %-7s would count bytes (a CJK character is 3 bytes, 2
 * columns). Returns buf (the caller's, size bytes). */
const char *view_padded(char *buf, size_t size, const char *s, int width);
/* "by phase: prefill (6 step(s)): NPU compute; decode (24 step(s)): host dispatch, launch-bound
 * 17 %" (phase_verdict.h), in buf (size bytes), which is returned; "" without phases. */
const char *view_phases_line(const struct rank_analysis *ra, char *buf, size_t size);
/* Horizontal scroll of a table drawn as fixed-width lines, one column at a time (Right/l,
 * Left/h): its header's titles, two spaces or more apart, end its columns; the first
 * `keys` columns stay, `skip` columns after them are left out of the header and of every
 * row (the rows shown, given to setup, move a column's end right where a cell runs on
 * past its title). view_hscroll_setup clamps *skip to what a width of w columns needs (0 when the
 * table fits); view_hscroll_text draws a line of the table so cut; view_hscroll_col maps
 * a display column of the whole line to the drawn one (-1 when cut out). */
struct hscroll {
	int from, to; /* the display columns [from, to) left out */
	bool left, right; /* columns are hidden on that side */
};
void view_hscroll_setup(struct hscroll *hs, const char *header, const char *const *rows, size_t n_rows, int keys,
			int *skip, int w);
/* The same for a table drawn cell by cell: n columns of widths[] display columns each
 * (the key columns first); a cell starting at display column c of the whole row is drawn
 * at view_hscroll_col(hs, c) when that is not -1 and the cell fits in w. */
void view_hscroll_setup_cols(struct hscroll *hs, const int *widths, int n, int keys, int *skip, int w);
int view_hscroll_text(struct canvas *cv, int x, int y, int w, enum style st, const char *line,
		      const struct hscroll *hs);
int view_hscroll_col(const struct hscroll *hs, int col);
/* Right/l and Left/h on a table with a horizontal scroll: *skip moved (setup clamps it);
 * VH_HANDLED when act was one of them. */
int view_hscroll_handle(int *skip, enum action act);
/* Serving output's executions over [t0, t1) in w cells (Serving view, Timeline): per cell
 * the batch type that holds most of its time as a letter in its colour (P prefill, D decode,
 * M mixed, ? untyped); sizes, when not NULL, gets per cell the largest execution's batch
 * size (-1: none). */
void view_serving_batches(struct canvas *cv, int x, int y, int w, const struct serving *sv, int64_t t0, int64_t t1,
			  double *sizes);
/* Serving output's forwards over [t0, t1) in w cells: a block where one runs (the gaps are
 * the bubbles between them). */
void view_serving_forwards(struct canvas *cv, int x, int y, int w, const struct serving *sv, int64_t t0, int64_t t1);
/* The style of a category. */
enum style category_style(int cat);
/* A glyph per category, so that categories differ without colour too. */
uint32_t category_glyph(int cat, double coverage);

#endif
