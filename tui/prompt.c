/* SPDX-License-Identifier: MIT */
/* The prompt line (prompt.h): its text, and what Enter does with it. */
#include "prompt.h"

#include <curses.h>
#include <stdio.h>
#include <string.h>

#include "app_parts.h"
#include "commands.h"
#include "i18n.h"

static void run_command(struct app *app, const char *line)
{
	char word[64] = "";
	const char *rest = line;
	while (*rest == ' ')
		rest++;
	size_t n = strcspn(rest, " ");
	if (n >= sizeof word)
		n = sizeof word - 1;
	memcpy(word, rest, n);
	word[n] = '\0';
	rest += n;
	while (*rest == ' ')
		rest++;
	const struct command_def *cmd = commands_lookup(word);
	if (cmd) {
		cmd->run(app, word, rest);
	} else if (word[0]) {
		char names[256];
		/* TRANSLATORS: between the command names of "unknown command: %s (try %s)" */
		commands_names(names, sizeof names, _(", "));
		app_message(app, ST_WARN, _("unknown command: %s (try %s)"), word, names);
	}
}

static void prompt_submit(struct app *app)
{
	char text[256];
	snprintf(text, sizeof text, "%.*s", (int)app->prompt_len, app->prompt);
	char kind = app->prompt_kind;
	app->prompt_kind = 0;
	enum view_id v = app_top_view(app);
	const struct view_ops *vo = app_view_ops(app, v);
	if (kind == ':') {
		run_command(app, text);
	} else if (kind == '/') {
		app_search(app, text, 0);
	} else if (kind == '\\') {
		if (vo->filter)
			vo->filter(app_view_state(app, v), app, text);
		else
			app_message(app, ST_WARN, _("%s has no filter (the Ops view has)"), _(vo->title));
	}
	app->dirty = true;
}

void prompt_key(struct app *app, int key)
{
	if (key == 27) {
		app->prompt_kind = 0;
	} else if (key == '\r' || key == '\n' || key == KEYCODE_FN(KEY_ENTER)) {
		prompt_submit(app);
	} else if (key == 127 || key == 8 || key == KEYCODE_FN(KEY_BACKSPACE)) {
		/* drop one UTF-8 character */
		while (app->prompt_len > 0) {
			unsigned char c = (unsigned char)app->prompt[--app->prompt_len];
			if ((c & 0xC0) != 0x80)
				break;
		}
	} else if (key >= 32 && key < 0x110000 && key != 127) {
		char enc[4];
		int n = 0;
		if (key < 0x80)
			enc[n++] = (char)key;
		else if (key < 0x800) {
			enc[n++] = (char)(0xC0 | (key >> 6));
			enc[n++] = (char)(0x80 | (key & 0x3F));
		} else if (key < 0x10000) {
			enc[n++] = (char)(0xE0 | (key >> 12));
			enc[n++] = (char)(0x80 | ((key >> 6) & 0x3F));
			enc[n++] = (char)(0x80 | (key & 0x3F));
		} else {
			enc[n++] = (char)(0xF0 | (key >> 18));
			enc[n++] = (char)(0x80 | ((key >> 12) & 0x3F));
			enc[n++] = (char)(0x80 | ((key >> 6) & 0x3F));
			enc[n++] = (char)(0x80 | (key & 0x3F));
		}
		if (app->prompt_len + (size_t)n < sizeof app->prompt) {
			memcpy(app->prompt + app->prompt_len, enc, (size_t)n);
			app->prompt_len += (size_t)n;
		}
	}
	app->dirty = true;
}
