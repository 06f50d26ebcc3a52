/* SPDX-License-Identifier: MIT */
/* MoE (key X): ranks x MoE layers (moe.h). One row per rank: the tokens its experts got,
 * grouped-matmul time, dispatch and combine wait, then one cell per layer (the n-th of a
 * step, summed over the steps): its tokens (or, without shapes, its grouped-matmul time)
 * against the layer's median across ranks as a height, coloured from 1.2 x up. h l move
 * the layer; Enter opens that layer on that rank in the Timeline. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "moe.h"
#include "num.h"
#include "views.h"
#include "xalloc.h"

struct moe_view {
	struct listbox lb;
	size_t col; /* the layer selected */
};

static void *create(struct app *app)
{
	(void)app;
	return xcalloc(1, sizeof(struct moe_view));
}

static void destroy(void *p) { free(p); }

static double ms(int64_t ns) { return (double)ns / 1e6; }

static int64_t cell_load(const struct moe_analysis *m, size_t r, size_t l)
{
	const struct moe_cell *c = &m->cells[r * m->n_layers + l];
	return m->tokens_known ? c->tokens : c->gmm_ns;
}

/* The layer's median load across the ranks (nearest rank, as the imbalance's). */
static int64_t layer_median(const struct moe_analysis *m, size_t l)
{
	int64_t v[64];
	size_t n = 0;
	for (size_t r = 0; r < m->n_ranks && n < 64; r++) {
		int64_t x = cell_load(m, r, l);
		size_t j = n++;
		for (; j > 0 && v[j - 1] > x; j--)
			v[j] = v[j - 1];
		v[j] = x;
	}
	return n ? v[(n + 1) / 2 - 1] : 0;
}

static void draw_head(const struct moe_analysis *m, struct canvas *cv, int x, int *yy, int w)
{
	canvas_textf(cv, x + 1, (*yy)++, w - 2, ST_BOLD, _("MoE: %zu layer(s) per step on %zu ranks; cells: %s against the layer's median"),
		     m->n_layers, m->n_ranks, m->tokens_known ? _("tokens") : _("grouped-matmul time"));
	if (m->verdict)
		canvas_text(cv, x + 1, (*yy)++, w - 2, ST_WARN, m->verdict);
	else if (m->hot_rank >= 0)
		canvas_textf(cv, x + 1, (*yy)++, w - 2, ST_GOOD,
			     _("experts balanced: the most loaded rank (%d) takes %.2f x the median"), m->hot_rank,
			     m->imbalance);
	if (!m->tokens_known)
		canvas_text(cv, x + 1, (*yy)++, w - 2, ST_DIM,
			    _("no GroupedMatmul shapes: grouped-matmul time stands in for the tokens"));
	else if (m->tokens_from != MOE_TOK_SHAPES) /* the kernel table's, the usual source, goes unsaid */
		canvas_text(cv, x + 1, (*yy)++, w - 2, ST_DIM,
			    m->tokens_from == MOE_TOK_DIMS
			            ? _("tokens from the Input Dims of the host ops that launch GroupedMatmul")
			            : _("tokens from GroupedMatmul shapes, else the launching host ops' Input Dims"));
}

static void draw(void *p, struct app *app, struct canvas *cv, int x, int y, int w, int h)
{
	struct moe_view *v = p;
	const struct published *pub = app_pub(app);
	if (!pub) {
		canvas_text(cv, x + 1, y + 1, w - 2, ST_DIM, _("loading..."));
		return;
	}
	const struct moe_analysis *m = pub->an->moe;
	if (!m || !m->present) {
		canvas_textf(cv, x + 1, y + 1, w - 2, ST_DIM, _("no MoE layers: %s"),
			     m && m->why ? _(m->why) : _("not analysed"));
		return;
	}
	int yy = y;
	draw_head(m, cv, x, &yy, w);
	if (v->col >= m->n_layers)
		v->col = m->n_layers ? m->n_layers - 1 : 0;
	canvas_fill(cv, x, yy, w, 1, ' ', ST_HEADER);
	/* TRANSLATORS: column titles: each keeps the cells of its column */
	const char *head = _("rank     tokens     gmm ms  disp wait  comb wait  ");
	int head_w = canvas_width(head), cells_x = x + 1 + head_w, cells_w = x + w - 1 - cells_x;
	size_t first = cells_w > 0 && v->col >= (size_t)cells_w ? v->col - (size_t)cells_w + 1 : 0;
	canvas_textf(cv, x + 1, yy++, w - 2, ST_HEADER, _("%slayers (layer %zu selected)"), head, v->col);
	int table_h = y + h - yy;
	v->lb.n = m->n_ranks;
	listbox_clamp(&v->lb, table_h > 0 ? table_h : 1);
	int64_t *med = xmalloc((m->n_layers ? m->n_layers : 1) * sizeof *med);
	for (size_t l = 0; l < m->n_layers; l++)
		med[l] = layer_median(m, l);
	static const uint32_t level[] = {0x2581, 0x2582, 0x2583, 0x2584, 0x2585, 0x2586, 0x2587, 0x2588};
	for (int r = 0; r < table_h && v->lb.top + (size_t)r < m->n_ranks; r++) {
		size_t i = v->lb.top + (size_t)r;
		const struct moe_rank_fig *f = &m->ranks[i];
		bool sel = i == v->lb.sel, hot = f->rank == m->hot_rank && m->verdict;
		int ry = yy + r;
		if (sel)
			canvas_fill(cv, x, ry, w, 1, ' ', ST_SELECTED);
		char tok[24] = "n/a";
		if (f->tokens >= 0)
			snprintf(tok, sizeof tok, "%lld", (long long)f->tokens);
		canvas_textf(cv, x + 1, ry, head_w, sel ? ST_SELECTED : hot ? ST_WARN : ST_NORMAL, "%-5d %9s %10.3f %10.3f %10.3f",
			     f->rank, tok, ms(f->gmm_ns), ms(f->dispatch_wait_ns), ms(f->combine_wait_ns));
		/* a cell per layer: load against the layer's median, 0.5x .. 2x */
		for (int c = 0; c < cells_w && first + (size_t)c < m->n_layers; c++) {
			size_t l = first + (size_t)c;
			double rel = med[l] > 0 ? (double)cell_load(m, i, l) / (double)med[l] : 1;
			int lv = num_level((rel - 0.5) / 1.5, 7);
			enum style st = sel && l == v->col ? ST_SELECTED
			                : rel >= 1.5        ? ST_CAT_COMM
			                : rel >= 1.2        ? ST_WARN
			                                    : ST_CAT_COMPUTE;
			canvas_set(cv, cells_x + c, ry, sel && l == v->col ? '*' : level[lv], st);
		}
	}
	free(med);
}

static int handle(void *p, struct app *app, enum action act)
{
	struct moe_view *v = p;
	if (listbox_handle(&v->lb, act))
		return VH_HANDLED;
	const struct published *pub = app_pub(app);
	const struct moe_analysis *m = pub ? pub->an->moe : NULL;
	if (!m || !m->present)
		return VH_UNHANDLED;
	if (act == ACT_COLUMN_RIGHT || act == ACT_COLUMN_LEFT) {
		if (act == ACT_COLUMN_RIGHT && v->col + 1 < m->n_layers)
			v->col++;
		else if (act == ACT_COLUMN_LEFT && v->col)
			v->col--;
		return VH_HANDLED;
	}
	if (act != ACT_OPEN || v->lb.sel >= m->n_ranks || v->col >= m->n_layers)
		return VH_UNHANDLED;
	const struct rank_analysis *ra = &pub->an->ranks[v->lb.sel];
	const struct moe_cell *c = &m->cells[v->lb.sel * m->n_layers + v->col];
	if (pub->an->from_digests || c->event == UINT32_MAX) {
		app_message(app, ST_WARN, _("rank %d: no event of layer %zu to show"), app_ra_rank(ra), v->col);
		return VH_HANDLED;
	}
	/* the layer's first grouped matmul, selected, with a few ms around it */
	struct view_target tg = {.timeline = {app_ra_rank_index(ra), c->ts - 1000000, c->ts + 4000000, c->event}};
	app_open(app, VIEW_TIMELINE, &tg);
	return VH_HANDLED;
}

const struct view_ops moe_view_ops = {
	.title = N_("MoE"),
	.scopes = KS_LIST,
	.create = create,
	.destroy = destroy,
	.draw = draw,
	.handle = handle,
	.hint = N_("Enter: the layer on that rank in the Timeline   h l layer   cells: load vs the layer's median"),
};
