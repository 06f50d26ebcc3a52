/* SPDX-License-Identifier: MIT */
/* Small drawing helpers shared by the views. */
#include "views.h"

enum style category_style(int cat)
{
	switch (cat) {
	case CAT_COMPUTE: return ST_CAT_COMPUTE;
	case CAT_COMM: return ST_CAT_COMM;
	case CAT_COPY: return ST_CAT_COPY;
	case CAT_SCHED: return ST_CAT_SCHED;
	default: return ST_CAT_OTHER;
	}
}

uint32_t category_glyph(int cat, double coverage)
{
	if (coverage <= 0)
		return ' ';
	/* the shape says the category, the fill says how much of the cell is covered */
	bool full = coverage >= 0.5;
	switch (cat) {
	case CAT_COMPUTE: return full ? 0x2588 : 0x2584;  /* █ ▄ */
	case CAT_COMM: return full ? 0x2593 : 0x2592;     /* ▓ ▒ */
	case CAT_COPY: return full ? '#' : '+';
	case CAT_SCHED: return full ? '=' : '-';
	default: return full ? ':' : '.';
	}
}

void draw_bar(struct canvas *cv, int x, int y, int w, double frac, enum style st)
{
	if (frac < 0)
		frac = 0;
	if (frac > 1)
		frac = 1;
	int eighths = (int)(frac * w * 8 + 0.5);
	for (int i = 0; i < w; i++) {
		int e = eighths - i * 8;
		uint32_t ch = e >= 8 ? 0x2588 : e <= 0 ? 0x00B7 : (uint32_t)(0x2590 - e); /* ▏..▉ */
		if (e > 0 && e < 8)
			ch = (uint32_t)(0x258F - (e - 1)); /* U+258F ▏ (1/8) .. U+2589 ▉ (7/8) */
		canvas_set(cv, x + i, y, ch, e > 0 ? st : ST_DIM);
	}
}
