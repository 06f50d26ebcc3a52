/* SPDX-License-Identifier: MIT */
/* The canvas: a grid of cells every view draws into. The terminal backend copies it to
 * curses; the headless mode dumps it as text. Text enters only through canvas_text, which
 * measures widths with libunistring (a CJK character takes two cells) and writes control
 * characters, escape sequences and invalid bytes from the capture as visible escapes. */
#ifndef ASCPROF_CANVAS_H
#define ASCPROF_CANVAS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

enum style {
	ST_NORMAL,
	ST_DIM,
	ST_BOLD,
	ST_TITLE,    /* the top bar */
	ST_TAB,      /* the current view's tab */
	ST_STATUS,   /* the bottom line */
	ST_HEADER,   /* table headers, group rows */
	ST_SELECTED, /* the cursor row / event */
	ST_WARN,
	ST_ERROR,
	ST_GOOD,
	ST_KEY,      /* key names in help */
	ST_MARK,
	ST_CAT_COMPUTE, /* the five categories, in enum ev_category order */
	ST_CAT_COMM,
	ST_CAT_COPY,
	ST_CAT_SCHED,
	ST_CAT_OTHER,
	ST_COUNT
};

struct cell {
	uint32_t ch;   /* code point; 0 marks the right half of a wide character */
	uint8_t style;
	uint8_t width; /* 1 or 2 */
};

struct canvas {
	int w, h;
	struct cell *c; /* owned, w*h; replaced by canvas_resize */
};

/* cv is the caller's (usually inside struct app); canvas_init allocates its cells and
 * canvas_free releases them. No call keeps a pointer to the text it is given. */
void canvas_init(struct canvas *cv, int w, int h);
void canvas_free(struct canvas *cv);
void canvas_resize(struct canvas *cv, int w, int h);
void canvas_clear(struct canvas *cv);
/* One code point at (x, y); ignored outside the canvas. */
void canvas_set(struct canvas *cv, int x, int y, uint32_t ch, enum style st);
void canvas_fill(struct canvas *cv, int x, int y, int w, int h, uint32_t ch, enum style st);
/* Re-styles cells without changing their text. */
void canvas_restyle(struct canvas *cv, int x, int y, int w, enum style st);
/* Draws UTF-8 text from capture or code, sanitised, clipped to maxw columns (an ellipsis
 * marks a cut). Returns the columns used. */
int canvas_text(struct canvas *cv, int x, int y, int maxw, enum style st, const char *s);
int canvas_textn(struct canvas *cv, int x, int y, int maxw, enum style st, const char *s, size_t len);
int canvas_textf(struct canvas *cv, int x, int y, int maxw, enum style st, const char *fmt, ...)
	__attribute__((format(printf, 6, 7)));
/* Draws text wrapped at breaks (after a space, comma, semicolon or wide character, else
 * / _ :) over at most max_lines lines of w columns (0: as many as it takes; the last line
 * ends with an ellipsis when text is left).
 * With cv NULL only measures. Returns the lines used. */
int canvas_wrap(struct canvas *cv, int x, int y, int w, int max_lines, enum style st, const char *s);
/* Right-aligned in [x, x+w). */
void canvas_text_right(struct canvas *cv, int x, int y, int w, enum style st, const char *s);
/* The byte offset in s of the first character at or after display column col (strlen(s)
 * when the text is narrower). */
size_t canvas_byte_at(const char *s, int col);
/* Display width of text as canvas_text would draw it. */
int canvas_width(const char *s);
/* The canvas as text, one line per row, trailing spaces trimmed (owned by the caller:
 * free it). */
char *canvas_dump(const struct canvas *cv);

#endif
