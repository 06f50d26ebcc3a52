/* SPDX-License-Identifier: MIT */
/* The terminal: curses owned by the main thread. It copies a canvas to the screen, reads
 * keys with a timeout, and restores the terminal on every exit path (normal exit,
 * SIGINT, SIGTERM, SIGHUP, fatal signals, out of memory). A headless mode draws nothing
 * (scripted tests), or writes curses' output to a file (to inspect the raw bytes). */
#ifndef ASCPROF_TERM_H
#define ASCPROF_TERM_H

#include <signal.h>
#include <stdbool.h>

#include "canvas.h"

enum term_mode {
	TERM_REAL,     /* the user's terminal */
	TERM_FILE,     /* curses writing to a file, keys from a script (tests) */
	TERM_HEADLESS, /* no curses at all (scripted tests) */
};

/* Set from signal handlers to the signal number; the main loop quits when it sees it. */
extern volatile sig_atomic_t term_quit_signal;

/* Starts the terminal. For TERM_FILE, out_path (borrowed for the call: the file is opened
 * then) receives curses' bytes. Returns 0, or -1 with a message on stderr (not a terminal,
 * unknown TERM). */
int term_open(enum term_mode mode, const char *out_path, int headless_w, int headless_h);
/* Restores the terminal; safe to call more than once and from atexit. */
void term_close(void);
/* The screen's size into *w and *h (the caller's). */
void term_size(int *w, int *h);
/* Headless modes: the size a script set. */
void term_set_size(int w, int h);
/* Copies the canvas (borrowed for the call) to the screen (one doupdate). */
void term_draw(const struct canvas *cv);
/* The next key (see actions.h for codes), or -1 after timeout_ms (-1 = wait). A resize
 * comes as KEYCODE_FN(KEY_RESIZE). */
int term_key(int timeout_ms);
bool term_has_colors(void);

#endif
