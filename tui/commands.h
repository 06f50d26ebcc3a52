/* SPDX-License-Identifier: MIT */
/* The one command table: every `:` command with its names, its argument synopsis, its
 * handler and its help text. Dispatch, the help view, `--list-commands` and the man-page
 * check are all generated from it, as the action table does for keys. */
#ifndef ASCPROF_COMMANDS_H
#define ASCPROF_COMMANDS_H

#include <stdio.h>

struct app;

/* X(id, "names", "arguments", handler, "help"): names are space-separated, the first is
 * the command's own; the help is 5th so that po/Makevars' X:5,5t keyword extracts it. */
#define COMMANDS(X)                                                                                \
	X(RANK, "rank", "N", cmd_rank, "Select rank N")                                             \
	X(VIEW, "view", "NAME", cmd_view, "Open a view by name (any case)")                         \
	X(GOTO, "goto", "MS", cmd_goto, "Timeline: 1 ms centred MS ms after the rank's first event")  \
	X(ZOOM, "zoom", "MS MS", cmd_zoom, "Timeline: that interval, in ms from the rank's first event") \
	X(SEARCH, "search", "TEXT", cmd_search, "Search the current view, as /")                   \
	X(EXPORT, "export export!", "FILE", cmd_export,                                              \
	  "Write the current view's table as CSV (export! overwrites)")                              \
	X(QUIT, "quit q", "", cmd_quit, "Quit")

/* A handler: word is the name typed (an alias says which), rest the arguments, trimmed
 * of leading blanks (both borrowed). Defined in commands.c. */
typedef void command_fn(struct app *app, const char *word, const char *rest);
#define COMMAND_DECL(id, names, args, fn, help) command_fn fn;
COMMANDS(COMMAND_DECL)
#undef COMMAND_DECL

enum command {
#define COMMAND_ENUM(id, names, args, fn, help) CMD_##id,
	COMMANDS(COMMAND_ENUM)
#undef COMMAND_ENUM
	CMD_COUNT
};

/* Every string is a static literal (help marked for translation: translate it where it
 * is shown). */
struct command_def {
	const char *names;
	const char *args;
	command_fn *run;
	const char *help;
};
extern const struct command_def command_defs[CMD_COUNT];

/* The command one of whose names is word (borrowed for the call); NULL when none is. The
 * result points into command_defs (static). */
const struct command_def *commands_lookup(const char *word);
/* Writes the first name of every command, separated by sep, into buf (the caller's, size
 * bytes, always terminated; for messages). */
void commands_names(char *buf, size_t size, const char *sep);
/* Prints the table: names, arguments, help (for --list-commands). out is borrowed. */
void commands_print(FILE *out);

#endif
