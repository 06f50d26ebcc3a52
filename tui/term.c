/* SPDX-License-Identifier: MIT */
/* ncursesw backend: colors with a monochrome fallback, wide characters, signals. */
#include "term.h"

#include <curses.h>
#include <errno.h>
#include <locale.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "actions.h"
#include "i18n.h"
#include "xalloc.h"

volatile sig_atomic_t term_quit_signal;

static enum term_mode mode = TERM_HEADLESS;
static bool open_ = false;
static bool colors = false;
static SCREEN *screen;
static FILE *out_file, *in_file;
static int hw = 80, hh = 24;

/* Colour pair and attributes per style; categories also differ by glyph in the views, so
 * the monochrome fallback loses nothing but colour. */
static const struct { short fg, bg; attr_t attr, mono; } styles[ST_COUNT] = {
	[ST_NORMAL] = {-1, -1, A_NORMAL, A_NORMAL},
	[ST_DIM] = {-1, -1, A_DIM, A_DIM},
	[ST_BOLD] = {-1, -1, A_BOLD, A_BOLD},
	[ST_TITLE] = {COLOR_BLACK, COLOR_CYAN, A_NORMAL, A_REVERSE},
	[ST_TAB] = {COLOR_BLACK, COLOR_YELLOW, A_BOLD, A_REVERSE | A_BOLD},
	[ST_STATUS] = {COLOR_BLACK, COLOR_WHITE, A_NORMAL, A_REVERSE},
	[ST_HEADER] = {COLOR_CYAN, -1, A_BOLD, A_BOLD | A_UNDERLINE},
	[ST_SELECTED] = {COLOR_BLACK, COLOR_YELLOW, A_NORMAL, A_REVERSE},
	[ST_WARN] = {COLOR_YELLOW, -1, A_BOLD, A_BOLD},
	[ST_ERROR] = {COLOR_RED, -1, A_BOLD, A_BOLD | A_UNDERLINE},
	[ST_GOOD] = {COLOR_GREEN, -1, A_NORMAL, A_NORMAL},
	[ST_KEY] = {COLOR_YELLOW, -1, A_BOLD, A_BOLD},
	[ST_MARK] = {COLOR_MAGENTA, -1, A_BOLD, A_BOLD},
	[ST_CAT_COMPUTE] = {COLOR_GREEN, -1, A_NORMAL, A_NORMAL},
	[ST_CAT_COMM] = {COLOR_MAGENTA, -1, A_BOLD, A_BOLD},
	[ST_CAT_COPY] = {COLOR_RED, -1, A_BOLD, A_UNDERLINE},
	[ST_CAT_SCHED] = {COLOR_BLUE, -1, A_NORMAL, A_DIM},
	[ST_CAT_OTHER] = {-1, -1, A_DIM, A_DIM},
};

static void on_quit_signal(int sig)
{
	term_quit_signal = sig; /* the exit status says which: 128 + sig, as shells expect */
}

static void on_fatal_signal(int sig)
{
	/* best effort: the terminal must not stay in curses mode */
	if (open_ && mode == TERM_REAL) {
		static const char reset[] = "\033[?1049l\033[?25h\033[0m\r\n";
		ssize_t r = write(STDOUT_FILENO, reset, sizeof reset - 1);
		(void)r;
	}
	signal(sig, SIG_DFL);
	raise(sig);
}

static void oom_hook(void) { term_close(); }

int term_open(enum term_mode m, const char *out_path, int headless_w, int headless_h)
{
	mode = m;
	hw = headless_w > 0 ? headless_w : 80;
	hh = headless_h > 0 ? headless_h : 24;
	if (m == TERM_HEADLESS)
		return 0;
	setlocale(LC_ALL, "");
	/* wide characters from the locale, but numbers always with a decimal point: printf and
	 * strtod (":goto 21.3") must not change with LC_NUMERIC */
	setlocale(LC_NUMERIC, "C");
	if (m == TERM_REAL) {
		if (!isatty(STDIN_FILENO) || !isatty(STDOUT_FILENO)) {
			fputs(_("ascprof-tui: not a terminal; use --report or --summary for text output\n"), stderr);
			return -1;
		}
		screen = newterm(NULL, stdout, stdin);
	} else {
		out_file = fopen(out_path, "w");
		in_file = fopen("/dev/null", "r");
		if (!out_file || !in_file) {
			fprintf(stderr, _("ascprof-tui: cannot open %s: %s\n"), out_path, strerror(errno));
			return -1;
		}
		const char *t = getenv("TERM");
		screen = newterm(t && *t ? t : "xterm-256color", out_file, in_file);
	}
	if (!screen) {
		fprintf(stderr, _("ascprof-tui: cannot start the terminal (TERM=%s)\n"),
			getenv("TERM") ? getenv("TERM") : "");
		return -1;
	}
	open_ = true;
	xalloc_set_oom_hook(oom_hook);
	atexit(term_close);
	struct sigaction sa;
	memset(&sa, 0, sizeof sa);
	sa.sa_handler = on_quit_signal;
	sigaction(SIGINT, &sa, NULL);
	sigaction(SIGTERM, &sa, NULL);
	sigaction(SIGHUP, &sa, NULL);
	sa.sa_handler = on_fatal_signal;
	sa.sa_flags = SA_RESETHAND;
	sigaction(SIGSEGV, &sa, NULL);
	sigaction(SIGBUS, &sa, NULL);
	sigaction(SIGABRT, &sa, NULL);
	sigaction(SIGFPE, &sa, NULL);
	cbreak();
	noecho();
	nonl();
	intrflush(stdscr, FALSE);
	keypad(stdscr, TRUE);
	set_escdelay(25);
	curs_set(0);
	const char *no_color = getenv("NO_COLOR"); /* no-color.org: set and not empty */
	colors = has_colors() && !(no_color && *no_color);
	if (colors) {
		start_color();
		use_default_colors();
		for (int s = 0; s < ST_COUNT; s++)
			init_pair((short)(s + 1), styles[s].fg, styles[s].bg);
	}
	if (m == TERM_FILE)
		resizeterm(hh, hw);
	return 0;
}

void term_close(void)
{
	if (!open_)
		return;
	open_ = false;
	endwin();
	if (screen) {
		delscreen(screen);
		screen = NULL;
	}
	if (out_file) {
		fclose(out_file);
		out_file = NULL;
	}
	if (in_file) {
		fclose(in_file);
		in_file = NULL;
	}
}

void term_size(int *w, int *h)
{
	if (mode == TERM_REAL && open_) {
		*w = COLS;
		*h = LINES;
	} else {
		*w = hw;
		*h = hh;
	}
}

void term_set_size(int w, int h)
{
	hw = w;
	hh = h;
	if (mode == TERM_FILE && open_)
		resizeterm(h, w);
}

bool term_has_colors(void) { return colors; }

void term_draw(const struct canvas *cv)
{
	if (!open_)
		return;
	for (int y = 0; y < cv->h && y < LINES; y++) {
		for (int x = 0; x < cv->w && x < COLS; x++) {
			const struct cell *c = &cv->c[y * cv->w + x];
			if (c->ch == 0)
				continue;
			if (c->width == 2 && x + 1 >= COLS)
				continue;
			wchar_t wc[2] = {(wchar_t)c->ch, 0};
			cchar_t cc;
			attr_t a = colors ? styles[c->style].attr : styles[c->style].mono;
			setcchar(&cc, wc, a, colors ? (short)(c->style + 1) : 0, NULL);
			mvwadd_wch(stdscr, y, x, &cc);
		}
	}
	wnoutrefresh(stdscr);
	doupdate();
}

int term_key(int timeout_ms)
{
	if (!open_ || mode != TERM_REAL)
		return -1;
	wtimeout(stdscr, timeout_ms);
	wint_t wc;
	int r = wget_wch(stdscr, &wc);
	if (r == ERR)
		return -1;
	if (r == KEY_CODE_YES)
		return KEYCODE_FN((int)wc);
	return (int)wc;
}
